/*
 * grants on Windows: a missing grant is not created yet (grants.h); it
 * stays the error it is elsewhere for a path outside home.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "policy/grants.h"

int
grants_make(struct policy *p, grants_note_fn *note, void *arg, char *err,
    size_t errlen)
{
	(void)note;
	(void)arg;
	if (p->grants_new.n == 0)
		return 0;
	snprintf(err, errlen, "grant: %s: %s; create it first",
	    p->grants_new.v[0], strerror(ENOENT));
	errno = ENOENT;
	return -1;
}
