/*
 * roots: the writable roots and the protected paths of a policy (roots.h).
 *
 * Errors are kept on the build: fail() writes r->why and the errno, which
 * roots_build hands back once everything is freed, so no cleanup on the
 * way out has to keep errno intact.
 *
 * Sections: the build and its lists; the system behind the git discovery;
 * git (finding the repository, reading its config, its admin dirs); the
 * writable roots; the protected paths; the questions.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* Levels walked up from the workspace looking for its repository. */
#define GIT_UP		64
/* Directories listed while looking for submodules. */
#define GIT_LISTS	256

/* One git admin dir: a gitdir, a common dir, a worktree's or module's. */
enum { A_MAIN, A_LINKED, A_MODULE };

struct admin {
	char	*dir;		/* canonical */
	char	*top;		/* its work tree's top (canonical), or NULL */
	int	 kind;		/* A_LINKED: no hooks or config of its own;
				   A_MODULE: git rewrites its config */
};

/* What a config file (and what it includes) says that matters here. */
struct cfg {
	struct strlist	 hooks;		/* every core.hooksPath, as written */
	char		*worktree;	/* the last core.worktree */
	struct strlist	 inc;		/* included files, canonical */
};

struct build {
	struct roots		*r;
	const struct policy	*p;
	int			 flags;
	int			 state;	/* the state dir is a root */
	int			 e;	/* errno of the failure */
	const struct roots_ops	*ops;
	struct path_ops		 po;
	const struct path_ops	*pop;	/* &po, or NULL for realpath(3) */
	/* git */
	struct admin		 a[ROOTS_GIT_MAX + 2];
	size_t			 na;	/* a[0]: the gitdir; then common, ... */
	size_t			 nfound;	/* of them, git_find's */
	char			*gitfile;	/* the workspace's .git file */
	struct strlist		 ptr;	/* every gitdir file, canonical */
	int			 lists;	/* directories listed so far */
	int			 git_hooks;	/* ".git/hooks" is protected */
	int			 git_config;	/* ".git/config" is protected */
};

static int
fail(struct build *b, const char *what, const char *path)
{
	b->e = errno;
	snprintf(b->r->why, sizeof b->r->why, "%s: %s: %s", what, path,
	    strerror(b->e));
	return -1;
}

