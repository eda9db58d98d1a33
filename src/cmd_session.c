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
 */
#include <sys/file.h>

#include "say.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "apply.h"
#include "changes.h"
#include "changes_base.h"
#include "cmd.h"
#include "cmd_dryrun.h"
#include "conflict.h"
#include "mem.h"
#include "session.h"
#include "session_run.h"

static void
json_hooks(void)
{
	static cJSON_Hooks h = { mem_alloc, mem_free };

	cJSON_InitHooks(&h);
}

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
session_list_cmd(struct dryrun *x, struct cli *c)
{
	struct changes ch;
	struct session s;
	char **ids = NULL;
	size_t n = 0, i;
	cJSON *arr = NULL, *o;
	char *txt;
	long pend;
	int rc = 0;

	x->storefd = session_store_open(x->p.state, 0);
	if (x->storefd < 0 && errno != ENOENT) {
		say_errno("session: %s/overlays", x->p.state);
		return EXIT_USAGE;
	}
	if (x->storefd >= 0 && session_list(x->storefd, &ids, &n) < 0) {
		say_errno("session: %s/overlays", x->p.state);
		return EXIT_USAGE;
	}
	json_hooks();
	if (c->json && (arr = cJSON_CreateArray()) == NULL) {
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
			cJSON_AddItemToArray(arr, o);
			if (!cJSON_AddStringToObject(o, "id", ids[i]) ||
			    !cJSON_AddStringToObject(o, "workspace",
			    s.workspace) ||
			    !cJSON_AddStringToObject(o, "created", s.created) ||
			    !(pend >= 0 ? cJSON_AddNumberToObject(o, "pending",
			    (double)pend) : cJSON_AddNullToObject(o, "pending")))
				goto nomem;
		} else if (pend >= 0)
			printf("%-16s %7ld  %s\n", ids[i], pend, s.workspace);
		else
			printf("%-16s %7s  %s\n", ids[i], "?", s.workspace);
		changes_free(&ch);
		session_close(&s);
	}
	if (c->json) {
		if ((txt = cJSON_Print(arr)) == NULL) {
			cJSON_Delete(arr);
			session_ids_free(ids, n);
			say_err("session: %s", strerror(ENOMEM));
			return EXIT_USAGE;
		}
		printf("%s\n", txt);
		mem_free(txt);
		cJSON_Delete(arr);
	}
	session_ids_free(ids, n);
	return rc;
