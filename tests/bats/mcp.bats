#!/usr/bin/env bats
# arcturn mcp: the MCP server driven with plain JSON lines (bash + jq):
# the handshake and version negotiation, ping, tools/list, every tool's
# happy path and isError path, the CLI's policy (protected paths, paths
# outside the roots), dry-run capture seen by `arcturn diff` with the same
# digest, output caps, malformed and oversized lines, EOF mid-message, and
# a stdout that cannot be written. tests/mcp/ drives it with the official
# TypeScript SDK.

load common

setup() {
	common_setup
	command -v jq >/dev/null || fail "jq is missing: install it"
	git init -q .
	printf 'hello\n' >a.txt
	INIT=$(init_msg 2025-06-18)
}

init_msg() {	# version
	jq -cn --arg v "$1" '{jsonrpc: "2.0", id: 0, method: "initialize",
		params: {protocolVersion: $v, capabilities: {},
		clientInfo: {name: "bats", version: "1"}}}'
}

req() {	# id method [params-json]
	jq -cn --argjson id "$1" --arg m "$2" --argjson p "${3:-null}" \
		'{jsonrpc: "2.0", id: $id, method: $m} +
		 (if $p == null then {} else {params: $p} end)'
}

call() {	# id tool args-json
	req "$1" tools/call "$(jq -cn --arg n "$2" --argjson a "$3" \
		'{name: $n, arguments: $a}')"
}

# Run the server (options "$@") on the lines of stdin, as a client does
# (mcp_drive.py: stdin stays open until every line was handled); replies
# in $T/out.
serve() {
	python3 "$BATS_TEST_DIRNAME/mcp_drive.py" "$ARCTURN_BIN" mcp "$@" >"$T/out" 2>"$T/err"
	echo $? >"$T/rc"
	# stdout carries protocol messages only, one a line
	jq -e -s 'all(.[]; .jsonrpc == "2.0" and (has("id") or .method == "notifications/progress"))' "$T/out" >/dev/null ||
		fail "stdout holds something else than JSON-RPC: $(cat "$T/out")"
}

reply() {	# id [jq filter]
	jq -c "select(.id == $1) | ${2:-.}" "$T/out"
}

sc() {	# id field: the structuredContent's field
	reply "$1" ".result.structuredContent.$2"
}

@test "initialize answers the client's version when served, else the newest" {
	{ init_msg 2025-06-18; } | serve
	[ "$(reply 0 .result.protocolVersion)" = '"2025-06-18"' ]
	[ "$(reply 0 .result.serverInfo.name)" = '"arcturn"' ]
	[ "$(reply 0 '.result.capabilities.tools | type')" = '"object"' ]
	{ init_msg 2025-11-25; } | serve
	[ "$(reply 0 .result.protocolVersion)" = '"2025-11-25"' ]
	{ init_msg 2024-11-05; } | serve
	[ "$(reply 0 .result.protocolVersion)" = '"2025-11-25"' ]
	# no version at all: invalid params
	req 0 initialize '{}' | serve
	[ "$(reply 0 .error.code)" = -32602 ]
	[ "$(cat "$T/rc")" = 0 ]
}

@test "requests before initialize are refused, ping is answered, notifications get no reply" {
	{
		req 1 tools/list
		req 2 ping
		echo "$INIT"
		echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
		echo '{"jsonrpc":"2.0","method":"notifications/whatever","params":{}}'
		req 3 ping
		req 4 no/such/method
		req 5 tools/list
	} | serve
	[ "$(reply 1 .error.code)" = -32002 ]
	[ "$(reply 2 .result)" = '{}' ]
	[ "$(reply 3 .result)" = '{}' ]
	[ "$(reply 4 .error.code)" = -32601 ]
	[ "$(reply 5 '.result.tools | length')" = 16 ]
	# six requests, six replies: the notifications got none
	[ "$(wc -l <"$T/out")" = 6 ]
}

