/*
 * config_file: one config file's keys, and the flags that say the same
 * (config_file.h).
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
#include <errno.h>
#include <pwd.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/jsonfile.h"
#include "lib/mem.h"
#include "lib/path.h"
#include "lib/utf8.h"
#include "policy/config_file.h"
#include "policy/strlist.h"

#define NAME_SHOWN	CONFIG_NAME_SHOWN

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

void
config_seterr(struct config_ctx *c, int e, const char *fmt, ...)
{
	char msg[PATH_MAX + 256];
	va_list ap;

	if (c->err != NULL && c->errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
		utf8_one_line(c->err, c->errlen, msg);
	}
	errno = e;
}

int
config_oom(struct config_ctx *c, const char *what)
{
	config_seterr(c, ENOMEM, "%s: %s", what, strerror(ENOMEM));
	return -1;
}

/* FILE:LINE:COLUMN: what, at byte off of f (just what if f is NULL); EINVAL. */
static void
ferr(struct config_ctx *c, const struct jsonfile *f, size_t off,
    const char *fmt, ...)
{
	char what[PATH_MAX + 128];
	size_t line, col;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (f == NULL) {
		config_seterr(c, EINVAL, "%s", what);
		return;
	}
	jsonfile_linecol(f, off, &line, &col);
	config_seterr(c, EINVAL, "%s:%zu:%zu: %s", f->path, line, col, what);
}

static void
warnmsg(struct config_ctx *c, const char *fmt, ...)
{
	char line[PATH_MAX + 256], msg[PATH_MAX + 256];
	va_list ap;

	if (c->warn == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	utf8_one_line(msg, sizeof msg, line);
	c->warn(msg, c->warnarg);
}

/* Copy s for display: control bytes, quote and backslash escaped, capped. */
void
config_shown(char *out, size_t outlen, const char *s)
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

/* Append a copy of s unless it is there already. */
static int
sl_add(struct strlist *l, const char *s)
{
	return strlist_has(l, s, strlen(s)) ? 0 : strlist_push(l,
	    mem_strdup(s));
}

/* Paths. */

int
config_home(struct config_ctx *c, const char **home)
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
		config_seterr(c, errno ? errno : ENOENT,
		    "HOME is not set and uid %ld has no home directory",
		    (long)getuid());
		return -1;
	}
	*home = pw->pw_dir;
	return 0;
}

/*
 * A grant that does not exist: its canonical path (the missing tail kept)
 * when that lies strictly beneath the home directory's, else NULL (errno
 * ENOENT, or the canonicaliser's). Canonical on both sides, so a symlink
 * in home that leads out of it does not count as beneath.
 */
static char *
missing_home_grant(struct config_ctx *c, const char *path)
{
	char *canon = NULL, *home = NULL;
	const char *h, *tail;
	int e = ENOENT;

	if (config_home(c, &h) != 0 ||
	    (home = path_realpath(h, c->po)) == NULL ||
	    path_canon(path, 0, c->po, &canon) != 0) {
		e = errno == ENOMEM ? ENOMEM : ENOENT;
		goto fail;
	}
	tail = path_tail(canon, home);
	if (tail != NULL && tail[0] != '\0') {
		mem_free(home);
		return canon;
	}
fail:
	mem_free(canon);
	mem_free(home);
	if (c->err != NULL && c->errlen > 0)
		c->err[0] = '\0';
	errno = e;
	return NULL;
}

/*
 * Add a grant: expanded (~, $HOME), absolute, canonical; one that does
 * not exist beneath home goes to grants_new. f is the config file it came
 * from (NULL for --grant), pos its position there.
 */
static int
add_grant(struct config_ctx *c, const char *path, const struct jsonfile *f,
    size_t pos)
{
	char real[PATH_MAX], *x = NULL, *canon;
	const char *home, *p = path;
	int e, rc = -1;

	if (path[0] == '~' || path[0] == '$') {
		if (config_home(c, &home) != 0)
			return -1;
		if ((x = path_home(path, home)) == NULL && errno == EINVAL) {
			ferr(c, f, pos, path[0] == '~' ? "grant: %s: only your "
			    "own home expands (~ or ~/...); write the path out" :
			    "grant: %s: only $HOME or ${HOME} expands here; "
			    "write the path out", path);
			return -1;
		}
		if (x == NULL)
			return config_oom(c, "grant");
		p = x;
	}
	if (p[0] != '/') {
		ferr(c, f, pos, "grant: %s: not an absolute path", path);
		goto out;
	}
	if (path_real(p, real) == NULL) {
		e = errno;
		if (e == ENOENT && (canon = missing_home_grant(c, p)) != NULL) {
			if (strlist_has(&c->p->grants_new, canon,
			    strlen(canon))) {
				mem_free(canon);
				rc = 0;
			} else if (strlist_push(&c->p->grants_new, canon) != 0)
				config_oom(c, "grant");
			else
				rc = 0;
			goto out;
		}
		if (e == ENOENT && errno == ENOMEM) {
			config_oom(c, "grant");
			goto out;
		}
		ferr(c, f, pos, "grant: %s: %s%s", path, strerror(e),
		    e == ENOENT ? "; create it first (arcturn creates a "
		    "missing grant only beneath your home)" : "");
		errno = e;
		goto out;
	}
	if (sl_add(&c->p->grants, real) != 0)
		config_seterr(c, errno, "grant: %s", strerror(errno));
	else
		rc = 0;
out:
	e = errno;
	mem_free(x);
	errno = e;
	return rc;
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
check_strings(struct config_ctx *c, const struct jsonfile *f, const cJSON *v,
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
apply_protect(struct config_ctx *c, const struct jsonfile *f, const cJSON *v,
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
			config_shown(what, sizeof what, el->valuestring);
			ferr(c, f, f->at[j].off, "protect: %s: %s",
			    what[0] ? what : "\"\"", why);
			strlist_free(&l);
			return -1;
		}
		if (sl_add(&l, norm) != 0) {
			strlist_free(&l);
			return config_oom(c, f->path);
		}
	}
	if (c->narrow) {
		for (i = 0; i < l.n; i++)
			if (sl_add(&c->p->protect, l.v[i]) != 0) {
				strlist_free(&l);
				return config_oom(c, f->path);
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
unix_entry(struct config_ctx *c, const char *path, const struct jsonfile *f,
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
		return config_oom(c, "unix socket");
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
apply_unix(struct config_ctx *c, const struct jsonfile *f, const cJSON *v,
    size_t e)
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
	return config_oom(c, f->path);
}

/*
 * "checkpoints": {"keep": N (turns, >= 1), "maxBytes": N (0: no limit)}.
 * The user's own business: a workspace config's is ignored.
 */
static int
apply_ckpt(struct config_ctx *c, const struct jsonfile *f, const cJSON *v, size_t e)
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
		    strcmp(m->string, "maxBytes") != 0) || d < 0 || d > 9e15 ||
		    d != (double)(unsigned long long)d ||
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
apply_key(struct config_ctx *c, const struct jsonfile *f, enum key k,
    const cJSON *v, size_t e)
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
apply_file(struct config_ctx *c, const char *path, int narrow)
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
			config_shown(name, sizeof name, v->string);
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


int
config_file_apply(struct config_ctx *c, const char *path, int narrow)
{
	return apply_file(c, path, narrow);
}

int
config_file_grant(struct config_ctx *c, const char *path)
{
	return add_grant(c, path, NULL, 0);
}

int
config_file_unix(struct config_ctx *c, const char *path)
{
	return unix_entry(c, path, NULL, 0, &c->p->unix_sockets,
	    &c->p->unix_all);
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
