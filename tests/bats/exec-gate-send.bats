#!/usr/bin/env bats
# The socket gate's sends are decided and made on one object (issue 25,
# item 4). A second thread keeps putting a unix datagram socket and a UDP
# socket in turn at one descriptor number while the first sends a
# datagram to an outside unix socket on that number (sendto, sendmsg,
# sendmmsg; build/tools/dgramrace). A gate that checks what the number is
# and lets the kernel go on with the call loses that race: it sees the
# UDP socket, the kernel then finds the unix one (hundreds of datagrams
# in 2,000 tries before the fix). Counted by the outside receiver, on
# every backend and in a dry run; the controls show that the same race
# delivers without arcturn, and under arcturn when the socket is allowed.

load common
load exec_helpers
load exec_escape

setup_file() { probe_machine; }
setup() {
	common_setup
	DR=$ARCTURN_TOOLS/dgramrace
	SOCK=$OUT/log.sock
}
teardown() { escape_teardown; }

TRIES=2000

# The outside receiver on $SOCK, then "$@" (a racing client), then the
# count of datagrams the receiver got: sets SENT (the client's own count)
# and GOT.
race() {
	rm -f "$SOCK" "$T/ready"
	mkfifo "$T/ready"
	"$DR" recv "$SOCK" "$T/ready" >"$T/got" 3>&- &
	DAEMONS+=($!)
	read -r _ <"$T/ready"
	run "$@"
	echo "$output"
	assert_success
	SENT=$(sed -n 's/^sent //p' <<<"$output")
	"$DR" end "$SOCK"
	wait "${DAEMONS[-1]}"
	GOT=$(sed -n 's/^got //p' "$T/got")
	echo "sent $SENT, got $GOT"
	[ -n "$SENT" ]
	[ -n "$GOT" ]
}

# For each send call: the race delivers without arcturn and under arcturn
# with the socket allowed, and nothing arrives when it is refused.
t_swap() {	# backend [exec option]
	local how
	use_backend "$1"
	shift
	for how in sendto sendmsg sendmmsg; do
		race "$DR" race "$SOCK" "$TRIES" "$how"
		[ "$GOT" -gt 0 ]
		[ "$GOT" = "$SENT" ]
		race "$ARCTURN_BIN" exec "$@" --allow-unix "$SOCK" -- \
		    "$DR" race "$SOCK" "$TRIES" "$how"
		[ "$GOT" -gt 0 ]
		[ "$GOT" = "$SENT" ]
		race "$ARCTURN_BIN" exec "$@" -- "$DR" race "$SOCK" "$TRIES" "$how"
		assert_equal "$GOT" 0
		assert_equal "$SENT" 0
		refused_line "$SOCK"
	done
}

@test "helper: a descriptor swapped during a send does not reach an outside socket" {
	t_swap helper
}

@test "helper-landlock: a descriptor swapped during a send does not reach an outside socket" {
	t_swap helper-landlock
}

@test "bwrap: a descriptor swapped during a send does not reach an outside socket" {
	t_swap bwrap
}

@test "helper: a descriptor swapped during a send does not reach an outside socket in a dry run" {
	t_swap helper --dry-run
}

