/*
 * rewind: the engine of `arcturn rewind` and `arcturn undo` (the front
 * end, cli/cmd_checkpoint.c, parses, calls rewind_run, and speaks).
 *
 * A rewind restores every path the turns since TURN changed to the state
 * it had before the first of them: by compare-and-swap through apply
 * (apply.h), with the state the last turn left there as the base. A path
 * whose state is neither that nor the one being restored is a conflict:
 * nothing is changed unless force, which takes what is there now as the
 * base.
 *
 * Record first, then act, as write does: what a rewind replaces is
 * snapshotted (blobs, synced), then its own turn is recorded open
 * (checkpoint.h), before = those snapshots, after = the states it
 * restores; only then are files touched, and at the end the turn is
 * settled: a path whose item failed gets what is there now as its after
 * state (or leaves the turn when unchanged). A turn that cannot be
 * recorded means nothing is touched. So at every instant each version a
 * rewind replaces is named by a turn, and a kill leaves each path in its
 * before or its after state. The next rewind or undo finishes an open
 * turn that is the newest (restores what still holds its before state,
 * settles it, and does nothing else: rw.finished), and settles one that
 * later turns followed, each path's after state being what the first
 * later turn found there. An apply's open turn (`open land`) is settled
 * by what stands there (ckpt_settle_landed), whatever its place, and is
 * then a turn like any other: an undo takes back what landed.
 *
 * Calling sequence, with the store open LOCK_EX (checkpoint.h):
 *
 *	struct rewind rw = { .from = TURN or 0, .force = f,
 *	    .label = "undo of turn" };
 *	end = rewind_run(ck, rootfd, policy, &rw);
 *	(report rw.p[], rw.it[], rw.id)
 *	rewind_free(&rw);
 *
 * The phases, one after the other: removals of files and links (deepest
 * first), of directories (deepest first), new directories (parents first,
 * owner rwx so files can go in), files and links, then directory modes
 * (deepest first); files and links in a few threads (apply_phase.h).
 */
#ifndef ARCTURN_REWIND_H
#define ARCTURN_REWIND_H

#include <stddef.h>

#include "apply/apply_item.h"
#include "checkpoint/checkpoint.h"

struct policy;

/* One path a rewind restores. */
struct rewind_path {
	const char	*path;		/* borrowed from the turns */
	struct pstate target;	/* before the first turn */
	struct pstate base;		/* what the last turn left */
	struct pstate now;		/* what is there now (stored) */
	unsigned long	 turn;		/* the last turn that changed it */
	const char	*why;		/* a refusal, or NULL */
	int		 conflict;	/* why is a conflict */
	int		 skip;		/* already as restored */
	unsigned char	 how;		/* 1 restored; 0 not tried; else bits:
					   1 an item done, 2 one failed, 4
					   one failed with an OS error */
	char		 hex[HASH_HEXLEN + 1];
};

/* How a rewind ended (rewind_run's value). */
enum rewind_end {
	REWIND_DONE,		/* tried: see failed, refused, restored */
	REWIND_NO_STORE,	/* the store has no turns folder */
	REWIND_NO_TURN,		/* no turn with paths */
	REWIND_NO_SUCH,		/* from names no turn */
	REWIND_CONFLICT,	/* conflicts > 0: nothing changed */
	REWIND_ERROR		/* err (errno), errpath (or ""), or why */
};

struct rewind_item;

struct rewind {
	/* in */
	unsigned long	 from;		/* the first turn; 0: the newest
					   turn with paths (undo) */
	int		 force;		/* take what is there as the base */
	const char	*label;		/* its own turn's label: this, a
					   space and the turn from */
	/* out */
	struct rewind_path *p;		/* every path the turns changed */
	size_t		 n;
	struct apply_item *it;		/* the items tried, in order */
	size_t		 ni;
	int		 conflicts;
	long		 failed;	/* items that failed */
	size_t		 refused;	/* paths with why set */
	size_t		 restored;	/* paths with how 1 */
	unsigned long	 id;		/* the rewind's turn, 0: none */
	int		 unrecorded;	/* REWIND_ERROR: its turn could not
					   be recorded: nothing was done */
	unsigned long	 unsettled;	/* done, but its turn (this id) not
					   settled: rec_err the errno */
	int		 rec_err;
	unsigned long	 finished;	/* the run finished this open turn
					   (a rewind cut short) instead */
	int		 err;		/* REWIND_ERROR: errno, or 0 ... */
	const char	*errpath;	/* ... with the path it concerns (a
					   store or workspace path), "" for
					   none (out of memory) ... */
	char		 why[200];	/* ... or, with err 0, this line */
	/* private */
	struct ckpt_turn *t;
	size_t		 nt;
	struct rewind_item *v;
};

/*
 * Rewind the store ck's workspace beneath rootfd, as rw asks; p (may be
 * NULL: no write check, MODE_OFF) gives the write check's roots, asked on
 * each folder as the engine opens it. Free rw with rewind_free.
 */
enum rewind_end rewind_run(struct ckpt *ck, int rootfd,
	    const struct policy *p, struct rewind *rw);
void	rewind_free(struct rewind *rw);

#endif
