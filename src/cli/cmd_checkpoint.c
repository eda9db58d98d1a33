/*
 * Front ends of the checkpoint commands: turn, rewind, undo, checkpoints;
 * and the snapshot write and edit take before they change a file
 * (checkpoint_before, checkpoint_after). Exit codes (cmd.h): 0 ok; 1
 * refused or partly failed (a conflict, a protected path, nothing to
 * rewind); 2 usage or environment.
 * The rewind engine is checkpoint/rewind.c (rewind.h says what it does).
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "apply/apply.h"
#include "checkpoint/checkpoint.h"
#include "checkpoint/rewind.h"
#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/cmd_dryrun.h"
#include "cli/say.h"
#include "lib/fsx.h"
#include "lib/mem.h"
#include "session/workspace.h"

struct ckpt_hold {
	struct ckpt	*c;
	struct ckpt_turn t;
};

static void
limits(const struct policy *p, struct ckpt_limits *lim)
{
	lim->keep = p->ckpt_keep ? p->ckpt_keep : CKPT_KEEP_DEFAULT;
	lim->maxbytes = p->ckpt_maxbytes;
}

const char *
checkpoint_why(const struct policy *p, int err, char *buf, size_t len)
{
	if (ckpt_diagnose(p->state, p->workspace, buf, len))
		return buf;
	snprintf(buf, len, "%s", dryrun_strerror(err));
	return buf;
}

int
checkpoint_before(struct workspace *x, const char *rel, const char *path,
    struct ckpt_hold **hp, struct workspace_err *e)
{
	struct ckpt_limits lim;
	struct ckpt_hold *h;
	char why[PATH_MAX + 128];
	int r;

	*hp = NULL;
	if (x->p.dry_run)
		return 0;	/* the session, not the store, records it */
	limits(&x->p, &lim);
	if ((h = mem_calloc(1, sizeof *h)) == NULL) {
		workspace_fail(e, EXIT_REFUSED, errno, path, NULL);
		return -1;
	}
	if (ckpt_open(x->p.state, x->p.workspace, 1, LOCK_EX, &lim,
	    &h->c) < 0 || ckpt_for_write(h->c, &h->t) < 0 ||
	    (r = ckpt_snapshot(h->c, &h->t, x->rootfd, rel)) < 0 ||
	    (r == 1 && ckpt_save(h->c, &h->t) < 0)) {
		r = errno;
		ckpt_turn_clear(&h->t);
		ckpt_close(h->c);
		mem_free(h);
		workspace_fail(e, EXIT_REFUSED, 0, path, "checkpoint: %s; not "
		    "written", checkpoint_why(&x->p, r, why, sizeof why));
		return -1;
	}
	*hp = h;
	return 0;
}

void
checkpoint_after(struct ckpt_hold *h, struct workspace *x, const char *what,
    const char *rel, const char *path)
{

	if (h == NULL)
		return;
	if (ckpt_find(&h->t, rel) != NULL &&
	    (ckpt_settle(h->c, &h->t, x->rootfd, rel) < 0 ||
	    ckpt_note_after(h->c, &h->t, rel) < 0))
		say_warn("%s: %s: checkpoint not updated (%s): rewinding "
		    "it needs --force", what, path, dryrun_strerror(errno));
	ckpt_turn_clear(&h->t);
	ckpt_close(h->c);
	mem_free(h);
}

unsigned long
checkpoint_turn(const struct ckpt_hold *h)
{
	return h != NULL ? h->t.id : 0;
}

int
checkpoint_store(struct workspace *x, struct cli *c, int create, int lockop,
    struct ckpt **ck, struct workspace_err *e)
{
	struct ckpt_limits lim;
	char why[PATH_MAX + 128];

	*ck = NULL;
	if (dryrun_load(x, c, 0, e) < 0)
		return -1;
	limits(&x->p, &lim);
	if (ckpt_open(x->p.state, x->p.workspace, create, lockop, &lim,
	    ck) < 0) {
		if (errno == ENOENT && !create &&
		    !ckpt_diagnose(x->p.state, x->p.workspace, why, sizeof why))
			return 0;
		workspace_fail(e, EXIT_USAGE, 0, "checkpoints", "%s",
		    checkpoint_why(&x->p, errno, why, sizeof why));
		return -1;
	}
	return 0;
}

/* ---- rewind ---- */

/* {path, what}: into arr; NULL when out of memory. */
static cJSON *
pair(cJSON *arr, const char *path, const char *key, const char *val)
{
	cJSON *o;

	if ((o = cJSON_CreateObject()) == NULL)
		return NULL;
	cJSON_AddItemToArray(arr, o);
	if (cJSON_AddStringToObject(o, "path", path) == NULL ||
	    cJSON_AddStringToObject(o, key, val) == NULL)
		return NULL;
	return o;
}

