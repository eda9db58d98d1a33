/*
 * edit: the text replacement of `arcturn edit` and MCP edit_file, so that
 * both find, count and refuse alike. It works on bytes in memory; the
 * front ends read the file and write the result (wsview.h), each with
 * its own compare-and-swap over the bytes it read.
 *
 * Each edit replaces old (olen bytes, not empty; NUL is a byte like any
 * other) with new in the text the edits before it made: it must occur
 * exactly once, or, with all, at least once (every occurrence replaced).
 * Occurrences are counted without overlaps, left to right: "aa" occurs
 * once in "aaa".
 *
 *	struct edit ed = { old, strlen(old), new, strlen(new), 0 };
 *	struct edit_result r;
 *
 *	if (edit_apply(buf, len, &ed, 1, &out, &outlen, &r) < 0)
 *		r.why == EDIT_ERRNO ? strerror(errno) : edit_reason(&r, ...)
 *
 * edit_apply returns 0 with *out (NUL-terminated after outlen bytes;
 * mem_free it) and r->count the replacements made in all; or -1 with r
 * saying which edit failed (index, from 0) and why: EDIT_NOT_FOUND,
 * EDIT_MANY (count: how many times it occurs), EDIT_EMPTY (old is
 * empty), or EDIT_ERRNO with errno (ENOMEM; EOVERFLOW when the result
 * would not fit a size_t). Nothing is allocated then.
 */
#ifndef ARCTURN_EDIT_H
#define ARCTURN_EDIT_H

#include <stddef.h>

struct edit {
	const char	*old;
	size_t		 olen;
	const char	*new;
	size_t		 nlen;
	int		 all;		/* every occurrence, not exactly one */
};

enum edit_why { EDIT_OK, EDIT_NOT_FOUND, EDIT_MANY, EDIT_EMPTY, EDIT_ERRNO };

struct edit_result {
	enum edit_why	 why;
	size_t		 index;		/* the edit that failed */
	size_t		 count;		/* replacements made; EDIT_MANY: the
					   occurrences found */
};

int	edit_apply(const char *buf, size_t len, const struct edit *, size_t n,
	    char **out, size_t *outlen, struct edit_result *);

/*
 * Count the occurrences of pat (plen > 0 bytes) in buf, as edit_apply
 * counts them.
 */
size_t	edit_count(const char *buf, size_t len, const char *pat, size_t plen);

/*
 * The words for r's failure into buf: "old text not found", "old text
 * found 3 times", "old text is empty" (EDIT_ERRNO: strerror(errno)).
 * Returns buf.
 */
const char *edit_reason(const struct edit_result *, char *buf, size_t size);

#endif
