/*
 * writecheck: the write check of every writer (writecheck.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "lib/mem.h"
#include "lib/path.h"
#include "policy/roots.h"
#include "policy/writecheck.h"

static int
verdict(struct policy_verdict *v, enum policy_why why, int err)
{
	v->why = why;
	v->err = err;
	return why == POLICY_OK ? 0 : -1;
}

/* One component: not empty, no '/', not "." or "..", NAME_MAX at most. */
static int
plain_name(const char *name)
{
	size_t n = strlen(name);

	return n > 0 && n <= NAME_MAX && strchr(name, '/') == NULL &&
	    strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

/* Absolute, no "." or ".." component, no empty one, ends in /name. */
static int
clean(const char *lexical, const char *name)
{
	const char *p, *q;
	size_t n, ln = strlen(lexical), nn = strlen(name);

	if (lexical[0] != '/' || ln <= nn || lexical[ln - nn - 1] != '/' ||
	    strcmp(lexical + ln - nn, name) != 0 || ln >= PATH_MAX)
		return 0;
	for (p = lexical + 1; *p != '\0'; p = *q == '/' ? q + 1 : q) {
		q = p + strcspn(p, "/");
		n = (size_t)(q - p);
		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
	}
	return 1;
}

/*
 * Whether dirfd is the folder at the canonical path dir, reached from /
 * without following a symlink: 1 yes, 0 no, -1 with errno.
 */
static int
same_folder(const char *dir, int dirfd)
{
	struct stat a, b;
	char comp[NAME_MAX + 1];
	const char *p, *q;
	size_t n;
	int fd, sub, e;

	if ((fd = openat(AT_FDCWD, "/", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		return -1;
	for (p = dir; *p != '\0'; p = q) {
		while (*p == '/')
			p++;
		q = p + strcspn(p, "/");
		if ((n = (size_t)(q - p)) == 0)
			continue;
		if (n > NAME_MAX) {
			close(fd);
			return 0;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		sub = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		e = errno;
		close(fd);
		if (sub < 0) {
			errno = e;
			/* a symlink or a file where a folder was: another one */
			return errno == ELOOP || errno == ENOTDIR ||
			    errno == ENOENT ? 0 : -1;
		}
		fd = sub;
	}
	if (fstat(fd, &a) < 0 || fstat(dirfd, &b) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int
policy_may_write(const struct roots *r, const char *lexical, int dirfd,
    const char *name, struct policy_verdict *v)
{
	char *parent, *canon = NULL, *full = NULL;
	int e = errno, rc, same;

	memset(v, 0, sizeof *v);
	if (lexical == NULL || name == NULL || !plain_name(name) ||
	    !clean(lexical, name))
		return verdict(v, POLICY_NAME, 0);
	if (roots_deny(r, lexical, &v->d) < 0)
		return verdict(v, POLICY_DENIED, 0);
	if ((parent = mem_strndup(lexical, strlen(lexical) - strlen(name) -
	    1)) == NULL)
		return verdict(v, POLICY_ERROR, errno);
	if (parent[0] == '\0') {
		mem_free(parent);
		parent = mem_strdup("/");
		if (parent == NULL)
			return verdict(v, POLICY_ERROR, errno);
	}
	if ((canon = path_realpath(parent, NULL)) == NULL) {
		/* the folder the path names is gone: not the one opened */
		rc = errno == ENOENT || errno == ENOTDIR || errno == ELOOP ?
		    verdict(v, POLICY_MOVED, 0) : verdict(v, POLICY_ERROR,
		    errno);
		goto out;
	}
	if ((same = same_folder(canon, dirfd)) <= 0) {
		rc = same == 0 ? verdict(v, POLICY_MOVED, 0) :
		    verdict(v, POLICY_ERROR, errno);
		goto out;
	}
	if ((full = path_join(canon, name)) == NULL) {
		rc = verdict(v, POLICY_ERROR, errno);
		goto out;
	}
	if (roots_deny(r, full, &v->d) < 0) {
		v->canonical = 1;
		rc = verdict(v, POLICY_DENIED, 0);
		goto out;
	}
	rc = verdict(v, POLICY_OK, 0);
out:
	mem_free(parent);
	mem_free(canon);
	mem_free(full);
	errno = e;
	return rc;
}

const char *
policy_reason(const struct policy_verdict *v)
{
	switch (v->why) {
	case POLICY_OK:
		return "allowed";
	case POLICY_DENIED:
		return v->d.why == ROOTS_OUTSIDE ? "outside the writable roots" :
		    "protected path";
	case POLICY_MOVED:
		return "a folder on its way changed while it was checked";
	case POLICY_NAME:
		return "not a plain file name";
	case POLICY_ERROR:
		break;
	}
	return "cannot be checked against the policy";
}
