/*
 * policy: plain data describing what a confined command may write.
 *
 * Filled by config.c (defaults < user config < workspace config < env <
 * flags), read by the sandbox backends. Every path is absolute and
 * canonical (realpath) except protect[], which holds workspace-relative
 * paths as written in config. All strings are owned by the policy and freed
 * by policy_free() (config.h).
 */
#ifndef ARCTURN_POLICY_H
#define ARCTURN_POLICY_H

#include <stddef.h>

enum sandbox_mode {
	MODE_OFF,		/* no confinement at all */
	MODE_WORKSPACE_WRITE,	/* default: workspace, temp, state, grants */
	MODE_READ_ONLY		/* temp dir and devices only */
};

struct strlist {
	char	**v;
	size_t	  n;
};

struct policy {
	enum sandbox_mode mode;
	int		 dry_run;
	int		 require_sandbox;
	int		 network;	/* 1 on (default), 0 off */
	struct strlist	 grants;	/* absolute, canonical */
	struct strlist	 grants_new;	/* grants that do not exist yet and
					   lie beneath home: canonical, as
					   they will be once exec makes them
					   (grants.h), then moved to grants */
	struct strlist	 protect;	/* workspace-relative */
	struct strlist	 unix_sockets;	/* unix sockets the command may reach
					   besides its own and those in the
					   workspace or a grant: absolute,
					   canonical (a socket or a folder) */
	int		 unix_all;	/* every unix socket ("all") */
	char		*workspace;	/* canonical workspace root */
	char		*state;		/* $ARCTURN_HOME (~/.arcturn), canonical */
	char		*tmpdir;	/* $TMPDIR or /tmp, canonical */
	char		*user_config;	/* path of the user config file */
	char		*home;		/* the home directory, canonical, or NULL */
	char		*session;	/* --session / ARCTURN_SESSION, or NULL */
	const char	*backend;	/* ARCTURN_BACKEND (not owned), or NULL:
					   the backend a test or user forces */
	int		 unix_gate;	/* ARCTURN_UNIX_GATE=seccomp: the gate
					   decides about unix sockets even
					   where Landlock could */
	unsigned long	 ckpt_keep;	/* checkpoints.keep, 0: the default */
	unsigned long long ckpt_maxbytes; /* checkpoints.maxBytes, 0: any */
};

#endif
