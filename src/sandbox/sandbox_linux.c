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
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/exitcode.h"
#include "lib/fsx.h"
#include "lib/mem.h"
#include "lib/os.h"
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

/*
 * After the command: what arcturn found at protected paths no mount could
 * cover, as one line (the first finding, and how many more).
 */
struct findings {
	char	 first[PATH_MAX + 512];
	size_t	 n;
};

static void
found(struct findings *f, const char *fmt, ...)
{
	va_list ap;

	if (f->n++ > 0)
		return;
	va_start(ap, fmt);
	vsnprintf(f->first, sizeof f->first, fmt, ap);
	va_end(ap);
}

/*
 * The folder of path, reached from / one folder at a time without
 * following a symlink (a folder the command replaced is not followed);
 * *name points at path's last component. -1 with errno.
 */
static int
open_parent_nofollow(const char *path, const char **name)
{
	char comp[NAME_MAX + 1];
	const char *c;
	size_t n;
	int fd, sub;

	if ((fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	for (*name = path + 1; (c = strchr(*name, '/')) != NULL;
	    *name = c + 1) {
		if ((n = (size_t)(c - *name)) == 0)
			continue;
		if (n > NAME_MAX) {
			close(fd);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(comp, *name, n);
		comp[n] = '\0';
		sub = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		close(fd);
		if ((fd = sub) < 0)
			return -1;
	}
	return fd;
}

/* Move dirfd/name aside to name.arcturn-N: 0 with the name in aside. */
static int
move_aside(int fd, const char *name, char *aside, size_t len)
{
	struct stat st;
	int k;

	for (k = 1; k < 1000; k++) {
		snprintf(aside, len, "%s.arcturn-%d", name, k);
		if (os_rename_noreplace(fd, name, aside) == 0)
			return 0;
		if (errno == ENOSYS) {
			/* nothing of the command's runs any more */
			if (fstatat(fd, aside, &st, AT_SYMLINK_NOFOLLOW) == 0)
				continue;
			return renameat(fd, name, fd, aside);
		}
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

/*
 * Protected paths that did not exist when the command started (roots.h:
 * absent) cannot be covered by a mount. Once the command has ended, what
 * it created there is moved aside to NAME.arcturn-N (not deleted: it may
 * be a file of the user's that the command moved there), so that git run
 * afterwards does not read it.
 */
static void
sweep_absent(const struct roots *r, struct findings *f)
{
	char aside[NAME_MAX + 16];
	const char *path, *name;
	struct stat st;
	size_t i;
	int fd;

	for (i = 0; i < r->absent.n; i++) {
		path = r->absent.v[i];
		if ((fd = open_parent_nofollow(path, &name)) < 0) {
			/* gone is fine; replaced (ELOOP, ENOTDIR) is not */
			if (errno != ENOENT)
				found(f, "exec: %s: a folder above this "
				    "protected path was replaced during the run "
				    "(%s): check it", path, strerror(errno));
			continue;
		}
		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			close(fd);
			continue;
		}
		if (move_aside(fd, name, aside, sizeof aside) == 0)
			found(f, "exec: %s: created during the run at a "
			    "protected path that did not exist; moved aside to "
			    "%.*s%s", path, (int)(name - path), path, aside);
		else
			found(f, "exec: %s: created during the run at a "
			    "protected path that did not exist; cannot move it "
			    "aside (%s): remove it", path, strerror(errno));
		close(fd);
	}
}

/* A watched file (roots.h: watch) as it was before the command. */
struct snap {
	char	*buf;		/* NULL: could not be read, not restored */
	size_t	 len;
	mode_t	 mode;
};

/* Read the watched files: an array of r->watch.n snaps, or NULL. */
static struct snap *
snap_take(const struct roots *r)
{
	struct snap *sn;
	struct stat st;
	const char *name;
	size_t i;
	int fd;

	if ((sn = mem_calloc(r->watch.n + 1, sizeof *sn)) == NULL)
		return NULL;
	for (i = 0; i < r->watch.n; i++) {
		if ((fd = open_parent_nofollow(r->watch.v[i], &name)) < 0)
			continue;
		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && fsx_read_all(fd, name,
		    ROOTS_GIT_FILE, &sn[i].buf, &sn[i].len) == 0)
			sn[i].mode = st.st_mode & 07777;
		close(fd);
	}
	return sn;
}

/*
 * Put each watched file back as it was (snap_take), where the command
 * changed it; frees sn.
 */
static void
snap_restore(const struct roots *r, struct snap *sn, struct findings *f)
{
	char aside[NAME_MAX + 16], *now;
	const char *path, *name;
	struct stat st;
	size_t i, len;
	int fd, same;

	for (i = 0; sn != NULL && i < r->watch.n; i++) {
		path = r->watch.v[i];
		if (sn[i].buf == NULL)
			continue;
		if ((fd = open_parent_nofollow(path, &name)) < 0) {
			found(f, "exec: %s: a folder above this protected file "
			    "was replaced during the run (%s): check it", path,
			    strerror(errno));
			mem_free(sn[i].buf);
			continue;
		}
		now = NULL;
		same = fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && (st.st_mode & 07777) == sn[i].mode &&
		    fsx_read_all(fd, name, ROOTS_GIT_FILE, &now, &len) == 0 &&
		    len == sn[i].len && memcmp(now, sn[i].buf, len) == 0;
		mem_free(now);
		if (!same) {
			/* a folder in its place cannot be renamed over */
			if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISDIR(st.st_mode))
				(void)move_aside(fd, name, aside, sizeof aside);
			if (fsx_write_atomic(fd, name, sn[i].buf, sn[i].len,
			    sn[i].mode, 0) == 0)
				found(f, "exec: %s: a protected file changed "
				    "during the run; put back as it was", path);
			else
				found(f, "exec: %s: a protected file changed "
				    "during the run; cannot put it back (%s): "
				    "check it", path, strerror(errno));
		}
		mem_free(sn[i].buf);
		close(fd);
	}
	mem_free(sn);
}

/* What the child of sweep_run runs: the backend. */
struct sweep_job {
	const struct policy	*p;
	const struct roots	*r;
	int			 b;
	char			**cmd;
};

static int
sweep_child(void *arg, int fd)
{
	struct sweep_job *j = arg;
	char line[512];
	int rc;

	line[0] = '\0';
	rc = j->b == LB_BWRAP ? bwrap_run(j->p, j->r, j->cmd, line,
	    sizeof line) : helper_run(j->p, j->r, 1, j->cmd, line, sizeof line);
	(void)fsx_write_full(fd, line, strlen(line));
	return rc;
}

/*
 * Run the backend in a child and wait for it, then sweep_absent: the
 * command's status, or the child's own with its one line in err when the
 * backend could not start it. Signals sent to arcturn are passed on.
 */
static int
sweep_run(const struct policy *p, const struct roots *r, int b, char **cmd,
    char *err, size_t errlen)
{
	struct sweep_job j = { p, r, b, cmd };
	struct findings f;
	struct snap *sn;
	char line[512];
	int st, rc;

	memset(&f, 0, sizeof f);
	if ((sn = snap_take(r)) == NULL) {
		snprintf(err, errlen, "exec: %s", strerror(errno));
		return EXIT_OWN;
	}
	/* the helper is exec'd; bwrap_run waits for bwrap */
	if (posix_child(sweep_child, &j, b == LB_BWRAP ? 0 : POSIX_CHILD_EXECS,
	    &st, line, sizeof line, err, errlen) < 0) {
		snap_restore(r, sn, &f);
		return EXIT_OWN;
	}
	rc = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ?
	    128 + WTERMSIG(st) : EXIT_OWN;
	if (line[0] == '\0')
		sandbox_end_set(rc, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	sweep_absent(r, &f);
	snap_restore(r, sn, &f);
	if (line[0] != '\0')
		snprintf(err, errlen, "%s", line);
	else if (f.n > 1)
		snprintf(err, errlen, "%s (and %zu more)", f.first, f.n - 1);
	else if (f.n == 1)
		snprintf(err, errlen, "%s", f.first);
	return rc;
}

static int
backend_run(const struct policy *p, const struct sandbox_choice *ch,
    char **cmd, char *err, size_t errlen)
{
	struct roots r;
	int b = ch->backend, rc, flags;

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
		rc = sweep_run(p, &r, b, cmd, err, errlen);
	else if (b == LB_BWRAP)
		rc = bwrap_run(p, &r, cmd, err, errlen);
	else
		rc = helper_run(p, &r, b == LB_HELPER, cmd, err, errlen);
	roots_free(&r);
	return rc;
}

const struct sandbox_platform sandbox_platform = { names, pick,
    backend_run };

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
