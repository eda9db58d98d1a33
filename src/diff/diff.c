#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "diff/diff.h"
#include "lib/mem.h"

#define COST_MIN	256	/* the search budget is never below this */
#define EQ_LIMIT	1024	/* cap on the "too many matches" threshold */
#define SCAN_WINDOW	100	/* how far the frequent-line scan looks */
#define KEEP_RATIO	4
#define PREFETCH	16	/* lines to hash ahead of the table probe */

enum { KEEP, DISCARD, MAYBE };

struct side {
	struct diff_text t;
	size_t		*off;
	long		 n;
	long		*cls;		/* equivalence class of each line */
	char		*chgbuf;
	char		*chg;		/* chg[-1 .. n], sentinels 0 */
	unsigned char	*act;		/* per line of the trimmed region */
	long		*ref;		/* reduced sequence: line numbers */
	long		*rcls;		/* reduced sequence: classes */
	long		 nr;
};

struct cent {
	uint64_t	 h;
	long		 rep;		/* a line of this class, sides concatenated */
	unsigned int	 cnt[2];
};

struct split {
	long		 x;
	long		 y;
	int		 minlo;
	int		 minhi;
};

/* The arrays of one diff, by slot: side 0's at even, side 1's at odd. */
enum {
	SL_OFF, SL_CLS = 2, SL_CHG = 4, SL_ACT = 6, SL_REF = 8, SL_RCLS = 10,
	SL_TAB = 12, SL_CE, SL_FV, SL_BV, SL_CH, NSLOT
};

struct diff_scratch {
	void		*p[NSLOT];
	size_t		 cap[NSLOT];
};

struct ctx {
	struct diff_scratch *sc;
	struct side	 s[2];
	long		 start;		/* first line after the common prefix */
	long		 end[2];	/* first line of the common suffix */
	long		*fv;		/* forward V, indexed by diagonal */
	long		*bv;		/* backward V */
	long		 maxcost;
	int		 flags;
};

struct diff_scratch *
diff_scratch_new(void)
{
	return mem_calloc(1, sizeof(struct diff_scratch));
}

void
diff_scratch_free(struct diff_scratch *sc)
{
	int k;

	if (sc == NULL)
		return;
	for (k = 0; k < NSLOT; k++)
		mem_free(sc->p[k]);
	mem_free(sc);
}

/*
 * Slot k of sc with room for n items of sz bytes (uninitialised; what it
 * held is kept only when keep is set). Grown at least twofold, never
 * shrunk: a run of files of similar size allocates once.
 */
static void *
grab(struct diff_scratch *sc, int k, size_t n, size_t sz, int keep)
{
	void *p;

	if (sz != 0 && n > SIZE_MAX / 2 / sz) {
		errno = ENOMEM;
		return NULL;
	}
	if ((n *= sz) == 0)
		n = 1;
	if (n <= sc->cap[k])
		return sc->p[k];
	if (n < sc->cap[k] * 2)
		n = sc->cap[k] * 2;
	if (keep)
		p = mem_realloc(sc->p[k], n);
	else {
		mem_free(sc->p[k]);
		sc->p[k] = NULL;
		sc->cap[k] = 0;
		p = mem_alloc(n);
	}
	if (p == NULL)
		return NULL;
	sc->p[k] = p;
	sc->cap[k] = n;
	return p;
}

const char *
diff_line(const struct diff_text *t, long i, size_t *len)
{
	*len = t->off[i + 1] - t->off[i];
	return t->data + t->off[i];
}

/*
 * The first newline in p .. e-1, or NULL: eight bytes a step (a byte is
 * zero in w ^ 0x0a0a... when (x - 0x01...) & ~x & 0x80... has its bit),
 * since lines are short and musl's memchr pays its set-up on each one.
 */
