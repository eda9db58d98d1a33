/*
 * The dry-run front ends' shared part (cmd_dryrun.h): what they say about
 * the workspace (session/workspace.h), and exec --dry-run.
 */
#include <sys/file.h>
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "cli/cmd_dryrun.h"
#include "cli/say.h"
#include "lib/path.h"
#include "policy/config.h"
#include "policy/roots.h"
#include "sandbox/sandbox.h"
#include "session/changes_base.h"
#include "session/session.h"
#include "session/session_apply.h"
#include "session/session_run.h"
#include "session/workspace.h"

/* A restart cut a dry-run command short (session_run.h): say so. */
static void
note_cut(const char *what, const char *id)
{
	say_note("%s: session %s: a restart cut a dry-run command in it short; "
	    "part of what it wrote may be missing: review the diff before "
	    "applying", what, id);
}

/* Said once when the session's lock is not free within a second. */
static void
note_waiting(const char *what, const char *id)
{
	say_note("%s: waiting for session %s: another arcturn holds it", what,
	    id);
}

/* A swap name the sweep leaves in place (workspace_sweep). */
static void
note_left(const char *what, const char *dir, size_t len, int cut,
    const char *name)
{
	say_note("%s: %.*s%s%s: left in place: an apply that was cut short "
	    "moved it aside there, and it may be a version saved meanwhile",
	    what, (int)len, dir, cut > 0 ? "/.../" : len > 0 ? "/" : "", name);
}

const struct workspace_notes dryrun_notes = {
	.waiting = note_waiting,
	.cut = note_cut,
	.left = note_left,
	.list = dryrun_list_warn
};

const char *
dryrun_strerror(int err)
{
	if (err == EMFILE || err == ENFILE)
		return "out of file descriptors (raise the limit: ulimit -n)";
	if (err == ECANCELED)	/* a compare-and-swap write (wsview.h) */
		return "changed while editing; not written";
	return strerror(err);
}

void
dryrun_report(const char *what, const struct workspace_err *e)
{
	const char *reason = e->err != 0 ? dryrun_strerror(e->err) : e->reason;

	if (e->status == 0 || (e->err == 0 && reason[0] == '\0'))
		return;
	/* for --json: the code, and the subject when it is a path */
	if (e->code != SAY_NONE)
		say_is((enum say_code)e->code, NULL);
	else if (e->err != 0)
		say_is(say_code_of(e->err), NULL);
	else if (e->status == EXIT_REFUSED)
		say_is(SAY_REFUSED, NULL);
	if (e->subject[0] != '\0' && strncmp(e->subject, "session ", 8) != 0)
		say_is(SAY_NONE, e->subject);
	if (e->hint[0] != '\0')
		say_hint(e->hint);
	if (e->bare) {
		say_err("%s", reason);
		return;
	}
	say_err("%s%s%s%s%s%s%s", what, what[0] != '\0' ? ": " : "",
	    e->subject, e->subject[0] != '\0' ? ": " : "", reason,
	    e->hint[0] != '\0' ? "; " : "", e->hint);
}

void
dryrun_line(const char *what, const struct workspace_err *e, char *buf,
    size_t size)
{
	const char *reason = e->err != 0 ? dryrun_strerror(e->err) : e->reason;

	if (e->bare)
		snprintf(buf, size, "arcturn: %s", reason);
	else
		snprintf(buf, size, "arcturn: %s: %s%s%s", what, e->subject,
		    e->subject[0] != '\0' ? ": " : "", reason);
}

