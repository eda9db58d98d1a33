/*
 * mem: the one allocation seam.
 *
 * Every allocation in arcturn (cJSON's included, through its hooks) goes
 * through these functions so that tests can make the Nth allocation fail
 * and check that the caller fails cleanly: an error, no leak, no stray file.
 *
 * mem_alloc/mem_realloc/mem_strdup/mem_strndup return NULL with errno ENOMEM
 * on failure (real or injected). mem_free(NULL) is a no-op. mem_realloc on
 * failure leaves the old block untouched, as realloc(3) does.
 *
 * On Linux, mem_free keeps up to 16 freed blocks of each size from 64
 * bytes to 1 MB (4 MB in all) and mem_alloc/mem_calloc hand them out
 * again: musl's allocator maps and unmaps its groups of blocks one by
 * one, and on a machine with several CPUs each unmap is a TLB shootdown;
 * a diff of 1,200 files spent three quarters of its time there (bench/
 * diff.sh). Kept blocks are never returned to the system. Not in builds
 * with AddressSanitizer, whose use-after-free checks need real frees.
 */
#ifndef ARCTURN_MEM_H
#define ARCTURN_MEM_H

#include <stddef.h>

void	*mem_alloc(size_t);
void	*mem_calloc(size_t, size_t);
void	*mem_realloc(void *, size_t);
void	*mem_reallocarray(void *, size_t, size_t);
char	*mem_strdup(const char *);
char	*mem_strndup(const char *, size_t);
void	 mem_free(void *);

/*
 * Fault injection: after mem_fail_after(n), the allocation n calls from now
 * fails (n = 0: the very next one), and every later one succeeds again.
 * mem_fail_after(-1) turns injection off. mem_failed() tells whether the
 * injected failure has happened since the last mem_fail_after().
 */
void	 mem_fail_after(long);
int	 mem_failed(void);

#endif
