/*
 * gate_calls.c: the socket calls the unix socket gate (gate.h) makes on
 * the command's behalf: connect and bind through a pinned target,
 * datagrams (sendto, sendmsg, sendmmsg) with their payload, address and
 * SCM_RIGHTS copied from the command.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gate_calls.h"
#include "gate_filter.h"

/* The user_msghdr and mmsghdr of a 64-bit process, as the kernel has them. */
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

/* The most a datagram call may carry (the kernel's limit is lower). */
#define MAXPAYLOAD	(8 << 20)

struct call {
	pid_t		 tid;
	uint64_t	 id;
	const uint64_t	*arg;
	int		 procpid;
	int		 sock;		/* our duplicate, or -1 */
	int		 pinfd;		/* the pinned target or dir, or -1 */
};

/* "N" or "N/name": the pinned file (or a name in the pinned dir). */
static int
pinned_addr(struct sockaddr_un *su, socklen_t *len, int fd, const char *name)
{
	int n;

	memset(su, 0, sizeof *su);
	su->sun_family = AF_UNIX;
	n = snprintf(su->sun_path, sizeof su->sun_path, "%d%s%s", fd,
	    name != NULL ? "/" : "", name != NULL ? name : "");
	if (n < 0 || (size_t)n >= sizeof su->sun_path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	return 0;
}

/* The path in a unix address of len bytes, or NULL (abstract, unnamed). */
static const char *
unix_path(struct sockaddr_storage *ss, socklen_t len)
{
	struct sockaddr_un *su = (struct sockaddr_un *)ss;
	size_t max;

	if (len <= offsetof(struct sockaddr_un, sun_path) ||
	    su->sun_family != AF_UNIX || su->sun_path[0] == '\0')
		return NULL;
	max = len - offsetof(struct sockaddr_un, sun_path);
	if (max >= sizeof su->sun_path)
		max = sizeof su->sun_path - 1;
	su->sun_path[max] = '\0';	/* as the kernel ends it */
	return su->sun_path;
}

/*
 * Read the address (addr, len) of the call: the copy every later step
 * uses. 0, or -1 with errno as the kernel would say.
 */
static int
read_addr(struct call *c, uint64_t addr, uint64_t len64,
    struct sockaddr_storage *ss, socklen_t *len)
{
	int l = (int)len64;

	if (l < 0 || (size_t)l > sizeof *ss) {
		errno = EINVAL;
		return -1;
	}
	memset(ss, 0, sizeof *ss);
	*len = (socklen_t)l;
	if (l > 0 && addr == 0) {
		errno = EFAULT;
		return -1;
	}
	return gate_readmem(c->tid, addr, ss, (size_t)l);
}

/* Our duplicate of the call's socket (checked that the call is live). */
static int
get_sock(struct call *c, int fd)
{
	if ((c->sock = gate_target_fd(c->tid, c->id, fd, &c->procpid)) < 0)
		return -1;
	if (!gate_valid(c->id)) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

/*
 * A pathname address: pin its socket and decide; rewrite *su to name the
 * pin. 0, or -1 with errno.
 */
static int
target(struct call *c, const char *path, struct sockaddr_un *su,
    socklen_t *len)
{
	if ((c->pinfd = gate_pin(c->procpid, path, 0)) < 0)
		return -1;
	if (gate_decide(c->pinfd) < 0)
		return -1;
	return pinned_addr(su, len, c->pinfd, NULL);
}

static int64_t
do_connect(struct call *c)
{
	struct sockaddr_storage ss;
	socklen_t len;
	const char *path;

	if (read_addr(c, c->arg[1], c->arg[2], &ss, &len) < 0 ||
	    get_sock(c, (int)c->arg[0]) < 0)
		return -1;
	if ((path = unix_path(&ss, len)) != NULL &&
	    target(c, path, (struct sockaddr_un *)&ss, &len) < 0)
		return -1;
	return connect(c->sock, (struct sockaddr *)&ss, len);
}

static int64_t
do_bind(struct call *c)
{
	struct sockaddr_storage ss;
	struct sockaddr_un su;
	socklen_t len;
	const char *path, *name;
	char dir[sizeof su.sun_path];
	int r;

	if (read_addr(c, c->arg[1], c->arg[2], &ss, &len) < 0 ||
	    get_sock(c, (int)c->arg[0]) < 0)
		return -1;
	if ((path = unix_path(&ss, len)) == NULL)
		return bind(c->sock, (struct sockaddr *)&ss, len);
	/* the folder pinned, the name made in it */
	snprintf(dir, sizeof dir, "%s", path);
	if ((name = strrchr(path, '/')) == NULL) {
		snprintf(dir, sizeof dir, ".");
		name = path;
	} else {
		dir[name - path] = '\0';
		if (dir[0] == '\0')
			snprintf(dir, sizeof dir, "/");
		name++;
	}
	if (*name == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		errno = ENOENT;
		return -1;
	}
	if ((c->pinfd = gate_pin(c->procpid, dir, 1)) < 0 ||
	    pinned_addr(&su, &len, c->pinfd, name) < 0)
		return -1;
	if ((r = bind(c->sock, (struct sockaddr *)&su, len)) == 0)
		gate_record(c->sock, c->pinfd, name);
	return r;
}

/* 1 when the call's socket is an AF_UNIX datagram socket. */
static int
unix_dgram(int sock)
{
	int v;
	socklen_t l = sizeof v;

	if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &v, &l) < 0 ||
	    v != AF_UNIX)
		return 0;
	l = sizeof v;
	return getsockopt(sock, SOL_SOCKET, SO_TYPE, &v, &l) == 0 &&
	    v == SOCK_DGRAM;
}

