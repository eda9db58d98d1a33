/*
 * The MCP server's search tools (mcp_nav.h): search_files (a glob over
 * the names beneath a folder), search_content (a regular expression over
 * the lines of the text files beneath it) and read_multiple_files.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mem.h"
#include "lib/rx.h"
#include "lib/utf8.h"
#include "mcp/mcp_nav.h"
#include "session/wsview.h"

#define SEARCH_MAX_RESULTS	1000
#define SEARCH_LINE_MAX		300	/* bytes of a matching line shown */
#define SEARCH_BINARY_PEEK	8192	/* a NUL in these: not text */

/*
 * pat against a path beneath the search's folder (sub) and its last
 * name: a pattern with a '/' matches sub, "**" + "/" also matches none
 * or any folders; one without matches the name. fnmatch without
 * FNM_PATHNAME: "*" spans folders too.
 */
static int
glob_match(const char *pat, const char *sub, const char *name)
{
	if (strchr(pat, '/') == NULL)
		return fnmatch(pat, name, 0) == 0;
	if (fnmatch(pat, sub, 0) == 0)
		return 1;
	return strncmp(pat, "**/", 3) == 0 && glob_match(pat + 3, sub, name);
}

struct walk {
	struct nav	*nv;
	size_t		 base;		/* strlen of the folder's rel + 1 */
	char	       **excl;
	size_t		 nexcl;
	int		 stop;
	/* what each entry is given to: 0 goes on, 1 stops, -1 fails */
	int		(*fn)(struct walk *, const char *rel, const char *sub,
			    const struct nav_ent *);
	void		*arg;
};

/* Every entry beneath rel, depth first, names in order; symlinks are
   entries, never followed. */
static int
walk(struct walk *w, const char *rel)
{
	struct nav_ent *v;
	size_t n, i, k;
	char *p;
	const char *sub;
	int rc = 0, skip;

	if (nav_list(w->nv, rel, &v, &n) < 0)
		return errno == ENOMEM ? -1 : 0;	/* unreadable: skipped */
	for (i = 0; i < n && rc == 0 && !w->stop; i++) {
		if ((p = nav_join(rel, v[i].name)) == NULL) {
			rc = -1;
			break;
		}
		sub = strlen(p) >= w->base ? p + w->base : p;
		for (skip = 0, k = 0; k < w->nexcl && !skip; k++)
			skip = glob_match(w->excl[k], sub, v[i].name);
		if (!skip) {
			rc = w->fn(w, p, sub, &v[i]);
			if (rc == 1) {
				w->stop = 1;
				rc = 0;
			}
			if (rc == 0 && !w->stop && v[i].kind == NAV_DIR)
				rc = walk(w, p);
		}
		mem_free(p);
	}
	nav_list_free(v, n);
	return rc;
}

struct found {
	const char	*pat;
	struct nav_text	 t;
	cJSON		*arr;
	size_t		 total, shown;
};

static int
found_one(struct walk *w, const char *rel, const char *sub,
    const struct nav_ent *e)
{
	struct found *f = w->arg;

	if (!glob_match(f->pat, sub, e->name))
		return 0;
	f->total++;
	if (f->t.full || f->t.len + 2 * strlen(rel) + 16 > f->t.budget) {
		f->t.full = 1;
		return 0;	/* counted, not shown */
	}
	if (nav_text_add(&f->t, rel, 1) < 0 ||
	    !cJSON_AddItemToArray(f->arr, cJSON_CreateString(rel)))
		return -1;
	f->shown++;
	return 0;
}

