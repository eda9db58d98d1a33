/*
 * sandbox_posix: the part of the Linux and macOS backends that is plain
 * POSIX (sandbox_posix.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exitcode.h"
#include "sandbox_posix.h"

static int
status(int e)
{
	return e == ENOENT || e == ENOTDIR ? EXIT_NOTFOUND : EXIT_NOEXEC;
}

static int
say(char **cmd, int e, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: %s", cmd[0], e == ENOENT ?
	    "command not found" : strerror(e));
	return status(e);
}

int
posix_exec(char **cmd, char *err, size_t errlen)
{
	execvp(cmd[0], cmd);
	return say(cmd, errno, err, errlen);
}

/* 0 when path is a file we may execute, else -1 with errno. */
static int
runnable(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -1;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return -1;
	}
	return access(path, X_OK);
}

int
posix_which(const char *name, int abs_only, char *buf, size_t len)
{
	const char *path = getenv("PATH"), *p, *end;
	int e = ENOENT;
	size_t n;

	if (*name == '\0') {
		errno = ENOENT;
		return -1;
	}
	if (strchr(name, '/') != NULL) {
		if ((size_t)snprintf(buf, len, "%s", name) >= len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		return runnable(buf);
	}
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p = end + 1) {
		n = strcspn(p, ":");
		end = p + n;
		if ((abs_only && (n == 0 || p[0] != '/')) ||
		    (size_t)snprintf(buf, len, "%.*s%s%s", (int)n, p,
		    n == 0 ? "" : "/", name) >= len)
			;
		else if (runnable(buf) == 0)
			return 0;
		else if (errno == EACCES)
			e = EACCES;
		if (*end == '\0')
			break;
	}
	errno = e;
	return -1;
}

int
posix_check(char **cmd, char *err, size_t errlen)
{
	char buf[PATH_MAX];

	if (posix_which(cmd[0], 0, buf, sizeof buf) == 0)
		return 0;
	return say(cmd, errno, err, errlen);
}

static int
sys_mkdir(const char *path, mode_t mode, void *arg)
{
	(void)arg;
	return mkdir(path, mode);
}

const struct roots_ops posix_roots_ops = { .mkdir = sys_mkdir };
