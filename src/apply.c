#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "apply.h"
#include "fsx.h"
#include "hash.h"
#include "mem.h"

#define PERM(m)		((m) & 07777)
#define RMTREE_DEPTH	256
#define SWEPT_MAX	16

/* Directories already swept for stale temp files in this run. */
struct swept {
	dev_t	dev[SWEPT_MAX];
	ino_t	ino[SWEPT_MAX];
	size_t	n;
};

static const char R_ESCAPE[] =
    "resolves outside the workspace (symlink); refused";
static const char R_CHANGED[] = "changed since capture; refused";
static const char R_CREATED[] = "created since capture; refused";
static const char R_DELETED[] = "deleted since capture; refused";

enum real_type { REAL_ABSENT, REAL_REG, REAL_LINK, REAL_DIR, REAL_OTHER };

/* What is at the target path now. */
struct real {
	enum real_type	 type;
	mode_t		 mode;
	off_t		 size;
	unsigned char	 sha[HASH_LEN];	/* regular file or link target */
	char		 link[PATH_MAX];
};

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

static int
read_real(int pfd, const char *name, struct real *r)
{
	struct stat st;
	ssize_t n;
	int fd;

	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			return -1;
		r->type = REAL_ABSENT;
		return 0;
	}
	r->mode = PERM(st.st_mode);
	r->size = st.st_size;
	if (S_ISDIR(st.st_mode))
		r->type = REAL_DIR;
	else if (S_ISLNK(st.st_mode)) {
		n = readlinkat(pfd, name, r->link, sizeof r->link);
		if (n < 0)
			return -1;
		if ((size_t)n >= sizeof r->link) {
			errno = ENAMETOOLONG;
			return -1;
		}
		r->link[n] = '\0';
		hash_buf(r->link, (size_t)n, r->sha);
		r->type = REAL_LINK;
	} else if (S_ISREG(st.st_mode)) {
		fd = openat(pfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC);
		if (fd < 0)
			return -1;
		/* Judge what we hash, not what fstatat saw a moment ago. */
		if (fstat(fd, &st) < 0 || hash_fd(fd, r->sha) < 0) {
			fsx_close(fd);
			return -1;
		}
		close(fd);
		r->type = S_ISREG(st.st_mode) ? REAL_REG : REAL_OTHER;
		r->mode = PERM(st.st_mode);
		r->size = st.st_size;
	} else
		r->type = REAL_OTHER;
	return 0;
}

static int
base_matches(const struct apply_item *it, const struct real *r)
{
	const struct apply_base *b = &it->base;

	if (b->absent)
		return r->type == REAL_ABSENT;
	if (b->is_link)
		return r->type == REAL_LINK &&
		    memcmp(r->sha, b->sha, HASH_LEN) == 0;
	if (b->is_dir)
		return r->type == REAL_DIR && (it->kind != APPLY_CHMOD ||
		    r->mode == PERM(b->mode));
	return r->type == REAL_REG && r->mode == PERM(b->mode) &&
	    memcmp(r->sha, b->sha, HASH_LEN) == 0;
}

/* Does the real path already hold the new state (apply ran before)? */
static int
new_matches(const struct apply_item *it, const struct real *r, int srcfd,
    const char *target)
{
	unsigned char sha[HASH_LEN];
	struct stat st;

	switch (it->kind) {
	case APPLY_FILE:
		if (r->type != REAL_REG || r->mode != PERM(it->mode) ||
		    fstat(srcfd, &st) < 0 || st.st_size != r->size ||
		    hash_fd(srcfd, sha) < 0)
			return 0;
		return memcmp(sha, r->sha, HASH_LEN) == 0;
	case APPLY_SYMLINK:
		return r->type == REAL_LINK && strcmp(r->link, target) == 0;
	case APPLY_MKDIR:
		return r->type == REAL_DIR;
	case APPLY_DELETE:
	case APPLY_RMTREE:
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

/* Remove dirfd/name and everything under it; no symlink is followed. */
static int
rmtree_at(int dirfd, const char *name, int depth)
{
	struct dirent *e;
	DIR *d;
	int fd, pass;

	if (depth > RMTREE_DEPTH) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (pass = 0; pass < 4; pass++) {
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (fd < 0)
			return errno == ENOENT ? 0 : -1;
		if ((d = fdopendir(fd)) == NULL) {
			fsx_close(fd);
			return -1;
		}
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0)
				continue;
			if (unlinkat(fd, e->d_name, 0) == 0 || errno == ENOENT)
				continue;
			if ((errno != EISDIR && errno != EPERM) ||
			    rmtree_at(fd, e->d_name, depth + 1) < 0) {
				int saved = errno;

				closedir(d);
				errno = saved;
				return -1;
			}
		}
		closedir(d);
		if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
			return 0;
		if (errno != ENOTEMPTY && errno != EEXIST)
			return -1;
		/* Something appeared meanwhile: go round again. */
	}
	return -1;
}

