/*
 * roots: the writable roots and the protected paths of a policy (roots.h).
 * gitctl finds the repository's control files; this file decides which
 * of them to protect.
 *
 * Errors are kept on the build: fail() writes r->why and the errno, which
 * roots_build hands back once everything is freed, so no cleanup on the
 * way out has to keep errno intact.
 *
 * Sections: the build; the writable roots; the protected paths (the git
 * ones among them); the questions.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/mem.h"
#include "lib/path.h"
#include "policy/gitctl.h"
#include "policy/roots.h"
#include "policy/strlist.h"

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
	struct path_ops		 po;	/* ops->realpath, when set */
	struct path_memo	 memo;	/* of po (or realpath(3)), this build */
	const struct path_ops	*pop;	/* &memo.ops */
	struct gitctl_ops	 gops;	/* ops, as gitctl takes them */
	struct gitctl		 g;	/* the workspace's repository */
	int			 git_hooks;	/* ".git/hooks" is protected */
	int			 git_config;	/* ".git/config" is protected */
	enum roots_rule		 rule;	/* of the paths protected now */
};

static int
fail(struct build *b, const char *what, const char *path)
{
	b->e = errno;
	snprintf(b->r->why, sizeof b->r->why, "%s: %s: %s", what, path,
	    strerror(b->e));
	return -1;
}

/* gitctl failed: its errno and its line (`git: path: reason`). */
static int
git_fail(struct build *b)
{
	b->e = errno;
	snprintf(b->r->why, sizeof b->r->why, "%s", b->g.why);
	return -1;
}

/* mkdir, and forget what the memo knew: a new folder changes answers. */
static int
make_dir(struct build *b, const char *path, mode_t mode)
{
	int rc;

	if (b->ops == NULL || b->ops->mkdir == NULL)
		return 0;
	if ((rc = b->ops->mkdir(path, mode, b->ops->arg)) == 0)
		path_memo_forget(&b->memo);
	return rc;
}

/*
 * Whether path resolves now (through the memo): then mkdir would only
 * say EEXIST, and is not asked. 0 for anything else, errno kept.
 */
static int
resolves(struct build *b, const char *path)
{
	char *c;

	if ((c = path_realpath(path, b->pop)) == NULL)
		return 0;
	mem_free(c);
	return 1;
}

/*
 * Append s to l (taking it over, as strlist_push does) and rule to the
 * rules of l, which stay one per entry: 0, or -1 with errno.
 */
static int
push(struct strlist *l, unsigned char **rules, char *s, enum roots_rule rule)
{
	unsigned char *n;

	if ((n = mem_realloc(*rules, l->n + 1)) == NULL) {
		mem_free(s);
		return -1;
	}
	*rules = n;
	if (strlist_push(l, s) < 0)
		return -1;
	n[l->n - 1] = (unsigned char)rule;
	return 0;
}

/* ---- Writable roots ---- */

