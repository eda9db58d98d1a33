#!/usr/bin/env bats
# Denials that explain themselves: write and edit (CLI, --json, MCP) name
# the path, the rule that refused it and the way out; exec --explain (or
# a terminal on stderr) names the writable roots and --grant after a
# command that failed, and says nothing after one that worked.

load common

setup() {
	common_setup
	git init -q .
	printf 'hello\n' >a.txt
	ROOTS="workspace $WS, temp dir $TMPDIR, state dir $HOME/.arcturn"
	UCFG=$HOME/.config/arcturn/config.json
}

# Run arcturn with stdout and stderr apart ($output: stdout only).
jrun() {
	run --separate-stderr "$ARCTURN_BIN" "$@"
}

# The error document's field $1 (a jq path) from $output.
jerr() {
	jq -c ".error.$1" <<<"$output"
}

@test "write outside the workspace names the path, the workspace and -C; exit 1" {
	run arcturn write "$OUT/x" <<<"no"
	assert_failure 1
	assert_output "arcturn: write: $OUT/x: outside the workspace $WS; write and edit take paths inside it (-C DIR names another workspace)"
	[ ! -e "$OUT/x" ]
	run arcturn edit "$OUT/x" --old a --new b
	assert_failure 1
	assert_output "arcturn: edit: $OUT/x: outside the workspace $WS; write and edit take paths inside it (-C DIR names another workspace)"
	# a grant lets exec in, never the file tools, which write only inside
	# the workspace: no hint names a grant to them
	mkdir -p "$T/g" "${UCFG%/*}"
	printf '{"grants": ["%s"]}\n' "$T/g" >"$UCFG"
	run -1 arcturn write "$T/g/x" <<<"no"
	assert_output "arcturn: write: $T/g/x: outside the workspace $WS; write and edit take paths inside it (-C DIR names another workspace)"
	# the temp dir, a writable root too
	run -1 arcturn write "$TMPDIR/x" <<<"no"
	assert_output "arcturn: write: $TMPDIR/x: outside the workspace $WS; write and edit take paths inside it (-C DIR names another workspace)"
	[ ! -e "$T/g/x" ]
	run -0 arcturn exec -- sh -c "echo yes > '$T/g/x'"
	assert_equal "$(cat "$T/g/x")" yes
}

@test "a protected path names its rule: git control file, a protect entry, arcturn state" {
	run arcturn write .git/config <<<"[core]"
	assert_failure 1
	assert_output "arcturn: write: .git/config: protected path (git control file); change it outside arcturn (git's hooks and config decide what git runs)"
	run arcturn edit .git/hooks/pre-commit --old a --new b
	assert_failure 1
	assert_output --partial "arcturn: edit: .git/hooks/pre-commit: protected path (git control file); "
	echo '{"protect": ["secret.env"]}' >.arcturn.json
	run arcturn write secret.env <<<"x"
	assert_failure 1
	assert_output "arcturn: write: secret.env: protected path (\"protect\" entry secret.env); writable once \"protect\" in the config leaves it out"
	[ ! -e secret.env ]
	# the state dir inside the workspace: its own rule
	export ARCTURN_HOME=$WS/state
	run arcturn write "state/checkpoints/x" <<<"x"
	assert_failure 1
	assert_output "arcturn: write: state/checkpoints/x: protected path (arcturn state); arcturn's own commands change it (session rm, discard, rewind)"
	[ ! -e "state/checkpoints/x" ]
}

@test "--json: the error carries code, path and hint; the message is the line" {
	jrun --json write "$OUT/x" <<<"no"
	assert_failure 1
	[ "$(jerr code)" = '"outside_roots"' ]
	[ "$(jerr path)" = "\"$OUT/x\"" ]
	[ "$(jerr hint)" = '"write and edit take paths inside it (-C DIR names another workspace)"' ]
	[ "arcturn: $(jq -r .error.message <<<"$output")" = "$stderr" ]
	jrun --json edit .git/config --old a --new b
	assert_failure 1
	[ "$(jerr code)" = '"protected"' ]
	[ "$(jerr path)" = '".git/config"' ]
	[ "$(jerr hint)" = "\"change it outside arcturn (git's hooks and config decide what git runs)\"" ]
	# a failure that is no policy's keeps its code and has no hint
	jrun --json edit a.txt --old nothere --new x
	assert_failure 1
	[ "$(jerr code)" = '"refused"' ]
	[ "$(jerr hint)" = null ]
}

