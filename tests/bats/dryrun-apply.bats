#!/usr/bin/env bats
# Dry run: apply and discard (prompts, --yes, --expect, subsets, conflicts,
# symlink escapes, re-running after a crash, round trip against git apply).

load common
load dryrun_helpers

setup() { common_setup; }

sess_id() { "$ARCTURN_BIN" --json session show | jq -r .id; }
sess_dir() { echo "$HOME/.arcturn/overlays/$(sess_id)"; }
upper() { echo "$(sess_dir)/upper"; }
whiteout() {
	rm -rf "$1"
	mknod "$1" c 0 0 2>/dev/null || skip "mknod of a 0/0 whiteout refused here"
}
dw() { ARCTURN_DRY_RUN=1 "$ARCTURN_BIN" write "$@"; }
# Run arcturn on a pseudo-terminal, feeding it the answer $1.
on_tty() {
	command -v script >/dev/null || skip "script(1) is missing"
	local answer=$1
	shift
	printf '%s\n' "$answer" | script -qec "$(printf '%q ' "$ARCTURN_BIN" "$@")" /dev/null
}

@test "apply without a terminal and without --yes refuses, exit 2" {
	printf 'a\n' >f
	dw f <<<"b"
	run setsid -w "$ARCTURN_BIN" apply </dev/null
	assert_failure 2
	assert_output "arcturn: apply: no terminal to confirm on; use --yes to apply 1 file(s) without asking"
	[ "$(cat f)" = a ]
}

@test "apply asks on the terminal: [a]pply applies, [k]eep keeps" {
	printf 'a\n' >f
	dw f <<<"b"
	dw g <<<"new"
	run on_tty k apply
	assert_failure 1
	assert_output --partial "Apply 2 file(s) to the workspace? [a]pply/[k]eep pending"
	assert_output --partial "Kept 2 pending file(s)."
	[ "$(cat f)" = a ]
	[ ! -e g ]
	run on_tty a apply
	assert_success
	assert_output --partial "Applied 2 file(s) (as turn "
	[ "$(cat f)" = b ]
	[ "$(cat g)" = new ]
	[ -z "$(ls "$HOME/.arcturn/overlays")" ]
}

@test "apply --yes: all applied, the seed's summary, the session is removed" {
	printf 'one\n' >a
	mkdir -p d && printf 'x\n' >d/b
	chmod 0750 d/b
	dw a <<<"ONE"
	ARCTURN_DRY_RUN=1 arcturn edit d/b --old x --new y
	dw n1/n2/c <<<"new"
	run arcturn apply --yes
	assert_success
	assert_output --regexp '^Applied 3 file\(s\) \(as turn [0-9]+\)\.$'
	[ "$(cat a)" = ONE ]
	[ "$(cat d/b)" = y ]
	[ "$(cat n1/n2/c)" = new ]
	[ "$(stat -c %a d/b)" = 750 ]
	run arcturn session list
	assert_output ""
	run arcturn apply --yes
	assert_success
	assert_output "No pending changes."
	run ls -A "$WS" "$WS/d"
	refute_output --partial ".arcturn-tmp-"
}

@test "apply --expect: refuses unless the pending set is the one reviewed" {
	printf 'a\n' >f
	dw f <<<"b"
	d1=$(arcturn diff | sed -n 's/^digest: //p')
	dw g <<<"sneaked in"
	run arcturn apply --yes --expect "$d1"
	assert_failure 1
	assert_output --partial "arcturn: apply: pending changes do not match --expect $d1"
	[ "$(cat f)" = a ]
	[ ! -e g ]
	d2=$(arcturn diff --stat | sed -n 's/^digest: //p')
	run arcturn apply --yes --expect "$d2"
	assert_success
	assert_output --regexp '^Applied 2 file\(s\) \(as turn [0-9]+\)\.$'
}

@test "apply PATH...: a subset lands, the rest stays pending" {
	dw a <<<"1"
	dw sub/b <<<"2"
	dw sub/c <<<"3"
	run arcturn apply --yes a
	assert_success
	assert_output --regexp '^Applied 1 file\(s\) \(as turn [0-9]+\)\.$'
	[ -e a ]
	[ ! -e sub ]
	run arcturn apply --yes "$WS/sub/b"
	assert_success
	[ "$(cat sub/b)" = 2 ]
	[ ! -e sub/c ]
	run arcturn apply --yes nothing-here
	assert_failure 1
	assert_output "arcturn: apply: nothing-here: no pending change there"
	run arcturn session show
	assert_line "pending:   1"
	assert_line "  A sub/c"
	run arcturn apply --yes sub
	assert_output --regexp '^Applied 1 file\(s\) \(as turn [0-9]+\)\.$'
	[ -z "$(ls "$HOME/.arcturn/overlays")" ]
}

