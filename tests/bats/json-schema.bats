#!/usr/bin/env bats
# --json against schema/*.json (the contract, written down): every schema
# compiles as draft-07; every command, run for real, prints ONE line that
# its schema accepts, the result when it worked and the error document
# when it failed, and exits with the same status with and without --json.
#
# tests/json/examples.jsonl holds a document of every name as the
# contract describes it: the schemas must accept them all.
#
# The validator (tests/json/validate.mjs) uses the Ajv of the pinned MCP
# test packages (tests/mcp/package-lock.json in .deps/npm-mcp); run from a
# checkout as root, this file installs them the way tests/mcp/run does.
# Skips, saying why, without node or that install. ARCTURN_SCHEMA_DIR,
# ARCTURN_JSON_VALIDATOR and ARCTURN_NPM_MCP name them elsewhere (the
# unprivileged run's scratch copy).

load common

top=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
SCHEMAS=${ARCTURN_SCHEMA_DIR:-$top/schema}
VALIDATOR=${ARCTURN_JSON_VALIDATOR:-$top/tests/json/validate.mjs}
export ARCTURN_NPM_MCP=${ARCTURN_NPM_MCP:-$top/.deps/npm-mcp}

setup_file() {
	# one install for the whole file, from a checkout only (a scratch
	# copy names an install it cannot write)
	if [ -z "${ARCTURN_JSON_VALIDATOR:-}" ] && [ -x "$top/vendor/fetch-npm.sh" ] &&
	    command -v npm >/dev/null && command -v node >/dev/null &&
	    [ -w "$top/.deps" ]; then
		# a failed install shows as the tests' skip reason below
		"$top/vendor/fetch-npm.sh" --ci tests/mcp "$ARCTURN_NPM_MCP" \
			>"$BATS_FILE_TMPDIR/install.log" 2>&1 || true
	fi
	# one validator for the whole file (a node start and the schemas'
	# compilation take a second or more: there are ~70 documents); it
	# goes when this process does, or in teardown_file
	if command -v node >/dev/null && [ -d "$SCHEMAS" ] && [ -f "$VALIDATOR" ] &&
	    [ -f "$ARCTURN_NPM_MCP/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
		mkdir "$BATS_FILE_TMPDIR/v" &&
			mkfifo "$BATS_FILE_TMPDIR/v/req" "$BATS_FILE_TMPDIR/v/resp" || return
		node "$VALIDATOR" --serve "$SCHEMAS" "$BATS_FILE_TMPDIR/v" $$ \
			</dev/null >"$BATS_FILE_TMPDIR/v.log" 2>&1 3>&- &
		echo $! >"$BATS_FILE_TMPDIR/v.pid"
	fi
}

teardown_file() {
	[ ! -f "$BATS_FILE_TMPDIR/v.pid" ] || kill "$(cat "$BATS_FILE_TMPDIR/v.pid")" 2>/dev/null || true
}

# validate NAME < DOCUMENT: what `node "$VALIDATOR" "$SCHEMAS" NAME` says
# and its status, from the validator setup_file started
validate() {
	local v=$BATS_FILE_TMPDIR/v code
	kill -0 "$(cat "$v.pid")" 2>/dev/null || {
		echo "the validator is gone: $(cat "$v.log")"
		return 2
	}
	cat >"$v/doc" || return 2
	printf '%s %s\n' "$1" "$v/doc" | timeout 60 dd of="$v/req" status=none &&
		timeout 60 cat "$v/resp" >"$v/answer" || {
		echo "the validator does not answer: $(cat "$v.log")"
		return 2
	}
	{ read -r code && cat; } <"$v/answer"
	return "$code"
}

setup() {
	command -v node >/dev/null ||
		skip "node is missing (sh vendor/need.sh json-schema.bats installs it)"
	[ -d "$SCHEMAS" ] && [ -f "$VALIDATOR" ] ||
		skip "no schema/ and tests/json/validate.mjs beside this copy (ARCTURN_SCHEMA_DIR, ARCTURN_JSON_VALIDATOR)"
	[ -f "$ARCTURN_NPM_MCP/node_modules/@modelcontextprotocol/sdk/package.json" ] ||
		skip "the pinned MCP test packages are not installed in $ARCTURN_NPM_MCP ($(tail -n 1 "$BATS_FILE_TMPDIR/install.log" 2>/dev/null ||
			echo vendor/fetch-npm.sh --ci tests/mcp))"
	command -v jq >/dev/null || fail "jq is missing: install it"
	kill -0 "$(cat "$BATS_FILE_TMPDIR/v.pid")" 2>/dev/null ||
		fail "the validator did not start: $(cat "$BATS_FILE_TMPDIR/v.log")"
	common_setup
	N=0
}

