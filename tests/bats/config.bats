#!/usr/bin/env bats
# Config files through the real binary: a config error stops `arcturn exec`
# with 125 and one line naming FILE:LINE:COLUMN before CMD runs; warnings
# (unknown keys, a workspace config trying to loosen) let CMD run. Every
# test uses --sandbox off so it does not depend on a sandbox backend.

load common

setup() {
	common_setup
	UC=$HOME/.config/arcturn/config.json
	WC=$WS/.arcturn.json
	MARK=$T/marker
}

user_config() {
	mkdir -p "$(dirname "$UC")"
	printf '%s' "$1" >"$UC"
}

# The command every test would run: it leaves a marker behind.
run_exec() {
	run arcturn "$@" exec --sandbox off -- touch "$MARK"
}

@test "broken JSON in the user config: exit 125, FILE:LINE:COLUMN, CMD not run" {
	user_config $'{\n  "dryRun": true\n  "network": "off"\n}\n'
	run_exec
	assert_failure 125
	assert_output "arcturn: $UC:3:3: expected ',' or '}', found '\"'"
	[ ! -e "$MARK" ]
}

@test "broken JSON in the workspace config names that file" {
	printf '{"protect": ["a",\n\t"b"' >"$WC"
	run_exec
	assert_failure 125
	assert_output "arcturn: $WC:2:5: unexpected end of input"
	[ ! -e "$MARK" ]
}

@test "an unterminated string is reported where it starts" {
	printf '{\n  "sandbox": "read-only}\n' >"$WC"
	run_exec
	assert_failure 125
	assert_output "arcturn: $WC:2:14: unterminated string"
	[ ! -e "$MARK" ]
}

@test "wrong type for a known key points at the value" {
	printf '{\n\t"network": "off",\n\t"dryRun": "yes"\n}\n' >"$WC"
	run_exec
	assert_failure 125
	assert_output "arcturn: $WC:3:12: \"dryRun\" must be true or false"
	[ ! -e "$MARK" ]
}

@test "an unknown sandbox mode in the user config is an error" {
	user_config '{"sandbox": "bogus"}'
	run_exec
	assert_failure 125
	assert_output "arcturn: $UC:1:13: \"sandbox\" must be \"off\", \"workspace-write\" or \"read-only\""
	[ ! -e "$MARK" ]
}

