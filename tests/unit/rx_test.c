/*
 * rx: the search_content matcher, against the C library's own POSIX
 * regex as the reference on every pattern and line of a table and on
 * random ones; its errors; and patterns that would make a backtracking
 * matcher take exponential time.
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mem.h"
#include "lib/rx.h"
#include "tap.h"

/* rx and regexec agree on pat (icase) and s; 0, else -1 and a line. */
static int
agree(const char *pat, int icase, const char *s)
{
	char err[128];
	struct rx *r;
	regex_t re;
	int want, got;

	if (regcomp(&re, pat, REG_EXTENDED | REG_NOSUB |
	    (icase ? REG_ICASE : 0)) != 0) {
		fprintf(stderr, "# the reference refuses %s\n", pat);
		return -1;
	}
	want = regexec(&re, s, 0, NULL, 0) == 0;
	regfree(&re);
	if ((r = rx_compile(pat, icase, err, sizeof err)) == NULL) {
		fprintf(stderr, "# rx refuses %s: %s\n", pat, err);
		return -1;
	}
	got = rx_search(r, s, strlen(s));
	rx_free(r);
	if (got != want) {
		fprintf(stderr, "# %s%s on \"%s\": rx %d, reference %d\n", pat,
		    icase ? " (icase)" : "", s, got, want);
		return -1;
	}
	return 0;
}

static void
t_table(void)
{
	static const char *const pats[] = {
		"", "a", "abc", "a.c", "^abc", "abc$", "^abc$", "^$", "a*",
		"ab*c", "ab+c", "ab?c", "a|b", "(ab|cd)e", "x(a|b)*y",
		"(a|)b", "[abc]", "[^abc]", "[a-c]+", "[]a]", "[a-]", "[^]a]",
		"[[:digit:]]+", "[[:alpha:]][[:alnum:]]*", "[[:space:]]",
		"[[:upper:]]", "\\.", "a\\*b", "\\(x\\)", "int (one|main)",
		"(a*)*b", "((a|b)*c)+d", "^(foo|bar)+$", "a.*b.*c", ".",
		"é", "[0-9]+\\.[0-9]*", "(^a|b$)", "x+y*z?",
	};
	static const char *const lines[] = {
		"", "a", "b", "abc", "abd", "xabcx", "ac", "abbbc", "aXc",
		"cde", "abe", "xy", "xababy", "b", "]", "-", "123.45", "int main;",
		"int one;", "int two", "foobarfoo", "aab", "ab", "bc", "ABC",
		"caf\xc3\xa9", "a*b", "(x)", " \t", "abcabcd", "xyz", "d",
	};
	size_t i, j;
	int bad = 0, icase;

	for (icase = 0; icase < 2; icase++)
		for (i = 0; i < sizeof pats / sizeof pats[0]; i++)
			for (j = 0; j < sizeof lines / sizeof lines[0]; j++)
				bad += agree(pats[i], icase, lines[j]) < 0;
	CHECK(bad == 0);
}

/* Random patterns of a few pieces over "ab", on random lines. */
static void
t_random(void)
{
	static const char *const piece[] = { "a", "b", ".", "[ab]", "[^a]",
	    "a*", "b+", "(a|b)", "(ab)?", "^", "$", "(a|b)*", "b?" };
	char pat[64], s[16];
	int k, n, m, bad = 0;

	srand(7);
	for (k = 0; k < 3000; k++) {
		pat[0] = '\0';
		for (n = rand() % 4 + 1; n > 0; n--)
			strcat(pat, piece[rand() % (sizeof piece /
			    sizeof piece[0])]);
		for (m = 0; m < rand() % 8; m++)
			s[m] = "ab"[rand() % 2];
		s[m] = '\0';
		bad += agree(pat, 0, s) < 0;
	}
	CHECK(bad == 0);
}

static void
t_errors(void)
{
	static const struct { const char *pat, *say; } c[] = {
		{ "(ab", "unmatched (" }, { "ab)", "unmatched )" },
		{ "[ab", "unterminated [ set" }, { "*a", "nothing to repeat" },
		{ "a{2}", "{m,n} repetition is not supported" },
		{ "a\\", "trailing backslash" },
		{ "(a)\\1", "back-references are not supported" },
		{ "[z-a]", "a range in a set runs backwards" },
		{ "[[:nope:]]", "unknown [:class:] in a set" },
	};
	char err[128];
	size_t i;

	for (i = 0; i < sizeof c / sizeof c[0]; i++) {
		err[0] = '\0';
		CHECK(rx_compile(c[i].pat, 0, err, sizeof err) == NULL);
		CHECK(errno == EINVAL);
		CHECK(strncmp(err, c[i].say, strlen(c[i].say)) == 0);
	}
}

/* What takes a backtracking matcher 2^n steps is one pass here. */
static void
t_no_blowup(void)
{
	char line[4097], err[64];
	struct rx *r;

	memset(line, 'a', sizeof line - 1);
	line[sizeof line - 1] = '\0';
	CHECK((r = rx_compile("(a*)*(a|a)*(a+)+b", 0, err, sizeof err)) !=
	    NULL);
	CHECK(rx_search(r, line, strlen(line)) == 0);
	line[4095] = 'b';
	CHECK(rx_search(r, line, strlen(line)) == 1);
	rx_free(r);
}

/* Out of memory at each allocation: NULL and ENOMEM, nothing leaked. */
static void
t_oom(void)
{
	char err[64];
	struct rx *r;
	long k;

	for (k = 0; k < 50; k++) {
		mem_fail_after(k);
		r = rx_compile("x(a|b)*[cd]+y", 1, err, sizeof err);
		mem_fail_after(-1);
		if (r != NULL) {
			CHECK(rx_search(r, "xabCy", 5) == 1);
			rx_free(r);
			break;
		}
		CHECK(errno == ENOMEM);
	}
	CHECK(k > 0 && k < 50);
}

int
main(void)
{
	tap_run("t_table", t_table);
	tap_run("t_random", t_random);
	tap_run("t_errors", t_errors);
	tap_run("t_no_blowup", t_no_blowup);
	tap_run("t_oom", t_oom);
	return tap_done();
}