/* Too much to look through: E2BIG, saying what was too much. */
static int
too_many(struct build *b, const char *what, int max, const char *path)
{
	b->e = E2BIG;
	snprintf(b->r->why, sizeof b->r->why, "git: %s: more than %d %s; "
	    "protection would be partial, refusing (README: git)", path, max,
	    what);
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
make_dir(struct build *b, const char *path, mode_t mode)
{
	if (b->ops == NULL || b->ops->mkdir == NULL)
		return 0;
	return b->ops->mkdir(path, mode, b->ops->arg);
}

/* ---- The system behind the git discovery (roots_ops) ---- */

static int
sys_isdir(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -1;
	return S_ISDIR(st.st_mode) ? 1 : 0;
}

/* A regular file only (a fifo must not block us): its bytes, NUL after. */
static char *
sys_read(const char *path, size_t max)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	ssize_t n;
	int fd, e;

	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return NULL;
	if (fstat(fd, &st) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		goto fail;
	}
	if ((size_t)st.st_size > max) {
		errno = EFBIG;
		goto fail;
	}
	if ((buf = mem_alloc((size_t)st.st_size + 2)) == NULL)
		goto fail;
	/* read one byte more than the size said, to see it grew */
	while (len < (size_t)st.st_size + 1) {
		n = read(fd, buf + len, (size_t)st.st_size + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max) {
		errno = EFBIG;
		goto fail;
	}
	buf[len] = '\0';
	close(fd);
	return buf;
fail:
	e = errno;
	mem_free(buf);
	close(fd);
	errno = e;
	return NULL;
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

static int
b_isdir(struct build *b, const char *path)
{
	if (b->ops != NULL && b->ops->isdir != NULL)
		return b->ops->isdir(path, b->ops->arg);
	return sys_isdir(path);
}

static char *
b_read(struct build *b, const char *path)
{
	if (b->ops != NULL && b->ops->read != NULL)
		return b->ops->read(path, ROOTS_GIT_FILE, b->ops->arg);
	return sys_read(path, ROOTS_GIT_FILE);
}

/* The names in dir; a missing dir has none. */
static int
b_list(struct build *b, const char *dir, struct strlist *l)
{
	int rc;

	if (++b->lists > GIT_LISTS)
		return too_many(b, "folders to look through", GIT_LISTS, dir);
	if (b->ops != NULL && b->ops->list != NULL)
		rc = b->ops->list(dir, l, b->ops->arg);
	else
		rc = sys_list(dir, l);
	if (rc < 0 && (errno == ENOENT || errno == ENOTDIR)) {
		strlist_free(l);
		return 0;
	}
	return rc < 0 ? fail(b, "git", dir) : 0;
}

/* ---- git: paths ---- */

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

/*
 * The canonical path of what names, written in a git file: absolute, or
 * relative to base; `~/` is the home directory (NULL home: unknown).
 * NULL with errno: ENOENT for what cannot be resolved (a `~user/`, an
 * unknown home, a relative path with no base), and path_canon's errors.
 */
static char *
git_path(struct build *b, const char *what, const char *base)
{
	const char *home = b->p->home;
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
	if (path_canon(s, 0, b->pop, &c) < 0)
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
gitfile_target(struct build *b, const char *file)
{
	char *buf, *dir, *c;
	int e;

	if ((buf = b_read(b, file)) == NULL)
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
	c = git_path(b, buf + 8, dir);
	e = errno;
	mem_free(dir);
	mem_free(buf);
	errno = e;
	return c;
}

/* ---- git: config files ---- */

/*
 * A config file as git reads it (section headers, keys, values with
 * quotes, escapes, comments and continued lines), for three things:
 * core.hooksPath (every one: whichever wins, its folder is protected),
 * core.worktree (the last), and include.path / includeIf.*.path (every
 * one, whatever the condition), whose files are read in place, depth
 * levels at most. Reading stops at the first line git would not take
 * (git refuses such a config, and then runs nothing from it).
 */
struct cfgparse {
	struct build	*b;
	struct cfg	*cfg;
	const char	*dir;		/* the file's folder, for includes */
	int		 depth;
	char		 section[32];
	int		 sub;		/* the section has a subsection */
	int		 err;		/* allocation failed */
};

static int	cfg_file(struct build *, struct cfg *, const char *, int);

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static int
alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

/*
 * A value at *pp (after '='), unquoted and unescaped into out (len
 * bytes), as git's parse_value does; *pp is left at the line's end.
 * -1 for a value git refuses.
 */
static int
cfg_value(const char **pp, char *out, size_t len)
{
	const char *p = *pp;
	size_t o = 0, space = 0;
	int quote = 0, c;

	while (*p == ' ' || *p == '\t')
		p++;
	for (;; p++) {
		c = *p;
		if (c == '\n' || c == '\0') {
			if (quote)
				return -1;
			break;
		}
		if (!quote && (c == ';' || c == '#')) {
			while (*p != '\n' && *p != '\0')
				p++;
			break;
		}
		if (!quote && (c == ' ' || c == '\t' || c == '\r')) {
			if (o > 0)
				space++;
			continue;
		}
		for (; space > 0; space--)
			if (o + 1 < len)
				out[o++] = ' ';
		if (c == '\\') {
			switch (*++p) {
			case '\n':
				continue;
			case 't':
				c = '\t';
				break;
			case 'b':
				c = '\b';
				break;
			case 'n':
				c = '\n';
				break;
			case '"':
			case '\\':
				c = *p;
				break;
			default:
				return -1;
			}
		} else if (c == '"') {
			quote = !quote;
			continue;
		}
		if (o + 1 < len)
			out[o++] = (char)c;
	}
	out[o] = '\0';
	*pp = p;
	return 0;
}

/* A section header at *pp ('['): the section, lower case. -1: bad. */
static int
cfg_section(struct cfgparse *cp, const char **pp)
{
	const char *p = *pp + 1;
	size_t o = 0;

	for (; alnum(*p) || *p == '-' || *p == '.'; p++) {
		if (*p == '.')
			break;		/* [section.sub]: the old spelling */
		if (o + 1 < sizeof cp->section)
			cp->section[o++] = (char)lower(*p);
	}
	cp->section[o] = '\0';
	cp->sub = 0;
	if (*p == '.') {
		for (p++; alnum(*p) || *p == '-' || *p == '.'; p++)
			cp->sub = 1;
	} else {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '"') {
			cp->sub = 1;
			for (p++; *p != '"'; p++) {
				if (*p == '\0' || *p == '\n')
					return -1;
				if (*p == '\\' && p[1] != '\0' && p[1] != '\n')
					p++;
			}
			p++;
		}
	}
	if (*p != ']' || o == 0)
		return -1;
	*pp = p + 1;
	return 0;
}

/* One key = value of the section we are in. */
static void
cfg_entry(struct cfgparse *cp, const char *key, const char *val)
{
	struct cfg *cfg = cp->cfg;
	char *s;

	if (val == NULL || cp->err)
		return;
	/* core.* and include.* have no subsection; includeIf.* has one */
	if (cp->sub != (strcmp(cp->section, "includeif") == 0))
		return;
	if (strcmp(cp->section, "core") == 0 && strcmp(key, "hookspath") == 0) {
		if (val[0] != '\0' && !listed(&cfg->hooks, val, strlen(val)) &&
		    strlist_push(&cfg->hooks, mem_strdup(val)) < 0)
			cp->err = 1;
	} else if (strcmp(cp->section, "core") == 0 &&
	    strcmp(key, "worktree") == 0) {
		if ((s = mem_strdup(val)) == NULL)
			cp->err = 1;
		else {
			mem_free(cfg->worktree);
			cfg->worktree = s;
		}
	} else if ((strcmp(cp->section, "include") == 0 ||
	    strcmp(cp->section, "includeif") == 0) &&
	    strcmp(key, "path") == 0 && cp->depth < ROOTS_GIT_DEPTH) {
		if ((s = git_path(cp->b, val, cp->dir)) == NULL) {
			if (errno == ENOMEM)
				cp->err = 1;
			return;
		}
		if (!listed(&cfg->inc, s, strlen(s))) {
			if (strlist_push(&cfg->inc, s) < 0 ||
			    cfg_file(cp->b, cfg, cfg->inc.v[cfg->inc.n - 1],
			    cp->depth + 1) < 0)
				cp->err = 1;
		} else
			mem_free(s);
	}
}

static int
cfg_parse(struct cfgparse *cp, const char *buf)
{
	const char *p = buf;
	char key[64], *val;
	size_t o;

	if ((val = mem_alloc(PATH_MAX)) == NULL)
		return -1;
	cp->section[0] = '\0';
	while (*p != '\0' && !cp->err) {
		if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
			p++;
			continue;
		}
		if (*p == '#' || *p == ';') {
			while (*p != '\n' && *p != '\0')
				p++;
			continue;
		}
		if (*p == '[') {
			if (cfg_section(cp, &p) < 0)
				break;
			continue;
		}
		if (!alnum(*p) || (*p >= '0' && *p <= '9'))
			break;
		for (o = 0; alnum(*p) || *p == '-'; p++)
			if (o + 1 < sizeof key)
				key[o++] = (char)lower(*p);
		key[o] = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '=') {
			p++;
			if (cfg_value(&p, val, PATH_MAX) < 0)
				break;
			cfg_entry(cp, key, val);
		} else if (*p == '\n' || *p == '\0' || *p == '\r' ||
		    *p == '#' || *p == ';') {
			while (*p != '\n' && *p != '\0')
				p++;
		} else
			break;
	}
	mem_free(val);
	return cp->err ? -1 : 0;
}

