/*
 * Windows command-line quoting, on Linux: every generated argv vector,
 * quoted by winquote and split again by a reference splitter written from
 * the documented CommandLineToArgvW rules, comes back unchanged. The same
 * vectors run against the real CommandLineToArgvW under Wine
 * (tests/wine/quote_roundtrip.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../wine/quote_cases.h"
#include "lib/mem.h"
#include "sandbox/winquote.h"
#include "tap.h"

/*
 * The documented rules: argv[0] up to a space or tab, or quoted up to the
 * next quote, literally. Then: 2n backslashes + '"' give n backslashes and
 * toggle quoting; 2n+1 backslashes + '"' give n backslashes and a literal
 * '"'; backslashes before anything else are literal; outside quotes a
 * space or tab ends the argument. Returns the count written to out.
 */
static int
split(const char *s, char out[][512], int max)
{
	int n = 0, inq;
	size_t k = 0, bs, i;

	if (*s == '"') {
		for (s++; *s != '\0' && *s != '"'; s++)
			out[n][k++] = *s;
		if (*s == '"')
			s++;
	} else {
		for (; *s != '\0' && *s != ' ' && *s != '\t'; s++)
			out[n][k++] = *s;
	}
	out[n++][k] = '\0';
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0' || n == max)
			return n;
		k = 0;
		inq = 0;
		while (*s != '\0' && (inq || (*s != ' ' && *s != '\t'))) {
			for (bs = 0; *s == '\\'; s++)
				bs++;
			if (*s == '"') {
				for (i = 0; i < bs / 2; i++)
					out[n][k++] = '\\';
				if (bs % 2 == 1)
					out[n][k++] = '"';
				else
					inq = !inq;
				s++;
			} else {
				for (i = 0; i < bs; i++)
					out[n][k++] = '\\';
				if (*s != '\0' && (inq || (*s != ' ' && *s != '\t')))
					out[n][k++] = *s++;
			}
		}
		out[n++][k] = '\0';
	}
}

static void
t_fixed_lines(void)
{
	static const struct {
		const char	*argv[4];
		const char	*line;
	} cases[] = {
		{ { "prog", NULL }, "prog" },
		{ { "prog", "", NULL }, "prog \"\"" },
		{ { "prog", "a b", NULL }, "prog \"a b\"" },
		{ { "prog", "a\\", NULL }, "prog a\\" },
		{ { "prog", "a b\\", NULL }, "prog \"a b\\\\\"" },
		{ { "prog", "a\"b", NULL }, "prog \"a\\\"b\"" },
		{ { "prog", "a\\\"b", NULL }, "prog \"a\\\\\\\"b\"" },
		{ { "prog", "\\\\server\\share", NULL }, "prog \\\\server\\share" },
		{ { "C:\\Program Files\\x.exe", "1", NULL },
		  "\"C:\\Program Files\\x.exe\" 1" },
		{ { "", "x", NULL }, "\"\" x" },
		{ { "C:\\dir with space\\", NULL }, "\"C:\\dir with space\\\"" },
	};
	size_t i;
	char *line;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		CHECK(winquote_cmdline((char *const *)cases[i].argv, &line) == 0);
		CHECK_STR(line, cases[i].line);
		mem_free(line);
	}
}

static void
t_roundtrip_generated(void)
{
	static char out[QC_MAXARGS + 2][512];
	struct qc_case c;
	size_t i;
	char *line;
	int n, k;

	for (i = 0; i < QC_TOTAL; i++) {
		qc_get(i, &c);
		CHECK(winquote_cmdline(c.argv, &line) == 0);
		n = split(line, out, QC_MAXARGS + 2);
		if (n != c.argc)
			fprintf(stderr, "# case %zu: %d args back, want %d: [%s]\n",
			    i, n, c.argc, line);
		CHECK(n == c.argc);
		for (k = 0; k < n; k++) {
			if (strcmp(out[k], c.argv[k]) != 0)
				fprintf(stderr, "# case %zu arg %d: [%s] != [%s] in [%s]\n",
				    i, k, out[k], c.argv[k], line);
			CHECK(strcmp(out[k], c.argv[k]) == 0);
		}
		mem_free(line);
	}
}

static void
t_refusals(void)
{
	char *line = (char *)1;
	char *quote0[] = { "a\"b", "x", NULL };
	char *none[] = { NULL };

	errno = 0;
	CHECK(winquote_cmdline(quote0, &line) == -1 && errno == EINVAL);
	CHECK(line == NULL);
	CHECK(winquote_cmdline(none, &line) == -1 && errno == EINVAL);
}

static void
t_alloc_fault(void)
{
	char *argv[] = { "prog", "a b", NULL }, *line;

	mem_fail_after(0);
	CHECK(winquote_cmdline(argv, &line) == -1 && errno == ENOMEM);
	CHECK(line == NULL);
	mem_fail_after(-1);
}

static void
t_batch(void)
{
	static const char *yes[] = {
		"x.bat", "x.cmd", "X.BAT", "x.Cmd", "C:\\dir\\build.bat",
		"C:/dir/build.cmd", "run.bat.", "run.bat. . ", "run.cmd  ",
		"run.bat::$DATA", "run.bat:stream", "C:run.bat", "dir.exe\\t.bat",
		".bat",
	};
	static const char *no[] = {
		"x.exe", "x.com", "x.bat.exe", "x.batx", "xbat", "bat", "C:\\a.bat\\x",
		"x.cmdx", "x.bta", "", "C:", "dir\\", "x.ba", "C:\\dir.bat\\tool.exe",
	};
	size_t i;

	for (i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		if (!winquote_is_batch(yes[i]))
			fprintf(stderr, "# not seen as batch: [%s]\n", yes[i]);
		CHECK(winquote_is_batch(yes[i]));
	}
	for (i = 0; i < sizeof no / sizeof no[0]; i++) {
		if (winquote_is_batch(no[i]))
			fprintf(stderr, "# seen as batch: [%s]\n", no[i]);
		CHECK(!winquote_is_batch(no[i]));
	}
}

int
main(void)
{
	TEST(t_fixed_lines);
	TEST(t_roundtrip_generated);
	TEST(t_refusals);
	TEST(t_alloc_fault);
	TEST(t_batch);
	return tap_done();
}
