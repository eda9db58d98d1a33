/*
 * The MCP server's command and session tools (mcp.h): run_command,
 * review_changes, discard_changes, sandbox_status, apply_changes. Each
 * runs the arcturn binary as a child with the CLI's own arguments.
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_dryrun.h"
#include "lib/mem.h"
#include "lib/utf8.h"
#include "mcp/mcp.h"
#include "mcp/mcp_tools.h"
#include "sandbox/sandbox.h"
#include "session/keep.h"
#include "session/workspace.h"

/* What `arcturn sandbox status --json` said, once per server. */
static char backend[64];

const char *
mcp_sandbox_backend(const struct mcp_server *srv)
{
	char *w[] = { "--json", "sandbox", "status" };
	const cJSON *b;
	struct mcp_run r;
	cJSON *res = NULL, *o;

	if (backend[0] != '\0')
		return backend;
	if (mcp_child(srv, "sandbox", w, 3, NULL, 0, NULL, 0, &r, &res) < 0) {
		cJSON_Delete(res);
		return "unknown";
	}
	o = cJSON_Parse(r.out);
	b = cJSON_GetObjectItemCaseSensitive(o, "backend");
	snprintf(backend, sizeof backend, "%s", cJSON_IsString(b) ?
	    b->valuestring : "unknown");
	cJSON_Delete(o);
	mcp_run_free(&r);
	return backend;
}

/*
 * A stream as text; cut (more than cap bytes): its head, a line saying
 * what was left out and how to see it, and its tail.
 */
static int
add_stream(cJSON *o, const char *name, const char *buf, size_t len,
    size_t total, int trunc)
{
	char key[32], note[256], *s, *h = NULL, *t = NULL;
	size_t head = MCP_OUT_CAP / 2;
	int ok;

	if (!trunc || len < head)
		s = utf8_clean(buf, len, 1);
	else {
		snprintf(note, sizeof note, "\n[arcturn: %zu bytes of %s left "
		    "out; its first %zu and last %zu bytes are shown (%zu in "
		    "all). To see the rest, redirect it to a file and read_file "
		    "it with offset and limit.]\n", total - len, name, head,
		    len - head, total);
		h = utf8_clean(buf, head, 1);
		t = utf8_clean(buf + head, len - head, 1);
		s = h != NULL && t != NULL ? mem_alloc(strlen(h) +
		    strlen(note) + strlen(t) + 1) : NULL;
		if (s != NULL) {
			strcpy(s, h);
			strcat(s, note);
			strcat(s, t);
		}
		mem_free(h);
		mem_free(t);
	}
	if (s == NULL)
		return -1;
	ok = cJSON_AddStringToObject(o, name, s) != NULL;
	mem_free(s);
	snprintf(key, sizeof key, "%sTruncated", name);
	ok = ok && cJSON_AddBoolToObject(o, key, trunc) != NULL;
	snprintf(key, sizeof key, "%sBytes", name);
	ok = ok && cJSON_AddNumberToObject(o, key, (double)total) != NULL;
	return ok ? 0 : -1;
}

/* At most 64 lowercase hex digits of s into d (65 bytes); no sscanf. */
static void
hexcpy(char *d, const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	n = n > 64 ? 64 : n;
	memcpy(d, s, n);
	d[n] = '\0';
}

