/*
 * sandbox_macos: the macOS backend behind sandbox.h (Seatbelt).
 *
 * exec replaces arcturn with /usr/bin/sandbox-exec, which applies the
 * profile built by seatbelt.c and execs the command: the chain is
 * exec-only, so pid, signals and exit status pass through. When
 * sandbox-exec is missing the command runs unconfined after the
 * unavailable note, or not at all (125) when a sandbox is required.
 * ARCTURN_BACKEND=seatbelt|none forces a backend.
 *
 * Nothing here is specific to macOS but the path of sandbox-exec, so the
 * unit test compiles this file on Linux against a fake sandbox-exec
 * (SANDBOX_EXEC_PATH). It has never run on a real Mac.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cmd.h"
#include "sandbox.h"
#include "seatbelt.h"

#ifndef SANDBOX_EXEC_PATH
#define SANDBOX_EXEC_PATH	SEATBELT_EXEC
#endif

#define NEVER_RUN	"never run on a real Mac: the profile text and argv " \
	"are unit-tested on Linux, this binary was cross-compiled there"

enum backend { B_SEATBELT, B_NONE, B_BAD };

static enum backend
choose(char *why, size_t len)
{
	const char *env = getenv("ARCTURN_BACKEND");

	if (env != NULL && *env != '\0') {
		if (strcmp(env, "seatbelt") == 0 || strcmp(env, "none") == 0) {
			snprintf(why, len, "forced by ARCTURN_BACKEND=%s", env);
			return env[0] == 's' ? B_SEATBELT : B_NONE;
		}
		snprintf(why, len, "ARCTURN_BACKEND=%s: unknown backend "
		    "(seatbelt, none)", env);
		return B_BAD;
	}
	if (access(SANDBOX_EXEC_PATH, X_OK) != 0) {
		snprintf(why, len, "%s: %s", SANDBOX_EXEC_PATH, strerror(errno));
		return B_NONE;
	}
	snprintf(why, len, "%s is present", SANDBOX_EXEC_PATH);
	return B_SEATBELT;
}

static int
exec_status(int e)
{
	return e == ENOENT || e == ENOTDIR ? EXIT_NOTFOUND : EXIT_NOEXEC;
}

/*
 * Find cmd as execvp would, so that a missing or unrunnable command gives
 * 127 or 126 from arcturn rather than an exit code of sandbox-exec's own.
 * Returns 0, or -1 with errno.
 */
static int
lookup(const char *cmd)
{
	const char *path, *p, *end;
	char buf[PATH_MAX];
	struct stat st;
	int e = ENOENT;
	size_t n;

	if (*cmd == '\0') {
		errno = ENOENT;
		return -1;
	}
	if (strchr(cmd, '/') != NULL) {
		if (stat(cmd, &st) != 0)
			return -1;
		if (S_ISDIR(st.st_mode) || access(cmd, X_OK) != 0) {
			errno = EACCES;
			return -1;
		}
		return 0;
	}
	if ((path = getenv("PATH")) == NULL)
		path = "/usr/bin:/bin";
	for (p = path;; p = end + 1) {
		end = strchr(p, ':');
		n = end == NULL ? strlen(p) : (size_t)(end - p);
		if (snprintf(buf, sizeof buf, "%.*s%s%s", (int)n, p,
		    n == 0 ? "" : "/", cmd) < (int)sizeof buf &&
		    stat(buf, &st) == 0 && !S_ISDIR(st.st_mode)) {
			if (access(buf, X_OK) == 0)
				return 0;
			e = EACCES;
		}
		if (end == NULL)
			break;
	}
	errno = e;
	return -1;
}

static int
run_plain(char **cmd, char *err, size_t errlen)
{
	execvp(cmd[0], cmd);
	snprintf(err, errlen, "%s: %s", cmd[0], errno == ENOENT ?
	    "command not found" : strerror(errno));
	return exec_status(errno);
}

