/*
 * strlist: a vector of owned strings (strlist.h).
 */
#include <errno.h>
#include <string.h>

#include "lib/mem.h"
#include "policy/strlist.h"

int
strlist_push(struct strlist *l, char *s)
{
	char **v;

	if (s == NULL) {
		errno = ENOMEM;
		return -1;
	}
	if ((v = mem_reallocarray(l->v, l->n + 1, sizeof *v)) == NULL) {
		mem_free(s);
		errno = ENOMEM;
		return -1;
	}
	l->v = v;
	l->v[l->n++] = s;
	return 0;
}

void
strlist_free(struct strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		mem_free(l->v[i]);
	mem_free(l->v);
	l->v = NULL;
	l->n = 0;
}

int
strlist_has(const struct strlist *l, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strlen(l->v[i]) == len && strncmp(l->v[i], s, len) == 0)
			return 1;
	return 0;
}
