/*
 * config: defaults < user config < workspace config < environment < flags.
 *
 * cJSON validates the syntax and builds the tree; it keeps no positions, so
 * a small scanner over the (by then known to be valid) text finds where a
 * top-level key, its value or an array element starts, for
 * `FILE:LINE:COLUMN:` in errors. Columns count bytes from 1 (a tab is one
 * column); a UTF-8 byte order mark does not count.
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
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "config.h"
#include "mem.h"

#define NAME_SHOWN	64		/* bytes of an unknown key echoed in a warning */

struct ctx {
	struct policy	*p;
	char		*err;
	size_t		 errlen;
	config_warn_fn	*warn;
	void		*warnarg;
};

struct cfile {
	const char	*path;
	const char	*text;		/* NUL-terminated */
	size_t		 len;
	int		 narrow;	/* the workspace config: may only narrow */
};

enum key {
	K_DRYRUN, K_SANDBOX, K_GRANTS, K_REQUIRE, K_NETWORK, K_PROTECT, K_COUNT
};

static const char *const keys[K_COUNT] = {
	"dryRun", "sandbox", "grants", "requireSandbox", "network", "protect"
};

static const char *const mode_names[] = {
	"off", "workspace-write", "read-only"
};

static int json_oom;

static void *
json_alloc(size_t n)
{
	void *v = mem_alloc(n);

	if (v == NULL)
		json_oom = 1;
	return v;
}

static void
json_free(void *v)
{
	mem_free(v);
}

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

static void
pos_linecol(const struct cfile *f, size_t pos, size_t *line, size_t *col)
{
	size_t i, bol = 0;

	*line = 1;
	if (pos > f->len)
		pos = f->len;
	if (f->len >= 3 && memcmp(f->text, "\xEF\xBB\xBF", 3) == 0)
		bol = pos >= 3 ? 3 : 0;
	for (i = 0; i < pos; i++)
		if (f->text[i] == '\n') {
			(*line)++;
			bol = i + 1;
		}
	*col = pos - bol + 1;
}

/* FILE:LINE:COLUMN: what; errno EINVAL. */
static void
ferr(struct ctx *c, const struct cfile *f, size_t pos, const char *fmt, ...)
{
	char what[PATH_MAX + 128];
	size_t line, col;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	pos_linecol(f, pos, &line, &col);
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
	char **v, *d;

	if (sl_has(l, s))
		return 0;
	if ((d = mem_strdup(s)) == NULL)
		return -1;
	if ((v = mem_reallocarray(l->v, l->n + 1, sizeof *v)) == NULL) {
		mem_free(d);
		return -1;
	}
	v[l->n++] = d;
	l->v = v;
	return 0;
}

