/*
 * The dry-run front ends' shared part (cmd_dryrun.h), and exec --dry-run.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "session/workspace.h"
#include "cli/say.h"
#include "lib/fsx.h"
#include "lib/mem.h"
#include "lib/path.h"
#include "policy/config.h"
#include "policy/roots.h"
#include "policy/writecheck.h"
#include "sandbox/sandbox.h"
#include "session/changes.h"
#include "session/changes_base.h"
#include "session/plan.h"
#include "session/session.h"
#include "session/session_apply.h"
#include "session/session_run.h"
#include "session/wsview.h"

void
dryrun_init(struct dryrun *x)
{
	memset(x, 0, sizeof *x);
	x->storefd = x->rootfd = -1;
	x->s.dirfd = x->s.upperfd = x->s.basefd = x->s.lockfd = -1;
}

void
dryrun_done(struct dryrun *x)
{
	if (x->open)
		session_close(&x->s);
	x->open = 0;
	if (x->storefd >= 0)
		close(x->storefd);
	if (x->rootfd >= 0)
		close(x->rootfd);
	x->storefd = x->rootfd = -1;
	policy_free(&x->p);
}

int
dryrun_fail(struct dryrun_err *e, int status, int err, const char *subject,
    const char *fmt, ...)
{
	va_list ap;

	e->status = status;
	e->err = err;
	e->bare = 0;
	e->code = SAY_NONE;
	snprintf(e->subject, sizeof e->subject, "%s", subject);
	e->reason[0] = '\0';
	e->hint[0] = '\0';
	if (fmt != NULL) {
		va_start(ap, fmt);
		vsnprintf(e->reason, sizeof e->reason, fmt, ap);
		va_end(ap);
	}
	return status;
}

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
dryrun_report(const char *what, const struct dryrun_err *e)
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
dryrun_line(const char *what, const struct dryrun_err *e, char *buf,
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
dryrun_denied(struct dryrun_err *e, const struct policy *p,
    const struct roots *r, const struct roots_denial *d, const char *subject,
    const char *abs)
{
	char roots[PATH_MAX], dir[PATH_MAX];
	const char *t, *slash;

	dryrun_fail(e, EXIT_REFUSED, 0, subject, NULL);
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
dryrun_load(struct dryrun *x, struct cli *c, int dry_run,
    struct dryrun_err *e)
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

int
dryrun_root(struct dryrun *x, const char *root, struct dryrun_err *e)
{
	if (x->rootfd >= 0)
		return 0;
	x->rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (x->rootfd < 0) {
		dryrun_fail(e, EXIT_USAGE, errno, root, NULL);
		return -1;
	}
	return 0;
}

/* A restart cut a dry-run command short (session_run.h): say so. */
static void
warn_cut(const struct dryrun *x, const char *what)
{
	say_note("%s: session %s: a restart cut a dry-run command in it short; "
	    "part of what it wrote may be missing: review the diff before "
	    "applying", what, x->id);
}

/* Said once when the session's lock is not free within a second. */
struct waitnote {
	const char	*what;
	const char	*id;
};

static void
say_waiting(void *arg)
{
	struct waitnote *w = arg;

	say_note("%s: waiting for session %s: another arcturn holds it", w->what,
	    w->id);
}

/* "session ID" */
static const char *
ses_name(struct dryrun *x, char *buf, size_t len)
{
	snprintf(buf, len, "session %s", x->id);
	return buf;
}

int
dryrun_open(struct dryrun *x, const char *what, int create, int lockop,
    struct dryrun_err *e)
{
	const char *id = x->p.session, *busy;
	char sn[SESSION_IDMAX + 16], sub[PATH_MAX + 32];
	struct waitnote wn;
	int tries;

