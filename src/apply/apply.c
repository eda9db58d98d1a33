/*
 * apply: the per-item apply engine (apply.h).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apply/apply.h"
#include "apply/apply_new.h"
#include "apply/apply_swap.h"
#include "lib/fsx.h"
#include "lib/hash.h"
#include "lib/mem.h"
#include "lib/os.h"
#include "lib/path.h"
#include "policy/writecheck.h"

#define SWEPT_MAX	16
#define BATCH		16	/* items of apply_run_batch between syncs */

enum { READY, DONE, LATER };

/* One item between its check (stage one) and its swap (stage two). */
struct prep {
	int		 state;		/* READY, DONE */
	int		 pfd;		/* its directory */
	int		 own;		/* pfd is this item's to close (else
					   the previous item's) */
	const char	*name;		/* in pfd */
	int		 srcfd;		/* FILE, LINK: the new content */
	int		 tfd;		/* FILE: the new file, not synced */
	int		 given;		/* FILE: the new file is srcfd's */
	int		 swapped;	/* in place, its directory to sync */
	int		 serr;		/* that sync's errno, or 0 */
	char		 tmp[FSX_TMP_NAMELEN + 1];	/* the new object, or
							   "" */
	struct stat	 tst;
	struct apply_real r;		/* what the real path holds */
	char		 target[PATH_MAX];	/* SYMLINK */
};

/* Directories already swept for stale temp files in this run. */
struct swept {
	dev_t	dev[SWEPT_MAX];
	ino_t	ino[SWEPT_MAX];
	size_t	n;
};

static const char R_ESCAPE[] =
    "resolves outside the workspace (symlink); refused";
static const char R_NOTEMPTY[] =
    "not empty: holds entries created since capture; kept";
const char apply_damaged_reason[] =
    "damaged: its stored copy does not match the recorded hash; refused";

const char *
apply_unrecorded_reason(int why, char *buf, size_t len)
{
	if (why == EBADMSG)
		snprintf(buf, len, "its base record is truncated or corrupt; "
		    "refused");
	else if (why == 0)
		snprintf(buf, len, "no record of the file at capture; refused");
	else
		snprintf(buf, len, "no record of the file at capture (%s); "
		    "refused", why == ESTALE ? "it changed while the command "
		    "ran" : strerror(why));
	return buf;
}

