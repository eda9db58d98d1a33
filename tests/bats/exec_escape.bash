# Escapes through processes outside the sandbox and through what the
# command inherits, shared by exec-helper.bats, exec-helper-landlock.bats
# and exec-bwrap.bats (load after exec_helpers): outside daemons over unix
# sockets (tmux, a stream and a datagram daemon, abstract sockets), SysV
# IPC of an outside process, processes outliving arcturn, signals sent to
# arcturn, and the standard descriptors. Each result is read from the
# outside world: the daemon's own output file, an IPC object's content,
# a file's content and metadata; never from an exit status alone.

bats_require_minimum_version 1.5.0

DAEMONS=()
TMUX_PIDS=()

escape_teardown() {
	local p
	for p in "${DAEMONS[@]}" "${TMUX_PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${DAEMONS[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	DAEMONS=() TMUX_PIDS=()
	if [ -n "${IPC_KEY:-}" ]; then
		python3 -c "$IPC_PY" rm "$IPC_KEY" 2>/dev/null || true
		IPC_KEY=
	fi
}

# A daemon outside the sandbox on a unix socket (stream or dgram; a path,
# or @name for an abstract one): for each line it gets it appends "got
# LINE" to its output file, and answers "ok" on a stream.
DAEMON_PY='import os, socket, sys
path, out, kind = sys.argv[1], sys.argv[2], sys.argv[3]
addr = "\0" + path[1:] if path.startswith("@") else path
t = socket.SOCK_DGRAM if kind == "dgram" else socket.SOCK_STREAM
s = socket.socket(socket.AF_UNIX, t)
s.bind(addr)
if t == socket.SOCK_STREAM:
    s.listen(8)
open(sys.argv[4], "w").close()
s.settimeout(120)
while True:
    if t == socket.SOCK_DGRAM:
        d = s.recv(200)
    else:
        c, _ = s.accept()
        d = c.recv(200)
        c.sendall(b"ok")
        c.close()
    with open(out, "a") as f:
        f.write("got " + d.decode() + "\n")'

start_daemon() {	# socket output stream|dgram
	local ready=$T/daemon-ready-$RANDOM i
	python3 -c "$DAEMON_PY" "$1" "$2" "$3" "$ready" 3>&- >/dev/null 2>&1 &
	DAEMONS+=($!)
	for i in $(seq 200); do
		[ -e "$ready" ] && return 0
		sleep 0.05
	done
	echo "daemon on $1 did not start" >&2
	return 1
}

# Send one line to a socket from inside: prints "reply ..." or "error ...".
CLIENT_PY='import socket, sys
path, kind, how = sys.argv[1], sys.argv[2], sys.argv[3]
addr = "\0" + path[1:] if path.startswith("@") else path
t = socket.SOCK_DGRAM if kind == "dgram" else socket.SOCK_STREAM
s = socket.socket(socket.AF_UNIX, t)
try:
    if kind == "dgram" and how == "sendmsg":
        s.sendmsg([b"pwned-", b"sendmsg"], [], 0, addr)
    elif kind == "dgram":
        s.sendto(b"pwned-sendto", addr)
    else:
        s.connect(addr)
        s.sendall(b"pwned-connect")
        print("reply", s.recv(10).decode())
        sys.exit(0)
    print("sent")
except OSError as e:
    print("error", e.errno, e.strerror)'

# A private tmux server outside, on socket $1 (TMUX_TMPDIR when $1 is
# empty: then its default socket); its pid is killed in teardown. Its
# shell is sh: the unprivileged test user's login shell is nologin, which
# would end the session (and the server) at once and fail run-shell.
start_tmux() {
	command -v tmux >/dev/null || skip "tmux missing"
	export SHELL=/bin/sh
	if [ -n "$1" ]; then
		tmux -S "$1" new-session -d -s arcturn-test 'sleep 600' 3>&-
		TMUX_PIDS+=("$(tmux -S "$1" display -p '#{pid}')")
	else
		tmux new-session -d -s arcturn-test 'sleep 600' 3>&-
		TMUX_PIDS+=("$(tmux display -p '#{pid}')")
	fi
}

