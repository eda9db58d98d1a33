#!/usr/bin/env bats
# Dry run: write, edit, read, diff, sessions. Apply and discard live in
# dryrun-apply.bats, races and odd files in dryrun-stress.bats.

load common
load dryrun_helpers

setup() { common_setup; }

# The selected session's id, dir and upper dir.
sess_id() { "$ARCTURN_BIN" --json session show | jq -r .id; }
sess_dir() { echo "$HOME/.arcturn/overlays/$(sess_id)"; }
upper() { echo "$(sess_dir)/upper"; }

# Replace $1 by an overlayfs whiteout (char device 0/0).
whiteout() {
	rm -rf "$1"
	mknod "$1" c 0 0 2>/dev/null || skip "mknod of a 0/0 whiteout refused here"
}

@test "write --dry-run: the shadow gets the file, the workspace does not" {
	run arcturn write --dry-run new.txt <<<"hello"
	assert_success
	assert_output ""
	[ ! -e new.txt ]
	ARCTURN_DRY_RUN=1 run arcturn read new.txt
	assert_success
	assert_output "hello"
	[ "$(cat "$(upper)/new.txt")" = hello ]
	[ -f "$(sess_dir)/meta.json" ]
	[ -d "$(sess_dir)/work" ]
	[ -z "$(ls -A "$(sess_dir)/work")" ]
}

@test "ARCTURN_DRY_RUN=1 and config dryRun both turn dry run on" {
	printf 'old\n' >a
	ARCTURN_DRY_RUN=1 arcturn write a <<<"env"
	[ "$(cat a)" = old ]
	printf '{ "dryRun": true }\n' >.arcturn.json
	arcturn write b <<<"cfg"
	[ ! -e b ]
	run arcturn diff --stat
	assert_success
	assert_line " 2 files changed, 2 insertions(+), 1 deletion(-)"
}

@test "dry run off: write and edit change the real file atomically, keeping its mode" {
	printf 'a\nb\n' >f
	chmod 0750 f
	arcturn write f <<<"x"
	[ "$(cat f)" = x ]
	[ "$(stat -c %a f)" = 750 ]
	arcturn edit f --old x --new y
	[ "$(cat f)" = y ]
	[ "$(stat -c %a f)" = 750 ]
	arcturn write sub/dir/g <<<"deep"
	[ "$(cat sub/dir/g)" = deep ]
	[ ! -d "$HOME/.arcturn/overlays" ]
	run ls -A
	refute_output --partial ".arcturn-tmp-"
}

@test "first touch copies up with the real file's mode; a new file gets 0666 & ~umask" {
	printf '#!/bin/sh\necho hi\n' >run.sh
	chmod 0755 run.sh
	umask 022
	ARCTURN_DRY_RUN=1 arcturn edit run.sh --old hi --new there
	[ "$(stat -c %a "$(upper)/run.sh")" = 755 ]
	[ "$(cat run.sh)" = "$(printf '#!/bin/sh\necho hi')" ]
	ARCTURN_DRY_RUN=1 arcturn write fresh.txt <<<"n"
	[ "$(stat -c %a "$(upper)/fresh.txt")" = 644 ]
	run arcturn --json diff
	assert_success
	[ "$(jq -r '.files[] | select(.path=="run.sh") | .mode_after' <<<"$output")" = 100755 ]
	[ "$(jq -r '.files[] | select(.path=="fresh.txt") | .mode_before' <<<"$output")" = null ]
}

@test "edit: zero or several matches exit 1 and say how many; --all replaces all" {
	printf 'x x x\n' >f
	run arcturn edit --dry-run f --old x --new y
	assert_failure 1
	assert_output "arcturn: edit: f: old text found 3 times; use --all or more context"
	run arcturn edit --dry-run f --old zzz --new y
	assert_failure 1
	assert_output "arcturn: edit: f: old text not found"
	run arcturn --json diff
	[ "$(jq '.files | length' <<<"$output")" = 0 ]
	run arcturn edit --dry-run f --old x --new yy --all
	assert_success
	[ "$(ARCTURN_DRY_RUN=1 arcturn read f)" = "yy yy yy" ]
	[ "$(cat f)" = "x x x" ]
	run arcturn edit f --old "" --new y
	assert_failure 2
	run arcturn edit f --old x
	assert_failure 2
	assert_output --partial "usage: arcturn edit"
}

