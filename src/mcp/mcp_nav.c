/*
 * The MCP server's view of the workspace for its navigation tools, and
 * list_directory, directory_tree and get_file_info (mcp_nav.h).
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fsx.h"
#include "lib/mem.h"
#include "lib/utc.h"
#include "mcp/mcp_nav.h"
#include "session/shadow.h"

int
nav_open(const struct mcp_server *srv, const char *what, struct nav *nv,
    char *line, size_t size)
{
	struct workspace_err e = { .status = EXIT_USAGE };
	struct cli c;

	memset(&c, 0, sizeof c);
	c.dir = srv->dir;
	c.session = srv->session;
	workspace_init(&nv->x, &dryrun_notes);
	if (dryrun_load(&nv->x, &c, srv->dry_run, &e) == 0 &&
	    workspace_view(&nv->x, what, WORKSPACE_VIEW_ROOT |
	    (nv->x.p.dry_run ? WORKSPACE_VIEW_SESSION : 0), &nv->v, &e) == 0)
		return 0;
	dryrun_line(what, &e, line, size);
	workspace_done(&nv->x);
	return -1;
}

void
nav_close(struct nav *nv)
{
	workspace_done(&nv->x);
}

int
nav_rel(struct nav *nv, const char *what, const char *path, char **rel,
    char *line, size_t size)
{
	struct workspace_err e = { .status = EXIT_USAGE };
	int r;

	*rel = NULL;
	if (path == NULL || strcmp(path, "") == 0 || strcmp(path, ".") == 0 ||
	    strcmp(path, nv->x.p.workspace) == 0) {
		if ((*rel = mem_strdup("")) == NULL) {
			snprintf(line, size, "arcturn: %s: out of memory", what);
			return -1;
		}
		return 0;
	}
	if ((r = workspace_resolve(&nv->x, path, 0, rel, &e)) < 0) {
		if (errno == EISDIR && (*rel = mem_strdup("")) != NULL)
			return 0;	/* the workspace itself */
		dryrun_line(what, &e, line, size);
		return -1;
	}
	if (r == 1) {
		snprintf(line, size, "arcturn: %s: %s: outside the workspace %s; "
		    "give a path inside it", what, path, nv->x.p.workspace);
		mem_free(*rel);
		*rel = NULL;
		return -1;
	}
	return 0;
}

char *
nav_join(const char *rel, const char *name)
{
	size_t a = strlen(rel), b = strlen(name);
	char *p;

	if ((p = mem_alloc(a + b + 2)) == NULL)
		return NULL;
	memcpy(p, rel, a);
	if (a > 0)
		p[a++] = '/';
	memcpy(p + a, name, b + 1);
	return p;
}

static int
kind_of(mode_t m)
{
	if (S_ISREG(m))
		return NAV_FILE;
	if (S_ISDIR(m))
		return NAV_DIR;
	if (S_ISLNK(m))
		return NAV_LINK;
	return NAV_OTHER;
}

const char *
nav_kind_name(int kind)
{
	static const char *const n[] = { "file", "directory", "symlink",
	    "other" };

	return n[kind];
}

/* A directory of the real tree (beneath rootfd), or of upper/. */
static int
open_dir(int rootfd, const char *rel)
{
	if (rel[0] == '\0')
		return openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fsx_open_beneath(rootfd, rel, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC, 0);
}

/* {name, type} of v appended to arr: the new object, or NULL. */
static cJSON *
entry_add(cJSON *arr, const struct nav_ent *v)
{
	cJSON *e;

	if ((e = cJSON_CreateObject()) == NULL)
		return NULL;
	cJSON_AddItemToArray(arr, e);
	if (cJSON_AddStringToObject(e, "name", v->name) == NULL ||
	    cJSON_AddStringToObject(e, "type", nav_kind_name(v->kind)) == NULL)
		return NULL;
	return e;
}

static int
push(struct nav_ent **v, size_t *n, size_t *cap, const char *name, int kind)
{
	struct nav_ent *nv;

	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		if ((nv = mem_realloc(*v, *cap * sizeof **v)) == NULL)
			return -1;
		*v = nv;
	}
	if (((*v)[*n].name = mem_strdup(name)) == NULL)
		return -1;
	(*v)[(*n)++].kind = kind;
	return 0;
}

