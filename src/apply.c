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

#include "apply.h"
#include "fsx.h"
#include "hash.h"
#include "mem.h"
#include "os.h"

#define PERM(m)		((m) & 07777)
#define SWEPT_MAX	16
#define OFLAGS		(O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
/*
 * A ctime this close to the moment we hashed may hide a write made in the
 * same tick of the coarse clock the kernel stamps with: hash again.
 */
#define RACY_NS		100000000LL

/* Directories already swept for stale temp files in this run. */
struct swept {
	dev_t	dev[SWEPT_MAX];
	ino_t	ino[SWEPT_MAX];
	size_t	n;
};

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

static const char R_ESCAPE[] =
    "resolves outside the workspace (symlink); refused";
static const char R_CHANGED[] = "changed since capture; refused";
static const char R_CREATED[] = "created since capture; refused";
static const char R_DELETED[] = "deleted since capture; refused";
static const char R_NOTEMPTY[] =
    "not empty: holds entries created since capture; kept";

enum real_type {
	REAL_ABSENT, REAL_REG, REAL_LINK, REAL_DIR, REAL_FIFO, REAL_OTHER
};

/* What is at the target path now. */
struct real {
	enum real_type	 type;
	mode_t		 mode;		/* permission bits */
	mode_t		 fmt;		/* S_IFMT bits */
	off_t		 size;
	dev_t		 dev;
	ino_t		 ino;
	struct timespec	 ctime;
	struct timespec	 at;		/* when it was looked at */
	unsigned char	 sha[HASH_LEN];	/* regular file or link target */
	char		 link[PATH_MAX];
};

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

static int
refuse(struct apply_item *it, const char *why)
{
	it->failed = 1;
	it->err = 0;
	snprintf(it->reason, sizeof it->reason, "%s", why);
	return -1;
}

static int
fail(struct apply_item *it, int err)
{
	it->failed = 1;
	it->err = err;
	snprintf(it->reason, sizeof it->reason, "%s", strerror(err));
	return -1;
}

static enum real_type
type_of(mode_t m)
{
	if (S_ISREG(m))
		return REAL_REG;
	if (S_ISLNK(m))
		return REAL_LINK;
	if (S_ISDIR(m))
		return REAL_DIR;
	if (S_ISFIFO(m))
		return REAL_FIFO;
	return REAL_OTHER;
}

static void
real_from_st(struct real *r, const struct stat *st)
{
	r->type = type_of(st->st_mode);
	r->fmt = st->st_mode & S_IFMT;
	r->mode = PERM(st->st_mode);
	r->size = st->st_size;
	r->dev = st->st_dev;
	r->ino = st->st_ino;
	r->ctime = os_ctime(st);
}

/* Look at dirfd/name: type, mode, identity, and content hash. */
static int
read_real(int pfd, const char *name, struct real *r)
{
	struct stat st;
	ssize_t n;
	int fd;

	clock_gettime(CLOCK_REALTIME, &r->at);
	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			return -1;
		r->type = REAL_ABSENT;
		return 0;
	}
	real_from_st(r, &st);
	if (r->type == REAL_LINK) {
		n = readlinkat(pfd, name, r->link, sizeof r->link);
		if (n < 0)
			return -1;
		if ((size_t)n >= sizeof r->link) {
			errno = ENAMETOOLONG;
			return -1;
		}
		r->link[n] = '\0';
		hash_buf(r->link, (size_t)n, r->sha);
	} else if (r->type == REAL_REG) {
		if ((fd = openat(pfd, name, OFLAGS)) < 0)
			return -1;
		/* Judge what we hash, not what fstatat saw a moment ago. */
		if (fstat(fd, &st) < 0 || (S_ISREG(st.st_mode) &&
		    hash_fd(fd, r->sha) < 0)) {
			fsx_close(fd);
			return -1;
		}
		close(fd);
		real_from_st(r, &st);
	}
	return 0;
}

