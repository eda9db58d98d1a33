#!/usr/bin/env bats
# Fault sweeps of the checkpoint commands, short form (issue 26): kill -9
# at every mutating system call of undo, rewind, write, turn, apply and
# exec --checkpoint, and ENOSPC and EIO at every third, each point
# compared with a reference run (tests/stress/ckpt-sweep says what is
# checked). `make stress` runs the full form.

load common

setup() { common_setup; }

sweep() { echo "$BATS_TEST_DIRNAME/../stress/ckpt-sweep"; }

need_sweep() {
	[ -x "$(sweep)" ] || skip "tests/stress is not next to the suite"
	command -v strace >/dev/null || skip "strace is missing (sh vendor/need.sh bats)"
	command -v python3 >/dev/null || skip "python3 is missing"
	# a control: strace can make a call fail here (ptrace allowed)
	run strace -f -qq -o /dev/null -e trace=mkdirat,mkdir \
	    -e inject=mkdirat,mkdir:error=ENOSPC:when=1 mkdir "$T/probe"
	[ "$status" -ne 0 ] && [ ! -e "$T/probe" ] ||
		skip "strace cannot inject faults here"
}

have_dry_exec() {
	"$ARCTURN_BIN" sandbox status --json | grep -q '"dry_run_exec":true' ||
		skip "exec --dry-run unavailable here: $("$ARCTURN_BIN" sandbox status | grep dry-run)"
}

# Every point of a sweep is counted and none fails; at least min points.
assert_sweep() {
	assert_success
	assert_line --regexp "^[0-9]+ points, 0 failures$"
	n=$(sed -n 's/^\([0-9]*\) points, 0 failures$/\1/p' <<<"$output")
	[ "$n" -ge "$1" ]
}

@test "undo and rewind cut short at any call: each path whole, every version replaced reachable" {
	need_sweep
	run "$(sweep)" "$ARCTURN_BIN" --short --ops undo,rewind
	assert_sweep 100
	refute_output --partial "reference:"
}

@test "write and turn cut short at any call: each path whole, the store never stuck" {
	need_sweep
	run "$(sweep)" "$ARCTURN_BIN" --short --ops write,turn
	assert_sweep 20
	refute_output --partial "reference:"
}

@test "apply and exec --checkpoint cut short at any call: each path whole, undo takes back what landed" {
	need_sweep
	have_dry_exec
	run "$(sweep)" "$ARCTURN_BIN" --short --ops apply,exec
	assert_sweep 200
	refute_output --partial "reference:"
	refute_output --partial "skipped"
}

@test "exec --checkpoint with a full disk at any fsync: the session is said to keep changes only when some did not land" {
	need_sweep
	have_dry_exec
	local k settled=0 kept=0
	for k in $(seq 1 24); do
		echo a >f
		rm -rf "$HOME/.arcturn"
		run strace -f -qq -o /dev/null -e trace=fsync \
		    -e inject=fsync:error=ENOSPC:when="$k" \
		    "$ARCTURN_BIN" exec --checkpoint -- sh -c 'echo b >f'
		if [[ $output == *"their turn is not settled"* ]]; then
			settled=$((settled + 1))
			# all landed: nothing is left in the session to point at
			[ "$(cat f)" = b ]
			refute_output --partial "keeps what was not applied"
		elif [[ $output == *"keeps what was not applied"* ]]; then
			kept=$((kept + 1))
		fi
	done
	# both kinds of point were met (the sweep reached the settle)
	[ "$settled" -ge 1 ]
	[ "$kept" -ge 1 ]
}
