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
 *			a symlink whose target is the boot id
 *   session_run_sweep	deletes work.old; call it while the command runs
 *   session_run_changed 1 when anything in upper/ changed since the mark
 *			was made (by ctime), when the clock was set meanwhile,
 *			or when begin found an earlier run that never ended;
 *			else 0 (nothing new to record or sync)
 *   session_run_end	opens up the mode-0 dirs overlayfs left (so that
 *			an unprivileged owner can rm -r the session); with
 *			changed, syncs the session's file system; then
 *			renames the mark `idle`, for the next run to rename
 *			back (a rename allocates no inode)
 *
 * A mark from this boot means arcturn itself was killed mid-run: the page
 * cache still holds everything, and a sync settles it. A mark from an
 * earlier boot means a restart cut the run short and part of what it
 * wrote may never have reached the disk: the mark is renamed
 * `interrupted` and stays until the session is removed.
 */
#ifndef ARCTURN_SESSION_RUN_H
#define ARCTURN_SESSION_RUN_H

#include <time.h>

#include "session.h"

struct session_run {
	struct timespec	since;	/* ctime of the mark */
	int		cut;	/* begin found a run a restart cut short */
	int		stale;	/* begin found a run that never ended */
	long long	clock;	/* realtime - monotonic at begin (ns) */
};
int	session_run_begin(struct session *s, struct session_run *r);
void	session_run_sweep(struct session *s);
int	session_run_changed(struct session *s, const struct session_run *r);
int	session_run_end(struct session *s, int changed);
/*
 * 1 when a restart cut a dry-run command in this session short (the mark
 * `interrupted`, or a `running` mark from another boot not yet settled).
 */
int	session_run_interrupted(const struct session *s);

#endif
