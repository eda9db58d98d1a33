/*
 * checkpoint: the turns and snapshots that let `arcturn rewind` and
 * `arcturn undo` put files back as they were.
 *
 * Layout, under $ARCTURN_HOME (everything 0700/0600, owned by the user):
 *
 *   checkpoints/<K>/		the store of the workspace whose canonical
 *				root hashes (SHA-256, hex) to K, as the
 *				session store keys its .default records
 *   checkpoints/<K>/lock	flock(2)ed: LOCK_EX by every mutation (a
 *				write's snapshot, record and write, a turn,
 *				a rewind), LOCK_SH by listings
 *   checkpoints/<K>/blobs/<H>	content, named by its SHA-256 (hex): a
 *				regular file's bytes or a symlink's target;
 *				written once, shared between turns
 *   checkpoints/<K>/turns/<N>	one record per turn, N its id (decimal,
 *				zero-padded to 10 digits so names sort)
 *   checkpoints/<K>/current	"<N>\n": the turn `arcturn turn` opened,
 *				which later writes join; without it each
 *				command that writes is a turn of its own
 *
 * A turn record is text with the paths as raw bytes:
 *
 *	arcturn-turn 1
 *	id N
 *	time SECONDS
 *	label LEN
 *	<LEN bytes>
 *	paths COUNT
 *	<before> <after> PATHLEN	(COUNT times, then the path bytes
 *	<PATHLEN bytes>			 and a newline)
 *	open				(only while the turn is unsettled)
 *	end
 *
 * where <before> and <after> are each `KIND MODE HEX` (KIND absent, file,
 * link or dir; MODE octal permission bits; HEX the SHA-256 of the content or
 * link target, 64 zeros for absent). before is the path's state right
 * before the turn first changed it (its blob is in blobs/), after the
 * state the tool left there (rewind's compare-and-swap base).
 *
 * An open turn is one a rewind or undo recorded before it touched a file
 * and has not settled yet: its after states are what it set out to
 * restore, and each path holds its before or its after state (a kill cut
 * it short) until the rewind, or the next one, settles it (rewind.h).
 * Retention keeps the blobs of an open turn's after states too.
 *
 * An apply of a session (and so `exec --checkpoint`) records its turn
 * open the same way before it lands a file, marked `open land` instead
 * of `open`: before = what stands at each path it may change (stored),
 * after = the state it lands there. Its after states are not in blobs/:
 * such a turn is never finished but settled as it is found
 * (ckpt_settle_landed), so that an undo after a kill takes back what
 * landed.
 *
 *   checkpoints/<K>/turns/<N>.after
 *				the after states a write or edit left since
 *				the record was last written, appended, one
 *				entry each: `after <after> PATHLEN\n<path>\n`
 *
 * Crash safety: every blob and record is written under a temp name,
 * fsynced and renamed (fsx.h); a path's blob is durable before the record
 * that names it, and a write is recorded (after = before) before the file
 * is touched. Its new state then goes to the .after log, appended without
 * fsync: the log only ever moves an after state forward, so when a crash
 * loses or tears its tail (read up to the first entry that is not whole),
 * a rewind sees the path as changed since and refuses it as a conflict
 * (--force restores it); nothing the record says is lost. Loading a turn
 * applies its log; writing the record folds the log in and removes it.
 * Retention drops a turn's log and record first, then the blobs no
 * remaining record names, and sweeps temp names. A damaged record names
 * every blob whose name its bytes hold; while one cannot be read at all,
 * no blob is removed.
 *
 * Functions return 0 (or a count) or -1 with errno (EBADMSG: a damaged
 * record; ENOENT: no store, no such turn).
 */
#ifndef ARCTURN_CHECKPOINT_H
#define ARCTURN_CHECKPOINT_H

#include <stddef.h>
#include <time.h>

#include "lib/hash.h"
#include "lib/pstate.h"

#define CKPT_KEEP_DEFAULT	50	/* turns kept (checkpoints.keep) */

/*
 * A turn record that cannot be read as one (ckpt_list lists it, with no
 * paths, so that the turns after it stay usable): cut short, bytes that
 * are no record, not a regular file, or unreadable (damage_err).
 */
