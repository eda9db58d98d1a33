/*
 * session_apply: the apply mark, and the links it may have left
 * (session_apply.h).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/fsx.h"
#include "lib/mem.h"
#include "lib/os.h"
#include "session/session_apply.h"
#include "session/session_base.h"
#include "session/shadow.h"

#define APPLY_MARK	"applying"

int
session_apply_begin(struct session *s)
{
	return fsx_write_atomic(s->dirfd, APPLY_MARK, "", 0, 0600, 0);
}

struct ident {
	dev_t	dev;
	ino_t	ino;
	int	bad;	/* has a link outside upper/: fix each name */
};

struct unalias {
	struct session	*s;
	int		 rootfd;
	int		 act;		/* 0: count the names, 1: fix */
	struct ident	*v;		/* upper/'s files with nlink > 1 */
	size_t		 n, cap;
	long		 fixed;
	struct timespec	 last;		/* the latest ctime a fix stamped */
	char		 path[PATH_MAX];
};

static int
cmp_ident(const void *a, const void *b)
{
	const struct ident *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/*
 * Whether upper/path (st) is to be fixed: its inode has links outside
 * upper/. Decided at its first name, from pass 0's count (the fixes
 * change st_nlink), and kept for the others.
 */
static int
outside(struct unalias *u, const struct stat *st)
{
	struct ident k = { st->st_dev, st->st_ino, 0 };
	size_t lo = 0, hi = u->n, c = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_ident(&u->v[mid], &k) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == u->n || cmp_ident(&u->v[lo], &k) != 0)
		return 0;	/* made meanwhile: not ours to judge */
	if (u->v[lo].bad == 0) {
		while (lo + c < u->n && cmp_ident(&u->v[lo + c], &k) == 0)
			c++;
		u->v[lo].bad = c < (size_t)st->st_nlink ? 1 : -1;
	}
	return u->v[lo].bad > 0;
}

/* 1 when st's ctime is later than *t; with set, *t becomes it. */
static int
later(const struct stat *st, struct timespec *t, int set)
{
	struct timespec c = os_ctime(st);

	if (c.tv_sec < t->tv_sec ||
	    (c.tv_sec == t->tv_sec && c.tv_nsec <= t->tv_nsec))
		return 0;
	if (set)
		*t = c;
	return 1;
}

/*
 * Whether the real file at upper/path's path, through real directories
 * only (no symlink followed), is the inode us (*rs: its stat).
 */
