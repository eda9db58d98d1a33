/*
 * opts.h: the helper's whole policy, as helper.c parses it from argv
 * (the options are described there). Every module reads it; none
 * changes it. Paths are canonical (arcturn's roots module made them);
 * each list holds at most HELPER_MAXPATHS.
 */
#ifndef ARCTURN_OPTS_H
#define ARCTURN_OPTS_H

#include "uapi/landlock_uapi.h"

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
	int		 keyrings[2];	/* -K: serials of the user's */
	int		 nkeyrings;	/* keyrings (with -I), keys.h */
	const char	*ovl;		/* -o: overlay on this path ... */
	const char	*upper;		/* -u: ... with this upper dir */
	const char	*work;		/* -k: ... and this work dir */
	int		 gofd;		/* -G: ... once 'g' comes here; or -1 */
	char		**cmd;
};

#endif
