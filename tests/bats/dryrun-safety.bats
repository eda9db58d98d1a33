#!/usr/bin/env bats
# Dry run: nothing of the user's is lost (issue 11). Each case checks the
# user's data afterwards by content: apply never deletes what it did not
# capture, never applies a change without a base record, keeps special
# files, refuses what it cannot apply (kept pending), and a damaged or
# half-written session never gets stuck.

load common
load dryrun_helpers

setup() { common_setup; }
# a folder a test made immutable (root cannot be kept out otherwise)
teardown() { [ -z "${IMMUTABLE:-}" ] || chattr -i "$IMMUTABLE"; }

sess_id() { "$ARCTURN_BIN" --json session show | jq -r .id; }
sess_dir() { echo "$HOME/.arcturn/overlays/$(sess_id)"; }
dw() { ARCTURN_DRY_RUN=1 "$ARCTURN_BIN" write "$@"; }
have_dry_exec() {
	"$ARCTURN_BIN" sandbox status --json | grep -q '"dry_run_exec":true' ||
		skip "exec --dry-run unavailable here: $("$ARCTURN_BIN" sandbox status | grep dry-run)"
}

@test "rm -rf sub, then the user creates sub/user.txt: apply keeps it (conflict, exit 1)" {
	have_dry_exec
	mkdir sub && echo a >sub/a && echo b >sub/b
	run arcturn exec --dry-run -- rm -rf sub
	assert_success
	echo mine >sub/user.txt
	run arcturn apply --yes
	assert_failure 1
	assert_output --partial 'sub/user.txt: created since capture; refused'
	# the captured entries went, the user's file and its directory stay
	[ ! -e sub/a ]
	[ ! -e sub/b ]
	assert_equal "$(cat sub/user.txt)" mine
	# what apply replaced is kept where it said, by content
	kept=$(printf '%s\n' "$output" | sed -n 's/^Replaced content kept in \(.*\) (.*$/\1/p')
	[ -n "$kept" ]
	[ -d "$kept" ]
	assert_equal "$(cat "$kept"/sub/a)" a
	assert_equal "$(cat "$kept"/sub/b)" b
	# the conflict stays pending
	run arcturn diff --stat
	assert_output --partial 'sub/user.txt'
}

@test "a directory the change set replaces with a file: a new entry stops it, the rest applies" {
	have_dry_exec
	mkdir sub && echo a >sub/a
	echo x >other
	run arcturn exec --dry-run -- sh -c 'rm -rf sub && echo file >sub && echo y >other'
	assert_success
	echo mine >sub/user.txt
	run arcturn apply --yes
	assert_failure 1
	assert_output --partial 'sub/user.txt: created since capture; refused'
	[ -d sub ] && assert_equal "$(cat sub/user.txt)" mine
	assert_equal "$(cat other)" y
}

@test "a change without a base record is refused, whatever the real file holds" {
	echo base >f
	dw f <<<"mine"
	d=$(sess_dir)
	rm "$d/base/$(printf f | sha256sum | cut -c1-64)"
	echo theirs >f
	run arcturn apply --yes
	assert_failure 1
	assert_output --partial 'f: no record of the file at capture; refused'
	assert_equal "$(cat f)" theirs
	# a truncated record is named as such, and refused too
	: >"$d/base/$(printf f | sha256sum | cut -c1-64)"
	run arcturn apply --yes
	assert_failure 1
	assert_output --partial 'f: its base record is truncated or corrupt; refused'
	assert_equal "$(cat f)" theirs
}

@test "a fifo made under exec --dry-run is applied as a fifo" {
	have_dry_exec
	run arcturn exec --dry-run -- mkfifo -m 0640 p
	assert_success
	[ ! -e p ]
	run arcturn apply --yes
	assert_success
	[ -p p ]
	assert_equal "$(stat -c %a p)" 640
}

