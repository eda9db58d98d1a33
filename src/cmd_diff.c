/*
 * Front end of `arcturn diff [--full] [--stat] [--color[=WHEN]]`: the
 * pending changes of the workspace's session as one git-style diff (each
 * file capped at CAP_DEFAULT body lines unless --full), as a diffstat
 * (--stat), or as a JSON document (--json); the first two end with
 * `digest: <sha256>` when anything is pending. Nothing pending: nothing
 * printed, as git diff. Exit 0, or 2 (usage, config, session).
 */
#include <sys/file.h>

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "changes.h"
#include "cmd.h"
#include "cmd_dryrun.h"
#include "hash.h"
#include "review.h"
#include "udiff.h"

#define CAP_DEFAULT	200

static int
want_color(const char *when)
{
	const char *nc;

	if (when == NULL || strcmp(when, "auto") == 0) {
		nc = getenv("NO_COLOR");
		return isatty(STDOUT_FILENO) && (nc == NULL || nc[0] == '\0');
	}
	if (strcmp(when, "always") == 0)
		return 1;
	if (strcmp(when, "never") == 0)
		return 0;
	return -1;
}

/* What the user asked to see. */
enum view { V_DIFF, V_STAT, V_JSON };

/* Render the pending set c (maybe empty: no session) as v asks. */
static int
render(struct dryrun *x, struct changes *c, enum view v, int full,
    int color)
{
	struct udiff_opts o;
	char hex[HASH_HEXLEN + 1];

	memset(&o, 0, sizeof o);
	o.ctx = 3;
	o.cap = v == V_DIFF && !full ? CAP_DEFAULT : -1;
	o.color = v == V_DIFF ? color : 0;
	if (review_diff(&x->s, x->rootfd, c, &o, v == V_DIFF ? dryrun_stdout :
	    NULL, NULL, hex, dryrun_list_warn, "diff") < 0)
		return -1;
	if (v == V_JSON)
		return review_json(c, x->id, x->p.workspace, hex,
		    dryrun_stdout, NULL);
	if (c->n == 0)
		return 0;
	if (v == V_STAT && review_stat(c, color, dryrun_stdout, NULL) < 0)
		return -1;
	return printf("digest: %s\n", hex) < 0 ? -1 : 0;
}

int
cmd_diff(struct cli *c)
{
	static const struct option opts[] = {
		{ "full", no_argument, NULL, 'f' },
		{ "stat", no_argument, NULL, 's' },
		{ "color", optional_argument, NULL, 'c' },
		{ "colour", optional_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 }
	};
	struct dryrun_err e = { .status = EXIT_USAGE };
	struct changes ch = { NULL, 0, 0 };
	struct dryrun x;
	const char *when = NULL;
	enum view v = V_DIFF;
	int full = 0, color, r, opt;

	dryrun_init(&x);
	while ((opt = getopt_long(c->argc, c->argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			full = 1;
			break;
		case 's':
			v = V_STAT;
			break;
		case 'c':
			when = optarg != NULL ? optarg : "always";
			break;
		default:
			cmd_usage("diff");
			return EXIT_USAGE;
		}
	}
	if (optind != c->argc || (color = want_color(when)) < 0) {
		if (optind == c->argc)
			warnx("diff: --color=%s: want auto, always or never",
			    when);
		cmd_usage("diff");
		return EXIT_USAGE;
	}
	if (c->json)
		v = V_JSON;
	if (dryrun_load(&x, c, 0, &e) < 0 ||
	    (r = dryrun_changes(&x, "diff", LOCK_SH, &ch, &e)) == DRYRUN_ERR)
		goto out;
	/* Nothing pending: like git diff, print nothing (JSON: no files). */
	if (r == DRYRUN_NONE)
		x.id[0] = '\0';
	if (r == DRYRUN_NONE && v != V_JSON)
		e.status = 0;
	else if (render(&x, &ch, v, full, color) < 0)
		dryrun_fail(&e, EXIT_USAGE, errno, "", NULL);
	else
		e.status = 0;
out:
	dryrun_report("diff", &e);
	changes_free(&ch);
	dryrun_done(&x);
	return e.status;
}
