/*
 * Front ends of `arcturn apply` and `arcturn discard`. Exit codes (cmd.h):
 * 0 ok; 1 refused or partly failed (apply with failures, declined at the
 * prompt, --expect mismatch, a path with no pending change); 2 usage or
 * environment (bad options, config, an unusable session, no terminal to
 * confirm on without --yes).
 */
#include <sys/file.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "changes.h"
#include "cmd.h"
#include "cmd_dryrun.h"
#include "hash.h"
#include "mem.h"
#include "path.h"
#include "plan.h"
#include "review.h"
#include "roots.h"
#include "session.h"
#include "wsview.h"

/*
 * Ask on the terminal: /dev/tty, else stdin when it is one. Returns 1
 * for yes, 0 for no, -1 when there is no terminal.
 */
static int
confirm(const char *question, const char *choices, const char *yes)
{
	char line[64];
	size_t n = 0;
	ssize_t r;
	char ch;
	int in, out, own = 0;

	in = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (in >= 0) {
		out = in;
		own = 1;
	} else if (isatty(STDIN_FILENO)) {
		in = STDIN_FILENO;
		out = STDERR_FILENO;
	} else
		return -1;
	fflush(stdout);
	dprintf(out, "%s %s ", question, choices);
	for (;;) {
		r = read(in, &ch, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || ch == '\n')
			break;
		if (n < sizeof line - 1)
			line[n++] = ch;
	}
	line[n] = '\0';
	if (r <= 0)
		dprintf(out, "\n");
	if (own)
		close(in);
	for (n = 0; line[n] == ' ' || line[n] == '\t'; n++)
		;
	return line[n] != '\0' && strchr(yes, line[n] | 0x20) != NULL;
}

/* A question before acting on n things, and what follows each answer. */
struct question {
	const char	*ask;		/* "... %zu ...?" */
	const char	*choices;
	const char	*yes;		/* the keys that mean yes */
	const char	*noterm;	/* the reason without a terminal (%zu) */
	const char	*kept;		/* printed when declined (%zu) */
};

static const struct question apply_q = {
	"Apply %zu file(s) to the workspace?", "[a]pply/[k]eep pending", "ay",
	"no terminal to confirm on; use --yes to apply %zu file(s) without "
	    "asking",
	"Kept %zu pending file(s).\n"
};

static const struct question discard_q = {
	"Discard %zu pending file change(s)?", "[d]iscard/[k]eep", "dy",
	"no terminal to confirm on; use --yes to discard %zu pending file "
	    "change(s)",
	"Kept %zu pending file change(s).\n"
};

/*
 * Ask q about n things: 1 yes; 0 declined (said so unless quiet; e says
 * EXIT_REFUSED with nothing more to print); -1 no terminal (e filled).
 */
static int
ask(const struct question *q, size_t n, int quiet, struct dryrun_err *e)
{
	char line[128];
	int r;

	snprintf(line, sizeof line, q->ask, n);
	if ((r = confirm(line, q->choices, q->yes)) < 0) {
		dryrun_fail(e, EXIT_USAGE, 0, "", q->noterm, n);
		return -1;
	}
	if (r == 0) {
		if (!quiet)
			printf(q->kept, n);
		dryrun_fail(e, EXIT_REFUSED, 0, "", NULL);
	}
	return r;
}

/* --expect: the pending set must be the one whose digest was reviewed. */
static int
check_expect(struct dryrun *x, struct changes *c, const char *expect,
    struct dryrun_err *e)
{
	char hex[HASH_HEXLEN + 1];

	if (review_diff(&x->s, x->rootfd, c, NULL, NULL, NULL, hex,
	    dryrun_list_warn, "apply") < 0)
		return dryrun_fail(e, EXIT_USAGE, errno, "", NULL);
	if (strcasecmp(expect, hex) != 0)
		return dryrun_fail(e, EXIT_REFUSED, 0, "", "pending changes do "
		    "not match --expect %s (pending: %s); refused", expect,
		    hex);
	return 0;
}

