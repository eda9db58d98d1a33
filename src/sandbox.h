/*
 * sandbox: the platform backend behind `arcturn exec` and `arcturn sandbox
 * status`. One implementation per platform, in whole files:
 * sandbox_linux.c (Landlock helper, bubblewrap), sandbox_macos.c
 * (Seatbelt), sandbox_win.c (Low integrity). cmd_exec.c is the portable
 * front end and the only caller.
 */
#ifndef ARCTURN_SANDBOX_H
#define ARCTURN_SANDBOX_H

#include "policy.h"

#define SANDBOX_MAXFACTS	16
#define SANDBOX_MAXGUAR		12

struct sandbox_fact {
	const char	*key;		/* static string, e.g. "landlock_abi" */
	char		 value[256];
};

struct sandbox_guarantee {
	const char	*name;		/* static, e.g. "writes outside roots" */
	const char	*key;		/* static, JSON key, e.g. "writes_outside" */
	int		 holds;
	char		 why[200];
};

struct sandbox_report {
	char		 backend[32];	/* helper+mount, helper, bwrap, none, ... */
	char		 why[256];	/* why this backend; for none, the cause */
	struct sandbox_fact facts[SANDBOX_MAXFACTS];
	int		 nfacts;
	struct sandbox_guarantee g[SANDBOX_MAXGUAR];
	int		 ng;
	int		 dry_run_exec;	/* exec --dry-run possible here */
	char		 dry_run_why[200];
};

/*
 * Add a fact (key: value) or a guarantee (key, name, holds, why) to a
 * report; both are dropped silently when the report is full. key and name
 * must be static strings.
 */
void	sandbox_fact(struct sandbox_report *, const char *key,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void	sandbox_guarantee(struct sandbox_report *, const char *key,
	    const char *name, int holds, const char *fmt, ...)
	    __attribute__((format(printf, 5, 6)));

/*
 * Probe the machine and say which backend would confine a command under p,
 * why, and which guarantees hold. Honours ARCTURN_BACKEND. Never fails:
 * what cannot be probed is reported as such.
 */
void	sandbox_probe(const struct policy *p, struct sandbox_report *);

/*
 * Run argv[0] with argv under p, replacing this process where the backend
 * allows (exec-only chain). Returns only on failure, with an exit status
 * (EXIT_OWN, EXIT_NOEXEC, EXIT_NOTFOUND, or the child's status for
 * backends that must wait) and one line in err. When no backend is
 * available and p->require_sandbox is off, prints the unavailable note to
 * stderr and runs the command unconfined: the only module that prints,
 * because the note must reach the user even when exec succeeds.
 */
int	sandbox_exec(const struct policy *p, char **argv, char *err,
	    size_t errlen);

/*
 * Dry run: run argv under p with overlayfs mounted on the workspace
 * (lower: the workspace itself; upper and work: the session's dirs), so
 * that every change the command makes lands in upper. Waits for the
 * command and returns its status as exec reports it (its exit code, 128+N
 * for signal N, 126/127). Fails closed: returns -1 with one line in err
 * when the overlay cannot be had here, and then the command did not run
 * (status 125 from the helper means the same).
 * during(arg), when not NULL, runs in arcturn while the command does.
 * SIGTERM and SIGHUP sent to arcturn are passed on to the command, and
 * arcturn goes on waiting, so that the caller still sees it end.
 * sandbox_overlay_available returns 1 when the overlay can be had here,
 * else 0 with the reason in why; it creates nothing. Call it first:
 * sandbox_exec_overlay does not repeat the check (the helper still fails
 * closed, 125, when it cannot mount the overlay).
 */
int	sandbox_overlay_available(const struct policy *p, char *why,
	    size_t len);
int	sandbox_exec_overlay(const struct policy *p, const char *upper,
	    const char *work, char **argv, void (*during)(void *), void *arg,
	    char *err, size_t errlen);

/*
 * `arcturn sandbox unstamp [PATH]`: on Windows, give each writable root
 * stamped Low by earlier runs (only PATH when given) its previous label
 * back, from the journal in p->state. Returns 0 with a one-line summary in
 * err, or -1 with errno and one line in err. Elsewhere nothing is ever
 * stamped: -1 with errno ENOTSUP.
 */
int	sandbox_unstamp(const struct policy *p, const char *path, char *err,
	    size_t errlen);

#endif
