#!/usr/bin/env bats
# The one write check (src/policy/writecheck.h, policy_may_write) against
# each writer: write, edit, apply, undo, undo --force, rewind, exec
# --checkpoint and the MCP file tools. The hostile layouts: a symlinked
# folder inside the workspace that leads into .git or into .git/hooks, a
# folder swapped for such a symlink between the check and the use (made
# deterministic with strace: every openat2 is held 0.3 s and the swap
# happens while one is held), "..", absolute paths, NUL and control
# characters (MCP), over-long names. Each refusal has a control: the same
# operation on a harmless layout (the symlink leads to the folder
# `other`) works, so that no test passes because the attack broke.

load common

setup() {
	common_setup
	git init -q .
	mkdir -p d other
	printf '#!/bin/sh\necho hooked\n' >"$T/hook"
	ORIG=$(sha256sum <.git/config)
}

# The git config is as git init left it, and no hook was planted.
git_intact() {
	[ "$(sha256sum <.git/config)" = "$ORIG" ] ||
		fail ".git/config changed: $(cat .git/config)"
	[ ! -e .git/hooks/pre-commit ] || fail ".git/hooks/pre-commit exists"
}

have_dry_exec() {
	"$ARCTURN_BIN" sandbox status --json | grep -q '"dry_run_exec":true' ||
		skip "exec --dry-run unavailable here: $("$ARCTURN_BIN" sandbox status | grep dry-run)"
}

have_strace() {
	command -v strace >/dev/null || skip "strace is not installed"
	strace -f -qq -o /dev/null -e trace=openat2 true 2>/dev/null ||
		skip "strace cannot trace here"
}

