/*
 * changes: the change list a dry-run session amounts to, read from its
 * shadow tree (shadow.h) against the real workspace as it is now.
 *
 * One entry per changed path, in bytewise path order (a deletion before
 * an addition at the same path): files, symlinks, fifos and directories
 * added, modified, deleted, re-moded or changed in type. Copy-ups whose
 * bytes and mode equal the real file are not changes. A whiteout over a
 * real directory, or an opaque directory, deletes everything beneath: one
 * entry per file (fifo, socket, device), then the directory. A directory
 * change with a change beneath it is implied (counted once, by the files).
 *
 * Some changes can never be applied as they are; they are listed with
 * refuse set (kept pending, never dropped): a socket or a device node in
 * upper/, a directory holding entries nested deeper than SHADOW_DEPTH_MAX
 * or with paths longer than SHADOW_PATH_MAX.
 *
 * Hard links a dry-run command made between files of upper/ (one inode,
 * nlink > 1) are kept as links: each file of such a group but the first
 * (bytewise) gets link_to, the first one's path; apply links it there.
 *
 * The list is read against the real tree as it is now. Whether a change
 * may be applied is the base record's to say (changes_base.h): a change
 * without one is never applied blind.
 *
 * The caller holds the session's lock (LOCK_SH at least). Problems with one
 * file (a file that vanished meanwhile) go to the warn callback and the
 * file is left out; every other error ends the call with -1 and errno.
 */
#ifndef ARCTURN_CHANGES_H
#define ARCTURN_CHANGES_H

#include <sys/types.h>

#include <stddef.h>
#include <time.h>

#include "diff/udiff.h"
#include "session/session.h"
#include "session/shadow.h"

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
	const char		*refuse;	/* why it cannot be applied, or
						   NULL (a static string) */
	char			*link_to;	/* a hard link of this path */
	dev_t			 dev;		/* new side's inode (files) */
	ino_t			 ino;
	/* filled by review_diff (review.h) */
	int			 gone;		/* vanished: left out */
	int			 conflict;	/* conflict.h: what the real
						   path did since capture */
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

/* Short name of a status: added, modified, deleted, mode, typechange,... */
const char *changes_status_name(enum change_status);

#endif
