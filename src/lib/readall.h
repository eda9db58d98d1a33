/*
 * readall: a whole file into memory, bounded, never blocking on a fifo.
 * Portable (open, fstat, read): the Windows build reads git's and the
 * config's files through it too, where fsx (directory fds) is not built.
 *
 * readall_fd reads fd to its end into a new buffer (*buf, the caller's:
 * mem_free) holding a NUL after the data, *len bytes of it; at most max
 * bytes (EFBIG beyond: more than max, or a regular file whose size says
 * so). For a regular file the first allocation is its size; a file that
 * grows while read is read to its new end, within max.
 *
 * readall_path does the same for the file path names, following
 * symlinks (as git and a config reader do): a regular file only, opened
 * O_NONBLOCK so that a fifo cannot block; a directory is EISDIR,
 * anything else not regular EINVAL.
 *
 * Errors: the errno convention. 0, or -1 with errno (open's, fstat's,
 * read's, EFBIG, ENOMEM), *buf untouched.
 */
#ifndef ARCTURN_READALL_H
#define ARCTURN_READALL_H

#include <stddef.h>

int	readall_fd(int fd, size_t max, char **buf, size_t *len);
int	readall_path(const char *path, size_t max, char **buf, size_t *len);

#endif