@test "grants must be an array of strings: the bad element is named" {
	user_config "{\"grants\": [\"$OUT\", 42]}"
	run_exec
	assert_failure 125
	col=$(( ${#OUT} + 17 ))
	assert_output "arcturn: $UC:1:$col: \"grants\" must be an array of strings"
	[ ! -e "$MARK" ]
}

@test "a grant in the user config that does not exist is an error" {
	user_config "{\"grants\": [\"$OUT/missing\"]}"
	run_exec
	assert_failure 125
	assert_output "arcturn: $UC:1:13: grant: $OUT/missing: No such file or directory; create it first (arcturn creates a missing grant only beneath your home)"
	[ ! -e "$MARK" ]
}

@test "protect entries must stay inside the workspace" {
	printf '{"protect": ["ok", "../etc"]}' >"$WC"
	run_exec
	assert_failure 125
	assert_output "arcturn: $WC:1:20: protect: ../etc: contains a \"..\" component"
	[ ! -e "$MARK" ]
}

@test "top level that is not an object is an error at 1:1" {
	printf '\n  ["dryRun"]\n' >"$WC"
	run_exec
	assert_failure 125
	assert_output "arcturn: $WC:1:1: expected a JSON object at the top level"
	[ ! -e "$MARK" ]
}

@test "a duplicate key is an error at the second one" {
	printf '{"dryRun": true,\n "dryRun": false}' >"$WC"
	run_exec
	assert_failure 125
	assert_output "arcturn: $WC:2:2: duplicate key \"dryRun\""
	[ ! -e "$MARK" ]
}

@test "a config path that is not a regular file is an error" {
	mkdir -p "$UC"
	run_exec
	assert_failure 125
	assert_output "arcturn: $UC: not a regular file"
	[ ! -e "$MARK" ]
}

@test "an unreadable config is an error, a missing one is not" {
	is_root && skip "root reads any file"
	user_config '{}'
	chmod 000 "$UC"
	run_exec
	assert_failure 125
	assert_output "arcturn: $UC: Permission denied"
	[ ! -e "$MARK" ]
	rm -f "$UC"
	run_exec
	assert_success
	[ -e "$MARK" ]
}

@test "unknown key: a warning on stderr, and the command still runs" {
	printf '{"dryrun": true, "x": 1}' >"$WC"
	run_exec
	assert_success
	assert_output "arcturn: warning: $WC: unknown key \"dryrun\"
arcturn: warning: $WC: unknown key \"x\""
	[ -e "$MARK" ]
}

@test "unknown key in the user config warns with its path" {
	user_config '{"x": 1}'
	run_exec
	assert_success
	assert_output "arcturn: warning: $UC: unknown key \"x\""
	[ -e "$MARK" ]
}

@test "a workspace config cannot loosen: grants and network on are ignored with a warning" {
	user_config '{"network": "off"}'
	printf '{"network": "on", "grants": ["%s"]}' "$OUT" >"$WC"
	run_exec
	assert_success
	assert_line "arcturn: warning: $WC: \"network\": \"on\" ignored: a workspace config can only turn network off"
	assert_line "arcturn: warning: $WC: \"grants\" ignored: a workspace config cannot grant writes"
	[ -e "$MARK" ]
}

@test "the command's exit status passes through a warning" {
	printf '{"x": 1}' >"$WC"
	run arcturn exec --sandbox off -- sh -c 'exit 3'
	assert_failure 3
	assert_output "arcturn: warning: $WC: unknown key \"x\""
}

@test "-C DIR reads DIR/.arcturn.json, not the cwd's" {
	printf '{"x": 1}' >"$WC"
	printf '{' >"$OUT/.arcturn.json"
	run arcturn -C "$OUT" exec --sandbox off -- touch "$MARK"
	assert_failure 125
	assert_output "arcturn: $OUT/.arcturn.json:1:2: unexpected end of input"
	[ ! -e "$MARK" ]
}

@test "XDG_CONFIG_HOME moves the user config" {
	user_config '{"x": 1}'
	mkdir -p "$T/xdg/arcturn"
	printf '{"y": 1}' >"$T/xdg/arcturn/config.json"
	XDG_CONFIG_HOME=$T/xdg run_exec
	assert_success
	assert_output "arcturn: warning: $T/xdg/arcturn/config.json: unknown key \"y\""
}

@test "a bad --grant is an error naming the path" {
	run arcturn exec --sandbox off --grant "$OUT/nope" -- touch "$MARK"
	assert_failure 125
	assert_output "arcturn: grant: $OUT/nope: No such file or directory; create it first (arcturn creates a missing grant only beneath your home)"
	run arcturn exec --sandbox off --grant relative -- touch "$MARK"
	assert_failure 125
	assert_output "arcturn: grant: relative: not an absolute path"
	[ ! -e "$MARK" ]
}

@test "a grant holding a newline (a JSON escape) is named on one line" {
	mkdir -p "$HOME/.config/arcturn"
	printf '{"grants": ["/tmp", "net\\nx\\u001b[31m"]}' >"$HOME/.config/arcturn/config.json"
	run arcturn exec --sandbox off -- touch "$MARK"
	assert_failure 125
	assert_output 'arcturn: '"$HOME"'/.config/arcturn/config.json:1:21: grant: net\x0ax\x1b[31m: not an absolute path'
	[ "${#lines[@]}" -eq 1 ]
	[ ! -e "$MARK" ]
}

@test "a bad ARCTURN_DRY_RUN is an error" {
	ARCTURN_DRY_RUN=yes run_exec
	assert_failure 125
	assert_output "arcturn: ARCTURN_DRY_RUN=yes: expected 1 or 0"
	[ ! -e "$MARK" ]
}

@test "a bad session id is refused" {
	run arcturn --session ../x exec --sandbox off -- touch "$MARK"
	assert_failure 125
	assert_output "arcturn: session: ../x: invalid session id (expected [a-z0-9][a-z0-9-]{0,63})"
	[ ! -e "$MARK" ]
}

@test "arcturn never writes config or state while reading it" {
	run_exec
	assert_success
	assert_output ""
	[ -e "$MARK" ]
	[ ! -e "$HOME/.config" ]
	[ ! -e "$WC" ]
}
