#!/usr/bin/env bats
# Dry run under faults (issue 11): a full disk on the state dir and on the
# workspace (small tmpfs mounts), too few fds, a read-only workspace. The
# user's data is checked by content afterwards; nothing is half written,
# and the session is never stuck. Mounting needs root: as another user
# each test skips, saying so.

load common

MNT=()
setup() {
	common_setup
	is_root || skip "needs root to mount a small tmpfs"
}
teardown() {
	local m
	for m in "${MNT[@]}"; do
		umount -l "$m" 2>/dev/null || true
	done
}
# small_tmpfs DIR SIZE: mount a tmpfs of SIZE on DIR
small_tmpfs() {	# DIR SIZE [MORE_OPTIONS]
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2,mode=0755${3:+,$3}" tmpfs "$1" ||
		skip "cannot mount tmpfs here"
	MNT+=("$1")
}
dw() { ARCTURN_DRY_RUN=1 "$ARCTURN_BIN" write "$@"; }
h() { sha256sum <"$1" | cut -c1-64; }

@test "ENOSPC on the state dir: write fails with one line, the real file is intact, the session works" {
	small_tmpfs "$T/state" 1m
	export ARCTURN_HOME=$T/state
	echo base >f
	head -c 2097152 /dev/urandom >"$T/big"
	run dw f <"$T/big"
	assert_failure
	assert_output --regexp '^arcturn: write: .*No space left on device$'
	[ "${#lines[@]}" -eq 1 ]
	assert_equal "$(cat f)" base
	# nothing half written is pending, and the session still works
	dw g <<<"small"
	run arcturn apply --yes
	assert_success
	assert_equal "$(cat g)" small
	assert_equal "$(cat f)" base
}

@test "a full state disk when exec --dry-run ends: said (125), the base records still fit, a later edit is a conflict" {
	"$ARCTURN_BIN" sandbox status --json | grep -q '"dry_run_exec":true' ||
		skip "exec --dry-run unavailable here"
	small_tmpfs "$T/state" 2m
	export ARCTURN_HOME=$T/state
	echo base >f
	# the command fills the state dir's disk (its upper/ is there); a
	# record is a symlink kept in the inode, so no block is needed
	run arcturn exec --dry-run -- sh -c 'echo mine >f; cat /dev/zero >fill 2>/dev/null; true'
	# the command says 0, but a write of it was cut short (issue 26)
	assert_failure 125
	assert_output --regexp '^arcturn: exec --dry-run: the file system of .*/upper ran out of space during the run: what the command wrote may be cut short; session [0-9a-f]+ keeps it for review'
	refute_output --partial 'incomplete'
	[ "$("$ARCTURN_BIN" --json session show | jq -r .incomplete)" = false ]
	rm -f "$T"/state/overlays/*/upper/fill
	echo theirs >f
	run arcturn apply --yes
	assert_failure 1
	assert_output --partial 'f: changed since capture; refused'
	assert_equal "$(cat f)" theirs
	run arcturn discard --yes
	assert_success
}

@test "no inodes left on the state dir when exec --dry-run ends: exit 125, one line, session marked incomplete" {
	"$ARCTURN_BIN" sandbox status --json | grep -q '"dry_run_exec":true' ||
		skip "exec --dry-run unavailable here"
	small_tmpfs "$T/state" 8m nr_inodes=1000
	export ARCTURN_HOME=$T/state
	echo base >f
	# the command itself uses up the state dir's inodes
	run arcturn exec --dry-run -- sh -c 'echo mine >f; i=0; while : >fill$i 2>/dev/null; do i=$((i + 1)); done; true'
	assert_failure 125
	assert_line --partial 'incomplete: could not record what the changes were made on: No space left on device'
	assert_equal "$(cat f)" base
	run arcturn session show
	assert_line --partial 'incomplete: '
	[ "$("$ARCTURN_BIN" --json session show | jq -r .incomplete)" = true ]
	# what has no record is refused, never applied blind
	echo theirs >f
	rm -f "$T"/state/overlays/*/upper/fill*
	run arcturn apply --yes
	assert_failure 1
	assert_output --partial 'f: no record of the file at capture'
	assert_equal "$(cat f)" theirs
	run arcturn discard --yes
	assert_success
}

@test "ENOSPC on the workspace: apply fails cleanly, the real file is intact, the change stays pending" {
	small_tmpfs "$T/small" 3m
	cd "$T/small"
	head -c 1048576 /dev/urandom >f
	want=$(h f)
	head -c 2621440 /dev/urandom >"$T/new"
	dw f <"$T/new"
	run arcturn apply --yes
	assert_failure
	assert_output --partial 'No space left on device'
	assert_equal "$(h f)" "$want"
	[ -z "$(ls -A | grep arcturn-tmp)" ]
	run arcturn diff --stat
	assert_success
	assert_output --partial 'f'
}

@test "EMFILE: apply with too few fds loses nothing, the next apply completes" {
	echo base >f
	for i in $(seq 1 20); do echo "$i" >"n$i"; done
	for i in $(seq 1 20); do dw "n$i" <<<"new $i"; done
	dw f <<<"mine"
	run bash -c "ulimit -n 6; exec '$ARCTURN_BIN' apply --yes"
	# whatever it got done, every file holds its old or its new version
	assert_equal "$(cat f | grep -c -e base -e mine)" 1
	for i in $(seq 1 20); do
		c=$(cat "n$i")
		[ "$c" = "$i" ] || [ "$c" = "new $i" ]
	done
	run arcturn apply --yes
	assert_success
	assert_equal "$(cat f)" mine
	assert_equal "$(cat n20)" "new 20"
}

@test "a read-only workspace: apply fails with one line per file, nothing lost, works once writable" {
	small_tmpfs "$T/ro" 4m
	cd "$T/ro"
	echo base >f
	dw f <<<"mine"
	dw g <<<"new"
	mount -o remount,ro "$T/ro"
	run arcturn apply --yes
	assert_failure
	assert_output --partial 'Read-only file system'
	assert_equal "$(cat f)" base
	[ ! -e g ]
	mount -o remount,rw "$T/ro"
	run arcturn apply --yes
	assert_success
	assert_equal "$(cat f)" mine
	assert_equal "$(cat g)" new
}