/* The names of dirfd (closed) into v, with their kinds (DT_*). */
static int
read_dir(int fd, struct nav_ent **v, size_t *n, size_t *cap, int upper)
{
	struct dirent *d;
	struct stat st;
	DIR *dir;
	int k, save;

	if ((dir = fdopendir(fd)) == NULL) {
		fsx_close(fd);
		return -1;
	}
	while ((errno = 0, d = readdir(dir)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0 ||
		    fsx_is_tmp_name(d->d_name))
			continue;
		switch (d->d_type) {
		case DT_REG: k = NAV_FILE; break;
		case DT_DIR: k = NAV_DIR; break;
		case DT_LNK: k = NAV_LINK; break;
		case DT_UNKNOWN:
			if (upper) {
				k = NAV_OTHER;	/* looked up in the view */
				break;
			}
			if (fstatat(dirfd(dir), d->d_name, &st,
			    AT_SYMLINK_NOFOLLOW) < 0)
				continue;	/* gone since */
			k = kind_of(st.st_mode);
			break;
		default: k = NAV_OTHER; break;
		}
		if (push(v, n, cap, d->d_name, k) < 0)
			break;
	}
	save = errno;
	closedir(dir);
	errno = save;
	return save != 0 ? -1 : 0;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(((const struct nav_ent *)a)->name,
	    ((const struct nav_ent *)b)->name);
}

void
nav_list_free(struct nav_ent *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		mem_free(v[i].name);
	mem_free(v);
}

int
nav_list(struct nav *nv, const char *rel, struct nav_ent **out, size_t *nout)
{
	struct nav_ent *v = NULL;
	struct stat st;
	size_t n = 0, cap = 0, i, k;
	char *p;
	int fd, got = 0, save;

	*out = NULL;
	*nout = 0;
	if (nv->v.s != NULL) {
		/* the view's: a directory there, whichever tree holds it */
		if (rel[0] != '\0' && (k = (size_t)shadow_lookup(nv->v.s,
		    nv->v.rootfd, rel, &st)) != SHADOW_DIR) {
			if ((int)k >= 0)
				errno = k == SHADOW_ABSENT ? ENOENT : ENOTDIR;
			return -1;
		}
		if ((fd = open_dir(nv->v.s->upperfd, rel)) >= 0) {
			if (read_dir(fd, &v, &n, &cap, 1) < 0)
				goto fail;
			got = 1;
		}
	}
	if ((fd = open_dir(nv->v.rootfd, rel)) >= 0) {
		if (read_dir(fd, &v, &n, &cap, 0) < 0)
			goto fail;
		got = 1;
	}
	if (!got)
		goto fail;
	qsort(v, n, sizeof *v, by_name);
	for (i = k = 0; i < n; i++) {
		if (k > 0 && strcmp(v[k - 1].name, v[i].name) == 0) {
			mem_free(v[i].name);
			continue;
		}
		v[k++] = v[i];
	}
	n = k;
	if (nv->v.s != NULL) {
		/* what the merged view says each name is (whiteouts go) */
		for (i = k = 0; i < n; i++) {
			if ((p = nav_join(rel, v[i].name)) == NULL)
				goto fail;
			if (shadow_lookup(nv->v.s, nv->v.rootfd, p, &st) <= 0) {
				mem_free(p);
				mem_free(v[i].name);
				continue;
			}
			mem_free(p);
			v[i].kind = kind_of(st.st_mode);
			v[k++] = v[i];
		}
		n = k;
	}
	*out = v;
	*nout = n;
	return 0;
fail:
	save = errno;
	nav_list_free(v, n);
	errno = save;
	return -1;
}

int
nav_stat(struct nav *nv, const char *rel, struct stat *st)
{
	const char *base;
	int fd, rc, save;

	if (rel[0] == '\0')
		return fstat(nv->v.rootfd, st);
	if (nv->v.s != NULL) {
		if ((rc = shadow_lookup(nv->v.s, nv->v.rootfd, rel, st)) < 0)
			return -1;
		if (rc == SHADOW_ABSENT) {
			errno = ENOENT;
			return -1;
		}
		return 0;
	}
	if ((fd = fsx_open_parent(nv->v.rootfd, rel, 0, &base)) < 0)
		return -1;
	rc = fstatat(fd, base, st, AT_SYMLINK_NOFOLLOW);
	save = errno;
	close(fd);
	errno = save;
	return rc;
}

int
nav_text_add(struct nav_text *t, const char *s, int nl)
{
	size_t n = strlen(s) + (nl != 0);
	char *q;

	if (t->full || t->len + n > t->budget) {
		t->full = 1;
		return 1;
	}
	if ((q = mem_realloc(t->p, t->len + n + 1)) == NULL)
		return -1;
	t->p = q;
	memcpy(t->p + t->len, s, strlen(s));
	t->len += n;
	if (nl)
		t->p[t->len - 1] = '\n';
	t->p[t->len] = '\0';
	return 0;
}

/* The isError line for a path that cannot be listed or seen. */
static cJSON *
path_fail(const char *what, const char *path, int err)
{
	return mcp_fail("arcturn: %s: %s: %s", what, path[0] ? path : ".",
	    err == ENOTDIR ? "not a directory" : strerror(err));
}

