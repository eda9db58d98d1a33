#!/usr/bin/env bats
# --json of exec, sandbox status, turn, rewind, undo, checkpoints and mcp:
# one document, one line, on stdout, its values what happened. And where
# exec runs the command: -C DIR runs it in DIR, --cwd DIR in DIR inside
# the workspace.

load common

setup() { common_setup; }

have_dry_exec() {
	"$ARCTURN_BIN" sandbox status --json | grep -q '"dry_run_exec":true' ||
		skip "exec --dry-run unavailable here: $("$ARCTURN_BIN" sandbox status | grep dry-run)"
}

# jdoc SCHEMA PYTHON: the last line of $output is one JSON document of
# that schema (bound to j); PYTHON asserts over it (and may print).
jdoc() {
	python3 -c '
import json, sys
last = sys.argv[3].split("\n")[-1]
j = json.loads(last)
assert isinstance(j, dict), j
assert list(j)[0] == "schema", list(j)
assert j["schema"] == "arcturn/%s/v1" % sys.argv[1], j["schema"]
exec(sys.argv[2])' "$1" "$2" "$output"
}

# The keys of exec --json, in order.
EXEC_KEYS='["schema", "status", "exit_code", "signal", "backend", "confined", "mode", "dry_run", "checkpoint", "session", "duration_ms"]'

# ---- exec --json

@test "exec --json: the command's output untouched, then one line: status, exit code, backend" {
	run -0 arcturn sandbox status --json
	backend=$(printf '%s' "$output" | jq -r .backend)
	run --separate-stderr -3 arcturn exec --json -- sh -c 'echo out; echo more; exit 3'
	assert_equal "${#lines[@]}" 3
	assert_line --index 0 out
	assert_line --index 1 more
	jdoc exec "
assert list(j) == $EXEC_KEYS, list(j)
assert j['status'] == 3 and j['exit_code'] == 3 and j['signal'] is None, j
assert j['backend'] == '$backend', (j['backend'], '$backend')
assert j['confined'] == ('$backend' != 'none'), j
assert j['mode'] == 'workspace-write'
assert j['dry_run'] is False and j['checkpoint'] is False
assert j['session'] is None
assert isinstance(j['duration_ms'], (int, float)) and j['duration_ms'] >= 0
"
	# the global option before the command: the same document
	run -0 arcturn --json exec -- true
	assert_equal "${#lines[@]}" 1
	jdoc exec "assert j['status'] == 0 and j['exit_code'] == 0, j"
}

@test "exec --json: a command killed by SIGTERM has signal 15, no exit code, status 143" {
	run --separate-stderr -143 arcturn exec --json -- sh -c 'kill -TERM $$'
	assert_equal "${#lines[@]}" 1
	jdoc exec "assert (j['status'], j['exit_code'], j['signal']) == (143, None, 15), j"
	# a command that exits 143 itself is no signal
	run --separate-stderr -143 arcturn exec --json -- sh -c 'exit 143'
	jdoc exec "assert (j['status'], j['exit_code'], j['signal']) == (143, 143, None), j"
}

@test "exec --json --sandbox off and read-only: mode and confinement as they were" {
	run -0 arcturn exec --json --sandbox off -- true
	jdoc exec "assert (j['mode'], j['backend'], j['confined']) == ('off', 'off', False), j"
	run -0 arcturn sandbox status --json
	[ "$(printf '%s' "$output" | jq -r .backend)" != none ] ||
		skip "no backend confines here"
	run -7 arcturn exec --json --sandbox read-only -- sh -c 'echo x 2>/dev/null > f || exit 7'
	jdoc exec "assert (j['mode'], j['confined'], j['exit_code']) == ('read-only', True, 7), j"
	[ ! -e f ]
}

@test "exec --json: arcturn's own failures are error documents with 125, 126, 127" {
	run --separate-stderr -127 arcturn exec --json -- arcturn-no-such-command
	assert_equal "${#lines[@]}" 1
	jdoc exec "assert j['error']['code'] == 'not_found' and 'arcturn-no-such-command' in j['error']['message'], j"
	[[ $stderr == "arcturn: arcturn-no-such-command: command not found" ]]
	printf 'echo hi\n' >noexec.sh
	chmod 644 noexec.sh
	run --separate-stderr -126 arcturn exec --json -- ./noexec.sh
	jdoc exec "assert j['error']['code'] in ('cannot_run', 'permission'), j"
	run --separate-stderr -125 arcturn exec --json --bogus -- true
	jdoc exec "assert j['error']['code'] == 'usage' and '--bogus' in j['error']['message'], j"
	run --separate-stderr -125 arcturn exec --json
	jdoc exec "assert j['error']['code'] == 'usage', j"
	ARCTURN_BACKEND=none run --separate-stderr -125 "$ARCTURN_BIN" exec --json --require-sandbox -- sh -c 'echo ran > marker'
	jdoc exec "assert j['error']['code'] == 'sandbox' and 'required' in j['error']['message'], j"
	[ ! -e marker ]
	# not confined, not required: the document says so
	ARCTURN_BACKEND=none run --separate-stderr -0 "$ARCTURN_BIN" exec --json -- true
	jdoc exec "assert (j['backend'], j['confined']) == ('none', False), j"
	[[ $stderr == *"WITHOUT confinement"* ]]
}

