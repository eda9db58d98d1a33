/*
 * rewind: the engine of rewind and undo (rewind.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply/apply.h"
#include "apply/apply_phase.h"
#include "checkpoint/checkpoint.h"
#include "checkpoint/rewind.h"
#include "lib/fsx.h"
#include "lib/mem.h"
#include "lib/path.h"
#include "lib/pstate.h"
#include "policy/policy.h"
#include "policy/roots.h"
#include "policy/writecheck.h"

/* The paths the turns from `from` on changed, in first-change order. */
static int
collect(struct ckpt_turn *t, size_t nt, unsigned long from,
    struct rewind_path **out, size_t *nout)
{
	struct rewind_path *p = NULL, *q;
	size_t i, j, k, n = 0;

	for (i = 0; i < nt; i++) {
		if (t[i].id < from)
			continue;
		for (j = 0; j < t[i].n; j++) {
			for (k = 0; k < n; k++)
				if (strcmp(p[k].path, t[i].e[j].path) == 0)
					break;
			if (k == n) {
				if ((q = mem_reallocarray(p, n + 1,
				    sizeof *p)) == NULL) {
					mem_free(p);
					return -1;
				}
				p = q;
				memset(&p[n], 0, sizeof *p);
				p[n].path = t[i].e[j].path;
				p[n].target = t[i].e[j].before;
				n++;
			}
			p[k].base = t[i].e[j].after;
			p[k].turn = t[i].id;
		}
	}
	*out = p;
	*nout = n;
	return 0;
}

/* Snapshots taken in threads: paths [from, to) of p. */
struct snap_chunk {
	struct ckpt	*ck;
	int		 rootfd;
	struct rewind_path	*p;
	size_t		 from, to;
	size_t		 bad;		/* the path that failed, else to */
	int		 err;
};

#define SNAP_THREADS	8

static void *
snap_run(void *arg)
{
	struct snap_chunk *s = arg;
	size_t i;

	s->bad = s->to;
	for (i = s->from; i < s->to; i++)
		if (s->p[i].why == NULL && ckpt_state(s->ck, s->rootfd,
		    s->p[i].path, 1, &s->p[i].now) < 0) {
			s->bad = i;
			s->err = errno;
			break;
		}
	return NULL;
}

/*
 * Store what is there now of every path not refused, in up to
 * SNAP_THREADS threads (each store syncs its blob: apply keeps what it
 * replaces the same way). 0, or -1 with errno and *bad the path.
 */
static int
snap_all(struct ckpt *ck, int rootfd, struct rewind_path *p, size_t n,
    size_t *bad)
{
	struct snap_chunk s[SNAP_THREADS];
	pthread_t th[SNAP_THREADS];
	int started[SNAP_THREADS];
	size_t nt = n / 16 + 1, per, i;
	int rc = 0;

	if (nt > SNAP_THREADS)
		nt = SNAP_THREADS;
	per = (n + nt - 1) / nt;
	for (i = 0; i < nt; i++) {
		s[i] = (struct snap_chunk){ ck, rootfd, p, i * per,
		    (i + 1) * per < n ? (i + 1) * per : n, 0, 0 };
		if (s[i].from > s[i].to)
			s[i].from = s[i].to;
		started[i] = i > 0 && pthread_create(&th[i], NULL, snap_run,
		    &s[i]) == 0;
	}
	for (i = 0; i < nt; i++)
		if (!started[i])
			snap_run(&s[i]);
	for (i = 0; i < nt; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		if (rc == 0 && s[i].bad < s[i].to) {
			*bad = s[i].bad;
			errno = s[i].err;
			rc = -1;
		}
	}
	return rc;
}

/* Whether p[0..n-1] restores the folder path[0..len-1] (now a link). */
static int
restores_dir(const struct rewind_path *p, size_t n, const char *path,
    size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(p[i].path) == len &&
		    memcmp(p[i].path, path, len) == 0)
			return p[i].target.kind == PSTATE_DIR;
	return 0;
}

/*
 * The write check (writecheck.h) on p[k]'s folder as it is now, opened
 * beneath the workspace without following a link: NULL yes, else why
 * not. A folder that does not exist, or is a link the rewind makes a
 * folder again, is asked on the path alone here; the engine asks again
 * on the folder it opens (apply_env.roots). Beneath any other link
 * nothing is written (r NULL: that alone is checked).
 */
