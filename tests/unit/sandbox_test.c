/*
 * sandbox: the rules every platform shares (sandbox_decide, with a fake
 * platform), and the one table of guarantees held against the two places
 * that show it: README's security table (a row naming each key) and
 * `arcturn sandbox status --json` (every key, in the table's order, for
 * every backend this machine can be told to use). Run from the
 * repository root (tests/run does), after `make tests` built build/arcturn.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "lib/mem.h"
#include "sandbox/sandbox.h"
#include "tap.h"

static void
t_table(void)
{
	int i, j;
	const char *k;

	for (i = 0; i < SANDBOX_NKEYS; i++) {
		k = sandbox_guarantees[i].key;
		CHECK(k != NULL && *k != '\0');
		CHECK(strspn(k, "abcdefghijklmnopqrstuvwxyz_") == strlen(k));
		CHECK(sandbox_guarantees[i].text != NULL &&
		    *sandbox_guarantees[i].text != '\0');
		for (j = 0; j < i; j++) {
			CHECK(strcmp(k, sandbox_guarantees[j].key) != 0);
			CHECK(strcmp(sandbox_guarantees[i].text,
			    sandbox_guarantees[j].text) != 0);
		}
	}
}

/* A platform of two backends, "a" (usable unless nota) and "none". */
static const char *const fake_names[] = { "a", "b", "none", NULL };
static int picked, nota;

static void
fake_pick(const struct policy *p, struct sandbox_choice *ch)
{
	size_t n = strlen(ch->why);

	picked++;
	if (ch->forced) {
		if (nota) {
			snprintf(ch->why + n, sizeof ch->why - n, ", but no");
			ch->backend = 2;
		}
		return;
	}
	snprintf(ch->why, sizeof ch->why, "a is here");
	ch->backend = nota ? 2 : 0;
}

static int ran;

static int
fake_run(const struct policy *p, const struct sandbox_choice *ch,
    char **argv, struct sandbox_end *end, char *err, size_t errlen)
{
	ran++;
	if (ran == 2) {
		/* a backend that waited says how the command ended */
		end->ran = 1;
		end->status = 128 + 15;
		end->sig = 15;
		return 125;
	}
	return 42;
}

static void
t_decide(void)
{
	static const struct sandbox_platform pf = { .names = fake_names,
	    .pick = fake_pick, .run = fake_run };
	char err[300], *argv[] = { "true", NULL };
	struct sandbox_choice ch;
	struct sandbox_end end;
	struct policy p;

	memset(&p, 0, sizeof p);
	p.mode = MODE_WORKSPACE_WRITE;
	p.backend = NULL;
	sandbox_decide(&p, &pf, &ch);
	CHECK(ch.verdict == SANDBOX_CONFINE && !ch.forced && picked == 1);
	CHECK_STR(ch.name, "a");
	CHECK_STR(ch.why, "a is here");
	nota = 1;
	sandbox_decide(&p, &pf, &ch);
	CHECK(ch.verdict == SANDBOX_NONE && ch.backend == 2);
	CHECK_STR(ch.name, "none");
	p.backend = "b";
	sandbox_decide(&p, &pf, &ch);
	CHECK(ch.verdict == SANDBOX_NONE && ch.forced);
	CHECK_STR(ch.why, "forced by ARCTURN_BACKEND=b, but no");
	nota = 0;
	sandbox_decide(&p, &pf, &ch);
	CHECK(ch.verdict == SANDBOX_CONFINE && ch.forced && ch.backend == 1);
	CHECK_STR(ch.name, "b");
	/* none needs no asking */
	picked = 0;
	p.backend = "none";
	sandbox_decide(&p, &pf, &ch);
	CHECK(ch.verdict == SANDBOX_NONE && ch.forced && picked == 0);
	CHECK_STR(ch.why, "forced by ARCTURN_BACKEND=none");
	p.backend = "c";
	sandbox_decide(&p, &pf, &ch);
	CHECK(ch.verdict == SANDBOX_BAD && picked == 0);
	CHECK_STR(ch.why, "ARCTURN_BACKEND=c: unknown backend (a, b, none)");
	/* which never runs: 125 and the reason */
	end.ran = 1;
	CHECK(sandbox_start(&pf, &p, &ch, argv, &end, err, sizeof err) == 125);
	CHECK(ran == 0);
	CHECK(!end.ran && end.status == 125 && end.sig == 0);
	CHECK_STR(err, ch.why);
	/* mode off first: ARCTURN_BACKEND is not even looked at */
	p.mode = MODE_OFF;
	sandbox_decide(&p, &pf, &ch);
	CHECK(ch.verdict == SANDBOX_OFF && picked == 0);
	/* every other verdict is the platform's to run */
	CHECK(sandbox_start(&pf, &p, &ch, argv, &end, err, sizeof err) == 42);
	CHECK(ran == 1);
	/* a backend that returns without waiting: it never started */
	CHECK(!end.ran && end.status == 42 && end.sig == 0);
	/* one that waited: its end stands beside exec's own status */
	CHECK(sandbox_start(&pf, &p, &ch, argv, &end, err, sizeof err) == 125);
	CHECK(end.ran && end.status == 143 && end.sig == 15);
	p.backend = NULL;
}

