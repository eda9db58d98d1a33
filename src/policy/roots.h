/*
 * roots: what a confined command may write, and what stays read-only
 * inside that, computed once from a policy. Every backend confines by this
 * answer (the helper's and bwrap's argv, Seatbelt's -D parameters, the
 * Windows Low labels), and the file tools are to ask it too.
 *
 * Writable roots, in this order:
 *
 *	the workspace			(workspace-write)
 *	the temp dir
 *	the state dir			(workspace-write, without ROOTS_NOSTATE)
 *	each grant			(workspace-write)
 *	a linked worktree's git dirs	(ROOTS_GIT, see below)
 *	/dev/null, /dev/zero, ...	(ROOTS_DEVICES: the last ndev entries,
 *					as named; a backend skips those that
 *					do not exist, as the helper does)
 *
 * Each is canonicalised through ops (path_canon: a missing tail is kept),
 * so /var/folders/x is /private/var/folders/x on macOS. The state dir is
 * created (0700) first when it is a root (mkdir is asked only when it
 * does not resolve). One build asks ops->realpath about each path once
 * (a path_memo, path.h, that lives as long as the call and is forgotten
 * after each mkdir): the answers hold for the build, not after it.
 *
 * Linked worktrees and submodules (ROOTS_GIT, workspace-write only): when
 * the workspace's git admin dir (the gitdir a `.git` file names) lies
 * outside every writable root, it becomes one, and so do its common dir's
 * objects/, refs/ and logs/; the common dir itself (its config, hooks,
 * packed-refs) stays read-only. These come after the grants.
 *
 * Protected paths (ROOTS_PROTECT), in this order: each `protect` entry
 * beneath the workspace; the git control files (below); the state dir's
 * overlays/, checkpoints/ and cache/ (created, so they are protected
 * from the first run: a command must not plant a checkpoint store that
 * a later rewind would trust); and the folder of the user
 * config, created when a root holds it, so that a command cannot plant a
 * config that loosens the next run. Each is canonicalised too (a symlink
 * in the workspace must not turn the protection into a view of somewhere
 * else), and kept only when it lies strictly beneath a writable root other
 * than a device (elsewhere it is read-only anyway) and is not already
 * listed. One whose parent is not a directory is left out (nothing can be
 * created there).
 *
 * Git control files. A `protect` entry whose first component is `.git`
 * names that path in every git admin dir of the workspace's repository:
 * its gitdir (`.git`, or the dir a `.git` file names; found by walking up
 * from the workspace as git does), the common dir its `commondir` names,
 * each linked worktree's admin dir (<common>/worktrees/<id>) and each
 * submodule's (<common>/modules/<name>, nested ones too). Besides:
 *
 *	.git/hooks	also the folder core.hooksPath names (in each admin
 *			dir's config and config.worktree, and in the global
 *			~/.gitconfig and $XDG_CONFIG_HOME/git/config; a
 *			relative one from the work tree's top)
 *	.git/config	also config.worktree and commondir in each admin dir,
 *			the `.git` file of the workspace, of each linked
 *			worktree and of each submodule, every file a config
 *			includes (include.path, includeIf.*.path), and the
 *			global git config files: everything that decides which
 *			config git reads
 *
 * A linked worktree's own admin dir has no hooks or config of its own:
 * only the pointers and the entries other than those two apply there. The
 * entries also hold literally (workspace/.git/...), so that a `.git` the
 * command creates at the workspace's top cannot shadow the repository
 * above it. Discovery reads files only (no git binary) and is bounded:
 * at most ROOTS_GIT_MAX admin dirs besides the gitdir and common dir
 * (E2BIG beyond: protection would be partial), config files up to
 * ROOTS_GIT_FILE bytes, includes ROOTS_GIT_DEPTH deep. A repository the
 * command creates (git init, a new submodule or worktree) is not known.
 * gitctl.h finds all this; roots decides what of it to protect.
 *
 * Missing protected paths. A protected path that does not exist is in
 * absent (a mount can only cover what exists), and also in p with
 * ROOTS_MISSING (a backend that can refuse creating it by name, and the
 * file tools). With ROOTS_MAKE, a missing hooks folder (either kind) is
 * created empty (0755, its parent must exist) and then protected as
 * existing, so that a mount can cover it; missing files cannot be made.
 *
 * Watched files. A submodule's config is protected, but `git submodule
 * update` rewrites it (core.worktree, to the same value) through a rename,
 * which a read-only mount on it would refuse: it goes to watch instead of
 * p (and to p as well with ROOTS_MISSING). A mount backend leaves it
 * writable and puts it back as it was when the command has ended; Seatbelt
 * and the file tools refuse it like any protected path.
 *
 * Pins: for each protected path that exists, the directories strictly
 * between its root (the longest writable root that holds it) and the path,
 * outermost first, each once. A mount backend binds each onto itself, so
 * that renaming a parent cannot get around the protection (`mv .git x;
 * mkdir -p .git/hooks`).
 *
 * Rules: each path in w, p, absent and watch carries the rule that put it
 * there (enum roots_rule, in wrule, prule, arule and xrule, one byte per
 * entry), so that a refusal can say which rule refused it and what the
 * roots are, without roots wording anything (roots_deny).
 *
 * Errors: roots_build returns 0, or -1 with errno and one line in r->why,
 * `what: path: reason` (what: workspace, temp dir, state dir, grant,
 * protected path, git, user config). ENOMEM from the allocator.
 */
#ifndef ARCTURN_ROOTS_H
#define ARCTURN_ROOTS_H

#include <sys/types.h>

#include <limits.h>
#include <stddef.h>

