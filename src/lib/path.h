/*
 * path: the one canonicaliser and the one "is under" of the program.
 *
 * Strings only: nothing here opens a file except path_real (an O_PATH
 * open that refuses symlinks, else realpath(3)) and lstat(2) in
 * path_canon. Every other module that asks "is P inside R" or "what does
 * this path really name" calls these; a second copy is a bug.
 *
 * path_under and path_tail compare '/'-separated strings component-wise:
 * "/a/bc" is not under "/a/b". A root of "/" holds every absolute path; a
 * root of "" holds every relative one (workspace-relative paths). Neither
 * canonicalises: pass canonical paths (path_canon) or relative ones without
 * "." and ".." components.
 */
#ifndef ARCTURN_PATH_H
#define ARCTURN_PATH_H

#include <stddef.h>

/* 1 when path is root itself or lies beneath it, else 0. */
int	path_under(const char *path, const char *root);

/*
 * What follows root in path: "" for root itself, "x/y" for root/x/y, NULL
 * when path is not under root. Points into path.
 */
const char *path_tail(const char *path, const char *root);

/*
 * The operating system behind path_canon, so that a test on Linux can
 * stand in for macOS's /var -> /private/var. realpath returns a canonical
 * path (mem_alloc'd, the caller frees it) or NULL with errno. NULL ops
 * means realpath(3).
 */
struct path_ops {
	char	*(*realpath)(const char *, void *);
	void	*arg;
};

#define PATH_LEXICAL	1	/* see path_canon */

/*
 * realpath(3) into buf (PATH_MAX bytes): buf, or NULL with errno (ENOENT:
 * it does not exist). A plain absolute path with no symlink on the way
 * costs one walk of the kernel (musl's realpath walks every prefix).
 */
char	*path_real(const char *path, char *buf);

/*
 * The whole path through ops->realpath (NULL ops: realpath(3)): a
 * mem_alloc'd canonical path, or NULL with errno (ENOENT: it does not
 * exist). For callers that must know whether a path exists; path_canon
 * takes a missing tail.
 */
char	*path_realpath(const char *path, const struct path_ops *ops);

/*
 * Canonicalise the absolute path, whose last components need not exist:
 * the longest existing prefix goes through realpath, the missing rest is
 * appended ("." components dropped). Without PATH_LEXICAL the rest is taken
 * as the kernel would walk it: a ".." after a missing component, or a
 * symlink that leads nowhere at the first missing component, gives ENOENT
 * (a component another process makes while we look is walked again).
 * With PATH_LEXICAL (paths a user names for a new file) a ".." in the
 * missing rest removes the component before it, and a dangling symlink is
 * kept as the name itself.
 *
 * Returns a mem_alloc'd string in *out, or -1 with errno: EINVAL for a
 * relative or empty path, ENAMETOOLONG past PATH_MAX, or realpath's own.
 */
int	path_canon(const char *path, int flags, const struct path_ops *ops,
	    char **out);

/* a/b, with exactly one '/' between them (mem_alloc'd), or NULL. */
char	*path_join(const char *a, const char *b);

/*
 * s with a leading "~", "$HOME" or "${HOME}" (each alone, or followed by
 * '/') replaced by home, as a shell expands them for the caller; any other
 * s is copied as it is (a relative path stays relative). For paths that no
 * shell saw: a quoted --grant '~/.npm', --grant=~/.npm, a config file.
 * Returns a mem_alloc'd string, or NULL with errno: EINVAL for "~user"
 * (another user's home: only the caller's expands) and for "$NAME" or
 * "${NAME}" naming any other variable; ENOMEM.
 */
char	*path_home(const char *s, const char *home);

#endif