static unsigned int
base_fmt(const struct apply_base *b)
{
	if (b->is_link)
		return S_IFLNK;
	if (b->is_dir)
		return S_IFDIR;
	if (b->special)
		return b->special;
	return S_IFREG;
}

static int
base_matches(const struct apply_item *it, const struct real *r)
{
	const struct apply_base *b = &it->base;

	if (b->unrecorded)
		return 0;
	if (b->absent)
		return r->type == REAL_ABSENT;
	if (r->type == REAL_ABSENT || r->fmt != base_fmt(b))
		return 0;
	if (b->is_link)
		return memcmp(r->sha, b->sha, HASH_LEN) == 0;
	if (b->is_dir)
		return it->kind != APPLY_CHMOD || r->mode == PERM(b->mode);
	if (b->special)
		return r->mode == PERM(b->mode);
	return r->mode == PERM(b->mode) &&
	    memcmp(r->sha, b->sha, HASH_LEN) == 0;
}

/* The hash of the regular file srcfd, and whether its size is size. */
static int
same_bytes(int srcfd, const struct real *r)
{
	unsigned char sha[HASH_LEN];
	struct stat st;

	if (fstat(srcfd, &st) < 0 || st.st_size != r->size ||
	    hash_fd(srcfd, sha) < 0)
		return 0;
	return memcmp(sha, r->sha, HASH_LEN) == 0;
}

/* Does the real path already hold the new state (apply ran before)? */
static int
new_matches(const struct apply_item *it, const struct real *r, int srcfd,
    const char *target)
{
	switch (it->kind) {
	case APPLY_FILE:
	case APPLY_LINK:
		return r->type == REAL_REG && r->mode == PERM(it->mode) &&
		    same_bytes(srcfd, r);
	case APPLY_SYMLINK:
		return r->type == REAL_LINK && strcmp(r->link, target) == 0;
	case APPLY_FIFO:
		return r->type == REAL_FIFO && r->mode == PERM(it->mode);
	case APPLY_MKDIR:
		return r->type == REAL_DIR;
	case APPLY_DELETE:
	case APPLY_RMDIR:
		return r->type == REAL_ABSENT;
	case APPLY_CHMOD:
		return r->type != REAL_ABSENT && r->type != REAL_LINK &&
		    r->mode == PERM(it->mode) &&
		    (r->type == REAL_DIR) == (it->base.is_dir != 0);
	}
	return 0;
}

/* The new link target: src is a symlink in the upper tree (or, failing
   that, a regular file holding the target). */
