/*
 * jsonfile: read a small JSON file, parse it with cJSON, and one pass for
 * the positions cJSON does not keep (jsonfile.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/jsonfile.h"
#include "lib/mem.h"
#include "lib/readall.h"

/* What the pass wants next. */
enum want {
	W_VALUE,	/* a value */
	W_FIRST,	/* after '[': a value or ']' */
	W_KEY,		/* after ',' in an object: a string */
	W_FIRSTKEY,	/* after '{': a string or '}' */
	W_COLON,
	W_NEXT,		/* after an element or member: ',' or the closer */
	W_END		/* after the root value: nothing */
};

struct pass {
	const char	*t;
	size_t		 len;
	size_t		 stop;		/* cJSON's error offset, or len */
	struct jsonfile_at *at;
	size_t		 n, cap;
	size_t		 open[CJSON_NESTING_LIMIT];	/* open containers */
	size_t		 depth;
	size_t		 pos;		/* where the pass ended */
	enum want	 want;		/* and what it wanted there */
	const char	*what;		/* or what was wrong there */
	int		 oom;
};

static const char unterminated[] = "unterminated string";
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

void
jsonfile_hooks(void)
{
	static cJSON_Hooks hooks = { json_alloc, json_free };
	static int done;

	if (!done) {
		cJSON_InitHooks(&hooks);
		done = 1;
	}
}

static void
seterr(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	errno = e;
}

/* Read path into jf->text; 1, 0 (no such file) or -1 (err set). */
static int
read_text(struct jsonfile *jf, size_t max, char *err, size_t errlen)
{
	struct stat st;
	int fd, e;

	fd = openat(AT_FDCWD, jf->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK |
	    O_NOCTTY);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		seterr(err, errlen, errno, "%s: %s", jf->path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		seterr(err, errlen, EINVAL, "%s: not a regular file", jf->path);
		return -1;
	}
	if (readall_fd(fd, max, &jf->text, &jf->len) < 0)
		goto fail;
	close(fd);
	return 1;
fail:
	e = errno;
	close(fd);
	if (e == EFBIG)
		seterr(err, errlen, e, "%s: larger than %zu bytes", jf->path,
		    max);
	else
		seterr(err, errlen, e, "%s: %s", jf->path, strerror(e));
	return -1;
}

static int
record(struct pass *s, size_t off, int nul)
{
	struct jsonfile_at *v;
	size_t cap;

	if (s->n == s->cap) {
		cap = s->cap ? s->cap * 2 : 64;
		if ((v = mem_reallocarray(s->at, cap, sizeof *v)) == NULL) {
			s->oom = 1;
			return -1;
		}
		s->at = v;
		s->cap = cap;
	}
	s->at[s->n].off = off;
	s->at[s->n].next = s->n + 1;
	s->at[s->n].nul = nul;
	s->n++;
	return 0;
}

/* Does \u with these four characters give 0 to cJSON's parse_hex4? */
static int
u_zero(const char *h)
{
	return strspn(h, "0123456789abcdefABCDEF") < 4 ||
	    strncmp(h, "0000", 4) == 0;
}

/* The string at *i: record it and step past it; -1 if cJSON failed in it. */
static int
string(struct pass *s, size_t *i)
{
	size_t q;
	int nul = 0;

	for (q = *i + 1; q < s->len && s->t[q] != '"'; q++)
		if (s->t[q] == '\\' && ++q < s->len && s->t[q] == 'u' &&
		    u_zero(s->t + q + 1))
			nul = 1;
	if (q >= s->len) {
		s->pos = *i;
		s->what = unterminated;
		return -1;
	}
	if (q >= s->stop) {	/* cJSON stopped at an escape inside */
		s->pos = s->stop;
		s->what = s->t[s->stop + 1] == 'u' ?
		    "invalid \\u escape in string" : "invalid escape in string";
		return -1;
	}
	if (record(s, *i, nul) != 0)
		return -1;
	*i = q + 1;
	return 0;
}

