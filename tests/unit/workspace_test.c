/*
 * workspace: the session a command's flags select, opened, checked and
 * swept below the front ends; what it tells goes to the notes it is given,
 * what fails to a struct workspace_err, and nothing is printed.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "lib/exitcode.h"
#include "lib/mem.h"
#include "policy/config.h"
#include "session/workspace.h"
#include "tap.h"

static char top[PATH_MAX], ws[PATH_MAX + 8], other[PATH_MAX + 8];
static char state[PATH_MAX + 8];

/* What the notes heard. */
static int ncut, nleft;
static char heard[PATH_MAX + 64];

static void
on_cut(const char *what, const char *id)
{
	ncut++;
	snprintf(heard, sizeof heard, "%s %s", what, id);
}

static void
on_left(const char *what, const char *dir, size_t len, int cut,
    const char *name)
{
	nleft++;
	snprintf(heard, sizeof heard, "%s %.*s %d %s", what, (int)len, dir, cut,
	    name);
}

static const struct workspace_notes notes = {
	.cut = on_cut,
	.left = on_left
};

static void
fresh(void)
{
	char t[PATH_MAX];

	fx_tmpdir(t, "workspace_test");
	CHECK(realpath(t, top) != NULL);
	snprintf(ws, sizeof ws, "%s/ws", top);
	snprintf(other, sizeof other, "%s/other", top);
	snprintf(state, sizeof state, "%s/state", top);
	CHECK(mkdir(ws, 0755) == 0 && mkdir(other, 0755) == 0);
	(void)unsetenv(WORKSPACE_BUSY_ENV);
	ncut = nleft = 0;
	heard[0] = '\0';
}

/* x for workspace w, session id (NULL: the default), as dryrun_load does. */
static void
start(struct workspace *x, const char *w, const char *id,
    const struct workspace_notes *n)
{
	workspace_init(x, n);
	CHECK((x->p.workspace = mem_strdup(w)) != NULL);
	CHECK((x->p.state = mem_strdup(state)) != NULL);
	if (id != NULL)
		CHECK((x->p.session = mem_strdup(id)) != NULL);
	x->named = id != NULL;
	x->p.mode = MODE_OFF;
}

static void
t_none(void)
{
	struct workspace_err e = { 0 };
	struct workspace x;
	struct changes c;

	fresh();
	start(&x, ws, NULL, &notes);
	CHECK(workspace_open(&x, "diff", 0, LOCK_SH, &e) == WORKSPACE_NONE);
	CHECK(workspace_changes(&x, "diff", LOCK_SH, &c, &e) ==
	    WORKSPACE_NONE);
	workspace_done(&x);
	/* a session named and missing is an error */
	start(&x, ws, "t", &notes);
	CHECK(workspace_changes(&x, "diff", LOCK_SH, &c, &e) == WORKSPACE_ERR);
	CHECK(e.status == EXIT_USAGE && e.err == 0 && e.code == SAY_NONE);
	CHECK_STR(e.subject, "session t");
	CHECK_STR(e.reason, "no such session");
	/* and so is a name that is none */
	mem_free(x.p.session);
	CHECK((x.p.session = mem_strdup("Bad/id")) != NULL);
	CHECK(workspace_open(&x, "diff", 1, LOCK_EX, &e) == WORKSPACE_ERR);
	CHECK(e.status == EXIT_USAGE);
	CHECK_STR(e.subject, "session: Bad/id");
	workspace_done(&x);
	CHECK(ncut == 0 && nleft == 0);
	fx_rm_rf(top);
}

static void
t_open(void)
{
	struct workspace_err e = { 0 };
	struct workspace x, y;
	int fd;

	fresh();
	start(&x, ws, NULL, &notes);
	CHECK(workspace_open(&x, "write", 1, LOCK_EX, &e) == WORKSPACE_GOT);
	CHECK(x.open && !x.cut && x.id[0] != '\0');
	CHECK(workspace_same(&x, &e) == 0);
	CHECK(workspace_root(&x, ws, &e) == 0 && x.rootfd >= 0);
	/* a restart cut a run short: the session's mark says so */
	CHECK((fd = openat(x.s.dirfd, "interrupted", O_WRONLY | O_CREAT |
	    O_CLOEXEC, 0600)) >= 0);
	close(fd);
	workspace_done(&x);
	CHECK(ncut == 0);

	start(&y, ws, NULL, &notes);
	CHECK(workspace_open(&y, "diff", 0, LOCK_SH, &e) == WORKSPACE_GOT);
	CHECK(y.cut && ncut == 1);
	snprintf(x.id, sizeof x.id, "diff %s", y.id);
	CHECK_STR(heard, x.id);
	workspace_done(&y);
	/* without notes it is still known, and nothing is called */
	start(&y, ws, NULL, NULL);
	CHECK(workspace_open(&y, "diff", 0, LOCK_SH, &e) == WORKSPACE_GOT);
	CHECK(y.cut && ncut == 1);
	workspace_done(&y);
	fx_rm_rf(top);
}

