/*
 * checkpoint_land: settling a turn an apply recorded open before it
 * landed (checkpoint.h: ckpt_settle_landed).
 */
#include <errno.h>

#include "checkpoint/checkpoint.h"
#include "checkpoint/checkpoint_impl.h"
#include "lib/mem.h"
#include "lib/pstate.h"

int
ckpt_settle_landed(struct ckpt *ck, int rootfd, struct ckpt_turn *t,
    size_t nt, size_t o, int flags)
{
	struct ckpt_turn *u = &t[o];
	struct ckpt_entry *e, *later;
	struct pstate *now;
	unsigned char *odd;	/* changing now, or a special file */
	unsigned long cur;
	size_t k, j, m = 0;

	/* every state first: a failure leaves u as it was */
	now = mem_calloc(u->n ? u->n : 1, sizeof *now);
	odd = mem_calloc(u->n ? u->n : 1, 1);
	if (now == NULL || odd == NULL) {
		mem_free(now);
		mem_free(odd);
		return -1;
	}
	for (k = 0; k < u->n; k++) {
		e = &u->e[k];
		for (j = o + 1, later = NULL; j < nt && later == NULL; j++)
			later = ckpt_find(&t[j], e->path);
		if (later != NULL)
			now[k] = later->before;
		else if (ckpt_state(ck, rootfd, e->path, 0, &now[k]) < 0) {
			if (errno != EAGAIN) {
				mem_free(now);
				mem_free(odd);
				return -1;
			}
			odd[k] = 1;	/* changing now */
		}
		odd[k] = odd[k] || pstate_special(&now[k]);
	}
	for (k = 0; k < u->n; k++) {
		e = &u->e[k];
		if (odd[k] && !(flags & CKPT_LAND_DROP_OTHER))
			e->after = e->before;	/* its before stays named */
		else if (odd[k] ||
		    pstate_same(&now[k], &e->before)) {
			mem_free(e->path);
			continue;
		} else
			e->after = now[k];
		u->e[m++] = *e;
	}
	mem_free(now);
	mem_free(odd);
	u->n = m;
	u->open = 0;
	if (u->n == 0) {
		if (ckpt_current(ck, &cur) < 0)
			return -1;
		if (cur != u->id)
			return ckpt_drop(ck, u->id) < 0 && errno != ENOENT ?
			    -1 : 0;
	}
	return ckpt_save(ck, u);
}