static const char *
may_write(const struct roots *r, int rootfd, const char *ws,
    struct rewind_path *p, size_t n, size_t k)
{
	struct policy_verdict v;
	const char *name;
	char *abs;
	size_t ll;
	int fd, rc;

	/* never through a link: ELOOP names the folder that is one */
	fd = fsx_open_dirs(rootfd, p[k].path, FSX_DIRS_PARENT, 0, &name, NULL);
	ll = fd < 0 && name != NULL ? (size_t)(name - p[k].path) +
	    strcspn(name, "/") : 0;
	if (fd < 0 && errno == ELOOP && p[k].target.kind != PSTATE_ABSENT &&
	    !restores_dir(p, n, p[k].path, ll))
		return "a folder above it is a symlink now (nothing is "
		    "written through one)";
	if (r == NULL) {
		fsx_close(fd);
		return NULL;
	}
	if ((abs = path_join(ws, p[k].path)) == NULL) {
		fsx_close(fd);
		return "cannot be checked against the policy";
	}
	if (fd < 0) {
		v.why = POLICY_DENIED;
		rc = roots_deny(r, abs, &v.d);
	} else {
		rc = policy_may_write(r, abs, fd, name, &v);
		close(fd);
	}
	mem_free(abs);
	return rc == 0 ? NULL : policy_reason(&v);
}

/* Whether the blob p's target needs is in the store (a regular file). */
static int
have_blob(struct ckpt *ck, struct rewind_path *p)
{
	struct stat st;

	if (p->target.kind != PSTATE_FILE && p->target.kind != PSTATE_LINK)
		return 1;
	hash_hex(p->target.sha, p->hex);
	return fstatat(ckpt_blobs(ck), p->hex, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode);
}

/*
 * Check each path against the policy and what is there now, snapshot
 * what is there (so the rewind can be rewound). Returns the number of
 * conflicts; -1 (rw->err, rw->errpath) on an error.
 */
static int
check_paths(struct ckpt *ck, int rootfd, const char *ws, struct rewind_path *p,
    size_t n, int force, const struct roots *r, struct rewind *rw)
{
	size_t i, bad = 0;
	int conflicts = 0;

	for (i = 0; i < n; i++)
		p[i].why = may_write(r, rootfd, ws, p, n, i);
	if (snap_all(ck, rootfd, p, n, &bad) < 0) {
		rw->err = errno;
		rw->errpath = p[bad].path;
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (p[i].why != NULL)
			continue;
		if (pstate_same(&p[i].now, &p[i].target))
			p[i].skip = 1;
		else if (!have_blob(ck, &p[i]))
			p[i].why = "its snapshot is missing from the store's "
			    "blobs (no copy of that version is left)";
		else if (pstate_special(&p[i].now)) {
			p[i].why = "a directory or special file now";
			p[i].conflict = 1;
			conflicts++;
		} else if (!pstate_same(&p[i].now, &p[i].base)) {
			if (force)
				p[i].base = p[i].now;
			else {
				p[i].why = "changed since";
				p[i].conflict = 1;
				conflicts++;
			}
		}
	}
	return conflicts;
}

struct swept {
	struct ckpt	*ck;
	int		 dirfd;
};

/* A swap name the sweep left: gone when the store holds what it holds. */
static void
left_swap(const char *name, void *arg)
{
	struct swept *w = arg;

	if (ckpt_holds(w->ck, w->dirfd, name) == 1)
		(void)unlinkat(w->dirfd, name, 0);
}

/*
 * Remove the temp names a killed rewind (or apply) left next to the
 * paths (apply_run sweeps the folders it writes in, but leaves a swap
 * name, which may hold a version saved meanwhile): a swap name goes when
 * what it holds is a blob of the store, as what a rewind moved aside is
 * (its turn's before).
 */
static void
sweep_left(struct ckpt *ck, int rootfd, const struct rewind_path *p,
    size_t n)
{
	struct swept w = { ck, -1 };
	struct stat st;
	dev_t dev = 0;
	ino_t ino = 0;
	const char *name;
	size_t i;
	int fd;

	for (i = 0; i < n; i++) {
		if (p[i].why != NULL || (fd = fsx_open_parent(rootfd,
		    p[i].path, 0, &name)) < 0)
			continue;
		if (fstat(fd, &st) == 0 && (st.st_dev != dev ||
		    st.st_ino != ino)) {
			dev = st.st_dev;
			ino = st.st_ino;
			w.dirfd = fd;
			(void)fsx_sweep(fd, left_swap, &w);
		}
		close(fd);
	}
}

