/*
 * plan: the apply plan of a dry-run session and its run (plan.h).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply/apply_phase.h"
#include "lib/fsx.h"
#include "lib/mem.h"
#include "lib/path.h"
#include "session/changes_base.h"
#include "session/plan.h"
#include "session/session_base.h"
#include "session/shadow.h"

#define DFLAGS		(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* Select what must land before change i can: new dirs above it. */
static void
select_parents(struct changes *c, size_t i, int *sel)
{
	char *pre = c->v[i].path, *slash;
	size_t k, m;

	for (slash = strchr(pre, '/'); slash != NULL;
	    slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		k = changes_find(c, pre);
		for (m = k; m < c->n && strcmp(c->v[m].path, pre) == 0; m++)
			if (c->v[m].status == CHANGE_MKDIR)
				break;
		/* A new dir, and whatever stood in its way, come along. */
		if (m < c->n && strcmp(c->v[m].path, pre) == 0)
			for (m = k; m < c->n && strcmp(c->v[m].path, pre) == 0;
			    m++)
				sel[m] = 1;
		*slash = '/';
	}
}

/* A hard link needs the file it links to (and what that one needs). */
static void
select_link(struct changes *c, size_t i, int *sel)
{
	size_t k;

	for (k = changes_find(c, c->v[i].link_to);
	    k < c->n && strcmp(c->v[k].path, c->v[i].link_to) == 0; k++)
		if (c->v[k].status != CHANGE_DELETED &&
		    c->v[k].status != CHANGE_RMDIR && !sel[k]) {
			sel[k] = 1;
			select_parents(c, k, sel);
		}
}

int
plan_select(struct changes *c, char *const *paths, size_t np,
    int *sel, long *unmatched)
{
	struct change *ch;
	size_t i, j;
	int any;

	*unmatched = -1;
	for (i = 0; i < c->n; i++)
		sel[i] = np == 0;
	for (j = 0; j < np; j++) {
		any = 0;
		for (i = 0; i < c->n; i++) {
			ch = &c->v[i];
			if (path_under(ch->path, paths[j])) {
				sel[i] = 1;
				any = 1;
			}
		}
		if (!any && *unmatched < 0)
			*unmatched = (long)j;
	}
	for (i = 0; np > 0 && i < c->n; i++) {
		if (sel[i] && c->v[i].link_to != NULL)
			select_link(c, i, sel);
		if (sel[i] && c->v[i].status != CHANGE_DELETED &&
		    c->v[i].status != CHANGE_RMDIR)
			select_parents(c, i, sel);
	}
	return 0;
}

static int
push_item(struct plan *p, int phase, size_t *caps, size_t owner,
    struct apply_item **out)
{
	struct apply_item *ni;
	size_t *no;

	if (p->n[phase] == caps[phase]) {
		caps[phase] = caps[phase] ? caps[phase] * 2 : 16;
		ni = mem_reallocarray(p->items[phase], caps[phase], sizeof *ni);
		if (ni == NULL)
			return -1;
		p->items[phase] = ni;
		no = mem_reallocarray(p->owner[phase], caps[phase], sizeof *no);
		if (no == NULL)
			return -1;
		p->owner[phase] = no;
	}
	*out = &p->items[phase][p->n[phase]];
	memset(*out, 0, sizeof **out);
	p->owner[phase][p->n[phase]] = owner;
	p->n[phase]++;
	return 0;
}

static void
reverse(struct apply_item *it, size_t *ow, size_t n)
{
	struct apply_item t;
	size_t i, o;

	for (i = 0; i < n / 2; i++) {
		t = it[i];
		it[i] = it[n - 1 - i];
		it[n - 1 - i] = t;
		o = ow[i];
		ow[i] = ow[n - 1 - i];
		ow[n - 1 - i] = o;
	}
}

/*
 * Whether the change list removes the directory at c->v[i]'s path in an
 * earlier phase (a directory replaced by a file: RMDIR, then the file,
 * listed in a row under one path).
 */
static int
rmdir_before(const struct changes *c, size_t i)
{
	size_t j;

	for (j = i; j-- > 0 && strcmp(c->v[j].path, c->v[i].path) == 0;)
		if (c->v[j].status == CHANGE_RMDIR)
			return 1;
	return 0;
}

