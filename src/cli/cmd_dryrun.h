/*
 * cmd_dryrun: what the front ends (cmd_file.c, cmd_diff.c, cmd_apply.c,
 * cmd_session.c, ..., and mcp/) say about the workspace they opened
 * (session/workspace.h): the failure in a struct workspace_err as one
 * line, the notes on the way, and the policy loaded from their flags.
 * And exec --dry-run, which calls both the sandbox and the session (the
 * sandbox never includes the session), so it lives above both.
 */
#ifndef ARCTURN_CMD_DRYRUN_H
#define ARCTURN_CMD_DRYRUN_H

#include <stddef.h>

#include "cli/cmd.h"
#include "policy/policy.h"
#include "session/workspace.h"

/*
 * The notes a front end hands workspace_init: on stderr through say
 * (`arcturn: WHAT: ...`), as every command shows them.
 */
extern const struct workspace_notes dryrun_notes;

/* Print e as one line, `arcturn: what: subject: reason`, if it failed. */
void	dryrun_report(const char *what, const struct workspace_err *e);

/*
 * The line dryrun_report prints for e, without the hint, into buf (the
 * MCP server's text for the same failure).
 */
void	dryrun_line(const char *what, const struct workspace_err *e,
	    char *buf, size_t size);

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
int	dryrun_denied(struct workspace_err *e, const struct policy *p,
	    const struct roots *r, const struct roots_denial *d,
	    const char *subject, const char *abs);

/*
 * Load the policy of x (dry_run: --dry-run given) from c's flags. Config
 * warnings print.
 */
int	dryrun_load(struct workspace *x, struct cli *c, int dry_run,
	    struct workspace_err *);

/*
 * strerror, with a hint where the bare text misleads: EMFILE/ENFILE "out
 * of file descriptors (raise the limit: ulimit -n)".
 */
const char *dryrun_strerror(int err);

/* changes_warn_fn printing `arcturn: WHAT: path: what (reason)`. */
void	dryrun_list_warn(const char *path, int err, const char *what,
	    void *cmdname);

/* udiff_out_fn writing to stdout (EIO when the write fails). */
int	dryrun_stdout(const void *buf, size_t len, void *arg);


/*
 * exec --dry-run as dryrun_exec (cmd.h) does it, what naming the command
 * in messages, how it ended in *end; *ran (may be NULL) is set when the
 * command ran and what it wrote is recorded in the session (p->session
 * names it).
 */
int	dryrun_exec_as(struct policy *p, char **cmd, const char *what,
	    struct sandbox_end *end, int *ran);

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
	    struct workspace_err *e);

#endif
