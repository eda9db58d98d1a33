/*
 * pstate: what stands at a path (pstate.h).
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
#include "lib/pstate.h"

static const struct {
	const char	*name;
	unsigned int	 fmt;
} kinds[] = {
	[PSTATE_ABSENT] = { "absent", 0 },
	[PSTATE_FILE] = { "file", S_IFREG },
	[PSTATE_LINK] = { "link", S_IFLNK },
	[PSTATE_DIR] = { "dir", S_IFDIR },
	[PSTATE_FIFO] = { "fifo", S_IFIFO },
	[PSTATE_SOCK] = { "sock", S_IFSOCK },
	[PSTATE_CHR] = { "chr", S_IFCHR },
	[PSTATE_BLK] = { "blk", S_IFBLK }
};
#define NKINDS	(sizeof kinds / sizeof kinds[0])

int
pstate_kind_of(unsigned int mode)
{
	size_t k;

	for (k = PSTATE_FILE; k < NKINDS; k++)
		if ((mode & S_IFMT) == kinds[k].fmt)
			return (int)k;
	return -1;
}

const char *
pstate_kind_name(enum pstate_kind k)
{
	return (unsigned int)k < NKINDS ? kinds[k].name : "?";
}

int
pstate_kind_parse(const char *word)
{
	size_t k;

	for (k = 0; k < NKINDS; k++)
		if (strcmp(word, kinds[k].name) == 0)
			return (int)k;
	return -1;
}

int
pstate_special(const struct pstate *s)
{
	return s->kind == PSTATE_FIFO || s->kind == PSTATE_SOCK ||
	    s->kind == PSTATE_CHR || s->kind == PSTATE_BLK;
}

int
pstate_same(const struct pstate *a, const struct pstate *b)
{
	if (a->kind != b->kind)
		return 0;
	if (a->kind == PSTATE_ABSENT)
		return 1;
	if (a->kind != PSTATE_LINK && a->mode != b->mode)
		return 0;
	if (a->kind == PSTATE_FILE || a->kind == PSTATE_LINK)
		return memcmp(a->sha, b->sha, HASH_LEN) == 0;
	return 1;
}

/* Kind and mode from a stat. */
static int
from_stat(struct pstate *s, const struct stat *st)
{
	int k;

	if ((k = pstate_kind_of((unsigned int)st->st_mode)) < 0) {
		errno = EINVAL;
		return -1;
	}
	s->kind = (enum pstate_kind)k;
	s->mode = (unsigned int)st->st_mode & 07777;
	return 0;
}

int
pstate_read(int dirfd, const char *name, struct pstate *s,
    struct pstate_look *lk)
{
	char buf[PATH_MAX], *target;
	struct stat st, ost;
	ssize_t n;
	int fd;

	memset(s, 0, sizeof *s);
	if (lk != NULL) {
		memset(&lk->st, 0, sizeof lk->st);
		lk->fd = -1;
		lk->replaced = 0;
	}
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (from_stat(s, &st) < 0)
		return -1;
	if (s->kind == PSTATE_LINK) {
		target = lk != NULL && lk->target != NULL ? lk->target : buf;
		if ((n = readlinkat(dirfd, name, target, PATH_MAX)) < 0)
			return -1;
		if (n >= PATH_MAX) {
			errno = ENAMETOOLONG;
			return -1;
		}
		target[n] = '\0';
		hash_buf(target, (size_t)n, s->sha);
	} else if (s->kind == PSTATE_FILE) {
		if ((fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW |
		    O_NONBLOCK | O_CLOEXEC)) < 0)
			return -1;
		/* judge what we hash, not what fstatat saw a moment ago */
		if (fstat(fd, &ost) < 0 || from_stat(s, &ost) < 0 ||
		    (s->kind == PSTATE_FILE && hash_fd(fd, s->sha) < 0)) {
			fsx_close(fd);
			return -1;
		}
		if (lk != NULL) {
			lk->replaced = ost.st_dev != st.st_dev ||
			    ost.st_ino != st.st_ino;
			lk->fd = fd;
		} else
			close(fd);
		st = ost;
	}
	if (lk != NULL)
		lk->st = st;
	return 0;
}
