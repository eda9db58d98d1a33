/*
 * seatbelt: the macOS Seatbelt command line, built from a policy.
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
 * Writable roots, in this order: the workspace, the temp dir, the state
 * dir (~/.arcturn), each grant; in read-only mode the temp dir alone.
 * Protected: each `protect` path beneath the workspace, the state dir's
 * overlays/ and checkpoints/, and the user config's folder when a root
 * contains it. Every path is canonicalised again through the ops (realpath:
 * /var -> /private/var, /tmp -> /private/tmp); the state dir is created
 * (mode 0700) before it is resolved; a path that does not exist yet is
 * its deepest existing ancestor, resolved, plus the missing components.
 */
#ifndef ARCTURN_SEATBELT_H
#define ARCTURN_SEATBELT_H

#include <stddef.h>
#include <sys/types.h>

#include "policy.h"

#define SEATBELT_EXEC	"/usr/bin/sandbox-exec"

/*
 * The operating system, behind a seam so tests can fake it. realpath
 * returns a canonical absolute path allocated with mem_alloc (the caller
 * frees it with mem_free), or NULL with errno (ENOENT when the path does
 * not exist). mkdir is mkdir(2).
 */
struct seatbelt_ops {
	char	*(*realpath)(const char *, void *);
	int	 (*mkdir)(const char *, mode_t, void *);
	void	*arg;
};

/* realpath(3) and mkdir(2). */
extern const struct seatbelt_ops seatbelt_sysops;

/*
 * Build the argv that confines cmd (a NULL-terminated vector, cmd[0]
 * non-NULL) under p:
 *
 *	SEATBELT_EXEC -p PROFILE [-D KEY=VALUE]... -- cmd...
 *
 * On success *argvp is a NULL-terminated vector owned by the caller
 * (seatbelt_free). p->mode must not be MODE_OFF (EINVAL). On error returns
 * -1 with errno and one line in err: `what: path: reason`.
 */
int	seatbelt_argv(const struct policy *p, char *const cmd[],
	    const struct seatbelt_ops *, char ***argvp, char *err,
	    size_t errlen);

/* Free a vector from seatbelt_argv; seatbelt_free(NULL) is a no-op. */
void	seatbelt_free(char **);

/*
 * Canonicalise path through ops as described above (without creating
 * anything). Returns a mem_alloc'd string, or NULL with errno. Exposed for
 * the tests.
 */
char	*seatbelt_canon(const char *, const struct seatbelt_ops *);

#endif