enum ckpt_damage { CKPT_SOUND, CKPT_TRUNCATED, CKPT_CORRUPT, CKPT_NOT_FILE,
    CKPT_UNREADABLE };

/*
 * A path before and after a turn (lib/pstate.h: kind, mode, hash); a
 * record holds the kinds absent, file, link and dir only (a directory by
 * its mode alone: apply's and rewind's turns).
 */
struct ckpt_entry {
	char		*path;		/* workspace-relative */
	struct pstate	 before;	/* its blob is in blobs/ */
	struct pstate	 after;		/* what the tool left there */
};

struct ckpt_turn {
	unsigned long	 id;
	time_t		 time;
	char		*label;		/* "" when none */
	struct ckpt_entry *e;
	size_t		 n;
	int		 open;		/* unsettled (see open turn):
					   CKPT_OPEN_REWIND or _LAND */
	enum ckpt_damage damaged;	/* ckpt_list: the record is damaged
					   (n 0, label "", time the file's) */
	int		 damage_err;	/* CKPT_UNREADABLE: why */
};

/* The open turns: a rewind's (the next one finishes it), an apply's. */
#define CKPT_OPEN_REWIND	1
#define CKPT_OPEN_LAND		2

/* Retention: keep the newest `keep` turns, blobs within maxbytes (0: any). */
struct ckpt_limits {
	unsigned long	 keep;
	unsigned long long maxbytes;
};

struct ckpt;

/*
 * Open the store of workspace (canonical root) under state, locked with
 * lockop (LOCK_EX or LOCK_SH). With create, missing directories are made;
 * without, ENOENT when the workspace has no store. lim may be NULL
 * (defaults).
 */
int	ckpt_open(const char *state, const char *workspace, int create,
	    int lockop, const struct ckpt_limits *lim, struct ckpt **);
void	ckpt_close(struct ckpt *);

/*
 * After a failure of the store: the first item of it (the state dir,
 * checkpoints/, the store, blobs/, turns/, lock, current) that is of the
 * wrong type or not writable, as one line `PATH: what is wrong; what to
 * do` into buf: 1; 0 when every item is as it should be.
 */
int	ckpt_diagnose(const char *state, const char *workspace, char *buf,
	    size_t len);

/* The blobs directory (an fd the store owns), for rewind's sources. */
int	ckpt_blobs(const struct ckpt *);

/*
 * With on, blobs ckpt_state stores from here on are not synced (their
 * writeback is started): the caller fsyncs them (blobs/<hex of sha>) and
 * the blobs directory before it relies on them (keep.c, for apply).
 */
void	ckpt_lazy(struct ckpt *, int on);

/*
 * Every turn in the store, oldest first (*t an array of *n turns; free
 * with ckpt_turns_free). A damaged record is listed as a turn with
 * damaged set and no paths, not an error: the others stay usable.
 */
int	ckpt_list(struct ckpt *, struct ckpt_turn **t, size_t *n);
void	ckpt_turns_free(struct ckpt_turn *t, size_t n);

/* Turn id's record into t (ENOENT: none). */
int	ckpt_load(struct ckpt *, unsigned long id, struct ckpt_turn *t);
void	ckpt_turn_clear(struct ckpt_turn *t);

/*
 * Start a turn: a new id, recorded at once (empty), made the current turn
 * that later writes join (ckpt_for_write). Retention runs.
 */
int	ckpt_turn_start(struct ckpt *, const char *label, unsigned long *id);

/* Forget the current turn: the next write starts a turn of its own. */
int	ckpt_turn_end(struct ckpt *);

/*
 * The turn a write joins: the current one (read from its record), else a
 * new one with a fresh id (not recorded until ckpt_save). Clear *t with
 * ckpt_turn_clear.
 */
int	ckpt_for_write(struct ckpt *, struct ckpt_turn *t);

/*
 * The state of rel beneath rootfd, taken without following a link (a
 * final symlink is PSTATE_LINK; a path beneath a symlink is PSTATE_ABSENT,
 * as is a missing path or parent; a directory PSTATE_DIR with its
 * mode; a fifo, socket or device its kind and mode). A regular file
 * replaced while it is read is EAGAIN. With store, a regular file's
 * bytes or a link's target go to blobs/ (once per content).
 */
