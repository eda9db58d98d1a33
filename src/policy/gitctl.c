/*
 * gitctl: a repository's control files, found by reading files
 * (gitctl.h).
 *
 * Errors: fail() and too_many() write g->why and keep the errno in g->e;
 * the public functions hand it back in errno, so no cleanup on the way
 * out has to keep errno intact.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/mem.h"
#include "lib/path.h"
#include "lib/readall.h"
#include "policy/gitconfig.h"
#include "policy/gitctl.h"
#include "policy/strlist.h"

static int
fail(struct gitctl *g, const char *path)
{
	g->e = errno;
	snprintf(g->why, sizeof g->why, "git: %s: %s", path, strerror(g->e));
	return -1;
}

/* Too much to look through: E2BIG, saying what was too much. */
static int
too_many(struct gitctl *g, const char *what, int max, const char *path)
{
	g->e = E2BIG;
	snprintf(g->why, sizeof g->why, "git: %s: more than %d %s; "
	    "protection would be partial, refusing (README: git)", path, max,
	    what);
	return -1;
}

/* errno for a public function's -1. */
static int
failed(const struct gitctl *g)
{
	errno = g->e;
	return -1;
}

/* ---- The system (gitctl_ops) ---- */

static int
sys_isdir(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -1;
	return S_ISDIR(st.st_mode) ? 1 : 0;
}