	if (id != NULL && !session_id_valid(id)) {
		snprintf(sub, sizeof sub, "session: %s", id);
		dryrun_fail(e, EXIT_USAGE, 0, sub, "invalid session id "
		    "(want [a-z0-9][a-z0-9-]{0,63})");
		return DRYRUN_ERR;
	}
	for (tries = 0; tries < 16; tries++) {
		sub[0] = '\0';
		if (x->storefd < 0 && (x->storefd =
		    session_store_open(x->p.state, create)) < 0)
			session_path(sub, sizeof sub, x->p.state, NULL, NULL);
		else if (id != NULL)
			snprintf(x->id, sizeof x->id, "%s", id);
		else if (session_default(x->storefd, x->p.workspace, create,
		    x->id) < 0)
			snprintf(sub, sizeof sub, "default session of %s",
			    x->p.workspace);
		if (sub[0] != '\0') {
			if (errno == ENOENT && !create)
				return DRYRUN_NONE;
			dryrun_fail(e, EXIT_USAGE, errno, sub, NULL);
			return DRYRUN_ERR;
		}
		/*
		 * Inside the exec --dry-run that holds this session: its
		 * store is read-only here and its lock taken; say so.
		 */
		if ((busy = getenv(DRYRUN_BUSY_ENV)) != NULL &&
		    strcmp(busy, x->id) == 0) {
			dryrun_fail(e, EXIT_USAGE, 0, "", "session %s is held by "
			    "the exec --dry-run this command runs under", x->id);
			e->code = SAY_BUSY;
			return DRYRUN_ERR;
		}
		if (session_open(x->storefd, x->id, create ? x->p.workspace :
		    NULL, &x->s) < 0) {
			if (errno == ENOENT && !create)
				return DRYRUN_NONE;
			if (errno == EBADMSG) {
				x->damaged = 1;
				dryrun_fail(e, EXIT_USAGE, 0, ses_name(x, sn,
				    sizeof sn), "%s; it is damaged: remove it "
				    "with `arcturn session rm %s`", x->s.why,
				    x->id);
				e->code = SAY_DAMAGED;
			} else
				dryrun_fail(e, EXIT_USAGE, errno, ses_name(x, sn,
				    sizeof sn), NULL);
			return DRYRUN_ERR;
		}
		x->open = 1;
		wn.what = what;
		wn.id = x->id;
		if (lockop == 0 || session_lock_wait(&x->s, lockop, say_waiting,
		    &wn) == 0) {
			if ((x->cut = session_run_interrupted(&x->s)))
				warn_cut(x, what);
			return DRYRUN_GOT;
		}
		session_close(&x->s);
		x->open = 0;
		if (errno != ESTALE) {
			snprintf(sub, sizeof sub, "session %s: lock", x->id);
			dryrun_fail(e, EXIT_USAGE, errno, sub, NULL);
			return DRYRUN_ERR;
		}
	}
	dryrun_fail(e, EXIT_USAGE, 0, ses_name(x, sn, sizeof sn),
	    "removed and recreated repeatedly; giving up");
	return DRYRUN_ERR;
}

int
dryrun_same_ws(struct dryrun *x, struct dryrun_err *e)
{
	char sn[SESSION_IDMAX + 16];

	if (strcmp(x->s.workspace, x->p.workspace) == 0)
		return 0;
	dryrun_fail(e, EXIT_USAGE, 0, ses_name(x, sn, sizeof sn),
	    "belongs to workspace %s, not %s (use -C)", x->s.workspace,
	    x->p.workspace);
	return -1;
}

int
dryrun_changes(struct dryrun *x, const char *what, int lockop,
    struct changes *c, struct dryrun_err *e)
{
	char sn[SESSION_IDMAX + 16];
	int r;

	memset(c, 0, sizeof *c);
	r = dryrun_open(x, what, 0, lockop, e);
	if (r == DRYRUN_NONE && x->named) {
		snprintf(sn, sizeof sn, "session %s", x->p.session);
		dryrun_fail(e, EXIT_USAGE, 0, sn, "no such session");
		return DRYRUN_ERR;
	}
	if (r != DRYRUN_GOT)
		return r;
	if (dryrun_same_ws(x, e) < 0 || dryrun_root(x, x->p.workspace, e) < 0)
		return DRYRUN_ERR;
	if (changes_list(&x->s, x->rootfd, c, dryrun_list_warn,
	    (void *)what) < 0) {
		dryrun_fail(e, EXIT_USAGE, errno, ses_name(x, sn, sizeof sn),
		    NULL);
		return DRYRUN_ERR;
	}
	return DRYRUN_GOT;
}

int
dryrun_select(struct dryrun *x, struct changes *c, char **argv, size_t np,
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
	if (r == 0 && plan_select(c, paths, np, sel, &unmatched) < 0)
		r = dryrun_fail(e, EXIT_USAGE, errno, "", NULL);
	else if (r == 0 && unmatched >= 0)
		r = dryrun_fail(e, EXIT_REFUSED, 0, argv[unmatched],
		    "no pending change there");
	for (i = 0; i < np; i++)
		mem_free(paths[i]);
	mem_free(paths);
	return r == 0 ? 0 : -1;
}