static cJSON *
tool_run(const struct mcp_server *srv, char **cmd, size_t ncmd,
    const char *cwd, long timeout, const char *in, size_t inlen)
{
	/*
	 * exec -C WORKSPACE runs the command there; --cwd (relative to the
	 * workspace, never outside it) where the call names a folder
	 */
	char *w[7] = { "exec" };
	char line[PATH_MAX + 512];
	const char *at;
	struct sandbox_end end;
	struct mcp_run r;
	cJSON *o;
	size_t nw = 1;
	long turn = 0;
	int mode, dry, rc, ckpt;

	/* no guess: how the command runs is the policy's word */
	if (mcp_policy(srv, "exec", &mode, &dry, line, sizeof line) < 0)
		return mcp_fail("%s", line);
	/*
	 * Not under dry run, its writes are a turn undo takes back (exec
	 * --checkpoint: the helper's mount layer) and join the turn an
	 * agent began (begin_turn: --join-turn); without the mount layer
	 * they land unrecorded, as checkpointed says.
	 */
	ckpt = !dry && mode != MODE_OFF &&
	    strcmp(mcp_sandbox_backend(srv), "helper+mount") == 0;
	if (srv->dry_run)
		w[nw++] = "--dry-run";
	else if (ckpt) {
		w[nw++] = "--checkpoint";
		w[nw++] = "--join-turn";
	}
	if (cwd != NULL) {
		w[nw++] = "--cwd";
		w[nw++] = (char *)cwd;
	}
	w[nw++] = "--";
	memset(&r, 0, sizeof r);
	r.in = in;
	r.inlen = inlen;
	r.cap = MCP_OUT_CAP;
	r.tail = 1;
	r.timeout_ms = timeout;
	r.argv = mcp_argv(srv, w, nw, cmd, ncmd);
	rc = r.argv != NULL ? mcp_run(srv, &r) : -1;
	mem_free(r.argv);
	if (rc < 0)
		return mcp_fail("arcturn: exec: cannot run %s: %s", srv->self,
		    strerror(errno));
	/*
	 * arcturn itself failed, or the command could not run or be found,
	 * and exec said so (a command's own 125 to 127 is its result)
	 */
	sandbox_end_from(&end, r.status, r.sig, mcp_child_line("exec", &r,
	    line, sizeof line));
	if (!end.ran) {
		mcp_run_free(&r);
		return mcp_result(NULL, line, 1);
	}
	/* the turn: apply's last line on stderr, "... (as turn N)." */
	for (at = r.err; (at = strstr(at, "(as turn ")) != NULL; at++)
		turn = strtol(at + 9, NULL, 10);
	if ((o = cJSON_CreateObject()) == NULL ||
	    cJSON_AddBoolToObject(o, "checkpointed", ckpt) == NULL ||
	    (turn > 0 ? cJSON_AddNumberToObject(o, "turn", (double)turn) :
	    cJSON_AddNullToObject(o, "turn")) == NULL ||
	    (end.sig == 0 ? cJSON_AddNumberToObject(o, "exitCode",
	    end.status) : cJSON_AddNullToObject(o, "exitCode")) == NULL ||
	    (end.sig != 0 ? cJSON_AddNumberToObject(o, "signal", end.sig) :
	    cJSON_AddNullToObject(o, "signal")) == NULL ||
	    cJSON_AddBoolToObject(o, "timedOut", r.timed_out) == NULL ||
	    add_stream(o, "stdout", r.out, r.outlen, r.out_total,
	    r.out_trunc) < 0 ||
	    add_stream(o, "stderr", r.err, r.errlen, r.err_total,
	    r.err_trunc) < 0 ||
	    cJSON_AddNumberToObject(o, "outputCap", (double)MCP_OUT_CAP) ==
	    NULL ||
	    cJSON_AddBoolToObject(o, "confined", mode != MODE_OFF &&
	    strcmp(mcp_sandbox_backend(srv), "none") != 0) == NULL ||
	    cJSON_AddStringToObject(o, "backend", mode == MODE_OFF ? "none" :
	    mcp_sandbox_backend(srv)) == NULL ||
	    cJSON_AddBoolToObject(o, "captured", dry) == NULL) {
		cJSON_Delete(o);
		mcp_run_free(&r);
		return NULL;
	}
	mcp_run_free(&r);
	return mcp_json_result(o);
}

/* `arcturn diff OPTS [-- PATH...]`'s output, or -1 with *res. */
static int
diff_run(const struct mcp_server *srv, const char *opt, char **paths,
    size_t np, struct mcp_run *r, cJSON **res)
{
	char *w[] = { "diff", (char *)opt, "--" };

	if (opt == NULL)
		return mcp_child(srv, "diff", (char *[]){ "diff", "--" }, 2,
		    paths, np, NULL, 0, r, res);
	return mcp_child(srv, "diff", w, 3, paths, np, NULL, 0, r, res);
}

static int
add_files(cJSON *o, const char *ns)
{
	cJSON *arr, *f;
	const char *p, *tab;
	size_t n, count = 0;
	char *path;

	if ((arr = cJSON_AddArrayToObject(o, "files")) == NULL)
		return -1;
	for (p = ns; *p != '\0'; p += n + (p[n] == '\n')) {
		n = strcspn(p, "\n");
		if ((tab = memchr(p, '\t', n)) == NULL)
			continue;
		if ((f = cJSON_CreateObject()) == NULL)
			return -1;
		cJSON_AddItemToArray(arr, f);
		path = mem_strndup(tab + 1, n - (size_t)(tab + 1 - p));
		if (path == NULL || cJSON_AddStringToObject(f, "path", path) ==
		    NULL || cJSON_AddStringToObject(f, "status", (char[]){
		    p[0], '\0' }) == NULL) {
			mem_free(path);
			return -1;
		}
		mem_free(path);
		count++;
	}
	return cJSON_AddNumberToObject(o, "count", (double)count) ? 0 : -1;
}

