/*
 * config: builds the effective policy from defaults, the user config
 * ($XDG_CONFIG_HOME/arcturn/config.json, default ~/.config/arcturn/...),
 * the workspace config (<workspace>/.arcturn.json, which may only narrow),
 * the environment and the command-line flags, in that order of precedence
 * (flags win). Config files are read by jsonfile (cJSON, with positions).
 *
 * Keys: dryRun (bool), sandbox ("off" | "workspace-write" | "read-only"),
 * grants (array of absolute paths; a leading ~, $HOME or ${HOME} expands,
 * see config_file.h), requireSandbox (bool), network ("on" |
 * "off"), protect (array of workspace-relative paths; default
 * [".git/hooks", ".git/config"]), unixSockets ("all", or an array of
 * absolute paths: the pathname unix sockets, or folders of them, that a
 * confined command may connect to besides its own and those beneath the
 * workspace or a grant; default none), checkpoints ({"keep": turns
 * kept, default 50, "maxBytes": blob bytes kept, default no limit}; a
 * workspace config's is ignored with a warning).
 *
 * Environment: ARCTURN_HOME (state dir, default ~/.arcturn), ARCTURN_DRY_RUN
 * (1/0), ARCTURN_SESSION, TMPDIR, XDG_CONFIG_HOME, HOME.
 *
 * How the sources combine:
 * - user config: any key; its "protect" replaces the default list, its
 *   grants are resolved like --grant (errors carry FILE:LINE:COLUMN).
 * - workspace config: dryRun true, requireSandbox true, network "off" and a
 *   stricter sandbox mode (off < workspace-write < read-only) than the
 *   user config's apply; "protect" adds to the list; "unixSockets" narrows
 *   the user config's (an entry is kept when it lies beneath one of the
 *   user config's; the rest, and "all", are ignored with a warning). dryRun false,
 *   requireSandbox false, network "on", a non-empty "grants" and a looser
 *   mode are ignored with a warning `FILE: "key": ... ignored: ...`
 *   (always for the booleans and network, even when the value agrees).
 *   Wrong types are errors here too.
 * - environment: ARCTURN_DRY_RUN=1|0 (empty = unset, else an error),
 *   ARCTURN_SESSION; ARCTURN_HOME must be absolute.
 * - flags win over everything; --grant adds to the user config's grants,
 *   --allow-unix to the unixSockets that remain ("all" allows every one).
 * The workspace (-C DIR) must not be reached through a symlink that lies
 * in the temp dir, the state dir or a grant (an error naming the link).
 * Grants are deduplicated after realpath; protect entries are normalised
 * ("." and empty components dropped) and deduplicated; an absolute entry,
 * one with a ".." component or one naming the workspace root is an error.
 * Session ids (flag or environment) must match [a-z0-9][a-z0-9-]{0,63}.
 *
 * Config files: a missing file (or a missing parent) is no config; any
 * other failure to read is an error `FILE: reason`; so is a file that is
 * not regular (never blocks on a fifo) or larger than CONFIG_FILE_MAX.
 * Syntax errors name the first byte cJSON rejects, `FILE:LINE:COLUMN:
 * what` (lines from 1; columns are bytes from 1, a byte order mark not
 * counted). A known key given twice is an error at the second one; an
 * unknown key warns `FILE: unknown key "name"` (non-printable bytes shown
 * as \xNN, long names cut; after CONFIG_WARN_MAX of them one more warning
 * gives the count). Warnings go through the callback, which may be NULL.
 * config_load(p, NULL, ...) means no flags. Lists hold at most
 * CONFIG_LIST_MAX entries per file.
 *
 * Errors: the err/errlen convention, warnings through a callback
 * (src/STYLE.md says which module reports how, and who prints).
 */
#ifndef ARCTURN_CONFIG_H
#define ARCTURN_CONFIG_H

#include <stddef.h>

#include "policy/config_check.h"	/* config_check_inputs */
#include "policy/config_file.h"	/* the limits, config_warn_fn, config_mode */
#include "policy/policy.h"

/* What the command line said; -1 (or NULL / 0 entries) means "not given". */
struct config_flags {
	const char	*dir;		/* -C DIR, NULL for the cwd */
	const char	*session;	/* --session */
	int		 mode;		/* enum sandbox_mode, or -1 */
	int		 dry_run;	/* 1, or -1 */
	int		 require_sandbox; /* 1, or -1 */
	int		 network;	/* 1 on, 0 off, -1 */
	const char	**grants;
	size_t		 ngrants;
	const char	**unix_sockets;	/* --allow-unix: paths, or "all" */
	size_t		 nunix;
};

/*
 * Fill *p (zeroed by the caller) from every source. On error returns -1 and
 * writes one line without a trailing newline into err: for a config file
 * `FILE:LINE:COLUMN: what` (bad JSON, wrong type, bad value); otherwise
 * `what: path: reason` (a grant that is relative, names ~user or does
 * not exist outside home, an unusable workspace, an unknown sandbox
 * mode). Paths in *p are canonical.
 * The workspace root and state dir are resolved but the state dir is not
 * created. p is freed on error. Never writes any file: a missing grant
 * beneath home waits in p->grants_new for exec (grants.h).
 */
int	config_load(struct policy *p, const struct config_flags *,
	    char *err, size_t errlen, config_warn_fn *, void *arg);

/* Free everything a policy owns; policy_free(NULL) is a no-op. */
void	policy_free(struct policy *);

#endif