/*
 * Read the config file path into cfg. A missing or unreadable file adds
 * nothing (git reads nothing from it either); -1 only for ENOMEM.
 */
static int
cfg_file(struct build *b, struct cfg *cfg, const char *path, int depth)
{
	struct cfgparse cp;
	char *buf;
	int rc;

	if ((buf = b_read(b, path)) == NULL)
		return errno == ENOMEM ? -1 : 0;
	memset(&cp, 0, sizeof cp);
	cp.b = b;
	cp.cfg = cfg;
	cp.depth = depth;
	if ((cp.dir = parent_of(path)) == NULL) {
		mem_free(buf);
		return -1;
	}
	rc = cfg_parse(&cp, buf);
	mem_free((char *)cp.dir);
	mem_free(buf);
	return rc;
}

static void
cfg_free(struct cfg *cfg)
{
	strlist_free(&cfg->hooks);
	strlist_free(&cfg->inc);
	mem_free(cfg->worktree);
	memset(cfg, 0, sizeof *cfg);
}

/* ---- git: the repository and its admin dirs ---- */

/* Add an admin dir (taking dir and top over), once. */
static int
add_admin(struct build *b, char *dir, char *top, int kind)
{
	size_t i;

	for (i = 0; i < b->na; i++)
		if (strcmp(b->a[i].dir, dir) == 0) {
			mem_free(dir);
			mem_free(top);
			return 0;
		}
	if (b->na >= sizeof b->a / sizeof b->a[0] ||
	    (kind != A_MAIN && b->na > 0 && b->na - b->nfound >= ROOTS_GIT_MAX)) {
		too_many(b, "linked worktrees and submodules", ROOTS_GIT_MAX,
		    dir);
		mem_free(dir);
		mem_free(top);
		return -1;
	}
	b->a[b->na].dir = dir;
	b->a[b->na].top = top;
	b->a[b->na].kind = kind;
	b->na++;
	return 0;
}

