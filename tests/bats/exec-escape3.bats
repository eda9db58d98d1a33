#!/usr/bin/env bats
# Escapes of issue 25 that arcturn closes before any backend starts, so
# that they hold on every backend: a grant that holds the workspace, the
# state dir or the user config (item 6); the caller's session keyring
# (item 5); core dumps, setuid/setgid bits and file capabilities left by a
# root command, control characters in `diff` on a terminal (item 10).
# Each attack runs under helper, helper-landlock and bwrap (those this
# machine has), as root and as the unprivileged user tests/run uses, next
# to a control that shows the channel works without arcturn.

load common
load exec_helpers

setup_file() { probe_machine; }
setup() {
	common_setup
	UC=$HOME/.config/arcturn/config.json
}

# ---------------------------------------------------------------------
# Item 6: a grant that holds the workspace lets the command rename the
# workspace away and put its own (with a hostile .git/config) in its
# place; one that holds the state dir or the user config, the same with
# those. exec refuses such a grant (125) before anything runs.

# The attack, as a script: move the parent's child DIR aside, make a new
# one with a file in it.
REPLACE='mv "$1" "$1.old" && mkdir "$1" && echo pwned > "$1/mark"'

# control: without arcturn the rename-and-replace works on a copy
replace_works_outside() {
	mkdir -p "$T/copy/ws"
	run -0 sh -c "$REPLACE" sh "$T/copy/ws"
	assert_equal "$(cat "$T/copy/ws/mark")" pwned
}

t_grant_holds_workspace() {
	use_backend "$1"
	replace_works_outside
	echo keep >"$WS/f"
	run --separate-stderr arcturn exec --grant "$T" -- sh -c "$REPLACE" sh "$WS"
	assert_equal "$status" 125
	assert_equal "$stderr" "arcturn: exec: grant: $T: holds the workspace $WS; refused: a command could move it aside and put its own in its place (grant narrower folders beside it instead)"
	assert_equal "$(cat "$WS/f")" keep
	[ ! -e "$WS.old" ]
	[ ! -e "$WS/mark" ]
	# the workspace itself as a grant: refused the same way
	run --separate-stderr arcturn exec --grant "$WS" -- true
	assert_equal "$status" 125
	assert_equal "$stderr" "arcturn: exec: grant: $WS: is the workspace; refused: a command could move it aside and put its own in its place (grant narrower folders beside it instead)"
	# a grant beside it still works
	mkdir "$T/beside"
	run -0 arcturn exec --grant "$T/beside" -- sh -c 'echo in > "$1/f"' sh "$T/beside"
	assert_equal "$(cat "$T/beside/f")" in
}

t_grant_config_holds_workspace() {
	use_backend "$1"
	mkdir -p "${UC%/*}"
	printf '{"grants": ["%s"]}\n' "$T" >"$UC"
	run --separate-stderr arcturn exec -- sh -c "$REPLACE" sh "$WS"
	assert_equal "$status" 125
	assert_equal "$stderr" "arcturn: exec: grant: $T: holds the workspace $WS; refused: a command could move it aside and put its own in its place (grant narrower folders beside it instead)"
	[ ! -e "$WS.old" ]
	# sandbox status warns the same, and still reports
	run -0 --separate-stderr arcturn sandbox status
	assert_equal "$stderr" "arcturn: warning: exec refuses to run: grant: $T: holds the workspace $WS; refused: a command could move it aside and put its own in its place (grant narrower folders beside it instead)"
	# read-only mode writes no grant: nothing to refuse
	run -0 arcturn exec --sandbox read-only -- true
}

t_grant_holds_state() {
	use_backend "$1"
	mkdir -p "$T/st/arcturn"
	export ARCTURN_HOME=$T/st/arcturn
	run -0 arcturn exec -- true	# the state dir exists now
	[ -d "$T/st/arcturn" ]
	run --separate-stderr arcturn exec --grant "$T/st" -- sh -c "$REPLACE" sh "$T/st/arcturn"
	assert_equal "$status" 125
	assert_equal "$stderr" "arcturn: exec: grant: $T/st: holds arcturn's state dir $T/st/arcturn; refused: a command could move it aside and put its own in its place (grant narrower folders beside it instead)"
	[ ! -e "$T/st/arcturn.old" ]
	# the default state dir ~/.arcturn: a grant of ~ holds it
	unset ARCTURN_HOME
	run --separate-stderr arcturn exec --grant '~' -- sh -c "$REPLACE" sh "$HOME/.arcturn"
	assert_equal "$status" 125
	assert_equal "$stderr" "arcturn: exec: grant: $HOME: holds arcturn's state dir $HOME/.arcturn; refused: a command could move it aside and put its own in its place (grant narrower folders beside it instead)"
	[ ! -e "$HOME/.arcturn.old" ]
}

