#!/usr/bin/env bats
# Dry run under races and kill -9 (issue 11), with small counts so the
# suite stays quick: tests/stress/apply-race and tests/stress/kill9 run
# the issue's counts (40 applies of 30 MiB; 30 kills a command) by hand.

load common

setup() { common_setup; }

stress() { echo "$BATS_TEST_DIRNAME/../stress/$1"; }

@test "apply races a user rewriting the file: the user's version is in place or kept (6 runs, 4 MiB)" {
	[ -x "$(stress apply-race)" ] || skip "tests/stress is not next to the suite"
	run "$(stress apply-race)" "$ARCTURN_BIN" 6 4
	assert_success
	assert_line --regexp '^6 runs: .*, 0 lost$'
}

@test "kill -9 of write, apply and discard: nothing torn, a second run completes (5 each)" {
	[ -x "$(stress kill9)" ] || skip "tests/stress is not next to the suite"
	run "$(stress kill9)" "$ARCTURN_BIN" 5 "write apply discard"
	assert_success
	assert_line "write: 5 kills, 0 failure(s)"
	assert_line "apply: 5 kills, 0 failure(s)"
	assert_line "discard: 5 kills, 0 failure(s)"
}

@test "kill -9 of exec --dry-run: nothing applied blind, a second run completes (5)" {
	"$ARCTURN_BIN" sandbox status --json | grep -q '"dry_run_exec":true' ||
		skip "exec --dry-run unavailable here: $("$ARCTURN_BIN" sandbox status | grep dry-run)"
	[ -x "$(stress kill9)" ] || skip "tests/stress is not next to the suite"
	run "$(stress kill9)" "$ARCTURN_BIN" 5 exec
	assert_success
	assert_line "exec: 5 kills, 0 failure(s)"
}
