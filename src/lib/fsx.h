/*
 * fsx: fd-relative file helpers for untrusted trees. Nothing here follows
 * a symlink out of the directory it starts from, and nothing opens a
 * concatenated path string.
 *
 * Every function returns >= 0 (an fd, or 0) or -1 with errno:
 *   EXDEV   the path resolves outside root (a symlink or ".." leads out)
 *   ELOOP   a symlink where none may be followed (final component, NOFOLLOW)
 *   others  as from the underlying call
 * errno is kept intact across cleanup. All fds are O_CLOEXEC.
 *
 * Sections: resolve beneath, atomic replace, read, list, test seams.
 * fsx.c holds all but atomic replace, which is in fsx_replace.c. What
 * differs between systems (openat2, renameat2, O_PATH) is behind os.h.
 */
#ifndef ARCTURN_FSX_H
#define ARCTURN_FSX_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "lib/hash.h"

/*
 * ---- Resolve beneath ----
 *
 * Linux uses openat2(RESOLVE_BENEATH) where the kernel has it and falls
 * back to a component-by-component walk with O_NOFOLLOW (the only method
 * on macOS); both give the same answers.
 */

/*
 * Open rel (relative, '/'-separated, no leading '/') beneath rootfd.
 * Symlinks inside the path are followed only while they stay beneath root
 * (relative links); absolute links and ".." above root give EXDEV. flags as
 * for openat(2); O_NOFOLLOW applies to the last component.
 */
int	fsx_open_beneath(int rootfd, const char *rel, int flags, mode_t mode);

/*
 * Open the parent directory of rel beneath rootfd, as fsx_open_beneath
 * does, and point *base at rel's last component (inside rel). With
 * mkdirs, missing parents are created (mode 0755, subject to umask).
 */
int	fsx_open_parent(int rootfd, const char *rel, int mkdirs,
	    const char **base);

/*
 * Open the folders of rel beneath dirfd one name at a time, never
 * following a symlink (a link in the way is ELOOP), and return the last
 * one's fd (close-on-exec; O_PATH for a folder that may be searched but
 * not listed; a new fd even when rel names none). FSX_DIRS_PARENT walks
 * only rel's parent folders and points *base at its last name (which
 * must be a file name: "", "." or ".." is EINVAL); FSX_DIRS_MAKE makes a
 * missing folder with mode (whatever the umask) and sets *made when it
 * did (made may be NULL). An absolute or empty rel, or a "." or ".."
 * name on the way, is EINVAL, a name over NAME_MAX ENAMETOOLONG;
 * repeated slashes are one. On failure *base (when not NULL) points at
 * the name that failed, if one did: the link, with ELOOP. Unlike
 * fsx_open_parent, which follows a link that stays beneath root, this is
 * for trees arcturn owns or where a link must not count.
 */
#define FSX_DIRS_PARENT	1
#define FSX_DIRS_MAKE	2
int	fsx_open_dirs(int dirfd, const char *rel, int flags, mode_t mode,
	    const char **base, int *made);

/*
 * chmod dirfd/name without ever following a symlink: EOPNOTSUPP if it is
 * one. Linux pins the inode with O_PATH and changes it through
 * /proc/self/fd; without /proc it opens the object O_NOFOLLOW and fchmods.
 */
int	fsx_chmod_nofollow(int dirfd, const char *name, mode_t mode);

/* close(fd) when fd >= 0, keeping errno: for cleanup paths. */
void	fsx_close(int fd);

/*
 * ---- Atomic replace ----
 *
 * Temp files are named FSX_TMP_PREFIX + 16 lower-case hex digits, made
 * in the destination directory. One may survive a kill -9 between its
 * creation and the rename; fsx_is_tmp_name recognises the exact pattern
 * and fsx_sweep_tmp unlinks every such name in dirfd (returns how many,
 * or -1 with errno). A listing of the tree should skip these names.
 */
#define FSX_TMP_PREFIX	".arcturn-tmp-"
#define FSX_TMP_RANDLEN	16
#define FSX_TMP_NAMELEN	(sizeof FSX_TMP_PREFIX - 1 + FSX_TMP_RANDLEN)

