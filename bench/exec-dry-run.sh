#!/bin/sh
# Cost of `arcturn exec --dry-run` against `arcturn exec` and against
# binpash/try running the same small script, in one run in alternating
# rounds (bench/alt.c, as bench/exec.sh), printed as the median of the
# per-round ratios. Not a test. Needs musl-gcc and cc.
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
for t in musl-gcc cc; do
	command -v "$t" >/dev/null || { echo "bench: $t missing" >&2; exit 1; }
done
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
cc -O2 -o "$out/alt" bench/alt.c
A=$PWD/build/arcturn
T=$out/true
script='echo x > b; cat a >/dev/null'
cd "$ws"
"$A" exec --dry-run -- "$T"

# Alternating rounds (bench/alt.c): each line NAME median_ms ratio, the
# ratio the median of the per-round ratios to the first command.
"$out/alt" "$runs" exec "$A" exec -- "$T" \
	:: exec-dry-run "$A" exec --dry-run -- "$T" >"$out/dry.txt"
if [ -n "${TRY:-}" ] && [ -x "$TRY" ]; then
	"$out/alt" 30 arcturn "$A" exec --dry-run -- sh -c "$script" \
		:: try "$TRY" -n "$script" >"$out/try.txt"
else
	echo "bench: TRY not set: skipping the comparison with binpash/try"
fi
"$A" discard --yes >/dev/null
echo "state dir on: $({ findmnt -n -o FSTYPE,OPTIONS -T "$out/home" ||
	stat -f -c %T "$out/home"; } 2>/dev/null | head -n 1)"

awk '
	FILENAME ~ /dry.txt$/ { dry[$1] = $3; printf "  dry:%-14s median %8.3f ms\n", $1, $2 }
	FILENAME ~ /try.txt$/ { try[$1] = $3; printf "  try:%-14s median %8.3f ms\n", $1, $2 }
	END {
		r = dry["exec-dry-run"]
		printf "%-50s %6.3f (target <= 1.15) %s\n", "exec --dry-run -- true / exec -- true", r, r <= 1.15 ? "ok" : "OVER"
		if ("try" in try) {
			r = 1 / try["try"]
			printf "%-50s %6.3f (target <= 0.1) %s\n", "exec --dry-run SCRIPT / try -n SCRIPT", r, r <= 0.1 ? "ok" : "OVER"
		}
	}' "$out/dry.txt" $( [ -f "$out/try.txt" ] && echo "$out/try.txt")
