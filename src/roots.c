/*
 * roots: the writable roots and the protected paths of a policy (roots.h).
 *
 * Errors are kept on the build: fail() writes r->why and the errno, which
 * roots_build hands back once everything is freed, so no cleanup on the
 * way out has to keep errno intact.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mem.h"
#include "path.h"
#include "roots.h"
#include "strlist.h"

static const char *const devices[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx",
	"/dev/pts", "/dev/shm",
};

/* The state dir's folders the command must not write. */
static const char *const state_sub[] = { "overlays", "checkpoints", "cache" };

struct build {
	struct roots		*r;
	const struct policy	*p;
	int			 flags;
	int			 state;	/* the state dir is a root */
	int			 e;	/* errno of the failure */
	const struct roots_ops	*ops;
	struct path_ops		 po;
	const struct path_ops	*pop;	/* &po, or NULL for realpath(3) */
};

static int
fail(struct build *b, const char *what, const char *path)
{
	b->e = errno;
	snprintf(b->r->why, sizeof b->r->why, "%s: %s: %s", what, path,
	    strerror(b->e));
	return -1;
}

static int
listed(const struct strlist *l, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strlen(l->v[i]) == len && strncmp(l->v[i], s, len) == 0)
			return 1;
	return 0;
}

static int
make_dir(struct build *b, const char *path)
{
	if (b->ops == NULL || b->ops->mkdir == NULL)
		return 0;
	return b->ops->mkdir(path, 0700, b->ops->arg);
}

static int
writable(struct build *b, const char *what, const char *path)
{
	char *c;

	if (path_canon(path, 0, b->pop, &c) < 0 ||
	    strlist_push(&b->r->w, c) < 0)
		return fail(b, what, path);
	return 0;
}

/* The longest writable root (not a device) strictly above path, or NULL. */
static const char *
covering(const struct roots *r, const char *path)
{
	const char *best = NULL, *t;
	size_t i;

	for (i = 0; i < r->w.n - r->ndev; i++)
		if ((t = path_tail(path, r->w.v[i])) != NULL && *t != '\0' &&
		    (best == NULL || strlen(r->w.v[i]) > strlen(best)))
			best = r->w.v[i];
	return best;
}

/* The directories strictly between root and path, outermost first. */
static int
pins(struct build *b, const char *root, const char *path)
{
	const char *c;
	size_t n;

	for (c = path_tail(path, root); (c = strchr(c, '/')) != NULL; c++) {
		n = (size_t)(c - path);
		if (!listed(&b->r->pin, path, n) &&
		    strlist_push(&b->r->pin, mem_strndup(path, n)) < 0)
			return -1;
	}
	return 0;
}

/*
 * Protect path (as roots.h says): canonical, beneath a root, once. What
 * does not exist is left out without ROOTS_MISSING; what cannot exist (a
 * parent is a file) always.
 */
static int
protect(struct build *b, const char *what, const char *path)
{
	const char *root;
	char *c;
	int exists = 1;

	if ((c = path_realpath(path, b->pop)) == NULL) {
		exists = 0;
		if (errno == ENOENT && (b->flags & ROOTS_MISSING) &&
		    path_canon(path, PATH_LEXICAL, b->pop, &c) < 0)
			c = NULL;
		if (c == NULL)
			return errno == ENOENT || errno == ENOTDIR ? 0 :
			    fail(b, what, path);
	}
	if ((root = covering(b->r, c)) == NULL ||
	    listed(&b->r->p, c, strlen(c))) {
		mem_free(c);
		return 0;
	}
	if (exists && pins(b, root, c) < 0) {
		mem_free(c);
		return fail(b, what, path);
	}
	if (strlist_push(&b->r->p, c) < 0)
		return fail(b, what, path);
	return 0;
}

/* protect(dir/name); first, with make, mkdir it (failing quietly). */
static int
protect_in(struct build *b, const char *what, const char *dir,
    const char *name, int make)
{
	char *s;
	int rc;

	if ((s = path_join(dir, name)) == NULL)
		return fail(b, what, name);
	if (make)
		(void)make_dir(b, s);
	rc = protect(b, what, s);
	mem_free(s);
	return rc;
}

/*
 * The user config's folder, when a writable root holds it: made first,
 * from the root down, so that the command cannot plant it.
 */
