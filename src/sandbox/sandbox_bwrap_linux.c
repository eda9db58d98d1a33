/*
 * sandbox_bwrap_linux: bubblewrap, for kernels without Landlock
 * (sandbox_linux.h). `/` bound read-only, a minimal /dev, a /proc of its
 * own, the writable roots bound read-write, the pins and then the
 * protected paths on top; new pid and IPC namespaces, and a network
 * namespace with --network off.
 *
 * The command's init in there is the embedded helper (-I, bwrap
 * --as-pid-1): it installs the seccomp filter (TIOCSTI, the unix socket
 * gate) on the command and supervises the gate, passes signals on, reaps,
 * and ends every process of the command when the command ends. arcturn
 * stays outside as bwrap's parent: bwrap --die-with-parent ends the
 * sandbox with arcturn, however arcturn ends; signals sent to arcturn go
 * to that init (its pid comes from bwrap --info-fd), and arcturn ends as
 * the command did (its wait status comes back on a pipe).
 */
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/exitcode.h"
#include "lib/mem.h"
#include "sandbox/sandbox_linux.h"
#include "sandbox/sandbox_posix.h"
#include "sandbox/sigfwd.h"
#include "uapi/landlock_uapi.h"

/* Capabilities root keeps under bwrap (Docker's default set, no mknod). */
static const char *const caps[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID",
	"CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP",
	"CAP_NET_BIND_SERVICE", "CAP_NET_RAW", "CAP_SYS_CHROOT",
	"CAP_SETFCAP", "CAP_AUDIT_WRITE",
};
#define NCAPS	(sizeof caps / sizeof caps[0])

/* Three arguments: opt, then path as the source and as the target. */
static size_t
bindarg(char **argv, size_t n, const char *opt, char *path)
{
	argv[n++] = (char *)opt;
	argv[n++] = path;
	argv[n++] = path;
	return n;
}

