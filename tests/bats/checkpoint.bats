#!/usr/bin/env bats
# Checkpoints: turn, rewind, undo, checkpoints. Trees are compared by
# content: a listing of every file and link with its mode and SHA-256.

load common

setup() { common_setup; }

# The small file system a test mounts for the state dir goes, whatever
# the test's end.
teardown() {
	if [ -n "${T:-}" ] && mountpoint -q "$T/state" 2>/dev/null; then
		umount "$T/state"
	fi
	true
}

# Every file and symlink under the workspace (not .git), sorted: path,
# kind, mode and hash of content or target. The files' modes and hashes
# come from one stat and one sha256sum (a few processes a file made a
# tree of 120 files take seconds); per file as before when one of them
# could not be read (their lists would not line up).
tree() {
	(cd "$WS" || exit 1
	local p j=0 paths=() files=() modes=() sums=()
	mapfile -t paths < <(find . -path ./.git -prune -o \( -type f -o -type l \) -print |
	    LC_ALL=C sort)
	for p in "${paths[@]}"; do
		[ -L "$p" ] || files+=("$p")
	done
	if [ ${#files[@]} -gt 0 ]; then
		mapfile -d '' -t modes < <(stat --printf '%a\0' -- "${files[@]}")
		mapfile -d '' -t sums < <(sha256sum -z -- "${files[@]}")
	fi
	for p in "${paths[@]}"; do
		if [ -L "$p" ]; then
			printf '%s link %s\n' "$p" "$(readlink "$p" | sha256sum | cut -c1-64)"
		elif [ ${#modes[@]} = ${#files[@]} ] && [ ${#sums[@]} = ${#files[@]} ]; then
			printf '%s file %s %s\n' "$p" "${modes[j]}" "${sums[j]:0:64}"
			j=$((j + 1))
		else
			printf '%s file %s %s\n' "$p" "$(stat -c %a "$p")" \
			    "$(sha256sum <"$p" | cut -c1-64)"
		fi
	done)
}

# Every entry under the workspace (not .git), directories included, with
# kind and mode; then tree()'s hashes.
full_tree() {
	(cd "$WS" && find . -path ./.git -prune -o -printf '%p %y %m\n' |
	    LC_ALL=C sort)
	tree
}

have_dry_exec() {
	"$ARCTURN_BIN" sandbox status --json | grep -q '"dry_run_exec":true' ||
		skip "exec --dry-run unavailable here: $("$ARCTURN_BIN" sandbox status | grep dry-run)"
}

store() { echo "$HOME/.arcturn/checkpoints/$(printf '%s' "$WS" | sha256sum | cut -c1-64)"; }

# A small project: files of several modes, a link, a nested folder.
project() {
	mkdir -p src/lib docs
	printf 'int main(void) { return 0; }\n' >src/main.c
	printf 'lib\n' >src/lib/util.c
	printf '#!/bin/sh\necho hi\n' >run.sh
	chmod 0755 run.sh
	printf 'secret\n' >docs/notes
	chmod 0600 docs/notes
	ln -s src/main.c main-link
}

@test "write and edit, then undo: the tree is as before, modes included" {
	project
	before=$(tree)
	arcturn edit src/main.c --old 'return 0' --new 'return 1'
	arcturn undo
	[ "$(tree)" = "$before" ]
	printf 'changed\n' | arcturn write docs/notes
	[ "$(cat docs/notes)" = changed ]
	run arcturn undo
	assert_success
	assert_output "undo: restored 1 path to before turn 3 (as turn 4)"
	[ "$(tree)" = "$before" ]
	[ "$(stat -c %a docs/notes)" = 600 ]
}

@test "a file a write created is removed by undo; undo twice is redo" {
	project
	before=$(tree)
	arcturn write src/new.c <<<"new file"
	after=$(tree)
	arcturn undo
	[ ! -e src/new.c ]
	[ "$(tree)" = "$before" ]
	arcturn undo
	[ "$(tree)" = "$after" ]
	[ "$(cat src/new.c)" = "new file" ]
}

@test "turn groups writes: one undo takes the whole turn back" {
	project
	arcturn write a.txt <<<"first"
	before=$(tree)
	run arcturn turn --label "fix the build"
	assert_success
	assert_output "turn 2"
	arcturn edit src/main.c --old main --new start
	arcturn write src/lib/util.c <<<"lib 2"
	arcturn write src/lib/util.c <<<"lib 3"
	arcturn write docs/new.md <<<"doc"
	run arcturn checkpoints
	assert_success
	assert_line --index 0 --regexp '^turn 2  [0-9T:Z-]+  3 paths  fix the build$'
	assert_line --index 1 "  M src/main.c"
	assert_line --index 2 "  M src/lib/util.c"
	assert_line --index 3 "  A docs/new.md"
	assert_line --index 4 --regexp '^turn 1  .*  1 path$'
	run arcturn undo
	assert_success
	assert_output "undo: restored 3 paths to before turn 2 (as turn 3)"
	[ "$(tree)" = "$before" ]
	# a rewind ends the turn: the next write is a turn of its own
	arcturn write a.txt <<<"second"
	run arcturn --json checkpoints
	[ "$(jq '.turns | length' <<<"$output")" = 4 ]
	[ "$(jq -r '.turns[0].paths[0].path' <<<"$output")" = a.txt ]
	[ "$(jq -r '.turns[1].label' <<<"$output")" = "undo of turn 2" ]
	[ "$(jq -r '.workspace' <<<"$output")" = "$WS" ]
}

@test "parallel writers in one turn: every path is recorded, one undo restores all" {
	for p in 1 2 3 4 5 6 7 8; do printf 'orig %s\n' "$p" >f$p; done
	before=$(tree)
	arcturn turn --label parallel
	for p in 1 2 3 4 5 6 7 8; do
		(
			for i in 1 2 3; do
				printf 'w%s %s\n' "$p" "$i" | "$ARCTURN_BIN" write f$p
				printf 'shared %s %s\n' "$p" "$i" | "$ARCTURN_BIN" write shared
			done
		) &
	done
	wait
	run arcturn --json checkpoints
	[ "$(jq '.turns | length' <<<"$output")" = 1 ]
	[ "$(jq '.turns[0].paths | length' <<<"$output")" = 9 ]
	run arcturn undo
	assert_success
	assert_output "undo: restored 9 paths to before turn 1 (as turn 2)"
	[ "$(tree)" = "$before" ]
}

@test "rewind TURN restores everything since, leaving other paths alone" {
	project
	before=$(tree)
	arcturn write src/main.c <<<"v1"
	arcturn write src/main.c <<<"v2"
	arcturn write run.sh <<<"echo v2"
	arcturn edit src/lib/util.c --old lib --new LIB
	printf 'mine\n' >user.txt	# the user's own file: never touched
	run arcturn rewind 1
	assert_success
	assert_output "rewind: restored 3 paths to before turn 1 (as turn 5)"
	[ "$(cat user.txt)" = mine ]
	rm user.txt
	[ "$(tree)" = "$before" ]
	[ "$(stat -c %a run.sh)" = 755 ]
	# and the rewind itself can be undone
	arcturn undo
	[ "$(cat src/main.c)" = v2 ]
	[ "$(cat src/lib/util.c)" = LIB ]
}

@test "rewind: a path changed since is a conflict; --force overwrites and keeps it" {
	project
	arcturn write src/main.c <<<"tool"
	printf 'user edit\n' >src/main.c
	run arcturn undo
	assert_failure 1
	assert_line "arcturn: undo: src/main.c: changed since turn 1 left it; conflict"
	assert_line "arcturn: undo: 1 conflict; nothing restored (--force overwrites them)"
	[ "$(cat src/main.c)" = "user edit" ]
	run arcturn undo --force
	assert_success
	[ "$(cat src/main.c)" = 'int main(void) { return 0; }' ]
	# the user's edit was snapshotted by the forced undo
	arcturn undo
	[ "$(cat src/main.c)" = "user edit" ]
}

@test "a write's new state goes to the turn's .after log; a lost log is a conflict, not a wrong restore" {
	project
	arcturn turn --label logged >/dev/null
	arcturn write src/main.c <<<"v1"
	arcturn write src/main.c <<<"v2"
	log=$(store)/turns/0000000001.after
	[ -f "$log" ]
	# the record was written once, before the first write; the log says v2
	[ "$(grep -c '^after file ' "$log")" = 2 ]
	grep -q "^after file 644 $(printf 'v2\n' | sha256sum | cut -c1-64) 10\$" "$log"
	# a crash that tore the log's tail: the whole entries still count
	printf 'after file 644 0123' >>"$log"
	run arcturn undo
	assert_success
	[ "$(cat src/main.c)" = 'int main(void) { return 0; }' ]
	arcturn undo >/dev/null		# back to v2 (the undo's own turn)
	[ "$(cat src/main.c)" = v2 ]
	# a crash that lost the whole log: the tool's v2 is not known, so a
	# rewind refuses it as changed since, and --force restores
	arcturn turn >/dev/null
	arcturn write src/main.c <<<"v3"
	rm "$(store)"/turns/*.after
	run arcturn undo
	assert_failure 1
	assert_line --regexp '^arcturn: undo: src/main.c: changed since turn [0-9]+ left it; conflict$'
	[ "$(cat src/main.c)" = v3 ]
	run arcturn undo --force
	assert_success
	[ "$(cat src/main.c)" = v2 ]
}

@test "rewind: nothing to rewind, no such turn, a bad number" {
	run arcturn undo
	assert_failure 1
	assert_output "arcturn: undo: no checkpoints for this workspace"
	arcturn write a <<<"x"
	run arcturn rewind 7
	assert_failure 1
	assert_output "arcturn: rewind: turn 7: no such turn (arcturn checkpoints lists them)"
	run arcturn rewind 0x1
	assert_failure 2
	run arcturn rewind 1 2
	assert_failure 2
	run arcturn checkpoints --bogus
	assert_failure 2
}

@test "rewind does not restore a path the policy protects" {
	arcturn write keep.txt <<<"tool"
	arcturn write other.txt <<<"tool"
	arcturn turn
	arcturn write keep.txt <<<"tool 2"
	arcturn write other.txt <<<"tool 2"
	printf '{ "protect": ["keep.txt"] }\n' >.arcturn.json
	run arcturn undo
	assert_failure 1
	assert_line "arcturn: undo: keep.txt: protected path; refused"
	assert_line "undo: restored 1 path to before turn 3 (as turn 4)"
	[ "$(cat keep.txt)" = "tool 2" ]
	[ "$(cat other.txt)" = "tool" ]
}

@test "write --dry-run makes no turn; after apply, edits checkpoint the applied file" {
	printf 'orig\n' >f
	arcturn write --dry-run f <<<"pending"
	run arcturn checkpoints
	assert_success
	assert_output ""
	arcturn apply --yes >/dev/null
	[ "$(cat f)" = pending ]
	arcturn edit f --old pending --new later
	arcturn undo
	[ "$(cat f)" = pending ]
}

@test "retention: checkpoints.keep turns stay, and the blobs only they name" {
	mkdir -p "$HOME/.config/arcturn"
	printf '{ "checkpoints": { "keep": 3 } }\n' >"$HOME/.config/arcturn/config.json"
	for i in 1 2 3 4 5 6; do
		arcturn write f <<<"content $i"
	done
	run arcturn --json checkpoints
	[ "$(jq -c '[.turns[].id]' <<<"$output")" = "[6,5,4]" ]
	# turns 4-6 snapshotted content 3, 4 and 5
	[ "$(ls "$(store)/blobs" | wc -l)" = 3 ]
	arcturn rewind 4
	[ "$(cat f)" = "content 3" ]
	run arcturn rewind 2
	assert_failure 1
	printf '{ "checkpoints": { "keep": 0 } }\n' >"$HOME/.config/arcturn/config.json"
	run arcturn checkpoints
	assert_failure 2
	assert_output --partial '"checkpoints": "keep" (1 to 1000000)'
	printf '{ "checkpoints": { "keep": 2 } }\n' >.arcturn.json
	printf '{}\n' >"$HOME/.config/arcturn/config.json"
	run arcturn checkpoints
	assert_success
	assert_line --partial '"checkpoints" ignored: retention is set in the user config'
}

@test "checkpoints.maxBytes drops the oldest turns first" {
	mkdir -p "$HOME/.config/arcturn"
	printf '{ "checkpoints": { "maxBytes": 2500 } }\n' >"$HOME/.config/arcturn/config.json"
	for i in 1 2 3 4 5; do
		head -c 1000 /dev/zero | tr '\0' "$i" >f
		arcturn write f <<<"small"
	done
	run arcturn --json checkpoints
	[ "$(jq -c '[.turns[].id]' <<<"$output")" = "[5,4]" ]
}

@test "kill -9 during a rewind leaves each file old or new; a second rewind completes" {
	mkdir many
	for i in $(seq 1 120); do printf 'old %s\n' "$i" >many/f$i; done
	before=$(tree)
	arcturn turn
	for i in $(seq 1 120); do
		printf 'new %s\n' "$i" | arcturn write many/f$i
	done
	for delay in 0.01 0.03 0.06; do
		timeout -s KILL "$delay" "$ARCTURN_BIN" rewind 1 >/dev/null 2>&1 || true
		# each file whole, read without a process a file (read stops
		# early only at a NUL byte, which is neither)
		for i in $(seq 1 120); do
			c=
			if IFS= read -r -d '' c <many/f$i; then
				fail "many/f$i: a NUL byte"
			fi
			[ "$c" = "old $i"$'\n' ] || [ "$c" = "new $i"$'\n' ]
		done
	done
	# the kill may land between a temp file and its rename: the second
	# rewind removes what is left, also where nothing is left to restore
	run arcturn rewind 1
	assert_success
	run ls -A many
	refute_output --partial ".arcturn-tmp-"
	[ "$(tree)" = "$before" ]
	# a leftover next to a path already restored goes too
	echo torn >many/.arcturn-tmp-0123456789abcdef
	run arcturn rewind 1
	run ls -A many
	refute_output --partial ".arcturn-tmp-"
	[ "$(tree)" = "$before" ]
}

@test "the checkpoint store is private and made of whole records" {
	arcturn write a <<<"x"
	[ "$(stat -c %a "$(store)")" = 700 ]
	[ "$(stat -c %a "$(store)/blobs")" = 700 ]
	# the record, and the log of what the write left there
	run ls -A "$(store)/turns"
	assert_output "0000000001
0000000001.after"
	[ "$(stat -c %a "$(store)/turns/0000000001")" = 600 ]
	[ "$(stat -c %a "$(store)/turns/0000000001.after")" = 600 ]
	run head -1 "$(store)/turns/0000000001"
	assert_output "arcturn-turn 1"
	# a damaged record is said, and listed as such
	printf 'arcturn-turn 1\nid 1\n' >"$(store)/turns/0000000001"
	run arcturn checkpoints
	assert_success
	assert_output --regexp '^turn 1  .*  record damaged \(truncated\): arcturn checkpoints --prune-damaged removes it$'

}

@test "a write that cannot be checkpointed is not made (inside exec the store is protected)" {
	arcturn exec --require-sandbox -- true 2>/dev/null ||
	    skip "no sandbox backend here: the store is not protected from a command"
	printf 'orig\n' >f
	run arcturn exec -- sh -c "echo new | '$ARCTURN_BIN' write f"
	assert_failure 1
	assert_output --regexp '^arcturn: write: f: checkpoint: .*; not written$'
	[ "$(cat f)" = orig ]
	# outside it works, and is undoable
	arcturn write f <<<"new"
	arcturn undo
	[ "$(cat f)" = orig ]
}

@test "apply is a turn: undo restores the pre-apply tree (files, modes, links, created files)" {
	project
	before=$(full_tree)
	arcturn write --dry-run src/main.c <<<"changed"
	arcturn write --dry-run src/new/deep/added.c <<<"added"
	arcturn write --dry-run docs/notes <<<"notes 2"
	run arcturn apply --yes
	assert_success
	assert_output --regexp '^Applied 3 file\(s\) \(as turn [0-9]+\)\.$'
	after=$(full_tree)
	[ "$after" != "$before" ]
	run arcturn checkpoints
	assert_line --regexp '^turn 1  .*  apply$'
	assert_line "  A src/new/deep/added.c"
	assert_line "  M src/main.c"
	run arcturn undo
	assert_success
	assert_output "undo: restored 5 paths to before turn 1 (as turn 2)"
	[ "$(full_tree)" = "$before" ]
	[ ! -e src/new ]
	# and the undo is a turn: undoing it lands the apply again
	arcturn undo
	[ "$(full_tree)" = "$after" ]
}

@test "exec --dry-run then apply, then undo: a directory tree, a symlink and modes come back" {
	have_dry_exec
	project
	chmod 0700 src/lib
	before=$(full_tree)
	run arcturn exec --dry-run -- sh -c 'rm -r src; rm main-link; ln -s docs main-link; chmod 0644 run.sh; chmod 0750 docs; mkdir -p made/a; echo x >made/a/x'
	assert_success
	run arcturn apply --yes
	assert_success
	[ ! -e src ]
	[ -d made/a ]
	[ "$(readlink main-link)" = docs ]
	after=$(full_tree)
	run arcturn undo
	assert_success
	[ "$(full_tree)" = "$before" ]
	[ "$(stat -c %a src/lib)" = 700 ]
	arcturn undo
	[ "$(full_tree)" = "$after" ]
}

@test "directories replaced by files: apply lands them, undo brings the read-only directories back" {
	have_dry_exec
	for i in 1 2 3 4; do mkdir "ro$i"; chmod 0555 "ro$i"; done
	before=$(full_tree)
	run arcturn exec --dry-run -- sh -c 'for i in 1 2 3 4; do rmdir ro$i && echo x >ro$i; done'
	assert_success
	run arcturn apply --yes
	assert_success
	[ "$(cat ro1)" = x ]
	[ "$(cat ro4)" = x ]
	run arcturn undo
	assert_success
	[ "$(full_tree)" = "$before" ]
	[ "$(stat -c %a ro3)" = 555 ]
}

@test "undo of an apply: a file the user edited since is a conflict, --force restores it" {
	printf 'orig\n' >f
	printf 'other\n' >g
	arcturn write --dry-run f <<<"tool"
	arcturn write --dry-run g <<<"tool g"
	arcturn apply --yes >/dev/null
	printf 'mine\n' >f
	run arcturn undo
	assert_failure 1
	assert_line --regexp '^arcturn: undo: f: changed since turn [0-9]+ left it; conflict$'
	assert_line "arcturn: undo: 1 conflict; nothing restored (--force overwrites them)"
	[ "$(cat f)" = mine ]
	[ "$(cat g)" = "tool g" ]
	run arcturn undo --force
	assert_success
	[ "$(cat f)" = orig ]
	[ "$(cat g)" = other ]
	# the user's version is in the undo's own turn
	arcturn undo
	[ "$(cat f)" = mine ]
}

@test "apply refuses when the checkpoint store cannot be written: nothing applied" {
	is_root && skip "root writes a read-only directory"
	printf 'orig\n' >f
	arcturn write --dry-run f <<<"new"
	mkdir -p "$HOME/.arcturn/checkpoints"
	chmod 0500 "$HOME/.arcturn/checkpoints"
	run arcturn apply --yes
	chmod 0700 "$HOME/.arcturn/checkpoints"
	assert_failure 1
	assert_output --regexp '^arcturn: apply: checkpoint: .*; nothing applied$'
	[ "$(cat f)" = orig ]
	run arcturn diff --name-only
	assert_output "f"
}

@test "exec --checkpoint: a shell command's edits are one turn; undo gives the tree back" {
	have_dry_exec
	project
	printf 'a line\n' >f
	before=$(full_tree)
	run arcturn exec --checkpoint -- sh -c 'rm -r src; sed -i s/a/b/ f; echo out'
	assert_success
	assert_line "out"
	assert_line --regexp '^Applied 3 file\(s\) \(as turn 1\)\.$'
	[ ! -e src ]
	[ "$(cat f)" = "b line" ]
	run arcturn checkpoints
	assert_line --regexp "^turn 1  .*  sh -c rm -r src; sed -i s/a/b/ f; echo out$"
	# nothing stays pending: the session went with the apply
	run arcturn session list
	refute_output --partial "$WS"
	run arcturn undo
	assert_success
	[ "$(full_tree)" = "$before" ]
}

@test "exec --checkpoint --join-turn adds the command's writes to the turn that turn began" {
	have_dry_exec
	project
	before=$(tree)
	run arcturn turn --label "agent task"
	assert_success
	arcturn write a.txt <<<"written"
	run arcturn exec --checkpoint --join-turn -- sh -c 'echo made >b.txt; echo x >a.txt'
	assert_success
	arcturn edit src/main.c --old main --new start
	run arcturn --json checkpoints
	[ "$(jq '.turns | length' <<<"$output")" = 1 ]
	[ "$(jq -r '.turns[0].label' <<<"$output")" = "agent task" ]
	[ "$(jq -r '[.turns[0].paths[].path] | sort | join(" ")' <<<"$output")" = "a.txt b.txt src/main.c" ]
	run arcturn undo
	assert_success
	[ "$(tree)" = "$before" ]
	# without it, the command's writes are a turn of their own
	arcturn turn --label "second"
	arcturn write a.txt <<<"again"
	arcturn exec --checkpoint -- sh -c 'echo y >c.txt'
	run arcturn --json checkpoints
	[ "$(jq -r '.turns[0].paths[0].path' <<<"$output")" = c.txt ]
	[ "$(jq -r '.turns[1].label' <<<"$output")" = second ]
	# and it goes with --checkpoint only
	run arcturn exec --join-turn -- true
	assert_failure 125
	assert_output --partial "exec: --join-turn adds --checkpoint's turn to the one"
}

@test "exec --checkpoint --join-turn that changes only paths the turn holds: their after states are settled, undo clean" {
	have_dry_exec
	project
	before=$(tree)
	arcturn turn --label "agent task"
	arcturn write a.txt <<<"written"
	run arcturn exec --checkpoint --join-turn -- sh -c 'echo x >a.txt'
	assert_success
	refute_output --partial "kept in"
	run arcturn --json checkpoints
	[ "$(jq '.turns | length' <<<"$output")" = 1 ]
	[ "$(jq '.turns[0].open // false' <<<"$output")" = false ]
	# a.txt's after state is the command's: no conflict
	run arcturn undo
	assert_success
	[ "$(tree)" = "$before" ]
}

@test "exec --checkpoint: the command's status is kept; a conflict is refused and stays pending" {
	have_dry_exec
	printf 'orig\n' >f
	run arcturn exec --checkpoint -- sh -c 'echo x >g; exit 3'
	assert_failure 3
	[ "$(cat g)" = x ]
	# the user writes f while the command runs: apply refuses it
	arcturn exec --checkpoint -- sh -c "echo tool >f; echo tool >h; until [ -e '$T/go' ]; do sleep 0.05; done" >"$T/out" 2>&1 &
	pid=$!
	for i in $(seq 1 200); do
		ls "$HOME"/.arcturn/overlays/*/upper/f >/dev/null 2>&1 && break
		sleep 0.05
	done
	printf 'mine\n' >f
	touch "$T/go"
	rc=0
	wait "$pid" || rc=$?
	cat "$T/out"
	[ "$rc" -eq 1 ]
	[ "$(cat f)" = mine ]
	[ "$(cat h)" = tool ]
	grep -q '^arcturn: apply: f: .*; refused$' "$T/out"
	grep -q '^arcturn: exec --checkpoint: session [0-9a-f]* keeps what was not applied' "$T/out"
	run arcturn session list
	assert_output --partial "$WS"
}

@test "exec --checkpoint without the dry-run overlay: 125 and one line, nothing runs" {
	ARCTURN_BACKEND=none run arcturn sandbox status
	assert_line --partial 'dry-run exec: unavailable'
	ARCTURN_BACKEND=none run arcturn exec --checkpoint -- sh -c "touch '$T/ran'"
	assert_failure 125
	assert_output --regexp '^arcturn: exec --checkpoint: .*; not running the command$'
	[ "${#lines[@]}" -eq 1 ]
	[ ! -e "$T/ran" ]
	run arcturn checkpoints
	assert_output ""
}

@test "exec --checkpoint with --dry-run is a usage error: one line, 125, nothing runs or changes" {
	echo v1 >conf
	for args in "exec --checkpoint --dry-run" "exec --dry-run --checkpoint" \
	    "--dry-run exec --checkpoint"; do
		# shellcheck disable=SC2086
		run arcturn $args -- sh -c "echo v2 >conf; touch '$T/ran'"
		assert_failure 125
		assert_output "arcturn: exec: --checkpoint applies what the command changes, --dry-run keeps it pending: give one of them"
		[ ! -e "$T/ran" ]
		[ "$(cat conf)" = v1 ]
	done
	run arcturn checkpoints
	assert_output ""
}

@test "a folder a command replaced by a symlink: recorded without following it, undone in one go, nothing written through it" {
	have_dry_exec
	for how in "exec --checkpoint" "exec --dry-run+apply"; do
		for to in e "$OUT/o"; do
			rm -rf d e "$OUT/o" "$HOME/.arcturn"
			mkdir d e "$OUT/o"
			echo dx >d/x
			echo ex >e/x
			echo ox >"$OUT/o/x"
			before=$(full_tree)
			if [ "$how" = "exec --checkpoint" ]; then
				run arcturn exec --checkpoint -- sh -c "rm -r d; ln -s '$to' d"
				assert_success
			else
				run arcturn exec --dry-run -- sh -c "rm -r d; ln -s '$to' d"
				assert_success
				run arcturn apply --yes
				assert_success
			fi
			refute_output --partial "Cross-device"
			[ "$(readlink d)" = "$to" ]
			# the control: through the link, d/x is the target's x
			[ "$(cat d/x)" = "$([ "$to" = e ] && echo ex || echo ox)" ]
			after=$(full_tree)
			run arcturn checkpoints
			assert_line "  M d"
			assert_line "  D d/x"
			run arcturn undo
			assert_success
			assert_output --regexp "^undo: restored 2 paths"
			[ "$(full_tree)" = "$before" ]
			[ "$(cat e/x)" = ex ]
			[ "$(cat "$OUT/o/x")" = ox ]
			# and redo: the link again, nothing written through it
			run arcturn undo
			assert_success
			[ "$(full_tree)" = "$after" ]
			[ "$(cat e/x)" = ex ]
			[ "$(cat "$OUT/o/x")" = ox ]
		done
	done
}

@test "exec --checkpoint and --dry-run: the state dir's file system filled during the run: nothing applied, the session kept, non-zero, the file system named" {
	have_dry_exec
	is_root || skip "mounting a small file system for the state dir needs root"
	mkdir "$T/state"
	mount -t tmpfs -o size=1m tmpfs "$T/state" || skip "cannot mount a tmpfs here"
	export ARCTURN_HOME=$T/state
	echo keep >f
	# control: a command that fits lands, and is undone
	run arcturn exec --checkpoint -- sh -c 'head -c 100000 /dev/zero >small'
	assert_success
	[ "$(stat -c %s small)" = 100000 ]
	arcturn undo
	[ ! -e small ]
	# the command's write is cut short by the full upper; it says 0
	run arcturn exec --checkpoint -- sh -c 'head -c 3000000 /dev/zero >big; exit 0'
	assert_failure 125
	assert_output --regexp "exec --checkpoint: the file system of $T/state/overlays/[0-9a-f]+/upper ran out of space during the run: what the command wrote may be cut short; session [0-9a-f]+ keeps it for review"
	[ ! -e big ]
	[ "$(cat f)" = keep ]
	run arcturn session list
	assert_output --regexp "[0-9a-f]+ +1 +$WS"
	rm -rf "${T:?}/state/overlays"
	run arcturn exec --dry-run -- sh -c 'head -c 3000000 /dev/zero >big; exit 0'
	assert_failure 125
	assert_output --partial "exec --dry-run: the file system of $T/state/overlays/"
	[ ! -e big ]
	umount "$T/state"
}

@test "write makes folders, undo takes them away again; one the user filled since stays" {
	project
	before=$(full_tree)
	printf 'new\n' | arcturn write a/b/c/new.txt
	[ -d a/b/c ]
	run arcturn undo
	assert_success
	assert_output "undo: restored 4 paths to before turn 1 (as turn 2)"
	[ "$(full_tree)" = "$before" ]
	# redo makes them again, with the same content
	arcturn undo
	[ "$(cat a/b/c/new.txt)" = new ]
	# within one turn, a second write beneath a made folder joins it
	arcturn turn
	printf 'two\n' | arcturn write x/one.txt
	printf 'two\n' | arcturn write x/y/two.txt
	printf 'mine\n' >x/mine.txt	# the user's own, made since
	run arcturn undo
	assert_failure 1
	assert_output --partial "arcturn: undo: x: not empty: holds entries created since capture; kept"
	[ "$(cat x/mine.txt)" = mine ]
	[ ! -e x/one.txt ]
	[ ! -e x/y ]
}

# A snapshot damaged in the store (bit rot, a bad sector, a blob cut
# short) is never put in place: undo refuses that path as damaged, names
# it (JSON code "damaged"), leaves the file as it is and still restores
# the others; the next snapshot of the same content replaces the blob.
@test "undo verifies each snapshot before restoring it: a damaged blob is refused and replaced by the next good one" {
	local h g
	printf 'keep me\n' >a.txt
	printf 'other\n' >b.txt
	run -0 arcturn turn
	printf 'new a\n' | arcturn write a.txt
	printf 'new b\n' | arcturn write b.txt
	h=$(printf 'keep me\n' | sha256sum | cut -c1-64)
	g=$(printf 'other\n' | sha256sum | cut -c1-64)
	[ -f "$(store)/blobs/$h" ]
	# a flipped byte: same size, other bytes
	printf 'keep Me\n' >"$(store)/blobs/$h"
	run --separate-stderr arcturn undo --json
	echo "$output $stderr"
	assert_failure 1
	run -0 python3 -c 'import json, sys
j = json.loads(sys.argv[1])
print([(c["path"], c.get("code")) for c in j["conflicts"]], [r["path"] for r in j["restored"]])' "$output"
	assert_output "[('a.txt', 'damaged')] ['b.txt']"
	[ "$(cat a.txt)" = "new a" ]
	[ "$(cat b.txt)" = other ]
	# the next snapshot of that content stores it again, whole
	printf 'keep me\n' | arcturn write a.txt
	printf 'again\n' | arcturn write a.txt
	run -0 sha256sum "$(store)/blobs/$h"
	assert_output "$h  $(store)/blobs/$h"
	run -0 arcturn undo
	[ "$(cat a.txt)" = "keep me" ]
}

@test "undo verifies a symlink's stored target too" {
	local h
	ln -s target-one l
	printf 'x\n' | arcturn write l
	h=$(printf 'target-one' | sha256sum | cut -c1-64)
	[ -f "$(store)/blobs/$h" ]
	# cut short
	printf 'target-o' >"$(store)/blobs/$h"
	run arcturn undo
	assert_failure 1
	assert_output "arcturn: undo: l: damaged: its stored copy does not match the recorded hash; refused
undo: restored 0 paths to before turn 1"
	[ "$(cat l)" = x ]
	printf 'target-one' >"$(store)/blobs/$h"
	run -0 arcturn undo
	[ "$(readlink l)" = target-one ]
}
