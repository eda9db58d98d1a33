#!/usr/bin/env bats
# --json of write, edit, read, apply, discard and session list|show|rm:
# one document, one line, nothing else on stdout, its values what happened
# on disk; the error document with the exit status of the text mode; the
# global options after the command; the usage errors of the file tools.

load common

setup() { common_setup; }

# The document on stdin: exactly one line, one JSON object whose "schema"
# is arcturn/$1/v1; prints the Python expression $2 over it (d) as JSON.
doc() {
	python3 -c '
import json, sys
t = sys.stdin.read()
if not t.endswith("\n") or t.count("\n") != 1:
    sys.exit("not one line: %r" % t)
d = json.loads(t)
if not isinstance(d, dict) or list(d)[0] != "schema" or \
        d["schema"] != "arcturn/%s/v1" % sys.argv[1]:
    sys.exit("schema: %r" % t)
print(json.dumps(eval(sys.argv[2], {"d": d})))' "$1" "$2"
}

# Run arcturn with stdout and stderr apart ($output: stdout only).
jrun() {
	run --separate-stderr "$ARCTURN_BIN" "$@"
}

sess_id() { "$ARCTURN_BIN" --json session show | doc session-show 'd["id"]' | tr -d '"'; }
newest_turn() { "$ARCTURN_BIN" --json checkpoints | python3 -c 'import json,sys; print(json.load(sys.stdin)["turns"][0]["id"])'; }

@test "write --json: path, bytes, created, the turn it joined; on disk" {
	jrun write --json f.txt <<<"hello"
	assert_success
	[ "$(doc write '[d["path"], d["dry_run"], d["session"], d["bytes"], d["created"]]' <<<"$output")" = '["f.txt", false, null, 6, true]' ]
	[ "$(cat f.txt)" = hello ]
	turn=$(doc write 'd["turn"]' <<<"$output")
	[ "$turn" = "$(newest_turn)" ]
	mkdir -p sub
	jrun write sub/../f.txt --json < <(printf 'twelve bytes')
	assert_success
	[ "$(doc write '[d["path"], d["bytes"], d["created"]]' <<<"$output")" = '["f.txt", 12, false]' ]
	[ "$(doc write 'd["turn"]' <<<"$output")" -gt "$turn" ]
	[ "$(stat -c %s f.txt)" = 12 ]
	[ -z "$stderr" ]
}

@test "write f --json --dry-run: the session's id, no turn, the real file untouched" {
	printf 'old\n' >f
	jrun write f --json --dry-run <<<"new text"
	assert_success
	[ "$(doc write '[d["path"], d["dry_run"], d["bytes"], d["created"], d["turn"]]' <<<"$output")" = '["f", true, 9, false, null]' ]
	[ "$(doc write 'd["session"]' <<<"$output")" = "\"$(sess_id)\"" ]
	[ "$(cat f)" = old ]
	run arcturn read --dry-run f
	assert_output "new text"
	# --dry-run before the command, --json after it
	jrun --dry-run write g --json <<<"x"
	[ "$(doc write '[d["dry_run"], d["created"]]' <<<"$output")" = '[true, true]' ]
	[ ! -e g ]
}

@test "edit --json: replacements, the new size, the turn" {
	printf 'a-a-a\n' >f
	jrun edit f --old a --new bcd --all --json
	assert_success
	[ "$(doc edit '[d["path"], d["dry_run"], d["session"], d["replacements"], d["bytes"]]' <<<"$output")" = '["f", false, null, 3, 12]' ]
	[ "$(cat f)" = bcd-bcd-bcd ]
	[ "$(stat -c %s f)" = 12 ]
	[ "$(doc edit 'd["turn"]' <<<"$output")" = "$(newest_turn)" ]
	jrun --json edit f --dry-run --old bcd-b --new X
	assert_success
	[ "$(doc edit '[d["dry_run"], d["replacements"], d["bytes"], d["turn"]]' <<<"$output")" = '[true, 1, 8, null]' ]
	[ "$(doc edit 'd["session"]' <<<"$output")" = "\"$(sess_id)\"" ]
	[ "$(cat f)" = bcd-bcd-bcd ]
}

