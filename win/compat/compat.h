/*
 * compat.h: the POSIX pieces the portable modules use that mingw-w64 lacks
 * or spells differently. Force-included (-include) into every file of the
 * Windows build, after the system headers it needs, so no shared file
 * carries an #ifdef.
 *
 * Paths. The portable modules treat a path as absolute when it starts with
 * '/', and join with '/'. On Windows arcturn therefore writes an absolute
 * path as "/C:/Users/me/proj" inside the program (the policy, messages),
 * and converts at the boundary: compat_winpath turns it (or "/c/...", or
 * "C:\...") into "C:\Users\me\proj" for the Win32 calls; realpath returns
 * the "/C:/..." form. getenv("HOME") and getenv("TMPDIR") answer from
 * USERPROFILE and TEMP (in that form) when unset, without touching the
 * environment the command inherits.
 */
#ifndef ARCTURN_COMPAT_H
#define ARCTURN_COMPAT_H

#include <sys/stat.h>
#include <sys/types.h>
#include <fcntl.h>
#include <io.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#ifndef O_CLOEXEC
#define O_CLOEXEC	_O_NOINHERIT
#endif
#ifndef O_NOCTTY
#define O_NOCTTY	0
#endif
#ifndef O_NONBLOCK
#define O_NONBLOCK	0
#endif
#ifndef O_NOFOLLOW
#define O_NOFOLLOW	0
#endif
#ifndef S_ISLNK
#define S_ISLNK(m)	0
#endif
#ifndef ENOTSUP
#define ENOTSUP		129
#endif

/* "/C:/x", "/c/x", "C:\x" -> "C:\x" in out (UTF-8); 0 or -1 ENAMETOOLONG. */
int	 compat_winpath(const char *, char *, size_t);
/* "C:\x" -> "/C:/x"; 0 or -1 ENAMETOOLONG. */
int	 compat_posixpath(const char *, char *, size_t);
/* UTF-8 <-> UTF-16, into malloc'd buffers (free()); NULL + errno. */
wchar_t	*compat_wide(const char *);
char	*compat_utf8(const wchar_t *);

char	*realpath(const char *, char *);
int	 compat_stat(const char *, struct stat *);
int	 compat_open(const char *, int, ...);
char	*compat_getenv(const char *);
int	 os_open_nolinks(const char *);	/* ENOSYS: realpath answers */

#define stat(p, s)	compat_stat(p, s)
#define lstat(p, s)	compat_stat(p, s)
#define open(...)	compat_open(__VA_ARGS__)
/* openat(AT_FDCWD, ...) only: what the portable modules use it for (a
   plain open without musl's extra fcntl for O_CLOEXEC) */
#define AT_FDCWD	(-100)
#define openat(d, ...)	compat_open(__VA_ARGS__)
#define getenv(n)	compat_getenv(n)

#endif
