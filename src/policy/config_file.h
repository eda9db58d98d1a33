/*
 * config_file: what one config file does to the policy, key by key
 * (config.h: Keys, How the sources combine, Config files), and the
 * flags that say the same as a key (--grant, --allow-unix). config.c
 * puts the sources together; nothing else includes this header.
 *
 * A config_ctx carries the policy being built and where errors and
 * warnings go; config_load fills one and passes it to every source.
 *
 * Errors: the err/errlen convention (src/STYLE.md), through the ctx:
 * -1 with errno and one line in c->err, `FILE:LINE:COLUMN: what` for
 * what a config file says, `what: path: reason` otherwise. Warnings go
 * to c->warn (NULL: dropped).
 */
#ifndef ARCTURN_CONFIG_FILE_H
#define ARCTURN_CONFIG_FILE_H

#include <stddef.h>

#include "lib/path.h"
#include "policy/policy.h"

#define CONFIG_FILE_MAX	(1024 * 1024)	/* bytes; larger config files are refused */
#define CONFIG_LIST_MAX	1024		/* entries in one "grants" or "protect" */
#define CONFIG_WARN_MAX	16		/* unknown-key warnings per file, then a count */
#define CONFIG_NAME_SHOWN	64	/* bytes of a name in a message */

/* Called once per warning (unknown key, a loosening workspace setting). */
typedef void config_warn_fn(const char *msg, void *arg);

/* Parse a sandbox mode name; returns the enum value or -1. */
int	config_mode(const char *);

struct config_ctx {
	struct policy	*p;
	char		*err;
	size_t		 errlen;
	config_warn_fn	*warn;
	void		*warnarg;
	int		 narrow;	/* the workspace config: only narrows */
	const struct path_ops *po;	/* realpath for this load (a memo) */
};

/*
 * Read the config file path and apply it to c->p; narrow: it is the
 * workspace config. A missing file (or parent) is no config: 0.
 */
int	config_file_apply(struct config_ctx *c, const char *path, int narrow);

/*
 * --grant path: added to the grants as a "grants" entry would be: "~",
 * "~/...", "$HOME" and "${HOME}" expand to the home directory (path.h:
 * path_home; "~user" and other variables are errors); then absolute,
 * canonical, once. One that does not exist is an error, unless its
 * canonical path lies strictly beneath the home directory's: then it goes
 * to grants_new, for exec to create (grants.h).
 */
int	config_file_grant(struct config_ctx *c, const char *path);

/*
 * --allow-unix path (or "all"): added to the unixSockets as an entry
 * would be (absolute, canonical, once).
 */
int	config_file_unix(struct config_ctx *c, const char *path);

/*
 * The home directory: $HOME when absolute, else the passwd entry's; -1
 * with c->err `HOME is not set and uid N has no home directory`.
 */
int	config_home(struct config_ctx *c, const char **home);

/* One line into c->err (printf-like), errno set to e. */
void	config_seterr(struct config_ctx *c, int e, const char *fmt, ...);

/* `what: Cannot allocate memory`, ENOMEM; returns -1. */
int	config_oom(struct config_ctx *c, const char *what);

/*
 * s for a message: control bytes, quote and backslash as \xNN, cut after
 * CONFIG_NAME_SHOWN bytes ("..."); out holds 4 * CONFIG_NAME_SHOWN + 8.
 */
void	config_shown(char *out, size_t outlen, const char *s);

#endif