static const char *
newline(const char *p, const char *e)
{
	const uint64_t ones = 0x0101010101010101ULL;
	uint64_t w;

	for (; e - p >= 8; p += 8) {
		memcpy(&w, p, 8);
		w ^= ones * '\n';
		if (((w - ones) & ~w & ones * 0x80) != 0)
			break;
	}
	for (; p < e; p++)
		if (*p == '\n')
			return p;
	return NULL;
}

/* Whether the n bytes at p and q are equal (musl's memcmp: a byte a step). */
static int
same(const char *p, const char *q, size_t n)
{
	uint64_t a, b;

	for (; n >= 8; p += 8, q += 8, n -= 8) {
		memcpy(&a, p, 8);
		memcpy(&b, q, 8);
		if (a != b)
			return 0;
	}
	for (; n > 0; n--)
		if (*p++ != *q++)
			return 0;
	return 1;
}

static int
split_lines(struct diff_scratch *sc, int k, struct side *s, const char *data,
    size_t len)
{
	const char *p, *e = data + len, *nl;
	size_t *off;
	long n = 0, cap = len / 32 + 16;

	if ((s->off = grab(sc, SL_OFF + k, cap + 1, sizeof(*s->off), 0)) ==
	    NULL)
		return -1;
	s->off[0] = 0;
	for (p = data; p < e; p = nl + 1) {
		if ((nl = newline(p, e)) == NULL)
			nl = e - 1;
		if (n == cap) {
			if (cap >= LONG_MAX / 8 || (uint64_t)cap >= UINT_MAX / 4) {
				errno = ENOMEM;
				return -1;
			}
			cap *= 2;
			if ((off = grab(sc, SL_OFF + k, cap + 1, sizeof(*off),
			    1)) == NULL)
				return -1;
			s->off = off;
		}
		s->off[++n] = nl + 1 - data;
	}
	s->n = n;
	s->t.data = data;
	s->t.len = len;
	s->t.nlines = n;
	s->t.off = s->off;
	s->t.noeol = len > 0 && data[len - 1] != '\n';
	return 0;
}

static uint64_t
line_hash(const char *p, size_t n)
{
	uint64_t h = 0x243f6a8885a308d3ULL ^ n, w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 31;
	}
	if (n > 0) {
		/* byte by byte: a variable-size memcpy is a call per line */
		for (w = 0; n > 0; n--)
			w = w << 8 | (unsigned char)p[n - 1];
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
	}
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return h;
}

static const char *
rep_line(struct ctx *c, long rep, size_t *len)
{
	if (rep < c->s[0].n)
		return diff_line(&c->s[0].t, rep, len);
	return diff_line(&c->s[1].t, rep - c->s[0].n, len);
}

static uint64_t
bogosqrt(uint64_t n)
{
	uint64_t i;

	for (i = 1; n > 0; n >>= 2)
		i <<= 1;
	return i;
}

/*
 * A line with many matches on the other side is set aside only when it sits
 * in a run of lines without matches, and the run is mostly such lines.
 */
static int
frequent_discard(const unsigned char *act, long i, long len)
{
	long r, lo = 0, hi = len - 1, dis0 = 0, may0 = 1, dis1 = 0, may1 = 1;

	if (i - lo > SCAN_WINDOW)
		lo = i - SCAN_WINDOW;
	if (hi - i > SCAN_WINDOW)
		hi = i + SCAN_WINDOW;
	for (r = i - 1; r >= lo && act[r] != KEEP; r--) {
		if (act[r] == DISCARD)
			dis0++;
		else
			may0++;
	}
	if (dis0 == 0)
		return 0;
	for (r = i + 1; r <= hi && act[r] != KEEP; r++) {
		if (act[r] == DISCARD)
			dis1++;
		else
			may1++;
	}
	if (dis1 == 0)
		return 0;
	return (may0 + may1) * KEEP_RATIO < may0 + may1 + dis0 + dis1;
}

/*
 * Hash lines into classes, trim the common ends, and decide which lines
 * of the middle are certainly changed.
 */
