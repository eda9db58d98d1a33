/*
 * sandbox_linux: the Linux implementation of sandbox.h, in four files that
 * share this header (nothing outside them includes it):
 *
 *	sandbox_linux.c		choosing and running (sandbox_platform), and
 *				what the others share: the kernel probes and
 *				the inherited-fd guard
 *	sandbox_helper_linux.c	the embedded Landlock helper: exec, and
 *				exec --dry-run with its overlay
 *	sandbox_bwrap_linux.c	bubblewrap, when the kernel has no Landlock
 *	sandbox_probe_linux.c	`arcturn sandbox status`
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

#include "policy.h"
#include "roots.h"

/* sandbox_choice.backend on Linux */
enum { LB_HELPER, LB_HELPER_LANDLOCK, LB_BWRAP, LB_NONE };

/* The kernel's Landlock ABI version, or -errno. */
int	linux_landlock_abi(void);

/*
 * 0 when this process can create a user namespace (with mounts: and make
 * its mount tree private in it), else an errno. Forks to find out.
 */
int	linux_userns(int mounts);

/* 1 when our uid_map can be written (not so inside another arcturn). */
int	linux_idmap_writable(void);

/*
 * bwrap on PATH (absolute entries only: a bwrap planted in the workspace
 * must not become the sandbox): 0 with its path in buf, or -1. And 0 when
 * bwrap at path can build its sandbox here, else an errno.
 */
int	linux_bwrap_path(char *buf, size_t len);
int	linux_bwrap_unusable(const char *path);

/*
 * Descriptors of files and directories outside the roots are not passed
 * on, and a regular file on stdin becomes a pipe fed from it (see the .c).
 * 0, or -1 with one line in err.
 */
int	linux_fds_guard(char *err, size_t errlen);

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

/* sandbox_bwrap_linux.c: exec bwrap with r and cmd; only on failure. */
int	bwrap_run(const struct policy *p, const struct roots *r, char **cmd,
	    char *err, size_t errlen);

#endif