/*
 * Items for apply_run, in an order that works for trees: removals of
 * files and links (deepest first), of directories (deepest first), new
 * directories (parents first, owner rwx so files can go in), files and
 * links, then directory modes (deepest first). A path may own two items
 * (a directory that was a file): the second has an absent base, so it
 * is refused if the first did not go. owner[k] is the path of item k.
 */
enum { RW_DEL, RW_RMDIR, RW_MKDIR, RW_FILES, RW_MODE, RW_NPHASE };

struct rewind_item {
	struct apply_item it;
	size_t		 owner;
	int		 phase;
};

static int
cmp_item(const void *a, const void *b)
{
	const struct rewind_item *x = a, *y = b;
	int c;

	if (x->phase != y->phase)
		return x->phase - y->phase;
	/* files and links: a directory's together, for parallel runs */
	if (x->phase == RW_DEL || x->phase == RW_FILES)
		return apply_cmp_by_dir(&x->it, &y->it);
	c = strcmp(x->it.path, y->it.path);
	/* parents first when making, deepest first otherwise */
	return x->phase == RW_MKDIR || x->phase == RW_FILES ? c : -c;
}

static struct rewind_item *
rw_push(struct rewind_item *v, size_t *n, size_t owner, int phase,
    enum apply_kind kind, const struct rewind_path *p,
    const struct pstate *base, unsigned int mode)
{
	struct rewind_item *q = &v[(*n)++];

	memset(q, 0, sizeof *q);
	q->owner = owner;
	q->phase = phase;
	q->it.path = p->path;
	q->it.kind = kind;
	q->it.src = p->hex;
	/* a blob is put in place only when it still holds what was stored */
	if (kind == APPLY_FILE || kind == APPLY_SYMLINK)
		q->it.want = p->target.sha;
	q->it.mode = mode;
	q->it.base.ps = *base;
	return q;
}

static struct rewind_item *
items_for(struct ckpt *ck, struct rewind_path *p, size_t n, size_t *ni)
{
	static const struct pstate absent = { PSTATE_ABSENT, 0, { 0 } };
	struct pstate made = { PSTATE_DIR, 0, { 0 } };
	const struct pstate *b;
	struct rewind_item *v;
	size_t i, k;
	unsigned int m;

	*ni = 0;
	/* at most three a path: delete, mkdir, chmod */
	if ((v = mem_calloc(n ? n : 1, 3 * sizeof *v)) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		if (p[i].skip || p[i].why != NULL)
			continue;
		hash_hex(p[i].target.sha, p[i].hex);
		b = &p[i].base;
		if ((b->kind == PSTATE_FILE || b->kind == PSTATE_LINK) &&
		    (p[i].target.kind == PSTATE_ABSENT ||
		    p[i].target.kind == PSTATE_DIR)) {
			rw_push(v, ni, i, RW_DEL, APPLY_DELETE, &p[i], b, 0);
			b = &absent;
		} else if (b->kind == PSTATE_DIR &&
		    p[i].target.kind != PSTATE_DIR) {
			rw_push(v, ni, i, RW_RMDIR, APPLY_RMDIR, &p[i], b, 0);
			b = &absent;
		}
		m = p[i].target.mode;
		switch (p[i].target.kind) {
		case PSTATE_FILE:
		case PSTATE_LINK:
			rw_push(v, ni, i, RW_FILES, p[i].target.kind ==
			    PSTATE_FILE ? APPLY_FILE : APPLY_SYMLINK, &p[i], b,
			    m);
			break;
		case PSTATE_DIR:
			if (b->kind != PSTATE_DIR) {
				rw_push(v, ni, i, RW_MKDIR, APPLY_MKDIR, &p[i],
				    b, m | 0700);
				made.mode = m | 0700;
				if (made.mode != m)
					rw_push(v, ni, i, RW_MODE, APPLY_CHMOD,
					    &p[i], &made, m);
			} else if (b->mode != m)
				rw_push(v, ni, i, RW_MODE, APPLY_CHMOD, &p[i],
				    b, m);
			break;
		default:
			break;
		}
	}
	qsort(v, *ni, sizeof *v, cmp_item);
	for (k = 0; k < *ni; k++)
		v[k].it.srcdir = ckpt_blobs(ck);
	return v;
}

