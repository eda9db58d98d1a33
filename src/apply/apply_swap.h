/*
 * apply_swap: the compare-and-swap step of apply, for apply.c alone (the
 * item runner: apply.h). What is at a path now (struct apply_real), how
 * it compares with an item's base and with its new state, and the three
 * ways an item's last step is made atomic with respect to its check:
 *
 *   apply_swap_in	the new object (made under a temp name) is exchanged
 *			with what stands at the path (renameat2 RENAME_EXCHANGE
 *			through os.h); what moved aside is checked against
 *			the base on the inode we hold (same inode and ctime,
 *			else by content hash and mode), and exchanged back
 *			on a mismatch: a conflict, the user's version in
 *			place. Where no exchange exists (or under
 *			apply_force_rename), the path is checked again right
 *			before a plain rename.
 *   apply_swap_create	the new object is renamed in without replacing: a
 *			path created since the check is a conflict, never
 *			overwritten.
 *   apply_swap_delete	what stands at the path is renamed aside without
 *			replacing, checked, then unlinked; renamed back on a
 *			mismatch.
 *
 * Before apply_swap_in or apply_swap_delete replaces or deletes anything,
 * the caller keeps what stands there with apply_keep, which checks that
 * what got kept is what was checked: the user's version is never lost,
 * and it->kept says it was kept. A version the user put in place between
 * our two renames is kept too, or left under its temp name, which the
 * item's reason then names. None of them syncs: the caller makes the
 * directory durable once its items are done (apply.c).
 *
 * Functions taking an item return 0, or -1 with the item failed (err
 * and reason set: apply_refuse for a conflict, apply_fail for an errno).
 * apply_read_real returns 0 or -1 with errno.
 */
#ifndef ARCTURN_APPLY_SWAP_H
#define ARCTURN_APPLY_SWAP_H

#include <sys/stat.h>
#include <sys/types.h>

#include <limits.h>
#include <time.h>

#include "apply/apply_item.h"
#include "lib/hash.h"
#include "lib/pstate.h"

/* For the engine's parts: permission bits; how a source is opened. */
#define PERM(m)		((m) & 07777)
#define OFLAGS		(O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)

#define APPLY_R_CHANGED	"changed since capture; refused"
#define APPLY_R_CREATED	"created since capture; refused"
#define APPLY_R_DELETED	"deleted since capture; refused"

/*
 * What is at the target path now: its state (kind, mode, the hash of a
 * regular file or link target) and the identity the race checks need.
 */
struct apply_real {
	struct pstate	 ps;
	off_t		 size;
	dev_t		 dev;
	ino_t		 ino;
	struct timespec	 ctime;
	struct timespec	 at;		/* when it was looked at */
	char		 link[PATH_MAX];	/* a link's target */
};

/* Fail the item: a refusal (err 0, reason why) or an errno. Return -1. */
int	apply_refuse(struct apply_item *it, const char *why);
int	apply_fail(struct apply_item *it, int err);

/*
 * Look at pfd/name without following it: type, mode, identity, ctime,
 * and the content hash of a regular file (of the file opened, not of
 * what a stat saw a moment before) or of a link target. A missing name
 * is PSTATE_ABSENT.
 */
int	apply_read_real(int pfd, const char *name, struct apply_real *r);

/* 1 when r is the item's base (kind, mode, content), else 0. */
int	apply_base_matches(const struct apply_item *it,
	    const struct apply_real *r);

/*
 * 1 when r already is the item's new state (an earlier apply did it):
 * srcfd the new content of a FILE or LINK item, target a SYMLINK's.
 */
int	apply_new_matches(const struct apply_item *it,
	    const struct apply_real *r, int srcfd, const char *target);

/* 1 when the regular file srcfd holds r's bytes (size and hash). */
int	apply_same_bytes(int srcfd, const struct apply_real *r);

/*
 * 1 when st (of r's inode) still has the ctime r saw and r's look was
 * not so close to that ctime that a write could hide in the same clock
 * tick: r still describes the object without hashing it again.
 */
int	apply_real_unchanged(const struct stat *st,
	    const struct apply_real *r);

/*
 * Keep pfd/name, which holds r, through env->keep (none: nothing to do)
 * before it is replaced or deleted; apply_unkeep forgets it again (the
 * item failed before its swap).
 */
int	apply_keep(struct apply_item *it, const struct apply_env *env,
	    int pfd, const char *name, const struct apply_real *r);
void	apply_unkeep(struct apply_item *it, const struct apply_env *env);

/*
 * A given source (apply_env.give_src): the new object is the session's
 * own file dirfd/name (fd open on it, inode dev, ino). Its name goes the
 * moment the object is in place, so that nothing written through the
 * session reaches the real file; if the swap is then undone, the name is
 * made again first, as a copy of fd (the change stays pending).
 */
struct apply_given {
	int		 dirfd;
	const char	*name;
	int		 fd;
	dev_t		 dev;
	ino_t		 ino;
};

/* The session's name of a given source goes (only that inode). */
void	apply_given_drop(const struct apply_given *g);

/*
 * Put pfd/tmp (inode tst) where pfd/name holds r, the item's base, kept;
 * g: the given source tmp is (NULL: none).
 */
int	apply_swap_in(struct apply_item *it, const struct apply_env *env,
	    int pfd, const char *name, const char *tmp,
	    const struct stat *tst, const struct apply_real *r,
	    const struct apply_given *g);

/*
 * Rename pfd/tmp to the absent pfd/name; when something stands there by
 * now, r is filled from it and the item succeeds only when that already
 * is its new state (srcfd, target as for apply_new_matches).
 */
int	apply_swap_create(struct apply_item *it, int pfd, const char *name,
	    const char *tmp, struct apply_real *r, int srcfd,
	    const char *target);

/* Delete pfd/name, which holds r, the item's base, kept. */
int	apply_swap_delete(struct apply_item *it, const struct apply_env *env,
	    int pfd, const char *name, const struct apply_real *r);

#endif
