#include <sys/stat.h>
#include <sys/types.h>
#if defined(__linux__) || defined(__APPLE__)
#include <sys/xattr.h>
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsx.h"
#include "hash.h"
#include "mem.h"
#include "overlay.h"

#define PERM(m)		((unsigned int)(m) & 07777)
#define OFLAGS		(O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
#define DFLAGS		(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define DEPTH_MAX	512

/*
 * Extended attributes are not POSIX; overlayfs needs exactly two of
 * them (whiteout, opaque), so the two platform spellings stay here.
 */
static long
xattr_get(int fd, const char *name, char *buf, size_t len)
{
#if defined(__APPLE__)
	return (long)fgetxattr(fd, name, buf, len, 0, 0);
#elif defined(__linux__)
	return (long)fgetxattr(fd, name, buf, len);
#else
	errno = ENOTSUP;
	return -1;
#endif
}

static int
xattr_set(int fd, const char *name, const char *val, size_t len)
{
#if defined(__APPLE__)
	return fsetxattr(fd, name, val, len, 0, 0);
#elif defined(__linux__)
	return fsetxattr(fd, name, val, len, 0);
#else
	errno = ENOTSUP;
	return -1;
#endif
}

/* 'y' opaque, 'x' holds xattr whiteouts, 0 neither. */
static int
dir_opaque(int fd)
{
	static const char *names[] = { "trusted.overlay.opaque",
	    "user.overlay.opaque" };
	char v[4];
	size_t i;
	long n;
	int r = 0;

	for (i = 0; i < 2; i++) {
		n = xattr_get(fd, names[i], v, sizeof v);
		if (n == 1 && v[0] == 'y')
			return 'y';
		if (n == 1 && v[0] == 'x')
			r = 'x';
	}
	return r;
}

static int
file_is_xwhiteout(int dirfd, const char *name)
{
	char v[4];
	int fd, r;

	fd = openat(dirfd, name, OFLAGS);
	if (fd < 0)
		return 0;
	r = xattr_get(fd, "trusted.overlay.whiteout", v, sizeof v) >= 0 ||
	    xattr_get(fd, "user.overlay.whiteout", v, sizeof v) >= 0;
	close(fd);
	return r;
}

static int
st_is_whiteout(int dirfd, const char *name, const struct stat *st)
{
	if (S_ISCHR(st->st_mode) && st->st_rdev == 0)
		return 1;
	if (S_ISREG(st->st_mode) && st->st_size == 0)
		return file_is_xwhiteout(dirfd, name);
	return 0;
}

int
overlay_is_whiteout(int dirfd, const char *name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	return st_is_whiteout(dirfd, name, &st);
}

/* What an upper entry is: OVERLAY_* plus 'W' for a whiteout. */
#define UP_WHITEOUT	100

static int
kind_from_st(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return OVERLAY_FILE;
	if (S_ISLNK(st->st_mode))
		return OVERLAY_SYMLINK;
	if (S_ISDIR(st->st_mode))
		return OVERLAY_DIR;
	return OVERLAY_SPECIAL;
}

static int
kind_of(int dirfd, const char *name, struct stat *st, int upper)
{
	if (fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return OVERLAY_ABSENT;
		return -1;
	}
	if (upper && st_is_whiteout(dirfd, name, st))
		return UP_WHITEOUT;
	return kind_from_st(st);
}

static int
tmp_name(char *buf, size_t len)
{
	unsigned char r[FSX_TMP_RANDLEN / 2];
	static const char hex[] = "0123456789abcdef";
	size_t i, pl = sizeof FSX_TMP_PREFIX - 1;

	if (len < FSX_TMP_NAMELEN + 1 || hash_random(r, sizeof r) < 0)
		return -1;
	memcpy(buf, FSX_TMP_PREFIX, pl);
	for (i = 0; i < sizeof r; i++) {
		buf[pl + 2 * i] = hex[r[i] >> 4];
		buf[pl + 2 * i + 1] = hex[r[i] & 15];
	}
	buf[FSX_TMP_NAMELEN] = '\0';
	return 0;
}

/* Make dirfd/name a whiteout, replacing what is there (not a dir). */
static int
make_whiteout(int dirfd, const char *name)
{
	char tmp[FSX_TMP_NAMELEN + 1], v[4];
	int fd;

	if (tmp_name(tmp, sizeof tmp) < 0)
		return -1;
	if (mknodat(dirfd, tmp, S_IFCHR | 0, 0) < 0) {
		if (errno != EPERM)
			return -1;
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return -1;
		if (xattr_set(fd, "user.overlay.whiteout", "y", 1) < 0) {
			fsx_close(fd);
			goto fail;
		}
		close(fd);
		if (xattr_get(dirfd, "user.overlay.opaque", v, sizeof v) < 0 &&
		    xattr_set(dirfd, "user.overlay.opaque", "x", 1) < 0)
			goto fail;
	}
	if (renameat(dirfd, tmp, dirfd, name) < 0)
		goto fail;
	return 0;
fail:
	{
		int saved = errno;

		unlinkat(dirfd, tmp, 0);
		errno = saved;
	}
	return -1;
}

/* ---- path resolution ---- */

