/*
 * plan: lands the selected changes of a dry-run session (changes.h) in
 * the real workspace, through apply_run (apply.h), and drops what landed
 * from the session.
 *
 * Calling sequence, under the session's LOCK_EX:
 *
 *	changes_list(s, rootfd, &c, ...);
 *	plan_select(&c, paths, npaths, sel, &unmatched);
 *	n = plan_count(&c, sel);		(to ask "Apply n file(s)?")
 *	plan_apply(s, rootfd, &c, sel, failfn, arg, &result);
 *
 * plan_apply builds the plan, runs its phases (a few threads where the
 * order does not matter), marks each change applied or not, reports each
 * failed item to failfn, and settles the session. When result.all is set
 * nothing is pending any more and the caller may remove the session.
 *
 * The phases, run one after the other:
 *
 *	PLAN_DELETE	files and symlinks removed (deepest first)
 *	PLAN_RMTREE	directories removed (deepest first); run one only
 *			when nothing beneath it failed
 *	PLAN_MKDIR	new directories (parents first), made with owner rwx
 *			so the files can go in
 *	PLAN_FILES	files, symlinks, file modes (path order)
 *	PLAN_DIRMODE	directory modes, new dirs' exact modes (deepest
 *			first)
 *
 * Within PLAN_DELETE and PLAN_FILES no item depends on another; their
 * items are grouped by parent directory, and different groups run
 * concurrently (never one directory in two runs at once: apply_run sweeps
 * a directory's leftover temp files when it enters it). items[ph][k]
 * belongs to change owner[ph][k]; one change may own two items (a new dir
 * with a mode lacking u+rwx). Bases come from the base records, else from
 * the real path now.
 *
 * Functions return 0 or -1 with errno unless said otherwise.
 */
#ifndef ARCTURN_PLAN_H
#define ARCTURN_PLAN_H

#include <stddef.h>

#include "apply.h"
#include "changes.h"
#include "session.h"

enum {
	PLAN_DELETE,
	PLAN_RMTREE,
	PLAN_MKDIR,
	PLAN_FILES,
	PLAN_DIRMODE,
	PLAN_NPHASE
};

struct plan {
	struct apply_item	*items[PLAN_NPHASE];
	size_t			*owner[PLAN_NPHASE];
	size_t			 n[PLAN_NPHASE];
};

/*
 * Select changes: with npaths == 0 all, else those whose path is one of
 * paths[] (workspace-relative) or beneath one, and the new directories
 * they need. A dir change is selected with the files under it.
 * *unmatched is the index of a path that selects nothing, or -1.
 */
int	plan_select(struct changes *, char *const *paths, size_t npaths,
	    int *sel, long *unmatched);

/*
 * How many file(s) the selection holds, as the user counts them: the
 * selected changes that are not implied, or, when those are none, every
 * selected change.
 */
size_t	plan_count(const struct changes *, const int *sel);

/* One item that did not land: err is an errno value, or 0 for a refusal. */
typedef void plan_fail_fn(const char *path, int err, const char *reason,
    void *arg);

struct plan_result {
	size_t	 applied;	/* selected changes applied (not implied) */
	size_t	 failed;	/* selected changes not applied, counted as
				   plan_count counts */
	int	 all;		/* nothing of the session is pending */
	int	 left;		/* entries settle could not drop from the
				   session, or -1 when it failed (settle_err) */
	int	 settle_err;
};

/*
 * Apply the selected changes (plan_build, plan_run), mark each change's
 * applied, call failfn (may be NULL) for every failed item in phase
 * order, and settle the session (plan_settle). -1 with errno only when
 * nothing was tried (the plan could not be built).
 */
int	plan_apply(struct session *, int rootfd, struct changes *,
	    const int *sel, plan_fail_fn *failfn, void *arg,
	    struct plan_result *);

/*
 * The policy's veto (roots.h, through the front end): a reason ("protected
 * path; refused") for a change that must not land, or NULL.
 */
typedef const char *plan_refuse_fn(const char *path, void *arg);

/*
 * plan_apply, first asking refuse (may be NULL) about each selected
 * change: a refused one is not applied, stays pending, counts as failed
 * and goes to failfn with err 0 and refuse's reason (before the plan's
 * own failures); a removed directory with a refused change beneath it is
 * kept, as when a file beneath it fails.
 */
int	plan_apply_refusing(struct session *, int rootfd, struct changes *,
	    const int *sel, plan_refuse_fn *refuse, void *rarg,
	    plan_fail_fn *failfn, void *arg, struct plan_result *);

/* The steps of plan_apply, for tests. Free a plan with plan_free. */
int	plan_build(struct session *, int rootfd, struct changes *,
	    const int *sel, struct plan *);
void	plan_run(int rootfd, struct plan *);
void	plan_free(struct plan *);

/* Whether two workspace-relative paths have the same parent directory. */
int	plan_same_dir(const char *, const char *);

/*
 * After apply: drop from upper/ (and the base records) every change
 * marked applied, an entry only once all changes that came from it are
 * applied; then empty directories that are no pending change. Returns the
 * number of entries that could not be dropped, or -1.
 */
int	plan_settle(struct session *, struct changes *);

#endif
