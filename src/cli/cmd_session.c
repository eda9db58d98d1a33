/*
 * Front end of `arcturn session list|show|rm`: the sessions in the store,
 * one session's pending files, removing one. Exit 0; 1 when a session
 * could not be read (list, show); 2 usage, config, or no such session.
 *
 * show marks what apply will refuse: a session whose last run could not
 * record its bases is "incomplete", and each change without a usable
 * record, or that cannot be applied at all, or whose real file changed
 * since capture (conflict.h), says so. A damaged session is named with
 * its damaged part; `session rm` removes it all the same. `session rm
 * [--yes] ID` asks first, as discard does, when the session holds
 * pending changes or cannot be read: without a terminal and without
 * --yes it refuses (2).
 *
 * --json: one document each, named session-list, session-show and
 * session-rm (their error documents too); a list or show that could not
 * read everything prints what it read and exits 1.
 */
#include <sys/file.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "apply/apply.h"
#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/cmd_dryrun.h"
#include "cli/cmd_json.h"
#include "cli/say.h"
#include "lib/mem.h"
#include "session/changes.h"
#include "session/changes_base.h"
#include "session/conflict.h"
#include "session/session.h"
#include "session/session_run.h"
#include "session/workspace.h"

static char
status_letter(enum change_status s)
{
	switch (s) {
	case CHANGE_ADDED:
	case CHANGE_MKDIR:
		return 'A';
	case CHANGE_DELETED:
	case CHANGE_RMDIR:
		return 'D';
	case CHANGE_TYPE:
		return 'T';
	default:
		return 'M';
	}
}

/* Pending changes of an open session, against its own workspace. */
static long
pending_of(struct session *s, struct changes *ch)
{
	int rootfd, rc;

	memset(ch, 0, sizeof *ch);
	if (session_lock(s, LOCK_SH) < 0)
		return -1;
	rootfd = open(s->workspace, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		session_unlock(s);
		return -1;
	}
	rc = changes_list(s, rootfd, ch, NULL, NULL);
	close(rootfd);
	session_unlock(s);
	return rc < 0 ? -1 : (long)ch->count;
}

static int
session_list_cmd(struct workspace *x, struct cli *c)
{
	struct changes ch;
	struct session s;
	char **ids = NULL, store[PATH_MAX];
	size_t n = 0, i;
	cJSON *doc = NULL, *arr = NULL, *o;
	long pend;
	int rc = 0;

	session_path(store, sizeof store, x->p.state, NULL, NULL);
	x->storefd = session_store_open(x->p.state, 0);
	if (x->storefd < 0 && errno != ENOENT) {
		say_errno("session: %s", store);
		return EXIT_USAGE;
	}
	if (x->storefd >= 0 && session_list(x->storefd, &ids, &n) < 0) {
		say_errno("session: %s", store);
		return EXIT_USAGE;
	}
	if (c->json && ((doc = say_doc("session-list")) == NULL ||
	    (arr = cJSON_AddArrayToObject(doc, "sessions")) == NULL)) {
		cJSON_Delete(doc);
		session_ids_free(ids, n);
		say_err("session: %s", strerror(ENOMEM));
		return EXIT_USAGE;
	}
	if (!c->json && n > 0)
		printf("%-16s %7s  %s\n", "ID", "PENDING", "WORKSPACE");
	for (i = 0; i < n; i++) {
		if (session_open(x->storefd, ids[i], NULL, &s) < 0) {
			if (errno == ENOENT)
				continue;
			if (errno == EBADMSG)
				say_err("session %s: %s; it is damaged: remove "
				    "it with `arcturn session rm %s`", ids[i],
				    s.why, ids[i]);
			else
				say_err("session %s: %s", ids[i],
				    dryrun_strerror(errno));
			rc = EXIT_REFUSED;
			continue;
		}
		pend = pending_of(&s, &ch);
		if (pend < 0)
			say_errno("session: %s: %s", ids[i], s.workspace);
		if (c->json) {
			if ((o = cJSON_CreateObject()) == NULL)
				goto nomem;
			if (!cJSON_AddItemToArray(arr, o)) {
				cJSON_Delete(o);
				goto nomem;
			}
			if (!cJSON_AddStringToObject(o, "id", ids[i]) ||
			    !cJSON_AddStringToObject(o, "workspace",
			    s.workspace) ||
			    !cJSON_AddStringToObject(o, "created", s.created) ||
			    cmdjson_num(o, "pending", (double)pend, pend < 0) < 0)
				goto nomem;
		} else if (pend >= 0)
			printf("%-16s %7ld  %s\n", ids[i], pend, s.workspace);
		else
			printf("%-16s %7s  %s\n", ids[i], "?", s.workspace);
		changes_free(&ch);
		session_close(&s);
	}
	session_ids_free(ids, n);
	/* a session that could not be read: said above, and exit 1 */
	if (c->json && say_print(doc) < 0)
		return EXIT_USAGE;
	return rc;
nomem:
	changes_free(&ch);
	session_close(&s);
	cJSON_Delete(doc);
	session_ids_free(ids, n);
	say_err("session: %s", strerror(ENOMEM));
	return EXIT_USAGE;
}

