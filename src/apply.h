/*
 * apply: lands pending changes in the real workspace, file by file.
 *
 * For each item: the parent directory is resolved beneath the workspace
 * root without following a symlink out of it (fsx); the real file's current
 * state is compared with the base recorded at capture (a mismatch is a
 * conflict: refused); then the new content goes to a temp file in the
 * destination directory, fsync, rename, directory fsync. A new file never
 * replaces one the user created meanwhile. An item whose real file already
 * equals the new state counts as applied, so re-running apply after a
 * crash finishes the job. Failures are per item and never stop the others.
 *
 * Hard links: the target path is replaced by a new inode (rename), so
 * other names of the old inode keep the old content (documented in README).
 *
 * Rules, in detail:
 *
 * - Refusals have err 0 and one of these reasons, word for word:
 *   "resolves outside the workspace (symlink); refused" (an ancestor
 *   leads out: EXDEV from fsx), "changed since capture; refused",
 *   "created since capture; refused" (base.absent but something is
 *   there), "deleted since capture; refused" (base present, real gone).
 *   OS errors have err set and reason = strerror(err).
 * - State compared with base: type; regular files by mode & 07777 and
 *   SHA-256 of the bytes; links by SHA-256 of the target text; directories
 *   by type only (and mode & 07777 for APPLY_CHMOD). Any other file type
 *   (fifo, device, socket) never matches.
 * - Already-new counts as applied: FILE same mode and bytes, SYMLINK same
 *   target, MKDIR any directory, DELETE/RMTREE absent (also when the
 *   parent directory is gone), CHMOD same mode.
 * - APPLY_SYMLINK reads the target with readlink(srcdir/src); if src is a
 *   regular file its content is the target. APPLY_MKDIR sets the exact
 *   mode (not masked by umask).
 * - Missing parents are created (0755) only for items that create
 *   something on an absent base; they stay if the item then fails.
 * - Items run in array order. A type change (dir <-> file) needs the
 *   removal first (RMTREE or DELETE) and the new item with base.absent:
 *   a FILE over a directory fails with EISDIR.
 * - Every directory touched is swept once per run of FSX_TMP_PREFIX
 *   names (what a kill -9 can leave). Two applies into one workspace at
 *   the same time are not supported: one may sweep the other's temp file
 *   (that item then fails with ENOENT and stays pending).
 */
#ifndef ARCTURN_APPLY_H
#define ARCTURN_APPLY_H

#include <stddef.h>

#include "hash.h"

enum apply_kind {
	APPLY_FILE,	/* create or replace a regular file from src */
	APPLY_SYMLINK,	/* create or replace a symlink; target read from src */
	APPLY_MKDIR,	/* create a directory */
	APPLY_DELETE,	/* remove a file or symlink */
	APPLY_RMTREE,	/* remove a directory and everything beneath it */
	APPLY_CHMOD	/* mode change only */
};

/* The real path's state when the change was captured. */
struct apply_base {
	int		 absent;	/* did not exist */
	int		 is_link;
	int		 is_dir;
	unsigned int	 mode;		/* permission bits */
	unsigned char	 sha[HASH_LEN];	/* content (or link target) */
};

struct apply_item {
	const char	*path;		/* workspace-relative */
	enum apply_kind	 kind;
	int		 srcdir;	/* new content: srcdir/src (upper tree) */
	const char	*src;
	unsigned int	 mode;		/* new permission bits */
	struct apply_base base;
	/* out */
	int		 failed;
	int		 err;		/* errno, or 0 for a refusal */
	char		 reason[200];	/* one line, e.g. "resolves outside the
					   workspace (symlink); refused" */
};

/*
 * Apply n items beneath rootfd (an O_DIRECTORY fd of the workspace root).
 * Returns the number of failed items (each with failed, err, reason set),
 * or -1 with errno for a failure before any item was tried.
 */
long	apply_run(int rootfd, struct apply_item *items, size_t n);

#endif