static int
append(char *buf, size_t *len, const char *comp, size_t clen)
{
	if (*len + 1 + clen + 1 > PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (*len != 1 || buf[0] != '/')
		buf[(*len)++] = '/';
	memcpy(buf + *len, comp, clen);
	*len += clen;
	buf[*len] = '\0';
	return 0;
}

int
overlay_resolve(const char *workspace, const char *path, char **out)
{
	char *abs = NULL, *w = NULL, *res = NULL, *slash;
	const char *tail, *p, *q;
	size_t wl = strlen(workspace), al, len;
	int rc = -1;

	*out = NULL;
	if (path[0] == '\0') {
		errno = ENOENT;
		return -1;
	}
	al = (path[0] == '/' ? 0 : wl + 1) + strlen(path) + 1;
	if ((abs = mem_alloc(al)) == NULL || (w = mem_alloc(al)) == NULL ||
	    (res = mem_alloc(PATH_MAX + 1)) == NULL)
		goto out;
	if (path[0] == '/')
		snprintf(abs, al, "%s", path);
	else
		snprintf(abs, al, "%s/%s", workspace, path);
	memcpy(w, abs, al);
	for (;;) {
		if (realpath(w, res) != NULL)
			break;
		if (errno != ENOENT)
			goto out;
		len = strlen(w);
		while (len > 1 && w[len - 1] == '/')
			w[--len] = '\0';
		slash = strrchr(w, '/');
		if (slash == NULL)
			goto out;
		if (slash == w)
			w[1] = '\0';
		else
			*slash = '\0';
	}
	/* The rest did not exist: clean it lexically. */
	tail = abs + strlen(w);
	len = strlen(res);
	for (p = tail; *p != '\0'; p = q) {
		while (*p == '/')
			p++;
		for (q = p; *q != '\0' && *q != '/'; q++)
			;
		if (q == p || (q - p == 1 && p[0] == '.'))
			continue;
		if (q - p == 2 && p[0] == '.' && p[1] == '.') {
			while (len > 1 && res[len - 1] != '/')
				len--;
			if (len > 1)
				len--;
			res[len] = '\0';
			continue;
		}
		if (append(res, &len, p, (size_t)(q - p)) < 0)
			goto out;
	}
	if (strcmp(res, workspace) == 0) {
		errno = EISDIR;
		goto out;
	}
	if (strcmp(workspace, "/") == 0)
		*out = mem_strdup(res + 1);
	else if (strncmp(res, workspace, wl) == 0 && res[wl] == '/')
		*out = mem_strdup(res + wl + 1);
	else {
		*out = mem_strdup(res);
		rc = *out == NULL ? -1 : 1;
		goto out;
	}
	rc = *out == NULL ? -1 : 0;
out:
	mem_free(abs);
	mem_free(w);
	mem_free(res);
	return rc;
}

/* ---- the merged view of one path ---- */

struct walk {
	int		 ufd;	/* upper dir holding name, or -1 */
	int		 rfd;	/* real dir holding name, or -1 */
	int		 hidden; /* the real side is hidden by upper */
	const char	*name;	/* last component, inside rel */
};

static void
walk_done(struct walk *w)
{
	fsx_close(w->ufd);
	fsx_close(w->rfd);
	w->ufd = w->rfd = -1;
}

/* Replace the whiteout ufd/c by a dir hiding the real dir's children. */
static int
unwhite_dir(int ufd, const char *c, int rfd, mode_t mode)
{
	struct dirent *e;
	DIR *d;
	int nfd, fd;

	if (unlinkat(ufd, c, 0) < 0 || mkdirat(ufd, c, 0700) < 0)
		return -1;
	if ((nfd = openat(ufd, c, DFLAGS)) < 0)
		return -1;
	if (fchmod(nfd, mode) < 0)
		goto fail;
	if (rfd >= 0 && (fd = openat(rfd, c, DFLAGS)) >= 0) {
		if ((d = fdopendir(fd)) == NULL) {
			fsx_close(fd);
			goto fail;
		}
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0)
				continue;
			if (make_whiteout(nfd, e->d_name) < 0) {
				int saved = errno;

				closedir(d);
				errno = saved;
				goto fail;
			}
		}
		closedir(d);
	}
	return nfd;
fail:
	fsx_close(nfd);
	return -1;
}

static int
real_base(int rfd, const char *name, struct apply_base *b);

/* Record the base of rel's first plen bytes: rfd/name now (rfd -1: absent). */
static int
put_prefix_base(struct session *s, const char *rel, size_t plen, int rfd,
    const char *name)
{
	struct apply_base b;
	char *pre;
	int rc;

	if (real_base(rfd, name, &b) < 0)
		return -1;
	if ((pre = mem_strndup(rel, plen)) == NULL)
		return -1;
	rc = session_base_put(s, pre, &b);
	mem_free(pre);
	return rc;
}

/*
 * Walk the parents of rel in the merged view. With mkdirs, missing
 * parents are made in upper/ (copied up from the real dir's mode, or new
 * with newdirmode and an "absent" base record).
 */
static int
walk_parent(struct session *s, int rootfd, const char *rel, int mkdirs,
    mode_t newdirmode, struct walk *w)
{
	struct stat us, rs;
	char c[NAME_MAX + 1];
	const char *p, *q;
	int uk, rk, nufd, nrfd, depth = 0;

	w->ufd = dup(s->upperfd);
	w->rfd = dup(rootfd);
	w->hidden = 0;
	w->name = NULL;
	if (w->ufd < 0 || w->rfd < 0)
		goto fail;
	for (p = rel;; p = q + 1) {
		q = strchr(p, '/');
		if (q == NULL)
			break;
		if ((size_t)(q - p) > NAME_MAX) {
			errno = ENAMETOOLONG;
			goto fail;
		}
		memcpy(c, p, (size_t)(q - p));
		c[q - p] = '\0';
		if (c[0] == '\0' || strcmp(c, ".") == 0 ||
		    strcmp(c, "..") == 0 || ++depth > DEPTH_MAX) {
			errno = EINVAL;
			goto fail;
		}
		uk = w->ufd >= 0 ? kind_of(w->ufd, c, &us, 1) : OVERLAY_ABSENT;
		rk = w->rfd >= 0 ? kind_of(w->rfd, c, &rs, 0) : OVERLAY_ABSENT;
		if (uk < 0 || rk < 0)
			goto fail;
		nufd = nrfd = -1;
		if (rk == OVERLAY_DIR && (nrfd = openat(w->rfd, c, DFLAGS)) < 0)
			goto fail;
		if (uk == OVERLAY_DIR) {
			if ((nufd = openat(w->ufd, c, DFLAGS)) < 0)
				goto fail2;
			if (rk != OVERLAY_DIR || dir_opaque(nufd) == 'y')
				w->hidden = 1;
		} else if (uk == UP_WHITEOUT) {
			if (!mkdirs) {
				errno = ENOENT;
				goto fail2;
			}
			if (put_prefix_base(s, rel, (size_t)(q - rel),
			    rk == OVERLAY_ABSENT ? -1 : w->rfd, c) < 0)
				goto fail2;
			nufd = unwhite_dir(w->ufd, c, w->hidden ? -1 : w->rfd,
			    newdirmode);
			if (nufd < 0)
				goto fail2;
			if (rk != OVERLAY_DIR)
				w->hidden = 1;
		} else if (uk != OVERLAY_ABSENT) {
			errno = ENOTDIR;
			goto fail2;
		} else if (rk == OVERLAY_DIR && !w->hidden) {
			if (mkdirs) {
				/* A copy-up parent: its base says "dir". */
				if (put_prefix_base(s, rel, (size_t)(q - rel),
				    w->rfd, c) < 0)
					goto fail2;
				if (mkdirat(w->ufd, c, 0700) < 0 ||
				    (nufd = openat(w->ufd, c, DFLAGS)) < 0 ||
				    fchmod(nufd, PERM(rs.st_mode)) < 0)
					goto fail2;
			}
		} else if (rk == OVERLAY_ABSENT || w->hidden) {
			if (!mkdirs) {
				errno = ENOENT;
				goto fail2;
			}
			if (put_prefix_base(s, rel, (size_t)(q - rel),
			    rk == OVERLAY_ABSENT ? -1 : w->rfd, c) < 0)
				goto fail2;
			if (mkdirat(w->ufd, c, 0700) < 0 ||
			    (nufd = openat(w->ufd, c, DFLAGS)) < 0 ||
			    fchmod(nufd, newdirmode & 07777) < 0)
				goto fail2;
			w->hidden = 1;
		} else if (rk == OVERLAY_SYMLINK) {
			errno = ELOOP;
			goto fail2;
		} else {
			errno = ENOTDIR;
			goto fail2;
		}
		fsx_close(w->ufd);
		fsx_close(w->rfd);
		w->ufd = nufd;
		w->rfd = nrfd;
		if (w->ufd < 0 && w->rfd < 0) {
			errno = ENOENT;
			goto fail;
		}
		continue;
fail2:
		fsx_close(nufd);
		fsx_close(nrfd);
		goto fail;
	}
	if (*p == '\0' || strcmp(p, ".") == 0 || strcmp(p, "..") == 0) {
		errno = EINVAL;
		goto fail;
	}
	if (strlen(p) > NAME_MAX) {
		errno = ENAMETOOLONG;
		goto fail;
	}
	w->name = p;
	return 0;
fail:
	walk_done(w);
	return -1;
}

