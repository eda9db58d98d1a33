/*
 * `arcturn mcp`: the MCP server's front end and its JSON-RPC dispatch
 * (mcp.h). Its input is read by mcp_lines.c, the tools are in
 * mcp_tools.c.
 */
#include <sys/uio.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_dryrun.h"
#include "cli/say.h"
#include "lib/mem.h"
#include "mcp/mcp.h"
#include "mcp/mcp_json.h"
#include "mcp/mcp_lines.h"
#include "policy/config_check.h"
#include "session/workspace.h"

/* A line kept for later: a tools/call while the roots are awaited. */
struct qline {
	struct qline	*next;
	size_t		 len;
	char		 line[];
};

struct state {
	struct mcp_server	*srv;
	int			 initialized;
	int			 write_failed;
	int			 roots_cap;	/* the client offers roots */
	int			 roots_pending;	/* roots/list asked, not answered */
	unsigned		 roots_seq;	/* the id of the last one asked */
	const char		*line;		/* the line being handled */
	size_t			 linelen;
	struct qline		*qhead, **qtail; /* to handle, in order */
	struct qline		*hhead, **htail; /* held for the roots */
	struct mcp_jobs		 jobs;		/* the calls (mcp_jobs.c, below) */
	const char		*failed;	/* the server cannot start: why */
	int			 quit;		/* said why it cannot: end */
};

/* Write one line (len bytes and a newline) to stdout: 0, or -1. */
static int
put_line(void *arg, const char *s, size_t len)
{
	struct state *st = arg;
	struct iovec v[2] = { { (void *)s, len }, { "\n", 1 } };
	size_t left = len + 1;
	ssize_t n;
	int i = 0;

	if (st->write_failed)
		return -1;
	while (left > 0) {
		n = writev(STDOUT_FILENO, v + i, 2 - i);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			say_errno("mcp: write to standard output");
			st->write_failed = 1;
			return -1;
		}
		left -= (size_t)n;
		while (i < 2 && (size_t)n >= v[i].iov_len) {
			n -= (ssize_t)v[i].iov_len;
			i++;
		}
		if (i < 2) {
			v[i].iov_base = (char *)v[i].iov_base + n;
			v[i].iov_len -= (size_t)n;
		}
	}
	return 0;
}

/* Write one message as one line to stdout; a failure ends the server. */
static void
send_msg(struct state *st, cJSON *msg)
{
	char *s;

	if (msg == NULL || (s = cJSON_PrintUnformatted(msg)) == NULL) {
		say_note("mcp: out of memory; a reply is lost");
		cJSON_Delete(msg);
		return;
	}
	cJSON_Delete(msg);
	(void)put_line(st, s, strlen(s));
	cJSON_free(s);
}

static cJSON *
envelope(const cJSON *id)
{
	cJSON *m, *i;

	if ((m = cJSON_CreateObject()) == NULL)
		return NULL;
	i = id != NULL ? cJSON_Duplicate(id, 1) : cJSON_CreateNull();
	if (cJSON_AddStringToObject(m, "jsonrpc", "2.0") == NULL ||
	    !cJSON_AddItemToObject(m, "id", i)) {
		cJSON_Delete(i);
		cJSON_Delete(m);
		return NULL;
	}
	return m;
}

static void
send_error(struct state *st, const cJSON *id, int code, const char *msg)
{
	cJSON *m, *e;

	if ((m = envelope(id)) != NULL &&
	    ((e = cJSON_AddObjectToObject(m, "error")) == NULL ||
	    cJSON_AddNumberToObject(e, "code", code) == NULL ||
	    cJSON_AddStringToObject(e, "message", msg) == NULL)) {
		cJSON_Delete(m);
		m = NULL;
	}
	send_msg(st, m);
}

static void
send_result(struct state *st, const cJSON *id, cJSON *result)
{
	cJSON *m;

	if (result == NULL || (m = envelope(id)) == NULL) {
		cJSON_Delete(result);
		send_error(st, id, MCP_EINTERNAL, "out of memory");
		return;
	}
	cJSON_AddItemToObject(m, "result", result);
	send_msg(st, m);
}

/* Keep line for later: at the queue's end, or held (the roots). */
static void
keep(struct state *st, const char *line, size_t len, int held)
{
	struct qline *q;

	if ((q = mem_alloc(sizeof *q + len + 1)) == NULL) {
		say_note("mcp: out of memory; a request is lost");
		return;
	}
	q->next = NULL;
	q->len = len;
	memcpy(q->line, line, len);
	q->line[len] = '\0';
	if (held) {
		*st->htail = q;
		st->htail = &q->next;
	} else {
		*st->qtail = q;
		st->qtail = &q->next;
	}
}

