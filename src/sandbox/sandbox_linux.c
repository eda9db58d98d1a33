/*
 * sandbox_linux: choosing and running a Linux backend, and the kernel
 * probes the backend files share (sandbox_linux.h).
 */
#include <sys/mount.h>
#include <sys/prctl.h>
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

#include "lib/exitcode.h"
#include "lib/fsx.h"
#include "sandbox/sandbox.h"
#include "sandbox/sandbox_linux.h"
#include "sandbox/sandbox_posix.h"
#include "uapi/landlock_uapi.h"

static const char *const names[] = {
	[LB_HELPER] = "helper",
	[LB_HELPER_LANDLOCK] = "helper-landlock",
	[LB_BWRAP] = "bwrap",
	[LB_NONE] = "none",
	NULL
};

int
linux_landlock_abi(void)
{
	static int abi, asked;	/* the kernel is asked once a run */
	long v;

	if (!asked) {
		v = syscall(__NR_landlock_create_ruleset, NULL, 0,
		    LANDLOCK_CREATE_RULESET_VERSION);
		abi = v < 0 ? -errno : (int)v;
		asked = 1;
	}
	return abi;
}

int
linux_userns(int mounts)
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

/*
 * The mount layer's init mounts a /proc of its pid namespace. The kernel
 * refuses that where the /proc it has is not fully visible (a container
 * that hides parts of it): 0 when it can, else an errno.
 */
int
linux_fresh_proc(void)
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

/* The helper refuses its mount layer where it cannot write an id map. */
int
linux_idmap_writable(void)
{
	static int w = -1;	/* asked once a run */
	int fd;

	if (w < 0) {
		fd = openat(AT_FDCWD, "/proc/self/uid_map", O_WRONLY |
		    O_CLOEXEC);
		if ((w = fd >= 0))
			close(fd);
	}
	return w;
}

static int
has_sys_admin(void)
{
	struct { uint32_t version; int pid; } hdr = { 0x20080522, 0 };
	struct { uint32_t eff, perm, inh; } data[2];

	if (syscall(SYS_capget, &hdr, data) < 0)
		return 0;
	return (data[0].eff & (1U << 21)) != 0;
}

int
linux_bwrap_path(char *buf, size_t len)
{
	return posix_which("bwrap", 1, buf, len);
}

/*
 * An unprivileged, non-setuid bwrap needs a user namespace and a writable
 * id map (not the case inside another arcturn sandbox).
 */
int
linux_bwrap_unusable(const char *path)
{
	struct stat st;
	int e;

	if (stat(path, &st) == 0 && (st.st_mode & S_ISUID))
		return 0;
	if (geteuid() == 0)	/* privileged bwrap: needs CAP_SYS_ADMIN */
		return has_sys_admin() ? 0 : EPERM;
	if ((e = linux_userns(0)) != 0)
		return e;
	return linux_idmap_writable() ? 0 : EROFS;
}

/*
 * The platform half of sandbox_choose: a forced backend this machine
 * cannot run is demoted to none (the note and an unconfined run, or 125
 * when a sandbox is required), like any other unavailable one.
 */
static void
pick(const struct policy *p, struct sandbox_choice *ch)
{
	char path[PATH_MAX];
	size_t n = strlen(ch->why), len = sizeof ch->why - n;
	char *why = ch->why + n;
	int abi = linux_landlock_abi(), bw, e = 0;

	if (ch->forced && ch->backend != LB_BWRAP) {
		if (abi < 1) {
			snprintf(why, len, ", but this kernel has no Landlock "
			    "(%s)", strerror(-abi));
			ch->backend = LB_NONE;
		}
		return;
	}
	if (!ch->forced && abi > 0) {
		snprintf(why, len, "kernel has Landlock ABI %d", abi);
		ch->backend = LB_HELPER;
		return;
	}
	bw = linux_bwrap_path(path, sizeof path) == 0;
	if (bw)
		e = linux_bwrap_unusable(path);
	if (ch->forced) {
		if (!bw || e != 0)
			ch->backend = LB_NONE;
		if (!bw)
			snprintf(why, len, ", but bwrap is not on PATH");
		else if (e != 0)
			snprintf(why, len, ", but bwrap cannot create its "
			    "namespaces here (%s)", strerror(e));
		return;
	}
	ch->backend = bw && e == 0 ? LB_BWRAP : LB_NONE;
	if (!bw)
		snprintf(why, len, "no Landlock in this kernel (%s) and no "
		    "bwrap on PATH", strerror(-abi));
	else if (e != 0)
		snprintf(why, len, "no Landlock in this kernel (%s), and bwrap "
		    "cannot create a user namespace (%s)", strerror(-abi),
		    strerror(e));
	else
		snprintf(why, len, "no Landlock in this kernel (%s): using %s",
		    strerror(-abi), path);
}

