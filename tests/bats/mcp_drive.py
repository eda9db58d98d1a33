#!/usr/bin/env python3
"""Drive `arcturn mcp` as a client does: send the lines of stdin, keep the
server's stdin open until every one of them was handled, then close it
(the MCP stdio shutdown) and wait for the server to exit. The server's
stdout goes to ours, its stderr to ours; the exit status is the server's.

Closing stdin ends the calls still running (the client is gone), so a
test that pipes its requests would see them killed: the driver appends a
tools/list with id "mcp-drive-end", which the server answers only after
every line before it (a ping would be answered at once, even during a
call), and closes stdin once that reply came. Its reply is not printed.

    mcp_drive.py BIN mcp [ARGS...] <requests >replies
"""
import json
import subprocess
import sys
import threading

END = "mcp-drive-end"


def main():
    data = sys.stdin.buffer.read()
    p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE)
    timer = threading.Timer(300, p.kill)
    timer.start()
    try:
        p.stdin.write(data)
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": END,
                                  "method": "tools/list"}).encode() + b"\n")
        p.stdin.flush()
    except BrokenPipeError:
        pass
    out = sys.stdout.buffer
    for line in p.stdout:
        try:
            msg = json.loads(line)
        except ValueError:
            msg = None
        if isinstance(msg, dict) and msg.get("id") == END and "method" not in msg:
            try:
                p.stdin.close()
            except BrokenPipeError:
                pass
            continue
        out.write(line)
        out.flush()
    rc = p.wait()
    timer.cancel()
    sys.exit(rc)


main()
