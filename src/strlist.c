/*
 * strlist: a vector of owned strings (strlist.h).
 */
#include <errno.h>

#include "mem.h"
#include "strlist.h"

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
