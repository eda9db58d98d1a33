/*
 * fsx, atomic replace (fsx.h): a temp file in the destination directory,
 * write, fchmod, fsync, rename, fsync of the directory; and the one seam
 * every file write goes through.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/fsx.h"
#include "lib/hash.h"
#include "lib/mem.h"
#include "lib/os.h"

#define COPY_BUF	(256 * 1024)

static long fail_write_countdown = -1;
static int fail_write_happened;

void
fsx_fail_write_after(long n)
{
	fail_write_countdown = n;
	fail_write_happened = 0;
}

int
fsx_write_failed(void)
{
	return fail_write_happened;
}

int
fsx_write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	if (fail_write_countdown >= 0 && fail_write_countdown-- == 0) {
		fail_write_happened = 1;
		errno = EIO;
		return -1;
	}
	while (len > 0) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
fsx_tmp_name(char name[FSX_TMP_NAMELEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char r[FSX_TMP_RANDLEN / 2];
	size_t i, pl = sizeof FSX_TMP_PREFIX - 1;

	if (hash_random(r, sizeof r) < 0)
		return -1;
	memcpy(name, FSX_TMP_PREFIX, pl);
	for (i = 0; i < sizeof r; i++) {
		name[pl + 2 * i] = hex[r[i] >> 4];
		name[pl + 2 * i + 1] = hex[r[i] & 15];
	}
	name[FSX_TMP_NAMELEN] = '\0';
	return 0;
}

int
fsx_is_tmp_name(const char *name)
{
	size_t i, pl = sizeof FSX_TMP_PREFIX - 1;

	if (strlen(name) != FSX_TMP_NAMELEN ||
	    strncmp(name, FSX_TMP_PREFIX, pl) != 0)
		return 0;
	for (i = pl; i < FSX_TMP_NAMELEN; i++)
		if (!((name[i] >= '0' && name[i] <= '9') ||
		    (name[i] >= 'a' && name[i] <= 'f')))
			return 0;
	return 1;
}

static int
create_tmp(int dirfd, char name[FSX_TMP_NAMELEN + 1])
{
	int fd, tries;

	for (tries = 0; tries < 8; tries++) {
		if (fsx_tmp_name(name) < 0)
			return -1;
		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

int
fsx_sync_dir(int dirfd)
{
	if (fsync(dirfd) == 0)
		return 0;
	/* An O_PATH directory (search permission only) cannot be synced. */
	if (errno == EBADF || errno == EINVAL)
		return 0;
	return -1;
}

int
fsx_rename_noreplace(int dirfd, const char *from, const char *to)
{
	if (os_rename_noreplace(dirfd, from, to) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
	/* link(2) never replaces; regular files and symlinks only. */
	if (linkat(dirfd, from, dirfd, to, 0) < 0)
		return -1;
	if (unlinkat(dirfd, from, 0) < 0) {
		int saved = errno;

		unlinkat(dirfd, to, 0);
		errno = saved;
		return -1;
	}
	return 0;
}

static int
rename_into(int dirfd, const char *from, const char *to, int flags)
{
	if (flags & FSX_NOREPLACE)
		return fsx_rename_noreplace(dirfd, from, to);
	return renameat(dirfd, from, dirfd, to);
}

/* Rename the finished temp file into place and make it durable. */
static int
finish_tmp(int dirfd, int fd, const char *tmp, const char *name,
    mode_t mode, int flags)
{
	if (fchmod(fd, mode) < 0 || (!(flags & FSX_NOSYNC) && fsync(fd) < 0)) {
		fsx_close(fd);
		return -1;
	}
	if (close(fd) < 0 && errno != EINTR)
		return -1;
	if (rename_into(dirfd, tmp, name, flags) < 0)
		return -1;
	return (flags & FSX_NOSYNC) ? 0 : fsx_sync_dir(dirfd);
}

static int
copy_range(int src, int dst, char *buf, off_t from, off_t to)
{
	ssize_t n;
	size_t want;

	if (lseek(dst, from, SEEK_SET) < 0)
		return -1;
	while (from < to) {
		want = (size_t)(to - from) < COPY_BUF ?
		    (size_t)(to - from) : COPY_BUF;
		n = pread(src, buf, want, from);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = EIO;	/* shrank while we copied */
			return -1;
		}
		if (fsx_write_full(dst, buf, (size_t)n) < 0)
			return -1;
		from += n;
	}
	return 0;
}

