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

@test "a mistyped option gets the nearest one of its command or the globals; a far one does not" {
	run -2 arcturn diff --fulll
	assert_line --index 0 "arcturn: diff: unknown option --fulll (did you mean --full?)"
	run -125 arcturn exec --dryrun -- true
	assert_line --index 0 "arcturn: exec: unknown option --dryrun (did you mean --dry-run?)"
	run -2 arcturn apply --expct=abc
	assert_line --index 0 "arcturn: apply: unknown option --expct=abc (did you mean --expect?)"
	# a global option after the command, and before it
	run -2 arcturn diff --jsno
	assert_line --index 0 "arcturn: diff: unknown option --jsno (did you mean --json?)"
	run -2 arcturn --sesion x diff
	assert_line --index 0 "arcturn: unknown option --sesion (did you mean --session?)"
	run -2 arcturn diff --frobnicate
	assert_line --index 0 "arcturn: diff: unknown option --frobnicate"
}

@test "under --json every usage error of every command is one error document" {
	local c
	for c in exec write edit read diff apply discard session turn rewind undo \
	    checkpoints sandbox mcp; do
		run --separate-stderr arcturn "$c" --json --frobnicate
		[ "$status" -eq 2 ] || [ "$status" -eq 125 ] ||
			fail "$c: exit $status"
		assert_equal "${#lines[@]}" 1
		[ "$(jq -r '.error.code' <<<"$output")" = usage ] ||
			fail "$c: $output"
		[ "$(jq -r '.schema' <<<"$output")" = "arcturn/$c/v1" ] ||
			fail "$c: $output"
	done
	# no command, an unknown one after help, a missing value
	run --separate-stderr -2 arcturn --json
	assert_equal "$(jq -r .error.code <<<"$output")" usage
	run --separate-stderr -2 arcturn help --json frobnicate
	assert_equal "$(jq -r .error.code <<<"$output")" usage
	run --separate-stderr -2 arcturn --json -C
	assert_equal "$(jq -r .error.code <<<"$output")" usage
	run --separate-stderr -2 arcturn diff --json --color=sometimes
	assert_equal "$(jq -r .error.code <<<"$output")" usage
}

@test "global options after any command: -C DIR names the workspace for each" {
	mkdir -p "$T/other" "$T/elsewhere"
	echo base >"$T/other/f"
	cd "$T/elsewhere"
	run -0 arcturn exec -C "$T/other" -- pwd
	assert_output "$T/other"
	run -0 arcturn exec --json -C "$T/other" -- true
	assert_equal "$(jq -r .status <<<"$output")" 0
	echo new | arcturn write -C "$T/other" g
	assert_equal "$(cat "$T/other/g")" new
	run -0 arcturn edit -C "$T/other" f --old base --new edited
	assert_equal "$(cat "$T/other/f")" edited
	run -0 arcturn read f -C "$T/other"
	assert_output edited
	run -0 arcturn checkpoints -C "$T/other" --json
	assert_equal "$(jq '.turns | length' <<<"$output")" 2
	run -0 arcturn undo -C "$T/other"
	assert_equal "$(cat "$T/other/f")" base
	run -0 arcturn rewind -C "$T/other" --force
	run -0 arcturn turn -C "$T/other" --label x
	echo pending | arcturn write --dry-run g -C "$T/other"
	run -0 arcturn diff -C "$T/other" --name-only
	assert_output g
	run -0 arcturn session -C "$T/other" list --json
	run -0 arcturn discard -C "$T/other" --yes
	run -0 arcturn diff --name-only -C "$T/other"
	assert_output ""
	run -0 arcturn apply -C "$T/other" --yes
	run -0 arcturn sandbox status -C "$T/other" --json
	# nothing of it landed here
	run -0 ls -A "$T/elsewhere"
	assert_output ""
}
