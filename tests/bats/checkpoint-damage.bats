#!/usr/bin/env bats
# A damaged checkpoint store (issue 26): each store item truncated,
# flipped, missing, or of the wrong type. Nothing is restored wrong,
# nothing stays stuck: a damaged record is listed and skipped (the turns
# around it stay undoable, retention goes on, --prune-damaged clears it);
# every other error names the item and says what to do.

load common

setup() {
	common_setup
	printf 'a0\n' >a
	printf 'b0\n' >b
	printf 'c0\n' >c
	# three turns: a, then b, then c
	arcturn write a <<<a1
	arcturn write b <<<b1
	arcturn write c <<<c1
	S=$HOME/.arcturn/checkpoints/$(printf '%s' "$WS" | sha256sum | cut -c1-64)
	[ -f "$S/turns/0000000002" ]
}

damage() {	# how path: truncated, flipped, missing or wrong type
	case $1 in
	truncated) head -c 20 "$2" >"$T/cut" && cat "$T/cut" >"$2" ;;
	flipped) printf 'X' | dd of="$2" bs=1 seek=0 conv=notrunc status=none ;;
	missing) rm -rf "$2" ;;
	type) rm -rf "$2" && mkdir "$2" ;;
	esac
}

@test "a damaged turn record: listed and skipped, the turns around it undoable, pruned on request" {
	for how in truncated flipped missing type; do
		rm -rf "$HOME/.arcturn"
		printf 'a0\n' >a; printf 'b0\n' >b; printf 'c0\n' >c
		arcturn write a <<<a1
		arcturn write b <<<b1
		arcturn write c <<<c1
		damage "$how" "$S/turns/0000000002"
		run arcturn checkpoints
		assert_success
		case $how in
		truncated) assert_line --regexp '^turn 2  .*  record damaged \(truncated\): arcturn checkpoints --prune-damaged removes it$' ;;
		flipped) assert_line --regexp '^turn 2  .*  record damaged \(corrupt\)' ;;
		type) assert_line --regexp '^turn 2  .*  record damaged \(not a regular file\)' ;;
		missing) refute_output --partial "turn 2" ;;
		esac
		# the newest turn: undone
		run arcturn undo
		assert_success
		[ "$(cat c)" = c0 ]
		# across the damaged one: named, skipped, the rest restored
		run arcturn rewind 1
		assert_success
		[ "$(cat a)" = a0 ]
		[ "$(cat b)" = b1 ]
		if [ "$how" != missing ]; then
			assert_output --partial "rewind: turn 2: record damaged"
			# retention went on around it: blobs only it names stay
			[ -n "$(ls "$S/blobs")" ]
			run arcturn checkpoints --prune-damaged
			assert_success
			assert_output --partial "removed turn 2 (record damaged: "
		fi
		run arcturn checkpoints
		refute_output --partial "damaged"
		# and the store takes new turns
		run arcturn write a <<<a2
		assert_success
		run arcturn undo
		assert_success
		[ "$(cat a)" = a0 ]
	done
}

@test "a damaged current turn file never stops a write; an undo still works" {
	for how in truncated flipped missing type; do
		arcturn turn --label t
		damage "$how" "$S/current"
		run arcturn write a <<<"a $how"
		assert_success
		run arcturn undo
		assert_success
		[ "$(cat a)" = a1 ]
		rm -rf "$S/current"
	done
}

@test "a missing or replaced snapshot is refused by name, the rest restored" {
	for how in missing type; do
		rm -rf "$HOME/.arcturn"
		printf 'a0\n' >a; printf 'b0\n' >b
		arcturn turn
		arcturn write a <<<a1
		arcturn write b <<<b1
		damage "$how" "$S/blobs/$(printf 'a0\n' | sha256sum | cut -c1-64)"
		run arcturn undo
		assert_failure 1
		assert_output --partial "undo: a: its snapshot is missing from the store's blobs (no copy of that version is left); refused"
		[ "$(cat a)" = a1 ]
		[ "$(cat b)" = b0 ]
	done
}

@test "a store folder or file of the wrong type: one line naming it and what to do; missing ones are made again" {
	for item in blobs turns lock; do
		rm -rf "$HOME/.arcturn"
		arcturn write a <<<a2
		if [ $item = lock ]; then damage type "$S/lock"; else rm -rf "${S:?}/$item"; touch "$S/$item"; fi
		run arcturn undo
		assert_failure 2
		assert_output "arcturn: undo: checkpoints: $S/$item: not a $([ $item = lock ] && echo regular file || echo directory); move it away (arcturn makes it again)"
		run arcturn write a <<<a3
		assert_failure 1
		assert_output --partial "$S/$item: not a"
		[ "$(cat a)" = a2 ]
		rm -rf "${S:?}/$item"
		# missing: made again (an empty blobs/ means no snapshot left)
		run arcturn write a <<<a4
		assert_success
		run arcturn undo
		assert_success
		[ "$(cat a)" = a2 ]
	done
}

@test "a read-only state dir: one line naming it and the way out; nothing written" {
	is_root || skip "a read-only bind mount needs root"
	mkdir "$T/state"
	export ARCTURN_HOME=$T/state
	arcturn write a <<<a2
	mount --bind -o ro "$T/state" "$T/state" || skip "cannot bind-mount here"
	msg="$T/state: Read-only file system; the checkpoint store needs it writable (ARCTURN_HOME chooses the state dir)"
	run arcturn write a <<<a3
	assert_failure 1
	assert_output "arcturn: write: a: checkpoint: $msg; not written"
	[ "$(cat a)" = a2 ]
	for cmd in undo turn; do
		run arcturn $cmd
		assert_failure 2
		assert_output "arcturn: $cmd: checkpoints: $msg"
	done
	[ "$(cat a)" = a2 ]
}

teardown() {
	if [ -n "${T:-}" ] && mountpoint -q "$T/state" 2>/dev/null; then
		umount "$T/state"
	fi
	true
}