static void
sl_free(struct strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		mem_free(l->v[i]);
	mem_free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* Positions in valid JSON text. cJSON counts bytes <= ' ' as blanks. */

static size_t
skip_ws(const struct cfile *f, size_t i)
{
	while (i < f->len && (unsigned char)f->text[i] <= ' ')
		i++;
	return i;
}

/* i at the opening quote; returns the index after the closing one. */
static size_t
skip_string(const struct cfile *f, size_t i)
{
	for (i++; i < f->len && f->text[i] != '"'; i++)
		if (f->text[i] == '\\')
			i++;
	return i < f->len ? i + 1 : f->len;
}

static size_t
skip_value(const struct cfile *f, size_t i)
{
	int depth = 0;

	if (i >= f->len)
		return i;
	if (f->text[i] == '"')
		return skip_string(f, i);
	if (f->text[i] != '{' && f->text[i] != '[') {
		while (i < f->len && (unsigned char)f->text[i] > ' ' &&
		    strchr(",]}", f->text[i]) == NULL)
			i++;
		return i;
	}
	while (i < f->len) {
		switch (f->text[i]) {
		case '"':
			i = skip_string(f, i);
			continue;
		case '{':
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			if (--depth == 0)
				return i + 1;
			break;
		}
		i++;
	}
	return i;
}

static int
hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Four hex digits as cJSON reads them: any non-hex digit makes it 0. */
static long
hex4(const char *s)
{
	long cp = 0;
	int k, h;

	for (k = 0; k < 4; k++) {
		if ((h = hexval(s[k])) < 0)
			return 0;
		cp = cp * 16 + h;
	}
	return cp;
}

/*
 * Decode the escape at text[*i] (the backslash) of a string cJSON
 * accepted; returns the code point (only \u escapes can exceed 0x7f; a
 * surrogate pair counts as its first half), -1 if malformed.
 */
static long
unescape(const struct cfile *f, size_t *i)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *s;
	long cp;

	(*i)++;
	if (*i >= f->len)
		return -1;
	if (f->text[*i] == 'u') {
		if (*i + 5 > f->len)
			return -1;
		cp = hex4(f->text + *i + 1);
		*i += 5;
		if (cp >= 0xd800 && cp <= 0xdbff && *i + 6 <= f->len &&
		    f->text[*i] == '\\' && f->text[*i + 1] == 'u')
			*i += 6;
		return cp;
	}
	if ((s = strchr(from, f->text[*i])) == NULL || *s == '\0')
		return -1;
	(*i)++;
	return (unsigned char)to[s - from];
}

/*
 * Does the string literal at i equal the ASCII string key as cJSON sees it
 * (a C string: an escaped NUL ends it)?
 */
static int
literal_eq(const struct cfile *f, size_t i, const char *key)
{
	size_t k = 0;
	long cp;

	for (i++; i < f->len && f->text[i] != '"'; k++) {
		if (f->text[i] == '\\') {
			if ((cp = unescape(f, &i)) == 0)
				return key[k] == '\0';
			if (cp < 0 || cp > 0x7f || key[k] != (char)cp)
				return 0;
		} else if (key[k] != f->text[i++])
			return 0;
	}
	return key[k] == '\0';
}

/* Does the string literal at i hold an escaped NUL (which cJSON cuts at)? */
static int
literal_has_nul(const struct cfile *f, size_t i)
{
	for (i++; i < f->len && f->text[i] != '"'; ) {
		if (f->text[i] == '\\') {
			if (unescape(f, &i) == 0)
				return 1;
		} else
			i++;
	}
	return 0;
}

/*
 * Find the nth (from 0) occurrence of key in the top-level object: the
 * position of its name and of its value. Returns 0 if found, else -1 with
 * both positions 0 (which cannot happen for a key cJSON found).
 */
static int
find_key(const struct cfile *f, const char *key, int nth, size_t *kpos,
    size_t *vpos)
{
	size_t i = 0, k;

	*kpos = *vpos = 0;
	if (f->len >= 3 && memcmp(f->text, "\xEF\xBB\xBF", 3) == 0)
		i = 3;
	i = skip_ws(f, i);
	if (i >= f->len || f->text[i] != '{')
		return -1;
	for (i++;;) {
		i = skip_ws(f, i);
		if (i >= f->len || f->text[i] != '"')
			return -1;
		k = i;
		i = skip_ws(f, skip_string(f, i));
		if (i >= f->len || f->text[i] != ':')
			return -1;
		i = skip_ws(f, i + 1);
		if (literal_eq(f, k, key) && nth-- == 0) {
			*kpos = k;
			*vpos = i;
			return 0;
		}
		i = skip_ws(f, skip_value(f, i));
		if (i >= f->len || f->text[i] != ',')
			return -1;
		i++;
	}
}

/* Position of the first element of the array whose '[' is at a. */
static size_t
first_elem(const struct cfile *f, size_t a)
{
	return skip_ws(f, a + 1);
}