static int
writable(struct build *b, const char *what, enum roots_rule rule,
    const char *path)
{
	char *c;

	if (path_canon(path, 0, b->pop, &c) < 0 ||
	    push(&b->r->w, &b->r->wrule, c, rule) < 0)
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

/*
 * A linked worktree (or a submodule) as the workspace, with its admin dir
 * outside every root: that dir, and the common dir's objects/, refs/ and
 * logs/, so that commit, branch, stash and the like work there.
 */
static int
git_roots(struct build *b)
{
	static const char *const sub[] = { "objects", "refs", "logs" };
	const char *gd, *cd;
	char *s;
	size_t i;

	if (b->g.na == 0 || b->g.gitfile == NULL)
		return 0;
	gd = b->g.a[0].dir;
	cd = gitctl_common(&b->g);
	if (!roots_writable(b->r, gd) &&
	    writable(b, "git", ROOTS_R_GITDIR, gd) < 0)
		return -1;
	for (i = 0; strcmp(cd, gd) != 0 && i < 3; i++) {
		if ((s = path_join(cd, sub[i])) == NULL)
			return fail(b, "git", cd);
		if (!roots_writable(b->r, s) &&
		    writable(b, "git", ROOTS_R_GITDIR, s) < 0) {
			mem_free(s);
			return -1;
		}
		mem_free(s);
	}
	return 0;
}

static int
build_writable(struct build *b)
{
	const struct policy *p = b->p;
	int ww = p->mode == MODE_WORKSPACE_WRITE;
	size_t i;

	if (ww && writable(b, "workspace", ROOTS_R_WORKSPACE,
	    p->workspace) < 0)
		return -1;
	if (writable(b, "temp dir", ROOTS_R_TMPDIR, p->tmpdir) < 0)
		return -1;
	if (b->state) {
		if (!resolves(b, p->state) && (errno == ENOMEM ||
		    (make_dir(b, p->state, 0700) < 0 && errno != EEXIST)))
			return fail(b, "state dir", p->state);
		if (writable(b, "state dir", ROOTS_R_STATE, p->state) < 0)
			return -1;
	}
	for (i = 0; ww && i < p->grants.n; i++)
		if (writable(b, "grant", ROOTS_R_GRANT, p->grants.v[i]) < 0)
			return -1;
	if (ww && (b->flags & ROOTS_GIT) && git_roots(b) < 0)
		return -1;
	for (i = 0; (b->flags & ROOTS_DEVICES) &&
	    i < sizeof devices / sizeof devices[0]; i++) {
		if (push(&b->r->w, &b->r->wrule, mem_strdup(devices[i]),
		    ROOTS_R_DEVICE) < 0)
			return fail(b, "device", devices[i]);
		b->r->ndev++;
	}
	return 0;
}

/* ---- Protected paths ---- */

/* The directories strictly between root and path, outermost first. */
static int
pins(struct build *b, const char *root, const char *path)
{
	const char *c;
	size_t n;

	for (c = path_tail(path, root); (c = strchr(c, '/')) != NULL; c++) {
		n = (size_t)(c - path);
		if (!strlist_has(&b->r->pin, path, n) &&
		    strlist_push(&b->r->pin, mem_strndup(path, n)) < 0)
			return -1;
	}
	return 0;
}

/* How protect takes a path. */
#define P_DIR		1	/* a hooks folder: made with ROOTS_MAKE */
#define P_NOABSENT	2	/* missing: in p with ROOTS_MISSING only */
#define P_WATCH		4	/* a file git rewrites: watch, not p */

/*
 * Protect path (as roots.h says): canonical, beneath a root, once. What
 * does not exist goes to absent (unless P_NOABSENT) and to p with
 * ROOTS_MISSING; a hooks folder (P_DIR) is made first with ROOTS_MAKE.
 * What cannot exist (a parent is a file) is left out.
 */
static int
protect(struct build *b, const char *what, const char *path, int how)
{
	const char *root;
	char *c, *d;
	int exists = 1;

	c = path_realpath(path, b->pop);
	if (c == NULL && errno == ENOENT && (how & P_DIR) &&
	    (b->flags & ROOTS_MAKE) &&
	    path_canon(path, 0, b->pop, &d) == 0) {
		/* only beneath a root, and never through a missing parent */
		if (covering(b->r, d) != NULL && make_dir(b, d, 0755) == 0)
			c = path_realpath(d, b->pop);
		else
			errno = ENOENT;
		mem_free(d);
	}
	if (c == NULL) {
		exists = 0;
		if (errno == ENOENT && path_canon(path, PATH_LEXICAL, b->pop,
		    &c) < 0)
			c = NULL;
		if (c == NULL)
			return errno == ENOENT || errno == ENOTDIR ? 0 :
			    fail(b, what, path);
	}
	if ((root = covering(b->r, c)) == NULL ||
	    strlist_has(&b->r->p, c, strlen(c)) ||
	    strlist_has(&b->r->absent, c, strlen(c)) ||
	    strlist_has(&b->r->watch, c, strlen(c))) {
		mem_free(c);
		return 0;
	}
	if (exists && (how & P_WATCH)) {
		if ((b->flags & ROOTS_MISSING) &&
		    push(&b->r->p, &b->r->prule, mem_strdup(c), b->rule) < 0) {
			mem_free(c);
			return fail(b, what, path);
		}
		return push(&b->r->watch, &b->r->xrule, c, b->rule) < 0 ?
		    fail(b, what, path) : 0;
	}
	if (exists) {
		if (pins(b, root, c) < 0) {
			mem_free(c);
			return fail(b, what, path);
		}
		if (push(&b->r->p, &b->r->prule, c, b->rule) < 0)
			return fail(b, what, path);
		return 0;
	}
	if (!(b->flags & ROOTS_MISSING) && (how & P_NOABSENT)) {
		mem_free(c);
		return 0;
	}
	if (how & P_NOABSENT)
		return push(&b->r->p, &b->r->prule, c, b->rule) < 0 ?
		    fail(b, what, path) : 0;
	if ((b->flags & ROOTS_MISSING) &&
	    push(&b->r->p, &b->r->prule, mem_strdup(c), b->rule) < 0) {
		mem_free(c);
		return fail(b, what, path);
	}
	return push(&b->r->absent, &b->r->arule, c, b->rule) < 0 ?
	    fail(b, what, path) : 0;
}

/* protect(dir/name); first, with make, mkdir it (failing quietly). */
static int
protect_in(struct build *b, const char *what, const char *dir,
    const char *name, int make, int how)
{
	char *s;
	int rc;

	if ((s = path_join(dir, name)) == NULL)
		return fail(b, what, name);
	if (make && !resolves(b, s)) {
		if (errno == ENOMEM) {
			rc = fail(b, what, s);
			mem_free(s);
			return rc;
		}
		(void)make_dir(b, s, 0700);
	}
	rc = protect(b, what, s, how);
	mem_free(s);
	return rc;
}

/* The `protect` entries under ".git/": their tails ("hooks", ...). */
static int
git_entry(const char *entry, const char **tail)
{
	if (strncmp(entry, ".git/", 5) != 0 || entry[5] == '\0')
		return 0;
	*tail = entry + 5;
	return 1;
}

/* Whether tail is name or lies beneath it. */
static int
is_or_under(const char *tail, const char *name)
{
	return path_under(tail, name);
}

/* Protect every hooksPath in l, relative ones from top (NULL: skipped). */
static int
protect_hooks(struct build *b, const struct strlist *l, const char *top)
{
	size_t i;
	char *c;
	int rc;

	for (i = 0; i < l->n; i++) {
		if ((c = gitctl_path(&b->g, l->v[i], top)) == NULL) {
			if (errno == ENOMEM)
				return fail(b, "git", l->v[i]);
			continue;
		}
		rc = protect(b, "git", c, P_DIR);
		mem_free(c);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Protect each file of l (included configs, gitdir files). */
static int
protect_files(struct build *b, const struct strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (protect(b, "git", l->v[i], 0) < 0)
			return -1;
	return 0;
}

/* The control files of admin dir a, as roots.h lists them. */
static int
git_admin(struct build *b, const struct gitctl_admin *a,
    const struct gitctl_cfg *global)
{
	static const char *const cfgfiles[] = { "config", "config.worktree" };
	const struct strlist *pr = &b->p->protect;
	const char *tail;
	struct gitctl_cfg cfg;
	char *s;
	size_t i;
	int rc = -1, hooks, how;

	memset(&cfg, 0, sizeof cfg);
	for (i = 0; i < pr->n; i++) {
		if (!git_entry(pr->v[i], &tail))
			continue;
		hooks = is_or_under(tail, "hooks");
		if (a->kind == GITCTL_LINKED && (hooks || is_or_under(tail,
		    "config")))
			continue;
		how = 0;
		if (strcmp(tail, "hooks") == 0)
			how = P_DIR;
		/* `git submodule update` rewrites a module's config */
		else if (a->kind == GITCTL_MODULE && strcmp(tail, "config") == 0)
			how = P_WATCH;
		if (protect_in(b, "git", a->dir, tail, 0, how) < 0)
			goto out;
	}
	if (b->git_config && (protect_in(b, "git", a->dir, "config.worktree",
	    0, 0) < 0 || protect_in(b, "git", a->dir, "commondir", 0, 0) < 0))
		goto out;
	for (i = 0; i < 2; i++) {
		if ((s = path_join(a->dir, cfgfiles[i])) == NULL)
			goto oom;
		rc = gitctl_config(&b->g, s, &cfg);
		mem_free(s);
		if (rc < 0)
			goto oom;
		rc = -1;
	}
	if (b->git_hooks && a->kind != GITCTL_LINKED) {
		if (protect_hooks(b, &cfg.hooks, a->top != NULL ? a->top :
		    a->dir) < 0 || protect_hooks(b, &global->hooks,
		    a->top != NULL ? a->top : a->dir) < 0)
			goto out;
	}
	if (b->git_config && protect_files(b, &cfg.inc) < 0)
		goto out;
	rc = 0;
	goto out;
oom:
	rc = fail(b, "git", a->dir);
out:
	gitctl_cfg_free(&cfg);
	return rc;
}

/*
 * Git's control files (roots.h): the admin dirs found, their pointers,
 * the folders hooksPath names, the configs included, the global configs.
 */
static int
build_git(struct build *b)
{
	const struct strlist *pr = &b->p->protect;
	const char *tail;
	struct gitctl_cfg global;
	struct strlist gf = { NULL, 0 };
	size_t i;
	int rc = -1;

	for (i = 0; i < pr->n; i++)
		if (git_entry(pr->v[i], &tail)) {
			if (is_or_under(tail, "hooks"))
				b->git_hooks = 1;
			if (strcmp(tail, "config") == 0)
				b->git_config = 1;
		}
	for (i = 0; i < pr->n; i++)
		if (git_entry(pr->v[i], &tail))
			break;
	if (i == pr->n)
		return 0;		/* no git entry: no git protection */
	memset(&global, 0, sizeof global);
	/* the global configs: read, and protected when ".git/config" is */
	if (gitctl_scan(&b->g) < 0 ||
	    gitctl_global(&b->g, b->p->user_config, &global, &gf) < 0) {
		git_fail(b);
		goto out;
	}
	if (b->git_config && protect_files(b, &gf) < 0)
		goto out;
	if (b->git_hooks && protect_hooks(b, &global.hooks, NULL) < 0)
		goto out;
	if (b->git_config && protect_files(b, &global.inc) < 0)
		goto out;
	for (i = 0; i < b->g.na; i++)
		if (git_admin(b, &b->g.a[i], &global) < 0)
			goto out;
	if (b->git_config && b->g.gitfile != NULL &&
	    protect(b, "git", b->g.gitfile, 0) < 0)
		goto out;
	/* gitdir files: only those that are files (a module's may be a dir) */
	for (i = 0; b->git_config && i < b->g.ptr.n; i++)
		if (gitctl_isdir(&b->g, b->g.ptr.v[i]) == 0 &&
		    protect(b, "git", b->g.ptr.v[i], 0) < 0)
			goto out;
	rc = 0;
out:
	strlist_free(&gf);
	gitctl_cfg_free(&global);
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
			(void)make_dir(b, c, 0700);
			*s = '/';
		}
		(void)make_dir(b, c, 0700);
		rc = protect(b, "user config", c, 0);
	}
	mem_free(c);
	return rc;
}

static int
build_protected(struct build *b)
{
	const struct policy *p = b->p;
	const char *tail;
	size_t i;

	for (i = 0; p->workspace != NULL && i < p->protect.n; i++) {
		b->rule = git_entry(p->protect.v[i], &tail) ? ROOTS_R_GITCTL :
		    ROOTS_R_PROTECT;
		if (protect_in(b, "protected path", p->workspace,
		    p->protect.v[i], 0, b->rule == ROOTS_R_GITCTL ?
		    P_NOABSENT : 0) < 0)
			return -1;
	}
	b->rule = ROOTS_R_GITCTL;
	if (p->workspace != NULL && build_git(b) < 0)
		return -1;
	b->rule = ROOTS_R_STATEDATA;
	/*
	 * made, to be protected from the start: a command must not plant a
	 * checkpoint store that a later rewind would trust
	 */
	for (i = 0; p->state != NULL &&
	    i < sizeof state_sub / sizeof state_sub[0]; i++)
		if (protect_in(b, "state dir", p->state, state_sub[i],
		    b->state, P_NOABSENT) < 0)
			return -1;
	b->rule = ROOTS_R_USERCFG;
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
	int rc = 0;

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
	}
	/* each path once per build: git's files are asked about again */
	path_memo_init(&b.memo, b.po.realpath != NULL ? &b.po : NULL);
	b.pop = &b.memo.ops;
	if (ops != NULL) {
		b.gops.realpath = ops->realpath;
		b.gops.isdir = ops->isdir;
		b.gops.read = ops->read;
		b.gops.list = ops->list;
		b.gops.arg = ops->arg;
	}
	gitctl_init(&b.g, p->home, ops != NULL ? &b.gops : NULL);
	gitctl_paths(&b.g, b.pop);
	if (p->tmpdir == NULL || (p->mode == MODE_WORKSPACE_WRITE &&
	    (p->workspace == NULL || p->state == NULL))) {
		errno = EINVAL;
		return fail(&b, "policy", "(incomplete)");
	}
	if ((p->workspace != NULL && (flags & (ROOTS_GIT | ROOTS_PROTECT)) &&
	    gitctl_find(&b.g, p->workspace) < 0 && git_fail(&b) < 0) ||
	    build_writable(&b) < 0 ||
	    ((flags & ROOTS_PROTECT) && build_protected(&b) < 0))
		rc = -1;
	gitctl_free(&b.g);
	path_memo_free(&b.memo);
	if (rc < 0) {
		roots_free(r);
		errno = b.e;
	}
	return rc;
}

