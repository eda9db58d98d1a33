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
 *	/dev/null, /dev/zero, ...	(ROOTS_DEVICES: the last ndev entries,
 *					as named; a backend skips those that
 *					do not exist, as the helper does)
 *
 * Each is canonicalised through ops (path_canon: a missing tail is kept),
 * so /var/folders/x is /private/var/folders/x on macOS. The state dir is
 * created (0700) first when it is a root.
 *
 * Protected paths (ROOTS_PROTECT), in this order: each `protect` entry
 * beneath the workspace; the state dir's overlays/, checkpoints/ and
 * cache/ (overlays/ and cache/ are created, so they are protected from the
 * first run); and the folder of the user config, created when a root holds
 * it, so that a command cannot plant a config that loosens the next run.
 * Each is canonicalised too (a symlink in the workspace must not turn the
 * protection into a view of somewhere else), and kept only when it lies
 * strictly beneath a writable root other than a device (elsewhere it is
 * read-only anyway) and is not already listed. One that does not exist is
 * left out (a mount can only cover what exists), unless ROOTS_MISSING (a
 * backend that can also refuse its creation); one whose parent is not a
 * directory is left out always (nothing can be created there).
 *
 * Pins: for each protected path that exists, the directories strictly
 * between its root (the longest writable root that holds it) and the path,
 * outermost first, each once. A mount backend binds each onto itself, so
 * that renaming a parent cannot get around the protection (`mv .git x;
 * mkdir -p .git/hooks`).
 *
 * Errors: roots_build returns 0, or -1 with errno and one line in r->why,
 * `what: path: reason` (what: workspace, temp dir, state dir, grant,
 * protected path, user config). ENOMEM from the allocator.
 */
#ifndef ARCTURN_ROOTS_H
#define ARCTURN_ROOTS_H

#include <sys/types.h>

#include <limits.h>
#include <stddef.h>

#include "policy.h"

/*
 * The operating system, behind a seam so that tests on Linux can stand in
 * for macOS's /var -> /private/var. realpath returns a canonical path
 * (mem_alloc'd) or NULL with errno (ENOENT: missing); NULL means
 * realpath(3). mkdir is mkdir(2); NULL means nothing is ever created.
 * NULL ops: realpath(3), and nothing created.
 */
struct roots_ops {
	char	*(*realpath)(const char *, void *);
	int	 (*mkdir)(const char *, mode_t, void *);
	void	*arg;
};

#define ROOTS_PROTECT	1	/* protected paths and their pins */
#define ROOTS_DEVICES	2	/* the writable device files, as roots */
#define ROOTS_MISSING	4	/* keep protected paths that do not exist */
#define ROOTS_NOSTATE	8	/* the state dir is no root (Windows) */

/* Caller-allocated; every string is owned and freed by roots_free. */
struct roots {
	struct strlist	 w;		/* writable roots, canonical */
	size_t		 ndev;		/* the last ndev of w are devices */
	struct strlist	 p;		/* protected, canonical */
	struct strlist	 pin;		/* parents to pin, outermost first */
	char		 why[PATH_MAX + 64];	/* after a failure */
};

/* Fill r from p as described above. r need not be initialised. */
int	roots_build(const struct policy *p, int flags,
	    const struct roots_ops *ops, struct roots *r);

/* Free what r holds (r itself is the caller's); safe after a failure. */
void	roots_free(struct roots *r);

/*
 * Questions on a canonical path (path_canon). roots_writable: 1 when path
 * is a writable root or lies beneath one. roots_protected: 1 when path is a
 * protected path or lies beneath one. A path the command may write is
 * writable and not protected.
 */
int	roots_writable(const struct roots *r, const char *path);
int	roots_protected(const struct roots *r, const char *path);

#endif