static cJSON *
tool_list(const struct mcp_server *srv, struct nav *nv, const char *path,
    const char *rel)
{
	/* room for the note that says what was left out */
	struct nav_text t = { NULL, 0, srv->budget - 256, 0 };
	struct nav_ent *v;
	size_t n, i, shown = 0;
	char line[NAME_MAX + 32], note[256];
	cJSON *o, *arr, *e;

	if (nav_list(nv, rel, &v, &n) < 0)
		return path_fail("list_directory", path, errno);
	if ((o = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(o, "path", rel[0] ? rel : ".") == NULL ||
	    (arr = cJSON_AddArrayToObject(o, "entries")) == NULL)
		goto oom;
	for (i = 0; i < n; i++) {
		snprintf(line, sizeof line, "[%s] %s", v[i].kind == NAV_DIR ?
		    "DIR" : v[i].kind == NAV_LINK ? "LINK" : "FILE", v[i].name);
		/* the structured entry costs about as much again */
		if (t.len + 2 * strlen(line) + 40 > t.budget) {
			t.full = 1;
			break;
		}
		if (nav_text_add(&t, line, 1) < 0 ||
		    entry_add(arr, &v[i]) == NULL)
			goto oom;
		shown++;
	}
	if (cJSON_AddNumberToObject(o, "total", (double)n) == NULL ||
	    cJSON_AddBoolToObject(o, "truncated", t.full) == NULL)
		goto oom;
	if (t.full) {
		snprintf(note, sizeof note, "[arcturn: %zu of %zu entries shown "
		    "(at most %zu bytes a call); search_files with a pattern "
		    "finds the others]", shown, n, srv->budget);
		t.full = 0;
		t.budget = (size_t)-1;
		if (nav_text_add(&t, note, 1) < 0)
			goto oom;
	}
	nav_list_free(v, n);
	e = mcp_result(o, t.p != NULL ? t.p : "(empty)", 0);
	mem_free(t.p);
	return e;
oom:
	nav_list_free(v, n);
	cJSON_Delete(o);
	mem_free(t.p);
	return NULL;
}

struct tree {
	struct nav	*nv;
	size_t		 used, budget, entries;
	long		 depth;
	int		 full;
};

/* The children of rel as [{name, type, children?}], depth levels down. */
static cJSON *
tree_of(struct tree *tr, const char *rel, long depth)
{
	struct nav_ent *v;
	size_t n, i;
	cJSON *arr, *e, *sub;
	char *p;

	if ((arr = cJSON_CreateArray()) == NULL)
		return NULL;
	if (nav_list(tr->nv, rel, &v, &n) < 0)
		return arr;	/* unreadable: shown empty */
	for (i = 0; i < n && !tr->full; i++) {
		if (tr->used + strlen(v[i].name) + 40 > tr->budget) {
			tr->full = 1;
			break;
		}
		tr->used += strlen(v[i].name) + 40;
		tr->entries++;
		if ((e = entry_add(arr, &v[i])) == NULL)
			goto oom;
		if (v[i].kind != NAV_DIR)
			continue;
		if (depth <= 1)
			continue;	/* maxDepth: its children not shown */
		if ((p = nav_join(rel, v[i].name)) == NULL)
			goto oom;
		sub = tree_of(tr, p, depth - 1);
		mem_free(p);
		if (sub == NULL || !cJSON_AddItemToObject(e, "children", sub))
			goto oom;
	}
	nav_list_free(v, n);
	return arr;
oom:
	nav_list_free(v, n);
	cJSON_Delete(arr);
	return NULL;
}

static cJSON *
tool_tree(const struct mcp_server *srv, struct nav *nv, const char *path,
    const char *rel, long depth)
{
	struct tree tr = { nv, 0, srv->budget, 0, depth, 0 };
	struct stat st;
	cJSON *o, *t, *r;
	char *txt, *full;
	size_t len;

	if (nav_stat(nv, rel, &st) < 0 || !S_ISDIR(st.st_mode))
		return path_fail("directory_tree", path, errno ? errno :
		    ENOTDIR);
	/* the text is the tree's JSON; structuredContent holds it too */
	if ((t = tree_of(&tr, rel, depth)) == NULL ||
	    (txt = cJSON_PrintUnformatted(t)) == NULL) {
		cJSON_Delete(t);
		return NULL;
	}
	if ((o = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(o, "path", rel[0] ? rel : ".") == NULL ||
	    !cJSON_AddItemToObject(o, "tree", t) ||
	    cJSON_AddNumberToObject(o, "entries", (double)tr.entries) == NULL ||
	    cJSON_AddNumberToObject(o, "maxDepth", (double)depth) == NULL ||
	    cJSON_AddBoolToObject(o, "truncated", tr.full) == NULL) {
		cJSON_Delete(o);
		cJSON_free(txt);
		return NULL;
	}
	len = strlen(txt) + 256;
	if ((full = mem_alloc(len)) == NULL) {
		cJSON_Delete(o);
		cJSON_free(txt);
		return NULL;
	}
	snprintf(full, len, "%s%s", txt, tr.full ? "\n[arcturn: the tree is "
	    "cut at the budget of the call; call directory_tree on a "
	    "subfolder, or with a smaller maxDepth]" : "");
	cJSON_free(txt);
	r = mcp_result(o, full, 0);
	mem_free(full);
	return r;
}

static cJSON *
tool_info(struct nav *nv, const char *path, const char *rel)
{
	struct stat st;
	char m[UTC_ISO_LEN], a[UTC_ISO_LEN], c[UTC_ISO_LEN], perm[8], *txt;
	cJSON *o, *r;
	size_t len;
	int k;

	if (nav_stat(nv, rel, &st) < 0)
		return path_fail("get_file_info", path, errno);
	k = kind_of(st.st_mode);
	if (utc_iso(st.st_mtime, m) < 0 || utc_iso(st.st_atime, a) < 0 ||
	    utc_iso(st.st_ctime, c) < 0)
		m[0] = a[0] = c[0] = '\0';
	snprintf(perm, sizeof perm, "%03o", (unsigned)(st.st_mode & 0777));
	if ((o = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(o, "path", rel[0] ? rel : ".") == NULL ||
	    cJSON_AddStringToObject(o, "type", nav_kind_name(k)) == NULL ||
	    cJSON_AddNumberToObject(o, "size", (double)st.st_size) == NULL ||
	    cJSON_AddStringToObject(o, "modified", m) == NULL ||
	    cJSON_AddStringToObject(o, "accessed", a) == NULL ||
	    cJSON_AddStringToObject(o, "changed", c) == NULL ||
	    cJSON_AddBoolToObject(o, "isDirectory", k == NAV_DIR) == NULL ||
	    cJSON_AddBoolToObject(o, "isFile", k == NAV_FILE) == NULL ||
	    cJSON_AddStringToObject(o, "permissions", perm) == NULL) {
		cJSON_Delete(o);
		return NULL;
	}
	len = strlen(rel) + 3 * UTC_ISO_LEN + 200;
	if ((txt = mem_alloc(len)) == NULL) {
		cJSON_Delete(o);
		return NULL;
	}
	snprintf(txt, len, "path: %s\ntype: %s\nsize: %lld\nmodified: %s\n"
	    "accessed: %s\nchanged: %s\npermissions: %s\n", rel[0] ? rel : ".",
	    nav_kind_name(k), (long long)st.st_size, m, a, c, perm);
	r = mcp_result(o, txt, 0);
	mem_free(txt);
	return r;
}

int
mcp_nav_call(const struct mcp_server *srv, const char *name,
    const cJSON *args, cJSON **result, char *msg, size_t msglen)
{
	static const char *const k_path[] = { "path", NULL };
	static const char *const k_tree[] = { "path", "maxDepth", NULL };
	const char *path = NULL;
	char line[PATH_MAX + 512], *rel = NULL;
	struct nav nv;
	long depth = 0;
	int tree = strcmp(name, "directory_tree") == 0;

	*result = NULL;
	if (mcp_arg_only(args, tree ? k_tree : k_path, msg, msglen) < 0 ||
	    mcp_arg_str(args, "path", (strcmp(name, "get_file_info") == 0 ?
	    MCP_ARG_REQUIRED : 0) | MCP_ARG_PATH, &path, NULL, msg,
	    msglen) < 0 ||
	    mcp_arg_count(args, "maxDepth", 64, 8, &depth, msg, msglen) < 0)
		return MCP_BADARGS;
	if (path == NULL)
		path = ".";
	if (nav_open(srv, name, &nv, line, sizeof line) < 0) {
		*result = mcp_result(NULL, line, 1);
	} else {
		if (nav_rel(&nv, name, path, &rel, line, sizeof line) < 0)
			*result = mcp_result(NULL, line, 1);
		else if (strcmp(name, "list_directory") == 0)
			*result = tool_list(srv, &nv, path, rel);
		else if (tree)
			*result = tool_tree(srv, &nv, path, rel, depth);
		else
			*result = tool_info(&nv, path, rel);
		mem_free(rel);
		nav_close(&nv);
	}
	if (*result == NULL)
		return mcp_bad(msg, msglen, MCP_EINTERNAL, "out of memory");
	return 0;
}
