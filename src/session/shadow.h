/*
 * shadow: the shadow tree of a dry-run session, the files a dry-run
 * write, edit or remove lands in, and the merged view of them over the
 * real workspace (copy-up, redirected open and read, whiteouts).
 *
 * The session's upper/ is laid out exactly as an overlayfs upper dir with
 * the workspace root as lower: regular files, symlinks and directories
 * stand for themselves; a deletion is a whiteout, a character device
 * 0/0 (Linux lets an unprivileged user mknod exactly that device since
 * 5.8; verified as nobody on 6.18). Where mknod is refused (older
 * kernels, macOS) the xattr form is written instead: an empty regular
 * file with user.overlay.whiteout, its parent marked user.overlay.opaque
 * = "x". Beware that overlayfs honours the xattr form fully only in lower
 * layers: on 6.18, in an upper dir (userxattr mount) lookup hides the
 * name but readdir still lists it, so the char device is the form to use
 * wherever it can be made. A directory whose trusted.overlay.opaque or
 * user.overlay.opaque is "y" hides the real directory's contents. Both
 * whiteout forms and both xattr namespaces are read. Redirect and
 * metacopy xattrs are not interpreted: the helper mounts with
 * redirect_dir=off and metacopy=off (the defaults with userxattr).
 *
 * Calling sequence: the caller opens the session (session.h) and holds
 * its lock, LOCK_EX around shadow_write and shadow_remove, LOCK_SH at
 * least around shadow_open and shadow_read. rootfd is an O_DIRECTORY fd of
 * the workspace root; nothing here follows a symlink out of it or out of
 * upper/. rel is workspace-relative, '/'-separated, without "." or ".."
 * components (wsview_resolve makes one).
 *
 * Base records (session.h) are written on the first capture of a path,
 * before the shadow copy: a crash leaves a record, never a bare copy. A
 * path that upper/ already holds without a record (a dry run that was
 * killed before it could record its bases) gets an unrecorded one: its
 * real state now is not what the change was made on.
 *
 * Limits are checked before anything is made (shadow_path_problem), and
 * a write or remove that fails leaves nothing behind in upper/: the
 * directories it made, and their base records, go again.
 *
 * Functions return 0 (or an fd) or -1 with errno.
 */
#ifndef ARCTURN_SHADOW_H
#define ARCTURN_SHADOW_H

#include <sys/stat.h>
#include <sys/types.h>

#include <limits.h>
#include <stddef.h>

#include "apply/apply.h"
#include "session/session.h"

/*
 * The limits of a path in a session: components (directories nested) and
 * bytes. Deeper or longer paths are refused before anything is made; a
 * dry-run command that makes one anyway gets it refused at apply.
 */
#define SHADOW_DEPTH_MAX	512
#define SHADOW_PATH_MAX		(PATH_MAX - 1)

/* What a name is, in upper/ or in the real tree. */
enum shadow_kind {
	SHADOW_ABSENT,
	SHADOW_FILE,
	SHADOW_SYMLINK,
	SHADOW_DIR,
	SHADOW_SPECIAL,		/* socket, device */
	SHADOW_FIFO,
	SHADOW_WHITEOUT = 100	/* upper/ only: either form */
};

/*
 * Why rel cannot be a path in a session, or NULL: "a name in it is
 * longer than 255 bytes", "longer than 4095 bytes", "nested deeper than
 * 512 directories", "empty, or a component is empty, . or ..", "a name in
 * it is reserved for arcturn's temp files" (fsx.h: FSX_TMP_PREFIX and 16
 * hex digits, which listings skip and sweeps remove).
 */
const char *shadow_path_problem(const char *rel);

/*
 * Open rel for reading as the session sees it: the shadow copy if there
 * is one, ENOENT for a whiteout (or a path hidden by one), else the real
 * file beneath rootfd. Never blocks on a fifo: EINVAL for anything but a
 * regular file. *shadow tells where it came from.
 */
int	shadow_open(struct session *, int rootfd, const char *rel,
	    int *shadow);

/*
 * The content and mode of rel as the session sees it (as shadow_open),
 * up to max bytes (EFBIG beyond). *buf is the caller's (mem_free).
 */
int	shadow_read(struct session *, int rootfd, const char *rel,
	    size_t max, char **buf, size_t *len, mode_t *mode);

/*
 * Write len bytes as the new content of rel in the shadow tree. The first
 * touch records the base and keeps the real file's mode (a copy-up whose
 * content is replaced); a new file gets newmode; missing parents are made
 * in upper/ with the real directories' modes, or newdirmode for new ones.
 * EISDIR for a directory, EINVAL for a special file (shadow_lookup says
 * which), ENAMETOOLONG or ELOOP when shadow_path_problem has a reason.
 */
int	shadow_write(struct session *, int rootfd, const char *rel,
	    const void *buf, size_t len, mode_t newmode, mode_t newdirmode);

/* As shadow_write, the content read from fd to its end (a pipe is fine). */
int	shadow_write_fd(struct session *, int rootfd, const char *rel, int fd,
	    mode_t newmode, mode_t newdirmode);

/*
 * What rel is as the session sees it (*st its lstat): SHADOW_ABSENT
 * (also beneath a whiteout), FILE, SYMLINK, DIR, FIFO or SPECIAL; -1
 * with errno (ENOTDIR: a parent is not a directory).
 */
int	shadow_lookup(struct session *, int rootfd, const char *rel,
	    struct stat *st);

/*
 * Delete rel (a file or symlink) in the shadow tree: a whiteout when the
 * real path exists, else the shadow entry just goes. ENOENT when the
 * session sees nothing there; EISDIR for a directory.
 */
int	shadow_remove(struct session *, int rootfd, const char *rel);

/*
 * The pieces the change list (changes.h) reads upper/ with.
 *
 * shadow_kind: what dirfd/name is (lstat into *st); with upper, a
 * whiteout is SHADOW_WHITEOUT. A missing name (ENOENT, ENOTDIR) is
 * SHADOW_ABSENT; -1 with errno for any other failure.
 * shadow_is_whiteout: whether upper dirfd/name is a whiteout: 1, 0, -1.
 * shadow_opaque: 'y' when the upper dir fd hides the real one's contents,
 * 'x' when it holds xattr whiteouts, else 0.
 * shadow_list: the names in dirfd as fsx_list gives them, without fsx
 * temp files (they are not entries of either tree).
 */
int	shadow_kind(int dirfd, const char *name, struct stat *st, int upper);
int	shadow_is_whiteout(int dirfd, const char *name);
int	shadow_opaque(int fd);
int	shadow_list(int dirfd, char ***names, size_t *n);

#endif
