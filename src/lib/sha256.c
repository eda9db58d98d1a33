/*
 * sha256: SHA-256 (sha256.h).
 */
#include <string.h>

#include "lib/sha256.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_SHANI	1
#include <cpuid.h>
#include <immintrin.h>
#endif

#ifdef HAVE_SHANI
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b,
	0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
	0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7,
	0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
	0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152,
	0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
	0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
	0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
	0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};
#endif

#ifdef HAVE_SHANI
/*
 * n blocks of 64 bytes at p into h, with the SHA extensions. The state lives in two registers as
 * the instructions want it, ABEF and CDGH; each sha256rnds2 does two
 * rounds and swaps their roles, and the message schedule is four
 * registers of four words, rolled: sha256msg1 adds sigma0 of the next
 * word, the alignr the word seven back, sha256msg2 sigma1 of the last.
 */
__attribute__((target("sha,sse4.1,ssse3")))
static void
blocks_shani(uint32_t h[8], const unsigned char *p, size_t n)
{
	const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL,
	    0x0405060700010203ULL);
	__m128i abef, cdgh, abef0, cdgh0, m[4], wk, t;
	int j;

	t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]),
	    0xb1);					/* C D A B */
	cdgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]),
	    0x1b);					/* E F G H */
	abef = _mm_alignr_epi8(t, cdgh, 8);		/* A B E F */
	cdgh = _mm_blend_epi16(cdgh, t, 0xf0);		/* C D G H */
	for (; n > 0; n--, p += 64) {
		abef0 = abef;
		cdgh0 = cdgh;
		for (j = 0; j < 16; j++) {
			if (j < 4)
				m[j] = _mm_shuffle_epi8(_mm_loadu_si128(
				    (const __m128i *)(p + 16 * j)), swap);
			else
				m[j & 3] = _mm_sha256msg2_epu32(_mm_add_epi32(
				    _mm_sha256msg1_epu32(m[j & 3],
				    m[(j + 1) & 3]), _mm_alignr_epi8(
				    m[(j + 3) & 3], m[(j + 2) & 3], 4)),
				    m[(j + 3) & 3]);
			wk = _mm_add_epi32(m[j & 3], _mm_loadu_si128(
			    (const __m128i *)&K[4 * j]));
			cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
			abef = _mm_sha256rnds2_epu32(abef, cdgh,
			    _mm_shuffle_epi32(wk, 0x0e));
		}
		abef = _mm_add_epi32(abef, abef0);
		cdgh = _mm_add_epi32(cdgh, cdgh0);
	}
	t = _mm_shuffle_epi32(abef, 0x1b);		/* F E B A */
	cdgh = _mm_shuffle_epi32(cdgh, 0xb1);		/* D C H G */
	_mm_storeu_si128((__m128i *)&h[0], _mm_blend_epi16(t, cdgh, 0xf0));
	_mm_storeu_si128((__m128i *)&h[4], _mm_alignr_epi8(cdgh, t, 8));
}

/* -1: not asked yet; 0 or 1: whether blocks_shani is used. */
static int use_shani = -1;

static int
cpu_has_shani(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) ||
	    !(c & bit_SSSE3) || !(c & bit_SSE4_1))
		return 0;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	return (b & bit_SHA) != 0;
}
#endif

static void
blocks(uint32_t h[8], const unsigned char *p, size_t n)
{
#ifdef HAVE_SHANI
	blocks_shani(h, p, n);
#else
	(void)h;
	(void)p;
	(void)n;
#endif
}

int
sha256_accel(int on)
{
#ifdef HAVE_SHANI
	int use = __atomic_load_n(&use_shani, __ATOMIC_RELAXED);

	/* threads may ask at once (keep.h): they find the same answer */
	if (on == 0 || on == 1 || use < 0) {
		use = on == 0 ? 0 : cpu_has_shani();
		__atomic_store_n(&use_shani, use, __ATOMIC_RELAXED);
	}
	return use;
#else
	(void)on;
	return -1;
#endif
}

void
sha256_init(struct sha256 *s)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
	};

	memcpy(s->h, iv, sizeof s->h);
	s->len = 0;
}

void
sha256_update(struct sha256 *s, const void *data, size_t n)
{
	const unsigned char *p = data;
	size_t have = (size_t)(s->len % 64), take;

	s->len += n;
	if (have > 0) {
		take = 64 - have < n ? 64 - have : n;
		memcpy(s->buf + have, p, take);
		p += take;
		n -= take;
		if (have + take < 64)
			return;
		blocks(s->h, s->buf, 1);
	}
	if (n >= 64) {
		blocks(s->h, p, n / 64);
		p += n / 64 * 64;
		n %= 64;
	}
	memcpy(s->buf, p, n);
}

void
sha256_final(struct sha256 *s, unsigned char out[SHA256_LEN])
{
	size_t have = (size_t)(s->len % 64);
	uint64_t bits = s->len * 8;
	int i;

	s->buf[have++] = 0x80;
	if (have > 56) {
		memset(s->buf + have, 0, 64 - have);
		blocks(s->h, s->buf, 1);
		have = 0;
	}
	memset(s->buf + have, 0, 56 - have);
	for (i = 0; i < 8; i++)
		s->buf[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	blocks(s->h, s->buf, 1);
	for (i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(s->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)s->h[i];
	}
}
