/*
 * Front ends of `arcturn apply` and `arcturn discard`. Exit codes (cmd.h):
 * 0 ok; 1 refused or partly failed (apply with failures, declined at the
 * prompt, --expect mismatch, a path with no pending change); 2 usage or
 * environment (bad options, config, an unusable session, no terminal to
 * confirm on without --yes).
 *
 * apply keeps what it replaces or deletes (keep.h) and, when the session
 * stays (something failed), says where. On a terminal, an apply that
 * takes over a second shows its progress on stderr (-q: never).
 */
#include <sys/file.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "changes.h"
#include "cmd.h"
#include "cmd_dryrun.h"
#include "hash.h"
#include "keep.h"
#include "mem.h"
#include "path.h"
#include "plan.h"
#include "review.h"
#include "roots.h"
#include "session.h"

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

static void
apply_failed(const char *path, int err, const char *reason, void *arg)
{
	warnx("apply: %s: %s", path, err != 0 ? dryrun_strerror(err) : reason);
}

/* Progress on a terminal, after a second, at most ten times a second. */
struct progress {
	pthread_mutex_t	 mu;
	size_t		 done, total;
	struct timespec	 start, last;
	int		 shown;
};

static double
since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	    (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void
progress_step(void *arg)
{
	struct progress *pr = arg;
	struct timespec now;

	pthread_mutex_lock(&pr->mu);
	pr->done++;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (since(&pr->start, &now) >= 1.0 && (!pr->shown ||
	    since(&pr->last, &now) >= 0.1 || pr->done == pr->total)) {
		fprintf(stderr, "\rarcturn: apply: %zu/%zu", pr->done >
		    pr->total ? pr->total : pr->done, pr->total);
		pr->last = now;
		pr->shown = 1;
	}
	pthread_mutex_unlock(&pr->mu);
}

/*
 * The policy at apply (roots.h): mark refused (changes.h) each selected
 * change that exec's sandbox would refuse, so that plan_apply leaves it
 * pending and says why. Sandbox mode off is no policy.
 */
static int
veto(struct dryrun *x, struct changes *c, const int *sel,
    struct dryrun_err *e)
{
	struct policy q = x->p;
	struct roots r;
	const char *why;
	char *abs, *canon;
	size_t i, j;
	int rc;

	if (x->p.mode == MODE_OFF)
		return 0;
	/* apply writes the workspace: the protected paths are what it asks */
	q.mode = MODE_WORKSPACE_WRITE;
	if (roots_build(&q, ROOTS_PROTECT | ROOTS_MISSING, NULL, &r) < 0)
		return dryrun_fail(e, EXIT_USAGE, 0, "", "%s", r.why);
	for (i = 0; i < c->n; i++) {
		if (!sel[i] || c->v[i].refuse != NULL)
			continue;
		/*
		 * The path as apply names it, and canonical as the file
		 * tools check it: a symlink in the real tree must not lead
		 * a change onto a protected path. (One that leads out of
		 * the workspace is apply's own refusal, which names it.)
		 */
		canon = NULL;
		if ((abs = path_join(x->p.workspace, c->v[i].path)) == NULL) {
			roots_free(&r);
			return dryrun_fail(e, EXIT_USAGE, errno, "", NULL);
		}
		if (path_canon(abs, PATH_LEXICAL, NULL, &canon) < 0) {
			mem_free(abs);
			if (errno == ENOMEM) {
				roots_free(&r);
				return dryrun_fail(e, EXIT_USAGE, errno, "",
				    NULL);
			}
			c->v[i].refuse = "cannot be checked against the "
			    "policy; refused";
			continue;
		}
		rc = roots_check(&r, abs, &why);
		if (rc == 0 && roots_check(&r, canon, &why) < 0 &&
		    strcmp(why, "protected path") == 0)
			rc = -1;
		mem_free(abs);
		mem_free(canon);
		if (rc < 0)
			c->v[i].refuse = strcmp(why, "protected path") == 0 ?
			    "protected path; refused" :
			    "outside the writable roots; refused";
	}
	roots_free(&r);
	/* a hard link to a refused path would give it a second name */
	for (i = 0; i < c->n; i++) {
		if (!sel[i] || c->v[i].refuse != NULL ||
		    c->v[i].link_to == NULL)
			continue;
		j = changes_find(c, c->v[i].link_to);
		if (j < c->n && strcmp(c->v[j].path, c->v[i].link_to) == 0 &&
		    c->v[j].refuse != NULL)
			c->v[i].refuse = c->v[j].refuse;
	}
	return 0;
}

/* Apply what sel selects and say how it went (e: the exit status). */
static void
run_apply(struct dryrun *x, struct changes *c, const int *sel, int quiet,
    struct dryrun_err *e)
{
	struct plan_result res;
	struct apply_env env;
	struct progress pr;
	struct keep *k = NULL;
	char sn[SESSION_IDMAX + 16];
	size_t i, kept;

	snprintf(sn, sizeof sn, "session %s", x->id);
	if (veto(x, c, sel, e) != 0)
		return;
	/* what a killed apply left, also beside paths it finished */
	dryrun_sweep(x);
	if (keep_open(&x->s, &k) < 0) {
		dryrun_fail(e, EXIT_USAGE, errno, sn, NULL);
		return;
	}
	memset(&env, 0, sizeof env);
	env.keep = keep_keeper(k);
	memset(&pr, 0, sizeof pr);
	if (!quiet && isatty(STDERR_FILENO)) {
		pthread_mutex_init(&pr.mu, NULL);
		clock_gettime(CLOCK_MONOTONIC, &pr.start);
		for (i = 0; i < c->n; i++)
			pr.total += sel[i] != 0;
		env.progress = progress_step;
		env.parg = &pr;
	}
	if (plan_apply(&x->s, x->rootfd, c, sel, &env, apply_failed, NULL,
	    &res) < 0) {
		dryrun_fail(e, EXIT_USAGE, errno, sn, NULL);
		keep_close(k);
		return;
	}
	if (pr.shown)
		fputc('\n', stderr);
	if (env.progress != NULL)
		pthread_mutex_destroy(&pr.mu);
	kept = keep_count(k);
	if (kept > 0 && !res.all)
		printf("Replaced content kept in %s/overlays/%s/replaced/%s "
		    "(%zu file(s)).\n", x->p.state, x->id, keep_name(k), kept);
	keep_close(k);
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
			dryrun_sweep(&x);
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
	if (dryrun_select(&x, &ch, c->argv + optind,
	    (size_t)(c->argc - optind), sel, &e) != 0)
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

static const struct question damaged_q = {
	"Discard the damaged session?", "[d]iscard/[k]eep", "dy",
	"no terminal to confirm on; use --yes to discard the damaged session",
	"Kept the damaged session.\n"
};

static void
say_waiting(void *arg)
{
	warnx("discard: waiting for session %s: another arcturn holds it",
	    (const char *)arg);
}

/* discard of a session that cannot be opened: by its id, asked first. */
static int
discard_damaged(struct dryrun *x, int yes, int quiet, struct dryrun_err *e)
{
	char sn[SESSION_IDMAX + 16];

	snprintf(sn, sizeof sn, "session %s", x->id);
	/* what is damaged, said once; then the discard itself */
	dryrun_report("discard", e);
	dryrun_fail(e, EXIT_USAGE, 0, "", NULL);
	if (!yes && ask(&damaged_q, 1, quiet, e) <= 0)
		return e->status;
	if (session_remove_id(x->storefd, x->id, say_waiting, x->id) < 0)
		return dryrun_fail(e, EXIT_USAGE, errno, sn, NULL);
	if (!quiet)
		printf("Discarded damaged session %s.\n", x->id);
	e->status = 0;
	return 0;
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
	int yes = 0, r, opt, listed = 0;

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
	if (dryrun_load(&x, c, 0, &e) < 0)
		goto out;
	r = dryrun_open(&x, "discard", 0, LOCK_EX, &e);
	if (r == DRYRUN_ERR && x.damaged) {
		discard_damaged(&x, yes, c->quiet, &e);
		goto out;
	}
	if (r == DRYRUN_ERR)
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
	else if (changes_list(&x.s, x.rootfd, &ch, NULL, NULL) == 0) {
		n = ch.count;
		listed = 1;
	}
	if (n > 0 && !yes && ask(&discard_q, n, c->quiet, &e) <= 0)
		goto out;
	/* what a killed apply of these changes left in the workspace */
	if (listed)
		dryrun_sweep(&x);
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
