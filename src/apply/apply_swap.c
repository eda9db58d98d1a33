/*
 * apply_swap: the compare-and-swap step of apply (apply_swap.h).
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

#include "apply/apply_swap.h"
#include "lib/fsx.h"
#include "lib/hash.h"
#include "lib/mem.h"
#include "lib/os.h"

/*
 * A ctime this close to the moment we hashed may hide a write made in the
 * same tick of the coarse clock the kernel stamps with: hash again.
 */
#define RACY_NS		100000000LL

static int force_rename;

void
apply_force_rename(int on)
{
	force_rename = on;
}

/* The exchanging rename, or ENOSYS under the test seam. */
static int
exchange(int pfd, const char *a, const char *b)
{
	if (force_rename) {
		errno = ENOSYS;
		return -1;
	}
	return os_rename_exchange(pfd, a, b);
}

int
apply_refuse(struct apply_item *it, const char *why)
{
	it->failed = 1;
	it->err = 0;
	snprintf(it->reason, sizeof it->reason, "%s", why);
	return -1;
}

int
apply_fail(struct apply_item *it, int err)
{
	it->failed = 1;
	it->err = err;
	snprintf(it->reason, sizeof it->reason, "%s", strerror(err));
	return -1;
}

/* Look at dirfd/name: kind, mode, content hash, and identity. */
int
apply_read_real(int pfd, const char *name, struct apply_real *r)
{
	struct pstate_look lk;

	clock_gettime(CLOCK_REALTIME, &r->at);
	lk.target = r->link;
	if (pstate_read(pfd, name, &r->ps, &lk) < 0)
		return -1;
	fsx_close(lk.fd);
	r->size = lk.st.st_size;
	r->dev = lk.st.st_dev;
	r->ino = lk.st.st_ino;
	r->ctime = os_ctime(&lk.st);
	return 0;
}

int
apply_base_matches(const struct apply_item *it, const struct apply_real *r)
{
	const struct apply_base *b = &it->base;

	if (b->unrecorded)
		return 0;
	/* a folder's mode counts only for a mode change */
	if (b->ps.kind == PSTATE_DIR && r->ps.kind == PSTATE_DIR &&
	    it->kind != APPLY_CHMOD)
		return 1;
	return pstate_same(&b->ps, &r->ps);
}

/* The hash of the regular file srcfd, and whether its size is size. */
int
apply_same_bytes(int srcfd, const struct apply_real *r)
{
	unsigned char sha[HASH_LEN];
	struct stat st;

	if (fstat(srcfd, &st) < 0 || st.st_size != r->size ||
	    hash_fd(srcfd, sha) < 0)
		return 0;
	return memcmp(sha, r->ps.sha, HASH_LEN) == 0;
}

/* Does the real path already hold the new state (apply ran before)? */
int
apply_new_matches(const struct apply_item *it, const struct apply_real *r,
    int srcfd, const char *target)
{
	switch (it->kind) {
	case APPLY_FILE:
	case APPLY_LINK:
		return r->ps.kind == PSTATE_FILE &&
		    r->ps.mode == PERM(it->mode) &&
		    apply_same_bytes(srcfd, r);
	case APPLY_SYMLINK:
		return r->ps.kind == PSTATE_LINK &&
		    strcmp(r->link, target) == 0;
	case APPLY_FIFO:
		return r->ps.kind == PSTATE_FIFO &&
		    r->ps.mode == PERM(it->mode);
	case APPLY_MKDIR:
		return r->ps.kind == PSTATE_DIR;
	case APPLY_DELETE:
	case APPLY_RMDIR:
		return r->ps.kind == PSTATE_ABSENT;
	case APPLY_CHMOD:
		return r->ps.kind != PSTATE_ABSENT &&
		    r->ps.kind != PSTATE_LINK && r->ps.mode == PERM(it->mode) &&
		    (r->ps.kind == PSTATE_DIR) ==
		    (it->base.ps.kind == PSTATE_DIR);
	}
	return 0;
}