int
dryrun_denied(struct workspace_err *e, const struct policy *p,
    const struct roots *r, const struct roots_denial *d, const char *subject,
    const char *abs)
{
	char roots[PATH_MAX], dir[PATH_MAX];
	const char *t, *slash;

	workspace_fail(e, EXIT_REFUSED, 0, subject, NULL);
	if (d->why == ROOTS_OUTSIDE) {
		e->code = SAY_OUTSIDE_ROOTS;
		cmd_roots_text(r, roots, sizeof roots);
		snprintf(e->reason, sizeof e->reason, "outside the writable "
		    "roots (%s)", roots);
		/* the folder that holds it: what a grant would name */
		slash = strrchr(abs, '/');
		snprintf(dir, sizeof dir, "%.*s", slash == NULL || slash == abs ?
		    1 : (int)(slash - abs), slash == NULL ? "/" : abs);
		if (p->mode == MODE_READ_ONLY)
			snprintf(e->hint, sizeof e->hint, "the sandbox mode is "
			    "read-only; workspace-write and a grant allow it");
		else
			snprintf(e->hint, sizeof e->hint, "allow it with "
			    "\"grants\": [\"%s\"] in %s (exec: --grant %s)", dir,
			    p->user_config != NULL ? p->user_config :
			    "the user config", dir);
		return e->status;
	}
	e->code = SAY_PROTECTED;
	switch (d->rule) {
	case ROOTS_R_GITCTL:
		snprintf(e->reason, sizeof e->reason, "protected path (git "
		    "control file)");
		snprintf(e->hint, sizeof e->hint, "change it outside arcturn "
		    "(git's hooks and config decide what git runs)");
		break;
	case ROOTS_R_STATEDATA:
		snprintf(e->reason, sizeof e->reason, "protected path (arcturn "
		    "state)");
		snprintf(e->hint, sizeof e->hint, "arcturn's own commands "
		    "change it (session rm, discard, rewind)");
		break;
	case ROOTS_R_USERCFG:
		snprintf(e->reason, sizeof e->reason, "protected path (arcturn's "
		    "user config folder)");
		snprintf(e->hint, sizeof e->hint, "change it outside arcturn");
		break;
	default:
		t = d->entry != NULL && p->workspace != NULL ?
		    path_tail(d->entry, p->workspace) : NULL;
		snprintf(e->reason, sizeof e->reason, "protected path "
		    "(\"protect\" entry %s)", t != NULL && *t != '\0' ? t :
		    d->entry != NULL ? d->entry : subject);
		snprintf(e->hint, sizeof e->hint, "writable once \"protect\" "
		    "in the config leaves it out");
		break;
	}
	return e->status;
}

static void
cfg_warn(const char *msg, void *arg)
{
	say_warn("%s", msg);
}

int
dryrun_load(struct workspace *x, struct cli *c, int dry_run,
    struct workspace_err *e)
{
	struct config_flags fl;

	memset(&fl, 0, sizeof fl);
	fl.dir = c->dir;
	fl.session = c->session;
	fl.mode = -1;
	fl.dry_run = dry_run ? 1 : -1;
	fl.require_sandbox = -1;
	fl.network = -1;
	if (config_load(&x->p, &fl, e->reason, sizeof e->reason, cfg_warn,
	    NULL) < 0) {
		memset(&x->p, 0, sizeof x->p);
		e->status = EXIT_USAGE;
		e->err = 0;
		e->bare = 1;
		e->code = SAY_CONFIG;
		e->subject[0] = '\0';
		return -1;
	}
	x->named = x->p.session != NULL;
	return 0;
}

void
dryrun_list_warn(const char *path, int err, const char *what, void *arg)
{
	const char *cmd = arg;

	if (err != 0)
		say_note("%s: %s: %s (%s)", cmd, path, what, strerror(err));
	else
		say_note("%s: %s: %s", cmd, path, what);
}