/*
 * The name an object takes right before it is exchanged with what stands
 * at a path (apply, and edit's fsx_replace_if): FSX_SWP_PREFIX, its inode
 * number as 16 hex digits, '-', 4 more. After the exchange the name holds
 * what was moved aside, which may be a user's only copy of a version
 * saved meanwhile: so fsx_sweep_tmp unlinks such a name only while it
 * holds the inode it names (ours, never exchanged) or a regular file with
 * another link (kept elsewhere), and leaves anything else where it is.
 * fsx_swap_name renames dirfd/from (inode ino) to such a name, set in
 * out: 0 or -1 with errno.
 */
#define FSX_SWP_PREFIX	".arcturn-swp-"
#define FSX_SWP_NAMELEN	(sizeof FSX_SWP_PREFIX - 1 + 16 + 1 + 4)
int	fsx_swap_name(int dirfd, const char *from, ino_t ino,
	    char out[FSX_SWP_NAMELEN + 1]);

/* Flags of the atomic writers. */
#define FSX_NOREPLACE	1	/* fail with EEXIST if name exists by then */
#define FSX_NOSYNC	2	/* no fsync of the file and the directory:
				   the caller syncs the file system once
				   (syncfs) after a batch */

/*
 * Replace (or create) dirfd/name with len bytes of buf and the given mode,
 * atomically: a temp file in dirfd, write, fchmod, fsync, rename, fsync of
 * dirfd. With FSX_NOREPLACE the rename fails with EEXIST if name exists by
 * then (renameat2 RENAME_NOREPLACE, or link+unlink where that is missing).
 * The temp file never survives a failure.
 */
int	fsx_write_atomic(int dirfd, const char *name, const void *buf,
	    size_t len, mode_t mode, int flags);

/*
 * As fsx_write_atomic, with the bytes streamed from the regular file
 * srcfd (read with pread from offset 0 to its size at the start; holes
 * stay holes), so a large file is never held in memory. EINVAL if srcfd
 * is not a regular file.
 */
int	fsx_write_atomic_fd(int dirfd, const char *name, int srcfd,
	    mode_t mode, int flags);

/*
 * As fsx_write_atomic, with the bytes read from srcfd (a pipe, a
 * terminal, a file) up to its end, a buffer at a time: what `write`
 * reads from stdin is never held in memory whole.
 */
int	fsx_write_atomic_stream(int dirfd, const char *name, int srcfd,
	    mode_t mode, int flags);

/*
 * Create or replace the symlink dirfd/name pointing at target, atomically
 * (symlinkat to a temp name, rename, fsync of dirfd); flags as for
 * fsx_write_atomic. The temp link never survives a failure.
 */
int	fsx_symlink_atomic(int dirfd, const char *name, const char *target,
	    int flags);

/*
 * The pieces for a caller that puts the new object in place itself (apply
 * swaps it in with os_rename_exchange and checks what it moved aside).
 * Each makes a new object under a fresh temp name in dirfd (tmp gets the
 * name) and leaves it there (a file's bytes fsynced; the caller fsyncs
 * dirfd once the object is in place):
 *
 *   fsx_tmp_file	a regular file with srcfd's bytes (as
 *			fsx_write_atomic_fd) and mode; *st its stat. With
 *			fdp, it is not synced: *fdp is its open fd, for
 *			the caller to sync and close
 *   fsx_tmp_symlink	a symlink to target
 *   fsx_tmp_fifo	a fifo with mode (not masked by umask)
 *   fsx_tmp_link	a hard link to fromdir/from (a regular file)
 *
 * Nothing is left on failure. fsx_rename_noreplace renames dirfd/from to
 * dirfd/to unless to exists (EEXIST), with link+unlink where the system
 * lacks the exclusive rename (regular files and symlinks only).
 */
int	fsx_tmp_file(int dirfd, int srcfd, mode_t mode,
	    char tmp[FSX_TMP_NAMELEN + 1], struct stat *st, int *fdp);
int	fsx_tmp_symlink(int dirfd, const char *target, char tmp[FSX_TMP_NAMELEN + 1]);
int	fsx_tmp_fifo(int dirfd, mode_t mode, char tmp[FSX_TMP_NAMELEN + 1]);
int	fsx_tmp_link(int fromdir, const char *from, int dirfd, char tmp[FSX_TMP_NAMELEN + 1]);
int	fsx_rename_noreplace(int dirfd, const char *from, const char *to);

