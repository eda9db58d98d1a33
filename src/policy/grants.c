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

#include "lib/mem.h"
#include "lib/path.h"
#include "policy/grants.h"
#include "policy/strlist.h"

#define DIR_FLAGS	(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/*
 * Open (making it when missing) each component of tail beneath dirfd.
 * Returns the last one's fd, or -1 with errno; *made is 1 when a folder
 * was made.
 */
static int
walk_make(int dirfd, const char *tail, int *made)
{
	char name[NAME_MAX + 1];
	struct stat st;
	const char *s = tail;
	size_t n;
	int fd = dirfd, next, e, mk;

	while (*s != '\0') {
		n = strcspn(s, "/");
		if (n == 0 || (n == 1 && s[0] == '.') ||
		    (n == 2 && s[0] == '.' && s[1] == '.') || n > NAME_MAX) {
			e = n > NAME_MAX ? ENAMETOOLONG : EINVAL;
			goto fail;
		}
		memcpy(name, s, n);
		name[n] = '\0';
		if ((next = openat(fd, name, DIR_FLAGS)) < 0 && errno == ENOENT) {
			mk = mkdirat(fd, name, 0700) == 0;
			if (mk)
				*made = 1;
			else if (errno != EEXIST) {
				e = errno;
				goto fail;
			}
			if ((next = openat(fd, name, DIR_FLAGS)) >= 0 && mk &&
			    fchmod(next, 0700) < 0) {
				e = errno;
				close(next);
				goto fail;
			}
		}
		if (next < 0) {
			e = errno;
			/* O_DIRECTORY may win over O_NOFOLLOW: say "link" */
			if (e == ENOTDIR && fstatat(fd, name, &st,
			    AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
				e = ELOOP;
			goto fail;
		}
		if (fd != dirfd)
			close(fd);
		fd = next;
		s += n;
		while (*s == '/')
			s++;
	}
	return fd;
fail:
	if (fd != dirfd)
		close(fd);
	errno = e;
	return -1;
}

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
	    (home = open(p->home, DIR_FLAGS & ~O_NOFOLLOW)) < 0) {
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
		if ((fd = walk_make(home, tail, &made)) < 0) {
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