/*
 * rewind or undo --json: the turn it is recorded as (null: nothing was
 * done), the turn rewound to before, what each path restored got, and
 * the paths it could not restore (conflicts, refusals, failures). tried
 * is 0 and it NULL when nothing was tried.
 */
static int
rewind_json(unsigned long id, unsigned long from, const struct rewind_path *p,
    size_t n, int tried, const struct apply_item *it, size_t ni)
{
	cJSON *o, *res, *con, *c;
	const char *act;
	size_t i;
	int built = 0;

	if ((o = say_doc(NULL)) == NULL ||
	    (id != 0 ? cJSON_AddNumberToObject(o, "turn", (double)id) :
	    cJSON_AddNullToObject(o, "turn")) == NULL ||
	    cJSON_AddNumberToObject(o, "since", (double)from) == NULL ||
	    (res = cJSON_AddArrayToObject(o, "restored")) == NULL ||
	    (con = cJSON_AddArrayToObject(o, "conflicts")) == NULL)
		goto out;
	for (i = 0; tried && i < n; i++) {
		if (p[i].how != 1)
			continue;
		act = p[i].target.kind == PSTATE_ABSENT ? "removed" :
		    p[i].now.kind == PSTATE_ABSENT ? "created" : "restored";
		if (pair(res, p[i].path, "action", act) == NULL)
			goto out;
	}
	for (i = 0; i < n; i++)
		if (p[i].why != NULL && pair(con, p[i].path, "reason",
		    p[i].why) == NULL)
			goto out;
	for (i = 0; it != NULL && i < ni; i++) {
		if (!it[i].failed)
			continue;
		if ((c = pair(con, it[i].path, "reason", it[i].reason)) ==
		    NULL)
			goto out;
		if (strcmp(it[i].reason, apply_damaged_reason) == 0 &&
		    cJSON_AddStringToObject(c, "code", "damaged") == NULL)
			goto out;
	}
	built = 1;
out:
	return say_print_built(o, built);
}

