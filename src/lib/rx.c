/*
 * rx: a line matcher for a part of POSIX extended regular expressions
 * (rx.h). The pattern is parsed by recursive descent straight into an
 * NFA (Thompson's construction: each piece is a fragment with one entry
 * and one exit, an empty state to be pointed on), and a line is searched
 * by keeping the set of states the text so far can be in.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/mem.h"
#include "lib/rx.h"

#define RX_MAXPAT	4096

enum { S_NOP, S_SPLIT, S_CHAR, S_ANY, S_SET, S_BOL, S_EOL, S_MATCH };

struct state {
	unsigned char	 type;
	unsigned char	 c;		/* S_CHAR */
	int		 set;		/* S_SET: index into sets */
	int		 out, out1;	/* next states, -1 none */
};

struct rx {
	struct state	*st;
	size_t		 n, cap;
	unsigned char	(*sets)[32];	/* 256-bit sets */
	size_t		 nsets;
	int		 icase, start;
	int		*cur, *next;	/* search: the states, twice */
	unsigned	*mark;		/* search: added at this step */
	unsigned	 gen;
};

/* A fragment of the NFA: entry and exit (an S_NOP whose out is open). */
struct frag {
	int	 in, out;
};

struct parse {
	struct rx	*r;
	const char	*p;
	char		*err;
	size_t		 errlen;
	int		 depth;
};

static int
bad(struct parse *ps, const char *what)
{
	snprintf(ps->err, ps->errlen, "%s", what);
	errno = EINVAL;
	return -1;
}

static int
state(struct parse *ps, int type, int out, int out1)
{
	struct rx *r = ps->r;
	struct state *ns;

	if (r->n == r->cap) {
		if ((ns = mem_reallocarray(r->st, r->cap ? r->cap * 2 : 64,
		    sizeof *ns)) == NULL) {
			snprintf(ps->err, ps->errlen, "%s", strerror(ENOMEM));
			return -1;
		}
		r->st = ns;
		r->cap = r->cap ? r->cap * 2 : 64;
	}
	memset(&r->st[r->n], 0, sizeof r->st[r->n]);
	r->st[r->n].type = (unsigned char)type;
	r->st[r->n].out = out;
	r->st[r->n].out1 = out1;
	return (int)r->n++;
}

/* A one-state fragment of type, its exit a fresh S_NOP. */
static int
single(struct parse *ps, int type, struct frag *f)
{
	int e, s;

	if ((e = state(ps, S_NOP, -1, -1)) < 0 ||
	    (s = state(ps, type, e, -1)) < 0)
		return -1;
	f->in = s;
	f->out = e;
	return 0;
}

static void
set_add(unsigned char *set, int c, int icase)
{
	set[c >> 3] |= (unsigned char)(1 << (c & 7));
	if (icase && isalpha(c)) {
		c = islower(c) ? toupper(c) : tolower(c);
		set[c >> 3] |= (unsigned char)(1 << (c & 7));
	}
}

/* [:name:] at p (past "[:"): the class's test, and p past ":]". */
static int (*
named(const char **pp))(int)
{
	static const struct { const char *name; int (*fn)(int); } cl[] = {
		{ "alpha", isalpha }, { "digit", isdigit },
		{ "alnum", isalnum }, { "upper", isupper },
		{ "lower", islower }, { "space", isspace },
		{ "punct", ispunct }, { "xdigit", isxdigit },
	};
	size_t i, n;

	for (i = 0; i < sizeof cl / sizeof cl[0]; i++) {
		n = strlen(cl[i].name);
		if (strncmp(*pp, cl[i].name, n) == 0 &&
		    strncmp(*pp + n, ":]", 2) == 0) {
			*pp += n + 2;
			return cl[i].fn;
		}
	}
	return NULL;
}

