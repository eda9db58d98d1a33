#!/bin/sh
# What a checkpointed turn adds to `arcturn write` of one file, against
# `write --dry-run` (no checkpoint) of the same file, as differences of
# medians over alternating rounds (bench/alt.c), three sides:
#
#   write-dry-run	write --dry-run f	(a session; the baseline)
#   write-in-turn	write f, in a turn `arcturn turn` opened: the path
#			is checkpointed already, the write joins the turn
#   write-own-turn	write f with no turn open: each write is a turn of
#			its own (snapshot, record, retention of 50 turns)
#
# Each side has its own workspace; stdin is empty, so every write writes
# the same (empty) content. Not a test.
#
#   bench/turn.sh [ROUNDS]        (BUILD=dir for another build)
#
# Target (issue 12): a turn that writes one file adds at most 0.2 ms.
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-300}
build=${BUILD:-build}
[ "$build" != build ] || make -s build/arcturn
A=$PWD/$build/arcturn
base=${BENCH_DIR:-$PWD/bench/out}
mkdir -p "$base"
out=$(mktemp -d "$base/turn.XXXXXX")
trap 'rm -rf "$out"' EXIT
cc -O2 -o "$out/alt" bench/alt.c
mkdir -p "$out/home" "$out/tmp" "$out/dry" "$out/in" "$out/own"
export HOME="$out/home" TMPDIR="$out/tmp"
unset ARCTURN_HOME ARCTURN_SESSION ARCTURN_DRY_RUN
for w in dry in own; do : >"$out/$w/f"; done
"$A" -C "$out/in" write f </dev/null
"$A" -C "$out/in" turn --label bench >/dev/null
# the own-turn store starts full, so that retention runs as it will
for i in $(seq 1 55); do "$A" -C "$out/own" write f </dev/null; done

"$out/alt" "$rounds" write-dry-run "$A" -C "$out/dry" write --dry-run f \
	:: write-in-turn "$A" -C "$out/in" write f \
	:: write-own-turn "$A" -C "$out/own" write f \
	</dev/null >"$out/alt.txt" || { cat "$out/alt.txt"; exit 1; }
cat "$out/alt.txt"
awk '{ ms[$1] = $2 }
END {
	for (k in ms) if (k != "write-dry-run") {
		d = ms[k] - ms["write-dry-run"]
		printf "%s - write-dry-run: %+.3f ms (target <= 0.2): %s\n", k, d,
		    d <= 0.2 ? "ok" : "OVER"
	}
}' "$out/alt.txt"
