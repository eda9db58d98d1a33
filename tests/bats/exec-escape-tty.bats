#!/usr/bin/env bats
# Other terminals: a confined command must not change another terminal's
# size (TIOCSWINSZ, which sends SIGWINCH to its foreground) or settings
# (TCSETS), write on it, or hang up its own (vhangup, root); it still
# uses its own terminal and the ptys it makes. The other terminal is a
# tmux pane outside arcturn; each attack is tried outside arcturn first
# (the control), and the pane's state is read from outside. tests/run
# runs this as root and as an unprivileged user.

load common
load exec_helpers
load exec_escape

setup_file() { probe_machine; }
# script(1) runs its command with $SHELL (nologin for the test user)
setup() { common_setup; export SHELL=/bin/sh TERM=xterm; }
teardown() { escape_teardown; }

# TTY_PY PATH WORD: open another terminal read-only, set its size and turn
# its echo off (ioctls), then write WORD on it; one line per step.
TTY_PY='import fcntl, os, struct, sys, termios
p = sys.argv[1]
try:
    fd = os.open(p, os.O_RDONLY | os.O_NOCTTY)
except OSError as e:
    print("open", e.errno)
    sys.exit(0)
try:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 11, 37, 0, 0))
    print("winsz ok")
except OSError as e:
    print("winsz", e.errno)
try:
    a = termios.tcgetattr(fd)
    a[3] &= ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSANOW, a)
    print("tcsets ok")
except termios.error as e:
    print("tcsets", e.args[0])
try:
    w = os.open(p, os.O_WRONLY | os.O_NOCTTY)
    os.write(w, sys.argv[2].encode() + b"\n")
    print("write ok")
except OSError as e:
    print("write", e.errno)'

# the pane's size and echo flag, read from outside
pane_state() {
	stty -F "$1" size
	stty -F "$1" -a | grep -o -- '-\?\<echo\>'
}

t_other_terminal() {
	use_backend "$1"
	local sock=$T/tmux.sock pty before ppid
	start_tmux "$sock"
	pty=$(tmux -S "$sock" display -p '#{pane_tty}')
	before=$(pane_state "$pty")
	# the control: outside arcturn every step works
	run python3 -c "$TTY_PY" "$pty" pwned-outside
	assert_output "winsz ok
tcsets ok
write ok"
	assert_equal "$(pane_state "$pty")" "11 37
-echo"
	run tmux -S "$sock" capture-pane -p -t arcturn-test
	assert_output --partial pwned-outside
	stty -F "$pty" rows 24 cols 80 echo
	before=$(pane_state "$pty")
	run arcturn exec -- python3 -c "$TTY_PY" "$pty" pwned-inside
	echo "$output"
	refute_line "winsz ok"
	refute_line "tcsets ok"
	refute_line "write ok"
	assert_equal "$(pane_state "$pty")" "$before"
	run tmux -S "$sock" capture-pane -p -t arcturn-test
	refute_output --partial pwned-inside
	# nor through the pane's process, by /proc/PID/fd/0
	ppid=$(tmux -S "$sock" display -p '#{pane_pid}')
	run python3 -c "$TTY_PY" "/proc/$ppid/fd/0" pwned-proc-outside
	assert_line "winsz ok"
	stty -F "$pty" rows 24 cols 80 echo
	run arcturn exec -- python3 -c "$TTY_PY" "/proc/$ppid/fd/0" pwned-proc-inside
	echo "$output"
	refute_line "winsz ok"
	refute_line "tcsets ok"
	refute_line "write ok"
	assert_equal "$(pane_state "$pty")" "$before"
	run tmux -S "$sock" capture-pane -p -t arcturn-test
	refute_output --partial pwned-proc-inside
}

@test "helper: another terminal's size, settings and screen are out of reach" { t_other_terminal helper; }
@test "bwrap: another terminal's size, settings and screen are out of reach" { t_other_terminal bwrap; }

# Landlock alone cannot have a devpts of its own: sandbox status says so.
@test "helper-landlock: sandbox status says other terminals stay writable" {
	use_backend helper-landlock
	run arcturn sandbox status
	assert_line --partial "NO   writes to other devices: /dev/pts is listed: other terminals (root: every user's) stay writable"
}

