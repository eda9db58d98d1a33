/*
 * helper.h: what the helper's files share: the policy as parsed from
 * argv, the one way the helper reports a failure before the command runs,
 * and the Landlock layers (helper.c) that proc.c puts on the processes it
 * makes.
 *
 *	helper.c	main, argv, capabilities, the Landlock layers
 *	mount.c		the mount layer (mount.h)
 *	proc.c		the processes: the waiter, init, the command (proc.h)
 *	gate.c		the unix socket gate: the seccomp filter and the
 *			supervisor that acts for the command (gate.h)
 */
#ifndef ARCTURN_HELPER_H
#define ARCTURN_HELPER_H

#include "landlock_uapi.h"

struct opts {
	const char	*w[HELPER_MAXPATHS];	/* -w: writable roots */
	int		 nw;
	const char	*pin[HELPER_MAXPATHS];	/* -P: parents to pin */
	int		 npin;
	const char	*p[HELPER_MAXPATHS];	/* -p: protected paths */
	int		 np;
	const char	*s[HELPER_MAXPATHS];	/* -s: roots whose sockets */
	int		 ns;			/* the command may reach */
	const char	*t[HELPER_MAXPATHS];	/* -t: roots whose sockets */
	int		 nt;			/* it may not (temp, state) */
	const char	*a[HELPER_MAXPATHS];	/* -a: sockets allowed by name */
	int		 na;
	int		 all;		/* -A: every socket allowed */
	int		 gate;		/* -g: the seccomp gate even where
					   Landlock has RESOLVE_UNIX */
	int		 mount;		/* 0 off, 1 try (-m), 2 required (-M) */
	int		 nonet;		/* -n */
	int		 lockfd;	/* -L: held until the last process is
					   gone, never the command's; or -1 */
	int		 init;		/* -I: pid 1 of a pid namespace made
					   by someone else (bwrap) */
	int		 statusfd;	/* -c: the command's wait status goes
					   here (with -I); or -1 */
	const char	*ovl;		/* -o: overlay on this path ... */
	const char	*upper;		/* -u: ... with this upper dir */
	const char	*work;		/* -k: ... and this work dir */
	char		**cmd;
};

/*
 * `arcturn: [prefix]what[: path]: strerror(e)` on stderr. fail() says it
 * with errno and exits 125: the command never runs half confined.
 * say_prefix: what say() puts before what (while setting up a dry run).
 */
void		say(const char *what, const char *path, int e);
const char	*say_prefix(void);
_Noreturn void	fail(const char *what, const char *path);

/*
 * The Landlock layers. ll_abi: the kernel's ABI (0 without Landlock).
 * ll_resolve_unix: 1 when the kernel takes LANDLOCK_ACCESS_FS_RESOLVE_UNIX
 * (then o->gate decides whether the seccomp gate runs anyway).
 * ll_confine: the write confinement of o (every writable root, the
 * sockets the command may reach where RESOLVE_UNIX is used, its own
 * stdout and stderr files, and with proc the files beneath /proc, which
 * must then be a /proc of the command's own pid namespace that only the
 * command's processes may write), no_new_privs; exits 125 on failure.
 * ll_nest: a layer below that one, so that the command can neither
 * signal (ABI 6) nor trace the processes that act for it; 0 or -1.
 * drop_caps: root loses what could undo the confinement; keep_ptrace
 * keeps CAP_SYS_PTRACE (the supervisor reaches a command that made itself
 * undumpable); drop_ptrace then takes it from the command.
 */
int	ll_abi(void);
int	ll_resolve_unix(void);
void	ll_confine(const struct opts *o, int netns, int resolve_unix,
	    int proc);
int	ll_nest(void);
void	drop_caps(int keep_ptrace);
void	drop_ptrace(void);

#endif
