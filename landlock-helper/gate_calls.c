/*
 * gate_calls.c: the socket calls the unix socket gate (gate.h) makes on
 * the command's behalf (gate_calls.h): connect and bind through a pinned
 * target, and what gate_send.c shares with them.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt.h"
#include "gate_calls.h"
#include "gate_filter.h"
#include "gate_send.h"

/* "N" or "N/name": the pinned file (or a name in the pinned dir). */
static int
pinned_addr(struct sockaddr_un *su, socklen_t *len, int fd, const char *name)
{
	int n;

	memset(su, 0, sizeof *su);
	su->sun_family = AF_UNIX;
	n = fmt_buf(su->sun_path, sizeof su->sun_path, "%d%s%s", fd,
	    name != NULL ? "/" : "", name != NULL ? name : "");
	if (n < 0 || (size_t)n >= sizeof su->sun_path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	return 0;
}

const char *
gate_unix_path(struct sockaddr_storage *ss, socklen_t len)
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

/* The copy of the address that every later step uses. */
int
gate_call_addr(struct gate_call *c, uint64_t addr, uint64_t len64,
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

int
gate_call_sock(struct gate_call *c, int fd)
{
	if ((c->sock = gate_target_fd(c->tid, c->id, fd, &c->procpid)) < 0)
		return -1;
	if (!gate_valid(c->id)) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

int
gate_pin_addr(struct gate_call *c, const char *path,
    struct sockaddr_storage *ss, socklen_t *len, int *pin)
{
	if ((*pin = gate_pin(c->procpid, path, 0)) < 0)
		return -1;
	if (gate_decide(*pin) < 0)
		return -1;
	return pinned_addr((struct sockaddr_un *)ss, len, *pin, NULL);
}

static int64_t
do_connect(struct gate_call *c)
{
	struct sockaddr_storage ss;
	socklen_t len;
	const char *path;

	if (gate_call_addr(c, c->arg[1], c->arg[2], &ss, &len) < 0 ||
	    gate_call_sock(c, (int)c->arg[0]) < 0)
		return -1;
	if ((path = gate_unix_path(&ss, len)) != NULL &&
	    gate_pin_addr(c, path, &ss, &len, &c->pinfd) < 0)
		return -1;
	return connect(c->sock, (struct sockaddr *)&ss, len);
}

static int64_t
do_bind(struct gate_call *c)
{
	struct sockaddr_storage ss;
	struct sockaddr_un su;
	socklen_t len;
	const char *path, *name;
	char dir[sizeof su.sun_path];
	int r;

	if (gate_call_addr(c, c->arg[1], c->arg[2], &ss, &len) < 0 ||
	    gate_call_sock(c, (int)c->arg[0]) < 0)
		return -1;
	if ((path = gate_unix_path(&ss, len)) == NULL)
		return bind(c->sock, (struct sockaddr *)&ss, len);
	/* the folder pinned, the name made in it */
	fmt_buf(dir, sizeof dir, "%s", path);
	if ((name = strrchr(path, '/')) == NULL) {
		fmt_buf(dir, sizeof dir, ".");
		name = path;
	} else {
		dir[name - path] = '\0';
		if (dir[0] == '\0')
			fmt_buf(dir, sizeof dir, "/");
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

void
gate_handle(const struct seccomp_notif_ *req,
    struct seccomp_notif_resp_ *resp)
{
	struct gate_call c = { (pid_t)req->pid, req->id, req->data.args, 0, -1,
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
	case N_SENDMSG:
	case N_SENDMMSG:
		r = gate_send(&c, req->data.nr);
		break;
	default:
		r = -1;
		errno = ENOSYS;
		break;
	}
	if (r < 0)
		resp->error = -(errno != 0 ? errno : EIO);
	else
		resp->val = r;
	if (c.sock >= 0)
		close(c.sock);
	if (c.pinfd >= 0)
		close(c.pinfd);
}
