/*
 * overlay: the shadow tree of a dry-run session (copy-up, redirected
 * reads, whiteouts), the change list it amounts to, its git-style diff
 * and the apply plan.
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
 * its lock, LOCK_EX around overlay_write/overlay_remove and apply, LOCK_SH
 * at least around listing and rendering. rootfd is an O_DIRECTORY fd of the
 * workspace root; nothing here follows a symlink out of it or out of
 * upper/. rel is workspace-relative, '/'-separated, without "." or ".."
 * components (overlay_resolve makes one).
 *
 * Base records (session.h) are written on the first capture of a path;
 * a change without one (made by overlayfs under `exec --dry-run`) takes
 * the real path's current state as its base.
 *
 * The modules never print: problems with one file while listing or
 * rendering (a file that vanished or turned into a fifo meanwhile, a
 * special file in upper/) go to the warn callback and the file is left
 * out; every other error ends the call with -1 and errno.
 */
#ifndef ARCTURN_OVERLAY_H
#define ARCTURN_OVERLAY_H

#include <stddef.h>
#include <sys/types.h>

#include "apply.h"
#include "hash.h"
#include "session.h"
#include "udiff.h"

/* Files larger than this are compared and hashed as binary, never loaded. */
#define OVERLAY_BIGFILE		((size_t)64 << 20)

enum overlay_kind {
	OVERLAY_ABSENT,
	OVERLAY_FILE,
	OVERLAY_SYMLINK,
	OVERLAY_DIR,
	OVERLAY_SPECIAL		/* fifo, socket, device */
};

enum overlay_status {
	OVERLAY_ADDED,		/* absent -> file or symlink */
	OVERLAY_MODIFIED,	/* content (and maybe mode) changed */
	OVERLAY_DELETED,	/* file or symlink -> absent */
	OVERLAY_MODE,		/* permission bits only */
	OVERLAY_TYPE,		/* file <-> symlink */
	OVERLAY_MKDIR,		/* a new directory */
	OVERLAY_RMDIR,		/* a directory removed (after its files) */
	OVERLAY_DIRMODE		/* a directory's permission bits */
};

struct overlay_change {
	char			*path;		/* workspace-relative */
	char			*origin;	/* the upper/ entry it comes
						   from: itself, a whiteout
						   or an opaque dir */
	enum overlay_status	 status;
	enum overlay_kind	 old_kind;	/* real file now */
	enum overlay_kind	 new_kind;
	unsigned int		 old_mode;	/* permission bits */
	unsigned int		 new_mode;
	long long		 old_size;
	long long		 new_size;
	int			 implied;	/* a dir change with a change
						   beneath it: not counted */
	/* filled by overlay_diff */
	int			 gone;		/* vanished: left out */
	struct udiff_stats	 st;
	/* filled by the caller after apply */
	int			 applied;
};

struct overlay_changes {
	struct overlay_change	*v;		/* bytewise path order */
	size_t			 n;
	size_t			 count;		/* entries not implied */
};

/* One problem with one path; err is an errno value or 0. */
typedef void overlay_warn_fn(const char *path, int err, const char *what,
    void *arg);

/*
 * Canonical workspace-relative form of path (absolute, or relative to
 * the workspace root): the longest existing prefix goes through
 * realpath(3), the rest is cleaned lexically. Returns 0 with *rel set
 * (mem_free it) when the result lies strictly beneath workspace, 1 with
 * *rel set to the absolute result when it does not, -1 with errno.
 */
int	overlay_resolve(const char *workspace, const char *path, char **rel);

/*
 * Open rel for reading as the session sees it: the shadow copy if there
 * is one, ENOENT for a whiteout (or a path hidden by one), else the real
 * file beneath rootfd. Never blocks on a fifo: EINVAL for anything but a
 * regular file. *shadow tells where it came from.
 */
int	overlay_open(struct session *, int rootfd, const char *rel,
	    int *shadow);

/*
 * The content and mode of rel as the session sees it (as overlay_open),
 * up to max bytes (EFBIG beyond). *buf is the caller's (mem_free).
 */
int	overlay_read(struct session *, int rootfd, const char *rel,
	    size_t max, char **buf, size_t *len, mode_t *mode);

/*
 * Write len bytes as the new content of rel in the shadow tree. The first
 * touch records the base and keeps the real file's mode (a copy-up whose
 * content is replaced); a new file gets newmode; missing parents are made
 * in upper/ with the real directories' modes, or newdirmode for new ones.
 * EISDIR for a directory, EINVAL for a special file.
 */