void
roots_free(struct roots *r)
{
	strlist_free(&r->w);
	strlist_free(&r->p);
	strlist_free(&r->pin);
	strlist_free(&r->absent);
	strlist_free(&r->watch);
	mem_free(r->wrule);
	mem_free(r->prule);
	mem_free(r->arule);
	mem_free(r->xrule);
	r->wrule = r->prule = r->arule = r->xrule = NULL;
	r->ndev = 0;
}

/* ---- Questions ---- */

/* The index in l of the first entry that is or holds path, or -1. */
static long
which(const struct strlist *l, const char *path)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (path_under(path, l->v[i]))
			return (long)i;
	return -1;
}

static int
under_any(const struct strlist *l, const char *path)
{
	return which(l, path) >= 0;
}

int
roots_writable(const struct roots *r, const char *path)
{
	return under_any(&r->w, path);
}

int
roots_protected(const struct roots *r, const char *path)
{
	return under_any(&r->p, path) || under_any(&r->absent, path) ||
	    under_any(&r->watch, path);
}

int
roots_check(const struct roots *r, const char *path, const char **why)
{
	struct roots_denial d;

	if (roots_deny(r, path, &d) == 0)
		return 0;
	*why = d.why == ROOTS_OUTSIDE ? "outside the writable roots" :
	    "protected path";
	return -1;
}

int
roots_deny(const struct roots *r, const char *path, struct roots_denial *d)
{
	const struct strlist *l[] = { &r->p, &r->absent, &r->watch };
	const unsigned char *rules[] = { r->prule, r->arule, r->xrule };
	size_t k;
	long i;

	d->why = ROOTS_OK;
	d->rule = ROOTS_R_PROTECT;
	d->entry = NULL;
	if (!roots_writable(r, path)) {
		d->why = ROOTS_OUTSIDE;
		return -1;
	}
	for (k = 0; k < 3; k++)
		if ((i = which(l[k], path)) >= 0) {
			d->why = ROOTS_PROTECTED;
			d->entry = l[k]->v[i];
			if (rules[k] != NULL)
				d->rule = (enum roots_rule)rules[k][i];
			return -1;
		}
	return 0;
}