int	ckpt_state(struct ckpt *, int rootfd, const char *rel, int store,
	    struct pstate *st);

/*
 * Whether the store holds what dirfd/name (one name, not followed) holds:
 * a regular file's bytes or a link's target, as a sound blob. 1 yes, 0
 * no, -1 with errno.
 */
int	ckpt_holds(struct ckpt *, int dirfd, const char *name);

/*
 * Snapshot rel into t before its first change in the turn: when t has no
 * entry for it, its state is stored (blob) and an entry added with after
 * = before. So is every missing folder above it (absent before: the write
 * will make it), so that a rewind removes those folders too when they are
 * empty again. Returns 1 when added, 0 when t had it already; EINVAL for
 * a directory or special file.
 */
int	ckpt_snapshot(struct ckpt *, struct ckpt_turn *t, int rootfd,
	    const char *rel);

/*
 * After the change: the after state of rel, and of the folders above it
 * that t records as absent before, read again. 0 or -1.
 */
int	ckpt_settle(struct ckpt *, struct ckpt_turn *t, int rootfd,
	    const char *rel);

/* The entry of rel in t, or NULL. */
struct ckpt_entry *ckpt_find(struct ckpt_turn *t, const char *rel);

/*
 * Add an entry (path copied) to t. Only for paths t has not got.
 */
int	ckpt_add(struct ckpt_turn *t, const char *rel,
	    const struct pstate *before, const struct pstate *after);

/*
 * Write t's record (atomically, durable) and remove its .after log (t
 * holds what it said). A turn recorded for the first time runs
 * retention.
 */
int	ckpt_save(struct ckpt *, struct ckpt_turn *t);

/*
 * Settle t[o], a turn an apply recorded open (CKPT_OPEN_LAND) before it
 * landed, of the list t[0..nt-1] (oldest first): each path's after state
 * becomes what the first later turn found there, else what stands
 * beneath rootfd now; a path that holds its before state leaves the
 * turn (nothing landed there). A path that is a fifo, socket or device
 * now keeps its before as its after (its blob stays named), or, with
 * CKPT_LAND_DROP_OTHER (apply, whose session keeps what it replaced),
 * leaves the turn. t[o] is changed in place and saved settled, or
 * dropped when no path is left, unless it is the current turn (`arcturn
 * turn`'s, which an apply joined). checkpoint_land.c.
 */
#define CKPT_LAND_DROP_OTHER	1
int	ckpt_settle_landed(struct ckpt *, int rootfd, struct ckpt_turn *t,
	    size_t nt, size_t o, int flags);

/* "truncated", "corrupt", "not a regular file", "unreadable". */
const char *ckpt_damage_name(enum ckpt_damage);

/* Remove turn id's record and .after log (ENOENT: none; 0 or -1). */
int	ckpt_drop(struct ckpt *, unsigned long id);

/*
 * After ckpt_settle of rel, in a turn whose record exists: append the
 * after states of rel and of the folders above it that t records as
 * absent before to the .after log (no fsync; see Crash safety). A log
 * grown past a bound is folded in with ckpt_save instead.
 */
int	ckpt_note_after(struct ckpt *, struct ckpt_turn *t, const char *rel);

/*
 * A turn record as text (checkpoint_record.c): ckpt_format makes it
 * (*buf the caller's, mem_free), ckpt_parse reads one into t (zeroed
 * first; EBADMSG for anything but a whole, well-formed record).
 */
int	ckpt_format(const struct ckpt_turn *t, char **buf, size_t *len);
int	ckpt_parse(const char *buf, size_t len, struct ckpt_turn *t);

/*
 * The .after log (checkpoint_record.c): ckpt_format_after makes the
 * entries of e[0..n-1]; ckpt_parse_after sets the after state of each
 * path of t a whole entry names, in order, stopping at the first entry
 * that is not whole, and returns how many it set.
 */
int	ckpt_format_after(struct ckpt_entry *const *e, size_t n, char **buf,
	    size_t *len);
size_t	ckpt_parse_after(const char *buf, size_t len, struct ckpt_turn *t);

#endif
