/*
 * gate.c: the unix socket gate (gate.h): its seccomp filter, and the
 * supervisor that makes the command's socket calls after checking them.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gate.h"

/* Kernel UAPI (linux/seccomp.h, linux/netlink.h, linux/unix_diag.h). */
struct seccomp_data_ {
	int32_t		 nr;
	uint32_t	 arch;
	uint64_t	 ip;
	uint64_t	 args[6];
};

struct seccomp_notif_ {
	uint64_t		 id;
	uint32_t		 pid;
	uint32_t		 flags;
	struct seccomp_data_	 data;
};

struct seccomp_notif_resp_ {
	uint64_t	 id;
	int64_t		 val;
	int32_t		 error;
	uint32_t	 flags;
};

#define SECCOMP_SET_MODE_FILTER_		1
#define SECCOMP_FILTER_FLAG_NEW_LISTENER_	(1UL << 3)
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV_	(1UL << 5)
#define SECCOMP_RET_USER_NOTIF_			0x7fc00000U
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE_	(1UL << 0)
#define NOTIF_RECV	_IOWR('!', 0, struct seccomp_notif_)
#define NOTIF_SEND	_IOWR('!', 1, struct seccomp_notif_resp_)
#define NOTIF_ID_VALID	_IOW('!', 2, uint64_t)

#define BPF_JSET_	0x40
#define PIDFD_THREAD_	O_EXCL

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

/*
 * The system call numbers, native and of the 32-bit compat ABI whose
 * socket calls are refused (the supervisor reads 64-bit layouts only).
 */
#if defined(__x86_64__)
#define ARCH_NATIVE	AUDIT_ARCH_X86_64
#define ARCH_COMPAT	AUDIT_ARCH_I386
#define X32_BIT		0x40000000U
enum { N_IOCTL = 16, N_CONNECT = 42, N_SENDTO = 44, N_SENDMSG = 46,
    N_BIND = 49, N_SENDMMSG = 307 };
static const uint32_t compat_sock[] = { 102, 361, 362, 369, 370, 345 };
#define C_IOCTL		54
#elif defined(__aarch64__)
#define ARCH_NATIVE	AUDIT_ARCH_AARCH64
#define ARCH_COMPAT	AUDIT_ARCH_ARM
enum { N_IOCTL = 29, N_BIND = 200, N_CONNECT = 203, N_SENDTO = 206,
    N_SENDMSG = 211, N_SENDMMSG = 269 };
static const uint32_t compat_sock[] = { 282, 283, 290, 296, 374 };
#define C_IOCTL		54
#else
#error "the unix socket gate knows x86_64 and aarch64"
#endif
#define N_URING_SETUP	425	/* and 426, 427: the same on every ABI */

/* ---- the filter */

enum { L_NEXT, L_ALLOW, L_NOTIFY, L_EPERM, L_EACCES, L_ENOSYS, L_IOCTL,
    L_SENDTO, L_COMPAT, L_N };

#define MAXINS	64
static struct sock_filter insns[MAXINS];
static unsigned char jt_l[MAXINS], jf_l[MAXINS];
static int nins, labels[L_N];
static struct sock_fprog gate_prog = { 0, insns };

static void
emit(uint16_t code, uint32_t k, int lt, int lf)
{
	insns[nins] = (struct sock_filter){ code, 0, 0, k };
	jt_l[nins] = (unsigned char)lt;
	jf_l[nins] = (unsigned char)lf;
	nins++;
}

#define LD(off)		emit(BPF_LD | BPF_W | BPF_ABS, (off), 0, 0)
#define JEQ(k, t, f)	emit(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define RET(v)		emit(BPF_RET | BPF_K, (v), 0, 0)
#define LABEL(l)	(labels[l] = nins)

/*
 * Every path that reads only the architecture and the number ends in
 * ALLOW, so the kernel caches the verdict for those calls and runs no
 * filter for them at all: only ioctl and the socket calls pay.
 */
