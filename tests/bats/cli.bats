#!/usr/bin/env bats
# The CLI skeleton: version, help, global options, unknown commands.

load common

setup() { common_setup; }

@test "--version names the version and the Landlock ABI it knows" {
	run arcturn --version
	assert_success
	assert_line --regexp '^arcturn [0-9]+\.[0-9]+\.[0-9]+$'
	assert_line --regexp '^landlock: knows ABI 1 to [0-9]+$'
}

@test "--help lists every command" {
	run arcturn --help
	assert_success
	for c in exec sandbox write edit read diff apply discard session; do
		assert_output --partial "arcturn $c"
	done
}

@test "each command has its own --help" {
	for c in exec sandbox write edit read diff apply discard session; do
		run arcturn "$c" --help
		assert_success
		assert_line --index 0 --partial "usage: arcturn $c"
	done
}

@test "no command: usage on stderr, exit 2" {
	run arcturn
	assert_failure 2
	assert_output --partial "usage: arcturn"
}

@test "unknown command: one line, exit 2" {
	run arcturn frobnicate
	assert_failure 2
	assert_output "arcturn: unknown command: frobnicate (see arcturn --help)"
}

@test "unknown global option: exit 2" {
	run arcturn --bogus exec -- true
	assert_failure 2
}

@test "a failed write to stdout is an error, not a success" {
	[ -w /dev/full ] || skip "no /dev/full"
	run sh -c '"$ARCTURN_BIN" --version >/dev/full'
	assert_failure
}

@test "a name holding a newline or a terminal escape stays one error line" {
	run arcturn read "$(printf 'a\nb')"
	assert_failure
	assert_output 'arcturn: read: a\x0ab: No such file or directory'
	run arcturn read "$(printf 'x\033]0;pwned\007y')"
	assert_failure
	assert_output 'arcturn: read: x\x1b]0;pwned\x07y: No such file or directory'
	run arcturn --json read "$(printf 'a\nb')"
	assert_failure
	assert_output --partial '"message":"read: a\\x0ab: No such file or directory"'
}

@test "sandbox: unknown subcommand is a usage error" {
	run arcturn sandbox frob
	assert_failure 2
}
