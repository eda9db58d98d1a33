/*
 * wsview: the workspace as the file commands (read, write, edit) see it,
 * chosen once: through a dry-run session's shadow tree (shadow.h), or the
 * real tree. The commands call the same four functions either way.
 *
 * A path is what wsview_resolve makes of the user's: workspace-relative
 * when it lies inside the workspace, absolute when it does not. The
 * session view takes workspace-relative paths only (EXDEV for an absolute
 * one: the front end refuses those under dry run before it gets here);
 * the real view takes both, a relative one beneath rootfd without
 * following a symlink out of it (fsx.h), an absolute one as the system
 * resolves it.
 *
 * The caller owns the session (open, locked: LOCK_SH to read, LOCK_EX to
 * write) and rootfd (-1 is fine when every path is absolute). New files
 * and directories get 0666 and 0777 less the umask; an existing regular
 * file keeps its mode. Functions return 0 (or an fd) or -1 with errno.
 */
#ifndef ARCTURN_WSVIEW_H
#define ARCTURN_WSVIEW_H

#include <stddef.h>

#include "session/session.h"

struct wsview {
	struct session	*s;		/* the shadow tree, or NULL: real */
	int		 rootfd;	/* the workspace root */
};

/*
 * The path of path (absolute, or relative to workspace, a canonical
 * absolute path) as the commands use it: the existing part through
 * realpath, the rest lexically (path_canon, PATH_LEXICAL). Returns 0 with
 * *out set to the workspace-relative path when it lies strictly beneath
 * workspace, 1 with *out set to the absolute path when it does not, -1
 * with errno (EISDIR: the workspace itself; ENOENT: an empty path).
 * mem_free *out.
 */
int	wsview_resolve(const char *workspace, const char *path, char **out);

/* Open path for reading: a regular file only (EISDIR, EINVAL). */
int	wsview_open(const struct wsview *, const char *path);

/* Read the whole regular file path, at most max bytes (EFBIG beyond). */
int	wsview_read(const struct wsview *, const char *path, size_t max,
	    char **buf, size_t *len);

/* Replace path's content atomically (EISDIR, EINVAL for a special file). */
int	wsview_write(const struct wsview *, const char *path, const void *buf,
	    size_t len);

/* As wsview_write, the content read from fd to its end (stdin, a pipe). */
int	wsview_write_fd(const struct wsview *, const char *path, int fd);

/*
 * What path is in the view, not following a final symlink: 0 absent,
 * else its S_IFMT bits (S_IFREG, S_IFDIR, S_IFIFO, S_IFSOCK, S_IFCHR,
 * S_IFBLK, S_IFLNK); -1 with errno.
 */
int	wsview_kind(const struct wsview *, const char *path);

/*
 * Remove the temp files a killed arcturn left (fsx.h, FSX_TMP_PREFIX) in
 * the directory that holds path, in the view (upper/ for a session).
 * Best effort.
 */
void	wsview_sweep(const struct wsview *, const char *path);

/*
 * wsview_write and wsview_write_fd, and in the real tree, once the parent
 * directory is open and before anything is written, check(dirfd, name,
 * arg): -1 (errno set) refuses. The file tools check there that the
 * directory opened is the one whose path they checked against the policy.
 * With want (not NULL) the write is a compare-and-swap as
 * wsview_replace_if's: path must hold content whose SHA-256 is want
 * (`arcturn write --expect-sha256`, which MCP's edit_file writes
 * through), else ECANCELED and nothing is written.
 */
typedef int wsview_check_fn(int dirfd, const char *name, void *arg);
int	wsview_write_checked(const struct wsview *, const char *path,
	    const void *buf, size_t len, const unsigned char *want,
	    wsview_check_fn *check, void *arg);
int	wsview_write_fd_checked(const struct wsview *, const char *path,
	    int fd, const unsigned char *want, wsview_check_fn *check,
	    void *arg);

/*
 * wsview_write_checked as a compare-and-swap (edit): path is replaced
 * only while it still is a regular file holding exactly the wlen bytes of
 * was (what the caller read), else nothing is written and the call fails
 * with ECANCELED (also when path is gone by then). In the real tree
 * fsx_replace_if does it (exchange, hash what moved aside, exchange back
 * on a mismatch); in a session, whose LOCK_EX the caller holds, path is
 * hashed again through the view before the write.
 */
int	wsview_replace_if(const struct wsview *, const char *path,
	    const void *was, size_t wlen, const void *buf, size_t len,
	    wsview_check_fn *check, void *arg);

#endif