static void
build(void)
{
	size_t i;
	int k, to;

	nins = 0;
	LD(SECCOMP_DATA_ARCH);
	JEQ(ARCH_NATIVE, L_NEXT, L_COMPAT);
	LD(SECCOMP_DATA_NR);
#ifdef X32_BIT
	emit(BPF_JMP | BPF_JSET_ | BPF_K, X32_BIT, L_ENOSYS, L_NEXT);
#endif
	JEQ(N_IOCTL, L_IOCTL, L_NEXT);
	JEQ(N_CONNECT, L_NOTIFY, L_NEXT);
	JEQ(N_BIND, L_NOTIFY, L_NEXT);
	JEQ(N_SENDMSG, L_NOTIFY, L_NEXT);
	JEQ(N_SENDMMSG, L_NOTIFY, L_NEXT);
	JEQ(N_SENDTO, L_SENDTO, L_NEXT);
	JEQ(N_URING_SETUP, L_EPERM, L_NEXT);
	JEQ(N_URING_SETUP + 1, L_EPERM, L_NEXT);
	JEQ(N_URING_SETUP + 2, L_EPERM, L_NEXT);
	RET(SECCOMP_RET_ALLOW);
	/* sendto with no address goes to the connected peer */
	LABEL(L_SENDTO);
	LD(SECCOMP_DATA_ARG(4));
	JEQ(0, L_NEXT, L_NOTIFY);
	LD(SECCOMP_DATA_ARG(4) + 4);
	JEQ(0, L_ALLOW, L_NOTIFY);
	LABEL(L_COMPAT);
	JEQ(ARCH_COMPAT, L_NEXT, L_ENOSYS);
	LD(SECCOMP_DATA_NR);
	JEQ(C_IOCTL, L_IOCTL, L_NEXT);
	for (i = 0; i < sizeof compat_sock / sizeof compat_sock[0]; i++)
		JEQ(compat_sock[i], L_EACCES, L_NEXT);
	JEQ(N_URING_SETUP, L_EPERM, L_NEXT);
	JEQ(N_URING_SETUP + 1, L_EPERM, L_NEXT);
	JEQ(N_URING_SETUP + 2, L_EPERM, L_ALLOW);
	/* (BPF jumps only forward: the blocks both ABIs share come last) */
	LABEL(L_IOCTL);
	LD(SECCOMP_DATA_ARG(1));
	JEQ(TIOCSTI_CMD, L_EPERM, L_NEXT);
	JEQ(TIOCLINUX_CMD, L_EPERM, L_ALLOW);
	LABEL(L_ALLOW);
	RET(SECCOMP_RET_ALLOW);
	LABEL(L_NOTIFY);
	RET(SECCOMP_RET_USER_NOTIF_);
	LABEL(L_EPERM);
	RET(SECCOMP_RET_ERRNO | EPERM);
	LABEL(L_EACCES);
	RET(SECCOMP_RET_ERRNO | EACCES);
	LABEL(L_ENOSYS);
	RET(SECCOMP_RET_ERRNO | ENOSYS);
	for (k = 0; k < nins; k++) {
		if ((insns[k].code & 0x07) != BPF_JMP)
			continue;
		to = jt_l[k] == L_NEXT ? k + 1 : labels[jt_l[k]];
		insns[k].jt = (uint8_t)(to - k - 1);
		to = jf_l[k] == L_NEXT ? k + 1 : labels[jf_l[k]];
		insns[k].jf = (uint8_t)(to - k - 1);
	}
	gate_prog.len = (unsigned short)nins;
}

int
gate_install(void)
{
	unsigned long fl = SECCOMP_FILTER_FLAG_NEW_LISTENER_ |
	    SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV_;
	int fd;

	if (gate_prog.len == 0)
		build();
	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER_, fl,
	    &gate_prog);
	if (fd < 0 && errno == EINVAL) {
		/* before 5.19: a signal may then restart a call in flight */
		fl &= ~SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV_;
		fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER_, fl,
		    &gate_prog);
	}
	return fd;
}