@test "tools/list: every tool has both schemas, a title and the four annotations; apply_changes only with --allow-apply" {
	{ echo "$INIT"; req 1 tools/list; call 2 apply_changes '{"expect":"x"}'; } | serve
	run reply 1 '[.result.tools[].name] | sort | join(" ")'
	assert_output '"begin_turn directory_tree discard_changes edit_file get_file_info list_checkpoints list_directory read_file read_multiple_files review_changes run_command sandbox_status search_content search_files undo write_file"'
	[ "$(reply 1 '[.result.tools[] | select(.inputSchema.type == "object" and .outputSchema.type == "object")] | length')" = 16 ]
	# spec 2025-11-25: a title and the hints on every tool
	run reply 1 '[.result.tools[] | select((.title // "") == "" or (.annotations | [.readOnlyHint, .destructiveHint,
		.idempotentHint, .openWorldHint] | map(type) != ["boolean","boolean","boolean","boolean"])) | .name]'
	assert_output '[]'
	# what only reads says so; what writes does not
	run reply 1 '[.result.tools[] | select(.annotations.readOnlyHint) | .name] | sort | join(" ")'
	assert_output '"directory_tree get_file_info list_checkpoints list_directory read_file read_multiple_files review_changes sandbox_status search_content search_files"'
	[ "$(reply 1 '.result.tools[] | select(.name == "run_command") | .annotations.openWorldHint')" = true ]
	[ "$(reply 1 '.result.tools[] | select(.name == "run_command") | .inputSchema.properties.timeoutMs | [.default, .maximum]')" = '[120000,86400000]' ]
	# every input is described and titled, so that a model knows what to pass
	run reply 1 '[.result.tools[] | .name as $t | .inputSchema.properties | to_entries[] |
		select((.value.description // "") == "" or (.value.title // "") == "") | "\($t).\(.key)"]'
	assert_output '[]'
	run reply 1 '[.result.tools[] | .name as $t | .inputSchema.properties.edits.items.properties // {} | to_entries[] |
		select((.value.description // "") == "") | "\($t).\(.key)"]'
	assert_output '[]'
	[ "$(reply 1 '[.result.tools[] | select((.description // "") == "")] | length')" = 0 ]
	[ "$(reply 2 .error.code)" = -32602 ]
	{ echo "$INIT"; req 1 tools/list; } | serve --allow-apply
	[ "$(reply 1 '[.result.tools[].name] | index("apply_changes") != null')" = true ]
	[ "$(reply 1 '.result.tools | length')" = 17 ]
}

@test "an unknown tool is a JSON-RPC error; malformed arguments are isError results naming the argument" {
	{
		echo "$INIT"
		call 1 no_such_tool '{}'
		call 2 read_file '{}'
		call 3 read_file '{"path": 7}'
		call 4 write_file '{"path": "b", "content": "x", "extra": 1}'
		call 5 run_command '{"command": []}'
		call 6 run_command '{"command": ["true"], "timeoutMs": -1}'
		call 7 edit_file '{"path": "a.txt", "edits": [{"oldText": ""}]}'
		req 8 tools/call '{"name": "read_file", "arguments": [1]}'
	} | serve
	[ "$(reply 1 .error.code)" = -32602 ]
	[ "$(reply 8 .error.code)" = -32602 ]
	# input validation errors are tool results (spec 2025-11-25), so that
	# the model reads them and corrects itself
	for i in 2 3 4 5 6 7; do
		[ "$(reply $i .result.isError)" = true ] || fail "reply $i: $(reply $i)"
	done
	reply 2 '.result.content[0].text' | grep -q 'read_file: invalid arguments: path must be a string (it is required)'
	reply 4 '.result.content[0].text' | grep -q 'unknown argument extra'
	reply 6 '.result.content[0].text' | grep -q 'timeoutMs must be an integer'
	[ ! -e b ]
}

@test "strings are taken whole: a NUL or control character in a path is an error, content with NUL is written whole" {
	printf 'keep\n' >important.txt
	{
		echo "$INIT"
		call 1 write_file '{"path": "important.txt\u0000.bak", "content": "x"}'
		call 2 write_file '{"path": "n.txt", "content": "line1\u0000line2\u00e9\ud83d\ude00"}'
		call 3 edit_file '{"path": "important.txt", "edits": [{"oldText": "ke\u0000zz", "newText": "y"}]}'
		call 4 edit_file '{"path": "important.txt", "edits": [{"oldText": "keep", "newText": "a\u0000b"}]}'
		call 5 read_file '{"path": "important.txt\u0000x"}'
		call 6 read_file '{"path": "a\nb"}'
		call 7 run_command '{"command": ["wc", "-c"], "stdin": "a\u0000b"}'
		call 8 run_command '{"command": ["echo", "a\u0000b"]}'
		call 9 run_command '{"command": ["pwd"], "cwd": "sub\u0000"}'
		call 10 review_changes '{"paths": ["a.txt", "b\u0001"]}'
		call 11 discard_changes '{"paths": ["x\u0000"]}'
		call 12 read_file '{"pa\u0000th": "a.txt"}'
		call 13 write_file '{"path": "t\u007f.txt", "content": "x"}'
	} | serve
	# the path cut at its NUL would have named important.txt
	[ "$(cat important.txt)" = keep ]
	[ ! -e n.txt.bak ]
	text() { reply "$1" '.result.content[0].text' | jq -r .; }
	[ "$(reply 1 .result.isError)" = true ]
	text 1 | grep -q '^arcturn: write_file: invalid arguments: path holds a NUL character (\\u0000 at byte 13)'
	# 5 + 1 + 5 + 2 + 4 bytes: all of them
	[ "$(wc -c <n.txt)" = 17 ]
	printf 'line1\000line2\303\251\360\237\230\200' | cmp - n.txt
	[ "$(sc 2 bytes)" = 17 ]
	text 3 | grep -q 'edits\[0\].oldText holds a NUL character'
	text 4 | grep -q 'edits\[0\].newText holds a NUL character'
	text 5 | grep -q 'read_file: invalid arguments: path holds a NUL'
	text 6 | grep -q 'path holds a control character (U+000A at byte 1)'
	# stdin is passed whole
	[ "$(sc 7 stdout | jq -r . | tr -d ' ')" = 3 ]
	text 8 | grep -q 'command\[1\] holds a NUL character'
	text 9 | grep -q 'cwd holds a NUL character'
	text 10 | grep -q 'paths\[1\] holds a control character (U+0001'
	text 11 | grep -q 'paths\[0\] holds a NUL character'
	for i in 1 3 4 5 6 8 9 10 11 13; do
		[ "$(reply $i .result.isError)" = true ] || fail "reply $i: $(reply $i)"
	done
	[ "$(reply 12 .error.code)" = -32600 ]
	[ "$(cat important.txt)" = keep ]
	[ -z "$(ls | grep -v '^a.txt$\|^important.txt$\|^n.txt$')" ]
}

@test "read_file: the file, and isError with the CLI's line" {
	{ echo "$INIT"; call 1 read_file '{"path":"a.txt"}'; call 2 read_file '{"path":"nope.txt"}'; } | serve
	[ "$(sc 1 content)" = '"hello\n"' ]
	[ "$(sc 1 bytes)" = 6 ]
	[ "$(reply 1 '.result.content[0].text')" = '"hello\n"' ]
	[ "$(reply 2 .result.isError)" = true ]
	run reply 2 '.result.content[0].text'
	assert_output '"arcturn: read: nope.txt: No such file or directory"'
}

@test "write_file writes; protected paths and paths outside the roots are refused" {
	cp .git/config "$T/config.before"
	{
		echo "$INIT"
		call 1 write_file '{"path":"b.txt","content":"new\n"}'
		call 2 write_file '{"path":".git/config","content":"[core]\n\thooksPath = /tmp\n"}'
		call 3 write_file "$(jq -cn --arg p "$OUT/x" '{path: $p, content: "x"}')"
	} | serve
	[ "$(cat b.txt)" = new ]
	[ "$(sc 1 captured)" = false ]
	# the result names its turn: the one arcturn undo takes back
	[ "$(sc 1 turn)" = "$("$ARCTURN_BIN" checkpoints --json | jq '.turns[0].id')" ]
	[ "$(sc 1 turn)" -ge 1 ]
	[ "$(reply 2 .result.isError)" = true ]
	run reply 2 '.result.content[0].text'
	assert_output "\"arcturn: write: .git/config: protected path (git control file); change it outside arcturn (git's hooks and config decide what git runs)\""
	[ "$(reply 2 .result.structuredContent.deniedPaths)" = '[".git/config"]' ]
	cmp .git/config "$T/config.before"
	[ "$(reply 3 .result.isError)" = true ]
	run reply 3 '.result.content[0].text'
	assert_output "\"arcturn: write: $OUT/x: outside the workspace $WS; write and edit take paths inside it (-C DIR names another workspace)\""
	[ "$(reply 3 .result.structuredContent.deniedPaths)" = "[\"$OUT/x\"]" ]
	[ ! -e "$OUT/x" ]
}

@test "edit_file: edits in order, dryRun previews, a missing oldText is an error" {
	printf 'one\ntwo\nthree\n' >e.txt
	{
		echo "$INIT"
		call 1 edit_file '{"path":"e.txt","edits":[{"oldText":"two","newText":"2"}],"dryRun":true}'
		call 2 edit_file '{"path":"e.txt","edits":[{"oldText":"one","newText":"1"},{"oldText":"three","newText":"3"}]}'
		call 3 edit_file '{"path":"e.txt","edits":[{"oldText":"absent","newText":"x"}]}'
	} | serve
	sc 1 diff | grep -q -- '+2'
	[ "$(printf 'one\n2\nthree\n' | wc -c)" = "$(sc 1 bytes)" ]
	[ "$(printf '1\ntwo\n3\n')" = "$(cat e.txt)" ]
	sc 2 diff | grep -q -- '-one'
	[ "$(reply 3 .result.isError)" = true ]
	run reply 3 '.result.content[0].text'
	assert_output '"arcturn: edit: e.txt: edit 1: old text not found"'
	# occurrences are counted as arcturn edit counts them: no overlaps
	printf 'aaa\n' >o.txt
	{ echo "$INIT"; call 1 edit_file '{"path":"o.txt","edits":[{"oldText":"aa","newText":"b"}]}'; } | serve
	[ "$(cat o.txt)" = ba ]
}

@test "edit_file and arcturn edit share one core: the same count, the same words, edits in order" {
	printf 'x x x\n' >m.txt
	run arcturn edit m.txt --old x --new y
	assert_failure 1
	assert_output "arcturn: edit: m.txt: old text found 3 times; use --all or more context"
	{
		echo "$INIT"
		call 1 edit_file '{"path":"m.txt","edits":[{"oldText":"x","newText":"y"}]}'
		call 2 edit_file '{"path":"m.txt","edits":[{"oldText":"x x","newText":"z"},{"oldText":"nine","newText":"9"}]}'
		call 3 edit_file '{"path":"m.txt","edits":[{"oldText":"x x","newText":"z"},{"oldText":"z x","newText":"done"}]}'
	} | serve
	run reply 1 '.result.content[0].text'
	assert_output '"arcturn: edit: m.txt: edit 1: old text found 3 times; add more context"'
	# the second edit sees what the first made; one that fails writes nothing
	run reply 2 '.result.content[0].text'
	assert_output '"arcturn: edit: m.txt: edit 2: old text not found"'
	[ "$(reply 3 .result.isError)" = null ] || [ "$(reply 3 .result.isError)" = false ]
	[ "$(cat m.txt)" = done ]
}

@test "run_command: status, output, confinement, timeout, and isError when it cannot run" {
	{
		echo "$INIT"
		call 1 run_command '{"command":["sh","-c","echo out; echo err >&2; cat; exit 3"],"stdin":"in\n"}'
		call 2 run_command '{"command":["arcturn-no-such-command"]}'
		call 3 run_command '{"command":["sleep","20"],"timeoutMs":300}'
		call 4 run_command "$(jq -cn --arg o "$OUT/w" '{command: ["sh", "-c", "echo x >\"$0\"", $o]}')"
		call 5 run_command '{"command":["pwd"],"cwd":"sub"}'
		call 6 sandbox_status '{}'
		call 7 run_command '{"command":["sh","-c","exit 127"]}'
	} | serve
	[ "$(sc 1 exitCode)" = 3 ]
	[ "$(sc 1 stdout)" = '"out\nin\n"' ]
	[ "$(sc 1 stderr)" = '"err\n"' ]
	[ "$(sc 1 stdoutTruncated)" = false ]
	[ "$(sc 1 outputCap)" = 32768 ]
	backend=$(sc 6 backend)
	[ "$(sc 1 backend)" = "$backend" ]
	if [ "$backend" = '"none"' ]; then
		[ "$(sc 1 confined)" = false ]
	else
		[ "$(sc 1 confined)" = true ]
		# confined: the write outside failed
		[ "$(sc 4 exitCode)" != 0 ]
		[ ! -e "$OUT/w" ]
	fi
	[ "$(reply 2 .result.isError)" = true ]
	reply 2 '.result.content[0].text' | grep -q '^"arcturn: '
	[ "$(sc 3 timedOut)" = true ]
	# SIGTERM, passed on by arcturn exec (143: 128 + 15), or the signal
	[ "$(reply 3 '.result.structuredContent | [.exitCode, .signal]')" = '[143,null]' ] || [ "$(sc 3 signal)" = 15 ]
	[ "$(reply 5 .result.isError)" = true ]
	reply 5 '.result.content[0].text' | grep -q 'cwd: sub'
	# a command's own 127 is its result, not a tool failure
	[ "$(sc 7 exitCode)" = 127 ]
	[ "$(reply 7 .result.isError)" = null ]
	# the default timeout is 2 minutes, and the schema says so
	{ echo "$INIT"; req 1 tools/list; } | serve
	[ "$(reply 1 '.result.tools[] | select(.name == "run_command") | .inputSchema.properties.timeoutMs.default')" = 120000 ]
	[ "$(reply 1 '.result.tools[] | select(.name == "run_command") | .inputSchema.properties.timeoutMs.maximum')" = 86400000 ]
}

@test "run_command keeps the head and tail of a 10 MB stdout and says what it left out" {
	{
		echo "$INIT"
		call 1 run_command '{"command":["sh","-c","echo FIRST; head -c 10000000 /dev/zero | tr \"\\\\000\" a; echo; echo LAST"]}'
	} | serve
	[ "$(sc 1 exitCode)" = 0 ]
	[ "$(sc 1 stdoutTruncated)" = true ]
	[ "$(sc 1 stdoutBytes)" = 10000012 ]
	[ "$(sc 1 outputCap)" = 32768 ]
	sc 1 stdout | jq -j . >"$T/stdout"
	[ "$(head -n 1 "$T/stdout")" = FIRST ]
	[ "$(tail -n 1 "$T/stdout")" = LAST ]
	grep -q '^\[arcturn: 9967244 bytes of stdout left out; its first 16384 and last 16384 bytes are shown (10000012 in all). To see the rest, redirect it to a file and read_file it with offset and limit.\]$' "$T/stdout"
	# 32 KiB kept and the line: the result fits a model's context
	[ "$(wc -c <"$T/stdout")" -lt 33200 ]
}

@test "--dry-run: write_file and run_command are captured, arcturn diff shows the digest review_changes gave" {
	{
		echo "$INIT"
		call 1 write_file '{"path":"b.txt","content":"captured\n"}'
		call 2 run_command '{"command":["sh","-c","echo ran >c.txt; echo bye >a.txt"]}'
		call 3 read_file '{"path":"a.txt"}'
		call 4 review_changes '{}'
		call 5 review_changes '{"paths":["b.txt"]}'
		call 6 discard_changes '{"paths":["b.txt"]}'
	} | serve --dry-run
	# the real tree is untouched
	[ ! -e b.txt ]
	[ ! -e c.txt ]
	[ "$(cat a.txt)" = hello ]
	[ "$(sc 1 captured)" = true ]
	[ "$(sc 1 turn)" = null ]
	[ "$(sc 2 captured)" = true ]
	# read_file sees the session
	[ "$(sc 3 content)" = '"bye\n"' ]
	digest=$(sc 4 digest | tr -d '"')
	[ ${#digest} = 64 ]
	[ "$(sc 4 count)" = 3 ]
	[ "$(reply 4 '[.result.structuredContent.files[].path] | join(" ")')" = '"a.txt b.txt c.txt"' ]
	run "$ARCTURN_BIN" diff
	assert_success
	assert_line "digest: $digest"
	[ "$(sc 4 diff | jq -r .)" = "$output" ]
	[ "$(sc 5 digest)" = null ]
	[ "$(sc 5 count)" = 1 ]
	[ "$(reply 6 .result.isError)" = true ]
	# the human applies exactly what was reviewed
	run "$ARCTURN_BIN" apply --yes --expect "$digest"
	assert_success
	[ "$(cat b.txt)" = captured ]
	[ "$(cat c.txt)" = ran ]
}

@test "dryRun in the workspace config, or ARCTURN_DRY_RUN, captures as --dry-run does" {
	echo '{"dryRun": true}' >.arcturn.json
	{
		echo "$INIT"
		call 1 write_file '{"path":"b.txt","content":"x\n"}'
		call 2 run_command '{"command":["sh","-c","echo y >c.txt"]}'
	} | serve
	[ ! -e b.txt ]
	[ ! -e c.txt ]
	[ "$(sc 1 captured)" = true ]
	# (the reply and the server's stderr when it is not)
	[ "$(sc 2 captured)" = true ] || { reply 2; cat "$T/err"; false; }
	[ "$("$ARCTURN_BIN" diff --name-only | tr '\n' ' ')" = "b.txt c.txt " ]
	"$ARCTURN_BIN" discard --yes >/dev/null
	rm .arcturn.json
	{ echo "$INIT"; call 1 write_file '{"path":"d.txt","content":"z\n"}'; } |
		ARCTURN_DRY_RUN=1 serve
	[ ! -e d.txt ]
	[ "$(sc 1 captured)" = true ]
	[ "$("$ARCTURN_BIN" diff --name-only)" = d.txt ]
}

@test "discard_changes and apply_changes work on the session" {
	{
		echo "$INIT"
		call 1 write_file '{"path":"b.txt","content":"one\n"}'
		call 2 discard_changes '{}'
		call 3 review_changes '{}'
		call 4 write_file '{"path":"b.txt","content":"two\n"}'
		call 5 apply_changes '{"expect":"0000000000000000000000000000000000000000000000000000000000000000"}'
	} | serve --dry-run --allow-apply
	[ "$(sc 2 discarded)" = true ]
	[ "$(sc 3 count)" = 0 ]
	[ "$(sc 3 digest)" = null ]
	[ "$(reply 5 .result.isError)" = true ]
	[ ! -e b.txt ]
	digest=$("$ARCTURN_BIN" diff | sed -n 's/^digest: //p')
	# a stale digest is refused without naming the pending one: the
	# agent must review what it applies
	[ ${#digest} = 64 ]
	reply 5 '.result.content[0].text' | grep -q 'changed since review .*call review_changes again'
	run reply 5 .
	refute_output --partial "$digest"
	call 1 apply_changes "$(jq -cn --arg d "$digest" '{expect: $d}')" |
		{ echo "$INIT"; cat; } | serve --dry-run --allow-apply
	[ "$(sc 1 applied)" = true ]
	[ "$(cat b.txt)" = two ]
}

@test "malformed lines are answered and the server goes on" {
	{
		echo "$INIT"
		echo 'this is not json'
		echo '{"jsonrpc":"2.0","id":1,"method":"ping"} trailing'
		echo '[]'
		echo '"a string"'
		echo '{"jsonrpc":"2.0","id":2}'
		echo '{"jsonrpc":"1.0","id":3,"method":"ping"}'
		echo '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}'
		echo ''
		req 9 ping
	} | serve
	[ "$(jq -c 'select(.id == null) | .error.code' "$T/out" | sort | uniq -c | awk '{print $1 ":" $2}' | tr '\n' ' ')" = "3:-32600 2:-32700 " ]
	[ "$(reply 2 .error.code)" = -32600 ]
	[ "$(reply 3 .error.code)" = -32600 ]
	[ "$(reply 9 .result)" = '{}' ]
	[ "$(cat "$T/rc")" = 0 ]
}

@test "an oversized line is refused without being held in memory" {
	# 64 MiB in one line, the server limited to 48 MiB of address space
	{
		echo "$INIT"
		head -c 67108864 /dev/zero | tr '\0' a
		echo
		req 1 ping
	} | (ulimit -v 49152; exec "$ARCTURN_BIN" mcp >"$T/out" 2>"$T/err")
	[ "$(jq -c 'select(.id == null) | .error.code' "$T/out")" = -32600 ]
	jq -r 'select(.id == null) | .error.message' "$T/out" | grep -q 4194304
	[ "$(reply 1 .result)" = '{}' ]
}

@test "EOF ends the server with status 0, also in the middle of a message" {
	rc=0
	printf '%s\n%s' "$INIT" '{"jsonrpc":"2.0","id":1,"meth' |
		"$ARCTURN_BIN" mcp >"$T/out" || rc=$?
	[ "$rc" = 0 ]
	[ "$(wc -l <"$T/out")" = 1 ]
	"$ARCTURN_BIN" mcp </dev/null >"$T/out" || rc=$?
	[ "$rc" = 0 ]
	[ ! -s "$T/out" ]
}

@test "a stdout that cannot be written ends the server" {
	rc=0
	{ echo "$INIT"; req 1 ping; } |
		"$ARCTURN_BIN" mcp >/dev/full 2>"$T/err" || rc=$?
	[ "$rc" = 2 ]
	grep -q 'write to standard output' "$T/err"
}

@test "arcturn mcp -C DIR (after the command) serves DIR as arcturn -C DIR mcp does" {
	cd "$OUT"
	{ echo "$INIT"; call 1 write_file '{"path":"b.txt","content":"after\n"}'; call 2 read_file '{"path":"a.txt"}'; } |
		serve -C "$WS"
	[ "$(cat "$WS/b.txt")" = after ]
	[ "$(sc 2 content)" = '"hello\n"' ]
	[ ! -e "$OUT/b.txt" ]
	{ echo "$INIT"; call 1 write_file '{"path":"c.txt","content":"before\n"}'; } |
		python3 "$BATS_TEST_DIRNAME/mcp_drive.py" "$ARCTURN_BIN" -C "$WS" mcp >"$T/out"
	[ "$(cat "$WS/c.txt")" = before ]
}

@test "a workspace that is /, the home, a system folder or the state dir is refused, saying how to choose one" {
	# given with -C: the server does not start
	for d in / "$HOME" /etc /usr/bin "$HOME/.arcturn"; do
		mkdir -p "$HOME/.arcturn"
		rc=0
		"$ARCTURN_BIN" mcp -C "$d" </dev/null >"$T/out" 2>"$T/err" || rc=$?
		[ "$rc" = 2 ] || fail "-C $d: status $rc"
		grep -q "refused as a workspace" "$T/err" || fail "-C $d: $(cat "$T/err")"
		grep -q 'arcturn mcp -C DIR' "$T/err"
		grep -q 'MCP root' "$T/err"
		[ ! -s "$T/out" ]
	done
	# started there by a client: it serves, and its file tools say why
	for d in / "$HOME"; do
		cd "$d"
		{
			echo "$INIT"
			call 1 write_file '{"path":"x-arcturn-test","content":"x"}'
			call 2 read_file '{"path":"etc/hostname"}'
			call 3 run_command '{"command":["true"]}'
			call 4 sandbox_status '{}'
		} | serve
		[ ! -e "$d/x-arcturn-test" ]
		for i in 1 2 3; do
			[ "$(reply $i .result.isError)" = true ] || fail "$d: reply $i: $(reply $i)"
			reply $i '.result.content[0].text' | grep -q "refused as a workspace.*arcturn mcp -C DIR.*MCP root" ||
				fail "$d: reply $i: $(reply $i)"
		done
		[ "$(reply 4 .result.isError)" = null ]
		grep -q "refused as a workspace" "$T/err"
	done
}

@test "MCP roots: the client's file:// root becomes the workspace; with several, the first, said on stderr" {
	cd "$HOME"
	roots() {	# id uri...
		local id=$1; shift
		jq -cn --arg id "$id" --args '{jsonrpc: "2.0", id: $id,
			result: {roots: [$ARGS.positional[] | {uri: ., name: "r"}]}}' "$@"
	}
	init_roots=$(jq -cn '{jsonrpc: "2.0", id: 0, method: "initialize",
		params: {protocolVersion: "2025-11-25", capabilities: {roots: {listChanged: true}},
		clientInfo: {name: "bats", version: "1"}}}')
	mkdir "$T/w s"
	{
		echo "$init_roots"
		echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
		# asked before the roots arrive: it waits for them
		call 1 write_file '{"path":"b.txt","content":"rooted\n"}'
		roots arcturn-roots-1 "file://$WS" "file://$OUT"
		call 2 read_file '{"path":"a.txt"}'
		# the roots change: asked again, the new one is taken (%20: a space)
		echo '{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}'
		roots arcturn-roots-2 "file://${T// /%20}/w%20s"
		call 3 write_file '{"path":"c.txt","content":"moved\n"}'
	} | serve
	[ "$(jq -c 'select(.method == "roots/list") | .id' "$T/out" | tr '\n' ' ')" = '"arcturn-roots-1" "arcturn-roots-2" ' ]
	[ "$(cat "$WS/b.txt")" = rooted ]
	[ ! -e "$HOME/b.txt" ]
	[ "$(sc 2 content)" = '"hello\n"' ]
	[ "$(cat "$T/w s/c.txt")" = moved ]
	grep -q "the client gave 2 roots; arcturn serves one workspace, the first: $WS" "$T/err"
	# a root that is refused: no workspace, the tools say so
	{
		echo "$init_roots"
		echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
		roots arcturn-roots-1 "file:///"
		call 1 write_file '{"path":"b.txt","content":"x"}'
	} | serve -q
	reply 1 '.result.content[0].text' | grep -q 'workspace: /: the root of the file system; refused as a workspace (the MCP root)'
	# -C DIR wins: no roots/list is asked
	{ echo "$init_roots"; echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'; req 1 ping; } |
		serve -C "$WS"
	[ "$(jq -c 'select(.method == "roots/list")' "$T/out")" = "" ]
}

# A long run_command for the tests below: a copy of sleep under a name of
# its own, so that pgrep finds this test's command and no other.
long_sleep() {
	SLEEP=$T/arcturn-test-sleep-$BATS_TEST_NUMBER-$$
	cp "$(command -v sleep)" "$SLEEP"
	chmod 755 "$SLEEP"
}

@test "during a long run_command a ping is answered at once; notifications/cancelled kills the call and no reply is sent for it" {
	long_sleep
	run python3 - "$ARCTURN_BIN" "$SLEEP" <<'PY'
import json, os, subprocess, sys, time
bin, sleep = sys.argv[1], sys.argv[2]
p = subprocess.Popen([bin, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def send(m):
    p.stdin.write((json.dumps(m) + "\n").encode()); p.stdin.flush()
def recv():
    m = json.loads(p.stdout.readline())
    print("got", json.dumps(m)[:200])
    return m
def running():	# anchored: this script's own argv names the command too
    return subprocess.run(["pgrep", "-f", "^" + sleep], stdout=subprocess.DEVNULL).returncode == 0
def gone_within(s):	# the kernel ends a killed process a moment later
    end = time.time() + s
    while running() and time.time() < end:
        time.sleep(0.01)
    return not running()
send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
recv()
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "run_command", "arguments": {"command": [sleep, "60"]}}})
# the command is running: its process shows (a wait on a condition)
deadline = time.time() + 60
while not running() and time.time() < deadline:
    time.sleep(0.02)
assert running(), "the command never started"
t = time.time()
send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
m = recv()
assert m["id"] == 2 and m["result"] == {}, m
print("ping answered in %.3f s" % (time.time() - t))
assert time.time() - t < 1.0
send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "reason": "test"}})
# a request after the cancel: answered once the call is gone, and the
# cancelled call has no reply before it
send({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
m = recv()
assert m["id"] == 3 and "result" in m, m
print("cancelled in %.3f s" % (time.time() - t))
assert time.time() - t < 5.0
assert gone_within(1.0), "the cancelled command still runs"
p.stdin.close()
rest = p.stdout.read().decode()
assert rest == "", rest
assert p.wait() == 0
print("OK")
PY
	echo "$output"
	assert_success
	assert_line OK
}

@test "a client gone during a long run_command: the command is killed, the server exits within a second, the session lock is free" {
	long_sleep
	run python3 - "$ARCTURN_BIN" "$SLEEP" <<'PY'
import json, subprocess, sys, time
bin, sleep = sys.argv[1], sys.argv[2]
p = subprocess.Popen([bin, "mcp", "--dry-run"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def send(m):
    p.stdin.write((json.dumps(m) + "\n").encode()); p.stdin.flush()
def running():	# anchored: this script's own argv names the command too
    return subprocess.run(["pgrep", "-f", "^" + sleep], stdout=subprocess.DEVNULL).returncode == 0
def gone_within(s):	# the kernel ends a killed process a moment later
    end = time.time() + s
    while running() and time.time() < end:
        time.sleep(0.01)
    return not running()
send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
json.loads(p.stdout.readline())
send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "run_command", "arguments": {"command": ["sh", "-c", "echo captured >c.txt; exec \"$0\" 60", sleep]}}})
deadline = time.time() + 60
while not running() and time.time() < deadline:
    time.sleep(0.02)
assert running(), "the command never started"
t = time.time()
p.stdin.close()
rc = p.wait(timeout=30)
took = time.time() - t
print("server exited %d in %.3f s" % (rc, took))
assert rc == 0
assert took < 1.0, took
assert p.stdout.read() == b"", "a reply after the client left"
assert gone_within(1.0), "the command outlived the server"
print("OK")
PY
	echo "$output"
	assert_success
	assert_line OK
	# the session's lock is free: discard takes it at once
	run timeout 10 "$ARCTURN_BIN" discard --yes
	assert_success
}

@test "read_file: offset and limit pick lines; a large file is cut at 64 KiB with a line saying how to read on" {
	seq 1 10 >ten.txt
	seq 1 100000 >big.txt	# 588,895 bytes
	{
		echo "$INIT"
		call 1 read_file '{"path":"ten.txt","offset":3,"limit":2}'
		call 2 read_file '{"path":"ten.txt","offset":9}'
		call 3 read_file '{"path":"big.txt"}'
		call 4 read_file '{"path":"big.txt","offset":99999}'
		call 5 read_file '{"path":"ten.txt","offset":0}'
	} | serve
	[ "$(sc 1 content)" = '"3\n4\n"' ]
	[ "$(sc 1 lines)" = 2 ]
	[ "$(sc 1 totalLines)" = 10 ]
	[ "$(sc 1 truncated)" = false ]
	[ "$(sc 2 content)" = '"9\n10\n"' ]
	[ "$(sc 3 truncated)" = true ]
	[ "$(sc 3 bytes)" = "$(wc -c <big.txt)" ]
	[ "$(sc 3 totalLines)" = 100000 ]
	n=$(sc 3 lines)
	# whole lines, within the budget, in order from the first
	[ "$(sc 3 content | jq -j .)" = "$(seq 1 "$n")" ] || [ "$(sc 3 content | jq -j .)" = "$(seq 1 "$n"; echo)" ]
	[ "$(sc 3 'content | length')" -le 65536 ]
	reply 3 '.result.content[0].text' | jq -j . | tail -n 1 |
		grep -qx "\[arcturn: lines 1-$n of 100000 shown (at most 65536 bytes a call); call read_file with offset $((n + 1)) to read on\]"
	[ "$(sc 4 content)" = '"99999\n100000\n"' ]
	[ "$(sc 4 truncated)" = false ]
	[ "$(reply 5 .result.isError)" = true ]
	reply 5 '.result.content[0].text' | grep -q 'offset must be an integer from 1'
}

@test "review_changes: a diff over 64 KiB is cut at a line, the files list and digest stay whole, paths page through the rest" {
	{
		echo "$INIT"
		call 1 run_command '{"command":["sh","-c","for i in $(seq 1 100); do seq -f \"line %g of a generated file\" 1 150 >gen$i.txt; done"]}'
		call 2 review_changes '{}'
		call 3 review_changes '{"paths":["gen100.txt"]}'
	} | serve --dry-run
	[ "$(sc 1 exitCode)" = 0 ]
	[ "$(sc 2 truncated)" = true ]
	[ "$(sc 2 count)" = 100 ]
	[ "$(sc 2 'diff | length')" -le 65536 ]
	# the digest is the whole session's, as arcturn diff prints it
	[ "$(sc 2 digest | jq -r .)" = "$("$ARCTURN_BIN" diff | sed -n 's/^digest: //p')" ]
	reply 2 '.result.content[0].text' | jq -j . | tail -n 1 |
		grep -q '^\[arcturn: the diff is [0-9]* bytes; the first [0-9]* are shown (at most 65536 a call). files lists every change: call review_changes with paths, a few at a time, to see the rest.\]$'
	# the cut diff ends with a whole line
	[ "$(sc 2 diff | jq -j . | tail -c 1 | od -An -c | tr -d ' ')" = '\n' ]
	[ "$(sc 3 truncated)" = false ]
	sc 3 diff | jq -r . | grep -q '^+line 150 of a generated file$'
}

@test "initialize: 2025-03-26 is served too" {
	{ init_msg 2025-03-26; } | serve
	[ "$(reply 0 .result.protocolVersion)" = '"2025-03-26"' ]
}

@test "a server that cannot start answers the first request with the reason, says it on stderr, and ends with status 2" {
	printf '{' >.arcturn.json
	rc=0
	{ echo "$INIT"; req 1 ping; } |
		python3 "$BATS_TEST_DIRNAME/mcp_drive.py" "$ARCTURN_BIN" mcp >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" = 2 ]
	# the reason, and nothing after it: the server is gone
	[ "$(wc -l <"$T/out")" = 1 ]
	[ "$(reply 0 .error.code)" = -32000 ]
	reply 0 .error.message | grep -q 'arcturn.json'
	grep -q 'arcturn.json' "$T/err"
	rm .arcturn.json
	rc=0
	echo "$INIT" | python3 "$BATS_TEST_DIRNAME/mcp_drive.py" "$ARCTURN_BIN" mcp -C / >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" = 2 ]
	reply 0 .error.message | grep -q 'refused as a workspace'
	grep -q 'refused as a workspace' "$T/err"
}

@test "navigation: list_directory of 10,000 entries fits the budget and counts them all; --max-output sets it; search_files counts every match" {
	mkdir flat
	(cd flat && seq -f 'f%05g.txt' 1 10000 | xargs touch)
	touch z.c
	{
		echo "$INIT"
		call 1 list_directory '{"path":"flat"}'
		call 2 search_files '{"path":"flat","pattern":"f*.txt"}'
		call 3 search_files '{"pattern":"*.c"}'
		call 4 list_directory '{"path":"a.txt"}'
		call 5 directory_tree '{"path":".","maxDepth":1}'
	} | serve
	[ "$(sc 1 total)" = 10000 ]
	[ "$(sc 1 truncated)" = true ]
	[ "$(reply 1 '.result.content[0].text | length')" -le 65536 ]
	reply 1 '.result.content[0].text' | jq -j . | tail -n 1 |
		grep -q '^\[arcturn: [0-9]* of 10000 entries shown (at most 65536 bytes a call); search_files with a pattern finds the others\]$'
	# the structured entries are the ones the text shows
	[ "$(sc 1 'entries | length')" = "$(reply 1 '.result.content[0].text' | jq -r . | grep -c '^\[FILE\]')" ]
	[ "$(sc 2 total)" = 10000 ]
	[ "$(sc 2 truncated)" = true ]
	[ "$(sc 3 matches)" = '["z.c"]' ]
	[ "$(reply 4 .result.isError)" = true ]
	reply 4 '.result.content[0].text' | grep -q 'a.txt: not a directory'
	[ "$(sc 5 'tree | map(.name) | join(" ")')" = '".git a.txt flat z.c"' ]
	[ "$(sc 5 'tree | map(select(has("children"))) | length')" = 0 ]
	{ echo "$INIT"; call 1 list_directory '{"path":"flat"}'; } | serve --max-output 4096
	[ "$(reply 1 '.result.content[0].text | length')" -le 4400 ]
	[ "$(sc 1 total)" = 10000 ]
	run "$ARCTURN_BIN" mcp --max-output 12 </dev/null
	assert_failure 2
	assert_output --partial 'bytes from 1024'
}

@test "progress: a call with a progressToken gets notifications/progress before its reply" {
	{
		echo "$INIT"
		jq -cn '{jsonrpc: "2.0", id: 1, method: "tools/call", params: {name: "run_command",
			arguments: {command: ["sh", "-c", "echo hi"]}, _meta: {progressToken: "p1"}}}'
		call 2 run_command '{"command":["true"]}'
	} | serve
	[ "$(sc 1 exitCode)" = 0 ]
	# the first at the start, none for the call that asked for none, all before the reply
	run jq -sc '[.[] | if .method == "notifications/progress" then .params.progressToken elif .id == 1 then "reply" else empty end]' "$T/out"
	assert_output --regexp '^\["p1",("p1",)*"reply"\]$'
	run jq -c 'select(.method == "notifications/progress") | .params.message' "$T/out"
	assert_line --index 0 --regexp '^"run_command: running for 0.0 s, 0 bytes of output so far"$'
}