int
sandbox_exec(const struct policy *p, char **cmd, char *err, size_t errlen)
{
	char why[256], **argv;
	enum backend b;
	int e;

	if (p->mode == MODE_OFF)
		return run_plain(cmd, err, errlen);
	b = choose(why, sizeof why);
	if (b == B_BAD) {
		snprintf(err, errlen, "%s", why);
		return EXIT_OWN;
	}
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
	if (lookup(cmd[0]) == -1) {
		e = errno;
		snprintf(err, errlen, "%s: %s", cmd[0], e == ENOENT ?
		    "command not found" : strerror(e));
		return exec_status(e);
	}
	if (seatbelt_argv(p, cmd, &seatbelt_sysops, &argv, why,
	    sizeof why) == -1) {
		snprintf(err, errlen, "exec: %s", why);
		return EXIT_OWN;
	}
	execv(SANDBOX_EXEC_PATH, argv);
	e = errno;
	seatbelt_free(argv);
	snprintf(err, errlen, "exec: %s: %s", SANDBOX_EXEC_PATH, strerror(e));
	return EXIT_OWN;
}

int
sandbox_overlay_available(const struct policy *p, char *why, size_t len)
{
	(void)p;
	snprintf(why, len, "needs the Linux overlay (overlayfs in a user "
	    "namespace); not available on this platform");
	return 0;
}

int
sandbox_exec_overlay(const struct policy *p, const char *upper,
    const char *work, char **argv, void (*during)(void *), void *arg,
    char *err, size_t errlen)
{
	snprintf(err, errlen, "exec --dry-run: needs the Linux overlay, not "
	    "available on macOS yet (write, edit, diff and apply work); not "
	    "running the command");
	errno = ENOTSUP;
	return -1;
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



#define fact(r, k, v)		sandbox_fact(r, k, "%s", v)
#define guar(r, k, n, h, w)	sandbox_guarantee(r, k, n, h, "%s", w)

void
sandbox_probe(const struct policy *p, struct sandbox_report *r)
{
	struct utsname u;
	char why[200], buf[256];
	enum backend b;
	int on;

	memset(r, 0, sizeof *r);
	if (uname(&u) == 0) {
		snprintf(buf, sizeof buf, "%s %s %s", u.sysname, u.release,
		    u.machine);
		fact(r, "kernel", buf);
	}
	fact(r, "sandbox_exec", access(SANDBOX_EXEC_PATH, X_OK) == 0 ?
	    SANDBOX_EXEC_PATH : "not found");
	fact(r, "verified", NEVER_RUN);
	b = choose(why, sizeof why);
	if (p->mode == MODE_OFF) {
		snprintf(r->backend, sizeof r->backend, "off");
		snprintf(r->why, sizeof r->why, "sandbox mode is off");
		b = B_NONE;
	} else {
		snprintf(r->backend, sizeof r->backend, "%s",
		    b == B_SEATBELT ? "seatbelt" : "none");
		snprintf(r->why, sizeof r->why, "%s%s", why,
		    b == B_SEATBELT ? "" : p->require_sandbox ?
		    "; exec exits 125" : "; exec runs the command unconfined");
	}
	snprintf(r->dry_run_why, sizeof r->dry_run_why, "exec --dry-run needs "
	    "the Linux overlay; write, edit, diff and apply work on macOS");
	on = b == B_SEATBELT;
	guar(r, "writes_outside", "writes outside the roots", on, on ?
	    "Seatbelt: (deny file-write*) except beneath the roots "
	    "(" NEVER_RUN ")" : "nothing confines the command");
	guar(r, "metadata_outside", "metadata changes outside the roots", on,
	    on ? "file-write* covers chmod, chown, utimes, flags and xattrs" :
	    "nothing confines the command");
	guar(r, "protected_paths", "protected paths", on, on ?
	    "deny rules after the allows (the last match wins); renaming a "
	    "parent folder of a protected path is not refused" :
	    "nothing confines the command");
	guar(r, "truncation", "truncation outside the roots", on, on ?
	    "file-write-data is part of file-write*" :
	    "nothing confines the command");
	guar(r, "devices", "writes to other devices", on, on ?
	    "only /dev/null, /dev/zero, /dev/tty*, /dev/ptmx, /dev/fd and "
	    "/dev/dtracehelper" : "nothing confines the command");
	guar(r, "signals", "signals to outside processes", 0,
	    "the profile allows signals (allow default)");
	guar(r, "tiocsti", "TIOCSTI terminal injection", 0,
	    "the profile does not filter ioctls");
	guar(r, "network_off", "--network off", on, on ?
	    "(deny network*), Unix-domain sockets kept" :
	    "nothing confines the command");
}
