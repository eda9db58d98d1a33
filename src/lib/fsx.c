#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

#include "lib/fsx.h"
#include "lib/hash.h"
#include "lib/mem.h"
#include "lib/os.h"
#include "lib/readall.h"

/* Directories crossed on the way need search permission only. */
#define WALK_DIR	(os_o_path | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

#define MAX_LINKS	40

static int force_walk;

void
fsx_force_walk(int on)
{
	force_walk = on;
}

void
fsx_close(int fd)
{
	int saved = errno;

	if (fd >= 0)
		close(fd);
	errno = saved;
}

/*
 * Take the next component off *pp: its start and length. Empty and "."
 * components are skipped. Returns 0 when nothing is left.
 */
static size_t
next_comp(const char **pp, const char **comp)
{
	const char *p = *pp, *e;

	for (;;) {
		while (*p == '/')
			p++;
		if (*p == '\0') {
			*pp = p;
			return 0;
		}
		for (e = p; *e != '\0' && *e != '/'; e++)
			;
		if (e - p == 1 && p[0] == '.') {
			p = e;
			continue;
		}
		*comp = p;
		*pp = e;
		return (size_t)(e - p);
	}
}

static int
only_slashes_or_dots(const char *p)
{
	const char *c;

	return next_comp(&p, &c) == 0;
}

/* Open the chain of real directories in real (a '/'-joined list) again. */
static int
rewalk(int rootfd, const char *real)
{
	const char *p = real, *c;
	char name[NAME_MAX + 1];
	size_t n;
	int cur, fd;

	if ((cur = openat(rootfd, ".", WALK_DIR)) < 0)
		return -1;
	while ((n = next_comp(&p, &c)) != 0) {
		memcpy(name, c, n);
		name[n] = '\0';
		fd = openat(cur, name, WALK_DIR);
		fsx_close(cur);
		if (fd < 0)
			return -1;
		cur = fd;
	}
	return cur;
}

/*
 * The portable resolver. rest holds what is left to resolve; a relative
 * symlink's target is spliced in front of it, with the directory holding
 * the link as the starting point. real records the directories entered
 * from root, so ".." goes back along the path actually walked and never
 * above root, even if a directory is renamed meanwhile.
 */
static int
walk(int rootfd, const char *rel, int flags, mode_t mode)
{
	char rest[PATH_MAX], tmp[PATH_MAX], real[PATH_MAX];
	char name[NAME_MAX + 1], target[PATH_MAX];
	const char *p, *c;
	size_t n, rlen = 0, tl;
	int cur, fd, links = 0, last;
	ssize_t ll;
	struct stat st;

	if (rel[0] == '/') {
		errno = EXDEV;
		return -1;
	}
	if (rel[0] == '\0') {
		errno = ENOENT;
		return -1;
	}
	if (strlen(rel) >= sizeof rest) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(rest, rel);
	real[0] = '\0';
	if ((cur = openat(rootfd, ".", WALK_DIR)) < 0)
		return -1;
	p = rest;
	for (;;) {
		n = next_comp(&p, &c);
		if (n == 0) {
			/* The path named a directory already entered. */
			fd = openat(cur, ".", (flags & ~O_NOFOLLOW) | O_CLOEXEC,
			    mode);
			fsx_close(cur);
			return fd;
		}
		if (n > NAME_MAX) {
			errno = ENAMETOOLONG;
			goto fail;
		}
		memcpy(name, c, n);
		name[n] = '\0';
		last = *p == '\0';	/* "a/" and "a/." must be directories */
		if (strcmp(name, "..") == 0) {
			char *s;

			if (rlen == 0) {
				errno = EXDEV;
				goto fail;
			}
			s = strrchr(real, '/');
			rlen = s ? (size_t)(s - real) : 0;
			real[rlen] = '\0';
			close(cur);
			if ((cur = rewalk(rootfd, real)) < 0)
				return -1;
			continue;
		}
		if (!last) {
			fd = openat(cur, name, WALK_DIR);
			if (fd >= 0) {
				if (rlen + 1 + n >= sizeof real) {
					close(fd);
					errno = ENAMETOOLONG;
					goto fail;
				}
				if (rlen > 0)
					real[rlen++] = '/';
				memcpy(real + rlen, name, n + 1);
				rlen += n;
				close(cur);
				cur = fd;
				continue;
			}
			if (errno != ELOOP && errno != ENOTDIR)
				goto fail;
		} else if ((flags & O_NOFOLLOW) ||
		    (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) {
			/* O_EXCL never follows a link: EEXIST. */
			fd = openat(cur, name, flags | O_CLOEXEC, mode);
			fsx_close(cur);
			return fd;
		}
		/* Either a symlink to follow, or not one at all. */
		ll = readlinkat(cur, name, target, sizeof target);
		if (ll < 0) {
			if (!last) {
				if (errno != EINVAL)
					goto fail;
				/* Swapped between the two calls: look again. */
				if (fstatat(cur, name, &st,
				    AT_SYMLINK_NOFOLLOW) == 0 &&
				    (S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode)))
					goto again;
				errno = ENOTDIR;
				goto fail;
			}
			if (errno != EINVAL && errno != ENOENT)
				goto fail;
			fd = openat(cur, name, flags | O_NOFOLLOW | O_CLOEXEC,
			    mode);
			if (fd < 0 && errno == ELOOP)
				goto again;	/* became a link meanwhile */
			if (fd >= 0 && fstat(fd, &st) == 0 &&
			    S_ISLNK(st.st_mode)) {
				close(fd);
				goto again;
			}
			fsx_close(cur);
			return fd;
		again:
			if (++links > MAX_LINKS) {
				errno = ELOOP;
				goto fail;
			}
			p = c;		/* look at the same name again */
			continue;
		}
		if ((size_t)ll >= sizeof target) {
			errno = ENAMETOOLONG;
			goto fail;
		}
		target[ll] = '\0';
		if (++links > MAX_LINKS) {
			errno = ELOOP;
			goto fail;
		}
		if (ll == 0) {
			errno = ENOENT;
			goto fail;
		}
		if (target[0] == '/') {
			errno = EXDEV;
			goto fail;
		}
		tl = (size_t)ll;
		if (tl + 1 + strlen(p) >= sizeof tmp) {
			errno = ENAMETOOLONG;
			goto fail;
		}
		memcpy(tmp, target, tl);
		tmp[tl] = '/';
		strcpy(tmp + tl + 1, p);
		if (*p == '\0')
			tmp[tl] = '\0';
		strcpy(rest, tmp);
		p = rest;
	}
fail:
	fsx_close(cur);
	return -1;
}

