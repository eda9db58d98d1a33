"""Loopback servers for tests/bats/compat.bats, started outside arcturn.

    server.py http ROOT GITROOT PORTFILE PARENT
    server.py gitd GITROOT PORTFILE PARENT
    server.py unix SOCKET LOG READYFILE PARENT

http: files under ROOT (a folder is answered with its index.json or
index.html: a packument at /NAME, a simple index at /simple/NAME/), and
git's smart HTTP under /git/ (git http-backend run as a CGI script with
GIT_PROJECT_ROOT=GITROOT). gitd: git:// with `git daemon --inetd` for each
connection. unix: a stream socket that answers "ok" to each client and
appends "got WHAT IT SENT" to LOG.

Each binds 127.0.0.1 port 0 (or the socket), then writes the port (or
"ready") to PORTFILE through a rename: the test waits for that file, never
for a time. Each exits when the process PARENT (the bats run) is gone.
"""
import http.server
import os
import socket
import socketserver
import subprocess
import sys
import threading
import time
import urllib.parse


def ready(path, text):
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.rename(path + ".tmp", path)


def watch(parent):
    def loop():
        while True:
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                os._exit(0)
            except PermissionError:
                pass
            time.sleep(1)
    threading.Thread(target=loop, daemon=True).start()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    root = gitroot = None

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.handle_any()

    def do_POST(self):
        self.handle_any()

    def do_HEAD(self):
        self.handle_any()

    def handle_any(self):
        url = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(url.path)
        if path.startswith("/git/"):
            return self.cgi(path[len("/git"):], url.query)
        full = os.path.realpath(os.path.join(self.root, path.lstrip("/")))
        if not (full + "/").startswith(os.path.realpath(self.root) + "/"):
            return self.send_error(403)
        if os.path.isdir(full):
            for index in ("index.json", "index.html"):
                if os.path.isfile(os.path.join(full, index)):
                    full = os.path.join(full, index)
                    break
        if not os.path.isfile(full):
            return self.send_error(404)
        with open(full, "rb") as f:
            body = f.read()
        ctype = "application/octet-stream"
        if full.endswith(".json"):
            ctype = "application/json"
        elif full.endswith(".html"):
            ctype = "text/html"
        elif full.endswith(".txt"):
            ctype = "text/plain"
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def cgi(self, pathinfo, query):
        n = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(n) if n else b""
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": self.gitroot,
            "GIT_HTTP_EXPORT_ALL": "1",
            "GATEWAY_INTERFACE": "CGI/1.1",
            "REQUEST_METHOD": self.command,
            "PATH_INFO": pathinfo,
            "QUERY_STRING": query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(data)),
            "REMOTE_ADDR": self.client_address[0],
            "HOME": os.environ.get("HOME", "/"),
        }
        if self.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        p = subprocess.run(["git", "http-backend"], input=data, env=env,
            stdout=subprocess.PIPE)
        head, _, body = p.stdout.partition(b"\r\n\r\n")
        if not _:
            head, _, body = p.stdout.partition(b"\n\n")
        status, headers = 200, []
        for line in head.decode().splitlines():
            k, _, v = line.partition(":")
            if k.lower() == "status":
                status = int(v.split()[0])
            elif k:
                headers.append((k, v.strip()))
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class HTTPServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64


def serve_http(root, gitroot, portfile):
    Handler.root, Handler.gitroot = root, gitroot
    srv = HTTPServer(("127.0.0.1", 0), Handler)
    ready(portfile, str(srv.server_address[1]))
    srv.serve_forever()


class GitDaemon(socketserver.BaseRequestHandler):
    gitroot = None

    def handle(self):
        fd = self.request.fileno()
        subprocess.run(["git", "daemon", "--inetd", "--export-all",
            "--base-path=" + self.gitroot, self.gitroot],
            stdin=fd, stdout=fd, stderr=subprocess.DEVNULL)


class TCPServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    request_queue_size = 64


def serve_gitd(gitroot, portfile):
    GitDaemon.gitroot = gitroot
    srv = TCPServer(("127.0.0.1", 0), GitDaemon)
    ready(portfile, str(srv.server_address[1]))
    srv.serve_forever()


def serve_unix(path, log, readyfile):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(64)
    open(log, "a").close()
    ready(readyfile, "ready")
    while True:
        c, _ = s.accept()
        d = c.recv(200)
        c.sendall(b"ok")
        c.close()
        with open(log, "a") as f:
            f.write("got " + d.decode(errors="replace") + "\n")


def main():
    kind = sys.argv[1]
    watch(int(sys.argv[-1]))
    if kind == "http":
        serve_http(sys.argv[2], sys.argv[3], sys.argv[4])
    elif kind == "gitd":
        serve_gitd(sys.argv[2], sys.argv[3])
    elif kind == "unix":
        serve_unix(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit("server.py: unknown kind " + kind)


if __name__ == "__main__":
    main()
