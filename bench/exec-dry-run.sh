#!/bin/sh
# Cost of `arcturn exec --dry-run` against `arcturn exec` and against
# binpash/try running the same small script, in one run, printed as ratios
# of medians. Not a test.
#
#   TRY=/path/to/try bench/exec-dry-run.sh [RUNS]
#
# try is a public shell script (github: binpash/try); it is not part of
# arcturn and is never committed: obtain it yourself and point TRY at it.
# Without TRY that comparison is skipped. try mounts overlays on every
# top-level directory, so the workspace lives under bench/out/ (not /tmp).
#
# The dry-run cost depends on the file system that holds the state dir
# (every run mounts overlayfs there): BENCH_DIR=/some/dir puts the
# workspace and the state dir there instead of bench/out/, and the script
# prints which file system it measured.
set -eu
cd "$(dirname "$0")/.."
runs=${1:-300}
make -s build/arcturn
command -v hyperfine >/dev/null || { echo "bench: hyperfine missing" >&2; exit 1; }
base=${BENCH_DIR:-$PWD/bench/out}
mkdir -p "$base"
out=$(mktemp -d "$base/dry.XXXXXX")
trap 'rm -rf "$out"' EXIT
ws=$out/ws
mkdir -p "$ws" "$out/home" "$out/tmp"
echo hello >"$ws/a"
export HOME="$out/home" TMPDIR="$out/tmp"
printf 'int main(void){return 0;}\n' >"$out/true.c"
musl-gcc -static -O2 -s -o "$out/true" "$out/true.c"
A=$PWD/build/arcturn
T=$out/true
script='echo x > b; cat a >/dev/null'
cd "$ws"
"$A" exec --dry-run -- "$T"

hyperfine -N -w 20 -r "$runs" --export-json "$out/dry.json" \
	-n exec "$A exec -- $T" -n exec-dry-run "$A exec --dry-run -- $T" \
	>"$out/dry.txt" 2>&1 || { cat "$out/dry.txt"; exit 1; }
if [ -n "${TRY:-}" ] && [ -x "$TRY" ]; then
	hyperfine -w 3 -r 30 --export-json "$out/try.json" \
		-n arcturn "$A exec --dry-run -- sh -c '$script'" \
		-n try "$TRY -n '$script'" >"$out/try.txt" 2>&1 ||
		{ cat "$out/try.txt"; exit 1; }
else
	echo "bench: TRY not set: skipping the comparison with binpash/try"
fi
"$A" discard --yes >/dev/null
echo "state dir on: $({ findmnt -n -o FSTYPE,OPTIONS -T "$out/home" ||
	stat -f -c %T "$out/home"; } 2>/dev/null | head -n 1)"

python3 - "$out" <<'PY'
import json, os, sys
d = sys.argv[1]
med = {}
for j in ("dry", "try"):
    p = os.path.join(d, j + ".json")
    if os.path.exists(p):
        for r in json.load(open(p))["results"]:
            med[(j, r["command"])] = r["median"] * 1e3
for (j, k), v in med.items():
    print(f"  {j}:{k:14s} median {v:8.3f} ms")
r = med[("dry", "exec-dry-run")] / med[("dry", "exec")]
print(f"{'exec --dry-run -- true / exec -- true':50s} {r:6.3f} (target <= 2.0) {'ok' if r <= 2.0 else 'OVER'}")
if ("try", "try") in med:
    r = med[("try", "arcturn")] / med[("try", "try")]
    print(f"{'exec --dry-run SCRIPT / try -n SCRIPT':50s} {r:6.3f} (target <= 0.1) {'ok' if r <= 0.1 else 'OVER'}")
PY
