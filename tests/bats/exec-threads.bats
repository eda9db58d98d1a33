#!/usr/bin/env bats
# The socket gate decides alike for every thread of the command: a connect
# from a second thread reaches loopback TCP as the main thread's does, and
# an outside unix socket is refused to every thread. Run on every backend,
# and with PIDFD_THREAD taken away (nosys -t), as on kernels before 6.9,
# where the gate reaches a thread through its thread group. The clients are
# build/tools/threadconnect; each refusal has a control that the same
# client reaches the same socket without arcturn.

load common
load exec_helpers
load exec_escape

setup_file() { probe_machine; }
setup() {
	common_setup
	TC=$ARCTURN_TOOLS/threadconnect
	NOSYS=$ARCTURN_TOOLS/nosys
}
teardown() { escape_teardown; }

# A server on 127.0.0.1 (tcp: its port), on a unix stream socket (PATH)
# that accepts and closes, or on a unix datagram socket (dgram:PATH) that
# reads; it writes its address to a fifo once it listens.
SERVER_PY='import socket, sys
a = sys.argv[2]
if a == "tcp":
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    a = "%d" % s.getsockname()[1]
elif a.startswith("dgram:"):
    a = a[6:]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(a)
else:
    s = socket.socket(socket.AF_UNIX)
    s.bind(a)
if s.type == socket.SOCK_STREAM:
    s.listen(64)
with open(sys.argv[1], "w") as f:
    f.write(a + "\n")
s.settimeout(120)
while True:
    if s.type == socket.SOCK_DGRAM:
        s.recv(100)
    else:
        s.accept()[0].close()'

start_server() {	# tcp|PATH|dgram:PATH: sets ADDR
	rm -f "$T/ready"
	mkfifo "$T/ready"
	python3 -c "$SERVER_PY" "$T/ready" "$1" 3>&- >/dev/null 2>&1 &
	DAEMONS+=($!)
	read -r ADDR <"$T/ready"
	[ -n "$ADDR" ]
}

# Every thread of the command connects to loopback TCP (the bug this file
# was written for: a second thread's connect failed with ENOENT).
t_tcp() {
	local m
	start_server tcp
	for m in main thread; do
		run -0 "$TC" "$m" "$ADDR"
		assert_output connected
		run "${PRE[@]}" "$ARCTURN_BIN" exec -- "$TC" "$m" "$ADDR"
		echo "$m: $output"
		assert_success
		assert_output connected
	done
}

# An outside unix socket is refused to every thread, one with a
# descriptor table of its own included.
t_unix_outside() {
	local m sock=$OUT/server.sock
	start_server "$sock"
	for m in main thread lone; do
		run -0 "$TC" "$m" "$sock"
		assert_output connected
		run "${PRE[@]}" "$ARCTURN_BIN" exec -- "$TC" "$m" "$sock"
		echo "$m: $output"
		assert_failure 1
		assert_line --regexp '^refused: (Permission denied|Operation not permitted)$'
		refute_line connected
	done
}

# nosys -t really takes PIDFD_THREAD away, so that the tests below take
# the thread-group path: python asks for a pidfd of its second thread.
PIDFD_PY='import ctypes, os, threading
libc = ctypes.CDLL(None, use_errno=True)
tid, up, done = [], threading.Event(), threading.Event()
def live():
    tid.append(threading.get_native_id())
    up.set()
    done.wait()
t = threading.Thread(target=live)
t.start()
up.wait()
r = libc.syscall(434, tid[0], os.O_EXCL)
done.set()
t.join()
print("pidfd" if r >= 0 else "errno %d" % ctypes.get_errno())'

@test "nosys -t refuses pidfd_open(PIDFD_THREAD) with EINVAL, and only under it" {
	run -0 python3 -c "$PIDFD_PY"
	assert_output pidfd
	run -0 "$NOSYS" -t python3 -c "$PIDFD_PY"
	assert_output "errno 22"
}

@test "helper: every thread connects to loopback TCP" {
	use_backend helper
	PRE=()
	t_tcp
}

@test "helper-landlock: every thread connects to loopback TCP" {
	use_backend helper-landlock
	PRE=()
	t_tcp
}

@test "bwrap: every thread connects to loopback TCP" {
	use_backend bwrap
	PRE=()
	t_tcp
}

@test "helper: an outside unix socket is refused to every thread" {
	use_backend helper
	PRE=()
	t_unix_outside
}

@test "helper-landlock: an outside unix socket is refused to every thread" {
	use_backend helper-landlock
	PRE=()
	t_unix_outside
}

