/*
 * Front ends of the checkpoint commands: turn, rewind, undo, checkpoints;
 * and the snapshot write and edit take before they change a file
 * (checkpoint_before, checkpoint_after). Exit codes (cmd.h): 0 ok; 1
 * refused or partly failed (a conflict, a protected path, nothing to
 * rewind); 2 usage or environment.
 *
 * rewind restores every path the turns since TURN changed to the state
 * it had before the first of them: by compare-and-swap through apply
 * (apply.h), with the state the last turn left there as the base. A path
 * whose state is neither that nor the one being restored is a conflict:
 * nothing is changed unless --force, which takes what is there now as
 * the base. What a rewind replaces is snapshotted first, and the rewind
 * is itself a turn, recorded once it is done (a rewind cut short by a
 * kill leaves each file old or new, and running it again completes it).
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "apply/apply.h"
#include "checkpoint/checkpoint.h"
#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/cmd_dryrun.h"
#include "cli/say.h"
#include "lib/fsx.h"
#include "lib/mem.h"
#include "lib/path.h"
#include "policy/roots.h"
#include "policy/writecheck.h"
#include "session/plan.h"

struct ckpt_hold {
	struct ckpt	*c;
	struct ckpt_turn t;
};

static void
limits(const struct policy *p, struct ckpt_limits *lim)
{
	lim->keep = p->ckpt_keep ? p->ckpt_keep : CKPT_KEEP_DEFAULT;
	lim->maxbytes = p->ckpt_maxbytes;
}

int
checkpoint_before(struct dryrun *x, const char *rel, const char *path,
    struct ckpt_hold **hp, struct dryrun_err *e)
{
	struct ckpt_limits lim;
	struct ckpt_hold *h;
	int r;

	*hp = NULL;
	if (x->p.dry_run)
		return 0;	/* the session, not the store, records it */
	limits(&x->p, &lim);
	if ((h = mem_calloc(1, sizeof *h)) == NULL) {
		dryrun_fail(e, EXIT_REFUSED, errno, path, NULL);
		return -1;
	}
	if (ckpt_open(x->p.state, x->p.workspace, 1, LOCK_EX, &lim,
	    &h->c) < 0 || ckpt_for_write(h->c, &h->t) < 0 ||
	    (r = ckpt_snapshot(h->c, &h->t, x->rootfd, rel)) < 0 ||
	    (r == 1 && ckpt_save(h->c, &h->t) < 0)) {
		r = errno;
		ckpt_turn_clear(&h->t);
		ckpt_close(h->c);
		mem_free(h);
		dryrun_fail(e, EXIT_REFUSED, 0, path, "checkpoint: %s; not "
		    "written", dryrun_strerror(r));
		return -1;
	}
	*hp = h;
	return 0;
}

void
checkpoint_after(struct ckpt_hold *h, struct dryrun *x, const char *what,
    const char *rel, const char *path)
{

	if (h == NULL)
		return;
	if (ckpt_find(&h->t, rel) != NULL &&
	    (ckpt_settle(h->c, &h->t, x->rootfd, rel) < 0 ||
	    ckpt_note_after(h->c, &h->t, rel) < 0))
		say_warn("%s: %s: checkpoint not updated (%s): rewinding "
		    "it needs --force", what, path, dryrun_strerror(errno));
	ckpt_turn_clear(&h->t);
	ckpt_close(h->c);
	mem_free(h);
}

unsigned long
checkpoint_turn(const struct ckpt_hold *h)
{
	return h != NULL ? h->t.id : 0;
}

int
checkpoint_store(struct dryrun *x, struct cli *c, int create, int lockop,
    struct ckpt **ck, struct dryrun_err *e)
{
	struct ckpt_limits lim;

	*ck = NULL;
	if (dryrun_load(x, c, 0, e) < 0)
		return -1;
	limits(&x->p, &lim);
	if (ckpt_open(x->p.state, x->p.workspace, create, lockop, &lim,
	    ck) < 0) {
		if (errno == ENOENT && !create)
			return 0;
		dryrun_fail(e, EXIT_USAGE, errno, "checkpoints", NULL);
		return -1;
	}
	return 0;
}

/* ---- rewind ---- */

/* One path a rewind restores. */
struct rw_path {
	const char	*path;		/* borrowed from the turns */
	struct ckpt_state target;	/* before the first turn */
	struct ckpt_state base;		/* what the last turn left */
	struct ckpt_state now;		/* what is there now (stored) */
	unsigned long	 turn;		/* the last turn that changed it */
	const char	*why;		/* a refusal, or NULL */
	int		 conflict;	/* why is a conflict */
	int		 skip;		/* already as restored */
	char		 hex[HASH_HEXLEN + 1];
};