/* The real state of rfd/name as a base record. */
static int
real_base(int rfd, const char *name, struct apply_base *b)
{
	struct stat st;
	char *buf;
	ssize_t n;
	int fd;

	memset(b, 0, sizeof *b);
	if (rfd < 0 || fstatat(rfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (rfd >= 0 && errno != ENOENT && errno != ENOTDIR)
			return -1;
		b->absent = 1;
		return 0;
	}
	b->mode = PERM(st.st_mode);
	if (S_ISDIR(st.st_mode)) {
		b->is_dir = 1;
	} else if (S_ISLNK(st.st_mode)) {
		b->is_link = 1;
		if ((buf = mem_alloc(PATH_MAX)) == NULL)
			return -1;
		n = readlinkat(rfd, name, buf, PATH_MAX);
		if (n < 0) {
			mem_free(buf);
			return -1;
		}
		hash_buf(buf, (size_t)n, b->sha);
		mem_free(buf);
	} else if (S_ISREG(st.st_mode)) {
		if ((fd = openat(rfd, name, OFLAGS)) < 0)
			return -1;
		if (hash_fd(fd, b->sha) < 0) {
			fsx_close(fd);
			return -1;
		}
		close(fd);
	}
	/* A special file keeps a zero hash: apply sees a conflict. */
	return 0;
}

int
overlay_open(struct session *s, int rootfd, const char *rel, int *shadow)
{
	struct walk w;
	struct stat st;
	int k, fd = -1;

	*shadow = 0;
	if (walk_parent(s, rootfd, rel, 0, 0, &w) < 0)
		return -1;
	k = w.ufd >= 0 ? kind_of(w.ufd, w.name, &st, 1) : OVERLAY_ABSENT;
	if (k < 0)
		goto out;
	if (k == UP_WHITEOUT) {
		errno = ENOENT;
		goto out;
	}
	if (k != OVERLAY_ABSENT) {
		*shadow = 1;
		fd = openat(w.ufd, w.name, OFLAGS);
	} else if (w.hidden || w.rfd < 0) {
		errno = ENOENT;
		goto out;
	} else
		fd = openat(w.rfd, w.name, OFLAGS);
	if (fd < 0) {
		if (errno == ELOOP)
			errno = *shadow ? ELOOP : ENOENT;
		goto out;
	}
	if (fstat(fd, &st) < 0)
		goto fail;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		goto fail;
	}
	walk_done(&w);
	return fd;
fail:
	fsx_close(fd);
	fd = -1;
out:
	walk_done(&w);
	return fd;
}

int
overlay_read(struct session *s, int rootfd, const char *rel, size_t max,
    char **buf, size_t *len, mode_t *mode)
{
	struct stat st;
	int fd, shadow;

	if ((fd = overlay_open(s, rootfd, rel, &shadow)) < 0)
		return -1;
	if (fstat(fd, &st) < 0 || fsx_read_fd(fd, max, buf, len) < 0) {
		fsx_close(fd);
		return -1;
	}
	close(fd);
	*mode = PERM(st.st_mode);
	return 0;
}

int
overlay_write(struct session *s, int rootfd, const char *rel,
    const void *buf, size_t len, mode_t newmode, mode_t newdirmode)
{
	struct walk w;
	struct stat us, rs;
	struct apply_base b;
	int uk, rk, rc = -1;
	mode_t mode = newmode & 07777;

	if (walk_parent(s, rootfd, rel, 1, newdirmode, &w) < 0)
		return -1;
	if ((uk = kind_of(w.ufd, w.name, &us, 1)) < 0)
		goto out;
	rk = w.rfd >= 0 ? kind_of(w.rfd, w.name, &rs, 0) : OVERLAY_ABSENT;
	if (rk < 0)
		goto out;
	if (uk == OVERLAY_DIR || (uk == OVERLAY_ABSENT && !w.hidden &&
	    rk == OVERLAY_DIR)) {
		errno = EISDIR;
		goto out;
	}
	if (uk == OVERLAY_SPECIAL || (uk == OVERLAY_ABSENT && !w.hidden &&
	    rk == OVERLAY_SPECIAL)) {
		errno = EINVAL;
		goto out;
	}
	if (uk == OVERLAY_FILE)
		mode = PERM(us.st_mode);
	else if (uk == OVERLAY_ABSENT && !w.hidden && rk == OVERLAY_FILE)
		mode = PERM(rs.st_mode);
	/* The base goes first: a crash leaves a record, never a bare copy. */
	if (real_base(w.rfd, w.name, &b) < 0 ||
	    session_base_put(s, rel, &b) < 0)
		goto out;
	rc = fsx_write_atomic(w.ufd, w.name, buf, len, mode, 0);
out:
	walk_done(&w);
	return rc;
}

