/*
 * wsview: the workspace through a session or as it is (wsview.h).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fsx.h"
#include "lib/hash.h"
#include "lib/mem.h"
#include "lib/path.h"
#include "session/shadow.h"
#include "session/wsview.h"

#define RFLAGS		(O_RDONLY | O_NONBLOCK | O_CLOEXEC)

int
wsview_resolve(const char *workspace, const char *path, char **out)
{
	char *abs, *res;
	const char *tail;
	int e;

	*out = NULL;
	if (path[0] == '\0') {
		errno = ENOENT;
		return -1;
	}
	abs = path[0] == '/' ? mem_strdup(path) : path_join(workspace, path);
	if (abs == NULL)
		return -1;
	if (path_canon(abs, PATH_LEXICAL, NULL, &res) < 0) {
		e = errno;
		mem_free(abs);
		errno = e;
		return -1;
	}
	mem_free(abs);
	if ((tail = path_tail(res, workspace)) == NULL) {
		*out = res;
		return 1;
	}
	if (*tail == '\0') {
		mem_free(res);
		errno = EISDIR;
		return -1;
	}
	*out = mem_strdup(tail);
	mem_free(res);
	return *out == NULL ? -1 : 0;
}

static mode_t
cur_umask(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

/* Open the parent of a real path; *name points at its last component. */
static int
real_parent(const struct wsview *v, const char *path, int mkdirs,
    const char **name)
{
	const char *slash;
	char *dir;
	int fd, e;

	if (path[0] != '/')
		return fsx_open_parent(v->rootfd, path, mkdirs, name);
	slash = strrchr(path, '/');
	if ((dir = mem_strndup(path, slash == path ? 1 :
	    (size_t)(slash - path))) == NULL)
		return -1;
	fd = openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	e = errno;
	mem_free(dir);
	errno = e;
	*name = slash + 1;
	return fd;
}

/* A regular file only, never a fifo that would block: fd, or -1. */
static int
regular(int fd)
{
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			errno = EISDIR;
		else
			errno = EINVAL;
		close(fd);
		return -1;
	}
	return fd;
}

int
wsview_open(const struct wsview *v, const char *path)
{
	int shadow;

	if (v->s != NULL) {
		if (path[0] == '/') {
			errno = EXDEV;
			return -1;
		}
		return shadow_open(v->s, v->rootfd, path, &shadow);
	}
	if (path[0] == '/')
		return regular(openat(AT_FDCWD, path, RFLAGS));
	return regular(fsx_open_beneath(v->rootfd, path, RFLAGS, 0));
}

int
wsview_read(const struct wsview *v, const char *path, size_t max,
    char **buf, size_t *len)
{
	struct stat st;
	const char *name;
	mode_t mode;
	int fd, rc;

	if (v->s != NULL) {
		if (path[0] == '/') {
			errno = EXDEV;
			return -1;
		}
		return shadow_read(v->s, v->rootfd, path, max, buf, len, &mode);
	}
	if ((fd = real_parent(v, path, 0, &name)) < 0)
		return -1;
	/* A dangling symlink is missing, not a loop. */
	rc = fstatat(fd, name, &st, 0) < 0 ? -1 :
	    fsx_read_all(fd, name, max, buf, len);
	fsx_close(fd);
	return rc;
}

/*
 * Where write's content comes from: a buffer, or fd to its end; and the
 * check of the real parent directory (wsview_write_checked), or NULL.
 */
struct wsrc {
	const void	*buf;
	size_t		 len;
	int		 fd;
	wsview_check_fn	*check;
	void		*arg;
	const unsigned char *want;	/* compare-and-swap: the SHA-256
					   path must hold, or NULL */
};

/* The session's view of path hashed: 1 it is want, 0 not, -1 errno. */
static int
shadow_holds(const struct wsview *v, const char *path,
    const unsigned char want[HASH_LEN])
{
	int fd, shadow, r;

	if ((fd = shadow_open(v->s, v->rootfd, path, &shadow)) < 0)
		return errno == ENOENT || errno == ENOTDIR ||
		    errno == EISDIR || errno == EINVAL || errno == ELOOP ?
		    0 : -1;
	r = hash_fd_is(fd, want);
	fsx_close(fd);
	return r;
}