@test "exec --json --dry-run: dry_run true, the session show --json names, the write in the session" {
	have_dry_exec
	run --separate-stderr -0 arcturn exec --json --dry-run -- sh -c 'echo new > f.txt; echo done'
	assert_line --index 0 done
	id=$(printf '%s' "$output" | tail -1 | jq -r .session)
	jdoc exec "
assert (j['dry_run'], j['checkpoint'], j['confined']) == (True, False, True), j
assert (j['status'], j['exit_code'], j['signal']) == (0, 0, None), j
assert j['mode'] == 'workspace-write' and j['backend'] == 'helper+mount', j
assert isinstance(j['session'], str) and j['session'], j
"
	[ ! -e f.txt ]
	run -0 arcturn --json session show
	assert_equal "$(printf '%s' "$output" | jq -r .id)" "$id"
	# --dry-run before the command is the same, and a signal is a signal
	run --separate-stderr -143 arcturn --dry-run --json exec -- sh -c 'echo b > g.txt; kill -TERM $$'
	jdoc exec "assert (j['dry_run'], j['session'], j['signal'], j['exit_code']) == (True, '$id', 15, None), j"
	[ ! -e g.txt ]
	run -0 arcturn diff --name-only
	assert_line f.txt
	assert_line g.txt
	# a named session is the one reported
	run -0 arcturn --session mine exec --json --dry-run -- true
	jdoc exec "assert j['session'] == 'mine', j"
}

@test "exec --json --checkpoint: checkpoint true, applied as a turn" {
	have_dry_exec
	run --separate-stderr -4 arcturn exec --json --checkpoint -- sh -c 'echo cp > c.txt; exit 4'
	assert_equal "${#lines[@]}" 1
	jdoc exec "assert (j['checkpoint'], j['dry_run'], j['status'], j['exit_code']) == (True, False, 4, 4), j"
	assert_equal "$(cat c.txt)" cp
	run -0 arcturn checkpoints --json
	jdoc checkpoints "assert [p['path'] for p in j['turns'][0]['paths']] == ['c.txt'], j"
}

# ---- where exec runs the command

@test "-C DIR exec runs the command in DIR: pwd, and a relative write lands there" {
	mkdir "$T/elsewhere"
	cd "$T/elsewhere"
	run -0 arcturn -C "$WS" exec -- pwd
	assert_output "$WS"
	run -0 arcturn -C "$WS" exec -- sh -c 'echo hi > rel.txt'
	assert_equal "$(cat "$WS/rel.txt")" hi
	[ ! -e "$T/elsewhere/rel.txt" ]
	# a relative -C, and one with a trailing slash
	cd "$T"
	run -0 arcturn -C ws/ exec -- pwd
	assert_output "$WS"
	# without -C: right here
	cd "$WS"
	mkdir -p sub
	cd sub
	run -0 arcturn exec -- pwd
	assert_output "$WS/sub"
}

@test "-C DIR exec --dry-run: a relative write lands in the session, not in DIR or the cwd" {
	have_dry_exec
	mkdir "$T/elsewhere"
	cd "$T/elsewhere"
	run -0 arcturn -C "$WS" exec --dry-run -- sh -c 'pwd; echo hi > rel.txt'
	assert_output "$WS"
	[ ! -e "$WS/rel.txt" ]
	[ ! -e "$T/elsewhere/rel.txt" ]
	run -0 arcturn -C "$WS" diff --name-only
	assert_output rel.txt
	# and --checkpoint applies it there (its apply finds the workspace
	# from a relative -C too)
	cd "$T"
	run -0 arcturn -C ws exec --checkpoint -- sh -c 'echo cp > cp.txt'
	assert_equal "$(cat "$WS/cp.txt")" cp
	[ ! -e "$T/cp.txt" ]
}

