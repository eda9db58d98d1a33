/*
 * mount.h: the helper's mount layer (mount.c), the part of the confinement
 * Landlock cannot express: metadata changes outside the roots, protected
 * subpaths of a writable root, a fresh network namespace, and the dry
 * run's overlay.
 *
 * In new user, mount, IPC and pid namespaces (ids mapped to themselves;
 * root maps every id, through a child left in the parent namespace; the
 * pid namespace takes the helper's next child as its init, proc.h), in
 * this order: the tree made private; clones of the writable roots taken;
 * every mount made read-only; the clones attached back on the roots; a
 * tmpfs of its own on /dev/shm and a devpts instance of its own on
 * /dev/pts (when those are roots; the command's terminal, which is not
 * in it, is bound on /dev/console); the overlay, for a
 * dry run; each pin (-P, outermost first) bound onto itself, so that no
 * parent of a protected path can be renamed away; each protected path (-p)
 * bound read-only on top. With -n the namespace has its own network, with
 * only the loopback up.
 *
 * Soft or hard, one rule: the layer fails soft only when the kernel will
 * not let us have one at all, before any mount has changed: our uid_map
 * cannot be opened for writing, unshare is refused, or the mount tree
 * cannot be made private (an outer Landlock domain, as when arcturn runs
 * inside itself, refuses mount changes). mount_layer then returns 0 and
 * Landlock alone follows; the namespaces already made stay (a network
 * namespace still serves -n). Every other failure is hard, because the
 * layer would be half built: exit 125 before the command runs. With
 * o->mount == 2 (-M, and every dry run) a soft failure is hard too.
 */
#ifndef ARCTURN_MOUNT_H
#define ARCTURN_MOUNT_H

#include "opts.h"

/*
 * Build the layer for o. Returns 1 with it in place (*netns set when the
 * command has a network namespace of its own), 0 after a soft failure;
 * exits 125 after a hard one.
 */
int	mount_layer(const struct opts *o, int *netns);

#endif