@test "a target changed since capture is a conflict: others applied, it stays pending" {
	printf 'a\n' >f
	printf 'x\n' >g
	dw f <<<"mine"
	dw g <<<"also"
	printf 'theirs\n' >f
	run arcturn apply --yes
	assert_failure 1
	assert_line "arcturn: apply: f: changed since capture; refused"
	assert_line "Applied 1, failed 1. Pending changes kept."
	[ "$(cat f)" = theirs ]
	[ "$(cat g)" = also ]
	run arcturn session show
	assert_line "pending:   1"
	assert_line "  M f  (conflict: changed since capture)"
	# Put the real file back: the retry finishes and removes the session.
	printf 'a\n' >f
	run arcturn apply --yes
	assert_success
	assert_output --regexp '^Applied 1 file\(s\) \(as turn [0-9]+\)\.$'
	[ "$(cat f)" = mine ]
	[ -z "$(ls "$HOME/.arcturn/overlays")" ]
}

@test "apply --progress-fd N: 0 TOTAL, then a line as each file is done, failed ones too; new folders are no files" {
	printf 'a\n' >f
	dw f <<<"mine"
	dw d/e/x <<<"x"
	dw d/y <<<"y"
	dw g <<<"g"
	printf 'theirs\n' >f
	run arcturn apply --yes --progress-fd 3 3>"$T/progress"
	assert_failure 1
	assert_line "Applied 3, failed 1. Pending changes kept."
	[ "$(cat "$T/progress")" = "$(printf '0 4\n1 4\n2 4\n3 4\n4 4')" ]
	[ "$(cat d/e/x)" = x ]
	# not a descriptor the caller opened above 2: a usage error
	for bad in 1 x 9; do
		run arcturn apply --yes --progress-fd "$bad"
		assert_failure 2
		assert_output "arcturn: apply: --progress-fd $bad: not an open descriptor above 2"
	done
	[ "$(cat f)" = theirs ]
	# a reader gone (a pipe whose read end is closed) does not stop it
	printf 'a\n' >f
	run python3 -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
sys.exit(subprocess.run([sys.argv[1], "apply", "--yes", "--progress-fd", str(w)], pass_fds=(w,)).returncode % 256)' "$ARCTURN_BIN"
	assert_success
	assert_output --regexp '^Applied 1 file\(s\) \(as turn [0-9]+\)\.$'
	[ "$(cat f)" = mine ]
}

@test "apply --progress-fd N: a reader that stops reading (a full pipe) does not stop the apply" {
	local k
	for k in $(seq 300); do echo "$k"; done >"$T/list"
	while read -r k; do dw "n/f$k" <<<"$k" || return 1; done <"$T/list"
	# a pipe of one page, filled before apply starts, never read: the
	# apply ends (the timeout is a guard, not a measure), every file lands
	run timeout 120 python3 -c 'import fcntl, os, subprocess, sys
r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)	# F_SETPIPE_SZ
os.set_blocking(w, False)
try:
    while True:
        os.write(w, b"x" * 512)
except BlockingIOError:
    pass
os.set_blocking(w, True)
sys.exit(subprocess.run([sys.argv[1], "apply", "--yes", "--progress-fd", str(w)], pass_fds=(w,)).returncode % 256)' "$ARCTURN_BIN"
	assert_success
	assert_output --regexp '^Applied 300 file\(s\) \(as turn [0-9]+\)\.$'
	[ "$(cat n/f300)" = 300 ]
}

@test "symlink escape at apply: a dir replaced by a symlink out is refused, others land, nothing in OUT" {
	mkdir -p sub && printf 'a\n' >sub/f && printf 'b\n' >top
	dw sub/f <<<"A"
	dw sub/new <<<"N"
	dw top <<<"B"
	mv sub sub.real
	ln -s "$OUT" sub
	run arcturn apply --yes
	assert_failure 1
	assert_line "arcturn: apply: sub/f: resolves outside the workspace (symlink); refused"
	assert_line "arcturn: apply: sub/new: resolves outside the workspace (symlink); refused"
	assert_line "Applied 1, failed 2. Pending changes kept."
	[ "$(cat top)" = B ]
	[ -z "$(ls -A "$OUT")" ]
	[ -L sub ]
	[ "$(cat sub.real/f)" = a ]
}

