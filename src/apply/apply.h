/*
 * apply: lands pending changes in the real workspace, file by file, so
 * that nothing of the user's is lost on the way.
 *
 * For each item: the parent directory is resolved beneath the workspace
 * root without following a symlink out of it (fsx); the real path's
 * current state is compared with the base recorded at capture (a mismatch
 * is a conflict: refused); the new object is made under a temp name in the
 * destination directory (fsync); then it is swapped in and what it moved
 * aside is checked again:
 *
 *   replace	what is there now is kept first (keeper, below), then the
 *		temp object is exchanged with it (renameat2 RENAME_EXCHANGE,
 *		renameatx_np RENAME_SWAP on macOS); the object now under the
 *		temp name must be the one checked (same inode, unchanged
 *		since, or else again equal to the base by type, mode and
 *		content). If it is not, it is exchanged back (the user's
 *		version stays in place) and the item is a conflict. Where
 *		exchange is missing, the real path is checked again right
 *		before a plain rename; what it replaces was kept first.
 *   delete	what is there is kept, then renamed aside (never replacing),
 *		checked the same way, and renamed back on a mismatch.
 *   create	(an absent base) an exclusive rename: it never replaces what
 *		the user created meanwhile (RENAME_NOREPLACE, or link+unlink).
 *
 * So at every instant the user's version is in place, under the temp name
 * in its own directory, or kept. The new object's bytes and what is kept
 * are durable before the swap; the directory is fsynced once the item is
 * done (apply_run_batch: once per batch and directory). An item whose real path already holds the new state counts as
 * applied, so re-running apply after a crash finishes the job. Failures
 * are per item and never stop the others.
 *
 * Rules, in detail:
 *
 * - Refusals have err 0 and one of these reasons, word for word:
 *   "resolves outside the workspace (symlink); refused" (an ancestor
 *   leads out: EXDEV from fsx), "changed since capture; refused",
 *   "created since capture; refused" (base.absent but something is
 *   there), "deleted since capture; refused" (base present, real gone),
 *   "not empty: holds entries created since capture; kept" (APPLY_RMDIR),
 *   apply_damaged_reason (a source that does not hash to want: a damaged
 *   snapshot is never put in place),
 *   and for a base with unrecorded set apply_unrecorded_reason(). OS
 *   errors have err set and reason = strerror(err), or "cannot keep what
 *   it replaces: " + strerror(err) when the keeper failed.
 * - State compared with base: type; regular files by mode & 07777 and
 *   SHA-256 of the bytes; links by SHA-256 of the target text; fifos,
 *   sockets and devices by type and mode; directories by type only (and
 *   mode & 07777 for APPLY_CHMOD).
 * - Already-new counts as applied: FILE and LINK same mode and bytes,
 *   SYMLINK same target, FIFO a fifo of that mode, MKDIR any directory,
 *   DELETE/RMDIR absent (also when the parent directory is gone), CHMOD
 *   same mode. This holds for an unrecorded base too.
 * - APPLY_SYMLINK reads the target with readlink(srcdir/src); if src is a
 *   regular file its content is the target. APPLY_MKDIR and APPLY_FIFO
 *   set the exact mode (not masked by umask).
 * - APPLY_LINK makes path a hard link of the workspace file `link`, which
 *   must hold exactly the bytes and mode of srcdir/src (the change set's
 *   copy of this file): a command's `ln a b` stays a link.
 * - APPLY_RMDIR removes a directory that is empty by then (its recorded
 *   entries are separate items before it): whatever else is in it stays,
 *   and so does the directory.
 * - Missing parents are created (0755) only for items that create
 *   something on an absent base; they stay if the item then fails.
 * - Items run in array order. A type change (dir <-> file) needs the
 *   removal first (RMDIR or DELETE) and the new item with base.absent:
 *   a FILE over a directory fails with EISDIR.
 * - Every directory touched is swept once per run of FSX_TMP_PREFIX
 *   names (what a kill -9 can leave): what such a name holds is either a
 *   new object not yet swapped in, or one moved aside that was kept
 *   before the swap, so removing it loses nothing.
 */
#ifndef ARCTURN_APPLY_H
#define ARCTURN_APPLY_H

#include <sys/types.h>

#include <stddef.h>

#include "lib/hash.h"

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

/* The real path's state when the change was captured. */
struct apply_base {
	int		 absent;	/* did not exist */
	int		 is_link;
	int		 is_dir;
	unsigned int	 special;	/* S_IFIFO, S_IFSOCK, S_IFCHR or
					   S_IFBLK; 0 for the kinds above
					   and a regular file */
	int		 unrecorded;	/* no record of the path at capture:
					   every change of it is refused */
	int		 why;		/* with unrecorded: an errno value, or
					   0 (the run that made the change
					   never ended) */
	unsigned int	 mode;		/* permission bits */
	unsigned char	 sha[HASH_LEN];	/* content (or link target) */
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
struct apply_env {
	const struct apply_keeper *keep;
	void	(*progress)(void *arg);	/* after each item, any thread */
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
 * Apply n items beneath rootfd (an O_DIRECTORY fd of the workspace root).
 * Returns the number of failed items (each with failed, err, reason set),
 * or -1 with errno for a failure before any item was tried. env may be
 * NULL.
 */
long	apply_run(int rootfd, struct apply_item *items, size_t n,
	    const struct apply_env *env);

/*
 * apply_run for items of which none needs another to be done first (no
 * item is in a directory another one makes, or links to a file another
 * one makes). They go in batches of a few: each item of a batch is
 * checked, kept and made under its temp name; one round of syncs makes
 * the batch's new files and what it keeps durable; then the items are
 * swapped in and each directory is synced once. One sync per batch
 * instead of three per item.
 */
long	apply_run_batch(int rootfd, struct apply_item *items, size_t n,
	    const struct apply_env *env);

/* The refusal of an item whose source does not hash to want. */
extern const char apply_damaged_reason[];

/*
 * The refusal of a change whose base is unrecorded, word for word:
 * "no record of the file at capture; refused", with the reason in
 * parentheses before the semicolon when why is set (ESTALE: "it changed
 * while the command ran"); for EBADMSG "its base record is truncated or
 * corrupt; refused". Into buf, which it returns.
 */
const char *apply_unrecorded_reason(int why, char *buf, size_t len);

/*
 * Test seam: with on != 0, act as where the system has no exchanging
 * rename (check again right before a plain rename).
 */
void	apply_force_rename(int on);

#endif