static cJSON *
tool_review(const struct mcp_server *srv, char **paths, size_t np, int full)
{
	struct mcp_run d, s, ns;
	cJSON *res = NULL, *o, *r;
	const char *dg;
	char *text = NULL, *stat = NULL, *shown, digest[80] = "", note[320];
	size_t len, cut;
	int trunc;

	if (diff_run(srv, full ? "--full" : NULL, paths, np, &d, &res) < 0)
		return res;
	if (diff_run(srv, "--stat", paths, np, &s, &res) < 0) {
		mcp_run_free(&d);
		return res;
	}
	if (diff_run(srv, "--name-status", paths, np, &ns, &res) < 0) {
		mcp_run_free(&d);
		mcp_run_free(&s);
		return res;
	}
	trunc = d.out_trunc || s.out_trunc || ns.out_trunc;
	/* the digest line ends the full diff (none for a part of it) */
	if ((dg = strstr(d.out, "digest: ")) != NULL &&
	    (dg == d.out || dg[-1] == '\n'))
		hexcpy(digest, dg + 8);
	o = NULL;
	note[0] = '\0';
	if ((text = utf8_clean(d.out, d.outlen, 1)) != NULL &&
	    (len = strlen(text)) > MCP_REVIEW_BUDGET) {
		/* cut at a line: the files list and the digest stay whole */
		for (cut = MCP_REVIEW_BUDGET; cut > 0 && text[cut - 1] != '\n';
		    cut--)
			;
		text[cut] = '\0';
		trunc = 1;
		snprintf(note, sizeof note, "\n[arcturn: the diff is %zu bytes; "
		    "the first %zu are shown (at most %zu a call). files lists "
		    "every change: call review_changes with paths, a few at a "
		    "time, to see the rest.]\n", len, cut, MCP_REVIEW_BUDGET);
	}
	if (text == NULL ||
	    (stat = utf8_clean(s.out, s.outlen, 1)) == NULL ||
	    (o = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(o, "diff", text) == NULL ||
	    cJSON_AddStringToObject(o, "stat", stat) == NULL ||
	    (digest[0] ? cJSON_AddStringToObject(o, "digest", digest) :
	    cJSON_AddNullToObject(o, "digest")) == NULL ||
	    add_files(o, ns.out) < 0 ||
	    cJSON_AddBoolToObject(o, "truncated", trunc) == NULL) {
		cJSON_Delete(o);
		o = NULL;
	}
	shown = o != NULL && note[0] != '\0' ?
	    mem_alloc(strlen(text) + strlen(note) + 1) : NULL;
	if (shown != NULL) {
		strcpy(shown, text);
		strcat(shown, note);
	}
	r = o != NULL ? mcp_result(o, shown != NULL ? shown : text[0] ? text :
	    "no pending changes", 0) : NULL;
	mem_free(shown);
	mem_free(text);
	mem_free(stat);
	mcp_run_free(&d);
	mcp_run_free(&s);
	mcp_run_free(&ns);
	return r;
}

/* A child's stdout (trimmed) as {key: text}, the text its rendering. */
static cJSON *
said(struct mcp_run *r, const char *boolkey, const char *key)
{
	cJSON *o, *res;
	char *t;
	size_t n = r->outlen;

	while (n > 0 && r->out[n - 1] == '\n')
		n--;
	t = utf8_clean(r->out, n, 1);
	mcp_run_free(r);
	if (t == NULL || (o = cJSON_CreateObject()) == NULL ||
	    cJSON_AddTrueToObject(o, boolkey) == NULL ||
	    cJSON_AddStringToObject(o, key, t) == NULL) {
		mem_free(t);
		return NULL;
	}
	res = mcp_result(o, t[0] ? t : boolkey, 0);
	mem_free(t);
	return res;
}

static cJSON *
tool_status(const struct mcp_server *srv)
{
	char *w[] = { "--json", "sandbox", "status" };
	struct mcp_run r;
	cJSON *res = NULL, *o;

	if (mcp_child(srv, "sandbox", w, 3, NULL, 0, NULL, 0, &r, &res) < 0)
		return res;
	if ((o = cJSON_Parse(r.out)) == NULL || !cJSON_IsObject(o)) {
		cJSON_Delete(o);
		mcp_run_free(&r);
		return mcp_fail("arcturn: sandbox: status: not a JSON object");
	}
	mcp_run_free(&r);
	return mcp_json_result(o);
}

/* An apply that failed because the digest is not the pending one. */
static int
stale(const cJSON *res)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(res,
	    "content"), 0), "text");

	return cJSON_IsString(t) &&
	    strstr(t->valuestring, "do not match --expect") != NULL;
}

