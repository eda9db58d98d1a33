/*
 * pwd.h for mingw-w64: Windows has no passwd database. getpwuid always
 * fails (ENOENT); the home directory comes from HOME, which compat.c
 * derives from USERPROFILE when it is not set (see compat.h).
 */
#ifndef ARCTURN_COMPAT_PWD_H
#define ARCTURN_COMPAT_PWD_H

#include <sys/types.h>

struct passwd {
	char	*pw_name;
	char	*pw_dir;
};

struct passwd	*getpwuid(int);
int		 getuid(void);

#endif
