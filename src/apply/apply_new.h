/*
 * apply_new: the new object of an apply item (apply.h), for apply.c.
 *
 *   apply_open_src	the source of a FILE or LINK item, srcdir/src, a
 *			regular file, opened (-1 with errno; EINVAL: not a
 *			regular file)
 *   apply_read_target	a SYMLINK item's new target into buf (size bytes):
 *			src is a symlink in the upper tree or, failing that,
 *			a regular file holding the target; 0, or -1 with
 *			errno (ENAMETOOLONG, EINVAL for a NUL, ENOENT for an
 *			empty one)
 *   apply_make_new	the new object of a FILE, SYMLINK, FIFO or LINK item
 *			under a fresh temp name in pfd (tmp gets it, tst its
 *			stat): a FILE's copy is left unsynced, open in *tfd,
 *			or the source itself is linked in (*given, where
 *			env->give_src lets it); a LINK's target must hold the
 *			source's bytes and pass the write check (ESTALE,
 *			EACCES). 0, or -1 with errno and nothing left.
 */
#ifndef ARCTURN_APPLY_NEW_H
#define ARCTURN_APPLY_NEW_H

#include <sys/stat.h>

#include <stddef.h>

#include "apply/apply_item.h"

int	apply_open_src(struct apply_item *it);
int	apply_read_target(const struct apply_item *it, char *buf, size_t size);
int	apply_make_new(struct apply_item *it, const struct apply_env *env,
	    int rootfd, int pfd, int srcfd, const char *target, char *tmp,
	    struct stat *tst, int *tfd, int *given);

#endif