int
dryrun_resolve(struct dryrun *x, const char *path, int dry, char **rel,
    struct dryrun_err *e)
{
	char *abs;
	int r, in_state;

	r = wsview_resolve(x->p.workspace, path, rel);
	if (r < 0) {
		dryrun_fail(e, EXIT_REFUSED, errno, path, NULL);
		return -1;
	}
	if (!dry)
		return r;
	if (r == 1) {
		dryrun_fail(e, EXIT_REFUSED, 0, path, "outside the workspace "
		    "%s; refused under dry run", x->p.workspace);
		return -1;
	}
	if (x->p.state == NULL)
		return r;
	if ((abs = path_join(x->p.workspace, *rel)) == NULL) {
		dryrun_fail(e, EXIT_REFUSED, errno, path, NULL);
		return -1;
	}
	in_state = path_under(abs, x->p.state);
	mem_free(abs);
	if (in_state) {
		dryrun_fail(e, EXIT_REFUSED, 0, path, "inside arcturn's state "
		    "dir; refused");
		return -1;
	}
	return r;
}

/* Keep the names of directories (not whiteouts, not opaque markers). */
static int
is_dir(int dirfd, const char *name, void *arg)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode);
}

/*
 * Sweep the real directory rfd, then each one below it that the upper
 * directory ufd has too. Both fds are closed. Never follows a symlink in
 * the real tree (O_NOFOLLOW on every step) and stops SWEEP_DEPTH levels
 * down: two fds per level.
 */
#define SWEEP_DEPTH	128

/* Where sweep_dir is, for naming what it leaves. */
struct sweep_at {
	const char	*cmd;
	const struct roots *r;	/* the write check's roots, or NULL */
	const char	*ws;
	char		 path[PATH_MAX];
	size_t		 len;
	int		 cut;	/* levels beneath path not in it */
};

static void
sweep_left(const char *name, void *arg)
{
	struct sweep_at *a = arg;

	say_note("%s: %.*s%s%s: left in place: an apply that was cut short "
	    "moved it aside there, and it may be a version saved meanwhile",
	    a->cmd, (int)a->len, a->path, a->cut > 0 ? "/.../" :
	    a->len > 0 ? "/" : "", name);
}

/*
 * The write check (writecheck.h) on the real folder rfd, which the sweep
 * reached at a->path: may temp names be removed in it? Asked for a temp
 * name; a path cut short is not asked, and not swept.
 */
static int
sweep_may(int rfd, const struct sweep_at *a)
{
	static const char probe[] = FSX_TMP_PREFIX "0000000000000000";
	struct policy_verdict v;
	char lex[PATH_MAX + sizeof probe + 2];
	int n;

	if (a->r == NULL)
		return 1;
	if (a->cut > 0)
		return 0;
	n = snprintf(lex, sizeof lex, "%s/%.*s%s%s", a->ws, (int)a->len,
	    a->path, a->len > 0 ? "/" : "", probe);
	if (n < 0 || (size_t)n >= sizeof lex)
		return 0;
	return policy_may_write(a->r, lex, rfd, probe, &v) == 0;
}

