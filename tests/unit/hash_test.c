/*
 * hash_test: SHA-256 through hash.h, on both of its paths (the x86 SHA
 * extensions of sha256.c where this CPU has them, BearSSL's portable code
 * otherwise): the FIPS 180-4 examples, then every length from 0 to 1,100
 * bytes and random splits of a larger buffer, one path against the other.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "lib/hash.h"
#include "tap.h"

static void
hex_of(const void *p, size_t n, char out[HASH_HEXLEN + 1])
{
	unsigned char d[HASH_LEN];

	hash_buf(p, n, d);
	hash_hex(d, out);
}

/* The examples of FIPS 180-4 (and its million-"a" message). */
static void
vectors(void)
{
	static char million[1000000];
	char hex[HASH_HEXLEN + 1];
	struct hash_ctx c;
	unsigned char d[HASH_LEN];
	size_t i;

	hex_of("", 0, hex);
	CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb924"
	    "27ae41e4649b934ca495991b7852b855");
	hex_of("abc", 3, hex);
	CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223"
	    "b00361a396177a9cb410ff61f20015ad");
	hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	    56, hex);
	CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039"
	    "a33ce45964ff2167f6ecedd419db06c1");
	memset(million, 'a', sizeof million);
	hex_of(million, sizeof million, hex);
	CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67"
	    "f1809a48a497200e046d39ccc7112cd0");
	/* the same in pieces of 1, 63, 64 and 65 bytes */
	hash_init(&c);
	for (i = 0; i < sizeof million;) {
		static const size_t step[] = { 1, 63, 64, 65 };
		size_t n = step[i % 4];

		if (n > sizeof million - i)
			n = sizeof million - i;
		hash_update(&c, million + i, n);
		i += n;
	}
	hash_final(&c, d);
	hash_hex(d, hex);
	CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67"
	    "f1809a48a497200e046d39ccc7112cd0");
}

static void
t_portable(void)
{
	CHECK(sha256_accel(0) <= 0);
	vectors();
}

static void
t_accel(void)
{
	int a = sha256_accel(1);

	if (a == -1)
		SKIP("this build has no SHA-extension code (not x86_64)");
	if (a == 0)
		SKIP("this CPU has no SHA extensions (cpuid leaf 7, ebx bit 29)");
	vectors();
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t
next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

/* The digest of p[0..n-1] fed in random pieces, on path accel. */
static void
split_hash(int accel, const unsigned char *p, size_t n, uint32_t seed,
    unsigned char d[HASH_LEN])
{
	struct hash_ctx c;
	size_t i, k;

	sha256_accel(accel);
	rng = seed | 1;
	hash_init(&c);
	for (i = 0; i < n; i += k) {
		k = next() % 300;
		if (k > n - i)
			k = n - i;
		hash_update(&c, p + i, k);
	}
	hash_final(&c, d);
}

static void
t_paths_agree(void)
{
	static unsigned char buf[70000];
	unsigned char a[HASH_LEN], b[HASH_LEN];
	size_t n;
	uint32_t s;

	if (sha256_accel(1) != 1)
		SKIP("no SHA extensions here: there is one path only");
	for (n = 0; n < sizeof buf; n++)
		buf[n] = (unsigned char)next();
	for (n = 0; n <= 1100; n++) {
		sha256_accel(0);
		hash_buf(buf, n, a);
		sha256_accel(1);
		hash_buf(buf, n, b);
		CHECK(memcmp(a, b, HASH_LEN) == 0);
	}
	for (s = 1; s <= 40; s++) {
		split_hash(0, buf, sizeof buf - s * 17, s, a);
		split_hash(1, buf, sizeof buf - s * 17, s, b);
		CHECK(memcmp(a, b, HASH_LEN) == 0);
	}
}

/* hash_fd reads from offset 0 whatever the file offset, and leaves it. */
static void
t_fd(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 8], hex[HASH_HEXLEN + 1];
	unsigned char d[HASH_LEN];
	int fd;

	fx_tmpdir(dir, "hash");
	snprintf(path, sizeof path, "%s/f", dir);
	CHECK((fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600)) >= 0);
	CHECK(write(fd, "abc", 3) == 3);
	CHECK(hash_fd(fd, d) == 0);
	hash_hex(d, hex);
	CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223"
	    "b00361a396177a9cb410ff61f20015ad");
	CHECK(lseek(fd, 0, SEEK_CUR) == 3);
	close(fd);
	fx_rm_rf(dir);
}

/*
 * A sparse file (holes hashed without being read) gives the digest of
 * the bytes it reads as: hole, data, hole, data at the end, a hole at
 * the end; the file offset stays where it was.
 */
static void
t_sparse(void)
{
	static unsigned char img[3 << 20];
	char dir[PATH_MAX], path[PATH_MAX + 8];
	unsigned char a[HASH_LEN], b[HASH_LEN];
	struct stat st;
	int fd, tail;

	fx_tmpdir(dir, "hash");
	for (tail = 0; tail < 2; tail++) {
		snprintf(path, sizeof path, "%s/s%d", dir, tail);
		CHECK((fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600)) >= 0);
		memset(img, 0, sizeof img);
		memcpy(img + (1 << 20) + 5, "middle", 6);
		CHECK(pwrite(fd, "middle", 6, (1 << 20) + 5) == 6);
		if (tail) {
			memcpy(img + sizeof img - 3, "end", 3);
			CHECK(pwrite(fd, "end", 3, sizeof img - 3) == 3);
		} else
			CHECK(ftruncate(fd, sizeof img) == 0);
		CHECK(fstat(fd, &st) == 0 && st.st_size == sizeof img);
		if (st.st_blocks * 512 >= st.st_size)
			SKIP("this file system stores no holes");
		CHECK(lseek(fd, 7, SEEK_SET) == 7);
		CHECK(hash_fd(fd, a) == 0);
		CHECK(lseek(fd, 0, SEEK_CUR) == 7);
		hash_buf(img, sizeof img, b);
		CHECK(memcmp(a, b, HASH_LEN) == 0);
		close(fd);
	}
	fx_rm_rf(dir);
}

int
main(void)
{
	TEST(t_portable);
	TEST(t_accel);
	TEST(t_paths_agree);
	TEST(t_fd);
	TEST(t_sparse);
	return tap_done();
}