nomem:
	changes_free(&ch);
	session_close(&s);
	cJSON_Delete(arr);
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
session_show_cmd(struct dryrun *x, struct cli *c)
{
	struct dryrun_err err;
	struct changes ch = { NULL, 0, 0 };
	struct change *e;
	cJSON *o = NULL, *files, *f;
	char *txt, why[160];
	const char *rf, **cm = NULL;
	size_t i, nunrec = 0;
	long pend;
	int r, incomplete, un;

	r = dryrun_open(x, "session", 0, 0, &err);
	if (r == DRYRUN_ERR) {
		dryrun_report("session", &err);
		return EXIT_USAGE;
	}
	if (r == DRYRUN_NONE) {
		if (x->named)
			say_err("session: %s: no such session", x->p.session);
		else
			say_err("session: no session for workspace %s",
			    x->p.workspace);
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
	json_hooks();
	if ((o = cJSON_CreateObject()) == NULL ||
	    !cJSON_AddStringToObject(o, "id", x->id) ||
	    !cJSON_AddStringToObject(o, "workspace", x->s.workspace) ||
	    !cJSON_AddStringToObject(o, "created", x->s.created) ||
	    !(pend >= 0 ? cJSON_AddNumberToObject(o, "pending", (double)pend) :
	    cJSON_AddNullToObject(o, "pending")) ||
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
		cJSON_AddItemToArray(files, f);
		if (!cJSON_AddStringToObject(f, "path", e->path) ||
		    !cJSON_AddStringToObject(f, "status",
		    changes_status_name(e->status)) ||
		    (rf != NULL && !cJSON_AddStringToObject(f, "refused", rf)) ||
		    (cm[i] != NULL && !cJSON_AddStringToObject(f, "conflict",
		    cm[i] + 10)))
			goto nomem;
	}
	if ((txt = cJSON_Print(o)) == NULL)
		goto nomem;
	printf("%s\n", txt);
	mem_free(txt);
	cJSON_Delete(o);
	changes_free(&ch);
	mem_free(cm);
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
 * Ask before session rm drops pending changes, as discard does: 1 go on,
 * else the exit status.
 */
static int
rm_ask(struct dryrun *x, struct cli *c, const char *id, int yes)
{
	struct dryrun_err e = { .status = EXIT_USAGE };
	struct changes ch;
	struct session s;
	long pend = -1;
	int r;

	if (yes)
		return 1;
	memset(&s, 0, sizeof s);
	if (x->storefd >= 0 && session_open(x->storefd, id, NULL, &s) == 0) {
		pend = pending_of(&s, &ch);
		changes_free(&ch);
		session_close(&s);
	} else if (errno == ENOENT)
		return 1;	/* rm says there is no such session */
	if (pend == 0)
		return 1;
	r = pend > 0 ? dryrun_ask(&rm_q, (size_t)pend, c->quiet, &e) :
	    dryrun_ask(&rm_damaged_q, 1, c->quiet, &e);
	if (r > 0)
		return 1;
	dryrun_report("session", &e);
	return e.status;
}

/* Remove a session, however damaged (session_remove_id), asking first. */
static int
session_rm_cmd(struct dryrun *x, struct cli *c, const char *id, int yes)
{
	int r;

	if (!session_id_valid(id)) {
		say_err("session: %s: invalid session id "
		    "(want [a-z0-9][a-z0-9-]{0,63})", id);
		return EXIT_USAGE;
	}
	x->storefd = session_store_open(x->p.state, 0);
	if (x->storefd >= 0 && (r = rm_ask(x, c, id, yes)) != 1)
		return r;
	if (x->storefd < 0 || session_remove_id(x->storefd, id, say_waiting,
	    (void *)id) < 0) {
		if (errno == ENOENT)
			say_err("session: %s: no such session", id);
		else
			say_err("session: rm %s: %s", id, dryrun_strerror(errno));
		return EXIT_USAGE;
	}
	if (!c->quiet)
		printf("Removed session %s.\n", id);
	return 0;
}

int
cmd_session(struct cli *c)
{
	struct dryrun_err e;
	struct dryrun x;
	const char *sub = c->argc >= 2 ? c->argv[1] : "";
	int rc, yes = 0;

	/* session rm [--yes|-y] ID, the option on either side */
	if (strcmp(sub, "rm") == 0 && c->argc == 4 &&
	    (strcmp(c->argv[2], "--yes") == 0 || strcmp(c->argv[2], "-y") ==
	    0 || strcmp(c->argv[3], "--yes") == 0 ||
	    strcmp(c->argv[3], "-y") == 0)) {
		yes = 1;
		if (c->argv[2][0] == '-')
			c->argv[2] = c->argv[3];
		c->argc = 3;
	}
	if (!(strcmp(sub, "list") == 0 && c->argc == 2) &&
	    !(strcmp(sub, "show") == 0 && c->argc <= 3) &&
	    !(strcmp(sub, "rm") == 0 && c->argc == 3)) {
		cmd_usage("session");
		return EXIT_USAGE;
	}
	if (strcmp(sub, "show") == 0 && c->argc == 3 &&
	    !session_id_valid(c->argv[2])) {
		say_err("session: %s: invalid session id "
		    "(want [a-z0-9][a-z0-9-]{0,63})", c->argv[2]);
		return EXIT_USAGE;
	}
	dryrun_init(&x);
	if (dryrun_load(&x, c, 0, &e) < 0) {
		dryrun_report("session", &e);
		return EXIT_USAGE;
	}
	if (strcmp(sub, "list") == 0)
		rc = session_list_cmd(&x, c);
	else if (strcmp(sub, "rm") == 0)
		rc = session_rm_cmd(&x, c, c->argv[2], yes);
	else if (c->argc == 3) {
		mem_free(x.p.session);
		x.p.session = mem_strdup(c->argv[2]);
		x.named = 1;
		rc = x.p.session != NULL ? session_show_cmd(&x, c) : EXIT_USAGE;
	} else
		rc = session_show_cmd(&x, c);
	dryrun_done(&x);
	return rc;
}
