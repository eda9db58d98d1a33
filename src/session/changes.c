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

#include "lib/fsx.h"
#include "lib/mem.h"
#include "session/changes.h"
#include "session/session_base.h"

#define PERM(m)		((unsigned int)(m) & 07777)
#define OFLAGS		(O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
#define DFLAGS		(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* A regular file of upper/ with other names: a hard-link candidate. */
struct linked {
	dev_t		 dev;
	ino_t		 ino;
	char		*path;
	long		 change;	/* its index in c->v, or -1 */
};

struct build {
	struct session		*s;
	struct changes	*c;
	size_t			 cap;
	changes_warn_fn		*warn;
	void			*warnarg;
	char			 path[PATH_MAX];
	size_t			 plen;
	int			 depth;
	struct linked		*lk;
	size_t			 nlk, caplk;
};

static const char R_DEEP[] =
    "holds entries nested deeper than 512 directories; refused";
static const char R_LONG[] = "holds paths longer than 4095 bytes; refused";
static const char R_SOCK[] = "a socket: arcturn does not apply sockets; kept";
static const char R_DEV[] =
    "a device node: arcturn does not apply device nodes; kept";

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
		ch->dev = ns->st_dev;
		ch->ino = ns->st_ino;
		if (nk == SHADOW_SPECIAL)
			ch->refuse = S_ISSOCK(ns->st_mode) ? R_SOCK : R_DEV;
	}
	c->n++;
	return 0;
}

/* The last change emitted at b->path, or NULL. */
static struct change *
last_at(struct build *b)
{
	size_t i;

	for (i = b->c->n; i-- > 0;)
		if (strcmp(b->c->v[i].path, b->path) == 0)
			return &b->c->v[i];
	return NULL;
}

/*
 * The directory at b->path cannot be listed further (too deep, paths too
 * long): its own change says so, or a new one does (kept pending).
 */
static int
refuse_dir(struct build *b, const char *origin, const char *why, int newdir,
    const struct stat *st)
{
	struct change *ch = last_at(b);

	if (ch == NULL || (ch->status != CHANGE_MKDIR &&
	    ch->status != CHANGE_DIRMODE && ch->status != CHANGE_RMDIR)) {
		if (emit(b, newdir ? CHANGE_MKDIR : CHANGE_DIRMODE, origin,
		    newdir ? SHADOW_ABSENT : SHADOW_DIR, st, SHADOW_DIR, st) < 0)
			return -1;
		ch = &b->c->v[b->c->n - 1];
	}
	ch->refuse = why;
	return 0;
}

/* Note a regular file of upper/ that has other names (nlink > 1). */
static int
note_linked(struct build *b, const struct stat *st, long change)
{
	struct linked *nv;

	if (st->st_nlink < 2)
		return 0;
	if (b->nlk == b->caplk) {
		b->caplk = b->caplk ? b->caplk * 2 : 16;
		if ((nv = mem_reallocarray(b->lk, b->caplk,
		    sizeof *nv)) == NULL)
			return -1;
		b->lk = nv;
	}
	if ((b->lk[b->nlk].path = mem_strdup(b->path)) == NULL)
		return -1;
	b->lk[b->nlk].dev = st->st_dev;
	b->lk[b->nlk].ino = st->st_ino;
	b->lk[b->nlk].change = change;
	b->nlk++;
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

	++b->depth;
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
			/* too long to name: the dir stays, and says why */
			path_pop(b, old);
			rc = emit(b, CHANGE_RMDIR, origin, SHADOW_DIR, NULL,
			    SHADOW_ABSENT, NULL);
			if (rc == 0)
				b->c->v[b->c->n - 1].refuse = R_LONG;
			break;
		}
		if (k == SHADOW_DIR && b->depth >= SHADOW_DEPTH_MAX) {
			rc = emit(b, CHANGE_RMDIR, origin, SHADOW_DIR, &st,
			    SHADOW_ABSENT, NULL);
			if (rc == 0)
				b->c->v[b->c->n - 1].refuse = R_DEEP;
		} else if (k == SHADOW_DIR) {
			int sub = openat(dirfd(d), e->d_name, DFLAGS);

			if (sub >= 0) {
				rc = emit_deleted_tree(b, sub, origin);
				fsx_close(sub);
				if (rc == 0)
					rc = emit(b, CHANGE_RMDIR, origin,
					    SHADOW_DIR, &st, SHADOW_ABSENT,
					    NULL);
			}
		} else
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