@test "read --json: text as it is, binary as base64, the session's view under --dry-run" {
	printf 'h\xc3\xa9llo\n' >t
	jrun read t --json
	assert_success
	[ "$(doc read '[d["path"], d["dry_run"], d["session"], d["bytes"], d["encoding"], d["content"]]' <<<"$output")" = '["t", false, null, 7, "utf-8", "h\u00e9llo\n"]' ]
	printf 'a\0b\xff' >bin
	jrun read --json bin
	assert_success
	[ "$(doc read '[d["bytes"], d["encoding"]]' <<<"$output")" = '[4, "base64"]' ]
	doc read 'd["content"]' <<<"$output" | python3 -c 'import base64,json,sys; sys.stdout.buffer.write(base64.b64decode(json.load(sys.stdin)))' >decoded
	cmp bin decoded
	arcturn write --dry-run t <<<"shadow"
	jrun read t --dry-run --json
	[ "$(doc read '[d["dry_run"], d["content"]]' <<<"$output")" = '[true, "shadow\n"]' ]
	[ "$(doc read 'd["session"]' <<<"$output")" = "\"$(sess_id)\"" ]
	# a path outside the workspace: absolute
	printf 'out\n' >"$OUT/o"
	jrun read "$OUT/o" --json
	[ "$(doc read 'd["path"]' <<<"$output")" = "\"$OUT/o\"" ]
}

@test "read --json refuses a file over 64 MiB; read without --json prints it" {
	truncate -s 65M big
	jrun read big --json
	assert_failure 1
	[ "$(doc read 'd["error"]["code"]' <<<"$output")" = '"refused"' ]
	[ "$(doc read 'd["error"]["path"]' <<<"$output")" = '"big"' ]
	[ "$stderr" = "arcturn: read: big: larger than 64 MiB; --json refuses it" ]
	[ "$(arcturn read big | wc -c)" = $((65 << 20)) ]
}

@test "the error documents of write, edit and read; the exit status of the text mode" {
	jrun read missing --json
	assert_failure 1
	[ "$(doc read '[d["error"]["code"], d["error"]["path"]]' <<<"$output")" = '["not_found", "missing"]' ]
	[ "$stderr" = "arcturn: read: missing: No such file or directory" ]
	run arcturn read missing
	assert_failure 1
	printf 'abc\n' >f
	jrun edit f --old zzz --new y --json
	assert_failure 1
	[ "$(doc edit '[d["error"]["code"], d["error"]["message"], d["error"]["path"]]' <<<"$output")" = '["refused", "edit: f: old text not found", "f"]' ]
	run arcturn edit f --old zzz --new y
	assert_failure 1
	jrun write "$OUT/x" --json <<<"no"
	assert_failure 1
	[ "$(doc write 'd["error"]["code"]' <<<"$output")" = '"outside_roots"' ]
	[ ! -e "$OUT/x" ]
	run arcturn write "$OUT/x" <<<"no"
	assert_failure 1
}

@test "an empty PATH, a repeated or missing --old/--new: one line, exit 2" {
	for c in write read; do
		run arcturn "$c" ""
		assert_failure 2
		assert_output "arcturn: $c: empty path"
	done
	run arcturn edit "" --old a --new b
	assert_failure 2
	assert_output "arcturn: edit: empty path"
	printf 'a\n' >f
	run arcturn edit f --old a --old b --new c
	assert_failure 2
	assert_output "arcturn: edit: --old given twice"
	run arcturn edit f --old a --new b --new c
	assert_failure 2
	assert_output "arcturn: edit: --new given twice"
	[ "$(cat f)" = a ]
	run arcturn edit f --new c
	assert_failure 2
	assert_line --index 0 "arcturn: edit: f: --old TEXT is missing"
	assert_line --index 1 --partial "usage: arcturn edit"
	run arcturn edit f --old a
	assert_failure 2
	assert_line --index 0 "arcturn: edit: f: --new TEXT is missing"
	jrun edit f --old a --json
	assert_failure 2
	[ "$(doc edit 'd["error"]' <<<"$output")" = '{"code": "usage", "message": "edit: f: --new TEXT is missing"}' ]
	jrun --json write ""
	assert_failure 2
	[ "$(doc write 'd["error"]' <<<"$output")" = '{"code": "usage", "message": "write: empty path"}' ]
	jrun edit f --old a --old b --new c --json
	assert_failure 2
	[ "$(doc edit 'd["error"]["code"]' <<<"$output")" = '"usage"' ]
}

