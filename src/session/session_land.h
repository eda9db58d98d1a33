/*
 * session_land: apply's whole sequence, for `arcturn apply` and `exec
 * --checkpoint` (the front end, cli/cmd_apply.c, parses, calls
 * session_land, and speaks): the policy's veto, the checkpoint store,
 * what an earlier apply cut short, the turn, the plan, the settle, and
 * what becomes of the session.
 *
 * Record first, then act, as write and rewind do: before a file is
 * touched, the apply's turn is recorded open (checkpoint.h, `open land`:
 * before = what stands at each path it may change, stored and synced,
 * after = what it lands there); then the plan runs (keep.h keeps what it
 * replaces in the session too); then the turn is settled by what stands
 * there now. A turn that cannot be recorded means nothing is applied
 * (SLAND_UNRECORDED). A kill at any point leaves every replaced version
 * in a turn: the next undo settles the open one (ckpt_settle_landed) and
 * takes back what landed; the next apply of the session lands the rest.
 *
 * Calling sequence, the session open under LOCK_EX, rootfd its
 * workspace's root:
 *
 *	struct sland l = { .p = p, .s = s, .rootfd = rootfd, .c = &c,
 *	    .sel = sel, .label = "apply", ... };
 *	end = session_land(&l);
 *	(speak from l's out fields)
 *
 * With no change in c (c->n 0), the session has nothing pending: what a
 * cut-short apply kept becomes a turn where the store opens, and the
 * session goes unless it keeps what no turn holds (earlier).
 */
#ifndef ARCTURN_SESSION_LAND_H
#define ARCTURN_SESSION_LAND_H

#include <limits.h>
#include <stddef.h>

#include "policy/policy.h"
#include "session/changes.h"
#include "session/keep.h"
#include "session/plan.h"
#include "session/session.h"

/* How session_land ended. */
enum sland_end {
	SLAND_DONE,		/* tried: see res, recorded, kept */
	SLAND_POLICY,		/* the policy's roots cannot be built: why */
	SLAND_STORE,		/* the store cannot be opened: err */
	SLAND_UNRECORDED,	/* the turn cannot be recorded: err;
				   nothing applied */
	SLAND_ERROR		/* err: the keep or the plan failed,
				   nothing applied */
};

struct sland {
	/* in */
	const struct policy *p;		/* mode, workspace, state, limits */
	struct session	*s;
	int		 rootfd;
	struct changes	*c;		/* marked applied / refused */
	const int	*sel;		/* c->n entries */
	const char	*label;		/* the turn's, unless joined */
	int		 join;		/* into `arcturn turn`'s (keep_join) */
	plan_fail_fn	*failed;	/* each item that did not land */
	void		*farg;
	void		(*progress)(void *, const struct apply_item *);
					/* each file, any thread (plan.h) */
	void		*parg;
	void		(*sweep)(void *);	/* once the store is open: the
						   temp names a killed apply
						   left (may be NULL) */
	void		*sarg;
	/* out */
	int		 err;		/* SLAND_STORE, _UNRECORDED, _ERROR */
	char		 why[PATH_MAX + 64];	/* SLAND_POLICY */
	size_t		 recovered;	/* turns made of what cut-short
					   applies kept */
	int		 recover_err;	/* that failed: errno, or 0 */
	struct plan_result res;
	unsigned long	 id;		/* the apply's turn, 0: none */
	int		 recorded;	/* the turn is settled (or none was
					   needed) */
	int		 rec_err;	/* not: errno */
	size_t		 kept;		/* objects kept in replaced/<name> */
	int		 whole;		/* all of it is in the turn */
	char		 name[KEEP_NAMELEN];	/* "" when nothing kept */
	int		 earlier;	/* 1: replaced/<earlier> holds what
					   no turn does (the session stays),
					   -1: cannot tell; 0 none */
	char		 earlier_name[KEEP_NAMELEN];
	int		 removed;	/* the session was removed (tried) */
	int		 remove_err;	/* that failed: errno */
};

enum sland_end session_land(struct sland *l);

#endif
