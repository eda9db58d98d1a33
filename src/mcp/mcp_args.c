/*
 * mcp_args: a tool call's arguments, checked, and its result, built
 * (mcp_args.h).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mem.h"
#include "mcp/mcp_args.h"
#include "mcp/mcp_json.h"

/* Fill msg (a JSON-RPC error's message) and return code. */
int
mcp_bad(char *msg, size_t msglen, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, msglen, fmt, ap);
	va_end(ap);
	return code;
}

int
mcp_arg_check(const char *name, long idx, const char *s, size_t len,
    int flags, char *msg, size_t msglen)
{
	char at[32] = "";
	size_t i;
	unsigned char ch;

	if (idx >= 0)
		snprintf(at, sizeof at, "[%ld]", idx);
	for (i = 0; i < len; i++) {
		ch = (unsigned char)s[i];
		if (ch == '\0' && !(flags & MCP_ARG_BYTES))
			return mcp_bad(msg, msglen, -1, "invalid arguments: "
			    "%s%s holds a NUL character (\\u0000 at byte "
			    "%zu); strings are taken whole, never cut at a "
			    "NUL: remove it", name, at, i);
		if ((ch < 0x20 || ch == 0x7f) && (flags & MCP_ARG_PATH))
			return mcp_bad(msg, msglen, -1, "invalid arguments: "
			    "%s%s holds a control character (U+%04X at byte "
			    "%zu); a path may hold none", name, at,
			    (unsigned)ch, i);
	}
	return 0;
}

/*
 * args[key] as a string (flags: MCP_ARG_*), its length in *len when len
 * is not NULL; absent and not required: *out NULL. -1 (msg filled) if it
 * is wrong.
 */
int
mcp_arg_str(const cJSON *args, const char *key, int flags,
    const char **out, size_t *len, char *msg, size_t msglen)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);
	size_t n;

	*out = NULL;
	if (len != NULL)
		*len = 0;
	if (v == NULL && !(flags & MCP_ARG_REQUIRED))
		return 0;
	if (!cJSON_IsString(v))
		return mcp_bad(msg, msglen, -1, "invalid arguments: %s must be "
		    "a string%s", key, v == NULL ? " (it is required)" : "");
	n = mcp_json_strlen(v);
	if (mcp_arg_check(key, -1, v->valuestring, n, flags, msg, msglen) < 0)
		return -1;
	*out = v->valuestring;
	if (len != NULL)
		*len = n;
	return 0;
}

/*
 * args[key] as an array of strings (n of them, NULL-terminated in *out,
 * which points into args: mem_free the array only), absent: *n = 0.
 * flags: MCP_ARG_PATH or 0 (a NUL is always refused).
 */
int
mcp_arg_strv(const cJSON *args, const char *key, int nonempty, int flags,
    char ***out, size_t *n, char *msg, size_t msglen)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key), *e;
	size_t i = 0;

	*out = NULL;
	*n = 0;
	if (v == NULL && !nonempty)
		return 0;
	if (!cJSON_IsArray(v) || (nonempty && cJSON_GetArraySize(v) == 0))
		return mcp_bad(msg, msglen, -1, "invalid arguments: %s must be "
		    "an array of strings%s", key, nonempty ? ", not empty" : "");
	cJSON_ArrayForEach(e, v) {
		if (!cJSON_IsString(e) || e->valuestring[0] == '\0')
			return mcp_bad(msg, msglen, -1, "invalid arguments: "
			    "%s must hold non-empty strings only", key);
		if (mcp_arg_check(key, (long)i++, e->valuestring,
		    mcp_json_strlen(e), flags & ~MCP_ARG_BYTES, msg,
		    msglen) < 0)
			return -1;
	}
	i = 0;
	if ((*out = mem_calloc((size_t)cJSON_GetArraySize(v) + 1,
	    sizeof **out)) == NULL)
		return mcp_bad(msg, msglen, -2, "out of memory");
	cJSON_ArrayForEach(e, v)
		(*out)[i++] = e->valuestring;
	*n = i;
	return 0;
}

/* A bool argument (absent: 0); -1 when it is not a bool. */
int
mcp_arg_bool(const cJSON *args, const char *key, int *out, char *msg,
    size_t msglen)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);

	*out = 0;
	if (v == NULL)
		return 0;
	if (!cJSON_IsBool(v))
		return mcp_bad(msg, msglen, -1, "invalid arguments: %s must be "
		    "a boolean", key);
	*out = cJSON_IsTrue(v);
	return 0;
}

/* Refuse members that the tool's inputSchema does not name. */
int
mcp_arg_only(const cJSON *args, const char *const *keys, char *msg,
    size_t msglen)
{
	const cJSON *e;
	size_t i;

	cJSON_ArrayForEach(e, args) {
		for (i = 0; keys[i] != NULL; i++)
			if (strcmp(e->string, keys[i]) == 0)
				break;
		if (keys[i] == NULL)
			return mcp_bad(msg, msglen, -1, "invalid arguments: "
			    "unknown argument %.100s", e->string);
	}
	return 0;
}

/*
 * A CallToolResult: structured (taken over) with text as content[0], or
 * with iserr, text alone.
 */
cJSON *
mcp_result(cJSON *structured, const char *text, int iserr)
{
	cJSON *r, *arr, *t;

	if ((r = cJSON_CreateObject()) == NULL ||
	    (arr = cJSON_AddArrayToObject(r, "content")) == NULL ||
	    (t = cJSON_CreateObject()) == NULL) {
		cJSON_Delete(r);
		cJSON_Delete(structured);
		return NULL;
	}
	cJSON_AddItemToArray(arr, t);
	if (cJSON_AddStringToObject(t, "type", "text") == NULL ||
	    cJSON_AddStringToObject(t, "text", text) == NULL ||
	    (iserr && cJSON_AddTrueToObject(r, "isError") == NULL)) {
		cJSON_Delete(r);
		cJSON_Delete(structured);
		return NULL;
	}
	if (structured != NULL)
		cJSON_AddItemToObject(r, "structuredContent", structured);
	return r;
}

/* A tool failure: isError with the one line given. */
cJSON *
mcp_fail(const char *fmt, ...)
{
	char line[PATH_MAX + 512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	return mcp_result(NULL, line, 1);
}

/* A structured result whose text is its own JSON. */
cJSON *
mcp_json_result(cJSON *o)
{
	cJSON *r;
	char *s;

	if (o == NULL || (s = cJSON_PrintUnformatted(o)) == NULL) {
		cJSON_Delete(o);
		return NULL;
	}
	r = mcp_result(o, s, 0);
	cJSON_free(s);
	return r;
}

int
mcp_arg_count(const cJSON *args, const char *key, long max, long dflt,
    long *out, char *msg, size_t msglen)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);

	*out = dflt;
	if (v == NULL)
		return 0;
	if (!cJSON_IsNumber(v) || v->valuedouble < 1 ||
	    v->valuedouble > (double)max ||
	    v->valuedouble != (double)(long)v->valuedouble)
		return mcp_bad(msg, msglen, -1, "invalid arguments: %s must be "
		    "an integer from 1 to %ld", key, max);
	*out = (long)v->valuedouble;
	return 0;
}