@test "--dry-run=yes is said in arcturn's words; apply refuses --dry-run" {
	run arcturn write f --dry-run=yes
	assert_failure 2
	assert_line --index 0 "arcturn: write: --dry-run takes no value (got --dry-run=yes)"
	[ ! -e f ]
	run arcturn apply --dry-run --yes
	assert_failure 2
	assert_output "arcturn: apply: --dry-run does not apply: apply lands the session's changes; arcturn diff shows them"
	jrun --dry-run apply --yes --json
	assert_failure 2
	[ "$(doc apply 'd["error"]["code"]' <<<"$output")" = '"usage"' ]
}

@test "apply --yes --json: what landed, its turn; conflicts with exit 1 as without --json" {
	jrun apply --yes --json
	assert_success
	[ "$(doc apply '[d["session"], d["count"], d["turn"], d["applied"], d["conflicts"], d["failed"], d["kept"]]' <<<"$output")" = '[null, 0, null, [], [], [], null]' ]
	printf 'base\n' >c
	arcturn write --dry-run a <<<"A"
	arcturn write --dry-run sub/b <<<"B"
	arcturn write --dry-run c <<<"C"
	id=$(sess_id)
	printf 'user\n' >c
	jrun apply --yes --json
	assert_failure 1
	[ "$(doc apply 'd["session"]' <<<"$output")" = "\"$id\"" ]
	[ "$(doc apply '[d["count"], d["applied"], d["conflicts"], d["failed"]]' <<<"$output")" = \
	  '[2, [{"path": "a", "status": "added"}, {"path": "sub/b", "status": "added"}], [{"path": "c", "reason": "changed since capture; refused"}], []]' ]
	[ "$(doc apply 'd["turn"]' <<<"$output")" = "$(newest_turn)" ]
	[ "$(cat a)" = A ]
	[ "$(cat sub/b)" = B ]
	[ "$(cat c)" = user ]
	assert_equal "$stderr" "arcturn: apply: c: changed since capture; refused"
	run arcturn apply --yes
	assert_failure 1
	# --force over the conflict
	jrun apply --force c --yes --json
	assert_success
	[ "$(doc apply '[d["count"], d["applied"], d["conflicts"]]' <<<"$output")" = '[1, [{"path": "c", "status": "modified"}], []]' ]
	[ "$(cat c)" = C ]
}

@test "apply --json without --yes: a usage error, unless --expect names the reviewed digest" {
	arcturn write --dry-run a <<<"A"
	jrun apply --json </dev/null
	assert_failure 2
	[ "$(doc apply 'd["error"]["code"]' <<<"$output")" = '"usage"' ]
	[ ! -e a ]
	jrun apply --json --expect 0000 </dev/null
	assert_failure 1
	[ "$(doc apply 'd["error"]["code"]' <<<"$output")" = '"refused"' ]
	run arcturn apply --expect 0000 </dev/null
	assert_failure 1
	dig=$(arcturn --json diff | python3 -c 'import json,sys; print(json.load(sys.stdin)["digest"])')
	jrun apply --expect "$dig" --json </dev/null
	assert_success
	[ "$(doc apply '[d["count"], d["applied"]]' <<<"$output")" = '[1, [{"path": "a", "status": "added"}]]' ]
	[ "$(cat a)" = A ]
}