static int
sync_dir(int pfd)
{
	if (fsync(pfd) == 0 || errno == EBADF || errno == EINVAL)
		return 0;
	return -1;
}

static int
perform(struct apply_item *it, int pfd, const char *name, int srcfd,
    const char *target)
{
	mode_t mode = PERM(it->mode);

	switch (it->kind) {
	case APPLY_FILE:
		return fsx_write_atomic_fd(pfd, name, srcfd, mode,
		    it->base.absent);
	case APPLY_SYMLINK:
		return fsx_symlink_atomic(pfd, name, target, it->base.absent);
	case APPLY_MKDIR:
		if (mkdirat(pfd, name, mode) < 0)
			return -1;
		if (fsx_chmod_nofollow(pfd, name, mode) < 0)
			return -1;
		return sync_dir(pfd);
	case APPLY_DELETE:
		if (unlinkat(pfd, name, 0) < 0 && errno != ENOENT)
			return -1;
		return sync_dir(pfd);
	case APPLY_RMTREE:
		if (rmtree_at(pfd, name, 0) < 0)
			return -1;
		return sync_dir(pfd);
	case APPLY_CHMOD:
		if (fsx_chmod_nofollow(pfd, name, mode) < 0)
			return -1;
		return sync_dir(pfd);
	}
	errno = EINVAL;
	return -1;
}

static int
creates(const struct apply_item *it)
{
	return it->base.absent && (it->kind == APPLY_FILE ||
	    it->kind == APPLY_SYMLINK || it->kind == APPLY_MKDIR);
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

static int
apply_one(int rootfd, struct apply_item *it, struct swept *sw)
{
	char target[PATH_MAX];
	struct real *r = NULL;
	struct stat st;
	const char *name;
	int pfd, srcfd = -1, rc = -1;

	target[0] = '\0';
	pfd = fsx_open_parent(rootfd, it->path, creates(it), &name);
	if (pfd < 0) {
		if (errno == EXDEV)
			return refuse(it, R_ESCAPE);
		if (errno == ENOENT && !it->base.absent) {
			/* Gone with its directory. */
			if (it->kind == APPLY_DELETE ||
			    it->kind == APPLY_RMTREE)
				return 0;
			return refuse(it, R_DELETED);
		}
		return fail(it, errno);
	}

	sweep(pfd, sw);

	if (it->kind == APPLY_FILE) {
		srcfd = fsx_open_beneath(it->srcdir, it->src, O_RDONLY |
		    O_NOFOLLOW | O_NONBLOCK, 0);
		if (srcfd < 0) {
			fail(it, errno);
			goto out;
		}
		if (fstat(srcfd, &st) < 0) {
			fail(it, errno);
			goto out;
		}
		if (!S_ISREG(st.st_mode)) {
			fail(it, EINVAL);
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
		else if (it->base.absent)
			refuse(it, R_CREATED);
		else if (r->type == REAL_ABSENT)
			refuse(it, R_DELETED);
		else
			refuse(it, R_CHANGED);
		goto out;
	}

	if (perform(it, pfd, name, srcfd, target) < 0) {
		if (errno == EEXIST && it->base.absent) {
			/* noreplace lost a race with the user. */
			if (read_real(pfd, name, r) == 0 &&
			    new_matches(it, r, srcfd, target))
				rc = 0;
			else
				refuse(it, R_CREATED);
		} else
			fail(it, errno);
		goto out;
	}
	rc = 0;
out:
	mem_free(r);
	fsx_close(srcfd);
	fsx_close(pfd);
	return rc;
}

long
apply_run(int rootfd, struct apply_item *items, size_t n)
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
		items[i].reason[0] = '\0';
		if (items[i].path == NULL || (items[i].src == NULL &&
		    (items[i].kind == APPLY_FILE ||
		    items[i].kind == APPLY_SYMLINK))) {
			fail(&items[i], EINVAL);
			failed++;
			continue;
		}
		if (apply_one(rootfd, &items[i], &sw) < 0)
			failed++;
	}
	return failed;
}
