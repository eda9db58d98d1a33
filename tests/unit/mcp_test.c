/*
 * mcp_run (mcp.h) and utf8_clean (utf8.h): a child's stdin given, its stdout and
 * stderr captured and capped (the rest counted), its exit status and
 * signal, a deadline that kills its process group, a child that does not
 * read its input; UTF-8 checked strictly or replaced lossily; allocation
 * faults.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/mem.h"
#include "lib/utf8.h"
#include "mcp/mcp.h"
#include "tap.h"

static struct mcp_server srv = { .self = "/bin/sh" };

static int
sh(struct mcp_run *r, const char *script, const char *in, size_t cap,
    long timeout)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };

	memset(r, 0, sizeof *r);
	r->argv = argv;
	r->in = in;
	r->inlen = in != NULL ? strlen(in) : 0;
	r->cap = cap;
	r->timeout_ms = timeout;
	return mcp_run(&srv, r);
}

static void
t_capture(void)
{
	struct mcp_run r;

	CHECK(sh(&r, "cat; echo err >&2; exit 3", "in put\n", 100, 0) == 0);
	CHECK(r.status == 3 && r.sig == 0 && !r.timed_out);
	CHECK_STR(r.out, "in put\n");
	CHECK_STR(r.err, "err\n");
	CHECK(r.outlen == 7 && r.out_total == 7 && !r.out_trunc);
	mcp_run_free(&r);
	/* no stdin: the child reads EOF at once */
	CHECK(sh(&r, "cat; echo done", NULL, 100, 0) == 0);
	CHECK_STR(r.out, "done\n");
	mcp_run_free(&r);
}

static void
t_cap(void)
{
	struct mcp_run r;

	CHECK(sh(&r, "head -c 3000000 /dev/zero | tr '\\000' a; echo x >&2",
	    NULL, 1000, 0) == 0);
	CHECK(r.status == 0 && r.outlen == 1000 && r.out_trunc &&
	    r.out_total == 3000000 && strlen(r.out) == 1000);
	CHECK_STR(r.err, "x\n");
	CHECK(!r.err_trunc);
	mcp_run_free(&r);
}

static void
t_stdin_unread(void)
{
	static char big[1 << 20];
	struct mcp_run r;

	/* more than a pipe holds, and the child never reads it */
	memset(big, 'b', sizeof big - 1);
	alarm(20);
	CHECK(sh(&r, "exit 0", big, 100, 0) == 0);
	CHECK(r.status == 0);
	mcp_run_free(&r);
}

static void
t_timeout(void)
{
	struct mcp_run r;
	time_t t0 = time(NULL);

	alarm(20);
	/* SIGTERM first; the grandchild holds the pipes: the whole group
	   is killed */
	CHECK(sh(&r, "sleep 30 & sleep 30", NULL, 100, 200) == 0);
	CHECK(r.timed_out && r.sig == SIGTERM && r.status == -1);
	CHECK(time(NULL) - t0 < 10);
	mcp_run_free(&r);
	/* one that ignores SIGTERM: SIGKILL after MCP_STOP_MS twice */
	t0 = time(NULL);
	CHECK(sh(&r, "trap '' TERM; sleep 30", NULL, 100, 200) == 0);
	CHECK(r.timed_out && r.sig == SIGKILL && r.status == -1);
	CHECK(time(NULL) - t0 < 10);
	mcp_run_free(&r);
}

static void
t_signal(void)
{
	struct mcp_run r;

	CHECK(sh(&r, "kill -TERM $$", NULL, 100, 0) == 0);
	CHECK(r.sig == SIGTERM && r.status == -1 && !r.timed_out);
	mcp_run_free(&r);
}

static void
t_cannot_exec(void)
{
	struct mcp_server bad = { .self = "/nonexistent/arcturn" };
	char *argv[] = { "x", NULL };
	struct mcp_run r;

	memset(&r, 0, sizeof r);
	r.argv = argv;
	r.cap = 10;
	CHECK(mcp_run(&bad, &r) == 0 && r.status == 125);
	mcp_run_free(&r);
}

static void
t_utf8(void)
{
	char *s;

	CHECK_STR((s = utf8_clean("h\xc3\xa9llo \xf0\x9f\x98\x80", 11, 0)),
	    "h\xc3\xa9llo \xf0\x9f\x98\x80");
	mem_free(s);
	/* a NUL, a stray continuation byte, a cut sequence, an overlong
	   form, a surrogate: refused strictly, replaced lossily */
	CHECK(utf8_clean("a\0b", 3, 0) == NULL && errno == EILSEQ);
	CHECK(utf8_clean("\x80", 1, 0) == NULL && errno == EILSEQ);
	CHECK(utf8_clean("\xe2\x82", 2, 0) == NULL && errno == EILSEQ);
	CHECK(utf8_clean("\xc0\xaf", 2, 0) == NULL && errno == EILSEQ);
	CHECK(utf8_clean("\xed\xa0\x80", 3, 0) == NULL && errno == EILSEQ);
	CHECK_STR((s = utf8_clean("a\0b\x80", 4, 1)),
	    "a\xef\xbf\xbd" "b\xef\xbf\xbd");
	mem_free(s);
	CHECK_STR((s = utf8_clean("", 0, 0)), "");
	mem_free(s);
}

static void
t_faults(void)
{
	struct mcp_run r;
	char *s;
	int n;

	for (n = 0; n < 10; n++) {
		mem_fail_after(n);
		s = utf8_clean("abc", 3, 1);
		mem_fail_after(-1);
		if (s != NULL) {
			mem_free(s);
			break;
		}
		CHECK(errno == ENOMEM);
	}
	CHECK(n == 1);
	for (n = 0; n < 10; n++) {
		mem_fail_after(n);
		if (sh(&r, "echo ok", NULL, 10, 0) == 0) {
			mem_fail_after(-1);
			CHECK_STR(r.out, "ok\n");
			mcp_run_free(&r);
			break;
		}
		mem_fail_after(-1);
		CHECK(errno == ENOMEM && r.out == NULL && r.err == NULL);
	}
	CHECK(n == 2);
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);	/* as the server runs */
	TEST(t_capture);
	TEST(t_cap);
	TEST(t_stdin_unread);
	TEST(t_timeout);
	TEST(t_signal);
	TEST(t_cannot_exec);
	TEST(t_utf8);
	TEST(t_faults);
	return tap_done();
}