# The escape must not have happened, and arcturn said which socket it
# refused (where the gate runs).
refused_line() {
	assert_output --partial "arcturn: exec: refused to connect to the unix socket $1"
}

# --- unix sockets

t_tmux_inherited() {
	local sock=$OUT/tmux.sock
	start_tmux "$sock"
	export TMUX="$sock,${TMUX_PIDS[0]},0"
	run "$ARCTURN_BIN" exec -- tmux run-shell "id > '$OUT/x'"
	echo "$output"
	[ ! -e "$OUT/x" ]
	refused_line "$sock"
	run "$ARCTURN_BIN" exec --network off -- tmux run-shell "id > '$OUT/x'"
	echo "$output"
	[ ! -e "$OUT/x" ]
	# and with the network off even an allowed one is not reachable
	run "$ARCTURN_BIN" exec --network off --allow-unix "$sock" -- \
	    tmux run-shell "id > '$OUT/x'"
	echo "$output"
	[ ! -e "$OUT/x" ]
	# the same call, allowed, does reach the server: the test is real
	run "$ARCTURN_BIN" exec --allow-unix "$sock" -- \
	    tmux run-shell "id > '$OUT/allowed'"
	echo "$output"
	assert_success
	[ -s "$OUT/allowed" ]
	unset TMUX
}

# tmux's default socket in the temp dir, which the command may write:
# neither reaching it, nor moving or linking it (or its folder) into the
# workspace helps.
t_tmux_tmpdir() {
	export TMUX_TMPDIR=$TMPDIR
	unset TMUX
	start_tmux ""
	local dir sock
	dir=$TMPDIR/tmux-$(id -u)
	sock=$dir/default
	[ -S "$sock" ]
	run "$ARCTURN_BIN" exec -- tmux run-shell "id > '$OUT/x'"
	echo "$output"
	[ ! -e "$OUT/x" ]
	refused_line "$sock"
	run "$ARCTURN_BIN" exec -- python3 -c '
import os, subprocess, sys
d, ws, out = sys.argv[1], sys.argv[2], sys.argv[3]
for how, f in (("rename", os.rename), ("link", os.link)):
    try:
        f(d + "/default", ws + "/" + how)
    except OSError as e:
        print(how, e)
try:
    os.rename(d, ws + "/dir")
except OSError as e:
    print("rename dir", e)
for p in (ws + "/rename", ws + "/link", ws + "/dir/default"):
    if os.path.exists(p):
        subprocess.run(["tmux", "-S", p, "run-shell", "id > " + out])
' "$dir" "$WS" "$OUT/moved"
	echo "$output"
	[ ! -e "$OUT/moved" ]
	# the server outside is still there to be reached: the test is real
	# (at its new name when the rename above went through)
	run "$ARCTURN_BIN" exec --allow-unix "$TMPDIR" --allow-unix "$WS" -- sh -c \
	    "tmux -S '$WS/rename' run-shell 'id > $OUT/real' 2>/dev/null ||
	     tmux -S '$sock' run-shell 'id > $OUT/real'"
	echo "$output"
	[ -s "$OUT/real" ] || [ -s "$WS/real" ]
}