/*
 * How a child's end becomes the command's: a line and 125 to 127 mean it
 * never started; anything else, a signal included, is the command's.
 */
static void
t_end_from(void)
{
	static const struct {
		int	code, sig, said;
		int	ran, status, esig;
	} t[] = {
		{ 0, 0, 0,		1, 0, 0 },
		{ 3, 0, 1,		1, 3, 0 },	/* a finding, and 3 */
		{ 124, 0, 1,		1, 124, 0 },
		{ 125, 0, 1,		0, 125, 0 },
		{ 126, 0, 1,		0, 126, 0 },
		{ 127, 0, 1,		0, 127, 0 },
		{ 128, 0, 1,		1, 128, 0 },
		{ 125, 0, 0,		1, 125, 0 },	/* the command's own */
		{ 127, 0, 0,		1, 127, 0 },
		{ 143, 0, 0,		1, 143, 0 },	/* exit 143 ... */
		{ -1, 15, 0,		1, 143, 15 },	/* ... is no SIGTERM */
		{ -1, 9, 1,		1, 137, 9 },
		{ -1, 0, 0,		1, 125, 0 },	/* neither: ours */
	};
	struct sandbox_end e;
	size_t k;

	for (k = 0; k < sizeof t / sizeof t[0]; k++) {
		memset(&e, 0xff, sizeof e);
		sandbox_end_from(&e, t[k].code, t[k].sig, t[k].said);
		CHECK(e.ran == t[k].ran && e.status == t[k].status &&
		    e.sig == t[k].esig);
	}
}

/* Every guarantee reported on by this platform's probe, any backend. */
static void
t_probe_fills_all(void)
{
	static const char *const env[] = { "", "helper", "helper-landlock",
	    "bwrap", "none", "bogus" };
	struct sandbox_choice ch;
	struct sandbox_report r;
	struct policy p;
	size_t e;
	int i;

	memset(&p, 0, sizeof p);
	p.mode = MODE_WORKSPACE_WRITE;
	p.workspace = "/nonexistent/ws";
	p.state = "/nonexistent/state";
	p.tmpdir = "/tmp";
	for (e = 0; e < sizeof env / sizeof env[0]; e++) {
		p.backend = env[e][0] != '\0' ? env[e] : NULL;
		sandbox_choose(&p, &ch);
		sandbox_probe(&p, &ch, &r);
		for (i = 0; i < SANDBOX_NKEYS; i++) {
			if (!r.g[i].set)
				fprintf(stderr, "# %s: %s not reported\n",
				    env[e], sandbox_guarantees[i].key);
			CHECK(r.g[i].set && r.g[i].why[0] != '\0');
		}
	}
	p.backend = NULL;
}

static char *
slurp(FILE *f)
{
	size_t n = 0, cap = 0;
	char *s = NULL, *t;
	int c;

	while ((c = getc(f)) != EOF) {
		if (n + 2 > cap) {
			cap = cap ? 2 * cap : 4096;
			CHECK((t = realloc(s, cap)) != NULL);
			s = t;
		}
		s[n++] = (char)c;
	}
	if (s == NULL)
		CHECK((s = calloc(1, 1)) != NULL);
	s[n] = '\0';
	return s;
}

/*
 * README's security table: every row names exactly one key of the table,
 * as (`key`), and every key has a row.
 */