int
fsx_open_beneath(int rootfd, const char *rel, int flags, mode_t mode)
{
	int fd;

	if (!force_walk) {
		fd = os_open_beneath(rootfd, rel, flags, mode);
		/*
		 * ELOOP: the walk decides. This kernel's openat2 gives up on
		 * 17 to 40 links to "." followed by ".." (6.18: ELOOP where
		 * the walk finds the escape, EXDEV, or the file), so the two
		 * methods would answer apart; the walk counts 40 links as
		 * the kernel documents it.
		 */
		if (fd >= 0 || (errno != ENOSYS && errno != ELOOP))
			return fd;
	}
	return walk(rootfd, rel, flags, mode);
}

/* Open a directory we may have to fsync; search permission is enough. */
static int
open_dir_beneath(int rootfd, const char *rel)
{
	int fd;

	fd = fsx_open_beneath(rootfd, rel, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0 && errno == EACCES && os_o_path != O_RDONLY)
		fd = fsx_open_beneath(rootfd, rel, os_o_path | O_DIRECTORY, 0);
	return fd;
}

int
fsx_open_parent(int rootfd, const char *rel, int mkdirs, const char **base)
{
	char dir[PATH_MAX];
	const char *b, *p, *c;
	size_t dl, n;
	int fd, pfd;

	b = strrchr(rel, '/');
	b = b ? b + 1 : rel;
	if (*b == '\0' || strcmp(b, ".") == 0 || strcmp(b, "..") == 0) {
		errno = EINVAL;
		return -1;
	}
	dl = (size_t)(b - rel);
	if (dl >= sizeof dir) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(dir, rel, dl);
	dir[dl] = '\0';
	if (only_slashes_or_dots(dir)) {
		if (rel[0] == '/') {
			errno = EXDEV;
			return -1;
		}
		strcpy(dir, ".");
	}
	fd = open_dir_beneath(rootfd, dir);
	if (fd >= 0 || errno != ENOENT || !mkdirs) {
		if (fd >= 0)
			*base = b;
		return fd;
	}

	/*
	 * Create what is missing, one level at a time, each mkdirat in a
	 * directory already resolved beneath root.
	 */
	if ((pfd = openat(rootfd, ".", WALK_DIR)) < 0)
		return -1;
	p = dir;
	while ((n = next_comp(&p, &c)) != 0) {
		char name[NAME_MAX + 1], save;

		if (n > NAME_MAX) {
			errno = ENAMETOOLONG;
			goto fail;
		}
		memcpy(name, c, n);
		name[n] = '\0';
		save = *p;
		dir[p - dir] = '\0';
		fd = fsx_open_beneath(rootfd, dir, WALK_DIR & ~O_NOFOLLOW, 0);
		if (fd < 0 && errno == ENOENT && strcmp(name, "..") != 0) {
			if (mkdirat(pfd, name, 0755) < 0 && errno != EEXIST)
				goto fail;
			fd = fsx_open_beneath(rootfd, dir,
			    WALK_DIR & ~O_NOFOLLOW, 0);
		}
		dir[p - dir] = save;
		if (fd < 0)
			goto fail;
		close(pfd);
		pfd = fd;
	}
	fsx_close(pfd);
	fd = open_dir_beneath(rootfd, dir);
	if (fd >= 0)
		*base = b;
	return fd;
fail:
	fsx_close(pfd);
	return -1;
}