/*
 * Why apply would refuse change i whatever the real tree holds, or NULL:
 * its own refuse, or its base record. buf holds the words.
 */
static const char *
refusal(struct session *s, const struct changes *ch, size_t i, char *buf,
    size_t len, int *unrec)
{
	struct apply_base b;

	*unrec = 0;
	if (ch->v[i].refuse != NULL)
		return ch->v[i].refuse;
	if (ch->v[i].status == CHANGE_MKDIR)
		return NULL;
	if (session_lock(s, LOCK_SH) < 0)
		return NULL;
	if (changes_base(s, ch, i, &b) < 0 || !b.unrecorded) {
		session_unlock(s);
		return NULL;
	}
	session_unlock(s);
	*unrec = 1;
	return apply_unrecorded_reason(b.why, buf, len);
}

/*
 * The conflict marks of ch (conflict.h), one per change, or NULL for
 * none (free with mem_free).
 */
static const char **
conflicts(struct session *s, const struct changes *ch)
{
	const char **m;
	size_t i;
	int rootfd;

	if ((m = mem_calloc(ch->n ? ch->n : 1, sizeof *m)) == NULL)
		return NULL;
	if (session_lock(s, LOCK_SH) < 0)
		return m;
	rootfd = open(s->workspace, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (i = 0; rootfd >= 0 && i < ch->n; i++)
		m[i] = conflict_mark(conflict_of(s, rootfd, ch, i, NULL));
	if (rootfd >= 0)
		close(rootfd);
	session_unlock(s);
	return m;
}

static int
session_show_cmd(struct workspace *x, struct cli *c)
{
	struct workspace_err err;
	struct changes ch = { NULL, 0, 0 };
	struct change *e;
	cJSON *o = NULL, *files, *f;
	char why[160];
	const char *rf, **cm = NULL;
	size_t i, nunrec = 0;
	long pend;
	int r, incomplete, un;

	r = workspace_open(x, "session", 0, 0, &err);
	if (r == WORKSPACE_ERR) {
		dryrun_report("session", &err);
		return EXIT_USAGE;
	}
	if (r == WORKSPACE_NONE) {
		if (x->named)
			say_err("session: %s: no such session", x->p.session);
		else
			say_err("session: no session for workspace %s",
			    x->p.workspace);
		say_is(SAY_NOT_FOUND, NULL);
		return EXIT_USAGE;
	}
	pend = pending_of(&x->s, &ch);
	if (pend < 0)
		say_errno("session: %s: %s", x->id, x->s.workspace);
	for (i = 0; i < ch.n; i++)
		if (refusal(&x->s, &ch, i, why, sizeof why, &un) != NULL && un)
			nunrec++;
	incomplete = session_run_incomplete(&x->s) || nunrec > 0;
	if ((cm = conflicts(&x->s, &ch)) == NULL)
		goto nomem;
	if (!c->json) {
		printf("session:   %s\nworkspace: %s\ncreated:   %s\n", x->id,
		    x->s.workspace, x->s.created);
		if (pend >= 0)
			printf("pending:   %ld\n", pend);
		if (incomplete)
			printf("incomplete: %zu change(s) have no record of "
			    "what they were made on; apply refuses them\n",
			    nunrec);
		for (i = 0; i < ch.n; i++) {
			e = &ch.v[i];
			rf = refusal(&x->s, &ch, i, why, sizeof why, &un);
			if (e->implied && rf == NULL)
				continue;
			printf("  %c %s%s", status_letter(e->status), e->path,
			    e->new_kind == SHADOW_DIR ||
			    e->status == CHANGE_RMDIR ? "/" : "");
			if (rf != NULL)
				printf("  (%s)", rf);
			else if (cm[i] != NULL)
				printf("  (%s)", cm[i]);
			printf("\n");
		}
		changes_free(&ch);
		mem_free(cm);
		return pend < 0 ? EXIT_REFUSED : 0;
	}
	if ((o = say_doc("session-show")) == NULL ||
	    !cJSON_AddStringToObject(o, "id", x->id) ||
	    !cJSON_AddStringToObject(o, "workspace", x->s.workspace) ||
	    !cJSON_AddStringToObject(o, "created", x->s.created) ||
	    cmdjson_num(o, "pending", (double)pend, pend < 0) < 0 ||
	    !cJSON_AddBoolToObject(o, "interrupted",
	    session_run_interrupted(&x->s)) ||
	    !cJSON_AddBoolToObject(o, "incomplete", incomplete) ||
	    !cJSON_AddNumberToObject(o, "unrecorded", (double)nunrec) ||
	    (files = cJSON_AddArrayToObject(o, "files")) == NULL)
		goto nomem;
	for (i = 0; i < ch.n; i++) {
		e = &ch.v[i];
		rf = refusal(&x->s, &ch, i, why, sizeof why, &un);
		if (e->implied && rf == NULL)
			continue;
		if ((f = cJSON_CreateObject()) == NULL)
			goto nomem;
		if (!cJSON_AddItemToArray(files, f)) {
			cJSON_Delete(f);
			goto nomem;
		}
		/* conflict: the mark without its "conflict: " */
		if (!cJSON_AddStringToObject(f, "path", e->path) ||
		    !cJSON_AddStringToObject(f, "status",
		    changes_status_name(e->status)) ||
		    cmdjson_str(f, "conflict", cm[i] != NULL ? cm[i] + 10 :
		    NULL) < 0 || cmdjson_str(f, "refused", rf) < 0)
			goto nomem;
	}
	changes_free(&ch);
	mem_free(cm);
	if (say_print(o) < 0)
		return EXIT_USAGE;
	return pend < 0 ? EXIT_REFUSED : 0;
nomem:
	cJSON_Delete(o);
	changes_free(&ch);
	mem_free(cm);
	say_err("session: %s", strerror(ENOMEM));
	return EXIT_USAGE;
}

static void
say_waiting(void *arg)
{
	say_note("session: waiting for session %s: another arcturn holds it",
	    (const char *)arg);
}

static const struct dryrun_question rm_q = {
	"Remove the session and its %zu pending file change(s)?",
	"[r]emove/[k]eep", "ry",
	"no terminal to confirm on; use --yes to remove the session and its "
	    "%zu pending file change(s)",
	"Kept %zu pending file change(s).\n"
};

static const struct dryrun_question rm_damaged_q = {
	"Remove the session (its pending changes cannot be counted)?",
	"[r]emove/[k]eep", "ry",
	"no terminal to confirm on; use --yes to remove the session",
	"Kept the session.\n"
};

/*
 * What session rm would drop: the pending changes of session id, -1
 * when they cannot be counted (a damaged session), -2 when there is no
 * such session.
 */
static long
rm_pending(struct workspace *x, const char *id)
{
	struct changes ch;
	struct session s;
	long pend;

	memset(&s, 0, sizeof s);
	if (session_open(x->storefd, id, NULL, &s) < 0)
		return errno == ENOENT ? -2 : -1;
	pend = pending_of(&s, &ch);
	changes_free(&ch);
	session_close(&s);
	return pend;
}

/*
 * Ask before session rm drops pending changes (pend, as rm_pending
 * counts them), as discard does: 1 go on, else the exit status.
 */
static int
rm_ask(struct cli *c, long pend, int yes)
{
	struct workspace_err e = { .status = EXIT_USAGE };
	int r, quiet = c->quiet || c->json;

	/* none: rm says there is no such session */
	if (yes || pend == 0 || pend == -2)
		return 1;
	r = pend > 0 ? dryrun_ask(&rm_q, (size_t)pend, quiet, &e) :
	    dryrun_ask(&rm_damaged_q, 1, quiet, &e);
	if (r > 0)
		return 1;
	dryrun_report("session", &e);
	return e.status;
}

/* Remove a session, however damaged (session_remove_id), asking first. */
static int
session_rm_cmd(struct workspace *x, struct cli *c, const char *id, int yes)
{
	long pend = -2;
	cJSON *o;
	int r;

	if (!session_id_valid(id)) {
		say_err("session: %s: invalid session id "
		    "(want [a-z0-9][a-z0-9-]{0,63})", id);
		say_is(SAY_USAGE, NULL);
		return EXIT_USAGE;
	}
	x->storefd = session_store_open(x->p.state, 0);
	if (x->storefd >= 0 && (!yes || c->json))
		pend = rm_pending(x, id);
	if (x->storefd >= 0 && (r = rm_ask(c, pend, yes)) != 1)
		return r;
	if (x->storefd < 0 || session_remove_id(x->storefd, id, say_waiting,
	    (void *)id) < 0) {
		if (errno == ENOENT) {
			say_err("session: %s: no such session", id);
			say_is(SAY_NOT_FOUND, NULL);
		} else
			say_err("session: rm %s: %s", id, dryrun_strerror(errno));
		return EXIT_USAGE;
	}
	if (c->json) {
		r = (o = say_doc("session-rm")) != NULL &&
		    cJSON_AddStringToObject(o, "id", id) != NULL &&
		    cJSON_AddTrueToObject(o, "removed") != NULL &&
		    cmdjson_num(o, "pending", (double)pend, pend < 0) == 0;
		return say_print_built(o, r) == 0 ? 0 : EXIT_USAGE;
	}
	if (!c->quiet)
		printf("Removed session %s.\n", id);
	return 0;
}

int
cmd_session(struct cli *c)
{
	static const struct option opts[] = {
		{ "yes", no_argument, NULL, 'y' },
		{ NULL, 0, NULL, 0 }
	};
	struct workspace_err e;
	struct workspace x;
	const char *sub, *id;
	int rc, yes = 0, ch, n;

	/* session list|show [ID]|rm [--yes|-y] ID, options anywhere */
	while ((ch = cli_getopt(c, "y", opts)) != -1) {
		if (ch != 'y') {
			cmd_usage("session");
			return EXIT_USAGE;
		}
		yes = 1;
	}
	n = c->argc - optind;
	sub = n >= 1 ? c->argv[optind] : "";
	id = n >= 2 ? c->argv[optind + 1] : NULL;
	if (!(strcmp(sub, "list") == 0 && n == 1 && !yes) &&
	    !(strcmp(sub, "show") == 0 && n <= 2 && !yes) &&
	    !(strcmp(sub, "rm") == 0 && n == 2)) {
		cmd_usage("session");
		return EXIT_USAGE;
	}
	/* the document, and the error one, are named for the subcommand */
	say_start(strcmp(sub, "list") == 0 ? "session-list" :
	    strcmp(sub, "show") == 0 ? "session-show" : "session-rm", c->json);
	if (strcmp(sub, "show") == 0 && id != NULL && !session_id_valid(id)) {
		say_err("session: %s: invalid session id "
		    "(want [a-z0-9][a-z0-9-]{0,63})", id);
		say_is(SAY_USAGE, NULL);
		return EXIT_USAGE;
	}
	workspace_init(&x, &dryrun_notes);
	if (dryrun_load(&x, c, 0, &e) < 0) {
		dryrun_report("session", &e);
		return EXIT_USAGE;
	}
	if (strcmp(sub, "list") == 0)
		rc = session_list_cmd(&x, c);
	else if (strcmp(sub, "rm") == 0)
		rc = session_rm_cmd(&x, c, id, yes);
	else if (id != NULL) {
		mem_free(x.p.session);
		x.p.session = mem_strdup(id);
		x.named = 1;
		rc = x.p.session != NULL ? session_show_cmd(&x, c) : EXIT_USAGE;
	} else
		rc = session_show_cmd(&x, c);
	workspace_done(&x);
	return rc;
}
