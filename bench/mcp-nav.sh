#!/bin/sh
# Cost of arcturn mcp's navigation tools against the commands a shell
# would use, printed as ratios of medians over alternating pairs (timings
# on a shared machine are noisy; ratios from one run hold):
#   - list_directory of a folder of 10,000 files (over one running
#     server: request, wait for the reply) against `ls -1p` of it;
#   - search_files {pattern: "*.c"} over a tree of 50,000 files in 250
#     folders (500 of them match) against `find TREE -name '*.c'`.
# Each MCP call stays within the output budget (64 KiB): list_directory
# shows the first entries and counts them all; search_files shows and
# counts every match. Not a test: it prints, and exits 1 only when it
# could not measure. Needs python3.
#
#   bench/mcp-nav.sh [CALLS [ROUNDS]]   (default 20 7)
set -eu
cd "$(dirname "$0")/.."
calls=${1:-20}
rounds=${2:-7}
make -s build/arcturn
command -v python3 >/dev/null || { echo "bench: python3 missing" >&2; exit 1; }
out=$(mktemp -d /tmp/arcturn-bench.XXXXXX)
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/ws" "$out/tmp" "$out/home"
export HOME="$out/home" TMPDIR="$out/tmp"
A=$PWD/build/arcturn
cd "$out/ws"
python3 - "$A" "$calls" "$rounds" <<'PY'
import json, os, statistics, subprocess, sys, time

arc, calls, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.mkdir("flat")
for k in range(10000):
    open("flat/f%05d.txt" % k, "w").close()
for d in range(250):
    os.makedirs("tree/d%03d" % d)
    for k in range(200):
        name = "f%03d.%s" % (k, "c" if k % 100 == 0 else "txt")
        open("tree/d%03d/%s" % (d, name), "w").close()

srv = subprocess.Popen([arc, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
rid = 0

def rpc(method, params=None):
    global rid
    rid += 1
    msg = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        msg["params"] = params
    srv.stdin.write((json.dumps(msg) + "\n").encode())
    srv.stdin.flush()
    r = json.loads(srv.stdout.readline())
    if "error" in r or r["result"].get("isError"):
        sys.exit("bench: %s failed: %s" % (method, r))
    return r["result"]

rpc("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "bench", "version": "1"}})
ls = rpc("tools/call", {"name": "list_directory", "arguments": {"path": "flat"}})
assert ls["structuredContent"]["total"] == 10000, ls["structuredContent"]["total"]
assert len(ls["content"][0]["text"]) <= 65536 + 256
sf = rpc("tools/call", {"name": "search_files", "arguments": {"path": "tree", "pattern": "*.c"}})
assert sf["structuredContent"]["total"] == 500 and not sf["structuredContent"]["truncated"]

def mcp_list():
    t = time.perf_counter()
    for _ in range(calls):
        rpc("tools/call", {"name": "list_directory", "arguments": {"path": "flat"}})
    return time.perf_counter() - t

def ls_list():
    t = time.perf_counter()
    for _ in range(calls):
        subprocess.run(["ls", "-1p", "flat"], stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t

def mcp_search():
    t = time.perf_counter()
    for _ in range(calls):
        rpc("tools/call", {"name": "search_files", "arguments": {"path": "tree", "pattern": "*.c"}})
    return time.perf_counter() - t

def find_search():
    t = time.perf_counter()
    for _ in range(calls):
        subprocess.run(["find", "tree", "-name", "*.c"], stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t

res = {f: [] for f in (mcp_list, ls_list, mcp_search, find_search)}
for i in range(rounds):
    order = [mcp_list, ls_list, mcp_search, find_search]
    if i % 2:
        order = [ls_list, mcp_list, find_search, mcp_search]
    for f in order:
        res[f].append(f())
srv.stdin.close()
srv.wait()
med = {f.__name__: statistics.median(v) / calls for f, v in res.items()}
print("rounds: %d of %d calls each (median per call)" % (rounds, calls))
print("  list_directory, 10,000 entries:     %8.2f ms" % (med["mcp_list"] * 1e3))
print("  ls -1p, the same folder:            %8.2f ms" % (med["ls_list"] * 1e3))
print("  ratio list_directory / ls:          %8.3f" % (med["mcp_list"] / med["ls_list"]))
print("  search_files *.c, 50,000 files:     %8.2f ms" % (med["mcp_search"] * 1e3))
print("  find -name '*.c', the same tree:    %8.2f ms" % (med["find_search"] * 1e3))
print("  ratio search_files / find:          %8.3f" % (med["mcp_search"] / med["find_search"]))
PY
