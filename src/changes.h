/*
 * changes: the change list a dry-run session amounts to, read from its
 * shadow tree (shadow.h) against the real workspace as it is now.
 *
 * One entry per changed path, in bytewise path order (a deletion before
 * an addition at the same path): files, symlinks and directories added,
 * modified, deleted, re-moded or changed in type. Copy-ups whose bytes and
 * mode equal the real file are not changes. A whiteout over a real
 * directory, or an opaque directory, deletes everything beneath: one entry
 * per file, then the directory. A directory change with a change beneath
 * it is implied (counted once, by the files).
 *
 * A change without a base record (made by overlayfs under `exec
 * --dry-run`) takes the real path's current state as its base, until
 * changes_record_bases writes one.
 *
 * The caller holds the session's lock (LOCK_SH at least; LOCK_EX for
 * changes_record_bases). Problems with one file (a file that vanished or
 * turned into a fifo meanwhile, a special file in upper/) go to the warn
 * callback and the file is left out; every other error ends the call with
 * -1 and errno.
 */
#ifndef ARCTURN_CHANGES_H
#define ARCTURN_CHANGES_H

#include <stddef.h>

#include "session.h"
#include "shadow.h"
#include "udiff.h"

enum change_status {
	CHANGE_ADDED,		/* absent -> file or symlink */
	CHANGE_MODIFIED,	/* content (and maybe mode) changed */
	CHANGE_DELETED,		/* file or symlink -> absent */
	CHANGE_MODE,		/* permission bits only */
	CHANGE_TYPE,		/* file <-> symlink */
	CHANGE_MKDIR,		/* a new directory */
	CHANGE_RMDIR,		/* a directory removed (after its files) */
	CHANGE_DIRMODE		/* a directory's permission bits */
};

struct change {
	char			*path;		/* workspace-relative */
	char			*origin;	/* the upper/ entry it comes
						   from: itself, a whiteout
						   or an opaque dir */
	enum change_status	 status;
	enum shadow_kind	 old_kind;	/* real file now */
	enum shadow_kind	 new_kind;
	unsigned int		 old_mode;	/* permission bits */
	unsigned int		 new_mode;
	long long		 old_size;
	long long		 new_size;
	int			 implied;	/* a dir change with a change
						   beneath it: not counted */
	/* filled by review_diff (review.h) */
	int			 gone;		/* vanished: left out */
	struct udiff_stats	 st;
	/* filled by plan_apply (plan.h) */
	int			 applied;
};

struct changes {
	struct change		*v;		/* bytewise path order */
	size_t			 n;
	size_t			 count;		/* entries not implied */
};

/* One problem with one path; err is an errno value or 0. */
typedef void changes_warn_fn(const char *path, int err, const char *what,
    void *arg);

/* Build the change list (freed with changes_free, even on -1). */
int	changes_list(struct session *, int rootfd, struct changes *,
	    changes_warn_fn *, void *);
void	changes_free(struct changes *);

/* Index of the first change whose path is >= path (bytewise). */
size_t	changes_find(const struct changes *, const char *path);

/*
 * Record the real state now as the base of every pending change that has
 * no base record yet (the first capture wins, so write/edit records stay).
 * `exec --dry-run` calls this, under LOCK_EX, right after the command
 * ends: overlayfs writes no base records, and without one apply could not
 * tell a later change of the real file (a conflict) from the base. Costs
 * one small fsynced file per change.
 */
int	changes_record_bases(struct session *, int rootfd);

/* Short name of a status: added, modified, deleted, mode, typechange,... */
const char *changes_status_name(enum change_status);

#endif