@test "progress: apply_changes counts the files done, 0 to total, each once, then its reply" {
	for f in x.txt n/m/y.txt n/z.txt; do ARCTURN_DRY_RUN=1 arcturn write "$f" <<<"$f"; done
	d=$("$ARCTURN_BIN" diff | sed -n 's/^digest: //p')
	{
		echo "$INIT"
		jq -cn --arg d "$d" '{jsonrpc: "2.0", id: 1, method: "tools/call", params: {name: "apply_changes",
			arguments: {expect: $d}, _meta: {progressToken: 7}}}'
	} | serve --dry-run --allow-apply
	[ "$(sc 1 applied)" = true ]
	[ "$(cat n/m/y.txt)" = n/m/y.txt ]
	# new folders are no files: three, as "Apply 3 file(s)?" counts them
	run jq -sc '[.[] | if .method == "notifications/progress" then [.params.progressToken, .params.progress, .params.total, .params.message] elif .id == 1 then "reply" else empty end]' "$T/out"
	assert_output '[[7,0,3,"apply_changes: 0 of 3 files done"],[7,1,3,"apply_changes: 1 of 3 files done"],[7,2,3,"apply_changes: 2 of 3 files done"],[7,3,3,"apply_changes: 3 of 3 files done"],"reply"]'
}