# Run arcturn "$@" under strace, every openat2 held 0.3 s; once the Nth
# traced call (open, openat, openat2) whose line holds the text PAT has
# returned, replace d with a symlink to TO: while the next openat2 is
# held. Status and output as `run` gives them.
race() {	# N PAT TO arcturn-args...
	local n=$1 pat=$2 to=$3 log=$T/strace.log pid i
	shift 3
	: >"$log"
	strace -f -qq -o "$log" -e trace=open,openat,openat2 \
	    -e inject=openat2:delay_enter=300000 "$ARCTURN_BIN" "$@" \
	    <&0 >"$T/race.out" 2>&1 &
	pid=$!
	# a bound, not a timing: each openat2 before the point is held too
	for i in $(seq 6000); do
		[ "$(grep -cF -- "$pat" "$log")" -ge "$n" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	[ "$(grep -cF -- "$pat" "$log")" -ge "$n" ] ||
		fail "the race point never came: $(cat "$log")"
	mv d d.real && ln -s "$to" d
	status=0
	wait "$pid" || status=$?
	output=$(cat "$T/race.out")
}

# ---- write and edit ----

@test "write: a symlinked folder into .git or .git/hooks is refused; to a plain folder it works" {
	ln -s .git cfg
	ln -s .git/hooks h
	run arcturn write cfg/config <<<'[core]
	fsmonitor = "touch pwned"'
	assert_failure 1
	assert_output --partial 'cfg/config: protected path'
	run arcturn write h/pre-commit <"$T/hook"
	assert_failure 1
	assert_output --partial 'h/pre-commit: protected path'
	git_intact
	# control
	ln -s other h2
	run arcturn write h2/pre-commit <"$T/hook"
	assert_success
	cmp "$T/hook" other/pre-commit
}

@test "write: '..', absolute paths, over-long names are refused; the plain forms work" {
	run arcturn write d/../.git/config <<<x
	assert_failure
	run arcturn write "$WS/.git/hooks/pre-commit" <"$T/hook"
	assert_failure
	assert_output --partial 'protected path'
	run arcturn write ../outside/x <<<x
	assert_failure
	assert_output --partial 'outside the workspace'
	run arcturn write "$OUT/x" <<<x
	assert_failure
	[ ! -e "$OUT/x" ]
	git_intact
	long=$(printf 'x%.0s' $(seq 256))
	run arcturn write "d/$long" <<<x
	assert_failure
	[ -z "$(ls d)" ]
	# controls
	run arcturn write d/../d/a <<<x
	assert_success
	run arcturn write "$WS/d/b" <<<x
	assert_success
	run arcturn write "d/${long:1}" <<<x
	assert_success
	[ "$(ls d | wc -l)" = 3 ]
}

@test "edit: through a symlinked folder into .git/hooks is refused; to a plain folder it works" {
	printf 'echo old\n' >.git/hooks/pre-commit
	printf 'echo old\n' >other/pre-commit
	ln -s .git/hooks h
	run arcturn edit h/pre-commit --old old --new hooked
	assert_failure 1
	assert_output --partial 'protected path'
	[ "$(cat .git/hooks/pre-commit)" = 'echo old' ]
	ln -s other h2
	run arcturn edit h2/pre-commit --old old --new hooked
	assert_success
	[ "$(cat other/pre-commit)" = 'echo hooked' ]
}

@test "write: d swapped for a symlink to .git/hooks between the check and the open is refused; to other it lands there" {
	have_strace
	# after the lexical check write opens the workspace root, then d/
	race 1 "openat(AT_FDCWD, \"$WS\", " .git/hooks write d/pre-commit <"$T/hook"
	assert_failure 1
	assert_output --partial 'protected path'
	git_intact
	[ ! -e d.real/pre-commit ]
	# control: the same swap, to a plain folder
	rm d && mv d.real d
	race 1 "openat(AT_FDCWD, \"$WS\", " other write d/pre-commit <"$T/hook"
	assert_success
	cmp "$T/hook" other/pre-commit
}

# ---- apply ----

@test "apply: a folder made a symlink into .git/hooks after the capture is refused; into other it lands there" {
	run arcturn write --dry-run d/pre-commit <"$T/hook"
	assert_success
	rmdir d && ln -s .git/hooks d
	run arcturn apply --yes
	assert_failure 1
	assert_output --partial 'd/pre-commit: protected path; refused'
	git_intact
	rm d && ln -s other d
	run arcturn apply --yes
	assert_success
	cmp "$T/hook" other/pre-commit
}

@test "apply: the parent swapped for a symlink to .git/hooks after the veto, before the open, is refused; to other it lands there" {
	have_strace
	run arcturn write --dry-run d/pre-commit <"$T/hook"
	assert_success
	# the engine's open of d/ is apply's first openat2 of d/
	race 1 'openat2(' .git/hooks apply --yes
	assert_failure 1
	assert_output --partial 'd/pre-commit: protected path; refused'
	git_intact
	[ ! -e d.real/pre-commit ]
	rm d && mv d.real d
	race 1 'openat2(' other apply --yes
	assert_success
	cmp "$T/hook" other/pre-commit
}

# ---- undo, rewind ----

# Turn 1 writes cfg/config with an fsmonitor; turn 2 puts git's own back.
two_turns() {
	mkdir cfg
	{ cat .git/config; printf '[core]\n\tfsmonitor = "touch pwned"\n'; } >"$T/evil"
	arcturn write cfg/config <"$T/evil"
	arcturn write cfg/config <.git/config
}

@test "undo and rewind: cfg made a symlink to .git is refused (issue 25, 2); to other too (nothing is written through a link); a folder again, it restores there" {
	two_turns
	rm -r cfg && ln -s .git cfg
	run arcturn undo
	assert_failure 1
	assert_output --partial 'cfg/config: a folder above it is a symlink now (nothing is written through one); refused'
	git_intact
	run arcturn rewind 2
	assert_failure 1
	git_intact
	run arcturn undo --force
	assert_failure 1
	git_intact
	# the same layout into a plain folder: refused the same way
	cp .git/config other/config
	rm cfg && ln -s other cfg
	run arcturn undo
	assert_failure 1
	cmp .git/config other/config
	# control: cfg a folder again, the undo restores there
	rm cfg && mkdir cfg && cp .git/config cfg/config
	run arcturn undo
	assert_success
	cmp "$T/evil" cfg/config
}

@test "undo --force: through a symlinked folder into .git/hooks is refused; into other it restores there" {
	arcturn write d/pre-commit <"$T/hook"
	chmod 0755 d/pre-commit
	arcturn write d/pre-commit <"$T/hook"
	echo x | arcturn write d/pre-commit
	rm -r d && ln -s .git/hooks d
	run arcturn undo --force
	assert_failure 1
	assert_output --partial 'd/pre-commit: a folder above it is a symlink now (nothing is written through one); refused'
	git_intact
	rm d && ln -s other d
	run arcturn undo --force
	assert_failure 1
	[ ! -e other/pre-commit ]
	# control: d a folder again, the undo restores there
	rm d && mkdir d
	run arcturn undo --force
	assert_success
	cmp "$T/hook" d/pre-commit
	[ -x d/pre-commit ]
}

@test "undo: d swapped for a symlink to .git/hooks after the check, before the engine's open, is refused; to other it restores there" {
	have_strace
	arcturn write d/pre-commit <"$T/hook"
	echo x | arcturn write d/pre-commit
	# what turn 2 left, where the swap leads: no conflict there
	echo x >.git/hooks/pre-commit
	echo x >other/pre-commit
	# undo opens d to check it (no link followed, then its canonical
	# path), to snapshot what is there (the third), then the engine
	# opens it again (openat2, delayed): the swap comes between
	race 3 '"d", O_RDONLY|' .git/hooks undo
	assert_failure 1
	assert_output --partial 'protected path; refused'
	[ "$(cat .git/hooks/pre-commit)" = x ]
	[ "$(cat d.real/pre-commit)" = x ]
	rm d && mv d.real d
	race 3 '"d", O_RDONLY|' other undo
	assert_success
	cmp "$T/hook" other/pre-commit
}

# ---- exec --checkpoint ----

@test "exec --checkpoint: a write through a symlink into .git/hooks does not land; through one into other it does" {
	have_dry_exec
	ln -s .git/hooks h
	ln -s other h2
	run arcturn exec --checkpoint -- sh -c 'cat "$1" >h/pre-commit' sh "$T/hook"
	assert_failure
	git_intact
	run arcturn exec --checkpoint -- sh -c 'cat "$1" >h2/pre-commit' sh "$T/hook"
	assert_success
	cmp "$T/hook" other/pre-commit
}

# ---- MCP ----

mcp_lines() {	# tool-call JSON lines after the handshake
	printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bats","version":"1"}}}' \
	    '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$@"
}

mcp_call() {	# id tool args-json
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}' "$1" "$2" "$3"
}

