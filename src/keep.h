/*
 * keep: where an apply keeps what it replaces or deletes, so that nothing
 * of the user's exists nowhere at any instant (apply.h, struct
 * apply_keeper). One keep is one apply's set of kept objects; today it
 * lives in the session's own replaced/ area and goes with the session:
 *
 *   overlays/<id>/replaced/<N>/<P>	the object that stood at the
 *					workspace path P when apply N
 *					of this session replaced or
 *					deleted it (N = 1, 2, ...)
 *
 * Calling sequence, under the session's LOCK_EX:
 *
 *	keep_open(s, &k);			(makes nothing yet)
 *	env.keep = keep_keeper(k);		(apply_run, from any thread)
 *	...
 *	keep_count(k), keep_name(k)		(what the front end names)
 *	keep_close(k);
 *
 * A put makes replaced/ and replaced/<N> on first use. It keeps an
 * object by hard-linking it (the inode itself: what anybody writes into
 * it later is kept too), or, where that fails (another file system,
 * protected_hardlinks), by copying it: a regular file's bytes (fsynced;
 * the copy's hash is reported), a symlink's target, a fifo; a socket or
 * device is kept as nothing but its name in the result. Mirror
 * directories are 0700.
 *
 * The next issue's checkpoints take this place: keep_open becomes "start
 * the apply's turn", put "snapshot this path into it"; apply does not
 * change.
 *
 * Functions return 0 or -1 with errno.
 */
#ifndef ARCTURN_KEEP_H
#define ARCTURN_KEEP_H

#include <stddef.h>

#include "apply.h"
#include "session.h"

struct keep;

int	keep_open(struct session *, struct keep **);
const struct apply_keeper *keep_keeper(struct keep *);

/* How many paths are kept (put minus drop), and the N of replaced/<N>. */
size_t	keep_count(const struct keep *);
const char *keep_name(const struct keep *);

/* Sync what was kept (one syncfs when anything was copied); free. */
void	keep_close(struct keep *);

#endif