@test "an agent's turn: begin_turn, write_file, edit_file and run_command are one turn, labelled; arcturn undo takes it all back" {
	printf 'before\n' >t.txt
	{
		echo "$INIT"
		call 1 begin_turn '{"label":"agent: rework t"}'
		call 2 write_file '{"path":"t.txt","content":"written\n"}'
		call 3 edit_file '{"path":"t.txt","edits":[{"oldText":"written","newText":"edited"}]}'
		call 4 run_command '{"command":["sh","-c","echo ran >made.txt"]}'
		call 5 list_checkpoints '{}'
		call 6 begin_turn '{}'
	} | serve
	turn=$(sc 1 turn)
	[ "$(sc 2 turn)" = "$turn" ]
	[ "$(sc 3 turn)" = "$turn" ]
	if [ "$(sc 4 checkpointed)" = true ]; then
		[ "$(sc 4 turn)" = "$turn" ]
		[ "$(sc 5 'turns[0].paths | map(.path) | sort | join(" ")')" = '"made.txt t.txt"' ]
	fi
	[ "$(sc 5 'turns[0] | [.id, .label]')" = "[$turn,\"agent: rework t\"]" ]
	[ "$(sc 6 turn)" = $((turn + 1)) ]
	run "$ARCTURN_BIN" checkpoints
	assert_line --regexp "^turn $turn  .*  agent: rework t$"
	# the human takes the agent's turn back: the newest (empty) one first
	run "$ARCTURN_BIN" rewind "$turn"
	assert_success
	[ "$(cat t.txt)" = before ]
	[ ! -e made.txt ]
	# under dry run a turn has nothing to group: isError saying so
	{ echo "$INIT"; call 1 begin_turn '{"label":"x"}'; } | serve --dry-run
	[ "$(reply 1 .result.isError)" = true ]
	reply 1 '.result.content[0].text' | grep -q 'dry run'
}

