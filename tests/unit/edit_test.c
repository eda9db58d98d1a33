/*
 * edit: the text replacement `arcturn edit` and MCP edit_file share.
 * Exactly one occurrence, or all; counted without overlaps; edits in
 * order, each on the text the one before made; bytes, NUL included;
 * which edit failed and why; allocation faults.
 */
#include <errno.h>
#include <string.h>

#include "lib/edit.h"
#include "lib/mem.h"
#include "tap.h"

#define ED(o, n, a)	{ o, sizeof o - 1, n, sizeof n - 1, a }

static void
t_one(void)
{
	struct edit e[] = { ED("two", "2", 0) };
	struct edit_result r;
	char *out, why[64];
	size_t len;

	CHECK(edit_apply("one two three", 13, e, 1, &out, &len, &r) == 0);
	CHECK(len == 11 && strcmp(out, "one 2 three") == 0 && r.count == 1);
	mem_free(out);
	e[0] = (struct edit)ED("zz", "y", 0);
	CHECK(edit_apply("one two", 7, e, 1, &out, &len, &r) == -1);
	CHECK(out == NULL && r.why == EDIT_NOT_FOUND && r.index == 0);
	CHECK_STR(edit_reason(&r, why, sizeof why), "old text not found");
	e[0] = (struct edit)ED("", "y", 0);
	CHECK(edit_apply("one", 3, e, 1, &out, &len, &r) == -1 &&
	    r.why == EDIT_EMPTY);
	CHECK_STR(edit_reason(&r, why, sizeof why), "old text is empty");
}

static void
t_many(void)
{
	struct edit e[] = { ED("x", "yy", 0) };
	struct edit_result r;
	char *out, why[64];
	size_t len;

	CHECK(edit_apply("x x x", 5, e, 1, &out, &len, &r) == -1);
	CHECK(r.why == EDIT_MANY && r.count == 3);
	CHECK_STR(edit_reason(&r, why, sizeof why), "old text found 3 times");
	e[0].all = 1;
	CHECK(edit_apply("x x x", 5, e, 1, &out, &len, &r) == 0);
	CHECK(strcmp(out, "yy yy yy") == 0 && len == 8 && r.count == 3);
	mem_free(out);
	/* without overlaps: "aa" is once in "aaa", twice in "aaaa" */
	e[0] = (struct edit)ED("aa", "b", 0);
	CHECK(edit_apply("aaa", 3, e, 1, &out, &len, &r) == 0);
	CHECK(strcmp(out, "ba") == 0);
	mem_free(out);
	CHECK(edit_apply("aaaa", 4, e, 1, &out, &len, &r) == -1 &&
	    r.count == 2);
	CHECK(edit_count("aaaa", 4, "aa", 2) == 2);
}

static void
t_order(void)
{
	/* the second edit sees what the first made; the third fails */
	struct edit e[] = { ED("one", "two", 0), ED("two two", "2", 0),
	    ED("nine", "9", 0) };
	struct edit_result r;
	char *out;
	size_t len;

	CHECK(edit_apply("one two", 7, e, 2, &out, &len, &r) == 0);
	CHECK(strcmp(out, "2") == 0 && r.count == 2);
	mem_free(out);
	CHECK(edit_apply("one two", 7, e, 3, &out, &len, &r) == -1);
	CHECK(out == NULL && r.why == EDIT_NOT_FOUND && r.index == 2);
	/* no edit: a copy */
	CHECK(edit_apply("a\0b", 3, e, 0, &out, &len, &r) == 0);
	CHECK(len == 3 && memcmp(out, "a\0b", 4) == 0);
	mem_free(out);
}

static void
t_bytes(void)
{
	struct edit e[] = { { "\0x", 2, "\0\0", 2, 0 } };
	struct edit_result r;
	char *out;
	size_t len;

	CHECK(edit_apply("a\0xb\0y", 6, e, 1, &out, &len, &r) == 0);
	CHECK(len == 6 && memcmp(out, "a\0\0b\0y", 7) == 0);
	mem_free(out);
}

/* Each allocation made to fail: -1, ENOMEM, nothing left allocated. */
static void
t_faults(void)
{
	struct edit e[] = { ED("a", "bb", 1), ED("bb", "c", 1),
	    ED("c", "dd", 1) };
	struct edit_result r;
	char *out;
	size_t len;
	long n;
	int rc;

	for (n = 0; n < 10; n++) {
		mem_fail_after(n);
		rc = edit_apply("a-a-a", 5, e, 3, &out, &len, &r);
		if (!mem_failed()) {
			mem_fail_after(-1);
			CHECK(rc == 0 && strcmp(out, "dd-dd-dd") == 0);
			mem_free(out);
			break;
		}
		mem_fail_after(-1);
		CHECK(rc == -1 && r.why == EDIT_ERRNO && errno == ENOMEM &&
		    out == NULL);
	}
	CHECK(n == 3);
}

int
main(void)
{
	TEST(t_one);
	TEST(t_many);
	TEST(t_order);
	TEST(t_bytes);
	TEST(t_faults);
	return tap_done();
}