@test "exec --cwd DIR: relative to the workspace, or absolute inside it" {
	mkdir -p "$WS/sub/deep" "$T/elsewhere"
	run -0 arcturn exec --cwd sub -- pwd
	assert_output "$WS/sub"
	run -0 arcturn exec --cwd "$WS/sub/deep" -- pwd
	assert_output "$WS/sub/deep"
	cd "$T/elsewhere"
	run -0 arcturn -C "$WS" exec --cwd sub -- sh -c 'pwd; echo x > w.txt'
	assert_output "$WS/sub"
	assert_equal "$(cat "$WS/sub/w.txt")" x
	# the workspace itself
	run -0 arcturn -C "$WS" exec --cwd . -- pwd
	assert_output "$WS"
}

@test "exec --cwd outside the workspace, missing or not a folder: 125, a usage error, nothing runs" {
	mkdir -p "$OUT/d" "$WS/sub"
	ln -s "$OUT/d" "$WS/sub/link"
	touch "$WS/file"
	for dir in "$OUT/d" .. sub/../.. sub/link missing file; do
		run --separate-stderr arcturn exec --json --cwd "$dir" -- sh -c 'echo ran > "$0/marker"' "$WS"
		echo "$dir: $status $stderr"
		assert_equal "$status" 125
		assert_equal "${#stderr_lines[@]}" 1
		[[ ${stderr_lines[0]} == "arcturn: exec: --cwd: $dir: "* ]]
		jdoc exec "assert j['error']['code'] == 'usage' and j['error']['path'] == '$dir', j"
		[ ! -e "$WS/marker" ]
	done
}

# ---- sandbox status, turn, rewind, undo, checkpoints

@test "sandbox status --json: one line, numbers and words, after the command or before it" {
	run -0 arcturn sandbox status --json
	assert_equal "${#lines[@]}" 1
	a=$output
	jdoc sandbox-status "
assert j['landlock_abi'] is None or type(j['landlock_abi']) is int, j['landlock_abi']
assert type(j['landlock_abi_known']) is int
assert j['user_namespaces'] in ('usable', 'unusable')
assert type(j['dry_run_exec']) is bool
for k, g in j['guarantees'].items():
    assert type(g['holds']) is bool and g['why'], k
"
	run -0 arcturn --json sandbox status
	assert_equal "$(printf '%s' "$output" | jq -S 'del(.kernel)')" "$(printf '%s' "$a" | jq -S 'del(.kernel)')"
	run -0 arcturn sandbox --json status
	assert_equal "${#lines[@]}" 1
	# the text says the same ABI
	abi=$(printf '%s' "$a" | jq -r .landlock_abi)
	run -0 arcturn sandbox status
	if [ "$abi" = null ]; then
		assert_line --regexp '^landlock_abi: unavailable'
	else
		assert_line --regexp "^landlock_abi: $abi \\("
	fi
	refute_line --partial landlock_abi_known
	# a bad argument: usage (2)
	run --separate-stderr -2 arcturn sandbox status --json --bogus
	jdoc sandbox-status "assert j['error']['code'] == 'usage', j"
	run --separate-stderr -2 arcturn --json sandbox
	jdoc sandbox "assert j['error']['code'] == 'usage', j"
}

@test "turn, undo, rewind and checkpoints --json: one line each, after the command" {
	run -0 arcturn turn --json --label "first one"
	assert_equal "${#lines[@]}" 1
	jdoc turn "assert (j['turn'], j['label']) == (1, 'first one'), j"
	echo a | arcturn write a.txt
	echo b | arcturn write b.txt
	run -0 arcturn checkpoints --json
	assert_equal "${#lines[@]}" 1
	jdoc checkpoints "
assert j['workspace'] == '$WS'
t = j['turns']
assert [x['id'] for x in t] == [1] and t[0]['label'] == 'first one', t
assert t[0]['time'].endswith('Z') and 'T' in t[0]['time'], t
assert sorted((p['path'], p['before'], p['after']) for p in t[0]['paths']) == [('a.txt', 'absent', 'file'), ('b.txt', 'absent', 'file')], t
"
	run -0 arcturn --json turn
	jdoc turn "assert (j['turn'], j['label']) == (2, None), j"
	echo a2 | arcturn write a.txt
	run -0 arcturn undo --json
	assert_equal "${#lines[@]}" 1
	jdoc undo "assert (j['turn'], j['since'], j['restored'], j['conflicts']) == (3, 2, [{'path': 'a.txt', 'action': 'restored'}], []), j"
	assert_equal "$(cat a.txt)" a
	# a conflict: the document with it, status 1, nothing restored
	echo mine >b.txt
	run --separate-stderr -1 arcturn rewind 1 --json
	assert_equal "${#lines[@]}" 1
	jdoc rewind "
assert (j['turn'], j['since'], j['restored']) == (None, 1, []), j
assert j['conflicts'] == [{'path': 'b.txt', 'reason': 'changed since'}], j
"
	assert_equal "$(cat b.txt)" mine
	run -0 arcturn rewind 1 --force --json
	jdoc rewind "
assert j['turn'] == 4 and j['since'] == 1 and j['conflicts'] == [], j
assert sorted((r['path'], r['action']) for r in j['restored']) == [('a.txt', 'removed'), ('b.txt', 'removed')], j
"
	[ ! -e a.txt ]
	[ ! -e b.txt ]
	# undo of that rewind brings them back: created
	run -0 arcturn --json undo
	jdoc undo "assert sorted((r['path'], r['action']) for r in j['restored']) == [('a.txt', 'created'), ('b.txt', 'created')], j"
}