int	overlay_write(struct session *, int rootfd, const char *rel,
	    const void *buf, size_t len, mode_t newmode, mode_t newdirmode);

/*
 * Delete rel (a file or symlink) in the shadow tree: a whiteout when the
 * real path exists, else the shadow entry just goes. ENOENT when the
 * session sees nothing there; EISDIR for a directory.
 */
int	overlay_remove(struct session *, int rootfd, const char *rel);

/* Whether upper/rel is a whiteout (either form): 1, 0, or -1. */
int	overlay_is_whiteout(int dirfd, const char *name);

/* Build the change list (freed with overlay_changes_free, even on -1). */
int	overlay_changes(struct session *, int rootfd,
	    struct overlay_changes *,
	    overlay_warn_fn *, void *);
void	overlay_changes_free(struct overlay_changes *);

/*
 * Render each change with udiff_file (opts as given) through out, feed
 * digest (may be NULL) with the full change set: for every change a line
 * naming its status, modes and path, its uncapped section, and for a
 * binary or big file the SHA-256 of both sides. A change whose file
 * vanished is marked gone, warned about and left out. Fills each
 * change's st.
 */
int	overlay_diff(struct session *, int rootfd, struct overlay_changes *,
	    const struct udiff_opts *, udiff_out_fn *out, void *arg,
	    struct hash_ctx *digest, overlay_warn_fn *, void *warnarg);

/*
 * Select changes for apply: with npaths == 0 all, else those whose path
 * is one of paths[] or beneath one (a dir change is selected with the
 * files under it). *unmatched is the index of a path that selects
 * nothing, or -1.
 */
int	overlay_select(struct overlay_changes *, char *const *paths,
	    size_t npaths, int *sel, long *unmatched);

/*
 * The apply plan for the selected changes, in phases to run one after
 * the other through apply_run:
 *
 *	OVERLAY_PH_DELETE	files and symlinks removed (deepest first)
 *	OVERLAY_PH_RMTREE	directories removed (deepest first); run one
 *				only when nothing beneath it failed
 *	OVERLAY_PH_MKDIR	new directories (parents first), made with
 *				owner rwx so the files can go in
 *	OVERLAY_PH_FILES	files, symlinks, file modes (path order)
 *	OVERLAY_PH_DIRMODE	directory modes, new dirs' exact modes
 *				(deepest first)
 *
 * Within OVERLAY_PH_DELETE and OVERLAY_PH_FILES no item depends on
 * another; their items are grouped by parent directory, and different
 * groups may run concurrently (never one directory in two runs at once:
 * apply_run sweeps a directory's leftover temp files when it enters it).
 * overlay_same_dir tells where groups end. items[ph][k]
 * belongs to change owner[ph][k]; one change may own two items (a new
 * dir with a mode lacking u+rwx). Bases come from the base records, else
 * from the real path now. Free with overlay_plan_free.
 */
enum {
	OVERLAY_PH_DELETE,
	OVERLAY_PH_RMTREE,
	OVERLAY_PH_MKDIR,
	OVERLAY_PH_FILES,
	OVERLAY_PH_DIRMODE,
	OVERLAY_NPHASE
};

struct overlay_plan {
	struct apply_item	*items[OVERLAY_NPHASE];
	size_t			*owner[OVERLAY_NPHASE];
	size_t			 n[OVERLAY_NPHASE];
};

int	overlay_plan(struct session *, int rootfd, struct overlay_changes *,
	    const int *sel, struct overlay_plan *);

/* Whether two workspace-relative paths have the same parent directory. */
int	overlay_same_dir(const char *, const char *);
void	overlay_plan_free(struct overlay_plan *);

/*
 * Record the real state now as the base of every pending change that has
 * no base record yet (the first capture wins, so write/edit records stay).
 * `exec --dry-run` calls this, under LOCK_EX, right after the command
 * ends: overlayfs writes no base records, and without one apply could not
 * tell a later change of the real file (a conflict) from the base. Costs
 * one small fsynced file per change.
 */
int	overlay_record_bases(struct session *, int rootfd);

/*
 * After apply: drop from upper/ (and the base records) every change
 * marked applied, an entry only once all changes that came from it are
 * applied; then empty directories that are no pending change. Returns the
 * number of entries that could not be dropped, or -1.
 */
int	overlay_settle(struct session *, struct overlay_changes *);

/* Short name of a status: added, modified, deleted, mode, typechange,... */
const char *overlay_status_name(enum overlay_status);

#endif
