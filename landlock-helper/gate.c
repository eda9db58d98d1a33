/*
 * gate.c: the unix socket gate's supervisor (gate.h): its state, reaching
 * into the command, the policy, and the sockets the command bound. The
 * filter is in gate_filter.c, the calls made on the command's behalf in
 * gate_calls.c, the threads that take the filter's notifications in
 * gate_worker.c.
 */
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fmt.h"
#include "gate.h"


/* Kernel UAPI (linux/netlink.h, linux/unix_diag.h). */
struct nlmsghdr_ {
	uint32_t	 len;
	uint16_t	 type;
	uint16_t	 flags;
	uint32_t	 seq;
	uint32_t	 pid;
};

struct unix_diag_req_ {
	uint8_t		 family;
	uint8_t		 protocol;
	uint16_t	 pad;
	uint32_t	 states;
	uint32_t	 ino;
	uint32_t	 show;
	uint32_t	 cookie[2];
};

struct unix_diag_msg_ {
	uint8_t		 family;
	uint8_t		 type;
	uint8_t		 state;
	uint8_t		 pad;
	uint32_t	 ino;
	uint32_t	 cookie[2];
};

#define NETLINK_SOCK_DIAG_	4
#define SOCK_DIAG_BY_FAMILY_	20
#define NLM_F_REQUEST_		1
#define NLMSG_ERROR_		2
#define UDIAG_SHOW_VFS_		2
#define UNIX_DIAG_VFS_		1

#define PIDFD_THREAD_	O_EXCL
#define KCMP_FILES_	2
#define KCMP_FS_	3

/* ---- the supervisor's state, shared by its threads */

#define NPIDS		32
#define NALLOWED	64
#define MAXREC		4096
/* A socket whose ctime is this close to the start counts as new. */
#define SLACK_NS	50000000LL

static const struct opts *pol;
static int listener = -1;
static struct timespec start;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* pidfds of the command's processes, by thread id */
static struct pident {
	pid_t	 tid;
	int	 pidfd;
	int	 procpid;	/* its number in our /proc */
	unsigned use;
} pids[NPIDS];
static unsigned pidclock;

/* sockets the command's processes bound, pinned by an O_PATH fd */
static struct rec {
	dev_t	 dev;
	ino_t	 ino;
	int	 fd;
} *recs;
static int nrecs;

/* sockets found allowed by (b) or (c), by inode and ctime */
static struct okent {
	dev_t		 dev;
	ino_t		 ino;
	struct timespec	 ctim;
} oks[NALLOWED];
static unsigned nok;

static char refused[PATH_MAX];
static unsigned long nrefused;

void
gate_clock(void)
{
	clock_gettime(CLOCK_REALTIME, &start);
}

/* ---- reaching into the command */

int
gate_readmem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };
	ssize_t n;

	if (len == 0)
		return 0;
	n = process_vm_readv(pid, &l, 1, &r, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	errno = n < 0 && errno != EFAULT && errno != ENOMEM ? errno : EFAULT;
	return -1;
}