@test "turn, rewind, undo refuse --dry-run (before or after the command): usage, an error document" {
	echo a | arcturn write a.txt
	local spec name args
	for spec in "turn|turn --dry-run" "undo|--dry-run undo" \
	    "rewind|rewind --dry-run 1"; do
		name=${spec%%|*}
		args=${spec#*|}
		# shellcheck disable=SC2086
		run --separate-stderr -2 arcturn --json $args
		echo "$args: $stderr"
		[[ $stderr == "arcturn: $name: --dry-run does not apply: "* ]]
		jdoc "$name" "assert j['error']['code'] == 'usage', j"
	done
	[ -e a.txt ]
	# checkpoints takes it and lists the real turns
	run -0 arcturn --dry-run checkpoints --json
	jdoc checkpoints "assert len(j['turns']) == 1, j"
	# nothing to rewind: an error document, refused
	run --separate-stderr -1 arcturn -C "$OUT" --json undo
	jdoc undo "assert j['error']['code'] == 'refused' and 'no checkpoints' in j['error']['message'], j"
}

@test "mcp --json: an error before serving is an error document; --dry-run before the command serves a dry run" {
	run --separate-stderr -2 arcturn mcp --json --bogus
	assert_equal "${#lines[@]}" 1
	jdoc mcp "assert j['error']['code'] == 'usage' and '--bogus' in j['error']['message'], j"
	printf '{' >.arcturn.json
	run --separate-stderr -2 arcturn --json mcp </dev/null
	jdoc mcp "assert j['error']['code'] in ('config', 'failed', 'usage'), j"
	rm .arcturn.json
	# served: stdout is the protocol's, no document at the end
	run --separate-stderr -0 arcturn --json mcp </dev/null
	assert_output ""
}

@test "exec --json-fd 3: after output without a final newline the document is a line of its own on fd 3" {
	run --separate-stderr -0 arcturn exec --json-fd 3 -- printf 'no newline' 3>"$T/doc"
	# control: --json alone glues the document to that output
	assert_output "no newline"
	run -0 cat "$T/doc"
	assert_equal "${#lines[@]}" 1
	jdoc exec "assert j['status'] == 0 and j['exit_code'] == 0, j"
	run --separate-stderr -0 arcturn exec --json -- printf 'no newline'
	assert_output --partial 'no newline{"schema":"arcturn/exec/v1"'
	# the error documents go there too
	run --separate-stderr -127 arcturn exec --json-fd 3 -- arcturn-no-such-command 3>"$T/doc"
	assert_output ""
	run -0 cat "$T/doc"
	jdoc exec "assert j['error']['code'] == 'not_found', j"
	run --separate-stderr -125 arcturn exec --json-fd 3 --bogus -- true 3>"$T/doc"
	run -0 cat "$T/doc"
	jdoc exec "assert j['error']['code'] == 'usage', j"
}

@test "exec --json-fd: the command cannot write a document of its own on N; a bad N is a usage error" {
	# --sandbox off, which passes every fd on (the sandboxes close those
	# above 2 anyway). Control: without --json-fd the command writes on 3
	run -0 arcturn exec --sandbox off -- sh -c 'echo forged >&3' 3>"$T/ctl"
	assert_equal "$(cat "$T/ctl")" forged
	run --separate-stderr -2 arcturn exec --sandbox off --json-fd 3 -- \
	    sh -c 'echo forged >&3' 3>"$T/doc"
	run -0 cat "$T/doc"
	assert_equal "${#lines[@]}" 1
	jdoc exec "assert j['exit_code'] == 2, j"
	run --separate-stderr -125 arcturn exec --json-fd 9 -- true
	assert_equal "$stderr" "arcturn: exec: --json-fd 9: Bad file descriptor"
	run --separate-stderr -125 arcturn exec --json-fd x -- true
	assert_equal "$stderr" "arcturn: exec: --json-fd takes a file descriptor number, not x"
	run --separate-stderr -125 arcturn exec --json-fd 3 -- true 3<"$T/ctl"
	assert_equal "$stderr" "arcturn: exec: --json-fd 3: open for reading only"
}
