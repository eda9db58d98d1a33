/*
 * Front end of `arcturn apply` (discard: cmd_discard.c). Exit codes
 * (cmd.h): 0 ok; 1 refused or partly failed (apply with failures,
 * declined at the prompt, --expect mismatch, a path with no pending
 * change); 2 usage or environment (bad options, config, an unusable
 * session, no terminal to confirm on without --yes).
 *
 * apply keeps what it replaces or deletes (keep.h) and, when the session
 * stays (something failed), says where. On a terminal, an apply that
 * takes over a second shows its progress on stderr (-q: never).
 *
 * apply is a checkpointed turn of its own, recorded before anything
 * lands (session_land.h, the engine of the whole sequence): `arcturn
 * undo` right after it, or after a kill, restores the tree it found, and
 * it says the turn's id. When the store cannot be opened or the turn
 * recorded, nothing is applied (as write does: a change that could not
 * be undone is not made). When the turn cannot be settled afterwards, it
 * says so (the next undo settles it) and the session, with what apply
 * replaced in its replaced/ area, stays.
 */
#include <sys/file.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/cmd_dryrun.h"
#include "cli/cmd_json.h"
#include "cli/say.h"
#include "lib/hash.h"
#include "lib/mem.h"
#include "policy/config.h"
#include "sandbox/sandbox.h"
#include "session/changes.h"
#include "session/conflict.h"
#include "session/keep.h"
#include "session/plan.h"
#include "session/review.h"
#include "session/session.h"
#include "session/session_apply.h"
#include "session/session_land.h"
#include "session/workspace.h"

static const struct dryrun_question apply_q = {
	"Apply %zu file(s) to the workspace?", "[a]pply/[k]eep pending", "ay",
	"no terminal to confirm on; use --yes to apply %zu file(s) without "
	    "asking",
	"Kept %zu pending file(s).\n"
};

/* --expect: the pending set must be the one whose digest was reviewed. */
static int
check_expect(struct workspace *x, struct changes *c, const char *expect,
    struct workspace_err *e)
{
	char hex[HASH_HEXLEN + 1];

	if (review_diff(&x->s, x->rootfd, c, NULL, NULL, NULL, hex,
	    dryrun_list_warn, "apply") < 0)
		return workspace_fail(e, EXIT_USAGE, errno, "", NULL);
	if (strcasecmp(expect, hex) != 0)
		return workspace_fail(e, EXIT_REFUSED, 0, "", "pending changes "
		    "do not match --expect %s (pending: %s); refused", expect,
		    hex);
	return 0;
}

/*
 * apply --json: the per-path problems apply_failed hears (a path that
 * changed since capture is a conflict, anything else a failure), and the
 * document run_apply makes of them.
 */
struct apply_json {
	cJSON	*conflicts;	/* [{path, reason}] */
	cJSON	*failed;	/* [{path, message}] */
	int	 oom;
	cJSON	*doc;		/* made by run_apply once it applied */
};

static void
apply_failed(const char *path, int err, const char *reason, void *arg)
{
	struct apply_json *aj = arg;
	const char *why = err != 0 ? dryrun_strerror(err) : reason;
	cJSON *o;
	int conflict;

	say_err("apply: %s: %s", path, why);
	if (aj == NULL || aj->oom)
		return;
	conflict = err == 0 && strstr(reason, "since capture") != NULL;
	if ((o = cJSON_CreateObject()) == NULL ||
	    !cJSON_AddItemToArray(conflict ? aj->conflicts : aj->failed, o)) {
		cJSON_Delete(o);
		aj->oom = 1;
		return;
	}
	if (cJSON_AddStringToObject(o, "path", path) == NULL ||
	    cJSON_AddStringToObject(o, conflict ? "reason" : "message",
	    why) == NULL)
		aj->oom = 1;
}

/*
 * The document: session (NULL: none), count and applied (the selected
 * changes applied, as the user counts them), turn (0: none), conflicts
 * and failed (taken from aj), kept (NULL: none). NULL when out of memory.
 */
