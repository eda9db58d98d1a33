/*
 * helper.h: what helper.c (the Landlock part and main) and mount.c (the
 * mount layer) share: the policy as parsed from argv, and the one way the
 * helper reports a failure before the command runs.
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
	int		 mount;		/* 0 off, 1 try (-m), 2 required (-M) */
	int		 nonet;		/* -n */
	const char	*ovl;		/* -o: overlay on this path ... */
	const char	*upper;		/* -u: ... with this upper dir */
	const char	*work;		/* -k: ... and this work dir */
	char		**cmd;
};

/*
 * `arcturn: [prefix]what[: path]: strerror(e)` on stderr. fail() says it
 * with errno and exits 125: the command never runs half confined.
 */
void		say(const char *what, const char *path, int e);
_Noreturn void	fail(const char *what, const char *path);

#endif