@test "bwrap: an outside unix socket is refused to every thread" {
	use_backend bwrap
	PRE=()
	t_unix_outside
}

@test "without PIDFD_THREAD: every thread connects to loopback TCP (helper)" {
	use_backend helper
	PRE=("$NOSYS" -t)
	t_tcp
}

@test "without PIDFD_THREAD: every thread connects to loopback TCP (helper-landlock)" {
	use_backend helper-landlock
	PRE=("$NOSYS" -t)
	t_tcp
}

@test "without PIDFD_THREAD: an outside unix socket is refused to every thread (helper)" {
	use_backend helper
	PRE=("$NOSYS" -t)
	t_unix_outside
}

@test "without PIDFD_THREAD: a thread with its own descriptor table is refused, not decided on the group's" {
	use_backend helper-landlock
	start_server tcp
	run -0 "$TC" lone "$ADDR"
	assert_output connected
	# the group's descriptor at that number is /dev/null: the gate must
	# not take it for the thread's socket
	run "$NOSYS" -t "$ARCTURN_BIN" exec -- "$TC" lone "$ADDR"
	echo "$output"
	assert_failure 1
	assert_output "refused: Operation not permitted"
	# with PIDFD_THREAD the gate reaches the thread's own table
	run -0 "$ARCTURN_BIN" exec -- "$TC" lone "$ADDR"
	assert_output connected
}

# bind, sendto and sendmsg from the main thread and from a second one: a
# datagram socket bound in the workspace, a datagram to it (the command's
# own socket: allowed) and to an outside one (refused).
DGRAM_PY='import socket, sys, threading
out, ws = sys.argv[1], sys.argv[2]
res = {}
def go(who):
    r = []
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        s.bind(ws + "/b-" + who)
        r.append("bind ok")
    except OSError as e:
        r.append("bind " + e.strerror)
    for how, to in (("self", ws + "/b-" + who), ("sendto", out), ("sendmsg", out)):
        try:
            if how == "sendmsg":
                s.sendmsg([b"x"], [], 0, to)
            else:
                s.sendto(b"x", to)
            r.append(how + " sent")
        except OSError as e:
            r.append(how + " " + e.strerror)
    res[who] = ", ".join(r)
go("main")
t = threading.Thread(target=go, args=("thread",))
t.start()
t.join()
for k in ("main", "thread"):
    print(k + ": " + res[k])'

t_dgram() {
	local who
	start_server "dgram:$OUT/d.sock"
	mkdir "$T/direct"
	run -0 python3 -c "$DGRAM_PY" "$OUT/d.sock" "$T/direct"
	for who in main thread; do
		assert_line "$who: bind ok, self sent, sendto sent, sendmsg sent"
	done
	run "${PRE[@]}" "$ARCTURN_BIN" exec -- python3 -c "$DGRAM_PY" "$OUT/d.sock" "$WS"
	echo "$output"
	assert_success
	for who in main thread; do
		assert_line "$who: bind ok, self sent, sendto Permission denied, sendmsg Permission denied"
	done
}

@test "helper: bind and sends from a second thread get the main thread's decisions" {
	use_backend helper
	PRE=()
	t_dgram
}

@test "helper-landlock: bind and sends from a second thread get the main thread's decisions" {
	use_backend helper-landlock
	PRE=()
	t_dgram
}

@test "bwrap: bind and sends from a second thread get the main thread's decisions" {
	use_backend bwrap
	PRE=()
	t_dgram
}

@test "without PIDFD_THREAD: bind and sends from a second thread get the main thread's decisions" {
	use_backend helper
	PRE=("$NOSYS" -t)
	t_dgram
}

# The supervisor polls the gate's listener only while tasks are in the
# filter: once the listener hangs up it is dropped, instead of poll
# returning at once, again and again, until SIGCHLD is read (27 polls in
# one of five runs before; 1 or 2 a run now). strace counts the calls.
@test "helper: the supervisor does not spin on the gate's listener while the command exits" {
	use_backend helper
	command -v strace >/dev/null || skip "strace missing"
	local k n most=0
	for k in 1 2 3 4 5 6 7 8; do
		run -0 strace -f -qq -e trace=poll -o "$T/st.$k" \
		    "$ARCTURN_BIN" exec -- python3 -c 'import threading
for t in [threading.Thread(target=lambda: None) for _ in range(20)]:
    t.start()'
		n=$(grep -c 'poll(' "$T/st.$k")
		[ "$n" -le "$most" ] || most=$n
	done
	echo "most polls in one run: $most"
	[ "$most" -le 6 ]
}
