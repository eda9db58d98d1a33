/*
 * cmd_exec: the portable front ends of `arcturn exec` and `arcturn sandbox`.
 * Parses flags, builds the policy (config.c), lets the platform backend
 * decide (sandbox.h), says what the decision means, and hands over.
 */
#include "say.h"
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "mem.h"
#include "sandbox.h"

static void
warn_cb(const char *msg, void *arg)
{
	(void)arg;
	say_warn("%s", msg);
}

static int
load(struct cli *c, struct config_flags *f, struct policy *p)
{
	char err[512];

	f->dir = c->dir;
	f->session = c->session;
	if (config_load(p, f, err, sizeof err, warn_cb, NULL) < 0) {
		say_err("%s", err);
		return -1;
	}
	return 0;
}

int
cmd_exec(struct cli *c)
{
	static const struct option opts[] = {
		{ "sandbox", required_argument, NULL, 's' },
		{ "grant", required_argument, NULL, 'g' },
		{ "dry-run", no_argument, NULL, 'd' },
		{ "checkpoint", no_argument, NULL, 'k' },
		{ "require-sandbox", no_argument, NULL, 'r' },
		{ "network", required_argument, NULL, 'n' },
		{ "allow-unix", required_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 }
	};
	struct config_flags f = { .mode = -1, .dry_run = -1,
	    .require_sandbox = -1, .network = -1 };
	struct policy p = { 0 };
	struct sandbox_choice ch;
	const char **grants = NULL, **unix_sockets = NULL;
	char err[512], outer[64];
	int opt, rc, checkpoint = 0;

	grants = mem_calloc((size_t)c->argc, sizeof *grants);
	unix_sockets = mem_calloc((size_t)c->argc, sizeof *unix_sockets);
	if (grants == NULL || unix_sockets == NULL) {
		say_errno("exec");
		mem_free(grants);
		mem_free(unix_sockets);
		return EXIT_OWN;
	}
	f.grants = grants;
	f.unix_sockets = unix_sockets;
	opterr = 0;
	while ((opt = getopt_long(c->argc, c->argv, "+", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			if ((f.mode = config_mode(optarg)) < 0) {
				say_err("exec: unknown sandbox mode: %s (off, "
				    "workspace-write, read-only)", optarg);
				goto usage;
			}
			break;
		case 'g':
			grants[f.ngrants++] = optarg;
			break;
		case 'd':
			f.dry_run = 1;
			break;
		case 'k':
			/* --dry-run's overlay, then applied as a turn */
			checkpoint = 1;
			f.dry_run = 1;
			break;
		case 'r':
			f.require_sandbox = 1;
			break;
		case 'u':
			unix_sockets[f.nunix++] = optarg;
			break;
		case 'n':
			if (strcmp(optarg, "on") == 0)
				f.network = 1;
			else if (strcmp(optarg, "off") == 0)
				f.network = 0;
			else {
				say_err("exec: --network takes on or off, not %s",
				    optarg);
				goto usage;
			}
			break;
		default:
			if (optopt != 0)
				say_err("exec: option -%c needs a value or is "
				    "unknown", optopt);
			else
				say_err("exec: unknown option: %s",
				    c->argv[optind - 1]);
			goto usage;
		}
	}
	if (optind >= c->argc) {
		say_err("exec: no command given (usage: arcturn exec [OPTION]... "
		    "[--] CMD [ARG]...)");
		goto usage;
	}
	rc = load(c, &f, &p);
	mem_free(grants);
	mem_free(unix_sockets);
	if (rc < 0)
		return EXIT_OWN;
	if (p.mode != MODE_OFF && strcmp(p.workspace, "/") == 0) {
		say_err("exec: workspace is /: refusing to make the whole "
		    "filesystem writable (use -C DIR)");
		policy_free(&p);
		return EXIT_OWN;
	}
	/* inputs that would widen the roots without a word, any backend */
	if (p.mode != MODE_OFF && config_check_inputs(&p, err,
	    sizeof err) < 0) {
		say_err("exec: %s", err);
		policy_free(&p);
		return EXIT_OWN;
	}
	if (checkpoint)
		return dryrun_exec_checkpoint(&p, c, c->argv + optind);
	if (p.dry_run)
		return dryrun_exec(&p, c->argv + optind);
	sandbox_choose(&p, &ch);
	if (ch.verdict == SANDBOX_BAD || (ch.verdict == SANDBOX_NONE &&
	    p.require_sandbox)) {
		say_err("%s%s", ch.verdict == SANDBOX_BAD ? "" :
		    "sandbox required but unavailable: ", ch.why);
		policy_free(&p);
		return EXIT_OWN;
	}
	/*
	 * ARCTURN_SANDBOX tells the command (and a nested arcturn) how it
	 * is confined. A run that does not confine it leaves the variable
	 * only when an outer arcturn's sandbox still does.
	 */
	outer[0] = '\0';
	if (ch.verdict == SANDBOX_CONFINE)
		(void)sandbox_setenv(p.mode == MODE_READ_ONLY ? "read-only" :
		    "workspace-write");
	else if (!sandbox_nested(outer, sizeof outer))
		(void)sandbox_setenv(NULL);
	/* the note must reach the user even when the exec succeeds */
	if (ch.verdict == SANDBOX_NONE && outer[0] != '\0')
		fprintf(stderr, "note: sandbox requested but unavailable here\n"
		    "note: %s; the command is still confined by the outer "
		    "arcturn sandbox (ARCTURN_SANDBOX=%s)\n", ch.why, outer);
	else if (ch.verdict == SANDBOX_NONE)
		fprintf(stderr, "note: sandbox requested but unavailable on "
		    "this platform\nnote: %s; the command runs WITHOUT "
		    "confinement\n", ch.why);
	err[0] = '\0';
	rc = sandbox_run(&p, &ch, c->argv + optind, err, sizeof err);
	if (err[0] != '\0')
		say_err("%s", err);
	policy_free(&p);
	return rc;
usage:
	mem_free(grants);
	mem_free(unix_sockets);
	return EXIT_OWN;
}

static void
json_str(FILE *o, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	fputc('"', o);
	for (; *u; u++) {
		if (*u == '"' || *u == '\\')
			fprintf(o, "\\%c", *u);
		else if (*u < 0x20)
			fprintf(o, "\\u%04x", *u);
		else
			fputc(*u, o);
	}
	fputc('"', o);
}

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

static void
status_json(const struct sandbox_report *r)
{
	int i;

	printf("{\"backend\":");
	json_str(stdout, r->backend);
	printf(",\"why\":");
	json_str(stdout, r->why);
	for (i = 0; i < r->nfacts; i++) {
		printf(",");
		json_str(stdout, r->facts[i].key);
		printf(":");
		json_str(stdout, r->facts[i].value);
	}
	printf(",\"dry_run_exec\":%s,\"dry_run_exec_why\":",
	    r->dry_run_exec ? "true" : "false");
	json_str(stdout, r->dry_run_why);
	printf(",\"guarantees\":{");
	for (i = 0; i < SANDBOX_NKEYS; i++) {
		printf("%s", i ? "," : "");
		json_str(stdout, sandbox_guarantees[i].key);
		printf(":{\"holds\":%s,\"why\":", holds(r, i) ? "true" :
		    "false");
		json_str(stdout, why(r, i));
		printf("}");
	}
	printf("}}\n");
}

static void
status_text(const struct sandbox_report *r)
{
	int i;

	printf("backend: %s\n", r->backend);
	printf("  why: %s\n", r->why);
	for (i = 0; i < r->nfacts; i++)
		printf("%s: %s\n", r->facts[i].key, r->facts[i].value);
	printf("dry-run exec: %s (%s)\n", r->dry_run_exec ? "available" :
	    "unavailable", r->dry_run_why);
	printf("guarantees:\n");
	for (i = 0; i < SANDBOX_NKEYS; i++)
		printf("  %-4s %s: %s\n", holds(r, i) ? "yes" : "NO",
		    sandbox_guarantees[i].text, why(r, i));
}

int
cmd_sandbox(struct cli *c)
{
	struct config_flags f = { .mode = -1, .dry_run = -1,
	    .require_sandbox = -1, .network = -1 };
	struct policy p = { 0 };
	struct sandbox_choice ch;
	struct sandbox_report r;
	char err[1024];
	int json = c->json;

	if (c->argc >= 2 && strcmp(c->argv[1], "status") == 0) {
		if (c->argc == 3 && strcmp(c->argv[2], "--json") == 0)
			json = 1;
		else if (c->argc != 2)
			goto usage;
		if (load(c, &f, &p) < 0)
			return EXIT_USAGE;
		if (p.mode != MODE_OFF && config_check_inputs(&p, err,
		    sizeof err) < 0)
			say_warn("exec refuses to run: %s", err);
		sandbox_choose(&p, &ch);
		sandbox_probe(&p, &ch, &r);
		if (json)
			status_json(&r);
		else
			status_text(&r);
		policy_free(&p);
		return 0;
	}
	if (c->argc >= 2 && c->argc <= 3 &&
	    strcmp(c->argv[1], "unstamp") == 0) {
		int rc;

		if (load(c, &f, &p) < 0)
			return EXIT_USAGE;
		err[0] = '\0';
		rc = sandbox_unstamp(&p, c->argc == 3 ? c->argv[2] : NULL, err,
		    sizeof err);
		policy_free(&p);
		if (rc < 0) {
			say_err("%s", err);
			return errno == ENOTSUP ? EXIT_USAGE : EXIT_REFUSED;
		}
		if (err[0] != '\0' && !c->quiet)
			printf("%s\n", err);
		return 0;
	}
usage:
	cmd_usage("sandbox");
	return EXIT_USAGE;
}