static int
classify(struct ctx *c)
{
	struct cent *ce = NULL;
	unsigned int *tab = NULL;
	size_t tsize = 16, mask, slot;
	long total = c->s[0].n + c->s[1].n, ncls = 0, i, lim, j;
	int k, ret = -1;

	while (tsize < (size_t)total * 2)
		tsize <<= 1;
	mask = tsize - 1;
	if ((tab = grab(c->sc, SL_TAB, tsize, sizeof(*tab), 0)) == NULL ||
	    (ce = grab(c->sc, SL_CE, total, sizeof(*ce), 0)) == NULL)
		goto out;
	memset(tab, 0xff, tsize * sizeof(*tab));
	for (k = 0; k < 2; k++) {
		struct side *s = &c->s[k];

		if ((s->cls = grab(c->sc, SL_CLS + k, s->n, sizeof(*s->cls),
		    0)) == NULL)
			goto out;
		/* hashes first, so the table probes can be prefetched */
		for (i = 0; i < s->n; i++) {
			size_t len;
			const char *p = diff_line(&s->t, i, &len);

			s->cls[i] = (long)line_hash(p, len);
		}
		for (i = 0; i < s->n; i++) {
			size_t len, olen;
			const char *p = diff_line(&s->t, i, &len), *q;
			uint64_t h = (uint64_t)s->cls[i];

#if defined(__GNUC__)
			if (i + PREFETCH < s->n)
				__builtin_prefetch(&tab[(uint64_t)s->cls[i +
				    PREFETCH] & mask]);
#endif
			for (slot = h & mask; tab[slot] != UINT_MAX;
			    slot = (slot + 1) & mask) {
				struct cent *e = &ce[tab[slot]];

				if (e->h != h)
					continue;
				q = rep_line(c, e->rep, &olen);
				if (olen == len && same(p, q, len))
					break;
			}
			if (tab[slot] == UINT_MAX) {
				tab[slot] = ncls;
				ce[ncls].h = h;
				ce[ncls].rep = k == 0 ? i : c->s[0].n + i;
				ce[ncls].cnt[0] = ce[ncls].cnt[1] = 0;
				ncls++;
			}
			s->cls[i] = tab[slot];
			ce[tab[slot]].cnt[k]++;
		}
	}

	lim = c->s[0].n < c->s[1].n ? c->s[0].n : c->s[1].n;
	for (i = 0; i < lim && c->s[0].cls[i] == c->s[1].cls[i]; i++)
		;
	c->start = i;
	for (j = 0; j < lim - i && c->s[0].cls[c->s[0].n - 1 - j] ==
	    c->s[1].cls[c->s[1].n - 1 - j]; j++)
		;
	c->end[0] = c->s[0].n - j;
	c->end[1] = c->s[1].n - j;

	for (k = 0; k < 2; k++) {
		struct side *s = &c->s[k];
		long len = c->end[k] - c->start;
		uint64_t mlim = bogosqrt(s->n);

		if (mlim > EQ_LIMIT)
			mlim = EQ_LIMIT;
		if (c->flags & DIFF_MINIMAL)
			mlim = UINT64_MAX;
		if ((s->act = grab(c->sc, SL_ACT + k, len, 1, 0)) == NULL)
			goto out;
		for (i = 0; i < len; i++) {
			unsigned int nm = ce[s->cls[c->start + i]].cnt[!k];

			s->act[i] = nm == 0 ? DISCARD : nm < mlim ? KEEP : MAYBE;
		}
	}
	ret = 0;
out:
	return ret;
}