static int walk_upper(struct build *, int ufd, int rfd, int opaque,
    int newdir, const struct stat *);

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
		if (base.ps.kind == PSTATE_DIR && !opaque)
			return ROLE_PARENT;
		if (!base.unrecorded && base.ps.kind == PSTATE_ABSENT)
			return ROLE_NEW;
		return rk == SHADOW_ABSENT ? ROLE_NEW : ROLE_TYPECHANGE;
	}
	if (errno != ENOENT && errno != EBADMSG)
		return ROLE_ERR;
	if (opaque)
		return rk == SHADOW_ABSENT ? ROLE_NEW : ROLE_TYPECHANGE;
	return rk == SHADOW_ABSENT ? ROLE_NEW : ROLE_PARENT;
}

static int
walk_entry(struct build *b, int ufd, int rfd, const char *name)
{
	struct stat us, rs;
	int uk, rk, eq, sub, rsub, rc = 0, newdir = 0;
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
		if (rk != SHADOW_ABSENT)
			return emit(b, CHANGE_DELETED, b->path, rk, &rs,
			    SHADOW_ABSENT, NULL);
		return 0;
	case SHADOW_FILE:
	case SHADOW_SYMLINK:
	case SHADOW_FIFO:
	case SHADOW_SPECIAL:
		if (rk == SHADOW_DIR &&
		    emit_rmdir(b, rfd, name, &rs, b->path) < 0)
			return -1;
		if (rk == SHADOW_ABSENT || rk == SHADOW_DIR)
			rc = emit(b, CHANGE_ADDED, b->path, SHADOW_ABSENT,
			    NULL, uk, &us);
		else if (rk != uk || (uk == SHADOW_SPECIAL &&
		    (us.st_mode & S_IFMT) != (rs.st_mode & S_IFMT)))
			rc = emit(b, CHANGE_TYPE, b->path, rk, &rs, uk, &us);
		else if (uk == SHADOW_SYMLINK) {
			if ((eq = same_link(ufd, rfd, name)) < 0)
				return -1;
			rc = eq ? 0 : emit(b, CHANGE_MODIFIED, b->path, rk,
			    &rs, uk, &us);
		} else if (uk == SHADOW_FIFO || uk == SHADOW_SPECIAL) {
			if (PERM(us.st_mode) != PERM(rs.st_mode))
				rc = emit(b, CHANGE_MODE, b->path, rk, &rs, uk,
				    &us);
			else if (uk == SHADOW_SPECIAL &&
			    us.st_rdev != rs.st_rdev)
				rc = emit(b, CHANGE_TYPE, b->path, rk, &rs, uk,
				    &us);
		} else {
			eq = us.st_size != rs.st_size ? 0 :
			    same_content(ufd, rfd, name);
			if (eq < 0) {
				if (errno == ENOMEM)
					return -1;
				build_warn(b, b->path, errno,
				    "could not compare");
				eq = 0;
			}
			if (!eq)
				rc = emit(b, CHANGE_MODIFIED, b->path, rk, &rs,
				    uk, &us);
			else if (PERM(us.st_mode) != PERM(rs.st_mode))
				rc = emit(b, CHANGE_MODE, b->path, rk, &rs, uk,
				    &us);
			else if (us.st_nlink > 1)
				/* an equal copy-up another name links to */
				return note_linked(b, &us, -1);
			else
				return 0;
		}
		if (rc == 0 && uk == SHADOW_FILE && us.st_nlink > 1 &&
		    b->c->n > 0 && strcmp(b->c->v[b->c->n - 1].path,
		    b->path) == 0)
			rc = note_linked(b, &us, (long)b->c->n - 1);
		return rc;
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
				if (rk != SHADOW_ABSENT)
					rc = emit(b, CHANGE_DELETED, b->path,
					    rk, &rs, SHADOW_ABSENT, NULL);
				/* FALLTHROUGH */
			case ROLE_NEW:
				if (rc == 0)
					rc = emit(b, CHANGE_MKDIR, b->path,
					    SHADOW_ABSENT, NULL, uk, &us);
				newdir = 1;
				break;
			case ROLE_PARENT:
				break;
			default:
				rc = -1;
			}
		}
		if (rc == 0 && b->depth >= SHADOW_DEPTH_MAX)
			rc = refuse_dir(b, b->path, R_DEEP, newdir, &us);
		else if (rc == 0)
			rc = walk_upper(b, sub, rsub, opq, newdir, &us);
		fsx_close(rsub);
		fsx_close(sub);
		return rc;
	}
	return 0;
}