@test "edit sees its own pending edits; edit of a missing file fails" {
	printf 'one\n' >f
	ARCTURN_DRY_RUN=1 arcturn edit f --old one --new two
	ARCTURN_DRY_RUN=1 arcturn edit f --old two --new three
	[ "$(ARCTURN_DRY_RUN=1 arcturn read f)" = three ]
	run env ARCTURN_DRY_RUN=1 "$ARCTURN_BIN" edit nope --old a --new b
	assert_failure 1
	assert_output "arcturn: edit: nope: No such file or directory"
}

@test "a path outside the workspace is refused under dry run, exit 1" {
	run arcturn write --dry-run "$OUT/x" <<<"no"
	assert_failure 1
	assert_output "arcturn: write: $OUT/x: outside the workspace $WS; refused under dry run"
	run arcturn write --dry-run ../outside/y <<<"no"
	assert_failure 1
	ln -s "$OUT" esc
	run arcturn write --dry-run esc/z <<<"no"
	assert_failure 1
	assert_output --partial "outside the workspace"
	printf 'keep\n' >"$OUT/e"
	run arcturn edit --dry-run esc/e --old keep --new lost
	assert_failure 1
	[ -z "$(ls "$OUT" | grep -v '^e$')" ]
	[ "$(cat "$OUT/e")" = keep ]
}

@test "read: redirected only where a shadow copy exists; a whiteout is No such file" {
	printf 'real\n' >r
	printf 'gone\n' >g
	ARCTURN_DRY_RUN=1 arcturn write other <<<"x"
	run env ARCTURN_DRY_RUN=1 "$ARCTURN_BIN" read r
	assert_success
	assert_output real
	whiteout "$(upper)/g"
	run env ARCTURN_DRY_RUN=1 "$ARCTURN_BIN" read g
	assert_failure 1
	assert_output "arcturn: read: g: No such file or directory"
	run arcturn read g
	assert_success
	assert_output gone
	run arcturn read .
	assert_failure 1
}

@test "diff: git-style sections, bytewise order, digest last" {
	printf 'one\ntwo\nthree\n' >a.txt
	ARCTURN_DRY_RUN=1 arcturn edit a.txt --old two --new TWO
	ARCTURN_DRY_RUN=1 arcturn write a0 <<<"z"
	ARCTURN_DRY_RUN=1 arcturn write a-b <<<"y"
	ARCTURN_DRY_RUN=1 arcturn write a/b <<<"x"
	run arcturn diff
	assert_success
	[ "$(grep '^diff --git' <<<"$output" | cut -d' ' -f3)" = "$(printf 'a/a-b\na/a.txt\na/a/b\na/a0')" ]
	assert_line --index 0 "diff --git a/a-b b/a-b"
	assert_line "-two"
	assert_line "+TWO"
	assert_line --regexp '^digest: [0-9a-f]{64}$'
	[[ "${lines[-1]}" =~ ^digest:\ [0-9a-f]{64}$ ]]
}

@test "diff: a copy-up equal in bytes and mode is no change; nothing pending prints nothing" {
	run arcturn diff
	assert_success
	assert_output ""
	printf 'same\n' >s
	ARCTURN_DRY_RUN=1 arcturn edit s --old same --new same
	[ -f "$(upper)/s" ]
	run arcturn diff
	assert_success
	assert_output ""
	run arcturn session show
	assert_line "pending:   0"
}

@test "diff: 200 body lines per file, cut at a hunk, --full lifts the cap, same digest" {
	seq 1 1000 >big
	sed 's/0$/X/' big >new
	ARCTURN_DRY_RUN=1 arcturn write big <new
	run arcturn diff
	assert_success
	assert_line --regexp '^\.\.\. diff truncated: [0-9]+ more lines for big$'
	capped=$(sed -n 's/^digest: //p' <<<"$output")
	body=$(sed -n '/^+++ /,/^\.\.\. diff truncated/p' <<<"$output" | sed '1d;$d' | wc -l)
	[ "$body" -le 200 ]
	run arcturn diff --full
	refute_output --partial "diff truncated"
	[ "$(sed -n 's/^digest: //p' <<<"$output")" = "$capped" ]
	[ "$(grep -c '^+.*X$' <<<"$output")" = 100 ]
}

