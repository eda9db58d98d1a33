/*
 * keep: the replaced/ area of a session (keep.h).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fsx.h"
#include "hash.h"
#include "keep.h"
#include "mem.h"

#define DFLAGS		(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define COPY_BUF	(128 * 1024)
#define KEEP_MAXN	100000

struct keep {
	struct session		*s;
	pthread_mutex_t		 mu;
	int			 dirfd;		/* replaced/<N>, or -1 */
	char			 name[16];	/* N */
	size_t			 count;
	struct apply_keeper	 keeper;
};

/* replaced/<N>, the first N free: made on the first put. */
static int
area(struct keep *k)
{
	int rfd, n, fd = -1;

	if (k->dirfd >= 0)
		return k->dirfd;
	if (mkdirat(k->s->dirfd, "replaced", 0700) < 0 && errno != EEXIST)
		return -1;
	if ((rfd = openat(k->s->dirfd, "replaced", DFLAGS)) < 0)
		return -1;
	for (n = 1; n < KEEP_MAXN; n++) {
		snprintf(k->name, sizeof k->name, "%d", n);
		if (mkdirat(rfd, k->name, 0700) == 0) {
			fd = openat(rfd, k->name, DFLAGS);
			break;
		}
		if (errno != EEXIST)
			break;
	}
	if (n == KEEP_MAXN)
		errno = EMLINK;
	fsx_close(rfd);
	if (fd >= 0)
		k->dirfd = fd;
	return fd;
}

/* The mirror directory of rel's parent under top (made, 0700): its fd. */
static int
mirror_parent(int top, const char *rel, const char **base)
{
	char comp[NAME_MAX + 1];
	const char *p, *q;
	int cur, fd;

	if ((cur = dup(top)) < 0)
		return -1;
	for (p = rel; (q = strchr(p, '/')) != NULL; p = q + 1) {
		if ((size_t)(q - p) > NAME_MAX || q == p) {
			close(cur);
			errno = EINVAL;
			return -1;
		}
		memcpy(comp, p, (size_t)(q - p));
		comp[q - p] = '\0';
		fd = openat(cur, comp, DFLAGS);
		if (fd < 0 && errno == ENOENT) {
			if (mkdirat(cur, comp, 0700) < 0 && errno != EEXIST) {
				fsx_close(cur);
				return -1;
			}
			fd = openat(cur, comp, DFLAGS);
		}
		fsx_close(cur);
		if (fd < 0)
			return -1;
		cur = fd;
	}
	*base = p;
	return cur;
}

/* Copy the regular file dirfd/name to kfd/kname, hashing the bytes. */
static int
copy_file(int dirfd, const char *name, int kfd, const char *kname,
    struct apply_kept *out)
{
	struct hash_ctx h;
	struct stat st;
	char *buf = NULL;
	ssize_t n;
	int in, o = -1, rc = -1;

