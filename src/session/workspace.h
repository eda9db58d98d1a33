/*
 * cmd_dryrun: what the dry-run front ends (cmd_file.c, cmd_diff.c,
 * cmd_apply.c, cmd_session.c) share: the policy, the workspace's session
 * and its root fd in one struct dryrun, and one way to say what failed.
 *
 * The session is --session ID, else ARCTURN_SESSION, else the default
 * session of the workspace (created by the first dry-run write). A named
 * session that belongs to another workspace is refused by write, edit,
 * read, diff and apply (their paths are relative to the workspace).
 *
 * Nothing here prints errors but dryrun_report: a
 * helper that fails fills a struct dryrun_err, the front end renders it
 * (as text today; the same struct carries what a JSON error needs).
 */
#ifndef ARCTURN_CMD_DRYRUN_H
#define ARCTURN_CMD_DRYRUN_H

#include <limits.h>
#include <stddef.h>

#include "cli/cmd.h"
#include "policy/policy.h"
#include "session/changes.h"
#include "session/session.h"

struct dryrun {
	struct policy	 p;
	int		 storefd;
	int		 rootfd;
	struct session	 s;
	int		 open;
	int		 named;		/* --session or ARCTURN_SESSION */
	int		 cut;		/* a restart cut a run short */
	int		 damaged;	/* open failed: the session is damaged
					   (what: s.why) */
	char		 id[SESSION_IDMAX + 1];
};

/*
 * Why a front end fails: printed `arcturn: WHAT: SUBJECT: REASON`, the
 * empty parts left out, or `arcturn: REASON` when bare (a config error
 * names its file). reason is strerror(err) when err is set. A failure
 * with neither err nor reason has been told otherwise (a declined
 * prompt, apply's per-file lines): it prints nothing.
 */
struct dryrun_err {
	int	 status;			/* exit status (cmd.h) */
	int	 err;				/* errno, or 0 */
	int	 bare;				/* reason is the whole line */
	int	 code;				/* enum say_code of --json's
						   error, or SAY_NONE (0):
						   from err and status */
	char	 subject[PATH_MAX + 64];	/* a path, "session ID", or "" */
	char	 reason[PATH_MAX + 160];
	char	 hint[PATH_MAX + 160];		/* the way out, or "": said
						   after the reason, "; " between,
						   and as --json's "hint" */
};

/* What dryrun_open and dryrun_changes found. */
enum { DRYRUN_GOT, DRYRUN_NONE, DRYRUN_ERR };

/* Names the session an exec --dry-run holds locked while its command runs. */
#define DRYRUN_BUSY_ENV	"ARCTURN_DRY_RUN_HELD"

void	dryrun_init(struct dryrun *);
void	dryrun_done(struct dryrun *);

/*
 * Fill e (status, err, subject, then reason from fmt; code SAY_NONE) and
 * return status. fmt may be NULL when err says it all.
 */
int	dryrun_fail(struct dryrun_err *e, int status, int err,
	    const char *subject, const char *fmt, ...)
	    __attribute__((format(printf, 5, 6)));

/* Print e as one line, `arcturn: what: subject: reason`, if it failed. */
void	dryrun_report(const char *what, const struct dryrun_err *e);

/*
 * The line dryrun_report prints for e, without the hint, into buf (the
 * MCP server's text for the same failure).
 */
void	dryrun_line(const char *what, const struct dryrun_err *e, char *buf,
	    size_t size);

/*
 * A path the policy refuses (roots_deny said d; r the roots asked):
 * fill e (EXIT_REFUSED, code outside_roots or protected) with the rule
 * in the reason and the way out in the hint. subject is the path as the
 * user named it, abs its canonical absolute path. Returns the status.
 *
 *	outside the writable roots (workspace /w, temp dir /tmp, ...);
 *	    allow it with "grants": ["/etc"] in CONFIG (exec: --grant /etc)
 *	protected path (git control file); ...
 */
struct roots;
struct roots_denial;
int	dryrun_denied(struct dryrun_err *e, const struct policy *p,
	    const struct roots *r, const struct roots_denial *d,
	    const char *subject, const char *abs);

