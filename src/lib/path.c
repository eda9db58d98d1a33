/*
 * path: one canonicaliser, one "is under" (path.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/mem.h"
#include "lib/os.h"
#include "lib/path.h"

/* walks of a path whose missing part another process is making */
#define CANON_TRIES	8

const char *
path_tail(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (n == 0)
		return path[0] == '/' ? NULL : path;
	if (strcmp(root, "/") == 0)
		return path[0] == '/' ? path + 1 : NULL;
	if (strncmp(path, root, n) != 0)
		return NULL;
	if (path[n] == '\0')
		return path + n;
	return path[n] == '/' ? path + n + 1 : NULL;
}

int
path_under(const char *path, const char *root)
{
	return path_tail(path, root) != NULL;
}

char *
path_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s;

	while (la > 0 && a[la - 1] == '/')
		la--;
	if ((s = mem_alloc(la + 1 + lb + 1)) == NULL)
		return NULL;
	memcpy(s, a, la);
	s[la] = '/';
	memcpy(s + la + 1, b, lb + 1);
	return s;
}

/* The length of s's leading home prefix ("~", "$HOME", "${HOME}"), or 0. */
static size_t
home_prefix(const char *s)
{
	static const char *const pre[] = { "~", "$HOME", "${HOME}" };
	size_t i, n;

	for (i = 0; i < sizeof pre / sizeof pre[0]; i++) {
		n = strlen(pre[i]);
		if (strncmp(s, pre[i], n) == 0 && (s[n] == '\0' || s[n] == '/'))
			return n;
	}
	return 0;
}

char *
path_home(const char *s, const char *home)
{
	size_t n = home_prefix(s);

	if (n == 0 && (s[0] == '~' || s[0] == '$')) {
		errno = EINVAL;
		return NULL;
	}
	if (n == 0)
		return mem_strdup(s);
	return s[n] == '\0' ? mem_strdup(home) : path_join(home, s + n + 1);
}

/* Absolute, no "." or ".." component, no empty one, no trailing '/'. */
static int
plain(const char *p, size_t len)
{
	const char *c;

	if (p[0] != '/' || len >= PATH_MAX)
		return 0;
	if (len == 1)
		return 1;
	for (c = p; *c != '\0'; c++)
		if (*c == '/' && (c[1] == '/' || c[1] == '\0' ||
		    (c[1] == '.' && (c[2] == '/' || c[2] == '\0' ||
		    (c[2] == '.' && (c[3] == '/' || c[3] == '\0'))))))
			return 0;
	return 1;
}

/*
 * musl's realpath(3) asks readlink(2) about every prefix of the path, a
 * walk from / each time. A plain absolute path in which no component is
 * a symlink is its own canonical form: the kernel says so in one walk
 * (os_open_nolinks), or says where that is not so (ELOOP), and only then
 * does realpath(3) walk.
 */
char *
path_real(const char *path, char *buf)
{
	size_t len = strlen(path);
	int fd;

	if (plain(path, len)) {
		if ((fd = os_open_nolinks(path)) >= 0) {
			close(fd);
			memcpy(buf, path, len + 1);
			return buf;
		}
		/* what realpath would meet first, with no symlink before it */
		if (errno == ENOENT || errno == ENOTDIR || errno == EACCES)
			return NULL;
	}
	return realpath(path, buf);
}

char *
path_realpath(const char *path, const struct path_ops *ops)
{
	char r[PATH_MAX];

	if (ops != NULL)
		return ops->realpath(path, ops->arg);
	if (path_real(path, r) == NULL)
		return NULL;
	return mem_strdup(r);
}

/* Does path, found by lstat (st) where realpath found nothing, lead on? */
static int
made_since(const char *path, const struct stat *st,
    const struct path_ops *ops)
{
	char *r;

	if (!S_ISLNK(st->st_mode))
		return 1;
	if ((r = path_realpath(path, ops)) == NULL)
		return 0;
	mem_free(r);
	return 1;
}

/*
 * One pass: realpath the longest existing prefix of path into *out, then
 * the rest. *again is set when a ".." was taken lexically: components after
 * it may exist (and be symlinks), so the result must be walked once more.
 */
