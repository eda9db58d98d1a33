/*
 * mcp: `arcturn mcp`, a Model Context Protocol server over stdio, so that
 * an agent framework can use arcturn's file tools, confined commands and
 * dry-run review as MCP tools. README ("MCP server") is the user's side;
 * this is the code's.
 *
 * Transport (mcp.c): newline-delimited JSON-RPC 2.0 on stdin/stdout, one
 * message a line, each line at most MCP_LINE_MAX bytes (mcp_lines.h; a
 * longer one is skipped unread, answered -32600, and the server goes on). stdout carries
 * protocol messages only; diagnostics (config warnings, a lock we wait
 * for) go to stderr. EOF, also in the middle of a line, ends the server
 * with status 0; a failed write to stdout ends it with status 2.
 *
 * While a call runs, stdin is watched (mcp_server.watch, called from
 * mcp_run's poll): a ping is answered at once, a notifications/cancelled
 * for the call kills its process group and the call gets no reply, EOF
 * kills it and ends the server; anything else waits, in order, for the
 * call to end (at most 64 MiB of it; then stdin is read no more until
 * then).
 *
 * Lifecycle: `initialize` (protocol versions MCP_VERSIONS; the client's
 * when it is one of them, else the newest), then any number of `ping`,
 * `tools/list`, `tools/call`. Before `initialize` only `ping` is
 * answered (the spec allows pings at any time); other requests get
 * -32002. Notifications (no id) get no reply, whatever they are.
 *
 * Tools (mcp_tools.c): read_file runs in this process through wsview, as
 * `arcturn read` does; every other tool runs the arcturn binary itself as
 * a child (mcp_run), with the CLI's arguments, so that each obeys exactly
 * the CLI's policy (writable roots, protected paths, dry run) and a crash
 * in one call ends that child only. JSON shapes of every tool's input and
 * output are the inputSchema and outputSchema in mcp_tools.c, listed by
 * tools/list; README repeats them.
 *
 * Errors: unknown method -32601; unknown tool -32602 (the spec's example
 * code for it); arguments that do not fit the tool's inputSchema are
 * results with isError (spec 2025-11-25: input validation errors), as is
 * a tool that ran and failed, with the one line the CLI prints,
 * `arcturn: what: path: reason`. Strings are taken with their length
 * (mcp_json.h): NUL or control characters in a path are refused.
 *
 * Workspace: -C DIR; else the client's first file:// MCP root (asked
 * with roots/list when the client offers roots; tools/call waits for
 * the answer); else the cwd. One that is /, the home, a system folder or
 * the state dir is refused (config_check_workspace): with -C the server
 * does not start, else the tools answer isError saying how to choose.
 */
#ifndef ARCTURN_MCP_H
#define ARCTURN_MCP_H

#include <sys/types.h>

#include <limits.h>
#include <stddef.h>

#include <cJSON.h>

#include "cli/cmd.h"

/* The protocol versions served, oldest first; the last is the default. */
#define MCP_VERSIONS	{ "2025-06-18", "2025-11-25" }
#define MCP_OUT_CAP	((size_t)32 << 10)	/* run_command: 32 KiB a stream,
						   half head, half tail */
#define MCP_READ_MAX	((size_t)16 << 20)	/* read_file: 16 MiB */
#define MCP_READ_BUDGET	((size_t)64 << 10)	/* read_file: 64 KiB a call */
#define MCP_REVIEW_BUDGET ((size_t)64 << 10)	/* review_changes' diff text */
#define MCP_TIMEOUT_MS	120000L			/* run_command default: 2 min */

/* JSON-RPC error codes used. */
#define MCP_EPARSE	-32700
#define MCP_EREQUEST	-32600
#define MCP_ENOMETHOD	-32601
#define MCP_EPARAMS	-32602
#define MCP_EINTERNAL	-32603
#define MCP_EINIT	-32002		/* a request before initialize */

