/*
 * The MCP server's tools (mcp.h): their schemas, their argument checks,
 * and what each does. read_file and edit_file's read run here through
 * wsview, as `arcturn read` does, and edit_file's replacement is `arcturn
 * edit`'s (lib/edit.h); every write, command, review, discard and apply
 * runs the arcturn binary as a child with the CLI's arguments.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_dryrun.h"
#include "diff/udiff.h"
#include "lib/edit.h"
#include "lib/hash.h"
#include "lib/mem.h"
#include "lib/utf8.h"
#include "mcp/mcp.h"
#include "mcp/mcp_args.h"
#include "mcp/mcp_json.h"
#include "mcp/mcp_tools.h"
#include "session/workspace.h"
#include "session/wsview.h"

int
mcp_policy(const struct mcp_server *srv, const char *what, int *mode,
    int *dry, char *why, size_t len)
{
	struct workspace_err e = { .status = EXIT_USAGE };
	struct cli c;
	struct workspace x;
	int rc;

	memset(&c, 0, sizeof c);
	c.dir = srv->dir;
	c.session = srv->session;
	workspace_init(&x, &dryrun_notes);
	*mode = MODE_WORKSPACE_WRITE;
	*dry = srv->dry_run;
	if ((rc = dryrun_load(&x, &c, srv->dry_run, &e)) == 0) {
		*mode = x.p.mode;
		*dry = x.p.dry_run;
	} else if (why != NULL)
		dryrun_line(what, &e, why, len);
	workspace_done(&x);
	return rc;
}

int
mcp_dry(const struct mcp_server *srv)
{
	int mode, dry;

	(void)mcp_policy(srv, NULL, &mode, &dry, NULL, 0);
	return dry;
}

/*
 * Read path as `arcturn read` does (for an edit: as `arcturn edit` does,
 * the session only under dry run). 0 with *buf, *len, *dry (writes go to
 * the session); else -1 with line filled.
 */
static int
view_read(const struct mcp_server *srv, const char *what, const char *path,
    int edit, char **buf, size_t *len, int *dry, char *line, size_t size)
{
	struct workspace_err e = { .status = EXIT_USAGE };
	struct cli c;
	struct wsview v = { NULL, -1 };
	struct workspace x;
	char *rel = NULL;
	int r, flags;

	memset(&c, 0, sizeof c);
	c.dir = srv->dir;
	c.session = srv->session;
	workspace_init(&x, &dryrun_notes);
	if (dryrun_load(&x, &c, srv->dry_run, &e) < 0 ||
	    (r = workspace_resolve(&x, path, edit && x.p.dry_run, &rel,
	    &e)) < 0)
		goto out;
	*dry = x.p.dry_run;
	flags = r == 0 ? WORKSPACE_VIEW_ROOT : 0;
	if (r == 0 && (x.p.dry_run || (!edit && x.named)))
		flags |= WORKSPACE_VIEW_SESSION;
	if (workspace_view(&x, what, flags, &v, &e) < 0)
		goto out;
	if (wsview_read(&v, rel, MCP_READ_MAX, buf, len) < 0)
		workspace_fail(&e, EXIT_REFUSED, errno, path, NULL);
	else
		e.status = 0;
out:
	if (e.status != 0)
		dryrun_line(what, &e, line, size);
	mem_free(rel);
	workspace_done(&x);
	return e.status == 0 ? 0 : -1;
}

/*
 * Lines offset.. (1-based) of text, limit of them (0: all), within
 * MCP_READ_BUDGET bytes (at least one line, cut at a character if it
 * alone is over): *start, *n bytes; *shown lines, *total lines in all,
 * *cut when the budget stopped it.
 */
static void
pick_lines(const char *text, size_t len, long offset, long limit,
    size_t *start, size_t *n, long *shown, long *total, int *cut)
{
	const char *p = text, *end = text + len, *nl;
	size_t b, e;
	long line = 1;

	*total = 0;
	for (p = text; p < end; p = nl + 1) {
		(*total)++;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			break;
	}
	for (p = text; line < offset && p < end; line++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		p = nl != NULL ? nl + 1 : end;
	}
	b = (size_t)(p - text);
	*shown = 0;
	*cut = 0;
	e = b;
	while (p < end && (limit == 0 || *shown < limit)) {
		nl = memchr(p, '\n', (size_t)(end - p));
		e = nl != NULL ? (size_t)(nl + 1 - text) : len;
		if (e - b > MCP_READ_BUDGET) {
			*cut = 1;
			if (*shown == 0) {	/* one long line: a part */
				e = b + MCP_READ_BUDGET;
				while (e > b && ((unsigned char)text[e] &
				    0xc0) == 0x80)
					e--;
				*shown = 1;
			} else
				e = (size_t)(p - text);
			break;
		}
		(*shown)++;
		p = text + e;
	}
	*start = b;
	*n = e - b;
}

