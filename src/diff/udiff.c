/*
 * The index line `git diff` prints (`index abc1234..def5678 100644`) is
 * left out on purpose: its abbreviated blob ids would cost a SHA-1 of both
 * sides per file and buy nothing here, since `git apply` and `patch -p1`
 * apply text hunks without it. The one thing it would enable, binary
 * patches, is not offered: binary files print `Binary files ... differ`
 * exactly as `git diff` does by default, which neither tool can apply.
 *
 * Colours follow git's defaults byte for byte for what git highlights by
 * default: meta bold, frag cyan, old red, new green, and the whitespace
 * errors of core.whitespace's default (blank-at-eol, space-before-tab,
 * blank-at-eof) on added lines.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "diff/diff.h"
#include "diff/udiff.h"
#include "lib/hash.h"
#include "lib/mem.h"

#define BINARY_PEEK	8000	/* git looks for a NUL in this many bytes */
#define FUNC_MAX	80	/* git's hunk-header function text limit */
#define S_TYPE		0170000

#define C_META		"\033[1m"
#define C_FRAG		"\033[36m"
#define C_OLD		"\033[31m"
#define C_NEW		"\033[32m"
#define C_WS		"\033[41m"
#define C_RESET		"\033[m"

/* Where a piece of text goes. */
#define PLAIN		0x1	/* to out when not colouring */
#define COLOR		0x2	/* to out when colouring */
#define DIG		0x4	/* to the digest */
#define ALL		(PLAIN | COLOR | DIG)

struct rend {
	struct diff_scratch *sc;	/* NULL: diff_buf's own */
	udiff_out_fn	*out;
	void		*arg;
	struct hash_ctx	*dig;
	struct udiff_stats *st;
	const char	*path;
	char		*qa;		/* "a/P", quoted as git does */
	char		*qb;
	const char	*lbl[2];	/* --- and +++ labels */
	long		 ctx;
	long		 cap;
	int		 color;
	int		 escape;
	int		 showing;	/* out still gets text */
	int		 failed;
	int		 ferrno;
	/* per section */
	long		 shown;		/* body lines sent to out */
	long		 funcprev;
	size_t		 funclen;
	char		 func[FUNC_MAX];
	long		 eof_pre;	/* blank-at-eof start lines, 1-based */
	long		 eof_post;
	long		 lno_pre;
	long		 lno_post;
	size_t		 n;
	char		 buf[16384];
};

static void
flush(struct rend *r)
{
	if (r->failed || r->n == 0)
		return;
	if (r->out(r->buf, r->n, r->arg) < 0) {
		r->failed = 1;
		r->ferrno = errno;
	}
	r->n = 0;
}

/* Most pieces are short: copy them inline rather than call memcpy. */
static void
copy(char *d, const char *s, size_t n)
{
	if (n > 64) {
		memcpy(d, s, n);
		return;
	}
	for (; n >= 8; n -= 8, d += 8, s += 8)
		memcpy(d, s, 8);
	while (n-- > 0)
		*d++ = *s++;
}

static void
put(struct rend *r, int w, const void *p, size_t n)
{
	if ((w & DIG) && r->dig != NULL)
		hash_update(r->dig, p, n);
	if (r->failed || !r->showing || !(w & (r->color ? COLOR : PLAIN)) ||
	    n == 0)
		return;
	if (n > sizeof(r->buf) - r->n) {
		flush(r);
		if (r->failed)
			return;
		if (n >= sizeof(r->buf)) {
			if (r->out(p, n, r->arg) < 0) {
				r->failed = 1;
				r->ferrno = errno;
			}
			return;
		}
	}
	copy(r->buf + r->n, p, n);
	r->n += n;
}

static void
putstr(struct rend *r, int w, const char *s)
{
	put(r, w, s, strlen(s));
}

/*
 * Content (a body line, a hunk header's function text). With escape, a
 * control byte other than tab and newline (a CR right before a newline
 * too), DEL and a C1 control (U+0080..U+009F) go out as \xNN, so that an
 * escape sequence in a file cannot move the cursor over what a reviewer
 * reads on a terminal; the digest takes the raw bytes either way.
 */
