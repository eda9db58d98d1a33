#!/bin/sh
# Cost of `arcturn undo` of an apply against the apply's own time, on a
# corpus of 1,200 changes (600 files modified, 300 created, 300 deleted,
# across 30 directories), printed as the ratio of medians. Not a test.
#
#   bench/undo.sh [ROUNDS]
#   PEER=OTHER_ARCTURN bench/undo.sh [ROUNDS]
#
# With PEER, the rounds alternate between undo by this build and undo by
# the peer (the apply is this build's each time), and the ratio of their
# medians is printed too: a change to undo measured against the build
# before it on a loaded machine.
#
# Each round starts from the same tree, captures the changes with
# `write --dry-run` (not timed), then times `apply --yes` and `undo`.
# Target (issue 12): undo <= 1.0 x apply.
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-7}
# BENCH_ARCTURN: a copy to time (a rebuild meanwhile cannot swap it)
[ -n "${BENCH_ARCTURN:-}" ] || make -s build/arcturn
base=${BENCH_DIR:-$PWD/bench/out}
mkdir -p "$base"
out=$(mktemp -d "$base/undo.XXXXXX")
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/home" "$out/tmp" "$out/ws"
export HOME="$out/home" TMPDIR="$out/tmp"
unset ARCTURN_HOME ARCTURN_SESSION ARCTURN_DRY_RUN
A=${BENCH_ARCTURN:-$PWD/build/arcturn}
cd "$out/ws"

now() { date +%s%N; }

reset() {
	rm -rf "$out/ws/"* "$HOME/.arcturn"
	for d in $(seq 1 30); do
		mkdir -p "d$d"
		for f in $(seq 1 30); do
			printf 'line %s of d%s\n' "$f" "$d" >"d$d/f$f"
		done
	done
}

capture() {
	# the 1,200 changes, written into the session by one process
	for d in $(seq 1 30); do
		for f in $(seq 1 20); do
			printf 'changed %s\n' "$f" | ARCTURN_DRY_RUN=1 "$A" write "d$d/f$f"
		done
		for f in $(seq 31 40); do
			printf 'new %s\n' "$f" | ARCTURN_DRY_RUN=1 "$A" write "d$d/f$f"
		done
	done
}

# deletions need a dry-run command when exec --dry-run is there
deletions() {
	if "$A" sandbox status --json | grep -q '"dry_run_exec":true'; then
		"$A" exec --dry-run -- sh -c 'for d in $(seq 1 30); do
			for f in $(seq 21 30); do rm "d$d/f$f"; done; done'
		echo 1200
	else
		echo 900
	fi
}

: >"$out/apply" && : >"$out/undo"
for r in $(seq 1 "$rounds"); do
	reset
	capture
	n=$(deletions)
	t0=$(now)
	"$A" apply --yes >/dev/null
	t1=$(now)
	u=$A
	[ -n "${PEER:-}" ] && [ $((r % 2)) = 0 ] && u=$PEER
	"$u" undo >/dev/null
	t2=$(now)
	echo $(((t1 - t0) / 1000)) >>"$out/apply"
	if [ "$u" = "$A" ]; then
		echo $(((t2 - t1) / 1000)) >>"$out/undo"
	else
		echo $(((t2 - t1) / 1000)) >>"$out/peer"
	fi
done

python3 - "$out" "$n" <<'PY'
import statistics, sys
d, n = sys.argv[1], sys.argv[2]
a = [int(x) / 1e3 for x in open(d + "/apply")]
u = [int(x) / 1e3 for x in open(d + "/undo")]
ma, mu = statistics.median(a), statistics.median(u)
print(f"corpus: {n} changes, {len(a)} rounds")
print(f"  apply median {ma:9.2f} ms")
print(f"  undo  median {mu:9.2f} ms")
r = mu / ma
print(f"{'undo / apply':20s} {r:6.3f} (target <= 1.0) {'ok' if r <= 1.0 else 'OVER'}")
try:
    p = [int(x) / 1e3 for x in open(d + "/peer")]
except OSError:
    p = []
if p:
    mp = statistics.median(p)
    print(f"  peer undo median {mp:9.2f} ms ({len(p)} rounds)")
    print(f"{'undo / peer undo':20s} {mu / mp:6.3f}")
PY