@test "deletions and whole directories (whiteouts) apply" {
	printf 'x\n' >gone
	mkdir -p tree/sub && printf '1\n' >tree/a && printf '2\n' >tree/sub/b
	ln -s gone tree/link
	dw keep <<<"k"
	record_base "$(sess_dir)" gone tree
	whiteout "$(upper)/gone"
	whiteout "$(upper)/tree"
	run arcturn apply --yes
	assert_success
	assert_output --regexp '^Applied 5 file\(s\) \(as turn [0-9]+\)\.$'
	[ ! -e gone ]
	[ ! -e tree ]
	[ ! -L tree ]
	[ -e keep ]
}

@test "re-running apply after a crash between rename and bookkeeping finishes" {
	printf 'a\n' >f
	printf 'b\n' >g
	dw f <<<"F"
	dw g <<<"G"
	# As if apply died after landing f: the real file already is new.
	cp "$(upper)/f" f
	run arcturn apply --yes
	assert_success
	assert_output --regexp '^Applied 1 file\(s\) \(as turn [0-9]+\)\.$'
	[ "$(cat f)" = F ]
	[ "$(cat g)" = G ]
	[ -z "$(ls "$HOME/.arcturn/overlays")" ]
}

@test "round trip: diff --full through git apply and patch -p1 equals arcturn apply, modes too" {
	command -v git >/dev/null || skip "git is not installed"
	mkdir -p src/lib docs
	printf '#!/bin/sh\necho one\necho two\n' >src/run.sh && chmod 755 src/run.sh
	seq 1 300 >src/lib/numbers.txt
	printf 'no newline at end' >docs/nonl.txt
	printf 'with space\n' >"docs/a file.txt"
	printf 'unicode\n' >"docs/ü.txt"
	printf 'to delete\n' >docs/old.txt
	cp -a "$WS" "$T/git" && cp -a "$WS" "$T/patch"
	ARCTURN_DRY_RUN=1 arcturn edit src/run.sh --old "echo two" --new "echo TWO"
	ARCTURN_DRY_RUN=1 arcturn edit src/lib/numbers.txt --old 5 --new five --all
	ARCTURN_DRY_RUN=1 arcturn edit docs/nonl.txt --old end --new "end, still none"
	ARCTURN_DRY_RUN=1 arcturn edit "docs/a file.txt" --old space --new SPACE
	ARCTURN_DRY_RUN=1 arcturn edit "docs/ü.txt" --old unicode --new Unicode
	printf 'fresh\nfile\n' | dw new/deep/fresh.txt
	printf 'no eol' | dw new/noeol
	record_base "$(sess_dir)" docs/old.txt
	whiteout "$(upper)/docs/old.txt"
	arcturn diff --full >"$T/p.diff"
	(cd "$T/git" && git apply "$T/p.diff")
	(cd "$T/patch" && patch -s -p1 <"$T/p.diff")
	run arcturn apply --yes
	assert_success
	assert_output --regexp '^Applied 8 file\(s\) \(as turn [0-9]+\)\.$'
	diff -r "$WS" "$T/git"
	diff -r "$WS" "$T/patch"
	lsm() { (cd "$1" && find . -printf '%p %y %m\n' | sort); }
	[ "$(lsm "$WS")" = "$(lsm "$T/git")" ] || { diff <(lsm "$WS") <(lsm "$T/git"); false; }
}

@test "discard asks, --yes discards, nothing pending is fine" {
	run arcturn discard
	assert_success
	assert_output "No pending changes."
	printf 'a\n' >f
	dw f <<<"b"
	dw g <<<"c"
	run setsid -w "$ARCTURN_BIN" discard </dev/null
	assert_failure 2
	assert_output --partial "no terminal to confirm on"
	run on_tty k discard
	assert_failure 1
	assert_output --partial "Discard 2 pending file change(s)? [d]iscard/[k]eep"
	[ -n "$(ls "$HOME/.arcturn/overlays")" ]
	run on_tty d discard
	assert_success
	assert_output --partial "Discarded 2 pending file change(s)."
	[ "$(cat f)" = a ]
	[ ! -e g ]
	run arcturn session list
	assert_output ""
	dw h <<<"x"
	run arcturn discard --yes
	assert_success
	assert_output "Discarded 1 pending file change(s)."
}

@test "discard never follows a symlink out of the session dir" {
	printf 'precious\n' >"$OUT/keep"
	dw f <<<"x"
	ln -s "$OUT" "$(upper)/escape"
	ln -s "$OUT/keep" "$(sess_dir)/keeplink"
	mkdir "$(upper)/ro" && printf 'r\n' >"$(upper)/ro/r" && chmod 0500 "$(upper)/ro"
	run arcturn discard --yes
	assert_success
	[ "$(cat "$OUT/keep")" = precious ]
	[ -z "$(ls -A "$HOME/.arcturn/overlays" | grep -v '^\.lock$')" ]
}