static int
write_src(const struct wsview *v, const char *path, const struct wsrc *src)
{
	struct stat st;
	const char *name;
	mode_t um = cur_umask(), mode = 0666 & ~um;
	int fd, rc = -1;

	if (v->s != NULL) {
		if (path[0] == '/') {
			errno = EXDEV;
			return -1;
		}
		/* under the session's LOCK_EX: no writer of ours between */
		if (src->want != NULL &&
		    (rc = shadow_holds(v, path, src->want)) <= 0) {
			if (rc == 0)
				errno = ECANCELED;
			return -1;
		}
		if (src->fd >= 0)
			return shadow_write_fd(v->s, v->rootfd, path, src->fd,
			    0666 & ~um, 0777 & ~um);
		return shadow_write(v->s, v->rootfd, path, src->buf, src->len,
		    0666 & ~um, 0777 & ~um);
	}
	if ((fd = real_parent(v, path, src->want == NULL, &name)) < 0) {
		if (src->want != NULL && (errno == ENOENT || errno == ENOTDIR))
			errno = ECANCELED;
		return -1;
	}
	if (src->check != NULL && src->check(fd, name, src->arg) < 0)
		goto out;
	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			goto out;
		}
		if (S_ISREG(st.st_mode))
			mode = st.st_mode & 07777;
		else if (!S_ISLNK(st.st_mode)) {
			errno = EINVAL;
			goto out;
		}
	}
	if (src->want != NULL && src->fd >= 0)
		rc = fsx_replace_if_stream(fd, name, src->want, src->fd);
	else if (src->want != NULL)
		rc = fsx_replace_if(fd, name, src->want, src->buf, src->len);
	else if (src->fd >= 0)
		rc = fsx_write_atomic_stream(fd, name, src->fd, mode, 0);
	else
		rc = fsx_write_atomic(fd, name, src->buf, src->len, mode, 0);
out:
	fsx_close(fd);
	return rc;
}

int
wsview_write(const struct wsview *v, const char *path, const void *buf,
    size_t len)
{
	struct wsrc src = { buf, len, -1, NULL, NULL, NULL };

	return write_src(v, path, &src);
}

int
wsview_write_fd(const struct wsview *v, const char *path, int fd)
{
	struct wsrc src = { NULL, 0, fd, NULL, NULL, NULL };

	return write_src(v, path, &src);
}

int
wsview_write_checked(const struct wsview *v, const char *path,
    const void *buf, size_t len, const unsigned char *want,
    wsview_check_fn *check, void *arg)
{
	struct wsrc src = { buf, len, -1, check, arg, want };

	return write_src(v, path, &src);
}

int
wsview_write_fd_checked(const struct wsview *v, const char *path, int fd,
    const unsigned char *want, wsview_check_fn *check, void *arg)
{
	struct wsrc src = { NULL, 0, fd, check, arg, want };

	return write_src(v, path, &src);
}

int
wsview_replace_if(const struct wsview *v, const char *path, const void *was,
    size_t wlen, const void *buf, size_t len, wsview_check_fn *check,
    void *arg)
{
	unsigned char w[HASH_LEN];
	struct wsrc src = { buf, len, -1, check, arg, w };

	hash_buf(was, wlen, w);
	return write_src(v, path, &src);
}

int
wsview_kind(const struct wsview *v, const char *path)
{
	struct stat st;
	const char *name;
	int fd, k;

	if (v->s != NULL) {
		if (path[0] == '/') {
			errno = EXDEV;
			return -1;
		}
		if ((k = shadow_lookup(v->s, v->rootfd, path, &st)) < 0)
			return errno == ENOTDIR ? 0 : -1;
		return k == SHADOW_ABSENT ? 0 : (int)(st.st_mode & S_IFMT);
	}
	if ((fd = real_parent(v, path, 0, &name)) < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
	k = fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW);
	fsx_close(fd);
	if (k < 0)
		return errno == ENOENT ? 0 : -1;
	return (int)(st.st_mode & S_IFMT);
}

void
wsview_sweep(const struct wsview *v, const char *path)
{
	const char *name;
	int fd;

	if (v->s != NULL)
		fd = path[0] == '/' ? -1 : fsx_open_parent(v->s->upperfd, path,
		    0, &name);
	else
		fd = real_parent(v, path, 0, &name);
	if (fd >= 0) {
		fsx_sweep_tmp(fd);
		close(fd);
	}
}