@test "navigation never leaves the workspace: a symlink to a folder outside is an entry, never followed or read through" {
	mkdir "$OUT/secret"
	printf 'needle outside\n' >"$OUT/secret/found.txt"
	ln -s "$OUT/secret" out
	ln -s "$OUT/secret/found.txt" outfile
	printf 'needle inside\n' >in.txt
	{
		echo "$INIT"
		call 1 search_files '{"pattern":"found*"}'
		call 2 search_content '{"pattern":"needle"}'
		call 3 list_directory '{"path":"out"}'
		call 4 read_multiple_files '{"paths":["outfile","out/found.txt","in.txt"]}'
		call 5 directory_tree '{}'
		call 6 get_file_info '{"path":"out/found.txt"}'
		call 7 list_directory '{}'
	} | serve
	# control: the file is there, and readable, outside
	[ "$(cat "$OUT/secret/found.txt")" = "needle outside" ]
	[ "$(sc 1 total)" = 0 ]
	[ "$(sc 2 'matches | map(.path)')" = '["in.txt"]' ]
	[ "$(reply 3 .result.isError)" = true ]
	[ "$(sc 4 'files | map(has("content"))')" = '[false,false,true]' ]
	reply 4 '.result.content[0].text' | grep -q 'outfile: outside the workspace'
	[ "$(sc 5 'tree | map(select(.name == "out")) | .[0] | [.type, has("children")]')" = '["symlink",false]' ]
	[ "$(reply 6 .result.isError)" = true ]
	[ "$(sc 7 'entries | map(select(.name == "out" or .name == "outfile") | .type)')" = '["symlink","symlink"]' ]
	reply 7 '.result.content[0].text' | grep -q '\[LINK\] out\\n\[LINK\] outfile'
}

@test "calls side by side: large replies and pings are whole lines on stdout, never interleaved" {
	mkdir flat
	(cd flat && seq -f 'a-long-file-name-to-fill-the-listing-%05g.txt' 1 3000 | xargs touch)
	{
		echo "$INIT"
		for n in $(seq 1 16); do
			call "$n" list_directory '{"path":"flat"}'
			req $((n + 100)) ping
		done
	} | serve
	# every line one JSON message (serve checked), every request answered once
	[ "$(jq -sc '[.[] | select(.id != 0) | .id] | sort | unique | length' "$T/out")" = 32 ]
	[ "$(wc -l <"$T/out")" = 33 ]
	# each listing whole: near the budget, far over what one write(2) to a pipe keeps whole
	[ "$(jq -sc '[.[] | select(.id >= 1 and .id <= 16) | .result.structuredContent.total] | unique' "$T/out")" = '[3000]' ]
	[ "$(jq -s '[.[] | select(.id >= 1 and .id <= 16) | (.result.content[0].text | length) > 60000] | all' "$T/out")" = true ]
}
