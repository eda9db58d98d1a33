/*
 * config: defaults < user config < workspace config < environment < flags.
 *
 * jsonfile reads each config file (cJSON, with the place of every key and
 * value); this file decides what the values mean. The walk over a file's
 * members keeps a cursor into jsonfile's index (jsonfile.h), so a wrong
 * type or a bad value is reported at FILE:LINE:COLUMN of the value itself,
 * or of the array element at fault.
 *
 * Duplicate known keys are an error (pointing at the second one): for a
 * policy file, "which one wins" is not a question to leave to a parser.
 * Unknown keys only warn, once per occurrence up to CONFIG_WARN_MAX per
 * file, then once with the count (a hostile workspace config must not
 * flood the terminal). Lists are capped at CONFIG_LIST_MAX entries, which
 * also bounds the quadratic de-duplication.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "jsonfile.h"
#include "mem.h"
#include "path.h"
#include "strlist.h"

#define NAME_SHOWN	64		/* bytes of an unknown key echoed in a warning */

struct ctx {
	struct policy	*p;
	char		*err;
	size_t		 errlen;
	config_warn_fn	*warn;
	void		*warnarg;
	int		 narrow;	/* the workspace config: only narrows */
};

enum key {
	K_DRYRUN, K_SANDBOX, K_GRANTS, K_REQUIRE, K_NETWORK, K_PROTECT, K_UNIX,
	K_CKPT, K_COUNT
};

static const char *const keys[K_COUNT] = {
	"dryRun", "sandbox", "grants", "requireSandbox", "network", "protect",
	"unixSockets", "checkpoints"
};

static const char *const mode_names[] = {
	"off", "workspace-write", "read-only"
};

/* Errors and warnings. */

static void
seterr(struct ctx *c, int e, const char *fmt, ...)
{
	va_list ap;

	if (c->err != NULL && c->errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(c->err, c->errlen, fmt, ap);
		va_end(ap);
	}
	errno = e;
}

static int
oom(struct ctx *c, const char *what)
{
	seterr(c, ENOMEM, "%s: %s", what, strerror(ENOMEM));
	return -1;
}

/* FILE:LINE:COLUMN: what, at byte off of f (just what if f is NULL); EINVAL. */
static void
ferr(struct ctx *c, const struct jsonfile *f, size_t off, const char *fmt, ...)
{
	char what[PATH_MAX + 128];
	size_t line, col;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (f == NULL) {
		seterr(c, EINVAL, "%s", what);
		return;
	}
	jsonfile_linecol(f, off, &line, &col);
	seterr(c, EINVAL, "%s:%zu:%zu: %s", f->path, line, col, what);
}

