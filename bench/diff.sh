#!/bin/sh
# diff: `arcturn diff --full` of a dry-run session against `git diff` of a
# git repo holding the same changes in its working tree, at several sizes
# of change set, timed in alternating pairs (bench/alt.c) and printed as
# ratios of medians; the review must stay linear in the number of changes.
#
#   arcturn diff --full   vs   git diff --no-renames --no-color
#   target at 12,000 changes: <= 0.7 (aim 0.5)
#
# For N changes the workspace is enough copies of /usr/include (~8,000
# files each) to hold N files; N files spread evenly over it are picked:
# of every 12, 10 edited (a line inserted near the top, one appended), one
# deleted, and one is the template of a new file beside it. The changes
# are made by one perl script, run once in the plain "new" tree, once in
# `exec --dry-run` over the workspace (so that the session holds them with
# their base records, as a command's changes are), and once in the git
# repo's working tree (new files added with `git add -N`).
#
#   bench/diff.sh [N]...   (default 1200 4000 12000 20000; RUNS=n pairs
#                           per size, default 20; BUILD=dir, or BIN=path
#                           for another arcturn; KEEP=dir keeps each size's
#                           output as KEEP/diff-N.txt to compare builds;
#                           APPLY=1 also times apply against rsync)
# Needs git, perl, cc, and overlayfs in a user namespace (exec --dry-run).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${BUILD:-build}
runs=${RUNS:-20}
aruns=${APPLY_RUNS:-7}
src=${CORPUS:-/usr/include}
sizes=${*:-1200 4000 12000 20000}

for t in git perl cc; do
	command -v $t >/dev/null || { echo "diff.sh: $t missing" >&2; exit 2; }
done
if [ "${APPLY:-0}" = 1 ] && ! command -v rsync >/dev/null; then
	echo "diff.sh: APPLY=1 needs rsync" >&2
	exit 2
fi
if [ -n "${BIN:-}" ]; then
	bin=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
else
	make -s BUILD="$build" "$build/arcturn" >/dev/null
	bin=$top/$build/arcturn
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
tmp=$(cd "$tmp" && pwd -P)
cc -O2 -o "$tmp/alt" bench/alt.c
unset ARCTURN_SESSION ARCTURN_DRY_RUN
[ -z "${KEEP:-}" ] || mkdir -p "$KEEP"

# The changes, in the current folder: edits, new files, deletions.
cat >"$tmp/change.pl" <<'EOF'
use strict;
my ($edits, $adds, $dels) = @ARGV;
open(my $l, '<', $edits) or die "$edits: $!";
while (my $f = <$l>) {
	chomp $f;
	open(my $in, '<', $f) or die "$f: $!";
	my @v = <$in>;
	close $in;
	splice(@v, 1, 0, "/* arcturn bench: edited */\n") if @v >= 1;
	push @v, "/* arcturn bench: appended */\n";
	unlink $f;	# a new inode, as an editor's save
	open(my $out, '>', $f) or die "$f: $!";
	print $out @v;
	close $out or die "$f: $!";
}
open($l, '<', $adds) or die "$adds: $!";
while (my $line = <$l>) {
	chomp $line;
	my ($add, $from) = split / /, $line;
	open(my $in, '<', $from) or die "$from: $!";
	my @v = <$in>;
	close $in;
	open(my $out, '>', $add) or die "$add: $!";
	print $out @v, "/* new file $add */\n";
	close $out or die "$add: $!";
}
open($l, '<', $dels) or die "$dels: $!";
while (my $f = <$l>) {
	chomp $f;
	unlink $f or die "$f: $!";
}
EOF