/*
 * The rewind's own turn, recorded open before anything is touched: for
 * each path it will change, before = what is there now (stored by
 * check_paths), after = the state it restores. ix[k] is the path of
 * entry k. An empty turn (nothing to change) is not recorded.
 */
static int
begin(struct ckpt *ck, struct rewind_path *p, size_t n, const char *label,
    struct ckpt_turn *t, size_t **ix)
{
	size_t i;

	*ix = NULL;
	if (ckpt_turn_end(ck) < 0 || ckpt_for_write(ck, t) < 0)
		return -1;
	if ((*ix = mem_calloc(n ? n : 1, sizeof **ix)) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		if (p[i].skip || p[i].why != NULL)
			continue;
		(*ix)[t->n] = i;
		if (ckpt_add(t, p[i].path, &p[i].now, &p[i].target) < 0)
			return -1;
	}
	if (t->n == 0)
		return 0;
	mem_free(t->label);
	if ((t->label = mem_strdup(label)) == NULL)
		return -1;
	t->open = 1;
	return ckpt_save(ck, t);
}

/*
 * Settle the open turn t once its items ran (p[ix[k]] is entry k's
 * path), by how each went: restored (how 1), its after state stays;
 * refused (2: apply refuses before it touches anything), the entry goes;
 * partly done or an OS error (any other with bit 2), it gets what is
 * there now (a special file: its before, so that its blob stays named);
 * not tried (0: a conflict or a refusal when finishing a turn cut
 * short), the entry goes when the path holds its before state, else
 * keeps the state it set out to restore, so that a later rewind sees
 * whatever is there now as changed since. An entry whose after state is
 * its before goes. The turn is recorded settled, or removed when nothing
 * is left; *id its id or 0.
 */
static int
settle(struct ckpt *ck, int rootfd, struct rewind_path *p,
    struct ckpt_turn *t, const size_t *ix, unsigned long *id)
{
	struct pstate now;
	struct ckpt_entry *e;
	size_t k, m = 0;
	unsigned char how;
	int keep, odd;

	*id = 0;
	for (k = 0; k < t->n; k++) {
		e = &t->e[k];
		how = p[ix[k]].how;
		keep = how != 2;
		if (how != 1 && how != 2) {
			/* odd: changing now (EAGAIN) or a special file */
			if ((odd = ckpt_state(ck, rootfd, e->path, 0,
			    &now) < 0) && errno != EAGAIN)
				return -1;
			odd = odd || pstate_special(&now);
			if (how == 0)
				keep = odd || !pstate_same(&now, &e->before);
			else if (odd) {
				e->after = e->before;
				t->e[m++] = *e;
				continue;
			} else
				e->after = now;
		}
		if (keep && !pstate_same(&e->after, &e->before))
			t->e[m++] = *e;
		else
			mem_free(e->path);
	}
	t->n = m;
	t->open = 0;
	if (t->n == 0)
		return ckpt_drop(ck, t->id) < 0 && errno != ENOENT ? -1 : 0;
	if (ckpt_save(ck, t) < 0)
		return -1;
	*id = t->id;
	return 0;
}

/*
 * An open turn that later turns followed (a write after a rewind was
 * cut short): a path a later turn changed gets as its after state what
 * that turn found there; the others are settled as not tried (settle).
 */
static int
settle_stale(struct ckpt *ck, int rootfd, struct ckpt_turn *t, size_t nt,
    size_t o)
{
	struct ckpt_entry *e, *later;
	struct rewind_path *p;
	unsigned long id;
	size_t k, j, *ix;
	int rc = -1;

	p = mem_calloc(t[o].n ? t[o].n : 1, sizeof *p);
	ix = mem_calloc(t[o].n ? t[o].n : 1, sizeof *ix);
	if (p == NULL || ix == NULL)
		goto out;
	for (k = 0; k < t[o].n; k++) {
		e = &t[o].e[k];
		ix[k] = k;
		for (j = o + 1, later = NULL; j < nt && later == NULL; j++)
			later = ckpt_find(&t[j], e->path);
		if (later != NULL) {
			e->after = later->before;
			p[k].how = 1;	/* settled: keep that after state */
		}
	}
	rc = settle(ck, rootfd, p, &t[o], ix, &id);
out:
	mem_free(p);
	mem_free(ix);
	return rc;
}

