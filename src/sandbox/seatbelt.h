/*
 * seatbelt: the macOS Seatbelt command line, built from a policy's roots.
 *
 * Pure C with no macOS dependency, so every rule here is unit-tested on
 * Linux; sandbox_macos.c only calls it and execs the result.
 *
 * The profile text is the static base profile (seatbelt/base.sb, embedded
 * at build time) followed by generated rules that name parameters only:
 *
 *	(allow file-write* (subpath (param "WRITABLE_ROOT_0")))
 *	...
 *	(deny file-write* (subpath (param "PROTECTED_0")))
 *	...
 *
 * Paths never enter the profile text: each one is passed as its own argv
 * element, `-D WRITABLE_ROOT_i=/path` or `-D PROTECTED_i=/path`, so no byte
 * of a path (quote, backslash, parenthesis, newline, non-ASCII) can change
 * what the profile says. Protected rules come after the allows because in
 * SBPL the last matching rule wins.
 *
 * The paths are the ones roots_build computes (roots.h): writable roots
 * in its order (workspace, temp dir, state dir, grants), canonical
 * (/var -> /private/var); protected paths built with ROOTS_MISSING, since
 * a deny rule also refuses creating a path that does not exist yet. The
 * device files the command may write are literals of the base profile.
 */
#ifndef ARCTURN_SEATBELT_H
#define ARCTURN_SEATBELT_H

#include "policy/roots.h"

#define SEATBELT_EXEC	"/usr/bin/sandbox-exec"

/*
 * Build the argv that confines cmd (a NULL-terminated vector, cmd[0]
 * non-NULL) to the roots r, with the network rules of network-off.sb
 * unless network:
 *
 *	SEATBELT_EXEC -p PROFILE [-D KEY=VALUE]... -- cmd...
 *
 * On success *argvp is a NULL-terminated vector owned by the caller
 * (seatbelt_free). Returns -1 with errno: EINVAL for no command, ENOMEM.
 */
int	seatbelt_argv(const struct roots *r, int network, char *const cmd[],
	    char ***argvp);

/* Free a vector from seatbelt_argv; seatbelt_free(NULL) is a no-op. */
void	seatbelt_free(char **);

#endif
