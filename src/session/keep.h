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
 *   overlays/<id>/replaced/<N>.turn	all of <N> is in a recorded turn
 *
 * And it is the apply's checkpoint turn (checkpoint.h), recorded first:
 * with a store, keep_begin snapshots what stands at every path the apply
 * may change into the store's blobs (a regular file's bytes, a symlink's
 * target) and records the turn open (`open land`) before anything is
 * touched; keep_turn settles it afterwards, so that `arcturn undo` right
 * after an apply, or after a kill at any point of it, restores the tree
 * it found. put snapshots the object it keeps too (the turn's before,
 * should it differ). Those blobs are stored unsynced (ckpt_lazy, from
 * keep_open to keep_close): keep_begin syncs its own before it records,
 * the keeper's sync fsyncs put's, then the blobs directory, and apply
 * calls it before it replaces anything a put kept (one round per batch
 * of items).
 *
 * Calling sequence, under the session's LOCK_EX and the store's LOCK_EX:
 *
 *	keep_open(s, ck, &k);			(makes nothing yet; ck may
 *						 be NULL: no turn)
 *	keep_begin(k, rootfd, &c, sel, "apply");	(failed: apply nothing)
 *	env.keep = keep_keeper(k);		(apply_run, from any thread)
 *	plan_apply(...);
 *	keep_turn(k, rootfd, &id);
 *	keep_count(k), keep_name(k)		(what the front end names)
 *	keep_close(k);
 *
 * A put makes replaced/ and replaced/<N> on first use. It keeps an
 * object by hard-linking it (the inode itself: what anybody writes into
 * it later is kept too), or, where that fails (another file system,
 * protected_hardlinks), by copying it: a regular file's bytes (fsynced;
 * the copy's hash is reported), a symlink's target, a fifo; a socket or
 * device is kept as nothing but its name in the result. Mirror
 * directories are 0700. A put whose snapshot cannot be stored fails
 * (the item is not applied: nothing is replaced that undo could not
 * give back).
 *
 * The turn (a turn of its own; the current turn of `arcturn turn` ends,
 * as with rewind) holds every path the apply changed, each once: before
 * = what put kept of it, else what keep_begin found there; after = what
 * is there now. Paths whose state did not change, and fifos, sockets and
 * devices (no checkpoint kind holds them), are left out.
 *
 * Functions return 0 or -1 with errno.
 */
#ifndef ARCTURN_KEEP_H
#define ARCTURN_KEEP_H

#include <stddef.h>

#include "apply/apply.h"
#include "checkpoint/checkpoint.h"
#include "session/changes.h"
#include "session/session.h"

struct keep;

int	keep_open(struct session *, struct ckpt *, struct keep **);
const struct apply_keeper *keep_keeper(struct keep *);

/* How many paths are kept (put minus drop), and the N of replaced/<N>. */
size_t	keep_count(const struct keep *);
const char *keep_name(const struct keep *);

/*
 * Record the apply's turn open, before anything lands: for each change
 * of c that sel selects and no refusal names, before = what stands at
 * its path beneath rootfd (stored, synced), after = what the session
 * lands there; labelled label (a joined turn keeps its own). Nothing is
 * recorded when no path can change. 0, or -1 with errno: then nothing
 * may be applied (a change undo could not take back is not made).
 */
int	keep_begin(struct keep *, int rootfd, const struct changes *c,
	    const int *sel, const char *label);

/*
 * Settle the turn keep_begin recorded, by what stands beneath rootfd now
 * (ckpt_settle_landed; a path put kept takes what put kept as its
 * before). *id is its id, 0 when nothing changed (nothing recorded) or
 * there is no store. -1 with errno: the turn stays open (the next undo
 * settles it).
 */
int	keep_turn(struct keep *, int rootfd, unsigned long *id);

/*
 * With on, keep_begin joins the turn `arcturn turn` opened, when one is
 * open, instead of ending it (a turn of its own when none is): the
 * turn keeps its label and stays open for the writes after, a path it
 * holds already keeps its before and takes the new after. `exec
 * --checkpoint --join-turn` asks for it (the MCP server's run_command,
 * so that a command's writes join the turn an agent began).
 */
void	keep_join(struct keep *, int on);

/*
 * Whether the turn keep_turn recorded holds every file put kept (a file
 * that is a fifo now cannot be given back by a turn), and replaced/<N>
 * is marked so: replaced/<N>.turn, synced. keep_unrecorded: the N of a
 * replaced/<N> without that mark (an apply cut short before its turn,
 * or one whose turn could not hold all it kept) in name and 1; 0 when
 * there is none. Its session must not go with it unasked.
 */
#define KEEP_NAMELEN	16
#define KEEP_TURN_MARK	".turn"
int	keep_whole(const struct keep *);
int	keep_unrecorded(struct session *, char name[KEEP_NAMELEN]);

/*
 * Make replaced/<name>.turn (on) or take it away, synced: all that
 * replaced/<name> holds is in a turn, open or settled, or not.
 */
int	keep_mark(struct session *, const char *name, int on);

/*
 * keep_recover.c: an apply cut short before its turn (keep_unrecorded),
 * or by an arcturn that recorded its turn after it landed, is recorded now,
 * so that undo reaches what it replaced: each object replaced/<N> holds
 * at a mirror path P (a regular file or a symlink) is P's before state
 * (stored again as a blob), what stands at P beneath rootfd now its
 * after; paths whose state is the same are left out. The turn is
 * labelled label and replaced/<N>.turn marks the area. Every unmarked
 * area, oldest first; *n is how many turns were recorded.
 */
int	keep_recover(struct session *, struct ckpt *, int rootfd,
	    const char *label, size_t *n);

/* Sync the names made in replaced/<N>; free. */
void	keep_close(struct keep *);

#endif
