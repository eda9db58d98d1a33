/*
 * grants: the missing grants beneath home, made by exec (grants.h). Each
 * test runs in its own temp dir T, with T/home as the home directory.
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
#include "policy/grants.h"
#include "policy/strlist.h"
#include "tap.h"

static char T[PATH_MAX];

static const char *
tp(const char *rel)	/* T/rel, in a rotating buffer */
{
	static char bufs[8][PATH_MAX + 64];
	static int k;

	k = (k + 1) % 8;
	snprintf(bufs[k], sizeof bufs[k], "%s/%s", T, rel);
	return bufs[k];
}

static void
teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", T);
	(void)system(cmd);
}

static void
setup(struct policy *p)
{
	char tmpl[] = "/tmp/grants_test.XXXXXX";

	CHECK(mkdtemp(tmpl) != NULL);
	CHECK(realpath(tmpl, T) != NULL);
	atexit(teardown);
	CHECK(mkdir(tp("home"), 0755) == 0);
	memset(p, 0, sizeof *p);
	CHECK((p->home = mem_strdup(tp("home"))) != NULL);
}

static void
done(struct policy *p)
{
	strlist_free(&p->grants);
	strlist_free(&p->grants_new);
	mem_free(p->home);
}

static int
mode_of(const char *path)
{
	struct stat st;

	CHECK(lstat(path, &st) == 0 && S_ISDIR(st.st_mode));
	return (int)(st.st_mode & 07777);
}

static char notes[4096];

static void
note(const char *path, void *arg)
{
	(void)arg;
	strncat(notes, path, sizeof notes - strlen(notes) - 2);
	strcat(notes, "\n");
}

/* Made with its parents, each 0700 whatever the umask; then in grants. */
static void
t_make(void)
{
	struct policy p;
	char want[4 * PATH_MAX], err[PATH_MAX + 160];

	setup(&p);
	CHECK(mkdir(tp("home/.cache"), 0755) == 0);
	CHECK(chmod(tp("home/.cache"), 0755) == 0);
	umask(0277);	/* would make 0500 folders: not applied */
	CHECK(strlist_push(&p.grants, mem_strdup(tp("out"))) == 0);
	CHECK(strlist_push(&p.grants_new, mem_strdup(tp("home/.npm"))) == 0);
	CHECK(strlist_push(&p.grants_new,
	    mem_strdup(tp("home/.cache/pip/x"))) == 0);
	CHECK(grants_make(&p, note, NULL, err, sizeof err) == 0);
	CHECK(mode_of(tp("home/.npm")) == 0700);
	CHECK(mode_of(tp("home/.cache")) == 0755);	/* existing: left alone */
	CHECK(mode_of(tp("home/.cache/pip")) == 0700);
	CHECK(mode_of(tp("home/.cache/pip/x")) == 0700);
	CHECK(p.grants_new.n == 0);
	CHECK(p.grants.n == 3);
	CHECK_STR(p.grants.v[1], tp("home/.npm"));
	CHECK_STR(p.grants.v[2], tp("home/.cache/pip/x"));
	snprintf(want, sizeof want, "%s\n%s\n", tp("home/.npm"),
	    tp("home/.cache/pip/x"));
	CHECK_STR(notes, want);
	/* nothing new: nothing said */
	notes[0] = '\0';
	CHECK(strlist_push(&p.grants_new, mem_strdup(tp("home/.npm"))) == 0);
	CHECK(grants_make(&p, note, NULL, err, sizeof err) == 0);
	CHECK(p.grants.n == 3 && notes[0] == '\0');
	done(&p);
}

/* A symlink beneath home is never followed, a file is in the way. */
static void
t_refuse(void)
{
	struct policy p;
	struct stat st;
	char want[2 * PATH_MAX], err[PATH_MAX + 160];

	setup(&p);
	CHECK(mkdir(tp("elsewhere"), 0755) == 0);
	CHECK(symlink(tp("elsewhere"), tp("home/link")) == 0);
	CHECK(strlist_push(&p.grants_new, mem_strdup(tp("home/link/x"))) == 0);
	CHECK(grants_make(&p, note, NULL, err, sizeof err) == -1);
	CHECK(errno == ELOOP);
	CHECK(lstat(tp("elsewhere/x"), &st) == -1 && errno == ENOENT);
	snprintf(want, sizeof want, "grant: %s: %s (a symlink beneath home "
	    "is not followed; create the folder yourself)", tp("home/link/x"),
	    strerror(ELOOP));
	CHECK_STR(err, want);
	CHECK(p.grants.n == 0 && notes[0] == '\0');
	strlist_free(&p.grants_new);

	CHECK(close(creat(tp("home/file"), 0600)) == 0);
	CHECK(strlist_push(&p.grants_new, mem_strdup(tp("home/file/x"))) == 0);
	CHECK(grants_make(&p, note, NULL, err, sizeof err) == -1);
	CHECK(errno == ENOTDIR);
	snprintf(want, sizeof want, "grant: %s: Not a directory",
	    tp("home/file/x"));
	CHECK_STR(err, want);
	strlist_free(&p.grants_new);

	/* outside home: refused, not made */
	CHECK(strlist_push(&p.grants_new, mem_strdup(tp("other/x"))) == 0);
	CHECK(grants_make(&p, note, NULL, err, sizeof err) == -1);
	CHECK(errno == EINVAL);
	CHECK(lstat(tp("other"), &st) == -1);
	done(&p);
}

int
main(void)
{
	TEST(t_make);
	TEST(t_refuse);
	return tap_done();
}
