/*
 * path: "is under" by components, and the canonicaliser on a real tree
 * (existing prefixes, missing tails, "..", dangling links, a fake realpath)
 * with an allocation fault loop.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/mem.h"
#include "lib/path.h"
#include "tap.h"

static char base[PATH_MAX];

static void
cleanup(void)
{
	char cmd[PATH_MAX + 16];

	if (base[0] != '\0') {
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
		(void)!system(cmd);
	}
}

static void
fresh(void)
{
	char tmpl[] = "/tmp/path-test.XXXXXX", *b;

	CHECK(mkdtemp(tmpl) != NULL);
	CHECK((b = realpath(tmpl, NULL)) != NULL);
	snprintf(base, sizeof base, "%s", b);
	free(b);
	atexit(cleanup);
}

static const char *
at(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", base, rel);
	return buf[k];
}

/* path_canon, expecting success with want (relative to base) */
static void
canon_ok(const char *in, int flags, const char *want)
{
	char *out;

	CHECK(path_canon(in, flags, NULL, &out) == 0);
	CHECK_STR(out, want[0] == '/' ? want : at(want));
	mem_free(out);
}

static void
canon_err(const char *in, int flags, int e)
{
	char *out = (char *)1;

	CHECK(path_canon(in, flags, NULL, &out) == -1);
	CHECK(errno == e);
	CHECK(out == NULL);
}

static void
t_under(void)
{
	CHECK(path_under("/a/b", "/a/b"));
	CHECK(path_under("/a/b/c", "/a/b"));
	CHECK(!path_under("/a/bc", "/a/b"));
	CHECK(!path_under("/a", "/a/b"));
	CHECK(path_under("/anything", "/"));
	CHECK(path_under("/", "/"));
	CHECK(!path_under("rel", "/"));
	CHECK(path_under("a/b", ""));
	CHECK(!path_under("/a", ""));
	CHECK(path_under("a/b", "a"));
	CHECK(!path_under("ab", "a"));
	CHECK_STR(path_tail("/a/b/c", "/a/b"), "c");
	CHECK_STR(path_tail("/a/b", "/a/b"), "");
	CHECK_STR(path_tail("/x/y", "/"), "x/y");
	CHECK_STR(path_tail("a/b", "a"), "b");
	CHECK(path_tail("/a/bc", "/a/b") == NULL);
}

static void
t_join(void)
{
	char *s;

	CHECK((s = path_join("/a/", "b")) != NULL);
	CHECK_STR(s, "/a/b");
	mem_free(s);
	CHECK((s = path_join("/", "b")) != NULL);
	CHECK_STR(s, "/b");
	mem_free(s);
}

static void
t_canon(void)
{
	fresh();
	CHECK(mkdir(at("d"), 0755) == 0);
	CHECK(mkdir(at("d/e"), 0755) == 0);
	CHECK(symlink("d", at("in")) == 0);
	CHECK(symlink("/", at("out")) == 0);
	CHECK(symlink("nowhere", at("dangling")) == 0);
	CHECK(symlink("loop", at("loop")) == 0);

	canon_ok(at("d/e"), 0, "d/e");
	canon_ok(at("in/e"), 0, "d/e");
	canon_ok(at("out/etc"), 0, "/etc");
	/* missing tails */
	canon_ok(at("d/new"), 0, "d/new");
	canon_ok(at("d/new/deeper/"), 0, "d/new/deeper");
	canon_ok(at("in/./new"), 0, "d/new");
	canon_ok(at("in/new/./x"), 0, "d/new/x");
	/* ".." after a missing component: the kernel says ENOENT */
	canon_err(at("d/new/../e"), 0, ENOENT);
	canon_ok(at("d/new/../e"), PATH_LEXICAL, "d/e");
	canon_ok(at("d/new/../../x"), PATH_LEXICAL, "x");
	/* after the lexical "..", an existing symlink is followed again */
	canon_ok(at("new/../in/e/f"), PATH_LEXICAL, "d/e/f");
	canon_ok(at("new/../out/etc"), PATH_LEXICAL, "/etc");
	/* a link that leads nowhere */
	canon_err(at("dangling"), 0, ENOENT);
	canon_err(at("dangling/x"), 0, ENOENT);
	canon_ok(at("dangling"), PATH_LEXICAL, "dangling");
	canon_err(at("loop"), 0, ELOOP);
	canon_err("relative", 0, EINVAL);
	canon_err("", 0, EINVAL);
	canon_ok("/", 0, "/");
	canon_ok("/../..", 0, "/");
}