#include "policy/gitctl.h"
#include "policy/policy.h"

/*
 * The operating system, behind a seam so that tests on Linux can stand in
 * for macOS's /var -> /private/var and for a repository. realpath returns
 * a canonical path (mem_alloc'd) or NULL with errno (ENOENT: missing);
 * NULL means realpath(3). mkdir is mkdir(2); NULL means nothing is ever
 * created. The git discovery's calls (gitctl.h: gitctl_ops, which roots
 * hands them to) come after arg (so that an older
 * initialiser leaves them NULL: the system's own): isdir is 1 for a
 * directory, 0 for anything else, -1 with errno (ENOENT: missing), and
 * follows symlinks as git does (stat(2)); read returns a file's bytes,
 * NUL-terminated (mem_alloc'd), at most max of them (EFBIG beyond), or
 * NULL with errno; list pushes the names in a directory (not . and ..)
 * onto l (strlist.h), 0 or -1 with errno. NULL ops: the system's, and
 * nothing created.
 */
struct roots_ops {
	char	*(*realpath)(const char *, void *);
	int	 (*mkdir)(const char *, mode_t, void *);
	void	*arg;
	int	 (*isdir)(const char *, void *);
	char	*(*read)(const char *, size_t max, void *);
	int	 (*list)(const char *, struct strlist *l, void *);
};

#define ROOTS_PROTECT	1	/* protected paths and their pins */
#define ROOTS_DEVICES	2	/* the writable device files, as roots */
#define ROOTS_MISSING	4	/* missing protected paths in p as well */
#define ROOTS_NOSTATE	8	/* the state dir is no root (Windows) */
#define ROOTS_GIT	16	/* a linked worktree's git dirs, as roots */
#define ROOTS_MAKE	32	/* create missing protected hooks folders */

/* gitctl.h's bounds on the git discovery */
#define ROOTS_GIT_MAX	GITCTL_MAX	/* admin dirs beyond gitdir, common */
#define ROOTS_GIT_FILE	GITCTL_FILE	/* bytes read of a git file */
#define ROOTS_GIT_DEPTH	GITCTL_DEPTH	/* config includes, nested modules */

/* Why a path is a writable root or protected (roots.h, "Rules"). */
enum roots_rule {
	ROOTS_R_WORKSPACE,	/* w: the workspace */
	ROOTS_R_TMPDIR,		/* w: the temp dir */
	ROOTS_R_STATE,		/* w: the state dir */
	ROOTS_R_GRANT,		/* w: a grant (--grant, "grants") */
	ROOTS_R_GITDIR,		/* w: a linked worktree's git dirs */
	ROOTS_R_DEVICE,		/* w: a device file */
	ROOTS_R_PROTECT,	/* protected: a `protect` entry of the config */
	ROOTS_R_GITCTL,		/* protected: a git control file */
	ROOTS_R_STATEDATA,	/* protected: arcturn's sessions, checkpoints */
	ROOTS_R_USERCFG		/* protected: the user config's folder */
};

/* Caller-allocated; every string is owned and freed by roots_free. */
struct roots {
	struct strlist	 w;		/* writable roots, canonical */
	size_t		 ndev;		/* the last ndev of w are devices */
	struct strlist	 p;		/* protected, canonical */
	struct strlist	 pin;		/* parents to pin, outermost first */
	struct strlist	 absent;	/* protected, missing when built */
	struct strlist	 watch;		/* protected files no mount covers */
	unsigned char	*wrule;		/* enum roots_rule of each of w */
	unsigned char	*prule;		/* ... of p */
	unsigned char	*arule;		/* ... of absent */
	unsigned char	*xrule;		/* ... of watch */
	char		 why[PATH_MAX + 64];	/* after a failure */
};

/* Fill r from p as described above. r need not be initialised. */
int	roots_build(const struct policy *p, int flags,
	    const struct roots_ops *ops, struct roots *r);

/* Free what r holds (r itself is the caller's); safe after a failure. */
void	roots_free(struct roots *r);

/*
 * Questions on a canonical path (path_canon). roots_writable: 1 when path
 * is a writable root or lies beneath one. roots_protected: 1 when path is
 * a protected path (p or absent) or lies beneath one.
 *
 * roots_check answers on a path string: may a command write path? 0
 * yes; -1 no, with *why "outside the writable roots" or "protected path"
 * (static strings). A writer decides with policy_may_write
 * (writecheck.h), which asks this on the folder it actually opened. Build r with ROOTS_PROTECT and
 * ROOTS_MISSING for it, so that a protected path that does not exist yet
 * is refused too.
 */
int	roots_writable(const struct roots *r, const char *path);
int	roots_protected(const struct roots *r, const char *path);
int	roots_check(const struct roots *r, const char *path, const char **why);

/*
 * roots_check with the reason as data, for a front end to word: 0 yes;
 * -1 no, with d filled: why ROOTS_OUTSIDE (no writable root holds path:
 * r->w and r->wrule list them) or ROOTS_PROTECTED (rule says which rule,
 * entry is the protected path that holds path, one of r's strings). A
 * rule list that is missing (a struct roots filled by hand) reads as
 * ROOTS_R_PROTECT.
 */
enum roots_why {
	ROOTS_OK,
	ROOTS_OUTSIDE,
	ROOTS_PROTECTED
};

struct roots_denial {
	enum roots_why	 why;
	enum roots_rule	 rule;		/* ROOTS_PROTECTED: which rule */
	const char	*entry;		/* ROOTS_PROTECTED: r's path */
};

int	roots_deny(const struct roots *r, const char *path,
	    struct roots_denial *d);

#endif
