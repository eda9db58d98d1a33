/*
 * cmd: the subcommands' front ends. main.c owns the table, the global
 * options and the exit codes of usage errors; each cmd_* function gets the
 * parsed global options and its own argv (argv[0] is the command's name)
 * and returns the process exit status documented in README (EXIT STATUS).
 * Front ends print their own one-line errors with warnx(3), in the form
 * `arcturn: what: path: reason`; the modules under them never print.
 */
#ifndef ARCTURN_CMD_H
#define ARCTURN_CMD_H

#include <stddef.h>

#include "lib/exitcode.h"

#define ARCTURN_VERSION	"0.1.0"

struct cli {
	const char	*dir;		/* -C DIR, or NULL for the cwd */
	const char	*session;	/* --session ID, or NULL */
	int		 json;		/* --json */
	int		 dry_run;	/* --dry-run among the global options */
	int		 quiet;		/* -q */
	int		 argc;
	char		**argv;
};

int	cmd_exec(struct cli *);
int	cmd_sandbox(struct cli *);
int	cmd_write(struct cli *);
int	cmd_edit(struct cli *);
int	cmd_read(struct cli *);
int	cmd_diff(struct cli *);
int	cmd_apply(struct cli *);
int	cmd_discard(struct cli *);
int	cmd_session(struct cli *);
int	cmd_turn(struct cli *);
int	cmd_rewind(struct cli *);
int	cmd_undo(struct cli *);
int	cmd_checkpoints(struct cli *);

/*
 * write and edit without dry run (cmd_checkpoint.c): checkpoint_before
 * snapshots rel into the workspace's turn and holds the store locked (a
 * failure fills e: the file is not written); checkpoint_after records
 * what the command left there and lets go. *h stays NULL under dry run.
 * Writers of one workspace take turns through that lock, so that none
 * sweeps away another's temp file.
 */
struct ckpt_hold;
struct workspace;
struct workspace_err;
int	checkpoint_before(struct workspace *, const char *rel, const char *path,
	    struct ckpt_hold **h, struct workspace_err *e);
void	checkpoint_after(struct ckpt_hold *h, struct workspace *,
	    const char *what, const char *rel, const char *path);
/*
 * turn, rewind, undo, checkpoints: the policy, and the workspace's
 * checkpoint store in *ck (create: made; else NULL when there is none).
 * 0, or -1 with e filled.
 */
struct ckpt;
int	checkpoint_store(struct workspace *, struct cli *, int create,
	    int lockop, struct ckpt **ck, struct workspace_err *e);
/*
 * Why the checkpoint store failed with err, in words, into buf: the
 * store item that is wrong and what to do (ckpt_diagnose), else err's.
 */
struct policy;
const char *checkpoint_why(const struct policy *, int err, char *buf,
	    size_t len);
/* The turn h's write joins (before checkpoint_after), 0 for none. */
unsigned long checkpoint_turn(const struct ckpt_hold *h);

/*
 * exec --dry-run (cmd_dryrun.c): takes over p (freed), returns the exit
 * status as cmd_exec would, with how the command ended in *end
 * (sandbox.h; end->ran clear when it never started).
 */
struct policy;
struct sandbox_end;
int	dryrun_exec(struct policy *p, char **argv, struct sandbox_end *end);
/* exec --checkpoint (cmd_apply.c): the same, then applied as a turn. */
int	dryrun_exec_checkpoint(struct policy *p, struct cli *c, char **argv,
	    int join, struct sandbox_end *end);

/*
 * The writable roots of r as a list for a person (cmd_exec.c), devices
 * left out: "workspace /w, temp dir /tmp, state dir /h/.arcturn, grant
 * /g", cut with ", ..." to fit len.
 */
struct roots;
void	cmd_roots_text(const struct roots *r, char *buf, size_t len);

/*
 * For exec and sandbox (cmd_exec.c): cmd_load builds the policy from c's
 * options and f (config_load), printing the error or warnings, -1 on
 * error; cmd_tilde gives path with the home shown as ~ (into buf).
 */
struct config_flags;
int	cmd_load(struct cli *c, struct config_flags *f, struct policy *p);
const char *cmd_tilde(const struct policy *p, const char *path, char *buf,
	    size_t len);

/* Print `usage: ...` for the named command to stderr (main.c). */
void	cmd_usage(const char *);

#endif
