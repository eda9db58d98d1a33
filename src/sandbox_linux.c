/*
 * sandbox_linux: the Linux backends behind sandbox.h.
 *
 * Order: the embedded Landlock helper (with its mount layer where user
 * namespaces allow), bubblewrap when the kernel has no Landlock, else
 * none (a note, or exit 125 when a sandbox is required).
 * ARCTURN_BACKEND=helper|helper-landlock|bwrap|none forces one
 * (helper-landlock: the helper without its mount layer).
 */
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
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "fsx.h"
#include "hash.h"
#include "helper_sum.h"
#include "landlock_uapi.h"
#include "mem.h"
#include "sandbox.h"
#include "tiocsti.h"

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC	0x0001U
#endif
#define MFD_EXEC	0x0010U

#define MAXROOTS	48

extern const unsigned char helper_bin[], helper_bin_end[];
extern char **environ;

enum backend { B_HELPER, B_HELPER_LANDLOCK, B_BWRAP, B_NONE };

struct roots {
	char	*w[MAXROOTS];	/* writable, absolute, owned */
	int	 nw;
	char	*p[MAXROOTS];	/* protected, absolute, owned */
	int	 np;
	char	*pin[MAXROOTS];	/* bwrap: parents of p[pin_of[i]] inside */
	int	 pin_of[MAXROOTS];	/* the workspace, outermost first */
	int	 npin;
};

static const char *const devices[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx",
	"/dev/pts", "/dev/shm",
};

static int
landlock_abi(void)
{
	long v = syscall(__NR_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);

	return v < 0 ? -errno : (int)v;
}

static void
roots_free(struct roots *r)
{
	int i;

	for (i = 0; i < r->nw; i++)
		mem_free(r->w[i]);
	for (i = 0; i < r->np; i++)
		mem_free(r->p[i]);
	for (i = 0; i < r->npin; i++)
		mem_free(r->pin[i]);
	r->nw = r->np = r->npin = 0;
}

static char *
join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = mem_alloc(la + lb + 2);

	if (s == NULL)
		return NULL;
	memcpy(s, a, la);
	s[la] = '/';
	memcpy(s + la + 1, b, lb + 1);
	return s;
}

static int
add(char **v, int *n, char *s)
{
	if (s == NULL)
		return -1;
	if (*n >= MAXROOTS) {
		mem_free(s);
		errno = E2BIG;
		return -1;
	}
	v[(*n)++] = s;
	return 0;
}

static int
under(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return 1;
	return strncmp(path, root, n) == 0 && (path[n] == '/' ||
	    path[n] == '\0');
}

/*
 * The state dir is writable for the command, but its session and cache
 * folders are not (where a backend can express it), so they are created
 * here to be protected from the start.
 */
static void
state_dirs(const char *state)
{
	static const char *const sub[] = { "overlays", "cache" };
	char *s;
	size_t i;

	if (mkdir(state, 0700) < 0 && errno != EEXIST)
		return;
	for (i = 0; i < sizeof sub / sizeof sub[0]; i++) {
		if ((s = join(state, sub[i])) == NULL)
			return;
		(void)mkdir(s, 0700);
		mem_free(s);
	}
}

/*
 * The directories strictly between root and the last protected path,
 * outermost first: bwrap binds each onto itself, so that renaming a parent
 * cannot get around the protection (the helper does the same).
 */
static int
pins(struct roots *r, const char *root)
{
	const char *p = r->p[r->np - 1], *c;
	size_t rl = strlen(root);

	int i, dup;

	for (c = p + rl + 1; (c = strchr(c, '/')) != NULL; c++) {
		for (dup = 0, i = 0; i < r->npin && !dup; i++)
			dup = strlen(r->pin[i]) == (size_t)(c - p) &&
			    strncmp(r->pin[i], p, (size_t)(c - p)) == 0;
		if (dup)
			continue;
		if (r->npin >= MAXROOTS) {
			errno = E2BIG;
			return -1;
		}
		if ((r->pin[r->npin] = mem_strndup(p, (size_t)(c - p))) == NULL)
			return -1;
		r->pin_of[r->npin++] = r->np - 1;
	}
	return 0;
}

/* The longest writable root (not a device) strictly above path, or NULL. */
static const char *
covering(const struct roots *r, const char *path)
{
	const char *best = NULL;
	int i;

	for (i = 0; i < r->nw; i++)
		if (strncmp(r->w[i], "/dev/", 5) != 0 &&
		    strcmp(path, r->w[i]) != 0 && under(path, r->w[i]) &&
		    (best == NULL || strlen(r->w[i]) > strlen(best)))
			best = r->w[i];
	return best;
}

/*
 * Keep path read-only if it exists and lies beneath a writable root
 * (elsewhere it is read-only anyway). It is canonicalised first: a symlink
 * in the workspace must not turn the read-only bind, or the parents
 * pinned around it, into a view of somewhere else.
 */
static int
protect(struct roots *r, const char *path)
{
	char buf[PATH_MAX];
	const char *root;

	if (realpath(path, buf) == NULL || (root = covering(r, buf)) == NULL)
		return 0;
	if (add(r->p, &r->np, mem_strdup(buf)) < 0)
		return -1;
	return pins(r, root);
}

