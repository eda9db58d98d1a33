/*
 * grants: making the missing grants beneath home (grants.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/fsx.h"
#include "lib/mem.h"
#include "lib/path.h"
#include "policy/grants.h"
#include "policy/strlist.h"

#define DIR_FLAGS	(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

int
grants_make(struct policy *p, grants_note_fn *note, void *arg, char *err,
    size_t errlen)
{
	const char *g, *tail;
	size_t i;
	int home, fd, made, e;

	if (p->grants_new.n == 0)
		return 0;
	if (p->home == NULL ||
	    (home = openat(AT_FDCWD, p->home, DIR_FLAGS & ~O_NOFOLLOW)) < 0) {
		e = p->home == NULL ? ENOENT : errno;
		snprintf(err, errlen, "grant: %s: home directory: %s",
		    p->grants_new.v[0], strerror(e));
		errno = e;
		return -1;
	}
	for (i = 0; i < p->grants_new.n; i++) {
		g = p->grants_new.v[i];
		made = 0;
		if ((tail = path_tail(g, p->home)) == NULL || tail[0] == '\0') {
			e = EINVAL;
			snprintf(err, errlen, "grant: %s: not beneath the home "
			    "directory %s", g, p->home);
			goto fail;
		}
		if ((fd = fsx_open_dirs(home, tail, FSX_DIRS_MAKE, 0700, NULL,
	    &made)) < 0) {
			e = errno;
			snprintf(err, errlen, "grant: %s: %s%s", g, strerror(e),
			    e == ELOOP ? " (a symlink beneath home is not "
			    "followed; create the folder yourself)" : "");
			goto fail;
		}
		close(fd);
		if (made && note != NULL)
			note(g, arg);
		if (!strlist_has(&p->grants, g, strlen(g)) &&
		    strlist_push(&p->grants, mem_strdup(g)) != 0) {
			e = errno;
			snprintf(err, errlen, "grant: %s", strerror(e));
			goto fail;
		}
	}
	strlist_free(&p->grants_new);
	close(home);
	return 0;
fail:
	close(home);
	errno = e;
	return -1;
}