static int
reduce(struct ctx *c)
{
	int k;
	long i, len;

	for (k = 0; k < 2; k++) {
		struct side *s = &c->s[k];

		len = c->end[k] - c->start;
		if ((s->chgbuf = grab(c->sc, SL_CHG + k, s->n + 2, 1, 0)) ==
		    NULL ||
		    (s->ref = grab(c->sc, SL_REF + k, len, sizeof(*s->ref),
		    0)) == NULL ||
		    (s->rcls = grab(c->sc, SL_RCLS + k, len, sizeof(*s->rcls),
		    0)) == NULL)
			return -1;
		memset(s->chgbuf, 0, (size_t)s->n + 2);
		s->chg = s->chgbuf + 1;
		for (i = 0; i < len; i++) {
			int a = s->act[i];

			if (a == MAYBE)
				a = frequent_discard(s->act, i, len) ?
				    DISCARD : KEEP;
			if (a == DISCARD)
				s->chg[c->start + i] = 1;
			else {
				s->ref[s->nr] = c->start + i;
				s->rcls[s->nr++] = s->cls[c->start + i];
			}
		}
		s->act = NULL;
	}
	return 0;
}

/*
 * Find a point on a shortest edit path through the box [x0,x1) x [y0,y1)
 * of the reduced sequences by searching from both corners at once (the
 * middle snake). Past the cost budget, settle for the point that got
 * furthest from its corner. V arrays are indexed by diagonal x - y.
 */
static void
midpoint(struct ctx *c, long x0, long x1, long y0, long y1, int need_min,
    struct split *sp)
{
	const long *a = c->s[0].rcls, *b = c->s[1].rcls;
	long *fv = c->fv, *bv = c->bv;
	long kmin = x0 - y1, kmax = x1 - y0;
	long fmid = x0 - y0, bmid = x1 - y1;
	long flo = fmid, fhi = fmid, blo = bmid, bhi = bmid;
	int odd = (fmid - bmid) & 1;
	long d, k, x, y, r, u, best, bx;

	fv[fmid] = x0;
	bv[bmid] = x1;
	for (d = 1;; d++) {
		if (flo > kmin)
			fv[--flo - 1] = -1;
		else
			flo++;
		if (fhi < kmax)
			fv[++fhi + 1] = -1;
		else
			fhi--;
		for (k = fhi; k >= flo; k -= 2) {
			/* right from diagonal k-1, or down from k+1 */
			r = fv[k - 1] >= 0 && fv[k - 1] < x1 ? fv[k - 1] + 1 : -1;
			u = fv[k + 1] >= 0 && fv[k + 1] - (k + 1) < y1 ?
			    fv[k + 1] : -1;
			x = r > u ? r : u;
			if (x < 0) {
				fv[k] = -1;
				continue;
			}
			for (y = x - k; x < x1 && y < y1 && a[x] == b[y]; x++)
				y++;
			fv[k] = x;
			if (odd && k >= blo && k <= bhi && bv[k] <= x) {
				sp->x = x;
				sp->y = y;
				sp->minlo = sp->minhi = 1;
				return;
			}
		}

		if (blo > kmin)
			bv[--blo - 1] = LONG_MAX;
		else
			blo++;
		if (bhi < kmax)
			bv[++bhi + 1] = LONG_MAX;
		else
			bhi--;
		for (k = bhi; k >= blo; k -= 2) {
			/* left from diagonal k+1, or up from k-1 */
			r = bv[k + 1] != LONG_MAX && bv[k + 1] > x0 ?
			    bv[k + 1] - 1 : LONG_MAX;
			u = bv[k - 1] != LONG_MAX && bv[k - 1] - (k - 1) > y0 ?
			    bv[k - 1] : LONG_MAX;
			x = r < u ? r : u;
			if (x == LONG_MAX) {
				bv[k] = LONG_MAX;
				continue;
			}
			for (y = x - k; x > x0 && y > y0 && a[x - 1] == b[y - 1];
			    x--)
				y--;
			bv[k] = x;
			if (!odd && k >= flo && k <= fhi && x <= fv[k] &&
			    fv[k] >= 0) {
				sp->x = x;
				sp->y = y;
				sp->minlo = sp->minhi = 1;
				return;
			}
		}

		if (need_min || d < c->maxcost)
			continue;

		/* Over budget: take the furthest reaching point. */
		best = -1;
		bx = x0;
		for (k = fhi; k >= flo; k--)
			if (fv[k] >= 0 && fv[k] + (fv[k] - k) > best) {
				best = fv[k] + (fv[k] - k);
				bx = fv[k];
			}
		r = best - (x0 + y0);
		sp->x = bx;
		sp->y = best - bx;
		sp->minlo = 1;
		sp->minhi = 0;
		best = LONG_MAX;
		bx = x1;
		for (k = bhi; k >= blo; k--)
			if (bv[k] != LONG_MAX && bv[k] + (bv[k] - k) < best) {
				best = bv[k] + (bv[k] - k);
				bx = bv[k];
			}
		if (best != LONG_MAX && (x1 + y1) - best > r) {
			sp->x = bx;
			sp->y = best - bx;
			sp->minlo = 0;
			sp->minhi = 1;
		}
		return;
	}
}

