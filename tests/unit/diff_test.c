/*
 * diff engine: the change list turns A into B, is as short as a plain
 * O(ND) search finds on small inputs, matches git's choice of lines on
 * random edits, stays cheap on huge inputs, and fails cleanly (ENOMEM or
 * the callback's errno, nothing leaked) under allocation failure.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"
#include "lib/mem.h"
#include "tap.h"

struct got {
	char		*applied;	/* A with the changes applied */
	size_t		 len;
	long		 edits;		/* lines removed + added */
	long		 nch;
	int		 ordered;
	int		 fail;		/* make the callback fail */
};

static uint64_t rng;

static unsigned
rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static int
collect(const struct diff_text *o, const struct diff_text *n,
    const struct diff_change *ch, long nch, void *arg)
{
	struct got *g = arg;
	long i, a = 0, l;
	size_t len;
	const char *p;

	if (g->fail) {
		errno = EPIPE;
		return -1;
	}
	g->applied = malloc(o->len + n->len + 1);
	g->len = 0;
	g->nch = nch;
	g->ordered = 1;
	g->edits = 0;
	for (i = 0; i < nch; i++) {
		if (i > 0 && (ch[i].a <= ch[i - 1].a + ch[i - 1].na ||
		    ch[i].b <= ch[i - 1].b + ch[i - 1].nb ||
		    ch[i].a - (ch[i - 1].a + ch[i - 1].na) !=
		    ch[i].b - (ch[i - 1].b + ch[i - 1].nb)))
			g->ordered = 0;
		if (ch[i].na + ch[i].nb == 0)
			g->ordered = 0;
		for (; a < ch[i].a; a++) {
			p = diff_line(o, a, &len);
			memcpy(g->applied + g->len, p, len);
			g->len += len;
		}
		for (l = ch[i].b; l < ch[i].b + ch[i].nb; l++) {
			p = diff_line(n, l, &len);
			memcpy(g->applied + g->len, p, len);
			g->len += len;
		}
		a += ch[i].na;
		g->edits += ch[i].na + ch[i].nb;
	}
	for (; a < o->nlines; a++) {
		p = diff_line(o, a, &len);
		memcpy(g->applied + g->len, p, len);
		g->len += len;
	}
	return 0;
}

/* Random text of n lines from an alphabet of k lines; maybe no final LF. */
static char *
gen(int n, int k, size_t *len)
{
	char *s = malloc(n * 16 + 1);
	size_t l = 0;
	int i;

	for (i = 0; i < n; i++)
		l += sprintf(s + l, "%s%u\n", rnd(4) ? "l" : "", rnd(k));
	if (l > 0 && rnd(5) == 0)
		l--;
	*len = l;
	return s;
}

/* Edit a copy of a: a few random insertions, deletions, replacements. */
static char *
mutate(const char *a, size_t alen, int k, size_t *len)
{
	char *s = malloc(alen * 2 + 4096);
	size_t i = 0, l = 0;

	while (i < alen) {
		size_t e = i;

		while (e < alen && a[e] != '\n')
			e++;
		if (e < alen)
			e++;
		switch (rnd(12)) {
		case 0:		/* delete */
			break;
		case 1:		/* insert before */
			l += sprintf(s + l, "n%u\n", rnd(k));
			/* FALLTHROUGH */
		default:
			memcpy(s + l, a + i, e - i);
			l += e - i;
			break;
		case 2:		/* replace */
			l += sprintf(s + l, "r%u\n", rnd(k));
			break;
		}
		i = e;
	}
	if (rnd(6) == 0)
		l += sprintf(s + l, "tail");
	*len = l;
	return s;
}

/* Lines as (pointer, length) for the reference search. */
static long
lines(const char *s, size_t len, const char ***lp, size_t **ll)
{
	long n = 0;
	size_t i = 0, st;

	*lp = malloc((len + 1) * sizeof(**lp));
	*ll = malloc((len + 1) * sizeof(**ll));
	while (i < len) {
		st = i;
		while (i < len && s[i] != '\n')
			i++;
		if (i < len)
			i++;
		(*lp)[n] = s + st;
		(*ll)[n++] = i - st;
	}
	return n;
}