@test "diff --stat and --json agree with git diff --stat and carry the digest" {
	command -v git >/dev/null || skip "git is not installed"
	printf 'one\ntwo\nthree\n' >a.txt
	printf 'keep\n' >k
	git init -q . && git add -A && git -c user.name=t -c user.email=t@t commit -qm i
	ARCTURN_DRY_RUN=1 arcturn edit a.txt --old two --new 2
	ARCTURN_DRY_RUN=1 arcturn write new.txt <<<"hi"
	ARCTURN_DRY_RUN=1 arcturn write bin.dat < <(printf 'a\0b')
	run arcturn diff --stat
	assert_success
	dig=$(sed -n 's/^digest: //p' <<<"$output")
	[ -n "$dig" ]
	cp -a . "$T/g" && cd "$T/g"
	# Binary sections carry no data (as git diff without --binary).
	arcturn -C "$WS" diff --full | git apply --exclude=bin.dat
	printf 'a\0b' >bin.dat
	git add -A
	[ "$(git diff --cached --stat)" = "$(sed '$d' <<<"$output")" ] || {
		git diff --cached --stat; echo "---"; echo "$output"; false; }
	cd "$WS"
	assert_line " bin.dat | Bin 0 -> 3 bytes"
	run arcturn --json diff
	assert_success
	[ "$(jq -r .digest <<<"$output")" = "$dig" ]
	[ "$(jq -c '[.files[] | [.path, .status, .added, .removed, .binary]]' <<<"$output")" = \
	  '[["a.txt","modified",1,1,false],["bin.dat","added",0,0,true],["new.txt","added",1,0,false]]' ]
	[ "$(jq -r '.files[0].mode_before' <<<"$output")" = 100644 ]
}

@test "diff --color: always colours, never does not, auto follows the terminal and NO_COLOR" {
	printf 'a\n' >f
	ARCTURN_DRY_RUN=1 arcturn write f <<<"b"
	run arcturn diff --color=always
	assert_output --partial $'\033['
	run arcturn diff --color=never
	refute_output --partial $'\033['
	run arcturn diff
	refute_output --partial $'\033['
	command -v script >/dev/null || skip "script(1) is missing"
	# (the pager a terminal gets would add its own escapes)
	run script -qec "$ARCTURN_BIN diff --no-pager" /dev/null
	assert_output --partial $'\033['
	run env NO_COLOR=1 script -qec "$ARCTURN_BIN diff --no-pager" /dev/null
	refute_output --partial $'\033['
	run arcturn diff --color=sometimes
	assert_failure 2
}

@test "diff: mode change and deletions (whiteouts) show as git does" {
	printf 'x\n' >m
	printf 'bye\n' >d
	mkdir -p tree/sub && printf '1\n' >tree/one && printf '2\n' >tree/sub/two
	ARCTURN_DRY_RUN=1 arcturn edit m --old x --new x
	chmod 755 "$(upper)/m"
	record_base "$(sess_dir)" d tree
	whiteout "$(upper)/d"
	whiteout "$(upper)/tree"
	run arcturn diff
	assert_success
	assert_line "old mode 100644"
	assert_line "new mode 100755"
	assert_line "deleted file mode 100644"
	assert_line "diff --git a/tree/sub/two b/tree/sub/two"
	run arcturn session show
	assert_line "pending:   4"
	assert_line "  D tree/one"
}

@test "session ids: ../ and other bad ids are refused before any path is built" {
	for id in ../evil .. a/b UPPER -x ""; do
		run arcturn --session "$id" write --dry-run f <<<"x"
		assert_failure 2
		assert_output --partial "invalid session id"
	done
	run env ARCTURN_SESSION=../evil "$ARCTURN_BIN" diff
	assert_failure 2
	assert_output --partial "invalid session id"
	run arcturn session rm ../evil
	assert_failure 2
	[ ! -e "$HOME/.arcturn/evil" ]
	[ ! -e "$HOME/evil" ]
	[ -z "$(ls -A "$HOME/.arcturn/overlays" 2>/dev/null | grep -v '^\.lock$')" ]
}

