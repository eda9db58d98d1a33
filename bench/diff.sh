#!/bin/sh
# diff: the dry-run review and apply paths on a real tree. The workspace is
# a copy of /usr/include (~8,000 files); a session holds ~1,000 edits, 100
# new files and 100 deletions, and a git repo of the same tree holds the
# same changes in its working tree. Times, with hyperfine, ratio of medians:
#
#   arcturn diff --full      vs  git diff --no-renames   (target <= 1.0)
#   arcturn apply --yes      vs  rsync -a --fsync of the same files into a
#                                copy, deletions included (target <= 1.0;
#                                alternating rounds, median of their ratios)
#
# Setup: edits and new files go through `arcturn write --dry-run`, one
# process per file, so base records, copy-ups and locking are the real
# thing. The 100 deletions come from one `exec --dry-run -- xargs rm -f`,
# as a command's deletions do: overlayfs writes the whiteouts and arcturn
# records their bases (apply refuses a change without one). Needs a
# machine where `exec --dry-run` works (overlayfs in a user namespace).
#
#   bench/diff.sh            (BUILD=build-x for another build dir,
#                             RUNS=n for the diff runs, APPLY_RUNS=n)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${BUILD:-build}
runs=${RUNS:-10}
aruns=${APPLY_RUNS:-7}
src=${CORPUS:-/usr/include}

for t in hyperfine git jq; do
	command -v $t >/dev/null || { echo "diff.sh: $t missing" >&2; exit 2; }
done
command -v rsync >/dev/null || apt-get install -y rsync >/dev/null 2>&1 ||
	{ echo "diff.sh: rsync missing (apt-get install rsync)" >&2; exit 2; }

make -s BUILD="$build" "$build/arcturn" >/dev/null
bin=$top/$build/arcturn

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
tmp=$(cd "$tmp" && pwd -P)
export ARCTURN_HOME="$tmp/state"
unset ARCTURN_SESSION ARCTURN_DRY_RUN

cp -a "$src" "$tmp/base"
(cd "$tmp/base" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) >"$tmp/all"
nfiles=$(wc -l <"$tmp/all")
# Every 7th file edited (first 1,000), others deleted; 100 new files.
awk 'NR % 7 == 1' "$tmp/all" | head -n 1000 >"$tmp/edits"
awk 'NR % 7 == 4' "$tmp/all" | head -n 100 >"$tmp/dels"
awk 'NR % 7 == 2' "$tmp/all" | head -n 100 |
	awk '{ n = split($0, p, "/"); d = n > 1 ? substr($0, 1, length($0) - length(p[n])) : "";
	    printf "%sbench_new_%03d.h\n", d, NR }' >"$tmp/adds"

# The new tree: edits (a line inserted near the top and one appended),
# new files (a copy of an edited header), deletions.
cp -a "$tmp/base" "$tmp/new"
(cd "$tmp/new" && xargs perl -i -pe '
	print "/* arcturn bench: edited */\n" if $. == 2;
	$_ .= "/* arcturn bench: appended */\n" if eof;
	close ARGV if eof' <"$tmp/edits")
paste -d' ' "$tmp/adds" "$tmp/edits" | head -n 100 | while read -r add from; do
	{ cat "$tmp/new/$from"; echo "/* new file $add */"; } >"$tmp/new/$add"
done
(cd "$tmp/new" && xargs rm -f <"$tmp/dels")
cat "$tmp/edits" "$tmp/adds" "$tmp/dels" >"$tmp/list"

# The session.
cp -a "$tmp/base" "$tmp/ws"
t0=$(date +%s.%N)
cat "$tmp/edits" "$tmp/adds" | while read -r f; do
	"$bin" -C "$tmp/ws" write --dry-run "$f" <"$tmp/new/$f"
done
t1=$(date +%s.%N)
mkdir -p "$tmp/tmpdir"
(cd "$tmp/ws" && TMPDIR=$tmp/tmpdir "$bin" -q exec --dry-run -- xargs rm -f) \
	<"$tmp/dels" || { echo "diff.sh: exec --dry-run of the deletions failed" >&2; exit 2; }
awk -v a="$t0" -v b="$t1" -v n="$(cat "$tmp/edits" "$tmp/adds" | wc -l)" 'BEGIN {
	printf "setup: %d x arcturn write --dry-run in %.1f s (%.1f ms each)\n", n, b - a, (b - a) * 1000 / n }'

# The git repo with the same changes in its working tree.
cp -a "$tmp/base" "$tmp/git"
git -C "$tmp/git" init -q
git -C "$tmp/git" add -A
git -C "$tmp/git" -c user.name=bench -c user.email=bench@localhost commit -qm base
rsync -a --delete-missing-args --files-from="$tmp/list" "$tmp/new/" "$tmp/git/"
(cd "$tmp/git" && xargs git add -N <"$tmp/adds")
git -C "$tmp/git" update-index -q --refresh || true