ncorpus=$(find "$src" -type f | wc -l)
: >"$tmp/result"
for n in $sizes; do
	d=$tmp/n$n
	mkdir -p "$d"
	export ARCTURN_HOME="$d/state"
	copies=$(( (n + ncorpus - 1) / ncorpus ))
	k=1
	mkdir "$d/base"
	while [ "$k" -le "$copies" ]; do
		cp -a "$src" "$d/base/c$k"
		k=$((k + 1))
	done
	(cd "$d/base" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) >"$d/all"
	nfiles=$(wc -l <"$d/all")
	# n files spread evenly; of each 12: 10 edits, a deletion, a template.
	awk -v n="$n" -v t="$nfiles" 'BEGIN { s = int(t / n); if (s < 1) s = 1 }
	    (NR - 1) % s == 0 && k < n { print k % 12, $0; k++ }' "$d/all" >"$d/pick"
	awk '$1 < 10 { print $2 }' "$d/pick" >"$d/edits"
	awk '$1 == 10 { print $2 }' "$d/pick" >"$d/dels"
	awk '$1 == 11 { n = split($2, p, "/"); dir = substr($2, 1, length($2) - length(p[n]));
	    printf "%sbench_new_%05d.h %s\n", dir, NR, $2 }' "$d/pick" >"$d/adds"
	cut -d' ' -f1 "$d/adds" >"$d/addnames"

	cp -a "$d/base" "$d/ws"
	mkdir "$d/tmpdir"
	(cd "$d/ws" && TMPDIR=$d/tmpdir "$bin" -q exec --dry-run -- perl "$tmp/change.pl" \
	    "$d/edits" "$d/adds" "$d/dels") ||
		{ echo "diff.sh: exec --dry-run of the changes failed" >&2; exit 2; }
	cp -a "$d/base" "$d/git"
	git -C "$d/git" init -q
	git -C "$d/git" add -A
	git -C "$d/git" -c user.name=bench -c user.email=bench@localhost \
	    commit -qm base
	(cd "$d/git" && perl "$tmp/change.pl" "$d/edits" "$d/adds" "$d/dels" &&
	    xargs git add -N <"$d/addnames")
	git -C "$d/git" update-index -q --refresh || true

	"$bin" -C "$d/ws" diff --full >"$d/ours.diff"
	git -C "$d/git" --no-pager diff --no-renames --no-color >"$d/git.diff"
	[ -z "${KEEP:-}" ] || cp "$d/ours.diff" "$KEEP/diff-$n.txt"
	# Same sections apart from the index lines git adds and our digest.
	grep -av '^index ' "$d/git.diff" >"$d/git.noindex" || true
	sed '$d' "$d/ours.diff" >"$d/ours.nodigest"
	nch=$(grep -ac '^diff --git ' "$d/ours.diff" || true)
	if cmp -s "$d/git.noindex" "$d/ours.nodigest"; then
		same="identical to git diff apart from index lines and the digest"
	else
		same="DIFFERS from git diff (lines: ours $(wc -l <"$d/ours.diff"), git $(wc -l <"$d/git.diff"))"
	fi
	echo "$n: $nch files changed in $nfiles; output $same"

	"$tmp/alt" "$runs" git git -C "$d/git" --no-pager diff --no-renames \
	    --no-color :: arcturn "$bin" -C "$d/ws" diff --full >"$d/alt.txt"
	awk -v n="$n" -v c="$nch" '{ ms[$1] = $2; r[$1] = $3 } END {
	    printf "%d %d %.1f %.1f %.2f %.2f\n", n, c, ms["arcturn"], ms["git"],
	        ms["arcturn"] / ms["git"], r["arcturn"] }' "$d/alt.txt" >>"$tmp/result"

	if [ "${APPLY:-0}" = 1 ]; then
		# Apply: rounds alternate (apply, then rsync); each starts from
		# the same workspace and session (restored, then sync, not
		# timed). The ratio is the median of the rounds' ratios.
		cat "$d/edits" "$d/addnames" "$d/dels" >"$d/list"
		cp -a "$d/base" "$d/new"
		(cd "$d/new" && perl "$tmp/change.pl" "$d/edits" "$d/adds" "$d/dels")
		cp -a "$d/ws" "$d/ws.orig"
		cp -a "$ARCTURN_HOME" "$d/state.orig"
		: >"$d/a.txt"
		r=0
		while [ "$r" -le "$aruns" ]; do	# round 0 warms up
			rm -rf "$d/ws" "$ARCTURN_HOME" &&
			    cp -a "$d/ws.orig" "$d/ws" &&
			    cp -a "$d/state.orig" "$ARCTURN_HOME" && sync
			t0=$(date +%s%N)
			"$bin" -C "$d/ws" -q apply --yes ||
				{ echo "diff.sh: apply failed" >&2; exit 2; }
			t1=$(date +%s%N)
			rm -rf "$d/dst" && cp -a "$d/base" "$d/dst" && sync
			t2=$(date +%s%N)
			rsync -a --fsync --delete-missing-args \
			    --files-from="$d/list" "$d/new/" "$d/dst/"
			t3=$(date +%s%N)
			[ "$r" -eq 0 ] ||
				echo "$((t1 - t0)) $((t3 - t2))" >>"$d/a.txt"
			r=$((r + 1))
		done
		awk '{ print $1 / $2 }' "$d/a.txt" | sort -g | awk -v n="$n" '
		    { v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] :
		    (v[NR / 2] + v[NR / 2 + 1]) / 2
		    printf "%d: apply --yes / rsync -a --fsync %.2f (median of %d rounds; target <= 1.00)\n", n, m, NR }'
	fi
	rm -rf "$d"
done

echo "changes  files  arcturn-ms  git-ms  ratio-of-medians  median-of-ratios"
awk '{ note = ""
	if ($1 == 12000)
		note = $5 <= 0.7 ? "  (target <= 0.7: ok)" : "  (target <= 0.7: OVER)"
	printf "%7d  %5d  %10.1f  %6.1f  %16.2f  %16.2f%s\n", $1, $2, $3, $4, $5, $6, note
}' "$tmp/result"