@test "named sessions: created by write, missing ones are errors for diff/apply/show/rm" {
	run arcturn --session nosuch diff
	assert_failure 2
	assert_output "arcturn: diff: session nosuch: no such session"
	run arcturn --session nosuch apply --yes
	assert_failure 2
	run arcturn session show nosuch
	assert_failure 2
	run arcturn session rm nosuch
	assert_failure 2
	assert_output "arcturn: session: nosuch: no such session"
	run arcturn --session nosuch discard
	assert_success
	assert_output "No pending changes."
	ARCTURN_SESSION=mine arcturn write --dry-run f <<<"1"
	[ -f "$HOME/.arcturn/overlays/mine/upper/f" ]
	run arcturn diff
	assert_output ""
	run arcturn --session mine diff --stat
	assert_line " 1 file changed, 1 insertion(+)"
}

@test "a named session of another workspace is refused with its root named" {
	arcturn --session other write --dry-run f <<<"1"
	mkdir "$T/ws2"
	run arcturn -C "$T/ws2" --session other diff
	assert_failure 2
	assert_output "arcturn: diff: session other: belongs to workspace $WS, not $T/ws2 (use -C)"
}

@test "session list, show, rm (text and --json)" {
	run arcturn session list
	assert_success
	assert_output ""
	ARCTURN_DRY_RUN=1 arcturn write f <<<"1"
	ARCTURN_DRY_RUN=1 arcturn write g <<<"2"
	arcturn --session zz write --dry-run h <<<"3"
	id=$(sess_id)
	run arcturn session list
	assert_success
	assert_line --index 0 --regexp '^ID +PENDING +WORKSPACE$'
	assert_line --regexp "^$id +2  $WS\$"
	assert_line --regexp "^zz +1  $WS\$"
	run arcturn --json session list
	[ "$(jq -c "[.sessions[] | [.id, .pending, .workspace == \"$WS\"]] | sort" <<<"$output")" = \
	  "$(jq -cn "[[\"$id\",2,true],[\"zz\",1,true]] | sort")" ]
	run arcturn session show zz
	assert_line "session:   zz"
	assert_line "workspace: $WS"
	assert_line "  A h"
	run arcturn --json session show
	[ "$(jq -r '.files[0].status' <<<"$output")" = added ]
	run arcturn session rm --yes zz
	assert_success
	assert_output "Removed session zz."
	[ ! -e "$HOME/.arcturn/overlays/zz" ]
	run arcturn session frob
	assert_failure 2
}

@test "a corrupt meta.json gives one clean line and exit 2" {
	ARCTURN_DRY_RUN=1 arcturn write f <<<"1"
	d=$(sess_dir)
	printf '{ "version": 1, "id": ' >"$d/meta.json"
	run arcturn diff
	assert_failure 2
	assert_output "arcturn: diff: session $(basename "$d"): meta.json truncated or not valid JSON; it is damaged: remove it with \`arcturn session rm $(basename "$d")\`"
	run arcturn session list
	assert_failure 1
	assert_output --partial "meta.json truncated or not valid JSON"
	printf '{"version": 7, "id": "%s", "workspace": "/", "created": "x"}' "$(basename "$d")" >"$d/meta.json"
	run arcturn --session "$(basename "$d")" apply --yes
	assert_failure 2
	assert_output --partial "unsupported format version"
}

@test "whiteouts: char device 0/0 where mknod is allowed (documented choice)" {
	printf 'x\n' >f
	ARCTURN_DRY_RUN=1 arcturn write g <<<"1"
	if ! mknod "$T/probe" c 0 0 2>/dev/null; then
		skip "mknod of a 0/0 whiteout is refused here (kernel < 5.8?)"
	fi
	whiteout "$(upper)/f"
	[ -c "$(upper)/f" ]
	[ "$(stat -c '%t,%T' "$(upper)/f")" = "0,0" ]
	run arcturn diff
	assert_line "deleted file mode 100644"
}
