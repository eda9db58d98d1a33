/*
 * mcp: `arcturn mcp`, a Model Context Protocol server over stdio, so that
 * an agent framework can use arcturn's file tools, confined commands and
 * dry-run review as MCP tools. README ("MCP server") is the user's side;
 * this is the code's.
 *
 * Transport (mcp.c): newline-delimited JSON-RPC 2.0 on stdin/stdout, one
 * message a line, each line at most MCP_LINE_MAX bytes (mcp_lines.h; a
 * longer one is skipped unread, answered -32600, and the server goes
 * on). stdout carries protocol messages only, written by the server
 * alone, a whole line at a time; diagnostics (config warnings, a lock we
 * wait for) go to stderr. A failed write to stdout ends it with status 2.
 *
 * Concurrency (mcp_jobs.c, below): the server reads stdin all the
 * time; each tools/call runs in a worker of its own (but a read_file of
 * the real tree with no write waiting, answered at once). Readers run side
 * by side, a call that writes waits for the calls before it, and a call
 * waits for the writers before it. A ping, tools/list or initialize is answered at
 * once, also during calls. notifications/cancelled kills the call (its
 * command's process group with it) and no reply is sent for it. A
 * request whose params._meta has a progressToken gets
 * notifications/progress while its command runs (apply_changes: the
 * files done, of how many, as the child apply says them on
 * MCP_PROGRESS_FD). EOF on stdin, also in
 * the middle of a line, kills the calls still running and ends the
 * server with status 0 within a second (their locks released).
 *
 * Lifecycle: `initialize` (protocol versions MCP_VERSIONS; the client's
 * when it is one of them, else the newest), then any number of `ping`,
 * `tools/list`, `tools/call`. Before `initialize` only `ping` is
 * answered (the spec allows pings at any time); other requests get
 * -32002. Notifications (no id) get no reply, whatever they are. A
 * server that cannot start (a config that does not load, a -C DIR that
 * is refused) says why on stderr and answers the first request with
 * MCP_ESTART and that line, then ends with status 2.
 *
 * Tools, each call in its worker: read_file (mcp_tools.c) and the
 * navigation tools (mcp_nav.h) read through wsview and the session's
 * shadow tree, as `arcturn read` does; every other tool runs the arcturn
 * binary itself as a child (mcp_run), with the CLI's arguments, so that
 * each obeys exactly the CLI's policy (writable roots, protected paths,
 * dry run) and a crash in one call ends that child only. Not under dry
 * run, run_command is `exec --checkpoint` where the mount layer is, its
 * apply joining the open turn (--join-turn), so that begin_turn groups
 * an agent's writes and commands into one turn. JSON shapes of every
 * tool's input and output, titles and annotations are in mcp_schema.c,
 * listed by tools/list; README repeats them.
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
#include "mcp/mcp_lines.h"

/* The protocol versions served, oldest first; the last is the default. */
#define MCP_VERSIONS	{ "2025-03-26", "2025-06-18", "2025-11-25" }
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
#define MCP_ESTART	-32000		/* the server cannot start: why */

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
	 * In a call's worker (mcp_jobs.c, below) whose request asked for progress:
	 * mcp_run calls progress(progress_arg, ms since the child started,
	 * output bytes so far) when it starts, when output grew (at most
	 * five times a second) and at least every MCP_PROGRESS_MS. NULL:
	 * none.
	 */
	void		(*progress)(void *, long ms, size_t bytes);
	/*
	 * And for a child that counts files (mcp_run.progress_fd):
	 * progress_files(progress_arg, files done, files in all) as it
	 * says each line, instead of progress.
	 */
	void		(*progress_files)(void *, size_t done,
			    size_t total);
	void		*progress_arg;
	size_t		 budget;	/* --max-output: bytes of text a
					   result holds (MCP_READ_BUDGET) */
};

