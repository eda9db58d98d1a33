/*
 * The MCP server's turn tools (mcp_nav.h lists them with the others):
 * begin_turn (arcturn turn --label), list_checkpoints (arcturn
 * checkpoints) and undo (arcturn undo, or rewind TURN). Each runs the
 * arcturn binary with --json, so that a human's `arcturn checkpoints`
 * and `arcturn undo` see and do the same.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mem.h"
#include "mcp/mcp_nav.h"
#include "mcp/mcp_tools.h"

#define TURNS_SHOWN	20	/* list_checkpoints: turns, newest first */
#define PATHS_SHOWN	20	/* and paths of each */

/*
 * Run arcturn --json words...: its document (stdout), parsed, in *doc;
 * -1 with *res the isError result when it could not run or printed no
 * document. A document with an error member is an isError result too.
 */
static int
json_child(const struct mcp_server *srv, const char *what, char **words,
    size_t n, cJSON **doc, cJSON **res)
{
	char line[PATH_MAX + 512];
	struct mcp_server q = *srv;
	struct mcp_run r;
	const cJSON *m;

	q.progress = NULL;
	srv = &q;
	*doc = *res = NULL;
	memset(&r, 0, sizeof r);
	r.cap = MCP_READ_MAX;
	r.timeout_ms = MCP_TIMEOUT_MS;
	if ((r.argv = mcp_argv(srv, words, n, NULL, 0)) == NULL)
		return -1;
	if (mcp_run(srv, &r) < 0) {
		mem_free(r.argv);
		*res = mcp_fail("arcturn: %s: cannot run %s: %s", what,
		    srv->self, strerror(errno));
		return -1;
	}
	mem_free(r.argv);
	if ((*doc = cJSON_Parse(r.out)) == NULL || !cJSON_IsObject(*doc)) {
		mcp_child_line(what, &r, line, sizeof line);
		*res = mcp_result(NULL, line, 1);
		cJSON_Delete(*doc);
		*doc = NULL;
	} else if ((m = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(*doc, "error"), "message")) !=
	    NULL) {
		*res = mcp_fail("arcturn: %s", cJSON_IsString(m) ?
		    m->valuestring : what);
		cJSON_Delete(*doc);
		*doc = NULL;
	}
	mcp_run_free(&r);
	return *doc != NULL ? 0 : -1;
}

static cJSON *
begin_turn(const struct mcp_server *srv, const char *label)
{
	char *w[] = { "--json", "turn", "--label", (char *)label };
	cJSON *doc, *res;

	if (mcp_dry(srv))
		return mcp_fail("arcturn: begin_turn: a turn groups real writes; "
		    "under dry run the session holds them (review_changes, "
		    "discard_changes)");
	if (json_child(srv, "turn", w, label != NULL ? 4 : 2, &doc, &res) < 0)
		return res;
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "schema");
	return mcp_json_result(doc);
}

/* The newest TURNS_SHOWN turns, PATHS_SHOWN paths of each. */
static cJSON *
list_checkpoints(const struct mcp_server *srv)
{
	char *w[] = { "--json", "checkpoints" };
	cJSON *doc, *res, *turns, *t, *paths;
	int n, np, trunc = 0;

	if (json_child(srv, "checkpoints", w, 2, &doc, &res) < 0)
		return res;
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "schema");
	turns = cJSON_GetObjectItemCaseSensitive(doc, "turns");
	n = cJSON_GetArraySize(turns);
	while (cJSON_GetArraySize(turns) > TURNS_SHOWN) {
		cJSON_DeleteItemFromArray(turns, TURNS_SHOWN);
		trunc = 1;
	}
	cJSON_ArrayForEach(t, turns) {
		paths = cJSON_GetObjectItemCaseSensitive(t, "paths");
		np = cJSON_GetArraySize(paths);
		while (cJSON_GetArraySize(paths) > PATHS_SHOWN) {
			cJSON_DeleteItemFromArray(paths, PATHS_SHOWN);
			trunc = 1;
		}
		if (cJSON_AddNumberToObject(t, "pathCount", np) == NULL)
			goto oom;
	}
	if (cJSON_AddNumberToObject(doc, "total", n) == NULL ||
	    cJSON_AddBoolToObject(doc, "truncated", trunc) == NULL)
		goto oom;
	return mcp_json_result(doc);
oom:
	cJSON_Delete(doc);
	return NULL;
}

/*
 * arcturn undo (the last turn), or rewind TURN (every turn since it,
 * itself included). Conflicts (a path changed since the turn left it)
 * are not restored: the result says which, with isError, and force
 * restores them too.
 */
static cJSON *
undo(const struct mcp_server *srv, long turn, int force)
{
	char num[32], *w[5] = { "--json" };
	const cJSON *c;
	cJSON *doc, *res;
	size_t n = 1;
	char *txt;

	if (turn > 0) {
		snprintf(num, sizeof num, "%ld", turn);
		w[n++] = "rewind";
		w[n++] = num;
	} else
		w[n++] = "undo";
	if (force)
		w[n++] = "--force";
	if (json_child(srv, turn > 0 ? "rewind" : "undo", w, n, &doc,
	    &res) < 0)
		return res;
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "schema");
	c = cJSON_GetObjectItemCaseSensitive(doc, "conflicts");
	if (cJSON_GetArraySize(c) == 0)
		return mcp_json_result(doc);
	if ((txt = cJSON_PrintUnformatted(doc)) == NULL) {
		cJSON_Delete(doc);
		return NULL;
	}
	res = mcp_result(doc, txt, 1);
	cJSON_free(txt);
	return res;
}

int
mcp_turns_call(const struct mcp_server *srv, const char *name,
    const cJSON *args, cJSON **result, char *msg, size_t msglen)
{
	static const char *const k_begin[] = { "label", NULL };
	static const char *const k_none[] = { NULL };
	static const char *const k_undo[] = { "turn", "force", NULL };
	const char *label = NULL;
	long turn = 0;
	int force = 0, rc;

	*result = NULL;
	if (strcmp(name, "begin_turn") == 0) {
		if ((rc = mcp_arg_only(args, k_begin, msg, msglen)) == 0 &&
		    (rc = mcp_arg_str(args, "label", MCP_ARG_PATH, &label, NULL,
		    msg, msglen)) == 0)
			*result = begin_turn(srv, label);
	} else if (strcmp(name, "list_checkpoints") == 0) {
		if ((rc = mcp_arg_only(args, k_none, msg, msglen)) == 0)
			*result = list_checkpoints(srv);
	} else if ((rc = mcp_arg_only(args, k_undo, msg, msglen)) == 0 &&
	    (rc = mcp_arg_count(args, "turn", LONG_MAX / 2, 0, &turn, msg,
	    msglen)) == 0 &&
	    (rc = mcp_arg_bool(args, "force", &force, msg, msglen)) == 0)
		*result = undo(srv, turn, force);
	if (rc != 0)
		return MCP_BADARGS;
	if (*result == NULL)
		return mcp_bad(msg, msglen, MCP_EINTERNAL, "out of memory");
	return 0;
}