t_grant_holds_config() {
	use_backend "$1"
	# a missing grant beneath home (made only for a run) is checked too
	[ ! -e "$HOME/.config" ]
	run --separate-stderr arcturn exec --grant '~/.config' -- true
	assert_equal "$status" 125
	assert_equal "$stderr" "arcturn: exec: grant: $HOME/.config: holds the user config $UC; refused: a command could move it aside and put its own in its place (grant narrower folders beside it instead)"
	[ ! -e "$HOME/.config" ]	# refused before it was made
	mkdir -p "${UC%/*}"
	echo '{}' >"$UC"
	run --separate-stderr arcturn exec --grant "$HOME/.config/arcturn" -- \
	    sh -c 'echo "{\"sandbox\": \"off\"}" > "$1"' sh "$UC"
	assert_equal "$status" 125
	assert_equal "$(cat "$UC")" '{}'
	# control: the same write without arcturn goes through
	run -0 sh -c 'echo "{\"sandbox\": \"off\"}" > "$1"' sh "$T/uc-copy"
}

@test "helper: a grant holding the workspace is refused (125), one beside it works" { t_grant_holds_workspace helper; }
@test "helper-landlock: a grant holding the workspace is refused (125), one beside it works" { t_grant_holds_workspace helper-landlock; }
@test "bwrap: a grant holding the workspace is refused (125), one beside it works" { t_grant_holds_workspace bwrap; }
@test "helper: a config grant holding the workspace is refused; status warns" { t_grant_config_holds_workspace helper; }
@test "bwrap: a config grant holding the workspace is refused; status warns" { t_grant_config_holds_workspace bwrap; }
@test "helper: a grant holding the state dir (ARCTURN_HOME or ~/.arcturn) is refused" { t_grant_holds_state helper; }
@test "helper-landlock: a grant holding the state dir is refused" { t_grant_holds_state helper-landlock; }
@test "bwrap: a grant holding the state dir (ARCTURN_HOME or ~/.arcturn) is refused" { t_grant_holds_state bwrap; }
@test "helper: a grant holding the user config is refused, a missing one too" { t_grant_holds_config helper; }
@test "bwrap: a grant holding the user config is refused, a missing one too" { t_grant_holds_config bwrap; }

# ---------------------------------------------------------------------
# Item 5: the caller's session keyring. The test joins a new session
# keyring of its own (keyctl session -), puts a key there, and checks
# that a plain child reads it (control) and a confined one can neither
# read, update, revoke nor link it; the key is unchanged afterwards. A
# command's own keyring works.

need_keyctl() {
	command -v keyctl >/dev/null || skip "keyctl missing (Debian: keyutils)"
}

t_keyring() {
	use_backend "$1"
	need_keyctl
	cat >"$T/k.sh" <<'SH'
id=$(keyctl add user arcturn-test s3cret @s) || exit 1
echo "control: $(sh -c "keyctl print $id")"
"$ARCTURN_BIN" exec $XF -- sh -c '
	for op in "print $1" "update $1 pwned" "revoke $1" "link $1 @s" \
	    "setperm $1 0x3f3f0000" "unlink $1 @u"; do
		if keyctl $op >/dev/null 2>&1; then echo "ESCAPED: $op"; else echo "refused: $op"; fi
	done' sh "$id"
echo "rc=$?"
echo "after: $(keyctl print "$id")"
SH
	XF=${2:-} run keyctl session - sh "$T/k.sh"
	echo "$output"
	assert_success
	assert_line "control: s3cret"
	assert_line "rc=0"
	refute_output --partial ESCAPED
	[ "$(grep -c '^refused: ' <<<"$output")" -eq 6 ]
	assert_line "after: s3cret"
}

