/*
 * gate_send.c: the sends the unix socket gate makes on the command's
 * behalf (gate_send.h).
 */
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gate_filter.h"
#include "gate_send.h"

/* The user_msghdr, mmsghdr and iovec of a 64-bit process. */
struct kmsghdr {
	uint64_t	 name;
	uint32_t	 namelen;
	uint32_t	 pad1;
	uint64_t	 iov;
	uint64_t	 iovlen;
	uint64_t	 control;
	uint64_t	 controllen;
	uint32_t	 flags;
	uint32_t	 pad2;
};

struct kmmsghdr {
	struct kmsghdr	 hdr;
	uint32_t	 len;
	uint32_t	 pad;
};

struct kiovec {
	uint64_t	 base;
	uint64_t	 len;
};

#define MAXDGRAM	(8 << 20)	/* a datagram (the kernel's limit is lower) */
#define PIECE		(1 << 20)	/* a stream is sent in pieces of this */
#define MAXIOV		1024		/* UIO_MAXIOV */
#define MAXCTL		65536
#define MAXFDS		253		/* SCM_MAX_FD */
#define MAXRW		0x7ffff000ULL	/* MAX_RW_COUNT */
#define CMSGHDR		16		/* struct cmsghdr on 64 bits */
#define SCM_CREDS_	2		/* SCM_CREDENTIALS */
#define MSG_ZEROCOPY_	0x4000000

enum kind { K_UNIX_DGRAM, K_UNIX_STREAM, K_UNIX_SEQPACKET, K_STREAM,
    K_OTHER };

/* One message, copied from the command. */
struct msg {
	struct sockaddr_storage	 ss;
	socklen_t		 namelen;
	int			 pin;		/* the pinned target, or -1 */
	struct kiovec		 one;		/* sendto's buffer */
	struct kiovec		*iov;		/* in the command's memory */
	uint64_t		 niov, total;
	char			*ctl;
	size_t			 ctllen;
	int			 fds[MAXFDS];	/* SCM_RIGHTS, made ours */
	int			 nfds;
};

/* What our duplicate is: 0, or -1 with errno (ENOTSOCK). */
static int
sock_kind(int sock, enum kind *k)
{
	int dom, type;
	socklen_t l = sizeof dom;

	if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &dom, &l) < 0)
		return -1;
	l = sizeof type;
	if (getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &l) < 0)
		return -1;
	if (dom == AF_UNIX)
		*k = type == SOCK_DGRAM ? K_UNIX_DGRAM : type ==
		    SOCK_SEQPACKET ? K_UNIX_SEQPACKET : K_UNIX_STREAM;
	else
		*k = type == SOCK_STREAM ? K_STREAM : K_OTHER;
	return 0;
}

static void
msg_free(struct msg *m)
{
	int e = errno;

	while (m->nfds > 0)
		close(m->fds[--m->nfds]);
	if (m->pin >= 0)
		close(m->pin);
	if (m->iov != &m->one)
		free(m->iov);
	free(m->ctl);
	errno = e;
}

/* The address (addr, len): see gate_send.h for what each kind does. */
static int
load_name(struct gate_call *c, enum kind k, struct msg *m, uint64_t addr,
    uint64_t len)
{
	struct sockaddr_storage peer;
	socklen_t pl = sizeof peer;
	const char *path;

	if (addr == 0 || len == 0 || k == K_UNIX_SEQPACKET)
		return 0;
	if (k == K_UNIX_STREAM) {
		errno = getpeername(c->sock, (struct sockaddr *)&peer,
		    &pl) == 0 ? EISCONN : EOPNOTSUPP;
		return -1;
	}
	if (gate_call_addr(c, addr, len, &m->ss, &m->namelen) < 0)
		return -1;
	if (k == K_UNIX_DGRAM &&
	    (path = gate_unix_path(&m->ss, m->namelen)) != NULL)
		return gate_pin_addr(c, path, &m->ss, &m->namelen, &m->pin);
	return 0;
}

/* The payload's lengths, as the kernel counts them. */
static int
load_total(struct msg *m)
{
	uint64_t i;

	m->total = 0;
	for (i = 0; i < m->niov; i++) {
		if ((int64_t)m->iov[i].len < 0) {
			errno = EINVAL;
			return -1;
		}
		if (m->iov[i].len > MAXRW - m->total)
			m->iov[i].len = MAXRW - m->total;
		m->total += m->iov[i].len;
	}
	return 0;
}

