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
 * may be applied is the base record's to say (changes_base): a change
 * without one is never applied blind.
 *
 * The caller holds the session's lock (LOCK_SH at least; LOCK_EX for
 * changes_record_bases and changes_mark_unrecorded). Problems with one
 * file (a file that vanished meanwhile) go to the warn callback and the
 * file is left out; every other error ends the call with -1 and errno.
 */
#ifndef ARCTURN_CHANGES_H
#define ARCTURN_CHANGES_H

#include <sys/types.h>

#include <stddef.h>
#include <time.h>

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
	const char		*refuse;	/* why it cannot be applied, or
						   NULL (a static string) */
	char			*link_to;	/* a hard link of this path */
	dev_t			 dev;		/* new side's inode (files) */
	ino_t			 ino;
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
 * The base of change i of c, for apply: its record. Without one, a
 * deletion that a whiteout or opaque directory above implies, whose
 * origin has a record, was created in the real tree after capture (base
 * absent: apply refuses it as "created since capture"); anything else
 * is unrecorded (why 0; a truncated or corrupt record: why EBADMSG).
 */
int	changes_base(struct session *, const struct changes *, size_t i,
	    struct apply_base *);

/* What changes_record_bases did. */
struct changes_rec {
	size_t		 recorded;	/* records written */
	size_t		 unrecorded;	/* paths recorded as unrecorded */
	char		*first;		/* the first of those (mem_free) */
	int		 first_why;	/* and why (an errno) */
};

/*
 * Record the real state now as the base of every pending change that has
 * no base record yet (the first capture wins, so write/edit records stay).
 * `exec --dry-run` calls this, under LOCK_EX, right after the command
 * ends and before the run's mark says it ended: overlayfs writes no base
 * records, and without one apply could not tell a later change of the real
 * file (a conflict) from the base. A path whose real state cannot be read
 * (EACCES, EIO, ...), or that changed while the command ran (ctime at or
 * after since: EAGAIN, recorded as ESTALE), gets an unrecorded record
 * saying why: apply refuses that path alone. -1 with errno when records
 * cannot be written at all (ENOSPC, EMFILE, EIO on the state dir): the
 * session is then incomplete (session_run_end). The records are written
 * without fsync (s->nosync): the caller syncs the file system.
 */
int	changes_record_bases(struct session *, int rootfd,
	    const struct timespec *since, struct changes_rec *);
void	changes_rec_free(struct changes_rec *);

/*
 * Give every pending change without a base record an unrecorded one
 * (why 0), after a run that never ended or could not record: a later run
 * must not record the real state then as if the old run had seen it.
 * Returns how many, or -1 with errno.
 */
long	changes_mark_unrecorded(struct session *, int rootfd);

/* Short name of a status: added, modified, deleted, mode, typechange,... */
const char *changes_status_name(enum change_status);

#endif