int
overlay_remove(struct session *s, int rootfd, const char *rel)
{
	struct walk w;
	struct stat us, rs;
	struct apply_base b;
	int uk, rk, rc = -1;

	if (walk_parent(s, rootfd, rel, 1, 0755, &w) < 0)
		return -1;
	if ((uk = kind_of(w.ufd, w.name, &us, 1)) < 0)
		goto out;
	rk = w.rfd >= 0 ? kind_of(w.rfd, w.name, &rs, 0) : OVERLAY_ABSENT;
	if (rk < 0)
		goto out;
	if (uk == UP_WHITEOUT || (uk == OVERLAY_ABSENT &&
	    (w.hidden || rk == OVERLAY_ABSENT))) {
		errno = ENOENT;
		goto out;
	}
	if (uk == OVERLAY_DIR || (uk == OVERLAY_ABSENT && rk == OVERLAY_DIR)) {
		errno = EISDIR;
		goto out;
	}
	if (real_base(w.rfd, w.name, &b) < 0 ||
	    session_base_put(s, rel, &b) < 0)
		goto out;
	if (!w.hidden && rk != OVERLAY_ABSENT)
		rc = make_whiteout(w.ufd, w.name);
	else if ((rc = unlinkat(w.ufd, w.name, 0)) == 0)
		rc = session_base_del(s, rel);
out:
	walk_done(&w);
	return rc;
}

/* ---- the change list ---- */

struct build {
	struct session		*s;
	struct overlay_changes	*c;
	size_t			 cap;
	overlay_warn_fn		*warn;
	void			*warnarg;
	char			 path[PATH_MAX];
	size_t			 plen;
	int			 depth;
};

static void
warn(struct build *b, const char *path, int err, const char *what)
{
	if (b->warn != NULL)
		b->warn(path, err, what, b->warnarg);
}

/* Push name onto b->path; returns the old length. */
static int
path_push(struct build *b, const char *name, size_t *old)
{
	size_t nl = strlen(name);

	*old = b->plen;
	if (b->plen + 1 + nl + 1 > sizeof b->path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (b->plen > 0)
		b->path[b->plen++] = '/';
	memcpy(b->path + b->plen, name, nl + 1);
	b->plen += nl;
	return 0;
}

static void
path_pop(struct build *b, size_t old)
{
	b->plen = old;
	b->path[old] = '\0';
}

static int
emit(struct build *b, enum overlay_status status, const char *origin,
    int ok, const struct stat *os, int nk, const struct stat *ns)
{
	struct overlay_change *ch, *nv;
	struct overlay_changes *c = b->c;

	if (c->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 64;
		nv = mem_reallocarray(c->v, b->cap, sizeof *c->v);
		if (nv == NULL)
			return -1;
		c->v = nv;
	}
	ch = &c->v[c->n];
	memset(ch, 0, sizeof *ch);
	if ((ch->path = mem_strdup(b->path)) == NULL)
		return -1;
	if ((ch->origin = mem_strdup(origin)) == NULL) {
		mem_free(ch->path);
		return -1;
	}
	ch->status = status;
	ch->old_kind = ok;
	ch->new_kind = nk;
	if (ok != OVERLAY_ABSENT && os != NULL) {
		ch->old_mode = PERM(os->st_mode);
		ch->old_size = os->st_size;
	}
	if (nk != OVERLAY_ABSENT && ns != NULL) {
		ch->new_mode = PERM(ns->st_mode);
		ch->new_size = ns->st_size;
	}
	c->n++;
	return 0;
}

/* Every file and symlink beneath rfd/name (a real dir) is deleted. */
static int
emit_deleted_tree(struct build *b, int rfd, const char *origin)
{
	struct dirent *e;
	struct stat st;
	size_t old;
	DIR *d;
	int fd, k, rc = 0;

	if (++b->depth > DEPTH_MAX) {
		b->depth--;
		errno = ELOOP;
		return -1;
	}
	fd = openat(rfd, ".", DFLAGS);
	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		fsx_close(fd);
		b->depth--;
		return -1;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (path_push(b, e->d_name, &old) < 0) {
			rc = -1;
			break;
		}
		k = kind_from_st(&st);
		if (k == OVERLAY_DIR) {
			int sub = openat(dirfd(d), e->d_name, DFLAGS);

			if (sub >= 0) {
				rc = emit_deleted_tree(b, sub, origin);
				fsx_close(sub);
				if (rc == 0)
					rc = emit(b, OVERLAY_RMDIR, origin,
					    OVERLAY_DIR, &st, OVERLAY_ABSENT,
					    NULL);
			}
		} else if (k != OVERLAY_SPECIAL)
			rc = emit(b, OVERLAY_DELETED, origin, k, &st,
			    OVERLAY_ABSENT, NULL);
		path_pop(b, old);
	}
	{
		int saved = errno;

		closedir(d);
		errno = saved;
	}
	b->depth--;
	return rc;
}

/* Delete the real dir rfd/name wholesale: its files, then itself. */
static int
emit_rmdir(struct build *b, int rfd, const char *name, const struct stat *rs,
    const char *origin)
{
	char *org;
	int fd, rc;

	/* origin may be b->path itself, which the walk below rewrites. */
	if ((org = mem_strdup(origin)) == NULL)
		return -1;
	fd = openat(rfd, name, DFLAGS);
	if (fd < 0) {
		mem_free(org);
		return errno == ENOENT ? 0 : -1;
	}
	rc = emit_deleted_tree(b, fd, org);
	fsx_close(fd);
	if (rc == 0)
		rc = emit(b, OVERLAY_RMDIR, org, OVERLAY_DIR, rs,
		    OVERLAY_ABSENT, NULL);
	mem_free(org);
	return rc;
}

/* Compare two regular files of equal size: 1 equal, 0 not, -1 error. */
static int
same_content(int ufd, int rfd, const char *name)
{
	char *a = NULL, *b = NULL;
	ssize_t na, nb;
	int fa = -1, fb = -1, rc = -1;
	struct stat sa, sb;
	const size_t chunk = 65536;

	if ((fa = openat(ufd, name, OFLAGS)) < 0 ||
	    (fb = openat(rfd, name, OFLAGS)) < 0 ||
	    fstat(fa, &sa) < 0 || fstat(fb, &sb) < 0)
		goto out;
	if (!S_ISREG(sa.st_mode) || !S_ISREG(sb.st_mode)) {
		errno = EINVAL;
		goto out;
	}
	if (sa.st_size != sb.st_size) {
		rc = 0;
		goto out;
	}
	if ((a = mem_alloc(chunk)) == NULL || (b = mem_alloc(chunk)) == NULL)
		goto out;
	for (;;) {
		na = read(fa, a, chunk);
		if (na < 0 && errno == EINTR)
			continue;
		if (na < 0)
			goto out;
		nb = 0;
		while (nb < na) {
			ssize_t r = read(fb, b + nb, (size_t)(na - nb));

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				goto out;
			if (r == 0)
				break;
			nb += r;
		}
		if (nb != na || memcmp(a, b, (size_t)na) != 0) {
			rc = 0;
			goto out;
		}
		if (na == 0) {
			rc = 1;
			goto out;
		}
	}
out:
	mem_free(a);
	mem_free(b);
	fsx_close(fa);
	fsx_close(fb);
	return rc;
}