# The MCP server on the lines of stdin (as mcp.bats drives it: stdin
# open until every line was handled, mcp_drive.py).
mcp() {
	python3 "$BATS_TEST_DIRNAME/mcp_drive.py" "$ARCTURN_BIN" mcp >"$T/out" 2>"$T/err"
}
call() {	# id tool args-json
	jq -cn --argjson id "$1" --arg n "$2" --argjson a "$3" \
		'{jsonrpc: "2.0", id: $id, method: "tools/call",
		  params: {name: $n, arguments: $a}}'
}
reply() {	# id jq-filter
	jq -c "select(.id == $1) | $2" "$T/out"
}

@test "MCP: a refused write_file or edit_file is isError with the line, and deniedPaths" {
	{
		jq -cn '{jsonrpc: "2.0", id: 0, method: "initialize",
			params: {protocolVersion: "2025-06-18", capabilities: {},
			clientInfo: {name: "bats", version: "1"}}}'
		call 1 write_file "$(jq -cn --arg p "$OUT/x" '{path: $p, content: "x"}')"
		call 2 edit_file '{"path": ".git/config", "edits": [{"oldText": "core", "newText": "evil"}]}'
		call 3 write_file '{"path": "ok.txt", "content": "ok\n"}'
		call 4 write_file '{"path": "a.txt/sub", "content": "x"}'
	} | mcp
	[ "$(reply 1 .result.isError)" = true ]
	[ "$(reply 1 '.result.content[0].text')" = "$(jq -cn --arg t "arcturn: write: $OUT/x: outside the workspace $WS; write and edit take paths inside it (-C DIR names another workspace)" '$t')" ]
	[ "$(reply 1 .result.structuredContent.deniedPaths)" = "[\"$OUT/x\"]" ]
	[ "$(reply 1 .result.structuredContent.code)" = '"outside_roots"' ]
	reply 1 .result.structuredContent.hint | grep -qF -- "-C DIR"
	[ ! -e "$OUT/x" ]
	[ "$(reply 2 .result.isError)" = true ]
	# edit_file writes through `arcturn write`: its line
	[ "$(reply 2 '.result.content[0].text')" = "\"arcturn: write: .git/config: protected path (git control file); change it outside arcturn (git's hooks and config decide what git runs)\"" ]
	[ "$(reply 2 .result.structuredContent.deniedPaths)" = '[".git/config"]' ]
	[ "$(reply 2 .result.structuredContent.code)" = '"protected"' ]
	# a write that works, and a failure that is no denial: no deniedPaths
	[ "$(reply 3 .result.isError)" = null ]
	[ "$(cat ok.txt)" = ok ]
	[ "$(reply 4 .result.isError)" = true ]
	[ "$(reply 4 .result.structuredContent)" = null ]
}

# Whether exec confines here (a backend, not none): else nothing to explain.
confines() {
	[ "$("$ARCTURN_BIN" --json sandbox status | jq -r .backend)" != none ]
}

@test "exec --explain: one line naming the roots and --grant after a failure, nothing after success" {
	confines || skip "no sandbox backend on this machine"
	run --separate-stderr arcturn exec --explain -- sh -c "echo x >'$OUT/x'"
	assert_failure 2
	[ ! -e "$OUT/x" ]
	assert_equal "$(grep -c '^arcturn: ' <<<"$stderr")" 1
	assert_equal "$(grep '^arcturn: ' <<<"$stderr")" "arcturn: exec: exit status 2; the command may write only in $ROOTS; a write refused elsewhere needs --grant DIR (or \"grants\" in the config)"
	# the command's status stands, and success says nothing
	run --separate-stderr arcturn exec --explain -- sh -c 'echo hi; exit 0'
	assert_success
	assert_output hi
	assert_equal "$stderr" ""
	# a signal is no refused write: nothing
	run --separate-stderr arcturn exec --explain -- sh -c 'kill -TERM $$'
	assert_failure 143
	assert_equal "$stderr" ""
	# read-only names its one root and the mode
	run --separate-stderr arcturn exec --explain --sandbox read-only -- sh -c 'exit 3'
	assert_failure 3
	assert_equal "$stderr" "arcturn: exec: exit status 3; the command may write only in temp dir $TMPDIR (sandbox read-only); a write refused elsewhere needs --sandbox workspace-write"
}

@test "exec without --explain, stderr no terminal: no line; on a terminal: the line" {
	confines || skip "no sandbox backend on this machine"
	run --separate-stderr arcturn exec -- sh -c 'exit 4'
	assert_failure 4
	assert_equal "$stderr" ""
	command -v script >/dev/null || skip "script(1) missing: no terminal to test with"
	# script gives the command a terminal for stdout and stderr
	run script -qec "$ARCTURN_BIN exec -- sh -c 'exit 5'" /dev/null
	assert_failure 5
	assert_output --partial "arcturn: exec: exit status 5; the command may write only in $ROOTS; "
	run script -qec "$ARCTURN_BIN exec -- true" /dev/null
	assert_success
	refute_output --partial "arcturn:"
}
