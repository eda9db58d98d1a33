/*
 * jsonfile: reading (missing, not regular, too large, NUL bytes), the
 * position index (exact offsets and subtree ends, escaped NULs, every
 * entry re-parsed by cJSON at its offset equals the tree's item, on
 * mutated texts too), line and column (BOM, CRLF, UTF-8 as bytes, the very
 * end), and allocation fault loops over valid and broken files.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/jsonfile.h"
#include "lib/mem.h"
#include "tap.h"

static char dir[PATH_MAX];
static char F[PATH_MAX];	/* the file under test */
static char E[1024];		/* err of the last read */

static void
cleanup(void)
{
	char cmd[PATH_MAX + 16];

	if (dir[0] != '\0') {
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		(void)!system(cmd);
	}
}

static void
fresh(void)
{
	char tmpl[] = "/tmp/jsonfile-test.XXXXXX", *b;

	CHECK(mkdtemp(tmpl) != NULL);
	CHECK((b = realpath(tmpl, NULL)) != NULL);
	snprintf(dir, sizeof dir, "%s", b);
	free(b);
	snprintf(F, sizeof F, "%s/f.json", dir);
	atexit(cleanup);
}

static void
put(const void *text, size_t len)
{
	FILE *f = fopen(F, "wb");

	CHECK(f != NULL);
	CHECK(fwrite(text, 1, len, f) == len);
	CHECK(fclose(f) == 0);
}

/* Read F holding text; the return value of jsonfile_read. */
static int
rd(struct jsonfile *jf, const char *text, size_t max)
{
	put(text, strlen(text));
	memset(E, 'x', sizeof E);
	E[sizeof E - 1] = '\0';
	return jsonfile_read(jf, F, max, E, sizeof E);
}

/* Expect text to be refused with `F:what`. */
static void
refused(const char *text, const char *what)
{
	struct jsonfile jf;
	char want[PATH_MAX + 256];

	CHECK(rd(&jf, text, 4096) == -1);
	CHECK(errno == EINVAL);
	CHECK(jf.root == NULL && jf.text == NULL && jf.at == NULL);
	snprintf(want, sizeof want, "%s:%s", F, what);
	CHECK_STR(E, want);
}

static void
t_read_errors(void)
{
	struct jsonfile jf;
	char want[PATH_MAX + 64], big[64];

	fresh();
	CHECK(jsonfile_read(&jf, F, 4096, E, sizeof E) == 0);
	CHECK(jf.text == NULL && jf.root == NULL);
	snprintf(want, sizeof want, "%s/nodir/x.json", dir);
	CHECK(jsonfile_read(&jf, want, 4096, E, sizeof E) == 0);
	put("{}", 2);
	snprintf(want, sizeof want, "%s/x.json", F);	/* a file as a dir */
	CHECK(jsonfile_read(&jf, want, 4096, E, sizeof E) == 0);

	CHECK(jsonfile_read(&jf, dir, 4096, E, sizeof E) == -1);
	CHECK(errno == EINVAL);
	snprintf(want, sizeof want, "%s: not a regular file", dir);
	CHECK_STR(E, want);

	memset(big, ' ', sizeof big);
	big[0] = '{';
	big[sizeof big - 1] = '}';
	put(big, sizeof big);
	CHECK(jsonfile_read(&jf, F, sizeof big - 1, E, sizeof E) == -1);
	CHECK(errno == EFBIG);
	snprintf(want, sizeof want, "%s: larger than %zu bytes", F,
	    sizeof big - 1);
	CHECK_STR(E, want);
	CHECK(jsonfile_read(&jf, F, sizeof big, E, sizeof E) == 1);
	CHECK(jf.len == sizeof big && cJSON_IsObject(jf.root));
	jsonfile_free(&jf);
	CHECK(jf.root == NULL && jf.text == NULL);
	jsonfile_free(&jf);		/* zeroed: harmless twice */

	put("{\"a\":\n \"b\0\"}", 12);
	CHECK(jsonfile_read(&jf, F, 4096, NULL, 0) == -1);	/* no err */
	CHECK(errno == EINVAL);
	CHECK(jsonfile_read(&jf, F, 4096, E, sizeof E) == -1);
	snprintf(want, sizeof want, "%s:2:4: unexpected NUL byte", F);
	CHECK_STR(E, want);
}

