/*
 * apply_phase: the phase runner that apply's callers share (plan.c for a
 * dry-run session, rewind.c for undo and rewind). A caller sorts its items
 * into phases that must run one after the other (removals before the
 * folders they empty, new folders before their files); within a phase
 * whose items do not depend on each other, apply_run_phase splits them
 * over a few threads, never one folder in two threads (apply_run sweeps a
 * folder's leftover temp names when it enters it).
 */
#ifndef ARCTURN_APPLY_PHASE_H
#define ARCTURN_APPLY_PHASE_H

#include <stddef.h>

#include "apply/apply_item.h"

/* Whether two workspace-relative paths have the same parent directory. */
int	apply_same_dir(const char *, const char *);

/* Order by parent directory, then name (<0, 0, >0 as strcmp). */
int	apply_cmp_by_dir(const struct apply_item *, const struct apply_item *);

/*
 * Run items through apply_run; with parallel, in up to 8 threads, each
 * a run of whole directories (items ordered by apply_cmp_by_dir, so that
 * no two threads write, or sweep, one directory), in batches
 * (apply_run_batch). Failures are marked on the items, as apply_run marks
 * them; a chunk that could not be tried at all fails each of its items
 * with the cause.
 */
void	apply_run_phase(int rootfd, struct apply_item *, size_t n,
	    int parallel, const struct apply_env *env);

/*
 * Fail, without trying, the items [k, end) of it that stand where an
 * earlier item (of it[0..k-1]) failed, or beneath one: a removal that
 * did not happen, a folder not made, so that a link left in a folder's
 * place is never written through. Their reason says which.
 */
void	apply_skip_failed(struct apply_item *it, size_t k, size_t end);

#endif