#define MCP_PROGRESS_MS	1000L
#define MCP_PROGRESS_FD	3	/* apply_changes: apply --progress-fd */
#define MCP_STOP_MS	500L	/* a stopped child: SIGTERM, this long,
				   then SIGKILL to its process group */

/* The front end (main.c's table): parse the options, serve until EOF. */
int	cmd_mcp(struct cli *);

/*
 * The tools/list result, {"tools": [...]}: every tool with its schemas,
 * apply_changes only with allow_apply. NULL when out of memory.
 */
cJSON	*mcp_tools_list(const struct mcp_server *);

/*
 * The backend `arcturn sandbox status` names here, asked once a server
 * (a child run; "unknown" when it fails): the server asks it before its
 * first run_command, so that the workers it forks have it.
 */
const char *mcp_sandbox_backend(const struct mcp_server *);

/*
 * Call the tool name with args (an object, or NULL for none), through
 * the function mcp_schema.c's one table gives it. Returns 0
 * with *result set to a CallToolResult (isError true for a tool that
 * failed, or for arguments it refuses: `arcturn: NAME: WHY`), or a
 * JSON-RPC error code (MCP_EPARAMS: unknown tool; MCP_EINTERNAL: out of
 * memory) with msg (msglen bytes) saying why.
 */
int	mcp_tools_call(const struct mcp_server *, const char *name,
	    const cJSON *args, cJSON **result, char *msg, size_t msglen);

/*
 * One run of the arcturn binary as a child (mcp_run.c): argv[0] is
 * replaced by the server's self; stdin is in (inlen bytes; NULL: empty);
 * stdout and stderr are kept up to cap bytes each (the rest is read and
 * dropped, *_trunc set, *_total counts all); with progress_fd (> 2) and
 * srv->progress_files, the child gets a pipe's write end as that
 * descriptor, and each line "DONE TOTAL" it writes there (arcturn apply
 * --progress-fd) goes to progress_files; after timeout_ms (0: never)
 * the child gets SIGTERM (arcturn exec passes it on to the command, then
 * lands or records what it wrote), and a second later SIGKILL to its
 * process group (timed_out set). The child runs
 * in a process group of its own, with SIGPIPE at its default.
 */
struct mcp_run {
	char		**argv;
	const char	 *in;
	size_t		  inlen;
	size_t		  cap;
	int		  tail;		/* keep the first cap/2 bytes and
					   the last cap - cap/2, in order */
	long		  timeout_ms;
	int		  progress_fd;	/* 0: none */
	char		 *out, *err;	/* NUL-terminated, mem_free them */
	size_t		  outlen, errlen;
	size_t		  out_total, err_total;
	int		  out_trunc, err_trunc;
	int		  status;	/* exit status, or -1 when signalled */
	int		  sig;		/* the signal that ended it, or 0 */
	int		  timed_out;
};

/* Run it; 0 once it ran and was reaped, -1 with errno if it could not. */
int	mcp_run(const struct mcp_server *, struct mcp_run *);
void	mcp_run_free(struct mcp_run *);

/*
 * From here on, SIGTERM ends this process (a worker, mcp_jobs.c: its call
 * was cancelled, or the client is gone): at once outside mcp_run; inside,
 * once the child is stopped as at a timeout, but within MCP_STOP_MS.
 */
void	mcp_run_stop_on_term(void);

/*
 * The platform's part (mcp_linux.c, mcp_macos.c). mcp_self_path: the
 * absolute path of the running binary into buf, 0 or -1 with errno.
 * mcp_child_tie, in a child of the server: have it killed when the server
 * dies where the OS can (Linux: PR_SET_PDEATHSIG); -1 when it cannot or
 * parent is gone already.
 */
int	mcp_self_path(char *buf, size_t size);
int	mcp_child_tie(pid_t parent);