static int
walk_upper(struct build *b, int ufd, int rfd, int opaque, int newdir,
    const struct stat *dst)
{
	char **un = NULL, **rn = NULL, *origin = NULL;
	size_t nu = 0, nr = 0, i, old;
	struct stat rs;
	int rc = -1, k;

	++b->depth;
	if (shadow_list(ufd, &un, &nu) < 0)
		goto out;
	if (opaque && rfd >= 0) {
		if (shadow_list(rfd, &rn, &nr) < 0 ||
		    (origin = mem_alloc(b->plen + 1)) == NULL)
			goto out;
		/* What only the hidden real dir has is deleted, by this dir. */
		memcpy(origin, b->path, b->plen + 1);
		for (i = 0; i < nr; i++) {
			if (nu > 0 && bsearch(&rn[i], un, nu, sizeof *un,
			    cmp_name))
				continue;
			if (path_push(b, rn[i], &old) < 0) {
				path_pop(b, old);
				if (refuse_dir(b, origin, R_LONG, newdir,
				    dst) < 0)
					goto out;
				break;
			}
			k = shadow_kind(rfd, rn[i], &rs, 0);
			if (k == SHADOW_DIR) {
				if (emit_rmdir(b, rfd, rn[i], &rs, origin) < 0)
					goto out;
			} else if (k > SHADOW_ABSENT) {
				if (emit(b, CHANGE_DELETED, origin, k, &rs,
				    SHADOW_ABSENT, NULL) < 0)
					goto out;
			}
			path_pop(b, old);
		}
	}
	for (i = 0; i < nu; i++) {
		if (path_push(b, un[i], &old) < 0) {
			path_pop(b, old);
			if (b->plen > 0 && refuse_dir(b, b->path, R_LONG,
			    newdir, dst) < 0)
				goto out;
			break;
		}
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

static int
cmp_linked(const void *a, const void *b)
{
	const struct linked *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return strcmp(x->path, y->path);
}

/*
 * Files of upper/ that share an inode: one of each group leads (one that
 * is no change, so already in the real tree, else the first by path);
 * every other one that is a change becomes a link to it.
 */
static int
link_groups(struct build *b)
{
	struct change *ch;
	size_t i, j, k, lead;

	if (b->nlk > 1)
		qsort(b->lk, b->nlk, sizeof *b->lk, cmp_linked);
	for (i = 0; i < b->nlk; i = j) {
		lead = i;
		for (j = i; j < b->nlk && b->lk[j].dev == b->lk[i].dev &&
		    b->lk[j].ino == b->lk[i].ino; j++)
			if (b->lk[j].change < 0 && b->lk[lead].change >= 0)
				lead = j;
		for (k = i; k < j; k++) {
			if (k == lead || b->lk[k].change < 0)
				continue;
			ch = &b->c->v[b->lk[k].change];
			if ((ch->link_to = mem_strdup(b->lk[lead].path)) == NULL)
				return -1;
		}
	}
	return 0;
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
	rc = walk_upper(b, s->upperfd, rootfd, shadow_opaque(s->upperfd) == 'y',
	    0, NULL);
	if (rc == 0)
		rc = link_groups(b);
	for (i = 0; i < b->nlk; i++)
		mem_free(b->lk[i].path);
	mem_free(b->lk);
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
		mem_free(c->v[i].link_to);
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