static int
canon_once(const char *path, int flags, const struct path_ops *ops,
    char **out, int *again)
{
	char *w, *res, *r, *slash;
	const char *tail, *p, *q;
	size_t len, wl;
	struct stat st;
	int first = 1, e;

	*again = 0;
	if ((w = mem_strdup(path)) == NULL)
		return -1;
	for (;;) {
		if ((res = path_realpath(w, ops)) != NULL)
			break;
		if (errno != ENOENT)
			goto fail;
		wl = strlen(w);
		while (wl > 1 && w[wl - 1] == '/')
			w[--wl] = '\0';
		slash = strrchr(w, '/');
		if (slash == w && wl == 1)
			goto fail;	/* "/" itself is missing */
		if (slash == w)
			w[1] = '\0';
		else
			*slash = '\0';
	}
	tail = path + strlen(w);
	len = strlen(res);
	/* the result can only shrink or grow by the tail */
	if ((r = mem_alloc(len + strlen(tail) + 2)) == NULL) {
		e = errno;
		mem_free(res);
		errno = e;
		goto fail;
	}
	memcpy(r, res, len + 1);
	mem_free(res);
	res = r;
	for (p = tail; *p != '\0'; p = q) {
		while (*p == '/')
			p++;
		for (q = p; *q != '\0' && *q != '/'; q++)
			;
		if (q == p || (q - p == 1 && p[0] == '.'))
			continue;
		if (q - p == 2 && p[0] == '.' && p[1] == '.') {
			if (!(flags & PATH_LEXICAL)) {
				errno = ENOENT;
				goto fail_res;
			}
			while (len > 1 && res[len - 1] != '/')
				len--;
			if (len > 1)
				len--;
			res[len] = '\0';
			*again = 1;
			continue;
		}
		if (len != 1)
			res[len++] = '/';
		memcpy(res + len, p, (size_t)(q - p));
		len += (size_t)(q - p);
		res[len] = '\0';
		/*
		 * The first missing component exists as a name when it is a
		 * symlink that leads nowhere (realpath said ENOENT), or when
		 * another process made it since realpath looked (EAGAIN:
		 * path_canon walks again).
		 */
		if (first && !*again && !(flags & PATH_LEXICAL) &&
		    lstat(res, &st) == 0) {
			if (ops != NULL && ops->forget != NULL)
				ops->forget(res, ops->arg);
			errno = made_since(res, &st, ops) ? EAGAIN : ENOENT;
			goto fail_res;
		}
		first = 0;
	}
	if (len >= PATH_MAX) {
		errno = ENAMETOOLONG;
		goto fail_res;
	}
	mem_free(w);
	*out = res;
	return 0;
fail_res:
	e = errno;
	mem_free(res);
	errno = e;
fail:
	e = errno;
	mem_free(w);
	errno = e;
	return -1;
}

/* ---- The memo (path_memo) ---- */

struct path_memo_ent {
	char	*path;
	char	*real;		/* NULL: the answer was errno err */
	int	 err;
};

/* Keep path's answer (real, or NULL with err): 0, or -1 with ENOMEM. */
static int
memo_keep(struct path_memo *m, const char *path, const char *real, int err)
{
	struct path_memo_ent *v, *x;
	size_t cap;

	if (m->n == PATH_MEMO_MAX)
		return 0;
	if (m->n == m->cap) {
		cap = m->cap == 0 ? 16 : m->cap * 2;
		if ((v = mem_realloc(m->v, cap * sizeof *v)) == NULL)
			return -1;
		m->v = v;
		m->cap = cap;
	}
	x = &m->v[m->n];
	x->real = NULL;
	x->err = err;
	if ((x->path = mem_strdup(path)) == NULL ||
	    (real != NULL && (x->real = mem_strdup(real)) == NULL)) {
		mem_free(x->path);
		return -1;
	}
	m->n++;
	return 0;
}

static char *
memo_realpath(const char *path, void *arg)
{
	struct path_memo *m = arg;
	char *r;
	size_t i;
	int e;

	for (i = 0; i < m->n; i++) {
		if (strcmp(m->v[i].path, path) != 0)
			continue;
		if (m->v[i].real != NULL)
			return mem_strdup(m->v[i].real);
		errno = m->v[i].err;
		return NULL;
	}
	r = path_realpath(path, m->under);
	e = errno;
	if (r == NULL && e == ENOMEM)
		return NULL;
	if (memo_keep(m, path, r, e) < 0) {
		mem_free(r);
		errno = ENOMEM;
		return NULL;
	}
	errno = e;
	return r;
}

static void
memo_forget(const char *path, void *arg)
{
	(void)path;
	path_memo_forget(arg);
}

void
path_memo_init(struct path_memo *m, const struct path_ops *under)
{
	memset(m, 0, sizeof *m);
	m->ops.realpath = memo_realpath;
	m->ops.arg = m;
	m->ops.forget = memo_forget;
	m->under = under;
}

void
path_memo_forget(struct path_memo *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		mem_free(m->v[i].path);
		mem_free(m->v[i].real);
	}
	m->n = 0;
}

void
path_memo_free(struct path_memo *m)
{
	path_memo_forget(m);
	mem_free(m->v);
	m->v = NULL;
	m->cap = 0;
}

int
path_canon(const char *path, int flags, const struct path_ops *ops,
    char **out)
{
	char *cur, *next;
	int again, e, tries = 0;

	*out = NULL;
	if (path == NULL || path[0] != '/') {
		errno = EINVAL;
		return -1;
	}
	if ((cur = mem_strdup(path)) == NULL)
		return -1;
	/* each pass takes at least one ".." out of the string */
	for (;;) {
		if (canon_once(cur, flags, ops, &next, &again) < 0) {
			/* made meanwhile: once more, a few times at most */
			if (errno == EAGAIN && ++tries < CANON_TRIES)
				continue;
			e = errno == EAGAIN ? ENOENT : errno;
			mem_free(cur);
			errno = e;
			return -1;
		}
		mem_free(cur);
		if (!again) {
			*out = next;
			return 0;
		}
		cur = next;
	}
}