static cJSON *
tool_search(const struct mcp_server *srv, struct nav *nv, const char *rel,
    const char *pat, char **excl, size_t nexcl)
{
	struct found f = { pat, { NULL, 0, srv->budget - 320, 0 }, NULL, 0,
	    0 };
	struct walk w = { nv, rel[0] ? strlen(rel) + 1 : 0, excl, nexcl, 0,
	    found_one, &f };
	char note[320];
	cJSON *o, *r;

	if ((o = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(o, "path", rel[0] ? rel : ".") == NULL ||
	    cJSON_AddStringToObject(o, "pattern", pat) == NULL ||
	    (f.arr = cJSON_AddArrayToObject(o, "matches")) == NULL ||
	    walk(&w, rel) < 0 ||
	    cJSON_AddNumberToObject(o, "total", (double)f.total) == NULL ||
	    cJSON_AddBoolToObject(o, "truncated", f.t.full) == NULL)
		goto oom;
	if (f.t.full) {
		snprintf(note, sizeof note, "[arcturn: %zu of %zu matches shown "
		    "(at most %zu bytes a call); narrow the pattern or the "
		    "path, or add excludePatterns]", f.shown, f.total,
		    srv->budget);
		f.t.full = 0;
		f.t.budget = (size_t)-1;
		if (nav_text_add(&f.t, note, 1) < 0)
			goto oom;
	}
	r = mcp_result(o, f.t.p != NULL ? f.t.p : "No matches found", 0);
	mem_free(f.t.p);
	return r;
oom:
	cJSON_Delete(o);
	mem_free(f.t.p);
	return NULL;
}

struct grep {
	struct rx	*re;
	const char	*include;
	long		 max;
	struct nav_text	 t;
	cJSON		*arr;
	size_t		 files, shown;
	int		 more;		/* stopped at max or the budget */
};

/* One matching line: path:line: text (cut at SEARCH_LINE_MAX bytes). */
static int
grep_hit(struct grep *g, const char *rel, long no, const char *s, size_t n)
{
	char *txt, *line;
	size_t len;
	cJSON *e;
	int rc = -1;

	if (n > SEARCH_LINE_MAX)
		n = SEARCH_LINE_MAX;
	if ((txt = utf8_clean(s, n, 1)) == NULL)
		return -1;
	len = strlen(rel) + strlen(txt) + 32;
	if ((line = mem_alloc(len)) == NULL) {
		mem_free(txt);
		return -1;
	}
	snprintf(line, len, "%s:%ld: %s", rel, no, txt);
	if (g->t.len + 2 * strlen(line) + 32 > g->t.budget) {
		g->more = 1;
		rc = 1;
	} else if (nav_text_add(&g->t, line, 1) == 0 &&
	    (e = cJSON_CreateObject()) != NULL &&
	    cJSON_AddItemToArray(g->arr, e) &&
	    cJSON_AddStringToObject(e, "path", rel) != NULL &&
	    cJSON_AddNumberToObject(e, "line", (double)no) != NULL &&
	    cJSON_AddStringToObject(e, "text", txt) != NULL) {
		rc = ++g->shown >= (size_t)g->max ? 1 : 0;
		if (rc == 1)
			g->more = 1;
	}
	mem_free(line);
	mem_free(txt);
	return rc;
}

static int
grep_one(struct walk *w, const char *rel, const char *sub,
    const struct nav_ent *e)
{
	struct grep *g = w->arg;
	char *buf, *p, *end, *nl, save;
	size_t len;
	long no = 0;
	int rc = 0, m;

	if (e->kind != NAV_FILE || (g->include != NULL &&
	    !glob_match(g->include, sub, e->name)))
		return 0;
	if (wsview_read(&w->nv->v, rel, MCP_READ_MAX, &buf, &len) < 0)
		return errno == ENOMEM ? -1 : 0;	/* gone, too big */
	g->files++;
	if (memchr(buf, '\0', len < SEARCH_BINARY_PEEK ? len :
	    SEARCH_BINARY_PEEK) != NULL) {
		mem_free(buf);
		return 0;	/* not text */
	}
	for (p = buf, end = buf + len; p < end && rc == 0; p = nl + 1) {
		no++;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		save = *nl;
		*nl = '\0';
		m = memchr(p, '\0', (size_t)(nl - p)) == NULL &&
		    rx_search(g->re, p, (size_t)(nl - p)) == 1;
		*nl = save;
		if (m)
			rc = grep_hit(g, rel, no, p, (size_t)(nl - p));
		if (nl == end)
			break;
	}
	mem_free(buf);
	return rc;
}

static cJSON *
tool_grep(const struct mcp_server *srv, struct nav *nv, const char *rel,
    const char *pat, const char *include, int icase, long max)
{
	struct grep g;
	struct walk w = { nv, rel[0] ? strlen(rel) + 1 : 0, NULL, 0, 0,
	    grep_one, &g };
	char err[256], note[320];
	cJSON *o, *r;

	memset(&g, 0, sizeof g);
	g.include = include;
	g.max = max;
	g.t.budget = srv->budget - 320;	/* room for the note */
	if ((g.re = rx_compile(pat, icase, err, sizeof err)) == NULL) {
		if (errno == ENOMEM)
			return NULL;
		return mcp_fail("arcturn: search_content: pattern: %s (a POSIX "
		    "extended regular expression: . [] * + ? | () ^ $)", err);
	}
	if ((o = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(o, "path", rel[0] ? rel : ".") == NULL ||
	    cJSON_AddStringToObject(o, "pattern", pat) == NULL ||
	    (g.arr = cJSON_AddArrayToObject(o, "matches")) == NULL ||
	    walk(&w, rel) < 0 ||
	    cJSON_AddNumberToObject(o, "filesSearched", (double)g.files) ==
	    NULL || cJSON_AddBoolToObject(o, "truncated", g.more) == NULL)
		goto oom;
	rx_free(g.re);
	if (g.more) {
		snprintf(note, sizeof note, "[arcturn: stopped after %zu "
		    "matches (maxResults %ld, at most %zu bytes a call); "
		    "narrow the pattern, path or include to see others]",
		    g.shown, max, srv->budget);
		g.t.budget = (size_t)-1;
		if (nav_text_add(&g.t, note, 1) < 0) {
			cJSON_Delete(o);
			mem_free(g.t.p);
			return NULL;
		}
	}
	r = mcp_result(o, g.t.p != NULL ? g.t.p : "No matches found", 0);
	mem_free(g.t.p);
	return r;
oom:
	rx_free(g.re);
	cJSON_Delete(o);
	mem_free(g.t.p);
	return NULL;
}

/* Each file whole while the budget lasts, then cut with a note. */
static cJSON *
tool_read_many(const struct mcp_server *srv, struct nav *nv, char **paths,
    size_t np)
{
	struct nav_text t = { NULL, 0, srv->budget, 0 };
	char line[PATH_MAX + 512], *rel, *buf, *txt;
	size_t i, len, room, n;
	cJSON *o, *arr, *e, *r;
	int ok;

	if ((o = cJSON_CreateObject()) == NULL ||
	    (arr = cJSON_AddArrayToObject(o, "files")) == NULL)
		goto oom;
	for (i = 0; i < np; i++) {
		if ((e = cJSON_CreateObject()) == NULL ||
		    !cJSON_AddItemToArray(arr, e) ||
		    cJSON_AddStringToObject(e, "path", paths[i]) == NULL)
			goto oom;
		buf = txt = NULL;
		if (nav_rel(nv, "read_multiple_files", paths[i], &rel, line,
		    sizeof line) < 0)
			;
		else if (wsview_read(&nv->v, rel, MCP_READ_MAX, &buf, &len) < 0)
			snprintf(line, sizeof line, "arcturn: read: %s: %s",
			    paths[i], strerror(errno));
		else if ((txt = utf8_clean(buf, len, 0)) == NULL)
			snprintf(line, sizeof line, "arcturn: read: %s: %s",
			    paths[i], errno == EILSEQ ? "not UTF-8 text" :
			    strerror(errno));
		mem_free(rel);
		mem_free(buf);
		if (txt == NULL) {
			if (cJSON_AddStringToObject(e, "error", line) == NULL ||
			    nav_text_add(&t, line, 1) < 0)
				goto oom;
			continue;
		}
		/* what is left of the budget, halved: text and structure */
		n = strlen(txt);
		room = t.budget > t.len + strlen(paths[i]) + 256 ?
		    (t.budget - t.len - strlen(paths[i]) - 256) / 2 : 0;
		if (n > room) {
			while (room > 0 && ((unsigned char)txt[room] & 0xc0) ==
			    0x80)
				room--;
			txt[room] = '\0';
		}
		ok = cJSON_AddStringToObject(e, "content", txt) != NULL &&
		    cJSON_AddNumberToObject(e, "bytes", (double)len) != NULL &&
		    cJSON_AddBoolToObject(e, "truncated", n > room) != NULL;
		snprintf(line, sizeof line, "%s:", paths[i]);
		t.budget = (size_t)-1;	/* room said how much */
		ok = ok && nav_text_add(&t, line, 1) == 0 &&
		    nav_text_add(&t, txt, 0) == 0;
		if (ok && n > room) {
			snprintf(line, sizeof line, "\n[arcturn: %s: %zu of %zu "
			    "bytes shown; read_file with offset reads on]",
			    paths[i], room, n);
			ok = nav_text_add(&t, line, 1) == 0;
		}
		t.budget = srv->budget;
		mem_free(txt);
		if (!ok || nav_text_add(&t, "", 1) < 0)
			goto oom;
	}
	r = mcp_result(o, t.p != NULL ? t.p : "", 0);
	mem_free(t.p);
	return r;
oom:
	cJSON_Delete(o);
	mem_free(t.p);
	return NULL;
}

int
mcp_find_call(const struct mcp_server *srv, const char *name,
    const cJSON *args, cJSON **result, char *msg, size_t msglen)
{
	static const char *const k_files[] = { "path", "pattern",
	    "excludePatterns", NULL };
	static const char *const k_grep[] = { "path", "pattern", "include",
	    "ignoreCase", "maxResults", NULL };
	static const char *const k_many[] = { "paths", NULL };
	const char *path = NULL, *pat = NULL, *inc = NULL;
	char line[PATH_MAX + 512], *rel = NULL, **v = NULL;
	size_t n = 0;
	struct nav nv;
	long max = 100;
	int icase = 0, rc = 0;

	*result = NULL;
	if (strcmp(name, "read_multiple_files") == 0)
		rc = mcp_arg_only(args, k_many, msg, msglen) < 0 ||
		    mcp_arg_strv(args, "paths", 1, MCP_ARG_PATH, &v, &n, msg,
		    msglen) < 0;
	else if (strcmp(name, "search_files") == 0)
		rc = mcp_arg_only(args, k_files, msg, msglen) < 0 ||
		    mcp_arg_str(args, "path", MCP_ARG_PATH, &path, NULL, msg,
		    msglen) < 0 ||
		    mcp_arg_str(args, "pattern", MCP_ARG_REQUIRED, &pat, NULL,
		    msg, msglen) < 0 ||
		    mcp_arg_strv(args, "excludePatterns", 0, 0, &v, &n, msg,
		    msglen) < 0;
	else
		rc = mcp_arg_only(args, k_grep, msg, msglen) < 0 ||
		    mcp_arg_str(args, "path", MCP_ARG_PATH, &path, NULL, msg,
		    msglen) < 0 ||
		    mcp_arg_str(args, "pattern", MCP_ARG_REQUIRED, &pat, NULL,
		    msg, msglen) < 0 ||
		    mcp_arg_str(args, "include", 0, &inc, NULL, msg,
		    msglen) < 0 ||
		    mcp_arg_bool(args, "ignoreCase", &icase, msg, msglen) < 0 ||
		    mcp_arg_count(args, "maxResults", SEARCH_MAX_RESULTS, 100,
		    &max, msg, msglen) < 0;
	if (rc == 0 && pat != NULL && pat[0] == '\0')
		rc = mcp_bad(msg, msglen, 1, "invalid arguments: pattern must "
		    "not be empty") != 0;
	if (rc != 0) {
		mem_free(v);
		return MCP_BADARGS;
	}
	if (nav_open(srv, name, &nv, line, sizeof line) < 0)
		*result = mcp_result(NULL, line, 1);
	else {
		if (strcmp(name, "read_multiple_files") == 0)
			*result = tool_read_many(srv, &nv, v, n);
		else if (nav_rel(&nv, name, path != NULL ? path : ".", &rel,
		    line, sizeof line) < 0)
			*result = mcp_result(NULL, line, 1);
		else if (strcmp(name, "search_files") == 0)
			*result = tool_search(srv, &nv, rel, pat, v, n);
		else
			*result = tool_grep(srv, &nv, rel, pat, inc, icase, max);
		mem_free(rel);
		nav_close(&nv);
	}
	mem_free(v);
	if (*result == NULL)
		return mcp_bad(msg, msglen, MCP_EINTERNAL, "out of memory");
	return 0;
}
