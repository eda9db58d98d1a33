/*
 * shadow_base: what a base record says of a real path now (the record
 * format is session_base.h's). Write and edit record a path's base from
 * it before their first change of the path (shadow.h); exec --dry-run
 * records the bases of what a command changed from it right after the
 * command ends (changes_base.h), and apply compares against what it gave.
 *
 * Both read the real workspace only (never upper/), without following a
 * symlink, and return 0 or -1 with errno (besides the errors of stat,
 * open and read: ENAMETOOLONG for a path component over NAME_MAX, EAGAIN
 * as below).
 */
#ifndef ARCTURN_SHADOW_BASE_H
#define ARCTURN_SHADOW_BASE_H

#include <time.h>

#include "apply/apply.h"

/*
 * shadow_base_now: the real state of rfd/name now, as a base
 * record (rfd -1, or a missing name: absent; a fifo, socket or device:
 * its kind and mode). shadow_base_real: the real state of rel beneath
 * rootfd now, walking real directories only: a parent that is a symlink
 * or no directory makes rel absent (the change then stands where that
 * non-directory was removed first). With since non-NULL, a real object
 * whose ctime is after *since is not what a dry run saw when it started:
 * EAGAIN (the run's command starts on a later tick than since: see
 * session_run_begin).
 */
int	shadow_base_now(int rfd, const char *name, struct apply_base *);
int	shadow_base_real(int rootfd, const char *rel,
	    const struct timespec *since, struct apply_base *);

#endif
