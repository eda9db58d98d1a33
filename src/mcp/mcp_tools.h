/*
 * mcp_tools: what the tool files of the MCP server (mcp_tools.c: files,
 * mcp_cmds.c: commands and the session, mcp_schema.c: schemas) share.
 * Internal to the server; mcp.h is its manual.
 *
 * Argument helpers return 0, or -1 with msg filled (a -32602 message);
 * result builders return NULL when out of memory and take over what they
 * are given.
 */
#ifndef ARCTURN_MCP_TOOLS_H
#define ARCTURN_MCP_TOOLS_H

#include <stddef.h>

#include <cJSON.h>

#include "mcp/mcp.h"

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
int	mcp_arg_str(const cJSON *args, const char *key, int flags,
	    const char **out, size_t *len, char *msg, size_t msglen);
int	mcp_arg_strv(const cJSON *args, const char *key, int nonempty,
	    int flags, char ***out, size_t *n, char *msg, size_t msglen);
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


/* Whether writes go to the dry-run session (flag, env, config). */
int	mcp_dry(const struct mcp_server *);

/* arcturn -C DIR [--session ID] words... more...: mem_free the array. */
char	**mcp_argv(const struct mcp_server *, char *const *words,
	    size_t nwords, char *const *more, size_t nmore);

/*
 * The one line a failed child said (its last `arcturn: ` line that is not
 * a warning): 1; else a line saying how it ended: 0.
 */
int	mcp_child_line(const char *what, const struct mcp_run *, char *buf,
	    size_t size);

/*
 * Run arcturn with words and more, stdin in: 0 when it exited 0 (r
 * holds its output: mcp_run_free it), else -1 with *res the isError
 * result (NULL when out of memory) and r freed.
 */
int	mcp_child(const struct mcp_server *, const char *what,
	    char *const *words, size_t nwords, char *const *more,
	    size_t nmore, const char *in, size_t inlen, struct mcp_run *r,
	    cJSON **res);

/* The tools of mcp_cmds.c, as mcp_tools_call (an unknown name: -32602). */
int	mcp_tools_call2(const struct mcp_server *, const char *name,
	    const cJSON *args, cJSON **result, char *msg, size_t msglen);

#endif
