/*
 * checkpoint_state: what a path is now (checkpoint.h: ckpt_state), the
 * blobs that keep its bytes, and the entries of a turn.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint/checkpoint.h"
#include "checkpoint/checkpoint_impl.h"
#include "lib/fsx.h"
#include "lib/mem.h"
#include "lib/os.h"

/*
 * A blob of that name already, whole and sound: its size and its bytes'
 * hash. A damaged one (bit rot, a bad sector, cut short by a crash) is
 * not: the caller stores the content again, over it.
 */
static int
have_blob(struct ckpt *c, const char *hex, off_t size,
    const unsigned char sha[HASH_LEN])
{
	struct stat st;
	int fd, ok;

	if ((fd = openat(c->blobsfd, hex, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) < 0)
		return 0;
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size == size && hash_fd_is(fd, sha) == 1;
	close(fd);
	return ok;
}

/*
 * Store the bytes of the regular file fd (sha: their hash) as a blob. A
 * blob of that name stays (it may be another thread's, not synced yet)
 * unless it does not hold those bytes: then it is replaced.
 */
static int
blob_fd(struct ckpt *c, int fd, unsigned char sha[HASH_LEN])
{
	char hex[HASH_HEXLEN + 1], tmp[FSX_TMP_NAMELEN + 1];
	struct stat st;
	int tfd = -1, rc;

	hash_hex(sha, hex);
	if (fstat(fd, &st) == 0 && have_blob(c, hex, st.st_size, sha))
		return 0;
	if (fsx_tmp_file(c->blobsfd, fd, 0600, tmp, &st, c->lazy ? &tfd :
	    NULL) < 0)
		return -1;
	if (tfd >= 0) {
		os_start_writeback(tfd);
		close(tfd);
	}
	/* named by what it holds, even if the file changed meanwhile */
	if ((tfd = openat(c->blobsfd, tmp, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0 || hash_fd(tfd, sha) < 0) {
		fsx_close(tfd);
		unlinkat(c->blobsfd, tmp, 0);
		return -1;
	}
	close(tfd);
	hash_hex(sha, hex);
	rc = fsx_rename_noreplace(c->blobsfd, tmp, hex);
	if (rc < 0 && errno == EEXIST) {
		if (have_blob(c, hex, st.st_size, sha)) {
			unlinkat(c->blobsfd, tmp, 0);	/* stored meanwhile */
			return 0;
		}
		rc = renameat(c->blobsfd, tmp, c->blobsfd, hex);
	}
	if (rc < 0) {
		unlinkat(c->blobsfd, tmp, 0);
		return -1;
	}
	/* stores run from several threads (keep.h): one value, no race */
	__atomic_store_n(&c->dirty, 1, __ATOMIC_RELAXED);
	return 0;
}

static int
blob_buf(struct ckpt *c, const void *buf, size_t len,
    const unsigned char sha[HASH_LEN])
{
	char hex[HASH_HEXLEN + 1];

	hash_hex(sha, hex);
	if (have_blob(c, hex, (off_t)len, sha))
		return 0;
	return fsx_write_atomic(c->blobsfd, hex, buf, len, 0600, 0);
}

int
ckpt_holds(struct ckpt *c, int dirfd, const char *name)
{
	struct ckpt_state s;
	char hex[HASH_HEXLEN + 1];
	int fd, ok;

	if (ckpt_state(c, dirfd, name, 0, &s) < 0)
		return -1;
	if (s.kind != CKPT_FILE && s.kind != CKPT_LINK)
		return 0;
	hash_hex(s.sha, hex);
	if ((fd = fsx_regular(openat(c->blobsfd, hex, O_RDONLY | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC))) < 0)
		return errno == ENOENT || errno == EINVAL ? 0 : -1;
	ok = hash_fd_is(fd, s.sha) == 1;
	close(fd);
	return ok;
}

int
ckpt_state(struct ckpt *c, int rootfd, const char *rel, int store,
    struct ckpt_state *s)
{
	char target[PATH_MAX + 1];
	const char *base;
	struct stat st, st2;
	ssize_t n;
	int dfd, fd = -1, rc = -1;

	memset(s, 0, sizeof *s);
	/* never through a link: beneath one, the path is absent */
	if ((dfd = fsx_open_dirs(rootfd, rel, FSX_DIRS_PARENT, 0, &base,
	    NULL)) < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP) {
			s->kind = CKPT_ABSENT;
			return 0;
		}
		return -1;
	}
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT) {
			s->kind = CKPT_ABSENT;
			rc = 0;
		}
		goto out;
	}
	s->mode = st.st_mode & 07777;
	if (S_ISLNK(st.st_mode)) {
		s->kind = CKPT_LINK;
		if ((n = readlinkat(dfd, base, target, sizeof target)) < 0)
			goto out;
		if ((size_t)n >= sizeof target) {
			errno = ENAMETOOLONG;
			goto out;
		}
		hash_buf(target, (size_t)n, s->sha);
		rc = store ? blob_buf(c, target, (size_t)n, s->sha) : 0;
	} else if (S_ISREG(st.st_mode)) {
		s->kind = CKPT_FILE;
		if ((fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC)) < 0 || fstat(fd, &st2) < 0)
			goto out;
		if (st2.st_ino != st.st_ino || !S_ISREG(st2.st_mode)) {
			errno = EAGAIN;	/* replaced meanwhile */
			goto out;
		}
		if (hash_fd(fd, s->sha) < 0)
			goto out;
		rc = store ? blob_fd(c, fd, s->sha) : 0;
	} else {
		s->kind = S_ISDIR(st.st_mode) ? CKPT_DIR : CKPT_OTHER;
		rc = 0;
	}