reply() {	# id filter
	jq -c "select(.id == $1) | $2" "$T/out"
}

@test "MCP write_file and edit_file: symlinked folders into .git are refused; into other they work" {
	command -v jq >/dev/null || fail "jq is missing"
	ln -s .git/hooks h
	ln -s .git cfg
	ln -s other h2
	printf 'echo old\n' >other/pre-commit
	mcp_lines "$(mcp_call 1 write_file '{"path":"h/pre-commit","content":"echo hooked\n"}')" \
	    "$(mcp_call 2 write_file '{"path":"cfg/config","content":"[core]\n\tfsmonitor = x\n"}')" \
	    "$(mcp_call 3 edit_file '{"path":"cfg/config","edits":[{"oldText":"[core]","newText":"[core]\n\tfsmonitor = x"}]}')" \
	    "$(mcp_call 4 write_file '{"path":"h2/new","content":"ok\n"}')" \
	    "$(mcp_call 5 edit_file '{"path":"h2/pre-commit","edits":[{"oldText":"old","newText":"new"}]}')" |
	    python3 "$BATS_TEST_DIRNAME/mcp_drive.py" "$ARCTURN_BIN" mcp >"$T/out" 2>"$T/err"
	[ "$(reply 1 .result.isError)" = true ]
	[ "$(reply 2 .result.isError)" = true ]
	[ "$(reply 3 .result.isError)" = true ]
	reply 1 .result.content | grep -q 'protected path'
	git_intact
	[ "$(reply 4 .result.isError)" != true ]
	[ "$(reply 5 .result.isError)" != true ]
	[ "$(cat other/new)" = ok ]
	[ "$(cat other/pre-commit)" = 'echo new' ]
}

@test "MCP: a path with \\u0000 or a control character is an error and writes nothing; the plain path works" {
	command -v jq >/dev/null || fail "jq is missing"
	printf 'important\n' >important.txt
	mcp_lines "$(mcp_call 1 write_file '{"path":"important.txt\u0000.bak","content":"gone\n"}')" \
	    "$(mcp_call 2 write_file '{"path":"important.txt\u0001","content":"gone\n"}')" \
	    "$(mcp_call 3 write_file '{"path":"x\\u0000y","content":"ok\n"}')" \
	    "$(mcp_call 4 write_file '{"path":"d/ok","content":"ok\n"}')" |
	    python3 "$BATS_TEST_DIRNAME/mcp_drive.py" "$ARCTURN_BIN" mcp >"$T/out" 2>"$T/err"
	# argument errors are tool results the model can act on (isError)
	[ "$(reply 1 .result.isError)" = true ]
	reply 1 .result.content | grep -q 'path'
	[ "$(reply 2 .result.isError)" = true ]
	[ "$(cat important.txt)" = important ]
	[ ! -e important.txt.bak ]
	# an escaped backslash before u0000 is no NUL: a plain name
	[ "$(reply 3 .result.isError)" != true ]
	[ "$(cat 'x\u0000y')" = ok ]
	[ "$(reply 4 .result.isError)" != true ]
	[ "$(cat d/ok)" = ok ]
}