static cJSON *
tool_read(const struct mcp_server *srv, const char *path, long offset,
    long limit)
{
	char line[PATH_MAX + 512], note[256], *buf = NULL, *text, *part, *t;
	size_t len = 0, start, n;
	long shown, total;
	cJSON *o, *r;
	int dry, cut;

	if (view_read(srv, "read", path, 0, &buf, &len, &dry, line,
	    sizeof line) < 0)
		return mcp_result(NULL, line, 1);
	text = utf8_clean(buf, len, 0);
	mem_free(buf);
	if (text == NULL)
		return errno == EILSEQ ? mcp_fail("arcturn: read: %s: not "
		    "UTF-8 text (a NUL byte or an invalid sequence); read_file "
		    "returns text only", path) : NULL;
	pick_lines(text, strlen(text), offset, limit, &start, &n, &shown,
	    &total, &cut);
	note[0] = '\0';
	if (cut)
		snprintf(note, sizeof note, "\n[arcturn: lines %ld-%ld of %ld "
		    "shown (at most %zu bytes a call); call read_file with "
		    "offset %ld to read on]\n", offset, offset + shown - 1,
		    total, MCP_READ_BUDGET, offset + shown);
	part = mem_strndup(text + start, n);
	mem_free(text);
	if (part == NULL)
		return NULL;
	if ((o = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(o, "path", path) == NULL ||
	    cJSON_AddStringToObject(o, "content", part) == NULL ||
	    cJSON_AddNumberToObject(o, "bytes", (double)len) == NULL ||
	    cJSON_AddNumberToObject(o, "offset", (double)offset) == NULL ||
	    cJSON_AddNumberToObject(o, "lines", (double)shown) == NULL ||
	    cJSON_AddNumberToObject(o, "totalLines", (double)total) == NULL ||
	    cJSON_AddBoolToObject(o, "truncated", cut) == NULL ||
	    (t = mem_alloc(n + strlen(note) + 1)) == NULL) {
		cJSON_Delete(o);
		mem_free(part);
		return NULL;
	}
	memcpy(t, part, n);
	strcpy(t + n, note);
	mem_free(part);
	r = mcp_result(o, t, 0);
	mem_free(t);
	return r;
}

/* The argv of a child: arcturn -C DIR [--session ID] then words. */
char **
mcp_argv(const struct mcp_server *srv, char *const *words, size_t nwords,
    char *const *more, size_t nmore)
{
	char **v;
	size_t n = 0;

	if ((v = mem_calloc(nwords + nmore + 6, sizeof *v)) == NULL)
		return NULL;
	v[n++] = "arcturn";
	if (srv->dir != NULL) {		/* none: sandbox_status only */
		v[n++] = "-C";
		v[n++] = srv->dir;
	}
	if (srv->session != NULL) {
		v[n++] = "--session";
		v[n++] = (char *)srv->session;
	}
	memcpy(v + n, words, nwords * sizeof *v);
	n += nwords;
	if (nmore > 0)
		memcpy(v + n, more, nmore * sizeof *v);
	return v;
}

/*
 * The error line a failed child printed last (or one saying how it
 * ended): 1 when it printed one, else 0.
 */
int
mcp_child_line(const char *what, const struct mcp_run *r, char *buf,
    size_t size)
{
	const char *p, *best = NULL;
	size_t n = 0;

	for (p = r->err; *p != '\0'; p += strcspn(p, "\n"), p += *p == '\n') {
		n = strcspn(p, "\n");
		if (strncmp(p, "arcturn: ", 9) == 0 &&
		    strncmp(p, "arcturn: warning", 16) != 0)
			best = p;
	}
	if (best != NULL) {
		n = strcspn(best, "\n");
		snprintf(buf, size, "%.*s", (int)n, best);
		return 1;
	}
	if (r->sig != 0)
		snprintf(buf, size, "arcturn: %s: killed by signal %d", what,
		    r->sig);
	else
		snprintf(buf, size, "arcturn: %s: failed with exit status %d",
		    what, r->status);
	return 0;
}

/*
 * What a write child refused by the policy said in its --json error
 * document (schema/error.json: code outside_roots or protected), as the
 * isError result's structuredContent: {deniedPaths: [path], code, hint}.
 * NULL for any other failure (or out of memory: the text still says it).
 */
static cJSON *
denial(const struct mcp_run *r)
{
	const cJSON *e, *code, *path, *hint;
	cJSON *doc, *o = NULL, *a;

	if (r->out == NULL || (doc = cJSON_Parse(r->out)) == NULL)
		return NULL;
	e = cJSON_GetObjectItemCaseSensitive(doc, "error");
	code = cJSON_GetObjectItemCaseSensitive(e, "code");
	path = cJSON_GetObjectItemCaseSensitive(e, "path");
	hint = cJSON_GetObjectItemCaseSensitive(e, "hint");
	if (cJSON_IsString(code) && cJSON_IsString(path) &&
	    (strcmp(code->valuestring, "outside_roots") == 0 ||
	    strcmp(code->valuestring, "protected") == 0) &&
	    ((o = cJSON_CreateObject()) == NULL ||
	    (a = cJSON_AddArrayToObject(o, "deniedPaths")) == NULL ||
	    !cJSON_AddItemToArray(a, cJSON_CreateString(path->valuestring)) ||
	    cJSON_GetArraySize(a) != 1 ||
	    cJSON_AddStringToObject(o, "code", code->valuestring) == NULL ||
	    (cJSON_IsString(hint) && cJSON_AddStringToObject(o, "hint",
	    hint->valuestring) == NULL))) {
		cJSON_Delete(o);
		o = NULL;
	}
	cJSON_Delete(doc);
	return o;
}

/*
 * mcp_child; with denials, the child was asked for --json and a policy
 * refusal adds denial()'s structuredContent to the isError result.
 */
static int
child(const struct mcp_server *srv, const char *what, char *const *words,
    size_t nwords, char *const *more, size_t nmore, const char *in,
    size_t inlen, int denials, struct mcp_run *r, cJSON **res)
{
	char line[PATH_MAX + 512];
	struct mcp_server q = *srv;

	memset(r, 0, sizeof *r);
	/*
	 * progress is the call's own command's; apply's counts files
	 * (apply_changes gave it --progress-fd MCP_PROGRESS_FD)
	 */
	if (strcmp(what, "apply") == 0 && q.progress_files != NULL)
		r->progress_fd = MCP_PROGRESS_FD;
	else
		q.progress = NULL;
	srv = &q;
	r->in = in;
	r->inlen = inlen;
	r->cap = MCP_READ_MAX;	/* a full diff, a status report */
	r->timeout_ms = MCP_TIMEOUT_MS;
	if ((r->argv = mcp_argv(srv, words, nwords, more, nmore)) == NULL) {
		*res = NULL;
		return -1;
	}
	if (mcp_run(srv, r) < 0) {
		*res = mcp_fail("arcturn: %s: cannot run %s: %s", what,
		    srv->self, strerror(errno));
		mem_free(r->argv);
		return -1;
	}
	mem_free(r->argv);
	r->argv = NULL;
	if (r->status == 0)
		return 0;
	mcp_child_line(what, r, line, sizeof line);
	*res = mcp_result(denials ? denial(r) : NULL, line, 1);
	mcp_run_free(r);
	return -1;
}

/*
 * Run a child with words (and more), stdin in. 0 when it exited 0;
 * else -1 with *res set to the isError result (NULL: out of memory).
 */
int
mcp_child(const struct mcp_server *srv, const char *what, char *const *words,
    size_t nwords, char *const *more, size_t nmore, const char *in,
    size_t inlen, struct mcp_run *r, cJSON **res)
{
	return child(srv, what, words, nwords, more, nmore, in, inlen, 0, r,
	    res);
}

static cJSON *
write_result(const char *path, size_t bytes, int dry, const char *diff)
{
	cJSON *o;

	if ((o = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(o, "path", path) == NULL ||
	    cJSON_AddNumberToObject(o, "bytes", (double)bytes) == NULL ||
	    cJSON_AddBoolToObject(o, "captured", dry) == NULL ||
	    (diff != NULL && cJSON_AddStringToObject(o, "diff", diff) ==
	    NULL)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/*
 * Write content to path through `arcturn write`: the CLI's policy. Its
 * --json error says what a refusal's structuredContent holds (denial());
 * the document of a write that worked is not needed.
 */
static cJSON *
put(const struct mcp_server *srv, const char *what, const char *path,
    const char *content, size_t len, const char *want, const char *diff)
{
	char *w[8];
	struct mcp_run r;
	const cJSON *turn;
	cJSON *res, *o, *doc;
	char *txt;
	size_t n = 0;
	int dry;

	w[n++] = "write";
	w[n++] = "--json";
	if (srv->dry_run)
		w[n++] = "--dry-run";
	if (want != NULL) {	/* only over the bytes the edit was made on */
		w[n++] = "--expect-sha256";
		w[n++] = (char *)want;
	}
	w[n++] = "--";
	w[n++] = (char *)path;
	if (child(srv, what, w, n, NULL, 0, content, len, 1, &r, &res) < 0)
		return res;
	/* the turn the write is undone by (arcturn undo), null under dry run */
	doc = cJSON_Parse(r.out);
	turn = cJSON_GetObjectItemCaseSensitive(doc, "turn");
	mcp_run_free(&r);
	/* the same choice `arcturn write` made */
	dry = mcp_dry(srv);
	if ((o = write_result(path, len, dry, diff)) == NULL ||
	    (cJSON_IsNumber(turn) ? cJSON_AddNumberToObject(o, "turn",
	    turn->valuedouble) : cJSON_AddNullToObject(o, "turn")) == NULL) {
		cJSON_Delete(doc);
		cJSON_Delete(o);
		return NULL;
	}
	cJSON_Delete(doc);
	if (diff != NULL)
		return mcp_result(o, diff[0] ? diff : "no change", 0);
	if ((txt = cJSON_PrintUnformatted(o)) == NULL) {
		cJSON_Delete(o);
		return NULL;
	}
	res = mcp_result(o, txt, 0);
	cJSON_free(txt);
	return res;
}

static int
collect(const void *buf, size_t len, void *arg)
{
	struct { char *p; size_t len; } *s = arg;
	char *q;

	if ((q = mem_realloc(s->p, s->len + len + 1)) == NULL)
		return -1;
	memcpy(q + s->len, buf, len);
	s->p = q;
	s->len += len;
	s->p[s->len] = '\0';
	return 0;
}

/*
 * Apply edits to buf in memory (edit.h, the core `arcturn edit` shares):
 * each oldText exactly once, in order. NULL with *fail the isError
 * result (NULL too: out of memory).
 */
static char *
apply_edits(const cJSON *edits, const char *path, const char *buf,
    size_t len, size_t *outlen, cJSON **fail)
{
	const cJSON *ed, *o, *nw;
	struct edit *v;
	struct edit_result r;
	char *out = NULL, why[64];
	size_t n = 0;

	*fail = NULL;
	if ((v = mem_calloc((size_t)cJSON_GetArraySize(edits) + 1,
	    sizeof *v)) == NULL)
		return NULL;
	cJSON_ArrayForEach(ed, edits) {
		o = cJSON_GetObjectItemCaseSensitive(ed, "oldText");
		nw = cJSON_GetObjectItemCaseSensitive(ed, "newText");
		v[n++] = (struct edit){ o->valuestring, mcp_json_strlen(o),
		    nw->valuestring, mcp_json_strlen(nw), 0 };
	}
	if (edit_apply(buf, len, v, n, &out, outlen, &r) < 0 &&
	    r.why != EDIT_ERRNO)
		*fail = mcp_fail("arcturn: edit: %s: edit %zu: %s%s", path,
		    r.index + 1, edit_reason(&r, why, sizeof why),
		    r.why == EDIT_MANY ? "; add more context" : "");
	mem_free(v);
	return out;
}

static cJSON *
tool_edit(const struct mcp_server *srv, const char *path, const cJSON *edits,
    int preview)
{
	struct { char *p; size_t len; } d = { NULL, 0 };
	struct udiff_opts uo = { 3, -1, 0, 0 };
	struct udiff_side a = { UDIFF_FILE, 0100644, NULL, 0 }, b;
	char line[PATH_MAX + 512], *buf = NULL, *out = NULL, *txt;
	char hex[HASH_HEXLEN + 1];
	unsigned char sha[HASH_LEN];
	size_t len = 0, outlen = 0;
	cJSON *res = NULL, *o;
	int dry;

	if (view_read(srv, "edit", path, 1, &buf, &len, &dry, line,
	    sizeof line) < 0)
		return mcp_result(NULL, line, 1);
	if (memchr(buf, '\0', len) != NULL) {
		mem_free(buf);
		return mcp_fail("arcturn: edit: %s: holds a NUL byte; edit_file "
		    "edits text only", path);
	}
	if ((out = apply_edits(edits, path, buf, len, &outlen, &res)) == NULL)
		goto done;
	a.data = buf;
	a.len = len;
	b = a;
	b.data = out;
	b.len = outlen;
	if ((d.p = mem_strdup("")) == NULL ||
	    udiff_file(path, &a, &b, &uo, collect, &d, NULL, NULL) < 0 ||
	    (txt = utf8_clean(d.p, d.len, 1)) == NULL)
		goto done;
	if (!preview) {
		/* the write lands only over what was read (wsview.h) */
		hash_buf(buf, len, sha);
		hash_hex(sha, hex);
		res = put(srv, "edit", path, out, outlen, hex, txt);
	} else if ((o = write_result(path, outlen, 0, txt)) != NULL &&
	    cJSON_ReplaceItemInObject(o, "captured", cJSON_CreateFalse()))
		res = mcp_result(o, txt[0] ? txt : "no change", 0);
	mem_free(txt);
done:
	mem_free(d.p);
	mem_free(buf);
	mem_free(out);
	return res;
}

static int
check_edits(const cJSON *edits, char *msg, size_t msglen)
{
	const cJSON *e, *o, *n;
	char key[64];
	long k = 0;

	if (!cJSON_IsArray(edits) || cJSON_GetArraySize(edits) == 0)
		return mcp_bad(msg, msglen, -1, "invalid arguments: edits must "
		    "be a non-empty array of {oldText, newText}");
	cJSON_ArrayForEach(e, edits) {
		o = cJSON_GetObjectItemCaseSensitive(e, "oldText");
		n = cJSON_GetObjectItemCaseSensitive(e, "newText");
		if (!cJSON_IsObject(e) || !cJSON_IsString(o) ||
		    !cJSON_IsString(n) || o->valuestring[0] == '\0')
			return mcp_bad(msg, msglen, -1, "invalid arguments: "
			    "each edit is {oldText, newText}, strings, oldText "
			    "not empty");
		/* edit_file edits text: a NUL in either is refused */
		snprintf(key, sizeof key, "edits[%ld].oldText", k);
		if (mcp_arg_check(key, -1, o->valuestring, mcp_json_strlen(o), 0,
		    msg, msglen) < 0)
			return -1;
		snprintf(key, sizeof key, "edits[%ld].newText", k++);
		if (mcp_arg_check(key, -1, n->valuestring, mcp_json_strlen(n), 0,
		    msg, msglen) < 0)
			return -1;
	}
	return 0;
}

int
mcp_files_call(const struct mcp_server *srv, const char *name,
    const cJSON *args, cJSON **result, char *msg, size_t msglen)
{
	static const char *const k_read[] = { "path", "offset", "limit",
	    NULL };
	static const char *const k_write[] = { "path", "content", NULL };
	static const char *const k_edit[] = { "path", "edits", "dryRun", NULL };
	const char *path = NULL, *content = NULL;
	size_t clen = 0;
	long offset = 0, limit = 0;
	int preview = 0;

	*result = NULL;
	if (strcmp(name, "read_file") == 0) {
		if (mcp_arg_only(args, k_read, msg, msglen) < 0 ||
		    mcp_arg_str(args, "path", MCP_ARG_REQUIRED | MCP_ARG_PATH,
		    &path, NULL, msg, msglen) < 0 ||
		    mcp_arg_count(args, "offset", 1L << 30, 0, &offset, msg,
		    msglen) < 0 ||
		    mcp_arg_count(args, "limit", 1L << 30, 0, &limit, msg,
		    msglen) < 0)
			return MCP_BADARGS;
		*result = tool_read(srv, path, offset ? offset : 1, limit);
	} else if (strcmp(name, "write_file") == 0) {
		if (mcp_arg_only(args, k_write, msg, msglen) < 0 ||
		    mcp_arg_str(args, "path", MCP_ARG_REQUIRED | MCP_ARG_PATH,
		    &path, NULL, msg, msglen) < 0 ||
		    mcp_arg_str(args, "content", MCP_ARG_REQUIRED |
		    MCP_ARG_BYTES, &content, &clen, msg, msglen) < 0)
			return MCP_BADARGS;
		*result = put(srv, "write", path, content, clen, NULL, NULL);
	} else if (strcmp(name, "edit_file") == 0) {
		if (mcp_arg_only(args, k_edit, msg, msglen) < 0 ||
		    mcp_arg_str(args, "path", MCP_ARG_REQUIRED | MCP_ARG_PATH,
		    &path, NULL, msg, msglen) < 0 ||
		    check_edits(cJSON_GetObjectItemCaseSensitive(args, "edits"),
		    msg, msglen) < 0 ||
		    mcp_arg_bool(args, "dryRun", &preview, msg, msglen) < 0)
			return MCP_BADARGS;
		*result = tool_edit(srv, path, cJSON_GetObjectItemCaseSensitive(
		    args, "edits"), preview);
	} else
		return mcp_bad(msg, msglen, MCP_EPARAMS, "unknown tool: %.200s",
		    name);
	if (*result == NULL)
		return mcp_bad(msg, msglen, MCP_EINTERNAL, "out of memory");
	return 0;
}
