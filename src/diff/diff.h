/*
 * diff: a line diff engine. Two buffers in, one list of changes out through
 * a callback, in the manner of git's xdiff.
 *
 * Lines end after each '\n'; the last line may lack one (then it differs
 * from the same text with a newline, as in git). Lines are compared as raw
 * bytes: a CR before the newline is part of the line.
 *
 * The method: split both buffers into lines, hash lines into equivalence
 * classes, trim the common prefix and suffix, set aside lines that occur on
 * one side only (they are certainly changed, as are runs of very frequent
 * lines inside such runs), run Myers' O(ND) algorithm in linear space
 * (divide and conquer on the middle snake) on what is left, then slide each
 * group of changed lines down as far as it goes, or to where it lines up
 * with a change on the other side, as git does. Unless DIFF_MINIMAL is
 * given, a search that grows past a cost budget settles for the furthest
 * reaching split found so far, so huge inputs with little in common cost
 * about O(N * sqrt(N)) at worst, not O(N * D).
 *
 * Memory: O(N + M) words, all through mem.h; nothing is kept after
 * diff_buf returns. diff_buf_in keeps its arrays in the caller's
 * scratch instead, grown to the largest input so far, so that a caller
 * diffing many files in a row (a review of 20,000 changes) allocates and
 * faults its memory in once, not per file. The callback sees views into
 * the caller's buffers (and, for the change list, into the scratch).
 */
#ifndef ARCTURN_DIFF_H
#define ARCTURN_DIFF_H

#include <stddef.h>

/* One side as the engine split it: line i is data[off[i]] .. data[off[i+1]]. */
struct diff_text {
	const char	*data;
	size_t		 len;
	long		 nlines;
	const size_t	*off;		/* nlines + 1 offsets */
	int		 noeol;		/* last line lacks its newline */
};

/*
 * Lines a .. a+na-1 of the old text are replaced by lines b .. b+nb-1 of
 * the new text (0-based; na or nb may be 0). Changes come in increasing
 * order and never touch: between two changes there is at least one common
 * line.
 */
struct diff_change {
	long		 a;
	long		 na;
	long		 b;
	long		 nb;
};

#define DIFF_MINIMAL	0x1	/* no cost cap, no frequent-line discarding */

/*
 * Receives the whole change list once (nch may be 0 when the texts are
 * equal). Returns 0, or -1 with errno set to make diff_buf fail with it.
 */
typedef int diff_fn(const struct diff_text *old, const struct diff_text *new,
    const struct diff_change *ch, long nch, void *arg);

/*
 * Diff a (alen bytes) against b (blen bytes) and call fn once with the
 * result. Returns what fn returned, or -1 with errno ENOMEM (fn is then
 * not called). Either buffer may be NULL when its length is 0.
 */
int	diff_buf(const char *a, size_t alen, const char *b, size_t blen,
	    int flags, diff_fn *fn, void *arg);

/*
 * The scratch diff_buf_in reuses: diff_scratch_new (NULL with ENOMEM),
 * diff_scratch_free (NULL: nothing). One caller at a time.
 */
struct diff_scratch;
struct diff_scratch *diff_scratch_new(void);
void	diff_scratch_free(struct diff_scratch *);

/* diff_buf with its arrays kept in sc between calls. */
int	diff_buf_in(struct diff_scratch *sc, const char *a, size_t alen,
	    const char *b, size_t blen, int flags, diff_fn *fn, void *arg);

/* Line i of t and its length (newline included when present). */
const char	*diff_line(const struct diff_text *t, long i, size_t *len);

#endif