/* Copy srcfd's bytes to dst, keeping holes as holes. */
static int
copy_sparse(int src, int dst, off_t size)
{
	char *buf;
	off_t off = 0, data, hole;
	int r = -1;

	if ((buf = mem_alloc(COPY_BUF)) == NULL)
		return -1;
	while (off < size) {
		data = lseek(src, off, SEEK_DATA);
		if (data < 0 && errno == ENXIO)
			break;		/* only a hole is left */
		if (data < 0) {
			if (errno != EINVAL)
				goto out;
			data = off;	/* no hole support: all data */
			hole = size;
		} else {
			hole = lseek(src, data, SEEK_HOLE);
			if (hole < 0)
				goto out;
		}
		if (data >= size)
			break;
		if (hole > size)
			hole = size;
		if (copy_range(src, dst, buf, data, hole) < 0)
			goto out;
		off = hole;
	}
	if (ftruncate(dst, size) < 0)
		goto out;
	r = 0;
out:
	mem_free(buf);
	return r;
}

/* Copy srcfd to dst from where srcfd stands to its end. */
static int
copy_stream(int src, int dst)
{
	char *buf;
	ssize_t n;
	int r = -1;

	if ((buf = mem_alloc(COPY_BUF)) == NULL)
		return -1;
	for (;;) {
		n = read(src, buf, COPY_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (n == 0) {
			r = 0;
			break;
		}
		if (fsx_write_full(dst, buf, (size_t)n) < 0)
			break;
	}
	mem_free(buf);
	return r;
}

enum { FROM_BUF, FROM_FILE, FROM_STREAM };

/*
 * A temp file in dirfd, filled from buf, from the len bytes of the
 * regular file srcfd, or from the stream srcfd to its end, then renamed
 * to name. The temp file never survives a failure.
 */
static int
replace(int dirfd, const char *name, int from, const void *buf, size_t len,
    int srcfd, mode_t mode, int flags)
{
	char tmp[FSX_TMP_NAMELEN + 1];
	int fd, rc, saved;

	if ((fd = create_tmp(dirfd, tmp)) < 0)
		return -1;
	if (from == FROM_BUF)
		rc = fsx_write_full(fd, buf, len);
	else if (from == FROM_FILE)
		rc = copy_sparse(srcfd, fd, (off_t)len);
	else
		rc = copy_stream(srcfd, fd);
	if (rc < 0)
		fsx_close(fd);
	else
		rc = finish_tmp(dirfd, fd, tmp, name, mode, flags);
	if (rc < 0) {
		saved = errno;
		unlinkat(dirfd, tmp, 0);
		errno = saved;
	}
	return rc;
}

int
fsx_write_atomic(int dirfd, const char *name, const void *buf, size_t len,
    mode_t mode, int flags)
{
	return replace(dirfd, name, FROM_BUF, buf == NULL ? "" : buf, len, -1,
	    mode, flags);
}

int
fsx_write_atomic_stream(int dirfd, const char *name, int srcfd, mode_t mode,
    int flags)
{
	return replace(dirfd, name, FROM_STREAM, NULL, 0, srcfd, mode, flags);
}

int
fsx_write_atomic_fd(int dirfd, const char *name, int srcfd, mode_t mode,
    int flags)
{
	struct stat st;

	if (fstat(srcfd, &st) < 0)
		return -1;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		return -1;
	}
	return replace(dirfd, name, FROM_FILE, NULL, (size_t)st.st_size, srcfd,
	    mode, flags);
}

/* Make a temp object with make(dirfd, tmp, arg), retrying name clashes. */
static int
make_tmp(int dirfd, char tmp[FSX_TMP_NAMELEN + 1],
    int (*make)(int, const char *, const void *), const void *arg)
{
	int tries;

	for (tries = 0; ; tries++) {
		if (fsx_tmp_name(tmp) < 0)
			return -1;
		if (make(dirfd, tmp, arg) == 0)
			return 0;
		if (errno != EEXIST || tries == 8)
			return -1;
	}
}

static int
make_symlink(int dirfd, const char *tmp, const void *target)
{
	return symlinkat(target, dirfd, tmp);
}

int
fsx_symlink_atomic(int dirfd, const char *name, const char *target,
    int flags)
{
	char tmp[FSX_TMP_NAMELEN + 1];
	int saved;

	if (make_tmp(dirfd, tmp, make_symlink, target) < 0)
		return -1;
	if (rename_into(dirfd, tmp, name, flags) < 0 ||
	    (!(flags & FSX_NOSYNC) && fsx_sync_dir(dirfd) < 0)) {
		saved = errno;
		unlinkat(dirfd, tmp, 0);
		errno = saved;
		return -1;
	}
	return 0;
}