/* Group a phase's items by directory, keeping owners in step. */
static int
group_by_dir(struct plan *p, int ph)
{
	struct apply_item *it = p->items[ph], *ni;
	size_t *ow = p->owner[ph], *no, n = p->n[ph], i, j, *perm;

	if (n < 2)
		return 0;
	if ((perm = mem_calloc(n, sizeof *perm)) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		perm[i] = i;
	/* Insertion sort on the (mostly ordered) permutation. */
	for (i = 1; i < n; i++) {
		size_t v = perm[i];

		for (j = i; j > 0 && apply_cmp_by_dir(&it[perm[j - 1]], &it[v]) > 0;
		    j--)
			perm[j] = perm[j - 1];
		perm[j] = v;
	}
	ni = mem_calloc(n, sizeof *ni);
	no = mem_calloc(n, sizeof *no);
	if (ni == NULL || no == NULL) {
		mem_free(ni);
		mem_free(no);
		mem_free(perm);
		return -1;
	}
	for (i = 0; i < n; i++) {
		ni[i] = it[perm[i]];
		no[i] = ow[perm[i]];
	}
	mem_free(it);
	mem_free(ow);
	mem_free(perm);
	p->items[ph] = ni;
	p->owner[ph] = no;
	return 0;
}

int
plan_build(struct session *s, int rootfd, struct changes *c,
    const int *sel, struct plan *p)
{
	struct change *ch;
	struct apply_item *it, *fix;
	size_t caps[PLAN_NPHASE], i;
	int phase;

	memset(p, 0, sizeof *p);
	memset(caps, 0, sizeof caps);
	p->c = c;
	if ((p->refused = mem_calloc(c->n + 1, sizeof *p->refused)) == NULL)
		return -1;
	for (i = 0; i < c->n; i++) {
		ch = &c->v[i];
		if (!sel[i])
			continue;
		if (ch->refuse != NULL) {
			p->refused[p->nrefused++] = i;
			continue;
		}
		switch (ch->status) {
		case CHANGE_DELETED:
			phase = PLAN_DELETE;
			break;
		case CHANGE_RMDIR:
			phase = PLAN_RMDIR;
			break;
		case CHANGE_MKDIR:
			phase = PLAN_MKDIR;
			break;
		case CHANGE_DIRMODE:
			phase = PLAN_DIRMODE;
			break;
		default:
			phase = ch->link_to != NULL &&
			    ch->status != CHANGE_MODE ? PLAN_LINKS : PLAN_FILES;
			break;
		}
		if (push_item(p, phase, caps, i, &it) < 0)
			goto fail;
		it->path = ch->path;
		it->srcdir = s->upperfd;
		it->mode = ch->new_mode;
		switch (ch->status) {
		case CHANGE_DELETED:
			it->kind = APPLY_DELETE;
			break;
		case CHANGE_RMDIR:
			it->kind = APPLY_RMDIR;
			break;
		case CHANGE_MKDIR:
			it->kind = APPLY_MKDIR;
			break;
		case CHANGE_MODE:
		case CHANGE_DIRMODE:
			it->kind = APPLY_CHMOD;
			break;
		default:
			it->kind = ch->new_kind == SHADOW_SYMLINK ?
			    APPLY_SYMLINK : ch->new_kind == SHADOW_FIFO ?
			    APPLY_FIFO : phase == PLAN_LINKS ? APPLY_LINK :
			    APPLY_FILE;
			it->src = ch->path;
			it->link = ch->link_to;
			break;
		}
		/* What the earlier phases removed is absent by then. */
		if (ch->status == CHANGE_MKDIR || ((phase == PLAN_FILES ||
		    phase == PLAN_LINKS) && (ch->old_kind == SHADOW_DIR ||
		    rmdir_before(c, i))))
			it->base.ps.kind = PSTATE_ABSENT;
		else if (changes_base(s, c, i, &it->base) < 0)
			goto fail;
		if (ch->status == CHANGE_MKDIR && (it->mode & 0700) != 0700) {
			it->mode |= 0700;
			if (push_item(p, PLAN_DIRMODE, caps, i, &fix) < 0)
				goto fail;
			fix->path = ch->path;
			fix->srcdir = s->upperfd;
			fix->kind = APPLY_CHMOD;
			fix->mode = ch->new_mode;
			fix->base.ps.kind = PSTATE_DIR;
			fix->base.ps.mode = ch->new_mode | 0700;
		}
	}
	reverse(p->items[PLAN_DELETE], p->owner[PLAN_DELETE],
	    p->n[PLAN_DELETE]);
	reverse(p->items[PLAN_RMDIR], p->owner[PLAN_RMDIR],
	    p->n[PLAN_RMDIR]);
	reverse(p->items[PLAN_DIRMODE], p->owner[PLAN_DIRMODE],
	    p->n[PLAN_DIRMODE]);
	if (group_by_dir(p, PLAN_DELETE) < 0 ||
	    group_by_dir(p, PLAN_FILES) < 0 || group_by_dir(p, PLAN_LINKS) < 0)
		goto fail;
	return 0;
fail:
	plan_free(p);
	return -1;
}

void
plan_free(struct plan *p)
{
	int i;

	for (i = 0; i < PLAN_NPHASE; i++) {
		mem_free(p->items[i]);
		mem_free(p->owner[i]);
	}
	mem_free(p->refused);
	memset(p, 0, sizeof *p);
}

size_t
plan_items(const struct plan *p)
{
	size_t n = 0;
	int i;

	for (i = 0; i < PLAN_NPHASE; i++)
		n += p->n[i];
	return n;
}
/* Whether path lies strictly beneath dir. */
static int
beneath(const char *path, const char *dir)
{
	const char *t = path_tail(path, dir);

	return t != NULL && *t != '\0';
}

/* Fail it without trying: what it needs did not happen. */
static void
skip(struct apply_item *it, const char *why)
{
	it->failed = 1;
	it->err = 0;
	snprintf(it->reason, sizeof it->reason, "%s", why);
}

/* Whether path is, or lies beneath, the path of a failed item of ph. */
static int
failed_at(const struct plan *p, int ph, const char *path, int below)
{
	const struct apply_item *it;
	size_t i;

	for (i = 0; i < p->n[ph]; i++) {
		it = &p->items[ph][i];
		if (it->failed && (below ? beneath(path, it->path) :
		    strcmp(path, it->path) == 0))
			return 1;
	}
	return 0;
}

/* Whether a refused change lies beneath dir. */
static int
refused_beneath(const struct plan *p, const char *dir)
{
	size_t i;

	for (i = 0; i < p->nrefused; i++)
		if (beneath(p->c->v[p->refused[i]].path, dir))
			return 1;
	return 0;
}

/* Skip the items of phase ph that stand where an earlier removal failed. */
static void
skip_blocked(struct plan *p, int ph)
{
	struct apply_item *it;
	size_t k;

	for (k = 0; k < p->n[ph]; k++) {
		it = &p->items[ph][k];
		if (failed_at(p, PLAN_DELETE, it->path, 0) ||
		    failed_at(p, PLAN_RMDIR, it->path, 0))
			skip(it, "what stands there was not removed; kept");
		else if (ph != PLAN_MKDIR &&
		    failed_at(p, PLAN_MKDIR, it->path, 1))
			skip(it, "its directory was not created; kept");
	}
}

/* Run the items of ph not skipped already. */
static void
run_rest(int rootfd, struct plan *p, int ph, int parallel,
    const struct apply_env *env)
{
	struct apply_item *it = p->items[ph];
	size_t k, start, n = p->n[ph];

	for (k = 0; k < n; k = start) {
		while (k < n && it[k].failed)
			k++;
		for (start = k; start < n && !it[start].failed; start++)
			;
		if (start > k)
			apply_run_phase(rootfd, it + k, start - k, parallel, env);
	}
}

void
plan_run(int rootfd, struct plan *p, const struct apply_env *env)
{
	struct apply_item *rm, *del = p->items[PLAN_DELETE];
	size_t i, k, ndel = p->n[PLAN_DELETE];
	int ph;

	for (ph = 0; ph < PLAN_NPHASE; ph++)
		for (k = 0; k < p->n[ph]; k++)
			p->items[ph][k].failed = 0;
	apply_run_phase(rootfd, del, ndel, 1, env);
	for (k = 0; k < p->n[PLAN_RMDIR]; k++) {
		rm = &p->items[PLAN_RMDIR][k];
		for (i = 0; i < ndel; i++)
			if (del[i].failed && beneath(del[i].path, rm->path))
				break;
		if (i < ndel || failed_at(p, PLAN_RMDIR, rm->path, 1) ||
		    refused_beneath(p, rm->path))
			skip(rm, "a file beneath it was not applied; kept");
		else
			apply_run_phase(rootfd, rm, 1, 0, env);
	}
	skip_blocked(p, PLAN_MKDIR);
	run_rest(rootfd, p, PLAN_MKDIR, 0, env);
	skip_blocked(p, PLAN_FILES);
	run_rest(rootfd, p, PLAN_FILES, 1, env);
	skip_blocked(p, PLAN_LINKS);
	run_rest(rootfd, p, PLAN_LINKS, 1, env);
	apply_run_phase(rootfd, p->items[PLAN_DIRMODE], p->n[PLAN_DIRMODE], 0,
	    env);
}

/* How many counted (not implied) selected changes are in a state. */
static size_t
count_where(const struct changes *c, const int *sel, int applied)
{
	size_t i, n = 0;

	for (i = 0; i < c->n; i++)
		if (sel[i] && !c->v[i].implied &&
		    (applied < 0 || c->v[i].applied == applied))
			n++;
	return n;
}

size_t
plan_count(const struct changes *c, const int *sel)
{
	size_t i, n = count_where(c, sel, -1);

	for (i = 0; n == 0 && i < c->n; i++)
		n += sel[i] != 0;
	return n;
}

/*
 * plan_apply's progress: the caller's env->progress once for each file
 * plan_count counts, when the last of its items is done (or, for one
 * whose items were never tried, once the run is over).
 */
struct tally {
	const struct plan	*p;
	size_t			*left;	/* per change: items not done */
	const int		*counted;	/* per change */
	const struct apply_env	*env;		/* the caller's */
};

static void
tally_step(void *arg, const struct apply_item *it)
{
	struct tally *t = arg;
	uintptr_t at = (uintptr_t)it, b;
	size_t o;
	int ph;

	for (ph = 0; ph < PLAN_NPHASE; ph++) {
		b = (uintptr_t)t->p->items[ph];
		if (at < b || at >= b + t->p->n[ph] * sizeof *it)
			continue;
		o = t->p->owner[ph][(at - b) / sizeof *it];
		if (__atomic_sub_fetch(&t->left[o], 1, __ATOMIC_ACQ_REL) == 0 &&
		    t->counted[o])
			t->env->progress(t->env->parg, NULL);
		return;
	}
}

/*
 * plan_run, with the caller's progress called per file, as plan_count
 * counts them (out of memory for the tally: per item, as apply_run calls
 * it).
 */
static void
run_counted(int rootfd, struct plan *p, const struct changes *c,
    const int *sel, const struct apply_env *env)
{
	struct apply_env tenv;
	struct tally t;
	size_t i, k, *left;
	int *counted, ph;

	left = env != NULL && env->progress != NULL && c->n > 0 ?
	    mem_calloc(c->n, sizeof *left) : NULL;
	counted = left != NULL ? mem_calloc(c->n, sizeof *counted) : NULL;
	if (counted == NULL) {
		mem_free(left);
		plan_run(rootfd, p, env);
		return;
	}
	for (ph = 0; ph < PLAN_NPHASE; ph++)
		for (k = 0; k < p->n[ph]; k++)
			left[p->owner[ph][k]]++;
	k = count_where(c, sel, -1);
	for (i = 0; i < c->n; i++) {
		counted[i] = sel[i] && (!c->v[i].implied || k == 0);
		/* no item (refused): done before anything is tried */
		if (counted[i] && left[i] == 0)
			env->progress(env->parg, NULL);
	}
	t = (struct tally){ p, left, counted, env };
	tenv = *env;
	tenv.progress = tally_step;
	tenv.parg = &t;
	plan_run(rootfd, p, &tenv);
	/* items skipped or never tried: those files are done too */
	for (i = 0; i < c->n; i++)
		if (counted[i] && left[i] > 0)
			env->progress(env->parg, NULL);
	mem_free(left);
	mem_free(counted);
}

int
plan_apply(struct session *s, int rootfd, struct changes *c,
    const int *sel, const struct apply_env *env, plan_fail_fn *failfn,
    void *arg, struct plan_result *r)
{
	struct apply_item *it;
	struct plan p;
	size_t i, k;
	int ph;

	memset(r, 0, sizeof *r);
	if (plan_build(s, rootfd, c, sel, &p) < 0)
		return -1;
	run_counted(rootfd, &p, c, sel, env);
	for (i = 0; i < c->n; i++)
		c->v[i].applied = sel[i] != 0;
	for (k = 0; k < p.nrefused; k++)
		c->v[p.refused[k]].applied = 0;
	for (ph = 0; ph < PLAN_NPHASE; ph++)
		for (k = 0; k < p.n[ph]; k++)
			if (p.items[ph][k].failed)
				c->v[p.owner[ph][k]].applied = 0;
	for (k = 0; failfn != NULL && k < p.nrefused; k++)
		failfn(c->v[p.refused[k]].path, 0, c->v[p.refused[k]].refuse,
		    arg);
	for (ph = 0; failfn != NULL && ph < PLAN_NPHASE; ph++)
		for (k = 0; k < p.n[ph]; k++) {
			it = &p.items[ph][k];
			if (it->failed)
				failfn(it->path, it->err, it->reason, arg);
		}
	plan_free(&p);
	r->applied = count_where(c, sel, 1);
	r->failed = count_where(c, sel, 0);
	for (i = 0; r->failed == 0 && i < c->n; i++)
		r->failed += sel[i] && !c->v[i].applied;
	r->all = 1;
	for (i = 0; i < c->n; i++)
		if (!c->v[i].applied)
			r->all = 0;
	/* nothing pending: the session goes whole (the caller's to do) */
	if (!r->all && (r->left = plan_settle(s, c)) < 0)
		r->settle_err = errno;
	return 0;
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct keys {
	char	**v;
	size_t	  n;
};

static int
keys_has(const struct keys *k, const char *key)
{
	return k->n > 0 && bsearch(&key, k->v, k->n, sizeof *k->v,
	    cmp_name) != NULL;
}

/* Drop empty dirs beneath ufd that no pending change needs. */
static int
prune_dirs(int ufd, char *path, size_t plen, const struct keys *pending,
    int depth, int *left)
{
	char **names = NULL;
	size_t n = 0, i, nl;
	struct stat st;
	int sub, rc = 0;

	if (depth > SHADOW_DEPTH_MAX)
		return 0;	/* a refused change holds it (changes.h) */
	if (shadow_list(ufd, &names, &n) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (fstatat(ufd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		nl = strlen(names[i]);
		if (plen + 1 + nl + 1 > PATH_MAX)
			continue;
		if (plen > 0)
			path[plen] = '/';
		memcpy(path + plen + (plen > 0), names[i], nl + 1);
		if ((sub = openat(ufd, names[i], DFLAGS)) >= 0) {
			if (prune_dirs(sub, path, plen + (plen > 0) + nl,
			    pending, depth + 1, left) < 0)
				rc = -1;
			close(sub);
		}
		if (!keys_has(pending, path) &&
		    unlinkat(ufd, names[i], AT_REMOVEDIR) < 0 &&
		    errno != ENOTEMPTY && errno != EEXIST && errno != ENOENT)
			(*left)++;
		path[plen] = '\0';
	}
	fsx_names_free(names, n);
	return rc;
}

int
plan_settle(struct session *s, struct changes *c)
{
	struct keys pending = { NULL, 0 };
	struct change *ch;
	struct stat st;
	char *path;
	size_t i;
	int left = 0, rc = -1;

	if ((pending.v = mem_calloc(2 * c->n + 1, sizeof *pending.v)) == NULL)
		return -1;
	for (i = 0; i < c->n; i++) {
		ch = &c->v[i];
		if (ch->applied)
			continue;
		pending.v[pending.n++] = ch->path;
		pending.v[pending.n++] = ch->origin;
	}
	if (pending.n > 1)
		qsort(pending.v, pending.n, sizeof *pending.v, cmp_name);
	/* Entries (not dirs) whose every change is applied go. */
	for (i = c->n; i-- > 0;) {
		ch = &c->v[i];
		if (!ch->applied || keys_has(&pending, ch->origin))
			continue;
		if (fstatat(s->upperfd, ch->origin, &st,
		    AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode) &&
		    unlinkat(s->upperfd, ch->origin, 0) < 0 && errno != ENOENT)
			left++;
	}
	for (i = 0; i < c->n; i++) {
		ch = &c->v[i];
		if (ch->applied && !keys_has(&pending, ch->path) &&
		    session_base_del(s, ch->path) < 0)
			left++;
	}
	if ((path = mem_alloc(PATH_MAX)) == NULL)
		goto out;
	path[0] = '\0';
	rc = prune_dirs(s->upperfd, path, 0, &pending, 0, &left);
	mem_free(path);
	if (rc == 0)
		rc = left;
out:
	mem_free(pending.v);
	return rc;
}