int
fsx_read_line(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	/* openat: musl's open(2) adds an fcntl for O_CLOEXEC (old kernels) */
	if ((fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, len - 1);
	fsx_close(fd);
	if (n < 0)
		return -1;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return 0;
}

int
fsx_regular(int fd)
{
	struct stat st;
	int e;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = EINVAL;
	else
		return fd;
	fsx_close(fd);
	errno = e;
	return -1;
}

int
fsx_read_all(int dirfd, const char *name, size_t max, char **bufp,
    size_t *lenp)
{
	int fd, rc;

	if ((fd = fsx_regular(openat(dirfd, name, O_RDONLY | O_NONBLOCK |
	    O_NOFOLLOW | O_CLOEXEC))) < 0)
		return -1;
	rc = readall_fd(fd, max, bufp, lenp);
	fsx_close(fd);
	return rc;
}

/* The next name of a walk: its length, 0 at the end; -1 with errno. */
static ssize_t
dirs_next(const char **sp, const char *end, char name[NAME_MAX + 1])
{
	const char *s = *sp;
	size_t n;

	while (s < end && *s == '/')
		s++;
	for (n = 0; s + n < end && s[n] != '/'; n++)
		;
	*sp = s + n;
	if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.')) {
		errno = EINVAL;
		return -1;
	}
	if (n > NAME_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(name, s, n);
	name[n] = '\0';
	return (ssize_t)n;
}

int
fsx_open_dirs(int dirfd, const char *rel, int flags, mode_t mode,
    const char **base, int *made)
{
	const int dflags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	char name[NAME_MAX + 1];
	const char *s = rel, *end, *at = NULL;
	struct stat st;
	ssize_t n;
	int fd, next, e, mk;

	if (base != NULL)
		*base = NULL;
	if (made != NULL)
		*made = 0;
	end = rel + strlen(rel);
	if (flags & FSX_DIRS_PARENT) {
		end = strrchr(rel, '/');
		end = end != NULL ? end : rel;
		at = *end == '/' ? end + 1 : end;
		if (*at == '\0' || strcmp(at, ".") == 0 || strcmp(at, "..") == 0) {
			errno = EINVAL;
			return -1;
		}
	}
	if (*rel == '/' || *rel == '\0') {
		errno = EINVAL;
		return -1;
	}
	if ((fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0)) < 0)
		return -1;
	for (;;) {
		while (s < end && *s == '/')
			s++;
		at = s;
		if ((n = dirs_next(&s, end, name)) <= 0)
			break;
		mk = 0;
		next = openat(fd, name, dflags);
		if (next < 0 && errno == ENOENT && (flags & FSX_DIRS_MAKE)) {
			mk = mkdirat(fd, name, mode) == 0;
			if (!mk && errno != EEXIST)
				goto fail;
			next = openat(fd, name, dflags);
			if (next >= 0 && mk && fchmod(next, mode) < 0) {
				fsx_close(next);
				goto fail;
			}
		}
		/* a folder we may search but not list: as a place to start */
		if (next < 0 && errno == EACCES && os_o_path != O_RDONLY)
			next = openat(fd, name, os_o_path | dflags);
		if (next < 0) {
			/* O_DIRECTORY may win over O_NOFOLLOW: say "link" */
			if (errno == ENOTDIR && fstatat(fd, name, &st,
			    AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
				errno = ELOOP;
			goto fail;
		}
		if (mk && made != NULL)
			*made = 1;
		close(fd);
		fd = next;
	}
	if (n == 0) {
		if (base != NULL && (flags & FSX_DIRS_PARENT))
			*base = *end == '/' ? end + 1 : end;
		return fd;
	}
fail:
	e = errno;
	close(fd);
	if (base != NULL)
		*base = at;
	errno = e;
	return -1;
}

int
fsx_chmod_nofollow(int dirfd, const char *name, mode_t mode)
{
	int fd;

	if (os_chmod_pinned(dirfd, name, mode) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
	/* No O_PATH or /proc: open the object itself, never through a link. */
	if ((fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) < 0)
		return -1;
	if (fchmod(fd, mode) < 0) {
		fsx_close(fd);
		return -1;
	}
	fsync(fd);
	close(fd);
	return 0;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
fsx_names_free(char **v, size_t n)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		mem_free(v[i]);
	mem_free(v);
}

/* Add a copy of name to *v (n entries, cap slots): 0 or -1. */
static int
list_add(char ***v, size_t *n, size_t *cap, const char *name)
{
	char **nv;

	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 32;
		if ((nv = mem_reallocarray(*v, *cap, sizeof **v)) == NULL)
			return -1;
		*v = nv;
	}
	if (((*v)[*n] = mem_strdup(name)) == NULL)
		return -1;
	(*n)++;
	return 0;
}

static int
dots(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

#ifdef __linux__
/*
 * The kernel's records, read with getdents64(2) into a buffer of ours:
 * musl's opendir allocates a DIR of its own size class, and a walk of
 * thousands of folders mapped and unmapped a page group for each one.
 */
struct dent64 {
	unsigned long long	d_ino;
	long long		d_off;
	unsigned short		d_reclen;
	unsigned char		d_type;
	char			d_name[];
};

static int
list_fd(int fd, int dirfd, int (*keep)(int, const char *, void *),
    void *arg, char ***v, size_t *n, size_t *cap)
{
	const size_t size = 16384;
	struct dent64 *e;
	char *buf;
	long got, off;
	int rc = -1;

	if ((buf = mem_alloc(size)) == NULL)
		return -1;
	for (;;) {
		if ((got = syscall(SYS_getdents64, fd, buf, size)) < 0) {
			if (errno == EINTR)
				continue;
			goto out;
		}
		if (got == 0)
			break;
		for (off = 0; off < got; off += e->d_reclen) {
			e = (struct dent64 *)(void *)(buf + off);
			if (dots(e->d_name) ||
			    (keep != NULL && !keep(dirfd, e->d_name, arg)))
				continue;
			if (list_add(v, n, cap, e->d_name) < 0)
				goto out;
		}
	}
	rc = 0;
out:
	mem_free(buf);
	return rc;
}
#else
static int
list_fd(int fd, int dirfd, int (*keep)(int, const char *, void *),
    void *arg, char ***v, size_t *n, size_t *cap)
{
	struct dirent *e;
	DIR *d;
	int saved, rc = 0, dfd;

	if ((dfd = dup(fd)) < 0)
		return -1;
	if ((d = fdopendir(dfd)) == NULL) {
		fsx_close(dfd);
		return -1;
	}
	while (rc == 0 && (errno = 0, e = readdir(d)) != NULL)
		if (!dots(e->d_name) &&
		    (keep == NULL || keep(dirfd, e->d_name, arg)))
			rc = list_add(v, n, cap, e->d_name);
	if (rc == 0 && errno != 0)
		rc = -1;
	saved = errno;
	closedir(d);
	errno = saved;
	return rc;
}
#endif

int
fsx_list(int dirfd, int (*keep)(int, const char *, void *), void *arg,
    char ***namesp, size_t *np)
{
	char **v = NULL;
	size_t n = 0, cap = 0;
	int fd, saved;

	*namesp = NULL;
	*np = 0;
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (list_fd(fd, dirfd, keep, arg, &v, &n, &cap) < 0) {
		saved = errno;
		fsx_close(fd);
		fsx_names_free(v, n);
		errno = saved;
		return -1;
	}
	fsx_close(fd);
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_names);
	*namesp = v;
	*np = n;
	return 0;
}

int
fsx_tick_past(int dirfd, const char *name, const struct timespec *t)
{
	struct timespec ms = { 0, 1000000 }, c;
	struct stat st;
	int i;

	for (i = 0; i < 2000; i++) {
		if (utimensat(dirfd, name, NULL, AT_SYMLINK_NOFOLLOW) < 0 ||
		    fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return -1;
		c = os_ctime(&st);
		if (c.tv_sec > t->tv_sec ||
		    (c.tv_sec == t->tv_sec && c.tv_nsec > t->tv_nsec))
			return 0;
		nanosleep(&ms, NULL);
	}
	errno = ETIMEDOUT;
	return -1;
}