/* The value at *i (W_VALUE, or W_FIRST and not ']'). */
static int
value(struct pass *s, size_t *i)
{
	const char *t = s->t;
	size_t j;

	if (t[*i] == '"')
		return string(s, i);
	if (t[*i] == '[' || t[*i] == '{') {
		if (s->depth == CJSON_NESTING_LIMIT) {
			s->what = "nested too deeply";
			return -1;
		}
		if (record(s, *i, 0) != 0)
			return -1;
		s->open[s->depth++] = s->n - 1;
		s->want = t[(*i)++] == '[' ? W_FIRST : W_FIRSTKEY;
		return 0;
	}
	if (strchr("-0123456789tfn", t[*i]) == NULL)
		return -1;
	/* a scalar cJSON took: up to a delimiter, or to where it stopped */
	for (j = *i; j < s->stop && (unsigned char)t[j] > ' ' &&
	    strchr(",]}", t[j]) == NULL; j++)
		;
	if (record(s, *i, 0) != 0)
		return -1;
	*i = j;
	return 0;
}

/* The closer of the innermost open container. */
static char
closer(const struct pass *s)
{
	return s->t[s->at[s->open[s->depth - 1]].off] == '[' ? ']' : '}';
}

/*
 * Walk the text up to s->stop. Returns 0 there (s->pos, s->want), or -1
 * where the text stops fitting the grammar or cJSON failed inside a
 * string (s->pos; s->what names a string error), or on ENOMEM (s->oom).
 */
static int
pass(struct pass *s)
{
	size_t i = 0;
	char ch;

	if (s->len >= 4 && memcmp(s->t, "\xEF\xBB\xBF", 3) == 0)
		i = 3;
	for (s->want = W_VALUE;;) {
		while (i < s->len && (unsigned char)s->t[i] <= ' ')
			i++;
		s->pos = i;
		if (i >= s->stop)
			return 0;
		ch = s->t[i];
		switch (s->want) {
		case W_FIRST:
			if (ch == ']')
				break;
			/* FALLTHROUGH */
		case W_VALUE:
			if (value(s, &i) != 0)
				return -1;
			if (ch != '[' && ch != '{')
				s->want = s->depth > 0 ? W_NEXT : W_END;
			continue;
		case W_FIRSTKEY:
			if (ch == '}')
				break;
			/* FALLTHROUGH */
		case W_KEY:
			if (ch != '"' || string(s, &i) != 0)
				return -1;
			s->want = W_COLON;
			continue;
		case W_COLON:
			if (ch != ':')
				return -1;
			i++;
			s->want = W_VALUE;
			continue;
		case W_NEXT:
			if (ch == ',') {
				i++;
				s->want = closer(s) == ']' ? W_VALUE : W_KEY;
				continue;
			}
			if (ch != closer(s))
				return -1;
			break;
		case W_END:
			return -1;
		}
		/* the closer of the innermost container */
		s->depth--;
		s->at[s->open[s->depth]].next = s->n;
		i++;
		s->want = s->depth > 0 ? W_NEXT : W_END;
	}
}

/* What went wrong where the pass ended. */
static void
name(const struct pass *s, char *buf, size_t len)
{
	unsigned char ch = (unsigned char)s->t[s->pos];
	const char *want = "expected end of input";

	if (s->what != NULL) {
		snprintf(buf, len, "%s", s->what);
		return;
	}
	if (s->pos >= s->len) {
		snprintf(buf, len, "unexpected end of input");
		return;
	}
	switch (s->want) {
	case W_VALUE:
	case W_FIRST:
		if (ch == '[' || ch == '{') {
			snprintf(buf, len, "nested too deeply");
			return;
		}
		if (ch == '-' || (ch >= '0' && ch <= '9')) {
			snprintf(buf, len, "invalid number");
			return;
		}
		want = "expected a value";
		break;
	case W_KEY:
	case W_FIRSTKEY:
		want = "expected a string key";
		break;
	case W_COLON:
		want = "expected ':'";
		break;
	case W_NEXT:
		want = closer(s) == ']' ? "expected ',' or ']'" :
		    "expected ',' or '}'";
		break;
	case W_END:
		break;
	}
	if (ch > ' ' && ch < 0x7f)
		snprintf(buf, len, "%s, found '%c'", want, ch);
	else
		snprintf(buf, len, "%s, found byte 0x%02x", want, ch);
}

/* Does the byte an entry starts with fit the item cJSON made there? */
static int
fits(char ch, const cJSON *item)
{
	if (cJSON_IsNumber(item))
		return ch == '-' || (ch >= '0' && ch <= '9');
	return ch == (cJSON_IsString(item) ? '"' : cJSON_IsArray(item) ? '[' :
	    cJSON_IsObject(item) ? '{' : cJSON_IsTrue(item) ? 't' :
	    cJSON_IsFalse(item) ? 'f' : 'n');
}

