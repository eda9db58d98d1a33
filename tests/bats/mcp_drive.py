#!/usr/bin/env python3
"""Drive `arcturn mcp` as a client does: send the lines of stdin, keep the
server's stdin open until every request among them was answered, then
close it (the MCP stdio shutdown) and wait for the server to exit. The
server's stdout goes to ours, its stderr to ours; the exit status is the
server's.

Closing stdin ends the calls still running (the client is gone), and the
server answers calls side by side, so the driver counts: it waits for a
reply to each request it sent (a line that parses as an object with a
method and an id), less those a notifications/cancelled named, then
closes stdin. A request the server never answers ends the drive after
300 s (killed).

    mcp_drive.py BIN mcp [ARGS...] <requests >replies
"""
import json
import subprocess
import sys
import threading


def key(i):
    return json.dumps(i, sort_keys=True)


def expected(data):
    want = {}
    for line in data.split(b"\n"):
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if not isinstance(m, dict) or not isinstance(m.get("method"), str):
            continue
        if "id" in m and isinstance(m["id"], (str, int, float)) \
                and not isinstance(m["id"], bool):
            want[key(m["id"])] = want.get(key(m["id"]), 0) + 1
        elif m.get("method") == "notifications/cancelled":
            r = key((m.get("params") or {}).get("requestId"))
            if want.get(r):
                want[r] -= 1
    return want


def main():
    data = sys.stdin.buffer.read()
    want = expected(data)
    p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE)
    timer = threading.Timer(300, p.kill)
    timer.start()

    def close():
        try:
            p.stdin.close()
        except BrokenPipeError:
            pass

    try:
        p.stdin.write(data)
        p.stdin.flush()
    except BrokenPipeError:
        pass
    if sum(want.values()) == 0:
        close()
    out = sys.stdout.buffer
    for line in p.stdout:
        out.write(line)
        out.flush()
        try:
            msg = json.loads(line)
        except ValueError:
            msg = None
        if isinstance(msg, dict) and "method" not in msg and "id" in msg:
            k = key(msg["id"])
            if want.get(k):
                want[k] -= 1
                if sum(want.values()) == 0:
                    close()
    rc = p.wait()
    timer.cancel()
    sys.exit(rc)


main()
