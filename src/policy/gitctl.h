/*
 * gitctl: the control files of a workspace's git repository, found as git
 * finds them, by reading files only (no git binary, nothing written).
 * gitctl only finds; roots.c decides what of it is writable or protected
 * (roots.h, "Git control files").
 *
 * Calling sequence (g is the caller's; nothing in it needs setting first):
 *
 *	gitctl_init(&g, home, ops);
 *	gitctl_find(&g, workspace);	the gitdir and the common dir
 *	gitctl_scan(&g);		linked worktrees and submodules
 *	gitctl_config(&g, file, &cfg);	what a config says (any number)
 *	gitctl_global(&g, user_config, &cfg, &files);
 *	gitctl_free(&g);		(after a failure too)
 *
 * Admin dirs, in g.a[0 .. g.na): a[0] is the workspace's gitdir (`.git`,
 * the dir a `.git` file names, or the workspace itself when it is a bare
 * repository), found by walking up from the workspace as git does (at
 * most GITCTL_UP levels; a `.git` that cannot be looked at is an error in
 * the workspace itself, and ends the walk above it, as it ends git's);
 * a[1] the common dir its `commondir` file names, when that is another.
 * No repository leaves na 0. gitctl_scan then adds each linked worktree's
 * admin dir (<common>/worktrees/<id>) and each submodule's
 * (<common>/modules/<name>, a name may hold '/'; nested modules/ too) and
 * sets nfound to what gitctl_find had found. Each dir is canonical and
 * listed once; top is its work tree's top (canonical), or NULL when none
 * is known (a bare repository).
 *
 * Pointer files: g.gitfile is the workspace's `.git` file (canonical), or
 * NULL when the gitdir is a folder. g.ptr lists the `.git` files the
 * admin dirs point back to (a linked worktree's `gitdir`, a submodule's
 * core.worktree + "/.git"), canonical, once each; such a path may be a
 * folder or missing.
 *
 * Config files (gitctl_config, with gitconfig.h's syntax): every
 * core.hooksPath as written (whichever wins, each may matter), the last
 * core.worktree, and every file include.path and includeIf.*.path name,
 * whatever the condition, read in place GITCTL_DEPTH levels deep (each
 * once). A missing or unreadable file adds nothing: git reads nothing
 * from it either.
 *
 * Paths written in git files (gitctl_path): absolute, relative to a base
 * (the file's folder, a work tree's top), or `~/...` (home); canonical
 * through ops->realpath, a missing tail kept (path_canon).
 *
 * Bounds: at most GITCTL_MAX admin dirs besides those gitctl_find finds,
 * GITCTL_LISTS folders listed and modules GITCTL_DEPTH deep: beyond,
 * E2BIG, for protection from a partial list would be partial. Files are
 * read up to GITCTL_FILE bytes: a larger config adds nothing (as any
 * unreadable one), a larger `.git` file or commondir is an error (EFBIG).
 *
 * Errors: a why on the handle (src/STYLE.md), as roots.h has it:
 * functions that fail return -1 with errno and one line in g.why,
 * `git: path: reason` (with E2BIG, what was too much and that
 * protection would be partial). ENOMEM from the allocator. The object
 * stays consistent and gitctl_free frees it.
 */
#ifndef ARCTURN_GITCTL_H
#define ARCTURN_GITCTL_H

#include <limits.h>
#include <stddef.h>

#include "lib/path.h"
#include "policy/policy.h"

#define GITCTL_MAX	64		/* admin dirs beyond gitctl_find's */
#define GITCTL_FILE	(1 << 20)	/* bytes read of a git file */
#define GITCTL_DEPTH	8		/* config includes, nested modules */
#define GITCTL_UP	64		/* levels walked up to find it */
#define GITCTL_LISTS	256		/* folders listed looking for modules */

