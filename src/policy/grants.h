/*
 * grants: the folders exec creates for grants that do not exist yet, so
 * that `--grant ~/.npm` works on a machine without ~/.npm.
 *
 * config_load puts a missing grant whose canonical path lies strictly
 * beneath the home directory's into p->grants_new (config_file.h); it
 * never writes. exec calls grants_make once it knows that the command
 * will run confined (never for `sandbox status`, nor for a run that is
 * refused): each entry is created, a folder of mode 0700, its missing
 * parents too (each 0700), and moves to p->grants.
 *
 * The walk starts at the home directory (p->home, opened) and goes one
 * component at a time: an existing one is opened with O_NOFOLLOW |
 * O_DIRECTORY, a missing one is made with mkdirat relative to its opened
 * parent and then opened the same way. No symlink beneath home is ever
 * followed: one planted after config_load looked (ELOOP), or a file in
 * the way (ENOTDIR), fails the grant. A folder another process makes
 * meanwhile (EEXIST) is taken as found. The umask does not apply (each
 * new folder is set to 0700 on its fd).
 *
 * Errors: the err/errlen convention (src/STYLE.md): 0, or -1 with errno
 * and one line in err, `grant: PATH: reason`. Folders made before a
 * failure stay (empty, 0700; each was reported through note). p stays
 * valid either way.
 */
#ifndef ARCTURN_GRANTS_H
#define ARCTURN_GRANTS_H

#include <stddef.h>

#include "policy/policy.h"

/* Called once per grant created, with its canonical path. */
typedef void grants_note_fn(const char *path, void *arg);

int	grants_make(struct policy *p, grants_note_fn *note, void *arg,
	    char *err, size_t errlen);

#endif