/* Select the changes the paths name (all when there are none): sel. */
static int
select_paths(struct dryrun *x, struct changes *c, char **argv, size_t np,
    int *sel, struct dryrun_err *e)
{
	char **paths;
	size_t i;
	long unmatched = -1;
	int r = 0;

	if ((paths = mem_calloc(np + 1, sizeof *paths)) == NULL)
		return dryrun_fail(e, EXIT_USAGE, errno, "", NULL);
	for (i = 0; r == 0 && i < np; i++) {
		r = wsview_resolve(x->p.workspace, argv[i], &paths[i]);
		if (r < 0)
			dryrun_fail(e, EXIT_REFUSED, errno, argv[i], NULL);
		else if (r > 0)
			dryrun_fail(e, EXIT_REFUSED, 0, argv[i],
			    "outside the workspace");
	}
	if (r == 0) {
		plan_select(c, paths, np, sel, &unmatched);
		if (unmatched >= 0)
			r = dryrun_fail(e, EXIT_REFUSED, 0, argv[unmatched],
			    "no pending change there");
	}
	for (i = 0; i < np; i++)
		mem_free(paths[i]);
	mem_free(paths);
	return r == 0 ? 0 : e->status;
}

static void
apply_failed(const char *path, int err, const char *reason, void *arg)
{
	warnx("apply: %s: %s", path, reason);
}

/* The policy at apply (roots.h): what exec's sandbox would refuse. */
struct veto {
	struct roots	 r;
	const char	*ws;
	char		 why[64];
};

static const char *
veto(const char *rel, void *arg)
{
	struct veto *v = arg;
	const char *why;
	char *abs;
	int rc;

	if ((abs = path_join(v->ws, rel)) == NULL)
		return strerror(ENOMEM);
	rc = roots_check(&v->r, abs, &why);
	mem_free(abs);
	if (rc == 0)
		return NULL;
	snprintf(v->why, sizeof v->why, "%s; refused", why);
	return v->why;
}

/* Apply what sel selects and say how it went (e: the exit status). */
static void
run_apply(struct dryrun *x, struct changes *c, const int *sel, int quiet,
    struct dryrun_err *e)
{
	struct plan_result res;
	struct policy q = x->p;
	struct veto v;
	char sn[SESSION_IDMAX + 16];
	int rc;

	snprintf(sn, sizeof sn, "session %s", x->id);
	/* apply writes the workspace: the protected paths are what it asks */
	q.mode = MODE_WORKSPACE_WRITE;
	v.ws = x->p.workspace;
	if (x->p.mode != MODE_OFF && roots_build(&q, ROOTS_PROTECT |
	    ROOTS_MISSING, NULL, &v.r) < 0) {
		dryrun_fail(e, EXIT_USAGE, 0, "", "%s", v.r.why);
		return;
	}
	rc = plan_apply_refusing(&x->s, x->rootfd, c, sel, x->p.mode !=
	    MODE_OFF ? veto : NULL, &v, apply_failed, NULL, &res);
	if (x->p.mode != MODE_OFF)
		roots_free(&v.r);
	if (rc < 0) {
		dryrun_fail(e, EXIT_USAGE, errno, sn, NULL);
		return;
	}
	if (res.left < 0)
		warnx("apply: %s: dropping applied changes: %s", sn,
		    strerror(res.settle_err));
	else if (res.left > 0)
		warnx("apply: %s: %d applied change(s) could not be dropped "
		    "from the session", sn, res.left);
	if (res.all) {
		x->open = 0;
		if (session_remove(&x->s) < 0)
			warn("apply: removing session %s", x->id);
	}
	if (res.failed > 0) {
		printf("Applied %zu, failed %zu. Pending changes kept.\n",
		    res.applied, res.failed);
		dryrun_fail(e, EXIT_REFUSED, 0, "", NULL);
		return;
	}
	if (!quiet)
		printf("Applied %zu file(s).\n", res.applied);
	e->status = 0;
}