/* The roots came (or will not): what was held goes first. */
static void
unhold(struct state *st)
{
	st->roots_pending = 0;
	if (st->hhead == NULL)
		return;
	*st->htail = st->qhead;
	if (st->qhead == NULL)
		st->qtail = st->htail;
	st->qhead = st->hhead;
	st->hhead = NULL;
	st->htail = &st->hhead;
}

/*
 * Take dir (from: "-C", "the current folder", "the MCP root") as the
 * workspace: 0; or -1 with srv->why saying why not and how to choose
 * one, the workspace then none. A config that does not load is said as
 * the CLI says it.
 */
static int
set_workspace(struct mcp_server *srv, const char *dir, const char *from)
{
	struct workspace_err e = { .status = EXIT_USAGE };
	struct workspace x;
	struct cli c;
	char err[2 * PATH_MAX + 128], *real;
	int rc = -1;

	free(srv->dir);
	srv->dir = NULL;
	if ((real = realpath(dir, NULL)) == NULL) {
		snprintf(srv->why, sizeof srv->why, "mcp: workspace (%s): "
		    "%s: %s", from, dir, strerror(errno));
		return -1;
	}
	memset(&c, 0, sizeof c);
	c.dir = real;
	c.session = srv->session;
	workspace_init(&x, &dryrun_notes);
	if (dryrun_load(&x, &c, srv->dry_run, &e) < 0) {
		dryrun_line("mcp", &e, err, sizeof err);
		snprintf(srv->why, sizeof srv->why, "%s", strncmp(err,
		    "arcturn: ", 9) == 0 ? err + 9 : err);
	} else if (config_check_workspace(&x.p, err, sizeof err) < 0)
		snprintf(srv->why, sizeof srv->why, "mcp: %s (%s): no "
		    "workspace; give the project's folder: `arcturn mcp -C "
		    "DIR` (a client's config: \"args\": [\"mcp\", \"-C\", "
		    "\"/path/to/project\"]), or a client that sends it as an "
		    "MCP root", err, from);
	else {
		srv->dir = real;
		srv->why[0] = '\0';
		real = NULL;
		rc = 0;
	}
	workspace_done(&x);
	free(real);
	return rc;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * The path of a file:// URI (RFC 8089: an empty host or localhost,
 * %XX decoded), into buf; -1 for any other URI, or one whose path holds
 * a NUL or a control character.
 */
static int
file_uri(const char *uri, char *buf, size_t size)
{
	const char *p;
	size_t n = 0;
	int hi, lo, ch;

	if (strncmp(uri, "file://", 7) != 0)
		return -1;
	p = uri + 7;
	if (strncmp(p, "localhost/", 10) == 0)
		p += 9;
	if (*p != '/')
		return -1;
	for (; *p != '\0'; p++) {
		ch = (unsigned char)*p;
		if (ch == '%') {
			if ((hi = hexval(p[1])) < 0 || (lo = hexval(p[2])) < 0)
				return -1;
			ch = hi * 16 + lo;
			p += 2;
		}
		if (ch < 0x20 || ch == 0x7f || n + 1 >= size)
			return -1;
		buf[n++] = (char)ch;
	}
	buf[n] = '\0';
	return 0;
}

