/*
 * sandbox_linux: choosing and running a Linux backend (sandbox_linux.h),
 * on what the kernel offers (kernel_linux.h).
 */
#include <sys/prctl.h>
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/exitcode.h"
#include "sandbox/kernel_linux.h"
#include "sandbox/sandbox.h"
#include "sandbox/sandbox_linux.h"
#include "sandbox/sandbox_posix.h"

static const char *const names[] = {
	[LB_HELPER] = "helper",
	[LB_HELPER_LANDLOCK] = "helper-landlock",
	[LB_BWRAP] = "bwrap",
	[LB_NONE] = "none",
	NULL
};

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
		return linux_cap_sys_admin() ? 0 : EPERM;
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

/*
 * Inside another arcturn's sandbox: ARCTURN_SANDBOX, and no_new_privs,
 * which every arcturn backend sets and nothing can clear (a variable
 * alone, set by anyone, proves nothing).
 */
static int
nested(char *mode, size_t len)
{
	const char *v = getenv("ARCTURN_SANDBOX");

	if (v == NULL || *v == '\0' || strspn(v, "abcdefghijklmnopqrstuvwxyz-,")
	    != strlen(v) || prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return 0;
	snprintf(mode, len, "%s", v);
	return 1;
}

const struct sandbox_platform sandbox_platform = {
	.names = names,
	.pick = pick,
	.run = backend_run,
	.label = label,
	.nested = nested,
};

int
sandbox_unstamp(const struct policy *p, const char *path, char *err,
    size_t errlen)
{
	snprintf(err, errlen, "sandbox unstamp: only Windows stamps labels");
	errno = ENOTSUP;
	return -1;
}