/* The index of a text with every kind of value, offset by offset. */
static void
t_index_exact(void)
{
	static const char text[] =
	    "{\"a\": [1, {\"b\": null}, []], \"c\": \"x\", \"d\": {}, \"e\": -2}";
	static const struct { size_t off, next; } want[] = {
		{ 0, 14 },	/* {  (the root) */
		{ 1, 2 },	/* "a" */
		{ 6, 8 },	/* [1, {...}, []] */
		{ 7, 4 },	/* 1 */
		{ 10, 7 },	/* {"b": null} */
		{ 11, 6 },	/* "b" */
		{ 16, 7 },	/* null */
		{ 23, 8 },	/* [] */
		{ 28, 9 },	/* "c" */
		{ 33, 10 },	/* "x" */
		{ 38, 11 },	/* "d" */
		{ 43, 12 },	/* {} */
		{ 47, 13 },	/* "e" */
		{ 52, 14 },	/* -2 */
	};
	struct jsonfile jf;
	size_t i;

	fresh();
	CHECK(rd(&jf, text, 4096) == 1);
	CHECK(jf.n == sizeof want / sizeof want[0]);
	for (i = 0; i < jf.n; i++) {
		if (jf.at[i].off != want[i].off || jf.at[i].next != want[i].next)
			fprintf(stderr, "# entry %zu: off %zu next %zu, want "
			    "%zu %zu\n", i, jf.at[i].off, jf.at[i].next,
			    want[i].off, want[i].next);
		CHECK(jf.at[i].off == want[i].off);
		CHECK(jf.at[i].next == want[i].next);
		CHECK(jf.at[i].nul == 0);
	}
	jsonfile_free(&jf);
}

static void
t_index_nul(void)
{
	struct jsonfile jf;
	static const int nul[] = { 0, 1, 0, 1, 1, 0, 0, 1, 0, 1 };
	size_t i;

	fresh();
	/* \u0000 and a \u with a non-hex digit are NULs to cJSON; an
	 * escaped backslash before u0000 is not an escape */
	CHECK(rd(&jf, "[\"\\u0000\", \"\\\\u0000\", \"a\\u00zz\", "
	    "\"\\uzzzz\", \"\\ud83d\\ude00\", \"\\u0041\", "
	    "{\"k\\u0000\": \"v\"}]", 4096) == 1);
	CHECK(jf.n == 10);
	/* entries: [ s s s s s s { key v ]: one flag per entry */
	CHECK(jf.at[0].nul == 0);
	for (i = 1; i < 7; i++) {
		if (jf.at[i].nul != nul[i])
			fprintf(stderr, "# entry %zu: nul %d\n", i, jf.at[i].nul);
		CHECK(jf.at[i].nul == nul[i]);
	}
	CHECK(jf.at[7].nul == 0);	/* the object */
	CHECK(jf.at[8].nul == 1);	/* its key */
	CHECK(jf.at[9].nul == 0);
	/* cJSON's C string stops at the NUL */
	CHECK_STR(cJSON_GetArrayItem(jf.root, 6)->child->string, "k");
	jsonfile_free(&jf);
}

/*
 * The oracle: every entry, parsed again by cJSON at its own offset, gives
 * the same item as the tree; every key, the same string. Returns the
 * entry after item's subtree, or (size_t)-1.
 */
static size_t
oracle(const struct jsonfile *jf, const cJSON *item, size_t i)
{
	const cJSON *c;
	cJSON *again;
	size_t me = i;
	int same;

	if (i >= jf->n)
		return (size_t)-1;
	again = cJSON_ParseWithOpts(jf->text + jf->at[i].off, NULL, 0);
	same = again != NULL && cJSON_Compare(again, item, 1);
	cJSON_Delete(again);
	if (!same) {
		fprintf(stderr, "# entry %zu at %zu: not the item\n", i,
		    jf->at[i].off);
		return (size_t)-1;
	}
	for (i++, c = item->child; c != NULL; c = c->next) {
		if (c->string != NULL) {
			if (i >= jf->n)
				return (size_t)-1;
			again = cJSON_ParseWithOpts(jf->text + jf->at[i].off,
			    NULL, 0);
			same = cJSON_IsString(again) &&
			    strcmp(again->valuestring, c->string) == 0;
			cJSON_Delete(again);
			if (!same || jf->at[i].next != i + 1)
				return (size_t)-1;
			i++;
		}
		if ((i = oracle(jf, c, i)) == (size_t)-1)
			return i;
	}
	return jf->at[me].next == i ? i : (size_t)-1;
}