/* Ask the client for its roots (after notifications/initialized). */
static void
ask_roots(struct state *st)
{
	char id[32];
	cJSON *m;

	snprintf(id, sizeof id, "arcturn-roots-%u", ++st->roots_seq);
	if ((m = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(m, "jsonrpc", "2.0") == NULL ||
	    cJSON_AddStringToObject(m, "id", id) == NULL ||
	    cJSON_AddStringToObject(m, "method", "roots/list") == NULL) {
		cJSON_Delete(m);
		return;
	}
	st->roots_pending = 1;
	send_msg(st, m);
}

/*
 * The client's answer to roots/list: its first file:// root becomes the
 * workspace (arcturn serves one; the others are named on stderr). An
 * error, or no file:// root, leaves the workspace as it was.
 */
static void
roots_reply(struct state *st, const cJSON *result, const cJSON *error)
{
	struct mcp_server *srv = st->srv;
	const cJSON *roots, *r, *uri, *em;
	char path[PATH_MAX], first[PATH_MAX] = "";
	int n = 0;

	unhold(st);
	roots = cJSON_GetObjectItemCaseSensitive(result, "roots");
	if (error != NULL || !cJSON_IsArray(roots)) {
		em = cJSON_GetObjectItemCaseSensitive(error, "message");
		say_note("mcp: roots/list: %s; the workspace stays %s",
		    cJSON_IsString(em) ? em->valuestring : "no roots array",
		    srv->dir != NULL ? srv->dir : "unset");
		return;
	}
	cJSON_ArrayForEach(r, roots) {
		uri = cJSON_GetObjectItemCaseSensitive(r, "uri");
		if (!cJSON_IsString(uri) ||
		    strlen(uri->valuestring) != mcp_json_strlen(uri) ||
		    file_uri(uri->valuestring, path, sizeof path) < 0)
			continue;
		if (n++ == 0)
			snprintf(first, sizeof first, "%s", path);
	}
	if (n == 0) {
		say_note("mcp: roots/list: no file:// root; the workspace "
		    "stays %s", srv->dir != NULL ? srv->dir : "unset");
		return;
	}
	if (n > 1)
		say_note("mcp: the client gave %d roots; arcturn serves one "
		    "workspace, the first: %s (run one server per root, or "
		    "give -C DIR)", n, first);
	if (set_workspace(srv, first, "the MCP root") < 0)
		say_note("%s", srv->why);
}

static cJSON *
initialize(const cJSON *params, char *msg, size_t msglen)
{
	static const char *const versions[] = MCP_VERSIONS;
	const size_t nv = sizeof versions / sizeof versions[0];
	const cJSON *pv;
	const char *v = versions[nv - 1];
	cJSON *r, *caps, *info;
	size_t i;

	pv = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
	if (!cJSON_IsString(pv)) {
		snprintf(msg, msglen, "initialize: params.protocolVersion "
		    "must be a string");
		return NULL;
	}
	for (i = 0; i < nv; i++)
		if (strcmp(pv->valuestring, versions[i]) == 0)
			v = versions[i];
	if ((r = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(r, "protocolVersion", v) == NULL ||
	    (caps = cJSON_AddObjectToObject(r, "capabilities")) == NULL ||
	    (caps = cJSON_AddObjectToObject(caps, "tools")) == NULL ||
	    cJSON_AddFalseToObject(caps, "listChanged") == NULL ||
	    (info = cJSON_AddObjectToObject(r, "serverInfo")) == NULL ||
	    cJSON_AddStringToObject(info, "name", "arcturn") == NULL ||
	    cJSON_AddStringToObject(info, "version", ARCTURN_VERSION) == NULL ||
	    cJSON_AddStringToObject(r, "instructions", "Writes and commands "
	    "are confined to the workspace by arcturn's policy. Under dry "
	    "run they are captured for review: a human applies them with "
	    "`arcturn apply`.") == NULL) {
		cJSON_Delete(r);
		snprintf(msg, msglen, "out of memory");
		return NULL;
	}
	return r;
}

/* Start the calls that may start now; one that cannot is answered. */
static void
start_jobs(struct state *st)
{
	struct mcp_job *failed;

	for (mcp_jobs_start(&st->jobs, st->srv, &failed); failed != NULL;
	    mcp_jobs_start(&st->jobs, st->srv, &failed)) {
		send_error(st, failed->id, MCP_EINTERNAL, "cannot start the "
		    "call's worker (fork)");
		mcp_job_free(failed);
	}
}

static void
request(struct state *st, const char *method, const cJSON *id,
    const cJSON *params)
{
	const cJSON *name, *args;
	cJSON *res = NULL;
	char msg[PATH_MAX + 256];
	int rc;

	msg[0] = '\0';
	if (params != NULL && !cJSON_IsObject(params)) {
		send_error(st, id, MCP_EPARAMS, "params must be an object");
		return;
	}
	if (strcmp(method, "ping") == 0) {
		send_result(st, id, cJSON_CreateObject());
		return;
	}
	if (st->failed != NULL) {
		/* it cannot serve: the client learns why, then it ends */
		send_error(st, id, MCP_ESTART, strncmp(st->failed, "arcturn: ",
		    9) == 0 ? st->failed + 9 : st->failed);
		st->quit = 1;
		return;
	}
	if (strcmp(method, "initialize") == 0) {
		if ((res = initialize(params, msg, sizeof msg)) == NULL) {
			send_error(st, id, MCP_EPARAMS, msg);
			return;
		}
		st->initialized = 1;
		st->roots_cap = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(params, "capabilities"),
		    "roots"));
		send_result(st, id, res);
		return;
	}
	if (!st->initialized) {
		snprintf(msg, sizeof msg, "server not initialized: send "
		    "initialize before %s", method);
		send_error(st, id, MCP_EINIT, msg);
		return;
	}
	if (strcmp(method, "tools/list") == 0) {
		send_result(st, id, mcp_tools_list(st->srv));
		return;
	}
	if (strcmp(method, "tools/call") != 0) {
		snprintf(msg, sizeof msg, "method not found: %.200s", method);
		send_error(st, id, MCP_ENOMETHOD, msg);
		return;
	}
	if (st->roots_pending) {
		/* the workspace is on its way: this call waits for it */
		keep(st, st->line, st->linelen, 1);
		return;
	}
	name = cJSON_GetObjectItemCaseSensitive(params, "name");
	args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
	if (!cJSON_IsString(name)) {
		send_error(st, id, MCP_EPARAMS, "tools/call: params.name must "
		    "be a string");
		return;
	}
	if (args != NULL && !cJSON_IsObject(args)) {
		send_error(st, id, MCP_EPARAMS, "tools/call: params.arguments "
		    "must be an object");
		return;
	}
	/*
	 * read_file of the real tree with nothing written before it waiting:
	 * here, at once (it takes no lock; a worker's fork would cost more
	 * than the read)
	 */
	if (strcmp(name->valuestring, "read_file") == 0 && st->srv->dir !=
	    NULL && st->srv->session == NULL && !mcp_jobs_writing(&st->jobs) &&
	    !mcp_dry(st->srv)) {
		rc = mcp_tools_call(st->srv, name->valuestring, args, &res, msg,
		    sizeof msg);
		if (rc != 0)
			send_error(st, id, rc, msg);
		else
			send_result(st, id, res);
		return;
	}
	if (strcmp(name->valuestring, "run_command") == 0 &&
	    st->srv->dir != NULL)
		(void)mcp_sandbox_backend(st->srv);	/* once, for the workers */
	/* a worker calls it, in order with the calls that write */
	if (mcp_jobs_add(&st->jobs, st->srv, id, st->line, st->linelen,
	    mcp_tool_writes(name->valuestring, args)) < 0)
		send_error(st, id, MCP_EINTERNAL, "out of memory");
	else
		start_jobs(st);
}