#define CONTINUE	(-2)

static int64_t
do_sendto(struct call *c)
{
	struct sockaddr_storage ss;
	socklen_t len;
	const char *path;
	uint64_t n = c->arg[2];
	char *buf;
	int64_t r;
	int e;

	if (get_sock(c, (int)c->arg[0]) < 0)
		return -1;
	if (!unix_dgram(c->sock))
		return CONTINUE;	/* no path to reach (gate.h: the race) */
	if (read_addr(c, c->arg[4], c->arg[5], &ss, &len) < 0)
		return -1;
	if ((path = unix_path(&ss, len)) != NULL &&
	    target(c, path, (struct sockaddr_un *)&ss, &len) < 0)
		return -1;
	if (n > MAXPAYLOAD) {
		errno = EMSGSIZE;
		return -1;
	}
	if ((buf = malloc(n ? n : 1)) == NULL)
		return -1;
	if (gate_readmem(c->tid, c->arg[1], buf, n) < 0)
		r = -1;
	else
		r = sendto(c->sock, buf, n, (int)c->arg[3] | MSG_NOSIGNAL,
		    (struct sockaddr *)&ss, len);
	e = errno;
	free(buf);
	errno = e;
	return r;
}

/* The fds an SCM_RIGHTS message of the command names, made ours. */
static int
rights(struct call *c, char *ctl, size_t len, int *fds, int *nfds)
{
	size_t off = 0, hl = 16;	/* struct cmsghdr on 64 bits */
	uint64_t clen;
	int32_t level, type, *v;
	size_t i, k;

	while (off + hl <= len) {
		memcpy(&clen, ctl + off, 8);
		memcpy(&level, ctl + off + 8, 4);
		memcpy(&type, ctl + off + 12, 4);
		if (clen < hl || clen > len - off)
			break;
		if (level == SOL_SOCKET && type == SCM_RIGHTS) {
			k = (clen - hl) / 4;
			v = (int32_t *)(ctl + off + hl);
			for (i = 0; i < k; i++) {
				int mine;

				if (*nfds >= 253) {
					errno = EINVAL;
					return -1;
				}
				mine = gate_target_fd(c->tid, c->id, v[i],
				    &c->procpid);
				if (mine < 0)
					return -1;
				fds[(*nfds)++] = mine;
				v[i] = mine;
			}
		}
		off += (clen + 7) & ~(uint64_t)7;
	}
	return 0;
}