/* Add s to the gitdir files (taking it over), once. */
static int
add_pointer(struct build *b, char *s)
{
	if (s != NULL && listed(&b->ptr, s, strlen(s))) {
		mem_free(s);
		return 0;
	}
	return strlist_push(&b->ptr, s);
}

/* 1 when dir has a bare repository's layout: HEAD, objects/, refs/. */
static int
is_bare(struct build *b, const char *dir)
{
	static const char *const need[] = { "HEAD", "objects", "refs" };
	char *s;
	size_t i;
	int k;

	for (i = 0; i < 3; i++) {
		if ((s = path_join(dir, need[i])) == NULL)
			return -1;
		k = b_isdir(b, s);
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
add_repo(struct build *b, char *gd, char *top)
{
	char *f, *buf, *cd = NULL, *ctop = NULL;
	int e;

	if ((f = path_join(gd, "commondir")) == NULL)
		goto oom;
	buf = b_read(b, f);
	if (buf == NULL && errno != ENOENT && errno != ENOTDIR) {
		e = errno;
		mem_free(gd);
		mem_free(top);
		errno = e;
		fail(b, "git", f);
		mem_free(f);
		return -1;
	}
	mem_free(f);
	if (buf != NULL && rtrim(buf)[0] != '\0' &&
	    (cd = git_path(b, buf, gd)) == NULL && errno == ENOMEM) {
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
	if (add_admin(b, gd, top, cd != NULL ? A_LINKED : A_MAIN) < 0) {
		mem_free(cd);
		mem_free(ctop);
		return -1;
	}
	return cd != NULL ? add_admin(b, cd, ctop, A_MAIN) : 0;
oom:
	mem_free(gd);
	mem_free(top);
	return fail(b, "git", b->p->workspace);
}

/*
 * The workspace's repository, as git finds it from there: a `.git`
 * folder or gitdir file in the workspace or the nearest folder above it
 * (or the workspace itself, bare). a[0] is its gitdir, a[1] its common
 * dir when that is another; no repository leaves na 0.
 */
static int
git_find(struct build *b)
{
	const char *ws = b->p->workspace;
	char *top, *dot = NULL, *gd = NULL, *t;
	int level, k;

	if ((top = mem_strdup(ws)) == NULL)
		return fail(b, "git", ws);
	for (level = 0; level < GIT_UP; level++) {
		if ((dot = path_join(top, ".git")) == NULL)
			goto oom;
		if ((k = b_isdir(b, dot)) == 1) {
			if ((gd = path_realpath(dot, b->pop)) == NULL)
				goto err;
			break;
		}
		if (k == 0) {
			if ((gd = gitfile_target(b, dot)) == NULL) {
				if (errno == EINVAL)	/* git stops here too */
					goto none;
				goto err;
			}
			if ((b->gitfile = path_realpath(dot, b->pop)) == NULL)
				goto err;
			break;
		}
		if (errno != ENOENT && errno != ENOTDIR) {
			if (level > 0)		/* git cannot look there */
				goto none;
			goto err;
		}
		if (level == 0 && (k = is_bare(b, top)) != 0) {
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
	return add_repo(b, gd, top);
none:
	mem_free(dot);
	mem_free(top);
	return 0;
oom:
	errno = ENOMEM;
err:
	fail(b, "git", dot != NULL ? dot : ws);
	mem_free(gd);
	mem_free(dot);
	mem_free(top);
	return -1;
}

/* The common dir: a[1] when the gitdir is a linked worktree's, else a[0]. */
static const char *
git_common(const struct build *b)
{
	return b->na > 1 && b->a[0].kind == A_LINKED ? b->a[1].dir :
	    b->a[0].dir;
}

/*
 * Each linked worktree's admin dir in common/worktrees, with the .git file
 * its `gitdir` names (absolute, or relative to the admin dir).
 */
static int
git_worktrees(struct build *b, const char *common)
{
	struct strlist l = { NULL, 0 };
	char *wt, *d = NULL, *f = NULL, *g = NULL, *dotgit, *top, *c;
	size_t i;
	int rc = -1;

	if ((wt = path_join(common, "worktrees")) == NULL)
		return fail(b, "git", common);
	if (b_list(b, wt, &l) < 0)
		goto out;
	for (i = 0; i < l.n; i++) {
		mem_free(d);
		mem_free(f);
		mem_free(g);
		f = g = NULL;
		if ((d = path_join(wt, l.v[i])) == NULL)
			goto oom;
		if (b_isdir(b, d) != 1)
			continue;
		if ((f = path_join(d, "gitdir")) == NULL)
			goto oom;
		top = NULL;
		if ((g = b_read(b, f)) != NULL && rtrim(g)[0] != '\0') {
			if ((dotgit = git_path(b, g, d)) == NULL &&
			    errno == ENOMEM)
				goto oom;
			if (dotgit != NULL && (top = parent_of(dotgit)) == NULL) {
				mem_free(dotgit);
				goto oom;
			}
			if (dotgit != NULL && add_pointer(b, dotgit) < 0) {
				mem_free(top);
				goto oom;
			}
		} else if (g == NULL && errno == ENOMEM)
			goto oom;
		if ((c = path_realpath(d, b->pop)) == NULL) {
			mem_free(top);
			if (errno == ENOMEM)
				goto oom;
			continue;
		}
		if (add_admin(b, c, top, A_LINKED) < 0)
			goto out;
	}
	rc = 0;
	goto out;
oom:
	rc = fail(b, "git", wt);
out:
	mem_free(d);
	mem_free(f);
	mem_free(g);
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
git_modules(struct build *b, const char *dir, int depth)
{
	struct strlist l = { NULL, 0 };
	struct cfg cfg;
	char *d = NULL, *h = NULL, *s = NULL, *top = NULL, *c;
	size_t i;
	int rc = -1;

	if (depth > ROOTS_GIT_DEPTH)
		return too_many(b, "levels of submodules", ROOTS_GIT_DEPTH,
		    dir);
	if (b_list(b, dir, &l) < 0)
		return -1;
	memset(&cfg, 0, sizeof cfg);
	for (i = 0; i < l.n; i++) {
		mem_free(d);
		mem_free(h);
		mem_free(s);
		h = s = NULL;
		cfg_free(&cfg);
		if ((d = path_join(dir, l.v[i])) == NULL)
			goto oom;
		if (b_isdir(b, d) != 1)
			continue;
		if ((h = path_join(d, "HEAD")) == NULL ||
		    (s = path_join(d, "config")) == NULL)
			goto oom;
		if (b_isdir(b, h) != 0 && b_isdir(b, s) != 0) {
			/* a folder of a module name with a '/' */
			if (git_modules(b, d, depth + 1) < 0)
				goto out;
			continue;
		}
		if (cfg_file(b, &cfg, s, 0) < 0)
			goto oom;
		top = NULL;
		if (cfg.worktree != NULL) {
			if ((top = git_path(b, cfg.worktree, d)) == NULL &&
			    errno == ENOMEM)
				goto oom;
			if (top != NULL &&
			    add_pointer(b, path_join(top, ".git")) < 0)
				goto oom;
		}
		if ((c = path_realpath(d, b->pop)) == NULL) {
			if (errno == ENOMEM)
				goto oom;
			mem_free(top);
			top = NULL;
			continue;
		}
		rc = add_admin(b, c, top, A_MODULE);
		top = NULL;
		if (rc < 0)
			goto out;
		rc = -1;
		mem_free(s);
		if ((s = path_join(d, "modules")) == NULL)
			goto oom;
		if (git_modules(b, s, depth + 1) < 0)
			goto out;
	}
	rc = 0;
	goto out;
oom:
	rc = fail(b, "git", dir);
out:
	cfg_free(&cfg);
	mem_free(top);
	mem_free(s);
	mem_free(h);
	mem_free(d);
	strlist_free(&l);
	return rc;
}

static void
git_free(struct build *b)
{
	size_t i;

	for (i = 0; i < b->na; i++) {
		mem_free(b->a[i].dir);
		mem_free(b->a[i].top);
	}
	b->na = 0;
	mem_free(b->gitfile);
	b->gitfile = NULL;
	strlist_free(&b->ptr);
}

/* ---- Writable roots ---- */

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

	if (b->na == 0 || b->gitfile == NULL)
		return 0;
	gd = b->a[0].dir;
	cd = git_common(b);
	if (!roots_writable(b->r, gd) && writable(b, "git", gd) < 0)
		return -1;
	for (i = 0; strcmp(cd, gd) != 0 && i < 3; i++) {
		if ((s = path_join(cd, sub[i])) == NULL)
			return fail(b, "git", cd);
		if (!roots_writable(b->r, s) && writable(b, "git", s) < 0) {
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

	if (ww && writable(b, "workspace", p->workspace) < 0)
		return -1;
	if (writable(b, "temp dir", p->tmpdir) < 0)
		return -1;
	if (b->state) {
		if (make_dir(b, p->state, 0700) < 0 && errno != EEXIST)
			return fail(b, "state dir", p->state);
		if (writable(b, "state dir", p->state) < 0)
			return -1;
	}
	for (i = 0; ww && i < p->grants.n; i++)
		if (writable(b, "grant", p->grants.v[i]) < 0)
			return -1;
	if (ww && (b->flags & ROOTS_GIT) && git_roots(b) < 0)
		return -1;
	for (i = 0; (b->flags & ROOTS_DEVICES) &&
	    i < sizeof devices / sizeof devices[0]; i++) {
		if (strlist_push(&b->r->w, mem_strdup(devices[i])) < 0)
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
		if (!listed(&b->r->pin, path, n) &&
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
	    listed(&b->r->p, c, strlen(c)) ||
	    listed(&b->r->absent, c, strlen(c)) ||
	    listed(&b->r->watch, c, strlen(c))) {
		mem_free(c);
		return 0;
	}
	if (exists && (how & P_WATCH)) {
		if ((b->flags & ROOTS_MISSING) &&
		    strlist_push(&b->r->p, mem_strdup(c)) < 0) {
			mem_free(c);
			return fail(b, what, path);
		}
		return strlist_push(&b->r->watch, c) < 0 ? fail(b, what, path) :
		    0;
	}
	if (exists) {
		if (pins(b, root, c) < 0) {
			mem_free(c);
			return fail(b, what, path);
		}
		if (strlist_push(&b->r->p, c) < 0)
			return fail(b, what, path);
		return 0;
	}
	if (!(b->flags & ROOTS_MISSING) && (how & P_NOABSENT)) {
		mem_free(c);
		return 0;
	}
	if (how & P_NOABSENT)
		return strlist_push(&b->r->p, c) < 0 ? fail(b, what, path) : 0;
	if ((b->flags & ROOTS_MISSING) &&
	    strlist_push(&b->r->p, mem_strdup(c)) < 0) {
		mem_free(c);
		return fail(b, what, path);
	}
	return strlist_push(&b->r->absent, c) < 0 ? fail(b, what, path) : 0;
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
	if (make)
		(void)make_dir(b, s, 0700);
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
		if ((c = git_path(b, l->v[i], top)) == NULL) {
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

/*
 * The global git config files (~/.gitconfig, and git/config in the folder
 * above the user config's, which is $XDG_CONFIG_HOME): read into cfg, and
 * protected themselves when ".git/config" is.
 */
static int
git_global(struct build *b, struct cfg *cfg)
{
	char *f[2] = { NULL, NULL }, *x = NULL, *y = NULL;
	const char *uc = b->p->user_config;
	int i, rc = -1;

	if (b->p->home != NULL &&
	    (f[0] = path_join(b->p->home, ".gitconfig")) == NULL)
		goto oom;
	if (uc != NULL && uc[0] == '/') {
		if ((x = parent_of(uc)) == NULL || (y = parent_of(x)) == NULL ||
		    (f[1] = path_join(y, "git/config")) == NULL)
			goto oom;
	} else if (b->p->home != NULL &&
	    (f[1] = path_join(b->p->home, ".config/git/config")) == NULL)
		goto oom;
	for (i = 0; i < 2; i++) {
		if (f[i] == NULL)
			continue;
		if (cfg_file(b, cfg, f[i], 0) < 0)
			goto oom;
		if (b->git_config && protect(b, "git", f[i], 0) < 0)
			goto out;
	}
	rc = 0;
	goto out;
oom:
	rc = fail(b, "git", "global config");
out:
	mem_free(f[0]);
	mem_free(f[1]);
	mem_free(x);
	mem_free(y);
	return rc;
}

/* The control files of admin dir a, as roots.h lists them. */
static int
git_admin(struct build *b, const struct admin *a, const struct cfg *global)
{
	static const char *const cfgfiles[] = { "config", "config.worktree" };
	const struct strlist *pr = &b->p->protect;
	const char *tail;
	struct cfg cfg;
	char *s;
	size_t i;
	int rc = -1, hooks;

	memset(&cfg, 0, sizeof cfg);
	for (i = 0; i < pr->n; i++) {
		if (!git_entry(pr->v[i], &tail))
			continue;
		hooks = is_or_under(tail, "hooks");
		if (a->kind == A_LINKED && (hooks || is_or_under(tail,
		    "config")))
			continue;
		/* `git submodule update` rewrites a module's config */
		if (protect_in(b, "git", a->dir, tail, 0,
		    strcmp(tail, "hooks") == 0 ? P_DIR : a->kind == A_MODULE &&
		    strcmp(tail, "config") == 0 ? P_WATCH : 0) < 0)
			goto out;
	}
	if (b->git_config && (protect_in(b, "git", a->dir, "config.worktree",
	    0, 0) < 0 || protect_in(b, "git", a->dir, "commondir", 0, 0) < 0))
		goto out;
	for (i = 0; i < 2; i++) {
		if ((s = path_join(a->dir, cfgfiles[i])) == NULL)
			goto oom;
		rc = cfg_file(b, &cfg, s, 0);
		mem_free(s);
		if (rc < 0)
			goto oom;
		rc = -1;
	}
	if (b->git_hooks && a->kind != A_LINKED) {
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
	cfg_free(&cfg);
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
	struct cfg global;
	char *mods = NULL;
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
	b->nfound = b->na;
	if (b->na > 0) {
		if ((mods = path_join(git_common(b), "modules")) == NULL) {
			fail(b, "git", git_common(b));
			goto out;
		}
		if (git_worktrees(b, git_common(b)) < 0 ||
		    git_modules(b, mods, 0) < 0)
			goto out;
	}
	if (git_global(b, &global) < 0)
		goto out;
	if (b->git_hooks && protect_hooks(b, &global.hooks, NULL) < 0)
		goto out;
	if (b->git_config && protect_files(b, &global.inc) < 0)
		goto out;
	for (i = 0; i < b->na; i++)
		if (git_admin(b, &b->a[i], &global) < 0)
			goto out;
	if (b->git_config && b->gitfile != NULL &&
	    protect(b, "git", b->gitfile, 0) < 0)
		goto out;
	/* gitdir files: only those that are files (a module's may be a dir) */
	for (i = 0; b->git_config && i < b->ptr.n; i++)
		if (b_isdir(b, b->ptr.v[i]) == 0 &&
		    protect(b, "git", b->ptr.v[i], 0) < 0)
			goto out;
	rc = 0;
out:
	mem_free(mods);
	cfg_free(&global);
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

	for (i = 0; p->workspace != NULL && i < p->protect.n; i++)
		if (protect_in(b, "protected path", p->workspace,
		    p->protect.v[i], 0, git_entry(p->protect.v[i], &tail) ?
		    P_NOABSENT : 0) < 0)
			return -1;
	if (p->workspace != NULL && build_git(b) < 0)
		return -1;
	/*
	 * made, to be protected from the start: a command must not plant a
	 * checkpoint store that a later rewind would trust
	 */
	for (i = 0; p->state != NULL &&
	    i < sizeof state_sub / sizeof state_sub[0]; i++)
		if (protect_in(b, "state dir", p->state, state_sub[i],
		    b->state, P_NOABSENT) < 0)
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
		b.pop = &b.po;
	}
	if (p->tmpdir == NULL || (p->mode == MODE_WORKSPACE_WRITE &&
	    (p->workspace == NULL || p->state == NULL))) {
		errno = EINVAL;
		return fail(&b, "policy", "(incomplete)");
	}
	if ((p->workspace != NULL && (flags & (ROOTS_GIT | ROOTS_PROTECT)) &&
	    git_find(&b) < 0) || build_writable(&b) < 0 ||
	    ((flags & ROOTS_PROTECT) && build_protected(&b) < 0))
		rc = -1;
	git_free(&b);
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
	r->ndev = 0;
}

/* ---- Questions ---- */

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
	return under_any(&r->p, path) || under_any(&r->absent, path) ||
	    under_any(&r->watch, path);
}

int
roots_check(const struct roots *r, const char *path, const char **why)
{
	if (!roots_writable(r, path)) {
		*why = "outside the writable roots";
		return -1;
	}
	if (roots_protected(r, path)) {
		*why = "protected path";
		return -1;
	}
	return 0;
}
