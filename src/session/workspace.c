/*
 * The workspace a command sees (workspace.h): its policy, session and
 * root, the paths the user names resolved against it, and the sweep of
 * what a killed apply left in it.
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

#include "lib/exitcode.h"
#include "lib/fsx.h"
#include "lib/mem.h"
#include "lib/path.h"
#include "policy/config.h"
#include "policy/roots.h"
#include "policy/writecheck.h"
#include "session/changes.h"
#include "session/plan.h"
#include "session/session.h"
#include "session/session_run.h"
#include "session/workspace.h"
#include "session/wsview.h"

void
workspace_init(struct workspace *x, const struct workspace_notes *notes)
{
	memset(x, 0, sizeof *x);
	x->storefd = x->rootfd = -1;
	x->notes = notes;
	x->s.dirfd = x->s.upperfd = x->s.basefd = x->s.lockfd = -1;
}

void
workspace_done(struct workspace *x)
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
workspace_fail(struct workspace_err *e, int status, int err,
    const char *subject, const char *fmt, ...)
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

int
workspace_root(struct workspace *x, const char *root,
    struct workspace_err *e)
{
	if (x->rootfd >= 0)
		return 0;
	x->rootfd = openat(AT_FDCWD, root, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC);
	if (x->rootfd < 0) {
		workspace_fail(e, EXIT_USAGE, errno, root, NULL);
		return -1;
	}
	return 0;
}

int
workspace_view(struct workspace *x, const char *what, int flags,
    struct wsview *v, struct workspace_err *e)
{
	int write = (flags & WORKSPACE_VIEW_WRITE) != 0, r = WORKSPACE_NONE;

	v->s = NULL;
	v->rootfd = -1;
	if ((flags & WORKSPACE_VIEW_SESSION) && (r = workspace_open(x, what,
	    write, write ? LOCK_EX : LOCK_SH, e)) == WORKSPACE_ERR)
		return -1;
	if (r == WORKSPACE_GOT) {
		if (workspace_same(x, e) < 0 ||
		    workspace_root(x, x->p.workspace, e) < 0)
			return -1;
		v->s = &x->s;
	} else if ((flags & WORKSPACE_VIEW_ROOT) &&
	    workspace_root(x, x->p.workspace, e) < 0) {
		e->status = EXIT_REFUSED;
		return -1;
	}
	v->rootfd = x->rootfd;
	return 0;
}

/* Said once when the session's lock is not free within a second. */
struct waitnote {
	const struct workspace_notes *notes;
	const char	*what;
	const char	*id;
};

static void
waiting(void *arg)
{
	struct waitnote *w = arg;

	w->notes->waiting(w->what, w->id);
}

/* "session ID" */
static const char *
ses_name(struct workspace *x, char *buf, size_t len)
{
	snprintf(buf, len, "session %s", x->id);
	return buf;
}

int
workspace_open(struct workspace *x, const char *what, int create, int lockop,
    struct workspace_err *e)
{
	const char *id = x->p.session, *busy;
	char sn[SESSION_IDMAX + 16], sub[PATH_MAX + 32];
	struct waitnote wn;
	int tries;

	if (id != NULL && !session_id_valid(id)) {
		snprintf(sub, sizeof sub, "session: %s", id);
		workspace_fail(e, EXIT_USAGE, 0, sub, "invalid session id "
		    "(want [a-z0-9][a-z0-9-]{0,63})");
		return WORKSPACE_ERR;
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
				return WORKSPACE_NONE;
			workspace_fail(e, EXIT_USAGE, errno, sub, NULL);
			return WORKSPACE_ERR;
		}
		/*
		 * Inside the exec --dry-run that holds this session: its
		 * store is read-only here and its lock taken; say so.
		 */
		if ((busy = getenv(WORKSPACE_BUSY_ENV)) != NULL &&
		    strcmp(busy, x->id) == 0) {
			workspace_fail(e, EXIT_USAGE, 0, "", "session %s is "
			    "held by the exec --dry-run this command runs "
			    "under", x->id);
			e->code = SAY_BUSY;
			return WORKSPACE_ERR;
		}
		if (session_open(x->storefd, x->id, create ? x->p.workspace :
		    NULL, &x->s) < 0) {
			if (errno == ENOENT && !create)
				return WORKSPACE_NONE;
			if (errno == EBADMSG) {
				x->damaged = 1;
				workspace_fail(e, EXIT_USAGE, 0, ses_name(x, sn,
				    sizeof sn), "%s; it is damaged: remove it "
				    "with `arcturn session rm %s`", x->s.why,
				    x->id);
				e->code = SAY_DAMAGED;
			} else
				workspace_fail(e, EXIT_USAGE, errno,
				    ses_name(x, sn, sizeof sn), NULL);
			return WORKSPACE_ERR;
		}
		x->open = 1;
		wn.notes = x->notes;
		wn.what = what;
		wn.id = x->id;
		if (lockop == 0 || session_lock_wait(&x->s, lockop,
		    x->notes != NULL && x->notes->waiting != NULL ? waiting :
		    NULL, &wn) == 0) {
			if ((x->cut = session_run_interrupted(&x->s)) &&
			    x->notes != NULL && x->notes->cut != NULL)
				x->notes->cut(what, x->id);
			return WORKSPACE_GOT;
		}
		session_close(&x->s);
		x->open = 0;
		if (errno != ESTALE) {
			snprintf(sub, sizeof sub, "session %s: lock", x->id);
			workspace_fail(e, EXIT_USAGE, errno, sub, NULL);
			return WORKSPACE_ERR;
		}
	}
	workspace_fail(e, EXIT_USAGE, 0, ses_name(x, sn, sizeof sn),
	    "removed and recreated repeatedly; giving up");
	return WORKSPACE_ERR;
}

