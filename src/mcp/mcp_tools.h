/*
 * mcp_tools: what the tool files of the MCP server (mcp_tools.c: files,
 * mcp_cmds.c: commands and the session, mcp_nav.h: navigation and turns)
 * share, and the functions of mcp_schema.c's one table.
 * Internal to the server; mcp.h is its manual. Their arguments and
 * results are mcp_args.h's.
 */
#ifndef ARCTURN_MCP_TOOLS_H
#define ARCTURN_MCP_TOOLS_H

#include <stddef.h>

#include <cJSON.h>

#include "mcp/mcp.h"
#include "mcp/mcp_args.h"


/*
 * The policy's mode and dry run, as a child will load them (flags, env,
 * config): 0; or -1 with *mode MODE_WORKSPACE_WRITE, *dry the --dry-run
 * flag's, and (why not NULL) the line that says why, for what.
 */
int	mcp_policy(const struct mcp_server *, const char *what, int *mode,
	    int *dry, char *why, size_t len);

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

/*
 * A tool's function, as mcp_schema.c's table calls it (mcp_tools_call:
 * the tool is listed, there is a workspace, args is an object): 0 with
 * *result, MCP_BADARGS with msg (mcp_args.h: the caller makes it the
 * isError result), or a JSON-RPC error code with msg.
 */
typedef int mcp_tool_fn(const struct mcp_server *, const char *name,
    const cJSON *args, cJSON **result, char *msg, size_t msglen);

/* read_file, write_file, edit_file (mcp_tools.c). */
mcp_tool_fn	mcp_files_call;
/*
 * run_command, review_changes, discard_changes, sandbox_status,
 * apply_changes (mcp_cmds.c).
 */
mcp_tool_fn	mcp_cmds_call;

#endif