/* chmod name, the object read_real saw (r), never a replacement. */
static int
chmod_one(struct apply_item *it, int pfd, const char *name,
    const struct apply_real *r)
{
	struct stat st;
	int fd;

	fd = openat(pfd, name, os_o_path | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	if (fd < 0 && errno == EACCES)
		fd = openat(pfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC);
	if (fd < 0)
		return apply_fail(it, errno);
	if (fstat(fd, &st) < 0) {
		apply_fail(it, errno);
		close(fd);
		return -1;
	}
	close(fd);
	if (st.st_dev != r->dev || st.st_ino != r->ino)
		return apply_refuse(it, APPLY_R_CHANGED);
	return fsx_chmod_nofollow(pfd, name, PERM(it->mode)) < 0 ?
	    apply_fail(it, errno) : 0;
}


/* The path was absent at capture (an unrecorded base says nothing). */
static int
base_absent(const struct apply_item *it)
{
	return !it->base.unrecorded && it->base.ps.kind == PSTATE_ABSENT;
}

static int
creates(const struct apply_item *it)
{
	return base_absent(it) && (it->kind == APPLY_FILE ||
	    it->kind == APPLY_SYMLINK || it->kind == APPLY_MKDIR ||
	    it->kind == APPLY_FIFO || it->kind == APPLY_LINK);
}

static int
places(const struct apply_item *it)
{
	return it->kind == APPLY_FILE || it->kind == APPLY_SYMLINK ||
	    it->kind == APPLY_FIFO || it->kind == APPLY_LINK;
}

/* Remove what a killed apply may have left in this directory, once. */
static void
sweep(int pfd, struct swept *sw)
{
	struct stat st;
	size_t i;

	if (fstat(pfd, &st) < 0)
		return;
	for (i = 0; i < sw->n && i < SWEPT_MAX; i++)
		if (sw->dev[i] == st.st_dev && sw->ino[i] == st.st_ino)
			return;
	sw->dev[sw->n % SWEPT_MAX] = st.st_dev;
	sw->ino[sw->n % SWEPT_MAX] = st.st_ino;
	sw->n++;
	fsx_sweep_tmp(pfd);
}

/*
 * Remove the directory dirfd/name once the temp names in it are swept
 * (fsx_sweep_tmp: a swap name stays while it may hold a saved version).
 */
static int
rmdir_swept(int dirfd, const char *name)
{
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0 || fsx_sweep_tmp(fd) <= 0) {
		fsx_close(fd);
		errno = ENOTEMPTY;
		return -1;
	}
	close(fd);
	return unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* The last component of a workspace-relative path. */
static const char *
last(const char *path)
{
	const char *s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

/* Let p go: its fds, and its temp object when it was not swapped in. */
static void
release(struct prep *p)
{
	if (p->tmp[0] != '\0' && p->pfd >= 0)
		unlinkat(p->pfd, p->tmp, 0);
	p->tmp[0] = '\0';
	fsx_close(p->tfd);
	fsx_close(p->srcfd);
	if (p->own)
		fsx_close(p->pfd);
	p->tfd = p->srcfd = p->pfd = -1;
	p->own = 0;
}

/* Why the path cannot be reached: its parent missing or leading out. */
static int
unreachable(struct apply_item *it)
{
	char why[128];

	if (errno == EXDEV)
		return apply_refuse(it, R_ESCAPE);
	if (errno == ENOENT && !base_absent(it)) {
		/* Gone with its directory. */
		if (it->kind == APPLY_DELETE || it->kind == APPLY_RMDIR)
			return 0;
		if (!it->base.unrecorded)
			return apply_refuse(it, APPLY_R_DELETED);
	}
	if (it->base.unrecorded)
		return apply_refuse(it, apply_unrecorded_reason(it->base.why,
		    why, sizeof why));
	return apply_fail(it, errno);
}

/* The real path is not the base: already new, or a conflict. */
static void
not_base(struct apply_item *it, const struct prep *p)
{
	char why[128];

	if (apply_new_matches(it, &p->r, p->srcfd, p->target))
		return;
	if (it->base.unrecorded)
		apply_refuse(it, apply_unrecorded_reason(it->base.why, why,
		    sizeof why));
	else if (base_absent(it))
		apply_refuse(it, APPLY_R_CREATED);
	else if (p->r.ps.kind == PSTATE_ABSENT)
		apply_refuse(it, APPLY_R_DELETED);
	else
		apply_refuse(it, APPLY_R_CHANGED);
}

/*
 * The write check (writecheck.h) on the folder opened for it, when env
 * carries a policy: 1 refused (it says why), 0 go on.
 */
static int
denied(struct apply_item *it, const struct apply_env *env, int pfd,
    const char *name)
{
	struct policy_verdict v;
	char *lex, why[128];
	int rc;

	if (env == NULL || env->roots == NULL)
		return 0;
	if ((lex = path_join(env->ws, it->path)) == NULL) {
		apply_fail(it, errno);
		return 1;
	}
	rc = policy_may_write(env->roots, lex, pfd, name, &v);
	mem_free(lex);
	if (rc == 0)
		return 0;
	snprintf(why, sizeof why, "%s; refused", policy_reason(&v));
	apply_refuse(it, why);
	return 1;
}

/*
 * Stage one of an item: reach its directory (prev's when it is the same
 * one), check the real path against the base, keep what will be replaced
 * or deleted, make the new object under a temp name, unsynced. READY: the
 * swap is next; DONE: the item is finished (failed, or already new).
 * A failure leaves nothing behind (what was kept is dropped again).
 */
static int
check_one(int rootfd, struct apply_item *it, struct swept *sw,
    const struct apply_env *env, struct prep *p, const struct apply_item *pit,
    const struct prep *prev)
{
	if (prev != NULL && prev->pfd >= 0 && last(pit->path) - pit->path ==
	    last(it->path) - it->path &&
	    memcmp(pit->path, it->path, last(it->path) - it->path) == 0) {
		p->pfd = prev->pfd;
		p->name = last(it->path);
	} else {
		p->pfd = fsx_open_parent(rootfd, it->path, creates(it),
		    &p->name);
		if (p->pfd < 0) {
			unreachable(it);
			return DONE;
		}
		p->own = 1;
		if (denied(it, env, p->pfd, p->name))
			return DONE;
		sweep(p->pfd, sw);
	}
	/* the same folder as the item before: asked for this name */
	if (!p->own && denied(it, env, p->pfd, p->name))
		return DONE;

	if (it->kind == APPLY_FILE || it->kind == APPLY_LINK) {
		if ((p->srcfd = apply_open_src(it)) < 0) {
			apply_fail(it, errno);
			return DONE;
		}
	} else if (it->kind == APPLY_SYMLINK &&
	    apply_read_target(it, p->target, sizeof p->target) < 0) {
		apply_fail(it, errno);
		return DONE;
	}
	if (it->want != NULL) {
		unsigned char sha[HASH_LEN];

		if (it->kind == APPLY_SYMLINK)
			hash_buf(p->target, strlen(p->target), sha);
		else if (hash_fd(p->srcfd, sha) < 0) {
			apply_fail(it, errno);
			return DONE;
		}
		if (memcmp(sha, it->want, HASH_LEN) != 0) {
			apply_refuse(it, apply_damaged_reason);
			return DONE;
		}
	}
	if (apply_read_real(p->pfd, p->name, &p->r) < 0) {
		apply_fail(it, errno);
		return DONE;
	}
	if (!apply_base_matches(it, &p->r)) {
		not_base(it, p);
		return DONE;
	}
	if (it->kind == APPLY_DELETE)
		return apply_keep(it, env, p->pfd, p->name, &p->r) < 0 ?
		    DONE : READY;
	if (!places(it))
		return READY;
	if (!base_absent(it)) {
		/* never swap a directory out: a type change removes it first */
		if (p->r.ps.kind == PSTATE_DIR) {
			apply_fail(it, EISDIR);
			return DONE;
		}
		if (apply_keep(it, env, p->pfd, p->name, &p->r) < 0)
			return DONE;
	}
	if (apply_make_new(it, env, rootfd, p->pfd, p->srcfd, p->target, p->tmp,
	    &p->tst, &p->tfd, &p->given) < 0) {
		int err = errno;

		p->tmp[0] = '\0';
		apply_unkeep(it, env);
		if (err == ESTALE && it->kind == APPLY_LINK)
			apply_refuse(it, "the file it is a hard link of does "
			    "not hold its content; kept");
		else
			apply_fail(it, err);
		return DONE;
	}
	return READY;
}

/*
 * check_one; LATER when the batch holds fds (prev set) and the item ran
 * out of them: it is tried again once the batch has let its fds go.
 */
static int
check(int rootfd, struct apply_item *it, struct swept *sw,
    const struct apply_env *env, struct prep *p, const struct apply_item *pit,
    const struct prep *prev)
{
	int rc = check_one(rootfd, it, sw, env, p, pit, prev);

	if (rc == DONE && prev != NULL && it->failed &&
	    (it->err == EMFILE || it->err == ENFILE)) {
		release(p);
		return LATER;
	}
	return rc;
}

/* Fail a READY item before its swap: nothing of it stays. */
static void
unready(struct apply_item *it, const struct apply_env *env, struct prep *p,
    int err, const char *why)
{
	char msg[160];

	apply_unkeep(it, env);
	if (p->tmp[0] != '\0')
		unlinkat(p->pfd, p->tmp, 0);
	p->tmp[0] = '\0';
	p->state = DONE;
	if (why == NULL) {
		apply_fail(it, err);
		return;
	}
	it->failed = 1;
	it->err = err;
	snprintf(msg, sizeof msg, "%s%s", why, strerror(err));
	snprintf(it->reason, sizeof it->reason, "%s", msg);
}

/*
 * 1 when the items of p[0..n) that are READY (swapped: those swapped) are
 * all in directories of one file system (at least one item), its first
 * such directory in *fd.
 */
static int
one_fs(const struct prep *p, size_t n, int swapped, int *fd)
{
	struct stat st;
	dev_t dev = 0;
	size_t i;
	int last = -1;

	*fd = -1;
	for (i = 0; i < n; i++) {
		if ((swapped ? !p[i].swapped : p[i].state != READY) ||
		    p[i].pfd == last)
			continue;
		last = p[i].pfd;
		if (fstat(last, &st) < 0 || (*fd >= 0 && st.st_dev != dev))
			return 0;
		if (*fd < 0)
			*fd = last;
		dev = st.st_dev;
	}
	return *fd >= 0;
}

/*
 * Make the READY items' new files and what they keep durable, with one
 * round of syncs: the new files' writeback is started first, so that the
 * first sync commits them all and the others find nothing left to do.
 * Several new files on one file system take one syncfs where that is
 * cheap (os_syncfs_cheap): one device flush instead of one per file.
 */
static void
settle(struct apply_item *it, struct prep *p, size_t n,
    const struct apply_env *env)
{
	const struct apply_keeper *k = env != NULL ? env->keep : NULL;
	size_t i, files = 0;
	int kept = 0, fd, err;

	for (i = 0; i < n; i++) {
		if (p[i].state == READY && p[i].tfd >= 0)
			os_start_writeback(p[i].tfd);
		kept |= p[i].state == READY && it[i].kept;
	}
	if (kept && k->sync != NULL && k->sync(k->arg) < 0) {
		err = errno;
		for (i = 0; i < n; i++)
			if (p[i].state == READY && it[i].kept)
				unready(&it[i], env, &p[i], err,
				    "cannot keep what it replaces: ");
	}
	for (i = 0; i < n; i++)
		files += p[i].state == READY && (p[i].tfd >= 0 || p[i].given);
	if (files > 1 && one_fs(p, n, 0, &fd) && os_syncfs_cheap(fd)) {
		err = os_syncfs(fd) < 0 ? errno : 0;
		for (i = 0; i < n; i++) {
			if (err != 0 && p[i].state == READY &&
			    (p[i].tfd >= 0 || p[i].given))
				unready(&it[i], env, &p[i], err, NULL);
			fsx_close(p[i].tfd);
			p[i].tfd = -1;
		}
		return;
	}
	for (i = 0; i < n; i++) {
		if (p[i].state == READY && (p[i].tfd >= 0 || p[i].given) &&
		    fsync(p[i].given ? p[i].srcfd : p[i].tfd) < 0)
			unready(&it[i], env, &p[i], errno, NULL);
		fsx_close(p[i].tfd);
		p[i].tfd = -1;
	}
}

/* p's given source (NULL: none), its session directory opened in *upfd. */
static const struct apply_given *
given(const struct apply_item *it, const struct prep *p,
    struct apply_given *g, int *upfd)
{
	*upfd = -1;
	if (!p->given || (*upfd = fsx_open_parent(it->srcdir, it->src, 0,
	    &g->name)) < 0)
		return NULL;
	g->dirfd = *upfd;
	g->fd = p->srcfd;
	g->dev = p->tst.st_dev;
	g->ino = p->tst.st_ino;
	return g;
}

/* Stage two of a READY item: the swap (or the mkdir, rmdir, chmod). */
static int
swap(struct apply_item *it, const struct apply_env *env, struct prep *p)
{
	const struct apply_given *gv;
	struct apply_given g;
	mode_t mode = PERM(it->mode);
	int rc, upfd;

	switch (it->kind) {
	case APPLY_FILE:
	case APPLY_SYMLINK:
	case APPLY_FIFO:
	case APPLY_LINK:
		gv = given(it, p, &g, &upfd);
		rc = base_absent(it) ? apply_swap_create(it, p->pfd, p->name,
		    p->tmp, &p->r, p->srcfd, p->target) : apply_swap_in(it,
		    env, p->pfd, p->name, p->tmp, &p->tst, &p->r, gv);
		p->tmp[0] = '\0';	/* in place, or gone */
		if (rc == 0 && base_absent(it))
			apply_given_drop(gv);
		fsx_close(upfd);
		return rc;
	case APPLY_MKDIR:
		if (mkdirat(p->pfd, p->name, mode) < 0) {
			if (errno == EEXIST &&
			    apply_read_real(p->pfd, p->name, &p->r) == 0 &&
			    p->r.ps.kind == PSTATE_DIR)
				return 0;
			if (errno == EEXIST)
				return apply_refuse(it, APPLY_R_CREATED);
			return apply_fail(it, errno);
		}
		return fsx_chmod_nofollow(p->pfd, p->name, mode) < 0 ?
		    apply_fail(it, errno) : 0;
	case APPLY_DELETE:
		return apply_swap_delete(it, env, p->pfd, p->name, &p->r);
	case APPLY_RMDIR:
		if (unlinkat(p->pfd, p->name, AT_REMOVEDIR) == 0 ||
		    errno == ENOENT)
			return 0;
		/* what a killed apply left in it is no entry of anybody's */
		if ((errno == ENOTEMPTY || errno == EEXIST) &&
		    rmdir_swept(p->pfd, p->name) == 0)
			return 0;
		if (errno == ENOTEMPTY || errno == EEXIST)
			return apply_refuse(it, R_NOTEMPTY);
		return apply_fail(it, errno);
	case APPLY_CHMOD:
		return chmod_one(it, p->pfd, p->name, &p->r);
	}
	return apply_fail(it, EINVAL);
}

static int
valid(const struct apply_item *it)
{
	return it->path != NULL && (it->src != NULL || (it->kind !=
	    APPLY_FILE && it->kind != APPLY_SYMLINK &&
	    it->kind != APPLY_LINK)) &&
	    (it->kind != APPLY_LINK || it->link != NULL);
}

/* The swapped item before i in the same directory (its fd), or i. */
static size_t
dir_first(const struct prep *p, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (p[j].swapped && p[j].pfd == p[i].pfd)
			return j;
	return i;
}

/*
 * Make the swaps of p[0..n) durable once all are done: each directory
 * synced once, or one syncfs for several directories of one file system
 * where that is cheap. An item whose directory cannot be synced fails.
 */
static void
sync_dirs(struct apply_item *it, struct prep *p, size_t n)
{
	size_t i, j, dirs = 0;
	int fd, err;

	for (i = 0; i < n; i++)
		dirs += p[i].swapped && dir_first(p, i) == i;
	if (dirs > 1 && one_fs(p, n, 1, &fd) && os_syncfs_cheap(fd)) {
		err = os_syncfs(fd) < 0 ? errno : 0;
		for (i = 0; i < n; i++)
			p[i].serr = err;
	} else
		for (i = 0; i < n; i++)
			if (p[i].swapped)
				p[i].serr = (j = dir_first(p, i)) < i ?
				    p[j].serr : fsx_sync_dir(p[i].pfd) < 0 ?
				    errno : 0;
	for (i = 0; i < n; i++)
		if (p[i].swapped && p[i].serr != 0)
			apply_fail(&it[i], p[i].serr);
}

/* Items it[0..n) through both stages, each directory synced once after. */
static size_t
run_batch(int rootfd, struct apply_item *it, size_t n, struct prep *p,
    struct swept *sw, const struct apply_env *env)
{
	size_t i, got;

	for (got = 0; got < n; got++) {
		it[got].failed = it[got].err = it[got].kept = 0;
		it[got].reason[0] = '\0';
		p[got].pfd = p[got].srcfd = p[got].tfd = -1;
		p[got].own = p[got].given = p[got].swapped = p[got].serr = 0;
		p[got].tmp[0] = p[got].target[0] = '\0';
		p[got].state = DONE;
		if (!valid(&it[got]))
			apply_fail(&it[got], EINVAL);
		else if ((p[got].state = check(rootfd, &it[got], sw, env,
		    &p[got], got > 0 ? &it[got - 1] : NULL,
		    got > 0 ? &p[got - 1] : NULL)) == LATER)
			break;
	}
	settle(it, p, got, env);
	/*
	 * Synced too: an item found already new, which a killed apply may
	 * have swapped in without the sync of its directory.
	 */
	for (i = 0; i < got; i++)
		p[i].swapped = p[i].state == READY ?
		    swap(&it[i], env, &p[i]) == 0 :
		    !it[i].failed && p[i].pfd >= 0;
	sync_dirs(it, p, got);
	/* last first: an item may use the directory fd of the one before */
	for (i = got; i-- > 0;) {
		release(&p[i]);
		if (env != NULL && env->progress != NULL)
			env->progress(env->parg, &it[i]);
	}
	return got;
}

static long
run(int rootfd, struct apply_item *items, size_t n,
    const struct apply_env *env, size_t batch)
{
	struct swept sw;
	struct prep one, *p = &one;
	struct stat st;
	long failed = 0;
	size_t i, k, got;

	if (items == NULL && n > 0) {
		errno = EINVAL;
		return -1;
	}
	if (fstat(rootfd, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	if (n < batch)
		batch = n > 0 ? n : 1;
	/* a batch needs memory; without it, items go one by one */
	if (batch > 1 && (p = mem_calloc(batch, sizeof *p)) == NULL) {
		p = &one;
		batch = 1;
	}
	sw.n = 0;
	for (i = 0; i < n; i += got) {
		got = run_batch(rootfd, items + i, n - i < batch ? n - i :
		    batch, p, &sw, env);
		for (k = i; k < i + got; k++)
			failed += items[k].failed != 0;
	}
	if (p != &one)
		mem_free(p);
	return failed;
}

long
apply_run(int rootfd, struct apply_item *items, size_t n,
    const struct apply_env *env)
{
	return run(rootfd, items, n, env, 1);
}

long
apply_run_batch(int rootfd, struct apply_item *items, size_t n,
    const struct apply_env *env)
{
	return run(rootfd, items, n, env, BATCH);
}