int
workspace_same(struct workspace *x, struct workspace_err *e)
{
	char sn[SESSION_IDMAX + 16];

	if (strcmp(x->s.workspace, x->p.workspace) == 0)
		return 0;
	workspace_fail(e, EXIT_USAGE, 0, ses_name(x, sn, sizeof sn),
	    "belongs to workspace %s, not %s (use -C)", x->s.workspace,
	    x->p.workspace);
	return -1;
}

int
workspace_changes(struct workspace *x, const char *what, int lockop,
    struct changes *c, struct workspace_err *e)
{
	char sn[SESSION_IDMAX + 16];
	int r;

	memset(c, 0, sizeof *c);
	r = workspace_open(x, what, 0, lockop, e);
	if (r == WORKSPACE_NONE && x->named) {
		snprintf(sn, sizeof sn, "session %s", x->p.session);
		workspace_fail(e, EXIT_USAGE, 0, sn, "no such session");
		return WORKSPACE_ERR;
	}
	if (r != WORKSPACE_GOT)
		return r;
	if (workspace_same(x, e) < 0 ||
	    workspace_root(x, x->p.workspace, e) < 0)
		return WORKSPACE_ERR;
	if (changes_list(&x->s, x->rootfd, c, x->notes != NULL ?
	    x->notes->list : NULL, (void *)what) < 0) {
		workspace_fail(e, EXIT_USAGE, errno, ses_name(x, sn, sizeof sn),
		    NULL);
		return WORKSPACE_ERR;
	}
	return WORKSPACE_GOT;
}

int
workspace_select(struct workspace *x, struct changes *c, char **argv,
    size_t np, int *sel, struct workspace_err *e)
{
	char **paths;
	size_t i;
	long unmatched = -1;
	int r = 0;

	if ((paths = mem_calloc(np + 1, sizeof *paths)) == NULL)
		return workspace_fail(e, EXIT_USAGE, errno, "", NULL);
	for (i = 0; r == 0 && i < np; i++) {
		r = wsview_resolve(x->p.workspace, argv[i], &paths[i]);
		if (r < 0)
			workspace_fail(e, EXIT_REFUSED, errno, argv[i], NULL);
		else if (r > 0)
			workspace_fail(e, EXIT_REFUSED, 0, argv[i],
			    "outside the workspace");
	}
	if (r == 0 && plan_select(c, paths, np, sel, &unmatched) < 0)
		r = workspace_fail(e, EXIT_USAGE, errno, "", NULL);
	else if (r == 0 && unmatched >= 0)
		r = workspace_fail(e, EXIT_REFUSED, 0, argv[unmatched],
		    "no pending change there");
	for (i = 0; i < np; i++)
		mem_free(paths[i]);
	mem_free(paths);
	return r == 0 ? 0 : -1;
}

int
workspace_resolve(struct workspace *x, const char *path, int dry, char **rel,
    struct workspace_err *e)
{
	char *abs;
	int r, in_state;

	r = wsview_resolve(x->p.workspace, path, rel);
	if (r < 0) {
		workspace_fail(e, EXIT_REFUSED, errno, path, NULL);
		return -1;
	}
	if (!dry)
		return r;
	if (r == 1) {
		workspace_fail(e, EXIT_REFUSED, 0, path, "outside the "
		    "workspace %s; refused under dry run", x->p.workspace);
		return -1;
	}
	if (x->p.state == NULL)
		return r;
	if ((abs = path_join(x->p.workspace, *rel)) == NULL) {
		workspace_fail(e, EXIT_REFUSED, errno, path, NULL);
		return -1;
	}
	in_state = path_under(abs, x->p.state);
	mem_free(abs);
	if (in_state) {
		workspace_fail(e, EXIT_REFUSED, 0, path, "inside arcturn's "
		    "state dir; refused");
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
	const struct workspace_notes *notes;
	const char	*what;
	const struct roots *r;	/* the write check's roots, or NULL */
	const char	*ws;
	char		 path[PATH_MAX];
	size_t		 len;
	int		 cut;	/* levels beneath path not in it */
};

/* The sweep leaves name in place: the front end says so. */
static void
sweep_left(const char *name, void *arg)
{
	const struct sweep_at *a = arg;

	a->notes->left(a->what, a->path, a->len, a->cut, name);
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
	(void)fsx_sweep(rfd, a->notes != NULL && a->notes->left != NULL ?
	    sweep_left : NULL, a);
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
workspace_sweep(const struct workspace *x, const char *what)
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
	a.notes = x->notes;
	a.what = what;
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
