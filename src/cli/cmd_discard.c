/*
 * Front end of `arcturn discard`, and the question apply, discard and
 * session rm ask first (dryrun_ask, cmd_dryrun.h). Exit codes (cmd.h): 0
 * ok; 1 refused (declined at the prompt, a path with no pending change,
 * a change that stays because it goes with another); 2 usage or
 * environment (bad options, config, an unusable session, no terminal to
 * confirm on without --yes).
 *
 * discard drops the whole session, or with PATH... only the changes at
 * or beneath those paths. A session that cannot be opened (damaged) is
 * removed by its id, asked first.
 */
#include <sys/file.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/cmd_dryrun.h"
#include "cli/cmd_json.h"
#include "cli/say.h"
#include "lib/mem.h"
#include "session/changes.h"
#include "session/plan.h"
#include "session/session.h"
#include "session/workspace.h"

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

static const struct dryrun_question discard_q = {
	"Discard %zu pending file change(s)?", "[d]iscard/[k]eep", "dy",
	"no terminal to confirm on; use --yes to discard %zu pending file "
	    "change(s)",
	"Kept %zu pending file change(s).\n"
};

int
dryrun_ask(const struct dryrun_question *q, size_t n, int quiet,
    struct workspace_err *e)
{
	char line[128];
	int r;

	snprintf(line, sizeof line, q->ask, n);
	if ((r = confirm(line, q->choices, q->yes)) < 0) {
		workspace_fail(e, EXIT_USAGE, 0, "", q->noterm, n);
		e->code = SAY_USAGE;
		return -1;
	}
	if (r == 0) {
		if (!quiet)
			printf(q->kept, n);
		workspace_fail(e, EXIT_REFUSED, 0, "", NULL);
	}
	return r;
}

static const struct dryrun_question damaged_q = {
	"Discard the damaged session?", "[d]iscard/[k]eep", "dy",
	"no terminal to confirm on; use --yes to discard the damaged session",
	"Kept the damaged session.\n"
};

static void
say_waiting(void *arg)
{
	say_note("discard: waiting for session %s: another arcturn holds it",
	    (const char *)arg);
}

/*
 * The document: session (NULL: none), the paths dropped (the changes of
 * c that sel selects, as the user counts them; c NULL: none), whether
 * the session went with them. 0, or the exit status.
 */
static int
discard_doc(const char *session, const struct changes *c, const int *sel,
    int removed)
{
	cJSON *o, *a = NULL, *str;
	size_t i, n = 0;
	int ok;

	ok = (o = say_doc(NULL)) != NULL &&
	    cmdjson_str(o, "session", session) == 0 &&
	    cJSON_AddNumberToObject(o, "discarded", 0) != NULL &&
	    (a = cJSON_AddArrayToObject(o, "paths")) != NULL;
	for (i = 0; ok && c != NULL && i < c->n; i++) {
		if ((sel != NULL && !sel[i]) || c->v[i].implied)
			continue;
		n++;
		if ((str = cJSON_CreateString(c->v[i].path)) == NULL ||
		    !cJSON_AddItemToArray(a, str)) {
			cJSON_Delete(str);
			ok = 0;
		}
	}
	if (ok) {
		cJSON_SetNumberValue(cJSON_GetObjectItem(o, "discarded"),
		    (double)n);
		ok = cJSON_AddBoolToObject(o, "session_removed", removed) !=
		    NULL;
	}
	return say_print_built(o, ok) == 0 ? 0 : EXIT_USAGE;
}

/* discard of a session that cannot be opened: by its id, asked first. */
static int
discard_damaged(struct workspace *x, int yes, int quiet, int json,
    struct workspace_err *e)
{
	char sn[SESSION_IDMAX + 16];

	snprintf(sn, sizeof sn, "session %s", x->id);
	/* what is damaged, said once; then the discard itself */
	dryrun_report("discard", e);
	workspace_fail(e, EXIT_USAGE, 0, "", NULL);
	if (!yes && dryrun_ask(&damaged_q, 1, quiet, e) <= 0)
		return e->status;
	if (session_remove_id(x->storefd, x->id, say_waiting, x->id) < 0)
		return workspace_fail(e, EXIT_USAGE, errno, sn, NULL);
	if (!quiet)
		printf("Discarded damaged session %s.\n", x->id);
	e->status = json ? discard_doc(x->id, NULL, NULL, 1) : 0;
	return e->status;
}

/* 1 when some change of c that sel leaves out lies beneath dir. */
static int
holds_unselected(const struct changes *c, const int *sel, const char *dir)
{
	size_t i, n = strlen(dir);

	for (i = 0; i < c->n; i++)
		if (!sel[i] && strncmp(c->v[i].path, dir, n) == 0 &&
		    c->v[i].path[n] == '/')
			return 1;
	return 0;
}

/*
 * discard PATH...: the changes at or beneath the paths leave the session
 * (as applied ones do: plan_settle), the rest stays pending. A new
 * directory that still holds other pending changes stays.
 */
static void
discard_paths(struct workspace *x, struct cli *c, int yes,
    struct workspace_err *e)
{
	struct changes ch = { NULL, 0, 0 }, after = { NULL, 0, 0 };
	char **names = c->argv + optind;
	size_t nn = (size_t)(c->argc - optind), i, n;
	int *sel = NULL, r, left, quiet = c->quiet || c->json;

