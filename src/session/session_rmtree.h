/*
 * session_rmtree: delete a tree the session store holds (a session being
 * removed, a dry run's old work dir, a shadow subtree), however deep and
 * however a dry-run command left it.
 *
 * Returns 0 or -1 with errno: ESTALE when a directory's parent changed
 * under the walk (someone moved the tree while we deleted it), EXDEV for
 * a mount point found inside, or the error of an entry that could not be
 * removed (the walk goes on past it, so as much as possible goes).
 */
#ifndef ARCTURN_SESSION_RMTREE_H
#define ARCTURN_SESSION_RMTREE_H

/*
 * Delete dirfd/name and everything beneath it without following symlinks
 * or leaving dirfd's file system, however deep the tree (one directory fd
 * open at a time; directories a dry run left without permissions are
 * opened up first). A missing name is not an error.
 */
int	session_rmtree(int dirfd, const char *name);

/*
 * session_rmtree by a few threads at once: each unlink and rmdir waits
 * for the device to take back the blocks it freed (one discard each on a
 * file system mounted with -o discard), so a session's thousands of base
 * records and directories go in a fraction of the time one after another
 * takes. The same rules and result as session_rmtree (which finishes what
 * the threads leave: a tree deeper than the fds they may hold, an error).
 */
int	session_rmtree_wide(int dirfd, const char *name);

#endif
