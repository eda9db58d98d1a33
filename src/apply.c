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
#include "apply_swap.h"
#include "fsx.h"
#include "hash.h"
#include "mem.h"
#include "os.h"

#define PERM(m)		((m) & 07777)
#define SWEPT_MAX	16
#define OFLAGS		(O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)

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

/* Make the new object of a FILE, SYMLINK, FIFO or LINK item under tmp. */
static int
make_new(struct apply_item *it, int rootfd, int pfd, int srcfd,
    const char *target, char *tmp, struct stat *tst)
{
	const char *lname;
	int lpfd, rc = -1;
	struct apply_real *lr = NULL;
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
		    apply_read_real(lpfd, lname, lr) < 0)
			goto out;
		if (lr->type != REAL_REG || lr->mode != PERM(it->mode) ||
		    !apply_same_bytes(srcfd, lr)) {
			errno = ESTALE;
			goto out;
		}
		if (fsx_tmp_link(lpfd, lname, pfd, tmp) < 0)
			goto out;
		/* and what got linked is what was checked */
		if (fstatat(pfd, tmp, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    st.st_ino != lr->ino || st.st_dev != lr->dev ||
		    (!apply_real_unchanged(&st, lr) &&
		    (apply_read_real(pfd, tmp, lr) < 0 ||
		    lr->type != REAL_REG || lr->mode != PERM(it->mode) ||
		    !apply_same_bytes(srcfd, lr)))) {
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
    int pfd, const char *name, int srcfd, const char *target,
    struct apply_real *r)
{
	char tmp[FSX_TMP_NAMELEN + 1];
	struct stat tst;

	if (make_new(it, rootfd, pfd, srcfd, target, tmp, &tst) < 0) {
		if (errno == ESTALE && it->kind == APPLY_LINK)
			return apply_refuse(it, "the file it is a hard link "
			    "of does not hold its content; kept");
		return apply_fail(it, errno);
	}
	if (it->base.absent)
		return apply_swap_create(it, pfd, name, tmp, r, srcfd, target);
	return apply_swap_in(it, env, pfd, name, tmp, &tst, r);
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
	if (fsx_chmod_nofollow(pfd, name, PERM(it->mode)) < 0)
		return apply_fail(it, errno);
	return fsx_sync_dir(pfd) < 0 ? apply_fail(it, errno) : 0;
}

static int
perform(struct apply_item *it, const struct apply_env *env, int rootfd,
    int pfd, const char *name, int srcfd, const char *target,
    struct apply_real *r)
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
			if (errno == EEXIST &&
			    apply_read_real(pfd, name, r) == 0 &&
			    r->type == REAL_DIR)
				return 0;
			if (errno == EEXIST)
				return apply_refuse(it, APPLY_R_CREATED);
			return apply_fail(it, errno);
		}
		if (fsx_chmod_nofollow(pfd, name, mode) < 0 ||
		    fsx_sync_dir(pfd) < 0)
			return apply_fail(it, errno);
		return 0;
	case APPLY_DELETE:
		return apply_swap_delete(it, env, pfd, name, r);
	case APPLY_RMDIR:
		if (unlinkat(pfd, name, AT_REMOVEDIR) < 0) {
			if (errno == ENOENT)
				return 0;
			if (errno == ENOTEMPTY || errno == EEXIST)
				return apply_refuse(it, R_NOTEMPTY);
			return apply_fail(it, errno);
		}
		return fsx_sync_dir(pfd) < 0 ? apply_fail(it, errno) : 0;
	case APPLY_CHMOD:
		return chmod_one(it, pfd, name, r);
	}
	return apply_fail(it, EINVAL);
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
	struct apply_real *r = NULL;
	const char *name;
	int pfd, srcfd = -1, rc = -1;

	target[0] = '\0';
	pfd = fsx_open_parent(rootfd, it->path, creates(it), &name);
	if (pfd < 0) {
		if (errno == EXDEV)
			return apply_refuse(it, R_ESCAPE);
		if (errno == ENOENT && !it->base.absent) {
			/* Gone with its directory. */
			if (it->kind == APPLY_DELETE || it->kind == APPLY_RMDIR)
				return 0;
			if (!it->base.unrecorded)
				return apply_refuse(it, APPLY_R_DELETED);
		}
		if (it->base.unrecorded)
			return apply_refuse(it, apply_unrecorded_reason(
			    it->base.why, why, sizeof why));
		return apply_fail(it, errno);
	}

	sweep(pfd, sw);

	if (it->kind == APPLY_FILE || it->kind == APPLY_LINK) {
		if ((srcfd = open_src(it)) < 0) {
			apply_fail(it, errno);
			goto out;
		}
	} else if (it->kind == APPLY_SYMLINK &&
	    read_target(it, target, sizeof target) < 0) {
		apply_fail(it, errno);
		goto out;
	}

	if ((r = mem_alloc(sizeof *r)) == NULL ||
	    apply_read_real(pfd, name, r) < 0) {
		apply_fail(it, errno);
		goto out;
	}
	if (!apply_base_matches(it, r)) {
		if (apply_new_matches(it, r, srcfd, target))
			rc = 0;
		else if (it->base.unrecorded)
			apply_refuse(it, apply_unrecorded_reason(it->base.why,
			    why, sizeof why));
		else if (it->base.absent)
			apply_refuse(it, APPLY_R_CREATED);
		else if (r->type == REAL_ABSENT)
			apply_refuse(it, APPLY_R_DELETED);
		else
			apply_refuse(it, APPLY_R_CHANGED);
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
			apply_fail(&items[i], EINVAL);
			failed++;
		} else if (apply_one(rootfd, &items[i], &sw, env) < 0)
			failed++;
		if (env != NULL && env->progress != NULL)
			env->progress(env->parg);
	}
	return failed;
}
