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
 * means realpath(3). forget, when set, is told of a path that path_canon
 * saw change since realpath answered for it (a name realpath called
 * missing that lstat then found), before realpath is asked about it again:
 * a memo (below) drops what it kept. NULL: nothing is kept.
 */
struct path_ops {
	char	*(*realpath)(const char *, void *);
	void	*arg;
	void	(*forget)(const char *, void *);
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

/*
 * A memo of realpath answers, for one computation that asks about the
 * same paths again and again (roots_build, one policy resolution): the
 * first question about a path goes to under (NULL: path_realpath's
 * system), a later one about the same string gets the same answer
 * (canonical path or errno; ENOMEM is never kept), without a system call.
 *
 * It is a snapshot, so keep one only as long as one answer must hold for
 * the whole computation, and never past it (a long-lived process, such as
 * arcturn mcp, starts a new memo for each): the file system goes on
 * changing. The caller forgets what it changes itself (path_memo_forget
 * after a mkdir); path_canon tells it (ops.forget) what it saw change.
 * Nothing here decides anything on an open file: a caller that checks and
 * then uses an object still opens it and decides on what it opened.
 *
 *	struct path_memo m;
 *	path_memo_init(&m, NULL);
 *	path_canon(path, 0, &m.ops, &c);	(any number, any path_ops user)
 *	path_memo_free(&m);
 *
 * m.ops's realpath returns NULL with ENOMEM when the answer cannot be
 * kept, as any realpath may. At most PATH_MEMO_MAX answers are kept; any
 * further ones are asked each time.
 */
#define PATH_MEMO_MAX	256

struct path_memo_ent;

struct path_memo {
	struct path_ops		 ops;	/* hand &ops to path_canon */
	const struct path_ops	*under;
	struct path_memo_ent	*v;
	size_t			 n, cap;
};

void	path_memo_init(struct path_memo *m, const struct path_ops *under);
void	path_memo_forget(struct path_memo *m);	/* everything kept */
void	path_memo_free(struct path_memo *m);

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