static int
same(const struct ckpt_state *a, const struct ckpt_state *b)
{
	if (a->kind != b->kind)
		return 0;
	if (a->kind == CKPT_ABSENT)
		return 1;
	if ((a->kind == CKPT_FILE || a->kind == CKPT_DIR) &&
	    a->mode != b->mode)
		return 0;
	return memcmp(a->sha, b->sha, HASH_LEN) == 0;
}

static void
to_base(const struct ckpt_state *s, struct apply_base *b)
{
	memset(b, 0, sizeof *b);
	b->absent = s->kind == CKPT_ABSENT;
	b->is_link = s->kind == CKPT_LINK;
	b->is_dir = s->kind == CKPT_DIR;
	b->mode = s->mode;
	memcpy(b->sha, s->sha, HASH_LEN);
}

/* The paths the turns from `from` on changed, in first-change order. */
static int
collect(struct ckpt_turn *t, size_t nt, unsigned long from,
    struct rw_path **out, size_t *nout)
{
	struct rw_path *p = NULL, *q;
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
	struct rw_path	*p;
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
snap_all(struct ckpt *ck, int rootfd, struct rw_path *p, size_t n,
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

/*
 * Check each path against the policy and what is there now, snapshot
 * what is there (so the rewind can be rewound). Returns the number of
 * conflicts; -1 (e filled) on an error.
 */
/*
 * The write check (writecheck.h) on p's folder as it is now, opened
 * beneath the workspace: NULL yes, else why not. A folder that does not
 * exist (the rewind makes it) is asked on the path alone here; the
 * engine asks again on the folder it opens (apply_env.roots).
 */
static const char *
may_write(const struct roots *r, int rootfd, const char *ws,
    struct rw_path *p)
{
	struct policy_verdict v;
	const char *name;
	char *abs;
	int fd, rc;

	if ((abs = path_join(ws, p->path)) == NULL)
		return "cannot be checked against the policy";
	if ((fd = fsx_open_parent(rootfd, p->path, 0, &name)) < 0) {
		if (errno == EXDEV) {
			mem_free(abs);
			return "resolves outside the workspace (symlink)";
		}
		v.why = POLICY_DENIED;
		rc = roots_deny(r, abs, &v.d);
	} else {
		rc = policy_may_write(r, abs, fd, name, &v);
		close(fd);
	}
	mem_free(abs);
	return rc == 0 ? NULL : policy_reason(&v);
}

static int
check_paths(struct dryrun *x, struct ckpt *ck, struct rw_path *p, size_t n,
    int force, const struct roots *r, struct dryrun_err *e)
{
	size_t i, bad = 0;
	int conflicts = 0;

	for (i = 0; r != NULL && i < n; i++)
		p[i].why = may_write(r, x->rootfd, x->p.workspace, &p[i]);
	if (snap_all(ck, x->rootfd, p, n, &bad) < 0)
		return dryrun_fail(e, EXIT_REFUSED, errno, p[bad].path,
		    NULL), -1;
	for (i = 0; i < n; i++) {
		if (p[i].why != NULL)
			continue;
		if (same(&p[i].now, &p[i].target))
			p[i].skip = 1;
		else if (p[i].now.kind == CKPT_OTHER) {
			p[i].why = "a directory or special file now";
			p[i].conflict = 1;
			conflicts++;
		} else if (!same(&p[i].now, &p[i].base)) {
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

/*
 * Remove the temp files a killed rewind left next to the paths that need
 * no restoring now (apply_run sweeps the directories it writes in).
 */
static void
sweep_skipped(int rootfd, const struct rw_path *p, size_t n)
{
	struct stat st;
	dev_t dev = 0;
	ino_t ino = 0;
	const char *name;
	size_t i;
	int fd;

	for (i = 0; i < n; i++) {
		if (!p[i].skip || p[i].why != NULL ||
		    (fd = fsx_open_parent(rootfd, p[i].path, 0, &name)) < 0)
			continue;
		if (fstat(fd, &st) == 0 && (st.st_dev != dev ||
		    st.st_ino != ino)) {
			dev = st.st_dev;
			ino = st.st_ino;
			(void)fsx_sweep_tmp(fd);
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

struct rw_item {
	struct apply_item it;
	size_t		 owner;
	int		 phase;
};

static int
cmp_item(const void *a, const void *b)
{
	const struct rw_item *x = a, *y = b;
	int c;

	if (x->phase != y->phase)
		return x->phase - y->phase;
	/* files and links: a directory's together, for parallel runs */
	if (x->phase == RW_DEL || x->phase == RW_FILES)
		return plan_cmp_by_dir(&x->it, &y->it);
	c = strcmp(x->it.path, y->it.path);
	/* parents first when making, deepest first otherwise */
	return x->phase == RW_MKDIR || x->phase == RW_FILES ? c : -c;
}

static struct rw_item *
rw_push(struct rw_item *v, size_t *n, size_t owner, int phase,
    enum apply_kind kind, const struct rw_path *p,
    const struct ckpt_state *base, unsigned int mode)
{
	struct rw_item *q = &v[(*n)++];

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
	to_base(base, &q->it.base);
	return q;
}

static struct rw_item *
items_for(struct ckpt *ck, struct rw_path *p, size_t n, size_t *ni)
{
	static const struct ckpt_state absent = { CKPT_ABSENT, 0, { 0 } };
	struct ckpt_state made = { CKPT_DIR, 0, { 0 } };
	const struct ckpt_state *b;
	struct rw_item *v;
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
		if ((b->kind == CKPT_FILE || b->kind == CKPT_LINK) &&
		    (p[i].target.kind == CKPT_ABSENT ||
		    p[i].target.kind == CKPT_DIR)) {
			rw_push(v, ni, i, RW_DEL, APPLY_DELETE, &p[i], b, 0);
			b = &absent;
		} else if (b->kind == CKPT_DIR &&
		    p[i].target.kind != CKPT_DIR) {
			rw_push(v, ni, i, RW_RMDIR, APPLY_RMDIR, &p[i], b, 0);
			b = &absent;
		}
		m = p[i].target.mode;
		switch (p[i].target.kind) {
		case CKPT_FILE:
		case CKPT_LINK:
			rw_push(v, ni, i, RW_FILES, p[i].target.kind ==
			    CKPT_FILE ? APPLY_FILE : APPLY_SYMLINK, &p[i], b,
			    m);
			break;
		case CKPT_DIR:
			if (b->kind != CKPT_DIR) {
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
 * The rewind's own turn: before = what was there, after = restored (or,
 * for a path some item of which failed, what is there now). how (n,
 * zeroed) gets per path: 1 restored, 2 an item failed.
 */
static int
record(struct ckpt *ck, int rootfd, struct rw_path *p, size_t n,
    struct rw_item *v, size_t ni, const char *label, unsigned long *id,
    unsigned char *how, size_t *restored)
{
	struct ckpt_turn t;
	struct ckpt_state now;
	size_t i, k;
	int rc = 0;

	*id = 0;
	*restored = 0;
	for (k = 0; k < ni; k++)
		how[v[k].owner] |= v[k].it.failed ? 2 : 1;
	for (i = 0; i < n; i++)
		*restored += how[i] == 1;
	if (ckpt_turn_end(ck) < 0 || ckpt_for_write(ck, &t) < 0)
		return -1;
	for (i = 0; i < n && rc == 0; i++) {
		if (how[i] == 0)
			continue;
		if (how[i] == 1)
			rc = ckpt_add(&t, p[i].path, &p[i].now, &p[i].target);
		else if (ckpt_state(ck, rootfd, p[i].path, 0, &now) == 0 &&
		    now.kind != CKPT_OTHER && !same(&now, &p[i].now))
			rc = ckpt_add(&t, p[i].path, &p[i].now, &now);
	}
	if (rc == 0 && t.n > 0 && (t.label = mem_strdup(label)) != NULL &&
	    (rc = ckpt_save(ck, &t)) == 0)
		*id = t.id;
	else if (rc == 0 && t.n > 0)
		rc = -1;
	ckpt_turn_clear(&t);
	return rc;
}

/* apply_run's array of the items in v. */
static struct apply_item *
flat(struct rw_item *v, size_t ni)
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
static cJSON *
pair(cJSON *arr, const char *path, const char *key, const char *val)
{
	cJSON *o;

	if ((o = cJSON_CreateObject()) == NULL)
		return NULL;
	cJSON_AddItemToArray(arr, o);
	if (cJSON_AddStringToObject(o, "path", path) == NULL ||
	    cJSON_AddStringToObject(o, key, val) == NULL)
		return NULL;
	return o;
}

/*
 * rewind or undo --json: the turn it is recorded as (null: nothing was
 * done), the turn rewound to before, what each path restored got, and
 * the paths it could not restore (conflicts, refusals, failures). how
 * and it are NULL when nothing was tried.
 */
static int
rewind_json(unsigned long id, unsigned long from, const struct rw_path *p,
    size_t n, const unsigned char *how, const struct apply_item *it,
    size_t ni)
{
	cJSON *o, *res, *con, *c;
	const char *act;
	size_t i;

	if ((o = say_doc(NULL)) == NULL ||
	    (id != 0 ? cJSON_AddNumberToObject(o, "turn", (double)id) :
	    cJSON_AddNullToObject(o, "turn")) == NULL ||
	    cJSON_AddNumberToObject(o, "since", (double)from) == NULL ||
	    (res = cJSON_AddArrayToObject(o, "restored")) == NULL ||
	    (con = cJSON_AddArrayToObject(o, "conflicts")) == NULL)
		goto fail;
	for (i = 0; how != NULL && i < n; i++) {
		if (how[i] != 1)
			continue;
		act = p[i].target.kind == CKPT_ABSENT ? "removed" :
		    p[i].now.kind == CKPT_ABSENT ? "created" : "restored";
		if (pair(res, p[i].path, "action", act) == NULL)
			goto fail;
	}
	for (i = 0; i < n; i++)
		if (p[i].why != NULL && pair(con, p[i].path, "reason",
		    p[i].why) == NULL)
			goto fail;
	for (i = 0; it != NULL && i < ni; i++) {
		if (!it[i].failed)
			continue;
		if ((c = pair(con, it[i].path, "reason", it[i].reason)) ==
		    NULL)
			goto fail;
		if (strcmp(it[i].reason, apply_damaged_reason) == 0 &&
		    cJSON_AddStringToObject(c, "code", "damaged") == NULL)
			goto fail;
	}
	return say_print(o);
fail:
	cJSON_Delete(o);
	return say_print(NULL);
}

static int
rewind_run(struct cli *c, const char *what, unsigned long from, int force)
{
	struct dryrun_err e = { .status = EXIT_USAGE };
	struct ckpt_turn *t = NULL;
	struct rw_path *p = NULL;
	struct apply_item *it = NULL;
	struct rw_item *v = NULL;
	struct ckpt *ck = NULL;
	struct apply_env env;
	struct roots r, *rp = NULL;
	struct dryrun x;
	unsigned char *how = NULL;
	char label[64];
	size_t nt = 0, n = 0, ni = 0, i, k, end, restored = 0;
	unsigned long id = 0;
	long failed = 0;
	int conflicts, refused = 0;

	dryrun_init(&x);
	memset(&env, 0, sizeof env);
	if (checkpoint_store(&x, c, 0, LOCK_EX, &ck, &e) < 0)
		goto out;
	if (ck == NULL || ckpt_list(ck, &t, &nt) < 0) {
		if (ck == NULL || errno == ENOENT)
			dryrun_fail(&e, EXIT_REFUSED, 0, "", "no checkpoints "
			    "for this workspace");
		else
			dryrun_fail(&e, EXIT_USAGE, errno, "checkpoints", NULL);
		goto out;
	}
	for (i = nt; from == 0 && i > 0; i--)
		if (t[i - 1].n > 0)
			from = t[i - 1].id;
	for (i = 0; i < nt && t[i].id != from; i++)
		;
	if (from == 0 || i == nt) {
		dryrun_fail(&e, EXIT_REFUSED, 0, "", from == 0 ? "no turn to "
		    "rewind" : "turn %lu: no such turn (arcturn checkpoints "
		    "lists them)", from);
		goto out;
	}
	/* the write check's roots: the engine asks them again (env) */
	if (x.p.mode != MODE_OFF) {
		if (roots_build(&x.p, ROOTS_PROTECT | ROOTS_MISSING |
		    ROOTS_DEVICES | ROOTS_GIT, NULL, &r) < 0) {
			dryrun_fail(&e, EXIT_USAGE, 0, "", "%s", r.why);
			goto out;
		}
		rp = &r;
		env.roots = rp;
		env.ws = x.p.workspace;
	}
	if (dryrun_root(&x, x.p.workspace, &e) < 0 ||
	    collect(t, nt, from, &p, &n) < 0 ||
	    (conflicts = check_paths(&x, ck, p, n, force, rp, &e)) < 0) {
		if (p == NULL && e.reason[0] == '\0')
			dryrun_fail(&e, EXIT_USAGE, errno, "", NULL);
		goto out;
	}
	for (i = 0; i < n; i++)
		if (p[i].conflict)
			say_err("%s: %s: %s turn %lu left it; conflict", what,
			    p[i].path, p[i].why, p[i].turn);
		else if (p[i].why != NULL)
			say_err("%s: %s: %s; refused", what, p[i].path, p[i].why);
	if (conflicts > 0) {
		dryrun_fail(&e, EXIT_REFUSED, 0, "", "%d conflict%s; nothing "
		    "restored (--force overwrites them)", conflicts,
		    conflicts == 1 ? "" : "s");
		/* a result: the conflicts, in the document */
		if (c->json && rewind_json(0, from, p, n, NULL, NULL, 0) < 0)
			e.status = EXIT_USAGE;
		goto out;
	}
	if ((v = items_for(ck, p, n, &ni)) == NULL ||
	    (it = flat(v, ni)) == NULL ||
	    (how = mem_calloc(n ? n : 1, 1)) == NULL) {
		dryrun_fail(&e, EXIT_USAGE, errno, "", NULL);
		goto out;
	}
	/* phase by phase; files and links in parallel, as apply does */
	for (k = 0; k < ni; k = end) {
		for (end = k + 1; end < ni && v[end].phase == v[k].phase; end++)
			;
		plan_run_phase(x.rootfd, it + k, end - k, v[k].phase ==
		    RW_DEL || v[k].phase == RW_FILES, &env);
	}
	for (k = 0; k < ni; k++)
		failed += it[k].failed != 0;
	sweep_skipped(x.rootfd, p, n);
	for (i = 0; i < ni; i++) {
		v[i].it.failed = it[i].failed;
		if (it[i].failed)
			say_err("%s: %s: %s", what, it[i].path, it[i].reason);
	}
	snprintf(label, sizeof label, "%s %lu", strcmp(what, "undo") == 0 ?
	    "undo of turn" : "rewind to before turn", from);
	if (record(ck, x.rootfd, p, n, v, ni, label, &id, how,
	    &restored) < 0)
		say_warn("%s: the rewind is done but not recorded (%s): "
		    "it cannot be undone", what, dryrun_strerror(errno));
	for (i = 0; i < n; i++)
		refused += p[i].why != NULL;
	e.status = failed > 0 || refused > 0 ? EXIT_REFUSED : 0;
	if (c->json) {
		if (rewind_json(id, from, p, n, how, it, ni) < 0)
			e.status = EXIT_USAGE;
	} else if (!c->quiet && printf("%s: restored %zu path%s to before turn "
	    "%lu%s", what, restored, restored == 1 ? "" : "s", from,
	    id ? "" : "\n") < 0)
		dryrun_fail(&e, EXIT_USAGE, errno, "", NULL);
	if (!c->json && !c->quiet && id && printf(" (as turn %lu)\n", id) < 0)
		dryrun_fail(&e, EXIT_USAGE, errno, "", NULL);
out:
	if (rp != NULL)
		roots_free(rp);
	dryrun_report(what, &e);
	mem_free(how);
	mem_free(it);
	mem_free(v);
	mem_free(p);
	ckpt_turns_free(t, nt);
	ckpt_close(ck);
	dryrun_done(&x);
	return e.status;
}

static int
parse_force(struct cli *c, const char *name, int *force)
{
	static const struct option opts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	*force = 0;
	while ((ch = cli_getopt(c, "", opts)) != -1) {
		if (ch != 'f') {
			cmd_usage(name);
			return -1;
		}
		*force = 1;
	}
	return cli_no_dry_run(c, "it restores real files; a dry run's "
	    "changes are dropped with discard");
}

int
cmd_rewind(struct cli *c)
{
	unsigned long from = 0;
	char *end;
	int force;

	if (parse_force(c, "rewind", &force) < 0 || optind < c->argc - 1) {
		if (optind < c->argc - 1)
			cmd_usage("rewind");
		return EXIT_USAGE;
	}
	if (optind == c->argc - 1) {
		errno = 0;
		from = strtoul(c->argv[optind], &end, 10);
		if (*c->argv[optind] < '1' || *c->argv[optind] > '9' ||
		    *end != '\0' || errno != 0) {
			say_err("rewind: %s: not a turn number", c->argv[optind]);
			say_is(SAY_USAGE, NULL);
			return EXIT_USAGE;
		}
	}
	return rewind_run(c, "rewind", from, force);
}

int
cmd_undo(struct cli *c)
{
	int force;

	if (parse_force(c, "undo", &force) < 0 || optind != c->argc) {
		if (optind != c->argc)
			cmd_usage("undo");
		return EXIT_USAGE;
	}
	return rewind_run(c, "undo", 0, force);
}
