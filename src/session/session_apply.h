/*
 * session_apply: the mark an apply leaves in a session while it links the
 * session's own copies into the workspace, and what a dry run does when
 * it finds one.
 *
 * apply can put a session's copy of a file in place by linking it in
 * (apply.h: give_src): a link of upper/<path> under a temp name beside
 * the real file, an exchange with the real file, then the unlink of the
 * upper/ name. Until that unlink is done and on disk, upper/<path> and a
 * real file are one inode, and a dry-run command writing to <path> would
 * write to the real file (overlayfs writes an upper file in place). A
 * kill or a crash in between leaves that, and so may the user's renaming
 * the real file afterwards: the alias then sits under another real name.
 *
 *   session_apply_begin	before the first copy is linked (LOCK_EX):
 *				leaves the mark `applying` in the session
 *				dir, synced. It stays until a dry run has
 *				looked, or the session is removed (as an
 *				apply that leaves nothing pending does).
 *   session_unalias		before a dry-run command (LOCK_EX), rootfd
 *				the workspace root: without the mark, nothing.
 *				With it, every regular file of upper/ with
 *				more links than it has names in upper/ is one
 *				of those (links a dry-run command made between
 *				files of upper/ stay, unless one of them has
 *				a link outside too): where the real file at
 *				its path (through real directories, no
 *				symlink) is the same inode, the change is
 *				applied, and the name goes after its base
 *				record (synced first); elsewhere it becomes a
 *				copy of its own (a new inode with its mode and
 *				bytes, owned by us, no xattrs, a new mtime;
 *				the change still pending). Then a sync of the
 *				file system (apply's own unlinks too), a tick
 *				of the clock (session_run.h compares ctimes:
 *				the fixes stamped the real files), and the
 *				mark goes. Returns how many names it fixed,
 *				or -1 with errno and the mark left for the
 *				next one (the dry run does not run).
 *
 * Paths apply never applies (deeper than SHADOW_DEPTH_MAX, longer than
 * PATH_MAX) are not walked. A directory of upper/ whose mode would stop
 * the walk or a fix (a command's chmod 0, 100 or 555) is opened up to
 * 0700 for it and given its mode back.
 */
#ifndef ARCTURN_SESSION_APPLY_H
#define ARCTURN_SESSION_APPLY_H

#include "session/session.h"

int	session_apply_begin(struct session *s);
long	session_unalias(struct session *s, int rootfd);

#endif
