/*
 * sandbox_bwrap_linux: bubblewrap, for kernels without Landlock
 * (sandbox_linux.h). `/` bound read-only, a minimal /dev, the writable
 * roots bound read-write, the pins and then the protected paths on top,
 * the TIOCSTI filter handed over on a pipe.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "exitcode.h"
#include "fsx.h"
#include "mem.h"
#include "sandbox_linux.h"
#include "sandbox_posix.h"
#include "tiocsti.h"

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

int
bwrap_run(const struct policy *p, const struct roots *r, char **cmd,
    char *err, size_t errlen)
{
	char path[PATH_MAX], fdarg[16], **argv;
	size_t n = 0, i, ncmd;
	int sfd[2], rc;

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
	if (pipe(sfd) < 0 || fsx_write_full(sfd[1], tiocsti_filter,
	    sizeof tiocsti_filter) < 0 || close(sfd[1]) < 0) {
		snprintf(err, errlen, "bwrap: seccomp pipe: %s",
		    strerror(errno));
		return EXIT_OWN;
	}
	snprintf(fdarg, sizeof fdarg, "%d", sfd[0]);
	for (ncmd = 0; cmd[ncmd] != NULL; ncmd++)
		;
	argv = mem_calloc(16 + 3 * (r->w.n + r->pin.n + r->p.n) + 2 * NCAPS +
	    ncmd + 1, sizeof *argv);
	if (argv == NULL) {
		snprintf(err, errlen, "exec: %s", strerror(errno));
		return EXIT_OWN;
	}
	argv[n++] = "bwrap";
	n = bindarg(argv, n, "--ro-bind", "/");
	argv[n++] = "--dev";
	argv[n++] = "/dev";
	/* --dev provides the allowed devices */
	for (i = 0; i < r->w.n - r->ndev; i++)
		n = bindarg(argv, n, "--bind", r->w.v[i]);
	/* a parent of a protected path cannot be renamed away */
	for (i = 0; i < r->pin.n; i++)
		n = bindarg(argv, n, "--bind", r->pin.v[i]);
	for (i = 0; i < r->p.n; i++)
		n = bindarg(argv, n, "--ro-bind", r->p.v[i]);
	if (geteuid() == 0) {
		argv[n++] = "--cap-drop";
		argv[n++] = "ALL";
		for (i = 0; i < NCAPS; i++) {
			argv[n++] = "--cap-add";
			argv[n++] = (char *)caps[i];
		}
	}
	argv[n++] = p->network ? "--share-net" : "--unshare-net";
	argv[n++] = "--seccomp";
	argv[n++] = fdarg;
	argv[n++] = "--";
	for (i = 0; i < ncmd; i++)
		argv[n++] = cmd[i];
	execv(path, argv);
	snprintf(err, errlen, "bwrap: %s: %s", path, strerror(errno));
	mem_free(argv);
	return EXIT_OWN;
}
