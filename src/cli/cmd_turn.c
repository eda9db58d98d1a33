/*
 * Front ends of turn and checkpoints: start a turn, list the turns of
 * the workspace (text, or one JSON document). Exit codes (cmd.h): 0 ok;
 * 2 usage or environment. rewind and undo are in cmd_checkpoint.c.
 */
#include <sys/file.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cJSON.h>

#include "checkpoint/checkpoint.h"
#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/cmd_dryrun.h"
#include "cli/say.h"
#include "lib/mem.h"
#include "lib/pstate.h"
#include "lib/utc.h"
#include "session/workspace.h"

/* A label, or null when there is none. */
static cJSON *
add_label(cJSON *o, const char *label)
{
	return label != NULL && *label != '\0' ?
	    cJSON_AddStringToObject(o, "label", label) :
	    cJSON_AddNullToObject(o, "label");
}

static int
turn_json(unsigned long id, const char *label)
{
	cJSON *o = say_doc(NULL);

	return say_print_built(o, o != NULL &&
	    cJSON_AddNumberToObject(o, "turn", (double)id) != NULL &&
	    add_label(o, label) != NULL);
}

int
cmd_turn(struct cli *c)
{
	static const struct option opts[] = {
		{ "label", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 }
	};
	struct workspace_err e = { .status = EXIT_USAGE };
	struct workspace x;
	struct ckpt *ck = NULL;
	const char *label = "";
	char why[PATH_MAX + 128];
	unsigned long id;
	int ch;

	while ((ch = cli_getopt(c, "", opts)) != -1) {
		if (ch != 'l') {
			cmd_usage("turn");
			return EXIT_USAGE;
		}
		label = optarg;
	}
	if (optind != c->argc) {
		cmd_usage("turn");
		return EXIT_USAGE;
	}
	if (cli_no_dry_run(c, "a turn groups real writes, a dry run has "
	    "none") < 0)
		return EXIT_USAGE;
	workspace_init(&x, &dryrun_notes);
	if (checkpoint_store(&x, c, 1, LOCK_EX, &ck, &e) == 0) {
		if (ckpt_turn_start(ck, label, &id) < 0)
			workspace_fail(&e, EXIT_USAGE, 0, "checkpoints", "%s",
			    checkpoint_why(&x.p, errno, why, sizeof why));
		else if (c->json) {
			e.status = turn_json(id, label) < 0 ? EXIT_USAGE : 0;
		} else {
			e.status = 0;
			if (!c->quiet && printf("turn %lu\n", id) < 0)
				workspace_fail(&e, EXIT_USAGE, errno, "", NULL);
		}
	}
	dryrun_report("turn", &e);
	ckpt_close(ck);
	workspace_done(&x);
	return e.status;
}

/* ---- checkpoints ---- */

static void
iso(time_t t, char buf[UTC_ISO_LEN])
{
	if (utc_iso(t, buf) < 0)
		snprintf(buf, UTC_ISO_LEN, "%lld", (long long)t);
}

/* A path or label for a terminal: control bytes as \xNN. */
static int
put_shown(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f ?
		    printf("\\x%02x", (unsigned char)*s) < 0 :
		    putchar(*s) == EOF)
			return -1;
	return 0;
}

static const char *
change(const struct ckpt_entry *en)
{
	if (en->before.kind == PSTATE_ABSENT)
		return en->after.kind == PSTATE_ABSENT ? "?" : "A";
	return en->after.kind == PSTATE_ABSENT ? "D" : "M";
}

/* How a record is damaged, in words: the kind, or why it is unreadable. */
static const char *
damage(const struct ckpt_turn *t)
{
	static char buf[128];

	if (t->damaged != CKPT_UNREADABLE)
		return ckpt_damage_name(t->damaged);
	snprintf(buf, sizeof buf, "unreadable: %s", strerror(t->damage_err));
	return buf;
}

static int
list_text(struct ckpt_turn *t, size_t n)
{
	char when[32];
	size_t i, j;

	for (i = n; i > 0; i--) {
		iso(t[i - 1].time, when);
		if (t[i - 1].damaged != CKPT_SOUND) {
			if (printf("turn %lu  %s  record damaged (%s): arcturn "
			    "checkpoints --prune-damaged removes it\n",
			    t[i - 1].id, when, damage(&t[i - 1])) < 0)
				return -1;
			continue;
		}
		if (printf("turn %lu  %s  %zu path%s", t[i - 1].id, when,
		    t[i - 1].n, t[i - 1].n == 1 ? "" : "s") < 0)
			return -1;
		if (t[i - 1].label[0] != '\0' && (fputs("  ", stdout) == EOF ||
		    put_shown(t[i - 1].label) < 0))
			return -1;
		if (t[i - 1].open && fputs(t[i - 1].open == CKPT_OPEN_LAND ?
		    "  (cut short: the next undo takes back what landed)" :
		    "  (cut short: the next undo finishes it)", stdout) == EOF)
			return -1;
		if (putchar('\n') == EOF)
			return -1;
		for (j = 0; j < t[i - 1].n; j++)
			if (printf("  %s ", change(&t[i - 1].e[j])) < 0 ||
			    put_shown(t[i - 1].e[j].path) < 0 ||
			    putchar('\n') == EOF)
				return -1;
	}
	return 0;
}

