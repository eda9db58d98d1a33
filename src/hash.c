#include <errno.h>
#include <unistd.h>

#include <bearssl_rand.h>

#include "hash.h"

void
hash_init(struct hash_ctx *c)
{
	br_sha256_init(&c->sha);
}

void
hash_update(struct hash_ctx *c, const void *p, size_t n)
{
	br_sha256_update(&c->sha, p, n);
}

void
hash_final(struct hash_ctx *c, unsigned char out[HASH_LEN])
{
	br_sha256_out(&c->sha, out);
}

void
hash_buf(const void *p, size_t n, unsigned char out[HASH_LEN])
{
	struct hash_ctx c;

	hash_init(&c);
	hash_update(&c, p, n);
	hash_final(&c, out);
}

void
hash_hex(const unsigned char d[HASH_LEN], char out[HASH_HEXLEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	int i;

	for (i = 0; i < HASH_LEN; i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 15];
	}
	out[HASH_HEXLEN] = '\0';
}

int
hash_fd(int fd, unsigned char out[HASH_LEN])
{
	struct hash_ctx c;
	unsigned char buf[65536];
	off_t off = 0;
	ssize_t n;

	hash_init(&c);
	for (;;) {
		n = pread(fd, buf, sizeof buf, off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		hash_update(&c, buf, (size_t)n);
		off += n;
	}
	hash_final(&c, out);
	return 0;
}

int
hash_random(void *buf, size_t n)
{
	br_hmac_drbg_context drbg;
	br_prng_seeder seeder;

	seeder = br_prng_seeder_system(NULL);
	br_hmac_drbg_init(&drbg, &br_sha256_vtable, NULL, 0);
	if (seeder == 0 || !seeder(&drbg.vtable)) {
		errno = EIO;
		return -1;
	}
	br_hmac_drbg_generate(&drbg, buf, n);
	return 0;
}
