/*
 * workspace: the workspace as a command sees it, opened once: its policy,
 * its dry-run session (open, locked) and the root fd, in one struct
 * workspace that the front ends (cli/, mcp/) fill and use. The file
 * commands read and write through the wsview (wsview.h) workspace_view
 * chooses.
 *
 * The session is --session ID, else ARCTURN_SESSION, else the default
 * session of the workspace (created by the first dry-run write). A named
 * session that belongs to another workspace is refused by write, edit,
 * read, diff and apply (their paths are relative to the workspace).
 *
 * Calling sequence: workspace_init (with the front end's notes), fill
 * x->p (the front end loads the policy: dryrun_load in cli/), then
 * workspace_view, or workspace_open or workspace_changes and
 * workspace_root, and at the end workspace_done, which frees the policy
 * too.
 *
 * Nothing here prints. A function that fails fills a struct
 * workspace_err, which the front end renders (cli/cmd_dryrun.h:
 * dryrun_report as a line, dryrun_line for the MCP server); what is said
 * on the way and is no error (a wait for the lock, a run a restart cut
 * short, a swap name the sweep leaves) goes to the front end's notes.
 */
#ifndef ARCTURN_WORKSPACE_H
#define ARCTURN_WORKSPACE_H

#include <limits.h>
#include <stddef.h>

#include "policy/policy.h"
#include "session/changes.h"
#include "session/session.h"

struct wsview;

/*
 * What the workspace tells on the way, worded by the front end. A NULL
 * notes, or a NULL member, says nothing. what names the command.
 */
struct workspace_notes {
	/* the session's lock is not free within a second: it waits */
	void	(*waiting)(const char *what, const char *id);
	/* a restart cut a dry-run command in session id short */
	void	(*cut)(const char *what, const char *id);
	/*
	 * The sweep leaves name (fsx.h) in the folder dir (dirlen bytes,
	 * workspace-relative, "" for the root; cut: levels beneath dir
	 * that did not fit in it).
	 */
	void	(*left)(const char *what, const char *dir, size_t dirlen,
		    int cut, const char *name);
	/* a problem with one file while listing changes; arg is what */
	changes_warn_fn *list;
};

struct workspace {
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
	const struct workspace_notes *notes;
};

/*
 * Why a front end fails: printed `arcturn: WHAT: SUBJECT: REASON`, the
 * empty parts left out, or `arcturn: REASON` when bare (a config error
 * names its file). reason is strerror(err) when err is set. A failure
 * with neither err nor reason has been told otherwise (a declined
 * prompt, apply's per-file lines): it prints nothing. Plain data: the
 * front ends fill it too, for failures of their own.
 */
struct workspace_err {
	int	 status;			/* exit status (exitcode.h) */
	int	 err;				/* errno, or 0 */
	int	 bare;				/* reason is the whole line */
	int	 code;				/* enum say_code (exitcode.h)
						   of --json's error, or
						   SAY_NONE (0): from err and
						   status */
	char	 subject[PATH_MAX + 64];	/* a path, "session ID", or "" */
	char	 reason[PATH_MAX + 160];
	char	 hint[PATH_MAX + 160];		/* the way out, or "": said
						   after the reason, "; " between,
						   and as --json's "hint" */
};

/* What workspace_open and workspace_changes found. */
enum { WORKSPACE_GOT, WORKSPACE_NONE, WORKSPACE_ERR };

/* Names the session an exec --dry-run holds locked while its command runs. */
#define WORKSPACE_BUSY_ENV	"ARCTURN_DRY_RUN_HELD"

/* notes may be NULL (say nothing); it must outlive x. */
void	workspace_init(struct workspace *x,
	    const struct workspace_notes *notes);
void	workspace_done(struct workspace *);

/*
 * Fill e (status, err, subject, then reason from fmt; code SAY_NONE) and
 * return status. fmt may be NULL when err says it all.
 */
int	workspace_fail(struct workspace_err *e, int status, int err,
	    const char *subject, const char *fmt, ...)
	    __attribute__((format(printf, 5, 6)));

/*
 * Open the selected session (creating it with create) and lock it with
 * lockop (0: no lock). WORKSPACE_GOT, WORKSPACE_NONE (nothing to open) or
 * WORKSPACE_ERR (e filled). When a restart cut a dry-run command in the
 * session short, x->cut is set and notes->cut says so; when the lock is
 * not free within a second, notes->waiting says that it waits (every
 * command shows them: they are not errors). A damaged session sets
 * x->damaged and fails naming the part and how to remove it.
 */
int	workspace_open(struct workspace *, const char *what, int create,
	    int lockop, struct workspace_err *);

/* The session must belong to the workspace we run in. */
int	workspace_same(struct workspace *, struct workspace_err *);

/* Open root as x->rootfd (once). */
int	workspace_root(struct workspace *, const char *root,
	    struct workspace_err *);

/* How workspace_view chooses (flags, or-ed). */
#define WORKSPACE_VIEW_SESSION	0x1	/* the session's tree, if any */
#define WORKSPACE_VIEW_ROOT	0x2	/* the real tree's root: a path
					   inside the workspace */
#define WORKSPACE_VIEW_WRITE	0x4	/* create the session, LOCK_EX
					   (else LOCK_SH, none created) */

/*
 * The view the file tools read and write through (wsview.h), chosen once
 * for the CLI's write, edit and read and the MCP server's tools alike.
 * With WORKSPACE_VIEW_SESSION, the selected session's shadow tree (opened
 * and locked; it must belong to this workspace, and the root is opened),
 * or the real tree when there is none (with WORKSPACE_VIEW_WRITE one is
 * created); else the real tree. The real tree's root is opened only with
 * WORKSPACE_VIEW_ROOT (v->rootfd is -1 otherwise: every path absolute);
 * failing to open it there is EXIT_REFUSED. 0, or -1 with e filled.
 */
int	workspace_view(struct workspace *, const char *what, int flags,
	    struct wsview *v, struct workspace_err *);

/*
 * The pending changes of the workspace's session, for diff and apply:
 * open it (lockop), check it is this workspace's, list its changes
 * against the workspace (problems with one file go to notes->list).
 * WORKSPACE_NONE when there is no session (an error when one was named).
 */
int	workspace_changes(struct workspace *, const char *what, int lockop,
	    struct changes *, struct workspace_err *);

/*
 * Resolve a path the user gave (wsview_resolve: 0 inside, 1 outside).
 * With dry, a path outside the workspace, or inside arcturn's state dir,
 * is refused. -1 with e filled (EXIT_REFUSED).
 */
int	workspace_resolve(struct workspace *, const char *path, int dry,
	    char **rel, struct workspace_err *);

/*
 * Select in sel (c->n entries) the changes at or beneath the paths the
 * user named, argv[0..np-1] (plan_select's choice: every change when np
 * is 0). A path outside the workspace, or one that selects nothing, is
 * refused (EXIT_REFUSED). 0, or -1 with e filled.
 */
int	workspace_select(struct workspace *, struct changes *, char **argv,
	    size_t np, int *sel, struct workspace_err *);

/*
 * Remove the temp files a killed apply left in the real workspace: in
 * every directory the session's upper tree has, whether or not a change
 * is pending there still (a path a killed apply finished is no change).
 * A swap name it leaves (fsx.h) goes to notes->left, what naming the
 * command. Best effort.
 */
void	workspace_sweep(const struct workspace *x, const char *what);

#endif
