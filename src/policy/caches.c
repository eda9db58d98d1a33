/*
 * caches: toolchain caches and the policy (caches.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mem.h"
#include "lib/path.h"
#include "policy/caches.h"

/*
 * How a tool finds its cache: the first set variable of var1 (var1sub
 * appended), var2 (var2sub appended), else home followed by def.
 */
struct place {
	const char	*tool;
	const char	*var1, *var1sub;
	const char	*var2, *var2sub;
	const char	*def;
};

static const struct place places[CACHES_N] = {
	{ "npm", "npm_config_cache", "", "NPM_CONFIG_CACHE", "", ".npm" },
	{ "pip", "PIP_CACHE_DIR", "", "XDG_CACHE_HOME", "/pip", ".cache/pip" },
	{ "cargo", "CARGO_HOME", "", NULL, NULL, ".cargo" },
	{ "go build", "GOCACHE", "", "XDG_CACHE_HOME", "/go-build",
	    ".cache/go-build" },
	{ "go modules", "GOMODCACHE", "", "GOPATH", "", "go" },
	{ "gradle", "GRADLE_USER_HOME", "", NULL, NULL, ".gradle" },
	{ "maven", NULL, NULL, NULL, NULL, ".m2" },
};

/* var's value, up to its first ':' for GOPATH, or NULL when unset/empty. */
static const char *
value(const char *var, size_t *len)
{
	const char *v;

	if (var == NULL || (v = getenv(var)) == NULL || v[0] == '\0')
		return NULL;
	*len = strcmp(var, "GOPATH") == 0 ? strcspn(v, ":") : strlen(v);
	return *len > 0 ? v : NULL;
}

static void
locate(const struct place *pl, const struct policy *p, struct cache *c)
{
	const char *v, *sub = "";
	char raw[PATH_MAX], *canon = NULL;
	size_t len = 0;
	int n;

	c->var = NULL;
	if ((v = value(pl->var1, &len)) != NULL) {
		c->var = pl->var1;
		sub = pl->var1sub;
	} else if ((v = value(pl->var2, &len)) != NULL && v[0] == '/') {
		c->var = pl->var2;	/* XDG: a relative value is ignored */
		sub = pl->var2sub;
	}
	if (c->var != NULL)
		n = snprintf(raw, sizeof raw, "%.*s%s", (int)len, v, sub);
	else
		n = snprintf(raw, sizeof raw, "%s/%s", p->home != NULL ?
		    p->home : "~", pl->def);
	if (n < 0 || (size_t)n >= sizeof raw)
		raw[0] = '\0';
	if (raw[0] == '/' && path_canon(raw, PATH_LEXICAL, NULL, &canon) == 0)
		snprintf(c->path, sizeof c->path, "%s", canon);
	else
		snprintf(c->path, sizeof c->path, "%s", raw);
	mem_free(canon);
}

static const char *
via(const struct policy *p, const char *path)
{
	size_t i;
	int ww = p->mode == MODE_WORKSPACE_WRITE;

	if (p->mode == MODE_OFF)
		return "sandbox off";
	if (path[0] != '/')
		return NULL;
	if (ww && p->workspace != NULL && path_under(path, p->workspace))
		return "workspace";
	if (p->tmpdir != NULL && path_under(path, p->tmpdir))
		return "temp dir";
	if (ww && p->state != NULL && path_under(path, p->state))
		return "state dir";
	for (i = 0; ww && i < p->grants.n; i++)
		if (path_under(path, p->grants.v[i]))
			return "grant";
	for (i = 0; ww && i < p->grants_new.n; i++)
		if (path_under(path, p->grants_new.v[i]))
			return "new grant";
	return NULL;
}

size_t
caches_list(const struct policy *p, struct cache *out)
{
	size_t i;

	for (i = 0; i < CACHES_N; i++) {
		out[i].tool = places[i].tool;
		locate(&places[i], p, &out[i]);
		out[i].via = via(p, out[i].path);
	}
	return CACHES_N;
}
