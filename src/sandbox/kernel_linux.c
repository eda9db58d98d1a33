/*
 * kernel_linux: the kernel probes of the Linux backends, each asked once
 * a process, and the guards on inherited descriptors (kernel_linux.h).
 */
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fsx.h"
#include "sandbox/kernel_linux.h"
#include "uapi/landlock_uapi.h"

/* An answer not asked for yet (no probe answers INT_MIN). */
#define UNASKED	INT_MIN

int
linux_landlock_abi(void)
{
	static int abi = UNASKED;
	long v;

	if (abi == UNASKED) {
		v = syscall(__NR_landlock_create_ruleset, NULL, 0,
		    LANDLOCK_CREATE_RULESET_VERSION);
		abi = v < 0 ? -errno : (int)v;
	}
	return abi;
}

/* linux_userns, asked: in a child, which ends with the errno. */
static int
userns_ask(int mounts)
{
	pid_t pid;
	int st;

	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS | (mounts ?
		    CLONE_NEWIPC | CLONE_NEWPID : 0)) < 0)
			_exit(errno & 0xff);
		if (mounts && syscall(SYS_mount, NULL, "/", NULL,
		    MS_REC | MS_PRIVATE, NULL) < 0)
			_exit(errno & 0xff);
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return errno;
	if (!WIFEXITED(st))
		return EIO;
	return WEXITSTATUS(st);
}

int
linux_userns(int mounts)
{
	static int e[2] = { UNASKED, UNASKED };

	mounts = mounts != 0;
	if (e[mounts] == UNASKED)
		e[mounts] = userns_ask(mounts);
	return e[mounts];
}

/*
 * The mount layer's init mounts a /proc of its pid namespace. The kernel
 * refuses that where the /proc it has is not fully visible (a container
 * that hides parts of it): 0 when it can, else an errno.
 */
static int
fresh_proc_ask(void)
{
	char map[64];
	pid_t pid, gpid;
	int st, fd;

	if ((pid = fork()) < 0)
		return errno;
	if (pid == 0) {
		uid_t uid = getuid();

		if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID) < 0)
			_exit(errno & 0xff);
		/* our own id, as an unprivileged user may map */
		if ((fd = open("/proc/self/uid_map", O_WRONLY)) < 0)
			_exit(errno & 0xff);
		snprintf(map, sizeof map, "%u %u 1", (unsigned)uid,
		    (unsigned)uid);
		if (write(fd, map, strlen(map)) < 0)
			_exit(errno & 0xff);
		close(fd);
		if (syscall(SYS_mount, NULL, "/", NULL, MS_REC | MS_PRIVATE,
		    NULL) < 0 || (gpid = fork()) < 0)
			_exit(errno & 0xff);
		if (gpid == 0)
			_exit(syscall(SYS_mount, "proc", "/proc", "proc",
			    MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY,
			    NULL) < 0 ? errno & 0xff : 0);
		while (waitpid(gpid, &st, 0) < 0)
			if (errno != EINTR)
				_exit(EIO);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : EIO);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : EIO;
}

int
linux_fresh_proc(void)
{
	static int e = UNASKED;

	if (e == UNASKED)
		e = fresh_proc_ask();
	return e;
}

int
linux_idmap_writable(void)
{
	static int w = UNASKED;
	int fd;

	if (w == UNASKED) {
		fd = openat(AT_FDCWD, "/proc/self/uid_map", O_WRONLY |
		    O_CLOEXEC);
		if ((w = fd >= 0))
			close(fd);
	}
	return w;
}

int
linux_cap_sys_admin(void)
{
	static int has = UNASKED;
	struct { uint32_t version; int pid; } hdr = { 0x20080522, 0 };
	struct { uint32_t eff, perm, inh; } data[2];

	if (has == UNASKED)
		has = syscall(SYS_capget, &hdr, data) == 0 &&
		    (data[0].eff & (1U << 21)) != 0;
	return has;
}

/* A sysctl's number, or -1. */
static int
sysctl_ask(const char *path)
{
	char buf[64], *end;
	long v;

	if (fsx_read_line(path, buf, sizeof buf) < 0 || buf[0] < '0' ||
	    buf[0] > '9')
		return -1;
	v = strtol(buf, &end, 10);
	return *end != '\0' || v > INT_MAX ? -1 : (int)v;
}

int
linux_memfd_noexec(void)
{
	static int v = UNASKED;

	if (v == UNASKED)
		v = sysctl_ask("/proc/sys/vm/memfd_noexec");
	return v;
}

int
linux_legacy_tiocsti(void)
{
	static int v = UNASKED;

	if (v == UNASKED)
		v = sysctl_ask("/proc/sys/dev/tty/legacy_tiocsti");
	return v;
}

