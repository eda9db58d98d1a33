/*
 * os on macOS (os.h): no openat2 or O_PATH (the callers take their
 * portable paths), renameatx_np for the exclusive and swapping renames,
 * no syncfs (sync(2) instead), Darwin's xattr calls and stat field names.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/xattr.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "lib/mem.h"
#include "lib/os.h"

/* <stdio.h> declares these only with _DARWIN_C_SOURCE (macOS 10.12+). */
#ifndef RENAME_SWAP
#define RENAME_SWAP	0x00000002
#endif
#ifndef RENAME_EXCL
#define RENAME_EXCL	0x00000004
#endif
int	renameatx_np(int, const char *, int, const char *, unsigned int);

const int os_o_path = O_RDONLY;

int
os_open_beneath(int rootfd, const char *rel, int flags, mode_t mode)
{
	errno = ENOSYS;
	return -1;
}

int
os_rename_noreplace(int dirfd, const char *from, const char *to)
{
	if (renameatx_np(dirfd, from, dirfd, to, RENAME_EXCL) == 0)
		return 0;
	if (errno == ENOTSUP || errno == EINVAL)
		errno = ENOSYS;
	return -1;
}

int
os_rename_exchange(int dirfd, const char *a, const char *b)
{
	if (renameatx_np(dirfd, a, dirfd, b, RENAME_SWAP) == 0)
		return 0;
	if (errno == ENOTSUP || errno == EINVAL)
		errno = ENOSYS;
	return -1;
}

int
os_chmod_pinned(int dirfd, const char *name, mode_t mode)
{
	errno = ENOSYS;
	return -1;
}

long
os_getxattr(int fd, const char *name, char *buf, size_t len)
{
	return (long)fgetxattr(fd, name, buf, len, 0, 0);
}

long
os_xattr_names(int fd)
{
	return (long)flistxattr(fd, NULL, 0, 0);
}

int
os_setxattr(int fd, const char *name, const void *val, size_t len)
{
	return fsetxattr(fd, name, val, len, 0, 0);
}

int
os_syncfs(int fd)
{
	sync();
	return 0;
}

struct os_sem {
	pthread_mutex_t	mu;
	pthread_cond_t	cv;
	unsigned long	n;
};

struct os_sem *
os_sem_new(void)
{
	struct os_sem *m = mem_alloc(sizeof *m);

	if (m == NULL)
		return NULL;
	m->n = 0;
	if (pthread_mutex_init(&m->mu, NULL) != 0) {
		mem_free(m);
		errno = ENOMEM;
		return NULL;
	}
	if (pthread_cond_init(&m->cv, NULL) != 0) {
		pthread_mutex_destroy(&m->mu);
		mem_free(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

void
os_sem_post(struct os_sem *m)
{
	pthread_mutex_lock(&m->mu);
	m->n++;
	pthread_cond_signal(&m->cv);
	pthread_mutex_unlock(&m->mu);
}

void
os_sem_wait(struct os_sem *m)
{
	pthread_mutex_lock(&m->mu);
	while (m->n == 0)
		pthread_cond_wait(&m->cv, &m->mu);
	m->n--;
	pthread_mutex_unlock(&m->mu);
}

void
os_sem_free(struct os_sem *m)
{
	if (m == NULL)
		return;
	pthread_cond_destroy(&m->cv);
	pthread_mutex_destroy(&m->mu);
	mem_free(m);
}

/* sync(2) may return before the data is on disk: files one by one. */
int
os_syncfs_cheap(int fd)
{
	(void)fd;
	return 0;
}

void
os_start_writeback(int fd)
{
	(void)fd;
}

struct timespec
os_ctime(const struct stat *st)
{
	return st->st_ctimespec;
}

pid_t
os_spawn(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn(arg));
	return pid;
}

int
os_open_nolinks(const char *path)
{
	(void)path;
	errno = ENOSYS;
	return -1;
}

int
os_pipe_cloexec(int fd[2])
{
	int e;

	if (pipe(fd) < 0)
		return -1;
	if (fcntl(fd[0], F_SETFD, FD_CLOEXEC) < 0 ||
	    fcntl(fd[1], F_SETFD, FD_CLOEXEC) < 0) {
		e = errno;
		close(fd[0]);
		close(fd[1]);
		errno = e;
		return -1;
	}
	return 0;
}

struct timespec
os_mtime(const struct stat *st)
{
	return st->st_mtimespec;
}