t_own_keyring() {
	use_backend "$1"
	need_keyctl
	run -0 arcturn exec -- sh -c 'id=$(keyctl add user mine v1 @s) &&
	    keyctl update "$id" v2 && keyctl print "$id"'
	assert_output v2
}

@test "helper: the caller's session keyring is out of reach" { t_keyring helper; }
@test "helper-landlock: the caller's session keyring is out of reach" { t_keyring helper-landlock; }
@test "bwrap: the caller's session keyring is out of reach" { t_keyring bwrap; }
@test "helper: the caller's session keyring is out of reach in a dry run" { t_keyring helper --dry-run; }
@test "helper: the command's own session keyring works" { t_own_keyring helper; }
@test "helper-landlock: the command's own session keyring works" { t_own_keyring helper-landlock; }
@test "bwrap: the command's own session keyring works" { t_own_keyring bwrap; }

# ---------------------------------------------------------------------
# Item 10: a crashing command dumps no core (RLIMIT_CORE hard 0, which it
# cannot raise); root's command leaves no setuid/setgid file nor file
# capability behind (refused: EPERM), in the workspace or the temp dir.

t_core_limit() {
	use_backend "$1"
	# control: outside arcturn the hard limit can be above 0
	run -0 sh -c 'ulimit -H -c unlimited 2>/dev/null || ulimit -H -c 1 2>/dev/null; ulimit -H -c'
	refute_output 0
	run -0 arcturn exec ${2:-} -- sh -c 'ulimit -H -c; ulimit -S -c'
	assert_output "0
0"
	run arcturn exec ${2:-} -- sh -c 'ulimit -c 1'
	assert_failure
	run -0 arcturn exec ${2:-} -- sh -c 'ulimit -H -c'
	assert_output 0
}

@test "helper: the command's core dump limit is 0, hard too" { t_core_limit helper; }
@test "helper: the command's core dump limit is 0 in a dry run" { t_core_limit helper --dry-run; }
@test "helper-landlock: the command's core dump limit is 0, hard too" { t_core_limit helper-landlock; }
@test "bwrap: the command's core dump limit is 0, hard too" { t_core_limit bwrap; }

# The ways root could make a setuid/setgid file or give one capabilities
# (s8: openat2 with O_CREAT, whose mode no filter can read: the command
# gets ENOSYS for openat2, as from a kernel before 5.6).
suid_ops() {
	local d=$1
	printf '%s\n' "cp /bin/true '$d/s1' && chmod u+s '$d/s1'" \
	    "cp /bin/true '$d/s2' && chmod g+s '$d/s2'" \
	    "cp /bin/true '$d/s3' && chmod 4755 '$d/s3'" \
	    "python3 -c 'import os; os.close(os.open(\"$d/s4\", os.O_CREAT | os.O_WRONLY, 0o6755))'" \
	    "python3 -c 'import os; open(\"$d/s5\", \"w\").close(); os.chmod(\"$d/s5\", 0o4755)'" \
	    "python3 -c 'import os; fd = os.open(\"$d/s6\", os.O_CREAT | os.O_WRONLY, 0o755); os.fchmod(fd, 0o2755)'" \
	    "install -m 4755 /bin/true '$d/s7'" \
	    "python3 -c 'import ctypes, os, struct; l = ctypes.CDLL(None, use_errno=True); h = ctypes.create_string_buffer(struct.pack(\"QQQ\", os.O_CREAT | os.O_WRONLY, 0o4755, 0)); fd = l.syscall(ctypes.c_long(437), ctypes.c_long(-100), b\"$d/s8\", h, ctypes.c_long(24)); assert fd >= 0, os.strerror(ctypes.get_errno())'"
	if command -v setcap >/dev/null; then
		echo "cp /bin/true '$d/c1' && setcap cap_net_raw+ep '$d/c1'"
	fi
}

# Nothing with a setuid/setgid bit or a capability beneath DIR.
no_suid_left() {
	assert_equal "$(find "$1" -perm /6000 -type f)" ""
	if command -v getcap >/dev/null; then
		assert_equal "$(getcap -r "$1" 2>/dev/null)" ""
	fi
}

