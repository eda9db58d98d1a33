/*
 * config: builds the effective policy from defaults, the user config
 * ($XDG_CONFIG_HOME/arcturn/config.json, default ~/.config/arcturn/...),
 * the workspace config (<workspace>/.arcturn.json, which may only narrow),
 * the environment and the command-line flags, in that order of precedence
 * (flags win). The only user of cJSON for configuration.
 *
 * Keys: dryRun (bool), sandbox ("off" | "workspace-write" | "read-only"),
 * grants (array of absolute paths), requireSandbox (bool), network ("on" |
 * "off"), protect (array of workspace-relative paths; default
 * [".git/hooks", ".git/config"]).
 *
 * Environment: ARCTURN_HOME (state dir, default ~/.arcturn), ARCTURN_DRY_RUN
 * (1/0), ARCTURN_SESSION, TMPDIR, XDG_CONFIG_HOME, HOME.
 */
#ifndef ARCTURN_CONFIG_H
#define ARCTURN_CONFIG_H

#include <stddef.h>

#include "policy.h"

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
};

/* Called once per warning (unknown key, a loosening workspace setting). */
typedef void config_warn_fn(const char *msg, void *arg);

/*
 * Fill *p (zeroed by the caller) from every source. On error returns -1 and
 * writes one line without a trailing newline into err: for a config file
 * `FILE:LINE:COLUMN: what` (bad JSON, wrong type, bad value); otherwise
 * `what: path: reason` (a grant that does not exist or is relative, an
 * unusable workspace, an unknown sandbox mode). Paths in *p are canonical.
 * The workspace root and state dir are resolved but the state dir is not
 * created. p is freed on error. Never writes any file.
 */
int	config_load(struct policy *p, const struct config_flags *,
	    char *err, size_t errlen, config_warn_fn *, void *arg);

/* Parse a sandbox mode name; returns the enum value or -1. */
int	config_mode(const char *);

/* Free everything a policy owns; policy_free(NULL) is a no-op. */
void	policy_free(struct policy *);

#endif
