#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* not under a sanitizer: a kept block would hide a use after free */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEM_SANITIZED
#endif
#endif
#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(MEM_SANITIZED)
#include <malloc.h>
#include <pthread.h>
#define MEM_KEEP
#endif

#include "lib/mem.h"

#ifdef MEM_KEEP
#define KEEP_MINLOG	6	/* 64 bytes */
#define KEEP_MAXLOG	20	/* 1 MB */
#define KEEP_PER	16	/* blocks kept per size */
#define MEM_KEEP_BYTES	(4 * 1024 * 1024)

/*
 * Kept blocks by size: bin k holds blocks whose usable size is at least
 * 2^k and less than 2^(k+1), so any block of bin ceil(log2 n) fits n.
 */
static struct {
	pthread_mutex_t	 lock;
	void		*p[KEEP_MAXLOG + 1][KEEP_PER];
	int		 n[KEEP_MAXLOG + 1];
	size_t		 bytes;
} keep = { PTHREAD_MUTEX_INITIALIZER, { { 0 } }, { 0 }, 0 };

static int
log2_floor(size_t n)
{
	int k = 0;

	while (n >>= 1)
		k++;
	return k;
}

/* A kept block of at least n bytes, or NULL. */
static void *
keep_take(size_t n)
{
	void *p = NULL;
	int k;

	if (n < (size_t)1 << KEEP_MINLOG || n > (size_t)1 << KEEP_MAXLOG)
		return NULL;
	k = log2_floor(n - 1) + 1;	/* ceil(log2 n) */
	pthread_mutex_lock(&keep.lock);
	if (k <= KEEP_MAXLOG && keep.n[k] > 0) {
		p = keep.p[k][--keep.n[k]];
		keep.bytes -= malloc_usable_size(p);
	}
	pthread_mutex_unlock(&keep.lock);
	return p;
}

/* 1 when p is kept (not freed). */
static int
keep_put(void *p)
{
	size_t n = malloc_usable_size(p);
	int k, kept = 0;

	if (n < (size_t)1 << KEEP_MINLOG || n >= (size_t)2 << KEEP_MAXLOG)
		return 0;
	k = log2_floor(n);
	pthread_mutex_lock(&keep.lock);
	if (keep.n[k] < KEEP_PER && keep.bytes + n <= MEM_KEEP_BYTES) {
		keep.p[k][keep.n[k]++] = p;
		keep.bytes += n;
		kept = 1;
	}
	pthread_mutex_unlock(&keep.lock);
	return kept;
}
#else
#define keep_take(n)	NULL
#define keep_put(p)	0
#endif

/*
 * Allocations come from several threads at once (apply, session removal):
 * the countdown is atomic, so exactly one allocation fails. Any negative
 * value is off.
 */
static long fail_countdown = -1;
static int fail_happened;

static int
inject(void)
{
	if (__atomic_load_n(&fail_countdown, __ATOMIC_RELAXED) < 0 ||
	    __atomic_fetch_sub(&fail_countdown, 1, __ATOMIC_RELAXED) != 0)
		return 0;
	__atomic_store_n(&fail_happened, 1, __ATOMIC_RELAXED);
	errno = ENOMEM;
	return 1;
}

void
mem_fail_after(long n)
{
	__atomic_store_n(&fail_happened, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fail_countdown, n, __ATOMIC_RELAXED);
}

int
mem_failed(void)
{
	return __atomic_load_n(&fail_happened, __ATOMIC_RELAXED);
}

void *
mem_alloc(size_t n)
{
	void *p;

	if (inject())
		return NULL;
	if ((p = keep_take(n)) != NULL)
		return p;
	return malloc(n ? n : 1);
}

void *
mem_calloc(size_t n, size_t sz)
{
	void *p;

	if (inject())
		return NULL;
	if (sz != 0 && n <= SIZE_MAX / sz && (p = keep_take(n * sz)) != NULL)
		return memset(p, 0, n * sz);
	return calloc(n ? n : 1, sz ? sz : 1);
}

void *
mem_realloc(void *p, size_t n)
{
	void *q;

	if (inject())
		return NULL;
	if (p == NULL && (q = keep_take(n)) != NULL)
		return q;
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

	if (p != NULL && !keep_put(p))
		free(p);
	errno = saved;
}
