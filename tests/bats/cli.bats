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

@test "--help and help say what each command does and show examples; help COMMAND is COMMAND --help" {
	run -0 arcturn --help
	assert_line --regexp '^  exec +run a command that may write only in the workspace and grants$'
	assert_line --regexp '^  undo +take the last turn back'
	assert_line --regexp '^  \$ arcturn exec -- make test '
	# every command of the usage lines has its line in the list
	local c
	for c in $(sed -n 's/^ *\(usage: \)\{0,1\}arcturn \([a-z][a-z-]*\).*/\2/p' <<<"$output"); do
		assert_line --regexp "^  $c +[a-z]"
	done
	local all=$output
	run -0 arcturn help
	assert_equal "$output" "$all"
	run -0 arcturn undo --help
	local one=$output
	run -0 arcturn help undo
	assert_equal "$output" "$one"
}

@test "a mistyped command gets a suggestion; one far from every command does not" {
	run -2 arcturn exce -- true
	assert_output "arcturn: unknown command: exce (did you mean 'exec'? see arcturn --help)"
	run -2 arcturn udno
	assert_output "arcturn: unknown command: udno (did you mean 'undo'? see arcturn --help)"
	run -2 arcturn frobnicate
	assert_output "arcturn: unknown command: frobnicate (see arcturn --help)"
	run -2 arcturn help frobnicate
	assert_output "arcturn: unknown command: frobnicate (see arcturn --help)"
}

@test "an unknown command with --json after it answers in JSON" {
	run --separate-stderr -2 arcturn bogus --json
	assert_output '{"schema":"arcturn/arcturn/v1","error":{"code":"usage","message":"unknown command: bogus (see arcturn --help)"}}'
	run --separate-stderr -2 arcturn bogus
	assert_output ""
}