static void
put_text(struct rend *r, int w, const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
	char e[16];
	size_t i, s = 0, k;

	if (!r->escape) {
		put(r, w, p, n);
		return;
	}
	if ((w & DIG) && r->dig != NULL)
		hash_update(r->dig, p, n);
	w &= ~DIG;
	for (i = 0; i < n; i++) {
		if (u[i] == 0xc2 && i + 1 < n && u[i + 1] >= 0x80 &&
		    u[i + 1] <= 0x9f)
			k = 2;
		else if ((u[i] >= 0x20 && u[i] != 0x7f) || u[i] == '\t' ||
		    u[i] == '\n' || (u[i] == '\r' && i + 1 < n &&
		    u[i + 1] == '\n'))
			continue;
		else
			k = 1;
		put(r, w, p + s, i - s);
		if (k == 2)
			snprintf(e, sizeof e, "\\xc2\\x%02x", u[i + 1]);
		else
			snprintf(e, sizeof e, "\\x%02x", u[i]);
		putstr(r, w, e);
		i += k - 1;
		s = i + 1;
	}
	put(r, w, p + s, n - s);
}

static int
must_quote(unsigned char c)
{
	return c < 0x20 || c == '"' || c == '\\' || c >= 0x7f;
}

static size_t
quote_part(char *d, const char *s)
{
	static const char esc[] = "abtnvfr";
	size_t n = 0;
	unsigned char c;

	for (; (c = *s) != '\0'; s++) {
		if (!must_quote(c)) {
			d[n++] = c;
			continue;
		}
		d[n++] = '\\';
		if (c >= 7 && c <= 13)
			d[n++] = esc[c - 7];
		else if (c == '"' || c == '\\')
			d[n++] = c;
		else {
			d[n++] = '0' + (c >> 6);
			d[n++] = '0' + ((c >> 3) & 7);
			d[n++] = '0' + (c & 7);
		}
	}
	return n;
}

char *
udiff_quote(const char *prefix, const char *path)
{
	const char *s;
	size_t plen = strlen(prefix), len = strlen(path), n = 0;
	int need = 0;
	char *d;

	for (s = prefix; *s != '\0'; s++)
		need |= must_quote(*s);
	for (s = path; *s != '\0'; s++)
		need |= must_quote(*s);
	if (!need) {
		if ((d = mem_alloc(plen + len + 1)) == NULL)
			return NULL;
		memcpy(d, prefix, plen);
		memcpy(d + plen, path, len + 1);
		return d;
	}
	if (plen > (SIZE_MAX - 3) / 4 - len) {
		errno = ENOMEM;
		return NULL;
	}
	if ((d = mem_alloc(4 * (plen + len) + 3)) == NULL)
		return NULL;
	d[n++] = '"';
	n += quote_part(d + n, prefix);
	n += quote_part(d + n, path);
	d[n++] = '"';
	d[n] = '\0';
	return d;
}

static int
is_binary(const struct udiff_side *s)
{
	size_t n = s->len < BINARY_PEEK ? s->len : BINARY_PEEK;

	return s->kind != UDIFF_ABSENT && n > 0 && memchr(s->data, 0, n) != NULL;
}

