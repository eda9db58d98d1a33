/*
 * session: the dry-run session store under $ARCTURN_HOME/overlays/.
 *
 * Layout (everything 0700/0600, owned by the user):
 *
 *   overlays/.lock            global lock: session creation, defaults
 *   overlays/.default-<H>     "<id>\n": the default session of the
 *                             workspace whose canonical root hashes
 *                             (SHA-256, hex) to H
 *   overlays/.tmp-<R>/        a session being created (renamed into place
 *                             when whole: a session is whole or absent)
 *   overlays/.trash-<R>/      a session being removed (a remover sweeps
 *                             every .trash-*, and .tmp-* over an hour
 *                             old, that a crash left)
 *   overlays/<id>/meta.json   {"version":1,"id":..,"workspace":..,
 *                             "created":"YYYY-MM-DDTHH:MM:SSZ"}
 *   overlays/<id>/lock        flock(2)ed by readers (shared) and by
 *                             every mutation (exclusive)
 *   overlays/<id>/upper/      the shadow tree, exactly an overlayfs upper
 *                             dir for lower = workspace root
 *   overlays/<id>/work/       overlayfs's work dir
 *   overlays/<id>/work.old/   the last run's work/work, being deleted
 *   overlays/<id>/running     while a dry-run command runs: a symlink to
 *                             the boot id (`idle` between runs)
 *   overlays/<id>/interrupted a restart cut a dry-run command short
 *   overlays/<id>/base/<P>    one base record per captured path, named by
 *                             the SHA-256 (hex) of the workspace-relative
 *                             path P
 *
 * A base record is the state of the real path when it was first captured
 * (first write, edit or removal through the session), written once and
 * never replaced: one line `<kind> <mode> <sha256-hex>\n` followed by the
 * raw path bytes (so a path may hold any byte but NUL). kind is absent,
 * file, link or dir; mode is octal permission bits; the hash is of the
 * content (file) or the link target (link), zeros otherwise. A flat
 * directory keyed by hash keeps records of "a" (a file) and "a/b" (after
 * a became a directory) apart, which a mirror tree could not.
 *
 * Ids match [a-z0-9][a-z0-9-]{0,63}; every function that takes an id
 * refuses anything else (EINVAL) before a path is built from it. New ids
 * are 16 hex digits from hash_random().
 *
 * Functions return 0 or -1 with errno. Besides the usual:
 *	EINVAL	 invalid id
 *	ENOENT	 no such session
 *	EBADMSG	 meta.json or a base record is corrupt (s->why says how)
 *	ESTALE	 the session was removed while we waited for its lock
 */
#ifndef ARCTURN_SESSION_H
#define ARCTURN_SESSION_H

#include <stddef.h>
#include <time.h>

#include "apply.h"

#define SESSION_IDMAX		64
#define SESSION_VERSION		1

struct session {
	char		 id[SESSION_IDMAX + 1];
	char		*workspace;	/* canonical root, from meta.json */
	char		 created[32];	/* as in meta.json */
	int		 storefd;	/* overlays/ (borrowed) */
	int		 dirfd;		/* overlays/<id> */
	int		 upperfd;	/* overlays/<id>/upper */
	int		 basefd;	/* overlays/<id>/base */
	int		 lockfd;	/* overlays/<id>/lock */
	int		 locked;	/* 0, or LOCK_SH / LOCK_EX */
	char		 why[160];	/* detail for EBADMSG */
};

/* 1 when id is a valid session id, else 0. */
int	session_id_valid(const char *id);

/* A fresh random id (16 hex digits). */
int	session_new_id(char id[SESSION_IDMAX + 1]);

/*
 * Open $state/overlays as an O_DIRECTORY fd. With create, the state dir
 * and overlays/ are made (0700) when missing; without, ENOENT.
 */
int	session_store_open(const char *state, int create);

/*
 * The default session id of a workspace (canonical root). With create,
 * a missing (or stale) default is made: a new random id, a new session,
 * then the .default record, all under the global lock. Without create,
 * ENOENT when there is none.
 */