static void
t_readme(void)
{
	char *text, *sec, *line, *end, key[64];
	const char *k, *q;
	int rows[SANDBOX_NKEYS] = { 0 }, i, n, nrows = 0;
	FILE *f;

	if ((f = fopen("README.md", "r")) == NULL)
		SKIP("README.md not found (run from the repository root)");
	text = slurp(f);
	fclose(f);
	CHECK((sec = strstr(text, "\n## Security model\n")) != NULL);
	if ((end = strstr(sec + 1, "\n## ")) != NULL)
		end[1] = '\0';
	/* the first table of the section: its header, then "|---" */
	CHECK((line = strstr(sec, "\n|")) != NULL);
	line = strchr(line + 1, '\n') + 1;
	CHECK(strncmp(line, "|---", 4) == 0);
	for (line = strchr(line, '\n') + 1; *line == '|';
	    line = strchr(line, '\n') + 1) {
		*strchr(line, '\n') = '\0';
		nrows++;
		for (n = 0, q = line; (q = strstr(q, "(`")) != NULL; q += 2) {
			k = q + 2;
			if (strchr(k, '`') == NULL ||
			    strchr(k, '`') - k >= (long)sizeof key)
				continue;
			snprintf(key, sizeof key, "%.*s",
			    (int)(strchr(k, '`') - k), k);
			for (i = 0; i < SANDBOX_NKEYS; i++)
				if (strcmp(key, sandbox_guarantees[i].key) == 0) {
					rows[i]++;
					n++;
				}
		}
		if (n != 1)
			fprintf(stderr, "# README row names %d keys: %s\n", n,
			    line);
		CHECK(n == 1);
		line[strlen(line)] = '\n';
	}
	for (i = 0; i < SANDBOX_NKEYS; i++) {
		if (rows[i] != 1)
			fprintf(stderr, "# README: %d rows for %s\n", rows[i],
			    sandbox_guarantees[i].key);
		CHECK(rows[i] == 1);
	}
	CHECK(nrows == SANDBOX_NKEYS);
	free(text);
}

/*
 * The binary: `sandbox status --json` lists every key of the table, in
 * its order, whatever backend it is told to use.
 */
static void
t_status_json(void)
{
	static const char *const env[] = { "", "helper", "helper-landlock",
	    "bwrap", "none", "bogus" };
	char dir[] = "/tmp/sandbox_test.XXXXXX", cmd[2048], *out, *bin;
	cJSON *j, *g, *it;
	size_t e;
	int i;
	FILE *f;

	/* ARCTURN_BIN as tests/run names it for bats, else the build's */
	if ((bin = getenv("ARCTURN_BIN")) == NULL)
		bin = "build/arcturn";
	CHECK(access(bin, X_OK) == 0);
	CHECK((bin = realpath(bin, NULL)) != NULL);
	CHECK(mkdtemp(dir) != NULL);
	for (e = 0; e < sizeof env / sizeof env[0]; e++) {
		/* in a scratch home and workspace: no config of the user's */
		snprintf(cmd, sizeof cmd, "cd '%s' && HOME='%s' TMPDIR='%s' "
		    "ARCTURN_BACKEND='%s' '%s' sandbox status --json", dir,
		    dir, dir, env[e], bin);
		CHECK((f = popen(cmd, "r")) != NULL);
		out = slurp(f);
		CHECK(pclose(f) == 0);
		CHECK((j = cJSON_Parse(out)) != NULL);
		CHECK((g = cJSON_GetObjectItemCaseSensitive(j, "guarantees"))
		    != NULL && cJSON_IsObject(g));
		i = 0;
		cJSON_ArrayForEach(it, g) {
			CHECK(i < SANDBOX_NKEYS);
			CHECK_STR(it->string, sandbox_guarantees[i].key);
			CHECK(cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(it,
			    "holds")));
			CHECK(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(
			    it, "why")));
			i++;
		}
		CHECK(i == SANDBOX_NKEYS);
		cJSON_Delete(j);
		free(out);
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	free(bin);
}

int
main(void)
{
	TEST(t_table);
	TEST(t_decide);
	TEST(t_end_from);
	TEST(t_probe_fills_all);
	TEST(t_readme);
	TEST(t_status_json);
	return tap_done();
}
