/*
 * changes: the change list of a dry-run session (changes.h).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "changes.h"
#include "fsx.h"
#include "mem.h"

#define PERM(m)		((unsigned int)(m) & 07777)
#define OFLAGS		(O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
#define DFLAGS		(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

struct build {
	struct session		*s;
	struct changes	*c;
	size_t			 cap;
	changes_warn_fn		*warn;
	void			*warnarg;
	char			 path[PATH_MAX];
	size_t			 plen;
	int			 depth;
};

static void
build_warn(struct build *b, const char *path, int err, const char *what)
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
emit(struct build *b, enum change_status status, const char *origin,
    int ok, const struct stat *os, int nk, const struct stat *ns)
{
	struct change *ch, *nv;
	struct changes *c = b->c;

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
	if (ok != SHADOW_ABSENT && os != NULL) {
		ch->old_mode = PERM(os->st_mode);
		ch->old_size = os->st_size;
	}
	if (nk != SHADOW_ABSENT && ns != NULL) {
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

	if (++b->depth > SHADOW_DEPTH_MAX) {
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
		/* gone meanwhile, or not to be looked at: not deleted here */
		if ((k = shadow_kind(dirfd(d), e->d_name, &st, 0)) <= 0)
			continue;
		if (path_push(b, e->d_name, &old) < 0) {
			rc = -1;
			break;
		}
		if (k == SHADOW_DIR) {
			int sub = openat(dirfd(d), e->d_name, DFLAGS);

			if (sub >= 0) {
				rc = emit_deleted_tree(b, sub, origin);
				fsx_close(sub);
				if (rc == 0)
					rc = emit(b, CHANGE_RMDIR, origin,
					    SHADOW_DIR, &st, SHADOW_ABSENT,
					    NULL);
			}
		} else if (k != SHADOW_SPECIAL)
			rc = emit(b, CHANGE_DELETED, origin, k, &st,
			    SHADOW_ABSENT, NULL);
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
		rc = emit(b, CHANGE_RMDIR, org, SHADOW_DIR, rs,
		    SHADOW_ABSENT, NULL);
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
		return rk == SHADOW_ABSENT ? ROLE_NEW : ROLE_TYPECHANGE;
	}
	if (errno != ENOENT)
		return ROLE_ERR;
	if (opaque)
		return rk == SHADOW_ABSENT ? ROLE_NEW : ROLE_TYPECHANGE;
	return rk == SHADOW_ABSENT ? ROLE_NEW : ROLE_PARENT;
}