/* One line from the client. */
static void
handle(struct state *st, const char *line, size_t len)
{
	const cJSON *id, *method, *ver;
	const char *end = NULL;
	char rid[32];
	cJSON *m;

	st->line = line;
	st->linelen = len;
	m = cJSON_ParseWithLengthOpts(line, len + 1, &end, 1);
	if (m == NULL || end != line + len) {
		cJSON_Delete(m);
		send_error(st, NULL, MCP_EPARSE, "parse error: not one JSON "
		    "value on the line");
		return;
	}
	/* strings are taken whole: a NUL in one is seen, never cut at */
	if (mcp_json_lengths(m, line, len) < 0) {
		id = cJSON_GetObjectItemCaseSensitive(m, "id");
		if (!cJSON_IsNumber(id) && !(cJSON_IsString(id) &&
		    strlen(id->valuestring) == mcp_json_strlen(id)))
			id = NULL;
		send_error(st, id, errno == ENOMEM ? MCP_EINTERNAL :
		    MCP_EREQUEST, errno == ENOMEM ? "out of memory" :
		    "invalid request: a member name holds a NUL (\\u0000)");
		cJSON_Delete(m);
		return;
	}
	if (!cJSON_IsObject(m)) {
		send_error(st, NULL, MCP_EREQUEST, cJSON_IsArray(m) ?
		    "invalid request: batches are not supported" :
		    "invalid request: not an object");
		cJSON_Delete(m);
		return;
	}
	id = cJSON_GetObjectItemCaseSensitive(m, "id");
	method = cJSON_GetObjectItemCaseSensitive(m, "method");
	ver = cJSON_GetObjectItemCaseSensitive(m, "jsonrpc");
	if (method == NULL && id != NULL &&
	    (cJSON_GetObjectItemCaseSensitive(m, "result") != NULL ||
	    cJSON_GetObjectItemCaseSensitive(m, "error") != NULL)) {
		/* a response: to our last roots/list, else to nothing */
		snprintf(rid, sizeof rid, "arcturn-roots-%u", st->roots_seq);
		if (st->roots_pending && cJSON_IsString(id) &&
		    strcmp(id->valuestring, rid) == 0)
			roots_reply(st, cJSON_GetObjectItemCaseSensitive(m,
			    "result"), cJSON_GetObjectItemCaseSensitive(m,
			    "error"));
		cJSON_Delete(m);
		return;
	}
	if (id != NULL && !cJSON_IsString(id) && !cJSON_IsNumber(id)) {
		send_error(st, NULL, MCP_EREQUEST, "invalid request: id must "
		    "be a string or a number");
	} else if (!cJSON_IsString(ver) ||
	    strcmp(ver->valuestring, "2.0") != 0 || !cJSON_IsString(method)) {
		if (id != NULL)
			send_error(st, id, MCP_EREQUEST, "invalid request: "
			    "jsonrpc \"2.0\" and a string method are needed");
	} else if (id == NULL) {
		/* a notification: never answered */
		if (strcmp(method->valuestring, "notifications/cancelled") == 0)
			(void)mcp_jobs_cancel(&st->jobs,
			    cJSON_GetObjectItemCaseSensitive(
			    cJSON_GetObjectItemCaseSensitive(m, "params"),
			    "requestId"));
		else if (strcmp(method->valuestring, "notifications/initialized") ==
		    0 && !st->initialized)
			say_note("mcp: notifications/initialized before "
			    "initialize; ignored");
		else if ((strcmp(method->valuestring,
		    "notifications/initialized") == 0 ||
		    strcmp(method->valuestring,
		    "notifications/roots/list_changed") == 0) &&
		    st->roots_cap && !st->srv->dir_given)
			ask_roots(st);
	} else
		request(st, method->valuestring, id,
		    cJSON_GetObjectItemCaseSensitive(m, "params"));
	cJSON_Delete(m);
}

