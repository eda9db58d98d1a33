/*
 * `arcturn mcp`: the MCP server's front end, its line reader and its
 * JSON-RPC dispatch (mcp.h). The tools are in mcp_tools.c.
 */
#include <errno.h>
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

/* stdin, a line at a time, no line longer than MCP_LINE_MAX kept. */
struct reader {
	int	 fd;
	char	 chunk[65536];
	size_t	 pos, n;
	char	*line;
	size_t	 len, size;
	int	 skipping;	/* in a line over the cap: dropped to its end */
};

enum { LINE_EOF, LINE_OK, LINE_BIG, LINE_ERR };

static int
line_add(struct reader *r, const char *p, size_t n)
{
	size_t want = r->len + n + 1, sz;
	char *q;

	if (want > r->size) {
		for (sz = r->size ? r->size : 4096; sz < want; sz *= 2)
			;
		if ((q = mem_realloc(r->line, sz)) == NULL)
			return -1;
		r->line = q;
		r->size = sz;
	}
	memcpy(r->line + r->len, p, n);
	r->len += n;
	r->line[r->len] = '\0';
	return 0;
}

/*
 * The next line (without its newline) in r->line, r->len bytes: LINE_OK;
 * LINE_BIG for one over the cap, read to its end and dropped; LINE_EOF at
 * the end of input (a last line without a newline is dropped: a message
 * cut short); LINE_ERR with errno.
 */
static int
next_line(struct reader *r)
{
	const char *nl;
	size_t take;
	ssize_t n;

	r->len = 0;
	if (r->line != NULL)
		r->line[0] = '\0';
	for (;;) {
		while (r->pos < r->n) {
			nl = memchr(r->chunk + r->pos, '\n', r->n - r->pos);
			take = nl != NULL ? (size_t)(nl - (r->chunk + r->pos)) :
			    r->n - r->pos;
			if (!r->skipping && r->len + take > MCP_LINE_MAX) {
				r->skipping = 1;
				r->len = 0;
			}
			if (!r->skipping &&
			    line_add(r, r->chunk + r->pos, take) < 0)
				return LINE_ERR;
			r->pos += take + (nl != NULL);
			if (nl == NULL)
				continue;
			if (r->skipping) {
				r->skipping = 0;
				return LINE_BIG;
			}
			if (r->len > 0 && r->line[r->len - 1] == '\r')
				r->line[--r->len] = '\0';
			return LINE_OK;
		}
		r->pos = r->n = 0;
		n = read(r->fd, r->chunk, sizeof r->chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return LINE_ERR;
		if (n == 0)
			return LINE_EOF;
		r->n = (size_t)n;
	}
}

struct state {
	const struct mcp_server	*srv;
	int			 initialized;
	int			 write_failed;
};

/* Write one message as one line to stdout; a failure ends the server. */
static void
send_msg(struct state *st, cJSON *msg)
{
	char *s;
	size_t len, off = 0;
	ssize_t n;

	if (msg == NULL || (s = cJSON_PrintUnformatted(msg)) == NULL) {
		say_note("mcp: out of memory; a reply is lost");
		cJSON_Delete(msg);
		return;
	}
	cJSON_Delete(msg);
	len = strlen(s);
	s[len] = '\n';	/* over the NUL: the line is written by length */
	while (off < len + 1) {
		n = write(STDOUT_FILENO, s + off, len + 1 - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			say_errno("mcp: write to standard output");
			st->write_failed = 1;
			break;
		}
		off += (size_t)n;
	}
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
	if (strcmp(method, "initialize") == 0) {
		if ((res = initialize(params, msg, sizeof msg)) == NULL) {
			send_error(st, id, MCP_EPARAMS, msg);
			return;
		}
		st->initialized = 1;
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
	if ((rc = mcp_tools_call(st->srv, name->valuestring, args, &res, msg,
	    sizeof msg)) != 0)
		send_error(st, id, rc, msg);
	else
		send_result(st, id, res);
}

/* One line from the client. */
static void
handle(struct state *st, const char *line, size_t len)
{
	const cJSON *id, *method, *ver;
	const char *end = NULL;
	cJSON *m;

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
		cJSON_Delete(m);	/* a response: we ask nothing */
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
		if (strcmp(method->valuestring, "notifications/initialized") ==
		    0 && !st->initialized)
			say_note("mcp: notifications/initialized before "
			    "initialize; ignored");
	} else
		request(st, method->valuestring, id,
		    cJSON_GetObjectItemCaseSensitive(m, "params"));
	cJSON_Delete(m);
}

/*
 * The workspace, its config and policy are checked once here, so that a
 * server that cannot work says so at once (each call loads them again).
 */
static int
check_workspace(struct cli *c, int dry)
{
	struct dryrun_err e = { .status = EXIT_USAGE };
	struct dryrun x;
	int rc;

	dryrun_init(&x);
	rc = dryrun_load(&x, c, dry, &e);
	if (rc < 0)
		dryrun_report("mcp", &e);
	dryrun_done(&x);
	return rc < 0 ? -1 : 0;
}

int
cmd_mcp(struct cli *c)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'd' },
		{ "allow-apply", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 }
	};
	struct mcp_server srv;
	struct reader r;
	struct state st;
	int ch, rc = 0;

	memset(&srv, 0, sizeof srv);
	while ((ch = cli_getopt(c, "", opts)) != -1) {
		switch (ch) {
		case 'd':
			srv.dry_run = 1;
			break;
		case 'a':
			srv.allow_apply = 1;
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
	if (check_workspace(c, srv.dry_run) < 0)
		return EXIT_USAGE;
	if ((srv.dir = realpath(c->dir != NULL ? c->dir : ".", NULL)) ==
	    NULL) {
		say_errno("mcp: %s", c->dir != NULL ? c->dir : ".");
		return EXIT_USAGE;
	}
	if (mcp_self_path(srv.self, sizeof srv.self) < 0) {
		say_errno("mcp: the arcturn binary's own path");
		free(srv.dir);
		return EXIT_USAGE;
	}
	srv.session = c->session;
	/* a client gone: EPIPE from write, not a signal */
	signal(SIGPIPE, SIG_IGN);
	/* stdout is the protocol's from here: no error document on it */
	say_start(NULL, 0);
	memset(&st, 0, sizeof st);
	st.srv = &srv;
	memset(&r, 0, sizeof r);
	r.fd = STDIN_FILENO;
	while (!st.write_failed) {
		switch (next_line(&r)) {
		case LINE_OK:
			if (strspn(r.line, " \t") != r.len)
				handle(&st, r.line, r.len);
			continue;
		case LINE_BIG:
			send_error(&st, NULL, MCP_EREQUEST, "invalid request: "
			    "message over 4194304 bytes (4 MiB); skipped");
			continue;
		case LINE_ERR:
			say_errno("mcp: read from standard input");
			rc = EXIT_USAGE;
			break;
		}
		break;
	}
	if (st.write_failed)
		rc = EXIT_USAGE;
	mem_free(r.line);
	free(srv.dir);
	return rc;
}