/*
 * The tool calls (mcp_jobs.c), each run by a worker, a
 * forked copy of the server, so that the server itself goes
 * on reading stdin: a ping is answered during any call, a cancel kills
 * the call, EOF kills them all.
 *
 * A worker gets the request's line, calls the tool (mcp_tools_call) and
 * writes what it has to say to its pipe, a JSON-RPC message a line:
 * progress notifications (when the request's params._meta has a
 * progressToken), then the reply. The server alone writes stdout: it
 * copies those lines whole, one message a line, never interleaved.
 *
 * Order: readers (mcp_tool_writes says 0) run side by side; a writer
 * starts once every call that came before it has ended, and a call
 * starts only when no writer that came before it is still waiting or
 * running. So calls that touch the session take effect in the order the
 * client sent them, as they would one at a time. At most MCP_JOBS_MAX
 * run at once; the rest wait in order.
 *
 * Stopping: SIGTERM to a worker kills its child's process group and ends
 * it (mcp_run_stop_on_term); a worker dies with the server (mcp_child_tie).
 * A cancelled call's lines are read and dropped: no reply is sent.
 */
#define MCP_JOBS_MAX	16

struct mcp_job {
	struct mcp_job	*next;
	cJSON		*id;		/* the request's id */
	char		*line;		/* the request, until it starts */
	size_t		 len;
	char		*dir;		/* the workspace when it came, or
					   NULL (none: srv->why says why) */
	int		 writer;
	pid_t		 pid;		/* the worker; 0 while it waits */
	int		 fd;		/* its pipe; -1 once at EOF */
	struct reader	 r;		/* its lines */
	int		 cancelled;	/* killed: its lines are dropped */
	long		 killed_at;	/* when SIGTERM went (ms), or 0 */
};

struct mcp_jobs {
	struct mcp_job	*head, **tail;	/* in the order they came */
	int		 running;
};

void	mcp_jobs_init(struct mcp_jobs *);

/*
 * Queue the call of this line (copied), to run in the workspace srv has
 * now (MCP roots may move it before the call starts): 0, or -1 when out
 * of memory.
 */
int	mcp_jobs_add(struct mcp_jobs *, const struct mcp_server *,
	    const cJSON *id, const char *line, size_t len, int writer);

/*
 * Start the calls that may start now (Order above). A call that cannot
 * start (fork, pipe) is returned through failed (one at a time: call
 * again), removed from the list: the caller answers it and frees it with
 * mcp_job_free.
 */
void	mcp_jobs_start(struct mcp_jobs *, const struct mcp_server *,
	    struct mcp_job **failed);

/*
 * notifications/cancelled for id: a waiting call is dropped, a running
 * one killed (its lines dropped). 1 when one was found, else 0.
 */
int	mcp_jobs_cancel(struct mcp_jobs *, const cJSON *id);

/* Whether a call that writes is waiting or running: 1, else 0. */
int	mcp_jobs_writing(const struct mcp_jobs *);

/* Whether writes go to the dry-run session (flag, env, config). */
int	mcp_dry(const struct mcp_server *);

/* Kill every call (stdin is gone): running ones get SIGTERM. */
void	mcp_jobs_kill_all(struct mcp_jobs *);

/*
 * A running job's pipe is readable: its whole lines go to put (unless
 * cancelled); at EOF the worker is reaped and the job removed. 0, or -1
 * when put failed (stdout is gone).
 */
int	mcp_jobs_read(struct mcp_jobs *, struct mcp_job *,
	    int (*put)(void *, const char *, size_t), void *arg);

/* Kill what ignored SIGTERM for a second (SIGKILL); *next: ms to wait. */
void	mcp_jobs_reap_slow(struct mcp_jobs *, long *wait_ms);

void	mcp_job_free(struct mcp_job *);

/* Whether the call of tool name with args changes the workspace or the
   session (mcp_schema.c's annotations: not readOnlyHint). */
int	mcp_tool_writes(const char *name, const cJSON *args);

long	mcp_now_ms(void);

#endif