/* A bracket expression at ps->p (past '['). */
static int
bracket(struct parse *ps, struct frag *f)
{
	struct rx *r = ps->r;
	unsigned char set[32] = { 0 }, (*ns)[32];
	int (*fn)(int);
	int neg = 0, c, hi, k, first = 1;

	if (*ps->p == '^') {
		neg = 1;
		ps->p++;
	}
	for (; *ps->p != '\0' && (*ps->p != ']' || first); first = 0) {
		if (ps->p[0] == '[' && ps->p[1] == ':') {
			ps->p += 2;
			if ((fn = named(&ps->p)) == NULL)
				return bad(ps, "unknown [:class:] in a set");
			for (k = 0; k < 256; k++)
				if (fn(k))
					set_add(set, k, r->icase);
			continue;
		}
		c = (unsigned char)*ps->p++;
		hi = c;
		if (ps->p[0] == '-' && ps->p[1] != ']' && ps->p[1] != '\0') {
			hi = (unsigned char)ps->p[1];
			ps->p += 2;
			if (hi < c)
				return bad(ps, "a range in a set runs backwards");
		}
		for (k = c; k <= hi; k++)
			set_add(set, k, r->icase);
	}
	if (*ps->p != ']')
		return bad(ps, "unterminated [ set");
	ps->p++;
	if (neg)
		for (k = 0; k < 32; k++)
			set[k] = (unsigned char)~set[k];
	if ((ns = mem_reallocarray(r->sets, r->nsets + 1, sizeof *ns)) ==
	    NULL) {
		snprintf(ps->err, ps->errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	r->sets = ns;
	memcpy(r->sets[r->nsets], set, sizeof set);
	if (single(ps, S_SET, f) < 0)
		return -1;
	r->st[f->in].set = (int)r->nsets++;
	return 0;
}

static int alt(struct parse *, struct frag *);

static int
atom(struct parse *ps, struct frag *f)
{
	struct rx *r = ps->r;
	int c = (unsigned char)*ps->p++;

	switch (c) {
	case '(':
		if (++ps->depth > 100)
			return bad(ps, "groups nested too deep");
		if (alt(ps, f) < 0)
			return -1;
		if (*ps->p != ')')
			return bad(ps, "unmatched (");
		ps->p++;
		ps->depth--;
		return 0;
	case '[':
		return bracket(ps, f);
	case '.':
		return single(ps, S_ANY, f);
	case '^':
		return single(ps, S_BOL, f);
	case '$':
		return single(ps, S_EOL, f);
	case '*': case '+': case '?':
		return bad(ps, "nothing to repeat");
	case '{':
		return bad(ps, "{m,n} repetition is not supported (write the "
		    "piece out, or use * + ?)");
	case '\\':
		if ((c = (unsigned char)*ps->p++) == '\0')
			return bad(ps, "trailing backslash");
		if (isdigit(c))
			return bad(ps, "back-references are not supported");
		break;
	}
	if (single(ps, S_CHAR, f) < 0)
		return -1;
	r->st[f->in].c = (unsigned char)(r->icase ? tolower(c) : c);
	return 0;
}

/* An atom and the * + ? after it. */
static int
repeat(struct parse *ps, struct frag *f)
{
	struct rx *r = ps->r;
	int s, e, op;

	if (atom(ps, f) < 0)
		return -1;
	while ((op = *ps->p) == '*' || op == '+' || op == '?') {
		ps->p++;
		if ((e = state(ps, S_NOP, -1, -1)) < 0 ||
		    (s = state(ps, S_SPLIT, f->in, e)) < 0)
			return -1;
		r->st[f->out].out = op == '?' ? e : s;
		f->in = op == '+' ? f->in : s;
		f->out = e;
	}
	if (*ps->p == '{')
		return bad(ps, "{m,n} repetition is not supported (write the "
		    "piece out, or use * + ?)");
	return 0;
}

/* Pieces one after the other, up to | or ) or the end. */
static int
concat(struct parse *ps, struct frag *f)
{
	struct frag g;

	if (single(ps, S_NOP, f) < 0)
		return -1;
	while (*ps->p != '\0' && *ps->p != '|' && *ps->p != ')') {
		if (repeat(ps, &g) < 0)
			return -1;
		ps->r->st[f->out].out = g.in;
		f->out = g.out;
	}
	return 0;
}

static int
alt(struct parse *ps, struct frag *f)
{
	struct frag g;
	int s, e;

	if (concat(ps, f) < 0)
		return -1;
	while (*ps->p == '|') {
		ps->p++;
		if (concat(ps, &g) < 0 ||
		    (e = state(ps, S_NOP, -1, -1)) < 0 ||
		    (s = state(ps, S_SPLIT, f->in, g.in)) < 0)
			return -1;
		ps->r->st[f->out].out = e;
		ps->r->st[g.out].out = e;
		f->in = s;
		f->out = e;
	}
	return 0;
}

struct rx *
rx_compile(const char *pat, int icase, char *err, size_t errlen)
{
	struct parse ps = { NULL, pat, err, errlen, 0 };
	struct rx *r;
	struct frag f;
	int m;

	if (strlen(pat) > RX_MAXPAT) {
		snprintf(err, errlen, "longer than %d bytes", RX_MAXPAT);
		errno = EINVAL;
		return NULL;
	}
	if ((r = mem_calloc(1, sizeof *r)) == NULL) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return NULL;
	}
	r->icase = icase;
	ps.r = r;
	if (alt(&ps, &f) < 0)
		goto fail;
	if (*ps.p == ')') {
		bad(&ps, "unmatched )");
		goto fail;
	}
	if ((m = state(&ps, S_MATCH, -1, -1)) < 0)
		goto fail;
	r->st[f.out].out = m;
	r->start = f.in;
	r->cur = mem_calloc(r->n, sizeof *r->cur);
	r->next = mem_calloc(r->n, sizeof *r->next);
	r->mark = mem_calloc(r->n, sizeof *r->mark);
	if (r->cur == NULL || r->next == NULL || r->mark == NULL) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		goto fail;
	}
	return r;
fail:
	rx_free(r);
	return NULL;
}

