/*
 * shadow_base: the real state of a path as a base record (shadow_base.h).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "lib/fsx.h"
#include "lib/os.h"
#include "lib/pstate.h"
#include "session/shadow_base.h"

/* The real state of rfd/name as a base record. */
int
shadow_base_now(int rfd, const char *name, struct apply_base *b)
{
	memset(b, 0, sizeof *b);
	if (rfd >= 0 && pstate_read(rfd, name, &b->ps, NULL) < 0) {
		if (errno != ENOTDIR)
			return -1;
		memset(b, 0, sizeof *b);	/* absent */
	}
	return 0;
}

int
shadow_base_real(int rootfd, const char *rel, const struct timespec *since,
    struct apply_base *b)
{
	const char *p;
	struct stat st;
	struct timespec ct;
	int cur, rc;

	if ((cur = fsx_open_dirs(rootfd, rel, FSX_DIRS_PARENT, 0, &p,
	    NULL)) < 0) {
		/* no real directory there: nothing beneath it either */
		if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP)
			return -1;
		memset(b, 0, sizeof *b);	/* absent */
		return 0;
	}
	rc = shadow_base_now(cur, p, b);
	if (rc == 0 && since != NULL && b->ps.kind != PSTATE_ABSENT &&
	    b->ps.kind != PSTATE_DIR &&
	    fstatat(cur, p, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		ct = os_ctime(&st);
		if (ct.tv_sec > since->tv_sec || (ct.tv_sec == since->tv_sec &&
		    ct.tv_nsec > since->tv_nsec)) {
			errno = EAGAIN;
			rc = -1;
		}
	}
	fsx_close(cur);
	return rc;
}