static int
is_real(struct unalias *u, const struct stat *us, struct stat *rs)
{
	char *p = u->path, *slash;
	int dfd = u->rootfd, fd, same;

	while ((slash = strchr(p, '/')) != NULL) {
		*slash = '\0';
		fd = openat(dfd, p, os_o_path | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		*slash = '/';
		if (dfd != u->rootfd)
			close(dfd);
		if ((dfd = fd) < 0)
			return 0;
		p = slash + 1;
	}
	same = fstatat(dfd, p, rs, AT_SYMLINK_NOFOLLOW) == 0 &&
	    rs->st_dev == us->st_dev && rs->st_ino == us->st_ino;
	if (dfd != u->rootfd)
		close(dfd);
	return same;
}

/*
 * upper/path (name in ufd) is a link of something outside upper/: drop it
 * where it is the real file at its path, else make it a copy of its own.
 */
static int
fix(struct unalias *u, int ufd, const char *name, const struct stat *us)
{
	struct stat rs, st;
	int fd, rc;

	if (is_real(u, us, &rs)) {
		/* the base first, on disk: a crash leaves the name to find */
		if (session_base_del(u->s, u->path) < 0 ||
		    fsx_sync_dir(u->s->basefd) < 0 ||
		    (unlinkat(ufd, name, 0) < 0 && errno != ENOENT))
			return -1;
		(void)is_real(u, us, &rs);	/* its ctime, after the unlink */
		(void)later(&rs, &u->last, 1);
	} else {
		/* upper/ is ours alone (session.h): nothing swaps it meanwhile */
		if ((fd = openat(ufd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC)) < 0)
			return -1;
		rc = fsx_write_atomic_fd(ufd, name, fd, us->st_mode & 07777, 0);
		if (rc == 0 && fstat(fd, &st) == 0)
			(void)later(&st, &u->last, 1);
		fsx_close(fd);
		if (rc < 0)
			return -1;
		if (fstatat(ufd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			(void)later(&st, &u->last, 1);
	}
	u->fixed++;
	return 0;
}

/*
 * A directory of upper/, opened up (owner rwx) for the walk where its
 * mode would stop a listing or a fix; *mode: the mode to give it back,
 * or -1.
 */
static int
open_dir(int ufd, const char *name, mode_t *mode)
{
	struct stat st;
	int fd, e;

	*mode = (mode_t)-1;
	if (fstatat(ufd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if ((st.st_mode & 0700) != 0700 && st.st_uid == geteuid()) {
		if (fchmodat(ufd, name, (st.st_mode & 07777) | 0700, 0) < 0)
			return -1;
		*mode = st.st_mode & 07777;
	}
	if ((fd = openat(ufd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0 && *mode != (mode_t)-1) {
		e = errno;
		(void)fchmodat(ufd, name, *mode, 0);
		errno = e;
	}
	return fd;
}

/* upper/path (path of plen bytes: "" or ending in '/'), open in ufd. */
static int
walk(struct unalias *u, int ufd, size_t plen, int depth)
{
	struct ident *v;
	struct stat st;
	char **names;
	size_t n, i, len;
	mode_t mode;
	long n0 = u->fixed;
	int rc = 0, sub, e;

	if (fsx_list(ufd, NULL, NULL, &names, &n) < 0)
		return -1;
	for (i = 0; i < n && rc == 0; i++) {
		len = strlen(names[i]);
		if (plen + len + 2 > sizeof u->path)
			continue;
		if (fstatat(ufd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			rc = errno == ENOENT ? 0 : -1;
			continue;
		}
		memcpy(u->path + plen, names[i], len + 1);
		if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
			if (u->act) {
				if (outside(u, &st))
					rc = fix(u, ufd, names[i], &st);
				continue;
			}
			if (u->n == u->cap) {
				if ((v = mem_reallocarray(u->v, u->cap * 2 + 16,
				    sizeof *v)) == NULL) {
					rc = -1;
					continue;
				}
				u->v = v;
				u->cap = u->cap * 2 + 16;
			}
			u->v[u->n].dev = st.st_dev;
			u->v[u->n].ino = st.st_ino;
			u->v[u->n++].bad = 0;
			continue;
		}
		if (!S_ISDIR(st.st_mode) || depth >= SHADOW_DEPTH_MAX)
			continue;
		if ((sub = open_dir(ufd, names[i], &mode)) < 0) {
			rc = -1;
			continue;
		}
		u->path[plen + len] = '/';
		rc = walk(u, sub, plen + len + 1, depth + 1);
		e = errno;
		if (mode != (mode_t)-1)
			(void)fchmod(sub, mode);
		close(sub);
		errno = e;
	}
	fsx_names_free(names, n);
	if (rc == 0 && u->fixed > n0 && fsync(ufd) < 0)
		rc = -1;
	return rc;
}

long
session_unalias(struct session *s, int rootfd)
{
	struct unalias *u;
	struct stat st;
	long rc = -1;

	if (fstatat(s->dirfd, APPLY_MARK, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if ((u = mem_calloc(1, sizeof *u)) == NULL)
		return -1;
	u->s = s;
	u->rootfd = rootfd;
	if (walk(u, s->upperfd, 0, 0) < 0)
		goto out;
	if (u->n > 1)
		qsort(u->v, u->n, sizeof *u->v, cmp_ident);
	u->act = 1;
	if (u->n > 0 && walk(u, s->upperfd, 0, 0) < 0)
		goto out;
	/* what apply unlinked too, wherever it was: on disk before the mark goes */
	if (os_syncfs(s->upperfd) < 0 ||
	    (u->fixed > 0 && fsx_tick_past(s->dirfd, APPLY_MARK, &u->last) < 0) ||
	    (unlinkat(s->dirfd, APPLY_MARK, 0) < 0 && errno != ENOENT))
		goto out;
	rc = u->fixed;
out:
	mem_free(u->v);
	mem_free(u);
	return rc;
}