# EVERY: the command's own terminal (size, tput, a setting changed and
# back, by the name /dev/tty, and a name for it: tty) and ptys it makes
# (script, python's pty.spawn).
EVERY='stty size; tput cols; stty -echo && stty echo && echo own-ok
stty size </dev/tty | sed "s/^/tty: /"
tty >/dev/null && echo name-ok
script -qc "stty size; echo script-in" /dev/null && echo script-ok
python3 -c "import pty, sys; sys.exit(pty.spawn([\"sh\", \"-c\", \"stty size; exit 3\"]) >> 8 != 3)" && echo pty-ok'

t_own_terminal() {
	use_backend "$1"
	# script gives the run a terminal of its own, 30 rows by 90 columns
	script -qec "stty rows 30 cols 90; $ARCTURN_BIN exec -- sh -c '$EVERY'" \
	    "$T/typescript" </dev/null >/dev/null 2>&1 || true
	# (the inner script's NUL, echoed as ^@, may land on any line)
	run sed -e 's/\r$//' -e 's/\^@//g' "$T/typescript"
	echo "$output"
	assert_line "30 90"
	assert_line "tty: 30 90"
	assert_line name-ok
	assert_line 90
	assert_line own-ok
	assert_line script-in
	assert_line script-ok
	assert_line pty-ok
}

@test "helper: the command's own terminal and the ptys it makes work" { t_own_terminal helper; }
@test "helper-landlock: the command's own terminal and the ptys it makes work" { t_own_terminal helper-landlock; }
@test "bwrap: the command's own terminal and the ptys it makes work" { t_own_terminal bwrap; }

# VHANGUP_PY: vhangup() on the caller's terminal: "0 0" done, else -1 and
# the errno; then whether the terminal still works ("tty ok" or "tty EIO").
VHANGUP_PY='import ctypes, os, signal
signal.signal(signal.SIGHUP, signal.SIG_IGN)
l = ctypes.CDLL(None, use_errno=True)
print("vhangup", l.vhangup(), ctypes.get_errno(), flush=True)
try:
    import termios
    termios.tcgetattr(0)
    print("tty ok")
except Exception as e:
    print("tty", type(e).__name__)'

t_vhangup() {
	use_backend "$1"
	is_root || skip "vhangup needs CAP_SYS_TTY_CONFIG: root only"
	printf '%s\n' "$VHANGUP_PY" >"$T/vh.py"
	# the control, on a throwaway terminal: hung up
	script -qec "python3 $T/vh.py >$T/ctl 2>&1" /dev/null </dev/null >/dev/null 2>&1 || true
	run cat "$T/ctl"
	assert_line "vhangup 0 0"
	refute_line "tty ok"
	script -qec "$ARCTURN_BIN exec -- python3 $T/vh.py >$T/in 2>&1" /dev/null </dev/null >/dev/null 2>&1 || true
	run cat "$T/in"
	echo "$output"
	assert_line "vhangup -1 1"
	assert_line "tty ok"
	# and the capabilities root keeps are bwrap's
	run arcturn exec -- sh -c 'grep CapEff /proc/self/status'
	assert_output "CapEff:	00000000a00425fb"
}

@test "helper: root's command cannot hang up its terminal" { t_vhangup helper; }
@test "helper-landlock: root's command cannot hang up its terminal" { t_vhangup helper-landlock; }
@test "bwrap: root's command cannot hang up its terminal" { t_vhangup bwrap; }

# A device beneath a granted folder takes ioctls as outside: the ioctl
# rule keeps other terminals out, not the devices the user grants.
# TUNGETFEATURES on /dev/net/tun (root's, mode 0600).
TUN_PY='import array, fcntl, os
fd = os.open("/dev/net/tun", os.O_RDWR)
buf = array.array("I", [0])
fcntl.ioctl(fd, 0x800454cf, buf)
print("features", buf[0])'

t_granted_device() {
	use_backend "$1"
	is_root || skip "/dev/net/tun is root's"
	[ -c /dev/net/tun ] || skip "no /dev/net/tun here"
	run python3 -c "$TUN_PY"	# the control
	assert_success
	assert_output --regexp '^features [0-9]+$'
	local want=$output
	run arcturn exec --grant /dev/net -- python3 -c "$TUN_PY"
	assert_success
	assert_output "$want"
	# without the grant, not even opened for writing
	run arcturn exec -- python3 -c "$TUN_PY"
	assert_failure
	assert_output --partial "PermissionError"
}

@test "helper: a device in a granted folder takes ioctls" { t_granted_device helper; }
@test "helper-landlock: a device in a granted folder takes ioctls" { t_granted_device helper-landlock; }
