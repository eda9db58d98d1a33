/*
 * session_run: the marks around one dry-run command in a session.
 *
 * A dry-run command runs on a volatile overlayfs mount (landlock-helper
 * -o): nothing is synced when it ends and fsync inside it does nothing, so
 * the session makes what the command wrote durable itself. Around each
 * command, under LOCK_EX:
 *
 *   session_run_begin	moves the last run's work/work aside to work.old
 *			(overlayfs refuses a work dir that a volatile mount
 *			marked, and it would otherwise delete and remake
 *			work/work inside the mount, which on a file system
 *			mounted with discard waits for the disk), settles a
 *			run that never ended, then leaves the mark `running`:
 *			a symlink whose target is the boot id; and notes what
 *			upper/'s directories hold (inode, entries, mode)
 *   session_run_sweep	deletes work.old; call it off the path (exec
 *			--dry-run: while the sandbox is being built)
 *   session_run_changed 1 when something in upper/ differs from what it
 *			was when the mark was made: a file, symlink, whiteout
 *			or fifo made or changed since (by ctime), a directory
 *			with other entries or another mode, a new directory
 *			that is not an empty copy-up of a real one; also when
 *			the clock was set meanwhile or begin found an earlier
 *			run that never ended; else 0 (nothing to record or
 *			sync: `git status` makes and removes index.lock, and
 *			all that is left is the copied-up .git)
 *   session_run_end	opens up the mode-0 dirs overlayfs left (so that
 *			an unprivileged owner can rm -r the session); with
 *			changed, syncs the session's file system; then
 *			renames the mark `idle` (or `incomplete` when the
 *			caller could not record the bases of the changes),
 *			for the next run to rename back (a rename allocates
 *			no inode, so this works on a full disk too)
 *
 * A mark from this boot means arcturn itself was killed mid-run: the page
 * cache still holds everything, and a sync settles it. A mark from an
 * earlier boot means a restart cut the run short and part of what it
 * wrote may never have reached the disk: the mark is renamed
 * `interrupted` and stays until the session is removed. Either way, and
 * after an `incomplete` run, begin sets unrecorded: changes of that run
 * may lack a base record, and the caller must mark them so (changes.h,
 * changes_mark_unrecorded) before a new run could record them as if the
 * real files were still what the old run saw.
 */
#ifndef ARCTURN_SESSION_RUN_H
#define ARCTURN_SESSION_RUN_H

#include <time.h>

#include "session/session.h"

struct run_dir;

struct session_run {
	struct timespec	since;	/* ctime of the mark; the command starts
					   on a later tick of the clock */
	int		cut;	/* begin found a run a restart cut short */
	int		stale;	/* begin found a run that never ended */
	int		unrecorded; /* ... or one that could not record */
	long long	clock;	/* realtime - monotonic at begin (ns) */
	struct run_dir	*dirs;	/* upper/'s directories at begin */
	size_t		ndirs;
};
int	session_run_begin(struct session *s, struct session_run *r);
void	session_run_sweep(struct session *s);
int	session_run_changed(struct session *s, int rootfd,
	    const struct session_run *r);
int	session_run_end(struct session *s, int changed, int recorded);
/*
 * The time a file's ctime must not pass to count as older than the run:
 * since, moved back by as far as the clock was set back while the command
 * ran (ctimes stamped after that are earlier than since, and yet new), so
 * that a real file changed meanwhile is never taken for what the command's
 * change was made on. A clock set back and forward again within the run
 * is not seen.
 */
void	session_run_since(const struct session_run *r, struct timespec *out);
/* Free what begin noted; r may be zeroed. */
void	session_run_free(struct session_run *r);

/* 1 when the last run could not record its bases (the mark incomplete). */
int	session_run_incomplete(const struct session *s);
/*
 * 1 when a restart cut a dry-run command in this session short (the mark
 * `interrupted`, or a `running` mark from another boot not yet settled).
 */
int	session_run_interrupted(const struct session *s);

#endif
