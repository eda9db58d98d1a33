/*
 * sha256: SHA-256 (FIPS 180-4) with the x86 SHA extensions, for hash.c,
 * which uses it where sha256_accel says the CPU has them and BearSSL's
 * portable SHA-256 everywhere else.
 *
 * arcturn hashes whole files (the base of every captured change, every
 * apply's compare-and-swap, every checkpoint blob), so the block function
 * is what a large file costs: with the extensions it runs five to ten
 * times the speed of the portable code.
 *
 *	struct sha256 s;
 *	sha256_init(&s);
 *	sha256_update(&s, p, n);	(any number of times)
 *	sha256_final(&s, digest);	(32 bytes; s is spent)
 *
 * Only call these where sha256_accel(-1) is 1. No allocation, no errors.
 */
#ifndef ARCTURN_SHA256_H
#define ARCTURN_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN	32

struct sha256 {
	uint32_t	 h[8];
	uint64_t	 len;		/* bytes hashed */
	unsigned char	 buf[64];	/* a partial block: len % 64 bytes */
};

void	sha256_init(struct sha256 *);
void	sha256_update(struct sha256 *, const void *, size_t);
void	sha256_final(struct sha256 *, unsigned char [SHA256_LEN]);

/*
 * Whether the SHA extensions are to be used: 1, or 0 (the CPU lacks them,
 * or a test said 0), or -1 where this build has no such code. on -1 only
 * asks (the CPU is checked once); 0 turns them off and 1 on again where
 * the CPU has them, for tests that compare both.
 */
int	sha256_accel(int on);

#endif
