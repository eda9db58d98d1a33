#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"

static long fail_countdown = -1;
static int fail_happened;

static int
inject(void)
{
	if (fail_countdown < 0)
		return 0;
	if (fail_countdown-- == 0) {
		fail_happened = 1;
		errno = ENOMEM;
		return 1;
	}
	return 0;
}

void
mem_fail_after(long n)
{
	fail_countdown = n;
	fail_happened = 0;
}

int
mem_failed(void)
{
	return fail_happened;
}

void *
mem_alloc(size_t n)
{
	if (inject())
		return NULL;
	return malloc(n ? n : 1);
}

void *
mem_calloc(size_t n, size_t sz)
{
	if (inject())
		return NULL;
	return calloc(n ? n : 1, sz ? sz : 1);
}

void *
mem_realloc(void *p, size_t n)
{
	if (inject())
		return NULL;
	return realloc(p, n ? n : 1);
}

void *
mem_reallocarray(void *p, size_t n, size_t sz)
{
	if (sz != 0 && n > SIZE_MAX / sz) {
		errno = ENOMEM;
		return NULL;
	}
	return mem_realloc(p, n * sz);
}

char *
mem_strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = mem_alloc(len + 1);

	if (d == NULL)
		return NULL;
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

char *
mem_strdup(const char *s)
{
	return mem_strndup(s, SIZE_MAX);
}

void
mem_free(void *p)
{
	int saved = errno;

	free(p);
	errno = saved;
}