t_stream_daemon() {
	local sock=$OUT/d.sock
	start_daemon "$sock" "$OUT/log" stream
	run "$ARCTURN_BIN" exec -- python3 -c "$CLIENT_PY" "$sock" stream connect
	echo "$output"
	assert_line --partial "error 13"
	refused_line "$sock"
	[ ! -e "$OUT/log" ]
	# through a symlink in the workspace: the same socket, refused
	ln -s "$sock" "$WS/link.sock"
	run "$ARCTURN_BIN" exec -- python3 -c "$CLIENT_PY" "$WS/link.sock" stream connect
	assert_line --partial "error 13"
	[ ! -e "$OUT/log" ]
	# allowed by name, by folder, and by the user config
	run "$ARCTURN_BIN" exec --allow-unix "$sock" -- python3 -c "$CLIENT_PY" "$sock" stream connect
	assert_output "reply ok"
	run "$ARCTURN_BIN" exec --allow-unix "$OUT" -- python3 -c "$CLIENT_PY" "$sock" stream connect
	assert_output "reply ok"
	mkdir -p "$HOME/.config/arcturn"
	printf '{"unixSockets": ["%s"]}\n' "$sock" >"$HOME/.config/arcturn/config.json"
	run "$ARCTURN_BIN" exec -- python3 -c "$CLIENT_PY" "$sock" stream connect
	assert_output "reply ok"
	assert_equal "$(grep -c 'got pwned-connect' "$OUT/log")" 3
	# a workspace config can only narrow it
	printf '{"unixSockets": []}\n' >"$HOME/.config/arcturn/config.json"
	printf '{"unixSockets": "all"}\n' >"$WS/.arcturn.json"
	run "$ARCTURN_BIN" exec -- python3 -c "$CLIENT_PY" "$sock" stream connect
	echo "$output"
	assert_line --partial "error 13"
	assert_output --partial '"unixSockets": "all" ignored'
	assert_equal "$(grep -c 'got pwned-connect' "$OUT/log")" 3
	printf '{"unixSockets": "all"}\n' >"$HOME/.config/arcturn/config.json"
	printf '{"unixSockets": ["%s/other"]}\n' "$OUT" >"$WS/.arcturn.json"
	run "$ARCTURN_BIN" exec -- python3 -c "$CLIENT_PY" "$sock" stream connect
	assert_line --partial "error 13"
	rm "$WS/.arcturn.json"
	run "$ARCTURN_BIN" exec -- python3 -c "$CLIENT_PY" "$sock" stream connect
	assert_output "reply ok"
	assert_equal "$(grep -c 'got pwned-connect' "$OUT/log")" 4
}

t_dgram_daemon() {
	local sock=$OUT/dg.sock how
	start_daemon "$sock" "$OUT/log" dgram
	for how in sendto sendmsg; do
		run "$ARCTURN_BIN" exec -- python3 -c "$CLIENT_PY" "$sock" dgram "$how"
		echo "$output"
		assert_line --partial "error 13"
		refused_line "$sock"
	done
	# the handshake: an allowed datagram after the refused ones; the
	# daemon logs in arrival order, so once it is logged any refused one
	# that had got through would be logged before it
	run "$ARCTURN_BIN" exec --allow-unix "$sock" -- python3 -c "$CLIENT_PY" "$sock" dgram sendto
	assert_output sent
	for i in $(seq 200); do [ -s "$OUT/log" ] && break; sleep 0.05; done
	assert_equal "$(cat "$OUT/log")" "got pwned-sendto"
}

# Abstract sockets of outside processes (X11's @/tmp/.X11-unix/X0).
t_abstract() {
	local name=@arcturn-test-$$-$RANDOM holds
	start_daemon "$name" "$OUT/log" stream
	holds=$(status_json_get 'j["guarantees"]["abstract_sockets"]["holds"]')
	run "$ARCTURN_BIN" exec -- python3 -c "$CLIENT_PY" "$name" stream connect
	echo "$output"
	if [ "$holds" = True ]; then
		assert_line --regexp '^error (1|111) '
		[ ! -e "$OUT/log" ]
	else
		# what sandbox status says is open is open
		assert_output "reply ok"
		[ -s "$OUT/log" ]
	fi
	run "$ARCTURN_BIN" exec --network off -- python3 -c "$CLIENT_PY" "$name" stream connect
	echo "$output"
	assert_line --regexp '^error (1|111) '
}

