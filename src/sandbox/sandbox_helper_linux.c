/*
 * sandbox_helper_linux: the embedded Landlock helper (landlock-helper/),
 * started from memory or from a verified cache file, for exec and for
 * exec --dry-run (sandbox_linux.h).
 */
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helper_sum.h"
#include "landlock-helper/userns_why.h"
#include "lib/exitcode.h"
#include "lib/fsx.h"
#include "lib/hash.h"
#include "lib/mem.h"
#include "lib/os.h"
#include "lib/path.h"
#include "sandbox/kernel_linux.h"
#include "sandbox/sandbox.h"
#include "sandbox/sandbox_linux.h"
#include "sandbox/sandbox_posix.h"
#include "sandbox/sigfwd.h"
#include "uapi/landlock_uapi.h"

extern const unsigned char helper_bin[], helper_bin_end[];
extern char **environ;

/*
 * The cached copy of the helper for kernels that refuse to exec a memfd:
 * $state/cache/landlock-helper-<sha>, verified on the opened fd before
 * every exec (rewritten when it does not match).
 */
static int
cache_fd(const char *state, char *err, size_t errlen)
{
	unsigned char sum[HASH_LEN];
	char hex[HASH_HEXLEN + 1], path[PATH_MAX], tmp[PATH_MAX];
	int fd, tries;
	size_t len = (size_t)(helper_bin_end - helper_bin);

	(void)mkdir(state, 0700);
	snprintf(path, sizeof path, "%s/cache", state);
	(void)mkdir(path, 0700);
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

int
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

int
helper_exec_fd(const char *state, char *err, size_t errlen)
{
	int fd;

	if ((fd = helper_memfd()) >= 0)
		return fd;
	return cache_fd(state, err, errlen);
}

/*
 * Start the helper with argv: from memory when the kernel lets us exec a
 * memfd, else from the verified cache file. Returns only on failure, with
 * one line in err.
 */
static int
exec_helper(const char *state, char **argv, char *err, size_t errlen)
{
	char why[256];
	int fd, e;

	if (linux_nosuid(err, errlen) < 0)
		return EXIT_OWN;
	if ((fd = helper_memfd()) >= 0) {
		fexecve(fd, argv, environ);
		e = errno;
		close(fd);
		snprintf(why, sizeof why, "exec from memory: %s", strerror(e));
	} else
		snprintf(why, sizeof why, "memfd_create: %s", strerror(errno));
	if ((fd = cache_fd(state, err, errlen)) < 0)
		return EXIT_OWN;
	fexecve(fd, argv, environ);
	e = errno;
	close(fd);
	snprintf(err, errlen, "cannot start the sandbox helper (%s; from "
	    "cache: %s)", why, strerror(e));
	return EXIT_OWN;
}

/* Dry run: overlayfs on dir with these upper and work dirs. */
struct ovl {
	const char	*dir;
	const char	*upper;
	const char	*work;
	const char	*lockfd;	/* -L: the session lock's fd */
	const char	*gofd;		/* -G: the word to mount comes here */
};

size_t
helper_socket_args(const struct policy *p, char **argv, size_t n)
{
	size_t i;

	if (p->unix_gate)
		argv[n++] = "-g";
	if (p->mode == MODE_WORKSPACE_WRITE) {
		argv[n++] = "-s";
		argv[n++] = p->workspace;
		for (i = 0; i < p->grants.n; i++) {
			argv[n++] = "-s";
			argv[n++] = p->grants.v[i];
		}
	}
	argv[n++] = "-t";
	argv[n++] = p->tmpdir;
	if (p->state != NULL) {
		argv[n++] = "-t";
		argv[n++] = p->state;
	}
	if (p->network && p->unix_all)
		argv[n++] = "-A";
	for (i = 0; p->network && i < p->unix_sockets.n; i++) {
		argv[n++] = "-a";
		argv[n++] = p->unix_sockets.v[i];
	}
	return n;
}

int
helper_socket_check(const struct policy *p)
{
	if (p->grants.n + 1 > HELPER_MAXPATHS ||
	    p->unix_sockets.n > HELPER_MAXPATHS) {
		errno = E2BIG;
		return -1;
	}
	return 0;
}

/*
 * The helper's argv for r and cmd (free with mem_free), or NULL with
 * errno: E2BIG past the helper's limits. mount: 0 none, 1 where it can be
 * had, 2 required.
 */
static char **
helper_argv(const struct policy *p, const struct roots *r, int mount,
    const struct ovl *ovl, char **cmd)
{
	static const char *const flag[] = { "-w", "-P", "-p" };
	const struct strlist *l[] = { &r->w, &r->pin, &r->p };
	const struct strlist *us = &p->unix_sockets;
	char **argv;
	size_t n = 0, ncmd, i, k, nl = mount ? 3 : 1;

	for (k = 0; k < nl; k++)
		if (l[k]->n > HELPER_MAXPATHS) {
			errno = E2BIG;
			return NULL;
		}
	if (helper_socket_check(p) < 0)
		return NULL;
	for (ncmd = 0; cmd[ncmd] != NULL; ncmd++)
		;
	argv = mem_calloc(32 + 2 * (r->w.n + r->pin.n + r->p.n +
	    p->grants.n + us->n) + ncmd + 1, sizeof *argv);
	if (argv == NULL)
		return NULL;
	argv[n++] = "landlock-helper";
	if (mount)
		argv[n++] = mount == 2 ? "-M" : "-m";
	if (!p->network)
		argv[n++] = "-n";
	if (ovl != NULL) {
		argv[n++] = "-o";
		argv[n++] = (char *)ovl->dir;
		argv[n++] = "-u";
		argv[n++] = (char *)ovl->upper;
		argv[n++] = "-k";
		argv[n++] = (char *)ovl->work;
		if (ovl->lockfd != NULL) {
			argv[n++] = "-L";
			argv[n++] = (char *)ovl->lockfd;
		}
		if (ovl->gofd != NULL) {
			argv[n++] = "-G";
			argv[n++] = (char *)ovl->gofd;
		}
	}
	for (k = 0; k < nl; k++)
		for (i = 0; i < l[k]->n; i++) {
			argv[n++] = (char *)flag[k];
			argv[n++] = l[k]->v[i];
		}
	n = helper_socket_args(p, argv, n);
	argv[n++] = "--";
	for (i = 0; i < ncmd; i++)
		argv[n++] = cmd[i];
	return argv;
}

static void
argv_error(char *err, size_t errlen)
{
	if (errno == E2BIG)
		snprintf(err, errlen, "exec: more than %d writable roots, "
		    "protected paths or pinned parents: the sandbox helper "
		    "takes no more", HELPER_MAXPATHS);
	else
		snprintf(err, errlen, "exec: %s", strerror(errno));
}

int
helper_run(const struct policy *p, const struct roots *r, int mount,
    char **cmd, char *err, size_t errlen)
{
	char **argv;
	int rc;

	if ((argv = helper_argv(p, r, mount, NULL, cmd)) == NULL) {
		argv_error(err, errlen);
		return EXIT_OWN;
	}
	rc = exec_helper(p->state, argv, err, errlen);
	mem_free(argv);
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
const char *
helper_overlay_unavailable(const struct policy *p, int probe, char *buf,
    size_t len)
{
	const char *env = p->backend;
	int abi, e;

	if (p->mode == MODE_READ_ONLY)
		return "dry run needs a writable workspace (sandbox mode is "
		    "read-only)";
	/*
	 * The overlay would hide the sessions it writes to. Mostly the
	 * workspace is the home folder (a command started from ~): say
	 * how to go on.
	 */
	if (path_under(p->state, p->workspace)) {
		snprintf(buf, len, "the workspace %s holds arcturn's state dir "
		    "%s (is it your home folder?): run it in a project folder "
		    "(-C PROJECT), or keep the state elsewhere (ARCTURN_HOME)",
		    p->workspace, p->state);
		return buf;
	}
	if (env != NULL && *env != '\0' && strcmp(env, "helper") != 0) {
		snprintf(buf, len, "ARCTURN_BACKEND=%s: dry run needs the "
		    "helper's mount layer", env);
		return buf;
	}
	if ((abi = linux_landlock_abi()) < 1) {
		snprintf(buf, len, "no Landlock in this kernel (%s)",
		    strerror(-abi));
		return buf;
	}
	if (probe && (e = linux_userns(1)) != 0) {
		snprintf(buf, len, "no user namespace, so overlayfs cannot "
		    "be mounted: ");
		userns_why(e, buf + strlen(buf), len - strlen(buf));
		return buf;
	}
	if (!linux_idmap_writable())
		return "user namespaces unusable here (already confined?)";
	return NULL;
}

int
sandbox_overlay_available(const struct policy *p, char *why, size_t len)
{
	char buf[1024];
	const char *w = helper_overlay_unavailable(p, 0, buf, sizeof buf);

	if (w != NULL)
		snprintf(why, len, "%s", w);
	return w == NULL;
}

/*
 * What the spawned child needs. It shares our memory until it execs, so
 * when the helper cannot be started its one line comes back in err (and
 * the child exits 125): we speak for it.
 */
struct spawn {
	const char		*state;
	char			**argv;
	struct sigfwd		 sf;
	pid_t			 parent;
	int			 lockfd;
	int			 gofd;		/* the helper's end of -G */
	char			 err[512];
};

/*
 * The child: our dispositions back; killed when we die (even by SIGKILL),
 * so that the sandbox's init sees the helper go and ends the command;
 * the session lock and the end that says go kept open across the exec;
 * then the helper (or err, 125).
 */
static int
spawn_child(void *arg)
{
	struct spawn *sp = arg;

	sigfwd_child(&sp->sf, 0);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 ||
	    getppid() != sp->parent)
		_exit(EXIT_OWN);
	if (sp->lockfd >= 0 && fcntl(sp->lockfd, F_SETFD, 0) < 0) {
		snprintf(sp->err, sizeof sp->err, "exec: session lock: %s",
		    strerror(errno));
		_exit(EXIT_OWN);
	}
	if (sp->gofd >= 0 && fcntl(sp->gofd, F_SETFD, 0) < 0) {
		snprintf(sp->err, sizeof sp->err, "exec --dry-run: %s",
		    strerror(errno));
		_exit(EXIT_OWN);
	}
	_exit(exec_helper(sp->state, sp->argv, sp->err, sizeof sp->err));
}

/*
 * The child runs on its own stack, in our memory, while we wait for it to
 * exec (os_spawn: CLONE_VFORK, as posix_spawn does): no page tables to
 * copy, and it runs at once instead of queueing behind us on this CPU.
 */
static pid_t
spawn_helper(struct spawn *sp)
{
	return os_spawn(spawn_child, sp);
}

/*
 * Wait for pid (sf passing signals on to it): 0 with *end how it ended,
 * or -1 with errno.
 */
static int
wait_end(struct sigfwd *sf, pid_t pid, struct sandbox_end *end)
{
	int st;

	if (sigfwd_wait(sf, pid, &st) < 0)
		return -1;
	posix_end(end, st);
	return 0;
}

/* A dry run's command between sandbox_overlay_start and _wait. */
struct sandbox_overlay_run {
	struct sigfwd	 sf;
	pid_t		 pid;
	int		 go;	/* our end of the helper's -G, or -1 */
};

int
sandbox_overlay_start(const struct policy *p, const char *upper,
    const char *work, int lockfd, char **cmd,
    struct sandbox_overlay_run **runp, char *err, size_t errlen)
{
	struct sandbox_overlay_run *run;
	struct sandbox_end gone;
	struct spawn sp;
	struct policy q = *p;
	char lockarg[16], goarg[16];
	struct ovl ovl = { p->workspace, upper, work, NULL, NULL };
	struct roots r;
	pid_t pid;
	int go[2];

	*runp = NULL;
	q.mode = MODE_WORKSPACE_WRITE;
	if (sweep_held(p, err, errlen) < 0 ||
	    linux_std_fds(err, errlen) < 0 || linux_fds_guard(err, errlen) < 0 ||
	    linux_limits(err, errlen) < 0)
		return -1;
	if (roots_build(&q, ROOTS_DEVICES | ROOTS_PROTECT, &posix_roots_ops,
	    &r) < 0) {
		snprintf(err, errlen, "%s", r.why);
		return -1;
	}
	if (lockfd >= 0) {
		snprintf(lockarg, sizeof lockarg, "%d", lockfd);
		ovl.lockfd = lockarg;
	}
	/* a socket, so that a word to a helper gone raises no SIGPIPE */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go) < 0) {
		snprintf(err, errlen, "exec --dry-run: starting the sandbox: "
		    "%s", strerror(errno));
		roots_free(&r);
		return -1;
	}
	snprintf(goarg, sizeof goarg, "%d", go[0]);
	ovl.gofd = goarg;
	(void)sandbox_setenv("workspace-write,dry-run");
	memset(&sp, 0, sizeof sp);
	sp.state = q.state;
	sp.lockfd = lockfd;
	sp.gofd = go[0];
	sp.parent = getpid();
	/* argv points into r: r goes once the helper has exec'd */
	if ((sp.argv = helper_argv(&q, &r, 2, &ovl, cmd)) == NULL) {
		argv_error(err, errlen);
		roots_free(&r);
		close(go[0]);
		close(go[1]);
		return -1;
	}
	if ((run = mem_calloc(1, sizeof *run)) == NULL) {
		mem_free(sp.argv);
		roots_free(&r);
		close(go[0]);
		close(go[1]);
		snprintf(err, errlen, "exec: %s", strerror(errno));
		return -1;
	}
	/*
	 * Held until the helper is named, so that none is lost; nohup's
	 * ignored HUP stays ignored (and the helper then does not pass it on
	 * either).
	 */
	sigfwd_hold(&sp.sf);
	pid = spawn_helper(&sp);
	mem_free(sp.argv);
	roots_free(&r);
	close(go[0]);
	if (pid < 0 || sp.err[0] != '\0')
		close(go[1]);
	if (pid < 0) {
		snprintf(err, errlen, "exec: fork: %s", strerror(errno));
		sigfwd_end(&sp.sf);
	} else if (sp.err[0] != '\0') {
		/* the helper never started: the command did not run */
		sigfwd_to(&sp.sf, 0);
		(void)wait_end(&sp.sf, pid, &gone);
		snprintf(err, errlen, "%s", sp.err);
	} else {
		sigfwd_to(&sp.sf, pid);
		run->sf = sp.sf;
		run->pid = pid;
		run->go = go[1];
		*runp = run;
		return 0;
	}
	mem_free(run);
	return -1;
}

