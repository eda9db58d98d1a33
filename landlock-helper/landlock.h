/*
 * landlock.h: the helper's Landlock layers. Only write-type accesses are
 * handled, so reads and exec stay as they were.
 *
 * ll_abi: the kernel's Landlock ABI (0 without Landlock).
 * ll_resolve_unix: 1 when the kernel takes LANDLOCK_ACCESS_FS_RESOLVE_UNIX
 * (then Landlock decides about pathname unix sockets, and o->gate decides
 * whether the seccomp gate runs anyway).
 * ll_confine: the write confinement of o: every write right beneath the
 * writable roots; the sockets the command may reach where RESOLVE_UNIX is
 * used; its own stdout and stderr files; with proc, the files beneath
 * /proc, which must then be a /proc of the command's own pid namespace
 * that only the command's processes may write; ioctl on devices (ABI 5)
 * on the device roots only (with the mount layer a devpts instance of
 * the command's own is on /dev/pts, mount.h; without, every terminal of
 * the machine is there); with o->nonet and no
 * network namespace (netns 0), TCP bind and connect. Sets no_new_privs
 * first. Exits 125 on failure (say.h): never half confined.
 * ll_nest: a layer below that one, so that the command can neither signal
 * (ABI 6) nor trace the processes that act for it; 0 or -1 with errno.
 */
#ifndef ARCTURN_LANDLOCK_H
#define ARCTURN_LANDLOCK_H

#include "opts.h"

int	ll_abi(void);
int	ll_resolve_unix(void);
void	ll_confine(const struct opts *o, int netns, int resolve_unix,
	    int proc);
int	ll_nest(void);

#endif