@test "discard --json: the paths dropped, whether the session went" {
	jrun discard --json
	assert_success
	[ "$(doc discard '[d["session"], d["discarded"], d["paths"], d["session_removed"]]' <<<"$output")" = '[null, 0, [], false]' ]
	arcturn write --dry-run a <<<"A"
	arcturn write --dry-run d/b <<<"B"
	arcturn write --dry-run d/c <<<"C"
	id=$(sess_id)
	jrun discard d/b --yes --json
	assert_success
	[ "$(doc discard '[d["session"], d["discarded"], d["paths"], d["session_removed"]]' <<<"$output")" = "[\"$id\", 1, [\"d/b\"], false]" ]
	[ ! -e "$HOME/.arcturn/overlays/$id/upper/d/b" ]
	jrun discard --json </dev/null
	assert_failure 2
	[ "$(doc discard 'd["error"]["code"]' <<<"$output")" = '"usage"' ]
	jrun --json discard --yes
	assert_success
	[ "$(doc discard '[d["session"], d["discarded"], d["session_removed"], sorted(d["paths"])]' <<<"$output")" = "[\"$id\", 2, true, [\"a\", \"d/c\"]]" ]
	[ ! -e "$HOME/.arcturn/overlays/$id" ]
	jrun discard nowhere --yes --json
	assert_failure 1
	[ "$(doc discard 'd["error"]["path"]' <<<"$output")" = '"nowhere"' ]
}

@test "session list, show, rm --json: one line each, as the text says" {
	jrun session list --json
	assert_success
	[ "$(doc session-list 'd["sessions"]' <<<"$output")" = '[]' ]
	printf 'base\n' >c
	arcturn write --dry-run a <<<"A"
	arcturn write --dry-run c <<<"C"
	arcturn --session zz write --dry-run b <<<"B"
	printf 'user\n' >c
	id=$(sess_id)
	jrun session list --json
	assert_success
	[ "$(doc session-list 'sorted([s["id"], s["pending"], s["workspace"]] for s in d["sessions"])' <<<"$output")" = \
	  "$(python3 -c 'import json,sys; print(json.dumps(sorted([[sys.argv[1], 2, sys.argv[2]], ["zz", 1, sys.argv[2]]])))' "$id" "$WS")" ]
	doc session-list 'd["sessions"][0]["created"]' <<<"$output" | grep -Eq '^"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"$'
	jrun session show --json
	assert_success
	[ "$(doc session-show '[d["id"], d["workspace"], d["pending"], d["interrupted"], d["incomplete"], d["unrecorded"]]' <<<"$output")" = "[\"$id\", \"$WS\", 2, false, false, 0]" ]
	[ "$(doc session-show '[[f["path"], f["status"], f["conflict"]] for f in d["files"]]' <<<"$output")" = '[["a", "added", null], ["c", "modified", "changed since capture"]]' ]
	jrun --json session show zz
	[ "$(doc session-show '[d["id"], d["pending"], d["files"][0]["path"]]' <<<"$output")" = '["zz", 1, "b"]' ]
	jrun session show nope --json
	assert_failure 2
	[ "$(doc session-show 'd["error"]["code"]' <<<"$output")" = '"not_found"' ]
	run arcturn session show nope
	assert_failure 2
	jrun session rm zz --json </dev/null
	assert_failure 2
	[ "$(doc session-rm 'd["error"]["code"]' <<<"$output")" = '"usage"' ]
	[ -d "$HOME/.arcturn/overlays/zz" ]
	jrun session rm --yes zz --json
	assert_success
	[ "$(doc session-rm '[d["id"], d["removed"], d["pending"]]' <<<"$output")" = '["zz", true, 1]' ]
	[ ! -e "$HOME/.arcturn/overlays/zz" ]
	jrun --json session rm zz --yes
	assert_failure 2
	[ "$(doc session-rm 'd["error"]["code"]' <<<"$output")" = '"not_found"' ]
	run arcturn session list --yes
	assert_failure 2
}

@test "a damaged session: session show says damaged; session rm --json removes it" {
	arcturn write --dry-run a <<<"A"
	id=$(sess_id)
	printf '{ "version": 1, "id": ' >"$HOME/.arcturn/overlays/$id/meta.json"
	jrun session show --json
	assert_failure 2
	[ "$(doc session-show 'd["error"]["code"]' <<<"$output")" = '"damaged"' ]
	jrun session list --json
	assert_failure 1
	[ "$(doc session-list 'd["sessions"]' <<<"$output")" = '[]' ]
	jrun session rm "$id" --yes --json
	assert_success
	[ "$(doc session-rm '[d["id"], d["removed"], d["pending"]]' <<<"$output")" = "[\"$id\", true, null]" ]
	[ ! -e "$HOME/.arcturn/overlays/$id" ]
}