int
dryrun_stdout(const void *buf, size_t len, void *arg)
{
	if (len > 0 && fwrite(buf, 1, len, stdout) != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/*
 * Before the command of a run whose predecessor never ended (or could not
 * record): mark what that one left without a record, so that this run's
 * bookkeeping cannot take the real state now as what it was made on.
 */
static int
settle_unrecorded(struct workspace *x, const struct session_run *run)
{
	long n;

	if (!run->unrecorded)
		return 0;
	if ((n = changes_mark_unrecorded(&x->s, x->rootfd)) < 0) {
		say_err("exec --dry-run: session %s: an earlier run left changes "
		    "without a record of what they were made on, and marking "
		    "them failed: %s; not running the command", x->id,
		    dryrun_strerror(errno));
		return -1;
	}
	if (n > 0)
		say_note("exec --dry-run: session %s: %ld change(s) of an earlier "
		    "run that never ended have no record of what they were "
		    "made on; apply will refuse them", x->id, n);
	return 0;
}

/*
 * After the command: record the bases of what it changed, before the mark
 * says the run ended. Returns 1 when the records are written (some paths
 * may be recorded as refused: one line says so), 0 when they could not be
 * (the session is incomplete: one line, and exec exits 125).
 */
static int
record(struct workspace *x, const struct session_run *run)
{
	struct changes_rec rec;
	struct timespec since;
	char why[128];

	session_run_since(run, &since);
	if (changes_record_bases(&x->s, x->rootfd, &since, &rec) < 0) {
		say_err("exec --dry-run: session %s: incomplete: could not record "
		    "what the changes were made on: %s; apply will refuse "
		    "what is not recorded", x->id, dryrun_strerror(errno));
		changes_rec_free(&rec);
		return 0;
	}
	if (rec.unrecorded > 0)
		say_err("exec --dry-run: session %s: %zu path(s) could not be "
		    "recorded, apply will refuse them: first %s: %s", x->id,
		    rec.unrecorded, rec.first, rec.first_why == ESTALE ?
		    "it changed while the command ran" :
		    rec.first_why == EXDEV ? "it lies beyond a symlink" :
		    (snprintf(why, sizeof why, "%s",
		    dryrun_strerror(rec.first_why)), why));
	changes_rec_free(&rec);
	return 1;
}

/* The name of a signal sandbox_overlay_go may answer with, after "SIG". */
static const char *
sig_name(int sig)
{
	switch (sig) {
	case SIGHUP:
		return "HUP";
	case SIGINT:
		return "INT";
	case SIGQUIT:
		return "QUIT";
	case SIGTERM:
		return "TERM";
	case SIGUSR1:
		return "USR1";
	case SIGUSR2:
		return "USR2";
	}
	return "?";
}

/*
 * exec --dry-run, for cmd_exec (which hands its policy over): the command
 * runs with overlayfs on the workspace and the session's upper dir, under
 * the session's exclusive lock; when it ends, the real state of every
 * path it changed becomes that change's base (apply refuses a file whose
 * real content changes after that), recorded and synced before the run's
 * mark says it ended. Nothing is recorded or synced when nothing in
 * upper/ differs. Fails closed: when the overlay cannot be had, nothing is
 * created and the command does not run (125).
 */
int
dryrun_exec(struct policy *p, char **cmd, struct sandbox_end *end)
{
	return dryrun_exec_as(p, cmd, "exec --dry-run", end, NULL);
}

int
dryrun_exec_as(struct policy *p, char **cmd, const char *what,
    struct sandbox_end *end, int *ran)
{
	struct session_run run = { 0 };
	struct workspace_err e = { .status = EXIT_OWN };
	struct sandbox_overlay_run *ov;
	struct workspace x;
	char upper[PATH_MAX], work[PATH_MAX], err[1024];
	int rc, changed, recorded = 1, full, sig = 0, marked = 0;
	long fixed;

	memset(end, 0, sizeof *end);
	end->status = EXIT_OWN;
	if (ran != NULL)
		*ran = 0;
	if (!sandbox_overlay_available(p, err, sizeof err)) {
		say_err("%s: %s; not running the command", what, err);
		policy_free(p);
		return EXIT_OWN;
	}
	workspace_init(&x, &dryrun_notes);
	x.p = *p;
	memset(p, 0, sizeof *p);
	x.named = x.p.session != NULL;
	rc = workspace_open(&x, "exec", 1, LOCK_EX, &e);
	if (rc != WORKSPACE_GOT || workspace_same(&x, &e) < 0 ||
	    workspace_root(&x, x.p.workspace, &e) < 0) {
		dryrun_report("exec", &e);
		workspace_done(&x);
		return EXIT_OWN;
	}
	/* so that arcturn inside the command fails instead of waiting */
	(void)setenv(WORKSPACE_BUSY_ENV, x.id, 1);
	session_path(upper, sizeof upper, x.p.state, x.id, "upper");
	session_path(work, sizeof work, x.p.state, x.id, "work");
	/*
	 * The sandbox is built while the session gets ready for the run
	 * below: the overlay waits for the word (sandbox_overlay_go).
	 */
	if (sandbox_overlay_start(&x.p, upper, work, x.s.lockfd, cmd, &ov,
	    err, sizeof err) < 0) {
		say_err("%s", err);
		(void)unsetenv(WORKSPACE_BUSY_ENV);
		workspace_done(&x);
		return EXIT_OWN;
	}
	if ((fixed = session_unalias(&x.s, x.rootfd)) < 0) {
		say_err("%s: session %s: looking for files an earlier apply "
		    "left linked to the workspace: %s; not running the "
		    "command", what, x.id, dryrun_strerror(errno));
		goto unstart;
	}
	if (fixed > 0)
		say_note("%s: session %s: %ld file(s) still linked to the "
		    "workspace by an earlier apply: the applied ones left the "
		    "session, the others are separate copies now (still "
		    "pending)", what, x.id, fixed);
	if (session_run_begin(&x.s, &run) < 0) {
		say_err("exec --dry-run: session %s: preparing the overlay: %s; "
		    "not running the command", x.id, dryrun_strerror(errno));
		goto unstart;
	}
	marked = 1;
	if (settle_unrecorded(&x, &run) < 0) {
		recorded = 0;
		goto unstart;
	}
	/*
	 * The last run's work dir goes while the sandbox is still being
	 * built (not beside the overlay's mount, on the same disk); then
	 * the overlay may go on.
	 */
	session_run_sweep(&x.s);
	if ((sig = sandbox_overlay_go(ov, 1)) > 0) {
		/* as a signal before the run began would have ended it */
		say_err("%s: SIG%s before the command started; not running "
		    "it", what, sig_name(sig));
		goto unstart;
	}
	err[0] = '\0';
	rc = sandbox_overlay_wait(ov, end, err, sizeof err);
	changed = session_run_changed(&x.s, x.rootfd, &run);
	if (err[0] != '\0')	/* the wait failed: rc is EXIT_OWN */
		say_err("%s", err);
	else if (ran != NULL)
		*ran = 1;
	if (changed)
		recorded = record(&x, &run);
	if (session_run_end(&x.s, changed, recorded) < 0)
		say_err("exec --dry-run: session %s: syncing what the command "
		    "wrote: %s", x.id, dryrun_strerror(errno));
	/*
	 * A write the full file system cut short is no change to land.
	 * Asked only when upper changed (the probe writes and syncs): with
	 * nothing in it, nothing can land cut.
	 */
	if (changed && session_upper_full(&x.s, &full) == 1) {
		say_err("%s: the file system of %s ran out of %s during the "
		    "run: what the command wrote may be cut short; session %s "
		    "keeps it for review (arcturn diff --session %s)", what,
		    upper, full == EDQUOT ? "quota" : "space", x.id, x.id);
		rc = rc != 0 ? rc : EXIT_OWN;
		if (ran != NULL)
			*ran = 0;	/* exec --checkpoint: not applied */
	}
	/* the sandbox's init holds the lock until its overlay is gone */
	session_let_go(&x.s);
	if (!recorded) {
		rc = EXIT_OWN;
		if (ran != NULL)
			*ran = 0;
	}
	/* the caller goes on (exec --checkpoint): the session is free */
	(void)unsetenv(WORKSPACE_BUSY_ENV);
	session_run_free(&run);
	workspace_done(&x);
	return rc;
unstart:
	/*
	 * The session could not get ready, or a signal came first: the
	 * sandbox ends before its overlay and the command (quietly: the line
	 * was said above), then the run mark, where there is one, settles
	 * (incomplete when settling the last run's bases failed).
	 */
	(void)sandbox_overlay_go(ov, 0);
	(void)sandbox_overlay_wait(ov, end, err, sizeof err);
	memset(end, 0, sizeof *end);
	end->sig = sig;
	end->status = sig > 0 ? 128 + sig : EXIT_OWN;
	if (marked)
		(void)session_run_end(&x.s, !recorded, recorded);
	(void)unsetenv(WORKSPACE_BUSY_ENV);
	session_run_free(&run);
	workspace_done(&x);
	return end->status;
}