int
cmd_apply(struct cli *c)
{
	static const struct option opts[] = {
		{ "yes", no_argument, NULL, 'y' },
		{ "expect", required_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 }
	};
	struct dryrun_err e = { .status = EXIT_USAGE };
	struct changes ch = { NULL, 0, 0 };
	struct dryrun x;
	const char *expect = NULL;
	int *sel = NULL, yes = 0, r, opt;
	size_t nsel;

	dryrun_init(&x);
	while ((opt = getopt_long(c->argc, c->argv, "y", opts, NULL)) != -1) {
		switch (opt) {
		case 'y':
			yes = 1;
			break;
		case 'e':
			expect = optarg;
			break;
		default:
			cmd_usage("apply");
			return EXIT_USAGE;
		}
	}
	if (dryrun_load(&x, c, 0, &e) < 0 ||
	    (r = dryrun_changes(&x, "apply", LOCK_EX, &ch, &e)) == DRYRUN_ERR)
		goto out;
	if (r == DRYRUN_NONE && expect != NULL) {
		dryrun_fail(&e, EXIT_REFUSED, 0, "", "nothing pending; --expect "
		    "%s refused", expect);
		goto out;
	}
	if (r == DRYRUN_GOT && expect != NULL &&
	    check_expect(&x, &ch, expect, &e) != 0)
		goto out;
	if (ch.n == 0) {
		if (!c->quiet)
			printf("No pending changes.\n");
		if (r == DRYRUN_GOT && optind == c->argc) {
			x.open = 0;
			session_remove(&x.s);
		}
		e.status = 0;
		goto out;
	}
	if ((sel = mem_calloc(ch.n, sizeof *sel)) == NULL) {
		dryrun_fail(&e, EXIT_USAGE, errno, "", NULL);
		goto out;
	}
	if (select_paths(&x, &ch, c->argv + optind, (size_t)(c->argc - optind),
	    sel, &e) != 0)
		goto out;
	nsel = plan_count(&ch, sel);
	if (yes || ask(&apply_q, nsel, c->quiet, &e) > 0)
		run_apply(&x, &ch, sel, c->quiet, &e);
out:
	dryrun_report("apply", &e);
	changes_free(&ch);
	mem_free(sel);
	dryrun_done(&x);
	return e.status;
}

int
cmd_discard(struct cli *c)
{
	static const struct option opts[] = {
		{ "yes", no_argument, NULL, 'y' },
		{ NULL, 0, NULL, 0 }
	};
	struct dryrun_err e = { .status = EXIT_USAGE };
	struct changes ch = { NULL, 0, 0 };
	struct dryrun x;
	char sn[SESSION_IDMAX + 16];
	size_t n = 0;
	int yes = 0, r, opt;

	dryrun_init(&x);
	while ((opt = getopt_long(c->argc, c->argv, "y", opts, NULL)) != -1) {
		if (opt == 'y')
			yes = 1;
		else {
			cmd_usage("discard");
			return EXIT_USAGE;
		}
	}
	if (optind != c->argc) {
		cmd_usage("discard");
		return EXIT_USAGE;
	}
	if (dryrun_load(&x, c, 0, &e) < 0 ||
	    (r = dryrun_open(&x, "discard", 0, LOCK_EX, &e)) == DRYRUN_ERR)
		goto out;
	if (r == DRYRUN_NONE) {
		if (!c->quiet)
			printf("No pending changes.\n");
		e.status = 0;
		goto out;
	}
	/* Count against the session's own workspace, wherever we run. */
	if (dryrun_root(&x, x.s.workspace, &e) < 0)
		dryrun_report("discard", &e);
	else if (changes_list(&x.s, x.rootfd, &ch, NULL, NULL) == 0)
		n = ch.count;
	if (n > 0 && !yes && ask(&discard_q, n, c->quiet, &e) <= 0)
		goto out;
	x.open = 0;
	snprintf(sn, sizeof sn, "session %s", x.id);
	if (session_remove(&x.s) < 0) {
		dryrun_fail(&e, EXIT_USAGE, errno, sn, NULL);
		goto out;
	}
	if (!c->quiet) {
		if (n > 0)
			printf("Discarded %zu pending file change(s).\n", n);
		else
			printf("No pending changes.\n");
	}
	e.status = 0;
out:
	dryrun_report("discard", &e);
	changes_free(&ch);
	dryrun_done(&x);
	return e.status;
}