t_setuid() {
	use_backend "$1"
	is_root || skip "setuid files and file capabilities of another owner are root's"
	local ops=()
	mapfile -t ops < <(suid_ops "$T/ctl")
	# control: each works as root without arcturn
	mkdir "$T/ctl"
	local op n=0
	for op in "${ops[@]}"; do
		sh -c "$op"
		n=$((n + 1))
	done
	[ "$(find "$T/ctl" -perm /6000 -type f | wc -l)" -eq 8 ]
	if command -v setcap >/dev/null; then
		[ -n "$(getcap "$T/ctl/c1")" ]
	fi
	XFLAGS=()
	[ -z "${2:-}" ] || XFLAGS=("$2")
	mapfile -t ops < <(suid_ops "$WS")
	DENIED='Operation not permitted|Operation not supported|Function not implemented' try_all "${ops[@]}"
	no_suid_left "$WS"
	mapfile -t ops < <(suid_ops "$TMPDIR")
	DENIED='Operation not permitted|Operation not supported|Function not implemented' try_all "${ops[@]}"
	no_suid_left "$TMPDIR"
	# everyday modes still work
	must_work 'cp /bin/true x && chmod 755 x && chmod +t . && chmod -t . && install -m 700 /bin/true y && mkdir -m 755 d && cp -a y z && cp -p y w && tar -cf t.tar x y && mkdir e && tar -C e -xpf t.tar && ./x'
	# a dry run's changes land (apply runs as arcturn, unfiltered)
	[ -z "${2:-}" ] || run -0 arcturn apply --yes
	no_suid_left "$WS"
	assert_equal "$(stat -c %a "$WS/x")" 755
}

@test "helper: root's command cannot leave setuid/setgid files or file capabilities" { t_setuid helper; }
@test "helper: the same in a dry run" { t_setuid helper --dry-run; }
@test "helper-landlock: root's command cannot leave setuid/setgid files or file capabilities" { t_setuid helper-landlock; }
@test "bwrap: root's command cannot leave setuid/setgid files or file capabilities" { t_setuid bwrap; }

@test "an unprivileged command keeps its own setuid bit (nothing to gain)" {
	is_root && skip "the unprivileged user's case"
	use_backend helper-landlock
	run -0 arcturn exec -- sh -c 'cp /bin/true s && chmod u+s s && stat -c %a s'
	assert_output 4755
}

# `arcturn diff` on a terminal shows control characters in content as
# \xNN, so that cursor movement in a file cannot hide a line from the
# reviewer; through a pipe it stays raw, and `git apply` takes it.
@test "diff escapes control characters on a terminal, stays raw through a pipe" {
	printf 'keep\nold\n' >f
	printf 'keep\nrm -rf ~ #\033[1A\033[2Kharmless\n' >"$T/new"
	ARCTURN_DRY_RUN=1 arcturn write f <"$T/new"
	# piped: the bytes as they are, and git apply rebuilds the file
	run -0 --separate-stderr arcturn diff
	printf '%s\n' "$output" >"$T/d.patch"
	grep -q $'\033\\[1A' "$T/d.patch"
	mkdir "$T/copy"
	printf 'keep\nold\n' >"$T/copy/f"
	(cd "$T/copy" && git apply "$T/d.patch")
	cmp "$T/copy/f" "$T/new"
	local digest
	digest=$(grep '^digest: ' "$T/d.patch")
	# control: on a terminal the raw bytes would move the cursor; now
	# they are shown, and the digest is the same
	run -0 python3 -c "$ON_PTY_PY" "$ARCTURN_BIN" diff --no-pager --color=never
	assert_line '+rm -rf ~ #\x1b[1A\x1b[2Kharmless'
	[[ $output != *$'\033'* ]]
	assert_line "$digest"
	# with colours (ours stay codes) and through the pager
	PAGER=cat run -0 python3 -c "$ON_PTY_PY" "$ARCTURN_BIN" diff --color=always
	assert_output --partial 'rm -rf ~ #\x1b[1A\x1b[2Kharmless'
	assert_output --partial $'\033[32m'
	[[ $output != *$'\033[1A'* ]]
}