static int
read_target(const struct apply_item *it, char *buf, size_t size)
{
	const char *b;
	char *data;
	size_t len;
	ssize_t n;
	int pfd;

	if ((pfd = fsx_open_parent(it->srcdir, it->src, 0, &b)) < 0)
		return -1;
	n = readlinkat(pfd, b, buf, size);
	if (n < 0 && errno == EINVAL) {
		if (fsx_read_all(pfd, b, size - 1, &data, &len) < 0) {
			fsx_close(pfd);
			return -1;
		}
		memcpy(buf, data, len);
		n = (ssize_t)len;
		mem_free(data);
	}
	fsx_close(pfd);
	if (n < 0)
		return -1;
	if ((size_t)n >= size || memchr(buf, '\0', (size_t)n) != NULL) {
		errno = (size_t)n >= size ? ENAMETOOLONG : EINVAL;
		return -1;
	}
	buf[n] = '\0';
	if (n == 0) {
		errno = ENOENT;
		return -1;
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
racy(const struct real *r)
{
	long long c = (long long)r->ctime.tv_sec * 1000000000LL +
	    r->ctime.tv_nsec;
	long long a = (long long)r->at.tv_sec * 1000000000LL + r->at.tv_nsec;

	return c + RACY_NS >= a;
}

/*
 * Is dirfd/tmp, the object just moved aside from the item's path, the one
 * read_real checked (r), unchanged since? The same inode with the same
 * ctime, not racy, is; anything else is looked at again and compared with
 * the base. 1 yes, 0 no, -1 with errno when it cannot be told.
 */
static int
aside_is_base(const struct apply_item *it, const struct real *r, int pfd,
    const char *tmp)
{
	struct real *now;
	struct stat st;
	int ok;

	if (fstatat(pfd, tmp, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (st.st_dev != r->dev || st.st_ino != r->ino)
		return 0;	/* replaced by another object: the user's */
	if (ts_eq(os_ctime(&st), r->ctime) && !racy(r))
		return 1;
	if ((now = mem_alloc(sizeof *now)) == NULL)
		return -1;
	if (read_real(pfd, tmp, now) < 0)
		ok = errno == ENOENT ? 0 : -1;
	else
		ok = now->dev == r->dev && now->ino == r->ino &&
		    base_matches(it, now);
	mem_free(now);
	return ok;
}

/* Keep what is at pfd/name before it is replaced or deleted. */
static int
keep_first(struct apply_item *it, const struct apply_env *env, int pfd,
    const char *name, const struct real *r)
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
			return refuse(it, fstatat(pfd, name, &st,
			    AT_SYMLINK_NOFOLLOW) == 0 ? R_CHANGED : R_DELETED);
		it->failed = 1;
		it->err = errno;
		snprintf(msg, sizeof msg, "cannot keep what it replaces: %s",
		    strerror(errno));
		snprintf(it->reason, sizeof it->reason, "%s", msg);
		return -1;
	}
	/* What got kept must be what was checked. */
	if ((k.linked && (k.dev != r->dev || k.ino != r->ino)) ||
	    (!k.linked && k.have_sha && memcmp(k.sha, r->sha, HASH_LEN) != 0)) {
		env->keep->drop(env->keep->arg, it->path);
		return refuse(it, R_CHANGED);
	}
	it->kept = 1;
	return 0;
}

static void
unkeep(struct apply_item *it, const struct apply_env *env)
{
	if (it->kept && env != NULL && env->keep != NULL)
		env->keep->drop(env->keep->arg, it->path);
	it->kept = 0;
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
	unkeep(it, env);
	if (env != NULL && env->keep != NULL &&
	    env->keep->put(env->keep->arg, it->path, pfd, tmp, &k) == 0) {
		it->kept = 1;
		unlinkat(pfd, tmp, 0);
		snprintf(it->reason, sizeof it->reason, "%s (the version found "
		    "in place meanwhile is kept)", R_CHANGED);
	} else
		snprintf(it->reason, sizeof it->reason, "%s (the version found "
		    "in place meanwhile is left at %s)", R_CHANGED, tmp);
}

/*
 * Put the temp object tmp (inode tst) where name is, name holding what r
 * describes and the base says: keep it, swap, check what moved aside,
 * swap back on a mismatch.
 */
static int
swap_in(struct apply_item *it, const struct apply_env *env, int pfd,
    const char *name, const char *tmp, const struct stat *tst,
    const struct real *r)
{
	int same, err;

	/* never swap a directory out: a type change removes it first */
	if (r->type == REAL_DIR) {
		fail(it, EISDIR);
		goto undo;
	}
	if (keep_first(it, env, pfd, name, r) < 0)
		goto undo;
	if (exchange(pfd, tmp, name) < 0) {
		if (errno == ENOENT) {
			refuse(it, R_DELETED);
			goto undo;
		}
		if (errno != ENOSYS) {
			fail(it, errno);
			goto undo;
		}
		/* No exchange here: look again right before the rename. */
		if ((same = aside_is_base(it, r, pfd, name)) <= 0) {
			if (same < 0)
				fail(it, errno);
			else
				refuse(it, R_CHANGED);
			goto undo;
		}
		if (renameat(pfd, tmp, pfd, name) < 0) {
			fail(it, errno);
			goto undo;
		}
		return fsx_sync_dir(pfd) < 0 ? fail(it, errno) : 0;
	}
	if ((same = aside_is_base(it, r, pfd, tmp)) <= 0) {
		err = errno;
		/* The user's version: back in place, ours out. */
		if (os_rename_exchange(pfd, tmp, name) < 0) {
			fail(it, errno);
			unkeep(it, env);
			return -1;
		}
		if (same < 0)
			fail(it, err);
		else
			refuse(it, R_CHANGED);
		unkeep(it, env);
		drop_tmp(it, env, pfd, tmp, tst);
		return -1;
	}
	if (unlinkat(pfd, tmp, 0) < 0 && errno != ENOENT)
		return fail(it, errno);
	return fsx_sync_dir(pfd) < 0 ? fail(it, errno) : 0;
undo:
	unkeep(it, env);
	unlinkat(pfd, tmp, 0);
	return -1;
}

/* Put tmp in place of an absent name: never over what appeared since. */
static int
create_in(struct apply_item *it, int pfd, const char *name, const char *tmp,
    struct real *r, int srcfd, const char *target)
{
	if (fsx_rename_noreplace(pfd, tmp, name) == 0)
		return fsx_sync_dir(pfd) < 0 ? fail(it, errno) : 0;
	{
		int saved = errno;

		unlinkat(pfd, tmp, 0);
		errno = saved;
	}
	if (errno != EEXIST && errno != ENOTEMPTY)
		return fail(it, errno);
	/* lost a race with the user, or a run before us did it */
	if (read_real(pfd, name, r) == 0 && new_matches(it, r, srcfd, target))
		return 0;
	return refuse(it, R_CREATED);
}

/* Make the new object of a FILE, SYMLINK, FIFO or LINK item under tmp. */
static int
make_new(struct apply_item *it, int rootfd, int pfd, int srcfd,
    const char *target, char *tmp, struct stat *tst)
{
	const char *lname;
	int lpfd, rc = -1;
	struct real *lr = NULL;
	struct stat st;

	switch (it->kind) {
	case APPLY_FILE:
		return fsx_tmp_file(pfd, srcfd, PERM(it->mode), tmp, tst);
	case APPLY_SYMLINK:
		if (fsx_tmp_symlink(pfd, target, tmp) < 0)
			return -1;
		break;
	case APPLY_FIFO:
		if (fsx_tmp_fifo(pfd, PERM(it->mode), tmp) < 0)
			return -1;
		break;
	case APPLY_LINK:
		/* The file it links to must hold this file's bytes by now. */
		if ((lpfd = fsx_open_parent(rootfd, it->link, 0, &lname)) < 0)
			return -1;
		if ((lr = mem_alloc(sizeof *lr)) == NULL ||
		    read_real(lpfd, lname, lr) < 0)
			goto out;
		if (lr->type != REAL_REG || lr->mode != PERM(it->mode) ||
		    !same_bytes(srcfd, lr)) {
			errno = ESTALE;
			goto out;
		}
		if (fsx_tmp_link(lpfd, lname, pfd, tmp) < 0)
			goto out;
		/* and what got linked is what was checked */
		if (fstatat(pfd, tmp, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    st.st_ino != lr->ino || st.st_dev != lr->dev ||
		    ((!ts_eq(os_ctime(&st), lr->ctime) || racy(lr)) &&
		    (read_real(pfd, tmp, lr) < 0 || lr->type != REAL_REG ||
		    lr->mode != PERM(it->mode) || !same_bytes(srcfd, lr)))) {
			unlinkat(pfd, tmp, 0);
			errno = ESTALE;
			goto out;
		}
		rc = 0;
out:
		mem_free(lr);
		fsx_close(lpfd);
		if (rc < 0)
			return -1;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	return fstatat(pfd, tmp, tst, AT_SYMLINK_NOFOLLOW) < 0 ? -1 : 0;
}

static int
place(struct apply_item *it, const struct apply_env *env, int rootfd,
    int pfd, const char *name, int srcfd, const char *target, struct real *r)
{
	char tmp[FSX_TMP_NAMELEN + 1];
	struct stat tst;

	if (make_new(it, rootfd, pfd, srcfd, target, tmp, &tst) < 0) {
		if (errno == ESTALE && it->kind == APPLY_LINK)
			return refuse(it, "the file it is a hard link of does "
			    "not hold its content; kept");
		return fail(it, errno);
	}
	if (it->base.absent)
		return create_in(it, pfd, name, tmp, r, srcfd, target);
	return swap_in(it, env, pfd, name, tmp, &tst, r);
}

/* Delete name: keep it, rename it aside, check, drop. */
static int
delete_one(struct apply_item *it, const struct apply_env *env, int pfd,
    const char *name, const struct real *r)
{
	char tmp[FSX_TMP_NAMELEN + 1];
	int tries, same;

	if (keep_first(it, env, pfd, name, r) < 0)
		return -1;
	for (tries = 0; ; tries++) {
		if (fsx_tmp_name(tmp) < 0) {
			fail(it, errno);
			goto undo;
		}
		if (fsx_rename_noreplace(pfd, name, tmp) == 0)
			break;
		if (errno == ENOENT) {
			/* gone meanwhile: the deletion is done */
			unkeep(it, env);
			return 0;
		}
		if (errno != EEXIST || tries == 8) {
			fail(it, errno);
			goto undo;
		}
	}
	if ((same = aside_is_base(it, r, pfd, tmp)) <= 0) {
		if (same < 0)
			fail(it, errno);
		else
			refuse(it, R_CHANGED);
		if (fsx_rename_noreplace(pfd, tmp, name) == 0) {
			unkeep(it, env);
			return -1;
		}
		/* Something new stands at name: keep this one too. */
		drop_tmp(it, env, pfd, tmp, NULL);
		return -1;
	}
	if (unlinkat(pfd, tmp, 0) < 0 && errno != ENOENT)
		return fail(it, errno);
	return fsx_sync_dir(pfd) < 0 ? fail(it, errno) : 0;
undo:
	unkeep(it, env);
	return -1;
}

/* chmod name, the object read_real saw (r), never a replacement. */
static int
chmod_one(struct apply_item *it, int pfd, const char *name,
    const struct real *r)
{
	struct stat st;
	int fd;

	fd = openat(pfd, name, os_o_path | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	if (fd < 0 && errno == EACCES)
		fd = openat(pfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC);
	if (fd < 0)
		return fail(it, errno);
	if (fstat(fd, &st) < 0) {
		fail(it, errno);
		close(fd);
		return -1;
	}
	close(fd);
	if (st.st_dev != r->dev || st.st_ino != r->ino)
		return refuse(it, R_CHANGED);
	if (fsx_chmod_nofollow(pfd, name, PERM(it->mode)) < 0)
		return fail(it, errno);
	return fsx_sync_dir(pfd) < 0 ? fail(it, errno) : 0;
}

static int
perform(struct apply_item *it, const struct apply_env *env, int rootfd,
    int pfd, const char *name, int srcfd, const char *target, struct real *r)
{
	mode_t mode = PERM(it->mode);

	switch (it->kind) {
	case APPLY_FILE:
	case APPLY_SYMLINK:
	case APPLY_FIFO:
	case APPLY_LINK:
		return place(it, env, rootfd, pfd, name, srcfd, target, r);
	case APPLY_MKDIR:
		if (mkdirat(pfd, name, mode) < 0) {
			if (errno == EEXIST && read_real(pfd, name, r) == 0 &&
			    r->type == REAL_DIR)
				return 0;
			if (errno == EEXIST)
				return refuse(it, R_CREATED);
			return fail(it, errno);
		}
		if (fsx_chmod_nofollow(pfd, name, mode) < 0 ||
		    fsx_sync_dir(pfd) < 0)
			return fail(it, errno);
		return 0;
	case APPLY_DELETE:
		return delete_one(it, env, pfd, name, r);
	case APPLY_RMDIR:
		if (unlinkat(pfd, name, AT_REMOVEDIR) < 0) {
			if (errno == ENOENT)
				return 0;
			if (errno == ENOTEMPTY || errno == EEXIST)
				return refuse(it, R_NOTEMPTY);
			return fail(it, errno);
		}
		return fsx_sync_dir(pfd) < 0 ? fail(it, errno) : 0;
	case APPLY_CHMOD:
		return chmod_one(it, pfd, name, r);
	}
	return fail(it, EINVAL);
}

static int
creates(const struct apply_item *it)
{
	return it->base.absent && (it->kind == APPLY_FILE ||
	    it->kind == APPLY_SYMLINK || it->kind == APPLY_MKDIR ||
	    it->kind == APPLY_FIFO || it->kind == APPLY_LINK);
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

/* The upper copy of a FILE or LINK item: a regular file, opened. */
static int
open_src(struct apply_item *it)
{
	struct stat st;
	int fd;

	fd = fsx_open_beneath(it->srcdir, it->src, OFLAGS, 0);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		fsx_close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

static int
apply_one(int rootfd, struct apply_item *it, struct swept *sw,
    const struct apply_env *env)
{
	char target[PATH_MAX], why[128];
	struct real *r = NULL;
	const char *name;
	int pfd, srcfd = -1, rc = -1;

	target[0] = '\0';
	pfd = fsx_open_parent(rootfd, it->path, creates(it), &name);
	if (pfd < 0) {
		if (errno == EXDEV)
			return refuse(it, R_ESCAPE);
		if (errno == ENOENT && !it->base.absent) {
			/* Gone with its directory. */
			if (it->kind == APPLY_DELETE || it->kind == APPLY_RMDIR)
				return 0;
			if (!it->base.unrecorded)
				return refuse(it, R_DELETED);
		}
		if (it->base.unrecorded)
			return refuse(it, apply_unrecorded_reason(it->base.why,
			    why, sizeof why));
		return fail(it, errno);
	}

	sweep(pfd, sw);

	if (it->kind == APPLY_FILE || it->kind == APPLY_LINK) {
		if ((srcfd = open_src(it)) < 0) {
			fail(it, errno);
			goto out;
		}
	} else if (it->kind == APPLY_SYMLINK &&
	    read_target(it, target, sizeof target) < 0) {
		fail(it, errno);
		goto out;
	}

	if ((r = mem_alloc(sizeof *r)) == NULL || read_real(pfd, name, r) < 0) {
		fail(it, errno);
		goto out;
	}
	if (!base_matches(it, r)) {
		if (new_matches(it, r, srcfd, target))
			rc = 0;
		else if (it->base.unrecorded)
			refuse(it, apply_unrecorded_reason(it->base.why, why,
			    sizeof why));
		else if (it->base.absent)
			refuse(it, R_CREATED);
		else if (r->type == REAL_ABSENT)
			refuse(it, R_DELETED);
		else
			refuse(it, R_CHANGED);
		goto out;
	}
	rc = perform(it, env, rootfd, pfd, name, srcfd, target, r);
out:
	mem_free(r);
	fsx_close(srcfd);
	fsx_close(pfd);
	return rc;
}

long
apply_run(int rootfd, struct apply_item *items, size_t n,
    const struct apply_env *env)
{
	struct swept sw;
	struct stat st;
	long failed = 0;
	size_t i;

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
	sw.n = 0;
	for (i = 0; i < n; i++) {
		items[i].failed = 0;
		items[i].err = 0;
		items[i].kept = 0;
		items[i].reason[0] = '\0';
		if (items[i].path == NULL || (items[i].src == NULL &&
		    (items[i].kind == APPLY_FILE ||
		    items[i].kind == APPLY_SYMLINK ||
		    items[i].kind == APPLY_LINK)) ||
		    (items[i].kind == APPLY_LINK && items[i].link == NULL)) {
			fail(&items[i], EINVAL);
			failed++;
		} else if (apply_one(rootfd, &items[i], &sw, env) < 0)
			failed++;
		if (env != NULL && env->progress != NULL)
			env->progress(env->parg);
	}
	return failed;
}