static void
t_refused(void)
{
	struct workspace_err e = { 0 };
	struct workspace x, y;

	fresh();
	start(&x, ws, "mine", &notes);
	CHECK(workspace_open(&x, "write", 1, LOCK_EX, &e) == WORKSPACE_GOT);
	workspace_done(&x);
	/* a session of another workspace */
	start(&y, other, "mine", &notes);
	CHECK(workspace_open(&y, "diff", 0, LOCK_SH, &e) == WORKSPACE_GOT);
	CHECK(workspace_same(&y, &e) == -1);
	CHECK(e.status == EXIT_USAGE);
	CHECK_STR(e.subject, "session mine");
	CHECK(strstr(e.reason, "belongs to workspace") != NULL);
	workspace_done(&y);
	/* the session an exec --dry-run holds: busy, said as data */
	CHECK(setenv(WORKSPACE_BUSY_ENV, "mine", 1) == 0);
	start(&y, ws, "mine", &notes);
	CHECK(workspace_open(&y, "diff", 0, LOCK_SH, &e) == WORKSPACE_ERR);
	CHECK(e.status == EXIT_USAGE && e.code == SAY_BUSY && !y.open);
	CHECK_STR(y.id, "mine");
	workspace_done(&y);
	fx_rm_rf(top);
}

static void
t_resolve(void)
{
	struct workspace_err e = { 0 };
	struct workspace x;
	char *rel = NULL, path[PATH_MAX + 16];

	fresh();
	start(&x, ws, NULL, &notes);
	CHECK(workspace_resolve(&x, "a/b", 1, &rel, &e) == 0);
	CHECK_STR(rel, "a/b");
	mem_free(rel);
	rel = NULL;
	/* outside: fine without dry run, refused under it */
	CHECK(workspace_resolve(&x, other, 0, &rel, &e) == 1);
	CHECK_STR(rel, other);
	mem_free(rel);
	rel = NULL;
	CHECK(workspace_resolve(&x, other, 1, &rel, &e) == -1);
	CHECK(e.status == EXIT_REFUSED);
	CHECK_STR(e.subject, other);
	CHECK(strstr(e.reason, "refused under dry run") != NULL);
	mem_free(rel);
	rel = NULL;
	/* arcturn's state dir inside the workspace */
	mem_free(x.p.state);
	snprintf(path, sizeof path, "%s/.st", ws);
	CHECK((x.p.state = mem_strdup(path)) != NULL);
	CHECK(workspace_resolve(&x, ".st/x", 1, &rel, &e) == -1);
	CHECK(e.status == EXIT_REFUSED);
	CHECK(strstr(e.reason, "state dir") != NULL);
	mem_free(rel);
	workspace_done(&x);
	fx_rm_rf(top);
}

static void
t_sweep(void)
{
	static const char swp[] = ".arcturn-swp-0123456789abcdef-0001";
	struct workspace_err e = { 0 };
	struct workspace x;
	char want[PATH_MAX];

	fresh();
	start(&x, ws, NULL, &notes);
	CHECK(workspace_open(&x, "apply", 1, LOCK_EX, &e) == WORKSPACE_GOT);
	CHECK(workspace_root(&x, ws, &e) == 0);
	CHECK(mkdirat(x.s.upperfd, "a", 0755) == 0);
	fx_put(x.rootfd, "a/.arcturn-tmp-0123456789abcdef", "tmp", 0600);
	fx_put(x.rootfd, "a/keep", "k", 0644);
	/* a swap name holding another inode: maybe a user's only copy */
	snprintf(want, sizeof want, "a/%s", swp);
	fx_put(x.rootfd, want, "saved", 0644);
	workspace_sweep(&x, "apply");
	CHECK(!fx_exists(x.rootfd, "a/.arcturn-tmp-0123456789abcdef"));
	CHECK(fx_exists(x.rootfd, "a/keep"));
	snprintf(want, sizeof want, "a/%s", swp);
	CHECK(fx_exists(x.rootfd, want));
	CHECK(nleft == 1);
	snprintf(want, sizeof want, "apply a 0 %s", swp);
	CHECK_STR(heard, want);
	/* without notes: swept the same, nothing called */
	x.notes = NULL;
	workspace_sweep(&x, "apply");
	CHECK(nleft == 1);
	workspace_done(&x);
	fx_rm_rf(top);
}

int
main(void)
{
	TEST(t_none);
	TEST(t_open);
	TEST(t_refused);
	TEST(t_resolve);
	TEST(t_sweep);
	return tap_done();
}
