#!/bin/sh
# diff-lines: the line diff engine and git-style renderer
# (src/diff/diff.c, src/diff/udiff.c) against GNU `diff -u` on two
# 200,000-line files with nothing in common. Builds bench/difflines.c
# statically against the build's objects, times both with hyperfine
# (ratio of medians, ours / GNU) and measures peak RSS with
# /usr/bin/time -v. Targets: ratio <= 1.0, RSS <= 64 MB.
#
#   bench/diff-lines.sh            (BUILD=build-x to use another build dir)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${BUILD:-build}
lines=${LINES_N:-200000}

command -v hyperfine >/dev/null || { echo "diff-lines: hyperfine missing" >&2; exit 2; }
command -v diff >/dev/null || { echo "diff-lines: GNU diff missing" >&2; exit 2; }
if [ ! -x /usr/bin/time ]; then
	apt-get install -y time >/dev/null 2>&1 || { echo "diff-lines: /usr/bin/time missing" >&2; exit 2; }
fi

make -s BUILD="$build" "$build/obj/diff/diff.o" "$build/obj/diff/udiff.o" \
	"$build/obj/lib/mem.o" "$build/obj/lib/hash.o" "$build/obj/lib/sha256.o" \
	>/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
musl-gcc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Wno-unused-parameter \
	-Isrc -I.deps/musl/include -o "$tmp/difflines" bench/difflines.c \
	"$build/obj/diff/diff.o" "$build/obj/diff/udiff.o" "$build/obj/lib/mem.o" \
	"$build/obj/lib/hash.o" "$build/obj/lib/sha256.o" .deps/musl/lib/libbearssl.a \
	-static

awk -v n="$lines" 'BEGIN { for (i = 0; i < n; i++)
	printf "old line %d: the quick brown fox %07d jumps\n", i, (i * 7919) % 1000003 }' >"$tmp/a"
awk -v n="$lines" 'BEGIN { for (i = 0; i < n; i++)
	printf "new line %d: over the lazy dog %07d again\n", i, (i * 104729) % 1000003 }' >"$tmp/b"

# Both must see the same input and print a comparable amount.
"$tmp/difflines" "$tmp/a" "$tmp/b" >"$tmp/ours.out" || [ $? -eq 1 ]
diff -u "$tmp/a" "$tmp/b" >"$tmp/gnu.out" || [ $? -eq 1 ]
echo "input: 2 x $lines lines, nothing in common; output lines: ours $(wc -l <"$tmp/ours.out"), GNU $(wc -l <"$tmp/gnu.out")"

hyperfine -N -i -w 3 -r "${RUNS:-30}" --export-csv "$tmp/t.csv" \
	"$tmp/difflines $tmp/a $tmp/b" "diff -u $tmp/a $tmp/b" >"$tmp/hf.log" 2>&1 ||
	{ cat "$tmp/hf.log" >&2; exit 2; }
# CSV columns: command,mean,stddev,median,...
ours=$(awk -F, 'NR == 2 { print $4 }' "$tmp/t.csv")
gnu=$(awk -F, 'NR == 3 { print $4 }' "$tmp/t.csv")

rss() {
	/usr/bin/time -v "$@" 2>&1 >/dev/null |
		awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }'
}
ours_rss=$(rss "$tmp/difflines" "$tmp/a" "$tmp/b")
gnu_rss=$(rss diff -u "$tmp/a" "$tmp/b")

awk -v o="$ours" -v g="$gnu" -v orss="$ours_rss" -v grss="$gnu_rss" 'BEGIN {
	r = o / g
	printf "median time: ours %.1f ms, GNU diff -u %.1f ms, ratio %.2f (target <= 1.00): %s\n",
	    o * 1000, g * 1000, r, r <= 1.0 ? "ok" : "OVER"
	printf "peak RSS: ours %.1f MB, GNU diff -u %.1f MB (target <= 64 MB): %s\n",
	    orss / 1024, grss / 1024, orss <= 65536 ? "ok" : "OVER"
}'