static int
backend_run(const struct policy *p, const struct sandbox_choice *ch,
    char **cmd, struct sandbox_end *end, char *err, size_t errlen)
{
	struct roots r;
	int b = ch->backend, rc, flags;

	/* nothing runs where an earlier run left a protected path */
	if (sweep_held(p, err, errlen) < 0)
		return EXIT_OWN;
	if (ch->verdict != SANDBOX_CONFINE)
		return posix_exec(cmd, err, errlen);
	/*
	 * Landlock alone promises nothing about metadata (status says so),
	 * and it refuses reopening an inherited file by its path, so the
	 * forced Landlock-only mode needs neither the fd guard nor the
	 * protected paths it cannot express.
	 */
	if (linux_std_fds(err, errlen) < 0 ||
	    (b != LB_HELPER_LANDLOCK && linux_fds_guard(err, errlen) < 0) ||
	    linux_limits(err, errlen) < 0)
		return EXIT_OWN;
	flags = b == LB_BWRAP ? ROOTS_PROTECT | ROOTS_MAKE : b == LB_HELPER ?
	    ROOTS_DEVICES | ROOTS_PROTECT | ROOTS_MAKE : ROOTS_DEVICES;
	if (roots_build(p, flags | ROOTS_GIT, &posix_roots_ops, &r) < 0) {
		snprintf(err, errlen, "%s", r.why);
		return EXIT_OWN;
	}
	if (b != LB_HELPER_LANDLOCK && (r.absent.n > 0 || r.watch.n > 0))
		rc = sweep_run(p, &r, b, cmd, end, err, errlen);
	else if (b == LB_BWRAP)
		rc = bwrap_run(p, &r, cmd, end, err, errlen);
	else
		rc = helper_run(p, &r, b == LB_HELPER, cmd, err, errlen);
	roots_free(&r);
	return rc;
}

/* The helper takes its mount layer where it can (sandbox status). */
static const char *
label(const struct sandbox_choice *ch)
{
	if (ch->backend != LB_HELPER)
		return ch->name;
	return linux_userns(0) == 0 && linux_userns(1) == 0 &&
	    linux_idmap_writable() ? "helper+mount" : "helper";
}

const struct sandbox_platform sandbox_platform = { names, pick,
    backend_run, label };

int
sandbox_unstamp(const struct policy *p, const char *path, char *err,
    size_t errlen)
{
	snprintf(err, errlen, "sandbox unstamp: only Windows stamps labels");
	errno = ENOTSUP;
	return -1;
}

int
sandbox_nested(char *mode, size_t len)
{
	const char *v = getenv("ARCTURN_SANDBOX");

	if (len > 0)
		mode[0] = '\0';
	/*
	 * Every arcturn backend sets no_new_privs, and nothing can clear
	 * it: a variable alone (set by anyone) proves nothing.
	 */
	if (v == NULL || *v == '\0' || strspn(v, "abcdefghijklmnopqrstuvwxyz-,")
	    != strlen(v) || prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return 0;
	snprintf(mode, len, "%s", v);
	return 1;
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
int
linux_fds_guard(char *err, size_t errlen)
{
	union { struct dirent d; char b[2048]; } buf;
	struct dirent *e;
	struct stat st;
	long n, off;
	int fd, dfd, flags;

	if (stdin_pipe(err, errlen) < 0)
		return -1;
	/* getdents64 itself: opendir's buffer is a mapping of its own */
	if ((dfd = openat(AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		return 0;	/* no /proc: nothing inherited can be listed */
	while ((n = syscall(SYS_getdents64, dfd, buf.b, sizeof buf.b)) > 0)
		for (off = 0; off < n; off += e->d_reclen) {
			e = (struct dirent *)(buf.b + off);
			fd = atoi(e->d_name);
			if (fd <= 2 || fd == dfd || e->d_name[0] == '.')
				continue;
			if (fstat(fd, &st) < 0 || !(S_ISREG(st.st_mode) ||
			    S_ISDIR(st.st_mode)))
				continue;
			if ((flags = fcntl(fd, F_GETFD)) >= 0)
				(void)fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
		}
	close(dfd);
	return 0;
}
