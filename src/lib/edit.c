/*
 * edit: text replacement for `arcturn edit` and MCP edit_file (edit.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/edit.h"
#include "lib/mem.h"

size_t
edit_count(const char *buf, size_t len, const char *pat, size_t plen)
{
	const char *p = buf, *end = buf + len, *hit;
	size_t n = 0;

	if (plen == 0)
		return 0;
	while ((size_t)(end - p) >= plen &&
	    (hit = memmem(p, (size_t)(end - p), pat, plen)) != NULL) {
		n++;
		p = hit + plen;
	}
	return n;
}

/* buf with the first n occurrences of e->old replaced: *out, *outlen. */
static int
replace(const char *buf, size_t len, const struct edit *e, size_t n,
    char **out, size_t *outlen)
{
	const char *p = buf, *end = buf + len, *hit;
	size_t total;
	char *q;

	if (e->nlen > e->olen && n > (SIZE_MAX - 1 - len) /
	    (e->nlen - e->olen)) {
		errno = EOVERFLOW;
		return -1;
	}
	total = len - n * e->olen + n * e->nlen;
	if ((*out = q = mem_alloc(total + 1)) == NULL)
		return -1;
	while (n-- > 0 && (hit = memmem(p, (size_t)(end - p), e->old,
	    e->olen)) != NULL) {
		memcpy(q, p, (size_t)(hit - p));
		q += hit - p;
		memcpy(q, e->new, e->nlen);
		q += e->nlen;
		p = hit + e->olen;
	}
	memcpy(q, p, (size_t)(end - p));
	q += end - p;
	*q = '\0';
	*outlen = (size_t)(q - *out);
	return 0;
}

int
edit_apply(const char *buf, size_t len, const struct edit *ed, size_t n,
    char **out, size_t *outlen, struct edit_result *f)
{
	const char *cur = buf;
	char *next = NULL;
	size_t k, count, curlen = len, nextlen = 0, made = 0;
	int save;

	memset(f, 0, sizeof *f);
	*out = NULL;
	for (k = 0; k < n; k++) {
		f->index = k;
		count = edit_count(cur, curlen, ed[k].old, ed[k].olen);
		if (ed[k].olen == 0)
			f->why = EDIT_EMPTY;
		else if (count == 0)
			f->why = EDIT_NOT_FOUND;
		else if (count > 1 && !ed[k].all) {
			f->why = EDIT_MANY;
			f->count = count;
		} else if (replace(cur, curlen, &ed[k], count, &next,
		    &nextlen) < 0)
			f->why = EDIT_ERRNO;
		if (f->why != EDIT_OK) {
			save = errno;
			if (cur != buf)
				mem_free((char *)cur);
			errno = save;
			return -1;
		}
		if (cur != buf)
			mem_free((char *)cur);
		cur = next;
		curlen = nextlen;
		made += count;
	}
	/* no edit at all: the text as it was, a copy of its own */
	if (cur == buf) {
		if ((next = mem_alloc(len + 1)) == NULL) {
			f->why = EDIT_ERRNO;
			return -1;
		}
		memcpy(next, buf, len);
		next[len] = '\0';
		cur = next;
	}
	*out = (char *)cur;
	*outlen = curlen;
	f->count = made;
	return 0;
}

const char *
edit_reason(const struct edit_result *f, char *buf, size_t size)
{
	switch (f->why) {
	case EDIT_NOT_FOUND:
		snprintf(buf, size, "old text not found");
		break;
	case EDIT_MANY:
		snprintf(buf, size, "old text found %zu times", f->count);
		break;
	case EDIT_EMPTY:
		snprintf(buf, size, "old text is empty");
		break;
	default:
		snprintf(buf, size, "%s", strerror(errno));
		break;
	}
	return buf;
}
