/*
 * gitconfig: a git config file's syntax, buffer in, entries out. The
 * expected values are what `git config -f FILE --get KEY` printed for the
 * same text (git 2.39); the lines git refuses (`fatal: bad config line`)
 * end the walk. Then a callback that fails, and an allocation fault loop.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/mem.h"
#include "policy/gitconfig.h"
#include "tap.h"

/* Every entry as "section|sub|key|value\n", in order. */
static char got[4096];
static int stop_at;		/* fail on this entry (1-based), 0: never */
static int nentries;

static int
collect(const char *section, int sub, const char *key, const char *value,
    void *arg)
{
	size_t n = strlen(got);

	(void)arg;
	if (++nentries == stop_at) {
		errno = EPERM;
		return -1;
	}
	snprintf(got + n, sizeof got - n, "%s|%d|%s|%s\n", section, sub, key,
	    value);
	return 0;
}

static int
parse(const char *text)
{
	got[0] = '\0';
	nentries = 0;
	return gitconfig_parse(text, collect, NULL);
}

static const char sample[] =
    "# a comment\n"
    "[Core]\n"
    "\tHooksPath = \"  a  b \" c  # comment\n"
    "\tWorktree = one\\\n"
    "two\n"
    "\tesc = x\\ty\\\"z\\\\w ; tail\n"
    "\tflag\n"
    "; another\n"
    "[includeIf \"gitdir:~/x/\"]\n"
    "\tpath = inc.cfg\n"
    "[section.Sub]\n"
    "\tkey = v\n"
    "[include]path=/abs\n";

static void
t_syntax(void)
{
	CHECK(parse(sample) == 0);
	CHECK_STR(got,
	    "core|0|hookspath|  a  b  c\n"
	    "core|0|worktree|onetwo\n"
	    "core|0|esc|x\ty\"z\\w\n"
	    "includeif|1|path|inc.cfg\n"
	    "section|1|key|v\n"
	    "include|0|path|/abs\n");
	CHECK(parse("") == 0 && got[0] == '\0');
	CHECK(parse("[core]\n\tx =\n") == 0);
	CHECK_STR(got, "core|0|x|\n");
}

/* git refuses the whole file; what came before the bad line is kept. */
static void
t_refused(void)
{
	static const char *const bad[] = {
		"[core]\n\tx = 1\n\t=bad\n\ty = 2\n",
		"[core]\n\tx = 1\n\ty = \"open\n\tz = 3\n",
		"[core]\n\tx = 1\n\ty = a\\qb\n\tz = 3\n",
		"[core]\n\tx = 1\n[bad\n\tz = 3\n",
		"[core]\n\tx = 1\n\t9key = 2\n",
		"[core]\n\tx = 1\n[]\n\tz = 3\n",
		"[core]\n\tx = 1\n\tk v\n",
	};
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK(parse(bad[i]) == 0);
		CHECK_STR(got, "core|0|x|1\n");
	}
}

/* Names and values longer than the buffers are cut, not overrun. */
static void
t_long(void)
{
	static char text[3 * GITCONFIG_VALUE];
	char want[GITCONFIG_VALUE + 256];
	size_t n;

	n = (size_t)snprintf(text, sizeof text, "[%0*d]\n\t%0*d = ",
	    GITCONFIG_NAME * 2, 0, GITCONFIG_KEY * 2, 0);
	memset(text + n, 'v', GITCONFIG_VALUE + 10);
	text[n + GITCONFIG_VALUE + 10] = '\0';
	/* section and key start with a digit: refused, nothing passed */
	CHECK(parse(text) == 0 && got[0] == '\0');
	n = (size_t)snprintf(text, sizeof text, "[s%0*d]\n\tk%0*d = ",
	    GITCONFIG_NAME * 2, 0, GITCONFIG_KEY * 2, 0);
	memset(text + n, 'v', GITCONFIG_VALUE + 10);
	text[n + GITCONFIG_VALUE + 10] = '\0';
	CHECK(parse(text) == 0);
	n = (size_t)snprintf(want, sizeof want, "s%0*d|0|k%0*d|",
	    GITCONFIG_NAME - 2, 0, GITCONFIG_KEY - 2, 0);
	memset(want + n, 'v', GITCONFIG_VALUE - 1);
	memcpy(want + n + GITCONFIG_VALUE - 1, "\n", 2);
	if (strlen(want) >= sizeof got)
		CHECK(strncmp(got, want, sizeof got - 1) == 0);
	else
		CHECK_STR(got, want);
}

/* A callback's -1 stops the walk at once, with its errno. */
static void
t_callback_fails(void)
{
	stop_at = 2;
	errno = 0;
	CHECK(parse(sample) == -1 && errno == EPERM);
	CHECK(nentries == 2);
	CHECK_STR(got, "core|0|hookspath|  a  b  c\n");
	stop_at = 0;
}

static void
t_alloc_faults(void)
{
	static char ref[sizeof got];
	long n;
	int rc;

	/* the reference: the entries of a parse without a failure */
	CHECK(parse(sample) == 0 && nentries > 0);
	memcpy(ref, got, sizeof ref);
	for (n = 0; n < 100; n++) {
		mem_fail_after(n);
		rc = parse(sample);
		if (!mem_failed()) {
			CHECK(rc == 0);
			CHECK_STR(got, ref);
			break;
		}
		CHECK(rc == -1 && errno == ENOMEM);
	}
	CHECK(n < 100);
}

int
main(void)
{
	TEST(t_syntax);
	TEST(t_refused);
	TEST(t_long);
	TEST(t_callback_fails);
	TEST(t_alloc_faults);
	return tap_done();
}