int
gate_writemem(pid_t pid, uint64_t addr, const void *buf, size_t len)
{
	struct iovec l = { (void *)buf, len },
	    r = { (void *)(uintptr_t)addr, len };

	return process_vm_writev(pid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 :
	    -1;
}

int
gate_valid(uint64_t id)
{
	return ioctl(listener, NOTIF_ID_VALID, &id) == 0;
}

/* strstr(buf, key) for a key that starts with \n, without strstr's 1.3 KB. */
static const char *
line_of(const char *buf, const char *key)
{
	size_t n = strlen(key);

	for (; (buf = strchr(buf, '\n')) != NULL; buf++)
		if (strncmp(buf, key, n) == 0)
			return buf;
	return NULL;
}

/* The number after "\nkey" in /proc file path (0 when there is none). */
static int
proc_field(const char *path, const char *key)
{
	const char *p;
	char buf[1024];
	ssize_t n;
	int fd;

	if ((fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if ((p = line_of(buf, key)) == NULL)
		return 0;
	return (int)fmt_long(p + strlen(key), NULL);
}

/* The "Pid:" of a pidfd, as our /proc numbers it. */
static int
fdinfo_pid(int pidfd)
{
	char path[64];

	fmt_buf(path, sizeof path, "/proc/self/fdinfo/%d", pidfd);
	return proc_field(path, "\nPid:");
}

/* The thread group of thread tid, as our /proc knows it. */
static pid_t
proc_tgid(pid_t tid)
{
	char path[64];

	fmt_buf(path, sizeof path, "/proc/%d/status", (int)tid);
	return (pid_t)proc_field(path, "\nTgid:");
}

/* n numbers after "\nkey" in buf (last: only the line's last one). */
static int
status_nums(const char *buf, const char *key, long *v, int n, int last)
{
	const char *p;
	char *end;
	int k = 0;

	if ((p = line_of(buf, key)) == NULL)
		return -1;
	for (p += strlen(key); k < n || last; p = end) {
		long x;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			break;
		if ((x = fmt_long(p, &end)) < 0 || end == p)
			break;
		v[last ? 0 : k] = x;
		k++;
	}
	return k >= n ? 0 : -1;
}

int
gate_ids(int procpid, pid_t *tgid, uid_t uid[3], gid_t gid[3])
{
	char path[64], buf[2048];
	long t, u[3], g[3];
	ssize_t n;
	int fd, i;

	fmt_buf(path, sizeof path, "/proc/%d/status", procpid);
	if ((fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0) {
		errno = ESRCH;
		return -1;
	}
	buf[n] = '\0';
	/* NStgid's last number is the one its own namespace gives it */
	if ((status_nums(buf, "\nNStgid:", &t, 1, 1) < 0 &&
	    status_nums(buf, "\nTgid:", &t, 1, 0) < 0) ||
	    status_nums(buf, "\nUid:", u, 3, 0) < 0 ||
	    status_nums(buf, "\nGid:", g, 3, 0) < 0) {
		errno = ESRCH;
		return -1;
	}
	*tgid = (pid_t)t;
	for (i = 0; i < 3; i++) {
		uid[i] = (uid_t)u[i];
		gid[i] = (gid_t)g[i];
	}
	return 0;
}

void
gate_sigpipe(int procpid)
{
	pid_t tgid = proc_tgid(procpid);

	if (tgid > 0)
		(void)syscall(SYS_tgkill, tgid, procpid, SIGPIPE);
}

/* Do threads a and b share one descriptor table and one fs? */
static int
shares_table(pid_t a, pid_t b)
{
	return syscall(SYS_kcmp, a, b, KCMP_FILES_, 0, 0) == 0 &&
	    syscall(SYS_kcmp, a, b, KCMP_FS_, 0, 0) == 0;
}

/*
 * A pidfd through which thread tid's descriptors are reached, or -1 with
 * errno: ENOENT (gone), EPERM (a descriptor table of its own, on a kernel
 * without PIDFD_THREAD). Any thread may make the trapped
 * call, and each gets the decision the main thread would: a leader is
 * opened as a process, any other thread as itself (PIDFD_THREAD, Linux
 * 6.9; the plain call fails for it, with EINVAL before 6.9 and ENOENT
 * since). A kernel without PIDFD_THREAD gets the thread's group, but only
 * once kcmp shows that the thread shares the group's descriptor table and
 * fs (root, cwd): a thread cloned without CLONE_FILES has a table of its
 * own, and deciding on the leader's descriptor of the same number would
 * let its own socket through. The leader is not parked and may split its
 * table off (unshare, exec) at any time, never join one again: *group is
 * set to the group reached this way, and the caller checks with
 * shares_table after taking the descriptor, and keeps no such pidfd. The
 * thread is parked on the notification, so its number is not reused while
 * we look; the caller checks that the notification is still pending.
 */
static int
task_pidfd(pid_t tid, pid_t *group)
{
	pid_t tgid;
	int pidfd;

	*group = 0;
	if ((pidfd = (int)syscall(SYS_pidfd_open, tid, 0)) >= 0)
		return pidfd;
	if ((pidfd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD_)) >= 0)
		return pidfd;
	if (errno == EINVAL && (tgid = proc_tgid(tid)) > 0 && tgid != tid) {
		if (!shares_table(tid, tgid)) {
			errno = EPERM;
			return -1;
		}
		if ((pidfd = (int)syscall(SYS_pidfd_open, tgid, 0)) >= 0) {
			*group = tgid;
			return pidfd;
		}
	}
	errno = ENOENT;
	return -1;
}

/*
 * A duplicate of descriptor fd of the calling thread tid (0, or -1 with
 * errno: EBADF as the call would have, ENOENT when the call is gone, EPERM
 * as task_pidfd), and
 * the number our /proc knows that thread by.
 */
int
gate_target_fd(pid_t tid, uint64_t id, int fd, int *procpid)
{
	struct pident *e = NULL, *old = &pids[0];
	pid_t group;
	int i, s, pidfd, err;

	pthread_mutex_lock(&mu);
	for (i = 0; i < NPIDS; i++) {
		if (pids[i].pidfd > 0 && pids[i].tid == tid)
			e = &pids[i];
		if (pids[i].use < old->use)
			old = &pids[i];
	}
	if (e != NULL) {
		e->use = ++pidclock;
		if ((s = (int)syscall(SYS_pidfd_getfd, e->pidfd, fd, 0)) >= 0 ||
		    errno != ESRCH) {
			*procpid = e->procpid;
			pthread_mutex_unlock(&mu);
			return s;
		}
		close(e->pidfd);
		e->pidfd = 0;
		old = e;
	}
	pthread_mutex_unlock(&mu);
	if ((pidfd = task_pidfd(tid, &group)) < 0)
		return -1;
	/* the pid is the notifying thread's, not a new one's */
	if (!gate_valid(id) || (*procpid = fdinfo_pid(pidfd)) <= 0) {
		close(pidfd);
		errno = ENOENT;
		return -1;
	}
	s = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (group != 0) {
		err = errno;
		close(pidfd);
		if (s >= 0 && !shares_table(tid, group)) {
			close(s);
			err = EPERM;
			s = -1;
		}
		errno = err;
		return s;
	}
	pthread_mutex_lock(&mu);
	if (old->pidfd > 0)
		close(old->pidfd);
	old->tid = tid;
	old->pidfd = pidfd;
	old->procpid = *procpid;
	old->use = ++pidclock;
	pthread_mutex_unlock(&mu);
	return s;
}

/*
 * Resolve path as thread procpid sees it (its root for an absolute path,
 * its cwd for a relative one; its own /proc/self) and pin what it names:
 * an O_PATH fd, or -1 with errno.
 */
int
gate_pin(int procpid, const char *path, int dir)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC };
	char base[64];
	const char *rest = path;
	int bfd, fd, e;

	if (dir)
		how.flags |= O_DIRECTORY;
	if (strncmp(path, "/proc/self/", 11) == 0 ||
	    strncmp(path, "/proc/thread-self/", 18) == 0) {
		fmt_buf(base, sizeof base, "/proc/%d", procpid);
		rest = strchr(path + 6, '/') + 1;
	} else if (path[0] == '/') {
		fmt_buf(base, sizeof base, "/proc/%d/root", procpid);
		how.resolve = RESOLVE_IN_ROOT;
	} else
		fmt_buf(base, sizeof base, "/proc/%d/cwd", procpid);
	if ((bfd = openat(AT_FDCWD, base, O_PATH | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		return -1;
	if (*rest == '\0')
		rest = ".";
	fd = (int)syscall(__NR_openat2, bfd, rest, &how, sizeof how);
	e = errno;
	close(bfd);
	errno = e;
	return fd;
}

/* ---- the policy */

static int
beneath(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return 1;
	return strncmp(path, root, n) == 0 && (path[n] == '/' ||
	    path[n] == '\0');
}

static int
any_beneath(const char *path, const char *const *l, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (beneath(path, l[i]))
			return 1;
	return 0;
}

static int
recorded(const struct stat *st)
{
	int i, r = 0;

	pthread_mutex_lock(&mu);
	for (i = 0; i < nrecs && !r; i++)
		r = recs[i].dev == st->st_dev && recs[i].ino == st->st_ino;
	for (i = 0; i < NALLOWED && !r; i++)
		r = oks[i].ino == st->st_ino && oks[i].dev == st->st_dev &&
		    oks[i].ctim.tv_sec == st->st_ctim.tv_sec &&
		    oks[i].ctim.tv_nsec == st->st_ctim.tv_nsec &&
		    oks[i].ino != 0;
	pthread_mutex_unlock(&mu);
	return r;
}

static void
remember_ok(const struct stat *st)
{
	pthread_mutex_lock(&mu);
	oks[nok % NALLOWED] = (struct okent){ st->st_dev, st->st_ino,
	    st->st_ctim };
	nok++;
	pthread_mutex_unlock(&mu);
}

static void
refuse(const char *path)
{
	pthread_mutex_lock(&mu);
	if (nrefused++ == 0)
		fmt_buf(refused, sizeof refused, "%s", path);
	pthread_mutex_unlock(&mu);
}

static int
older(const struct timespec *t)
{
	long long a = (long long)t->tv_sec * 1000000000LL + t->tv_nsec;
	long long b = (long long)start.tv_sec * 1000000000LL + start.tv_nsec;

	return a < b - SLACK_NS;
}

/*
 * May the command reach the socket pinned on fd (our descriptor number,
 * so that "N" names it from our cwd, /proc/self/fd)? 0, or -1 with errno:
 * ECONNREFUSED (not a socket, as the kernel says), EACCES (refused, and
 * remembered for the report).
 */
int
gate_decide(int fd)
{
	struct stat st, st2;
	char name[16], path[PATH_MAX];
	ssize_t n;

	if (fstat(fd, &st) < 0)
		return -1;
	if (!S_ISSOCK(st.st_mode)) {
		errno = ECONNREFUSED;
		return -1;
	}
	if (pol->all || recorded(&st))
		return 0;
	fmt_buf(name, sizeof name, "%d", fd);
	if ((n = readlink(name, path, sizeof path - 1)) < 0) {
		errno = EACCES;
		return -1;
	}
	path[n] = '\0';
	/* the same socket at the same path in our own view */
	if (path[0] != '/' || stat(path, &st2) < 0 || st2.st_dev != st.st_dev ||
	    st2.st_ino != st.st_ino)
		goto no;
	if (any_beneath(path, pol->a, pol->na) ||
	    (any_beneath(path, pol->s, pol->ns) &&
	    !any_beneath(path, pol->t, pol->nt) && older(&st.st_ctim))) {
		remember_ok(&st);
		return 0;
	}
no:
	refuse(path);
	errno = EACCES;
	return -1;
}

/* ---- sockets the command binds */

/* The inode a bound unix socket's path has, from the kernel (sock_diag). */
static int
bound_inode(int sock, dev_t *dev, ino_t *ino)
{
	struct {
		struct nlmsghdr_	h;
		struct unix_diag_req_	r;
	} req;
	union {
		char		 buf[1024];
		struct nlmsghdr_ h;
	} rep;
	struct unix_diag_msg_ *m;
	struct stat st;
	size_t off;
	ssize_t n;
	int nl, rc = -1;

	if (fstat(sock, &st) < 0)
		return -1;
	if ((nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
	    NETLINK_SOCK_DIAG_)) < 0)
		return -1;
	memset(&req, 0, sizeof req);
	req.h.len = sizeof req;
	req.h.type = SOCK_DIAG_BY_FAMILY_;
	req.h.flags = NLM_F_REQUEST_;
	req.r.family = AF_UNIX;
	req.r.states = ~0U;
	req.r.ino = (uint32_t)st.st_ino;
	req.r.show = UDIAG_SHOW_VFS_;
	req.r.cookie[0] = req.r.cookie[1] = ~0U;
	if (send(nl, &req, sizeof req, 0) != (ssize_t)sizeof req ||
	    (n = recv(nl, &rep, sizeof rep, 0)) < (ssize_t)(sizeof rep.h +
	    sizeof *m) || rep.h.type == NLMSG_ERROR_)
		goto out;
	m = (struct unix_diag_msg_ *)(rep.buf + sizeof rep.h);
	if (m->ino != (uint32_t)st.st_ino)
		goto out;
	for (off = sizeof rep.h + sizeof *m; off + 4 <= (size_t)n;) {
		uint16_t alen, atype;
		uint32_t v[2];

		memcpy(&alen, rep.buf + off, 2);
		memcpy(&atype, rep.buf + off + 2, 2);
		if (alen < 4 || off + alen > (size_t)n)
			break;
		if (atype == UNIX_DIAG_VFS_ && alen >= 12) {
			memcpy(v, rep.buf + off + 4, 8);
			*ino = v[0];
			*dev = makedev(v[1] >> 20, v[1] & 0xfffff);
			rc = 0;
			break;
		}
		off += (alen + 3U) & ~3U;
	}
out:
	close(nl);
	return rc;
}

/*
 * sock was just bound to name in the directory pinned on dfd: remember
 * the socket file as the command's own, pinned so that its inode number
 * cannot come back as another file's. The kernel says which inode the
 * socket was bound to; the name is only used to pin it, and only when it
 * still leads there (a name swapped meanwhile is not recorded). Where the
 * kernel cannot say (a network namespace of the command's own), the name
 * is taken as it is.
 */
void
gate_record(int sock, int dfd, const char *name)
{
	struct stat st;
	dev_t dev = 0;
	ino_t ino = 0;
	int fd, diag;
	struct rec *r;

	diag = bound_inode(sock, &dev, &ino) == 0;
	if ((fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return;
	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode) || (diag &&
	    (st.st_dev != dev || (uint32_t)st.st_ino != (uint32_t)ino))) {
		close(fd);
		return;
	}
	pthread_mutex_lock(&mu);
	if (recs == NULL)
		recs = malloc(MAXREC * sizeof *recs);
	if (recs == NULL) {
		pthread_mutex_unlock(&mu);
		close(fd);
		return;
	}
	if (nrecs == MAXREC) {		/* forget the oldest */
		close(recs[0].fd);
		memmove(recs, recs + 1, (MAXREC - 1) * sizeof *recs);
		nrecs--;
	}
	r = &recs[nrecs++];
	r->dev = st.st_dev;
	r->ino = st.st_ino;
	r->fd = fd;
	pthread_mutex_unlock(&mu);
}

int
gate_dir(void)
{
	return openat(AT_FDCWD, "/proc/self/fd", O_PATH | O_DIRECTORY |
	    O_CLOEXEC);
}

int
gate_init(int fd, int dfd, const struct opts *o)
{
	int rc;

	pol = o;
	listener = fd;
	/*
	 * Our cwd names the pinned files: "N" is our descriptor N, short
	 * enough for any sun_path, and relative, so that a supervisor
	 * further out (arcturn inside arcturn) resolves it in our view.
	 */
	rc = fchdir(dfd);
	close(dfd);
	if (rc < 0)
		return -1;
	/* a peer gone away must not kill the supervisor */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

void
gate_report(void)
{
	pthread_mutex_lock(&mu);
	if (nrefused == 1)
		fmt_err("arcturn: exec: refused to connect to the unix "
		    "socket %s (outside the sandbox; --allow-unix PATH or "
		    "\"unixSockets\" allows it)\n", refused);
	else if (nrefused > 1)
		fmt_err("arcturn: exec: refused to connect to the unix "
		    "socket %s and %lu more (outside the sandbox; --allow-unix "
		    "PATH or \"unixSockets\" allows them)\n", refused,
		    nrefused - 1);
	pthread_mutex_unlock(&mu);
}
