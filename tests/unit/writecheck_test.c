/*
 * writecheck: policy_may_write on a real tree, against hostile layouts
 * (a symlinked folder into .git, one into .git/hooks, a folder swapped
 * after it was opened, "..", names that are no name, over-long names),
 * each with a control that shows the same question answered yes on a
 * harmless layout. The roots are filled by hand: the workspace writable,
 * .git/hooks and .git/config protected.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/mem.h"
#include "policy/roots.h"
#include "policy/strlist.h"
#include "policy/writecheck.h"
#include "tap.h"

static char ws[PATH_MAX];
static struct roots r;

static void
sh(const char *fmt, const char *arg)
{
	char cmd[PATH_MAX * 2];

	snprintf(cmd, sizeof cmd, fmt, arg, arg, arg, arg);
	CHECK(system(cmd) == 0);
}

static char *
at(const char *rel)
{
	static char buf[4][PATH_MAX + NAME_MAX + 8];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", ws, rel);
	return buf[k];
}

/* A workspace with .git/hooks, .git/config, a folder d and one other. */
static void
setup(void)
{
	char tmpl[] = "/tmp/writecheck-XXXXXX", *c;

	CHECK(mkdtemp(tmpl) != NULL);
	c = realpath(tmpl, NULL);
	CHECK(c != NULL);
	snprintf(ws, sizeof ws, "%s", c);
	free(c);
	sh("mkdir -p %s/.git/hooks %s/d %s/other && : >%s/.git/config", ws);
	memset(&r, 0, sizeof r);
	CHECK(strlist_push(&r.w, mem_strdup(ws)) == 0);
	CHECK(strlist_push(&r.p, mem_strdup(at(".git/hooks"))) == 0);
	CHECK(strlist_push(&r.p, mem_strdup(at(".git/config"))) == 0);
}

static void
teardown(void)
{
	sh("rm -rf %s", ws);
	roots_free(&r);
}

/* Open rel's folder as a writer that follows symlinks would. */
static int
opendir_follow(const char *rel)
{
	int fd = open(at(rel), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	CHECK(fd >= 0);
	return fd;
}

static int
ask(const char *lexrel, int fd, const char *name, struct policy_verdict *v)
{
	return policy_may_write(&r, at(lexrel), fd, name, v);
}

static void
t_control(void)
{
	struct policy_verdict v;
	int fd;

	setup();
	fd = opendir_follow("d");
	CHECK(ask("d/f", fd, "f", &v) == 0);
	CHECK(v.why == POLICY_OK);
	close(fd);
	teardown();
}

static void
t_lexical(void)
{
	struct policy_verdict v;
	int fd;

	setup();
	fd = opendir_follow(".git/hooks");
	CHECK(ask(".git/hooks/pre-commit", fd, "pre-commit", &v) < 0);
	CHECK(v.why == POLICY_DENIED && !v.canonical);
	CHECK(v.d.why == ROOTS_PROTECTED);
	CHECK_STR(policy_reason(&v), "protected path");
	close(fd);
	teardown();
}

/* cfg -> .git: the path as named is harmless, the folder is not. */
static void
t_symlink_into_git(void)
{
	struct policy_verdict v;
	int fd;

	setup();
	sh("ln -s .git %s/cfg", ws);
	fd = opendir_follow("cfg");
	CHECK(ask("cfg/config", fd, "config", &v) < 0);
	CHECK(v.why == POLICY_DENIED && v.canonical);
	CHECK(v.d.why == ROOTS_PROTECTED);
	CHECK_STR(v.d.entry, at(".git/config"));
	/* control: the same folder, another name in it */
	CHECK(ask("cfg/description", fd, "description", &v) == 0);
	close(fd);
	teardown();
}

/* h -> .git/hooks, and a control h2 -> other */
static void
t_symlink_into_hooks(void)
{
	struct policy_verdict v;
	int fd;

	setup();
	sh("ln -s .git/hooks %s/h && ln -s other %s/h2", ws);
	fd = opendir_follow("h");
	CHECK(ask("h/pre-commit", fd, "pre-commit", &v) < 0);
	CHECK(v.why == POLICY_DENIED && v.canonical);
	close(fd);
	fd = opendir_follow("h2");
	CHECK(ask("h2/pre-commit", fd, "pre-commit", &v) == 0);
	close(fd);
	teardown();
}

/*
 * d opened, then swapped for a symlink to .git/hooks (or a harmless
 * folder): the folder the path names is not the one held.
 */
static void
t_swapped(void)
{
	struct policy_verdict v;
	int fd;

	setup();
	fd = opendir_follow("d");
	sh("mv %s/d %s/d.real && ln -s .git/hooks %s/d", ws);
	CHECK(ask("d/pre-commit", fd, "pre-commit", &v) < 0);
	CHECK(v.why == POLICY_MOVED);
	close(fd);
	/* the other way round: opened as the symlink, then swapped back */
	fd = opendir_follow("d");
	sh("rm %s/d && mv %s/d.real %s/d", ws);
	CHECK(ask("d/pre-commit", fd, "pre-commit", &v) < 0);
	CHECK(v.why == POLICY_MOVED);
	close(fd);
	/* control: reopened, it is the one named */
	fd = opendir_follow("d");
	CHECK(ask("d/pre-commit", fd, "pre-commit", &v) == 0);
	close(fd);
	teardown();
}

static void
t_names(void)
{
	static const char *const bad[] = { "", ".", "..", "a/b" };
	struct policy_verdict v;
	char lex[PATH_MAX], longname[NAME_MAX + 2];
	size_t i;
	int fd;

	setup();
	fd = opendir_follow("d");
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(lex, sizeof lex, "d/%s", bad[i]);
		CHECK(ask(lex, fd, bad[i], &v) < 0);
		CHECK(v.why == POLICY_NAME);
	}
	/* ".." in the lexical path, a relative one, a name that differs */
	CHECK(ask("d/../.git/config", fd, "config", &v) < 0);
	CHECK(v.why == POLICY_NAME);
	CHECK(ask("d/./f", fd, "f", &v) < 0 && v.why == POLICY_NAME);
	CHECK(policy_may_write(&r, "d/f", fd, "f", &v) < 0 &&
	    v.why == POLICY_NAME);
	CHECK(ask("d/f", fd, "g", &v) < 0 && v.why == POLICY_NAME);
	/* NAME_MAX + 1 bytes: no name; NAME_MAX: the control */
	memset(longname, 'x', NAME_MAX + 1);
	longname[NAME_MAX + 1] = '\0';
	snprintf(lex, sizeof lex, "d/%s", longname);
	CHECK(ask(lex, fd, longname, &v) < 0 && v.why == POLICY_NAME);
	longname[NAME_MAX] = '\0';
	snprintf(lex, sizeof lex, "d/%s", longname);
	CHECK(ask(lex, fd, longname, &v) == 0);
	close(fd);
	teardown();
}

/* Outside the roots, named absolutely. */
static void
t_outside(void)
{
	struct policy_verdict v;
	int fd;

	setup();
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(fd >= 0);
	CHECK(policy_may_write(&r, "/x", fd, "x", &v) < 0);
	CHECK(v.why == POLICY_DENIED && v.d.why == ROOTS_OUTSIDE);
	CHECK_STR(policy_reason(&v), "outside the writable roots");
	close(fd);
	teardown();
}

int
main(void)
{
	TEST(t_control);
	TEST(t_lexical);
	TEST(t_symlink_into_git);
	TEST(t_symlink_into_hooks);
	TEST(t_swapped);
	TEST(t_names);
	TEST(t_outside);
	return tap_done();
}