/* mkdir -p path, creating only the components after its first skip bytes. */
static void
mkdirs(char *path, size_t skip)
{
	char *c;

	for (c = path + skip + 1; (c = strchr(c, '/')) != NULL; c++) {
		*c = '\0';
		(void)mkdir(path, 0700);
		*c = '/';
	}
	(void)mkdir(path, 0700);
}

#define ROOTS_DEVICES	1	/* the writable devices, as roots */
#define ROOTS_PROTECT	2	/* protected paths (mount layer, bwrap) */

static int
roots_build(const struct policy *p, struct roots *r, int flags)
{
	static const char *const stsub[] = { "overlays", "checkpoints",
	    "cache" };
	struct stat st;
	char *s, cfgdir[PATH_MAX], *slash;
	const char *root;
	size_t i;

	memset(r, 0, sizeof *r);
	if (p->mode == MODE_WORKSPACE_WRITE) {
		if (add(r->w, &r->nw, mem_strdup(p->workspace)) < 0)
			goto fail;
		state_dirs(p->state);
		if (add(r->w, &r->nw, mem_strdup(p->state)) < 0)
			goto fail;
		for (i = 0; i < p->grants.n; i++)
			if (add(r->w, &r->nw, mem_strdup(p->grants.v[i])) < 0)
				goto fail;
	}
	if (add(r->w, &r->nw, mem_strdup(p->tmpdir)) < 0)
		goto fail;
	for (i = 0; (flags & ROOTS_DEVICES) &&
	    i < sizeof devices / sizeof devices[0]; i++)
		if (stat(devices[i], &st) == 0 &&
		    add(r->w, &r->nw, mem_strdup(devices[i])) < 0)
			goto fail;
	if (p->mode != MODE_WORKSPACE_WRITE || !(flags & ROOTS_PROTECT))
		return 0;
	for (i = 0; i < p->protect.n; i++) {
		if ((s = join(p->workspace, p->protect.v[i])) == NULL ||
		    protect(r, s) < 0) {
			mem_free(s);
			goto fail;
		}
		mem_free(s);
	}
	for (i = 0; i < sizeof stsub / sizeof stsub[0]; i++) {
		if ((s = join(p->state, stsub[i])) == NULL ||
		    protect(r, s) < 0) {
			mem_free(s);
			goto fail;
		}
		mem_free(s);
	}
	/*
	 * The user config must not be loosened by the command it governs:
	 * where a writable root holds its folder, the folder is made (so it
	 * cannot be planted) and protected.
	 */
	if (p->user_config != NULL &&
	    strlen(p->user_config) < sizeof cfgdir) {
		strcpy(cfgdir, p->user_config);
		if ((slash = strrchr(cfgdir, '/')) != NULL && slash != cfgdir)
			*slash = '\0';
		if ((root = covering(r, cfgdir)) != NULL) {
			mkdirs(cfgdir, strlen(root));
			if (protect(r, cfgdir) < 0)
				goto fail;
		}
	}
	return 0;
fail:
	roots_free(r);
	return -1;
}

static const char *
which(const char *name, char *buf, size_t len)
{
	const char *path = getenv("PATH"), *e;
	size_t n;

	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (; *path; path = *e ? e + 1 : e) {
		e = strchrnul(path, ':');
		n = (size_t)(e - path);
		if (n == 0 || n + strlen(name) + 2 > len)
			continue;
		memcpy(buf, path, n);
		buf[n] = '/';
		strcpy(buf + n + 1, name);
		if (access(buf, X_OK) == 0)
			return buf;
	}
	return NULL;
}