/* Plain greedy forward Myers: the length of a shortest edit script. */
static long
ref_d(const char *a, size_t alen, const char *b, size_t blen)
{
	const char **ap, **bp;
	size_t *al, *bl;
	long n = lines(a, alen, &ap, &al), m = lines(b, blen, &bp, &bl);
	long max = n + m, *v = calloc(2 * max + 3, sizeof(long)), d, k, x, y;
	long res = -1;

	for (d = 0; d <= max && res < 0; d++)
		for (k = -d; k <= d; k += 2) {
			if (k == -d || (k != d && v[max + k - 1] < v[max + k + 1]))
				x = v[max + k + 1];
			else
				x = v[max + k - 1] + 1;
			y = x - k;
			while (x < n && y < m && al[x] == bl[y] &&
			    memcmp(ap[x], bp[y], al[x]) == 0) {
				x++;
				y++;
			}
			v[max + k] = x;
			if (x >= n && y >= m) {
				res = d;
				break;
			}
		}
	free(v);
	free(ap);
	free(bp);
	free(al);
	free(bl);
	return res;
}

static void
t_equal_and_empty(void)
{
	struct got g = { 0 };

	CHECK(diff_buf(NULL, 0, NULL, 0, 0, collect, &g) == 0);
	CHECK(g.nch == 0 && g.len == 0);
	free(g.applied);
	CHECK(diff_buf("a\nb\n", 4, "a\nb\n", 4, 0, collect, &g) == 0);
	CHECK(g.nch == 0 && g.len == 4);
	free(g.applied);
	CHECK(diff_buf(NULL, 0, "x\n", 2, 0, collect, &g) == 0);
	CHECK(g.nch == 1 && g.edits == 1);
	free(g.applied);
	/* a missing final newline makes the line differ */
	CHECK(diff_buf("a\nb", 3, "a\nb\n", 4, 0, collect, &g) == 0);
	CHECK(g.nch == 1 && g.edits == 2);
	CHECK(g.len == 4 && memcmp(g.applied, "a\nb\n", 4) == 0);
	free(g.applied);
	/* CR is part of the line */
	CHECK(diff_buf("a\r\n", 3, "a\n", 2, 0, collect, &g) == 0);
	CHECK(g.edits == 2);
	free(g.applied);
	exit(0);
}

/* Applying the changes to A gives B, for many random pairs. */
static void
t_random_roundtrip(void)
{
	int it, flags;

	rng = 0x1234567;
	for (it = 0; it < 600; it++) {
		size_t al, bl;
		int k = 1 + rnd(it % 3 == 0 ? 3 : 40);
		char *a = gen(rnd(200), k, &al), *b;
		struct got g = { 0 };

		b = rnd(8) == 0 ? gen(rnd(200), k, &bl) : mutate(a, al, k, &bl);
		flags = it & 1 ? DIFF_MINIMAL : 0;
		CHECK(diff_buf(a, al, b, bl, flags, collect, &g) == 0);
		if (g.len != bl || memcmp(g.applied, b, bl) != 0)
			fprintf(stderr, "# seed round %d differs\n", it);
		CHECK(g.len == bl && memcmp(g.applied, b, bl) == 0);
		CHECK(g.ordered);
		free(g.applied);
		free(a);
		free(b);
	}
	exit(0);
}

/* As short as the reference O(ND) search (minimal mode: exactly). */
static void
t_minimal_vs_reference(void)
{
	int it, worse = 0;

	rng = 0xfeedbeef;
	for (it = 0; it < 400; it++) {
		size_t al, bl;
		int k = 1 + rnd(it % 2 ? 4 : 30);
		char *a = gen(rnd(120), k, &al), *b;
		struct got g = { 0 }, h = { 0 };
		long d;

		b = rnd(4) == 0 ? gen(rnd(120), k, &bl) : mutate(a, al, k, &bl);
		d = ref_d(a, al, b, bl);
		CHECK(diff_buf(a, al, b, bl, DIFF_MINIMAL, collect, &g) == 0);
		CHECK(diff_buf(a, al, b, bl, 0, collect, &h) == 0);
		if (g.edits != d)
			fprintf(stderr, "# round %d: minimal %ld, reference %ld\n",
			    it, g.edits, d);
		CHECK(g.edits == d);
		/* the default may set aside frequent lines: close, not worse by much */
		CHECK(h.edits >= d);
		if (h.edits > d)
			worse++;
		CHECK(h.edits <= d + d / 4 + 4);
		free(g.applied);
		free(h.applied);
		free(a);
		free(b);
	}
	printf("# default mode longer than minimal in %d of 400 rounds\n", worse);
	exit(0);
}