/* Position of the element after the one at i (or of the closing ']'). */
static size_t
next_elem(const struct cfile *f, size_t i)
{
	i = skip_ws(f, skip_value(f, i));
	if (i < f->len && f->text[i] == ',')
		i = skip_ws(f, i + 1);
	return i;
}

/*
 * Syntax: where and why cJSON rejected a text. cJSON reports a position
 * only roughly (one byte late for a bad key, the opening quote's successor
 * for an unterminated string), so this recogniser, which accepts exactly
 * what cJSON 1.7 accepts (blanks are bytes <= ' ', numbers are what strtod
 * takes of [0-9+-eE.], \u with bad hex digits reads as 0, nesting up to
 * CJSON_NESTING_LIMIT), finds the first offending byte and names it.
 */
struct jscan {
	char		*text;		/* mutable: numbers are cut for strtod */
	size_t		 len;
	size_t		 pos;		/* of the error */
	char		 what[64];
};

static int
js_fail(struct jscan *j, size_t i, const char *what)
{
	j->pos = i;
	snprintf(j->what, sizeof j->what, "%s", what);
	return -1;
}

/* "expected X, found 'c'", or the end of the input. */
static int
js_expect(struct jscan *j, size_t i, const char *expected)
{
	unsigned char ch = i < j->len ? (unsigned char)j->text[i] : 0;

	j->pos = i;
	if (i >= j->len)
		snprintf(j->what, sizeof j->what, "unexpected end of input");
	else if (ch > ' ' && ch < 0x7f)
		snprintf(j->what, sizeof j->what, "%s, found '%c'", expected, ch);
	else
		snprintf(j->what, sizeof j->what, "%s, found byte 0x%02x",
		    expected, ch);
	return -1;
}

static size_t
js_ws(const struct jscan *j, size_t i)
{
	while (i < j->len && (unsigned char)j->text[i] <= ' ')
		i++;
	return i;
}

static int
js_string(struct jscan *j, size_t *ip)
{
	size_t start = *ip, end, p;
	long c1, c2;

	for (end = start + 1; end < j->len && j->text[end] != '"'; end++)
		if (j->text[end] == '\\')
			end++;
	if (end >= j->len)
		return js_fail(j, start, "unterminated string");
	for (p = start + 1; p < end; ) {
		if (j->text[p] != '\\') {
			p++;
			continue;
		}
		if (j->text[p + 1] != '\0' &&
		    strchr("bfnrt\"\\/", j->text[p + 1]) != NULL) {
			p += 2;
			continue;
		}
		if (j->text[p + 1] != 'u')
			return js_fail(j, p, "invalid escape in string");
		if (end - p < 6 || ((c1 = hex4(j->text + p + 2)) >= 0xdc00 &&
		    c1 <= 0xdfff))
			return js_fail(j, p, "invalid \\u escape in string");
		if (c1 >= 0xd800 && c1 <= 0xdbff) {
			if (end - p < 12 || j->text[p + 6] != '\\' ||
			    j->text[p + 7] != 'u' ||
			    (c2 = hex4(j->text + p + 8)) < 0xdc00 || c2 > 0xdfff)
				return js_fail(j, p,
				    "invalid \\u escape in string");
			p += 12;
		} else
			p += 6;
	}
	*ip = end + 1;
	return 0;
}

static int
js_number(struct jscan *j, size_t *ip)
{
	size_t i = *ip, n = 0;
	char *end, saved;

	while (i + n < j->len && j->text[i + n] != '\0' &&
	    strchr("0123456789+-eE.", j->text[i + n]) != NULL)
		n++;
	saved = j->text[i + n];
	j->text[i + n] = '\0';
	(void)strtod(j->text + i, &end);
	j->text[i + n] = saved;
	if (end == j->text + i)
		return js_fail(j, i, "invalid number");
	*ip = (size_t)(end - j->text);
	return 0;
}

