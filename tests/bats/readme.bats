#!/usr/bin/env bats
# The README's commands, run as a reader would, so that it cannot drift
# from the CLI. A fenced block whose info string is `sh run` is run, each
# in a scratch folder of its own (a workspace, with HOME beside it and
# `arcturn` on PATH), under `set -e`; `sh run checkout` runs in a copy of
# the checkout's tracked files instead (its .deps linked: nothing is
# fetched). An HTML comment `<!-- run-setup: COMMANDS -->` on the line
# before a block is run first, unshown (the files the example edits).
# Other blocks (a release not yet published, placeholders) are not run.
#
# ARCTURN_README defaults to the checkout's README.md (tests/run passes a
# copy for its run as an unprivileged user, which has no checkout).

load common

README=${ARCTURN_README:-$BATS_TEST_DIRNAME/../../README.md}
TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

setup() {
	common_setup
	[ -f "$README" ] || fail "no README at $README (set ARCTURN_README)"
}

# The marked blocks of the README into $T/blocks/N.{sh,setup,kind}, one
# N a block; their count on stdout.
blocks() {
	mkdir -p "$T/blocks"
	awk -v d="$T/blocks" '
		/^[ \t]*<!-- run-setup: .* -->[ \t]*$/ {
			s = $0; sub(/^[ \t]*<!-- run-setup: /, "", s); sub(/ -->[ \t]*$/, "", s)
			setup = s; next
		}
		!inb && /^[ \t]*```sh run( checkout)?[ \t]*$/ {
			n++; inb = 1
			kind = ($0 ~ /checkout/) ? "checkout" : "scratch"
			print kind > (d "/" n ".kind")
			printf "%s\n", setup > (d "/" n ".setup")
			printf "" > (d "/" n ".sh")
			setup = ""; next
		}
		inb && /^[ \t]*```[ \t]*$/ { inb = 0; next }
		inb { l = $0; sub(/^  /, "", l); print l > (d "/" n ".sh"); next }
		{ setup = "" }
		END { print n + 0 }' "$README"
}

run_block() {	# N dir: run block N in dir (its workspace), HOME beside it
	local n=$1 dir=$2
	mkdir -p "$T/b$n/home" "$T/b$n/bin"
	ln -sf "$ARCTURN_BIN" "$T/b$n/bin/arcturn"
	(cd "$dir" && HOME=$T/b$n/home PATH=$T/b$n/bin:$PATH &&
		export HOME PATH && sh -e "$T/blocks/$n.setup" >/dev/null &&
		sh -e "$T/blocks/$n.sh")
}

@test "the README marks blocks to run, one of them the build from a checkout" {
	run blocks
	assert_success
	[ "$output" -ge 3 ] || fail "only $output blocks marked 'sh run'"
	run grep -l checkout "$T"/blocks/*.kind
	assert_success
}

@test "every README block marked 'sh run' runs in a scratch folder" {
	local n i ran=0
	n=$(blocks)
	for i in $(seq "$n"); do
		[ "$(cat "$T/blocks/$i.kind")" = scratch ] || continue
		mkdir -p "$T/b$i/ws"
		run run_block "$i" "$T/b$i/ws"
		if [ "$status" -eq 125 ]; then
			# arcturn's "unavailable here": say which block, do not pass it
			echo "# block $i: unavailable here: $output" >&3
			continue
		fi
		[ "$status" -eq 0 ] || fail "README block $i failed ($status):
$(cat "$T/blocks/$i.setup" "$T/blocks/$i.sh")
--- output:
$output"
		ran=$((ran + 1))
	done
	[ "$ran" -gt 0 ] || skip "every block was unavailable here (exit 125)"
}

@test "the README's build from a checkout builds, installs and runs the one file" {
	[ -f "$TOP/Makefile" ] && [ -d "$TOP/.deps/musl" ] &&
		git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1 ||
		skip "no built checkout here (this run has copies of the tests only)"
	local n i found=
	n=$(blocks)
	for i in $(seq "$n"); do
		[ "$(cat "$T/blocks/$i.kind")" = checkout ] || continue
		found=1
		mkdir -p "$T/src$i"
		git -C "$TOP" ls-files -z | (cd "$TOP" && tar --null -T - -cf -) |
			tar -C "$T/src$i" -xf -
		ln -s "$TOP/.deps" "$T/src$i/.deps"
		run run_block "$i" "$T/src$i"
		[ "$status" -eq 0 ] || fail "README block $i failed ($status):
$(cat "$T/blocks/$i.sh")
--- output:
$output"
		assert_output --partial "arcturn "
		[ -x "$T/b$i/home/.local/bin/arcturn" ] ||
			fail "no arcturn in ~/.local/bin after the README's make install"
	done
	[ -n "$found" ] || fail "no block marked 'sh run checkout'"
}

@test "the README's first screen: what it is, the quick start, then Install building from source before any download" {
	local qs inst build dl
	qs=$(grep -n '^## Quick start' "$README" | cut -d: -f1)
	inst=$(grep -n '^## Install' "$README" | cut -d: -f1)
	build=$(grep -n '^\*\*Build the one file\*\*' "$README" | cut -d: -f1)
	dl=$(grep -n '^\*\*Download a release\*\*' "$README" | cut -d: -f1)
	[ -n "$qs" ] && [ -n "$inst" ] && [ -n "$build" ] && [ -n "$dl" ] ||
		fail "missing: quick start ($qs), Install ($inst), build ($build), download ($dl)"
	[ "$qs" -lt "$inst" ] && [ "$inst" -lt "$build" ] && [ "$build" -lt "$dl" ] ||
		fail "out of order: quick start $qs, Install $inst, build $build, download $dl"
	# the two quick-start commands, the first block after the heading
	run sh -c "sed -n '$qs,\$p' '$README' | sed -n '/^\`\`\`/,/^\`\`\`/p' | sed -n '2,3p' | sed 's/[[:space:]]*#.*//'"
	assert_output "sh vendor/bootstrap.sh
make test"
}
