/*
 * Front end of `arcturn diff [--full] [--stat] [--name-only]
 * [--name-status] [--color[=WHEN]] [--no-pager] [PATH]...`: the pending
 * changes of the workspace's session as one git-style diff (each file's
 * first CAP_DEFAULT body lines, then `... diff truncated: N more lines
 * for P`, unless --full), as a diffstat (--stat), as names (--name-only,
 * or with git's status letter and a tab: --name-status), or as a JSON
 * document (--json); the diff and the diffstat of the whole set end with
 * `digest: <sha256>` (what `apply --expect` checks) when anything is
 * pending. PATH... limits the output to the changes at or beneath those
 * paths (then no digest: it would not be the set's). Nothing pending:
 * nothing printed, as git diff. On a terminal the output goes through
 * $PAGER (default `less -FRX`, as git does) unless --no-pager; never
 * with --json or when stdout is no terminal. Exit 0; 1 a PATH with no
 * pending change; 2 usage, config, session.
 */
#include <sys/file.h>

#include "say.h"
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "changes.h"
#include "cmd.h"
#include "cmd_dryrun.h"
#include "hash.h"
#include "mem.h"
#include "plan.h"
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
enum view { V_DIFF, V_STAT, V_JSON, V_NAMES, V_STATUS };

/*
 * Keep in c only the changes at or beneath the paths the user named
 * (plan_select's choice): the others are freed. A path that selects
 * nothing is refused (EXIT_REFUSED).
 */
static int
limit(struct dryrun *x, struct changes *c, char **argv, size_t np,
    struct dryrun_err *e)
{
	size_t i, j;
	int *sel, r;

	if ((sel = mem_calloc(c->n + 1, sizeof *sel)) == NULL)
		return dryrun_fail(e, EXIT_USAGE, errno, "", NULL);
	r = dryrun_select(x, c, argv, np, sel, e);
	if (r == 0) {
		c->count = 0;
		for (i = j = 0; i < c->n; i++) {
			if (sel[i]) {
				c->count += !c->v[i].implied;
				c->v[j++] = c->v[i];
				continue;
			}
			mem_free(c->v[i].path);
			mem_free(c->v[i].origin);
			mem_free(c->v[i].link_to);
		}
		c->n = j;
	}
	mem_free(sel);
	return r == 0 ? 0 : -1;
}

/* --name-only and --name-status: files only, as git lists them. */
static int
names(const struct changes *c, int status)
{
	static const char letter[] = "AMDMT";
	const struct change *ch;
	size_t i;
	char *q;
	int rc = 0;

	for (i = 0; rc == 0 && i < c->n; i++) {
		ch = &c->v[i];
		if (ch->status > CHANGE_TYPE)
			continue;
		if ((q = udiff_quote("", ch->path)) == NULL)
			return -1;
		if ((status && printf("%c\t", letter[ch->status]) < 0) ||
		    printf("%s\n", q) < 0)
			rc = -1;
		mem_free(q);
	}
	return rc;
}

/* Render the pending set c (maybe empty: no session) as v asks. */
static int
render(struct dryrun *x, struct changes *c, enum view v, int full,
    int color, int part)
{
	struct udiff_opts o;
	char hex[HASH_HEXLEN + 1];

	if (v == V_NAMES || v == V_STATUS)
		return names(c, v == V_STATUS);
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
	return part || printf("digest: %s\n", hex) >= 0 ? 0 : -1;
}

/*
 * On a terminal, stdout goes through $PAGER (default `less -FRX`, as git
 * does; empty or "cat": none) until pager_end. Returns the pager, or NULL
 * (none, or it could not start: the diff goes to the terminal).
 */
struct pager {
	FILE	*p;
	int	 saved;		/* the terminal's stdout */
};

static int
pager_start(struct pager *pg)
{
	const char *cmd = getenv("PAGER");

	pg->p = NULL;
	pg->saved = -1;
	if (cmd == NULL)
		cmd = "less -FRX";
	if (*cmd == '\0' || strcmp(cmd, "cat") == 0)
		return 0;
	if (getenv("LESS") == NULL)
		(void)setenv("LESS", "FRX", 1);
	fflush(stdout);
	if ((pg->saved = dup(STDOUT_FILENO)) < 0)
		return -1;
	if ((pg->p = popen(cmd, "w")) == NULL ||
	    dup2(fileno(pg->p), STDOUT_FILENO) < 0) {
		if (pg->p != NULL)
			pclose(pg->p);
		pg->p = NULL;
		close(pg->saved);
		pg->saved = -1;
		return -1;
	}
	/* a pager quit early: the rest of the diff goes nowhere */
	(void)signal(SIGPIPE, SIG_IGN);
	return 0;
}

static void
pager_end(struct pager *pg)
{
	if (pg->p == NULL)
		return;
	fflush(stdout);
	clearerr(stdout);
	/* the pager sees the end of its input only when fd 1 lets go */
	(void)dup2(pg->saved, STDOUT_FILENO);
	close(pg->saved);
	pclose(pg->p);
	pg->p = NULL;
}

int
cmd_diff(struct cli *c)
{
	static const struct option opts[] = {
		{ "full", no_argument, NULL, 'f' },
		{ "stat", no_argument, NULL, 's' },
		{ "color", optional_argument, NULL, 'c' },
		{ "colour", optional_argument, NULL, 'c' },
		{ "name-only", no_argument, NULL, 'n' },
		{ "name-status", no_argument, NULL, 'S' },
		{ "no-pager", no_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 }
	};
	struct pager pg = { NULL, -1 };
	struct dryrun_err e = { .status = EXIT_USAGE };
	struct changes ch = { NULL, 0, 0 };
	struct dryrun x;
	const char *when = NULL;
	enum view v = V_DIFF;
	int full = 0, color, r, opt, paging = 1;

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
		case 'n':
			v = V_NAMES;
			break;
		case 'S':
			v = V_STATUS;
			break;
		case 'P':
			paging = 0;
			break;
		default:
			cmd_usage("diff");
			return EXIT_USAGE;
		}
	}
	if ((color = want_color(when)) < 0) {
		say_err("diff: --color=%s: want auto, always or never", when);
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
	if (r == DRYRUN_NONE && optind < c->argc)
		dryrun_fail(&e, EXIT_REFUSED, 0, c->argv[optind],
		    "no pending change there");
	else if (r == DRYRUN_NONE && v != V_JSON)
		e.status = 0;
	else if (optind < c->argc && limit(&x, &ch, c->argv + optind,
	    (size_t)(c->argc - optind), &e) < 0)
		;
	else {
		/* the colour was chosen for the terminal, before the pager */
		if (paging && v != V_JSON && ch.n > 0 &&
		    isatty(STDOUT_FILENO))
			(void)pager_start(&pg);
		r = render(&x, &ch, v, full, color, optind < c->argc);
		if (r < 0 && pg.p != NULL && (errno == EIO ||
		    errno == EPIPE) && ferror(stdout))
			r = 0;	/* the user quit the pager */
		pager_end(&pg);
		if (r < 0)
			dryrun_fail(&e, EXIT_USAGE, errno, "", NULL);
		else
			e.status = 0;
	}
out:
	dryrun_report("diff", &e);
	changes_free(&ch);
	dryrun_done(&x);
	return e.status;
}
