/*
 * quote_cases: the argv vectors both quoting tests use (the Linux unit
 * test against a reference splitter, the Windows build under Wine against
 * the real CommandLineToArgvW). Deterministic: the same seed gives the
 * same vectors everywhere. Header-only, no allocation: a case is written
 * into a caller-provided struct.
 */
#ifndef ARCTURN_QUOTE_CASES_H
#define ARCTURN_QUOTE_CASES_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define QC_MAXARGS	8
#define QC_ARGLEN	96
#define QC_RANDOM	20000	/* generated vectors, after the fixed ones */

struct qc_case {
	int	 argc;
	char	 buf[QC_MAXARGS][QC_ARGLEN];
	char	*argv[QC_MAXARGS + 1];
};

/* Pieces an argument is made of: the characters the rules care about. */
static const char *const qc_pieces[] = {
	"a", "Z", "0", " ", "  ", "\t", "\"", "\"\"", "\\", "\\\\", "\\\\\\",
	"\\\"", "\\\\\"", "'", "\n", "\v", "=", "%", "^", "&", "|", "*", "?",
	"\xc3\xa9",			/* é: two bytes */
	"\xe6\x97\xa5",			/* 日: three bytes */
	"\xf0\x9f\x98\x80",		/* an emoji: a UTF-16 surrogate pair */
	"C:\\Program Files\\",
};
#define QC_NPIECES	(sizeof qc_pieces / sizeof qc_pieces[0])

/* Vectors every run checks first: the classic traps, by hand. */
static const char *const qc_fixed[][QC_MAXARGS + 1] = {
	{ "prog", NULL },
	{ "prog", "", NULL },
	{ "prog", "", "", NULL },
	{ "prog", "\\", NULL },
	{ "prog", "a\\", NULL },
	{ "prog", "a\\\\", NULL },
	{ "prog", "a b\\", NULL },
	{ "prog", "a b\\\\", NULL },
	{ "prog", "\\\"", NULL },
	{ "prog", "\\\\\"", NULL },
	{ "prog", "\"", NULL },
	{ "prog", "\"\"", NULL },
	{ "prog", "a\"b", NULL },
	{ "prog", "a\\\"b", NULL },
	{ "prog", "\\\\server\\share\\", NULL },
	{ "prog", "C:\\dir with space\\", "x", NULL },
	{ "prog", " ", "\t", NULL },
	{ "prog", "\xc3\xa9t\xc3\xa9", "\xf0\x9f\x98\x80 \\\"", NULL },
	{ "", "after empty argv0", NULL },
	{ "C:\\Program Files\\tool.exe", "a", NULL },
	{ "C:\\Program Files\\dir\\", "b", NULL },
	{ "C:\\a\\b.exe", "\\\\\\\"", NULL },
	{ "with\ttab", "x", NULL },
};
#define QC_NFIXED	(sizeof qc_fixed / sizeof qc_fixed[0])
#define QC_TOTAL	(QC_NFIXED + QC_RANDOM)

static uint32_t
qc_rand(uint32_t *s)
{
	uint32_t x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

static void
qc_fill(char *dst, uint32_t *seed, int prog)
{
	size_t len = 0, pl;
	int n = (int)(qc_rand(seed) % 7), i;
	const char *p;

	dst[0] = '\0';
	for (i = 0; i < n; i++) {
		p = qc_pieces[qc_rand(seed) % QC_NPIECES];
		if (prog && strchr(p, '"') != NULL)
			continue;	/* argv[0] cannot hold a quote */
		pl = strlen(p);
		if (len + pl >= QC_ARGLEN)
			break;
		memcpy(dst + len, p, pl + 1);
		len += pl;
	}
}

/* Case i (0 <= i < QC_TOTAL) into *c. */
static void
qc_get(size_t i, struct qc_case *c)
{
	uint32_t seed;
	int k;

	memset(c, 0, sizeof *c);
	if (i < QC_NFIXED) {
		for (k = 0; qc_fixed[i][k] != NULL; k++)
			snprintf(c->buf[k], QC_ARGLEN, "%s", qc_fixed[i][k]);
		c->argc = k;
	} else {
		seed = 2463534242u + (uint32_t)i * 2654435761u;
		qc_rand(&seed);
		c->argc = 1 + (int)(qc_rand(&seed) % QC_MAXARGS);
		for (k = 0; k < c->argc; k++)
			qc_fill(c->buf[k], &seed, k == 0);
	}
	for (k = 0; k < c->argc; k++)
		c->argv[k] = c->buf[k];
	c->argv[k] = NULL;
}

#endif
