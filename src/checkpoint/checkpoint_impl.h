/*
 * checkpoint_impl.h: the insides of the checkpoint store (checkpoint.h),
 * shared by two of its files and by nothing else:
 *	checkpoint.c		opening, records, turns, retention;
 *	checkpoint_state.c	the state of a path and the blobs it stores;
 *	checkpoint_land.c	settling a turn an apply recorded open.
 * (checkpoint_record.c, a turn record as text and back, needs no store.)
 */
#ifndef ARCTURN_CHECKPOINT_IMPL_H
#define ARCTURN_CHECKPOINT_IMPL_H

#include "checkpoint/checkpoint.h"

struct ckpt {
	int		 dirfd;		/* checkpoints/<K> */
	int		 blobsfd;
	int		 turnsfd;
	int		 lockfd;
	int		 dirty;		/* a blob made, its dir not synced */
	int		 lazy;		/* blobs not synced (ckpt_lazy) */
	struct ckpt_limits lim;
};

/* The current turn's id in *id, 0 when there is none (checkpoint.c). */
int	ckpt_current(struct ckpt *, unsigned long *id);

#endif