int
sandbox_overlay_go(struct sandbox_overlay_run *run, int go)
{
	sigset_t old;
	ssize_t n = 1;
	int sig;

	if (run->go < 0)
		return 0;
	/*
	 * A signal arcturn got meanwhile (a terminal's Ctrl-C too, which
	 * no command was there to get) is a no; one from now on is passed
	 * on, and reaches the command once it runs.
	 */
	sig = sigfwd_block(&old);
	if (go && sig == 0)
		while ((n = send(run->go, "g", 1, MSG_NOSIGNAL)) < 0 &&
		    errno == EINTR)
			;
	close(run->go);
	run->go = -1;
	sigfwd_unblock(&old);
	if (go && sig != 0)
		return sig;
	/* the helper gone already: the wait tells how it ended */
	return n == 1 ? 0 : -1;
}

int
sandbox_overlay_wait(struct sandbox_overlay_run *run, struct sandbox_end *end,
    char *err, size_t errlen)
{
	(void)sandbox_overlay_go(run, 0);
	if (wait_end(&run->sf, run->pid, end) < 0) {
		snprintf(err, errlen, "exec: wait: %s", strerror(errno));
		memset(end, 0, sizeof *end);
		end->status = EXIT_OWN;
	}
	mem_free(run);
	return end->status;
}