int
mcp_cmds_call(const struct mcp_server *srv, const char *name,
    const cJSON *args, cJSON **result, char *msg, size_t msglen)
{
	static const char *const k_run[] = { "command", "cwd", "timeoutMs",
	    "stdin", NULL };
	static const char *const k_review[] = { "paths", "full", NULL };
	static const char *const k_paths[] = { "paths", NULL };
	static const char *const k_none[] = { NULL };
	static const char *const k_apply[] = { "expect", "paths", NULL };
	char *wd[] = { "discard", "--yes" };
	char *wa[] = { "apply", "--yes", "--expect", NULL, "--progress-fd",
	    NULL, "--" }, fdarg[16];
	const cJSON *t;
	const char *cwd, *in, *expect;
	char **v = NULL;
	size_t n = 0, inlen = 0, nw = 7;
	long timeout = MCP_TIMEOUT_MS;
	struct mcp_run r;
	int full, rc;

	*result = NULL;
	if (strcmp(name, "run_command") == 0) {
		t = cJSON_GetObjectItemCaseSensitive(args, "timeoutMs");
		if ((rc = mcp_arg_only(args, k_run, msg, msglen)) < 0 ||
		    (rc = mcp_arg_strv(args, "command", 1, 0, &v, &n, msg,
		    msglen)) < 0 ||
		    (rc = mcp_arg_str(args, "cwd", MCP_ARG_PATH, &cwd, NULL, msg,
		    msglen)) < 0 ||
		    (rc = mcp_arg_str(args, "stdin", MCP_ARG_BYTES, &in, &inlen,
		    msg, msglen)) < 0)
			goto bad;
		if (t != NULL && (!cJSON_IsNumber(t) || t->valuedouble < 1 ||
		    t->valuedouble > 86400000.0 ||
		    t->valuedouble != (double)(long)t->valuedouble)) {
			rc = mcp_bad(msg, msglen, -1, "invalid arguments: "
			    "timeoutMs must be an integer from 1 to 86400000");
			goto bad;
		}
		if (t != NULL)
			timeout = (long)t->valuedouble;
		*result = tool_run(srv, v, n, cwd, timeout, in, inlen);
	} else if (strcmp(name, "review_changes") == 0) {
		if ((rc = mcp_arg_only(args, k_review, msg, msglen)) < 0 ||
		    (rc = mcp_arg_strv(args, "paths", 0, MCP_ARG_PATH, &v, &n, msg,
		    msglen)) < 0 ||
		    (rc = mcp_arg_bool(args, "full", &full, msg, msglen)) < 0)
			goto bad;
		*result = tool_review(srv, v, n, full);
	} else if (strcmp(name, "discard_changes") == 0) {
		if ((rc = mcp_arg_only(args, k_paths, msg, msglen)) < 0 ||
		    (rc = mcp_arg_strv(args, "paths", 0, MCP_ARG_PATH, &v, &n, msg,
		    msglen)) < 0)
			goto bad;
		if (n > 0)
			*result = mcp_fail("arcturn: discard: discarding some "
			    "paths is not supported (arcturn discard has no "
			    "PATH yet); call discard_changes without paths to "
			    "discard the whole session");
		else if (mcp_child(srv, "discard", wd, 2, NULL, 0, NULL, 0,
		    &r, result) == 0)
			*result = said(&r, "discarded", "message");
	} else if (strcmp(name, "sandbox_status") == 0) {
		if ((rc = mcp_arg_only(args, k_none, msg, msglen)) < 0)
			goto bad;
		*result = tool_status(srv);
	} else if (strcmp(name, "apply_changes") == 0 && srv->allow_apply) {
		if ((rc = mcp_arg_only(args, k_apply, msg, msglen)) < 0 ||
		    (rc = mcp_arg_str(args, "expect", MCP_ARG_REQUIRED |
		    MCP_ARG_PATH, &expect, NULL, msg, msglen)) < 0 ||
		    (rc = mcp_arg_strv(args, "paths", 0, MCP_ARG_PATH, &v, &n, msg,
		    msglen)) < 0)
			goto bad;
		wa[3] = (char *)expect;
		/* files done, as notifications/progress (mcp_child) */
		snprintf(fdarg, sizeof fdarg, "%d", MCP_PROGRESS_FD);
		wa[5] = fdarg;
		if (srv->progress_files == NULL) {
			wa[4] = "--";
			nw = 5;
		}
		if (mcp_child(srv, "apply", wa, nw, v, n, NULL, 0, &r,
		    result) == 0)
			*result = said(&r, "applied", "message");
		else if (stale(*result)) {
			/*
			 * apply names the pending digest: an agent could
			 * apply what it never reviewed. Review stays first.
			 */
			cJSON_Delete(*result);
			*result = mcp_fail("arcturn: apply: the pending changes "
			    "changed since review (they are not the ones of "
			    "digest %.64s); nothing applied: call "
			    "review_changes again", expect);
		}
	} else
		return mcp_bad(msg, msglen, MCP_EPARAMS, "unknown tool: %.200s",
		    name);
	mem_free(v);
	if (*result == NULL)
		return mcp_bad(msg, msglen, MCP_EINTERNAL, "out of memory");
	return 0;
bad:
	mem_free(v);
	return rc == -2 ? MCP_EINTERNAL : MCP_BADARGS;
}