static void
mark(struct side *s, long from, long to)
{
	for (; from < to; from++)
		s->chg[s->ref[from]] = 1;
}

/*
 * Divide and conquer. The low half recurses; the high half loops, so the
 * depth stays logarithmic even when budget splits are lopsided.
 */
static void
compare(struct ctx *c, long x0, long x1, long y0, long y1, int need_min)
{
	const long *a = c->s[0].rcls, *b = c->s[1].rcls;
	struct split sp;

	for (;;) {
		while (x0 < x1 && y0 < y1 && a[x0] == b[y0]) {
			x0++;
			y0++;
		}
		while (x0 < x1 && y0 < y1 && a[x1 - 1] == b[y1 - 1]) {
			x1--;
			y1--;
		}
		if (x0 == x1) {
			mark(&c->s[1], y0, y1);
			return;
		}
		if (y0 == y1) {
			mark(&c->s[0], x0, x1);
			return;
		}
		midpoint(c, x0, x1, y0, y1, need_min, &sp);
		if ((sp.x == x0 && sp.y == y0) || (sp.x == x1 && sp.y == y1)) {
			/* cannot happen; still, never loop forever */
			mark(&c->s[0], x0, x1);
			mark(&c->s[1], y0, y1);
			return;
		}
		compare(c, x0, sp.x, y0, sp.y, sp.minlo);
		x0 = sp.x;
		y0 = sp.y;
		need_min = sp.minhi;
	}
}

/*
 * Groups of changed lines, as in xdiff: a group is the run of changed lines
 * between two unchanged ones (possibly empty). Both sides have the same
 * number of unchanged lines, so groups correspond one to one.
 */
struct grp {
	long		 start;
	long		 end;
};

static void
grp_first(const struct side *s, struct grp *g)
{
	g->start = g->end = 0;
	while (s->chg[g->end])
		g->end++;
}

static int
grp_next(const struct side *s, struct grp *g)
{
	if (g->end >= s->n)
		return -1;
	g->start = g->end + 1;
	for (g->end = g->start; s->chg[g->end]; g->end++)
		;
	return 0;
}

static int
grp_prev(const struct side *s, struct grp *g)
{
	if (g->start == 0)
		return -1;
	g->end = g->start - 1;
	for (g->start = g->end; s->chg[g->start - 1]; g->start--)
		;
	return 0;
}

static int
grp_up(struct side *s, struct grp *g)
{
	if (g->start == 0 || s->cls[g->start - 1] != s->cls[g->end - 1])
		return -1;
	s->chg[--g->start] = 1;
	s->chg[--g->end] = 0;
	while (s->chg[g->start - 1])
		g->start--;
	return 0;
}

static int
grp_down(struct side *s, struct grp *g)
{
	if (g->end >= s->n || s->cls[g->start] != s->cls[g->end])
		return -1;
	s->chg[g->start++] = 0;
	s->chg[g->end++] = 1;
	while (s->chg[g->end])
		g->end++;
	return 0;
}

/*
 * Slide every group of s as far down as it goes (merging with groups it
 * meets), then back up to the lowest place where it faces a change in o,
 * if any. Sliding never changes the number of changed lines.
 */
