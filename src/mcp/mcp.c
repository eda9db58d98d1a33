/*
 * `arcturn mcp`: the MCP server's front end and its JSON-RPC dispatch
 * (mcp.h). Its input is read by mcp_lines.c, the tools are in
 * mcp_tools.c.
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
#include "mcp/mcp_lines.h"
#include "policy/config_check.h"

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
	struct qline		*qhead, **qtail;
	size_t			 qbytes;
	struct qline		*hhead, **htail; /* held for the roots */
	struct reader		*r;
	const cJSON		*call;		/* the id of the running call */
	int			 cancelled;	/* it was cancelled: no reply */
	int			 gone;		/* stdin ended during a call */
};

/* What a client may queue during one call before it is read no more. */
#define MCP_QUEUE_MAX	((size_t)64 << 20)

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
	st->qbytes += len;
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

static void
defer(struct state *st, const char *line, size_t len)
{
	keep(st, line, len, 0);
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
	struct dryrun_err e = { .status = EXIT_USAGE };
	struct dryrun x;
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
	dryrun_init(&x);
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
	dryrun_done(&x);
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

static int	drain(struct state *);

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
	st->call = id;
	st->cancelled = 0;
	/*
	 * Lines read with this one are seen now, not after the call: the
	 * watch sees only what stdin has not yet given (a ping sent just
	 * after the call, a cancel of it).
	 */
	if (drain(st))
		res = NULL, rc = 0;
	else
		rc = mcp_tools_call(st->srv, name->valuestring, args, &res,
		    msg, sizeof msg);
	st->call = NULL;
	if (st->cancelled || st->gone) {
		/* cancelled: the spec wants no reply; gone: none is read */
		cJSON_Delete(res);
		return;
	}
	if (rc != 0)
		send_error(st, id, rc, msg);
	else
		send_result(st, id, res);
}

static int
same_id(const cJSON *a, const cJSON *b)
{
	if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
		return a->valuedouble == b->valuedouble;
	return cJSON_IsString(a) && cJSON_IsString(b) &&
	    strcmp(a->valuestring, b->valuestring) == 0;
}

/*
 * A line that came while a call runs: a ping is answered now, a
 * notifications/cancelled for the call stops it (1), anything else waits
 * for the call to end.
 */
static int
during_call(struct state *st, const char *line, size_t len)
{
	const cJSON *id, *method, *params;
	const char *end = NULL;
	cJSON *m;
	int stop = 0;

	m = cJSON_ParseWithLengthOpts(line, len + 1, &end, 1);
	id = cJSON_GetObjectItemCaseSensitive(m, "id");
	method = cJSON_GetObjectItemCaseSensitive(m, "method");
	params = cJSON_GetObjectItemCaseSensitive(m, "params");
	if (m != NULL && end == line + len && cJSON_IsString(method) &&
	    strcmp(method->valuestring, "ping") == 0 &&
	    (cJSON_IsNumber(id) || cJSON_IsString(id)))
		send_result(st, id, cJSON_CreateObject());
	else if (m != NULL && end == line + len && id == NULL &&
	    cJSON_IsString(method) &&
	    strcmp(method->valuestring, "notifications/cancelled") == 0 &&
	    same_id(cJSON_GetObjectItemCaseSensitive(params, "requestId"),
	    st->call))
		stop = st->cancelled = 1;
	else
		defer(st, line, len);
	cJSON_Delete(m);
	return stop;
}

/* The lines already read, as during_call takes them: 1 to stop. */
static int
drain(struct state *st)
{
	struct reader *r = st->r;
	int rc, stop = 0;

	while (!stop && (rc = lines_take(r)) != LINE_NONE) {
		if (rc == LINE_BIG)
			send_error(st, NULL, MCP_EREQUEST, "invalid request: "
			    "message over 4194304 bytes (4 MiB); skipped");
		else if (rc == LINE_ERR)
			break;
		else if (strspn(r->line, " \t") != r->len)
			stop = during_call(st, r->line, r->len);
	}
	return stop;
}

/* The server's watch on stdin while a call runs (mcp.h). */
static int
watch(void *arg)
{
	struct state *st = arg;
	struct reader *r = st->r;

	if (r->pos < r->n)
		return MCP_WATCH_IGNORE;	/* not drained: cannot read */
	if (lines_fill(r) <= 0) {
		/* the client is gone (or stdin broke): end the call now */
		st->gone = 1;
		return MCP_WATCH_STOP;
	}
	if (drain(st))
		return MCP_WATCH_STOP;
	/* what is left of the chunk waits in it: read no more for now */
	if (r->pos < r->n || st->qbytes > MCP_QUEUE_MAX)
		return MCP_WATCH_IGNORE;
	return MCP_WATCH_GO;
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
		if (strcmp(method->valuestring, "notifications/initialized") ==
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
	struct qline *q;
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
	srv.session = c->session;
	srv.dir_given = c->dir != NULL;
	if (check_workspace(c, srv.dry_run) < 0)
		return EXIT_USAGE;
	/*
	 * A workspace that is /, the home, a system folder or the state
	 * dir: refused. Given with -C, the server does not start; else
	 * (a client started it there) it waits for the client's roots and
	 * its file tools say how to choose one.
	 */
	if (set_workspace(&srv, c->dir != NULL ? c->dir : ".", c->dir !=
	    NULL ? "-C" : "the current folder") < 0) {
		if (srv.dir_given) {
			say_err("%s", srv.why);
			return EXIT_USAGE;
		}
		say_note("%s", srv.why);
	}
	if (mcp_self_path(srv.self, sizeof srv.self) < 0) {
		say_errno("mcp: the arcturn binary's own path");
		free(srv.dir);
		return EXIT_USAGE;
	}
	/* a client gone: EPIPE from write, not a signal */
	signal(SIGPIPE, SIG_IGN);
	/* stdout is the protocol's from here: no error document on it */
	say_start(NULL, 0);
	memset(&st, 0, sizeof st);
	st.srv = &srv;
	st.qtail = &st.qhead;
	st.htail = &st.hhead;
	st.r = &r;
	memset(&r, 0, sizeof r);
	r.fd = STDIN_FILENO;
	srv.watch = watch;
	srv.watch_arg = &st;
	srv.watch_fd = STDIN_FILENO;
	while (!st.write_failed && !st.gone) {
		if ((q = st.qhead) != NULL) {
			if ((st.qhead = q->next) == NULL)
				st.qtail = &st.qhead;
			st.qbytes -= q->len;
			handle(&st, q->line, q->len);
			mem_free(q);
			continue;
		}
		switch (lines_next(&r)) {
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
	unhold(&st);
	while ((q = st.qhead) != NULL) {
		st.qhead = q->next;
		mem_free(q);
	}
	mem_free(r.line);
	free(srv.dir);
	return rc;
}
