/*
 * hash: SHA-256 and randomness, both from BearSSL; on x86_64 CPUs with
 * the SHA extensions, SHA-256 from sha256.h (the same function, five to
 * ten times the speed on large files).
 *
 * The context is caller-owned (no allocation): hash_init, any number of
 * hash_update calls, hash_final. Digests are 32 bytes; hash_hex writes 64
 * lower-case hex digits and a NUL.
 */
#ifndef ARCTURN_HASH_H
#define ARCTURN_HASH_H

#include <stddef.h>

#include <bearssl_hash.h>

#include "lib/sha256.h"

#define HASH_LEN	32
#define HASH_HEXLEN	64

struct hash_ctx {
	int			 accel;	/* sha256.h's, else BearSSL's */
	union {
		br_sha256_context br;
		struct sha256	 ni;
	} u;
};

void	hash_init(struct hash_ctx *);
void	hash_update(struct hash_ctx *, const void *, size_t);
void	hash_final(struct hash_ctx *, unsigned char [HASH_LEN]);
void	hash_buf(const void *, size_t, unsigned char [HASH_LEN]);
void	hash_hex(const unsigned char [HASH_LEN], char [HASH_HEXLEN + 1]);
/* The digest hash_hex wrote (64 lower-case hex digits, nothing else): 0,
 * or -1 with EINVAL. */
int	hash_unhex(const char *hex, unsigned char [HASH_LEN]);

/*
 * Hash everything readable from fd, from offset 0 (pread: the file offset
 * is not moved). Returns 0, or -1 with errno from the read.
 */
int	hash_fd(int, unsigned char [HASH_LEN]);
/* Does fd hold (as hash_fd reads it) content whose hash is want? 1 yes,
 * 0 no, -1 with errno from the read. */
int	hash_fd_is(int, const unsigned char want[HASH_LEN]);

/*
 * Fill buf with n bytes from a CSPRNG (BearSSL HMAC-DRBG seeded by the
 * system's entropy source). Returns 0, or -1 with errno EIO when no seed
 * could be had.
 */
int	hash_random(void *, size_t);

#endif
