/*
 * utf8: text that a JSON document may carry. Paths and command output are
 * bytes; JSON strings are UTF-8.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "lib/mem.h"
#include "lib/utf8.h"

/* The length of the valid UTF-8 sequence at p (at most n bytes), or 0. */
static size_t
utf8_seq(const unsigned char *p, size_t n)
{
	size_t len, i;
	unsigned int c;

	if (p[0] < 0x80)
		return p[0] != 0;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, c = p[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return len;
}

char *
utf8_clean(const char *buf, size_t len, int lossy)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t i = 0, k, o = 0;
	char *out;

	if (len > (SIZE_MAX - 1) / 3) {
		errno = ENOMEM;
		return NULL;
	}
	if ((out = mem_alloc(lossy ? len * 3 + 1 : len + 1)) == NULL)
		return NULL;
	while (i < len) {
		if ((k = utf8_seq(p + i, len - i)) == 0) {
			if (!lossy) {
				mem_free(out);
				errno = EILSEQ;
				return NULL;
			}
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
			continue;
		}
		memcpy(out + o, p + i, k);
		o += k;
		i += k;
	}
	out[o] = '\0';
	return out;
}

void
utf8_one_line(char *out, size_t outlen, const char *in)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	unsigned char ch;

	for (; *in != '\0'; in++) {
		ch = (unsigned char)*in;
		if (ch >= 0x20 && ch != 0x7f) {
			if (o + 1 >= outlen)
				break;
			out[o++] = (char)ch;
			continue;
		}
		if (o + 4 >= outlen)
			break;
		out[o++] = '\\';
		out[o++] = 'x';
		out[o++] = hex[ch >> 4];
		out[o++] = hex[ch & 15];
	}
	out[o] = '\0';
}
