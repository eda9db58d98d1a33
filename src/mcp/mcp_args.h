/*
 * mcp_args: a tool call's arguments, checked, and its result, built
 * (mcp_args.c), for every tool of the MCP server.
 *
 * Argument helpers return 0, or -1 with msg filled (the message of the
 * isError result that names the argument); result builders return NULL
 * when out of memory and take over what they are given.
 */
#ifndef ARCTURN_MCP_ARGS_H
#define ARCTURN_MCP_ARGS_H

#include <stddef.h>

#include <cJSON.h>

/*
 * What a tool's function returns for arguments it refuses, msg saying
 * why (an argument helper's -1): mcp_tools_call makes it the isError
 * result `arcturn: TOOL: MSG`, the input error a model can act on (spec
 * 2025-11-25), not a JSON-RPC error.
 */
#define MCP_BADARGS	(-1)

int	mcp_bad(char *msg, size_t msglen, int code, const char *fmt, ...)
	    __attribute__((format(printf, 4, 5)));
/*
 * String arguments are taken whole (mcp_json.h): a NUL is refused unless
 * MCP_ARG_BYTES (content, stdin: passed on with their length), a control
 * character too with MCP_ARG_PATH; the message names the argument.
 */
#define MCP_ARG_REQUIRED	0x1
#define MCP_ARG_PATH		0x2
#define MCP_ARG_BYTES		0x4
/*
 * A string argument's bytes s (len of them) against flags, as above; name
 * and idx (-1: none) name the argument in the message.
 */
int	mcp_arg_check(const char *name, long idx, const char *s, size_t len,
	    int flags, char *msg, size_t msglen);
int	mcp_arg_str(const cJSON *args, const char *key, int flags,
	    const char **out, size_t *len, char *msg, size_t msglen);
int	mcp_arg_strv(const cJSON *args, const char *key, int nonempty,
	    int flags, char ***out, size_t *n, char *msg, size_t msglen);
/* An optional integer argument from 1 to max (absent: *out = dflt). */
int	mcp_arg_count(const cJSON *args, const char *key, long max, long dflt,
	    long *out, char *msg, size_t msglen);
int	mcp_arg_bool(const cJSON *args, const char *key, int *out, char *msg,
	    size_t msglen);
/* keys: NULL-terminated; any other member of args is refused. */
int	mcp_arg_only(const cJSON *args, const char *const *keys, char *msg,
	    size_t msglen);

/* {content: [{type: text, text}], structuredContent?, isError?} */
cJSON	*mcp_result(cJSON *structured, const char *text, int iserr);
/* isError with the one line fmt makes. */
cJSON	*mcp_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* structured, its own JSON as the text. */
cJSON	*mcp_json_result(cJSON *structured);

#endif