/*
 * The file system, behind a seam so that tests can stand in a repository
 * (roots.h: roots_ops, which roots passes through). realpath returns a
 * canonical path (mem_alloc'd) or NULL with errno (ENOENT: missing).
 * isdir is 1 for a directory, 0 for anything else, -1 with errno
 * (ENOENT: missing), and follows symlinks as git does. read returns a
 * regular file's bytes, NUL-terminated (mem_alloc'd), at most max of them
 * (EFBIG beyond), or NULL with errno; never blocks on a fifo. list pushes
 * the names in a directory (not . and ..) onto l, 0 or -1 with errno. A
 * NULL ops, or a NULL member: the system's own.
 */
struct gitctl_ops {
	char	*(*realpath)(const char *, void *);
	int	 (*isdir)(const char *, void *);
	char	*(*read)(const char *, size_t max, void *);
	int	 (*list)(const char *, struct strlist *l, void *);
	void	*arg;
};

enum gitctl_kind {
	GITCTL_MAIN,		/* a gitdir or common dir with its own files */
	GITCTL_LINKED,		/* a linked worktree's: no hooks or config */
	GITCTL_MODULE		/* a submodule's: git rewrites its config */
};

struct gitctl_admin {
	char		*dir;		/* canonical */
	char		*top;		/* its work tree's top, or NULL */
	enum gitctl_kind kind;
};

/* Caller-allocated; what it points to is gitctl's (gitctl_free). */
struct gitctl {
	struct gitctl_admin	 a[GITCTL_MAX + 2];
	size_t			 na;
	size_t			 nfound;	/* of a, gitctl_find's */
	char			*gitfile;	/* the workspace's .git file */
	struct strlist		 ptr;		/* .git files pointed back to */
	char			 why[PATH_MAX + 64];	/* after a failure */
	/* gitctl's own */
	const char		*home;
	const struct gitctl_ops	*ops;
	struct path_ops		 po;
	const struct path_ops	*pop;
	int			 lists;
	int			 e;
};

/* What config files say (gitctl_config); zero it first. */
struct gitctl_cfg {
	struct strlist	 hooks;		/* every core.hooksPath, as written */
	char		*worktree;	/* the last core.worktree, or NULL */
	struct strlist	 inc;		/* included files, canonical */
};

/*
 * Start g: home (canonical, or NULL: `~/` resolves nothing) must outlive
 * it; ops may be NULL.
 */
void	gitctl_init(struct gitctl *g, const char *home,
	    const struct gitctl_ops *ops);

/*
 * Resolve paths through po (path.h: a memo that roots keeps for one
 * build, say) instead of ops->realpath; po must outlive g.
 */
void	gitctl_paths(struct gitctl *g, const struct path_ops *po);

/* Find the workspace's repository: a[0], a[1] (above). 0 or -1. */
int	gitctl_find(struct gitctl *g, const char *workspace);

/* The common dir: a[1] when a[0] is a linked worktree's, else a[0]. */
const char *gitctl_common(const struct gitctl *g);

/* Add the linked worktrees and submodules (above). 0 or -1. */
int	gitctl_scan(struct gitctl *g);

/* Add what the config file path says to cfg. 0, or -1 (ENOMEM). */
int	gitctl_config(struct gitctl *g, const char *path,
	    struct gitctl_cfg *cfg);

/*
 * The global config files git reads: ~/.gitconfig and git/config in the
 * folder above the user config's (which is $XDG_CONFIG_HOME; user_config
 * NULL or relative: ~/.config/git/config). Each is read into cfg and its
 * path pushed onto files (to protect, whether it exists or not). 0 or -1.
 */
int	gitctl_global(struct gitctl *g, const char *user_config,
	    struct gitctl_cfg *cfg, struct strlist *files);

/*
 * The canonical path that what (written in a git file) names, relative
 * to base (NULL: a relative what names nothing); mem_alloc'd. NULL with
 * errno: ENOENT for what names nothing (a `~user/`, `~/` with no home, a
 * relative path with no base), and path_canon's errors. g.why untouched.
 */
char	*gitctl_path(const struct gitctl *g, const char *what,
	    const char *base);

/* 1 for a directory, 0 for anything else, -1 with errno (ops->isdir). */
int	gitctl_isdir(const struct gitctl *g, const char *path);

void	gitctl_cfg_free(struct gitctl_cfg *cfg);
void	gitctl_free(struct gitctl *g);

#endif