static cJSON *
apply_doc(const char *session, const struct changes *c, const int *sel,
    unsigned long turn, struct apply_json *aj, const char *kept)
{
	cJSON *o, *a, *f;
	size_t i, n = 0;

	if (aj->oom || (o = say_doc(NULL)) == NULL)
		return NULL;
	if (cmdjson_str(o, "session", session) < 0 ||
	    (f = cJSON_AddNumberToObject(o, "count", 0)) == NULL ||
	    cmdjson_num(o, "turn", (double)turn, turn == 0) < 0 ||
	    (a = cJSON_AddArrayToObject(o, "applied")) == NULL)
		goto fail;
	for (i = 0; c != NULL && i < c->n; i++) {
		if (!sel[i] || !c->v[i].applied || c->v[i].implied)
			continue;
		n++;
		if ((f = cJSON_CreateObject()) == NULL)
			goto fail;
		if (!cJSON_AddItemToArray(a, f)) {
			cJSON_Delete(f);
			goto fail;
		}
		if (cJSON_AddStringToObject(f, "path", c->v[i].path) == NULL ||
		    cJSON_AddStringToObject(f, "status",
		    changes_status_name(c->v[i].status)) == NULL)
			goto fail;
	}
	cJSON_SetNumberValue(cJSON_GetObjectItem(o, "count"), (double)n);
	if (!cJSON_AddItemToObject(o, "conflicts", aj->conflicts))
		goto fail;
	aj->conflicts = NULL;
	if (!cJSON_AddItemToObject(o, "failed", aj->failed))
		goto fail;
	aj->failed = NULL;
	if (cmdjson_str(o, "kept", kept) < 0)
		goto fail;
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

/*
 * Progress on a terminal, after a second, at most ten times a second;
 * and with --progress-fd N, a line "DONE TOTAL" on N as each file is
 * done (plan.h: files as plan_count counts them), "0 TOTAL" first.
 */
struct progress {
	pthread_mutex_t	 mu;
	size_t		 done, total;
	struct timespec	 start, last;
	int		 shown;
	int		 tty;
	int		 fd;		/* --progress-fd, or -1 */
};

/*
 * "DONE TOTAL\n" on pr->fd, whole, when it can go out now: a reader that
 * stops reading must not stop the apply (which holds the session), so a
 * line that would block is left out (the next one carries the count). On
 * a pipe, writable means a free buffer: a line this short never blocks.
 * A reader gone is no error of apply's.
 */
static void
progress_line(struct progress *pr)
{
	struct pollfd pf = { pr->fd, POLLOUT, 0 };
	char line[64];
	int n;

	if (pr->fd < 0 || poll(&pf, 1, 0) != 1 || !(pf.revents & POLLOUT))
		return;
	n = snprintf(line, sizeof line, "%zu %zu\n", pr->done, pr->total);
	if (write(pr->fd, line, (size_t)n) != n)
		pr->fd = -1;
}

static double
since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	    (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void
progress_step(void *arg, const struct apply_item *it)
{
	struct progress *pr = arg;
	struct timespec now;

	(void)it;
	pthread_mutex_lock(&pr->mu);
	if (pr->done < pr->total) {
		pr->done++;
		progress_line(pr);
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (pr->tty && since(&pr->start, &now) >= 1.0 && (!pr->shown ||
	    since(&pr->last, &now) >= 0.1 || pr->done == pr->total)) {
		fprintf(stderr, "\rarcturn: apply: %zu/%zu", pr->done,
		    pr->total);
		pr->last = now;
		pr->shown = 1;
	}
	pthread_mutex_unlock(&pr->mu);
}

/* Where the session keeps what apply replaced under name. */
static void
kept_path(char *buf, size_t len, const struct workspace *x, const char *name)
{
	char part[KEEP_NAMELEN + 16];

	snprintf(part, sizeof part, "replaced/%s", name);
	session_path(buf, len, x->p.state, x->id, part);
}

/* Said when a session stays for what an earlier apply kept (name). */
static void
kept_earlier(const struct workspace *x, const char *name, FILE *out)
{
	char where[PATH_MAX];

	kept_path(where, sizeof where, x, name);
	fprintf(out, "Content an earlier apply replaced, which no turn holds "
	    "(the apply was cut short, or undo could not give it back), is "
	    "kept in %s; `arcturn discard --yes` drops it with the "
	    "session.\n", where);
}

static void
sweep_hook(void *arg)
{
	workspace_sweep(arg, "apply");
}

/*
 * Apply what sel selects as a checkpointed turn labelled label
 * (session_land), and say how it went (e: the exit status).
 */
static void
run_apply(struct workspace *x, struct changes *c, const int *sel, int quiet,
    const char *label, int join, int pfd, FILE *out, struct apply_json *aj,
    struct workspace_err *e)
{
	struct sland l;
	struct progress pr;
	char sn[SESSION_IDMAX + 16], turn[48] = "", where[PATH_MAX + 128] = "";
	char why[PATH_MAX + 128];
	enum sland_end end;

	snprintf(sn, sizeof sn, "session %s", x->id);
	memset(&l, 0, sizeof l);
	l.p = &x->p;
	l.s = &x->s;
	l.rootfd = x->rootfd;
	l.c = c;
	l.sel = sel;
	l.label = label;
	l.join = join;
	l.failed = apply_failed;
	l.farg = aj;
	l.sweep = sweep_hook;
	l.sarg = x;
	memset(&pr, 0, sizeof pr);
	pr.tty = !quiet && isatty(STDERR_FILENO);
	pr.fd = pfd;
	if (pr.tty || pr.fd >= 0) {
		pthread_mutex_init(&pr.mu, NULL);
		clock_gettime(CLOCK_MONOTONIC, &pr.start);
		pr.total = plan_count(c, sel);
		progress_line(&pr);
		l.progress = progress_step;
		l.parg = &pr;
	}
	end = session_land(&l);
	if (l.progress != NULL)
		pthread_mutex_destroy(&pr.mu);
	if (l.recover_err != 0)
		say_warn("apply: %s: recording what an apply cut short "
		    "replaced: %s (it stays in the session)", sn,
		    dryrun_strerror(l.recover_err));
	else if (l.recovered > 0 && !quiet)
		fprintf(out, "An earlier apply was cut short: what it "
		    "replaced is a turn now (arcturn checkpoints).\n");
	switch (end) {
	case SLAND_POLICY:
		workspace_fail(e, EXIT_USAGE, 0, "", "%s", l.why);
		return;
	case SLAND_STORE:
	case SLAND_UNRECORDED:
		workspace_fail(e, EXIT_REFUSED, 0, "", "checkpoint: %s; "
		    "nothing applied", checkpoint_why(&x->p, l.err, why,
		    sizeof why));
		return;
	case SLAND_ERROR:
		workspace_fail(e, EXIT_USAGE, l.err, sn, NULL);
		return;
	case SLAND_DONE:
		break;
	}
	if (pr.shown)
		fputc('\n', stderr);
	if (!l.recorded)
		say_err("apply: checkpoint: %s: the changes are applied but "
		    "their turn is not settled: the next undo settles it and "
		    "takes them back", dryrun_strerror(l.rec_err));
	if (l.id > 0)
		snprintf(turn, sizeof turn, " (as turn %lu)", l.id);
	if (l.kept > 0 && (!l.res.all || !l.whole)) {
		kept_path(where, sizeof where, x, l.name);
		if (aj == NULL)
			fprintf(out, "Replaced content kept in %s (%zu "
			    "file(s)).\n", where, l.kept);
	}
	if (aj != NULL && (aj->doc = apply_doc(x->id, c, sel, l.id, aj,
	    where[0] != '\0' ? where : NULL)) == NULL)
		say_err("apply: %s", strerror(ENOMEM));
	if (l.earlier > 0)
		kept_earlier(x, l.earlier_name, aj != NULL ? stderr : out);
	if (l.removed) {
		x->open = 0;
		if (l.remove_err != 0) {
			errno = l.remove_err;
			say_errno("apply: removing session %s", x->id);
		}
	}
	if (l.res.left < 0)
		say_err("apply: %s: dropping applied changes: %s", sn,
		    strerror(l.res.settle_err));
	else if (l.res.left > 0)
		say_err("apply: %s: %d applied change(s) could not be dropped "
		    "from the session", sn, l.res.left);
	if (l.res.failed > 0) {
		if (aj == NULL)
			fprintf(out, "Applied %zu, failed %zu. Pending changes "
			    "kept.\n", l.res.applied, l.res.failed);
		if (!quiet && l.id > 0)
			fprintf(out, "The applied changes are turn %lu "
			    "(arcturn undo takes them back).\n", l.id);
		workspace_fail(e, EXIT_REFUSED, 0, "", NULL);
		return;
	}
	if (!quiet)
		fprintf(out, "Applied %zu file(s)%s.\n", l.res.applied, turn);
	/* applied, but its turn is open still: not a success */
	e->status = l.recorded ? 0 : EXIT_REFUSED;
}

/*
 * apply --force: name each selected change in conflict (take 0), or,
 * once the user agreed, make what is there now its base (take 1,
 * conflict.h), so that it lands; what it replaces goes into the apply's
 * turn (keep.h), where undo finds it.
 */
static int
take_conflicts(struct workspace *x, struct changes *c, const int *sel,
    int take, int quiet, struct workspace_err *e)
{
	struct apply_base now;
	size_t i;
	int k;

	for (i = 0; i < c->n; i++) {
		if (!sel[i])
			continue;
		if ((k = conflict_of(&x->s, x->rootfd, c, i, &now)) < 0 ||
		    (take && k != CONFLICT_NONE &&
		    conflict_take(&x->s, c->v[i].path, &now) < 0))
			return workspace_fail(e, EXIT_USAGE, errno,
			    c->v[i].path, NULL);
		if (k != CONFLICT_NONE && !take && !quiet)
			printf("%s: %s; --force lands over it (your version "
			    "goes into the apply's turn)\n", c->v[i].path,
			    k == CONFLICT_UNRECORDED ? "no record at capture" :
			    conflict_mark(k));
	}
	return 0;
}

/*
 * A session with nothing pending: sweep what a killed apply left, and
 * drop it unless it keeps what an earlier apply replaced (said on out).
 */
static void
drop_empty(struct workspace *x, FILE *out)
{
	struct workspace_err e = { .status = 0 };
	struct changes none = { NULL, 0, 0 };
	struct sland l;

	memset(&l, 0, sizeof l);
	l.p = &x->p;
	l.s = &x->s;
	l.rootfd = workspace_root(x, x->p.workspace, &e) == 0 ? x->rootfd : -1;
	l.c = &none;
	l.sweep = sweep_hook;
	l.sarg = x;
	(void)session_land(&l);
	if (l.recovered > 0)
		fprintf(out, "An earlier apply was cut short: what it "
		    "replaced is a turn now (arcturn checkpoints).\n");
	if (l.earlier > 0)
		kept_earlier(x, l.earlier_name, out);
	if (l.removed)
		x->open = 0;
}

int
cmd_apply(struct cli *c)
{
	static const struct option opts[] = {
		{ "yes", no_argument, NULL, 'y' },
		{ "expect", required_argument, NULL, 'e' },
		{ "force", no_argument, NULL, 'f' },
		{ "progress-fd", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 }
	};
	struct workspace_err e = { .status = EXIT_USAGE };
	struct changes ch = { NULL, 0, 0 };
	struct apply_json aj = { NULL, NULL, 0, NULL }, *ajp = NULL;
	struct workspace x;
	const char *expect = NULL;
	int *sel = NULL, yes = 0, force = 0, r, opt, quiet, pfd = -1;
	size_t nsel;
	char *end;
	long fd;

	workspace_init(&x, &dryrun_notes);
	while ((opt = cli_getopt(c, "y", opts)) != -1) {
		switch (opt) {
		case 'y':
			yes = 1;
			break;
		case 'e':
			expect = optarg;
			break;
		case 'f':
			force = 1;
			break;
		case 'p':
			/* an fd the caller opened: never 0-2, never a guess */
			errno = 0;
			fd = strtol(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    fd < 3 || fd > INT_MAX ||
			    fcntl((int)fd, F_GETFD) < 0) {
				say_err("apply: --progress-fd %s: not an open "
				    "descriptor above 2", optarg);
				say_is(SAY_USAGE, NULL);
				return EXIT_USAGE;
			}
			pfd = (int)fd;
			/* a reader gone must not kill an apply midway */
			signal(SIGPIPE, SIG_IGN);
			break;
		default:
			cmd_usage("apply");
			return EXIT_USAGE;
		}
	}
	if (cli_no_dry_run(c, "apply lands the session's changes; arcturn "
	    "diff shows them") < 0)
		return EXIT_USAGE;
	if (force && optind == c->argc) {
		say_err("apply: --force lands over conflicts only at the paths "
		    "named: arcturn apply --force PATH...");
		say_is(SAY_USAGE, NULL);
		return EXIT_USAGE;
	}
	/* with --json, nothing but the document goes to stdout */
	quiet = c->quiet || c->json;
	if (c->json) {
		aj.conflicts = cJSON_CreateArray();
		aj.failed = cJSON_CreateArray();
		aj.oom = aj.conflicts == NULL || aj.failed == NULL;
		ajp = &aj;
	}
	if (dryrun_load(&x, c, 0, &e) < 0 ||
	    (r = workspace_changes(&x, "apply", LOCK_EX, &ch, &e)) ==
	    WORKSPACE_ERR)
		goto out;
	if (r == WORKSPACE_NONE && expect != NULL) {
		workspace_fail(&e, EXIT_REFUSED, 0, "", "nothing pending; "
		    "--expect %s refused", expect);
		goto out;
	}
	if (r == WORKSPACE_GOT && expect != NULL &&
	    check_expect(&x, &ch, expect, &e) != 0)
		goto out;
	if (ch.n == 0) {
		if (!quiet)
			printf("No pending changes.\n");
		if (ajp != NULL)
			aj.doc = apply_doc(r == WORKSPACE_GOT ? x.id : NULL,
			    NULL, NULL, 0, &aj, NULL);
		if (r == WORKSPACE_GOT && optind == c->argc)
			drop_empty(&x, quiet || ajp != NULL ? stderr : stdout);
		e.status = 0;
		goto out;
	}
	if ((sel = mem_calloc(ch.n, sizeof *sel)) == NULL) {
		workspace_fail(&e, EXIT_USAGE, errno, "", NULL);
		goto out;
	}
	if (workspace_select(&x, &ch, c->argv + optind,
	    (size_t)(c->argc - optind), sel, &e) != 0)
		goto out;
	nsel = plan_count(&ch, sel);
	/* name the conflicts --force lands over; take them once agreed */
	if (force && take_conflicts(&x, &ch, sel, 0, quiet, &e) != 0)
		goto out;
	/*
	 * A program cannot answer the question: with --json, --yes or the
	 * digest it reviewed (--expect, checked above) says go.
	 */
	if (c->json && !yes && expect == NULL) {
		workspace_fail(&e, EXIT_USAGE, 0, "", "--json needs --yes or "
		    "--expect DIGEST (a program cannot answer the question)");
		say_is(SAY_USAGE, NULL);
		goto out;
	}
	if ((yes || c->json || dryrun_ask(&apply_q, nsel, quiet, &e) > 0) &&
	    (!force || take_conflicts(&x, &ch, sel, 1, 1, &e) == 0))
		run_apply(&x, &ch, sel, quiet, "apply", 0, pfd, stdout, ajp,
		    &e);
out:
	dryrun_report("apply", &e);
	if (aj.doc != NULL || (ajp != NULL && e.status == 0)) {
		if (say_print(aj.doc) < 0 && e.status == 0)
			e.status = EXIT_USAGE;
		aj.doc = NULL;
	}
	cJSON_Delete(aj.conflicts);
	cJSON_Delete(aj.failed);
	changes_free(&ch);
	mem_free(sel);
	workspace_done(&x);
	return e.status;
}

/* The command line as a turn's label: its words, cut with "..." . */
static void
cmd_label(char **cmd, char *buf, size_t len)
{
	size_t n = 0, i;
	const char *w;
	int cut = 0;

	for (i = 0; cmd[i] != NULL && !cut; i++) {
		w = cmd[i];
		if (i > 0 && n + 1 < len)
			buf[n++] = ' ';
		for (; *w != '\0' && n + 1 < len; w++)
			buf[n++] = *w;
		cut = *w != '\0' || (n + 1 >= len && cmd[i + 1] != NULL);
	}
	buf[n] = '\0';
	if (cut && len > 4)
		memcpy(buf + len - 4, "...", 4);
}

int
dryrun_exec_checkpoint(struct policy *p, struct cli *c, char **cmd, int join,
    struct sandbox_end *end)
{
	struct workspace_err e = { .status = EXIT_USAGE };
	struct changes ch = { NULL, 0, 0 };
	struct workspace x;
	char id[SESSION_IDMAX + 1], label[84];
	const char *named;
	int *sel = NULL, rc, ran, r;
	size_t i, left;

	memset(end, 0, sizeof *end);
	end->status = EXIT_OWN;
	if (session_new_id(id) < 0 || (mem_free(p->session),
	    (p->session = mem_strdup(id)) == NULL)) {
		say_errno("exec --checkpoint");
		policy_free(p);
		return EXIT_OWN;
	}
	/* the command runs as with --dry-run, in a session of its own */
	rc = dryrun_exec_as(p, cmd, "exec --checkpoint", end, &ran);
	if (!ran)
		return rc;
	workspace_init(&x, &dryrun_notes);
	named = c->session;
	c->session = id;
	r = dryrun_load(&x, c, 0, &e);
	c->session = named;
	if (r < 0 || (r = workspace_changes(&x, "exec --checkpoint", LOCK_EX,
	    &ch, &e)) == WORKSPACE_ERR)
		goto out;
	if (r == WORKSPACE_NONE || ch.n == 0) {
		if (r == WORKSPACE_GOT)
			drop_empty(&x, stderr);
		e.status = 0;
		goto out;
	}
	if ((sel = mem_calloc(ch.n, sizeof *sel)) == NULL) {
		workspace_fail(&e, EXIT_USAGE, errno, "", NULL);
		goto out;
	}
	if (workspace_select(&x, &ch, NULL, 0, sel, &e) != 0)
		goto out;
	cmd_label(cmd, label, sizeof label);
	/* on stderr: stdout is the command's */
	run_apply(&x, &ch, sel, c->quiet, label, join, -1, stderr, NULL, &e);
	for (i = 0, left = 0; i < ch.n; i++)
		left += sel[i] && !ch.v[i].applied;
	/* not when all landed and only their turn is unsettled (said) */
	if (e.status != 0 && x.open && left > 0)
		say_err("exec --checkpoint: session %s keeps what was not "
		    "applied (arcturn diff --session %s)", id, id);
out:
	dryrun_report("exec --checkpoint", &e);
	changes_free(&ch);
	mem_free(sel);
	workspace_done(&x);
	return e.status != 0 ? e.status : rc;
}