int	session_default(int storefd, const char *workspace, int create,
	    char id[SESSION_IDMAX + 1]);

/*
 * Open session id into *s (zeroed here). With workspace non-NULL a
 * missing session is created for that workspace (a racing creator wins
 * and its session is opened). The session is not locked.
 */
int	session_open(int storefd, const char *id, const char *workspace,
	    struct session *s);

/*
 * flock the session, op LOCK_SH or LOCK_EX, waiting. Fails with ESTALE
 * when the session dir was removed or replaced meanwhile: close it and
 * open again.
 */
int	session_lock(struct session *s, int op);
void	session_unlock(struct session *s);

/* Close fds and free; s may be a zeroed or half-opened struct. */
void	session_close(struct session *s);

/*
 * Remove the session (the caller holds LOCK_EX): the dir is renamed to
 * overlays/.trash-<R> first (so it vanishes at once), then deleted
 * without following any symlink or crossing a mount point, and the
 * workspace's .default record is dropped if it named this id. s is
 * closed in every case.
 */
int	session_remove(struct session *s);

/* Every session id in the store, sorted; free with session_ids_free. */
int	session_list(int storefd, char ***ids, size_t *n);
void	session_ids_free(char **ids, size_t n);

/*
 * Base records. session_base_get fills *b (ENOENT: none). session_base_put
 * writes the record unless one exists (then it does nothing: the first
 * capture wins). session_base_del drops it (no record: 0).
 */
int	session_base_get(struct session *s, const char *rel,
	    struct apply_base *b);
int	session_base_put(struct session *s, const char *rel,
	    const struct apply_base *b);
int	session_base_del(struct session *s, const char *rel);

/*
 * A dry-run command runs on a volatile overlayfs mount (landlock-helper
 * -o): nothing is synced when it ends and fsync inside it does nothing, so
 * the session makes what the command wrote durable itself. Around each
 * command, under LOCK_EX:
 *
 *   session_run_begin	moves the last run's work/work aside to work.old
 *			(overlayfs refuses a work dir that a volatile mount
 *			marked, and it would otherwise delete and remake
 *			work/work inside the mount, which on a file system
 *			mounted with discard waits for the disk), settles a
 *			run that never ended, then leaves the mark `running`:
 *			a symlink whose target is the boot id
 *   session_run_sweep	deletes work.old; call it while the command runs
 *   session_run_changed 1 when anything in upper/ changed since the mark
 *			was made (by ctime), when the clock was set meanwhile,
 *			or when begin found an earlier run that never ended;
 *			else 0 (nothing new to record or sync)
 *   session_run_end	opens up the mode-0 dirs overlayfs left (so that
 *			an unprivileged owner can rm -r the session); with
 *			changed, syncs the session's file system; then
 *			renames the mark `idle`, for the next run to rename
 *			back (a rename allocates no inode)
 *
 * A mark from this boot means arcturn itself was killed mid-run: the page
 * cache still holds everything, and a sync settles it. A mark from an
 * earlier boot means a restart cut the run short and part of what it
 * wrote may never have reached the disk: the mark is renamed
 * `interrupted` and stays until the session is removed.
 */
struct session_run {
	struct timespec	since;	/* ctime of the mark */
	int		cut;	/* begin found a run a restart cut short */
	int		stale;	/* begin found a run that never ended */
	long long	clock;	/* realtime - monotonic at begin (ns) */
};
int	session_run_begin(struct session *s, struct session_run *r);
void	session_run_sweep(struct session *s);
int	session_run_changed(struct session *s, const struct session_run *r);
int	session_run_end(struct session *s, int changed);
/*
 * 1 when a restart cut a dry-run command in this session short (the mark
 * `interrupted`, or a `running` mark from another boot not yet settled).
 */
int	session_interrupted(const struct session *s);

/*
 * Delete dirfd/name and everything beneath it without following symlinks
 * or leaving dirfd's file system. A missing name is not an error.
 */
int	session_rmtree(int dirfd, const char *name);

#endif