# The command's own sockets, in the temp dir and the workspace, by
# absolute and relative path, stream and datagram, always work.
t_own_sockets() {
	must_work "python3 -c '
import os, socket, sys
for d in sys.argv[1:]:
    p, q = d + \"/own.sock\", d + \"/own.dgram\"
    s = socket.socket(socket.AF_UNIX); s.bind(p); s.listen(1)
    c = socket.socket(socket.AF_UNIX); c.connect(p)
    a, _ = s.accept(); c.sendall(b\"s\"); assert a.recv(1) == b\"s\"
    r = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); r.bind(q)
    w = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    w.sendto(b\"d\", q); assert r.recv(1) == b\"d\"
    w.sendmsg([b\"m\"], [], 0, q); assert r.recv(1) == b\"m\"
    os.chdir(d)
    c2 = socket.socket(socket.AF_UNIX); c2.connect(\"own.sock\")
    print(\"own sockets ok in\", d)
' \"\$TMPDIR\" '$WS'"
	assert_line --partial "own sockets ok in $TMPDIR"
	assert_line --partial "own sockets ok in $WS"
	[ -S "$WS/own.sock" ]
}

# A socket in the workspace that an outside daemon made before the
# command started is reachable (the workspace is the command's).
t_workspace_socket() {
	start_daemon "$WS/ws.sock" "$OUT/log" stream	# listening once it returns
	# "made before the command" is the gate's rule by the socket's ctime
	# (older than the start by SLACK_NS, 50 ms, in landlock-helper/gate.c):
	# wait until the file system's clock is 60 ms past it, not a blind sleep
	local made now
	made=$(stat -c %.3Z "$WS/ws.sock")
	while : >"$T/clock" && now=$(stat -c %.3Y "$T/clock") &&
	    awk -v a="$now" -v b="$made" 'BEGIN { exit !(a < b + 0.06) }'; do
		sleep 0.01
	done
	run "$ARCTURN_BIN" exec -- python3 -c "$CLIENT_PY" "$WS/ws.sock" stream connect
	echo "$output"
	assert_output "reply ok"
	assert_equal "$(cat "$OUT/log")" "got pwned-connect"
}

# --- SysV IPC

IPC_PY='import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
IPC_CREAT, IPC_RMID, IPC_STAT = 0o1000, 0, 2
op, key = sys.argv[1], int(sys.argv[2])
class msg(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 64)]
if op == "make":
    shm = libc.shmget(key, 4096, IPC_CREAT | 0o600)
    a = libc.shmat(shm, None, 0)
    ctypes.memmove(a, b"original\0", 9)
    mq = libc.msgget(key, IPC_CREAT | 0o600)
    print(shm, mq)
elif op == "attack":
    shm, mq = int(sys.argv[3]), int(sys.argv[4])
    for s in (libc.shmget(key, 0, 0), shm):
        a = libc.shmat(s, None, 0)
        if a not in (None, ctypes.c_void_p(-1).value):
            ctypes.memmove(a, b"pwned\0", 6)
            print("wrote shm", s)
        if libc.shmctl(s, IPC_RMID, None) == 0:
            print("removed shm", s)
    for q in (libc.msgget(key, 0), mq):
        m = msg(1, b"pwned")
        if libc.msgsnd(q, ctypes.byref(m), 6, 0o4000) == 0:
            print("sent msg", q)
        if libc.msgctl(q, IPC_RMID, None) == 0:
            print("removed mq", q)
    print("attack done")
elif op == "check":
    shm, mq = int(sys.argv[3]), int(sys.argv[4])
    a = libc.shmat(shm, None, 0)
    if a in (None, ctypes.c_void_p(-1).value):
        print("shm gone")
    else:
        print("shm", ctypes.string_at(a).decode())
    buf = ctypes.create_string_buffer(256)
    if libc.msgctl(mq, IPC_STAT, buf) != 0:
        print("mq gone")
    else:
        m = msg()
        n = libc.msgrcv(mq, ctypes.byref(m), 64, 0, 0o4000)
        print("mq messages", 0 if n < 0 else 1)
else:
    for q in (libc.msgget(key, 0),):
        libc.msgctl(q, IPC_RMID, None)
    libc.shmctl(libc.shmget(key, 0, 0), IPC_RMID, None)'

t_ipc() {
	local ids holds
	IPC_KEY=$(( (RANDOM << 15 | RANDOM) + 4096 ))
	ids=$(python3 -c "$IPC_PY" make "$IPC_KEY")
	# shellcheck disable=SC2086
	set -- $ids
	[ "$1" -ge 0 ]
	[ "$2" -ge 0 ]
	run python3 -c "$IPC_PY" check "$IPC_KEY" "$1" "$2"
	assert_output "shm original
mq messages 0"
	holds=$(status_json_get 'j["guarantees"]["ipc"]["holds"]')
	run "$ARCTURN_BIN" exec -- python3 -c "$IPC_PY" attack "$IPC_KEY" "$1" "$2"
	echo "$output"
	assert_success
	assert_line "attack done"
	run python3 -c "$IPC_PY" check "$IPC_KEY" "$1" "$2"
	echo "$output"
	if [ "$holds" = True ]; then
		assert_output "shm original
mq messages 0"
	else
		# sandbox status said NO, and it is so
		refute_output "shm original
mq messages 0"
	fi
}

# --- lifetime and signals

# kill -9 of arcturn while the command keeps writing: nothing more is
# written afterwards (where status says the lifetime guarantee holds).
t_kill9() {
	local pid n1 n2 holds reader rc i t0
	holds=$(status_json_get 'j["guarantees"]["lifetime"]["holds"]')
	# The handshake: the command's stdout is a fifo whose reader sees
	# EOF once the command (and whatever else holds it) is gone.
	mkfifo "$T/alive"
	timeout 20 cat "$T/alive" >/dev/null &
	reader=$!
	"$ARCTURN_BIN" exec "$@" -- sh -c 'echo $$ > "$1/pid"
		while :; do echo x >> "$1/counter"; sleep 0.05; done' sh "$TMPDIR" \
	    3>&- >"$T/alive" 2>/dev/null &
	pid=$!
	for i in $(seq 100); do
		[ "$(wc -l <"$TMPDIR/counter" 2>/dev/null || echo 0)" -ge 3 ] && break
		sleep 0.05
	done
	kill -9 "$pid"
	t0=$(date +%s%N)
	wait "$pid" 2>/dev/null || true
	if [ "$holds" = True ]; then
		# the command ends, at once: its fifo closes (timeout's 124:
		# it did not)
		rc=0
		wait "$reader" || rc=$?
		assert_equal "$rc" 0
		echo "the command was gone $(( ($(date +%s%N) - t0) / 1000000 )) ms after the kill"
		[ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 5000 ]
		n1=$(wc -l <"$TMPDIR/counter")
		n2=$n1
		# nothing is left to write: the count stays
		for i in 1 2 3; do n2=$(wc -l <"$TMPDIR/counter"); done
		echo "lines once the command was gone: $n1, then $n2"
		[ "$n1" -ge 3 ]
		assert_equal "$n2" "$n1"
	else
		# status said NO: the command outlives arcturn (it goes on
		# writing); end it ourselves
		n1=$(wc -l <"$TMPDIR/counter")
		for i in $(seq 200); do
			[ "$(wc -l <"$TMPDIR/counter")" -gt "$n1" ] && break
			sleep 0.05
		done
		n2=$(wc -l <"$TMPDIR/counter")
		echo "lines after the kill: $n1, later: $n2 (lifetime holds: $holds)"
		[ "$n1" -ge 3 ]
		[ "$n2" -gt "$n1" ]
		kill "$(cat "$TMPDIR/pid")"
		wait "$reader" || true
	fi
	if [ "${1:-}" = --dry-run ]; then
		# what the killed run left (the overlay's work dir included,
		# which the kernel makes mode 000) goes with one discard
		run "$ARCTURN_BIN" discard --yes
		assert_success
		[ -z "$(ls "$HOME/.arcturn/overlays")" ]
	fi
}

# Send SIG to arcturn running CMD; the command's trap writes a file.
SIGNAL_PY='import os, signal, subprocess, sys, time
sig, ready, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
p = subprocess.Popen(argv, preexec_fn=lambda: [signal.signal(s, signal.SIG_DFL)
    for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP, signal.SIGTERM)])
for i in range(200):
    if os.path.exists(ready):
        break
    time.sleep(0.05)
p.send_signal(getattr(signal, "SIG" + sig))
try:
    print("status", p.wait(20))
except subprocess.TimeoutExpired:
    p.kill()
    print("status timeout")'

t_signals_reach() {
	local sig
	for sig in INT TERM HUP; do
		rm -f "$TMPDIR/ready" "$TMPDIR/got"
		run python3 -c "$SIGNAL_PY" "$sig" "$TMPDIR/ready" "$ARCTURN_BIN" \
		    exec "$@" -- sh -c "trap 'echo $sig > \"\$TMPDIR/got\"; exit 7' $sig
			: > \"\$TMPDIR/ready\"
			while :; do sleep 0.05; done"
		echo "$sig: $output"
		assert_output "status 7"
		assert_equal "$(cat "$TMPDIR/got")" "$sig"
	done
	# killed by a signal: arcturn ends by the same signal; a dry run
	# records the session after the command and then exits 128 + the
	# signal (what a shell shows for both)
	run python3 -c 'import subprocess, sys
print(subprocess.run(sys.argv[1:]).returncode)' "$ARCTURN_BIN" exec "$@" -- \
	    sh -c 'kill -TERM $$'
	if [ "${1:-}" = --dry-run ]; then
		assert_output 143
	else
		assert_output -- -15
	fi
}

# --- standard descriptors
# (bats' `run` puts a pipe on fds 1 and 2 itself: the descriptors under
# test are set up inside a `sh -c 'exec ...'` so the command gets them.)

# Inherited write fds on files outside: reopened through /dev/stdout,
# /dev/stderr and /proc/self/fd/N with the rights they already have.
t_dev_stderr() {
	make_outside
	local rc=0
	"$ARCTURN_BIN" exec "$@" -- sh -c 'echo one; echo two >> /dev/stdout
		echo three >> /proc/self/fd/1; echo err > /dev/stderr
		echo err2 >> /proc/self/fd/2' >"$OUT/o" 2>"$OUT/e" || rc=$?
	assert_equal "$rc" 0
	assert_equal "$(cat "$OUT/o")" "one
two
three"
	assert_equal "$(cat "$OUT/e")" "err
err2"
	# the rule is for those two files alone: their neighbours stay shut
	assert_equal "$(cat "$OUT/f")" original
	"$ARCTURN_BIN" exec "$@" -- sh -c "echo x > '$OUT/f'" >"$OUT/o" \
	    2>"$OUT/e" || true
	assert_equal "$(cat "$OUT/f")" original
}

# A file outside open read-only on fd 1 or 2 is no way to write it.
t_readonly_fd1() {
	make_outside
	local before
	before=$(snap "$OUT")
	# shellcheck disable=SC2016
	run sh -c 'f=$1 g=$2; shift 2; exec "$@" 1<"$f" 2<"$g"' sh \
	    "$OUT/f" "$OUT/dir/g" "$ARCTURN_BIN" exec "$@" -- sh -c '
		echo x >> /dev/stdout; echo "rc=$?" > "$1/rc"
		echo x > /proc/self/fd/1; echo "rc=$?" >> "$1/rc"
		python3 -c "import os; os.write(os.open(\"/proc/self/fd/1\", os.O_WRONLY), b\"y\")"; echo "rc=$?" >> "$1/rc"
		echo x >> /dev/stderr; echo "rc=$?" >> "$1/rc"
		truncate -s0 /proc/self/fd/2; echo "rc=$?" >> "$1/rc"' sh "$TMPDIR"
	assert_success
	cat "$TMPDIR/rc"
	# the command ran every attempt
	assert_equal "$(grep -c '^rc=' "$TMPDIR/rc")" 5
	assert_equal "$(snap "$OUT")" "$before"
	assert_equal "$(cat "$OUT/f")" original
}

# A directory on fd 0, 1 or 2 is refused before the command runs: 125 and
# one line (on stderr, unless stderr is the directory itself).
t_dir_fd() {
	make_outside
	local before fd
	before=$(snap "$OUT")
	for fd in 0 1 2; do
		# shellcheck disable=SC2016
		run -125 --separate-stderr sh -c 'fd=$1 d=$2; shift 2
			case $fd in
			0) exec "$@" <"$d" ;;
			1) exec "$@" 1<"$d" ;;
			2) exec "$@" 2<"$d" ;;
			esac' sh "$fd" "$OUT" "$ARCTURN_BIN" exec "$@" -- sh -c \
		    "chmod 700 /proc/self/fd/$fd/dir; touch /proc/self/fd/$fd/f
		     echo ran > '$WS/ran'"
		echo "fd $fd: $stderr"
		if [ "$fd" != 2 ]; then
			assert_equal "${#stderr_lines[@]}" 1
			[[ $stderr == "arcturn: exec: "*" is a directory ($OUT): refused"* ]]
		fi
		[ ! -e "$WS/ran" ]
	done
	assert_equal "$(snap "$OUT")" "$before"
}