@test "write and edit refuse a workspace that is /, the home, the state dir or a system folder; -C DIR is the way out" {
	mkdir -p "$HOME/.arcturn"
	echo a >"$WS/f"
	# control: the path would be writable from there
	(cd / && sh -c "echo c > '${WS#/}/ctl'") && [ -e "$WS/ctl" ]
	cd /
	run -2 arcturn write "${WS#/}/x" <<<"no"
	assert_output "arcturn: write: workspace: /: the root of the file system; refused as a workspace; name the project's folder: arcturn -C DIR write ..."
	run -2 arcturn edit "${WS#/}/f" --old a --new b
	assert_output --partial "arcturn: edit: workspace: /: the root of the file system; refused as a workspace; "
	jrun --json write "${WS#/}/x" <<<"no"
	assert_failure 2
	[ "$(doc write 'd["error"]["code"]' <<<"$output")" = '"usage"' ]
	[ "$(doc write 'd["error"]["hint"]' <<<"$output")" = "\"name the project's folder: arcturn -C DIR write ...\"" ]
	cd "$HOME"
	run -2 arcturn write x <<<"no"
	assert_output --partial "workspace: $HOME: the home directory; refused as a workspace"
	cd "$HOME/.arcturn"
	run -2 arcturn write x <<<"no"
	assert_output --partial "arcturn's state dir (ARCTURN_HOME) or beneath it; refused as a workspace"
	cd /usr
	run -2 arcturn write "../${WS#/}/x" <<<"no"
	assert_output --partial "workspace: /usr: a system folder; refused as a workspace"
	[ ! -e "$WS/x" ]
	[ ! -e "$HOME/x" ]
	[ ! -e "$HOME/.arcturn/x" ]
	assert_equal "$(cat "$WS/f")" a
	# named with -C, from anywhere: it writes; read is not refused
	run -0 arcturn -C "$WS" write x <<<"yes"
	assert_equal "$(cat "$WS/x")" yes
	cd /
	run -0 arcturn read "${WS#/}/f"
	assert_output a
}

@test "write and edit take no path out of the workspace, into the temp dir, by .. or a symlink; exec may write there" {
	echo t >"$TMPDIR/t"
	ln -s "$TMPDIR" lnk
	mkdir d
	run -1 arcturn write "$TMPDIR/new" <<<"no"
	assert_output "arcturn: write: $TMPDIR/new: outside the workspace $WS; write and edit take paths inside it (-C DIR names another workspace)"
	run -1 arcturn write lnk/new <<<"no"
	assert_output --partial "arcturn: write: lnk/new: outside the workspace $WS; write and edit take paths inside it"
	run -1 arcturn write "d/../../tmp/new" <<<"no"
	assert_output --partial "arcturn: write: d/../../tmp/new: outside the"
	run -1 arcturn edit "$TMPDIR/t" --old t --new u
	assert_output --partial "arcturn: edit: $TMPDIR/t: outside the workspace $WS; write and edit take paths inside it"
	run -1 arcturn edit lnk/t --old t --new u
	jrun --json write "$TMPDIR/new" <<<"no"
	assert_failure 1
	[ "$(doc write 'd["error"]["code"]' <<<"$output")" = '"outside_roots"' ]
	[ ! -e "$TMPDIR/new" ]
	assert_equal "$(cat "$TMPDIR/t")" t
	# control: the temp dir is one of exec's writable roots
	run -0 arcturn exec -- sh -c "echo u > '$TMPDIR/t'"
	assert_equal "$(cat "$TMPDIR/t")" u
	# inside, through a symlink that stays inside: written
	ln -s d dl
	run -0 arcturn write dl/in <<<"in"
	assert_equal "$(cat d/in)" in
}