int
fsx_swap_name(int dirfd, const char *from, ino_t ino,
    char out[FSX_SWP_NAMELEN + 1])
{
	unsigned char r[2];
	int tries;

	for (tries = 0; tries < 8; tries++) {
		if (hash_random(r, sizeof r) < 0)
			return -1;
		snprintf(out, FSX_SWP_NAMELEN + 1, "%s%016llx-%02x%02x",
		    FSX_SWP_PREFIX, (unsigned long long)ino, r[0], r[1]);
		if (fsx_rename_noreplace(dirfd, from, out) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

/* The inode a swap name names, or 0 when name is not one. */
static unsigned long long
swap_ino(const char *name)
{
	size_t i, pl = sizeof FSX_SWP_PREFIX - 1;
	unsigned long long ino = 0;
	char c;

	if (strlen(name) != FSX_SWP_NAMELEN ||
	    strncmp(name, FSX_SWP_PREFIX, pl) != 0 || name[pl + 16] != '-')
		return 0;
	for (i = pl; i < FSX_SWP_NAMELEN; i++) {
		c = name[i];
		if (i == pl + 16)
			continue;
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return 0;
		if (i < pl + 16)
			ino = ino << 4 | (unsigned long long)(c <= '9' ?
			    c - '0' : c - 'a' + 10);
	}
	return ino;
}

/* May swap name name (of ino) go? Ours never exchanged, or kept by a link. */
static int
swap_may_go(int dirfd, const char *name, unsigned long long ino)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	return (unsigned long long)st.st_ino == ino ||
	    (S_ISREG(st.st_mode) && st.st_nlink > 1);
}

int
fsx_sweep_tmp(int dirfd)
{
	return fsx_sweep(dirfd, NULL, NULL);
}

int
fsx_sweep(int dirfd, void (*left)(const char *, void *), void *arg)
{
	DIR *d;
	struct dirent *e;
	unsigned long long ino;
	int fd, n = 0;

	if ((fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		return -1;
	if ((d = fdopendir(fd)) == NULL) {
		fsx_close(fd);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (!fsx_is_tmp_name(e->d_name)) {
			if ((ino = swap_ino(e->d_name)) == 0)
				continue;
			if (!swap_may_go(dirfd, e->d_name, ino)) {
				if (left != NULL)
					left(e->d_name, arg);
				continue;
			}
		}
		if (unlinkat(dirfd, e->d_name, 0) == 0)
			n++;
	}
	closedir(d);
	return n;
}

/* Keep the finished temp object, or remove it (errno kept). */
static int
tmp_done(int dirfd, const char *tmp, int rc)
{
	int saved;

	if (rc == 0)
		return 0;
	saved = errno;
	unlinkat(dirfd, tmp, 0);
	errno = saved;
	return -1;
}

int
fsx_tmp_file(int dirfd, int srcfd, mode_t mode,
    char tmp[FSX_TMP_NAMELEN + 1], struct stat *st, int *fdp)
{
	struct stat sst;
	int fd, rc;

	if (fstat(srcfd, &sst) < 0)
		return -1;
	if (!S_ISREG(sst.st_mode)) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = create_tmp(dirfd, tmp)) < 0)
		return -1;
	rc = copy_sparse(srcfd, fd, sst.st_size);
	if (rc == 0 && (fchmod(fd, mode) < 0 || (fdp == NULL &&
	    fsync(fd) < 0) || fstat(fd, st) < 0))
		rc = -1;
	if (rc == 0 && fdp != NULL) {
		*fdp = fd;
		return 0;
	}
	if (close(fd) < 0 && errno != EINTR)
		rc = -1;
	return tmp_done(dirfd, tmp, rc);
}

int
fsx_tmp_symlink(int dirfd, const char *target, char tmp[FSX_TMP_NAMELEN + 1])
{
	if (make_tmp(dirfd, tmp, make_symlink, target) < 0)
		return -1;
	return tmp_done(dirfd, tmp, 0);
}

static int
make_fifo(int dirfd, const char *tmp, const void *arg)
{
	return mknodat(dirfd, tmp, S_IFIFO | 0600, 0);
}

int
fsx_tmp_fifo(int dirfd, mode_t mode, char tmp[FSX_TMP_NAMELEN + 1])
{
	if (make_tmp(dirfd, tmp, make_fifo, NULL) < 0)
		return -1;
	/* the fifo is new and under a random name: chmod by name is safe */
	return tmp_done(dirfd, tmp, fchmodat(dirfd, tmp, mode & 07777, 0));
}

struct linkarg {
	int		 fromdir;
	const char	*from;
};

static int
make_link(int dirfd, const char *tmp, const void *arg)
{
	const struct linkarg *l = arg;

	return linkat(l->fromdir, l->from, dirfd, tmp, 0);
}

int
fsx_tmp_link(int fromdir, const char *from, int dirfd,
    char tmp[FSX_TMP_NAMELEN + 1])
{
	struct linkarg l = { fromdir, from };

	if (make_tmp(dirfd, tmp, make_link, &l) < 0)
		return -1;
	return tmp_done(dirfd, tmp, 0);
}

/*
 * ARCTURN_TEST_EDIT_PAUSE_MS (tests only): sleep that long right before
 * the swap, so that a test can change the file in between.
 */
static void
test_pause(void)
{
	const char *v = getenv("ARCTURN_TEST_EDIT_PAUSE_MS");
	struct timespec ts;
	long ms;

	if (v == NULL || (ms = strtol(v, NULL, 10)) <= 0 || ms > 60000)
		return;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * 1 when dirfd/name is a regular file with mode whose content has the
 * SHA-256 want, 0 when not (or gone), -1 with errno.
 */
static int
holds(int dirfd, const char *name, mode_t mode,
    const unsigned char want[HASH_LEN])
{
	struct stat st;
	int fd, r;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ELOOP ? 0 : -1;
	if (fstat(fd, &st) < 0) {
		fsx_close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || (st.st_mode & 07777) != mode) {
		close(fd);
		return 0;
	}
	r = hash_fd_is(fd, want);
	fsx_close(fd);
	return r;
}

/* fsx_replace_if and fsx_replace_if_stream: from buf, or srcfd >= 0. */
static int
replace_if(int dirfd, const char *name, const unsigned char want[HASH_LEN],
    const void *buf, size_t len, int srcfd)
{
	char made[FSX_TMP_NAMELEN + 1], tmp[FSX_SWP_NAMELEN + 1];
	struct stat st, ours, now;
	mode_t mode;
	int fd, r, saved;

	/* what stands there must be a regular file: its mode stays */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			errno = ECANCELED;
		return -1;
	}
	mode = st.st_mode & 07777;
	if (!S_ISREG(st.st_mode) ||
	    (r = holds(dirfd, name, mode, want)) == 0) {
		errno = ECANCELED;
		return -1;
	}
	if (r < 0)
		return -1;
	if ((fd = create_tmp(dirfd, made)) < 0)
		return -1;
	r = srcfd >= 0 ? copy_stream(srcfd, fd) :
	    fsx_write_full(fd, buf == NULL ? "" : buf, len);
	if (r < 0 || fchmod(fd, mode) < 0 || fsync(fd) < 0 ||
	    fstat(fd, &ours) < 0) {
		fsx_close(fd);
		return tmp_done(dirfd, made, -1);
	}
	if (close(fd) < 0 && errno != EINTR)
		return tmp_done(dirfd, made, -1);
	test_pause();
	/*
	 * Named by its inode: after the exchange the name holds what stood
	 * at name, maybe a version saved meanwhile, which a sweep after a
	 * kill must leave (fsx.h).
	 */
	if (fsx_swap_name(dirfd, made, ours.st_ino, tmp) < 0)
		return tmp_done(dirfd, made, -1);
	if (os_rename_exchange(dirfd, tmp, name) < 0) {
		if (errno != ENOSYS)
			return tmp_done(dirfd, tmp, -1);
		/* no exchange here: look again right before the rename */
		if ((r = holds(dirfd, name, mode, want)) <= 0) {
			if (r == 0)
				errno = ECANCELED;
			return tmp_done(dirfd, tmp, -1);
		}
		if (renameat(dirfd, tmp, dirfd, name) < 0)
			return tmp_done(dirfd, tmp, -1);
		return fsx_sync_dir(dirfd);
	}
	/* tmp now names what stood at name: is it still what was read? */
	if ((r = holds(dirfd, tmp, mode, want)) == 1) {
		unlinkat(dirfd, tmp, 0);
		return fsx_sync_dir(dirfd);
	}
	/* changed meanwhile (or unreadable): theirs back in place */
	saved = r == 0 ? ECANCELED : errno;
	if (os_rename_exchange(dirfd, tmp, name) == 0) {
		/* what stands under tmp now is ours, unless someone's */
		if (fstatat(dirfd, tmp, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
		    now.st_dev == ours.st_dev && now.st_ino == ours.st_ino)
			unlinkat(dirfd, tmp, 0);
	} else if (renameat(dirfd, tmp, dirfd, name) < 0)
		saved = errno;	/* theirs is left under tmp */
	(void)fsx_sync_dir(dirfd);
	errno = saved;
	return -1;
}

int
fsx_replace_if(int dirfd, const char *name,
    const unsigned char want[HASH_LEN], const void *buf, size_t len)
{
	return replace_if(dirfd, name, want, buf, len, -1);
}

int
fsx_replace_if_stream(int dirfd, const char *name,
    const unsigned char want[HASH_LEN], int srcfd)
{
	if (srcfd < 0) {
		errno = EBADF;
		return -1;
	}
	return replace_if(dirfd, name, want, NULL, 0, srcfd);
}
