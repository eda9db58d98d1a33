/*
 * fmt_test: the helper's own printf and strtol (landlock-helper/fmt.h)
 * against the C library's: every format the helper and userns_why use,
 * at the edges of each type, cut at every length; the text on stderr
 * byte for byte, long or short, errno kept; and strtol's answers (value,
 * end, ERANGE) for the inputs a number can come as.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "landlock-helper/fmt.h"
#include "tap.h"

/* Both ways, at every buffer length from 0 to past the end. */
#define SAME(...) do { \
	char want_[600], got_[600]; \
	int wn_, gn_; \
	size_t len_; \
	wn_ = snprintf(want_, sizeof want_, __VA_ARGS__); \
	for (len_ = 0; len_ <= (size_t)wn_ + 2; len_++) { \
		memset(got_, 'x', sizeof got_); \
		gn_ = fmt_buf(len_ ? got_ : NULL, len_, __VA_ARGS__); \
		CHECK(gn_ == wn_); \
		if (len_ > 0) { \
			snprintf(want_, len_, __VA_ARGS__); \
			CHECK_STR(got_, want_); \
		} \
		CHECK(got_[len_] == 'x'); \
	} \
} while (0)

static void
formats(void)
{
	static const int ints[] = { 0, 1, -1, 9, 10, 42, -42, 4096,
	    INT_MAX, INT_MIN };
	static const long longs[] = { 0, -1, 16384, LONG_MAX, LONG_MIN };
	static const unsigned uns[] = { 0, 1, 1000, 65534, UINT_MAX };
	char big[300];
	size_t i;

	memset(big, 'p', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	for (i = 0; i < sizeof ints / sizeof *ints; i++) {
		SAME("/proc/self/fdinfo/%d", ints[i]);
		SAME("/proc/%d/status", ints[i]);
		SAME("%d", ints[i]);
		SAME("%d%s%s", ints[i], "/", "name");
		SAME("%d%s%s", ints[i], "", "");
	}
	for (i = 0; i < sizeof uns / sizeof *uns; i++)
		SAME("%u %u 1", uns[i], uns[i]);
	for (i = 0; i < sizeof longs / sizeof *longs; i++) {
		SAME("(%s=%ld here); `sysctl -w %s=N`", "user.max", longs[i],
		    "user.max");
		SAME("%lu more", (unsigned long)longs[i]);
	}
	SAME("%s", "");
	SAME("%s", big);
	SAME("arcturn: %s%s: %s: %s\n", "", "mount layer", "/a b", "No such");
	SAME("100%% %s", "done");
	SAME("no conversion at all");
}

static void
others(void)
{
	char buf[64];
	const char *null = NULL;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
#pragma GCC diagnostic ignored "-Wformat-overflow"
	/* what it does not know is written out as it stands */
	CHECK(fmt_buf(buf, sizeof buf, "a%xb%lxc%ls", 1, 2L, "s") == 11);
	CHECK_STR(buf, "a%xb%lxc%ls");
	/* a NULL string, as musl prints it */
	CHECK(fmt_buf(buf, sizeof buf, "<%s>", null) == 8);
	CHECK_STR(buf, "<(null)>");
	CHECK(fmt_buf(buf, sizeof buf, "end%") == 3);
	CHECK_STR(buf, "end");
#pragma GCC diagnostic pop
}

/* What fmt_err writes on fd 2, read back through a pipe. */
static size_t
captured(char *out, size_t len, const char *path, int *e)
{
	int p[2], saved;
	ssize_t n;
	size_t got = 0;

	CHECK(pipe(p) == 0);
	saved = dup(2);
	CHECK(saved >= 0 && dup2(p[1], 2) == 2);
	close(p[1]);
	errno = 1234;
	fmt_err("arcturn: %s%s: %s: %s\n", "exec --dry-run: ", "open", path,
	    "Permission denied");
	*e = errno;
	CHECK(dup2(saved, 2) == 2);
	close(saved);
	while ((n = read(p[0], out + got, len - got)) > 0)
		got += (size_t)n;
	close(p[0]);
	return got;
}

static void
to_stderr(void)
{
	static char path[3000], want[4000], got[5000];
	size_t sizes[] = { 0, 1, 500, FMT_ERRBUF, 2999 }, i, n;
	int e;

	for (i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		memset(path, 'q', sizes[i]);
		path[sizes[i]] = '\0';
		snprintf(want, sizeof want, "arcturn: %s%s: %s: %s\n",
		    "exec --dry-run: ", "open", path, "Permission denied");
		n = captured(got, sizeof got, path, &e);
		CHECK(n == strlen(want));
		CHECK(memcmp(got, want, n) == 0);
		CHECK(e == 1234);
	}
}

static void
numbers(void)
{
	static const char *in[] = { "", " ", "0", "42", "  42", "\t\n\v\f\r7",
	    "+7", "-7", "-0", "+", "-", " -", "x1", "12abc", "007", "0x10",
	    "1 2", "9223372036854775807", "9223372036854775808",
	    "-9223372036854775808", "-9223372036854775809",
	    "99999999999999999999999", "-99999999999999999999999x",
	    "1048576", "2147483647\n", "65536\n" };
	char *wend, *gend;
	long w, g;
	int we, ge;
	size_t i;

	for (i = 0; i < sizeof in / sizeof *in; i++) {
		errno = 0;
		w = strtol(in[i], &wend, 10);
		we = errno;
		errno = 0;
		g = fmt_long(in[i], &gend);
		ge = errno;
		if (g != w || gend != wend || ge != we)
			fprintf(stderr, "# \"%s\": %ld %td %d, want %ld %td %d\n",
			    in[i], g, gend - in[i], ge, w, wend - in[i], we);
		CHECK(g == w && gend == wend && ge == we);
		CHECK(fmt_long(in[i], NULL) == w);
	}
}

int
main(void)
{
	TEST(formats);
	TEST(others);
	TEST(to_stderr);
	TEST(numbers);
	return tap_done();
}
