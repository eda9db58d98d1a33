/*
 * config: defaults < user config < workspace config < environment < flags
 * (config.h). config_file.c applies a config file's keys (and the flags
 * that say the same), config_check.c checks the paths that would widen
 * what a command may write; this file finds the sources and puts them
 * together.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/mem.h"
#include "lib/path.h"
#include "policy/config.h"
#include "policy/config_check.h"
#include "policy/config_file.h"
#include "policy/strlist.h"

#define NAME_SHOWN	CONFIG_NAME_SHOWN

/* *dst = a copy of s; on failure "what: Cannot allocate memory". */
static int
set_path(struct config_ctx *c, char **dst, const char *s, const char *what)
{
	char *d;

	if ((d = mem_strdup(s)) == NULL)
		return config_oom(c, what);
	mem_free(*dst);
	*dst = d;
	return 0;
}

/*
 * var's value followed by varsub when it is an absolute path, else the
 * home directory followed by homesub, into buf; what names it in errors.
 */
static int
base_dir(struct config_ctx *c, const char *var, const char *varsub,
    const char *homesub, char *buf, size_t len, const char *what)
{
	const char *v = getenv(var);
	int n;

	if (v != NULL && v[0] == '/')
		n = snprintf(buf, len, "%s%s", v, varsub);
	else {
		if (config_home(c, &v) != 0)
			return -1;
		n = snprintf(buf, len, "%s%s", v, homesub);
	}
	if (n < 0 || (size_t)n >= len) {
		config_seterr(c, ENAMETOOLONG, "%s: %s", what,
		    strerror(ENAMETOOLONG));
		return -1;
	}
	return 0;
}

/* The pieces config_load puts together. */

/* *dst = the canonical path of directory dir; errors `what: dir: reason`. */
static int
real_dir(struct config_ctx *c, const char *dir, char **dst, const char *what)
{
	struct stat st;
	char *real;
	int rc;

	if ((real = path_realpath(dir, c->po)) == NULL ||
	    stat(real, &st) != 0) {
		config_seterr(c, errno, "%s: %s: %s", what, dir,
		    strerror(errno));
		mem_free(real);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		config_seterr(c, ENOTDIR, "%s: %s: %s", what, dir,
		    strerror(ENOTDIR));
		mem_free(real);
		return -1;
	}
	rc = set_path(c, dst, real, what);
	mem_free(real);
	return rc;
}

static int
load_user_config(struct config_ctx *c)
{
	char dir[PATH_MAX], *real = NULL;
	int missing;

	/* a relative XDG_CONFIG_HOME is ignored, as the XDG spec says */
	if (base_dir(c, "XDG_CONFIG_HOME", "/arcturn", "/.config/arcturn", dir,
	    sizeof dir, "user config") != 0)
		return -1;
	/* a file where a directory should be, a dangling link: no config */
	if (path_canon(dir, 0, c->po, &real) != 0 && errno != ENOTDIR &&
	    errno != ENOENT) {
		config_seterr(c, errno, "user config: %s: %s", dir,
		    strerror(errno));
		return -1;
	}
	missing = real == NULL;
	c->p->user_config = path_join(missing ? dir : real, "config.json");
	mem_free(real);
	if (c->p->user_config == NULL)
		return config_oom(c, "user config");
	if (strlen(c->p->user_config) >= PATH_MAX) {
		config_seterr(c, ENAMETOOLONG, "user config: %s: %s",
		    c->p->user_config, strerror(ENAMETOOLONG));
		return -1;
	}
	return missing ? 0 : config_file_apply(c, c->p->user_config, 0);
}

static int
load_workspace_config(struct config_ctx *c)
{
	char path[PATH_MAX];
	int n;

	n = snprintf(path, sizeof path, "%s/.arcturn.json", c->p->workspace);
	if (n < 0 || (size_t)n >= sizeof path) {
		config_seterr(c, ENAMETOOLONG, "workspace config: %s: %s",
		    c->p->workspace, strerror(ENAMETOOLONG));
		return -1;
	}
	return config_file_apply(c, path, 1);
}

