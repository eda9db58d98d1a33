/*
 * mount.h: the helper's mount layer (mount.c), the part of the confinement
 * Landlock cannot express: metadata changes outside the roots, protected
 * subpaths of a writable root, a fresh network namespace, and the dry
 * run's overlay.
 *
 * In new user, mount, IPC and pid namespaces (ids mapped to themselves;
 * root maps every id), which init is made in (proc.h: one clone with
 * every namespace flag; the helper, still outside, writes init's id maps
 * with mount_map), init builds, in this order: the tree made private;
 * clones of the writable roots taken; every mount made read-only; the
 * clones attached back on the roots; a tmpfs of its own on /dev/shm and a
 * devpts instance of its own on /dev/pts (when those are roots; the
 * command's terminal, which is not in it, is bound on /dev/console); the
 * overlay, for a dry run; each pin (-P, outermost first) bound onto
 * itself, so that no parent of a protected path can be renamed away; each
 * protected path (-p) bound read-only on top. With -n the namespace has
 * its own network, with only the loopback up.
 *
 * Soft or hard, one rule: the layer fails soft only when the kernel will
 * not let us have one at all, before any mount has changed: our uid_map
 * cannot be opened for writing (mount_flags), the clone with the
 * namespace flags is refused (mount_refused), or the mount tree cannot
 * be made private (an outer Landlock domain, as when arcturn runs inside
 * itself, refuses mount changes; mount_layer returns 0, init goes on with
 * Landlock alone in its namespaces, and a network namespace still serves
 * -n). Every other failure is hard, because the layer would be half
 * built: exit 125 before the command runs. With o->mount == 2 (-M, and
 * every dry run) a soft failure is hard too.
 */
#ifndef ARCTURN_MOUNT_H
#define ARCTURN_MOUNT_H

#include <sys/types.h>

#include "opts.h"

/*
 * The clone flags of init's namespaces for o (CLONE_NEWUSER, NEWNS,
 * NEWIPC, NEWPID, and NEWNET with -n), or 0 when id maps cannot be
 * written here (soft; with -M, exits 125).
 */
int	mount_flags(const struct opts *o);

/*
 * The clone was refused with errno e: with -M exit 125 saying why in
 * words (userns_why.h), else note it when protected paths go unprotected.
 */
void	mount_refused(const struct opts *o, int e);

/* In the helper, outside: write init's id maps. 0, or -1 with errno. */
int	mount_map(pid_t init);

/* No user namespace, and the run needs one: say why, exit 125. */
_Noreturn void	mount_nouserns(const char *what, int e);

/*
 * In init, once its ids are mapped: build the layer for o. Returns 1 with
 * it in place, 0 after a soft failure; exits 125 after a hard one. ctl:
 * init's end of its socket to the helper, watched while the overlay
 * waits for arcturn's word (-G): the helper gone, init ends (125).
 */
int	mount_layer(const struct opts *o, int ctl);

#endif
