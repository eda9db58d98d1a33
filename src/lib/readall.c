/*
 * readall: a whole file into memory (readall.h).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "lib/mem.h"
#include "lib/readall.h"

/* readall_fd, with st the fd's fstat when it is a regular file (or NULL) */
static int
read_sized(int fd, const struct stat *st, size_t max, char **bufp,
    size_t *lenp)
{
	char *buf = NULL, *nb, probe;
	size_t len = 0, cap = 4096;
	ssize_t n;

	if (st != NULL) {
		if ((size_t)st->st_size > max) {
			errno = EFBIG;
			return -1;
		}
		cap = (size_t)st->st_size + 1;
	}
	if ((buf = mem_alloc(cap)) == NULL)
		return -1;
	for (;;) {
		if (len + 1 == cap) {
			/* Full (as fstat said): grow only if there is more. */
			n = read(fd, &probe, 1);
			if (n == 0)
				break;
			if (n < 0) {
				if (errno == EINTR)
					continue;
				goto fail;
			}
			if (len + 1 > max) {
				errno = EFBIG;
				goto fail;
			}
			if ((nb = mem_realloc(buf, cap * 2)) == NULL)
				goto fail;
			buf = nb;
			cap *= 2;
			buf[len++] = probe;
			continue;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max) {
		errno = EFBIG;
		goto fail;
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
fail:
	mem_free(buf);
	return -1;
}

int
readall_fd(int fd, size_t max, char **bufp, size_t *lenp)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		return read_sized(fd, &st, max, bufp, lenp);
	return read_sized(fd, NULL, max, bufp, lenp);
}

int
readall_path(const char *path, size_t max, char **bufp, size_t *lenp)
{
	struct stat st;
	int fd, rc, e;

	if ((fd = openat(AT_FDCWD, path, O_RDONLY | O_NONBLOCK |
	    O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		rc = -1;
	else if (!S_ISREG(st.st_mode)) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		rc = -1;
	} else
		rc = read_sized(fd, &st, max, bufp, lenp);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}
