/*
 * cmd_sandbox: the front end of `arcturn sandbox`: status (which backend
 * exec would use here, why, what holds, and where tool caches go; as text
 * or --json) and unstamp (Windows: the integrity labels back).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/say.h"
#include "policy/caches.h"
#include "policy/config.h"
#include "sandbox/sandbox.h"

/* A guarantee the backend did not report on does not hold. */
static int
holds(const struct sandbox_report *r, int i)
{
	return r->g[i].set && r->g[i].holds;
}

static const char *
why(const struct sandbox_report *r, int i)
{
	return r->g[i].set ? r->g[i].why : "not reported by this backend";
}

static cJSON *
fact_json(cJSON *o, const struct sandbox_report *r, int i)
{
	const char *k = r->facts[i].key;

	switch (r->facts[i].type) {
	case SF_INT:
		return cJSON_AddNumberToObject(o, k, (double)r->facts[i].num);
	case SF_WORD:
		return cJSON_AddStringToObject(o, k, r->facts[i].word);
	case SF_NULL:
		return cJSON_AddNullToObject(o, k);
	default:
		return cJSON_AddStringToObject(o, k, r->facts[i].value);
	}
}

/* "caches": where toolchains write, and whether the policy lets them. */
static int
caches_json(cJSON *o, const struct policy *p)
{
	struct cache cs[CACHES_N];
	cJSON *a, *e;
	size_t i, n = caches_list(p, cs);

	if ((a = cJSON_AddArrayToObject(o, "caches")) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if ((e = cJSON_CreateObject()) == NULL ||
		    cJSON_AddStringToObject(e, "tool", cs[i].tool) == NULL ||
		    cJSON_AddStringToObject(e, "path", cs[i].path) == NULL ||
		    (cs[i].var != NULL ? cJSON_AddStringToObject(e, "variable",
		    cs[i].var) : cJSON_AddNullToObject(e, "variable")) == NULL ||
		    cJSON_AddBoolToObject(e, "writable", cs[i].via != NULL) ==
		    NULL || (cs[i].via != NULL ? cJSON_AddStringToObject(e,
		    "via", cs[i].via) : cJSON_AddNullToObject(e, "via")) == NULL ||
		    !cJSON_AddItemToArray(a, e)) {
			cJSON_Delete(e);	/* NULL, or not in a */
			return -1;
		}
	return 0;
}

static void
caches_text(const struct policy *p)
{
	struct cache cs[CACHES_N];
	char buf[PATH_MAX + 2];
	const char *shown;
	size_t i, n = caches_list(p, cs);

	printf("caches (writable under this policy?):\n");
	for (i = 0; i < n; i++) {
		shown = cmd_tilde(p, cs[i].path, buf, sizeof buf);
		if (cs[i].via != NULL)
			printf("  yes  %s: %s (%s%s%s)\n", cs[i].tool, shown,
			    cs[i].var != NULL ? cs[i].var : "",
			    cs[i].var != NULL ? "; " : "", cs[i].via);
		else
			printf("  NO   %s: %s (%s%s%s%s)\n", cs[i].tool, shown,
			    cs[i].var != NULL ? cs[i].var : "",
			    cs[i].var != NULL ? "; " : "",
			    p->mode == MODE_READ_ONLY ? "read-only mode" :
			    "--grant ", p->mode == MODE_READ_ONLY ? "" : shown);
	}
}

static int
status_json(const struct sandbox_report *r, const struct policy *p)
{
	cJSON *o, *g, *e;
	int i;

	if ((o = say_doc("sandbox-status")) == NULL ||
	    cJSON_AddStringToObject(o, "backend", r->backend) == NULL ||
	    cJSON_AddStringToObject(o, "why", r->why) == NULL)
		goto fail;
	for (i = 0; i < r->nfacts; i++)
		if (fact_json(o, r, i) == NULL)
			goto fail;
	if (cJSON_AddBoolToObject(o, "dry_run_exec", r->dry_run_exec) == NULL ||
	    cJSON_AddStringToObject(o, "dry_run_exec_why", r->dry_run_why) ==
	    NULL || (g = cJSON_AddObjectToObject(o, "guarantees")) == NULL)
		goto fail;
	for (i = 0; i < SANDBOX_NKEYS; i++)
		if ((e = cJSON_AddObjectToObject(g,
		    sandbox_guarantees[i].key)) == NULL ||
		    cJSON_AddBoolToObject(e, "holds", holds(r, i)) == NULL ||
		    cJSON_AddStringToObject(e, "why", why(r, i)) == NULL)
			goto fail;
	if (caches_json(o, p) < 0)
		goto fail;
	return say_print(o);
fail:
	return say_print_built(o, 0);
}

/*
 * The first line of sandbox status: what it all means for `exec`, in
 * words, before the facts it rests on.
 */
static void
verdict(const struct sandbox_report *r, const struct policy *p)
{
	int i, n = 0;

	for (i = 0; i < SANDBOX_NKEYS; i++)
		n += holds(r, i);
	if (p->mode == MODE_OFF)
		printf("verdict: NOT confined: the sandbox is off (--sandbox "
		    "off or \"sandbox\": \"off\" in the config)\n");
	else if (!holds(r, SG_WRITES))
		printf("verdict: NOT confined here: exec runs commands without "
		    "a sandbox (--require-sandbox refuses instead): %s\n",
		    r->why);
	else
		printf("verdict: confined: exec lets a command write only in %s "
		    "(%d of %d guarantees below hold)\n",
		    p->mode == MODE_READ_ONLY ? "the temp dir (read-only mode)" :
		    "the workspace, the temp dir, arcturn's state dir and the "
		    "grants", n, SANDBOX_NKEYS);
}

static void
status_text(const struct sandbox_report *r, const struct policy *p)
{
	int i;

	verdict(r, p);
	printf("backend: %s\n", r->backend);
	printf("  why: %s\n", r->why);
	for (i = 0; i < r->nfacts; i++)
		if (r->facts[i].value[0] != '\0')
			printf("%s: %s\n", r->facts[i].key, r->facts[i].value);
	printf("dry-run exec: %s (%s)\n", r->dry_run_exec ? "available" :
	    "unavailable", r->dry_run_why);
	printf("guarantees:\n");
	for (i = 0; i < SANDBOX_NKEYS; i++)
		printf("  %-4s %s: %s\n", holds(r, i) ? "yes" : "NO",
		    sandbox_guarantees[i].text, why(r, i));
	caches_text(p);
}

static int
sandbox_status(struct cli *c)
{
	struct config_flags f = { .mode = -1, .dry_run = -1,
	    .require_sandbox = -1, .network = -1 };
	struct policy p = { 0 };
	struct sandbox_choice ch;
	struct sandbox_report r;
	char err[1024];
	int rc = 0;

	if (cmd_load(c, &f, &p) < 0)
		return EXIT_USAGE;
	if (p.mode != MODE_OFF && config_check_inputs(&p, err,
	    sizeof err) < 0)
		say_warn("exec refuses to run: %s", err);
	sandbox_choose(&p, &ch);
	sandbox_probe(&p, &ch, &r);
	if (c->json)
		rc = status_json(&r, &p) < 0 ? EXIT_USAGE : 0;
	else
		status_text(&r, &p);
	policy_free(&p);
	return rc;
}

static int
sandbox_unstamp_cmd(struct cli *c, const char *path)
{
	struct config_flags f = { .mode = -1, .dry_run = -1,
	    .require_sandbox = -1, .network = -1 };
	struct policy p = { 0 };
	char err[1024];
	cJSON *o;
	int n, ok;

	if (cmd_load(c, &f, &p) < 0)
		return EXIT_USAGE;
	err[0] = '\0';
	n = sandbox_unstamp(&p, path, err, sizeof err);
	policy_free(&p);
	if (n < 0) {
		say_err("%s", err);
		if (errno == ENOTSUP)
			say_is(SAY_USAGE, NULL);
		return errno == ENOTSUP ? EXIT_USAGE : EXIT_REFUSED;
	}
	if (c->json) {
		ok = (o = say_doc(NULL)) != NULL &&
		    (path != NULL ? cJSON_AddStringToObject(o, "path", path) :
		    cJSON_AddNullToObject(o, "path")) != NULL &&
		    cJSON_AddNumberToObject(o, "restored", n) != NULL;
		return say_print_built(o, ok) < 0 ? EXIT_USAGE : 0;
	}
	if (err[0] != '\0' && !c->quiet)
		printf("%s\n", err);
	return 0;
}

int
cmd_sandbox(struct cli *c)
{
	const char *sub;
	int ch, nargs, i;

	/* the document is the subcommand's, a usage error's too */
	for (i = 1; i < c->argc && c->argv[i][0] == '-'; i++)
		;
	if (i < c->argc && (strcmp(c->argv[i], "status") == 0 ||
	    strcmp(c->argv[i], "unstamp") == 0))
		say_start(strcmp(c->argv[i], "status") == 0 ?
		    "sandbox-status" : "sandbox-unstamp", c->json);
	while ((ch = cli_getopt(c, "", NULL)) != -1)
		goto usage;	/* cli_getopt said what */
	nargs = c->argc - optind;
	sub = nargs > 0 ? c->argv[optind] : "";
	if (strcmp(sub, "status") == 0 && nargs == 1)
		return sandbox_status(c);
	if (strcmp(sub, "unstamp") == 0 && nargs <= 2) {
		return sandbox_unstamp_cmd(c, nargs == 2 ?
		    c->argv[optind + 1] : NULL);
	}
	if (nargs == 0)
		say_err("sandbox: no subcommand given (status or unstamp)");
	else if (strcmp(sub, "status") != 0 && strcmp(sub, "unstamp") != 0)
		say_err("sandbox: unknown subcommand: %s", sub);
usage:
	cmd_usage("sandbox");
	return EXIT_USAGE;
}