static int
same_link(int ufd, int rfd, const char *name)
{
	char *a, *b;
	ssize_t na, nb;
	int rc = -1;

	a = mem_alloc(PATH_MAX);
	b = mem_alloc(PATH_MAX);
	if (a != NULL && b != NULL) {
		na = readlinkat(ufd, name, a, PATH_MAX);
		nb = readlinkat(rfd, name, b, PATH_MAX);
		if (na >= 0 && nb >= 0)
			rc = na == nb && memcmp(a, b, (size_t)na) == 0;
	}
	mem_free(a);
	mem_free(b);
	return rc;
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Listing upper/ and the real tree: fsx temp files are not entries. */
static int
not_tmp(int dirfd, const char *name, void *arg)
{
	return !fsx_is_tmp_name(name);
}

static int
list_names(int dirfd, char ***namesp, size_t *np)
{
	return fsx_list(dirfd, not_tmp, NULL, namesp, np);
}


static int walk_upper(struct build *, int ufd, int rfd, int opaque);

enum { ROLE_ERR = -1, ROLE_NEW, ROLE_TYPECHANGE, ROLE_PARENT };

/*
 * An upper dir at b->path whose real counterpart (rk) is not a dir. It
 * is a copy-up parent when its base says "dir" (or, without a base, when
 * it is not opaque: overlayfs makes a dir that replaces a non-dir
 * opaque): then the real side changed after capture and the dir itself
 * is no change; its files meet the new real state at apply (a symlink
 * put in its place is refused there). Otherwise it is a new directory,
 * replacing the real non-dir when it had stood there at capture.
 */
static int
dir_role(struct build *b, int opaque, int rk)
{
	struct apply_base base;

	if (session_base_get(b->s, b->path, &base) == 0) {
		if (base.is_dir && !opaque)
			return ROLE_PARENT;
		if (base.absent)
			return ROLE_NEW;
		return rk == OVERLAY_ABSENT ? ROLE_NEW : ROLE_TYPECHANGE;
	}
	if (errno != ENOENT)
		return ROLE_ERR;
	if (opaque)
		return rk == OVERLAY_ABSENT ? ROLE_NEW : ROLE_TYPECHANGE;
	return rk == OVERLAY_ABSENT ? ROLE_NEW : ROLE_PARENT;
}

static int
walk_entry(struct build *b, int ufd, int rfd, const char *name)
{
	struct stat us, rs;
	int uk, rk, eq, sub, rsub, rc = 0;
	int opq;

	if ((uk = kind_of(ufd, name, &us, 1)) < 0)
		return -1;
	if (uk == OVERLAY_ABSENT)
		return 0;	/* vanished meanwhile */
	rk = rfd >= 0 ? kind_of(rfd, name, &rs, 0) : OVERLAY_ABSENT;
	if (rk < 0)
		return -1;
	switch (uk) {
	case UP_WHITEOUT:
		if (rk == OVERLAY_DIR)
			return emit_rmdir(b, rfd, name, &rs, b->path);
		if (rk == OVERLAY_FILE || rk == OVERLAY_SYMLINK)
			return emit(b, OVERLAY_DELETED, b->path, rk, &rs,
			    OVERLAY_ABSENT, NULL);
		return 0;
	case OVERLAY_SPECIAL:
		warn(b, b->path, 0, "special file in the session; left out");
		return 0;
	case OVERLAY_FILE:
	case OVERLAY_SYMLINK:
		if (rk == OVERLAY_DIR &&
		    emit_rmdir(b, rfd, name, &rs, b->path) < 0)
			return -1;
		if (rk == OVERLAY_ABSENT || rk == OVERLAY_DIR)
			return emit(b, OVERLAY_ADDED, b->path, OVERLAY_ABSENT,
			    NULL, uk, &us);
		if (rk != uk)
			return emit(b, OVERLAY_TYPE, b->path, rk, &rs, uk, &us);
		if (uk == OVERLAY_SYMLINK) {
			if ((eq = same_link(ufd, rfd, name)) < 0)
				return -1;
			return eq ? 0 : emit(b, OVERLAY_MODIFIED, b->path, rk,
			    &rs, uk, &us);
		}
		eq = us.st_size != rs.st_size ? 0 :
		    same_content(ufd, rfd, name);
		if (eq < 0) {
			if (errno == ENOMEM)
				return -1;
			warn(b, b->path, errno, "could not compare");
			eq = 0;
		}
		if (!eq)
			return emit(b, OVERLAY_MODIFIED, b->path, rk, &rs, uk,
			    &us);
		if (PERM(us.st_mode) != PERM(rs.st_mode))
			return emit(b, OVERLAY_MODE, b->path, rk, &rs, uk, &us);
		return 0;
	case OVERLAY_DIR:
		if ((sub = openat(ufd, name, DFLAGS)) < 0)
			return errno == ENOENT ? 0 : -1;
		opq = dir_opaque(sub) == 'y';
		rsub = -1;
		if (rk == OVERLAY_DIR) {
			if (PERM(us.st_mode) != PERM(rs.st_mode))
				rc = emit(b, OVERLAY_DIRMODE, b->path, rk, &rs,
				    uk, &us);
			if (rc == 0 && (rsub = openat(rfd, name, DFLAGS)) < 0 &&
			    errno != ENOENT)
				rc = -1;
		} else {
			switch (dir_role(b, opq, rk)) {
			case ROLE_TYPECHANGE:
				if (rk == OVERLAY_FILE || rk == OVERLAY_SYMLINK)
					rc = emit(b, OVERLAY_DELETED, b->path,
					    rk, &rs, OVERLAY_ABSENT, NULL);
				/* FALLTHROUGH */
			case ROLE_NEW:
				if (rc == 0)
					rc = emit(b, OVERLAY_MKDIR, b->path,
					    OVERLAY_ABSENT, NULL, uk, &us);
				break;
			case ROLE_PARENT:
				break;
			default:
				rc = -1;
			}
		}
		if (rc == 0)
			rc = walk_upper(b, sub, rsub, opq);
		fsx_close(rsub);
		fsx_close(sub);
		return rc;
	}
	return 0;
}

static int
walk_upper(struct build *b, int ufd, int rfd, int opaque)
{
	char **un = NULL, **rn = NULL, *origin = NULL;
	size_t nu = 0, nr = 0, i, old;
	struct stat rs;
	int rc = -1, k;

	if (++b->depth > DEPTH_MAX) {
		errno = ELOOP;
		goto out;
	}
	if (list_names(ufd, &un, &nu) < 0)
		goto out;
	if (opaque && rfd >= 0) {
		if (list_names(rfd, &rn, &nr) < 0 ||
		    (origin = mem_alloc(b->plen + 1)) == NULL)
			goto out;
		/* What only the hidden real dir has is deleted, by this dir. */
		memcpy(origin, b->path, b->plen + 1);
		for (i = 0; i < nr; i++) {
			if (bsearch(&rn[i], un, nu, sizeof *un, cmp_name))
				continue;
			if (path_push(b, rn[i], &old) < 0)
				goto out;
			k = kind_of(rfd, rn[i], &rs, 0);
			if (k == OVERLAY_DIR) {
				if (emit_rmdir(b, rfd, rn[i], &rs, origin) < 0)
					goto out;
			} else if (k == OVERLAY_FILE || k == OVERLAY_SYMLINK) {
				if (emit(b, OVERLAY_DELETED, origin, k, &rs,
				    OVERLAY_ABSENT, NULL) < 0)
					goto out;
			}
			path_pop(b, old);
		}
	}
	for (i = 0; i < nu; i++) {
		if (path_push(b, un[i], &old) < 0)
			goto out;
		if (walk_entry(b, ufd, rfd, un[i]) < 0)
			goto out;
		path_pop(b, old);
	}
	rc = 0;
out:
	b->depth--;
	mem_free(origin);
	fsx_names_free(un, nu);
	fsx_names_free(rn, nr);
	return rc;
}

static int
status_rank(enum overlay_status s)
{
	return s == OVERLAY_DELETED ? 0 : s == OVERLAY_RMDIR ? 1 : 2;
}

static int
cmp_change(const void *a, const void *b)
{
	const struct overlay_change *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c != 0)
		return c;
	return status_rank(x->status) - status_rank(y->status);
}

