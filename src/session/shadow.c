/*
 * shadow: the shadow tree of a dry-run session (shadow.h).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fsx.h"
#include "lib/hash.h"
#include "lib/mem.h"
#include "lib/os.h"
#include "lib/readall.h"
#include "session/session_base.h"
#include "session/session_rmtree.h"
#include "session/shadow.h"
#include "session/shadow_base.h"

#define PERM(m)		((unsigned int)(m) & 07777)
#define OFLAGS		(O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
#define DFLAGS		(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

int
shadow_opaque(int fd)
{
	static const char *names[] = { "trusted.overlay.opaque",
	    "user.overlay.opaque" };
	char v[4];
	size_t i;
	long n;
	int r = 0;

	for (i = 0; i < 2; i++) {
		n = os_getxattr(fd, names[i], v, sizeof v);
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
	r = os_getxattr(fd, "trusted.overlay.whiteout", v, sizeof v) >= 0 ||
	    os_getxattr(fd, "user.overlay.whiteout", v, sizeof v) >= 0;
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
shadow_is_whiteout(int dirfd, const char *name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	return st_is_whiteout(dirfd, name, &st);
}

static int
kind_from_st(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return SHADOW_FILE;
	if (S_ISLNK(st->st_mode))
		return SHADOW_SYMLINK;
	if (S_ISDIR(st->st_mode))
		return SHADOW_DIR;
	if (S_ISFIFO(st->st_mode))
		return SHADOW_FIFO;
	return SHADOW_SPECIAL;
}

const char *
shadow_path_problem(const char *rel)
{
	const char *p, *q;
	size_t depth = 0;

	if (strlen(rel) > SHADOW_PATH_MAX)
		return "longer than 4095 bytes";
	for (p = rel;; p = q + 1) {
		q = strchr(p, '/');
		if (q == NULL)
			q = p + strlen(p);
		if (q == p || (q - p == 1 && p[0] == '.') ||
		    (q - p == 2 && p[0] == '.' && p[1] == '.'))
			return "empty, or a component is empty, . or ..";
		if ((size_t)(q - p) > NAME_MAX)
			return "a name in it is longer than 255 bytes";
		if ((size_t)(q - p) == FSX_TMP_NAMELEN) {
			char c[FSX_TMP_NAMELEN + 1];

			memcpy(c, p, FSX_TMP_NAMELEN);
			c[FSX_TMP_NAMELEN] = '\0';
			if (fsx_is_tmp_name(c))
				return "a name in it is reserved for arcturn's "
				    "temp files";
		}
		if (*q == '\0')
			break;
		if (++depth > SHADOW_DEPTH_MAX)
			return "nested deeper than 512 directories";
	}
	return NULL;
}

int
shadow_kind(int dirfd, const char *name, struct stat *st, int upper)
{
	if (fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return SHADOW_ABSENT;
		return -1;
	}
	if (upper && st_is_whiteout(dirfd, name, st))
		return SHADOW_WHITEOUT;
	return kind_from_st(st);
}


/* Make dirfd/name a whiteout, replacing what is there (not a dir). */
static int
make_whiteout(int dirfd, const char *name)
{
	char tmp[FSX_TMP_NAMELEN + 1], v[4];
	int fd;

	if (fsx_tmp_name(tmp) < 0)
		return -1;
	if (mknodat(dirfd, tmp, S_IFCHR | 0, 0) < 0) {
		if (errno != EPERM)
			return -1;
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return -1;
		if (os_setxattr(fd, "user.overlay.whiteout", "y", 1) < 0) {
			fsx_close(fd);
			goto fail;
		}
		close(fd);
		if (os_getxattr(dirfd, "user.overlay.opaque", v, sizeof v) < 0 &&
		    os_setxattr(dirfd, "user.overlay.opaque", "x", 1) < 0)
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


/* The merged view of one path: where its parent is in upper/ and real. */
struct walk {
	int		 ufd;	/* upper dir holding name, or -1 */
	int		 rfd;	/* real dir holding name, or -1 */
	int		 hidden; /* the real side is hidden by upper */
	const char	*name;	/* last component, inside rel */
	/* what a walk with mkdirs made, to undo on failure */
	size_t		 nmade;
	struct made {
		size_t	 len;	/* prefix of rel */
		int	 white;	/* it replaced a whiteout */
		int	 rec;	/* its base record is new */
	}		 made[16];
	int		 overflow; /* made more than the array holds */
};

static void
walk_done(struct walk *w)
{
	fsx_close(w->ufd);
	fsx_close(w->rfd);
	w->ufd = w->rfd = -1;
}

/* A new dir ufd/c with mode (made 0700 first): its fd, or -1. */
static int
mkdir_upper(int ufd, const char *c, mode_t mode)
{
	int fd;

	if (mkdirat(ufd, c, 0700) < 0 || (fd = openat(ufd, c, DFLAGS)) < 0)
		return -1;
	if (fchmod(fd, mode) == 0)
		return fd;
	fsx_close(fd);
	return -1;
}

/* Replace the whiteout ufd/c by a dir hiding the real dir's children. */
static int
unwhite_dir(int ufd, const char *c, int rfd, mode_t mode)
{
	struct dirent *e;
	DIR *d;
	int nfd, fd;

	if (unlinkat(ufd, c, 0) < 0 || (nfd = mkdir_upper(ufd, c, mode)) < 0)
		return -1;
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

/*
 * Record the base of rel's first plen bytes: rfd/name now (rfd -1:
 * absent). *isnew: whether the record is new (else one was there).
 */
static int
put_prefix_base(struct session *s, const char *rel, size_t plen, int rfd,
    const char *name, int *isnew)
{
	struct apply_base b;
	char *pre;
	int rc;

	if ((pre = mem_strndup(rel, plen)) == NULL)
		return -1;
	*isnew = session_base_get(s, pre, &b) < 0 && errno == ENOENT;
	if (*isnew && shadow_base_now(rfd, name, &b) < 0)
		rc = -1;
	else
		rc = *isnew ? session_base_put(s, pre, &b) : 0;
	mem_free(pre);
	return rc;
}

/* Note that the walk made rel's first len bytes (a dir) in upper/. */
static void
note_made(struct walk *w, size_t len, int white, int rec)
{
	if (w->nmade == sizeof w->made / sizeof w->made[0]) {
		w->overflow = 1;
		return;
	}
	w->made[w->nmade].len = len;
	w->made[w->nmade].white = white;
	w->made[w->nmade].rec = rec;
	w->nmade++;
}

/*
 * Undo what a walk made (deepest first): its dirs go (a whiteout comes
 * back where one was), and the base records it wrote. Best effort, errno
 * kept.
 */
static void
undo_made(struct session *s, const char *rel, struct walk *w)
{
	const char *name;
	char *pre;
	int saved = errno, pfd;
	size_t i;

	for (i = w->nmade; i-- > 0;) {
		if ((pre = mem_strndup(rel, w->made[i].len)) == NULL)
			break;
		pfd = fsx_open_parent(s->upperfd, pre, 0, &name);
		if (pfd >= 0) {
			if (w->made[i].white) {
				if (session_rmtree(pfd, name) == 0)
					(void)make_whiteout(pfd, name);
			} else
				(void)unlinkat(pfd, name, AT_REMOVEDIR);
			close(pfd);
		}
		if (w->made[i].rec)
			(void)session_base_del(s, pre);
		mem_free(pre);
	}
	w->nmade = 0;
	errno = saved;
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
	int uk, rk, nufd, nrfd, rec, depth = 0;

	w->ufd = dup(s->upperfd);
	w->rfd = dup(rootfd);
	w->hidden = 0;
	w->name = NULL;
	w->nmade = 0;
	w->overflow = 0;
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
		    strcmp(c, "..") == 0 || ++depth > SHADOW_DEPTH_MAX) {
			errno = EINVAL;
			goto fail;
		}
		uk = w->ufd >= 0 ? shadow_kind(w->ufd, c, &us, 1) : SHADOW_ABSENT;
		rk = w->rfd >= 0 ? shadow_kind(w->rfd, c, &rs, 0) : SHADOW_ABSENT;
		if (uk < 0 || rk < 0)
			goto fail;
		nufd = nrfd = -1;
		if (rk == SHADOW_DIR && (nrfd = openat(w->rfd, c, DFLAGS)) < 0)
			goto fail;
		if (uk == SHADOW_DIR) {
			if ((nufd = openat(w->ufd, c, DFLAGS)) < 0)
				goto fail2;
			if (rk != SHADOW_DIR || shadow_opaque(nufd) == 'y')
				w->hidden = 1;
		} else if (uk == SHADOW_WHITEOUT) {
			if (!mkdirs) {
				errno = ENOENT;
				goto fail2;
			}
			if (put_prefix_base(s, rel, (size_t)(q - rel),
			    rk == SHADOW_ABSENT ? -1 : w->rfd, c, &rec) < 0)
				goto fail2;
			nufd = unwhite_dir(w->ufd, c, w->hidden ? -1 : w->rfd,
			    newdirmode);
			if (nufd < 0)
				goto fail2;
			note_made(w, (size_t)(q - rel), 1, rec);
			if (rk != SHADOW_DIR)
				w->hidden = 1;
		} else if (uk != SHADOW_ABSENT) {
			errno = ENOTDIR;
			goto fail2;
		} else if (rk == SHADOW_DIR && !w->hidden) {
			if (mkdirs) {
				/* A copy-up parent: its base says "dir". */
				if (put_prefix_base(s, rel, (size_t)(q - rel),
				    w->rfd, c, &rec) < 0 || (nufd = mkdir_upper(
				    w->ufd, c, PERM(rs.st_mode))) < 0)
					goto fail2;
				note_made(w, (size_t)(q - rel), 0, rec);
			}
		} else if (rk == SHADOW_ABSENT || w->hidden) {
			if (!mkdirs) {
				errno = ENOENT;
				goto fail2;
			}
			if (put_prefix_base(s, rel, (size_t)(q - rel),
			    rk == SHADOW_ABSENT ? -1 : w->rfd, c, &rec) < 0 ||
			    (nufd = mkdir_upper(w->ufd, c, newdirmode & 07777)) < 0)
				goto fail2;
			note_made(w, (size_t)(q - rel), 0, rec);
			w->hidden = 1;
		} else if (rk == SHADOW_SYMLINK) {
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
	if (mkdirs)
		undo_made(s, rel, w);
	walk_done(w);
	return -1;
}

/* Listing upper/ and the real tree: fsx temp files are not entries. */
static int
not_tmp(int dirfd, const char *name, void *arg)
{
	return !fsx_is_tmp_name(name);
}

int
shadow_list(int dirfd, char ***namesp, size_t *np)
{
	return fsx_list(dirfd, not_tmp, NULL, namesp, np);
}



int
shadow_open(struct session *s, int rootfd, const char *rel, int *shadow)
{
	struct walk w;
	struct stat st;
	int k, fd = -1;

	*shadow = 0;
	if (walk_parent(s, rootfd, rel, 0, 0, &w) < 0)
		return -1;
	k = w.ufd >= 0 ? shadow_kind(w.ufd, w.name, &st, 1) : SHADOW_ABSENT;
	if (k < 0)
		goto out;
	if (k == SHADOW_WHITEOUT) {
		errno = ENOENT;
		goto out;
	}
	if (k != SHADOW_ABSENT) {
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
shadow_read(struct session *s, int rootfd, const char *rel, size_t max,
    char **buf, size_t *len, mode_t *mode)
{
	struct stat st;
	int fd, shadow, rc;

	if ((fd = shadow_open(s, rootfd, rel, &shadow)) < 0)
		return -1;
	rc = fstat(fd, &st) < 0 ? -1 : readall_fd(fd, max, buf, len);
	fsx_close(fd);
	if (rc == 0)
		*mode = PERM(st.st_mode);
	return rc;
}

/*
 * Walk to rel's parent, making it in upper/ (newdirmode for new dirs),
 * and see what rel is there (*uk) and in the real tree (*rk).
 */
static int
walk_to(struct session *s, int rootfd, const char *rel, mode_t newdirmode,
    struct walk *w, int *uk, struct stat *us, int *rk, struct stat *rs)
{
	if (walk_parent(s, rootfd, rel, 1, newdirmode, w) < 0)
		return -1;
	*uk = shadow_kind(w->ufd, w->name, us, 1);
	*rk = w->rfd >= 0 ? shadow_kind(w->rfd, w->name, rs, 0) :
	    SHADOW_ABSENT;
	if (*uk < 0 || *rk < 0) {
		walk_done(w);
		return -1;
	}
	return 0;
}

/*
 * 1 when dirfd/name exists: a write that failed after its rename (the
 * directory's sync) still made its change, which keeps its record.
 */
static int
still_there(int dirfd, const char *name)
{
	struct stat st;
	int e = errno, r = fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;

	errno = e;
	return r;
}

/*
 * The end of a write or remove: when it failed, drop the record it made
 * (unless its change landed anyway) and the folders it made; rc back.
 */
static int
change_done(struct session *s, const char *rel, struct walk *w, int made,
    int rc)
{
	if (rc < 0 && made && !still_there(w->ufd, w->name))
		(void)session_base_del(s, rel);
	if (rc < 0)
		undo_made(s, rel, w);
	walk_done(w);
	return rc;
}

/*
 * The base of rel for a write or remove that found uk in upper/ and the
 * real dir rfd: the real state now, unless upper/ already holds rel
 * without a record (then it says "unrecorded": a killed dry run made it,
 * on a real file we never saw). A record there already stays (the first
 * capture wins); *made says whether this call wrote one, which the
 * caller drops again if its change then fails.
 */
static int
capture(struct session *s, const char *rel, int uk, int rfd,
    const char *name, int *made)
{
	struct apply_base b;

	*made = 0;
	if (session_base_get(s, rel, &b) == 0 || errno == EBADMSG)
		return 0;
	if (errno != ENOENT)
		return -1;
	if (uk != SHADOW_ABSENT) {
		memset(&b, 0, sizeof b);
		b.unrecorded = 1;
	} else if (shadow_base_now(rfd, name, &b) < 0)
		return -1;
	if (session_base_put(s, rel, &b) < 0)
		return -1;
	*made = 1;
	return 0;
}

int
shadow_lookup(struct session *s, int rootfd, const char *rel,
    struct stat *st)
{
	struct walk w;
	int k;

	if (walk_parent(s, rootfd, rel, 0, 0, &w) < 0)
		return errno == ENOENT ? SHADOW_ABSENT : -1;
	k = w.ufd >= 0 ? shadow_kind(w.ufd, w.name, st, 1) : SHADOW_ABSENT;
	if (k == SHADOW_WHITEOUT)
		k = SHADOW_ABSENT;
	else if (k == SHADOW_ABSENT && !w.hidden && w.rfd >= 0)
		k = shadow_kind(w.rfd, w.name, st, 0);
	walk_done(&w);
	return k;
}

/* shadow_path_problem as an errno: ENAMETOOLONG, ELOOP, EINVAL. */
static int
path_check(const char *rel)
{
	const char *why = shadow_path_problem(rel);

	if (why == NULL)
		return 0;
	errno = strstr(why, "deeper") != NULL ? ELOOP :
	    strstr(why, "longer") != NULL ? ENAMETOOLONG : EINVAL;
	return -1;
}

/* Where shadow_write takes the new content from. */
struct source {
	const void	*buf;
	size_t		 len;
	int		 fd;	/* >= 0: stream from it instead */
};

static int
write_src(struct session *s, int rootfd, const char *rel,
    const struct source *src, mode_t newmode, mode_t newdirmode)
{
	struct walk w;
	struct stat us, rs;
	int uk, rk, rc = -1, made = 0;
	mode_t mode = newmode & 07777;

	if (path_check(rel) < 0)
		return -1;
	/* what stands there: refused before anything is made */
	switch (shadow_lookup(s, rootfd, rel, &us)) {
	case -1:
		return -1;
	case SHADOW_DIR:
		errno = EISDIR;
		return -1;
	case SHADOW_FIFO:
	case SHADOW_SPECIAL:
		errno = EINVAL;
		return -1;
	}
	if (walk_to(s, rootfd, rel, newdirmode, &w, &uk, &us, &rk, &rs) < 0)
		return -1;
	if (uk == SHADOW_DIR || (uk == SHADOW_ABSENT && !w.hidden &&
	    rk == SHADOW_DIR)) {
		errno = EISDIR;
		goto out;
	}
	if (uk == SHADOW_SPECIAL || uk == SHADOW_FIFO || (uk == SHADOW_ABSENT &&
	    !w.hidden && (rk == SHADOW_SPECIAL || rk == SHADOW_FIFO))) {
		errno = EINVAL;
		goto out;
	}
	if (uk == SHADOW_FILE)
		mode = PERM(us.st_mode);
	else if (uk == SHADOW_ABSENT && !w.hidden && rk == SHADOW_FILE)
		mode = PERM(rs.st_mode);
	/* The base goes first: a crash leaves a record, never a bare copy. */
	if (capture(s, rel, uk, w.hidden ? -1 : w.rfd, w.name, &made) < 0)
		goto out;
	if (src->fd >= 0)
		rc = fsx_write_atomic_stream(w.ufd, w.name, src->fd, mode, 0);
	else
		rc = fsx_write_atomic(w.ufd, w.name, src->buf, src->len, mode,
		    0);
out:
	return change_done(s, rel, &w, made, rc);
}

int
shadow_write(struct session *s, int rootfd, const char *rel,
    const void *buf, size_t len, mode_t newmode, mode_t newdirmode)
{
	struct source src = { buf, len, -1 };

	return write_src(s, rootfd, rel, &src, newmode, newdirmode);
}

int
shadow_write_fd(struct session *s, int rootfd, const char *rel, int fd,
    mode_t newmode, mode_t newdirmode)
{
	struct source src = { NULL, 0, fd };

	return write_src(s, rootfd, rel, &src, newmode, newdirmode);
}

int
shadow_remove(struct session *s, int rootfd, const char *rel)
{
	struct walk w;
	struct stat us, rs;
	int uk, rk, rc = -1, made = 0;

	if (path_check(rel) < 0 ||
	    walk_to(s, rootfd, rel, 0755, &w, &uk, &us, &rk, &rs) < 0)
		return -1;
	if (uk == SHADOW_WHITEOUT || (uk == SHADOW_ABSENT &&
	    (w.hidden || rk == SHADOW_ABSENT))) {
		errno = ENOENT;
		goto out;
	}
	if (uk == SHADOW_DIR || (uk == SHADOW_ABSENT && rk == SHADOW_DIR)) {
		errno = EISDIR;
		goto out;
	}
	if (capture(s, rel, uk, w.hidden ? -1 : w.rfd, w.name, &made) < 0)
		goto out;
	if (!w.hidden && rk != SHADOW_ABSENT)
		rc = make_whiteout(w.ufd, w.name);
	else if ((rc = unlinkat(w.ufd, w.name, 0)) == 0)
		rc = session_base_del(s, rel);
out:
	return change_done(s, rel, &w, made, rc);
}

