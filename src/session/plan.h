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
 *	keep_open(s, &k);			(keep.h)
 *	env.keep = keep_keeper(k);
 *	plan_apply(s, rootfd, &c, sel, &env, failfn, arg, &result);
 *
 * plan_apply builds the plan, runs its phases (a few threads where the
 * order does not matter), marks each change applied or not, reports each
 * failed item to failfn, and settles the session. When result.all is set
 * nothing is pending any more and the caller may remove the session.
 *
 * The phases, run one after the other:
 *
 *	PLAN_DELETE	files, symlinks, fifos removed (deepest first)
 *	PLAN_RMDIR	directories removed (deepest first) when empty by
 *			then; tried only when nothing beneath it failed
 *	PLAN_MKDIR	new directories (parents first), made with owner rwx
 *			so the files can go in
 *	PLAN_FILES	files, symlinks, fifos, file modes (path order)
 *	PLAN_LINKS	hard links to files of the change set (changes.h)
 *	PLAN_DIRMODE	directory modes, new dirs' exact modes (deepest
 *			first)
 *
 * Within PLAN_DELETE, PLAN_FILES and PLAN_LINKS no item depends on another;
 * their items are grouped by parent directory, and different groups run
 * concurrently (never one directory in two runs at once: apply_run sweeps
 * a directory's leftover temp files when it enters it). An item whose
 * path stood where a removal failed, or beneath a new directory that
 * failed, is not tried. items[ph][k] belongs to change owner[ph][k]; one
 * change may own two items (a new dir with a mode lacking u+rwx). Bases
 * come from the base records (changes_base): a change without one is
 * refused, never applied blind. A change with refuse set (changes.h) gets
 * no item: it fails with that reason and stays pending.
 *
 * Functions return 0 or -1 with errno unless said otherwise.
 */
#ifndef ARCTURN_PLAN_H
#define ARCTURN_PLAN_H

#include <stddef.h>

#include "apply/apply.h"
#include "session/changes.h"
#include "session/session.h"

enum {
	PLAN_DELETE,
	PLAN_RMDIR,
	PLAN_MKDIR,
	PLAN_FILES,
	PLAN_LINKS,
	PLAN_DIRMODE,
	PLAN_NPHASE
};

struct plan {
	struct apply_item	*items[PLAN_NPHASE];
	size_t			*owner[PLAN_NPHASE];
	size_t			 n[PLAN_NPHASE];
	size_t			*refused;	/* changes with refuse set */
	size_t			 nrefused;
	const struct changes	*c;
};

/*
 * Select changes: with npaths == 0 all, else those whose path is one of
 * paths[] (workspace-relative) or beneath one, and the new directories
 * and hard-link targets they need. A dir change is selected with the
 * files under it.
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
 * order (refused changes first), and, when anything stays pending, settle
 * the session (plan_settle). When nothing does (all), the caller removes
 * the session whole, or settles it when it keeps it.
 * env (apply.h: the keeper, progress; may be NULL) goes to apply_run,
 * but for env->progress: plan_apply calls it (item NULL, from any thread)
 * once for each file plan_count counts, when it is done, applied or not;
 * a file refused without an item first, a file whose items were never
 * tried once the run is over: plan_count(c, sel) calls in all.
 * -1 with errno only when nothing was tried (the plan could not be
 * built).
 */
int	plan_apply(struct session *, int rootfd, struct changes *,
	    const int *sel, const struct apply_env *env, plan_fail_fn *failfn,
	    void *arg, struct plan_result *);

/* The steps of plan_apply, for tests. Free a plan with plan_free. */
int	plan_build(struct session *, int rootfd, struct changes *,
	    const int *sel, struct plan *);
void	plan_run(int rootfd, struct plan *, const struct apply_env *env);
void	plan_free(struct plan *);

/* How many items a plan holds (for progress: apply_env.progress). */
size_t	plan_items(const struct plan *);

/*
 * After apply: drop from upper/ (and the base records) every change
 * marked applied, an entry only once all changes that came from it are
 * applied; then empty directories that are no pending change. Returns the
 * number of entries that could not be dropped, or -1.
 */
int	plan_settle(struct session *, struct changes *);

#endif