/* Load the policy (dry_run: --dry-run given). Config warnings print. */
int	dryrun_load(struct dryrun *, struct cli *, int dry_run,
	    struct dryrun_err *);

/*
 * Open the selected session (creating it with create) and lock it with
 * lockop (0: no lock). DRYRUN_GOT, DRYRUN_NONE (nothing to open) or
 * DRYRUN_ERR (e filled). When a restart cut a dry-run command in the
 * session short, x->cut is set and a warning says so; when the lock is
 * not free within a second, a line says that we wait (the things printed
 * here: they are not errors, and every command shows them). A damaged
 * session sets x->damaged and fails naming the part and how to remove it.
 */
int	dryrun_open(struct dryrun *, const char *what, int create, int lockop,
	    struct dryrun_err *);

/* The session must belong to the workspace we run in. */
int	dryrun_same_ws(struct dryrun *, struct dryrun_err *);

/* Open root as x->rootfd (once). */
int	dryrun_root(struct dryrun *, const char *root, struct dryrun_err *);

/*
 * The pending changes of the workspace's session, for diff and apply:
 * open it (lockop), check it is this workspace's, list its changes
 * against the workspace (problems with one file warn, naming what).
 * DRYRUN_NONE when there is no session (an error when one was named).
 */
int	dryrun_changes(struct dryrun *, const char *what, int lockop,
	    struct changes *, struct dryrun_err *);

/*
 * Resolve a path the user gave (wsview_resolve: 0 inside, 1 outside).
 * With dry, a path outside the workspace, or inside arcturn's state dir,
 * is refused. -1 with e filled (EXIT_REFUSED).
 */
int	dryrun_resolve(struct dryrun *, const char *path, int dry, char **rel,
	    struct dryrun_err *);

/*
 * Select in sel (c->n entries) the changes at or beneath the paths the
 * user named, argv[0..np-1] (plan_select's choice: every change when np
 * is 0). A path outside the workspace, or one that selects nothing, is
 * refused (EXIT_REFUSED). 0, or -1 with e filled.
 */
int	dryrun_select(struct dryrun *, struct changes *, char **argv,
	    size_t np, int *sel, struct dryrun_err *);

/*
 * strerror, with a hint where the bare text misleads: EMFILE/ENFILE "out
 * of file descriptors (raise the limit: ulimit -n)".
 */
const char *dryrun_strerror(int err);

/*
 * Remove the temp files a killed apply left in the real workspace: in
 * every directory the session's upper tree has, whether or not a change
 * is pending there still (a path a killed apply finished is no change).
 * A swap name it leaves (fsx.h) is named on stderr, as cmd's note.
 */
void	dryrun_sweep(const struct dryrun *x, const char *cmd);

/* changes_warn_fn printing `arcturn: WHAT: path: what (reason)`. */
void	dryrun_list_warn(const char *path, int err, const char *what,
	    void *cmdname);

/* udiff_out_fn writing to stdout (EIO when the write fails). */
int	dryrun_stdout(const void *buf, size_t len, void *arg);


/*
 * exec --dry-run as dryrun_exec (cmd.h) does it, what naming the command
 * in messages; *ran (may be NULL) is set when the command ran and what it
 * wrote is recorded in the session (p->session names it).
 */
int	dryrun_exec_as(struct policy *p, char **cmd, const char *what,
	    int *ran);

/*
 * A question before acting on n things (cmd_discard.c), and what follows
 * each answer: dryrun_ask returns 1 yes; 0 declined (said so unless
 * quiet; e says EXIT_REFUSED with nothing more to print); -1 no terminal
 * (e filled: EXIT_USAGE, noterm). It asks on /dev/tty, else on stdin
 * when that is a terminal.
 */
struct dryrun_question {
	const char	*ask;		/* "... %zu ...?" */
	const char	*choices;
	const char	*yes;		/* the keys that mean yes */
	const char	*noterm;	/* the reason without a terminal (%zu) */
	const char	*kept;		/* printed when declined (%zu) */
};

int	dryrun_ask(const struct dryrun_question *q, size_t n, int quiet,
	    struct dryrun_err *e);

#endif
