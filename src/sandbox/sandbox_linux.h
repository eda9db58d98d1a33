/*
 * sandbox_linux: the Linux implementation of sandbox.h, in six files that
 * share this header (nothing outside them includes it):
 *
 *	sandbox_linux.c		choosing and running (sandbox_platform)
 *	sandbox_helper_linux.c	the embedded Landlock helper: exec, and
 *				exec --dry-run with its overlay
 *	sandbox_bwrap_linux.c	bubblewrap, when the kernel has no Landlock
 *	sandbox_limits_linux.c	a keyring of its own, no core dumps, and
 *				root's filter against setuid bits
 *	sandbox_probe_linux.c	`arcturn sandbox status`
 *	sandbox_sweep_linux.c	after the command: protected paths no
 *				mount could cover
 *
 * What they ask of the kernel, and the guards on the descriptors the
 * command inherits, are kernel_linux.h's (each probe once a process).
 *
 * Backends in the order sandbox_choose tries them: the helper (with its
 * mount layer where user namespaces allow), bubblewrap, none.
 * ARCTURN_BACKEND=helper|helper-landlock|bwrap|none forces one
 * (helper-landlock: the helper without its mount layer).
 *
 * Like every module these never print; each returns an exit status
 * (exitcode.h) with one line in err, or the values documented below.
 */
#ifndef ARCTURN_SANDBOX_LINUX_H
#define ARCTURN_SANDBOX_LINUX_H

#include <stddef.h>

#include "policy/policy.h"
#include "policy/roots.h"
#include "sandbox/sandbox.h"

/* sandbox_choice.backend on Linux */
enum { LB_HELPER, LB_HELPER_LANDLOCK, LB_BWRAP, LB_NONE };

/*
 * bwrap on PATH (absolute entries only: a bwrap planted in the workspace
 * must not become the sandbox): 0 with its path in buf, or -1. And 0 when
 * bwrap at path can build its sandbox here, else an errno.
 */
int	linux_bwrap_path(char *buf, size_t len);
int	linux_bwrap_unusable(const char *path);

/*
 * sandbox_limits_linux.c: for every confined command, called in the
 * process that starts the backend before it does (the exec-only chain
 * keeps both across execve): a new anonymous session keyring, so that the
 * caller's keys are out of reach, and RLIMIT_CORE 0, hard too. Adds no
 * fork nor exec. 0, or -1 with one line in err (exit 125).
 */
int	linux_limits(char *err, size_t errlen);

/*
 * For root's command: a seccomp filter that refuses (EPERM) a mode with
 * the setuid or setgid bit in chmod, fchmod, fchmodat(2), open/openat/
 * creat with O_CREAT and mknod(at); every set*xattr fails with
 * EOPNOTSUPP (file capabilities are an xattr, and tools carry on as on a
 * file system without xattrs); io_uring_setup gets ENOSYS. Not covered:
 * openat2 with O_CREAT (its mode is in a struct; the helper's gate needs
 * openat2).
 * Such a file would be real outside: the mount layer maps 0 to 0. It
 * stays for good, so it is installed in the process that execs the
 * backend and nowhere else (arcturn's own sweep and apply after the
 * command may restore such modes). Other users: nothing (0). 0, or -1
 * with one line in err (exit 125).
 */
int	linux_nosuid(char *err, size_t errlen);

/*
 * sandbox_helper_linux.c. helper_run execs the helper with r and cmd,
 * mount 1 adding the mount layer where it can be had; returns only on
 * failure. helper_memfd is an fd holding the helper's bytes (exec'able
 * unless vm.memfd_noexec forbids it), or -1 with errno.
 * helper_overlay_unavailable says why exec --dry-run cannot run here, or
 * NULL when it can; with probe it also tries a user namespace (a fork).
 */
int	helper_run(const struct policy *p, const struct roots *r, int mount,
	    char **cmd, char *err, size_t errlen);
int	helper_memfd(void);
const char *helper_overlay_unavailable(const struct policy *p, int probe,
	    char *buf, size_t len);

/*
 * The helper's unix socket arguments for p (gate.h in the helper): the
 * command may reach sockets beneath the workspace (workspace-write) and
 * each grant (-s), never those beneath the temp or state dir (-t) that it
 * did not bind itself, and, with the network on, those unixSockets and
 * --allow-unix name (-a, or -A for all); -g with ARCTURN_UNIX_GATE=seccomp
 * (the gate even where Landlock has RESOLVE_UNIX). helper_socket_args
 * appends them at argv[n] (room for 2 * (grants + unix sockets) + 9) and
 * returns the new n; helper_socket_check is 0, or -1 with E2BIG past the
 * helper's limits. helper_exec_fd: an fd of the helper's bytes to exec
 * (close-on-exec), from memory or the verified cache file; -1 with one
 * line in err.
 */
size_t	helper_socket_args(const struct policy *p, char **argv, size_t n);
int	helper_socket_check(const struct policy *p);
int	helper_exec_fd(const char *state, char *err, size_t errlen);

/*
 * bwrap's argv (bwrap_run's, as a unit test sees it) for cmd under p and
 * the roots r: the helper run as /proc/self/fd/HELPER, bwrap's info on
 * fd INFO and the helper's status on fd STAT, the user's keyring serials
 * (0: none), and for root the capabilities cut to bwrap's own set. The
 * strings point into p, r, cmd and f (its buf); mem_free the array. NULL
 * when out of memory.
 */
struct bwrap_fds {
	int	 helper, info, stat;
	long	 keys[2];
	int	 root;
	char	 buf[5][32];
};
char	**bwrap_argv(const struct policy *p, const struct roots *r,
	    char **cmd, struct bwrap_fds *f);

/*
 * sandbox_bwrap_linux.c: run cmd under bwrap with r, the helper as the
 * init of bwrap's pid namespace (the gate, signals, lifetime). Waits, and
 * ends as the command did (posix_end_as) or returns its status with *end
 * filled; returns an exit status and one line in err, *end untouched,
 * when it did not start.
 */
int	bwrap_run(const struct policy *p, const struct roots *r, char **cmd,
	    struct sandbox_end *end, char *err, size_t errlen);

/*
 * sandbox_sweep_linux.c. sweep_run runs backend b (LB_HELPER with its
 * mount layer, or LB_BWRAP) in a child, waits (*end: how the command
 * ended), and then deals with what no mount could cover (r->absent,
 * r->watch): what the command created at a protected path that did not
 * exist is moved aside to a fresh name, a watched file it changed is put
 * back. Returns the command's status with the findings in err (one line),
 * or EXIT_OWN with the line of what could not be dealt with: then a
 * marker in the state dir holds the workspace. sweep_held, before any run: 0, or -1 with the line in err
 * while a marker holds the workspace (it is cleared once every path it
 * names is gone).
 */
int	sweep_run(const struct policy *p, const struct roots *r, int b,
	    char **cmd, struct sandbox_end *end, char *err, size_t errlen);
int	sweep_held(const struct policy *p, char *err, size_t errlen);

#endif