/* One line: the schema, the workspace, the turns newest first. */
static int
list_json(const char *ws, struct ckpt_turn *t, size_t n)
{
	const struct ckpt_entry *en;
	cJSON *o, *arr, *turn, *paths, *pe;
	char when[32];
	size_t i, j;
	int built = 0;

	if ((o = say_doc(NULL)) == NULL ||
	    cJSON_AddStringToObject(o, "workspace", ws) == NULL ||
	    (arr = cJSON_AddArrayToObject(o, "turns")) == NULL)
		goto out;
	for (i = n; i > 0; i--) {
		iso(t[i - 1].time, when);
		if ((turn = cJSON_CreateObject()) == NULL)
			goto out;
		cJSON_AddItemToArray(arr, turn);
		if (cJSON_AddNumberToObject(turn, "id",
		    (double)t[i - 1].id) == NULL ||
		    cJSON_AddStringToObject(turn, "time", when) == NULL ||
		    add_label(turn, t[i - 1].label) == NULL ||
		    (paths = cJSON_AddArrayToObject(turn, "paths")) == NULL ||
		    (t[i - 1].damaged != CKPT_SOUND &&
		    cJSON_AddStringToObject(turn, "damaged",
		    damage(&t[i - 1])) == NULL) ||
		    (t[i - 1].open &&
		    cJSON_AddTrueToObject(turn, "open") == NULL))
			goto out;
		for (j = 0; j < t[i - 1].n; j++) {
			if ((pe = cJSON_CreateObject()) == NULL)
				goto out;
			cJSON_AddItemToArray(paths, pe);
			en = &t[i - 1].e[j];
			if (cJSON_AddStringToObject(pe, "path", en->path) ==
			    NULL || cJSON_AddStringToObject(pe, "before",
			    pstate_kind_name(en->before.kind)) == NULL ||
			    cJSON_AddStringToObject(pe, "after",
			    pstate_kind_name(en->after.kind)) == NULL)
				goto out;
		}
	}
	built = 1;
out:
	return say_print_built(o, built);
}

/*
 * --prune-damaged: remove the damaged records of t, saying which; they
 * leave the list (their turns cannot be rewound either way).
 */
static int
prune_damaged(struct ckpt *ck, struct ckpt_turn *t, size_t *n, int quiet,
    struct workspace_err *e)
{
	size_t i, m = 0;

	for (i = 0; i < *n; i++) {
		if (t[i].damaged == CKPT_SOUND) {
			if (m != i) {
				t[m] = t[i];
				memset(&t[i], 0, sizeof t[i]);
			}
			m++;
			continue;
		}
		if (ckpt_drop(ck, t[i].id) < 0 && errno != ENOENT)
			return workspace_fail(e, EXIT_USAGE, errno,
			    "checkpoints", "turn %lu: removing its damaged "
			    "record: %s",
			    t[i].id, dryrun_strerror(errno));
		/* on stderr: stdout is the listing */
		if (!quiet)
			fprintf(stderr, "removed turn %lu (record damaged: "
			    "%s)\n", t[i].id, damage(&t[i]));
		ckpt_turn_clear(&t[i]);
	}
	*n = m;
	return 0;
}

int
cmd_checkpoints(struct cli *c)
{
	static const struct option opts[] = {
		{ "prune-damaged", no_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 }
	};
	struct workspace_err e = { .status = EXIT_USAGE };
	struct ckpt_turn *t = NULL;
	struct ckpt *ck = NULL;
	struct workspace x;
	size_t n = 0, listed = 0;
	int ch, prune = 0;

	/* --json is the global option, before or after the command */
	while ((ch = cli_getopt(c, "", opts)) != -1) {
		if (ch != 'p') {
			cmd_usage("checkpoints");
			return EXIT_USAGE;
		}
		prune = 1;
	}
	if (optind != c->argc) {
		cmd_usage("checkpoints");
		return EXIT_USAGE;
	}
	if (prune && cli_no_dry_run(c, "it removes records from the real "
	    "store") < 0)
		return EXIT_USAGE;
	workspace_init(&x, &dryrun_notes);
	if (checkpoint_store(&x, c, 0, prune ? LOCK_EX : LOCK_SH, &ck,
	    &e) < 0)
		goto out;
	if (ck != NULL && ckpt_list(ck, &t, &n) < 0) {
		workspace_fail(&e, EXIT_USAGE, errno, "checkpoints", NULL);
		goto out;
	}
	listed = n;
	if (prune && ck != NULL && prune_damaged(ck, t, &n, c->quiet ||
	    c->json, &e) != 0)
		goto out;
	errno = 0;
	if (c->json) {
		/* say_print said what failed */
		e.status = list_json(x.p.workspace, t, n) < 0 ? EXIT_USAGE : 0;
	} else if (list_text(t, n) < 0 || fflush(stdout) == EOF)
		workspace_fail(&e, EXIT_USAGE, errno ? errno : EIO, "", NULL);
	else
		e.status = 0;
out:
	dryrun_report("checkpoints", &e);
	ckpt_turns_free(t, listed > n ? listed : n);
	ckpt_close(ck);
	workspace_done(&x);
	return e.status;
}
