#include <sys/stat.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <bearssl_rand.h>

#include "lib/hash.h"

void
hash_init(struct hash_ctx *c)
{
	c->accel = sha256_accel(-1) == 1;
	if (c->accel)
		sha256_init(&c->u.ni);
	else
		br_sha256_init(&c->u.br);
}

void
hash_update(struct hash_ctx *c, const void *p, size_t n)
{
	if (c->accel)
		sha256_update(&c->u.ni, p, n);
	else
		br_sha256_update(&c->u.br, p, n);
}

void
hash_final(struct hash_ctx *c, unsigned char out[HASH_LEN])
{
	if (c->accel)
		sha256_final(&c->u.ni, out);
	else
		br_sha256_out(&c->u.br, out);
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

static int
nibble(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ?
	    c - 'a' + 10 : -1;
}

int
hash_unhex(const char *hex, unsigned char d[HASH_LEN])
{
	int i, hi, lo;

	if (strlen(hex) != HASH_HEXLEN) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < HASH_LEN; i++) {
		if ((hi = nibble(hex[2 * i])) < 0 ||
		    (lo = nibble(hex[2 * i + 1])) < 0) {
			errno = EINVAL;
			return -1;
		}
		d[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

/* Hash len zero bytes: a hole, known without reading it. */
static void
hash_zeros(struct hash_ctx *c, off_t len)
{
	/* small: it is .rodata in the binary */
	static const unsigned char zero[1024];
	size_t k;

	for (; len > 0; len -= (off_t)k) {
		k = len < (off_t)sizeof zero ? (size_t)len : sizeof zero;
		hash_update(c, zero, k);
	}
}

/* Hash what pread gives from off up to end (-1: to EOF); *off moves on. */
static int
hash_range(struct hash_ctx *c, int fd, off_t *off, off_t end)
{
	unsigned char buf[65536];
	size_t want;
	ssize_t n;

	for (;;) {
		want = end < 0 || end - *off > (off_t)sizeof buf ? sizeof buf :
		    (size_t)(end - *off);
		if (want == 0)
			return 0;
		n = pread(fd, buf, want, *off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			return 0;
		hash_update(c, buf, (size_t)n);
		*off += n;
	}
}

int
hash_fd_is(int fd, const unsigned char want[HASH_LEN])
{
	unsigned char got[HASH_LEN];

	if (hash_fd(fd, got) < 0)
		return -1;
	return memcmp(got, want, HASH_LEN) == 0;
}

int
hash_fd(int fd, unsigned char out[HASH_LEN])
{
	struct hash_ctx c;
	struct stat st;
	off_t off = 0, cur, data, hole;

	hash_init(&c);
	/*
	 * A sparse file's holes are hashed as the zeros they read as,
	 * without reading them (SEEK_DATA); the file offset is put back.
	 */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_blocks * 512 < st.st_size &&
	    (cur = lseek(fd, 0, SEEK_CUR)) >= 0) {
		while (off < st.st_size) {
			if ((data = lseek(fd, off, SEEK_DATA)) < 0) {
				if (errno != ENXIO)
					break;	/* no SEEK_DATA: read */
				data = st.st_size;
			}
			if (data > st.st_size)
				data = st.st_size;
			hash_zeros(&c, data - off);
			off = data;
			if (off >= st.st_size)
				break;
			if ((hole = lseek(fd, off, SEEK_HOLE)) < 0 ||
			    hole > st.st_size)
				hole = st.st_size;
			if (hash_range(&c, fd, &off, hole) < 0) {
				(void)lseek(fd, cur, SEEK_SET);
				return -1;
			}
			if (off < hole)
				break;		/* shorter than it was */
		}
		(void)lseek(fd, cur, SEEK_SET);
	}
	/* the rest (all of a dense file), up to EOF */
	if (hash_range(&c, fd, &off, -1) < 0)
		return -1;
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
