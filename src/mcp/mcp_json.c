/*
 * mcp_json: the decoded length of every string of a parsed message
 * (mcp_json.h).
 */
#include <errno.h>
#include <string.h>

#include "lib/mem.h"
#include "mcp/mcp_json.h"

struct lens {
	size_t	*v;
	size_t	 n, size, next;
};

static int
hex4(const char *p, const char *end, unsigned long *cp)
{
	unsigned long v = 0;
	int i, c;

	if (end - p < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		c = (unsigned char)p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned long)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned long)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned long)(c - 'A' + 10);
		else
			return -1;
	}
	*cp = v;
	return 0;
}

static int
push(struct lens *l, size_t n)
{
	size_t *q, sz;

	if (l->n == l->size) {
		sz = l->size ? l->size * 2 : 64;
		if ((q = mem_realloc(l->v, sz * sizeof *q)) == NULL)
			return -1;
		l->v = q;
		l->size = sz;
	}
	l->v[l->n++] = n;
	return 0;
}

/* The decoded lengths of the string tokens of text, as cJSON decodes. */
static int
scan(struct lens *l, const char *p, const char *end)
{
	unsigned long cp, lo;
	size_t n;

	while (p < end) {
		if (*p++ != '"')
			continue;
		for (n = 0; p < end && *p != '"'; n++) {
			if (*p != '\\') {
				p++;
				continue;
			}
			if (end - p < 2)
				return -1;
			if (p[1] != 'u') {
				p += 2;
				continue;
			}
			if (hex4(p + 2, end, &cp) < 0)
				return -1;
			p += 6;
			if (cp >= 0xd800 && cp <= 0xdbff && end - p >= 6 &&
			    p[0] == '\\' && p[1] == 'u' &&
			    hex4(p + 2, end, &lo) == 0 &&
			    lo >= 0xdc00 && lo <= 0xdfff) {
				p += 6;
				n += 3;		/* 4 bytes in all */
			} else if (cp >= 0x800)
				n += 2;
			else if (cp >= 0x80)
				n += 1;
		}
		if (p == end || push(l, n) < 0)
			return -1;
		p++;
	}
	return 0;
}

static int
walk(cJSON *item, int member, struct lens *l)
{
	cJSON *e;

	if (member) {
		if (l->next == l->n || item->string == NULL ||
		    strlen(item->string) != l->v[l->next++])
			return -1;
	}
	if (cJSON_IsString(item)) {
		if (l->next == l->n || item->valuestring == NULL)
			return -1;
		item->valuedouble = (double)l->v[l->next++];
	} else if (cJSON_IsArray(item) || cJSON_IsObject(item)) {
		cJSON_ArrayForEach(e, item)
			if (walk(e, cJSON_IsObject(item), l) < 0)
				return -1;
	}
	return 0;
}

int
mcp_json_lengths(cJSON *doc, const char *text, size_t len)
{
	struct lens l = { NULL, 0, 0, 0 };
	int rc;

	errno = 0;
	if (scan(&l, text, text + len) < 0) {
		rc = errno == ENOMEM ? ENOMEM : EINVAL;
		mem_free(l.v);
		errno = rc;
		return -1;
	}
	rc = walk(doc, 0, &l) < 0 || l.next != l.n ? -1 : 0;
	mem_free(l.v);
	if (rc < 0)
		errno = EINVAL;
	return rc;
}

size_t
mcp_json_strlen(const cJSON *s)
{
	if (!cJSON_IsString(s) || s->valuestring == NULL)
		return 0;
	if (s->valuedouble > 0)
		return (size_t)s->valuedouble;
	return strlen(s->valuestring);
}