/* ---- the supervisor's state, shared by its threads */

#define MAXWORKERS	64
#define NPIDS		32
#define NALLOWED	64
#define MAXREC		4096
#define MAXPAYLOAD	(8 << 20)
/* A socket whose ctime is this close to the start counts as new. */
#define SLACK_NS	50000000LL

static const struct opts *pol;
static int listener = -1;
static struct timespec start;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int nworkers, nidle;

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

static int
readmem(pid_t pid, uint64_t addr, void *buf, size_t len)
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

static int
writemem(pid_t pid, uint64_t addr, const void *buf, size_t len)
{
	struct iovec l = { (void *)buf, len },
	    r = { (void *)(uintptr_t)addr, len };

	return process_vm_writev(pid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 :
	    -1;
}

static int
valid(uint64_t id)
{
	return ioctl(listener, NOTIF_ID_VALID, &id) == 0;
}

/* The "Pid:" of a pidfd, as our /proc numbers it. */
static int
fdinfo_pid(int pidfd)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", pidfd);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if ((p = strstr(buf, "\nPid:")) == NULL)
		return -1;
	return atoi(p + 5);
}

/*
 * A duplicate of descriptor fd of the calling thread tid (0, or -1 with
 * errno: EBADF as the call would have, ENOENT when the call is gone), and
 * the number our /proc knows that thread by.
 */