/*
 * The workspace, its config and policy are checked once here, so that a
 * server that cannot work says so at once (each call loads them again):
 * -1 with why (the line said on stderr) filled.
 */
static int
check_workspace(struct cli *c, int dry, char *why, size_t size)
{
	struct workspace_err e = { .status = EXIT_USAGE };
	struct workspace x;
	int rc;

	workspace_init(&x, &dryrun_notes);
	rc = dryrun_load(&x, c, dry, &e);
	if (rc < 0) {
		dryrun_line("mcp", &e, why, size);
		dryrun_report("mcp", &e);
	}
	workspace_done(&x);
	return rc < 0 ? -1 : 0;
}

/* A line from stdin (the reader's r->line). */
static void
take(struct state *st, int rc, struct reader *r)
{
	if (rc == LINE_OK && strspn(r->line, " \t") != r->len)
		handle(st, r->line, r->len);
	else if (rc == LINE_BIG)
		send_error(st, NULL, MCP_EREQUEST, "invalid request: message "
		    "over 4194304 bytes (4 MiB); skipped");
}

/*
 * Serve until stdin ends (the calls still running are killed, within a
 * second), stdout fails or a server that cannot start said why: the
 * exit status.
 */
static int
serve(struct state *st, struct reader *r)
{
	struct pollfd pf[1 + MCP_JOBS_MAX];
	struct mcp_job *at[1 + MCP_JOBS_MAX], *j;
	struct qline *q;
	int n, k, rc, status = 0, eof = 0;
	long wait;

	while (!st->write_failed && !st->quit) {
		if ((q = st->qhead) != NULL) {
			if ((st->qhead = q->next) == NULL)
				st->qtail = &st->qhead;
			handle(st, q->line, q->len);
			mem_free(q);
			continue;
		}
		if (!eof && (rc = lines_take(r)) != LINE_NONE) {
			if (rc == LINE_ERR) {
				say_errno("mcp: read from standard input");
				status = EXIT_USAGE;
				eof = 1;
				mcp_jobs_kill_all(&st->jobs);
			}
			take(st, rc, r);
			continue;
		}
		start_jobs(st);
		if (eof && st->jobs.head == NULL)
			break;
		n = 0;
		if (!eof) {
			at[n] = NULL;
			pf[n++] = (struct pollfd){ r->fd, POLLIN, 0 };
		}
		for (j = st->jobs.head; j != NULL; j = j->next)
			if (j->pid != 0 && j->fd >= 0 && n < 1 + MCP_JOBS_MAX) {
				at[n] = j;
				pf[n++] = (struct pollfd){ j->fd, POLLIN, 0 };
			}
		mcp_jobs_reap_slow(&st->jobs, &wait);
		if (poll(pf, (nfds_t)n, wait > INT_MAX ? INT_MAX :
		    (int)wait) < 0 && errno != EINTR) {
			say_errno("mcp: poll");
			status = EXIT_USAGE;
			break;
		}
		for (k = 0; k < n; k++) {
			if (pf[k].revents == 0)
				continue;
			if (at[k] != NULL) {
				(void)mcp_jobs_read(&st->jobs, at[k], put_line,
				    st);
				continue;
			}
			if ((rc = lines_fill(r)) <= 0) {
				/* the client is gone: so are its calls */
				if (rc < 0) {
					say_errno("mcp: read from standard "
					    "input");
					status = EXIT_USAGE;
				}
				eof = 1;
				mcp_jobs_kill_all(&st->jobs);
			}
		}
	}
	/* stdout failed: end the calls, as for EOF, without waiting */
	mcp_jobs_kill_all(&st->jobs);
	while ((j = st->jobs.head) != NULL) {
		kill(-j->pid, SIGKILL);
		kill(j->pid, SIGKILL);
		st->jobs.head = j->next;
		while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
			;
		mcp_job_free(j);
	}
	if (st->write_failed)
		status = EXIT_USAGE;
	if (st->failed != NULL)
		status = EXIT_USAGE;
	return status;
}