/*
 * Compare-and-swap of a regular file: replace dirfd/name with len bytes of
 * buf (its mode kept) only while it is a regular file whose content has
 * the SHA-256 want, with the mode it had at the start. A temp file is
 * made and fsynced, exchanged with name (os_rename_exchange), and what
 * moved aside is hashed: on a mismatch the two are exchanged back (theirs
 * in place again, ours gone) and the call fails with ECANCELED. Where no
 * exchange exists, name is hashed once more right before a plain rename.
 * A name that is gone, or no regular file, is ECANCELED too. A writer
 * holding the old file open can still write into it after the compare
 * (as with any rename). fsx_replace_if_stream takes the bytes from srcfd
 * to its end. ARCTURN_TEST_EDIT_PAUSE_MS in the environment (tests)
 * sleeps that long right before the exchange.
 */
int	fsx_replace_if(int dirfd, const char *name,
	    const unsigned char want[HASH_LEN], const void *buf, size_t len);
int	fsx_replace_if_stream(int dirfd, const char *name,
	    const unsigned char want[HASH_LEN], int srcfd);

/*
 * fd (just opened, or -1), when it is a regular file; else -1, fd closed,
 * errno EINVAL (not a regular file) or fstat's. For
 * `fd = fsx_regular(openat(...))`.
 */
int	fsx_regular(int fd);

/* fsync a directory; one opened O_PATH (search only) counts as done. */
int	fsx_sync_dir(int dirfd);

/*
 * Touch dirfd/name (a symlink itself, not followed) until its ctime is
 * later than *t: then the file system's clock, which stamps with a coarse
 * tick, has passed *t, and whatever changes from now on is stamped later
 * than *t, as nothing that changed before is. A few milliseconds at most;
 * -1 with errno (ETIMEDOUT after two seconds).
 */
struct timespec;
int	fsx_tick_past(int dirfd, const char *name, const struct timespec *t);

/* A fresh random temp name (FSX_TMP_PREFIX...), for any other object. */
int	fsx_tmp_name(char name[FSX_TMP_NAMELEN + 1]);
int	fsx_is_tmp_name(const char *name);
int	fsx_sweep_tmp(int dirfd);
/* As fsx_sweep_tmp; left(name, arg) for each swap name it leaves. */
int	fsx_sweep(int dirfd, void (*left)(const char *, void *), void *arg);

/*
 * write(2) the whole buffer, retrying short writes and EINTR. The single
 * seam for file writes (see the test seams below).
 */
int	fsx_write_full(int fd, const void *buf, size_t len);

/*
 * ---- Read ----
 */

/*
 * Read the whole regular file dirfd/name (never following a final
 * symlink; a fifo, socket or device gives EINVAL without blocking). *buf
 * is owned by the caller (mem_free). max bounds the size (EFBIG beyond).
 */
int	fsx_read_all(int dirfd, const char *name, size_t max, char **buf,
	    size_t *len);

/* Reading an open fd to its end: readall.h (readall_fd). */

/*
 * Read a small text file by path (a /proc or /sys entry) into buf, NUL
 * terminated, trailing newlines and spaces dropped; what does not fit in
 * len - 1 bytes is cut off.
 */
int	fsx_read_line(const char *path, char *buf, size_t len);

/*
 * ---- List ----
 *
 * The names in dirfd (not . and ..), sorted bytewise, into a new array
 * (free with fsx_names_free). keep, when not NULL, says which names to
 * list (nonzero: keep).
 */
int	fsx_list(int dirfd, int (*keep)(int dirfd, const char *name, void *arg),
	    void *arg, char ***names, size_t *n);
void	fsx_names_free(char **names, size_t n);

/*
 * ---- Test seams (tests only) ----
 *
 * fsx_fail_write_after(n) makes the nth fsx_write_full call from now fail
 * with EIO (-1 turns it off); fsx_write_failed says whether it has
 * happened since. With on != 0, fsx_force_walk makes fsx_open_beneath
 * skip openat2 and always take the component-by-component walk.
 */
void	fsx_fail_write_after(long n);
int	fsx_write_failed(void);
void	fsx_force_walk(int on);

#endif
