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
 *   "created since capture; refused" (base absent but something is
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
 *   removal first (RMDIR or DELETE) and the new item with an absent base:
 *   a FILE over a directory fails with EISDIR.
 * - Every directory touched is swept once per run of FSX_TMP_PREFIX
 *   names (what a kill -9 can leave): what such a name holds is either a
 *   new object not yet swapped in, or one moved aside that was kept
 *   before the swap, so removing it loses nothing.
 */
#ifndef ARCTURN_APPLY_H
#define ARCTURN_APPLY_H

#include <stddef.h>

#include "apply/apply_item.h"

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

/* Test seam (apply_swap.c): apply_force_rename, in apply_item.h. */

#endif
