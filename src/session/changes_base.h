/*
 * changes_base: the base records of a session's pending changes
 * (session_base.h): the base apply checks each change against, and the
 * records `exec --dry-run` writes for what a command changed.
 *
 * overlayfs writes no base records. Right after a dry-run command ends,
 * under LOCK_EX, changes_record_bases records the real state of every
 * changed path that has none yet (write and edit record theirs before
 * they change anything, shadow.h). A run that never ended (kill -9, a
 * restart) or could not record leaves changes without a record;
 * changes_mark_unrecorded gives them an unrecorded one, and apply refuses
 * every change whose base is unrecorded ("no record of the file at
 * capture; refused"): no change is ever applied blind.
 *
 * The caller holds the session's lock: LOCK_SH at least for changes_base,
 * LOCK_EX for changes_record_bases and changes_mark_unrecorded. Functions
 * return 0 (or a count) or -1 with errno.
 */
#ifndef ARCTURN_CHANGES_BASE_H
#define ARCTURN_CHANGES_BASE_H

#include <stddef.h>
#include <time.h>

#include "apply/apply.h"
#include "session/changes.h"
#include "session/session.h"

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

#endif