/* git's isspace: space, tab, LF, CR. */
static int
gspace(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int
blank(const char *p, size_t n)
{
	for (; n > 0; n--, p++)
		if (!gspace(*p))
			return 0;
	return 1;
}

/* The end of a bold header line: a and b, reset, tail, newline. */
static void
meta_end(struct rend *r, const char *a, const char *b, const char *tail)
{
	putstr(r, ALL, a);
	putstr(r, ALL, b);
	putstr(r, COLOR, C_RESET);
	putstr(r, ALL, tail);
	putstr(r, ALL, "\n");
}

static void
meta(struct rend *r, const char *a, const char *b, const char *tail)
{
	putstr(r, COLOR, C_META);
	meta_end(r, a, b, tail);
}

static void
mode_line(struct rend *r, const char *what, unsigned int mode)
{
	char m[16];

	snprintf(m, sizeof(m), "%06o", mode & 0177777);
	meta(r, what, m, "");
}

/* Longest prefix of p that is valid UTF-8 by git's rules. */
static size_t
utf8_prefix(const unsigned char *s, size_t n)
{
	size_t i = 0, k;

	while (i < n) {
		unsigned char c = s[i];

		if (c < 0x80)
			k = 1;
		else if ((c & 0xe0) == 0xc0) {
			if (n - i < 2 || (s[i + 1] & 0xc0) != 0x80 ||
			    (c & 0xfe) == 0xc0)
				break;
			k = 2;
		} else if ((c & 0xf0) == 0xe0) {
			if (n - i < 3 || (s[i + 1] & 0xc0) != 0x80 ||
			    (s[i + 2] & 0xc0) != 0x80 ||
			    (c == 0xe0 && (s[i + 1] & 0xe0) == 0x80) ||
			    (c == 0xed && (s[i + 1] & 0xe0) == 0xa0) ||
			    (c == 0xef && s[i + 1] == 0xbf &&
			    (s[i + 2] & 0xfe) == 0xbe))
				break;
			k = 3;
		} else if ((c & 0xf8) == 0xf0) {
			if (n - i < 4 || (s[i + 1] & 0xc0) != 0x80 ||
			    (s[i + 2] & 0xc0) != 0x80 ||
			    (s[i + 3] & 0xc0) != 0x80 ||
			    (c == 0xf0 && (s[i + 1] & 0xf0) == 0x80) ||
			    (c == 0xf4 && s[i + 1] > 0x8f) || c > 0xf4)
				break;
			k = 4;
		} else
			break;
		i += k;
	}
	return i;
}

/*
 * The text after a hunk header: the nearest line above the hunk in the old
 * file that starts like an identifier, cut to 80 bytes, trailing space
 * trimmed, and cut before any invalid UTF-8 (git truncates the header
 * line there). Searches only down to the previous hunk's start.
 */
static void
find_func(struct rend *r, const struct diff_text *o, long s1)
{
	const char *p;
	size_t len;
	long l;

	for (l = s1 - 1; l >= 0 && l != r->funcprev; l--) {
		p = diff_line(o, l, &len);
		if (!((p[0] >= 'a' && p[0] <= 'z') ||
		    (p[0] >= 'A' && p[0] <= 'Z') || p[0] == '_' ||
		    p[0] == '$'))
			continue;
		if (len > FUNC_MAX)
			len = FUNC_MAX;
		while (len > 0 && gspace(p[len - 1]))
			len--;
		len = utf8_prefix((const unsigned char *)p, len);
		memcpy(r->func, p, len);
		r->funclen = len;
		break;
	}
	r->funcprev = s1 - 1;
}

/* Added-line text with git's default whitespace-error highlighting. */
static void
ws_color(struct rend *r, const char *p, size_t len)
{
	size_t tw, i, w = 0;

	for (tw = len; tw > 0 && gspace(p[tw - 1]); tw--)
		;
	for (i = 0; i < tw; i++) {
		if (p[i] == ' ')
			continue;
		if (p[i] != '\t')
			break;
		if (w < i) {
			putstr(r, COLOR, C_WS);
			put_text(r, COLOR, p + w, i - w);
			putstr(r, COLOR, C_RESET);
			put_text(r, COLOR, p + i, 1);
		} else
			put_text(r, COLOR, p + w, i - w + 1);
		w = i + 1;
	}
	if (tw > w) {
		putstr(r, COLOR, C_NEW);
		put_text(r, COLOR, p + w, tw - w);
		putstr(r, COLOR, C_RESET);
	}
	if (tw != len) {
		putstr(r, COLOR, C_WS);
		put_text(r, COLOR, p + tw, len - tw);
		putstr(r, COLOR, C_RESET);
	}
}

/*
 * One body line: sign and text (with newline, or with git's marker when
 * the line has none). Returns the number of body lines it takes.
 */
static long
body_line(struct rend *r, int sign, const char *p, size_t len, int dry)
{
	static const char noeol[] = "\\ No newline at end of file";
	int eol = len > 0 && p[len - 1] == '\n';
	size_t tl = len - eol;		/* text without the newline */
	int cr = tl > 0 && p[tl - 1] == '\r';
	char s = sign;

	if (dry)
		return eol ? 1 : 2;
	put(r, PLAIN | DIG, &s, 1);
	put_text(r, PLAIN | DIG, p, len);
	if (!eol)
		put(r, PLAIN | DIG, "\n", 1);
	if (r->color && r->showing && !r->failed) {
		if (sign == ' ') {
			r->lno_pre++;
			r->lno_post++;
			put(r, COLOR, " ", 1);
			put_text(r, COLOR, p, tl - cr);
			putstr(r, COLOR, C_RESET);
		} else if (sign == '-') {
			r->lno_pre++;
			putstr(r, COLOR, C_OLD "-");
			put_text(r, COLOR, p, tl - cr);
			putstr(r, COLOR, C_RESET);
		} else {
			r->lno_post++;
			if (r->eof_pre > 0 && r->eof_pre <= r->lno_pre &&
			    r->eof_post <= r->lno_post && blank(p, len)) {
				putstr(r, COLOR, C_WS "+");
				put_text(r, COLOR, p, tl - cr);
				putstr(r, COLOR, C_RESET);
			} else {
				putstr(r, COLOR, C_NEW "+" C_RESET);
				ws_color(r, p, tl);
				cr = 0;
			}
		}
		if (cr)
			put(r, COLOR, "\r", 1);
		put(r, COLOR, "\n", 1);
	}
	if (!eol) {
		put(r, PLAIN | DIG, noeol, sizeof(noeol) - 1);
		put(r, PLAIN | DIG, "\n", 1);
		putstr(r, COLOR, noeol);
		putstr(r, COLOR, C_RESET "\n");
		if (r->color)
			r->lno_pre++;
	}
	return eol ? 1 : 2;
}

static void
range(char *d, size_t dn, long s, long c)
{
	if (c == 1)
		snprintf(d, dn, "%ld", s);
	else
		snprintf(d, dn, "%ld,%ld", c ? s : s - 1, c);
}

/*
 * One hunk covering changes ch[i..j]; with dry, only count its body lines.
 */
static long
hunk(struct rend *r, const struct diff_text *o, const struct diff_text *n,
    const struct diff_change *ch, long i, long j, int dry)
{
	long s1, s2, e1, e2, lctx, k, cnt = 1;
	const char *p;
	size_t len;
	char h1[48], h2[48];

	s1 = ch[i].a - r->ctx > 0 ? ch[i].a - r->ctx : 0;
	s2 = ch[i].b - r->ctx > 0 ? ch[i].b - r->ctx : 0;
	lctx = r->ctx;
	if (lctx > o->nlines - (ch[j].a + ch[j].na))
		lctx = o->nlines - (ch[j].a + ch[j].na);
	if (lctx > n->nlines - (ch[j].b + ch[j].nb))
		lctx = n->nlines - (ch[j].b + ch[j].nb);
	e1 = ch[j].a + ch[j].na + lctx;
	e2 = ch[j].b + ch[j].nb + lctx;

	if (!dry) {
		find_func(r, o, s1);
		range(h1, sizeof(h1), s1 + 1, e1 - s1);
		range(h2, sizeof(h2), s2 + 1, e2 - s2);
		r->lno_pre = e1 - s1 ? s1 + 1 : s1;
		r->lno_post = e2 - s2 ? s2 + 1 : s2;
		putstr(r, COLOR, C_FRAG);
		putstr(r, ALL, "@@ -");
		putstr(r, ALL, h1);
		putstr(r, ALL, " +");
		putstr(r, ALL, h2);
		putstr(r, ALL, " @@");
		putstr(r, COLOR, C_RESET);
		if (r->funclen > 0) {
			putstr(r, ALL, " ");
			putstr(r, COLOR, C_RESET);
			put_text(r, ALL, r->func, r->funclen);
			putstr(r, COLOR, C_RESET);
		}
		putstr(r, ALL, "\n");
	}
	for (; s2 < ch[i].b; s2++) {
		p = diff_line(n, s2, &len);
		cnt += body_line(r, ' ', p, len, dry);
	}
	for (k = i; k <= j; k++) {
		if (k > i)
			for (s2 = ch[k - 1].b + ch[k - 1].nb; s2 < ch[k].b;
			    s2++) {
				p = diff_line(n, s2, &len);
				cnt += body_line(r, ' ', p, len, dry);
			}
		for (s1 = ch[k].a; s1 < ch[k].a + ch[k].na; s1++) {
			p = diff_line(o, s1, &len);
			cnt += body_line(r, '-', p, len, dry);
		}
		for (s2 = ch[k].b; s2 < ch[k].b + ch[k].nb; s2++) {
			p = diff_line(n, s2, &len);
			cnt += body_line(r, '+', p, len, dry);
		}
	}
	for (s1 = ch[j].a + ch[j].na; s1 < e1; s1++) {
		p = diff_line(o, s1, &len);
		cnt += body_line(r, ' ', p, len, dry);
	}
	return cnt;
}

/* git's count of trailing blank lines (the first line never counts). */
static long
trailing_blank(const char *d, size_t size)
{
	const char *p, *q;
	long cnt = 0;

	if (size == 0)
		return 0;
	p = d + size - 1;
	if (*p == '\n')
		p--;
	while (d < p) {
		for (q = p; d <= q && *q != '\n'; q--)
			;
		if (!blank(q + 1, p - q))
			break;
		cnt++;
		p = q - 1;
	}
	return cnt;
}

static long
count_lines(const char *d, size_t size)
{
	const char *p, *e = d + size;
	long n = 0;

	for (p = d; p < e && (p = memchr(p, '\n', e - p)) != NULL; p++)
		n++;
	if (size > 0 && d[size - 1] != '\n')
		n++;
	return n;
}

static int
hunks(const struct diff_text *o, const struct diff_text *n,
    const struct diff_change *ch, long nch, void *arg)
{
	struct rend *r = arg;
	long i, j, k, cnt, total = 0, l1, l2;
	long gap = 2 * r->ctx;
	char num[32];

	if (nch == 0)
		return 0;
	for (k = 0; k < 2; k++)
		meta(r, k ? "+++ " : "--- ", r->lbl[k],
		    strchr(r->lbl[k], ' ') ? "\t" : "");
	r->eof_pre = r->eof_post = 0;
	if (r->color) {
		l1 = trailing_blank(o->data, o->len);
		l2 = trailing_blank(n->data, n->len);
		if (l2 > l1) {
			r->eof_pre = count_lines(o->data, o->len) - l1 + 1;
			r->eof_post = count_lines(n->data, n->len) - l2 + 1;
		}
	}
	for (i = 0; i < nch; i++) {
		r->st->removed += ch[i].na;
		r->st->added += ch[i].nb;
	}
	for (i = 0; i < nch; i = j + 1) {
		for (j = i; j + 1 < nch &&
		    ch[j + 1].a - (ch[j].a + ch[j].na) <= gap; j++)
			;
		cnt = hunk(r, o, n, ch, i, j, 1);
		total += cnt;
		if (r->showing && r->cap >= 0 && r->shown + cnt > r->cap)
			r->showing = 0;
		if (r->showing)
			r->shown += cnt;
		hunk(r, o, n, ch, i, j, 0);
		if (r->failed)
			break;
	}
	if (!r->failed && total > r->shown) {
		char *q = udiff_quote("", r->path);

		r->showing = 1;
		r->st->truncated += total - r->shown;
		if (q == NULL) {
			r->failed = 1;
			r->ferrno = errno;
		} else {
			snprintf(num, sizeof(num), "%ld", total - r->shown);
			putstr(r, PLAIN | COLOR, "... diff truncated: ");
			putstr(r, PLAIN | COLOR, num);
			putstr(r, PLAIN | COLOR, " more lines for ");
			putstr(r, PLAIN | COLOR, q);
			putstr(r, PLAIN | COLOR, "\n");
			mem_free(q);
		}
	}
	if (r->failed) {
		errno = r->ferrno;
		return -1;
	}
	return 0;
}

static const char *
side_data(const struct udiff_side *s, size_t *len)
{
	if (s->kind == UDIFF_ABSENT || s->data == NULL) {
		*len = 0;
		return "";
	}
	*len = s->len;
	return s->data;
}

static unsigned int
side_mode(const struct udiff_side *s)
{
	if (s->kind == UDIFF_SYMLINK)
		return 0120000;
	if ((s->mode & S_TYPE) == 0)
		return 0100000 | (s->mode & 0777);
	return s->mode;
}

static int
same_bytes(const struct udiff_side *a, const struct udiff_side *b)
{
	size_t al, bl;
	const char *ad = side_data(a, &al), *bd = side_data(b, &bl);

	return al == bl && memcmp(ad, bd, al) == 0;
}

/* One `diff --git` section; old and new are not both absent. */
static int
section(struct rend *r, const struct udiff_side *old,
    const struct udiff_side *new)
{
	const char *ad, *bd;
	size_t al, bl;

	r->showing = 1;
	r->shown = 0;
	r->funcprev = -1;
	r->funclen = 0;
	r->lbl[0] = old->kind == UDIFF_ABSENT ? "/dev/null" : r->qa;
	r->lbl[1] = new->kind == UDIFF_ABSENT ? "/dev/null" : r->qb;
	putstr(r, COLOR, C_META);
	putstr(r, ALL, "diff --git ");
	putstr(r, ALL, r->qa);
	putstr(r, ALL, " ");
	meta_end(r, r->qb, "", "");
	if (old->kind == UDIFF_ABSENT)
		mode_line(r, "new file mode ", side_mode(new));
	else if (new->kind == UDIFF_ABSENT)
		mode_line(r, "deleted file mode ", side_mode(old));
	else if (side_mode(old) != side_mode(new)) {
		mode_line(r, "old mode ", side_mode(old));
		mode_line(r, "new mode ", side_mode(new));
	}
	ad = side_data(old, &al);
	bd = side_data(new, &bl);
	if (al == bl && memcmp(ad, bd, al) == 0)
		return 0;
	if (is_binary(old) || is_binary(new)) {
		r->st->binary = 1;
		putstr(r, ALL, "Binary files ");
		putstr(r, ALL, r->lbl[0]);
		putstr(r, ALL, " and ");
		putstr(r, ALL, r->lbl[1]);
		putstr(r, ALL, " differ\n");
		return 0;
	}
	if (r->sc != NULL)
		return diff_buf_in(r->sc, ad, al, bd, bl, 0, hunks, r);
	return diff_buf(ad, al, bd, bl, 0, hunks, r);
}

int
udiff_file(const char *path, const struct udiff_side *old,
    const struct udiff_side *new, const struct udiff_opts *opts,
    udiff_out_fn *out, void *arg, struct hash_ctx *digest,
    struct udiff_stats *stats)
{
	return udiff_file_in(NULL, path, old, new, opts, out, arg, digest,
	    stats);
}

int
udiff_file_in(struct diff_scratch *sc, const char *path,
    const struct udiff_side *old, const struct udiff_side *new,
    const struct udiff_opts *opts, udiff_out_fn *out, void *arg,
    struct hash_ctx *digest, struct udiff_stats *stats)
{
	struct udiff_side absent = { UDIFF_ABSENT, 0, NULL, 0 };
	struct udiff_stats dummy;
	struct rend *r;
	int ret = -1;

	if (stats == NULL)
		stats = &dummy;
	memset(stats, 0, sizeof(*stats));
	if (old->kind == UDIFF_ABSENT && new->kind == UDIFF_ABSENT)
		return 0;
	if (old->kind == new->kind && side_mode(old) == side_mode(new) &&
	    same_bytes(old, new))
		return 0;
	if ((r = mem_calloc(1, sizeof(*r))) == NULL)
		return -1;
	r->sc = sc;
	r->out = out;
	r->arg = arg;
	r->dig = digest;
	r->st = stats;
	r->path = path;
	r->ctx = opts != NULL && opts->ctx >= 0 ? opts->ctx : 3;
	r->cap = opts != NULL ? opts->cap : -1;
	r->color = opts != NULL && opts->color;
	r->escape = opts != NULL && opts->escape;
	if ((r->qa = udiff_quote("a/", path)) == NULL ||
	    (r->qb = udiff_quote("b/", path)) == NULL)
		goto out;
	if (old->kind != UDIFF_ABSENT && new->kind != UDIFF_ABSENT &&
	    ((side_mode(old) ^ side_mode(new)) & S_TYPE) != 0) {
		if (section(r, old, &absent) < 0 ||
		    section(r, &absent, new) < 0)
			goto out;
	} else if (section(r, old, new) < 0)
		goto out;
	r->showing = 1;
	flush(r);
	if (r->failed) {
		errno = r->ferrno;
		goto out;
	}
	ret = 0;
out:
	if (ret < 0) {
		int e = errno;

		mem_free(r->qa);
		mem_free(r->qb);
		mem_free(r);
		errno = e;
		return -1;
	}
	mem_free(r->qa);
	mem_free(r->qb);
	mem_free(r);
	return 0;
}
