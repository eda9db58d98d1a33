/*
 * strlist: the growing vector of owned strings that policy.h declares
 * (struct strlist: v[0..n-1], each mem_alloc'd, v itself too).
 *
 * strlist_push appends s, which it takes over: on failure (ENOMEM) s is
 * freed and the list is as it was, so `strlist_push(l, mem_strdup(x))`
 * needs no cleanup of its own (a NULL s is ENOMEM from that strdup).
 * strlist_free frees every string and the vector, and leaves l empty; it
 * may be called again. strlist_has is 1 when one of l's strings is the
 * first len bytes of s (len: strlen(s) for the whole of it), else 0.
 */
#ifndef ARCTURN_STRLIST_H
#define ARCTURN_STRLIST_H

#include <stddef.h>

#include "policy/policy.h"

int	strlist_push(struct strlist *l, char *s);
void	strlist_free(struct strlist *l);
int	strlist_has(const struct strlist *l, const char *s, size_t len);

#endif