/* Walk item and the index together from entry *i: 0 if they match. */
static int
agree(const struct pass *s, const cJSON *item, size_t *i)
{
	const cJSON *c;
	size_t me = *i;

	if (me >= s->n || !fits(s->t[s->at[me].off], item))
		return -1;
	for (++*i, c = item->child; c != NULL; c = c->next) {
		if (c->string != NULL && (*i >= s->n ||
		    s->t[s->at[(*i)++].off] != '"'))
			return -1;
		if (agree(s, c, i) != 0)
			return -1;
	}
	return s->at[me].next == *i ? 0 : -1;
}

void
jsonfile_linecol(const struct jsonfile *jf, size_t off, size_t *line,
    size_t *col)
{
	size_t i, bol = 0;

	if (off > jf->len)
		off = jf->len;
	if (jf->len >= 3 && memcmp(jf->text, "\xEF\xBB\xBF", 3) == 0 &&
	    off >= 3)
		bol = 3;
	*line = 1;
	for (i = 0; i < off; i++)
		if (jf->text[i] == '\n') {
			(*line)++;
			bol = i + 1;
		}
	*col = off - bol + 1;
}

/* PATH:LINE:COLUMN: what; EINVAL. */
static void
fileerr(const struct jsonfile *jf, size_t off, char *err, size_t errlen,
    const char *pre, const char *what)
{
	size_t line, col;

	jsonfile_linecol(jf, off, &line, &col);
	seterr(err, errlen, EINVAL, "%s:%zu:%zu: %s%s", jf->path, line, col,
	    pre, what);
}

int
jsonfile_read(struct jsonfile *jf, const char *path, size_t max, char *err,
    size_t errlen)
{
	struct pass s;
	const char *end = NULL;
	char what[64];
	size_t nul, i = 0;
	int r, late, rc;

	memset(jf, 0, sizeof *jf);
	jf->path = path;
	if ((r = read_text(jf, max, err, errlen)) <= 0)
		goto fail;
	r = -1;
	if ((nul = strlen(jf->text)) < jf->len) {
		fileerr(jf, nul, err, errlen, "", "unexpected NUL byte");
		goto fail;
	}
	jsonfile_hooks();
	json_oom = 0;
	jf->root = cJSON_ParseWithLengthOpts(jf->text, jf->len + 1, &end, 1);
	if (jf->root == NULL && json_oom)
		goto oom;
	memset(&s, 0, sizeof s);
	s.t = jf->text;
	s.len = jf->len;
	s.stop = jf->root != NULL ? jf->len : (size_t)(end - jf->text);
	rc = pass(&s);
	jf->at = s.at;
	jf->n = s.n;
	if (s.oom)
		goto oom;
	name(&s, what, sizeof what);
	if (jf->root != NULL) {	/* the index must match the tree */
		if (rc != 0 || s.want != W_END) {
			fileerr(jf, s.pos, err, errlen,
			    "internal: cJSON accepted this: ", what);
			goto fail;
		}
		if (agree(&s, jf->root, &i) != 0 || i != s.n) {
			fileerr(jf, 0, err, errlen, "internal: ",
			    "the index does not match cJSON's tree");
			goto fail;
		}
		return 1;
	}
	/* cJSON is one byte late for a bad key and an unterminated string */
	late = s.what == unterminated || (rc != 0 && s.what == NULL &&
	    (s.want == W_KEY || s.want == W_FIRSTKEY));
	if (s.pos + late == s.stop && !(s.want == W_END && s.pos >= s.len))
		fileerr(jf, s.pos, err, errlen, "", what);
	else
		fileerr(jf, s.stop, err, errlen, "", "invalid JSON");
	goto fail;
oom:
	seterr(err, errlen, ENOMEM, "%s: %s", path, strerror(ENOMEM));
fail:
	jsonfile_free(jf);
	return r;
}

void
jsonfile_free(struct jsonfile *jf)
{
	int e = errno;

	cJSON_Delete(jf->root);
	mem_free(jf->at);
	mem_free(jf->text);
	memset(jf, 0, sizeof *jf);
	errno = e;
}