	in = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	if (in < 0)
		return -1;
	if (fstat(in, &st) < 0)
		goto out;
	if (!S_ISREG(st.st_mode)) {
		errno = ESTALE;
		goto out;
	}
	o = openat(kfd, kname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, st.st_mode & 07777);
	if (o < 0 || (buf = mem_alloc(COPY_BUF)) == NULL)
		goto out;
	hash_init(&h);
	for (;;) {
		n = read(in, buf, COPY_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto out;
		if (n == 0)
			break;
		hash_update(&h, buf, (size_t)n);
		if (fsx_write_full(o, buf, (size_t)n) < 0)
			goto out;
	}
	hash_final(&h, out->sha);
	out->have_sha = 1;
	if (fchmod(o, st.st_mode & 07777) < 0 || fsync(o) < 0)
		goto out;
	rc = 0;
out:
	mem_free(buf);
	fsx_close(in);
	if (o >= 0) {
		fsx_close(o);
		if (rc < 0) {
			int saved = errno;

			unlinkat(kfd, kname, 0);
			errno = saved;
		}
	}
	return rc;
}

/* Keep a copy of dirfd/name (link failed): what the copy can hold. */
static int
copy_object(int dirfd, const char *name, int kfd, const char *kname,
    struct apply_kept *out)
{
	char *target;
	struct stat st;
	ssize_t n;
	int rc;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (S_ISREG(st.st_mode))
		return copy_file(dirfd, name, kfd, kname, out);
	if (S_ISLNK(st.st_mode)) {
		if ((target = mem_alloc(PATH_MAX)) == NULL)
			return -1;
		n = readlinkat(dirfd, name, target, PATH_MAX - 1);
		if (n < 0) {
			mem_free(target);
			return -1;
		}
		target[n] = '\0';
		hash_buf(target, (size_t)n, out->sha);
		out->have_sha = 1;
		rc = symlinkat(target, kfd, kname);
		mem_free(target);
		return rc;
	}
	if (S_ISFIFO(st.st_mode))
		return mknodat(kfd, kname, S_IFIFO | (st.st_mode & 07777), 0);
	/* a socket or a device: nothing to copy but the fact */
	return 0;
}

static int
put(void *arg, const char *rel, int dirfd, const char *name,
    struct apply_kept *out)
{
	struct keep *k = arg;
	struct stat st;
	const char *base;
	int top, pfd, tries;

	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&k->mu);
	top = area(k);
	pthread_mutex_unlock(&k->mu);
	if (top < 0)
		return -1;
	if ((pfd = mirror_parent(top, rel, &base)) < 0)
		return -1;
	for (tries = 0; tries < 2; tries++) {
		if (linkat(dirfd, name, pfd, base, 0) == 0) {
			if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
				break;
			out->linked = 1;
			out->dev = st.st_dev;
			out->ino = st.st_ino;
			goto done;
		}
		if (errno == EEXIST) {
			/* left by an earlier try of this path: ours to go */
			if (unlinkat(pfd, base, 0) < 0 && errno != ENOENT)
				break;
			continue;
		}
		if (errno != EXDEV && errno != EPERM && errno != EMLINK)
			break;
		if (copy_object(dirfd, name, pfd, base, out) < 0)
			break;
		goto done;
	}
	fsx_close(pfd);
	return -1;
done:
	close(pfd);
	pthread_mutex_lock(&k->mu);
	k->count++;
	pthread_mutex_unlock(&k->mu);
	return 0;
}

static void
drop(void *arg, const char *rel)
{
	struct keep *k = arg;
	const char *base;
	int pfd;

	if (k->dirfd < 0 || (pfd = mirror_parent(k->dirfd, rel, &base)) < 0)
		return;
	if (unlinkat(pfd, base, 0) == 0) {
		pthread_mutex_lock(&k->mu);
		k->count--;
		pthread_mutex_unlock(&k->mu);
	}
	close(pfd);
}

int
keep_open(struct session *s, struct keep **kp)
{
	struct keep *k;

	if ((k = mem_calloc(1, sizeof *k)) == NULL)
		return -1;
	if (pthread_mutex_init(&k->mu, NULL) != 0) {
		mem_free(k);
		errno = ENOMEM;
		return -1;
	}
	k->s = s;
	k->dirfd = -1;
	k->keeper.put = put;
	k->keeper.drop = drop;
	k->keeper.arg = k;
	*kp = k;
	return 0;
}

const struct apply_keeper *
keep_keeper(struct keep *k)
{
	return &k->keeper;
}

size_t
keep_count(const struct keep *k)
{
	return k == NULL ? 0 : k->count;
}

const char *
keep_name(const struct keep *k)
{
	return k == NULL || k->dirfd < 0 ? NULL : k->name;
}

void
keep_close(struct keep *k)
{
	if (k == NULL)
		return;
	if (k->dirfd >= 0) {
		/* the names made in replaced/ are part of what is kept */
		fsync(k->dirfd);
		close(k->dirfd);
	}
	pthread_mutex_destroy(&k->mu);
	mem_free(k);
}