/* apply_run's array of the items in v. */
static struct apply_item *
flat(struct rewind_item *v, size_t ni)
{
	struct apply_item *it;
	size_t k;

	if ((it = mem_calloc(ni ? ni : 1, sizeof *it)) == NULL)
		return NULL;
	for (k = 0; k < ni; k++)
		it[k] = v[k].it;
	return it;
}

/* {path, what}: into arr; NULL when out of memory. */

/*
 * Run the items of the paths p (check_paths done) under the open turn
 * rec (ix: the path of each entry), then settle it. How each path went
 * is in p[].how; rw gets the items, the counts and the turn's id.
 */
static enum rewind_end
act(struct ckpt *ck, int rootfd, const struct apply_env *env,
    struct rewind *rw, struct ckpt_turn *rec, const size_t *ix)
{
	size_t i, k, end;

	if ((rw->v = items_for(ck, rw->p, rw->n, &rw->ni)) == NULL ||
	    (rw->it = flat(rw->v, rw->ni)) == NULL) {
		rw->err = errno;
		return REWIND_ERROR;
	}
	/* phase by phase; files and links in parallel, as apply does */
	for (k = 0; k < rw->ni; k = end) {
		for (end = k + 1; end < rw->ni &&
		    rw->v[end].phase == rw->v[k].phase; end++)
			;
		apply_skip_failed(rw->it, k, end);
		apply_run_phase(rootfd, rw->it + k, end - k,
		    rw->v[k].phase == RW_DEL || rw->v[k].phase == RW_FILES,
		    env);
	}
	for (k = 0; k < rw->ni; k++) {
		rw->failed += rw->it[k].failed != 0;
		/* a refusal (err 0) changed nothing; an OS error may have */
		rw->p[rw->v[k].owner].how |= !rw->it[k].failed ? 1 :
		    rw->it[k].err == 0 ? 2 : 2 | 4;
	}
	sweep_left(ck, rootfd, rw->p, rw->n);
	for (i = 0; i < rw->n; i++)
		rw->restored += rw->p[i].how == 1;
	if (rec->n > 0 && settle(ck, rootfd, rw->p, rec, ix, &rw->id) < 0) {
		rw->unsettled = rec->id;
		rw->rec_err = errno;
	}
	return REWIND_DONE;
}

/*
 * Finish the open turn o, the newest one (a rewind cut short): restore
 * each of its paths that still holds its before state to its after
 * state, as a rewind with the before states as its bases; what holds
 * neither is a conflict and left as it is. Then settle it.
 */
static enum rewind_end
finish(struct ckpt *ck, int rootfd, const struct apply_env *env,
    const struct roots *rp, const char *ws, struct rewind *rw,
    struct ckpt_turn *o)
{
	struct ckpt_turn rec;
	enum rewind_end rc;
	size_t k, *ix;

	rw->finished = o->id;
	if ((rw->p = mem_calloc(o->n ? o->n : 1, sizeof *rw->p)) == NULL ||
	    (ix = mem_calloc(o->n ? o->n : 1, sizeof *ix)) == NULL) {
		rw->err = errno;
		return REWIND_ERROR;
	}
	for (k = 0; k < o->n; k++) {
		rw->p[k].path = o->e[k].path;
		rw->p[k].target = o->e[k].after;
		rw->p[k].base = o->e[k].before;
		rw->p[k].turn = o->id;
		ix[k] = k;
	}
	rw->n = o->n;
	if ((rw->conflicts = check_paths(ck, rootfd, ws, rw->p, rw->n, 0, rp,
	    rw)) < 0) {
		mem_free(ix);
		return REWIND_ERROR;
	}
	for (k = 0; k < rw->n; k++) {
		rw->refused += rw->p[k].why != NULL;
		if (rw->p[k].skip)
			rw->p[k].how = 1;	/* restored before the kill */
	}
	/* settled as a copy: rw->p borrows its paths from o */
	memset(&rec, 0, sizeof rec);
	rec.id = o->id;
	rec.time = o->time;
	rec.open = 1;
	rc = REWIND_ERROR;
	if ((rec.label = mem_strdup(o->label)) == NULL)
		rw->err = errno;
	for (k = 0; rec.label != NULL && k < o->n; k++)
		if (ckpt_add(&rec, o->e[k].path, &o->e[k].before,
		    &o->e[k].after) < 0) {
			rw->err = errno;
			break;
		}
	if (rec.label != NULL && k == o->n)
		rc = act(ck, rootfd, env, rw, &rec, ix);
	ckpt_turn_clear(&rec);
	mem_free(ix);
	return rc;
}