@test "hard links a command makes stay hard links" {
	have_dry_exec
	run arcturn exec --dry-run -- sh -c 'echo shared >a && ln a b && mkdir d && ln a d/c'
	assert_success
	run arcturn apply --yes
	assert_success
	assert_equal "$(cat a)" shared
	assert_equal "$(stat -c %i a)" "$(stat -c %i b)"
	assert_equal "$(stat -c %i a)" "$(stat -c %i d/c)"
	assert_equal "$(stat -c %h a)" 3
}

@test "a socket is refused with its reason and kept pending; the rest applies" {
	have_dry_exec
	command -v python3 >/dev/null || skip "python3 is missing (needed to make a socket)"
	run arcturn exec --dry-run -- python3 -c '
import socket
s = socket.socket(socket.AF_UNIX)
s.bind("sock")
open("f", "w").write("new\n")'
	assert_success
	run arcturn apply --yes
	assert_failure 1
	assert_output --partial 'sock: a socket: arcturn does not apply sockets; kept'
	assert_equal "$(cat f)" new
	[ ! -e sock ]
	run arcturn session show
	assert_success
	assert_output --partial 'sock'
}

@test "a write deeper than the limit or with a too long name leaves nothing" {
	deep=$(printf 'd/%.0s' $(seq 1 600))x
	run dw "$deep" <<<"deep"
	assert_failure
	assert_output --partial 'nested deeper than 512'
	[ "${#lines[@]}" -eq 1 ]
	long=$(printf 'n%.0s' $(seq 1 300))
	run dw "$long" <<<"long"
	assert_failure
	assert_output "arcturn: write: $long: Filename too long"
	# nothing was created: the session is empty (or absent) and works
	run arcturn diff --stat
	assert_success
	[ ! -e d ]
	if [ -d "$HOME/.arcturn/overlays" ]; then
		for u in "$HOME"/.arcturn/overlays/*/upper; do
			[ -d "$u" ] || continue
			assert_equal "$(find "$u" -mindepth 1 | wc -l)" 0
		done
	fi
	dw ok <<<"fine"
	run arcturn apply --yes
	assert_success
	assert_equal "$(cat ok)" fine
}

# damaged PART: break one part of a session with a pending change, check
# that it is named by part, then that discard --yes removes it.
damaged() {
	echo base >f
	dw f <<<"mine"
	d=$(sess_dir)
	id=$(basename "$d")
	case $1 in
	meta) head -c 10 "$d/meta.json" >"$d/m" && mv "$d/m" "$d/meta.json" ;;
	upper) rm -rf "$d/upper" ;;
	base) rm -rf "$d/base" ;;
	esac
	run arcturn diff
	assert_failure
	assert_output --partial "session $id: $2"
	[ "${#lines[@]}" -eq 1 ]
	run arcturn session show
	assert_failure
	assert_output --partial "session $id: $2"
	assert_equal "$(cat f)" base
}

@test "a session with a truncated meta.json is named, and discard --yes removes it" {
	damaged meta "meta.json truncated"
	run arcturn discard --yes
	assert_success
	[ ! -e "$d" ]
	dw g <<<"again"
	run arcturn apply --yes
	assert_success
	assert_equal "$(cat g)" again
	assert_equal "$(cat f)" base
}

@test "a session without upper/ is named, and session rm removes it" {
	damaged upper "upper/ missing"
	run arcturn session rm --yes "$id"
	assert_success
	[ ! -e "$d" ]
	assert_equal "$(cat f)" base
}

@test "a session without base/ is named, and discard --yes removes it" {
	damaged base "base/ missing"
	run arcturn discard --yes
	assert_success
	[ ! -e "$d" ]
	assert_equal "$(cat f)" base
}

@test "EMFILE: exec --dry-run with too few fds never leaves a change to apply blind" {
	have_dry_exec
	local n seen0=0 seen125=0 incomplete=0
	# a change eight folders deep as well: recording it takes more
	# descriptors than starting the sandbox, so that some limit lets
	# the command run but not the record of what it changed
	deep=d1/d2/d3/d4/d5/d6/d7/d8
	for n in 6 7 8 9 10 11 12 13 14 15 16 20 32; do
		echo base >f
		rm -rf d1
		run bash -c "ulimit -n $n; exec '$ARCTURN_BIN' exec --dry-run -- sh -c 'mkdir -p $deep && echo mine >$deep/g && echo mine >f'"
		assert_equal "$(cat f)" base
		case $status in
		0) seen0=$((seen0 + 1)) ;;
		125)
			seen125=$((seen125 + 1))
			assert_line --regexp '^arcturn: '
			case $output in *"incomplete: could not record"*)
				incomplete=$((incomplete + 1)) ;;
			esac
			;;
		*) echo "ulimit -n $n: exit $status: $output"; return 1 ;;
		esac
		# the user edits f afterwards: a change with no record of its
		# base must not land over that edit
		echo theirs >f
		run arcturn apply --yes
		if [ "$(cat f)" != theirs ]; then
			echo "ulimit -n $n: apply overwrote the user's edit: $output"
			return 1
		fi
		arcturn discard --yes >/dev/null
	done
	# every case was reached: too few fds to start, enough to run the
	# command but not to record its changes, and enough
	[ "$seen125" -gt 0 ]
	[ "$seen0" -gt 0 ]
	[ "$incomplete" -gt 0 ]
}

@test "leftovers beside paths a killed apply finished: the next apply removes them" {
	mkdir -p sub/deep other
	echo old >sub/deep/f
	echo old >other/g
	dw sub/deep/f <<<"new"
	dw other/g <<<"new"
	# a killed apply had swapped f in (it is no change now) and left the
	# content it replaced under a temp name; g is still pending
	echo new >sub/deep/f
	echo old >sub/deep/.arcturn-tmp-aaaaaaaaaaaaaaaa
	run arcturn apply --yes
	assert_success
	[ ! -e sub/deep/.arcturn-tmp-aaaaaaaaaaaaaaaa ]
	assert_equal "$(cat other/g)" new
	# the same when nothing is pending any more
	dw sub/deep/f <<<"newer"
	echo newer >sub/deep/f
	: >sub/deep/.arcturn-tmp-bbbbbbbbbbbbbbbb
	run arcturn apply --yes
	assert_success
	assert_output --partial "No pending changes"
	[ ! -e sub/deep/.arcturn-tmp-bbbbbbbbbbbbbbbb ]
	# a symlink in the real tree is not followed by the sweep
	mkdir -p "$BATS_TEST_TMPDIR/out"
	: >"$BATS_TEST_TMPDIR/out/.arcturn-tmp-cccccccccccccccc"
	dw link/x <<<"y"
	ln -s "$BATS_TEST_TMPDIR/out" link
	run arcturn apply --yes
	[ -e "$BATS_TEST_TMPDIR/out/.arcturn-tmp-cccccccccccccccc" ]
}

@test "an apply cut short after a swap: the next dry-run command cannot write through to the real file" {
	have_dry_exec
	echo old >f
	echo old >g
	dw f <<<"new"
	dw g <<<"new"
	d=$(sess_dir)
	# an apply leaves its mark while it links the session's copies in,
	# and it stays when something is left pending (g: changed since)
	echo theirs >g
	run arcturn apply --yes
	assert_failure 1
	assert_equal "$(cat f)" new
	[ -e "$d/applying" ]
	# what a kill right after f's swap leaves: upper/f is the real f
	dw f <<<"newer"
	ln -f "$d/upper/f" f
	[ "$(stat -c %i f)" = "$(stat -c %i "$d/upper/f")" ]
	run arcturn exec --dry-run -- sh -c 'echo more >>f'
	assert_success
	assert_equal "$(cat f)" newer
	[ ! -e "$d/applying" ]
	[ "$(stat -c %i f)" != "$(stat -c %i "$d/upper/f")" ]
	assert_equal "$(cat "$d/upper/f")" "$(printf 'newer\nmore')"
	assert_equal "$(cat g)" theirs
	# f's applied change went with its base: the new one applies clean
	run arcturn apply --yes f
	assert_success
	assert_equal "$(cat f)" "$(printf 'newer\nmore')"
}

# a (precious) changed to agent under exec --dry-run, and apply killed by
# strace at the Nth call of SYSCALL, after its swap: d is the session
kill_apply_at() {
	have_dry_exec
	command -v strace >/dev/null || skip "strace is not installed"
	echo precious >a
	arcturn exec --dry-run -- sh -c 'echo agent >a'
	d=$(sess_dir)
	run strace -f -qq -e trace="$1" -e inject="$1:signal=KILL:when=$2" \
		"$ARCTURN_BIN" apply --yes
	assert_equal "$(cat a)" agent
}

# the killed apply's turn was recorded open before its swap (issue 26):
# it holds what the apply replaced, and the session's replaced/1 is
# marked as held; the next apply finds nothing pending and drops the
# session
next_apply_drops() {
	assert_equal "$(cat "$d/replaced/1/a")" precious
	[ -e "$d/replaced/1.turn" ]
	run arcturn checkpoints
	assert_line --regexp '^turn 1  .*  1 path  apply  \(cut short: the next undo takes back what landed\)$'
	run arcturn apply --yes
	assert_success
	assert_output --partial "No pending changes."
	refute_output --partial "An earlier apply was cut short"
	[ ! -e "$d" ]
}

@test "an apply killed before its turn is settled: the turn, recorded first, holds what it replaced; undo gives it back" {
	# at the rename of its turn's settled record (the open record's,
	# replaced/1.turn's and the applying mark's come first)
	kill_apply_at renameat 4
	next_apply_drops
	run arcturn undo
	assert_success
	assert_output --partial "restored 1 path to before turn 1"
	assert_equal "$(cat a)" precious
	run arcturn checkpoints
	refute_output --partial "cut short"
}

@test "an apply killed right after its swap: the next apply, with nothing pending, still removes its temp file" {
	# at its second unlinkat (the first: of the store's current turn):
	# of the name that holds what the exchange moved aside (kept in
	# replaced/1 by a link), before its turn is settled
	kill_apply_at unlinkat 2
	ls -A | grep -q '^\.arcturn-swp-' # what the kill left
	next_apply_drops
	run ls -A
	assert_output a
	run arcturn undo
	assert_success
	assert_equal "$(cat a)" precious
}

@test "an apply killed with replaced/N unmarked (as before turns were recorded first): the next apply records what it replaced as a turn; undo gives it back" {
	kill_apply_at renameat 4
	rm "$d/replaced/1.turn"
	run arcturn apply --yes
	assert_success
	assert_output --partial "No pending changes."
	assert_output --partial "An earlier apply was cut short: what it replaced is a turn now"
	run arcturn checkpoints
	assert_line --regexp '^turn 2  .*  1 path  apply \(cut short\)$'
	[ ! -e "$d" ]
	# the open turn 1 and turn 2 hold the same version: one undo
	run arcturn undo
	assert_success
	assert_equal "$(cat a)" precious
	run arcturn checkpoints
	refute_output --partial "cut short: the next undo"
}

@test "an apply killed between its swap and the swap back: the version the user saved meanwhile survives the next apply" {
	have_dry_exec
	command -v strace >/dev/null || skip "strace is not installed"
	echo precious >a
	arcturn exec --dry-run -- sh -c 'echo agent >a'
	d=$(sess_dir)
	# the user saves a (by rename) once apply has kept it, while strace
	# holds apply's second sync_file_range (its new file's) for 2 s; the
	# exchange then moves the user's version aside, the check finds it
	# is not the base, and apply is killed at the exchange back (its
	# fourth renameat2: the blob's, the swap name's, the exchange)
	(
		for i in $(seq 200); do [ -e "$d/replaced/1/a" ] && break; sleep 0.02; done
		echo theirs >a.new && mv a.new a
	) &
	run strace -f -qq -o /dev/null -e inject=sync_file_range:delay_enter=2000000:when=2 \
		-e inject=renameat2:signal=KILL:when=4 "$ARCTURN_BIN" apply --yes
	wait
	# the race happened as planned: ours in place, the user's version aside
	assert_equal "$(cat a)" agent
	run grep -l theirs .arcturn-swp-*
	assert_success
	aside=$output
	# each sweep leaves it, and apply and discard say so
	run arcturn apply --yes
	assert_success
	assert_output --partial "arcturn: apply: $aside: left in place: an apply that was cut short moved it aside there"
	assert_equal "$(cat "$aside")" theirs
	# what the killed apply replaced is a turn now (issue 26): the
	# session went, and the user's version stays where it was moved
	run arcturn discard --yes
	assert_success
	assert_equal "$(cat "$aside")" theirs
	arcturn write b <<<"x"
	assert_equal "$(cat "$aside")" theirs
}

@test "a file replaced by a fifo: apply keeps its content and says where (no turn can give it back)" {
	have_dry_exec
	echo precious >f
	echo old >g
	arcturn exec --dry-run -- sh -c 'rm f; mkfifo f; echo new >g'
	d=$(sess_dir)
	run arcturn apply --yes
	assert_success
	assert_output --partial "Replaced content kept in $d/replaced/1"
	[ -p f ]
	assert_equal "$(cat "$d/replaced/1/f")" precious
	# a complete apply whose turn holds everything leaves no session
	echo x >h
	arcturn discard --yes
	arcturn exec --dry-run -- sh -c 'echo y >h'
	d=$(sess_dir)
	run arcturn apply --yes
	assert_success
	refute_output --partial "kept in"
	[ ! -e "$d" ]
}

@test "a file the change set makes a folder applies in one apply" {
	have_dry_exec
	echo old >f
	arcturn exec --dry-run -- sh -c 'rm f; mkdir f; echo y >f/z'
	run arcturn apply --yes
	assert_success
	[ -d f ]
	assert_equal "$(cat f/z)" y
	run arcturn undo
	assert_success
	assert_equal "$(cat f)" old
}

@test "a folder swapped for a symlink to a protected one after capture: apply refuses beneath its files too" {
	git init -q .
	mkdir d
	dw d/f/z <<<"y"
	# the user's d becomes a link to git's hooks, where f is a file
	mv d d.old
	echo hook >.git/hooks/f
	ln -s .git/hooks d
	run arcturn apply --yes
	assert_failure 1
	assert_line "arcturn: apply: d/f/z: protected path; refused"
	assert_equal "$(cat .git/hooks/f)" hook
}

@test "a session whose changes cannot be listed is not discarded unasked, and discard --yes says so" {
	have_dry_exec
	is_root && skip "root reads through directory modes"
	mkdir d
	echo old >d/o
	# the command locks its own folder of the session away from us
	run arcturn exec --dry-run -- sh -c 'echo y >d/o; chmod 000 d'
	d=$(sess_dir)
	run arcturn discard </dev/null
	assert_failure 1
	assert_output --partial "its changes cannot be listed (Permission denied)"
	[ -d "$d" ]
	run arcturn discard --yes
	assert_success
	assert_output --partial "whose changes could not be listed (Permission denied)"
	[ ! -e "$d" ]
	assert_equal "$(cat d/o)" old
}

@test "a fifo where apply's mark goes: apply copies instead of hanging" {
	echo old >f
	dw f <<<"new"
	mkfifo "$(sess_dir)/applying"
	run timeout 20 "$ARCTURN_BIN" apply --yes
	assert_success
	assert_equal "$(cat f)" new
}

@test "leftover .arcturn-tmp-* files: discard and the next write remove them" {
	mkdir sub
	echo user >sub/u
	dw sub/f <<<"x"
	d=$(sess_dir)
	# what a killed apply leaves in the workspace
	: >.arcturn-tmp-aaaaaaaaaaaaaaaa
	: >sub/.arcturn-tmp-bbbbbbbbbbbbbbbb
	run arcturn discard --yes
	assert_success
	[ ! -e .arcturn-tmp-aaaaaaaaaaaaaaaa ]
	[ ! -e sub/.arcturn-tmp-bbbbbbbbbbbbbbbb ]
	assert_equal "$(cat sub/u)" user
	# what a killed write leaves in the session
	dw sub/f <<<"x"
	d=$(sess_dir)
	: >"$d/upper/sub/.arcturn-tmp-cccccccccccccccc"
	dw sub/g <<<"y"
	[ ! -e "$d/upper/sub/.arcturn-tmp-cccccccccccccccc" ]
	# and in the workspace, by a write outside a dry run
	: >sub/.arcturn-tmp-dddddddddddddddd
	arcturn write sub/h <<<"z"
	[ ! -e sub/.arcturn-tmp-dddddddddddddddd ]
	assert_equal "$(cat sub/u)" user
	assert_equal "$(cat sub/h)" z
}

@test "a command waiting on a session lock says so after a second" {
	command -v flock >/dev/null || skip "flock(1) is missing"
	dw f <<<"x"
	d=$(sess_dir)
	# hold the lock, saying when it is held, until told to let go
	flock -x "$d/lock" sh -c ': >"$1"; i=0
		until [ -e "$2" ] || [ $i -ge 400 ]; do sleep 0.05; i=$((i + 1)); done' \
	    _ "$T/held" "$T/release" &
	holder=$!
	for _ in $(seq 1 200); do
		[ -e "$T/held" ] && break
		sleep 0.05
	done
	[ -e "$T/held" ]
	start=$(date +%s%N)
	arcturn diff --stat >"$T/out" 2>&1 &
	differ=$!
	# the handshake: let go once it has said it waits
	for _ in $(seq 1 200); do
		grep -q 'waiting for session' "$T/out" && break
		sleep 0.05
	done
	said=$(date +%s%N)
	: >"$T/release"
	rc=0
	wait "$differ" || rc=$?
	wait "$holder"
	assert_equal "$rc" 0
	run cat "$T/out"
	assert_line --partial "waiting for session $(basename "$d"): another arcturn holds it"
	# it said so after a second of waiting, then went on once let go
	[ $(( (said - start) / 1000000 )) -ge 1000 ]
	assert_line --partial "1 file changed"
}

@test "a session that cannot be made ready: 125 and one line; the sandbox built meanwhile runs nothing" {
	have_dry_exec
	run arcturn exec --dry-run -- sh -c "touch '$TMPDIR/ran0'"
	assert_success
	# control: the command runs, and its write outside the overlay is real
	[ -e "$TMPDIR/ran0" ]
	# the run's work dir cannot be moved aside: the session is readied
	# while the helper builds the sandbox, and that fails
	local work
	work=$(sess_dir)/work
	if is_root; then
		chattr +i "$work" 2>/dev/null || skip "chattr +i: not on this file system"
		IMMUTABLE=$work
	else
		chmod 0500 "$work"
	fi
	run arcturn exec --dry-run -- sh -c "touch '$TMPDIR/ran'"
	if is_root; then chattr -i "$work"; IMMUTABLE=; else chmod 0700 "$work"; fi
	assert_failure 125
	# arcturn's line only: the helper ended without a word
	assert_output --regexp '^arcturn: exec --dry-run: session [0-9a-f]+: preparing the overlay: .*; not running the command$'
	[ "${#lines[@]}" -eq 1 ]
	[ ! -e "$TMPDIR/ran" ]
	# and the session is not left half-made: the next run works
	run arcturn exec --dry-run -- sh -c "touch '$TMPDIR/ran'"
	assert_success
	[ -e "$TMPDIR/ran" ]
}

# The last run's work dir, made large (30,000 files): the next run's
# readying, which removes it, takes a while.
big_work_old() {
	local old
	old=$(sess_dir)/work.old
	mkdir -p "$old"
	python3 -c 'import os, sys
for i in range(30000):
    os.close(os.open("%s/f%d" % (sys.argv[1], i), os.O_CREAT | os.O_WRONLY, 0o600))' "$old"
}

# Run exec --dry-run on a terminal of its own; once its helper exists
# (the sandbox is being built while the session is readied: the last
# run's work dir, made large, is being removed), press Ctrl-C.
CTRL_C_PY='
import os, pty, signal, sys, time
arcturn, marker = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    # as in a shell on a terminal (a background job of a script, as the
    # tests may run, starts with SIGINT ignored, and so would arcturn)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.execv(arcturn, [arcturn, "exec", "--dry-run", "--", "sh", "-c",
        "echo ran >>" + marker])
kids = "/proc/%d/task/%d/children" % (pid, pid)
for _ in range(20000):
    try:
        if open(kids).read().strip():
            break
    except OSError:
        pass
    time.sleep(0.001)
else:
    sys.exit("the helper never started")
os.write(fd, b"\x03")
out = b""
while True:
    try:
        b = os.read(fd, 4096)
    except OSError:
        break
    if not b:
        break
    out += b
_, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
print("status", os.waitstatus_to_exitcode(st))
'

@test "Ctrl-C while the session is readied: the command never starts, 130, the session is fine" {
	have_dry_exec
	command -v python3 >/dev/null || skip "python3 is missing"
	run arcturn exec --dry-run -- sh -c "echo ran >>'$TMPDIR/m0'"
	assert_success
	# control: a run reaches the command, whose write is real
	[ "$(cat "$TMPDIR/m0")" = ran ]
	# the last run's work dir, made large: removing it takes a while
	big_work_old
	run python3 -c "$CTRL_C_PY" "$ARCTURN_BIN" "$TMPDIR/m1"
	assert_success
	assert_line --partial "arcturn: exec --dry-run: SIGINT before the command started; not running it"
	assert_line "status 130"
	[ ! -e "$TMPDIR/m1" ]
	# nothing left half-done: the next run runs, with nothing to settle
	run arcturn exec --dry-run -- sh -c "echo ran >>'$TMPDIR/m1'"
	assert_success
	assert_output ""
	[ "$(cat "$TMPDIR/m1")" = ran ]
}

@test "the helper killed while the session is readied: its init runs nothing" {
	have_dry_exec
	run arcturn exec --dry-run -- sh -c "echo ran >>'$TMPDIR/m0'"
	assert_success
	[ "$(cat "$TMPDIR/m0")" = ran ]
	local pid rc helper="" tries
	command -v python3 >/dev/null || skip "python3 is missing"
	big_work_old
	"$ARCTURN_BIN" exec --dry-run -- sh -c "echo ran >>'$TMPDIR/m1'" \
	    >"$T/out" 2>&1 &
	pid=$!
	for tries in $(seq 20000); do
		helper=$(cat "/proc/$pid/task/$pid/children" 2>/dev/null) || true
		[ -z "$helper" ] || break
	done
	[ -n "$helper" ]
	kill -KILL $helper
	rc=0
	wait "$pid" || rc=$?
	# the helper's end is the run's end; init, left waiting for the
	# word, saw it go and ended without mounting or starting anything
	[ "$rc" -eq 137 ]
	[ ! -e "$TMPDIR/m1" ]
	run arcturn exec --dry-run -- sh -c "echo ran >>'$TMPDIR/m1'"
	assert_success
	[ "$(cat "$TMPDIR/m1")" = ran ]
}
