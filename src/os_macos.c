/*
 * os on macOS (os.h): no openat2, renameat2 or O_PATH (the callers take
 * their portable paths), no syncfs (sync(2) instead), Darwin's xattr
 * calls and stat field names.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/xattr.h>

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "os.h"

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

struct timespec
os_ctime(const struct stat *st)
{
	return st->st_ctimespec;
}