static void
warnmsg(struct ctx *c, const char *fmt, ...)
{
	char msg[PATH_MAX + 256];
	va_list ap;

	if (c->warn == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	c->warn(msg, c->warnarg);
}

/* Copy s for display: control bytes, quote and backslash escaped, capped. */
static void
shown(char *out, size_t outlen, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0, i;
	unsigned char ch;

	for (i = 0; s[i] != '\0'; i++) {
		if (i >= NAME_SHOWN || o + 8 >= outlen) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		ch = (unsigned char)s[i];
		if (ch < 0x20 || ch == 0x7f || ch == '"' || ch == '\\') {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[ch >> 4];
			out[o++] = hex[ch & 15];
		} else
			out[o++] = (char)ch;
	}
	out[o] = '\0';
}

/* String lists. */

static int
sl_has(const struct strlist *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return 1;
	return 0;
}

/* Append a copy of s unless it is there already. */
static int
sl_add(struct strlist *l, const char *s)
{
	return sl_has(l, s) ? 0 : strlist_push(l, mem_strdup(s));
}

/* Paths. */

/* *dst = a copy of s; on failure "what: Cannot allocate memory". */
static int
set_path(struct ctx *c, char **dst, const char *s, const char *what)
{
	char *d;

	if ((d = mem_strdup(s)) == NULL)
		return oom(c, what);
	mem_free(*dst);
	*dst = d;
	return 0;
}

/* The home directory: $HOME if absolute, else the passwd entry. */
static int
home_dir(struct ctx *c, const char **home)
{
	const char *h = getenv("HOME");
	struct passwd *pw;

	if (h != NULL && h[0] == '/') {
		*home = h;
		return 0;
	}
	errno = 0;
	if ((pw = getpwuid(getuid())) == NULL || pw->pw_dir == NULL ||
	    pw->pw_dir[0] != '/') {
		seterr(c, errno ? errno : ENOENT,
		    "HOME is not set and uid %ld has no home directory",
		    (long)getuid());
		return -1;
	}
	*home = pw->pw_dir;
	return 0;
}

/*
 * var's value followed by varsub when it is an absolute path, else the
 * home directory followed by homesub, into buf; what names it in errors.
 */
static int
base_dir(struct ctx *c, const char *var, const char *varsub,
    const char *homesub, char *buf, size_t len, const char *what)
{
	const char *v = getenv(var);
	int n;

	if (v != NULL && v[0] == '/')
		n = snprintf(buf, len, "%s%s", v, varsub);
	else {
		if (home_dir(c, &v) != 0)
			return -1;
		n = snprintf(buf, len, "%s%s", v, homesub);
	}
	if (n < 0 || (size_t)n >= len) {
		seterr(c, ENAMETOOLONG, "%s: %s", what, strerror(ENAMETOOLONG));
		return -1;
	}
	return 0;
}

/*
 * Add a grant: absolute, existing, canonical. f is the config file it came
 * from (NULL for --grant), pos its position there.
 */
static int
add_grant(struct ctx *c, const char *path, const struct jsonfile *f,
    size_t pos)
{
	char real[PATH_MAX];
	int e;

	if (path[0] != '/') {
		ferr(c, f, pos, "grant: %s: not an absolute path", path);
		return -1;
	}
	if (realpath(path, real) == NULL) {
		e = errno;
		ferr(c, f, pos, "grant: %s: %s", path, strerror(e));
		errno = e;
		return -1;
	}
	if (sl_add(&c->p->grants, real) != 0) {
		seterr(c, errno, "grant: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * A protect entry as a normalised workspace-relative path ("." and empty
 * components dropped, no trailing slash). Returns -1 with why set.
 */
static int
norm_protect(const char *s, char *out, size_t outlen, const char **why)
{
	const char *p = s, *e;
	size_t o = 0, n;

	if (s[0] == '/') {
		*why = "not a relative path";
		return -1;
	}
	while (*p != '\0') {
		n = strcspn(p, "/");
		e = p + n;
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			*why = "contains a \"..\" component";
			return -1;
		}
		if (n > 0 && !(n == 1 && p[0] == '.')) {
			if (o + n + 2 > outlen) {
				*why = strerror(ENAMETOOLONG);
				return -1;
			}
			if (o > 0)
				out[o++] = '/';
			memcpy(out + o, p, n);
			o += n;
		}
		p = *e == '/' ? e + 1 : e;
	}
	out[o] = '\0';
	if (o == 0) {
		*why = "does not name a path inside the workspace";
		return -1;
	}
	return 0;
}

/* Applying one file. */

/*
 * Check that v, at entry e of f, is an array of at most CONFIG_LIST_MAX
 * strings without NUL; err at the culprit.
 */
static int
check_strings(struct ctx *c, const struct jsonfile *f, const cJSON *v,
    size_t e, const char *key)
{
	const cJSON *el;
	size_t i = 0, j = e + 1;

	if (!cJSON_IsArray(v)) {
		ferr(c, f, f->at[e].off, "\"%s\" must be an array of strings",
		    key);
		return -1;
	}
	for (el = v->child; el != NULL; el = el->next, j = f->at[j].next) {
		if (!cJSON_IsString(el) || el->valuestring == NULL) {
			ferr(c, f, f->at[j].off, "\"%s\" must be an array of "
			    "strings", key);
			return -1;
		}
		if (f->at[j].nul) {
			ferr(c, f, f->at[j].off, "\"%s\": string contains a "
			    "NUL character", key);
			return -1;
		}
		if (++i > CONFIG_LIST_MAX) {
			ferr(c, f, f->at[j].off, "\"%s\": more than %d entries",
			    key, CONFIG_LIST_MAX);
			return -1;
		}
	}
	return 0;
}

static int
apply_protect(struct ctx *c, const struct jsonfile *f, const cJSON *v,
    size_t e)
{
	struct strlist l = { NULL, 0 };
	char norm[PATH_MAX], what[NAME_SHOWN * 4 + 8];
	const char *why;
	const cJSON *el;
	size_t i, j = e + 1;

	for (el = v->child; el != NULL; el = el->next, j = f->at[j].next) {
		if (norm_protect(el->valuestring, norm, sizeof norm,
		    &why) != 0) {
			shown(what, sizeof what, el->valuestring);
			ferr(c, f, f->at[j].off, "protect: %s: %s",
			    what[0] ? what : "\"\"", why);
			strlist_free(&l);
			return -1;
		}
		if (sl_add(&l, norm) != 0) {
			strlist_free(&l);
			return oom(c, f->path);
		}
	}
	if (c->narrow) {
		for (i = 0; i < l.n; i++)
			if (sl_add(&c->p->protect, l.v[i]) != 0) {
				strlist_free(&l);
				return oom(c, f->path);
			}
		strlist_free(&l);
	} else {
		/* The user config's list replaces the default. */
		strlist_free(&c->p->protect);
		c->p->protect = l;
	}
	return 0;
}

/*
 * unixSockets: "all", or absolute paths (sockets or folders of them, which
 * need not exist), kept canonical. f and pos place an error (f NULL: the
 * flag --allow-unix). Adds path to l, or sets *all.
 */
static int
unix_entry(struct ctx *c, const char *path, const struct jsonfile *f,
    size_t pos, struct strlist *l, int *all)
{
	char *real = NULL;
	int e;

	if (strcmp(path, "all") == 0) {
		*all = 1;
		return 0;
	}
	if (path[0] != '/') {
		ferr(c, f, pos, "unix socket: %s: not an absolute path (or "
		    "\"all\")", path);
		return -1;
	}
	if (path_canon(path, PATH_LEXICAL, NULL, &real) != 0) {
		e = errno;
		ferr(c, f, pos, "unix socket: %s: %s", path, strerror(e));
		errno = e;
		return -1;
	}
	e = sl_add(l, real);
	mem_free(real);
	if (e != 0)
		return oom(c, "unix socket");
	return 0;
}

static int
sl_beneath(const struct strlist *l, const char *path)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (path_under(path, l->v[i]))
			return 1;
	return 0;
}

static int
apply_unix(struct ctx *c, const struct jsonfile *f, const cJSON *v, size_t e)
{
	struct policy *p = c->p;
	struct strlist l = { NULL, 0 }, keep = { NULL, 0 };
	const cJSON *el;
	size_t i, j;
	int all = 0;

	if (cJSON_IsString(v) && !f->at[e].nul &&
	    strcmp(v->valuestring, "all") == 0)
		all = 1;
	else {
		if (!cJSON_IsArray(v)) {
			ferr(c, f, f->at[e].off, "\"unixSockets\" must be "
			    "\"all\" or an array of absolute paths");
			return -1;
		}
		if (check_strings(c, f, v, e, "unixSockets") != 0)
			return -1;
		for (el = v->child, j = e + 1; el != NULL;
		    el = el->next, j = f->at[j].next)
			if (strcmp(el->valuestring, "all") == 0 ||
			    unix_entry(c, el->valuestring, f, f->at[j].off, &l,
			    &all) != 0) {
				if (strcmp(el->valuestring, "all") == 0)
					ferr(c, f, f->at[j].off, "\"unixSockets\""
					    ": \"all\" stands alone, not in "
					    "a list");
				strlist_free(&l);
				return -1;
			}
	}
	if (!c->narrow) {
		strlist_free(&p->unix_sockets);
		p->unix_sockets = l;
		p->unix_all = all;
		return 0;
	}
	/* the workspace config: what the user config allows, at most */
	if (all) {
		if (!p->unix_all)
			warnmsg(c, "%s: \"unixSockets\": \"all\" ignored: a "
			    "workspace config can only narrow it", f->path);
		return 0;
	}
	for (i = 0; i < l.n; i++) {
		if (p->unix_all || sl_beneath(&p->unix_sockets, l.v[i])) {
			if (sl_add(&keep, l.v[i]) != 0)
				goto nomem;
		} else
			warnmsg(c, "%s: \"unixSockets\": %s ignored: a "
			    "workspace config can only narrow it", f->path,
			    l.v[i]);
	}
	/* an entry of the user config's beneath one of the workspace's */
	for (i = 0; !p->unix_all && i < p->unix_sockets.n; i++)
		if (sl_beneath(&l, p->unix_sockets.v[i]) &&
		    sl_add(&keep, p->unix_sockets.v[i]) != 0)
			goto nomem;
	strlist_free(&l);
	strlist_free(&p->unix_sockets);
	p->unix_sockets = keep;
	p->unix_all = 0;
	return 0;
nomem:
	strlist_free(&l);
	strlist_free(&keep);
	return oom(c, f->path);
}

/*
 * "checkpoints": {"keep": N (turns, >= 1), "maxBytes": N (0: no limit)}.
 * The user's own business: a workspace config's is ignored.
 */
static int
apply_ckpt(struct ctx *c, const struct jsonfile *f, const cJSON *v, size_t e)
{
	const cJSON *m;
	double d;

	if (!cJSON_IsObject(v)) {
		ferr(c, f, f->at[e].off, "\"checkpoints\" must be an object");
		return -1;
	}
	if (c->narrow) {
		warnmsg(c, "%s: \"checkpoints\" ignored: retention is set in "
		    "the user config", f->path);
		return 0;
	}
	for (m = v->child; m != NULL; m = m->next) {
		d = cJSON_IsNumber(m) ? m->valuedouble : -1;
		if ((strcmp(m->string, "keep") != 0 &&
		    strcmp(m->string, "maxBytes") != 0) || d < 0 ||
		    d != (double)(unsigned long long)d || d > 9e15 ||
		    (m->string[0] == 'k' && (d < 1 || d > 1e6))) {
			ferr(c, f, f->at[e].off, "\"checkpoints\": \"keep\" "
			    "(1 to 1000000) and \"maxBytes\" (bytes, 0: no "
			    "limit) take whole numbers");
			return -1;
		}
		if (m->string[0] == 'k')
			c->p->ckpt_keep = (unsigned long)d;
		else
			c->p->ckpt_maxbytes = (unsigned long long)d;
	}
	return 0;
}

/* Apply the value v of key k, at entry e of f. */
static int
apply_key(struct ctx *c, const struct jsonfile *f, enum key k, const cJSON *v,
    size_t e)
{
	struct policy *p = c->p;
	size_t off = f->at[e].off, j;
	const cJSON *el;
	int b, m;

	switch (k) {
	case K_DRYRUN:
	case K_REQUIRE:
		if (!cJSON_IsBool(v)) {
			ferr(c, f, off, "\"%s\" must be true or false",
			    keys[k]);
			return -1;
		}
		b = cJSON_IsTrue(v);
		if (c->narrow && !b)
			warnmsg(c, "%s: \"%s\": false ignored: a workspace "
			    "config can only turn it on", f->path, keys[k]);
		else if (k == K_DRYRUN)
			p->dry_run = b;
		else
			p->require_sandbox = b;
		return 0;
	case K_SANDBOX:
		if (!cJSON_IsString(v) || f->at[e].nul ||
		    (m = config_mode(v->valuestring)) < 0) {
			ferr(c, f, off, "\"sandbox\" must be \"off\", "
			    "\"workspace-write\" or \"read-only\"");
			return -1;
		}
		if (c->narrow && m < (int)p->mode)
			warnmsg(c, "%s: \"sandbox\": \"%s\" ignored: a "
			    "workspace config cannot loosen \"%s\"", f->path,
			    mode_names[m], mode_names[p->mode]);
		else
			p->mode = (enum sandbox_mode)m;
		return 0;
	case K_NETWORK:
		if (!cJSON_IsString(v) || f->at[e].nul ||
		    (strcmp(v->valuestring, "on") != 0 &&
		    strcmp(v->valuestring, "off") != 0)) {
			ferr(c, f, off,
			    "\"network\" must be \"on\" or \"off\"");
			return -1;
		}
		b = strcmp(v->valuestring, "on") == 0;
		if (c->narrow && b)
			warnmsg(c, "%s: \"network\": \"on\" ignored: a "
			    "workspace config can only turn network off",
			    f->path);
		else
			p->network = b;
		return 0;
	case K_GRANTS:
		if (check_strings(c, f, v, e, "grants") != 0)
			return -1;
		if (c->narrow) {
			if (v->child != NULL)
				warnmsg(c, "%s: \"grants\" ignored: a "
				    "workspace config cannot grant writes",
				    f->path);
			return 0;
		}
		for (el = v->child, j = e + 1; el != NULL;
		    el = el->next, j = f->at[j].next)
			if (add_grant(c, el->valuestring, f, f->at[j].off) != 0)
				return -1;
		return 0;
	case K_PROTECT:
		if (check_strings(c, f, v, e, "protect") != 0)
			return -1;
		return apply_protect(c, f, v, e);
	case K_UNIX:
		return apply_unix(c, f, v, e);
	case K_CKPT:
		return apply_ckpt(c, f, v, e);
	case K_COUNT:
		break;
	}
	return 0;
}

/* Read and apply one config file; a missing file is not an error. */
static int
apply_file(struct ctx *c, const char *path, int narrow)
{
	struct jsonfile f;
	char name[NAME_SHOWN * 4 + 8];
	const cJSON *v;
	size_t i = 1;	/* the first key's entry */
	int seen[K_COUNT] = { 0 };
	int r, k, rc = -1, nunknown = 0;

	if ((r = jsonfile_read(&f, path, CONFIG_FILE_MAX, c->err,
	    c->errlen)) <= 0)
		return r;
	c->narrow = narrow;
	if (!cJSON_IsObject(f.root)) {
		ferr(c, &f, 0, "expected a JSON object at the top level");
		goto out;
	}
	/* member: its key at entry i, its value at i + 1 */
	for (v = f.root->child; v != NULL; v = v->next, i = f.at[i + 1].next) {
		for (k = 0; k < K_COUNT; k++)
			if (strcmp(v->string, keys[k]) == 0)
				break;
		if (k == K_COUNT) {
			if (++nunknown > CONFIG_WARN_MAX)
				continue;
			shown(name, sizeof name, v->string);
			warnmsg(c, "%s: unknown key \"%s\"", path, name);
			continue;
		}
		if (seen[k]++ > 0) {
			ferr(c, &f, f.at[i].off, "duplicate key \"%s\"",
			    keys[k]);
			goto out;
		}
		if (apply_key(c, &f, (enum key)k, v, i + 1) != 0)
			goto out;
	}
	if (nunknown > CONFIG_WARN_MAX)
		warnmsg(c, "%s: %d more unknown keys", path,
		    nunknown - CONFIG_WARN_MAX);
	rc = 0;
out:
	jsonfile_free(&f);
	return rc;
}

/* The pieces config_load puts together. */

/* *dst = the canonical path of directory dir; errors `what: dir: reason`. */
static int
real_dir(struct ctx *c, const char *dir, char **dst, const char *what)
{
	char real[PATH_MAX];
	struct stat st;

	if (realpath(dir, real) == NULL || stat(real, &st) != 0) {
		seterr(c, errno, "%s: %s: %s", what, dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		seterr(c, ENOTDIR, "%s: %s: %s", what, dir, strerror(ENOTDIR));
		return -1;
	}
	return set_path(c, dst, real, what);
}

static int
load_user_config(struct ctx *c)
{
	char dir[PATH_MAX], *real = NULL;
	int missing;

	/* a relative XDG_CONFIG_HOME is ignored, as the XDG spec says */
	if (base_dir(c, "XDG_CONFIG_HOME", "/arcturn", "/.config/arcturn", dir,
	    sizeof dir, "user config") != 0)
		return -1;
	/* a file where a directory should be, a dangling link: no config */
	if (path_canon(dir, 0, NULL, &real) != 0 && errno != ENOTDIR &&
	    errno != ENOENT) {
		seterr(c, errno, "user config: %s: %s", dir, strerror(errno));
		return -1;
	}
	missing = real == NULL;
	c->p->user_config = path_join(missing ? dir : real, "config.json");
	mem_free(real);
	if (c->p->user_config == NULL)
		return oom(c, "user config");
	if (strlen(c->p->user_config) >= PATH_MAX) {
		seterr(c, ENAMETOOLONG, "user config: %s: %s",
		    c->p->user_config, strerror(ENAMETOOLONG));
		return -1;
	}
	return missing ? 0 : apply_file(c, c->p->user_config, 0);
}

static int
load_workspace_config(struct ctx *c)
{
	char path[PATH_MAX];
	int n;

	n = snprintf(path, sizeof path, "%s/.arcturn.json", c->p->workspace);
	if (n < 0 || (size_t)n >= sizeof path) {
		seterr(c, ENAMETOOLONG, "workspace config: %s: %s",
		    c->p->workspace, strerror(ENAMETOOLONG));
		return -1;
	}
	return apply_file(c, path, 1);
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
set_session(struct ctx *c, const char *s)
{
	char what[NAME_SHOWN * 4 + 8];

	if (!session_ok(s)) {
		shown(what, sizeof what, s);
		seterr(c, EINVAL, "session: %s: invalid session id "
		    "(expected [a-z0-9][a-z0-9-]{0,63})", what);
		return -1;
	}
	return set_path(c, &c->p->session, s, "session");
}

static int
load_env(struct ctx *c)
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
			shown(what, sizeof what, v);
			seterr(c, EINVAL, "ARCTURN_DRY_RUN=%s: expected 1 or 0",
			    what);
			return -1;
		}
	}
	v = getenv("ARCTURN_SESSION");
	if (v != NULL && v[0] != '\0' && set_session(c, v) != 0)
		return -1;
	return 0;
}