# A fresh workspace under $T (the one before stays): a git repository
# with a.txt, the folder it is in the cwd, with a home of its own (its
# sessions and checkpoints).
fresh() {
	N=$((N + 1))
	mkdir -p "$T/w$N" "$T/h$N"
	export HOME=$T/h$N
	cd "$T/w$N" || return 1
	git init -q .
	printf 'hello\n' >a.txt
}

# jcheck NAME WANT PREP ARG...: in a fresh workspace PREP (a function, or
# :) then `arcturn --json ARG...` (stdin: $IN, default empty); its stdout
# must be one line that schema/NAME.json accepts: the result when WANT is
# "ok" (status 0) or a number (the result, with that status), the error
# document when WANT is "error" (a non-zero status). Then in another
# fresh workspace PREP and `arcturn ARG...`: the same exit status. The
# document is left in $T/doc, the --json run's workspace the cwd, its
# stderr in $T/err.
jcheck() {
	local name=$1 want=$2 prep=$3 jrc prc ws
	shift 3
	fresh && $prep || fail "$prep failed"
	ws=$PWD
	jrc=0
	"$ARCTURN_BIN" --json "$@" <"${IN:-/dev/null}" >"$T/doc" 2>"$T/err" ||
		jrc=$?
	fresh && $prep || fail "$prep failed (the run without --json)"
	prc=0
	"$ARCTURN_BIN" "$@" <"${IN:-/dev/null}" >/dev/null 2>&1 || prc=$?
	cd "$ws" || return 1
	validate "$name" <"$T/doc" ||
		fail "arcturn --json $* (status $jrc): not a valid $name document (stderr: $(cat "$T/err"))"
	[ "$jrc" = "$prc" ] ||
		fail "arcturn $*: status $jrc with --json, $prc without"
	case $want in
	ok)
		[ "$jrc" = 0 ] || fail "arcturn --json $*: status $jrc, not 0"
		jq -e 'has("error") | not' "$T/doc" >/dev/null ||
			fail "arcturn --json $*: an error document: $(cat "$T/doc")" ;;
	error)
		[ "$jrc" != 0 ] || fail "arcturn --json $*: status 0"
		jq -e 'has("error")' "$T/doc" >/dev/null ||
			fail "arcturn --json $*: not an error document: $(cat "$T/doc")" ;;
	*)
		[ "$jrc" = "$want" ] || fail "arcturn --json $*: status $jrc, not $want"
		jq -e 'has("error") | not' "$T/doc" >/dev/null ||
			fail "arcturn --json $*: an error document: $(cat "$T/doc")" ;;
	esac
}

doc() {	# jq filter: of the last document, compact
	jq -c "$1" "$T/doc"
}

input() {	# text: what the next jcheck reads on stdin
	printf '%s' "$1" >"$T/in"
	IN=$T/in
}

dry() {	# a pending dry-run session "s1": b.txt added, a.txt changed
	printf 'new\n' | "$ARCTURN_BIN" --session s1 write --dry-run b.txt &&
		printf 'changed\n' | "$ARCTURN_BIN" --session s1 write --dry-run a.txt
}

