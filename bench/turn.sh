#!/bin/sh
# What a checkpointed turn adds to `arcturn write` of one file: write
# with a turn open (`arcturn turn`; the write joins it) and without (each
# write is a turn of its own), against `write --dry-run` (no checkpoint),
# as differences of medians. Not a test.
#
#   bench/turn.sh [RUNS]
#
# Target (issue 12): a turn that writes one file adds at most 0.2 ms.
set -eu
cd "$(dirname "$0")/.."
runs=${1:-300}
make -s build/arcturn
command -v hyperfine >/dev/null || { echo "bench: hyperfine missing" >&2; exit 1; }
base=${BENCH_DIR:-$PWD/bench/out}
mkdir -p "$base"
out=$(mktemp -d "$base/turn.XXXXXX")
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/home" "$out/tmp" "$out/ws"
export HOME="$out/home" TMPDIR="$out/tmp"
unset ARCTURN_HOME ARCTURN_SESSION ARCTURN_DRY_RUN
A=$PWD/build/arcturn
cd "$out/ws"
printf 'content\n' >f
printf 'content\n' >in
"$A" write f <in

# checkpoints.keep bounds the store the runs fill
hyperfine -w 20 -r "$runs" --export-json "$out/own.json" \
	-n write-own-turn "$A write f <in" \
	>"$out/own.txt" 2>&1 || true
"$A" turn --label bench >/dev/null
hyperfine -w 20 -r "$runs" --export-json "$out/in.json" \
	-n write-in-turn "$A write f <in" \
	>"$out/in.txt" 2>&1 || true
"$A" discard --yes >/dev/null 2>&1 || true
hyperfine -w 20 -r "$runs" --export-json "$out/dry.json" \
	-n write-dry-run "$A write --dry-run f <in" \
	>"$out/dry.txt" 2>&1 || true
"$A" discard --yes >/dev/null 2>&1 || true

python3 - "$out" <<'PY'
import json, os, sys
d = sys.argv[1]
med = {}
for j in ("own", "in", "dry"):
    p = os.path.join(d, j + ".json")
    if not os.path.exists(p):
        print(open(os.path.join(d, j + ".txt")).read())
        sys.exit(1)
    for r in json.load(open(p))["results"]:
        med[r["command"]] = r["median"] * 1e3
for k, v in med.items():
    print(f"  {k:16s} median {v:8.3f} ms")
for k in ("write-own-turn", "write-in-turn"):
    dlt = med[k] - med["write-dry-run"]
    print(f"{k + ' - write-dry-run':36s} {dlt:+7.3f} ms (target <= 0.2) {'ok' if dlt <= 0.2 else 'OVER'}")
PY