static void
t_index_oracle(void)
{
	static const char *const base[] = {
		"{\"dryRun\": true, \"sandbox\": \"read-only\", \"x\": [1, -2.5e3,"
		    " 0.5E-2, \"a\\\"b\\\\c\\/\\u00e9\\ud83d\\ude00\\n\", true, false,"
		    " null, {\"y\": {}, \"z\": []}], \"network\": \"off\"}",
		"\xEF\xBB\xBF { \"protect\" : [ \"a\" , \"b/c\" ] ,\n\t\"k\":\"\\u12\"}",
		"{\"a\":[[[[{\"b\":[\"\\uD800\\uDC00\",\"\\uzzzz\"]}]]]],\"c\":-0}",
		"[[], [[]], {\"\": [{}, \"\"]}, \"\xc3\xa9\", 1e5, \"\\\\\"]",
	};
	static const char ins[] = "{}[]\",:\\u0123456789eE.+-tfnrl \n\x01\x7f\xc3";
	struct jsonfile jf;
	char text[512];
	unsigned long seed = 4242;
	size_t len, at;
	int i, m, rc, nok = 0, nerr = 0;

	fresh();
	for (i = 0; i < 3000; i++) {
		snprintf(text, sizeof text, "%s", base[i % 4]);
		len = strlen(text);
		for (m = 0; m < i % 4; m++) {
			seed = seed * 6364136223846793005UL + 1442695040888963407UL;
			at = (seed >> 33) % (len + 1);
			if ((seed >> 20) % 2 == 0 && at < len) {
				memmove(text + at, text + at + 1, len - at);
				len--;
			} else if (len + 2 < sizeof text) {
				memmove(text + at + 1, text + at, len - at + 1);
				text[at] = ins[(seed >> 40) % (sizeof ins - 1)];
				len++;
			}
		}
		rc = rd(&jf, text, 4096);
		if (rc != 1) {
			CHECK(rc == -1 && errno == EINVAL);
			if (strstr(E, ": invalid JSON") != NULL ||
			    strstr(E, ": internal:") != NULL) {
				fprintf(stderr, "# text: %s\n# err: %s\n", text, E);
				CHECK(0);
			}
			nerr++;
			continue;
		}
		nok++;
		if (oracle(&jf, jf.root, 0) != jf.n) {
			fprintf(stderr, "# text: %s\n", text);
			CHECK(0);
		}
		jsonfile_free(&jf);
	}
	CHECK(nok > 500 && nerr > 500);		/* both sides exercised */
}

static void
t_linecol(void)
{
	struct jsonfile jf;
	size_t line, col;

	fresh();
	/* a BOM does not count; after it, line 1 starts at byte 3 */
	CHECK(rd(&jf, "\xEF\xBB\xBF{\r\n\t\"\xc3\xa9\xf0\x9f\x98\x80\": 1}",
	    4096) == 1);
	jsonfile_linecol(&jf, 0, &line, &col);
	CHECK(line == 1 && col == 1);
	jsonfile_linecol(&jf, 3, &line, &col);		/* { */
	CHECK(line == 1 && col == 1);
	jsonfile_linecol(&jf, 4, &line, &col);		/* \r: still line 1 */
	CHECK(line == 1 && col == 2);
	jsonfile_linecol(&jf, 6, &line, &col);		/* the tab */
	CHECK(line == 2 && col == 1);
	CHECK(jf.at[1].off == 7);			/* the key */
	jsonfile_linecol(&jf, 7, &line, &col);
	CHECK(line == 2 && col == 2);
	/* é is two bytes, the emoji four: columns are bytes */
	CHECK(jf.at[2].off == 17);
	jsonfile_linecol(&jf, jf.at[2].off, &line, &col);
	CHECK(line == 2 && col == 12);
	jsonfile_linecol(&jf, jf.len, &line, &col);	/* the very end */
	CHECK(line == 2 && col == 14);
	jsonfile_linecol(&jf, jf.len + 100, &line, &col);
	CHECK(line == 2 && col == 14);
	jsonfile_free(&jf);

	/* a value that ends the file, without a newline */
	CHECK(rd(&jf, "\n\n7", 4096) == 1);
	CHECK(jf.n == 1 && jf.at[0].off == 2);
	jsonfile_linecol(&jf, jf.at[0].off, &line, &col);
	CHECK(line == 3 && col == 1);
	jsonfile_free(&jf);
}