int
cmd_mcp(struct cli *c)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'd' },
		{ "allow-apply", no_argument, NULL, 'a' },
		{ "max-output", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 }
	};
	struct mcp_server srv;
	struct reader r;
	struct state st;
	struct qline *q;
	char why[2 * PATH_MAX + 512], *end;
	unsigned long long v;
	int ch, rc;

	memset(&srv, 0, sizeof srv);
	srv.budget = MCP_READ_BUDGET;
	while ((ch = cli_getopt(c, "", opts)) != -1) {
		switch (ch) {
		case 'd':
			srv.dry_run = 1;
			break;
		case 'a':
			srv.allow_apply = 1;
			break;
		case 'm':
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    v < 1024 || v > MCP_READ_MAX) {
				say_err("mcp: --max-output: %s: bytes from 1024 "
				    "to %zu", optarg, MCP_READ_MAX);
				return EXIT_USAGE;
			}
			srv.budget = (size_t)v;
			break;
		default:
			cmd_usage("mcp");
			return EXIT_USAGE;
		}
	}
	if (optind != c->argc) {
		cmd_usage("mcp");
		return EXIT_USAGE;
	}
	if (c->dry_run)
		srv.dry_run = 1;	/* given before the command: the same */
	srv.session = c->session;
	srv.dir_given = c->dir != NULL;
	memset(&st, 0, sizeof st);
	why[0] = '\0';
	if (check_workspace(c, srv.dry_run, why, sizeof why) < 0)
		st.failed = why;
	/*
	 * A workspace that is /, the home, a system folder or the state
	 * dir: refused. Given with -C, the server does not start; else
	 * (a client started it there) it waits for the client's roots and
	 * its file tools say how to choose one.
	 */
	else if (set_workspace(&srv, c->dir != NULL ? c->dir : ".", c->dir !=
	    NULL ? "-C" : "the current folder") < 0) {
		if (srv.dir_given) {
			say_err("%s", srv.why);
			snprintf(why, sizeof why, "arcturn: %s", srv.why);
			st.failed = why;
		} else
			say_note("%s", srv.why);
	}
	if (st.failed == NULL && mcp_self_path(srv.self, sizeof srv.self) < 0) {
		snprintf(why, sizeof why, "arcturn: mcp: the arcturn binary's "
		    "own path: %s", strerror(errno));
		say_err("%s", why + 9);
		st.failed = why;
	}
	/* under --json the document said it: no protocol after it */
	if (st.failed != NULL && c->json) {
		free(srv.dir);
		return EXIT_USAGE;
	}
	/* a client gone: EPIPE from write, not a signal */
	signal(SIGPIPE, SIG_IGN);
	/* stdout is the protocol's from here: no error document on it */
	say_start(NULL, 0);
	st.srv = &srv;
	st.qtail = &st.qhead;
	st.htail = &st.hhead;
	mcp_jobs_init(&st.jobs);
	memset(&r, 0, sizeof r);
	r.fd = STDIN_FILENO;
	rc = serve(&st, &r);
	unhold(&st);
	while ((q = st.qhead) != NULL) {
		st.qhead = q->next;
		mem_free(q);
	}
	mem_free(r.line);
	free(srv.dir);
	return rc;
}