ours_stat=$("$bin" -C "$tmp/ws" diff --stat | tail -n 2 | head -n 1)
git_stat=$(git -C "$tmp/git" --no-pager diff --no-renames --stat=80 | tail -n 1)
echo "corpus: $nfiles files from $src"
echo "changes: arcturn:$ours_stat"
echo "changes: git:    $git_stat"
"$bin" -C "$tmp/ws" diff --full >"$tmp/ours.diff"
git -C "$tmp/git" --no-pager diff --no-renames --no-color >"$tmp/git.diff"
# Same sections apart from the index lines git adds and our digest.
grep -v '^index ' "$tmp/git.diff" >"$tmp/git.noindex"
sed '$d' "$tmp/ours.diff" >"$tmp/ours.nodigest"
if cmp -s "$tmp/git.noindex" "$tmp/ours.nodigest"; then
	echo "output: identical to git diff apart from index lines and the digest"
else
	echo "output: differs from git diff (lines: ours $(wc -l <"$tmp/ours.diff"), git $(wc -l <"$tmp/git.diff"))"
fi

hyperfine -N -w 2 -r "$runs" --export-csv "$tmp/d.csv" \
	"$bin -C $tmp/ws diff --full" \
	"git -C $tmp/git --no-pager diff --no-renames --no-color" >"$tmp/hf.log" 2>&1 ||
	{ cat "$tmp/hf.log" >&2; exit 2; }
d_ours=$(awk -F, 'NR == 2 { print $4 }' "$tmp/d.csv")
d_git=$(awk -F, 'NR == 3 { print $4 }' "$tmp/d.csv")

# Apply: rounds alternate (apply, then rsync), so that a machine whose
# speed drifts slows both alike; each run starts from the same workspace
# and session (restored, then sync, not timed), rsync copies the same
# files into a fresh copy. The ratio is the median of the rounds' ratios.
cp -a "$tmp/ws" "$tmp/ws.orig"
cp -a "$ARCTURN_HOME" "$tmp/state.orig"
now() { date +%s%N; }
: >"$tmp/a.txt"
r=0
while [ "$r" -le "$aruns" ]; do	# round 0 warms up, not counted
	rm -rf "$tmp/ws" "$ARCTURN_HOME" && cp -a "$tmp/ws.orig" "$tmp/ws" &&
		cp -a "$tmp/state.orig" "$ARCTURN_HOME" && sync
	t0=$(now)
	"$bin" -C "$tmp/ws" -q apply --yes ||
		{ echo "diff.sh: apply failed" >&2; exit 2; }
	t1=$(now)
	rm -rf "$tmp/dst" && cp -a "$tmp/base" "$tmp/dst" && sync
	t2=$(now)
	rsync -a --fsync --delete-missing-args --files-from="$tmp/list" \
		"$tmp/new/" "$tmp/dst/"
	t3=$(now)
	[ "$r" -eq 0 ] || echo "$((t1 - t0)) $((t3 - t2))" >>"$tmp/a.txt"
	r=$((r + 1))
done
med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
a_ours=$(awk '{ print $1 / 1e9 }' "$tmp/a.txt" | med)
a_rsync=$(awk '{ print $2 / 1e9 }' "$tmp/a.txt" | med)
a_ratio=$(awk '{ print $1 / $2 }' "$tmp/a.txt" | med)
echo "apply rounds (ms, arcturn rsync ratio): $(awk '{ printf "%.0f %.0f %.2f; ", $1 / 1e6, $2 / 1e6, $1 / $2 }' "$tmp/a.txt")"
if diff -r --no-dereference "$tmp/ws" "$tmp/new" >/dev/null &&
    diff -r --no-dereference "$tmp/dst" "$tmp/new" >/dev/null &&
    [ -z "$(ls "$ARCTURN_HOME/overlays")" ]; then
	echo "apply: both trees equal the new tree; the session is gone"
else
	echo "apply: RESULT DIFFERS from the new tree" >&2
fi

awk -v o="$d_ours" -v g="$d_git" -v ao="$a_ours" -v ar="$a_rsync" -v ra="$a_ratio" 'BEGIN {
	r = o / g
	printf "diff:  arcturn diff --full %.1f ms, git diff %.1f ms, ratio %.2f (target <= 1.00): %s\n",
	    o * 1000, g * 1000, r, r <= 1.0 ? "ok" : "OVER"
	printf "apply: arcturn apply --yes %.1f ms, rsync -a --fsync %.1f ms (medians), ratio %.2f (median of the rounds; target <= 1.00): %s\n",
	    ao * 1000, ar * 1000, ra, ra <= 1.0 ? "ok" : "OVER"
}'