/* The server's settings, from `arcturn [-C DIR] [--session ID] mcp ...`. */
struct mcp_server {
	char		*dir;		/* the workspace directory, absolute;
					   NULL: none (why says why) */
	char		 why[2 * PATH_MAX + 512];
	int		 dir_given;	/* -C DIR: MCP roots do not move it */
	const char	*session;	/* --session ID, or NULL */
	int		 dry_run;	/* --dry-run */
	int		 allow_apply;	/* --allow-apply: apply_changes listed */
	char		 self[4096];	/* the arcturn binary children run */
	/*
	 * While a child runs (mcp_run) and watch_fd is readable, watch
	 * (watch_arg) is called: MCP_WATCH_GO goes on, MCP_WATCH_STOP kills
	 * the child's process group at once (the call was cancelled, or
	 * the client is gone), MCP_WATCH_IGNORE goes on without watching.
	 * No watch: NULL. The server watches stdin so that a ping is
	 * answered and a cancel or EOF acted on during a long call.
	 */
	int		(*watch)(void *);
	void		*watch_arg;
	int		 watch_fd;
};

enum { MCP_WATCH_GO, MCP_WATCH_STOP, MCP_WATCH_IGNORE };

/* The front end (main.c's table): parse the options, serve until EOF. */
int	cmd_mcp(struct cli *);

/*
 * The tools/list result, {"tools": [...]}: every tool with its schemas,
 * apply_changes only with allow_apply. NULL when out of memory.
 */
cJSON	*mcp_tools_list(const struct mcp_server *);

/* 1 when tools/list lists a tool called name, else 0. */
int	mcp_tool_listed(const struct mcp_server *, const char *name);

/*
 * Call the tool name with args (an object, or NULL for none). Returns 0
 * with *result set to a CallToolResult (isError true for a tool that
 * failed), or a JSON-RPC error code (MCP_EPARAMS: unknown tool or bad
 * arguments; MCP_EINTERNAL: out of memory) with msg (msglen bytes) saying
 * why.
 */
int	mcp_tools_call(const struct mcp_server *, const char *name,
	    const cJSON *args, cJSON **result, char *msg, size_t msglen);

/*
 * One run of the arcturn binary as a child (mcp_run.c): argv[0] is
 * replaced by the server's self; stdin is in (inlen bytes; NULL: empty);
 * stdout and stderr are kept up to cap bytes each (the rest is read and
 * dropped, *_trunc set, *_total counts all); after timeout_ms (0: never)
 * the child's process group is killed, as it is when the server's watch
 * says stop (stopped set). The child runs in a process group of its own,
 * with SIGPIPE at its default.
 */
struct mcp_run {
	char		**argv;
	const char	 *in;
	size_t		  inlen;
	size_t		  cap;
	int		  tail;		/* keep the first cap/2 bytes and
					   the last cap - cap/2, in order */
	long		  timeout_ms;
	char		 *out, *err;	/* NUL-terminated, mem_free them */
	size_t		  outlen, errlen;
	size_t		  out_total, err_total;
	int		  out_trunc, err_trunc;
	int		  status;	/* exit status, or -1 when signalled */
	int		  sig;		/* the signal that ended it, or 0 */
	int		  timed_out;
	int		  stopped;	/* killed because watch said stop */
};

/* Run it; 0 once it ran and was reaped, -1 with errno if it could not. */
int	mcp_run(const struct mcp_server *, struct mcp_run *);
void	mcp_run_free(struct mcp_run *);

/*
 * The platform's part (mcp_linux.c, mcp_macos.c). mcp_self_path: the
 * absolute path of the running binary into buf, 0 or -1 with errno.
 * mcp_child_tie, in a child of the server: have it killed when the server
 * dies where the OS can (Linux: PR_SET_PDEATHSIG); -1 when it cannot or
 * parent is gone already.
 */
int	mcp_self_path(char *buf, size_t size);
int	mcp_child_tie(pid_t parent);

#endif