/*
 * Add state s and what it leads to without reading a character (at
 * offset at of a line of len bytes) to list l of *n; 1 when the match
 * state is among them.
 */
static int
add(struct rx *r, int *l, size_t *n, int s, size_t at, size_t len)
{
	int stack[64], sp = 0, found = 0;
	const struct state *x;

	/* a small stack, and recursion for the rare deeper pattern */
	stack[sp++] = s;
	while (sp > 0) {
		s = stack[--sp];
		if (s < 0 || r->mark[s] == r->gen)
			continue;
		r->mark[s] = r->gen;
		x = &r->st[s];
		switch (x->type) {
		case S_MATCH:
			found = 1;
			break;
		case S_NOP:
			stack[sp++] = x->out;
			break;
		case S_BOL:
			if (at == 0)
				stack[sp++] = x->out;
			break;
		case S_EOL:
			if (at == len)
				stack[sp++] = x->out;
			break;
		case S_SPLIT:
			if (sp + 2 > (int)(sizeof stack / sizeof stack[0])) {
				found |= add(r, l, n, x->out, at, len);
				found |= add(r, l, n, x->out1, at, len);
				break;
			}
			stack[sp++] = x->out1;
			stack[sp++] = x->out;
			break;
		default:
			l[(*n)++] = s;
		}
	}
	return found;
}

int
rx_search(struct rx *r, const char *s, size_t len)
{
	const struct state *x;
	size_t nc = 0, nn, i, at;
	int c, *t, ok;

	for (at = 0; ; at++) {
		/* the match may start here too */
		r->gen++;
		for (i = 0; i < nc; i++)
			r->mark[r->cur[i]] = r->gen;
		if (add(r, r->cur, &nc, r->start, at, len))
			return 1;
		if (at == len)
			return 0;
		c = (unsigned char)s[at];
		if (r->icase)
			c = tolower(c);
		nn = 0;
		r->gen++;
		for (i = 0; i < nc; i++) {
			x = &r->st[r->cur[i]];
			ok = x->type == S_ANY || (x->type == S_CHAR &&
			    x->c == c) || (x->type == S_SET &&
			    (r->sets[x->set][c >> 3] >> (c & 7)) & 1);
			if (ok && add(r, r->next, &nn, x->out, at + 1, len))
				return 1;
		}
		t = r->cur;
		r->cur = r->next;
		r->next = t;
		nc = nn;
	}
}

void
rx_free(struct rx *r)
{
	if (r == NULL)
		return;
	mem_free(r->st);
	mem_free(r->sets);
	mem_free(r->cur);
	mem_free(r->next);
	mem_free(r->mark);
	mem_free(r);
}