	if ((r = workspace_changes(x, "discard", LOCK_EX, &ch, e)) ==
	    WORKSPACE_ERR)
		goto out;
	if (r == WORKSPACE_NONE || ch.n == 0) {
		workspace_fail(e, EXIT_REFUSED, 0, names[0], "no pending "
		    "change there");
		goto out;
	}
	if ((sel = mem_calloc(ch.n, sizeof *sel)) == NULL) {
		workspace_fail(e, EXIT_USAGE, errno, "", NULL);
		goto out;
	}
	if (workspace_select(x, &ch, names, nn, sel, e) != 0)
		goto out;
	for (i = 0; i < ch.n; i++)
		if (sel[i] && ch.v[i].status == CHANGE_MKDIR &&
		    holds_unselected(&ch, sel, ch.v[i].path))
			sel[i] = 0;
	n = plan_count(&ch, sel);
	if (!yes && dryrun_ask(&discard_q, n, quiet, e) <= 0)
		goto out;
	for (i = 0; i < ch.n; i++)
		ch.v[i].applied = sel[i] != 0;
	if ((left = plan_settle(&x->s, &ch)) < 0) {
		workspace_fail(e, EXIT_USAGE, errno, "", NULL);
		goto out;
	}
	/* what still stands (part of a removed directory, say) is named */
	if (changes_list(&x->s, x->rootfd, &after, NULL, NULL) == 0)
		for (i = 0; i < ch.n; i++)
			if (sel[i] && !ch.v[i].implied &&
			    changes_find(&after, ch.v[i].path) < after.n &&
			    strcmp(after.v[changes_find(&after,
			    ch.v[i].path)].path, ch.v[i].path) == 0) {
				say_err("discard: %s: still pending (it goes "
				    "with %s)", ch.v[i].path, ch.v[i].origin);
				left++;
			}
	if (left > 0) {
		workspace_fail(e, EXIT_REFUSED, 0, "", NULL);
		goto out;
	}
	if (!quiet)
		printf("Discarded %zu pending file change(s); %zu left.\n", n,
		    after.count);
	e->status = c->json ? discard_doc(x->id, &ch, sel, 0) : 0;
out:
	changes_free(&ch);
	changes_free(&after);
	mem_free(sel);
}

int
cmd_discard(struct cli *c)
{
	static const struct option opts[] = {
		{ "yes", no_argument, NULL, 'y' },
		{ NULL, 0, NULL, 0 }
	};
	struct workspace_err e = { .status = EXIT_USAGE };
	struct changes ch = { NULL, 0, 0 };
	struct workspace x;
	char sn[SESSION_IDMAX + 16];
	size_t n = 0;
	int yes = 0, r, opt, listed = 0, quiet, lerr = EIO;

	workspace_init(&x, &dryrun_notes);
	while ((opt = cli_getopt(c, "y", opts)) != -1) {
		if (opt == 'y')
			yes = 1;
		else {
			cmd_usage("discard");
			return EXIT_USAGE;
		}
	}
	/* with --json, nothing but the document goes to stdout */
	quiet = c->quiet || c->json;
	if (dryrun_load(&x, c, 0, &e) < 0)
		goto out;
	if (optind != c->argc) {
		discard_paths(&x, c, yes, &e);
		goto out;
	}
	r = workspace_open(&x, "discard", 0, LOCK_EX, &e);
	if (r == WORKSPACE_ERR && x.damaged) {
		discard_damaged(&x, yes, quiet, c->json, &e);
		goto out;
	}
	if (r == WORKSPACE_ERR)
		goto out;
	if (r == WORKSPACE_NONE) {
		if (!quiet)
			printf("No pending changes.\n");
		e.status = c->json ? discard_doc(NULL, NULL, NULL, 0) : 0;
		goto out;
	}
	/* Count against the session's own workspace, wherever we run. */
	if (workspace_root(&x, x.s.workspace, &e) < 0) {
		lerr = e.err;
		dryrun_report("discard", &e);
	} else if (changes_list(&x.s, x.rootfd, &ch, NULL, NULL) == 0) {
		n = ch.count;
		listed = 1;
	} else
		lerr = errno;
	/* what cannot be counted is not discarded unasked */
	if (!listed && !yes) {
		workspace_fail(&e, EXIT_REFUSED, 0, "", "session %s: its "
		    "changes cannot be listed (%s); `discard --yes` discards "
		    "them unseen", x.id, dryrun_strerror(lerr));
		goto out;
	}
	if (n > 0 && !yes && dryrun_ask(&discard_q, n, quiet, &e) <= 0)
		goto out;
	/* what a killed apply of these changes left in the workspace */
	if (listed)
		workspace_sweep(&x, "discard");
	x.open = 0;
	snprintf(sn, sizeof sn, "session %s", x.id);
	if (session_remove(&x.s) < 0) {
		workspace_fail(&e, EXIT_USAGE, errno, sn, NULL);
		goto out;
	}
	if (!quiet) {
		if (!listed)
			printf("Discarded session %s, whose changes could not "
			    "be listed (%s).\n", x.id, dryrun_strerror(lerr));
		else if (n > 0)
			printf("Discarded %zu pending file change(s).\n", n);
		else
			printf("No pending changes.\n");
	}
	e.status = c->json ? discard_doc(x.id, listed ? &ch : NULL, NULL, 1) :
	    0;
out:
	dryrun_report("discard", &e);
	changes_free(&ch);
	workspace_done(&x);
	return e.status;
}