turns() {	# two checkpoint turns: b.txt written, then a.txt
	printf 'one\n' | "$ARCTURN_BIN" write b.txt &&
		printf 'two\n' | "$ARCTURN_BIN" write a.txt
}

@test "every schema file is a valid draft-07 schema (Ajv strict) with its \$id" {
	run node "$VALIDATOR" --check "$SCHEMAS"
	[ "$status" = 0 ] || fail "$output"
	for n in version write edit read diff apply discard session-list \
	    session-show session-rm turn rewind undo checkpoints exec \
	    sandbox-status mcp arcturn session sandbox error; do
		assert_line "ok $n.json"
	done
}

@test "the validator refuses what the contract does not allow" {
	v() { validate "$@"; }
	printf '{"schema":"arcturn/turn/v1","turn":3,"label":null}\n' | v turn
	# a key the schema does not know, a wrong type, a missing key
	run v turn <<<'{"schema":"arcturn/turn/v1","turn":3,"label":null,"x":1}'
	assert_failure 1
	assert_output --partial '"additionalProperty":"x"'
	run v turn <<<'{"schema":"arcturn/turn/v1","turn":"3","label":null}'
	assert_failure 1
	run v turn <<<'{"schema":"arcturn/turn/v1","turn":3}'
	assert_failure 1
	# another command's document, an error code that is no word of say.c
	run v turn <<<'{"schema":"arcturn/undo/v1","error":{"code":"usage","message":"x"}}'
	assert_failure 1
	run v turn <<<'{"schema":"arcturn/turn/v1","error":{"code":"oops","message":"x"}}'
	assert_failure 1
	printf '{"schema":"arcturn/turn/v1","error":{"code":"busy","message":"x","path":"a"}}\n' | v turn
	# one line, and something at all
	run v turn < <(printf '{"schema":"arcturn/turn/v1",\n"turn":3,"label":null}\n')
	assert_failure 1
	assert_output --partial 'not ONE'
	run v turn </dev/null
	assert_failure 1
	assert_output --partial 'no document'
	run v nosuch </dev/null
	assert_failure 1
	# the validator on its own (one document, one node) says the same
	run v turn <<<'{"schema":"arcturn/turn/v1","turn":3,"label":null,"x":1}'
	want=$output
	run node "$VALIDATOR" "$SCHEMAS" turn <<<'{"schema":"arcturn/turn/v1","turn":3,"label":null,"x":1}'
	assert_failure 1
	assert_output "$want"
	printf '{"schema":"arcturn/turn/v1","turn":3,"label":null}\n' |
		node "$VALIDATOR" "$SCHEMAS" turn
}