/* Can this process create a user namespace? 0, or an errno. */
static int
userns_probe(int mounts)
{
	pid_t pid;
	int st;

	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
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

/* The helper refuses its mount layer where it cannot write an id map. */
static int
idmap_writable(void)
{
	int fd = open("/proc/self/uid_map", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
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

/*
 * 0 when bwrap at path can build its sandbox here, else an errno: an
 * unprivileged, non-setuid bwrap needs a user namespace and a writable id
 * map (not the case inside another arcturn sandbox).
 */
static int
bwrap_unusable(const char *path)
{
	struct stat st;
	int e;

	if (stat(path, &st) == 0 && (st.st_mode & S_ISUID))
		return 0;
	if (geteuid() == 0)	/* privileged bwrap: needs CAP_SYS_ADMIN */
		return has_sys_admin() ? 0 : EPERM;
	if ((e = userns_probe(0)) != 0)
		return e;
	return idmap_writable() ? 0 : EROFS;
}

static enum backend
choose(char *why, size_t len, int *forced)
{
	const char *env = getenv("ARCTURN_BACKEND");
	char buf[PATH_MAX];
	int abi, e;

	*forced = 0;
	if (env != NULL && *env != '\0') {
		*forced = 1;
		snprintf(why, len, "forced by ARCTURN_BACKEND=%s", env);
		if (strcmp(env, "helper") == 0)
			return B_HELPER;
		if (strcmp(env, "helper-landlock") == 0)
			return B_HELPER_LANDLOCK;
		if (strcmp(env, "bwrap") == 0)
			return B_BWRAP;
		if (strcmp(env, "none") == 0)
			return B_NONE;
		*forced = -1;
		snprintf(why, len, "ARCTURN_BACKEND=%s: unknown backend "
		    "(helper, helper-landlock, bwrap, none)", env);
		return B_NONE;
	}
	if ((abi = landlock_abi()) > 0) {
		snprintf(why, len, "kernel has Landlock ABI %d", abi);
		return B_HELPER;
	}
	if (which("bwrap", buf, sizeof buf) == NULL) {
		snprintf(why, len, "no Landlock in this kernel (%s) and no "
		    "bwrap on PATH", strerror(-abi));
		return B_NONE;
	}
	if ((e = bwrap_unusable(buf)) != 0) {
		snprintf(why, len, "no Landlock in this kernel (%s), and bwrap "
		    "cannot create a user namespace (%s)", strerror(-abi),
		    strerror(e));
		return B_NONE;
	}
	snprintf(why, len, "no Landlock in this kernel (%s): using %s",
	    strerror(-abi), buf);
	return B_BWRAP;
}


/*
 * The cached copy of the helper for kernels that refuse to exec a memfd:
 * $state/cache/landlock-helper-<sha>, verified on the opened fd before
 * every exec (rewritten when it does not match).
 */
static int
helper_cache_fd(const char *state, char *err, size_t errlen)
{
	unsigned char sum[HASH_LEN];
	char hex[HASH_HEXLEN + 1], path[PATH_MAX], tmp[PATH_MAX];
	int fd, tries;
	size_t len = (size_t)(helper_bin_end - helper_bin);

	state_dirs(state);
	snprintf(path, sizeof path, "%s/cache/landlock-helper-%.16s", state,
	    HELPER_SHA256);
	for (tries = 0; tries < 2; tries++) {
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		/*
		 * A read lease: refused while anyone has the file open for
		 * writing, and from now until exec denies writes, an open for
		 * writing waits for us. So what was hashed is what runs.
		 */
		if (fd >= 0 && fcntl(fd, F_SETLEASE, F_RDLCK) < 0) {
			close(fd);
			fd = -1;
		}
		if (fd >= 0) {
			if (hash_fd(fd, sum) == 0) {
				hash_hex(sum, hex);
				if (strcmp(hex, HELPER_SHA256) == 0)
					return fd;
			}
			close(fd);
		}
		snprintf(tmp, sizeof tmp, "%s.%d", path, (int)getpid());
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
		    O_CLOEXEC, 0500);
		if (fd < 0 || fsx_write_full(fd, helper_bin, len) < 0 ||
		    fsync(fd) < 0 || close(fd) < 0 || rename(tmp, path) < 0) {
			snprintf(err, errlen, "helper cache: %s: %s", tmp,
			    strerror(errno));
			if (fd >= 0)
				close(fd);
			unlink(tmp);
			return -1;
		}
	}
	snprintf(err, errlen, "helper cache: %s: does not verify", path);
	return -1;
}

static int
helper_memfd(void)
{
	size_t len = (size_t)(helper_bin_end - helper_bin);
	int fd;

	fd = (int)syscall(SYS_memfd_create, "landlock-helper",
	    MFD_CLOEXEC | MFD_EXEC);
	if (fd < 0 && errno == EINVAL)
		fd = (int)syscall(SYS_memfd_create, "landlock-helper",
		    MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fsx_write_full(fd, helper_bin, len) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int
exec_status(int e)
{
	return e == ENOENT || e == ENOTDIR ? EXIT_NOTFOUND : EXIT_NOEXEC;
}

static size_t
count(char **v)
{
	size_t n = 0;

	while (v[n] != NULL)
		n++;
	return n;
}

/*
 * Start the embedded helper with argv: from memory when the kernel lets us
 * exec a memfd, else from the verified cache file. Returns only on failure.
 */
static int
exec_helper(const struct policy *p, char **argv, char *err, size_t errlen)
{
	char why[256];
	int fd, e;

	if ((fd = helper_memfd()) >= 0) {
		fexecve(fd, argv, environ);
		e = errno;
		close(fd);
		snprintf(why, sizeof why, "exec from memory: %s", strerror(e));
	} else
		snprintf(why, sizeof why, "memfd_create: %s", strerror(errno));
	if ((fd = helper_cache_fd(p->state, err, errlen)) < 0)
		return EXIT_OWN;
	fexecve(fd, argv, environ);
	e = errno;
	close(fd);
	snprintf(err, errlen, "cannot start the sandbox helper (%s; from "
	    "cache: %s)", why, strerror(e));
	return EXIT_OWN;
}

/* Dry run: overlayfs on ovl with these upper and work dirs. */
struct ovl {
	const char	*dir;
	const char	*upper;
	const char	*work;
};

/* The helper's argv for r and cmd (free with mem_free), or NULL. */
static char **
helper_argv(const struct policy *p, const struct roots *r, int mountlayer,
    const struct ovl *ovl, char **cmd)
{
	char **argv;
	size_t n = 0;
	int i;

	argv = mem_calloc(10 + 2 * (size_t)(r->nw + r->np) + count(cmd) + 1,
	    sizeof *argv);
	if (argv == NULL)
		return NULL;
	argv[n++] = "landlock-helper";
	if (mountlayer)
		argv[n++] = mountlayer == 2 ? "-M" : "-m";
	if (!p->network)
		argv[n++] = "-n";
	if (ovl != NULL) {
		argv[n++] = "-o";
		argv[n++] = (char *)ovl->dir;
		argv[n++] = "-u";
		argv[n++] = (char *)ovl->upper;
		argv[n++] = "-k";
		argv[n++] = (char *)ovl->work;
	}
	for (i = 0; i < r->nw; i++) {
		argv[n++] = "-w";
		argv[n++] = r->w[i];
	}
	for (i = 0; mountlayer && i < r->np; i++) {
		argv[n++] = "-p";
		argv[n++] = r->p[i];
	}
	argv[n++] = "--";
	for (i = 0; cmd[i] != NULL; i++)
		argv[n++] = cmd[i];
	return argv;
}

static int
run_helper(const struct policy *p, const struct roots *r, int mountlayer,
    char **cmd, char *err, size_t errlen)
{
	char **argv;
	int rc;

	if ((argv = helper_argv(p, r, mountlayer, NULL, cmd)) == NULL) {
		snprintf(err, errlen, "exec: %s", strerror(errno));
		return EXIT_OWN;
	}
	rc = exec_helper(p, argv, err, errlen);
	mem_free(argv);
	return rc;
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

	if (fstat(0, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
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
static int
fds_guard(char *err, size_t errlen)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int fd, dfd, flags;

	if (stdin_pipe(err, errlen) < 0)
		return -1;
	if ((d = opendir("/proc/self/fd")) == NULL)
		return 0;	/* no /proc: nothing inherited can be listed */
	dfd = dirfd(d);
	while ((e = readdir(d)) != NULL) {
		fd = atoi(e->d_name);
		if (fd <= 2 || fd == dfd || e->d_name[0] == '.')
			continue;
		if (fstat(fd, &st) < 0 || !(S_ISREG(st.st_mode) ||
		    S_ISDIR(st.st_mode)))
			continue;
		if ((flags = fcntl(fd, F_GETFD)) >= 0)
			(void)fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
	}
	closedir(d);
	return 0;
}

/*
 * bwrap runs the command itself and exits 1 when it cannot: find it first
 * so that "not found" and "cannot run" keep their statuses (127, 126).
 */
static int
precheck(char **cmd, char *err, size_t errlen)
{
	char buf[PATH_MAX];
	struct stat st;

	if (strchr(cmd[0], '/') == NULL) {
		if (which(cmd[0], buf, sizeof buf) != NULL)
			return 0;
		snprintf(err, errlen, "%s: command not found", cmd[0]);
		return EXIT_NOTFOUND;
	}
	if (stat(cmd[0], &st) < 0) {
		snprintf(err, errlen, "%s: %s", cmd[0], strerror(errno));
		return exec_status(errno);
	}
	if (S_ISDIR(st.st_mode) || access(cmd[0], X_OK) < 0) {
		snprintf(err, errlen, "%s: %s", cmd[0],
		    strerror(S_ISDIR(st.st_mode) ? EISDIR : errno));
		return EXIT_NOEXEC;
	}
	return 0;
}

/* Capabilities root keeps under bwrap (Docker's default set, no mknod). */
static const char *const bwrap_caps[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID",
	"CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP",
	"CAP_NET_BIND_SERVICE", "CAP_NET_RAW", "CAP_SYS_CHROOT",
	"CAP_SETFCAP", "CAP_AUDIT_WRITE",
};

static int
run_bwrap(const struct policy *p, const struct roots *r, char **cmd,
    char *err, size_t errlen)
{
	char path[PATH_MAX], fdarg[16], **argv;
	size_t n = 0;
	int i, j, sfd[2];

	if (which("bwrap", path, sizeof path) == NULL) {
		snprintf(err, errlen, "bwrap: not found on PATH");
		return EXIT_OWN;
	}
	/* choose() or forced_usable() checked that bwrap can run here */
	if ((i = precheck(cmd, err, errlen)) != 0)
		return i;
	/* the TIOCSTI filter, handed over on a pipe */
	if (pipe(sfd) < 0 || fsx_write_full(sfd[1], tiocsti_filter,
	    sizeof tiocsti_filter) < 0 || close(sfd[1]) < 0) {
		snprintf(err, errlen, "bwrap: seccomp pipe: %s",
		    strerror(errno));
		return EXIT_OWN;
	}
	snprintf(fdarg, sizeof fdarg, "%d", sfd[0]);
	argv = mem_calloc(16 + 3 * (size_t)(r->nw + r->np + r->npin) +
	    2 * (sizeof bwrap_caps / sizeof *bwrap_caps) + count(cmd) + 1,
	    sizeof *argv);
	if (argv == NULL) {
		snprintf(err, errlen, "exec: %s", strerror(errno));
		return EXIT_OWN;
	}
	argv[n++] = "bwrap";
	argv[n++] = "--ro-bind";
	argv[n++] = "/";
	argv[n++] = "/";
	argv[n++] = "--dev";
	argv[n++] = "/dev";
	for (i = 0; i < r->nw; i++) {
		if (strncmp(r->w[i], "/dev/", 5) == 0)
			continue;	/* --dev provides the allowed devices */
		argv[n++] = "--bind";
		argv[n++] = r->w[i];
		argv[n++] = r->w[i];
	}
	/* pin the parents of protected paths (see pin_parents in the helper) */
	for (i = 0; i < r->np; i++)
		for (j = 0; j < r->npin; j++)
			if (r->pin_of[j] == i) {
				argv[n++] = "--bind";
				argv[n++] = r->pin[j];
				argv[n++] = r->pin[j];
			}
	for (i = 0; i < r->np; i++) {
		argv[n++] = "--ro-bind";
		argv[n++] = r->p[i];
		argv[n++] = r->p[i];
	}
	if (geteuid() == 0) {
		argv[n++] = "--cap-drop";
		argv[n++] = "ALL";
		for (j = 0; j < (int)(sizeof bwrap_caps / sizeof *bwrap_caps);
		    j++) {
			argv[n++] = "--cap-add";
			argv[n++] = (char *)bwrap_caps[j];
		}
	}
	argv[n++] = p->network ? "--share-net" : "--unshare-net";
	argv[n++] = "--seccomp";
	argv[n++] = fdarg;
	argv[n++] = "--";
	for (i = 0; cmd[i] != NULL; i++)
		argv[n++] = cmd[i];
	execv(path, argv);
	snprintf(err, errlen, "bwrap: %s: %s", path, strerror(errno));
	mem_free(argv);
	return EXIT_OWN;
}

static int
run_plain(char **cmd, char *err, size_t errlen)
{
	execvp(cmd[0], cmd);
	snprintf(err, errlen, "%s: %s", cmd[0], errno == ENOENT ?
	    "command not found" : strerror(errno));
	return exec_status(errno);
}

/*
 * A forced backend the machine cannot run is unavailable like any other:
 * the note and an unconfined run, or 125 when a sandbox is required.
 */
static enum backend
forced_usable(enum backend b, char *why, size_t len)
{
	char path[PATH_MAX];
	size_t n = strlen(why);
	int abi, e;

	if ((b == B_HELPER || b == B_HELPER_LANDLOCK) &&
	    (abi = landlock_abi()) < 1) {
		snprintf(why + n, len - n, ", but this kernel has no Landlock "
		    "(%s)", strerror(-abi));
		return B_NONE;
	}
	if (b == B_BWRAP && which("bwrap", path, sizeof path) == NULL) {
		snprintf(why + n, len - n, ", but bwrap is not on PATH");
		return B_NONE;
	}
	if (b == B_BWRAP && (e = bwrap_unusable(path)) != 0) {
		snprintf(why + n, len - n, ", but bwrap cannot create its "
		    "namespaces here (%s)", strerror(e));
		return B_NONE;
	}
	return b;
}

int
sandbox_exec(const struct policy *p, char **cmd, char *err, size_t errlen)
{
	struct roots r;
	char why[256];
	enum backend b;
	int forced, rc;

	if (p->mode == MODE_OFF)
		return run_plain(cmd, err, errlen);
	b = choose(why, sizeof why, &forced);
	if (forced < 0) {
		snprintf(err, errlen, "%s", why);
		return EXIT_OWN;
	}
	if (forced)
		b = forced_usable(b, why, sizeof why);
	if (b == B_NONE) {
		if (p->require_sandbox) {
			snprintf(err, errlen, "sandbox required but "
			    "unavailable: %s", why);
			return EXIT_OWN;
		}
		fprintf(stderr, "note: sandbox requested but unavailable on "
		    "this platform\nnote: %s; the command runs WITHOUT "
		    "confinement\n", why);
		return run_plain(cmd, err, errlen);
	}
	/*
	 * Landlock alone promises nothing about metadata (status says so),
	 * and it refuses reopening an inherited file by its path, so the
	 * forced Landlock-only mode needs neither the fd guard nor the
	 * protected paths it cannot express.
	 */
	if (b != B_HELPER_LANDLOCK && fds_guard(err, errlen) < 0)
		return EXIT_OWN;
	if (roots_build(p, &r, b == B_BWRAP ? ROOTS_PROTECT :
	    b == B_HELPER ? ROOTS_DEVICES | ROOTS_PROTECT : ROOTS_DEVICES) < 0) {
		snprintf(err, errlen, "exec: %s", strerror(errno));
		return EXIT_OWN;
	}
	if (b == B_BWRAP)
		rc = run_bwrap(p, &r, cmd, err, errlen);
	else
		rc = run_helper(p, &r, b == B_HELPER, cmd, err, errlen);
	roots_free(&r);
	return rc;
}

/*
 * Why exec --dry-run cannot run here, or NULL when it can: it needs the
 * helper's mount layer (Landlock, user namespaces, writable id maps) and
 * a state dir outside the workspace (overlayfs refuses an upper dir
 * inside its lower one, and the command must not reach the session).
 * Without probe the user namespace is not tried here (a fork on every
 * run): the helper, run with -M, fails closed before the command when it
 * cannot have one.
 */
static const char *
overlay_unavailable(const struct policy *p, int probe, char *buf, size_t len)
{
	const char *env = getenv("ARCTURN_BACKEND");
	int abi, e;

	if (p->mode == MODE_READ_ONLY)
		return "dry run needs a writable workspace (sandbox mode is "
		    "read-only)";
	if (under(p->state, p->workspace)) {
		snprintf(buf, len, "the state dir %s lies inside the workspace",
		    p->state);
		return buf;
	}
	if (env != NULL && *env != '\0' && strcmp(env, "helper") != 0) {
		snprintf(buf, len, "ARCTURN_BACKEND=%s: dry run needs the "
		    "helper's mount layer", env);
		return buf;
	}
	if ((abi = landlock_abi()) < 1) {
		snprintf(buf, len, "no Landlock in this kernel (%s)",
		    strerror(-abi));
		return buf;
	}
	if (probe && (e = userns_probe(1)) != 0) {
		snprintf(buf, len, "user namespaces unusable (%s): overlayfs "
		    "cannot be mounted", strerror(e));
		return buf;
	}
	if (!idmap_writable())
		return "user namespaces unusable here (already confined?)";
	return NULL;
}

int
sandbox_overlay_available(const struct policy *p, char *why, size_t len)
{
	char buf[256];
	const char *w = overlay_unavailable(p, 0, buf, sizeof buf);

	if (w != NULL)
		snprintf(why, len, "%s", w);
	return w == NULL;
}

/* The dry-run command, while arcturn waits for it (SIGTERM, SIGHUP). */
static volatile sig_atomic_t overlay_child;

static void
pass_on(int sig)
{
	int saved = errno;

	if (overlay_child > 0)
		(void)kill((pid_t)overlay_child, sig);
	errno = saved;
}

/* What the spawned child needs: it shares our memory until it execs. */
struct spawn {
	const struct policy	*p;
	char			**argv;
	struct sigaction	 old[4];	/* INT, QUIT, TERM, HUP */
	sigset_t		 mask;
	char			 err[512];
};

static const int spawn_sigs[4] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP };

/* The child: our dispositions back, then the helper (or one line, 125). */
static int
spawn_child(void *arg)
{
	struct spawn *sp = arg;
	int i, rc;

	for (i = 0; i < 4; i++)
		sigaction(spawn_sigs[i], &sp->old[i], NULL);
	sigprocmask(SIG_SETMASK, &sp->mask, NULL);
	rc = exec_helper(sp->p, sp->argv, sp->err, sizeof sp->err);
	(void)!write(2, "arcturn: ", 9);
	(void)!write(2, sp->err, strlen(sp->err));
	(void)!write(2, "\n", 1);
	_exit(rc);
}

/*
 * The child runs on its own stack, in our memory, while we wait for it to
 * exec (CLONE_VFORK, as posix_spawn does): no page tables to copy, and it
 * runs at once instead of queueing behind us on this CPU. The stack has
 * room for the cache path (hash_fd reads 64 KiB at a time) and a guard
 * page below it, so that an overflow faults instead of writing over our
 * memory.
 */
#define SPAWN_STACK	(256 * 1024)
#define SPAWN_GUARD	4096

static pid_t
spawn_helper(struct spawn *sp)
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
		pid = clone(spawn_child, stk + SPAWN_GUARD + SPAWN_STACK,
		    CLONE_VM | CLONE_VFORK | SIGCHLD, sp);
	/* the child has exec'd or exited: its stack is ours again */
	e = errno;
	munmap(stk, SPAWN_GUARD + SPAWN_STACK);
	errno = e;
	return pid;
}

int
sandbox_exec_overlay(const struct policy *p, const char *upper,
    const char *work, char **cmd, void (*during)(void *), void *arg,
    char *err, size_t errlen)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	struct sigaction fwd = { .sa_handler = pass_on, .sa_flags = SA_RESTART };
	struct spawn sp;
	sigset_t block;
	struct policy q = *p;
	struct ovl ovl = { p->workspace, upper, work };
	struct roots r;
	pid_t pid;
	int i, st, rc;

	q.mode = MODE_WORKSPACE_WRITE;
	if (fds_guard(err, errlen) < 0)
		return -1;
	if (roots_build(&q, &r, ROOTS_DEVICES | ROOTS_PROTECT) < 0) {
		snprintf(err, errlen, "exec: %s", strerror(errno));
		return -1;
	}
	memset(&sp, 0, sizeof sp);
	sp.p = &q;
	if ((sp.argv = helper_argv(&q, &r, 2, &ovl, cmd)) == NULL) {
		snprintf(err, errlen, "exec: %s", strerror(errno));
		roots_free(&r);
		return -1;
	}
	/*
	 * INT and QUIT are ignored while we wait (the terminal sends them to
	 * the command too); TERM and HUP are passed on. Blocked until
	 * overlay_child names the child, so none is lost; nohup's ignored
	 * HUP stays ignored.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &sp.mask);
	overlay_child = 0;
	for (i = 0; i < 4; i++) {
		sigaction(spawn_sigs[i], NULL, &sp.old[i]);
		if (i < 2)
			sigaction(spawn_sigs[i], &ign, NULL);
		else if (sp.old[i].sa_handler != SIG_IGN)
			sigaction(spawn_sigs[i], &fwd, NULL);
	}
	pid = spawn_helper(&sp);
	mem_free(sp.argv);
	rc = -1;
	if (pid < 0) {
		snprintf(err, errlen, "exec: fork: %s", strerror(errno));
		sigprocmask(SIG_SETMASK, &sp.mask, NULL);
	} else {
		overlay_child = pid;
		sigprocmask(SIG_SETMASK, &sp.mask, NULL);
		if (during != NULL)
			during(arg);
		while ((rc = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
			;
		if (rc < 0) {
			snprintf(err, errlen, "exec: wait: %s", strerror(errno));
			rc = EXIT_OWN;
		} else
			rc = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ?
			    128 + WTERMSIG(st) : EXIT_OWN;
	}
	overlay_child = 0;
	for (i = 0; i < 4; i++)
		sigaction(spawn_sigs[i], &sp.old[i], NULL);
	roots_free(&r);
	return rc;
}

int
sandbox_unstamp(const struct policy *p, const char *path, char *err,
    size_t errlen)
{
	snprintf(err, errlen, "sandbox unstamp: only Windows stamps labels");
	errno = ENOTSUP;
	return -1;
}

/* status */

static void
bwrap_version(const char *path, char *buf, size_t len)
{
	int pfd[2], st;
	ssize_t n;
	pid_t pid;

	snprintf(buf, len, "unknown");
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return;
	if ((pid = fork()) == 0) {
		dup2(pfd[1], 1);
		execl(path, "bwrap", "--version", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	if (pid > 0) {
		n = read(pfd[0], buf, len - 1);
		if (n > 0) {
			buf[n] = '\0';
			buf[strcspn(buf, "\n")] = '\0';
		}
		waitpid(pid, &st, 0);
	}
	close(pfd[0]);
}

void
sandbox_probe(const struct policy *p, struct sandbox_report *r)
{
	struct utsname u;
	char why[256], buf[PATH_MAX], ver[128], sys[64];
	const char *bw, *dwhy;
	enum backend b;
	int abi, ue, me, forced, mount, landlock, idmap, fd;

	memset(r, 0, sizeof *r);
	if (uname(&u) == 0)
		sandbox_fact(r, "kernel", "%s %s %s", u.sysname, u.release,
		    u.machine);
	abi = landlock_abi();
	if (abi > 0)
		sandbox_fact(r, "landlock_abi", "%d (arcturn knows 1 to %d)", abi,
		    LANDLOCK_ABI_KNOWN);
	else
		sandbox_fact(r, "landlock_abi", "unavailable (%s)", strerror(-abi));
	ue = userns_probe(0);
	me = ue == 0 ? userns_probe(1) : ue;
	idmap = idmap_writable();
	if (ue == 0 && me == 0 && idmap)
		sandbox_fact(r, "user_namespaces", "usable");
	else if (ue == 0 && !idmap)
		sandbox_fact(r, "user_namespaces", "unusable for the mount layer: "
		    "id maps not writable here (already confined?)");
	else {
		int k = snprintf(buf, sizeof buf, "unusable: %s",
		    strerror(ue ? ue : me));
		if (fsx_read_line("/proc/sys/user/max_user_namespaces", sys,
		    sizeof sys) == 0 && k > 0 && (size_t)k < sizeof buf)
			k += snprintf(buf + k, sizeof buf - (size_t)k,
			    "; user.max_user_namespaces=%s", sys);
		if (fsx_read_line("/proc/sys/kernel/unprivileged_userns_clone",
		    sys, sizeof sys) == 0 && k > 0 && (size_t)k < sizeof buf)
			k += snprintf(buf + k, sizeof buf - (size_t)k,
			    "; kernel.unprivileged_userns_clone=%s", sys);
		if (fsx_read_line("/proc/sys/kernel/"
		    "apparmor_restrict_unprivileged_userns", sys,
		    sizeof sys) == 0 && k > 0 && (size_t)k < sizeof buf)
			snprintf(buf + k, sizeof buf - (size_t)k,
			    "; kernel.apparmor_restrict_unprivileged_userns=%s",
			    sys);
		sandbox_fact(r, "user_namespaces", "%s", buf);
	}
	bw = which("bwrap", buf, sizeof buf);
	if (bw != NULL) {
		bwrap_version(bw, ver, sizeof ver);
		sandbox_fact(r, "bwrap", "%s (%s)", bw, ver);
	} else
		sandbox_fact(r, "bwrap", "not found on PATH");
	if (fsx_read_line("/proc/sys/vm/memfd_noexec", sys, sizeof sys) == 0 &&
	    strcmp(sys, "2") == 0)
		sandbox_fact(r, "helper_start", "cache file (vm.memfd_noexec=2)");
	else if ((fd = helper_memfd()) >= 0) {
		close(fd);
		sandbox_fact(r, "helper_start", "from memory (memfd)");
	} else
		sandbox_fact(r, "helper_start", "cache file (memfd_create: %s)",
		    strerror(errno));

	b = choose(why, sizeof why, &forced);
	landlock = abi > 0 && (b == B_HELPER || b == B_HELPER_LANDLOCK);
	mount = landlock && b == B_HELPER && ue == 0 && me == 0 && idmap;
	if (p->mode == MODE_OFF) {
		snprintf(r->backend, sizeof r->backend, "off");
		snprintf(r->why, sizeof r->why, "sandbox mode is off");
	} else if ((b == B_HELPER || b == B_HELPER_LANDLOCK) && !landlock) {
		snprintf(r->backend, sizeof r->backend, "none");
		snprintf(r->why, sizeof r->why, "%s, but this kernel has no "
		    "Landlock: exec exits 125", why);
		b = B_NONE;
	} else {
		snprintf(r->backend, sizeof r->backend, "%s",
		    b == B_BWRAP ? "bwrap" : b == B_NONE ? "none" :
		    mount ? "helper+mount" : "helper");
		if (b == B_HELPER && !mount)
			snprintf(r->why, sizeof r->why, "%s; mount layer "
			    "unavailable (user namespaces unusable here), "
			    "Landlock only", why);
		else
			snprintf(r->why, sizeof r->why, "%s", why);
	}
	if (p->mode == MODE_OFF)
		b = B_NONE;
	dwhy = overlay_unavailable(p, 1, buf, sizeof buf);
	r->dry_run_exec = dwhy == NULL;
	snprintf(r->dry_run_why, sizeof r->dry_run_why, "%s", dwhy == NULL ?
	    "overlayfs on the workspace in the helper's mount layer" : dwhy);

	if (fsx_read_line("/proc/sys/dev/tty/legacy_tiocsti", sys,
	    sizeof sys) < 0)
		snprintf(sys, sizeof sys, "?");

	if (b == B_NONE) {
		sandbox_guarantee(r, "writes_outside", "writes outside the roots", 0,
		    "nothing confines the command");
		sandbox_guarantee(r, "metadata_outside", "metadata changes outside the "
		    "roots", 0, "nothing confines the command");
		sandbox_guarantee(r, "protected_paths", "protected paths", 0,
		    "nothing confines the command");
		sandbox_guarantee(r, "truncation", "truncation outside the roots", 0,
		    "nothing confines the command");
		sandbox_guarantee(r, "devices", "writes to other devices", 0,
		    "nothing confines the command");
		sandbox_guarantee(r, "signals", "signals to outside processes", 0,
		    "nothing confines the command");
		sandbox_guarantee(r, "tiocsti", "TIOCSTI terminal injection", sys[0] == '0',
		    "dev.tty.legacy_tiocsti=%s", sys);
		return;
	}
	if (b == B_BWRAP) {
		sandbox_guarantee(r, "writes_outside", "writes outside the roots", 1,
		    "bwrap: / bound read-only, roots bound read-write");
		sandbox_guarantee(r, "metadata_outside", "metadata changes outside the "
		    "roots", 1, "read-only bind mounts refuse chmod, chown, "
		    "utimes and xattrs");
		sandbox_guarantee(r, "protected_paths", "protected paths", 1,
		    "bound read-only on top of the roots");
		sandbox_guarantee(r, "truncation", "truncation outside the roots", 1,
		    "read-only bind mounts");
		sandbox_guarantee(r, "devices", "writes to other devices", 1,
		    "--dev gives a minimal /dev");
		sandbox_guarantee(r, "signals", "signals to outside processes", 0,
		    "bwrap shares the pid namespace: the command can signal "
		    "other processes of the same user");
		sandbox_guarantee(r, "tiocsti", "TIOCSTI terminal injection", 1,
		    "seccomp filter handed to bwrap");
		sandbox_guarantee(r, "network_off", "--network off", 1,
		    "bwrap --unshare-net");
		return;
	}
	sandbox_guarantee(r, "writes_outside", "writes outside the roots", 1,
	    "Landlock ABI %d%s", abi, mount ? " and read-only mounts" : "");
	if (mount)
		sandbox_guarantee(r, "metadata_outside", "metadata changes outside the "
		    "roots", 1, "mount layer: everything outside the roots is "
		    "mounted read-only");
	else
		sandbox_guarantee(r, "metadata_outside", "metadata changes outside the "
		    "roots", 0, "Landlock does not cover chmod, chown, utimes "
		    "or xattrs, and the mount layer that would needs user "
		    "namespaces");
	if (mount)
		sandbox_guarantee(r, "protected_paths", "protected paths", 1,
		    "bound read-only by the mount layer");
	else
		sandbox_guarantee(r, "protected_paths", "protected paths", 0,
		    "Landlock cannot make a subpath of a writable root "
		    "read-only; needs the mount layer");
	sandbox_guarantee(r, "truncation", "truncation outside the roots", abi >= 3 || mount,
	    "%s", abi >= 3 ? "Landlock ABI 3 truncate right" : mount ?
	    "read-only mounts" : "needs Landlock ABI 3 or the mount layer");
	sandbox_guarantee(r, "devices", "writes to other devices", 1,
	    "Landlock: only the listed devices are writable");
	sandbox_guarantee(r, "signals", "signals to outside processes", abi >= 6,
	    "%s", abi >= 6 ? "Landlock ABI 6 signal scoping" :
	    "needs Landlock ABI 6");
	sandbox_guarantee(r, "tiocsti", "TIOCSTI terminal injection", 1,
	    "seccomp filter refuses TIOCSTI and TIOCLINUX");
	sandbox_guarantee(r, "network_off", "--network off", mount || abi >= 4, "%s",
	    mount ? "new network namespace" : abi >= 4 ?
	    "Landlock ABI 4: TCP bind/connect only (UDP and others not "
	    "covered)" : "needs user namespaces or Landlock ABI 4");
}