static int
walk_entry(struct build *b, int ufd, int rfd, const char *name)
{
	struct stat us, rs;
	int uk, rk, eq, sub, rsub, rc = 0;
	int opq;

	if ((uk = shadow_kind(ufd, name, &us, 1)) < 0)
		return -1;
	if (uk == SHADOW_ABSENT)
		return 0;	/* vanished meanwhile */
	rk = rfd >= 0 ? shadow_kind(rfd, name, &rs, 0) : SHADOW_ABSENT;
	if (rk < 0)
		return -1;
	switch (uk) {
	case SHADOW_WHITEOUT:
		if (rk == SHADOW_DIR)
			return emit_rmdir(b, rfd, name, &rs, b->path);
		if (rk == SHADOW_FILE || rk == SHADOW_SYMLINK)
			return emit(b, CHANGE_DELETED, b->path, rk, &rs,
			    SHADOW_ABSENT, NULL);
		return 0;
	case SHADOW_SPECIAL:
		build_warn(b, b->path, 0, "special file in the session; left out");
		return 0;
	case SHADOW_FILE:
	case SHADOW_SYMLINK:
		if (rk == SHADOW_DIR &&
		    emit_rmdir(b, rfd, name, &rs, b->path) < 0)
			return -1;
		if (rk == SHADOW_ABSENT || rk == SHADOW_DIR)
			return emit(b, CHANGE_ADDED, b->path, SHADOW_ABSENT,
			    NULL, uk, &us);
		if (rk != uk)
			return emit(b, CHANGE_TYPE, b->path, rk, &rs, uk, &us);
		if (uk == SHADOW_SYMLINK) {
			if ((eq = same_link(ufd, rfd, name)) < 0)
				return -1;
			return eq ? 0 : emit(b, CHANGE_MODIFIED, b->path, rk,
			    &rs, uk, &us);
		}
		eq = us.st_size != rs.st_size ? 0 :
		    same_content(ufd, rfd, name);
		if (eq < 0) {
			if (errno == ENOMEM)
				return -1;
			build_warn(b, b->path, errno, "could not compare");
			eq = 0;
		}
		if (!eq)
			return emit(b, CHANGE_MODIFIED, b->path, rk, &rs, uk,
			    &us);
		if (PERM(us.st_mode) != PERM(rs.st_mode))
			return emit(b, CHANGE_MODE, b->path, rk, &rs, uk, &us);
		return 0;
	case SHADOW_DIR:
		if ((sub = openat(ufd, name, DFLAGS)) < 0)
			return errno == ENOENT ? 0 : -1;
		opq = shadow_opaque(sub) == 'y';
		rsub = -1;
		if (rk == SHADOW_DIR) {
			if (PERM(us.st_mode) != PERM(rs.st_mode))
				rc = emit(b, CHANGE_DIRMODE, b->path, rk, &rs,
				    uk, &us);
			if (rc == 0 && (rsub = openat(rfd, name, DFLAGS)) < 0 &&
			    errno != ENOENT)
				rc = -1;
		} else {
			switch (dir_role(b, opq, rk)) {
			case ROLE_TYPECHANGE:
				if (rk == SHADOW_FILE || rk == SHADOW_SYMLINK)
					rc = emit(b, CHANGE_DELETED, b->path,
					    rk, &rs, SHADOW_ABSENT, NULL);
				/* FALLTHROUGH */
			case ROLE_NEW:
				if (rc == 0)
					rc = emit(b, CHANGE_MKDIR, b->path,
					    SHADOW_ABSENT, NULL, uk, &us);
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

	if (++b->depth > SHADOW_DEPTH_MAX) {
		errno = ELOOP;
		goto out;
	}
	if (shadow_list(ufd, &un, &nu) < 0)
		goto out;
	if (opaque && rfd >= 0) {
		if (shadow_list(rfd, &rn, &nr) < 0 ||
		    (origin = mem_alloc(b->plen + 1)) == NULL)
			goto out;
		/* What only the hidden real dir has is deleted, by this dir. */
		memcpy(origin, b->path, b->plen + 1);
		for (i = 0; i < nr; i++) {
			if (bsearch(&rn[i], un, nu, sizeof *un, cmp_name))
				continue;
			if (path_push(b, rn[i], &old) < 0)
				goto out;
			k = shadow_kind(rfd, rn[i], &rs, 0);
			if (k == SHADOW_DIR) {
				if (emit_rmdir(b, rfd, rn[i], &rs, origin) < 0)
					goto out;
			} else if (k == SHADOW_FILE || k == SHADOW_SYMLINK) {
				if (emit(b, CHANGE_DELETED, origin, k, &rs,
				    SHADOW_ABSENT, NULL) < 0)
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
status_rank(enum change_status s)
{
	return s == CHANGE_DELETED ? 0 : s == CHANGE_RMDIR ? 1 : 2;
}

static int
cmp_change(const void *a, const void *b)
{
	const struct change *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c != 0)
		return c;
	return status_rank(x->status) - status_rank(y->status);
}

/* Index of the first change whose path is >= key. */
size_t
changes_find(const struct changes *c, const char *key)
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
has_beneath(const struct changes *c, const char *path)
{
	char key[PATH_MAX + 2];
	size_t i, pl = strlen(path);

	if (pl + 2 > sizeof key)
		return 0;
	memcpy(key, path, pl);
	key[pl] = '/';
	key[pl + 1] = '\0';
	i = changes_find(c, key);
	return i < c->n && strncmp(c->v[i].path, key, pl + 1) == 0;
}

int
changes_list(struct session *s, int rootfd, struct changes *c,
    changes_warn_fn *wfn, void *warg)
{
	struct build *b;
	struct change *ch;
	size_t i;
	int rc;

	memset(c, 0, sizeof *c);
	if ((b = mem_calloc(1, sizeof *b)) == NULL)
		return -1;
	b->s = s;
	b->c = c;
	b->warn = wfn;
	b->warnarg = warg;
	rc = walk_upper(b, s->upperfd, rootfd, shadow_opaque(s->upperfd) == 'y');
	mem_free(b);
	if (rc < 0)
		return -1;
	if (c->n > 1)
		qsort(c->v, c->n, sizeof *c->v, cmp_change);
	for (i = 0; i < c->n; i++) {
		ch = &c->v[i];
		if ((ch->status == CHANGE_MKDIR ||
		    ch->status == CHANGE_RMDIR) && has_beneath(c, ch->path))
			ch->implied = 1;
		if (!ch->implied)
			c->count++;
	}
	return 0;
}

void
changes_free(struct changes *c)
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
changes_status_name(enum change_status st)
{
	switch (st) {
	case CHANGE_ADDED:
		return "added";
	case CHANGE_MODIFIED:
		return "modified";
	case CHANGE_DELETED:
		return "deleted";
	case CHANGE_MODE:
		return "mode";
	case CHANGE_TYPE:
		return "typechange";
	case CHANGE_MKDIR:
		return "dir-added";
	case CHANGE_RMDIR:
		return "dir-deleted";
	case CHANGE_DIRMODE:
		return "dir-mode";
	}
	return "?";
}

int
changes_record_bases(struct session *s, int rootfd)
{
	struct changes c;
	struct apply_base b;
	size_t i;
	int rc = -1;

	if (changes_list(s, rootfd, &c, NULL, NULL) < 0)
		goto out;
	for (i = 0; i < c.n; i++) {
		if (session_base_get(s, c.v[i].path, &b) == 0)
			continue;
		if (errno != ENOENT)
			goto out;
		if (c.v[i].status == CHANGE_MKDIR &&
		    c.v[i].old_kind == SHADOW_ABSENT) {
			memset(&b, 0, sizeof b);
			b.absent = 1;
		} else if (shadow_base(s, rootfd, c.v[i].path, &b) < 0)
			goto out;
		if (session_base_put(s, c.v[i].path, &b) < 0)
			goto out;
	}
	rc = 0;
out:
	changes_free(&c);
	return rc;
}