/* One message of the command's, sent here (the socket is unix dgram). */
static int64_t
send_one(struct call *c, const struct kmsghdr *m, int flags)
{
	struct sockaddr_storage ss;
	struct sockaddr_un *su = (struct sockaddr_un *)&ss;
	struct kiovec *kiov = NULL;
	struct kmsghdr out;
	struct iovec one;
	socklen_t len = 0;
	const char *path;
	char *buf = NULL, *ctl = NULL;
	uint64_t total = 0, i, off;
	int fds[256], nfds = 0, e, pinned = -1;
	int64_t r = -1;

	memset(&out, 0, sizeof out);
	if (m->name != 0 && m->namelen != 0) {
		if (read_addr(c, m->name, m->namelen, &ss, &len) < 0)
			return -1;
		if ((path = unix_path(&ss, len)) != NULL) {
			if ((pinned = gate_pin(c->procpid, path, 0)) < 0 ||
			    gate_decide(pinned) < 0 ||
			    pinned_addr(su, &len, pinned, NULL) < 0)
				goto out;
		}
		out.name = (uint64_t)(uintptr_t)&ss;
		out.namelen = len;
	}
	if (m->iovlen > 1024) {
		errno = EMSGSIZE;
		goto out;
	}
	if (m->iovlen > 0) {
		if ((kiov = calloc(m->iovlen, sizeof *kiov)) == NULL ||
		    gate_readmem(c->tid, m->iov, kiov,
		    m->iovlen * sizeof *kiov) < 0)
			goto out;
		for (i = 0; i < m->iovlen; i++) {
			if (kiov[i].len > MAXPAYLOAD - total) {
				errno = EMSGSIZE;
				goto out;
			}
			total += kiov[i].len;
		}
	}
	if ((buf = malloc(total ? total : 1)) == NULL)
		goto out;
	for (i = 0, off = 0; i < m->iovlen; off += kiov[i].len, i++)
		if (gate_readmem(c->tid, kiov[i].base, buf + off,
		    kiov[i].len) < 0)
			goto out;
	one.iov_base = buf;
	one.iov_len = total;
	out.iov = (uint64_t)(uintptr_t)&one;
	out.iovlen = 1;
	if (m->control != 0 && m->controllen != 0) {
		if (m->controllen > 65536) {
			errno = ENOBUFS;
			goto out;
		}
		if ((ctl = malloc(m->controllen)) == NULL ||
		    gate_readmem(c->tid, m->control, ctl, m->controllen) < 0 ||
		    rights(c, ctl, m->controllen, fds, &nfds) < 0)
			goto out;
		out.control = (uint64_t)(uintptr_t)ctl;
		out.controllen = m->controllen;
	}
	r = syscall(SYS_sendmsg, c->sock, &out, flags | MSG_NOSIGNAL);
out:
	e = errno;
	while (nfds > 0)
		close(fds[--nfds]);
	if (pinned >= 0)
		close(pinned);
	free(kiov);
	free(buf);
	free(ctl);
	errno = e;
	return r;
}

static int64_t
do_sendmsg(struct call *c)
{
	struct kmsghdr m;

	if (get_sock(c, (int)c->arg[0]) < 0)
		return -1;
	if (!unix_dgram(c->sock))
		return CONTINUE;
	if (gate_readmem(c->tid, c->arg[1], &m, sizeof m) < 0)
		return -1;
	return send_one(c, &m, (int)c->arg[2]);
}

static int64_t
do_sendmmsg(struct call *c)
{
	struct kmmsghdr *v;
	uint64_t n = c->arg[2], i;
	int64_t r = 0, s;
	uint32_t sent;
	int e = 0;

	if (get_sock(c, (int)c->arg[0]) < 0)
		return -1;
	if (!unix_dgram(c->sock))
		return CONTINUE;
	if (n > 1024)
		n = 1024;
	if (n == 0)
		return 0;
	if ((v = calloc(n, sizeof *v)) == NULL)
		return -1;
	if (gate_readmem(c->tid, c->arg[1], v, n * sizeof *v) < 0) {
		free(v);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if ((s = send_one(c, &v[i].hdr, (int)c->arg[3])) < 0) {
			e = errno;
			break;
		}
		sent = (uint32_t)s;
		if (gate_writemem(c->tid, c->arg[1] + i * sizeof *v +
		    offsetof(struct kmmsghdr, len), &sent, sizeof sent) < 0) {
			e = EFAULT;
			r++;
			break;
		}
		r++;
	}
	free(v);
	if (r == 0 && e != 0) {
		errno = e;
		return -1;
	}
	return r;
}

void
gate_handle(const struct seccomp_notif_ *req,
    struct seccomp_notif_resp_ *resp)
{
	struct call c = { (pid_t)req->pid, req->id, req->data.args, 0, -1,
	    -1 };
	int64_t r;

	memset(resp, 0, sizeof *resp);
	resp->id = req->id;
	errno = 0;
	switch (req->data.nr) {
	case N_CONNECT:
		r = do_connect(&c);
		break;
	case N_BIND:
		r = do_bind(&c);
		break;
	case N_SENDTO:
		r = do_sendto(&c);
		break;
	case N_SENDMSG:
		r = do_sendmsg(&c);
		break;
	case N_SENDMMSG:
		r = do_sendmmsg(&c);
		break;
	default:
		r = -1;
		errno = ENOSYS;
		break;
	}
	if (r == CONTINUE)
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE_;
	else if (r < 0)
		resp->error = -(errno != 0 ? errno : EIO);
	else
		resp->val = r;
	if (c.sock >= 0)
		close(c.sock);
	if (c.pinfd >= 0)
		close(c.pinfd);
}
