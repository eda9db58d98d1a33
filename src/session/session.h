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
 *   overlays/<id>/meta.json   {"version":2,"id":..,"workspace":..,
 *                             "created":"YYYY-MM-DDTHH:MM:SSZ"}
 *   overlays/<id>/lock        flock(2)ed by readers (shared) and by
 *                             every mutation (exclusive)
 *   overlays/<id>/upper/      the shadow tree, exactly an overlayfs upper
 *                             dir for lower = workspace root
 *   overlays/<id>/work/       overlayfs's work dir
 *   overlays/<id>/work.old/   the last run's work/work, being deleted
 *   overlays/<id>/running     while a dry-run command runs: a symlink to
 *                             the boot id (`idle` between runs,
 *                             `incomplete` after a run whose base records
 *                             could not be written; session_run.h)
 *   overlays/<id>/interrupted a restart cut a dry-run command short
 *   overlays/<id>/applying    an apply linked the session's copies in,
 *                             and no dry run has looked since
 *                             (session_apply.h)
 *   overlays/<id>/base/<P>    one base record per captured path, named by
 *                             the SHA-256 (hex) of the workspace-relative
 *                             path P: a symlink whose target is the
 *                             record (session_base.h)
 *   overlays/<id>/replaced/<N>/  what apply N replaced or deleted (keep.h)
 *
 * Ids match [a-z0-9][a-z0-9-]{0,63}; every function that takes an id
 * refuses anything else (EINVAL) before a path is built from it. New ids
 * are 16 hex digits from hash_random().
 *
 * Functions return 0 or -1 with errno. Besides the usual:
 *	EINVAL	 invalid id
 *	ENOENT	 no such session
 *	EBADMSG	 a part of the session is missing or damaged, or a base
 *		 record is (s->why says which, e.g. "base/ missing",
 *		 "meta.json truncated (not valid JSON)", "base record for
 *		 src/a.c truncated")
 *	ESTALE	 the session was removed while we waited for its lock
 */
#ifndef ARCTURN_SESSION_H
#define ARCTURN_SESSION_H

#include <limits.h>
#include <stddef.h>

#include "apply/apply.h"

#define SESSION_IDMAX		64
/*
 * The format a new session is made in: 2, base records as links. 1 (its
 * records regular files) is still read, and becomes 2 (session_upgrade)
 * before its first link record is made; an arcturn that knows only 1
 * names a version 2 session damaged ("unsupported format version").
 */
#define SESSION_VERSION		2
#define SESSION_VERSION_FILES	1

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
	int		 nosync;	/* base records without fsync: the
					   caller syncs the file system */
	int		 version;	/* of meta.json: SESSION_VERSION or
					   SESSION_VERSION_FILES */
	char		 why[PATH_MAX + 64]; /* detail for EBADMSG */
};

/* 1 when id is a valid session id, else 0. */
int	session_id_valid(const char *id);

/* A fresh random id (16 hex digits). */
int	session_new_id(char id[SESSION_IDMAX + 1]);

/*
 * Where a session lives on disk, for messages and for the mount layer:
 * $state/overlays (id NULL), $state/overlays/ID (part NULL) or
 * $state/overlays/ID/PART (upper, work, replaced/NAME...). The one place
 * that spells the layout out; cut to len as snprintf does.
 */
#define SESSION_STORE	"overlays"
void	session_path(char *buf, size_t len, const char *state, const char *id,
	    const char *part);

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

/*
 * Give the lock up without unlocking: session_close then only closes its
 * descriptor, and the lock is let go when the last process holding the
 * same open file does (a dry run's sandbox, until its overlay is gone).
 */
void	session_let_go(struct session *s);

/*
 * As session_lock, and when the lock is not free within a second, call
 * waiting(arg) once (a front end says that it waits, and for what), then
 * go on waiting.
 */
int	session_lock_wait(struct session *s, int op,
	    void (*waiting)(void *), void *arg);

/* Close fds and free; s may be a zeroed or half-opened struct. */
void	session_close(struct session *s);

/*
 * A version 1 session (records as files) says version 2 in its meta.json
 * from now on, durably unless s->nosync; a no-op for one that does. Its
 * caller holds the session's lock exclusively and makes a link record
 * next, which an arcturn that knows only version 1 could not read.
 */
int	session_upgrade(struct session *s);

/*
 * Remove the session (the caller holds LOCK_EX): the dir is renamed to
 * overlays/.trash-<R> first (so it vanishes at once), then deleted
 * without following any symlink or crossing a mount point, and the
 * workspace's .default record is dropped if it named this id. s is
 * closed in every case.
 */
int	session_remove(struct session *s);

/*
 * Remove session id however damaged it is (meta.json, upper/, base/ or
 * the lock file missing or unreadable): under its lock when one can be
 * had (waiting as session_lock_wait does), renamed to trash and deleted
 * as session_remove does; a .default record naming it is dropped.
 * ENOENT when there is no such session.
 */
int	session_remove_id(int storefd, const char *id,
	    void (*waiting)(void *), void *arg);

/*
 * Whether the file system of s's upper tree is out of space or inodes
 * for us now (statvfs: nothing available; root: nothing free), or out of
 * quota (a 4 KiB probe written and synced in the session's folder fails
 * with ENOSPC or EDQUOT, *err then that). A dry-run command that filled
 * it may have had a write cut short. 1 full, 0 not, -1 with errno.
 */
int	session_upper_full(struct session *s, int *err);

/* Every session id in the store, sorted; free with session_ids_free. */
int	session_list(int storefd, char ***ids, size_t *n);
void	session_ids_free(char **ids, size_t n);

#endif