enum rewind_end
rewind_run(struct ckpt *ck, int rootfd, const struct policy *pol,
    struct rewind *rw)
{
	struct apply_env env;
	struct ckpt_turn rec;
	struct roots r, *rp = NULL;
	const char *ws = pol != NULL ? pol->workspace : "";
	char label[128];
	size_t i, *ix = NULL;
	enum rewind_end rc = REWIND_ERROR;
	int conflicts;

	memset(&env, 0, sizeof env);
	memset(&rec, 0, sizeof rec);
	rw->errpath = "";
	if (ckpt_list(ck, &rw->t, &rw->nt) < 0) {
		if (errno == ENOENT)
			return REWIND_NO_STORE;
		rw->err = errno;
		rw->errpath = "checkpoints";
		return REWIND_ERROR;
	}
	/* the write check's roots: the engine asks them again (env) */
	if (pol != NULL && pol->mode != MODE_OFF) {
		if (roots_build(pol, ROOTS_PROTECT | ROOTS_MISSING |
		    ROOTS_DEVICES | ROOTS_GIT, NULL, &r) < 0) {
			snprintf(rw->why, sizeof rw->why, "%s", r.why);
			return REWIND_ERROR;
		}
		rp = &r;
		env.roots = rp;
		env.ws = ws;
	}
	/*
	 * a rewind cut short: finish it (the newest), or settle it; an
	 * apply cut short: settle it, and what landed is a turn to undo
	 */
	for (i = 0; i < rw->nt; i++) {
		if (!rw->t[i].open)
			continue;
		if (rw->t[i].open == CKPT_OPEN_LAND) {
			if (ckpt_settle_landed(ck, rootfd, rw->t, rw->nt,
			    i, 0) < 0) {
				rw->err = errno;
				rw->errpath = "checkpoints";
				goto out;
			}
			continue;
		}
		if (i == rw->nt - 1) {
			rc = finish(ck, rootfd, &env, rp, ws, rw, &rw->t[i]);
			goto out;
		}
		if (settle_stale(ck, rootfd, rw->t, rw->nt, i) < 0) {
			rw->err = errno;
			rw->errpath = "checkpoints";
			goto out;
		}
	}
	for (i = rw->nt; rw->from == 0 && i > 0; i--)
		if (rw->t[i - 1].n > 0)
			rw->from = rw->t[i - 1].id;
	for (i = 0; i < rw->nt && rw->t[i].id != rw->from; i++)
		;
	if (rw->from == 0 || i == rw->nt) {
		rc = rw->from == 0 ? REWIND_NO_TURN : REWIND_NO_SUCH;
		goto out;
	}
	if (collect(rw->t, rw->nt, rw->from, &rw->p, &rw->n) < 0) {
		rw->err = errno;
		goto out;
	}
	if ((conflicts = check_paths(ck, rootfd, ws, rw->p, rw->n, rw->force,
	    rp, rw)) < 0)
		goto out;
	for (i = 0; i < rw->n; i++)
		rw->refused += rw->p[i].why != NULL;
	if ((rw->conflicts = conflicts) > 0) {
		rc = REWIND_CONFLICT;
		goto out;
	}
	/* recorded before anything is touched: a record or nothing */
	snprintf(label, sizeof label, "%s %lu", rw->label, rw->from);
	if (begin(ck, rw->p, rw->n, label, &rec, &ix) < 0) {
		rw->err = errno;
		rw->errpath = "checkpoints";
		rw->unrecorded = 1;
		goto out;
	}
	rc = act(ck, rootfd, &env, rw, &rec, ix);
out:
	mem_free(ix);
	ckpt_turn_clear(&rec);
	if (rp != NULL)
		roots_free(rp);
	return rc;
}

void
rewind_free(struct rewind *rw)
{
	mem_free(rw->it);
	mem_free(rw->v);
	mem_free(rw->p);
	ckpt_turns_free(rw->t, rw->nt);
	rw->it = NULL;
	rw->v = NULL;
	rw->p = NULL;
	rw->t = NULL;
	rw->n = rw->ni = rw->nt = 0;
}
