/*
 * sandbox_macos: the macOS backend behind sandbox.h (Seatbelt).
 *
 * exec replaces arcturn with /usr/bin/sandbox-exec, which applies the
 * profile built by seatbelt.c from the policy's roots and execs the
 * command: the chain is exec-only, so pid, signals and exit status pass
 * through. Without sandbox-exec there is no backend (sandbox_choose says
 * why). ARCTURN_BACKEND=seatbelt|none forces one.
 *
 * Nothing here is specific to macOS but the path of sandbox-exec, so the
 * unit test compiles this file on Linux against a fake sandbox-exec
 * (SANDBOX_EXEC_PATH). It has never run on a real Mac.
 */
#include <sys/utsname.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/exitcode.h"
#include "policy/roots.h"
#include "sandbox/sandbox.h"
#include "sandbox/sandbox_posix.h"
#include "sandbox/seatbelt.h"

#ifndef SANDBOX_EXEC_PATH
#define SANDBOX_EXEC_PATH	SEATBELT_EXEC
#endif

#define NEVER_RUN	"never run on a real Mac: the profile text and argv " \
	"are unit-tested on Linux, this binary was cross-compiled there"

static const char *const names[] = { "seatbelt", "none", NULL };

/* Seatbelt where sandbox-exec is. */
static int
usable(char *why, size_t len)
{
	if (access(SANDBOX_EXEC_PATH, X_OK) == 0) {
		snprintf(why, len, "%s is present", SANDBOX_EXEC_PATH);
		return 1;
	}
	snprintf(why, len, "%s: %s", SANDBOX_EXEC_PATH, strerror(errno));
	return 0;
}

static int
backend_run(const struct policy *p, const struct sandbox_choice *ch,
    char **cmd, struct sandbox_end *end, char *err, size_t errlen)
{
	struct roots r;
	char **argv;
	int rc, e;

	if (ch->verdict != SANDBOX_CONFINE)
		return posix_exec(cmd, err, errlen);
	/* 127 and 126 from arcturn, not an exit code of sandbox-exec's */
	if ((rc = posix_check(cmd, err, errlen)) != 0)
		return rc;
	if (roots_build(p, ROOTS_PROTECT | ROOTS_MISSING | ROOTS_GIT,
	    &posix_roots_ops, &r) < 0) {
		snprintf(err, errlen, "%s", r.why);
		return EXIT_OWN;
	}
	rc = seatbelt_argv(&r, p->network, cmd, &argv);
	roots_free(&r);
	if (rc < 0) {
		snprintf(err, errlen, "exec: %s", strerror(errno));
		return EXIT_OWN;
	}
	execv(SANDBOX_EXEC_PATH, argv);
	e = errno;
	seatbelt_free(argv);
	snprintf(err, errlen, "exec: %s: %s", SANDBOX_EXEC_PATH, strerror(e));
	return EXIT_OWN;
}

const struct sandbox_platform sandbox_platform = {
	.names = names,
	.usable = usable,
	.run = backend_run,
};

int
sandbox_overlay_available(const struct policy *p, char *why, size_t len)
{
	snprintf(why, len, "needs the Linux overlay (overlayfs in a user "
	    "namespace); not available on this platform");
	return 0;
}

int
sandbox_overlay_start(const struct policy *p, const char *upper,
    const char *work, int lockfd, char **argv,
    struct sandbox_overlay_run **run, char *err, size_t errlen)
{
	*run = NULL;
	snprintf(err, errlen, "exec --dry-run: needs the Linux overlay, not "
	    "available on macOS yet (write, edit, diff and apply work); not "
	    "running the command");
	errno = ENOTSUP;
	return -1;
}

int
sandbox_overlay_go(struct sandbox_overlay_run *run, int go)
{
	(void)run;
	(void)go;
	errno = EINVAL;
	return -1;
}

int
sandbox_overlay_wait(struct sandbox_overlay_run *run, struct sandbox_end *end,
    char *err, size_t errlen)
{
	(void)run;
	memset(end, 0, sizeof *end);
	end->status = EXIT_OWN;
	snprintf(err, errlen, "exec --dry-run: no such run");
	errno = EINVAL;
	return EXIT_OWN;
}

int
sandbox_unstamp(const struct policy *p, const char *path, char *err,
    size_t errlen)
{
	snprintf(err, errlen, "sandbox unstamp: only the Windows backend "
	    "stamps labels; nothing to do on macOS");
	errno = ENOTSUP;
	return -1;
}

static const struct sandbox_claim always[] = {
	{ SG_SIGNALS, 0, "the profile allows signals (allow default)" },
	{ SG_TIOCSTI, 0, "the profile does not filter ioctls" },
	{ SG_UNIX_SOCKETS, 0, "the profile allows connecting to unix sockets "
	    "(allow default): daemons of this user can act for the command" },
	{ SG_ABSTRACT, 1, "macOS has no abstract unix sockets" },
	{ SG_IPC, 0, "the profile allows SysV and POSIX IPC (allow default)" },
	{ SG_LIFETIME, 0, "processes the command starts may outlive arcturn" },
	{ SG_LABELS, 1, "nothing is stamped: the profile ends with the "
	    "command" },
};

static const struct sandbox_claim seatbelt[] = {
	{ SG_WRITES, 1, "Seatbelt: (deny file-write*) except beneath the "
	    "roots (" NEVER_RUN ")" },
	{ SG_METADATA, 1, "file-write* covers chmod, chown, utimes, flags and "
	    "xattrs" },
	{ SG_PROTECTED, 1, "deny rules after the allows (the last match "
	    "wins); renaming a parent folder of a protected path is not "
	    "refused" },
	{ SG_TRUNCATION, 1, "file-write-data is part of file-write*" },
	{ SG_DEVICES, 1, "only /dev/null, /dev/zero, /dev/tty*, /dev/ptmx, "
	    "/dev/fd and /dev/dtracehelper" },
	{ SG_NETWORK_OFF, 1, "(deny network*), Unix-domain sockets kept" },
	/* git, missing protected paths, the state dir */
	{ SG_GIT, 1, "deny rules: hooks (and core.hooksPath), config, "
	    "config.worktree, commondir, gitdir files of the repository, its "
	    "worktrees and submodules (git submodule update fails)" },
	{ SG_MISSING, 1, "a deny rule names a path: it refuses creating it "
	    "too" },
	{ SG_STATE, 1, "deny rules on overlays/, checkpoints/ and cache/" },
};

void
sandbox_probe(const struct policy *p, const struct sandbox_choice *ch,
    struct sandbox_report *r)
{
	struct utsname u;

	sandbox_report_start(r, p, ch);
	if (uname(&u) == 0)
		sandbox_fact(r, "kernel", "%s %s %s", u.sysname, u.release,
		    u.machine);
	sandbox_fact(r, "sandbox_exec", "%s", access(SANDBOX_EXEC_PATH,
	    X_OK) == 0 ? SANDBOX_EXEC_PATH : "not found");
	sandbox_fact(r, "verified", "%s", NEVER_RUN);
	snprintf(r->dry_run_why, sizeof r->dry_run_why, "exec --dry-run needs "
	    "the Linux overlay; write, edit, diff and apply work on macOS");
	/* whether or not the profile is applied */
	sandbox_claims(r, always, sizeof always / sizeof always[0]);
	if (ch->verdict == SANDBOX_CONFINE)
		sandbox_claims(r, seatbelt, sizeof seatbelt / sizeof seatbelt[0]);
}