static int
ts_eq(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* Whether a ctime is close enough to the look at r->at to hide a write. */
static int
racy(const struct apply_real *r)
{
	long long c = (long long)r->ctime.tv_sec * 1000000000LL +
	    r->ctime.tv_nsec;
	long long a = (long long)r->at.tv_sec * 1000000000LL + r->at.tv_nsec;

	return c + RACY_NS >= a;
}

int
apply_real_unchanged(const struct stat *st, const struct apply_real *r)
{
	return ts_eq(os_ctime(st), r->ctime) && !racy(r);
}

/*
 * Is dirfd/tmp, the object just moved aside from the item's path, the one
 * read_real checked (r), unchanged since? The same inode with the same
 * ctime, not racy, is; anything else is looked at again and compared with
 * the base. 1 yes, 0 no, -1 with errno when it cannot be told.
 */
static int
aside_is_base(const struct apply_item *it, const struct apply_real *r, int pfd,
    const char *tmp)
{
	struct apply_real *now;
	struct stat st;
	int ok;

	if (fstatat(pfd, tmp, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (st.st_dev != r->dev || st.st_ino != r->ino)
		return 0;	/* replaced by another object: the user's */
	if (apply_real_unchanged(&st, r))
		return 1;
	if ((now = mem_alloc(sizeof *now)) == NULL)
		return -1;
	if (apply_read_real(pfd, tmp, now) < 0)
		ok = errno == ENOENT ? 0 : -1;
	else
		ok = now->dev == r->dev && now->ino == r->ino &&
		    apply_base_matches(it, now);
	mem_free(now);
	return ok;
}

/* What aside_is_base's "no" (0) or "cannot tell" (-1, err) makes of it. */
static void
not_base(struct apply_item *it, int same, int err)
{
	if (same < 0)
		apply_fail(it, err);
	else
		apply_refuse(it, APPLY_R_CHANGED);
}

int
apply_keep(struct apply_item *it, const struct apply_env *env, int pfd,
    const char *name, const struct apply_real *r)
{
	struct apply_kept k;
	char msg[160];

	if (env == NULL || env->keep == NULL)
		return 0;
	memset(&k, 0, sizeof k);
	if (env->keep->put(env->keep->arg, it->path, pfd, name, &k) < 0) {
		struct stat st;

		/* link(2) says ENOENT for an inode renamed over meanwhile */
		if (errno == ENOENT)
			return apply_refuse(it, fstatat(pfd, name, &st,
			    AT_SYMLINK_NOFOLLOW) == 0 ? APPLY_R_CHANGED :
			    APPLY_R_DELETED);
		it->failed = 1;
		it->err = errno;
		snprintf(msg, sizeof msg, "cannot keep what it replaces: %s",
		    strerror(errno));
		snprintf(it->reason, sizeof it->reason, "%s", msg);
		return -1;
	}
	/* What got kept must be what was checked. */
	if ((k.linked && (k.dev != r->dev || k.ino != r->ino)) ||
	    (!k.linked && k.have_sha &&
	    memcmp(k.sha, r->ps.sha, HASH_LEN) != 0)) {
		env->keep->drop(env->keep->arg, it->path);
		return apply_refuse(it, APPLY_R_CHANGED);
	}
	it->kept = 1;
	return 0;
}

void
apply_unkeep(struct apply_item *it, const struct apply_env *env)
{
	if (it->kept && env != NULL && env->keep != NULL)
		env->keep->drop(env->keep->arg, it->path);
	it->kept = 0;
}

/* The base, moved aside and checked, goes: the item is done. */
static int
unlink_aside(struct apply_item *it, int pfd, const char *tmp)
{
	if (unlinkat(pfd, tmp, 0) < 0 && errno != ENOENT)
		return apply_fail(it, errno);
	return 0;
}

/*
 * The temp name tmp in pfd after a swap back: ours (inode tst) goes. Not
 * ours (tst NULL, or another inode): the user put another version in
 * place between our two renames and it came back to us. That one is kept
 * before the name goes; without a keeper it stays where it is.
 */
static void
drop_tmp(struct apply_item *it, const struct apply_env *env, int pfd,
    const char *tmp, const struct stat *tst)
{
	struct apply_kept k;
	struct stat st;

	if (fstatat(pfd, tmp, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (tst != NULL && st.st_dev == tst->st_dev &&
	    st.st_ino == tst->st_ino) {
		unlinkat(pfd, tmp, 0);
		return;
	}
	apply_unkeep(it, env);
	/* kept for good (synced) before the name goes */
	if (env != NULL && env->keep != NULL &&
	    env->keep->put(env->keep->arg, it->path, pfd, tmp, &k) == 0 &&
	    (env->keep->sync == NULL || env->keep->sync(env->keep->arg) == 0)) {
		it->kept = 1;
		unlinkat(pfd, tmp, 0);
		snprintf(it->reason, sizeof it->reason, "%s (the version found "
		    "in place meanwhile is kept)", APPLY_R_CHANGED);
	} else
		snprintf(it->reason, sizeof it->reason, "%s (the version found "
		    "in place meanwhile is left at %s)", APPLY_R_CHANGED, tmp);
}

/*
 * Put the temp object tmp (inode tst) where name is, name holding what r
 * describes and the base says: keep it, swap, check what moved aside,
 * swap back on a mismatch.
 */
void
apply_given_drop(const struct apply_given *g)
{
	struct stat st;

	if (g != NULL && fstatat(g->dirfd, g->name, &st,
	    AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == g->dev &&
	    st.st_ino == g->ino)
		(void)unlinkat(g->dirfd, g->name, 0);
}

/* The session's name of a given source again, as a copy: 0 or -1. */
static int
given_back(const struct apply_given *g, mode_t mode)
{
	struct stat st;

	if (g == NULL || fstatat(g->dirfd, g->name, &st,
	    AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	return fsx_write_atomic_fd(g->dirfd, g->name, g->fd, mode,
	    FSX_NOREPLACE);
}

/* Or, where no copy could be made, a link again of ours, now at pfd/tmp. */
static void
given_relink(const struct apply_given *g, int pfd, const char *tmp)
{
	struct stat st;

	if (fstatat(pfd, tmp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_dev == g->dev && st.st_ino == g->ino)
		(void)linkat(pfd, tmp, g->dirfd, g->name, 0);
}

int
apply_swap_in(struct apply_item *it, const struct apply_env *env, int pfd,
    const char *name, const char *tmp, const struct stat *tst,
    const struct apply_real *r, const struct apply_given *g)
{
	char swp[FSX_SWP_NAMELEN + 1];
	int same, err, back;

	/* never swap a directory out: a type change removes it first */
	if (r->ps.kind == PSTATE_DIR) {
		apply_fail(it, EISDIR);
		goto undo;
	}
	/*
	 * Named by its inode first: what the exchange moves aside lands
	 * under this name, and a sweep after a kill must not take a version
	 * the user saved meanwhile for ours (fsx.h).
	 */
	if (fsx_swap_name(pfd, tmp, tst->st_ino, swp) < 0) {
		apply_fail(it, errno);
		goto undo;
	}
	tmp = swp;
	if (exchange(pfd, tmp, name) < 0) {
		if (errno == ENOENT) {
			apply_refuse(it, APPLY_R_DELETED);
			goto undo;
		}
		if (errno != ENOSYS) {
			apply_fail(it, errno);
			goto undo;
		}
		/* No exchange here: look again right before the rename. */
		if ((same = aside_is_base(it, r, pfd, name)) <= 0) {
			not_base(it, same, errno);
			goto undo;
		}
		if (renameat(pfd, tmp, pfd, name) < 0) {
			apply_fail(it, errno);
			goto undo;
		}
		apply_given_drop(g);
		return 0;
	}
	apply_given_drop(g);
	if ((same = aside_is_base(it, r, pfd, tmp)) <= 0) {
		err = errno;
		/*
		 * The user's version: back in place, ours out, pending. A
		 * given source's name is made again first, as a copy (no
		 * instant without it); where that fails (a full disk), it is
		 * linked again from ours once ours is out.
		 */
		back = given_back(g, it->mode & 07777);
		if (os_rename_exchange(pfd, tmp, name) < 0) {
			apply_fail(it, errno);
			apply_unkeep(it, env);
			return -1;
		}
		if (back < 0)
			given_relink(g, pfd, tmp);
		not_base(it, same, err);
		apply_unkeep(it, env);
		drop_tmp(it, env, pfd, tmp, tst);
		return -1;
	}
	return unlink_aside(it, pfd, tmp);
undo:
	apply_unkeep(it, env);
	unlinkat(pfd, tmp, 0);
	return -1;
}

/* Put tmp in place of an absent name: never over what appeared since. */
int
apply_swap_create(struct apply_item *it, int pfd, const char *name,
    const char *tmp, struct apply_real *r, int srcfd, const char *target)
{
	if (fsx_rename_noreplace(pfd, tmp, name) == 0)
		return 0;
	{
		int saved = errno;

		unlinkat(pfd, tmp, 0);
		errno = saved;
	}
	if (errno != EEXIST && errno != ENOTEMPTY)
		return apply_fail(it, errno);
	/* lost a race with the user, or a run before us did it */
	if (apply_read_real(pfd, name, r) == 0 &&
	    apply_new_matches(it, r, srcfd, target))
		return 0;
	return apply_refuse(it, APPLY_R_CREATED);
}

/* Delete name: keep it, rename it aside, check, drop. */
int
apply_swap_delete(struct apply_item *it, const struct apply_env *env, int pfd,
    const char *name, const struct apply_real *r)
{
	char tmp[FSX_SWP_NAMELEN + 1];
	int same;

	/* named by the inode checked and kept: anything else under the
	   name after a kill is the user's, and a sweep leaves it (fsx.h) */
	if (fsx_swap_name(pfd, name, r->ino, tmp) < 0) {
		if (errno == ENOENT) {
			/* gone meanwhile: the deletion is done */
			apply_unkeep(it, env);
			return 0;
		}
		apply_fail(it, errno);
		goto undo;
	}
	if ((same = aside_is_base(it, r, pfd, tmp)) <= 0) {
		not_base(it, same, errno);
		if (fsx_rename_noreplace(pfd, tmp, name) == 0) {
			apply_unkeep(it, env);
			return -1;
		}
		/* Something new stands at name: keep this one too. */
		drop_tmp(it, env, pfd, tmp, NULL);
		return -1;
	}
	return unlink_aside(it, pfd, tmp);
undo:
	apply_unkeep(it, env);
	return -1;
}
