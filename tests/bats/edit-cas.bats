#!/usr/bin/env bats
# edit as a compare-and-swap: the file is replaced only while it still
# holds what edit read; a save of the user's in between is never
# overwritten (exit 1, `changed while editing; not written`).
#
# ARCTURN_TEST_EDIT_PAUSE_MS makes edit sleep right before it swaps its
# new file in (fsx_replace_if); its temp file is there by then, so the
# test knows when to write.

load common

setup() { common_setup; }

# Start `arcturn edit ARGS...` paused before its swap; wait until its
# temp file is made (the pause has begun). Sets pid; output in $T/edit.
edit_paused() {
	local i=0
	case $1 in strace) ;; *) set -- "$ARCTURN_BIN" "$@" ;; esac
	ARCTURN_TEST_EDIT_PAUSE_MS=3000 "$@" >"$T/edit" 2>&1 &
	pid=$!
	while ! ls -A . | grep -q '^\.arcturn-tmp-'; do
		i=$((i + 1))
		[ $i -lt 200 ] || { kill "$pid"; cat "$T/edit"; return 1; }
		sleep 0.05
	done
}

# Wait for the edit; its exit status in rc.
edit_done() {
	rc=0
	wait "$pid" || rc=$?
	cat "$T/edit"
}

no_temp_left() {
	if ls -A . | grep -q '^\.arcturn-\(tmp\|swp\)-'; then
		echo "a temp file is left: $(ls -A .)" >&2
		return 1
	fi
}

@test "the user saves in place while edit works: theirs stays, edit exits 1 and says so" {
	printf 'one\ntwo\n' >f
	edit_paused edit f --old one --new ONE
	printf 'mine\n' >f
	edit_done
	[ "$rc" = 1 ]
	[ "$(cat "$T/edit")" = "arcturn: edit: f: changed while editing; not written" ]
	[ "$(cat f)" = mine ]
	no_temp_left
}

@test "the user's editor saves by rename while edit works: theirs stays" {
	printf 'one\ntwo\n' >f
	chmod 640 f
	edit_paused edit f --old two --new TWO
	printf 'one\ntwo\nthree\n' >f.new
	mv f.new f
	edit_done
	[ "$rc" = 1 ]
	[ "$(cat f)" = "$(printf 'one\ntwo\nthree')" ]
	no_temp_left
}

@test "edit killed between its swap and the swap back: the user's save it moved aside stays, and a later write leaves it" {
	command -v strace >/dev/null || skip "strace is not installed"
	printf 'one\ntwo\n' >f
	# strace kills edit at its fourth renameat2: its checkpoint blob's,
	# the swap name's, the exchange, then the exchange back
	edit_paused strace -f -qq -o /dev/null \
		-e inject=renameat2:signal=KILL:when=4 "$ARCTURN_BIN" edit f --old one --new ONE
	printf 'mine\n' >f.new
	mv f.new f
	edit_done
	# the premise: ours in place, the user's save aside
	[ "$(cat f)" = "$(printf 'ONE\ntwo')" ]
	run grep -l mine .arcturn-swp-*
	assert_success
	aside=$output
	arcturn write g <<<"x"
	assert_equal "$(cat "$aside")" mine
	assert_equal "$(cat g)" x
}

@test "a chmod while edit works is a change too; --json says conflict" {
	printf 'one\n' >f
	chmod 644 f
	edit_paused --json edit f --old one --new ONE
	chmod 755 f
	edit_done
	[ "$rc" = 1 ]
	doc=$(grep '^{' "$T/edit")
	[ "$(jq -c '[.schema, .error.code, .error.path]' <<<"$doc")" = '["arcturn/edit/v1","conflict","f"]' ]
	grep -qx "arcturn: edit: f: changed while editing; not written" "$T/edit"
	[ "$(cat f)" = one ]
	[ -x f ]
	no_temp_left
}

@test "nothing changes meanwhile: the paused edit lands, mode kept" {
	printf 'one\ntwo\n' >f
	chmod 600 f
	edit_paused edit f --old one --new ONE
	edit_done
	[ "$rc" = 0 ]
	[ "$(cat f)" = "$(printf 'ONE\ntwo')" ]
	[ "$(stat -c %a f)" = 600 ]
	no_temp_left
}

@test "MCP edit_file: a save of the user's while it writes stays; the call is an error" {
	command -v jq >/dev/null || skip "jq is missing"
	git init -q .
	printf 'one\ntwo\n' >f
	{
		jq -cn '{jsonrpc: "2.0", id: 0, method: "initialize",
			params: {protocolVersion: "2025-06-18", capabilities: {},
			clientInfo: {name: "bats", version: "1"}}}'
		jq -cn '{jsonrpc: "2.0", id: 1, method: "tools/call",
			params: {name: "edit_file", arguments: {path: "f",
			edits: [{oldText: "one", newText: "ONE"}]}}}'
	} | ARCTURN_TEST_EDIT_PAUSE_MS=3000 python3 "$BATS_TEST_DIRNAME/mcp_drive.py" \
	    "$ARCTURN_BIN" mcp >"$T/out" 2>"$T/err" &
	pid=$!
	i=0
	while ! ls -A . | grep -q '^\.arcturn-tmp-'; do
		i=$((i + 1))
		[ $i -lt 200 ] || { kill "$pid"; cat "$T/out" "$T/err"; false; }
		sleep 0.05
	done
	printf 'mine\n' >f
	wait "$pid"
	[ "$(cat f)" = mine ]
	[ "$(jq -c 'select(.id == 1) | [.result.isError, .result.content[0].text]' "$T/out")" = \
	  '[true,"arcturn: write: f: changed while editing; not written"]' ] || { cat "$T/out"; false; }
	no_temp_left
}

@test "write --expect-sha256 lands only over that content, in the real tree and in a session" {
	printf 'one\n' >f
	sum=$(sha256sum f | cut -c1-64)
	zero=$(printf '0%.0s' $(seq 64))
	run arcturn write --expect-sha256 "$zero" f <<<"two"
	assert_failure 1
	assert_output "arcturn: write: f: changed while editing; not written"
	[ "$(cat f)" = one ]
	run arcturn write --expect-sha256 nothex f <<<"two"
	assert_failure 2
	assert_line --index 0 "arcturn: write: --expect-sha256: nothex: not a SHA-256 (64 lower-case hex digits)"
	[ "$(cat f)" = one ]
	# a missing file holds nothing: no write creates it
	run arcturn write --expect-sha256 "$sum" g <<<"two"
	assert_failure 1
	[ ! -e g ]
	run arcturn write --expect-sha256 "$sum" f <<<"two"
	assert_success
	[ "$(cat f)" = two ]
	# a session: compared through its view, under its lock
	sum=$(sha256sum f | cut -c1-64)
	run arcturn write --dry-run --expect-sha256 "$zero" f <<<"three"
	assert_failure 1
	[ "$(ARCTURN_DRY_RUN=1 arcturn read f)" = two ]
	run arcturn write --dry-run --expect-sha256 "$sum" f <<<"three"
	assert_success
	[ "$(ARCTURN_DRY_RUN=1 arcturn read f)" = three ]
	[ "$(cat f)" = two ]
	# the variable that carried it before is no channel any more
	ARCTURN_WRITE_OVER_SHA256=$zero arcturn write f <<<"four"
	[ "$(cat f)" = four ]
	no_temp_left
}
