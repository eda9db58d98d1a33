/*
 * kernel_linux: what the Linux backends ask of the kernel before they
 * confine a command, and the guards on the descriptors the command
 * inherits. Every question is asked at most once in a process (the answer
 * is remembered; a forked child inherits it), so that `sandbox status`,
 * sandbox_choose and the backends may each ask without paying again.
 * Nothing here changes this process, except the fd guards, which are
 * meant to.
 *
 * What is probed, and why:
 *
 *	linux_landlock_abi	landlock_create_ruleset(VERSION): the helper
 *				confines only with Landlock (1 or more), and
 *				its version says which rights hold (the
 *				helper's ABI ladder; `sandbox status`)
 *	linux_userns		unshare of a user namespace (with mounts: and
 *				mount, IPC and pid namespaces, the mount tree
 *				made private), in a forked child: the helper's
 *				mount layer, exec --dry-run's overlay, and an
 *				unprivileged bwrap need it
 *	linux_fresh_proc	mounting a /proc of its own in such a pid
 *				namespace, in a forked child: refused where
 *				the /proc we see is not fully visible (a
 *				container that hides parts of it); the mount
 *				layer's init then keeps the outer /proc
 *	linux_idmap_writable	opening /proc/self/uid_map for writing: not
 *				possible inside another arcturn, where the
 *				helper refuses its mount layer and bwrap
 *				cannot map ids
 *	linux_cap_sys_admin	capget: root's bwrap (not setuid) builds its
 *				namespaces with CAP_SYS_ADMIN
 *	linux_memfd_noexec	the vm.memfd_noexec sysctl: at 2 the helper
 *				cannot run from a memfd and starts from its
 *				verified cache file (`sandbox status` says so)
 *	linux_legacy_tiocsti	the dev.tty.legacy_tiocsti sysctl: whether an
 *				unconfined command can inject terminal input
 *				(`sandbox status` without a backend)
 *
 * Not here: seccomp is not probed; the helper installs its filters and
 * fails closed, and so does linux_nosuid (sandbox_linux.h).
 * openat2, renameat2 and syncfs are asked by lib/os_linux.c, which the
 * portable core below this layer needs; it remembers the answers too.
 */
#ifndef ARCTURN_KERNEL_LINUX_H
#define ARCTURN_KERNEL_LINUX_H

#include <stddef.h>

/* The kernel's Landlock ABI version, or -errno. */
int	linux_landlock_abi(void);

/*
 * 0 when this process can create a user namespace (mounts: with mount,
 * IPC and pid namespaces, its mount tree made private in it), else an
 * errno. linux_fresh_proc: 0 when the init of such a pid namespace can
 * mount a /proc of its own, else an errno.
 */
int	linux_userns(int mounts);
int	linux_fresh_proc(void);

/* 1 when our uid_map can be written (not so inside another arcturn). */
int	linux_idmap_writable(void);

/* 1 when this process has CAP_SYS_ADMIN in its effective set. */
int	linux_cap_sys_admin(void);

/*
 * The value of vm.memfd_noexec and of dev.tty.legacy_tiocsti (0, 1, 2),
 * or -1 where it cannot be read (an older kernel, no /proc).
 */
int	linux_memfd_noexec(void);
int	linux_legacy_tiocsti(void);

/*
 * The fd guards, for every confined backend, in the process that starts
 * it, before it does (see the .c for each why).
 *
 * linux_std_fds: a directory on 0, 1 or 2 is refused (-1 with one line in
 * err: exit 125); a regular file open read-only on 1 or 2 becomes
 * /dev/null.
 * linux_fds_guard: descriptors above 2 of files and directories are not
 * passed on (close-on-exec), and a regular file on stdin becomes a pipe
 * fed from it. 0, or -1 with one line in err.
 */
int	linux_std_fds(char *err, size_t errlen);
int	linux_fds_guard(char *err, size_t errlen);

#endif