/* SCM_CREDENTIALS: the caller's own, then sent naming us. */
static int
creds(struct gate_call *c, char *v, size_t n)
{
	struct { int32_t pid; uint32_t uid, gid; } u;
	pid_t tgid;
	uid_t uid[3];
	gid_t gid[3];

	if (n != sizeof u) {
		errno = EINVAL;
		return -1;
	}
	memcpy(&u, v, sizeof u);
	if (gate_ids(c->procpid, &tgid, uid, gid) < 0)
		return -1;
	if (u.pid != tgid || (u.uid != uid[0] && u.uid != uid[1] &&
	    u.uid != uid[2]) || (u.gid != gid[0] && u.gid != gid[1] &&
	    u.gid != gid[2])) {
		errno = EPERM;
		return -1;
	}
	u.pid = getpid();
	memcpy(v, &u, sizeof u);
	return 0;
}

/* The ancillary data: SCM_RIGHTS made ours, SCM_CREDENTIALS checked. */
static int
load_ctl(struct gate_call *c, struct msg *m, uint64_t addr, uint64_t len)
{
	uint64_t clen;
	int32_t level, type, *v;
	size_t off, i, k;

	if (len == 0)
		return 0;
	if (len > MAXCTL) {
		errno = ENOBUFS;
		return -1;
	}
	if ((m->ctl = malloc(len)) == NULL)
		return -1;
	m->ctllen = len;
	if (gate_readmem(c->tid, addr, m->ctl, len) < 0)
		return -1;
	for (off = 0; off + CMSGHDR <= len; off += (clen + 7) & ~7ULL) {
		memcpy(&clen, m->ctl + off, 8);
		memcpy(&level, m->ctl + off + 8, 4);
		memcpy(&type, m->ctl + off + 12, 4);
		if (clen < CMSGHDR || clen > len - off) {
			errno = EINVAL;
			return -1;
		}
		if (level != SOL_SOCKET)
			continue;
		if (type == SCM_CREDS_ &&
		    creds(c, m->ctl + off + CMSGHDR, clen - CMSGHDR) < 0)
			return -1;
		if (type != SCM_RIGHTS)
			continue;
		k = (clen - CMSGHDR) / 4;
		v = (int32_t *)(m->ctl + off + CMSGHDR);
		for (i = 0; i < k; i++) {
			if (m->nfds >= MAXFDS) {
				errno = EINVAL;
				return -1;
			}
			if ((v[i] = gate_target_fd(c->tid, c->id, v[i],
			    &c->procpid)) < 0)
				return -1;
			m->fds[m->nfds++] = v[i];
		}
	}
	return 0;
}

/* Copy n bytes of the payload, from byte off on, into buf. */
static int
gather(struct gate_call *c, const struct msg *m, uint64_t off, char *buf,
    size_t n)
{
	struct iovec l = { buf, n }, r[MAXIOV];
	uint64_t i, at, skip, take, left = n;
	int nr = 0;

	for (i = 0, at = 0; i < m->niov && left > 0; at += m->iov[i].len,
	    i++) {
		if (at + m->iov[i].len <= off)
			continue;
		skip = off > at ? off - at : 0;
		take = m->iov[i].len - skip;
		if (take > left)
			take = left;
		r[nr].iov_base = (void *)(uintptr_t)(m->iov[i].base + skip);
		r[nr++].iov_len = take;
		left -= take;
	}
	if (n == 0)
		return 0;
	if (process_vm_readv(c->tid, &l, 1, r, (unsigned long)nr, 0) ==
	    (ssize_t)n)
		return 0;
	errno = EFAULT;
	return -1;
}

/*
 * A buffer of n bytes for one send. With MSG_ZEROCOPY the kernel may read
 * its pages after the call: they must not be written again, so each send
 * gets pages of its own (munmap leaves those the kernel holds to it).
 */
static char *
buf_get(size_t n, int zc)
{
	char *b;

	if (!zc)
		return malloc(n ? n : 1);
	b = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	return b == MAP_FAILED ? NULL : b;
}

static void
buf_put(char *b, size_t n, int zc)
{
	if (!zc)
		free(b);
	else if (b != NULL)
		munmap(b, n ? n : 1);
}

/*
 * Send the message, in pieces on a stream: the bytes sent, or -1 with
 * errno when none were.
 */
