/*
 * cmd_json: the builders the --json documents share (cmd_json.h).
 */
#include <errno.h>
#include <stdint.h>

#include "cli/cmd_json.h"
#include "lib/mem.h"

int
cmdjson_str(cJSON *o, const char *key, const char *s)
{
	if (s != NULL)
		return cJSON_AddStringToObject(o, key, s) != NULL ? 0 : -1;
	return cJSON_AddNullToObject(o, key) != NULL ? 0 : -1;
}

int
cmdjson_num(cJSON *o, const char *key, double n, int absent)
{
	if (!absent)
		return cJSON_AddNumberToObject(o, key, n) != NULL ? 0 : -1;
	return cJSON_AddNullToObject(o, key) != NULL ? 0 : -1;
}

char *
cmdjson_base64(const void *buf, size_t len)
{
	static const char abc[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = buf;
	char *out, *q;
	uint32_t v;
	size_t i;

	if (len / 3 >= (SIZE_MAX - 1) / 4 - 1) {
		errno = ENOMEM;
		return NULL;
	}
	if ((out = mem_alloc((len + 2) / 3 * 4 + 1)) == NULL)
		return NULL;
	q = out;
	for (i = 0; i + 2 < len; i += 3) {
		v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		*q++ = abc[v >> 18 & 63];
		*q++ = abc[v >> 12 & 63];
		*q++ = abc[v >> 6 & 63];
		*q++ = abc[v & 63];
	}
	if (i < len) {
		v = (uint32_t)p[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)p[i + 1] << 8;
		*q++ = abc[v >> 18 & 63];
		*q++ = abc[v >> 12 & 63];
		*q++ = i + 1 < len ? abc[v >> 6 & 63] : '=';
		*q++ = '=';
	}
	*q = '\0';
	return out;
}
