/*
 * sys/xattr.h for the macOS cross build. zig 0.11 ships only part of the
 * macOS SDK headers and not this one; the functions themselves are in
 * libSystem. Declared here from the xattr(2) manual pages; used with
 * -idirafter, so a complete SDK's own header always wins.
 */
#ifndef ARCTURN_SDK_SYS_XATTR_H
#define ARCTURN_SDK_SYS_XATTR_H

#include <stdint.h>
#include <sys/types.h>

#define XATTR_NOFOLLOW	0x0001
#define XATTR_CREATE	0x0002
#define XATTR_REPLACE	0x0004

ssize_t	getxattr(const char *, const char *, void *, size_t, uint32_t, int);
ssize_t	fgetxattr(int, const char *, void *, size_t, uint32_t, int);
int	setxattr(const char *, const char *, const void *, size_t, uint32_t, int);
int	fsetxattr(int, const char *, const void *, size_t, uint32_t, int);
int	removexattr(const char *, const char *, int);
int	fremovexattr(int, const char *, int);
ssize_t	listxattr(const char *, char *, size_t, int);
ssize_t	flistxattr(int, char *, size_t, int);

#endif