static int
target_fd(pid_t tid, uint64_t id, int fd, int *procpid)
{
	struct pident *e = NULL, *old = &pids[0];
	int i, s, pidfd;

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
	pidfd = (int)syscall(SYS_pidfd_open, tid, 0);
	if (pidfd < 0 && errno == EINVAL)	/* not a thread group leader */
		pidfd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD_);
	if (pidfd < 0) {
		errno = ENOENT;
		return -1;
	}
	/* the pid is the notifying thread's, not a new one's */
	if (!valid(id) || (*procpid = fdinfo_pid(pidfd)) <= 0) {
		close(pidfd);
		errno = ENOENT;
		return -1;
	}
	s = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
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
static int
pin(int procpid, const char *path, int dir)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC };
	char base[64];
	const char *rest = path;
	int bfd, fd, e;

	if (dir)
		how.flags |= O_DIRECTORY;
	if (strncmp(path, "/proc/self/", 11) == 0 ||
	    strncmp(path, "/proc/thread-self/", 18) == 0) {
		snprintf(base, sizeof base, "/proc/%d", procpid);
		rest = strchr(path + 6, '/') + 1;
	} else if (path[0] == '/') {
		snprintf(base, sizeof base, "/proc/%d/root", procpid);
		how.resolve = RESOLVE_IN_ROOT;
	} else
		snprintf(base, sizeof base, "/proc/%d/cwd", procpid);
	if ((bfd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
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
		snprintf(refused, sizeof refused, "%s", path);
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
static int
decide(int fd)
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
	snprintf(name, sizeof name, "%d", fd);
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
static void
record(int sock, int dfd, const char *name)
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
		recs = calloc(MAXREC, sizeof *recs);
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

/* ---- the calls */

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
	return readmem(c->tid, addr, ss, (size_t)l);
}

/* Our duplicate of the call's socket (checked that the call is live). */
static int
get_sock(struct call *c, int fd)
{
	if ((c->sock = target_fd(c->tid, c->id, fd, &c->procpid)) < 0)
		return -1;
	if (!valid(c->id)) {
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
	if ((c->pinfd = pin(c->procpid, path, 0)) < 0)
		return -1;
	if (decide(c->pinfd) < 0)
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
	if ((c->pinfd = pin(c->procpid, dir, 1)) < 0 ||
	    pinned_addr(&su, &len, c->pinfd, name) < 0)
		return -1;
	if ((r = bind(c->sock, (struct sockaddr *)&su, len)) == 0)
		record(c->sock, c->pinfd, name);
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
	if (readmem(c->tid, c->arg[1], buf, n) < 0)
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
				mine = target_fd(c->tid, c->id, v[i], &c->procpid);
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
			if ((pinned = pin(c->procpid, path, 0)) < 0 ||
			    decide(pinned) < 0 ||
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
		    readmem(c->tid, m->iov, kiov, m->iovlen * sizeof *kiov) < 0)
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
		if (readmem(c->tid, kiov[i].base, buf + off, kiov[i].len) < 0)
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
		    readmem(c->tid, m->control, ctl, m->controllen) < 0 ||
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
	if (readmem(c->tid, c->arg[1], &m, sizeof m) < 0)
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
	if (readmem(c->tid, c->arg[1], v, n * sizeof *v) < 0) {
		free(v);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if ((s = send_one(c, &v[i].hdr, (int)c->arg[3])) < 0) {
			e = errno;
			break;
		}
		sent = (uint32_t)s;
		if (writemem(c->tid, c->arg[1] + i * sizeof *v +
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

static void
handle(const struct seccomp_notif_ *req, struct seccomp_notif_resp_ *resp)
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

/* ---- the workers */

static void *worker(void *);

/* One more worker blocked in NOTIF_RECV (mu held). */
static void
gate_spawn_locked(void)
{
	pthread_attr_t a;
	pthread_t t;
	sigset_t all, old;

	if (nworkers >= MAXWORKERS)
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_attr_init(&a) == 0) {
		(void)pthread_attr_setstacksize(&a, 128 * 1024);
		(void)pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&t, &a, worker, NULL) == 0) {
			nworkers++;
			nidle++;
		}
		pthread_attr_destroy(&a);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void *
worker(void *arg)
{
	struct seccomp_notif_ req;
	struct seccomp_notif_resp_ resp;

	(void)arg;
	for (;;) {
		memset(&req, 0, sizeof req);
		if (ioctl(listener, NOTIF_RECV, &req) < 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			break;		/* the listener is gone */
		}
		pthread_mutex_lock(&mu);
		if (--nidle == 0)
			gate_spawn_locked();
		pthread_mutex_unlock(&mu);
		handle(&req, &resp);
		(void)ioctl(listener, NOTIF_SEND, &resp);
		pthread_mutex_lock(&mu);
		nidle++;
		pthread_mutex_unlock(&mu);
	}
	pthread_mutex_lock(&mu);
	nidle--;
	nworkers--;
	pthread_mutex_unlock(&mu);
	return NULL;
}

void
gate_spawn(void)
{
	pthread_mutex_lock(&mu);
	if (nidle == 0)
		gate_spawn_locked();
	pthread_mutex_unlock(&mu);
}

int
gate_busy(void)
{
	int n;

	pthread_mutex_lock(&mu);
	n = nworkers;
	pthread_mutex_unlock(&mu);
	return n > 0;
}

int
gate_init(int fd, const struct opts *o)
{
	int dfd;

	pol = o;
	listener = fd;
	/*
	 * Our cwd names the pinned files: "N" is our descriptor N, short
	 * enough for any sun_path, and relative, so that a supervisor
	 * further out (arcturn inside arcturn) resolves it in our view.
	 */
	if ((dfd = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	if (fchdir(dfd) < 0) {
		close(dfd);
		return -1;
	}
	close(dfd);
	/* a peer gone away must not kill the supervisor */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

void
gate_report(void)
{
	pthread_mutex_lock(&mu);
	if (nrefused == 1)
		fprintf(stderr, "arcturn: exec: refused to connect to the unix "
		    "socket %s (outside the sandbox; --allow-unix PATH or "
		    "\"unixSockets\" allows it)\n", refused);
	else if (nrefused > 1)
		fprintf(stderr, "arcturn: exec: refused to connect to the unix "
		    "socket %s and %lu more (outside the sandbox; --allow-unix "
		    "PATH or \"unixSockets\" allows them)\n", refused,
		    nrefused - 1);
	pthread_mutex_unlock(&mu);
}