/* Index of the first change whose path is >= key. */
static size_t
lower_bound(const struct overlay_changes *c, const char *key)
{
	size_t lo = 0, hi = c->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(c->v[mid].path, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether some change lies strictly beneath path. */
static int
has_beneath(const struct overlay_changes *c, const char *path)
{
	char key[PATH_MAX + 2];
	size_t i, pl = strlen(path);

	if (pl + 2 > sizeof key)
		return 0;
	memcpy(key, path, pl);
	key[pl] = '/';
	key[pl + 1] = '\0';
	i = lower_bound(c, key);
	return i < c->n && strncmp(c->v[i].path, key, pl + 1) == 0;
}

int
overlay_changes(struct session *s, int rootfd, struct overlay_changes *c,
    overlay_warn_fn *wfn, void *warg)
{
	struct build *b;
	struct overlay_change *ch;
	size_t i;
	int rc;

	memset(c, 0, sizeof *c);
	if ((b = mem_calloc(1, sizeof *b)) == NULL)
		return -1;
	b->s = s;
	b->c = c;
	b->warn = wfn;
	b->warnarg = warg;
	rc = walk_upper(b, s->upperfd, rootfd, dir_opaque(s->upperfd) == 'y');
	mem_free(b);
	if (rc < 0)
		return -1;
	if (c->n > 1)
		qsort(c->v, c->n, sizeof *c->v, cmp_change);
	for (i = 0; i < c->n; i++) {
		ch = &c->v[i];
		if ((ch->status == OVERLAY_MKDIR ||
		    ch->status == OVERLAY_RMDIR) && has_beneath(c, ch->path))
			ch->implied = 1;
		if (!ch->implied)
			c->count++;
	}
	return 0;
}

void
overlay_changes_free(struct overlay_changes *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->n; i++) {
		mem_free(c->v[i].path);
		mem_free(c->v[i].origin);
	}
	mem_free(c->v);
	memset(c, 0, sizeof *c);
}

const char *
overlay_status_name(enum overlay_status st)
{
	switch (st) {
	case OVERLAY_ADDED:
		return "added";
	case OVERLAY_MODIFIED:
		return "modified";
	case OVERLAY_DELETED:
		return "deleted";
	case OVERLAY_MODE:
		return "mode";
	case OVERLAY_TYPE:
		return "typechange";
	case OVERLAY_MKDIR:
		return "dir-added";
	case OVERLAY_RMDIR:
		return "dir-deleted";
	case OVERLAY_DIRMODE:
		return "dir-mode";
	}
	return "?";
}

/* ---- rendering ---- */

struct side {
	struct udiff_side	 u;
	char			*buf;
	int			 big;
	unsigned char		 sha[HASH_LEN];
	char			 sentinel[1 + HASH_LEN];
};

static unsigned int
git_mode(enum overlay_kind k, unsigned int perm)
{
	if (k == OVERLAY_SYMLINK)
		return 0120000;
	return (perm & 0100) ? 0100755 : 0100644;
}

/* Load one side of a change from dirfd/path. */
static int
load_side(int dirfd, const char *path, enum overlay_kind k, struct side *sd)
{
	struct stat st;
	const char *base;
	size_t len;
	ssize_t n;
	int fd;

	memset(sd, 0, sizeof *sd);
	sd->u.kind = UDIFF_ABSENT;
	if (k != OVERLAY_FILE && k != OVERLAY_SYMLINK)
		return 0;
	if (k == OVERLAY_SYMLINK) {
		if ((fd = fsx_open_parent(dirfd, path, 0, &base)) < 0)
			return -1;
		if ((sd->buf = mem_alloc(PATH_MAX)) == NULL) {
			fsx_close(fd);
			return -1;
		}
		n = readlinkat(fd, base, sd->buf, PATH_MAX);
		fsx_close(fd);
		if (n < 0) {
			if (errno == EINVAL)
				errno = ESTALE;
			return -1;
		}
		sd->u.kind = UDIFF_SYMLINK;
		sd->u.mode = 0120000;
		sd->u.data = sd->buf;
		sd->u.len = (size_t)n;
		return 0;
	}
	if ((fd = fsx_open_beneath(dirfd, path, OFLAGS, 0)) < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = ESTALE;
		goto fail;
	}
	sd->u.kind = UDIFF_FILE;
	sd->u.mode = git_mode(OVERLAY_FILE, PERM(st.st_mode));
	if ((size_t)st.st_size > OVERLAY_BIGFILE) {
		if (hash_fd(fd, sd->sha) < 0)
			goto fail;
		sd->big = 1;
	} else if (fsx_read_fd(fd, (size_t)-1 / 2, &sd->buf, &len) < 0)
		goto fail;
	else {
		sd->u.data = sd->buf;
		sd->u.len = len;
	}
	close(fd);
	return 0;
fail:
	fsx_close(fd);
	return -1;
}

static void
side_free(struct side *sd)
{
	mem_free(sd->buf);
	sd->buf = NULL;
}

/* A big file stands in as NUL + its hash: binary, equal iff same bytes. */
static void
side_sentinel(struct side *sd)
{
	if (sd->u.kind != UDIFF_FILE)
		return;
	if (!sd->big)
		hash_buf(sd->u.data, sd->u.len, sd->sha);
	sd->sentinel[0] = '\0';
	memcpy(sd->sentinel + 1, sd->sha, HASH_LEN);
	sd->u.data = sd->sentinel;
	sd->u.len = sizeof sd->sentinel;
}

static void
digest_line(struct hash_ctx *d, const struct overlay_change *ch)
{
	char line[64];
	int n;

	n = snprintf(line, sizeof line, "%s %o %o %o %o ",
	    overlay_status_name(ch->status), (unsigned)ch->old_kind,
	    ch->old_mode, (unsigned)ch->new_kind, ch->new_mode);
	hash_update(d, line, (size_t)n);
	hash_update(d, ch->path, strlen(ch->path) + 1);
}

/* The content hash of one side of a binary change, as hex (files only). */
static void
digest_sha(struct hash_ctx *d, struct side *sd)
{
	char hex[HASH_HEXLEN + 1];

	if (sd->u.kind != UDIFF_FILE)
		return;
	if (!sd->big && sd->u.data != sd->sentinel)
		hash_buf(sd->u.data, sd->u.len, sd->sha);
	hash_hex(sd->sha, hex);
	hash_update(d, hex, HASH_HEXLEN);
}

static void
digest_shas(struct hash_ctx *d, struct side *o, struct side *n)
{
	hash_update(d, "bin ", 4);
	digest_sha(d, o);
	hash_update(d, " ", 1);
	digest_sha(d, n);
	hash_update(d, "\n", 1);
}

int
overlay_diff(struct session *s, int rootfd, struct overlay_changes *c,
    const struct udiff_opts *opts, udiff_out_fn *out, void *arg,
    struct hash_ctx *digest, overlay_warn_fn *wfn, void *warg)
{
	struct overlay_change *ch;
	struct side o, n;
	size_t i;
	int rc;

	for (i = 0; i < c->n; i++) {
		ch = &c->v[i];
		memset(&ch->st, 0, sizeof ch->st);
		ch->gone = 0;
		if (digest != NULL)
			digest_line(digest, ch);
		if (ch->status == OVERLAY_MKDIR || ch->status == OVERLAY_RMDIR ||
		    ch->status == OVERLAY_DIRMODE)
			continue;
		if (load_side(rootfd, ch->path, ch->old_kind == OVERLAY_SPECIAL ?
		    OVERLAY_ABSENT : ch->old_kind, &o) < 0) {
			side_free(&o);
			goto vanished;
		}
		if (load_side(s->upperfd, ch->path, ch->new_kind, &n) < 0) {
			side_free(&o);
			side_free(&n);
			goto vanished;
		}
		if (o.big || n.big) {
			side_sentinel(&o);
			side_sentinel(&n);
		}
		rc = udiff_file(ch->path, &o.u, &n.u, opts, out, arg, digest,
		    &ch->st);
		if (rc == 0 && (o.big || n.big))
			ch->st.binary = 1;
		if (rc == 0 && digest != NULL && ch->st.binary)
			digest_shas(digest, &o, &n);
		side_free(&o);
		side_free(&n);
		if (rc < 0)
			return -1;
		continue;
vanished:
		if (errno == ENOMEM)
			return -1;
		ch->gone = 1;
		if (wfn != NULL)
			wfn(ch->path, errno == ESTALE ? 0 : errno,
			    "changed during diff; left out", warg);
	}
	return 0;
}

/* ---- apply ---- */

/* Select what must land before change i can: new dirs above it. */
static void
select_parents(struct overlay_changes *c, size_t i, int *sel)
{
	char *pre = c->v[i].path, *slash;
	size_t k, m;

	for (slash = strchr(pre, '/'); slash != NULL;
	    slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		k = lower_bound(c, pre);
		for (m = k; m < c->n && strcmp(c->v[m].path, pre) == 0; m++)
			if (c->v[m].status == OVERLAY_MKDIR)
				break;
		/* A new dir, and whatever stood in its way, come along. */
		if (m < c->n && strcmp(c->v[m].path, pre) == 0)
			for (m = k; m < c->n && strcmp(c->v[m].path, pre) == 0;
			    m++)
				sel[m] = 1;
		*slash = '/';
	}
}

int
overlay_select(struct overlay_changes *c, char *const *paths, size_t np,
    int *sel, long *unmatched)
{
	struct overlay_change *ch;
	size_t i, j, pl;
	int any;

	*unmatched = -1;
	for (i = 0; i < c->n; i++)
		sel[i] = np == 0;
	for (j = 0; j < np; j++) {
		pl = strlen(paths[j]);
		any = 0;
		for (i = 0; i < c->n; i++) {
			ch = &c->v[i];
			if (strcmp(ch->path, paths[j]) == 0 ||
			    (strncmp(ch->path, paths[j], pl) == 0 &&
			    ch->path[pl] == '/')) {
				sel[i] = 1;
				any = 1;
			}
		}
		if (!any && *unmatched < 0)
			*unmatched = (long)j;
	}
	for (i = 0; np > 0 && i < c->n; i++)
		if (sel[i] && c->v[i].status != OVERLAY_DELETED &&
		    c->v[i].status != OVERLAY_RMDIR)
			select_parents(c, i, sel);
	return 0;
}

static int
push_item(struct overlay_plan *p, int phase, size_t *caps, size_t owner,
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

static int
base_of(struct session *s, int rootfd, const char *path,
    struct apply_base *b)
{
	const char *name;
	int fd, rc;

	if (session_base_get(s, path, b) == 0)
		return 0;
	if (errno != ENOENT)
		return -1;
	fd = fsx_open_parent(rootfd, path, 0, &name);
	if (fd < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			return -1;
		memset(b, 0, sizeof *b);
		b->absent = 1;
		return 0;
	}
	rc = real_base(fd, name, b);
	fsx_close(fd);
	return rc;
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

static size_t
parent_len(const char *p)
{
	const char *slash = strrchr(p, '/');

	return slash == NULL ? 0 : (size_t)(slash - p);
}

int
overlay_same_dir(const char *a, const char *b)
{
	size_t la = parent_len(a);

	return la == parent_len(b) && memcmp(a, b, la) == 0;
}

/* Order by parent directory, then name. */
static int
cmp_by_dir(const struct apply_item *x, const struct apply_item *y)
{
	size_t lx = parent_len(x->path), ly = parent_len(y->path);
	int c;

	c = memcmp(x->path, y->path, lx < ly ? lx : ly);
	if (c != 0)
		return c;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x->path + lx, y->path + ly);
}

/* Group a phase's items by directory, keeping owners in step. */
static int
group_by_dir(struct overlay_plan *p, int ph)
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

		for (j = i; j > 0 && cmp_by_dir(&it[perm[j - 1]], &it[v]) > 0;
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
overlay_plan(struct session *s, int rootfd, struct overlay_changes *c,
    const int *sel, struct overlay_plan *p)
{
	struct overlay_change *ch;
	struct apply_item *it, *fix;
	size_t caps[OVERLAY_NPHASE], i;
	int phase;

	memset(p, 0, sizeof *p);
	memset(caps, 0, sizeof caps);
	for (i = 0; i < c->n; i++) {
		ch = &c->v[i];
		if (!sel[i])
			continue;
		switch (ch->status) {
		case OVERLAY_DELETED:
			phase = OVERLAY_PH_DELETE;
			break;
		case OVERLAY_RMDIR:
			phase = OVERLAY_PH_RMTREE;
			break;
		case OVERLAY_MKDIR:
			phase = OVERLAY_PH_MKDIR;
			break;
		case OVERLAY_DIRMODE:
			phase = OVERLAY_PH_DIRMODE;
			break;
		default:
			phase = OVERLAY_PH_FILES;
			break;
		}
		if (push_item(p, phase, caps, i, &it) < 0)
			goto fail;
		it->path = ch->path;
		it->srcdir = s->upperfd;
		it->mode = ch->new_mode;
		switch (ch->status) {
		case OVERLAY_DELETED:
			it->kind = APPLY_DELETE;
			break;
		case OVERLAY_RMDIR:
			it->kind = APPLY_RMTREE;
			break;
		case OVERLAY_MKDIR:
			it->kind = APPLY_MKDIR;
			break;
		case OVERLAY_MODE:
		case OVERLAY_DIRMODE:
			it->kind = APPLY_CHMOD;
			break;
		default:
			it->kind = ch->new_kind == OVERLAY_SYMLINK ?
			    APPLY_SYMLINK : APPLY_FILE;
			it->src = ch->path;
			break;
		}
		/* What the earlier phases removed is absent by then. */
		if (ch->status == OVERLAY_MKDIR || (phase == OVERLAY_PH_FILES &&
		    ch->old_kind == OVERLAY_DIR))
			it->base.absent = 1;
		else if (base_of(s, rootfd, ch->path, &it->base) < 0)
			goto fail;
		if (ch->status == OVERLAY_MKDIR && (it->mode & 0700) != 0700) {
			it->mode |= 0700;
			if (push_item(p, OVERLAY_PH_DIRMODE, caps, i, &fix) < 0)
				goto fail;
			fix->path = ch->path;
			fix->srcdir = s->upperfd;
			fix->kind = APPLY_CHMOD;
			fix->mode = ch->new_mode;
			fix->base.is_dir = 1;
			fix->base.mode = ch->new_mode | 0700;
		}
	}
	reverse(p->items[OVERLAY_PH_DELETE], p->owner[OVERLAY_PH_DELETE],
	    p->n[OVERLAY_PH_DELETE]);
	reverse(p->items[OVERLAY_PH_RMTREE], p->owner[OVERLAY_PH_RMTREE],
	    p->n[OVERLAY_PH_RMTREE]);
	reverse(p->items[OVERLAY_PH_DIRMODE], p->owner[OVERLAY_PH_DIRMODE],
	    p->n[OVERLAY_PH_DIRMODE]);
	if (group_by_dir(p, OVERLAY_PH_DELETE) < 0 ||
	    group_by_dir(p, OVERLAY_PH_FILES) < 0)
		goto fail;
	return 0;
fail:
	overlay_plan_free(p);
	return -1;
}

void
overlay_plan_free(struct overlay_plan *p)
{
	int i;

	for (i = 0; i < OVERLAY_NPHASE; i++) {
		mem_free(p->items[i]);
		mem_free(p->owner[i]);
	}
	memset(p, 0, sizeof *p);
}

int
overlay_record_bases(struct session *s, int rootfd)
{
	struct overlay_changes c;
	struct apply_base b;
	size_t i;
	int rc = -1;

	if (overlay_changes(s, rootfd, &c, NULL, NULL) < 0)
		goto out;
	for (i = 0; i < c.n; i++) {
		if (session_base_get(s, c.v[i].path, &b) == 0)
			continue;
		if (errno != ENOENT)
			goto out;
		if (c.v[i].status == OVERLAY_MKDIR &&
		    c.v[i].old_kind == OVERLAY_ABSENT) {
			memset(&b, 0, sizeof b);
			b.absent = 1;
		} else if (base_of(s, rootfd, c.v[i].path, &b) < 0)
			goto out;
		if (session_base_put(s, c.v[i].path, &b) < 0)
			goto out;
	}
	rc = 0;
out:
	overlay_changes_free(&c);
	return rc;
}

/* ---- settling after apply ---- */

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

	if (depth > DEPTH_MAX || list_names(ufd, &names, &n) < 0)
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
overlay_settle(struct session *s, struct overlay_changes *c)
{
	struct keys pending = { NULL, 0 };
	struct overlay_change *ch;
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
