"""Connect from the main thread and from N Python threads at once (the
twin of tests/tools/tclient.c, same arguments and output).

    tclient.py tcp HOST PORT N | unix PATH N
"""
import socket
import sys
import threading


def dial(args):
    if args[0] == "unix":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(args[1])
        except OSError:
            s.close()
            raise
        return s
    return socket.create_connection((args[1], int(args[2])), timeout=30)


def run(args, n, out):
    name = "main" if n < 0 else "t%d" % n
    try:
        s = dial(args)
        if args[0] == "unix":
            s.sendall(b"hi")
        else:
            s.sendall(b"GET /data/%d.txt HTTP/1.0\r\nHost: %s\r\n\r\n"
                      % (max(n, 0) % 8, args[1].encode()))
        data = b""
        while True:
            b = s.recv(4096)
            if not b:
                break
            data += b
        s.close()
        body = data.split(b"\r\n\r\n", 1)[-1].decode().split("\n")[0]
        out.append((True, "%s ok %s" % (name, body)))
    except OSError as e:
        out.append((False, "%s error %d %s %s" % (name, e.errno or 0,
                                                   type(e).__name__, e.strerror)))


def main():
    args = sys.argv[1:]
    if not ((len(args) == 4 and args[0] == "tcp") or
            (len(args) == 3 and args[0] == "unix")):
        sys.exit("usage: tclient.py tcp HOST PORT N | unix PATH N")
    out = []
    run(args, -1, out)
    threads = [threading.Thread(target=run, args=(args, i, out))
               for i in range(int(args[-1]))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for _, line in sorted(out, key=lambda r: r[1]):
        print(line)
    sys.exit(0 if all(ok for ok, _ in out) else 1)


main()