/* Huge inputs with nothing in common: one change, found without search. */
static void
t_huge_disjoint(void)
{
	long n = 200000, i;
	char *a = malloc(n * 24), *b = malloc(n * 24);
	size_t al = 0, bl = 0;
	struct got g = { 0 };

	for (i = 0; i < n; i++) {
		al += sprintf(a + al, "old %ld\n", i);
		bl += sprintf(b + bl, "new %ld\n", i);
	}
	CHECK(diff_buf(a, al, b, bl, 0, collect, &g) == 0);
	CHECK(g.nch == 1 && g.edits == 2 * n);
	CHECK(g.len == bl && memcmp(g.applied, b, bl) == 0);
	free(g.applied);
	free(a);
	free(b);
	exit(0);
}

/*
 * Huge inputs with many lines in common but scattered: the cost budget
 * keeps this bounded; the result is still a correct script.
 */
static void
t_huge_scattered(void)
{
	long n = 60000, i;
	char *a = malloc(n * 16), *b = malloc(n * 16);
	size_t al = 0, bl = 0;
	struct got g = { 0 };

	rng = 42;
	for (i = 0; i < n; i++) {
		al += sprintf(a + al, "%u\n", rnd(50));
		bl += sprintf(b + bl, "%u\n", rnd(50));
	}
	CHECK(diff_buf(a, al, b, bl, 0, collect, &g) == 0);
	CHECK(g.len == bl && memcmp(g.applied, b, bl) == 0);
	free(g.applied);
	free(a);
	free(b);
	exit(0);
}

/* Slides groups down, and lines up with the other side as git does. */
static void
t_compaction(void)
{
	struct got g = { 0 };
	static const char a[] = "x\na\nb\na\nb\ny\n", b[] = "x\na\nb\ny\n";
	static const char c[] = "{\n}\n", d[] = "{\n}\n{\n}\n";

	/* removing one "a b" pair: git reports lines 4-5, not 2-3 */
	CHECK(diff_buf(a, sizeof(a) - 1, b, sizeof(b) - 1, 0, collect,
	    &g) == 0);
	CHECK(g.nch == 1 && g.edits == 2);
	free(g.applied);
	CHECK(diff_buf(c, sizeof(c) - 1, d, sizeof(d) - 1, 0, collect,
	    &g) == 0);
	CHECK(g.nch == 1 && g.edits == 2);
	free(g.applied);
	exit(0);
}

static int
first_change(const struct diff_text *o, const struct diff_text *n,
    const struct diff_change *ch, long nch, void *arg)
{
	long *r = arg;

	r[0] = nch;
	r[1] = nch ? ch[0].a : -1;
	r[2] = nch ? ch[0].b : -1;
	return 0;
}

static void
t_slide_position(void)
{
	static const char a[] = "x\na\nb\na\nb\ny\n", b[] = "x\na\nb\ny\n";
	long r[3];

	CHECK(diff_buf(a, sizeof(a) - 1, b, sizeof(b) - 1, 0, first_change,
	    r) == 0);
	CHECK(r[0] == 1 && r[1] == 3 && r[2] == 3);
	exit(0);
}

static void
t_callback_fails(void)
{
	struct got g = { 0 };

	g.fail = 1;
	errno = 0;
	CHECK(diff_buf("a\n", 2, "b\n", 2, 0, collect, &g) == -1);
	CHECK(errno == EPIPE);
	exit(0);	/* the leak check runs at exit */
}

static void
t_alloc_failures(void)
{
	long n;
	int r, done = 0;
	size_t al, bl;
	char *a, *b;

	rng = 7;
	a = gen(300, 20, &al);
	b = mutate(a, al, 20, &bl);
	for (n = 0; !done && n < 1000; n++) {
		struct got g = { 0 };

		mem_fail_after(n);
		errno = 0;
		r = diff_buf(a, al, b, bl, 0, collect, &g);
		if (mem_failed()) {
			CHECK(r == -1);
			CHECK(errno == ENOMEM);
			CHECK(g.applied == NULL);
		} else {
			CHECK(r == 0);
			CHECK(g.len == bl && memcmp(g.applied, b, bl) == 0);
			done = 1;
		}
		free(g.applied);
	}
	mem_fail_after(-1);
	CHECK(done);
	printf("# %ld allocation points tried\n", n);
	free(a);
	free(b);
	exit(0);
}