/* [a-z0-9][a-z0-9-]{0,63}, as session ids are everywhere. */
static int
session_ok(const char *s)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++)
		if (i >= 64 || !((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9') || (i > 0 && s[i] == '-')))
			return 0;
	return i > 0;
}

static int
set_session(struct config_ctx *c, const char *s)
{
	char what[NAME_SHOWN * 4 + 8];

	if (!session_ok(s)) {
		config_shown(what, sizeof what, s);
		config_seterr(c, EINVAL, "session: %s: invalid session id "
		    "(expected [a-z0-9][a-z0-9-]{0,63})", what);
		return -1;
	}
	return set_path(c, &c->p->session, s, "session");
}

static int
load_env(struct config_ctx *c)
{
	const char *v;
	char what[NAME_SHOWN * 4 + 8];

	v = getenv("ARCTURN_DRY_RUN");
	if (v != NULL && v[0] != '\0') {
		if (strcmp(v, "1") == 0)
			c->p->dry_run = 1;
		else if (strcmp(v, "0") == 0)
			c->p->dry_run = 0;
		else {
			config_shown(what, sizeof what, v);
			config_seterr(c, EINVAL, "ARCTURN_DRY_RUN=%s: "
			    "expected 1 or 0", what);
			return -1;
		}
	}
	v = getenv("ARCTURN_SESSION");
	if (v != NULL && v[0] != '\0' && set_session(c, v) != 0)
		return -1;
	/* the sandbox's choices, read here once and handed on as data */
	v = getenv("ARCTURN_BACKEND");
	c->p->backend = v != NULL && v[0] != '\0' ? v : NULL;
	v = getenv("ARCTURN_UNIX_GATE");
	c->p->unix_gate = v != NULL && strcmp(v, "seccomp") == 0;
	return 0;
}

static int
load_flags(struct config_ctx *c, const struct config_flags *fl)
{
	size_t i;

	if (fl->mode >= 0) {
		if (fl->mode > MODE_READ_ONLY) {
			config_seterr(c, EINVAL, "sandbox: %d: unknown sandbox "
			    "mode", fl->mode);
			return -1;
		}
		c->p->mode = (enum sandbox_mode)fl->mode;
	}
	if (fl->dry_run >= 0)
		c->p->dry_run = fl->dry_run != 0;
	if (fl->require_sandbox >= 0)
		c->p->require_sandbox = fl->require_sandbox != 0;
	if (fl->network >= 0)
		c->p->network = fl->network != 0;
	for (i = 0; i < fl->ngrants; i++)
		if (config_file_grant(c, fl->grants[i]) != 0)
			return -1;
	for (i = 0; i < fl->nunix; i++)
		if (config_file_unix(c, fl->unix_sockets[i]) != 0)
			return -1;
	if (fl->session != NULL && set_session(c, fl->session) != 0)
		return -1;
	return 0;
}

static int
resolve_state(struct config_ctx *c)
{
	const char *v = getenv("ARCTURN_HOME");
	char path[PATH_MAX];
	struct stat st;

	if (v != NULL && v[0] != '\0' && v[0] != '/') {
		config_seterr(c, EINVAL, "ARCTURN_HOME: %s: not an absolute "
		    "path", v);
		return -1;
	}
	if (base_dir(c, "ARCTURN_HOME", "", "/.arcturn", path, sizeof path,
	    "state dir") != 0)
		return -1;
	if (path_canon(path, 0, c->po, &c->p->state) != 0) {
		config_seterr(c, errno, "state dir: %s: %s", path,
		    strerror(errno));
		return -1;
	}
	if (stat(c->p->state, &st) == 0 && !S_ISDIR(st.st_mode)) {
		config_seterr(c, ENOTDIR, "state dir: %s: %s", path,
		    strerror(ENOTDIR));
		return -1;
	}
	return 0;
}

/*
 * The home directory, canonical, for the git discovery (roots.h); NULL
 * when there is none to name (not an error: nothing is looked up there).
 */
static int
resolve_home(struct config_ctx *c)
{
	const char *h;

	if (config_home(c, &h) != 0) {
		if (c->err != NULL && c->errlen > 0)
			c->err[0] = '\0';
		return 0;
	}
	if (path_canon(h, 0, c->po, &c->p->home) != 0 && errno == ENOMEM)
		return config_oom(c, "home");
	return 0;
}

int
config_load(struct policy *p, const struct config_flags *fl, char *err,
    size_t errlen, config_warn_fn *warn, void *arg)
{
	static const struct config_flags none = { NULL, NULL, -1, -1, -1, -1,
	    NULL, 0, NULL, 0 };
	struct path_memo memo;
	struct config_ctx c = { p, err, errlen, warn, arg, 0, &memo.ops };
	const char *tmp;
	struct stat st;
	int e;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (fl == NULL)
		fl = &none;
	/* the home dir comes up in three of the paths: asked once */
	path_memo_init(&memo, NULL);
	memset(p, 0, sizeof *p);
	p->mode = MODE_WORKSPACE_WRITE;
	p->network = 1;
	if (strlist_push(&p->protect, mem_strdup(".git/hooks")) != 0 ||
	    strlist_push(&p->protect, mem_strdup(".git/config")) != 0) {
		config_oom(&c, "config");
		goto fail;
	}
	/* $TMPDIR when it names a directory, else /tmp */
	tmp = getenv("TMPDIR");
	if (tmp == NULL || tmp[0] == '\0' || stat(tmp, &st) != 0 ||
	    !S_ISDIR(st.st_mode))
		tmp = "/tmp";
	if (real_dir(&c, fl->dir != NULL ? fl->dir : ".", &p->workspace,
	    "workspace") != 0 ||
	    load_user_config(&c) != 0 ||
	    load_workspace_config(&c) != 0 ||
	    load_env(&c) != 0 ||
	    load_flags(&c, fl) != 0 ||
	    resolve_state(&c) != 0 ||
	    real_dir(&c, tmp, &p->tmpdir, "tmpdir") != 0 ||
	    resolve_home(&c) != 0 ||
	    config_check_link(p, fl->dir, err, errlen) != 0)
		goto fail;
	path_memo_free(&memo);
	return 0;
fail:
	e = errno;
	path_memo_free(&memo);
	policy_free(p);
	errno = e;
	return -1;
}

void
policy_free(struct policy *p)
{
	if (p == NULL)
		return;
	strlist_free(&p->grants);
	strlist_free(&p->grants_new);
	strlist_free(&p->protect);
	strlist_free(&p->unix_sockets);
	mem_free(p->workspace);
	mem_free(p->state);
	mem_free(p->tmpdir);
	mem_free(p->user_config);
	mem_free(p->home);
	mem_free(p->session);
	memset(p, 0, sizeof *p);
}