static void
compact(struct side *s, struct side *o)
{
	struct grp g, go;
	long size, low, match;

	grp_first(s, &g);
	grp_first(o, &go);
	for (;;) {
		if (g.end != g.start) {
			do {
				size = g.end - g.start;
				while (grp_up(s, &g) == 0)
					grp_prev(o, &go);
				low = g.end;
				match = go.end > go.start ? g.end : -1;
				while (grp_down(s, &g) == 0) {
					grp_next(o, &go);
					if (go.end > go.start)
						match = g.end;
				}
			} while (size != g.end - g.start);
			if (g.end != low && match != -1)
				while (go.end == go.start) {
					grp_up(s, &g);
					grp_prev(o, &go);
				}
		}
		if (grp_next(s, &g) != 0)
			break;
		grp_next(o, &go);
	}
}

static long
script(const struct ctx *c, struct diff_change *ch)
{
	const struct side *s0 = &c->s[0], *s1 = &c->s[1];
	long i = 0, j = 0, n = 0, a, b;

	while (i < s0->n || j < s1->n) {
		if ((i < s0->n && s0->chg[i]) || (j < s1->n && s1->chg[j])) {
			a = i;
			b = j;
			while (i < s0->n && s0->chg[i])
				i++;
			while (j < s1->n && s1->chg[j])
				j++;
			if (ch != NULL) {
				ch[n].a = a;
				ch[n].na = i - a;
				ch[n].b = b;
				ch[n].nb = j - b;
			}
			n++;
		} else {
			i++;
			j++;
		}
	}
	return n;
}

int
diff_buf(const char *a, size_t alen, const char *b, size_t blen, int flags,
    diff_fn *fn, void *arg)
{
	struct diff_scratch *sc;
	int ret, serrno;

	if ((sc = diff_scratch_new()) == NULL)
		return -1;
	ret = diff_buf_in(sc, a, alen, b, blen, flags, fn, arg);
	serrno = errno;
	diff_scratch_free(sc);
	errno = serrno;
	return ret;
}

int
diff_buf_in(struct diff_scratch *sc, const char *a, size_t alen,
    const char *b, size_t blen, int flags, diff_fn *fn, void *arg)
{
	struct ctx c;
	struct diff_change *ch = NULL;
	long nch, nd;
	int ret = -1;

	memset(&c, 0, sizeof(c));
	c.sc = sc;
	c.flags = flags;
	if (split_lines(sc, 0, &c.s[0], a, alen) < 0 ||
	    split_lines(sc, 1, &c.s[1], b, blen) < 0 ||
	    classify(&c) < 0 || reduce(&c) < 0)
		goto out;
	if (c.s[0].nr > 0 && c.s[1].nr > 0) {
		nd = c.s[0].nr + c.s[1].nr + 3;
		if ((c.fv = grab(sc, SL_FV, nd, sizeof(long), 0)) == NULL ||
		    (c.bv = grab(sc, SL_BV, nd, sizeof(long), 0)) == NULL)
			goto out;
		c.maxcost = bogosqrt(nd);
		if (c.maxcost < COST_MIN)
			c.maxcost = COST_MIN;
		/* diagonals run from -nr1 to nr0; keep one spare each side */
		c.fv += c.s[1].nr + 1;
		c.bv += c.s[1].nr + 1;
		compare(&c, 0, c.s[0].nr, 0, c.s[1].nr, flags & DIFF_MINIMAL);
		c.fv -= c.s[1].nr + 1;
		c.bv -= c.s[1].nr + 1;
	} else {
		mark(&c.s[0], 0, c.s[0].nr);
		mark(&c.s[1], 0, c.s[1].nr);
	}
	compact(&c.s[0], &c.s[1]);
	compact(&c.s[1], &c.s[0]);
	nch = script(&c, NULL);
	if (nch > 0) {
		if ((ch = grab(sc, SL_CH, nch, sizeof(*ch), 0)) == NULL)
			goto out;
		script(&c, ch);
	}
	ret = fn(&c.s[0].t, &c.s[1].t, ch, nch, arg);
out:
	return ret;
}