static int
rewind_cmd(struct cli *c, const char *what, unsigned long from, int force)
{
	struct workspace_err e = { .status = EXIT_USAGE };
	struct rewind rw;
	struct ckpt *ck = NULL;
	struct workspace x;
	char why[PATH_MAX + 128];
	size_t i;
	enum rewind_end end;

	workspace_init(&x, &dryrun_notes);
	memset(&rw, 0, sizeof rw);
	rw.from = from;
	rw.force = force;
	rw.label = strcmp(what, "undo") == 0 ? "undo of turn" :
	    "rewind to before turn";
	if (checkpoint_store(&x, c, 0, LOCK_EX, &ck, &e) < 0)
		goto out;
	if (ck == NULL) {
		workspace_fail(&e, EXIT_REFUSED, 0, "", "no checkpoints for "
		    "this workspace");
		goto out;
	}
	if (workspace_root(&x, x.p.workspace, &e) < 0)
		goto out;
	end = rewind_run(ck, x.rootfd, &x.p, &rw);
	switch (end) {
	case REWIND_NO_STORE:
		workspace_fail(&e, EXIT_REFUSED, 0, "", "no checkpoints for "
		    "this workspace");
		goto out;
	case REWIND_NO_TURN:
		workspace_fail(&e, EXIT_REFUSED, 0, "", "no turn to rewind");
		goto out;
	case REWIND_NO_SUCH:
		workspace_fail(&e, EXIT_REFUSED, 0, "", "turn %lu: no such "
		    "turn (arcturn checkpoints lists them)", rw.from);
		goto out;
	case REWIND_ERROR:
		if (rw.unrecorded)
			workspace_fail(&e, EXIT_REFUSED, 0, "checkpoints",
			    "its turn cannot be recorded (%s); nothing "
			    "restored",
			    checkpoint_why(&x.p, rw.err, why, sizeof why));
		else if (rw.err == 0 && rw.why[0] != '\0')
			workspace_fail(&e, EXIT_USAGE, 0, "", "%s", rw.why);
		else
			workspace_fail(&e, rw.errpath[0] != '\0' ?
			    EXIT_REFUSED : EXIT_USAGE, rw.err, rw.errpath,
			    NULL);
		goto out;
	default:
		break;
	}
	for (i = 0; i < rw.nt; i++)
		if (rw.t[i].damaged != CKPT_SOUND && rw.t[i].id >= rw.from)
			say_warn("%s: turn %lu: record damaged (%s); skipped "
			    "(arcturn checkpoints --prune-damaged removes it)",
			    what, rw.t[i].id, ckpt_damage_name(rw.t[i].damaged));
	for (i = 0; i < rw.n; i++)
		if (rw.p[i].conflict)
			say_err("%s: %s: %s turn %lu left it; conflict", what,
			    rw.p[i].path, rw.p[i].why, rw.p[i].turn);
		else if (rw.p[i].why != NULL)
			say_err("%s: %s: %s; refused", what, rw.p[i].path,
			    rw.p[i].why);
	if (end == REWIND_CONFLICT) {
		workspace_fail(&e, EXIT_REFUSED, 0, "", "%d conflict%s; "
		    "nothing restored (--force overwrites them)", rw.conflicts,
		    rw.conflicts == 1 ? "" : "s");
		/* a result: the conflicts, in the document */
		if (c->json && rewind_json(0, rw.from, rw.p, rw.n, 0, NULL,
		    0) < 0)
			e.status = EXIT_USAGE;
		goto out;
	}
	for (i = 0; i < rw.ni; i++)
		if (rw.it[i].failed)
			say_err("%s: %s: %s", what, rw.it[i].path,
			    rw.it[i].reason);
	e.status = rw.failed > 0 || rw.refused > 0 ? EXIT_REFUSED : 0;
	if (rw.unsettled) {
		say_err("%s: turn %lu: done but not settled (%s); the next "
		    "undo or rewind settles it", what, rw.unsettled,
		    dryrun_strerror(rw.rec_err));
		e.status = EXIT_REFUSED;
	}
	if (rw.finished) {
		/* a rerun after a kill: the rewind that was cut short */
		if (c->json) {
			if (rewind_json(rw.id, rw.finished, rw.p, rw.n, 1,
			    rw.it, rw.ni) < 0)
				e.status = EXIT_USAGE;
		} else if (!c->quiet && printf("%s: turn %lu was cut short; "
		    "finished it: %zu path%s as it restores them\n", what,
		    rw.finished, rw.restored, rw.restored == 1 ? "" :
		    "s") < 0)
			workspace_fail(&e, EXIT_USAGE, errno, "", NULL);
		goto out;
	}
	if (c->json) {
		if (rewind_json(rw.id, rw.from, rw.p, rw.n, 1, rw.it,
		    rw.ni) < 0)
			e.status = EXIT_USAGE;
	} else if (!c->quiet && printf("%s: restored %zu path%s to before turn "
	    "%lu%s", what, rw.restored, rw.restored == 1 ? "" : "s", rw.from,
	    rw.id ? "" : "\n") < 0)
		workspace_fail(&e, EXIT_USAGE, errno, "", NULL);
	if (!c->json && !c->quiet && rw.id && printf(" (as turn %lu)\n",
	    rw.id) < 0)
		workspace_fail(&e, EXIT_USAGE, errno, "", NULL);
out:
	dryrun_report(what, &e);
	rewind_free(&rw);
	ckpt_close(ck);
	workspace_done(&x);
	return e.status;
}

static int
parse_force(struct cli *c, const char *name, int *force)
{
	static const struct option opts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	*force = 0;
	while ((ch = cli_getopt(c, "", opts)) != -1) {
		if (ch != 'f') {
			cmd_usage(name);
			return -1;
		}
		*force = 1;
	}
	return cli_no_dry_run(c, "it restores real files; a dry run's "
	    "changes are dropped with discard");
}

int
cmd_rewind(struct cli *c)
{
	unsigned long from = 0;
	char *end;
	int force;

	if (parse_force(c, "rewind", &force) < 0 || optind < c->argc - 1) {
		if (optind < c->argc - 1)
			cmd_usage("rewind");
		return EXIT_USAGE;
	}
	if (optind == c->argc - 1) {
		errno = 0;
		from = strtoul(c->argv[optind], &end, 10);
		if (*c->argv[optind] < '1' || *c->argv[optind] > '9' ||
		    *end != '\0' || errno != 0) {
			say_err("rewind: %s: not a turn number", c->argv[optind]);
			say_is(SAY_USAGE, NULL);
			return EXIT_USAGE;
		}
	}
	return rewind_cmd(c, "rewind", from, force);
}

int
cmd_undo(struct cli *c)
{
	int force;

	if (parse_force(c, "undo", &force) < 0 || optind != c->argc) {
		if (optind != c->argc)
			cmd_usage("undo");
		return EXIT_USAGE;
	}
	return rewind_cmd(c, "undo", 0, force);
}