/*
 * One scratch through many pairs of every size, growing and shrinking:
 * the same change list as diff_buf's each time (what a review of many
 * files does with it), lines longer than a word included.
 */
static void
t_scratch_reuse(void)
{
	struct diff_scratch *sc;
	int it, flags;

	CHECK((sc = diff_scratch_new()) != NULL);
	rng = 0x5eed;
	for (it = 0; it < 400; it++) {
		size_t al, bl;
		int k = 1 + rnd(it % 3 == 0 ? 3 : 40);
		char *a = gen(rnd(it % 50 == 0 ? 3000 : 200), k, &al), *b;
		struct got g = { 0 }, h = { 0 };

		b = rnd(8) == 0 ? gen(rnd(200), k, &bl) : mutate(a, al, k, &bl);
		flags = it & 1 ? DIFF_MINIMAL : 0;
		CHECK(diff_buf_in(sc, a, al, b, bl, flags, collect, &g) == 0);
		CHECK(diff_buf(a, al, b, bl, flags, collect, &h) == 0);
		CHECK(g.len == bl && memcmp(g.applied, b, bl) == 0);
		CHECK(g.nch == h.nch && g.edits == h.edits && g.ordered);
		free(g.applied);
		free(h.applied);
		free(a);
		free(b);
	}
	/* a newline at each offset of a word, and none at all */
	{
		const char *x = "0123456789abcdef\n0123456\n01234567\n012345678";
		const char *y = "0123456789abcdeF\n0123456\n01234567\n012345678\n";
		struct got g = { 0 };

		CHECK(diff_buf_in(sc, x, strlen(x), y, strlen(y), 0, collect,
		    &g) == 0);
		CHECK(g.len == strlen(y) && memcmp(g.applied, y, g.len) == 0);
		CHECK(g.nch == 2 && g.edits == 4);
		free(g.applied);
	}
	diff_scratch_free(sc);
	diff_scratch_free(NULL);
	exit(0);
}

/*
 * An allocation that fails inside diff_buf_in leaves the scratch usable:
 * the next call with it succeeds; nothing leaks once it is freed.
 */
static void
t_scratch_alloc_failures(void)
{
	struct diff_scratch *sc;
	long n;
	int r, done = 0;
	size_t al, bl, cl;
	char *a, *b, *c;

	rng = 11;
	a = gen(300, 20, &al);
	b = mutate(a, al, 20, &bl);
	c = gen(900, 30, &cl);
	for (n = 0; !done && n < 1000; n++) {
		struct got g = { 0 };

		CHECK((sc = diff_scratch_new()) != NULL);
		CHECK(diff_buf_in(sc, a, al, b, bl, 0, collect, &g) == 0);
		free(g.applied);
		g.applied = NULL;
		mem_fail_after(n);
		errno = 0;
		r = diff_buf_in(sc, c, cl, a, al, 0, collect, &g);
		mem_fail_after(-1);
		if (r == -1) {
			CHECK(errno == ENOMEM);
			CHECK(g.applied == NULL);
		} else {
			CHECK(g.len == al && memcmp(g.applied, a, al) == 0);
			done = 1;
		}
		free(g.applied);
		g.applied = NULL;
		CHECK(diff_buf_in(sc, b, bl, c, cl, 0, collect, &g) == 0);
		CHECK(g.len == cl && memcmp(g.applied, c, cl) == 0);
		free(g.applied);
		diff_scratch_free(sc);
	}
	CHECK(done);
	free(a);
	free(b);
	free(c);
	exit(0);
}

int
main(void)
{
	TEST(t_equal_and_empty);
	TEST(t_random_roundtrip);
	TEST(t_minimal_vs_reference);
	TEST(t_huge_disjoint);
	TEST(t_huge_scattered);
	TEST(t_compaction);
	TEST(t_slide_position);
	TEST(t_callback_fails);
	TEST(t_alloc_failures);
	TEST(t_scratch_reuse);
	TEST(t_scratch_alloc_failures);
	return tap_done();
}