static void
t_long(void)
{
	char *p, *out;
	size_t i, n = PATH_MAX + 64;

	fresh();
	CHECK((p = malloc(n + 1)) != NULL);
	snprintf(p, n + 1, "%s/", base);
	for (i = strlen(p); i + 2 < n; i += 2)
		memcpy(p + i, "x/", 2);
	p[i] = '\0';
	CHECK(path_canon(p, 0, NULL, &out) == -1);
	CHECK(errno == ENAMETOOLONG);
	free(p);
}

/* macOS: /var -> /private/var, through the seam */
static char *
fake_realpath(const char *p, void *arg)
{
	(void)arg;
	if (strcmp(p, "/var") == 0 || strncmp(p, "/var/", 5) == 0) {
		if (strcmp(p, "/var/folders/x") == 0 || strcmp(p, "/var") == 0) {
			char buf[64];

			snprintf(buf, sizeof buf, "/private%s", p);
			return mem_strdup(buf);
		}
	}
	if (strcmp(p, "/") == 0)
		return mem_strdup("/");
	errno = ENOENT;
	return NULL;
}

static void
t_ops(void)
{
	struct path_ops ops = { fake_realpath, NULL, NULL };
	char *out;

	CHECK(path_canon("/var/folders/x/T/new", 0, &ops, &out) == 0);
	CHECK_STR(out, "/private/var/folders/x/T/new");
	mem_free(out);
	CHECK(path_canon("/var/folders/x", 0, &ops, &out) == 0);
	CHECK_STR(out, "/private/var/folders/x");
	mem_free(out);
}

/*
 * Another process makes the missing component right after realpath said
 * ENOENT (mkdir -p of 8 parallel writers' state dir): it is walked
 * again, not taken for a link that leads nowhere.
 */
static int made;

static char *
racing_realpath(const char *p, void *arg)
{
	(void)arg;
	if (made < 2 && strcmp(p, at("appears")) == 0) {
		CHECK(mkdir(p, 0755) == 0 || made > 0);
		made++;
		errno = ENOENT;
		return NULL;
	}
	return path_realpath(p, NULL);
}

static void
t_made_meanwhile(void)
{
	struct path_ops ops = { racing_realpath, NULL, NULL };
	char *out;

	fresh();
	CHECK(path_canon(at("appears/x"), 0, &ops, &out) == 0);
	CHECK_STR(out, at("appears/x"));
	CHECK(made == 2);	/* it was seen missing twice, then found */
	mem_free(out);
	/* a dangling link stays ENOENT */
	CHECK(symlink("nowhere", at("dangling")) == 0);
	CHECK(path_canon(at("dangling"), 0, &ops, &out) == -1);
	CHECK(errno == ENOENT);
}

/* A memo asks under once per path, answers and errno alike. */
static int asked;

static char *
counting_realpath(const char *p, void *arg)
{
	(void)arg;
	asked++;
	return fake_realpath(p, NULL);
}

static void
t_memo(void)
{
	struct path_ops under = { counting_realpath, NULL, NULL };
	struct path_memo m;
	char *out, *r;

	path_memo_init(&m, &under);
	asked = 0;
	CHECK(path_canon("/var/folders/x/T/new", 0, &m.ops, &out) == 0);
	CHECK_STR(out, "/private/var/folders/x/T/new");
	mem_free(out);
	CHECK(asked == 3);	/* .../new, .../T, /var/folders/x */
	CHECK(path_canon("/var/folders/x/T/new", 0, &m.ops, &out) == 0);
	CHECK_STR(out, "/private/var/folders/x/T/new");
	mem_free(out);
	CHECK(asked == 3);
	CHECK((r = path_realpath("/var/folders/x/T", &m.ops)) == NULL);
	CHECK(errno == ENOENT && asked == 3);
	/* forgotten: asked again */
	path_memo_forget(&m);
	CHECK((r = path_realpath("/var/folders/x", &m.ops)) != NULL);
	CHECK_STR(r, "/private/var/folders/x");
	mem_free(r);
	CHECK(asked == 4);
	path_memo_free(&m);
	path_memo_free(&m);	/* twice is harmless */
}