static int
sys_list(const char *path, struct strlist *l)
{
	struct dirent *d;
	DIR *dir;
	int e;

	if ((dir = opendir(path)) == NULL)
		return -1;
	while ((errno = 0, d = readdir(dir)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		if (strlist_push(l, mem_strdup(d->d_name)) < 0)
			break;
	}
	e = errno;
	closedir(dir);
	errno = e;
	return e == 0 ? 0 : -1;
}

int
gitctl_isdir(const struct gitctl *g, const char *path)
{
	if (g->ops != NULL && g->ops->isdir != NULL)
		return g->ops->isdir(path, g->ops->arg);
	return sys_isdir(path);
}

static char *
g_read(struct gitctl *g, const char *path)
{
	char *buf;
	size_t len;

	if (g->ops != NULL && g->ops->read != NULL)
		return g->ops->read(path, GITCTL_FILE, g->ops->arg);
	return readall_path(path, GITCTL_FILE, &buf, &len) < 0 ? NULL : buf;
}

/* The names in dir; a missing dir has none. */
static int
g_list(struct gitctl *g, const char *dir, struct strlist *l)
{
	int rc;

	if (++g->lists > GITCTL_LISTS)
		return too_many(g, "folders to look through", GITCTL_LISTS,
		    dir);
	if (g->ops != NULL && g->ops->list != NULL)
		rc = g->ops->list(dir, l, g->ops->arg);
	else
		rc = sys_list(dir, l);
	if (rc < 0 && (errno == ENOENT || errno == ENOTDIR)) {
		strlist_free(l);
		return 0;
	}
	return rc < 0 ? fail(g, dir) : 0;
}


/* ---- Paths ---- */

/* s without its trailing white space (in place). */
static char *
rtrim(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' ||
	    s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

char *
gitctl_path(const struct gitctl *g, const char *what, const char *base)
{
	const char *home = g->home;
	char *s, *c = NULL;
	int e;

	if (what[0] == '~') {
		if (what[1] != '/' || home == NULL) {
			errno = ENOENT;
			return NULL;
		}
		s = path_join(home, what + 2);
	} else if (what[0] == '/')
		s = mem_strdup(what);
	else if (base != NULL)
		s = path_join(base, what);
	else {
		errno = ENOENT;
		return NULL;
	}
	if (s == NULL)
		return NULL;
	if (path_canon(s, 0, g->pop, &c) < 0)
		c = NULL;
	e = errno;
	mem_free(s);
	errno = e;
	return c;
}

/* dirname of a canonical path, mem_alloc'd. */
static char *
parent_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s == path ? mem_strdup("/") : mem_strndup(path,
	    (size_t)(s - path));
}

/*
 * The gitdir a `.git` file names (`gitdir: PATH`, relative to the file's
 * folder), canonical; NULL with errno (EINVAL: not a gitdir file).
 */
static char *
gitfile_target(struct gitctl *g, const char *file)
{
	char *buf, *dir, *c;
	int e;

	if ((buf = g_read(g, file)) == NULL)
		return NULL;
	if (strncmp(buf, "gitdir: ", 8) != 0 || rtrim(buf + 8)[0] == '\0') {
		mem_free(buf);
		errno = EINVAL;
		return NULL;
	}
	if ((dir = parent_of(file)) == NULL) {
		mem_free(buf);
		return NULL;
	}
	c = gitctl_path(g, buf + 8, dir);
	e = errno;
	mem_free(dir);
	mem_free(buf);
	errno = e;
	return c;
}


/* ---- Config files ---- */

/* One config file being read, for include.path relative to its folder. */
struct cfgfile {
	struct gitctl		*g;
	struct gitctl_cfg	*cfg;
	const char		*dir;		/* the file's folder */
	int			 depth;
};

static int	cfg_file(struct gitctl *, struct gitctl_cfg *, const char *,
		    int);

/* One key = value (gitconfig_fn): -1 only for ENOMEM. */
static int
cfg_entry(const char *section, int sub, const char *key, const char *val,
    void *arg)
{
	struct cfgfile *cf = arg;
	struct gitctl_cfg *cfg = cf->cfg;
	char *s;

	/* core.* and include.* have no subsection; includeIf.* has one */
	if (sub != (strcmp(section, "includeif") == 0))
		return 0;
	if (strcmp(section, "core") == 0 && strcmp(key, "hookspath") == 0) {
		if (val[0] != '\0' && !strlist_has(&cfg->hooks, val,
		    strlen(val)) && strlist_push(&cfg->hooks,
		    mem_strdup(val)) < 0)
			return -1;
	} else if (strcmp(section, "core") == 0 &&
	    strcmp(key, "worktree") == 0) {
		if ((s = mem_strdup(val)) == NULL)
			return -1;
		mem_free(cfg->worktree);
		cfg->worktree = s;
	} else if ((strcmp(section, "include") == 0 ||
	    strcmp(section, "includeif") == 0) &&
	    strcmp(key, "path") == 0 && cf->depth < GITCTL_DEPTH) {
		if ((s = gitctl_path(cf->g, val, cf->dir)) == NULL)
			return errno == ENOMEM ? -1 : 0;
		if (strlist_has(&cfg->inc, s, strlen(s))) {
			mem_free(s);
			return 0;
		}
		if (strlist_push(&cfg->inc, s) < 0 ||
		    cfg_file(cf->g, cfg, cfg->inc.v[cfg->inc.n - 1],
		    cf->depth + 1) < 0)
			return -1;
	}
	return 0;
}

/*
 * Read the config file path into cfg, following its includes. A missing
 * or unreadable file adds nothing; -1 only for ENOMEM.
 */
static int
cfg_file(struct gitctl *g, struct gitctl_cfg *cfg, const char *path,
    int depth)
{
	struct cfgfile cf;
	char *buf, *dir;
	int rc, e;

	if ((buf = g_read(g, path)) == NULL)
		return errno == ENOMEM ? -1 : 0;
	if ((dir = parent_of(path)) == NULL) {
		mem_free(buf);
		return -1;
	}
	cf.g = g;
	cf.cfg = cfg;
	cf.dir = dir;
	cf.depth = depth;
	rc = gitconfig_parse(buf, cfg_entry, &cf);
	e = errno;
	mem_free(dir);
	mem_free(buf);
	errno = e;
	return rc;
}

int
gitctl_config(struct gitctl *g, const char *path, struct gitctl_cfg *cfg)
{
	if (cfg_file(g, cfg, path, 0) < 0)
		return fail(g, path), failed(g);
	return 0;
}

void
gitctl_cfg_free(struct gitctl_cfg *cfg)
{
	strlist_free(&cfg->hooks);
	strlist_free(&cfg->inc);
	mem_free(cfg->worktree);
	memset(cfg, 0, sizeof *cfg);
}

/* ---- The repository and its admin dirs ---- */

/* Add an admin dir (taking dir and top over), once. */
static int
add_admin(struct gitctl *g, char *dir, char *top, enum gitctl_kind kind)
{
	size_t i;

	for (i = 0; i < g->na; i++)
		if (strcmp(g->a[i].dir, dir) == 0) {
			mem_free(dir);
			mem_free(top);
			return 0;
		}
	if (g->na >= sizeof g->a / sizeof g->a[0] ||
	    (kind != GITCTL_MAIN && g->na > 0 &&
	    g->na - g->nfound >= GITCTL_MAX)) {
		too_many(g, "linked worktrees and submodules", GITCTL_MAX,
		    dir);
		mem_free(dir);
		mem_free(top);
		return -1;
	}
	g->a[g->na].dir = dir;
	g->a[g->na].top = top;
	g->a[g->na].kind = kind;
	g->na++;
	return 0;
}

/* Add s to the gitdir files (taking it over), once. */
static int
add_pointer(struct gitctl *g, char *s)
{
	if (s != NULL && strlist_has(&g->ptr, s, strlen(s))) {
		mem_free(s);
		return 0;
	}
	return strlist_push(&g->ptr, s);
}

/* 1 when dir has a bare repository's layout: HEAD, objects/, refs/. */
static int
is_bare(struct gitctl *g, const char *dir)
{
	static const char *const need[] = { "HEAD", "objects", "refs" };
	char *s;
	size_t i;
	int k;

	for (i = 0; i < 3; i++) {
		if ((s = path_join(dir, need[i])) == NULL)
			return -1;
		k = gitctl_isdir(g, s);
		mem_free(s);
		if (k != (i == 0 ? 0 : 1))
			return 0;
	}
	return 1;
}

/*
 * The admin dirs of gitdir gd (taken over, with its work tree's top):
 * gd itself, and the common dir its `commondir` names (relative to gd),
 * when that is another.
 */
static int
add_repo(struct gitctl *g, char *gd, char *top, const char *ws)
{
	char *f, *buf, *cd = NULL, *ctop = NULL;
	int e;

	if ((f = path_join(gd, "commondir")) == NULL)
		goto oom;
	buf = g_read(g, f);
	if (buf == NULL && errno != ENOENT && errno != ENOTDIR) {
		e = errno;
		mem_free(gd);
		mem_free(top);
		errno = e;
		fail(g, f);
		mem_free(f);
		return -1;
	}
	mem_free(f);
	if (buf != NULL && rtrim(buf)[0] != '\0' &&
	    (cd = gitctl_path(g, buf, gd)) == NULL && errno == ENOMEM) {
		mem_free(buf);
		goto oom;
	}
	mem_free(buf);
	if (cd != NULL && strcmp(cd, gd) == 0) {
		mem_free(cd);
		cd = NULL;
	}
	/* the main work tree of a common dir named .git is its parent */
	if (cd != NULL && strcmp(strrchr(cd, '/'), "/.git") == 0 &&
	    (ctop = parent_of(cd)) == NULL) {
		mem_free(cd);
		goto oom;
	}
	if (add_admin(g, gd, top, cd != NULL ? GITCTL_LINKED :
	    GITCTL_MAIN) < 0) {
		mem_free(cd);
		mem_free(ctop);
		return -1;
	}
	return cd != NULL ? add_admin(g, cd, ctop, GITCTL_MAIN) : 0;
oom:
	mem_free(gd);
	mem_free(top);
	return fail(g, ws);
}

/*
 * The workspace's repository, as git finds it from there: a `.git`
 * folder or gitdir file in the workspace or the nearest folder above it
 * (or the workspace itself, bare). a[0] is its gitdir, a[1] its common
 * dir when that is another; no repository leaves na 0.
 */
static int
find(struct gitctl *g, const char *ws)
{
	char *top, *dot = NULL, *gd = NULL, *t;
	int level, k;

	if ((top = mem_strdup(ws)) == NULL)
		return fail(g, ws);
	for (level = 0; level < GITCTL_UP; level++) {
		if ((dot = path_join(top, ".git")) == NULL)
			goto oom;
		if ((k = gitctl_isdir(g, dot)) == 1) {
			if ((gd = path_realpath(dot, g->pop)) == NULL)
				goto err;
			break;
		}
		if (k == 0) {
			if ((gd = gitfile_target(g, dot)) == NULL) {
				if (errno == EINVAL)	/* git stops here too */
					goto none;
				goto err;
			}
			if ((g->gitfile = path_realpath(dot, g->pop)) == NULL)
				goto err;
			break;
		}
		if (errno != ENOENT && errno != ENOTDIR) {
			if (level > 0)		/* git cannot look there */
				goto none;
			goto err;
		}
		if (level == 0 && (k = is_bare(g, top)) != 0) {
			if (k < 0)
				goto oom;
			gd = top;
			top = NULL;		/* a bare one has no work tree */
			break;
		}
		mem_free(dot);
		dot = NULL;
		if (strcmp(top, "/") == 0)
			goto none;
		if ((t = parent_of(top)) == NULL)
			goto oom;
		mem_free(top);
		top = t;
	}
	mem_free(dot);
	if (gd == NULL) {
		mem_free(top);
		return 0;
	}
	return add_repo(g, gd, top, ws);
none:
	mem_free(dot);
	mem_free(top);
	return 0;
oom:
	errno = ENOMEM;
err:
	fail(g, dot != NULL ? dot : ws);
	mem_free(gd);
	mem_free(dot);
	mem_free(top);
	return -1;
}

/* The common dir: a[1] when the gitdir is a linked worktree's, else a[0]. */
const char *
gitctl_common(const struct gitctl *g)
{
	return g->na > 1 && g->a[0].kind == GITCTL_LINKED ? g->a[1].dir :
	    g->a[0].dir;
}

/*
 * Each linked worktree's admin dir in common/worktrees, with the .git file
 * its `gitdir` names (absolute, or relative to the admin dir).
 */
static int
git_worktrees(struct gitctl *g, const char *common)
{
	struct strlist l = { NULL, 0 };
	char *wt, *d = NULL, *f = NULL, *buf = NULL, *dotgit, *top, *c;
	size_t i;
	int rc = -1;

	if ((wt = path_join(common, "worktrees")) == NULL)
		return fail(g, common);
	if (g_list(g, wt, &l) < 0)
		goto out;
	for (i = 0; i < l.n; i++) {
		mem_free(d);
		mem_free(f);
		mem_free(buf);
		f = buf = NULL;
		if ((d = path_join(wt, l.v[i])) == NULL)
			goto oom;
		if (gitctl_isdir(g, d) != 1)
			continue;
		if ((f = path_join(d, "gitdir")) == NULL)
			goto oom;
		top = NULL;
		if ((buf = g_read(g, f)) != NULL && rtrim(buf)[0] != '\0') {
			if ((dotgit = gitctl_path(g, buf, d)) == NULL &&
			    errno == ENOMEM)
				goto oom;
			if (dotgit != NULL && (top = parent_of(dotgit)) == NULL) {
				mem_free(dotgit);
				goto oom;
			}
			if (dotgit != NULL && add_pointer(g, dotgit) < 0) {
				mem_free(top);
				goto oom;
			}
		} else if (buf == NULL && errno == ENOMEM)
			goto oom;
		if ((c = path_realpath(d, g->pop)) == NULL) {
			mem_free(top);
			if (errno == ENOMEM)
				goto oom;
			continue;
		}
		if (add_admin(g, c, top, GITCTL_LINKED) < 0)
			goto out;
	}
	rc = 0;
	goto out;
oom:
	rc = fail(g, wt);
out:
	mem_free(d);
	mem_free(f);
	mem_free(buf);
	mem_free(wt);
	strlist_free(&l);
	return rc;
}

/*
 * The submodules' admin dirs beneath dir (common/modules, or a module's
 * own modules/ for nested ones). A module's name may hold '/', so a folder
 * with neither HEAD nor config is looked through. Each module's work tree
 * (its config's core.worktree, relative to the admin dir) has a .git file.
 */
static int
git_modules(struct gitctl *g, const char *dir, int depth)
{
	struct strlist l = { NULL, 0 };
	struct gitctl_cfg cfg;
	char *d = NULL, *h = NULL, *s = NULL, *top = NULL, *c;
	size_t i;
	int rc = -1;

	if (depth > GITCTL_DEPTH)
		return too_many(g, "levels of submodules", GITCTL_DEPTH,
		    dir);
	if (g_list(g, dir, &l) < 0)
		return -1;
	memset(&cfg, 0, sizeof cfg);
	for (i = 0; i < l.n; i++) {
		mem_free(d);
		mem_free(h);
		mem_free(s);
		h = s = NULL;
		gitctl_cfg_free(&cfg);
		if ((d = path_join(dir, l.v[i])) == NULL)
			goto oom;
		if (gitctl_isdir(g, d) != 1)
			continue;
		if ((h = path_join(d, "HEAD")) == NULL ||
		    (s = path_join(d, "config")) == NULL)
			goto oom;
		if (gitctl_isdir(g, h) != 0 && gitctl_isdir(g, s) != 0) {
			/* a folder of a module name with a '/' */
			if (git_modules(g, d, depth + 1) < 0)
				goto out;
			continue;
		}
		if (cfg_file(g, &cfg, s, 0) < 0)
			goto oom;
		top = NULL;
		if (cfg.worktree != NULL) {
			if ((top = gitctl_path(g, cfg.worktree, d)) == NULL &&
			    errno == ENOMEM)
				goto oom;
			if (top != NULL &&
			    add_pointer(g, path_join(top, ".git")) < 0)
				goto oom;
		}
		if ((c = path_realpath(d, g->pop)) == NULL) {
			if (errno == ENOMEM)
				goto oom;
			mem_free(top);
			top = NULL;
			continue;
		}
		rc = add_admin(g, c, top, GITCTL_MODULE);
		top = NULL;
		if (rc < 0)
			goto out;
		rc = -1;
		mem_free(s);
		if ((s = path_join(d, "modules")) == NULL)
			goto oom;
		if (git_modules(g, s, depth + 1) < 0)
			goto out;
	}
	rc = 0;
	goto out;
oom:
	rc = fail(g, dir);
out:
	gitctl_cfg_free(&cfg);
	mem_free(top);
	mem_free(s);
	mem_free(h);
	mem_free(d);
	strlist_free(&l);
	return rc;
}

void
gitctl_free(struct gitctl *g)
{
	size_t i;

	for (i = 0; i < g->na; i++) {
		mem_free(g->a[i].dir);
		mem_free(g->a[i].top);
	}
	g->na = 0;
	mem_free(g->gitfile);
	g->gitfile = NULL;
	strlist_free(&g->ptr);
}


void
gitctl_init(struct gitctl *g, const char *home, const struct gitctl_ops *ops)
{
	memset(g, 0, sizeof *g);
	g->home = home;
	g->ops = ops;
	if (ops != NULL && ops->realpath != NULL) {
		g->po.realpath = ops->realpath;
		g->po.arg = ops->arg;
		g->pop = &g->po;
	}
}

void
gitctl_paths(struct gitctl *g, const struct path_ops *po)
{
	g->pop = po;
}

int
gitctl_find(struct gitctl *g, const char *workspace)
{
	return find(g, workspace) < 0 ? failed(g) : 0;
}

int
gitctl_scan(struct gitctl *g)
{
	const char *common;
	char *mods;
	int rc;

	g->nfound = g->na;
	if (g->na == 0)
		return 0;
	common = gitctl_common(g);
	if ((mods = path_join(common, "modules")) == NULL) {
		fail(g, common);
		return failed(g);
	}
	rc = git_worktrees(g, common) < 0 || git_modules(g, mods, 0) < 0 ?
	    -1 : 0;
	mem_free(mods);
	return rc < 0 ? failed(g) : 0;
}

int
gitctl_global(struct gitctl *g, const char *uc, struct gitctl_cfg *cfg,
    struct strlist *files)
{
	char *f[2] = { NULL, NULL }, *x = NULL, *y = NULL;
	int i, rc = -1;

	if (g->home != NULL &&
	    (f[0] = path_join(g->home, ".gitconfig")) == NULL)
		goto out;
	if (uc != NULL && uc[0] == '/') {
		if ((x = parent_of(uc)) == NULL || (y = parent_of(x)) == NULL ||
		    (f[1] = path_join(y, "git/config")) == NULL)
			goto out;
	} else if (g->home != NULL &&
	    (f[1] = path_join(g->home, ".config/git/config")) == NULL)
		goto out;
	for (i = 0; i < 2; i++) {
		if (f[i] == NULL)
			continue;
		if (cfg_file(g, cfg, f[i], 0) < 0)
			goto out;
		rc = strlist_push(files, f[i]);
		f[i] = NULL;
		if (rc < 0)
			goto out;
		rc = -1;
	}
	rc = 0;
out:
	if (rc < 0)
		fail(g, "global config");
	mem_free(f[0]);
	mem_free(f[1]);
	mem_free(x);
	mem_free(y);
	return rc < 0 ? failed(g) : 0;
}