@test "the schemas accept the contract's examples (tests/json/examples.jsonl), every name at least once" {
	ex=$(dirname "$VALIDATOR")/examples.jsonl
	names=
	# each example's name (one jq for all: one a line, as the examples)
	mapfile -t ns < <(jq -r '.schema | split("/")[1]' "$ex")
	i=0
	while IFS= read -r l; do
		n=${ns[i]}
		i=$((i + 1))
		printf '%s\n' "$l" | validate "$n" ||
			fail "an example the $n schema refuses"
		names="$names $n"
	done <"$ex"
	[ "$i" = "${#ns[@]}" ] || fail "$ex: ${#ns[@]} documents on $i lines"
	for f in "$SCHEMAS"/*.json; do
		n=$(basename "$f" .json)
		[ "$n" = error ] && continue
		case " $names " in *" $n "*) ;; *) fail "no example of $n in $ex" ;; esac
	done
	# and refuse what drifted from it
	v() { validate "$@" >/dev/null; }
	run v session-list <<<'[{"id":"s1","workspace":"/w","created":"2026-12-01T02:12:31Z","pending":1}]'
	assert_failure 1
	run v checkpoints <<<'{"schema":"arcturn/checkpoints/v1","workspace":"/w","turns":[{"id":2,"time":"2026-12-01 02:12:31","label":null,"paths":[]}]}'
	assert_failure 1
	run v diff <<<'{"schema":"arcturn/diff/v1","session":"s1","workspace":"/w","count":1,"digest":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855","files":[{"path":"l","status":"added","mode_before":null,"mode_after":"120777","added":0,"removed":0,"binary":false,"conflict":null}]}'
	assert_failure 1
	run v exec <<<'{"schema":"arcturn/exec/v1","status":"0","exit_code":0,"signal":null,"backend":"helper+mount","confined":true,"mode":"workspace-write","dry_run":false,"checkpoint":false,"session":null,"duration_ms":1}'
	assert_failure 1
}

@test "version: --json --version" {
	# nothing makes --version fail: its mistakes are arcturn's (below)
	jcheck version ok : --version
	[ "$(doc .landlock_abis[0])" = 1 ]
}

@test "arcturn: a failure before the command is known" {
	jcheck arcturn error : bogus
	[ "$(doc .error.code)" = '"usage"' ]
	jcheck arcturn error : --bogus
	jcheck arcturn error : --version --bogus
}

@test "write: a file, a dry-run write" {
	input 'hello json
'
	jcheck write ok : write b.txt
	[ "$(doc '[.path, .bytes, .created, .dry_run, .session]')" = '["b.txt",11,true,false,null]' ]
	[ "$(doc '.turn | type')" = '"number"' ]
	jcheck write ok : write a.txt
	[ "$(doc .created)" = false ]
	jcheck write ok : --session s1 write --dry-run c.txt
	[ "$(doc '[.dry_run, .session, .turn]')" = '[true,"s1",null]' ]
	[ ! -e c.txt ]
	jcheck write ok : --dry-run --session s2 write c.txt
	[ "$(doc '[.dry_run, .session]')" = '[true,"s2"]' ]
}

@test "write: the error document (a protected path)" {
	input 'x'
	jcheck write error : write .git/config
	[ "$(doc .error.code)" = '"protected"' ]
	[ "$(doc .error.path)" = '".git/config"' ]
}

@test "edit: a replacement, a dry-run edit" {
	jcheck edit ok : edit a.txt --old hello --new bye
	[ "$(doc '[.path, .replacements, .bytes, .dry_run, .session]')" = '["a.txt",1,4,false,null]' ]
	[ "$(cat a.txt)" = bye ]
	jcheck edit ok : --session s1 edit --dry-run a.txt --old hello --new bye
	[ "$(doc '[.dry_run, .session, .turn]')" = '[true,"s1",null]' ]
}

@test "edit: the error document (old text not found)" {
	jcheck edit error : edit a.txt --old nothere --new x
	[ "$(doc .error.code)" = '"refused"' ]
}

bin() { printf 'a\000\001' >bin.dat; }

@test "read: text, bytes as base64, under dry run" {
	jcheck read ok : read a.txt
	[ "$(doc '[.path, .bytes, .encoding, .content, .dry_run, .session]')" = '["a.txt",6,"utf-8","hello\n",false,null]' ]
	jcheck read ok bin read bin.dat
	[ "$(doc '[.bytes, .encoding, .content]')" = '[3,"base64","YQAB"]' ]
	jcheck read ok dry --session s1 read --dry-run a.txt
	[ "$(doc '[.content, .dry_run, .session]')" = '["changed\n",true,"s1"]' ]
}

@test "read: the error document (a missing file)" {
	jcheck read error : read missing
	[ "$(doc .error.code)" = '"not_found"' ]
	[ "$(doc .error.path)" = '"missing"' ]
}

@test "diff: a session's changes (the same document with --stat, --name-only, --name-status), none" {
	jcheck diff ok dry --session s1 diff
	[ "$(doc '[.session, .count, (.files | map(.path + " " + .status))]')" = '["s1",2,["a.txt modified","b.txt added"]]' ]
	[ "$(doc '.files[1] | [.mode_before, .mode_after, .added, .removed, .binary, .conflict]')" = '[null,"100644",1,0,false,null]' ]
	jq -c 'del(.workspace)' "$T/doc" >"$T/plain"
	for f in --stat --name-only --name-status; do
		jcheck diff ok dry --session s1 diff "$f"
		[ "$(jq -c 'del(.workspace)' "$T/doc")" = "$(cat "$T/plain")" ] ||
			fail "diff $f: another document: $(cat "$T/doc")"
	done
	jcheck diff ok : diff
	[ "$(doc '[.count, .files]')" = '[0,[]]' ]
}

@test "diff: the error document (no such session)" {
	jcheck diff error : --session nosuch diff
}

conflicted() {	# s1 pending, and a.txt changed for real since the capture
	dry && printf 'meanwhile\n' >a.txt
}

@test "apply: a session, a conflict (its document and status)" {
	jcheck apply ok dry --session s1 apply --yes
	[ "$(doc '[.session, .count, (.applied | map(.path + " " + .status)), .conflicts, .failed]')" = \
		'["s1",2,["a.txt modified","b.txt added"],[],[]]' ]
	[ "$(cat b.txt)" = new ]
	jcheck apply 1 conflicted --session s1 apply --yes
	[ "$(doc '[.count, (.applied | map(.path)), (.conflicts | map(.path))]')" = '[1,["b.txt"],["a.txt"]]' ]
	[ "$(cat a.txt)" = meanwhile ]
}

@test "apply: the error document (no such session)" {
	jcheck apply error : --session nosuch apply --yes
}

@test "discard: a session, a path of it" {
	jcheck discard ok dry --session s1 discard --yes
	[ "$(doc '[.session, .discarded, .paths, .session_removed]')" = '["s1",2,["a.txt","b.txt"],true]' ]
	jcheck discard ok dry --session s1 discard --yes b.txt
	[ "$(doc '[.discarded, .paths, .session_removed]')" = '[1,["b.txt"],false]' ]
}

@test "discard: the error document (a usage error)" {
	jcheck discard error : discard --bogus
	[ "$(doc .error.code)" = '"usage"' ]
}

@test "session-list: the sessions" {
	jcheck session-list ok dry session list
	doc '.sessions | map(select(.id == "s1")) | .[0] | [.workspace, .pending]' |
		grep -qF "[\"$PWD\",2]" || fail "$(cat "$T/doc")"
}

@test "session-list: the error document (a state dir that is not one)" {
	ARCTURN_HOME=/etc/passwd jcheck session-list error : session list
}

@test "session-show: a session" {
	jcheck session-show ok dry --session s1 session show
	[ "$(doc '[.id, .pending, .interrupted, .incomplete, .unrecorded, (.files | map([.path, .status, .conflict]))]')" = \
		'["s1",2,false,false,0,[["a.txt","modified",null],["b.txt","added",null]]]' ]
	jcheck session-show ok dry session show s1
}

@test "session-show: the error document (no such session)" {
	jcheck session-show error : session show nosuch
}

@test "session-rm: a session" {
	jcheck session-rm ok dry session rm --yes s1
	[ "$(doc '[.id, .removed, .pending]')" = '["s1",true,2]' ]
}

@test "session-rm: the error document (no such session)" {
	jcheck session-rm error : session rm --yes nosuch
}

@test "session, sandbox: no valid sub-command" {
	jcheck session error : session bogus
	[ "$(doc .error.code)" = '"usage"' ]
	jcheck sandbox error : sandbox bogus
	[ "$(doc .error.code)" = '"usage"' ]
}

@test "turn: a new turn with and without a label" {
	jcheck turn ok turns turn --label "before x"
	[ "$(doc '[.turn, .label]')" = '[3,"before x"]' ]
	jcheck turn ok turns turn
	[ "$(doc '[.turn, .label]')" = '[3,null]' ]
}

@test "turn: the error document (a usage error)" {
	jcheck turn error turns turn extra
	[ "$(doc .error.code)" = '"usage"' ]
}

@test "rewind: to a turn" {
	jcheck rewind ok turns rewind 1
	[ "$(doc '[.turn, .since, (.restored | map(.path + " " + .action) | sort), .conflicts]')" = \
		'[3,1,["a.txt restored","b.txt removed"],[]]' ]
	[ ! -e b.txt ]
}

changed() {	# two turns, then a.txt changed by hand since
	turns && printf 'by hand\n' >a.txt
}

@test "rewind: a conflict (its document and status: nothing restored)" {
	jcheck rewind 1 changed rewind 1
	[ "$(doc '[.turn, .since, .restored, (.conflicts | map(.path))]')" = '[null,1,[],["a.txt"]]' ]
	[ "$(cat a.txt)" = "by hand" ]
}

@test "rewind: the error document (no such turn)" {
	jcheck rewind error turns rewind 999
}

@test "undo: the last turn" {
	jcheck undo ok turns undo
	[ "$(doc '[.turn, .since, (.restored | map(.path + " " + .action)), .conflicts]')" = \
		'[3,2,["a.txt restored"],[]]' ]
	[ "$(cat a.txt)" = hello ]
}

@test "undo: the error document (no checkpoints)" {
	jcheck undo error : undo
	[ "$(doc .error.code)" = '"refused"' ]
}

@test "checkpoints: the turns, none" {
	jcheck checkpoints ok turns checkpoints
	[ "$(doc '[.workspace, (.turns | map(.id)), .turns[0].label, (.turns[1].paths | map([.path, .before, .after]))]')" = \
		"[\"$PWD\",[2,1],null,[[\"b.txt\",\"absent\",\"file\"]]]" ]
	jcheck checkpoints ok : checkpoints
	[ "$(doc .turns)" = '[]' ]
}

@test "checkpoints: the error document (a usage error)" {
	jcheck checkpoints error : checkpoints extra
	[ "$(doc .error.code)" = '"usage"' ]
}

@test "exec: a command that worked, one that failed (its status in the document), unconfined, with a checkpoint" {
	jcheck exec ok : exec -- true
	[ "$(doc '[.status, .exit_code, .signal, .dry_run, .checkpoint, .session]')" = '[0,0,null,false,false,null]' ]
	jcheck exec 3 : exec -- sh -c 'exit 3'
	[ "$(doc '[.status, .exit_code, .signal]')" = '[3,3,null]' ]
	jcheck exec ok : exec --sandbox off -- true
	[ "$(doc '[.mode, .confined, .backend]')" = '["off",false,"off"]' ]
	jcheck exec ok : exec --checkpoint -- sh -c 'echo x >c.txt'
	[ "$(doc .checkpoint)" = true ]
}

@test "exec: the error document (a usage error, a required sandbox that is unavailable)" {
	jcheck exec error : exec
	[ "$(doc .error.code)" = '"usage"' ]
	ARCTURN_BACKEND=none jcheck exec error : exec --require-sandbox -- true
	[ "$(doc .error.code)" = '"sandbox"' ]
}

@test "sandbox-status: the report" {
	jcheck sandbox-status ok : sandbox status
	[ "$(doc '.guarantees | length > 0')" = true ]
}

@test "sandbox-status: the error document (a usage error)" {
	jcheck sandbox-status error : sandbox status extra
	[ "$(doc .error.code)" = '"usage"' ]
}

@test "mcp: the error document before serving; serving prints the protocol only" {
	jcheck mcp error : mcp --bogus
	[ "$(doc .error.code)" = '"usage"' ]
	run -0 bash -c 'printf "%s\n" "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bats\",\"version\":\"1\"}}}" |
		"$ARCTURN_BIN" --json mcp 2>/dev/null'
	[ "${#lines[@]}" = 1 ]
	[ "$(jq -c '[.jsonrpc, .id]' <<<"$output")" = '["2.0",0]' ]
}