static int
js_value(struct jscan *j, size_t *ip, int depth)
{
	size_t i = *ip;
	char close;

	if (strncmp(j->text + i, "null", 4) == 0 ||
	    strncmp(j->text + i, "true", 4) == 0) {
		*ip = i + 4;
		return 0;
	}
	if (strncmp(j->text + i, "false", 5) == 0) {
		*ip = i + 5;
		return 0;
	}
	if (i < j->len && j->text[i] == '"')
		return js_string(j, ip);
	if (i < j->len && (j->text[i] == '-' ||
	    (j->text[i] >= '0' && j->text[i] <= '9')))
		return js_number(j, ip);
	if (i >= j->len || (j->text[i] != '[' && j->text[i] != '{'))
		return js_expect(j, i, "expected a value");
	if (depth >= CJSON_NESTING_LIMIT)
		return js_fail(j, i, "nested too deeply");
	close = j->text[i] == '[' ? ']' : '}';
	i = js_ws(j, i + 1);
	if (i < j->len && j->text[i] == close) {
		*ip = i + 1;
		return 0;
	}
	for (;;) {
		i = js_ws(j, i);
		if (close == '}') {
			if (i >= j->len || j->text[i] != '"')
				return js_expect(j, i, "expected a string key");
			if (js_string(j, &i) != 0)
				return -1;
			i = js_ws(j, i);
			if (i >= j->len || j->text[i] != ':')
				return js_expect(j, i, "expected ':'");
			i = js_ws(j, i + 1);
		}
		if (js_value(j, &i, depth + 1) != 0)
			return -1;
		i = js_ws(j, i);
		if (i < j->len && j->text[i] == ',') {
			i++;
			continue;
		}
		if (i < j->len && j->text[i] == close) {
			*ip = i + 1;
			return 0;
		}
		return js_expect(j, i, close == ']' ? "expected ',' or ']'" :
		    "expected ',' or '}'");
	}
}

/* Returns 0 if text is JSON as cJSON sees it, else -1 with pos and what. */
static int
js_check(struct jscan *j)
{
	size_t i = 0;

	if (j->len >= 4 && memcmp(j->text, "\xEF\xBB\xBF", 3) == 0)
		i = 3;
	i = js_ws(j, i);
	if (js_value(j, &i, 0) != 0)
		return -1;
	i = js_ws(j, i);
	if (i < j->len)
		return js_expect(j, i, "expected end of input");
	return 0;
}

/* Reading files. */

/*
 * Read path into a NUL-terminated buffer. Returns 1 with the text, 0 if the
 * file does not exist, -1 on error (err set).
 */