static int64_t
send_msg(struct gate_call *c, enum kind k, struct msg *m, int flags)
{
	struct kmsghdr out;
	struct iovec one;
	int stream = k == K_STREAM || k == K_UNIX_STREAM, e = 0;
	int zc = (flags & MSG_ZEROCOPY_) != 0;
	uint64_t done = 0, n, cap;
	int64_t r = -1;
	char *buf;

	if (!stream && m->total > MAXDGRAM) {
		errno = EMSGSIZE;
		return -1;
	}
	cap = stream && m->total > PIECE ? PIECE : m->total;
	if ((buf = buf_get(cap, zc)) == NULL)
		return -1;
	memset(&out, 0, sizeof out);
	if (m->namelen != 0) {
		out.name = (uint64_t)(uintptr_t)&m->ss;
		out.namelen = m->namelen;
	}
	out.iov = (uint64_t)(uintptr_t)&one;
	out.iovlen = 1;
	out.control = (uint64_t)(uintptr_t)m->ctl;
	out.controllen = m->ctllen;
	for (;;) {
		n = m->total - done < cap ? m->total - done : cap;
		if (gather(c, m, done, buf, n) < 0) {
			r = -1;
			break;
		}
		one.iov_base = buf;
		one.iov_len = n;
		r = syscall(SYS_sendmsg, c->sock, &out, flags | MSG_NOSIGNAL);
		if (r < 0)
			break;
		done += (uint64_t)r;
		out.control = out.controllen = 0;	/* sent with the first */
		if (!stream || (uint64_t)r < n || done == m->total)
			break;
		if (zc) {
			buf_put(buf, cap, zc);
			if ((buf = buf_get(cap, zc)) == NULL)
				break;
		}
	}
	e = errno;
	buf_put(buf, cap, zc);
	if (r < 0 && done == 0) {
		/* where the kernel would have raised SIGPIPE */
		if (e == EPIPE && stream && !(flags & MSG_NOSIGNAL))
			gate_sigpipe(c->procpid);
		errno = e;
		return -1;
	}
	return (int64_t)done;
}

/* One message of sendmsg or sendmmsg, header h already copied. */
static int64_t
send_one(struct gate_call *c, enum kind k, const struct kmsghdr *h,
    int flags)
{
	struct msg m;
	int64_t r = -1;

	memset(&m, 0, sizeof m);
	m.pin = -1;
	m.iov = &m.one;
	if ((int32_t)h->namelen < 0) {
		errno = EINVAL;
		return -1;
	}
	if (h->iovlen > MAXIOV) {
		errno = EMSGSIZE;
		return -1;
	}
	m.niov = h->iovlen;
	if (m.niov > 0 && ((m.iov = malloc(m.niov * sizeof *m.iov)) == NULL ||
	    gate_readmem(c->tid, h->iov, m.iov, m.niov * sizeof *m.iov) < 0))
		goto out;
	if (load_name(c, k, &m, h->name, h->namelen > sizeof m.ss ?
	    sizeof m.ss : h->namelen) < 0 || load_total(&m) < 0 ||
	    load_ctl(c, &m, h->control, h->controllen) < 0)
		goto out;
	r = send_msg(c, k, &m, flags);
out:
	msg_free(&m);
	return r;
}

static int64_t
do_sendto(struct gate_call *c, enum kind k)
{
	struct msg m;
	int32_t alen = (int32_t)c->arg[5];
	int64_t r = -1;

	memset(&m, 0, sizeof m);
	m.pin = -1;
	m.iov = &m.one;
	m.niov = 1;
	m.one.base = c->arg[1];
	m.one.len = c->arg[2] > 0x7fffffff ? 0x7fffffff : c->arg[2];
	if (alen < 0 || (size_t)alen > sizeof m.ss)
		errno = EINVAL;
	else if (load_name(c, k, &m, c->arg[4], (uint64_t)alen) == 0 &&
	    load_total(&m) == 0)
		r = send_msg(c, k, &m, (int)c->arg[3]);
	msg_free(&m);
	return r;
}

static int64_t
do_sendmmsg(struct gate_call *c, enum kind k)
{
	struct kmmsghdr v;
	uint64_t vlen = (uint32_t)c->arg[2], i, at;
	uint32_t sent;
	int64_t n = 0, s;

	if (vlen > MAXIOV)
		vlen = MAXIOV;
	for (i = 0; i < vlen; i++, n++) {
		at = c->arg[1] + i * sizeof v;
		if (gate_readmem(c->tid, at, &v, sizeof v) < 0 ||
		    (s = send_one(c, k, &v.hdr, (int)c->arg[3])) < 0)
			return n > 0 ? n : -1;
		sent = (uint32_t)s;
		if (gate_writemem(c->tid, at + offsetof(struct kmmsghdr, len),
		    &sent, sizeof sent) < 0) {
			errno = EFAULT;
			return n > 0 ? n : -1;
		}
	}
	return n;
}

int64_t
gate_send(struct gate_call *c, int nr)
{
	struct kmsghdr h;
	enum kind k;

	if (gate_call_sock(c, (int)c->arg[0]) < 0 || sock_kind(c->sock, &k) < 0)
		return -1;
	switch (nr) {
	case N_SENDTO:
		return do_sendto(c, k);
	case N_SENDMSG:
		if (gate_readmem(c->tid, c->arg[1], &h, sizeof h) < 0)
			return -1;
		return send_one(c, k, &h, (int)c->arg[2]);
	default:
		return do_sendmmsg(c, k);
	}
}
