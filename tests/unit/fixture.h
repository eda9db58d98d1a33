/*
 * fixture: what the file-system unit tests share (after tap.h): a temp
 * dir for the run, rm -rf, small files put and read back, and counts of
 * directory entries and open fds. Every helper CHECKs what it does, so a
 * broken fixture fails the test that uses it. All static inline: a test
 * uses what it needs.
 */
#ifndef ARCTURN_FIXTURE_H
#define ARCTURN_FIXTURE_H

#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

/* Make $TMPDIR/name.XXXXXX (or under /tmp) into buf. */
static inline void
fx_tmpdir(char buf[PATH_MAX], const char *name)
{
	const char *t = getenv("TMPDIR");

	snprintf(buf, PATH_MAX, "%s/%s.XXXXXX", t != NULL && *t ? t : "/tmp",
	    name);
	CHECK(mkdtemp(buf) != NULL);
}

static inline int
fx_rm_cb(const char *p, const struct stat *st, int type, struct FTW *f)
{
	if (type == FTW_DP)
		chmod(p, 0700);
	remove(p);
	return 0;
}

/* rm -rf path, opening up mode-0 directories on the way. */
static inline void
fx_rm_rf(const char *path)
{
	nftw(path, fx_rm_cb, 32, FTW_DEPTH | FTW_PHYS);
}

/* Make the missing parents of dirfd/rel (0755). */
static inline void
fx_mkparents(int dirfd, const char *rel)
{
	char p[PATH_MAX], *s;

	snprintf(p, sizeof p, "%s", rel);
	for (s = p + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (mkdirat(dirfd, p, 0755) < 0)
			CHECK(errno == EEXIST);
		*s = '/';
	}
}

/* dirfd/rel becomes a new regular file holding text, with mode. */
static inline void
fx_put(int dirfd, const char *rel, const char *text, mode_t mode)
{
	int fd;

	fx_mkparents(dirfd, rel);
	unlinkat(dirfd, rel, 0);
	CHECK((fd = openat(dirfd, rel, O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC, mode)) >= 0);
	CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	CHECK(fchmod(fd, mode) == 0);
	CHECK(close(fd) == 0);
}

/* The content of dirfd/rel, NUL-terminated in buf: its length, or -1. */
static inline ssize_t
fx_read(int dirfd, const char *rel, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	if ((fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return n;
}

/* Whether dirfd/rel exists (a dangling symlink does). */
static inline int
fx_exists(int dirfd, const char *rel)
{
	struct stat st;

	return fstatat(dirfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Entries of dir (not . and ..) whose name starts with prefix ("": all). */
static inline int
fx_count(int dirfd, const char *dir, const char *prefix)
{
	struct dirent *e;
	DIR *d;
	int n = 0, fd;

	CHECK((fd = openat(dirfd, dir, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) >= 0);
	CHECK((d = fdopendir(fd)) != NULL);
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 &&
		    strcmp(e->d_name, "..") != 0 &&
		    strncmp(e->d_name, prefix, strlen(prefix)) == 0)
			n++;
	closedir(d);
	return n;
}

/* Open fds of this process (leak checks around a call). */
static inline int
fx_count_fds(void)
{
	return fx_count(AT_FDCWD, "/proc/self/fd", "");
}

#endif