# What the gate does on the sockets it now sends on itself: a command's
# own datagram pair with SCM_RIGHTS and SCM_CREDENTIALS, a stream that
# takes 5 MiB in one sendmsg (sent in pieces), a non-blocking stream's
# partial send, SIGPIPE and EPIPE, UDP, seqpacket and stream sockets
# given an address, MSG_ZEROCOPY (the data intact, the completion
# reported). The same script without arcturn is the reference.
SENDS_PY='import os, signal, socket, struct, threading
r = []
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
b.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
fd = os.open("/dev/null", os.O_RDONLY)
a.sendmsg([b"he", b"llo"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", fd))])
m, anc, _, _ = b.recvmsg(100, 4096)
r.append("pair %s, %d fd" % (m.decode(), sum(len(d) // 4 for _, t, d in anc if t == socket.SCM_RIGHTS)))
me = struct.pack("iII", os.getpid(), os.getuid(), os.getgid())
a.sendmsg([b"cred"], [(socket.SOL_SOCKET, socket.SCM_CREDENTIALS, me)])
r.append("creds %s" % b.recv(10).decode())
s, t = socket.socketpair()
N = 5 << 20
got = []
def rd():
    n = 0
    while n < N:
        d = t.recv(1 << 16)
        if not d:
            break
        n += len(d)
    got.append(n)
th = threading.Thread(target=rd)
th.start()
r.append("stream sent %d" % s.sendmsg([b"x" * (N // 2), b"y" * (N - N // 2)]))
th.join()
r.append("stream read %d" % got[0])
for how in ("sendto", "sendmsg"):
    try:
        if how == "sendto":
            s.sendto(b"x", "/nonexistent")
        else:
            s.sendmsg([b"x"], [], 0, "/nonexistent")
    except OSError as e:
        r.append("stream %s with an address: %s" % (how, e.strerror))
s.setblocking(False)
r.append("non-blocking partial %s" % (s.sendmsg([b"z" * (8 << 20)]) < (8 << 20)))
u, v = socket.socketpair()
v.close()
signal.signal(signal.SIGPIPE, lambda *_: r.append("SIGPIPE"))
for fl in (0, socket.MSG_NOSIGNAL):
    try:
        u.sendmsg([b"x"], [], fl)
    except OSError as e:
        r.append("flags %d: %s" % (fl, e.strerror))
x = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
x.bind(("127.0.0.1", 0))
y = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
y.sendto(b"udp1", x.getsockname())
y.sendmsg([b"udp2"], [], 0, x.getsockname())
r.append("udp %s %s" % (x.recv(10).decode(), x.recv(10).decode()))
l = socket.socket()
l.bind(("127.0.0.1", 0))
l.listen(1)
z = socket.socket()
z.setsockopt(socket.SOL_SOCKET, 60, 1)  # SO_ZEROCOPY
z.connect(l.getsockname())
w, _ = l.accept()
zs = [bytes([65 + k]) * 100000 for k in range(4)]
for d in zs:
    z.sendmsg([d], [], 0x4000000)  # MSG_ZEROCOPY
zr = bytearray()
while len(zr) < len(zs) * 100000:
    zr.extend(w.recv(1 << 16))
r.append("zerocopy intact %s" % (bytes(zr) == b"".join(zs)))
r.append("zerocopy notified %s" % (len(z.recvmsg(0, 1000, socket.MSG_ERRQUEUE)[1]) > 0))
p, q = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
p.sendto(b"seq", "/nonexistent")
r.append("seqpacket %s" % q.recv(10).decode())
print("\n".join(r))'

@test "helper: sends the gate makes itself behave as the kernel's" {
	use_backend helper
	run -0 python3 -c "$SENDS_PY"
	local want=$output
	assert_line "pair hello, 1 fd"
	assert_line "creds cred"
	assert_line "stream read 5242880"
	assert_line "stream sendmsg with an address: Transport endpoint is already connected"
	assert_line "non-blocking partial True"
	assert_line SIGPIPE
	assert_line "udp udp1 udp2"
	assert_line "seqpacket seq"
	assert_line "zerocopy intact True"
	assert_line "zerocopy notified True"
	run -0 "$ARCTURN_BIN" exec -- python3 -c "$SENDS_PY"
	assert_output "$want"
}

# SCM_CREDENTIALS naming another process is refused, as the kernel
# refuses it to a command without CAP_SYS_ADMIN (the supervisor, which
# sends, would otherwise vouch for it).
@test "helper: SCM_CREDENTIALS naming another process is refused" {
	use_backend helper
	run -0 "$ARCTURN_BIN" exec -- python3 -c 'import os, socket, struct
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
for pid in (os.getpid(), 1):
    try:
        a.sendmsg([b"c"], [(socket.SOL_SOCKET, socket.SCM_CREDENTIALS, struct.pack("iII", pid, os.getuid(), os.getgid()))])
        print("sent")
    except OSError as e:
        print(e.strerror)'
	assert_output "sent
Operation not permitted"
}