/*
 * The race of t_made_meanwhile through a memo: path_canon tells it that
 * "appears" changed (forget), so the next walk asks the system again
 * instead of taking the kept ENOENT until it gives up.
 */
static void
t_memo_made_meanwhile(void)
{
	struct path_ops under = { racing_realpath, NULL, NULL };
	struct path_memo m;
	char *out;

	fresh();
	made = 0;
	path_memo_init(&m, &under);
	CHECK(path_canon(at("appears/x"), 0, &m.ops, &out) == 0);
	CHECK_STR(out, at("appears/x"));
	CHECK(made == 2);
	mem_free(out);
	path_memo_free(&m);
}

/* The nth allocation fails, the memo's own among them: ENOMEM, clean. */
static void
t_memo_alloc_faults(void)
{
	struct path_ops under = { fake_realpath, NULL, NULL };
	struct path_memo m;
	char *out;
	long n;
	int rc;

	for (n = 0;; n++) {
		path_memo_init(&m, &under);
		mem_fail_after(n);
		/* twice: the second answer comes from the memo */
		if ((rc = path_canon("/var/folders/x/T/new", 0, &m.ops,
		    &out)) == 0) {
			mem_free(out);
			rc = path_canon("/var/folders/x/T/new", 0, &m.ops,
			    &out);
		}
		path_memo_free(&m);
		if (!mem_failed()) {
			CHECK(rc == 0);
			CHECK_STR(out, "/private/var/folders/x/T/new");
			mem_free(out);
			break;
		}
		CHECK(rc == -1 && errno == ENOMEM);
	}
	mem_fail_after(-1);
	CHECK(n > 5);
}

static void
t_alloc_faults(void)
{
	char *out;
	long n;
	int rc;

	fresh();
	CHECK(mkdir(at("d"), 0755) == 0);
	for (n = 0;; n++) {
		mem_fail_after(n);
		rc = path_canon(at("d/new/../x/y"), PATH_LEXICAL, NULL, &out);
		if (!mem_failed()) {
			CHECK(rc == 0);
			CHECK_STR(out, at("d/x/y"));
			mem_free(out);
			break;
		}
		CHECK(rc == -1 && errno == ENOMEM && out == NULL);
	}
	mem_fail_after(-1);
	CHECK(n > 2);
}

/* path_home: one expected result (NULL: EINVAL) */
static void
home_is(const char *s, const char *home, const char *want)
{
	char *got = path_home(s, home);

	if (want == NULL) {
		CHECK(got == NULL && errno == EINVAL);
		return;
	}
	CHECK_STR(got, want);
	mem_free(got);
}

static void
t_home(void)
{
	home_is("~", "/h/u", "/h/u");
	home_is("~/", "/h/u", "/h/u/");
	home_is("~/.npm", "/h/u", "/h/u/.npm");
	home_is("~/.npm", "/h/u/", "/h/u/.npm");
	home_is("$HOME", "/h/u", "/h/u");
	home_is("$HOME/.cache/pip", "/h/u", "/h/u/.cache/pip");
	home_is("${HOME}/go", "/h/u", "/h/u/go");
	home_is("${HOME}", "/h/u", "/h/u");
	home_is("~/x", "/", "/x");
	/* only a leading prefix, and only the caller's own home */
	home_is("/a/~/b", "/h/u", "/a/~/b");
	home_is("/a/$HOME", "/h/u", "/a/$HOME");
	home_is("rel/x", "/h/u", "rel/x");
	home_is("~other", "/h/u", NULL);
	home_is("~other/x", "/h/u", NULL);
	home_is("~~", "/h/u", NULL);
	home_is("$HOMEX", "/h/u", NULL);
	home_is("$USER/x", "/h/u", NULL);
	home_is("${HOME", "/h/u", NULL);
	home_is("${HOMER}/x", "/h/u", NULL);
}

int
main(void)
{
	TEST(t_home);
	TEST(t_under);
	TEST(t_join);
	TEST(t_canon);
	TEST(t_long);
	TEST(t_ops);
	TEST(t_made_meanwhile);
	TEST(t_memo);
	TEST(t_memo_made_meanwhile);
	TEST(t_memo_alloc_faults);
	TEST(t_alloc_faults);
	return tap_done();
}
