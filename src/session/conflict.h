/*
 * conflict: whether a pending change can still land, told the way apply
 * tells it. A change's base record (changes_base.h) is the real path's
 * state when the change was captured; apply refuses a change whose real
 * path no longer holds it (apply_base_matches, apply_swap.h: one
 * definition). diff and `session show` mark such a path instead of
 * rendering the user's edit as a deletion; `apply --force PATH` takes
 * what is there now as the base, so the change lands over it and the
 * user's version goes into the apply's checkpoint turn (keep.h).
 *
 * The caller holds the session's lock (LOCK_SH for conflict_of, LOCK_EX
 * for conflict_take). Functions return 0 (or a kind) or -1 with errno.
 */
#ifndef ARCTURN_CONFLICT_H
#define ARCTURN_CONFLICT_H

#include <sys/stat.h>

#include <stddef.h>

#include "apply/apply.h"
#include "lib/hash.h"
#include "session/changes.h"
#include "session/session.h"

enum conflict_kind {
	CONFLICT_NONE,		/* the real path holds the base */
	CONFLICT_CHANGED,	/* "changed since capture" */
	CONFLICT_CREATED,	/* "created since capture" (base absent) */
	CONFLICT_DELETED,	/* "deleted since capture" */
	CONFLICT_UNRECORDED	/* no base record: apply refuses it blind */
};

/*
 * The conflict of change i of c beneath rootfd; with now non-NULL, the
 * real state as a base (for conflict_take). A path apply would refuse
 * for another reason (a symlink out of the workspace) is CONFLICT_NONE.
 */
int	conflict_of(struct session *, int rootfd, const struct changes *c,
	    size_t i, struct apply_base *now);

/*
 * The same for change i of c (not a directory's mode change) when its
 * real path was just found to be a regular file and read whole: st is
 * the fstat of the file read, sha the SHA-256 of the bytes read. It
 * spares the caller who reads the file anyway (review_diff) a second
 * open and read.
 */
int	conflict_of_file(struct session *, const struct changes *c, size_t i,
	    const struct stat *st, const unsigned char sha[HASH_LEN]);

/*
 * "conflict: changed since capture", "... created ...", "... deleted
 * ..."; NULL for none and for unrecorded (whose refusal says more).
 */
const char *conflict_mark(int kind);

/* Make now the base record of rel: apply then lands over it. */
int	conflict_take(struct session *, const char *rel,
	    const struct apply_base *now);

#endif