/*
 * The command's standard descriptors. A directory there is a handle on
 * the tree as it was before the sandbox (a descriptor keeps its mount,
 * which is not read-only): chmod, utimes or xattrs through
 * /proc/self/fd/1/... would reach the real files. It is refused. A
 * regular file open read-only on 1 or 2 could be reopened for writing the
 * same way, though the caller never gave write access: it becomes
 * /dev/null (read-only, as it was). A file open for writing there gets
 * a Landlock rule of its own in the helper, so `echo x > /dev/stderr`
 * works (the caller chose that file).
 */
int
linux_std_fds(char *err, size_t errlen)
{
	struct stat st;
	char path[PATH_MAX], link[32];
	ssize_t n;
	int fd, fl, nul;

	for (fd = 0; fd <= 2; fd++) {
		if (fstat(fd, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
			if ((n = readlink(link, path, sizeof path - 1)) < 0)
				n = 0;
			path[n] = '\0';
			snprintf(err, errlen, "exec: %s is a directory%s%s%s: "
			    "refused (a handle on the real files around the "
			    "sandbox)", fd == 0 ? "stdin" : fd == 1 ? "stdout" :
			    "stderr", n > 0 ? " (" : "", path, n > 0 ? ")" : "");
			return -1;
		}
		if (fd == 0 || !S_ISREG(st.st_mode) ||
		    (fl = fcntl(fd, F_GETFL)) < 0 ||
		    (fl & O_ACCMODE) != O_RDONLY)
			continue;
		if ((nul = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0 ||
		    dup2(nul, fd) < 0) {
			snprintf(err, errlen, "exec: /dev/null: %s",
			    strerror(errno));
			if (nul >= 0)
				close(nul);
			return -1;
		}
		close(nul);
	}
	return 0;
}

/*
 * A regular file on stdin would let the command reopen it for writing
 * through /proc/self/fd/0 (bubblewrap's read-only binds do not cover the
 * host mount that fd lives on). Hand the command a pipe fed from the file
 * instead.
 */
static int
stdin_pipe(char *err, size_t errlen)
{
	struct stat st;
	char buf[65536];
	int pfd[2];
	ssize_t n;
	pid_t pid;

	if (fstat(0, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (pipe2(pfd, O_CLOEXEC) < 0)
		goto fail;
	if ((pid = fork()) < 0)
		goto fail;
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		close(pfd[0]);
		while ((n = read(0, buf, sizeof buf)) > 0)
			if (fsx_write_full(pfd[1], buf, (size_t)n) < 0)
				_exit(1);
		_exit(n < 0);
	}
	close(pfd[1]);
	if (dup2(pfd[0], 0) < 0)
		goto fail;
	close(pfd[0]);
	return 0;
fail:
	snprintf(err, errlen, "stdin pipe: %s", strerror(errno));
	return -1;
}

/*
 * Inherited descriptors of files and directories outside the roots would
 * be handles the confinement does not see (fchmod, openat, reopening
 * through /proc/self/fd). Descriptors above 2 that refer to a regular file
 * or a directory are not passed on (close-on-exec); pipes, sockets, ttys
 * and the like are (a make jobserver keeps working). A regular file on
 * stdin becomes a pipe fed from it.
 */
/* Mark fd close-on-exec when it is a regular file or a directory. */
static void
guard_fd(int fd)
{
	struct stat st;
	int flags;

	if ((flags = fcntl(fd, F_GETFD)) < 0 || (flags & FD_CLOEXEC) ||
	    fstat(fd, &st) < 0 || !(S_ISREG(st.st_mode) ||
	    S_ISDIR(st.st_mode)))
		return;
	(void)fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

int
linux_fds_guard(char *err, size_t errlen)
{
	union { struct dirent d; char b[2048]; } buf;
	struct dirent *e;
	struct rlimit rl;
	long n, off, fd, top;
	int dfd;

	if (stdin_pipe(err, errlen) < 0)
		return -1;
	/* getdents64 itself: opendir's buffer is a mapping of its own */
	if ((dfd = openat(AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0) {
		/* no /proc to list them: ask every number that can be open,
		   up to the hard limit (one lowered later can leave fds above
		   the soft one) or the kernel's default nr_open, 2^20 */
		top = getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
		    rl.rlim_max != RLIM_INFINITY && rl.rlim_max < 1L << 20 ?
		    (long)rl.rlim_max : 1L << 20;
		for (fd = 3; fd < top; fd++)
			guard_fd((int)fd);
		return 0;
	}
	while ((n = syscall(SYS_getdents64, dfd, buf.b, sizeof buf.b)) > 0)
		for (off = 0; off < n; off += e->d_reclen) {
			e = (struct dirent *)(buf.b + off);
			fd = atoi(e->d_name);
			if (fd > 2 && fd != dfd && e->d_name[0] != '.')
				guard_fd((int)fd);
		}
	close(dfd);
	return 0;
}