static void
sweep_dir(int ufd, int rfd, int depth, struct sweep_at *a)
{
	char **names = NULL;
	size_t n = 0, i, len = a->len, nl;
	int u, r, fit;

	/* a folder no writer may write (.git/hooks), nor below it */
	if (!sweep_may(rfd, a)) {
		close(ufd);
		close(rfd);
		return;
	}
	(void)fsx_sweep(rfd, sweep_left, a);
	if (depth < SWEEP_DEPTH && fsx_list(ufd, is_dir, NULL, &names,
	    &n) == 0) {
		for (i = 0; i < n; i++) {
			u = openat(ufd, names[i], O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
			r = u < 0 ? -1 : openat(rfd, names[i], O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (r < 0) {
				fsx_close(u);
				continue;
			}
			nl = strlen(names[i]);
			if ((fit = len + nl + 2 < sizeof a->path)) {
				if (len > 0)
					a->path[a->len++] = '/';
				memcpy(a->path + a->len, names[i], nl);
				a->len += nl;
			} else
				a->cut++;
			sweep_dir(u, r, depth + 1, a);
			if (fit)
				a->len = len;
			else
				a->cut--;
		}
		fsx_names_free(names, n);
	}
	close(ufd);
	close(rfd);
}

void
dryrun_sweep(const struct dryrun *x, const char *cmd)
{
	struct policy q = x->p;
	struct roots roots;
	struct sweep_at a;
	int u, r;

	if ((u = dup(x->s.upperfd)) < 0)
		return;
	if ((r = dup(x->rootfd)) < 0) {
		close(u);
		return;
	}
	a.cmd = cmd;
	a.len = 0;
	a.cut = 0;
	a.r = NULL;
	a.ws = x->p.workspace;
	if (x->p.mode != MODE_OFF) {
		q.mode = MODE_WORKSPACE_WRITE;
		if (roots_build(&q, ROOTS_PROTECT | ROOTS_MISSING, NULL,
		    &roots) < 0) {
			/* unchecked: no sweep */
			close(u);
			close(r);
			return;
		}
		a.r = &roots;
	}
	sweep_dir(u, r, 0, &a);
	if (a.r != NULL)
		roots_free(&roots);
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
settle_unrecorded(struct dryrun *x, const struct session_run *run)
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
record(struct dryrun *x, const struct session_run *run)
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
dryrun_exec(struct policy *p, char **cmd)
{
	return dryrun_exec_as(p, cmd, "exec --dry-run", NULL);
}

int
dryrun_exec_as(struct policy *p, char **cmd, const char *what, int *ran)
{
	struct session_run run;
	struct dryrun_err e = { .status = EXIT_OWN };
	struct sandbox_overlay_run *ov;
	struct dryrun x;
	char upper[PATH_MAX], work[PATH_MAX], err[1024];
	int rc, changed, recorded = 1, full;
	long fixed;

	if (ran != NULL)
		*ran = 0;
	if (!sandbox_overlay_available(p, err, sizeof err)) {
		say_err("%s: %s; not running the command", what, err);
		policy_free(p);
		return EXIT_OWN;
	}
	dryrun_init(&x);
	x.p = *p;
	memset(p, 0, sizeof *p);
	x.named = x.p.session != NULL;
	rc = dryrun_open(&x, "exec", 1, LOCK_EX, &e);
	if (rc != DRYRUN_GOT || dryrun_same_ws(&x, &e) < 0 ||
	    dryrun_root(&x, x.p.workspace, &e) < 0) {
		dryrun_report("exec", &e);
		dryrun_done(&x);
		return EXIT_OWN;
	}
	/* so that arcturn inside the command fails instead of waiting */
	(void)setenv(DRYRUN_BUSY_ENV, x.id, 1);
	session_path(upper, sizeof upper, x.p.state, x.id, "upper");
	session_path(work, sizeof work, x.p.state, x.id, "work");
	if ((fixed = session_unalias(&x.s, x.rootfd)) < 0) {
		say_err("%s: session %s: looking for files an earlier apply "
		    "left linked to the workspace: %s; not running the "
		    "command", what, x.id, dryrun_strerror(errno));
		dryrun_done(&x);
		return EXIT_OWN;
	}
	if (fixed > 0)
		say_note("%s: session %s: %ld file(s) still linked to the "
		    "workspace by an earlier apply: the applied ones left the "
		    "session, the others are separate copies now (still "
		    "pending)", what, x.id, fixed);
	if (session_run_begin(&x.s, &run) < 0) {
		say_err("exec --dry-run: session %s: preparing the overlay: %s; "
		    "not running the command", x.id, dryrun_strerror(errno));
		session_run_free(&run);
		dryrun_done(&x);
		return EXIT_OWN;
	}
	if (settle_unrecorded(&x, &run) < 0) {
		(void)session_run_end(&x.s, 1, 0);
		session_run_free(&run);
		dryrun_done(&x);
		return EXIT_OWN;
	}
	err[0] = '\0';
	/* while the command runs: the last run's overlayfs work dir goes */
	if ((rc = sandbox_overlay_start(&x.p, upper, work, x.s.lockfd, cmd,
	    &ov, err, sizeof err)) == 0) {
		session_run_sweep(&x.s);
		rc = sandbox_overlay_wait(ov, err, sizeof err);
	}
	changed = session_run_changed(&x.s, x.rootfd, &run);
	if (rc < 0) {
		say_err("%s", err);
		rc = EXIT_OWN;
	} else if (ran != NULL)
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
	if (rc >= 0 && changed && session_upper_full(&x.s, &full) == 1) {
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
	(void)unsetenv(DRYRUN_BUSY_ENV);
	session_run_free(&run);
	dryrun_done(&x);
	return rc;
}
