/*
 * shadow_base: the real state of a path as a base record (shadow_base.h).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "lib/fsx.h"
#include "lib/hash.h"
#include "lib/mem.h"
#include "lib/os.h"
#include "session/shadow_base.h"

#define PERM(m)		((unsigned int)(m) & 07777)
#define OFLAGS		(O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
#define DFLAGS		(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* The real state of rfd/name as a base record. */
int
shadow_base_now(int rfd, const char *name, struct apply_base *b)
{
	struct stat st;
	char *buf;
	ssize_t n;
	int fd, rc;

	memset(b, 0, sizeof *b);
	if (rfd < 0 || fstatat(rfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (rfd >= 0 && errno != ENOENT && errno != ENOTDIR)
			return -1;
		b->absent = 1;
		return 0;
	}
	b->mode = PERM(st.st_mode);
	if (S_ISDIR(st.st_mode)) {
		b->is_dir = 1;
	} else if (S_ISLNK(st.st_mode)) {
		b->is_link = 1;
		if ((buf = mem_alloc(PATH_MAX)) == NULL)
			return -1;
		n = readlinkat(rfd, name, buf, PATH_MAX);
		if (n < 0) {
			mem_free(buf);
			return -1;
		}
		hash_buf(buf, (size_t)n, b->sha);
		mem_free(buf);
	} else if (S_ISREG(st.st_mode)) {
		if ((fd = openat(rfd, name, OFLAGS)) < 0)
			return -1;
		rc = hash_fd(fd, b->sha);
		fsx_close(fd);
		return rc;
	}
	/* a fifo, socket or device: its kind and mode */
	b->special = st.st_mode & S_IFMT;
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
		memset(b, 0, sizeof *b);
		b->absent = 1;
		return 0;
	}
	rc = shadow_base_now(cur, p, b);
	if (rc == 0 && since != NULL && !b->absent && !b->is_dir &&
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
