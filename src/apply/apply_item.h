/*
 * apply_item: the types of the apply engine (apply.h is its manual): an
 * item, the base it was captured on, what a keeper kept, and the engine's
 * environment. In a header of their own so that the engine's parts
 * (apply_swap, apply_new) need not include the engine.
 */
#ifndef ARCTURN_APPLY_ITEM_H
#define ARCTURN_APPLY_ITEM_H

#include <sys/types.h>

#include <stddef.h>

#include "lib/hash.h"
#include "lib/pstate.h"

struct roots;

enum apply_kind {
	APPLY_FILE,	/* create or replace a regular file from src */
	APPLY_SYMLINK,	/* create or replace a symlink; target read from src */
	APPLY_MKDIR,	/* create a directory */
	APPLY_DELETE,	/* remove a file, symlink, fifo, socket or device */
	APPLY_RMDIR,	/* remove a directory that is empty by then */
	APPLY_CHMOD,	/* mode change only */
	APPLY_FIFO,	/* create or replace a fifo */
	APPLY_LINK	/* create or replace a hard link to `link` */
};

/*
 * The real path's state when the change was captured (lib/pstate.h), or
 * no record of it: with unrecorded set, every change of the path is
 * refused and ps says nothing (its kind, zero, reads as absent: ask
 * unrecorded first).
 */
struct apply_base {
	struct pstate	 ps;
	int		 unrecorded;	/* no record of the path at capture */
	int		 why;		/* with unrecorded: an errno value, or
					   0 (the run that made the change
					   never ended) */
};

/*
 * What a keeper kept of one path: with linked, a hard link of the object
 * itself (dev, ino: that inode); otherwise a copy, whose content hash is
 * sha when have_sha (regular files and symlinks).
 */
struct apply_kept {
	int		 linked;
	dev_t		 dev;
	ino_t		 ino;
	int		 have_sha;
	unsigned char	 sha[HASH_LEN];
};

/*
 * Where apply keeps what it replaces or deletes (keep.h stores it in the
 * session's replaced/ area). put keeps dirfd/name, the object now at the
 * workspace path rel (a regular file, symlink, fifo, socket or device),
 * and says how in *kept; it may be called from several threads at once,
 * never twice for one rel at the same time. drop forgets what put kept for
 * rel (the swap found the user's version and put it back). put returns 0
 * or -1 with errno; the item then fails and nothing is replaced. What put
 * kept need not be durable yet: sync (NULL: nothing to do) makes all of
 * it durable, and is called before anything it kept is replaced; 0 or -1
 * with errno (the items fail, nothing replaced).
 */
struct apply_keeper {
	int	(*put)(void *arg, const char *rel, int dirfd, const char *name,
		    struct apply_kept *kept);
	void	(*drop)(void *arg, const char *rel);
	int	(*sync)(void *arg);
	void	*arg;
};

/*
 * What apply_run works with besides the items; NULL: keep nothing.
 * give_src: a FILE item's source is the caller's to give away (a
 * session's own copy, gone once applied): where it can be, it becomes the
 * new file itself, hard-linked in under the temp name instead of copied
 * (same file system, one name, the new mode already, owned by us, no
 * extended attributes), its times set to now as a copy's would be; its
 * name in srcdir goes right after the swap, so that nothing written
 * through the session can reach the real file. Never for a source that
 * lives on (a checkpoint blob).
 */
struct apply_item;

struct apply_env {
	const struct apply_keeper *keep;
	/* after each item it tried (applied or failed), from any thread */
	void	(*progress)(void *arg, const struct apply_item *it);
	void	*parg;
	int	 give_src;
	/*
	 * The write check (writecheck.h): with roots set, each item's
	 * folder, as opened, is asked policy_may_write with the lexical
	 * path ws/path (ws: the canonical workspace root) before anything
	 * in it is touched; a no is a refusal whose reason is
	 * policy_reason()'s phrase + "; refused".
	 */
	const struct roots *roots;
	const char *ws;
};

struct apply_item {
	const char	*path;		/* workspace-relative */
	enum apply_kind	 kind;
	int		 srcdir;	/* new content: srcdir/src (upper tree) */
	const char	*src;
	const char	*link;		/* APPLY_LINK: workspace-relative */
	const unsigned char *want;	/* NULL, or the SHA-256 that the new
					   content (FILE, LINK: srcdir/src's
					   bytes; SYMLINK: the target) must
					   have: else the item is refused
					   with apply_damaged_reason */
	unsigned int	 mode;		/* new permission bits */
	struct apply_base base;
	/* out */
	int		 failed;
	int		 err;		/* errno, or 0 for a refusal */
	int		 kept;		/* what it replaced or deleted is kept */
	char		 reason[200];	/* one line, e.g. "resolves outside the
					   workspace (symlink); refused" */
};

/*
 * Test seam (apply_swap.c): with on != 0, act as where the system has no
 * exchanging rename (check again right before a plain rename).
 */
void	apply_force_rename(int on);

#endif