/* "child-pid" from bwrap's --info-fd JSON, or -1 (bwrap failed). */
static pid_t
child_pid(int fd)
{
	char buf[1024], *k;
	size_t n = 0;
	ssize_t r;

	while (n < sizeof buf - 1 &&
	    (r = read(fd, buf + n, sizeof buf - 1 - n)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		n += (size_t)r;
	}
	buf[n] = '\0';
	if ((k = strstr(buf, "\"child-pid\"")) == NULL ||
	    (k = strchr(k, ':')) == NULL)
		return -1;
	return (pid_t)atoi(k + 1);
}

/* The wait status the sandbox's init wrote: 0, or -1 (it wrote none). */
static int
read_int(int fd, int *v)
{
	ssize_t r;

	while ((r = read(fd, v, sizeof *v)) < 0 && errno == EINTR)
		;
	return r == (ssize_t)sizeof *v ? 0 : -1;
}

char **
bwrap_argv(const struct policy *p, const struct roots *r, char **cmd,
    struct bwrap_fds *f)
{
	char **argv;
	size_t n = 0, i, ncmd;

	for (ncmd = 0; cmd[ncmd] != NULL; ncmd++)
		;
	argv = mem_calloc(48 + 3 * (r->w.n + r->pin.n + r->p.n) + 2 * NCAPS +
	    2 * (p->grants.n + p->unix_sockets.n) + ncmd + 1, sizeof *argv);
	if (argv == NULL)
		return NULL;
	snprintf(f->buf[0], sizeof f->buf[0], "%d", f->info);
	snprintf(f->buf[1], sizeof f->buf[1], "%d", f->stat);
	snprintf(f->buf[2], sizeof f->buf[2], "/proc/self/fd/%d", f->helper);
	argv[n++] = "bwrap";
	n = bindarg(argv, n, "--ro-bind", "/");
	argv[n++] = "--dev";
	argv[n++] = "/dev";
	argv[n++] = "--proc";
	argv[n++] = "/proc";
	/* --dev provides the allowed devices */
	for (i = 0; i < r->w.n - r->ndev; i++)
		n = bindarg(argv, n, "--bind", r->w.v[i]);
	/* a parent of a protected path cannot be renamed away */
	for (i = 0; i < r->pin.n; i++)
		n = bindarg(argv, n, "--bind", r->pin.v[i]);
	for (i = 0; i < r->p.n; i++)
		n = bindarg(argv, n, "--ro-bind", r->p.v[i]);
	if (f->root) {
		argv[n++] = "--cap-drop";
		argv[n++] = "ALL";
		for (i = 0; i < NCAPS; i++) {
			argv[n++] = "--cap-add";
			argv[n++] = (char *)caps[i];
		}
	}
	argv[n++] = p->network ? "--share-net" : "--unshare-net";
	argv[n++] = "--unshare-pid";
	argv[n++] = "--unshare-ipc";
	argv[n++] = "--die-with-parent";
	argv[n++] = "--as-pid-1";
	argv[n++] = "--info-fd";
	argv[n++] = f->buf[0];
	argv[n++] = "--";
	argv[n++] = f->buf[2];
	argv[n++] = "-I";
	argv[n++] = "-c";
	argv[n++] = f->buf[1];
	for (i = 0; i < 2; i++) {
		if (f->keys[i] <= 0)
			continue;
		snprintf(f->buf[3 + i], sizeof f->buf[3 + i], "%ld", f->keys[i]);
		argv[n++] = "-K";
		argv[n++] = f->buf[3 + i];
	}
	n = helper_socket_args(p, argv, n);
	argv[n++] = "--";
	for (i = 0; i < ncmd; i++)
		argv[n++] = cmd[i];
	argv[n] = NULL;
	return argv;
}

int
bwrap_run(const struct policy *p, const struct roots *r, char **cmd,
    struct sandbox_end *end, char *err, size_t errlen)
{
	struct sigfwd sf;
	struct bwrap_fds bf;
	char path[PATH_MAX], **argv;
	size_t i;
	int hfd = -1, info[2] = { -1, -1 }, stat[2] = { -1, -1 }, rc, st, cst;
	pid_t pid, w;

	if (linux_bwrap_path(path, sizeof path) < 0) {
		snprintf(err, errlen, "bwrap: not found on PATH");
		return EXIT_OWN;
	}
	/*
	 * sandbox_choose checked that bwrap can run here. It runs the
	 * command itself and exits 1 when it cannot: find it first, so that
	 * "not found" and "cannot run" keep their statuses (127, 126).
	 */
	if ((rc = posix_check(cmd, err, errlen)) != 0)
		return rc;
	if (helper_socket_check(p) < 0) {
		snprintf(err, errlen, "exec: too many grants or unix sockets: "
		    "the sandbox helper takes no more than %d",
		    HELPER_MAXPATHS);
		return EXIT_OWN;
	}
	if ((hfd = helper_exec_fd(p->state, err, errlen)) < 0)
		return EXIT_OWN;
	/* the helper and the two write ends go into the sandbox */
	if (pipe2(info, O_CLOEXEC) < 0 || pipe2(stat, O_CLOEXEC) < 0 ||
	    fcntl(hfd, F_SETFD, 0) < 0 || fcntl(info[1], F_SETFD, 0) < 0 ||
	    fcntl(stat[1], F_SETFD, 0) < 0) {
		snprintf(err, errlen, "bwrap: pipe: %s", strerror(errno));
		rc = EXIT_OWN;
		goto out;
	}
	for (i = 0; i < 2; i++) {
		/*
		 * The serials of the user's keyrings (KEY_SPEC_USER_KEYRING
		 * and _USER_SESSION_KEYRING, made if missing), which the
		 * helper cannot see from bwrap's user namespace: keys.h in
		 * the helper.
		 */
		long sr = syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */,
		    i == 0 ? -4 : -5, 1);

		bf.keys[i] = sr > 0 ? sr : 0;
	}
	bf.helper = hfd;
	bf.info = info[1];
	bf.stat = stat[1];
	bf.root = geteuid() == 0;
	if ((argv = bwrap_argv(p, r, cmd, &bf)) == NULL) {
		snprintf(err, errlen, "exec: %s", strerror(errno));
		rc = EXIT_OWN;
		goto out;
	}
	/*
	 * Blocked from now on, in bwrap too (so that a terminal's ^C does
	 * not end bwrap under the command; the helper unblocks them for the
	 * command), and here until we know whom to pass them to: the
	 * sandbox's init, which bwrap names on info.
	 */
	sigfwd_hold(&sf);
	if ((pid = fork()) == 0) {
		sigfwd_child(&sf, 1);
		if (linux_nosuid(err, errlen) < 0)
			_exit(EXIT_OWN);
		execv(path, argv);
		_exit(127);
	}
	mem_free(argv);
	close(info[1]);
	close(stat[1]);
	close(hfd);
	info[1] = stat[1] = hfd = -1;
	if (pid < 0) {
		snprintf(err, errlen, "bwrap: fork: %s", strerror(errno));
		sigfwd_end(&sf);
		rc = EXIT_OWN;
		goto out;
	}
	sigfwd_to(&sf, child_pid(info[0]));
	if ((w = sigfwd_wait(&sf, pid, &st)) < 0) {
		snprintf(err, errlen, "bwrap: wait: %s", strerror(errno));
		rc = EXIT_OWN;
	} else if (read_int(stat[0], &cst) == 0) {
		/* we are the command's stand-in for our caller */
		posix_end(end, cst);
		posix_end_as(end);
		rc = end->status;
	} else {
		/* the command never ran: bwrap (or the helper) said why */
		rc = WIFEXITED(st) && WEXITSTATUS(st) >= 125 ?
		    WEXITSTATUS(st) : EXIT_OWN;
	}
out:
	for (i = 0; i < 2; i++) {
		if (info[i] >= 0)
			close(info[i]);
		if (stat[i] >= 0)
			close(stat[i]);
	}
	if (hfd >= 0)
		close(hfd);
	return rc;
}