out:
	fsx_close(fd);
	fsx_close(dfd);
	return rc;
}

int
ckpt_same(const struct ckpt_state *a, const struct ckpt_state *b)
{
	if (a->kind != b->kind)
		return 0;
	if (a->kind == CKPT_ABSENT)
		return 1;
	if ((a->kind == CKPT_FILE || a->kind == CKPT_DIR) &&
	    a->mode != b->mode)
		return 0;
	return memcmp(a->sha, b->sha, HASH_LEN) == 0;
}

struct ckpt_entry *
ckpt_find(struct ckpt_turn *t, const char *rel)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->e[i].path, rel) == 0)
			return &t->e[i];
	return NULL;
}

int
ckpt_add(struct ckpt_turn *t, const char *rel,
    const struct ckpt_state *before, const struct ckpt_state *after)
{
	struct ckpt_entry *e;
	char *p;

	if ((p = mem_strdup(rel)) == NULL)
		return -1;
	if ((e = mem_reallocarray(t->e, t->n + 1, sizeof *e)) == NULL) {
		mem_free(p);
		return -1;
	}
	t->e = e;
	e[t->n].path = p;
	e[t->n].before = *before;
	e[t->n].after = *after;
	t->n++;
	return 0;
}

/*
 * The missing folders above rel, topmost first, each absent before. A
 * folder that exists ends the walk up: those above it exist too.
 */
static int
snapshot_parents(struct ckpt *c, struct ckpt_turn *t, int rootfd,
    const char *rel)
{
	struct ckpt_state s;
	char *dir, *slash;
	size_t first = t->n, i;
	int rc = -1;

	if ((dir = mem_strdup(rel)) == NULL)
		return -1;
	while ((slash = strrchr(dir, '/')) != NULL) {
		*slash = '\0';
		if (ckpt_find(t, dir) != NULL)
			break;
		if (ckpt_state(c, rootfd, dir, 0, &s) < 0)
			goto out;
		if (s.kind != CKPT_ABSENT)
			break;
		if (ckpt_add(t, dir, &s, &s) < 0)
			goto out;
	}
	/* topmost first, as a record lists what was made */
	for (i = 0; t->n > first && first + i < t->n - 1 - i; i++) {
		struct ckpt_entry tmp = t->e[first + i];

		t->e[first + i] = t->e[t->n - 1 - i];
		t->e[t->n - 1 - i] = tmp;
	}
	rc = 0;
out:
	mem_free(dir);
	return rc;
}

int
ckpt_snapshot(struct ckpt *c, struct ckpt_turn *t, int rootfd,
    const char *rel)
{
	struct ckpt_state s;

	if (ckpt_find(t, rel) != NULL)
		return 0;
	if (ckpt_state(c, rootfd, rel, 1, &s) < 0)
		return -1;
	if (s.kind == CKPT_OTHER || s.kind == CKPT_DIR) {
		errno = EINVAL;
		return -1;
	}
	if ((s.kind == CKPT_ABSENT && snapshot_parents(c, t, rootfd, rel) < 0) ||
	    ckpt_add(t, rel, &s, &s) < 0)
		return -1;
	return 1;
}