static int
protect_config(struct build *b, const char *file)
{
	const char *root;
	char *dir, *c, *s;
	int rc = 0;

	if ((dir = mem_strdup(file)) == NULL)
		return fail(b, "user config", file);
	s = strrchr(dir, '/');
	if (s == dir)
		s[1] = '\0';		/* "/config.json": the folder is "/" */
	else
		*s = '\0';
	if (path_canon(dir, 0, b->pop, &c) < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			rc = fail(b, "user config", dir);
		mem_free(dir);
		return rc;
	}
	mem_free(dir);
	if ((root = covering(b->r, c)) != NULL) {
		for (s = c + strlen(root) + 1; (s = strchr(s, '/')) != NULL;
		    s++) {
			*s = '\0';
			(void)make_dir(b, c);
			*s = '/';
		}
		(void)make_dir(b, c);
		rc = protect(b, "user config", c);
	}
	mem_free(c);
	return rc;
}

static int
build_writable(struct build *b)
{
	const struct policy *p = b->p;
	int ww = p->mode == MODE_WORKSPACE_WRITE;
	size_t i;

	if (ww && writable(b, "workspace", p->workspace) < 0)
		return -1;
	if (writable(b, "temp dir", p->tmpdir) < 0)
		return -1;
	if (b->state) {
		if (make_dir(b, p->state) < 0 && errno != EEXIST)
			return fail(b, "state dir", p->state);
		if (writable(b, "state dir", p->state) < 0)
			return -1;
	}
	for (i = 0; ww && i < p->grants.n; i++)
		if (writable(b, "grant", p->grants.v[i]) < 0)
			return -1;
	for (i = 0; (b->flags & ROOTS_DEVICES) &&
	    i < sizeof devices / sizeof devices[0]; i++) {
		if (strlist_push(&b->r->w, mem_strdup(devices[i])) < 0)
			return fail(b, "device", devices[i]);
		b->r->ndev++;
	}
	return 0;
}

static int
build_protected(struct build *b)
{
	const struct policy *p = b->p;
	size_t i;

	for (i = 0; p->workspace != NULL && i < p->protect.n; i++)
		if (protect_in(b, "protected path", p->workspace,
		    p->protect.v[i], 0) < 0)
			return -1;
	/* overlays/ and cache/ are made, to be protected from the start */
	for (i = 0; p->state != NULL &&
	    i < sizeof state_sub / sizeof state_sub[0]; i++)
		if (protect_in(b, "state dir", p->state, state_sub[i],
		    b->state && strcmp(state_sub[i], "checkpoints") != 0) < 0)
			return -1;
	if (p->user_config != NULL && p->user_config[0] == '/' &&
	    protect_config(b, p->user_config) < 0)
		return -1;
	return 0;
}

int
roots_build(const struct policy *p, int flags, const struct roots_ops *ops,
    struct roots *r)
{
	struct build b;

	memset(r, 0, sizeof *r);
	memset(&b, 0, sizeof b);
	b.r = r;
	b.p = p;
	b.flags = flags;
	b.state = p->mode == MODE_WORKSPACE_WRITE && !(flags & ROOTS_NOSTATE);
	b.ops = ops;
	if (ops != NULL && ops->realpath != NULL) {
		b.po.realpath = ops->realpath;
		b.po.arg = ops->arg;
		b.pop = &b.po;
	}
	if (p->tmpdir == NULL || (p->mode == MODE_WORKSPACE_WRITE &&
	    (p->workspace == NULL || p->state == NULL))) {
		errno = EINVAL;
		return fail(&b, "policy", "(incomplete)");
	}
	if (build_writable(&b) < 0 ||
	    ((flags & ROOTS_PROTECT) && build_protected(&b) < 0)) {
		roots_free(r);
		errno = b.e;
		return -1;
	}
	return 0;
}

void
roots_free(struct roots *r)
{
	strlist_free(&r->w);
	strlist_free(&r->p);
	strlist_free(&r->pin);
	r->ndev = 0;
}

static int
under_any(const struct strlist *l, const char *path)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (path_under(path, l->v[i]))
			return 1;
	return 0;
}

int
roots_writable(const struct roots *r, const char *path)
{
	return under_any(&r->w, path);
}

int
roots_protected(const struct roots *r, const char *path)
{
	return under_any(&r->p, path);
}
