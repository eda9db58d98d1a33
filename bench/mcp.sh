#!/bin/sh
# Cost of arcturn mcp's tools against the CLI they stand for, printed as
# ratios of medians over alternating rounds (timings on a shared machine
# are noisy; ratios from one run hold):
#   - N read_file calls over one running server (request, wait for the
#     reply, next) against N `arcturn read` processes on the same file
#     (the target: at most 0.5);
#   - M run_command {["true"]} calls against M `arcturn exec --checkpoint
#     -- true` (what run_command runs, not under dry run, where the mount
#     layer is: its writes are a turn undo takes back).
# Not a test: it prints, and exits 1 only when it could not measure.
# Needs python3 (it drives both sides, so each pays the same client cost).
#
#   bench/mcp.sh [N [M [ROUNDS]]]   (default 1000 200 5)
set -eu
cd "$(dirname "$0")/.."
n=${1:-1000}
m=${2:-200}
rounds=${3:-5}
make -s build/arcturn
command -v python3 >/dev/null || { echo "bench: python3 missing" >&2; exit 1; }
out=$(mktemp -d /tmp/arcturn-bench.XXXXXX)
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/ws" "$out/tmp" "$out/home"
export HOME="$out/home" TMPDIR="$out/tmp"
head -c 4096 /dev/urandom | base64 >"$out/ws/file.txt"
A=$PWD/build/arcturn
cd "$out/ws"
"$A" exec -- true	# creates ~/.arcturn and its folders, as any first run
python3 - "$A" "$n" "$m" "$rounds" <<'PY'
import json, statistics, subprocess, sys, time

arc, n, m, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
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
want = open("file.txt").read()
assert rpc("tools/call", {"name": "read_file", "arguments": {"path": "file.txt"}})["structuredContent"]["content"] == want

def mcp_read(k):
    t = time.perf_counter()
    for _ in range(k):
        rpc("tools/call", {"name": "read_file", "arguments": {"path": "file.txt"}})
    return time.perf_counter() - t

def cli_read(k):
    t = time.perf_counter()
    for _ in range(k):
        subprocess.run([arc, "read", "file.txt"], stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t

def mcp_true(k):
    t = time.perf_counter()
    for _ in range(k):
        r = rpc("tools/call", {"name": "run_command", "arguments": {"command": ["true"]}})
        assert r["structuredContent"]["exitCode"] == 0
    return time.perf_counter() - t

def cli_true(k):
    t = time.perf_counter()
    for _ in range(k):
        subprocess.run([arc, "exec", "--checkpoint", "--", "true"], check=True)
    return time.perf_counter() - t

res = {f: [] for f in (mcp_read, cli_read, mcp_true, cli_true)}
for i in range(rounds):
    order = [(mcp_read, n), (cli_read, n), (mcp_true, m), (cli_true, m)]
    if i % 2:
        order = [order[1], order[0], order[3], order[2]]
    for f, k in order:
        res[f].append(f(k))
srv.stdin.close()
srv.wait()
med = {f.__name__: statistics.median(v) for f, v in res.items()}
print("rounds: %d (median of each)" % rounds)
print("  %d read_file over one server:     %8.3f s  (%6.1f us a call)" % (n, med["mcp_read"], med["mcp_read"] / n * 1e6))
print("  %d arcturn read processes:        %8.3f s  (%6.1f us a call)" % (n, med["cli_read"], med["cli_read"] / n * 1e6))
print("  ratio read_file / arcturn read:   %8.3f  (target: at most 0.5)" % (med["mcp_read"] / med["cli_read"]))
print("  %d run_command [\"true\"]:          %8.3f s  (%6.2f ms a call)" % (m, med["mcp_true"], med["mcp_true"] / m * 1e3))
print("  %d arcturn exec --checkpoint true:%8.3f s  (%6.2f ms a call)" % (m, med["cli_true"], med["cli_true"] / m * 1e3))
print("  ratio run_command / exec:         %8.3f" % (med["mcp_true"] / med["cli_true"]))
PY