static int
read_config(struct ctx *c, const char *path, char **text, size_t *len)
{
	struct stat st;
	size_t n = 0, cap = 0;
	char *buf = NULL, *nb;
	ssize_t r;
	int fd, e;

	*text = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		seterr(c, errno, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		e = errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		seterr(c, EINVAL, "%s: not a regular file", path);
		return -1;
	}
	for (;;) {
		if (n > CONFIG_FILE_MAX) {
			close(fd);
			mem_free(buf);
			seterr(c, EFBIG, "%s: larger than %d bytes", path,
			    CONFIG_FILE_MAX);
			return -1;
		}
		if (n + 1 >= cap) {
			cap = cap ? cap * 2 : 4096;
			if ((nb = mem_realloc(buf, cap)) == NULL) {
				e = errno;
				goto fail;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 1;
fail:
	close(fd);
	mem_free(buf);
	seterr(c, e, "%s: %s", path, strerror(e));
	return -1;
}

/* Paths. */

/*
 * Canonicalise path whose last components may not exist yet: realpath the
 * longest existing prefix and append the rest. path must be absolute. A
 * dangling symlink on the way gives ENOENT.
 */
static int
canon_partial(const char *path, char *out)
{
	char tmp[PATH_MAX], *slash;
	const char *name;
	struct stat st;
	size_t len, olen;

	if (realpath(path, out) != NULL)
		return 0;
	if (errno != ENOENT)
		return -1;
	len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len >= sizeof tmp) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(tmp, path, len);
	tmp[len] = '\0';
	if ((slash = strrchr(tmp, '/')) == NULL || slash[1] == '\0') {
		errno = ENOENT;
		return -1;
	}
	*slash = '\0';
	name = slash + 1;
	if (strcmp(name, "..") == 0) {
		errno = ENOENT;		/* cannot go above a missing directory */
		return -1;
	}
	if (canon_partial(tmp[0] == '\0' ? "/" : tmp, out) != 0)
		return -1;
	if (strcmp(name, ".") == 0)
		return 0;
	olen = strlen(out);
	if (olen + 1 + strlen(name) >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	snprintf(out + olen, PATH_MAX - olen, "%s%s",
	    out[olen - 1] == '/' ? "" : "/", name);
	if (lstat(out, &st) == 0) {
		errno = ENOENT;		/* a dangling symlink: not canonical */
		return -1;
	}
	return 0;
}

static int
set_path(char **dst, const char *s)
{
	char *d;

	if ((d = mem_strdup(s)) == NULL)
		return -1;
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
 * Add a grant: absolute, existing, canonical. f is the config file it came
 * from (NULL for --grant), pos its position there.
 */
static int
add_grant(struct ctx *c, const char *path, const struct cfile *f, size_t pos)
{
	char real[PATH_MAX];
	int e;

	if (path[0] != '/') {
		if (f != NULL)
			ferr(c, f, pos, "grant: %s: not an absolute path", path);
		else
			seterr(c, EINVAL, "grant: %s: not an absolute path",
			    path);
		return -1;
	}
	if (realpath(path, real) == NULL) {
		e = errno;
		if (f != NULL) {
			ferr(c, f, pos, "grant: %s: %s", path, strerror(e));
			errno = e;
		} else
			seterr(c, e, "grant: %s: %s", path, strerror(e));
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

static int
oom(struct ctx *c, const char *what)
{
	seterr(c, ENOMEM, "%s: %s", what, strerror(ENOMEM));
	return -1;
}

/*
 * Check that v is an array of at most CONFIG_LIST_MAX strings without NUL;
 * err at the culprit.
 */
static int
check_strings(struct ctx *c, const struct cfile *f, const cJSON *v,
    size_t vpos, const char *key)
{
	const cJSON *e;
	size_t i = 0, pos = first_elem(f, vpos);

	if (!cJSON_IsArray(v)) {
		ferr(c, f, vpos, "\"%s\" must be an array of strings", key);
		return -1;
	}
	cJSON_ArrayForEach(e, v) {
		if (!cJSON_IsString(e) || e->valuestring == NULL) {
			ferr(c, f, pos, "\"%s\" must be an array of strings",
			    key);
			return -1;
		}
		if (literal_has_nul(f, pos)) {
			ferr(c, f, pos, "\"%s\": string contains a NUL "
			    "character", key);
			return -1;
		}
		if (++i > CONFIG_LIST_MAX) {
			ferr(c, f, pos, "\"%s\": more than %d entries", key,
			    CONFIG_LIST_MAX);
			return -1;
		}
		pos = next_elem(f, pos);
	}
	return 0;
}

static int
get_bool(struct ctx *c, const struct cfile *f, const cJSON *v, size_t vpos,
    const char *key)
{
	if (!cJSON_IsBool(v)) {
		ferr(c, f, vpos, "\"%s\" must be true or false", key);
		return -1;
	}
	return cJSON_IsTrue(v) ? 1 : 0;
}

static int
apply_protect(struct ctx *c, const struct cfile *f, const cJSON *v,
    size_t vpos)
{
	struct strlist l = { NULL, 0 };
	char norm[PATH_MAX], what[NAME_SHOWN * 4 + 8];
	const char *why;
	const cJSON *e;
	size_t i, pos = first_elem(f, vpos);

	cJSON_ArrayForEach(e, v) {
		if (norm_protect(e->valuestring, norm, sizeof norm, &why) != 0) {
			shown(what, sizeof what, e->valuestring);
			ferr(c, f, pos, "protect: %s: %s",
			    what[0] ? what : "\"\"", why);
			sl_free(&l);
			return -1;
		}
		if (sl_add(&l, norm) != 0) {
			sl_free(&l);
			return oom(c, f->path);
		}
		pos = next_elem(f, pos);
	}
	if (f->narrow) {
		for (i = 0; i < l.n; i++)
			if (sl_add(&c->p->protect, l.v[i]) != 0) {
				sl_free(&l);
				return oom(c, f->path);
			}
		sl_free(&l);
	} else {
		/* The user config's list replaces the default. */
		sl_free(&c->p->protect);
		c->p->protect = l;
	}
	return 0;
}

static int
apply_key(struct ctx *c, const struct cfile *f, enum key k, const cJSON *v,
    size_t vpos)
{
	struct policy *p = c->p;
	const cJSON *e;
	size_t pos;
	int b, m;

	switch (k) {
	case K_DRYRUN:
	case K_REQUIRE:
		if ((b = get_bool(c, f, v, vpos, keys[k])) < 0)
			return -1;
		if (f->narrow && !b)
			warnmsg(c, "%s: \"%s\": false ignored: a workspace "
			    "config can only turn it on", f->path, keys[k]);
		else if (k == K_DRYRUN)
			p->dry_run = b;
		else
			p->require_sandbox = b;
		return 0;
	case K_SANDBOX:
		if (!cJSON_IsString(v) || (m = config_mode(v->valuestring)) < 0 ||
		    literal_has_nul(f, vpos)) {
			ferr(c, f, vpos, "\"sandbox\" must be \"off\", "
			    "\"workspace-write\" or \"read-only\"");
			return -1;
		}
		if (f->narrow && m < (int)p->mode)
			warnmsg(c, "%s: \"sandbox\": \"%s\" ignored: a workspace "
			    "config cannot loosen \"%s\"", f->path,
			    mode_names[m], mode_names[p->mode]);
		else
			p->mode = (enum sandbox_mode)m;
		return 0;
	case K_NETWORK:
		if (!cJSON_IsString(v) || literal_has_nul(f, vpos) ||
		    (strcmp(v->valuestring, "on") != 0 &&
		    strcmp(v->valuestring, "off") != 0)) {
			ferr(c, f, vpos, "\"network\" must be \"on\" or \"off\"");
			return -1;
		}
		b = strcmp(v->valuestring, "on") == 0;
		if (f->narrow && b)
			warnmsg(c, "%s: \"network\": \"on\" ignored: a workspace "
			    "config can only turn network off", f->path);
		else
			p->network = b;
		return 0;
	case K_GRANTS:
		if (check_strings(c, f, v, vpos, "grants") != 0)
			return -1;
		if (f->narrow) {
			if (cJSON_GetArraySize(v) > 0)
				warnmsg(c, "%s: \"grants\" ignored: a workspace "
				    "config cannot grant writes", f->path);
			return 0;
		}
		pos = first_elem(f, vpos);
		cJSON_ArrayForEach(e, v) {
			if (add_grant(c, e->valuestring, f, pos) != 0)
				return -1;
			pos = next_elem(f, pos);
		}
		return 0;
	case K_PROTECT:
		if (check_strings(c, f, v, vpos, "protect") != 0)
			return -1;
		return apply_protect(c, f, v, vpos);
	case K_COUNT:
		break;
	}
	return 0;
}

/* Read and apply one config file; a missing file is not an error. */
static int
apply_file(struct ctx *c, const char *path, int narrow)
{
	struct cfile f = { path, NULL, 0, narrow };
	struct jscan j;
	char *text, name[NAME_SHOWN * 4 + 8];
	const char *end = NULL;
	const cJSON *v;
	cJSON *root;
	size_t kpos, vpos, pos;
	int seen[K_COUNT] = { 0 };
	int r, k, rc = -1, nunknown = 0;

	if ((r = read_config(c, path, &text, &f.len)) <= 0)
		return r;
	f.text = text;
	if ((pos = strlen(text)) < f.len) {
		ferr(c, &f, pos, "unexpected NUL byte");
		goto out;
	}
	json_oom = 0;
	root = cJSON_ParseWithLengthOpts(text, f.len + 1, &end, 1);
	if (root == NULL) {
		if (json_oom) {
			oom(c, path);
			goto out;
		}
		j.text = text;
		j.len = f.len;
		if (js_check(&j) != 0)
			ferr(c, &f, j.pos, "%s", j.what);
		else	/* the recogniser disagrees: cJSON's own position */
			ferr(c, &f, end != NULL && end >= text ?
			    (size_t)(end - text) : 0, "invalid JSON");
		goto out;
	}
#ifdef ARCTURN_TEST
	/* The unit tests hold the recogniser to cJSON in both directions. */
	j.text = text;
	j.len = f.len;
	if (js_check(&j) != 0) {
		ferr(c, &f, j.pos, "internal: cJSON accepted this: %s", j.what);
		goto del;
	}
#endif
	if (!cJSON_IsObject(root)) {
		ferr(c, &f, 0, "expected a JSON object at the top level");
		goto del;
	}
	cJSON_ArrayForEach(v, root) {
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
		find_key(&f, keys[k], seen[k], &kpos, &vpos);
		if (seen[k]++ > 0) {
			ferr(c, &f, kpos, "duplicate key \"%s\"", keys[k]);
			goto del;
		}
		if (apply_key(c, &f, (enum key)k, v, vpos) != 0)
			goto del;
	}
	if (nunknown > CONFIG_WARN_MAX)
		warnmsg(c, "%s: %d more unknown keys", path,
		    nunknown - CONFIG_WARN_MAX);
	rc = 0;
del:
	cJSON_Delete(root);
out:
	mem_free(text);
	return rc;
}

/* The pieces config_load puts together. */

static int
resolve_workspace(struct ctx *c, const char *dir)
{
	char real[PATH_MAX];
	struct stat st;

	if (dir == NULL)
		dir = ".";
	if (realpath(dir, real) == NULL) {
		seterr(c, errno, "workspace: %s: %s", dir, strerror(errno));
		return -1;
	}
	if (stat(real, &st) != 0) {
		seterr(c, errno, "workspace: %s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		seterr(c, ENOTDIR, "workspace: %s: %s", dir, strerror(ENOTDIR));
		return -1;
	}
	if (set_path(&c->p->workspace, real) != 0)
		return oom(c, "workspace");
	return 0;
}

static int
load_user_config(struct ctx *c)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home;
	char dir[PATH_MAX], real[PATH_MAX];
	int n, missing = 0;

	if (xdg != NULL && xdg[0] == '/')
		n = snprintf(dir, sizeof dir, "%s/arcturn", xdg);
	else {
		if (home_dir(c, &home) != 0)
			return -1;
		n = snprintf(dir, sizeof dir, "%s/.config/arcturn", home);
	}
	if (n < 0 || (size_t)n >= sizeof dir) {
		seterr(c, ENAMETOOLONG, "user config: %s", strerror(ENAMETOOLONG));
		return -1;
	}
	if (canon_partial(dir, real) != 0) {
		if (errno != ENOTDIR && errno != ENOENT) {
			seterr(c, errno, "user config: %s: %s", dir,
			    strerror(errno));
			return -1;
		}
		/* a file where a directory should be, a dangling link: no
		 * config there */
		missing = 1;
		snprintf(real, sizeof real, "%s", dir);
	}
	n = snprintf(dir, sizeof dir, "%s/config.json", real);
	if (n < 0 || (size_t)n >= sizeof dir) {
		seterr(c, ENAMETOOLONG, "user config: %s: %s", real,
		    strerror(ENAMETOOLONG));
		return -1;
	}
	if (set_path(&c->p->user_config, dir) != 0)
		return oom(c, "user config");
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
	if (set_path(&c->p->session, s) != 0)
		return oom(c, "session");
	return 0;
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
	if (fl->session != NULL && set_session(c, fl->session) != 0)
		return -1;
	return 0;
}

static int
resolve_state(struct ctx *c)
{
	const char *v = getenv("ARCTURN_HOME"), *home;
	char path[PATH_MAX], real[PATH_MAX];
	struct stat st;
	int n;

	if (v != NULL && v[0] != '\0') {
		if (v[0] != '/') {
			seterr(c, EINVAL, "ARCTURN_HOME: %s: not an absolute path",
			    v);
			return -1;
		}
		n = snprintf(path, sizeof path, "%s", v);
	} else {
		if (home_dir(c, &home) != 0)
			return -1;
		n = snprintf(path, sizeof path, "%s/.arcturn", home);
	}
	if (n < 0 || (size_t)n >= sizeof path) {
		seterr(c, ENAMETOOLONG, "state dir: %s", strerror(ENAMETOOLONG));
		return -1;
	}
	if (canon_partial(path, real) != 0) {
		seterr(c, errno, "state dir: %s: %s", path, strerror(errno));
		return -1;
	}
	if (stat(real, &st) == 0 && !S_ISDIR(st.st_mode)) {
		seterr(c, ENOTDIR, "state dir: %s: %s", path,
		    strerror(ENOTDIR));
		return -1;
	}
	if (set_path(&c->p->state, real) != 0)
		return oom(c, "state dir");
	return 0;
}

static int
resolve_tmpdir(struct ctx *c)
{
	const char *v = getenv("TMPDIR");
	char real[PATH_MAX];
	struct stat st;

	if (v == NULL || v[0] == '\0' || stat(v, &st) != 0 ||
	    !S_ISDIR(st.st_mode))
		v = "/tmp";
	if (realpath(v, real) == NULL) {
		seterr(c, errno, "tmpdir: %s: %s", v, strerror(errno));
		return -1;
	}
	if (set_path(&c->p->tmpdir, real) != 0)
		return oom(c, "tmpdir");
	return 0;
}

int
config_load(struct policy *p, const struct config_flags *fl, char *err,
    size_t errlen, config_warn_fn *warn, void *arg)
{
	static const struct config_flags none = { NULL, NULL, -1, -1, -1, -1,
	    NULL, 0 };
	cJSON_Hooks hooks = { json_alloc, json_free };
	struct ctx c = { p, err, errlen, warn, arg };
	int e;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (fl == NULL)
		fl = &none;
	cJSON_InitHooks(&hooks);
	memset(p, 0, sizeof *p);
	p->mode = MODE_WORKSPACE_WRITE;
	p->network = 1;
	if (sl_add(&p->protect, ".git/hooks") != 0 ||
	    sl_add(&p->protect, ".git/config") != 0) {
		oom(&c, "config");
		goto fail;
	}
	if (resolve_workspace(&c, fl->dir) != 0 ||
	    load_user_config(&c) != 0 ||
	    load_workspace_config(&c) != 0 ||
	    load_env(&c) != 0 ||
	    load_flags(&c, fl) != 0 ||
	    resolve_state(&c) != 0 ||
	    resolve_tmpdir(&c) != 0)
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
	sl_free(&p->grants);
	sl_free(&p->protect);
	mem_free(p->workspace);
	mem_free(p->state);
	mem_free(p->tmpdir);
	mem_free(p->user_config);
	mem_free(p->session);
	memset(p, 0, sizeof *p);
}
