/*
 * writecheck: the one question every writer asks before it changes a
 * file: may this write happen, in the folder I opened?
 *
 * Writers (write and edit, apply, rewind and undo, exec --checkpoint,
 * the MCP file tools through write and edit, the dry run's sweep of temp
 * names) open the parent folder beneath the workspace (fsx_open_parent),
 * then ask policy_may_write with that fd and the final name, and use
 * the same fd for the write: check and use are one resolution. Three
 * things must hold:
 *
 *   lexical	the path as the writer names it (absolute: the workspace
 *		joined with the relative path) is writable and not
 *		protected (roots_deny). It must be absolute, without "."
 *		or ".." components, and end in name.
 *   identity	the folder the path's parent names, canonicalised
 *		(realpath: symlinks resolved), is the very folder dirfd
 *		holds: walked from / again with O_NOFOLLOW on every
 *		component, it has dirfd's device and inode. A folder
 *		swapped for a symlink (or moved) between the writer's
 *		open and this check makes them differ.
 *   canonical	that canonical folder joined with name is writable and
 *		not protected: a symlinked folder inside the workspace
 *		that leads into .git is refused as .git itself is.
 *
 * name must be one component: not empty, no '/', not "." or "..", at most
 * NAME_MAX bytes. (A C string holds no NUL: the MCP front end refuses a
 * path with one before it gets here.)
 *
 * What stays: a folder renamed into a protected place after the check
 * and before the write (the fd moves with it). The mount layer's pins
 * cover that for a confined command's own writes; for arcturn's writers
 * it is the window of one rename, not of a name resolved twice.
 *
 * r comes from roots_build with ROOTS_PROTECT and ROOTS_MISSING (so that
 * a protected path that does not exist yet is refused too). The module
 * never prints: the verdict is data for the front end to word.
 */
#ifndef ARCTURN_WRITECHECK_H
#define ARCTURN_WRITECHECK_H

#include "policy/roots.h"

enum policy_why {
	POLICY_OK,
	POLICY_DENIED,	/* the roots refuse it: d says why and which rule */
	POLICY_MOVED,	/* the folder opened is not the one its path names */
	POLICY_NAME,	/* not one component, or a lexical path not clean */
	POLICY_ERROR	/* cannot be checked: err (refused all the same) */
};

struct policy_verdict {
	enum policy_why		 why;
	struct roots_denial	 d;	/* POLICY_DENIED */
	int			 canonical;	/* POLICY_DENIED: the refusal
						   came from the canonical
						   path, not the lexical one */
	int			 err;	/* POLICY_ERROR: an errno value */
};

/*
 * May a write to dirfd/name happen, lexical being the path the writer
 * names? 0 yes (v->why POLICY_OK); -1 no, with v filled. Any failure to
 * check is a refusal (POLICY_ERROR), never a yes. errno is kept.
 */
int	policy_may_write(const struct roots *r, const char *lexical,
	    int dirfd, const char *name, struct policy_verdict *v);

/*
 * A short phrase for v, without the path: "protected path", "outside the
 * writable roots", "a folder on its way changed while it was checked",
 * "not a plain file name", "cannot be checked against the policy". A
 * front end that words roots' refusals itself (dryrun_denied) uses v->d.
 */
const char *policy_reason(const struct policy_verdict *v);

#endif