static int
load_flags(struct ctx *c, const struct config_flags *fl)
{
	size_t i;

	if (fl->mode >= 0) {
		if (fl->mode > MODE_READ_ONLY) {
			seterr(c, EINVAL, "sandbox: %d: unknown sandbox mode",
			    fl->mode);
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
		if (add_grant(c, fl->grants[i], NULL, 0) != 0)
			return -1;
	for (i = 0; i < fl->nunix; i++)
		if (unix_entry(c, fl->unix_sockets[i], NULL, 0,
		    &c->p->unix_sockets, &c->p->unix_all) != 0)
			return -1;
	if (fl->session != NULL && set_session(c, fl->session) != 0)
		return -1;
	return 0;
}

static int
resolve_state(struct ctx *c)
{
	const char *v = getenv("ARCTURN_HOME");
	char path[PATH_MAX];
	struct stat st;

	if (v != NULL && v[0] != '\0' && v[0] != '/') {
		seterr(c, EINVAL, "ARCTURN_HOME: %s: not an absolute path", v);
		return -1;
	}
	if (base_dir(c, "ARCTURN_HOME", "", "/.arcturn", path, sizeof path,
	    "state dir") != 0)
		return -1;
	if (path_canon(path, 0, NULL, &c->p->state) != 0) {
		seterr(c, errno, "state dir: %s: %s", path, strerror(errno));
		return -1;
	}
	if (stat(c->p->state, &st) == 0 && !S_ISDIR(st.st_mode)) {
		seterr(c, ENOTDIR, "state dir: %s: %s", path,
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
resolve_home(struct ctx *c)
{
	const char *h;

	if (home_dir(c, &h) != 0) {
		if (c->err != NULL && c->errlen > 0)
			c->err[0] = '\0';
		return 0;
	}
	if (path_canon(h, 0, NULL, &c->p->home) != 0 && errno == ENOMEM)
		return oom(c, "home");
	return 0;
}

/* The temp dir, state dir or grant path lies in, or NULL. */
static const char *
in_other_root(const struct policy *p, const char *path)
{
	size_t i;

	if (path_under(path, p->tmpdir))
		return p->tmpdir;
	if (path_under(path, p->state))
		return p->state;
	for (i = 0; i < p->grants.n; i++)
		if (path_under(path, p->grants.v[i]))
			return p->grants.v[i];
	return NULL;
}

/*
 * -C DIR must not pass through a symlink that lies in another writable
 * root: one confined run could swap it, and the next run with the same
 * -C would make the link's target writable. Each component of dir is
 * looked at as the kernel would walk it (relative to the cwd).
 */
static int
check_ws_link(struct ctx *c, const char *dir)
{
	char cur[PATH_MAX], next[PATH_MAX], real[PATH_MAX];
	const char *q, *root;
	struct stat st;
	size_t n;

	if (dir == NULL)
		return 0;		/* the cwd: an inode, not a path */
	if (dir[0] == '/')
		snprintf(cur, sizeof cur, "/");
	else if (realpath(".", cur) == NULL)
		return 0;		/* real_dir said what it could */
	for (; *dir != '\0'; dir = q) {
		while (*dir == '/')
			dir++;
		n = strcspn(dir, "/");
		q = dir + n;
		if (n == 0)
			continue;
		if ((size_t)snprintf(next, sizeof next, "%s/%.*s",
		    strcmp(cur, "/") == 0 ? "" : cur, (int)n, dir) >=
		    sizeof next)
			return 0;
		if (lstat(next, &st) == 0 && S_ISLNK(st.st_mode) &&
		    (root = in_other_root(c->p, next)) != NULL) {
			seterr(c, ELOOP, "workspace: %s: reached through the "
			    "symlink %s, which lies in the writable root %s; "
			    "refused (give the real path)", c->p->workspace,
			    next, root);
			return -1;
		}
		if (realpath(next, real) == NULL)
			return 0;
		snprintf(cur, sizeof cur, "%s", real);
	}
	return 0;
}

int
config_check_inputs(const struct policy *p, char *err, size_t errlen)
{
	const char *t = p->tmpdir, *why = NULL, *what = "";
	char buf[PATH_MAX + 64];

	if (strcmp(t, "/") == 0)
		why = "is the whole file system";
	else if (p->home != NULL && strcmp(t, p->home) == 0)
		why = "is the home directory";
	else if (strcmp(t, p->workspace) == 0)
		why = "is the workspace";
	else if (path_under(p->workspace, t)) {
		why = "holds the workspace ";
		what = p->workspace;
	} else if (p->home != NULL && path_under(p->home, t)) {
		why = "holds the home directory ";
		what = p->home;
	} else if (path_under(p->state, t)) {
		why = "holds arcturn's state dir ";
		what = p->state;
	} else if (p->user_config != NULL && path_under(p->user_config, t)) {
		why = "holds the user config ";
		what = p->user_config;
	}
	if (why == NULL)
		return 0;
	snprintf(buf, sizeof buf, "%s%s", why, what);
	snprintf(err, errlen, "TMPDIR: %s: %s; refused: a command could "
	    "write there (point TMPDIR at a directory of its own)", t, buf);
	errno = EINVAL;
	return -1;
}

int
config_load(struct policy *p, const struct config_flags *fl, char *err,
    size_t errlen, config_warn_fn *warn, void *arg)
{
	static const struct config_flags none = { NULL, NULL, -1, -1, -1, -1,
	    NULL, 0, NULL, 0 };
	struct ctx c = { p, err, errlen, warn, arg, 0 };
	const char *tmp;
	struct stat st;
	int e;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (fl == NULL)
		fl = &none;
	memset(p, 0, sizeof *p);
	p->mode = MODE_WORKSPACE_WRITE;
	p->network = 1;
	if (sl_add(&p->protect, ".git/hooks") != 0 ||
	    sl_add(&p->protect, ".git/config") != 0) {
		oom(&c, "config");
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
	    check_ws_link(&c, fl->dir) != 0)
		goto fail;
	return 0;
fail:
	e = errno;
	policy_free(p);
	errno = e;
	return -1;
}

int
config_mode(const char *s)
{
	size_t i;

	if (s == NULL)
		return -1;
	for (i = 0; i < sizeof mode_names / sizeof mode_names[0]; i++)
		if (strcmp(s, mode_names[i]) == 0)
			return (int)i;
	return -1;
}

void
policy_free(struct policy *p)
{
	if (p == NULL)
		return;
	strlist_free(&p->grants);
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
