#!/usr/bin/env bats
# diff --json (the contract's arcturn/diff/v1 document: one line, git's
# modes, null for what is absent) and the pager, which pages a spool after
# the session's lock is let go, so that a writer never waits for less.

load common

setup() { common_setup; }

dw() { ARCTURN_DRY_RUN=1 "$ARCTURN_BIN" write "$@"; }

# The session's upper dir (a dry-run write made the session).
upper() {
	local id
	id=$("$ARCTURN_BIN" --json session show | jq -r .id)
	echo "$HOME/.arcturn/overlays/$id/upper"
}

@test "diff --json: one line, the schema first, git's modes (a symlink is 120000, a directory 040000), null when absent" {
	printf 'a\n' >f
	dw f <<<"b"
	up=$(upper)
	# what a dry-run command leaves: a symlink (bits 0777) and a directory
	ln -s f "$up/l"
	mkdir -m 700 "$up/d"
	echo y >"$up/d/y"
	run arcturn diff
	assert_success
	digest=$(sed -n 's/^digest: //p' <<<"$output")
	[ -n "$digest" ]
	# a global option after the command
	run arcturn diff --json
	assert_success
	[ "${#lines[@]}" = 1 ]
	[[ $output == '{"schema":"arcturn/diff/v1",'* ]]
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["schema"] == "arcturn/diff/v1", d
assert d["digest"] == sys.argv[2], d
assert d["workspace"] == sys.argv[3], d
assert isinstance(d["session"], str) and d["session"], d
# the directory is implied by its file: counted once
assert d["count"] == 3 and isinstance(d["count"], int), d
got = {f["path"]: (f["status"], f["mode_before"], f["mode_after"]) for f in d["files"]}
assert got == {
    "d": ("dir-added", None, "040000"),
    "d/y": ("added", None, "100644"),
    "f": ("modified", "100644", "100644"),
    "l": ("added", None, "120000"),
}, got
for f in d["files"]:
    # every key on every file: absent values are null, never left out
    for k in ("path", "status", "mode_before", "mode_after", "added",
              "removed", "binary", "conflict"):
        assert k in f, (k, f)
    assert f["conflict"] is None, f
    assert isinstance(f["added"], int) and isinstance(f["binary"], bool), f
' "$output" "$digest" "$WS"
	refute_output --partial 120777
	# the view flags change the text only: the same document
	doc=$output
	for flags in "--full --json" "--json --stat" "--name-only --json" "--json --name-status"; do
		run arcturn diff $flags
		assert_success
		[ "$output" = "$doc" ] || { echo "diff $flags: $output"; false; }
	done
	run arcturn --json diff
	[ "$output" = "$doc" ]
}

@test "diff --json PATH: that part only, and no digest (it would not be the set's); nothing pending: no session, no files" {
	run arcturn diff --json
	assert_success
	[ "$(jq -c '[.session, .count, .files]' <<<"$output")" = '[null,0,[]]' ]
	dw f <<<"f"
	dw g <<<"g"
	run arcturn diff --json g
	assert_success
	[ "$(jq -c '[.digest, .count, [.files[].path]]' <<<"$output")" = '[null,1,["g"]]' ]
	run arcturn diff --json
	[ "$(jq -r .digest <<<"$output")" = "$(arcturn diff | sed -n 's/^digest: //p')" ]
}

@test "diff --json: a changed real file is a conflict in the document; errors are one error document" {
	printf 'one\n' >f
	dw f <<<"tool"
	printf 'mine\n' >f
	run arcturn diff --json
	assert_success
	[ "$(jq -r '.files[0].conflict' <<<"$output")" = "changed since capture" ]
	run arcturn diff --json --nosuch
	assert_failure 2
	[ "${#lines[@]}" -ge 1 ]
	doc=$(arcturn diff --json --nosuch 2>/dev/null || true)
	[ "$(jq -c '[.schema, .error.code]' <<<"$doc")" = '["arcturn/diff/v1","usage"]' ]
	run arcturn diff --json nothere
	assert_failure 1
	doc=$(arcturn diff --json nothere 2>/dev/null || true)
	[ "$(jq -c .error <<<"$doc")" = '{"code":"refused","message":"diff: nothere: no pending change there","path":"nothere"}' ]
}

# Wait up to 10 s for a file to appear.
await() {
	local i=0
	while [ ! -e "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$1" ]
}

@test "the pager holds no lock: a dry-run write completes while the user still reads the diff" {
	command -v script >/dev/null || skip "no script(1) to give diff a terminal"
	dw f <<<"x"
	# a pager that reads its input, then waits for the test to let it go
	cat >"$T/pager" <<-EOF
	#!/bin/sh
	cat >"$T/paged"
	ls -A "$TMPDIR" >"$T/tmpdir"
	: >"$T/pager-up"
	i=0
	while [ ! -e "$T/go" ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i + 1)); done
	EOF
	chmod +x "$T/pager"
	PAGER="$T/pager" script -qec "'$ARCTURN_BIN' diff --color=never" /dev/null \
	    </dev/null >"$T/term" 2>&1 &
	pid=$!
	await "$T/pager-up" || { kill "$pid"; cat "$T/term"; false; }
	# the writer takes the session's lock exclusively: it must not wait
	run timeout 10 "$ARCTURN_BIN" write --dry-run f <<<"y"
	status_write=$status
	kill -0 "$pid"		# the pager still runs
	: >"$T/go"
	wait "$pid"
	[ "$status_write" = 0 ] || { echo "write: $output"; false; }
	# the pager got the whole diff; the spool was never a name in TMPDIR
	grep -qx '+x' "$T/paged"
	grep -q '^digest: ' "$T/paged"
	run ! grep -q arcturn "$T/tmpdir"
	[ "$(ARCTURN_DRY_RUN=1 arcturn read f)" = y ]
}

@test "an empty PAGER or cat: no pager, the diff goes to the terminal; the session is let go after" {
	command -v script >/dev/null || skip "no script(1) to give diff a terminal"
	dw f <<<"x"
	run env PAGER= script -qec "'$ARCTURN_BIN' diff --color=never" /dev/null
	assert_success
	assert_line --partial "+x"
	assert_line --partial "digest: "
	run env PAGER=cat script -qec "'$ARCTURN_BIN' diff --color=never" /dev/null
	assert_line --partial "+x"
	# the session is not held once the diff was paged: apply goes through
	run env PAGER=cat script -qec "'$ARCTURN_BIN' diff --color=never" /dev/null
	run arcturn apply --yes
	assert_success
	[ "$(cat f)" = x ]
}
