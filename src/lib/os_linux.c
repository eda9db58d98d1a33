/*
 * os on Linux (os.h): openat2, renameat2, O_PATH, syncfs, xattrs.
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/xattr.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/mem.h"
#include "lib/os.h"
#include "uapi/landlock_uapi.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE	(1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE		(1 << 1)
#endif

const int os_o_path = O_PATH;

static int no_openat2;

/*
 * openat2 with how, retried while a rename races with ".." (EAGAIN):
 * ENOSYS where the kernel has none (remembered) or where an older
 * container seccomp profile refuses a syscall it does not know with EPERM
 * (the caller's walk answers then; a real EPERM comes back from it too).
 */
static int
openat2_retry(int dirfd, const char *path, struct open_how *how)
{
	int fd, tries;

	if (no_openat2) {
		errno = ENOSYS;
		return -1;
	}
	for (tries = 0; tries < 16; tries++) {
		fd = (int)syscall(__NR_openat2, dirfd, path, how, sizeof *how);
		if (fd >= 0)
			return fd;
		if (errno == ENOSYS || errno == EPERM) {
			no_openat2 = errno == ENOSYS;
			errno = ENOSYS;
			return -1;
		}
		if (errno != EAGAIN)
			return -1;
	}
	errno = ENOSYS;
	return -1;
}

int
os_open_beneath(int rootfd, const char *rel, int flags, mode_t mode)
{
	struct open_how how;

	memset(&how, 0, sizeof how);
	how.flags = (uint64_t)(flags | O_CLOEXEC);
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		how.mode = mode;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	return openat2_retry(rootfd, rel, &how);
}

int
os_rename_noreplace(int dirfd, const char *from, const char *to)
{
	if (syscall(SYS_renameat2, dirfd, from, dirfd, to,
	    RENAME_NOREPLACE) == 0)
		return 0;
	if (errno == EINVAL)
		errno = ENOSYS;
	return -1;
}

int
os_rename_exchange(int dirfd, const char *a, const char *b)
{
	if (syscall(SYS_renameat2, dirfd, a, dirfd, b, RENAME_EXCHANGE) == 0)
		return 0;
	/* a file system without it (EINVAL), or a seccomp profile (EPERM) */
	if (errno == EINVAL || errno == ENOSYS || errno == EPERM)
		errno = ENOSYS;
	return -1;
}

int
os_chmod_pinned(int dirfd, const char *name, mode_t mode)
{
	struct stat st;
	char proc[64];
	int fd;

	if ((fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		goto fail;
	if (S_ISLNK(st.st_mode)) {
		close(fd);
		errno = EOPNOTSUPP;
		return -1;
	}
	/* The fd pins the inode: chmod through its /proc name. */
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	if (chmod(proc, mode) == 0) {
		close(fd);
		return 0;
	}
	if (errno == ENOENT)
		errno = ENOSYS;		/* no /proc */
fail:
	{
		int saved = errno;

		close(fd);
		errno = saved;
	}
	return -1;
}

long
os_getxattr(int fd, const char *name, char *buf, size_t len)
{
	return (long)fgetxattr(fd, name, buf, len);
}

long
os_xattr_names(int fd)
{
	return (long)flistxattr(fd, NULL, 0);
}

int
os_setxattr(int fd, const char *name, const void *val, size_t len)
{
	return fsetxattr(fd, name, val, len, 0);
}

int
os_syncfs(int fd)
{
	return syncfs(fd);
}

struct os_sem {
	sem_t	s;
};

struct os_sem *
os_sem_new(void)
{
	struct os_sem *m = mem_alloc(sizeof *m);

	if (m != NULL && sem_init(&m->s, 0, 0) < 0) {
		mem_free(m);
		return NULL;
	}
	return m;
}

void
os_sem_post(struct os_sem *m)
{
	sem_post(&m->s);
}

void
os_sem_wait(struct os_sem *m)
{
	while (sem_wait(&m->s) < 0 && errno == EINTR)
		;
}

void
os_sem_free(struct os_sem *m)
{
	if (m == NULL)
		return;
	sem_destroy(&m->s);
	mem_free(m);
}

/* A field of /proc/meminfo in kB ("\nDirty:"), or -1. */
static long
meminfo(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	return p != NULL ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* Linux 5.8 or later: syncfs says when writeback failed (asked once). */
static int
syncfs_reports_errors(void)
{
	static int yes = -1;	/* apply's threads ask at once: atomic */
	struct utsname u;
	unsigned long maj, min;
	char *end;
	int v;

	if ((v = __atomic_load_n(&yes, __ATOMIC_RELAXED)) >= 0)
		return v;
	v = 0;
	if (uname(&u) == 0) {
		maj = strtoul(u.release, &end, 10);
		if (*end == '.') {
			min = strtoul(end + 1, NULL, 10);
			v = maj > 5 || (maj == 5 && min >= 8);
		}
	}
	__atomic_store_n(&yes, v, __ATOMIC_RELAXED);
	return v;
}

int
os_syncfs_cheap(int dirfd)
{
	static const unsigned long local[] = {
		0xEF53,		/* ext2/3/4 */
		0x58465342,	/* xfs */
		0x9123683E,	/* btrfs */
		0xF2F52010,	/* f2fs */
		0x01021994,	/* tmpfs */
	};
	struct statfs sf;
	char buf[4096];
	ssize_t n;
	long dirty, wb;
	size_t i;
	int fd;

	if (fstatfs(dirfd, &sf) < 0)
		return 0;
	for (i = 0; i < sizeof local / sizeof local[0]; i++)
		if ((unsigned long)sf.f_type == local[i])
			break;
	if (i == sizeof local / sizeof local[0] || !syncfs_reports_errors())
		return 0;
	if ((fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	dirty = meminfo(buf, "\nDirty:");
	wb = meminfo(buf, "\nWriteback:");
	return dirty >= 0 && wb >= 0 &&
	    dirty + wb < OS_SYNCFS_DIRTY_MAX / 1024;
}

void
os_start_writeback(int fd)
{
	(void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}

struct timespec
os_ctime(const struct stat *st)
{
	return st->st_ctim;
}

int
os_open_nolinks(const char *path)
{
	struct open_how how;

	memset(&how, 0, sizeof how);
	how.flags = O_PATH | O_CLOEXEC;
	how.resolve = RESOLVE_NO_SYMLINKS;
	return openat2_retry(AT_FDCWD, path, &how);
}

/*
 * The child's stack: room for a verified start of the helper from its
 * cache file (hash_fd reads 64 KiB at a time), and a guard page below it,
 * so that an overflow faults instead of writing over our memory.
 */
#define SPAWN_STACK	(256 * 1024)
#define SPAWN_GUARD	4096

pid_t
os_spawn(int (*fn)(void *), void *arg)
{
	char *stk;
	pid_t pid;
	int e;

	stk = mmap(NULL, SPAWN_GUARD + SPAWN_STACK, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stk == MAP_FAILED)
		return -1;
	if (mprotect(stk, SPAWN_GUARD, PROT_NONE) < 0)
		pid = -1;
	else
		pid = clone(fn, stk + SPAWN_GUARD + SPAWN_STACK, CLONE_VM |
		    CLONE_VFORK | SIGCHLD, arg);
	/* the child has exec'd or ended: its stack is ours again */
	e = errno;
	munmap(stk, SPAWN_GUARD + SPAWN_STACK);
	errno = e;
	return pid;
}

int
os_pipe_cloexec(int fd[2])
{
	return pipe2(fd, O_CLOEXEC);
}

struct timespec
os_mtime(const struct stat *st)
{
	return st->st_mtim;
}