static void
t_syntax_positions(void)
{
	fresh();
	refused("\xEF\xBB\xBF{\"a\" 1}", "1:6: expected ':', found '1'");
	refused("{\r\n\"a\":\r\n}", "3:1: expected a value, found '}'");
	refused("{\"\xc3\xa9\xf0\x9f\x98\x80\": tru}",
	    "1:12: expected a value, found 't'");
	refused("{\"a\": [[1, [2, [3 4]]]]}",
	    "1:19: expected ',' or ']', found '4'");
	refused("[[[[[[", "1:7: unexpected end of input");
	refused("{\"a\": [1, 2]", "1:13: unexpected end of input");
	refused("{\"a\": 1,}", "1:9: expected a string key, found '}'");
	refused("{\"a\": \"\\x\"}", "1:8: invalid escape in string");
	refused("[\"abc", "1:2: unterminated string");
	refused("{} {", "1:4: expected end of input, found '{'");
	refused("\xEF\xBB", "1:1: expected a value, found byte 0xef");
}

/* Every allocation of a read fails once: ENOMEM, nothing kept, no leak. */
static void
fault_loop(const char *text, int want)
{
	struct jsonfile jf;
	char ref[sizeof E], *want_doc = NULL, *got_doc;
	long n;
	int rc, failed;

	put(text, strlen(text));
	/* the reference: the same read without a failure */
	rc = jsonfile_read(&jf, F, 1 << 20, E, sizeof E);
	CHECK(rc == want);
	snprintf(ref, sizeof ref, "%s", E);
	if (rc >= 0)
		CHECK((want_doc = cJSON_PrintUnformatted(jf.root)) != NULL);
	jsonfile_free(&jf);
	for (n = 0; n < 10000; n++) {
		mem_fail_after(n);
		rc = jsonfile_read(&jf, F, 1 << 20, E, sizeof E);
		failed = mem_failed();
		mem_fail_after(-1);
		if (!failed)
			break;
		CHECK(rc == -1 && errno == ENOMEM);
		CHECK(jf.root == NULL && jf.text == NULL && jf.at == NULL);
		CHECK(strstr(E, "Cannot allocate memory") != NULL);
	}
	CHECK(n > 5);
	CHECK(rc == want);
	/* the read that got through gives the reference's tree or error */
	if (rc >= 0) {
		CHECK((got_doc = cJSON_PrintUnformatted(jf.root)) != NULL);
		CHECK_STR(got_doc, want_doc);
		cJSON_free(got_doc);
		cJSON_free(want_doc);
	} else
		CHECK_STR(E, ref);
	jsonfile_free(&jf);
}

static void
t_fault_loops(void)
{
	char big[8192];
	size_t i;

	fresh();
	/* more entries than the index's first allocation holds */
	strcpy(big, "{\"a\": [");
	for (i = 0; i < 100; i++)
		strcat(big, i ? ", [\"x\", {\"y\": null}]" : "[]");
	strcat(big, "]}");
	fault_loop(big, 1);
	fault_loop("{\"a\": [1, 2, {\"b\": \"c\"}], \"z\": }", -1);
}

int
main(void)
{
	TEST(t_read_errors);
	TEST(t_index_exact);
	TEST(t_index_nul);
	TEST(t_index_oracle);
	TEST(t_linecol);
	TEST(t_syntax_positions);
	TEST(t_fault_loops);
	return tap_done();
}
