#!/bin/sh
# Cost of the unix socket gate: a command that makes N connects (10,000 by
# default) to an allowed unix socket of a server outside the sandbox, under
# `arcturn exec --allow-unix` against the same command run directly, in
# alternating rounds (bench/alt.c), printed as the median per-round ratio.
# Then the same from 4 threads at once (N each), to the unix socket and to
# a TCP server on 127.0.0.1 (the gate traps every connect and makes it
# itself on its duplicate of the socket, TCP ones too), as ratios of medians.
# Not a test: it prints, and exits 1 only when it could not measure.
# Needs cc and musl-gcc (Debian: gcc, musl-tools).
#
#   bench/unix-connect.sh [ROUNDS] [N]
#
# ARCTURN_UNIX_GATE=seccomp is set for the sandboxed side, so the gate is
# measured even where Landlock could decide with RESOLVE_UNIX.
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-10}
n=${2:-10000}
make -s build/arcturn
for t in cc musl-gcc python3; do
	command -v "$t" >/dev/null || { echo "bench: $t missing" >&2; exit 1; }
done
out=$(mktemp -d /tmp/arcturn-bench.XXXXXX)
srv= tsrv=
trap 'for p in $srv $tsrv; do kill "$p"; done; rm -rf "$out"' EXIT
ws=$out/ws
mkdir -p "$ws" "$out/tmp" "$out/home" "$out/srv"
export HOME="$out/home" TMPDIR="$out/tmp"
# static, so that the command starts alike on both sides
musl-gcc -static -O2 -s -o "$out/unixconn" bench/unixconn.c
cc -O2 -o "$out/alt" bench/alt.c
A=$PWD/build/arcturn
sock=$out/srv/s.sock
"$out/unixconn" serve "$sock" &
srv=$!
mkfifo "$out/port"
"$out/unixconn" serve tcp >"$out/port" &
tsrv=$!
read -r port <"$out/port"
i=0
while [ ! -S "$sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
cd "$ws"
"$A" sandbox status | sed -n 's/^\(backend\|unix_sockets\):/  &/p'
# a refused connect must fail: the gate is really in the way
if "$A" exec -- "$out/unixconn" connect "$sock" 1 2>/dev/null; then
	echo "bench: the socket is reachable without --allow-unix" >&2
	exit 1
fi
"$out/alt" "$rounds" direct "$out/unixconn" connect "$sock" "$n" \
	:: -e ARCTURN_UNIX_GATE=seccomp gate "$A" exec --allow-unix "$sock" \
	    -- "$out/unixconn" connect "$sock" "$n" \
	:: direct-4t "$out/unixconn" connect "$sock" "$n" 4 \
	:: -e ARCTURN_UNIX_GATE=seccomp gate-4t "$A" exec --allow-unix "$sock" \
	    -- "$out/unixconn" connect "$sock" "$n" 4 \
	:: tcp-direct-4t "$out/unixconn" connect "$port" "$n" 4 \
	:: -e ARCTURN_UNIX_GATE=seccomp tcp-gate-4t "$A" exec \
	    -- "$out/unixconn" connect "$port" "$n" 4 >"$out/alt.txt"
python3 - "$out/alt.txt" "$n" <<'PY'
import sys
med, rel = {}, {}
for line in open(sys.argv[1]):
    name, ms, r = line.split()
    med[name], rel[name] = float(ms), float(r)
n = int(sys.argv[2])
for k in med:
    each = n * (4 if k.endswith("4t") else 1)
    print(f"  {k:13s} median {med[k]:9.3f} ms for {each} connects "
          f"({med[k] * 1e3 / each:6.2f} us each)")
r = rel["gate"]
print(f"{'connects under the gate / direct':58s} {r:5.2f}  (target <= 3) "
      f"{'ok' if r <= 3 else 'OVER'}")
for what, a, b in (("unix", "gate-4t", "direct-4t"),
                   ("TCP", "tcp-gate-4t", "tcp-direct-4t")):
    r = med[a] / med[b]
    print(f"{'4 threads connecting (' + what + '), gate / direct':58s} "
          f"{r:5.2f}  (target <= 4) {'ok' if r <= 4 else 'OVER'}")
PY
