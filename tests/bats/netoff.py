# netoff.py: the channels --network off must cut, tried for real, and an
# observer outside the sandbox that reports what reached it.
#
#   netoff.py observe LOG
#	TCP and UDP on one port of 127.0.0.1 (for root also a raw ICMP
#	socket and a packet socket on lo); prints the port and closes stdout
#	when ready; then appends to LOG every payload received over TCP or
#	UDP, every ICMP echo request's payload, and every packet-channel
#	marker seen in a frame on lo; ends on a UDP datagram "stop", after
#	reading what is already there.
#   netoff.py send CH PORT MARK
#	send MARK to the observer over channel CH: mptcp, udp, icmp (a ping
#	socket), raw (a raw ICMP socket), packet (an AF_PACKET frame on lo
#	carrying UDP). Exits 0 ("sent") when it went out (icmp and raw: and
#	the echo reply came back), 1 ("error ERRNO TEXT") when refused.
import os, re, select, socket, struct, sys

def observe(log):
    t = socket.socket()
    t.bind(("127.0.0.1", 0))
    t.listen(8)
    port = t.getsockname()[1]
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind(("127.0.0.1", port))
    socks = [t, u]
    try:
        r = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
        socks.append(r)
        pk = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
            socket.htons(3))	# ETH_P_ALL
        pk.bind(("lo", 0))
        socks.append(pk)
    except OSError:
        r = pk = None
    out = open(log, "a")
    print(port, flush=True)
    os.close(1)
    conns, stop = [], False
    while True:
        ready, _, _ = select.select(socks + conns, [], [], 0 if stop else 30)
        if not ready:
            break
        for s in ready:
            if s is t:
                c, _ = t.accept()
                conns.append(c)
            elif s is u:
                d = u.recv(65536)
                if d == b"stop":
                    stop = True
                else:
                    out.write(d.decode(errors="replace") + "\n")
            elif s is pk:
                for w in re.findall(rb"(?:ctl|in)-packet", s.recv(65536)):
                    out.write(w.decode() + "\n")
            elif s is r:
                d = r.recv(65536)
                ihl = (d[0] & 15) * 4
                if d[ihl] == 8:		# echo request
                    out.write(d[ihl + 8:].decode(errors="replace") + "\n")
            else:
                d = s.recv(65536)
                if d:
                    out.write(d.decode(errors="replace") + "\n")
                else:
                    conns.remove(s)
                    s.close()
        out.flush()

def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xffff)
    s += s >> 16
    return ~s & 0xffff

def echo(s, mark, raw):
    hdr = struct.pack("!BBHHH", 8, 0, 0, 0x4172, 1)
    pkt = hdr[:2] + struct.pack("!H", csum(hdr + mark)) + hdr[4:] + mark
    s.settimeout(5)
    s.sendto(pkt, ("127.0.0.1", 0))
    while True:
        d = s.recv(65536)
        if raw:
            d = d[(d[0] & 15) * 4:]
        if d[0] == 0 and d[8:] == mark:
            return

def send(ch, port, mark):
    m = mark.encode()
    if ch == "mptcp":
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)
        s.settimeout(5)
        s.connect(("127.0.0.1", port))
        s.sendall(m)
        s.close()
    elif ch == "udp":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(m, ("127.0.0.1", port))
    elif ch in ("icmp", "raw"):
        raw = ch == "raw"
        s = socket.socket(socket.AF_INET,
            socket.SOCK_RAW if raw else socket.SOCK_DGRAM, socket.IPPROTO_ICMP)
        echo(s, m, raw)
    elif ch == "packet":
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind(("lo", 0))
        udp = struct.pack("!HHHH", 40000, port, 8 + len(m), 0) + m
        lo = socket.inet_aton("127.0.0.1")
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64,
            17, 0, lo, lo)
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        s.send(b"\0" * 12 + b"\x08\x00" + ip + udp)
    print("sent")

if sys.argv[1] == "observe":
    observe(sys.argv[2])
    sys.exit(0)
try:
    send(sys.argv[2], int(sys.argv[3]), sys.argv[4])
except OSError as e:
    print("error", e.errno, e.strerror)
    sys.exit(1)
