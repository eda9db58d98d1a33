/* review: the diff, the diffstat, the JSON listing and the digest. */
#include <sys/file.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "fixture.h"
#include "lib/hash.h"
#include "lib/mem.h"
#include "session/changes.h"
#include "session/conflict.h"
#include "session/review.h"
#include "session/session.h"
#include "session/shadow.h"
#include "tap.h"

/* What the renderers wrote; fail_at > 0 makes the nth call fail. */
struct buf {
	char	s[8192];
	size_t	len;
	int	calls;
	int	fail_at;
};

static int
out_buf(const void *p, size_t len, void *arg)
{
	struct buf *b = arg;

	if (++b->calls == b->fail_at) {
		errno = ENOSPC;
		return -1;
	}
	CHECK(b->len + len < sizeof b->s);
	memcpy(b->s + b->len, p, len);
	b->len += len;
	b->s[b->len] = '\0';
	return 0;
}

static struct change *
add(struct changes *c, const char *path, enum change_status st,
    enum shadow_kind ok, unsigned int om, enum shadow_kind nk,
    unsigned int nm)
{
	struct change *e;

	CHECK((c->v = realloc(c->v, (c->n + 1) * sizeof *c->v)) != NULL);
	e = &c->v[c->n++];
	memset(e, 0, sizeof *e);
	e->path = (char *)path;
	e->origin = (char *)path;
	e->status = st;
	e->old_kind = ok;
	e->old_mode = om;
	e->new_kind = nk;
	e->new_mode = nm;
	c->count++;
	return e;
}

/* A modified text file, a binary one, a new dir and a vanished file. */
static void
sample(struct changes *c)
{
	struct change *e;

	memset(c, 0, sizeof *c);
	e = add(c, "a.txt", CHANGE_MODIFIED, SHADOW_FILE, 0644, SHADOW_FILE,
	    0755);
	e->st.added = 3;
	e->st.removed = 1;
	e = add(c, "bin", CHANGE_MODIFIED, SHADOW_FILE, 0644, SHADOW_FILE,
	    0644);
	e->st.binary = 1;
	e->old_size = 10;
	e->new_size = 20;
	add(c, "d", CHANGE_MKDIR, SHADOW_ABSENT, 0, SHADOW_DIR, 0755);
	e = add(c, "gone", CHANGE_ADDED, SHADOW_ABSENT, 0, SHADOW_FILE, 0644);
	e->gone = 1;
}

static void
t_stat(void)
{
	struct changes c;
	struct buf b = { "", 0, 0, 0 };

	sample(&c);
	CHECK(review_stat(&c, 0, out_buf, &b) == 0);
	/* As git: counts padded to line up with "Bin", dirs not listed. */
	CHECK_STR(b.s,
	    " a.txt |   4 +++-\n"
	    " bin   | Bin 10 -> 20 bytes\n"
	    " 2 files changed, 3 insertions(+), 1 deletion(-)\n");
	memset(&b, 0, sizeof b);
	CHECK(review_stat(&c, 1, out_buf, &b) == 0);
	CHECK(strstr(b.s, " a.txt |   4 \033[32m+++\033[m\033[31m-\033[m\n")
	    != NULL);
	free(c.v);
}

static void
t_stat_scaled(void)
{
	struct changes c;
	struct buf b = { "", 0, 0, 0 };
	char want[256];
	struct change *e;

	memset(&c, 0, sizeof c);
	e = add(&c, "big", CHANGE_ADDED, SHADOW_ABSENT, 0, SHADOW_FILE, 0644);
	e->st.added = 200;
	CHECK(review_stat(&c, 0, out_buf, &b) == 0);
	/* 200 lines in a graph of 80 - 3 - 3 - 6 = 68 columns. */
	snprintf(want, sizeof want, " big | 200 %.68s\n"
	    " 1 file changed, 200 insertions(+)\n",
	    "++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++"
	    "++++++++++++++++++++");
	CHECK_STR(b.s, want);
	/* A name wider than 5/8 of the width is cut from the left. */
	memset(&b, 0, sizeof b);
	e->path = "a/very/long/directory/name/that/goes/on/and/on/and/on/"
	    "and/on/and/on/file.txt";
	e->st.added = 1;
	CHECK(review_stat(&c, 0, out_buf, &b) == 0);
	CHECK(strncmp(b.s, " ...", 4) == 0);
	CHECK(strstr(b.s, "on/file.txt | 1 +\n") != NULL);
	CHECK((size_t)(strstr(b.s, " | ") - b.s) == 1 + 80 * 5 / 8);
	free(c.v);
}

static void
t_stat_empty_and_deletions(void)
{
	struct changes c;
	struct buf b = { "", 0, 0, 0 };
	struct change *e;

	memset(&c, 0, sizeof c);
	e = add(&c, "x", CHANGE_DELETED, SHADOW_FILE, 0644, SHADOW_ABSENT, 0);
	e->st.removed = 2;
	CHECK(review_stat(&c, 0, out_buf, &b) == 0);
	CHECK_STR(b.s, " x | 2 --\n 1 file changed, 2 deletions(-)\n");
	free(c.v);
}

static void
t_stat_write_fails(void)
{
	struct changes c;
	struct buf b = { "", 0, 0, 0 };
	int n;

	static struct buf ref;

	sample(&c);
	/* the reference: no write fails */
	memset(&ref, 0, sizeof ref);
	CHECK(review_stat(&c, 0, out_buf, &ref) == 0);
	for (n = 1; n < 40; n++) {
		memset(&b, 0, sizeof b);
		b.fail_at = n;
		if (review_stat(&c, 0, out_buf, &b) == 0)
			break;
		CHECK(errno == ENOSPC);
	}
	CHECK(n > 3 && n < 40);		/* every write until the last failed */
	/* past the last write: what the reference wrote, whole */
	CHECK_STR(b.s, ref.s);
	free(c.v);
}

/* The document review_json fills, parsed back from one line of text. */
static cJSON *
json_of(const struct changes *c, const char *session, const char *digest)
{
	static cJSON_Hooks hooks = { mem_alloc, mem_free };
	cJSON *doc, *o;
	char *txt;

	cJSON_InitHooks(&hooks);
	CHECK((doc = cJSON_CreateObject()) != NULL);
	CHECK(review_json(doc, c, session, "/ws", digest) == 0);
	CHECK((txt = cJSON_PrintUnformatted(doc)) != NULL);
	CHECK(strchr(txt, '\n') == NULL);
	CHECK((o = cJSON_Parse(txt)) != NULL);
	mem_free(txt);
	cJSON_Delete(doc);
	return o;
}

static void
t_json(void)
{
	struct changes c;
	struct change *e;
	cJSON *o, *f, *x;

	sample(&c);
	/* a symlink is 120000 whatever its bits; a conflict says which */
	e = add(&c, "l", CHANGE_TYPE, SHADOW_FILE, 0600, SHADOW_SYMLINK,
	    0777);
	e->conflict = CONFLICT_CHANGED;
	e = add(&c, "p", CHANGE_ADDED, SHADOW_ABSENT, 0, SHADOW_FIFO, 0640);
	e->refuse = "why not";
	o = json_of(&c, "s1", "abc");
	CHECK_STR(cJSON_GetObjectItem(o, "session")->valuestring, "s1");
	CHECK_STR(cJSON_GetObjectItem(o, "workspace")->valuestring, "/ws");
	CHECK_STR(cJSON_GetObjectItem(o, "digest")->valuestring, "abc");
	CHECK(cJSON_GetObjectItem(o, "count")->valuedouble == 6);
	f = cJSON_GetObjectItem(o, "files");
	/* the vanished file is left out */
	CHECK(cJSON_GetArraySize(f) == 5);
	x = cJSON_GetArrayItem(f, 0);
	CHECK_STR(cJSON_GetObjectItem(x, "path")->valuestring, "a.txt");
	CHECK_STR(cJSON_GetObjectItem(x, "status")->valuestring, "modified");
	CHECK_STR(cJSON_GetObjectItem(x, "mode_before")->valuestring,
	    "100644");
	CHECK_STR(cJSON_GetObjectItem(x, "mode_after")->valuestring, "100755");
	CHECK(cJSON_GetObjectItem(x, "added")->valuedouble == 3);
	CHECK(cJSON_GetObjectItem(x, "removed")->valuedouble == 1);
	CHECK(cJSON_IsFalse(cJSON_GetObjectItem(x, "binary")));
	/* absent values are null, never left out */
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(x, "conflict")));
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(x, "refused")));
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(x, "link_to")));
	x = cJSON_GetArrayItem(f, 1);
	CHECK(cJSON_IsTrue(cJSON_GetObjectItem(x, "binary")));
	x = cJSON_GetArrayItem(f, 2);
	CHECK_STR(cJSON_GetObjectItem(x, "status")->valuestring, "dir-added");
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(x, "mode_before")));
	/* git's tree mode, whatever the directory's bits */
	CHECK_STR(cJSON_GetObjectItem(x, "mode_after")->valuestring, "040000");
	x = cJSON_GetArrayItem(f, 3);
	CHECK_STR(cJSON_GetObjectItem(x, "path")->valuestring, "l");
	CHECK_STR(cJSON_GetObjectItem(x, "mode_before")->valuestring,
	    "100644");
	CHECK_STR(cJSON_GetObjectItem(x, "mode_after")->valuestring, "120000");
	CHECK_STR(cJSON_GetObjectItem(x, "conflict")->valuestring,
	    "changed since capture");
	x = cJSON_GetArrayItem(f, 4);
	CHECK_STR(cJSON_GetObjectItem(x, "mode_after")->valuestring, "010640");
	CHECK_STR(cJSON_GetObjectItem(x, "refused")->valuestring, "why not");
	cJSON_Delete(o);
	/* no session, a part of the set: both null */
	o = json_of(&c, NULL, NULL);
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(o, "session")));
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(o, "digest")));
	cJSON_Delete(o);
	free(c.v);
}

static void
t_json_alloc_faults(void)
{
	static cJSON_Hooks hooks = { mem_alloc, mem_free };
	struct changes c;
	cJSON *doc;
	long n;
	int rc;

	char *ref, *got = NULL;

	sample(&c);
	cJSON_InitHooks(&hooks);
	/* the reference: the document built without a failure */
	CHECK((doc = cJSON_CreateObject()) != NULL);
	CHECK(review_json(doc, &c, "s1", "/ws", "abc") == 0);
	CHECK((ref = cJSON_PrintUnformatted(doc)) != NULL);
	cJSON_Delete(doc);
	for (n = 0; n < 200; n++) {
		CHECK((doc = cJSON_CreateObject()) != NULL);
		mem_fail_after(n);
		rc = review_json(doc, &c, "s1", "/ws", "abc");
		mem_fail_after(-1);
		if (rc == 0 && !mem_failed()) {
			CHECK((got = cJSON_PrintUnformatted(doc)) != NULL);
			cJSON_Delete(doc);
			break;
		}
		cJSON_Delete(doc);
		CHECK(rc == -1 && errno == ENOMEM);
	}
	CHECK(n > 0 && n < 200);
	CHECK(got != NULL && strcmp(got, ref) == 0);
	mem_free(got);
	mem_free(ref);
	free(c.v);
}

static void
t_empty_digest(void)
{
	struct changes c;
	struct buf b = { "", 0, 0, 0 };
	char hex[HASH_HEXLEN + 1];

	/* Nothing pending: no session is touched, nothing written. */
	memset(&c, 0, sizeof c);
	CHECK(review_diff(NULL, -1, &c, NULL, out_buf, &b, hex, NULL,
	    NULL) == 0);
	CHECK(b.len == 0);
	CHECK_STR(hex,
	    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void
t_diff_session(void)
{
	struct udiff_opts o = { 3, 200, 0, 0 };
	struct changes c;
	struct session s;
	struct buf b = { "", 0, 0, 0 };
	char top[PATH_MAX], state[PATH_MAX + 8], ws[PATH_MAX + 8];
	char h1[HASH_HEXLEN + 1], h2[HASH_HEXLEN + 1];
	int store, rootfd;

	fx_tmpdir(top, "review_test");
	snprintf(state, sizeof state, "%s/state", top);
	snprintf(ws, sizeof ws, "%s/ws", top);
	CHECK(mkdir(ws, 0755) == 0);
	CHECK((rootfd = open(ws, O_RDONLY | O_DIRECTORY)) >= 0);
	CHECK((store = session_store_open(state, 1)) >= 0);
	CHECK(session_open(store, "t", ws, &s) == 0);
	CHECK(session_lock(&s, LOCK_EX) == 0);
	fx_put(rootfd, "a", "1\n2\n3\n", 0644);
	CHECK(shadow_write(&s, rootfd, "a", "1\n2\nthree\n", 10, 0644,
	    0755) == 0);
	CHECK(shadow_write(&s, rootfd, "n/new", "x\n", 2, 0644, 0755) == 0);
	CHECK(changes_list(&s, rootfd, &c, NULL, NULL) == 0);
	CHECK(review_diff(&s, rootfd, &c, &o, out_buf, &b, h1, NULL,
	    NULL) == 0);
	CHECK_STR(b.s,
	    "diff --git a/a b/a\n"
	    "--- a/a\n"
	    "+++ b/a\n"
	    "@@ -1,3 +1,3 @@\n"
	    " 1\n"
	    " 2\n"
	    "-3\n"
	    "+three\n"
	    "diff --git a/n/new b/n/new\n"
	    "new file mode 100644\n"
	    "--- /dev/null\n"
	    "+++ b/n/new\n"
	    "@@ -0,0 +1 @@\n"
	    "+x\n");
	CHECK(c.v[0].st.added == 1 && c.v[0].st.removed == 1);
	/* The digest does not depend on what is shown, or whether. */
	o.cap = 1;
	o.color = 1;
	CHECK(review_diff(&s, rootfd, &c, &o, NULL, NULL, h2, NULL,
	    NULL) == 0);
	CHECK_STR(h1, h2);
	CHECK(review_diff(&s, rootfd, &c, NULL, NULL, NULL, h2, NULL,
	    NULL) == 0);
	CHECK_STR(h1, h2);
	/* A failed write stops the diff with the callback's errno. */
	memset(&b, 0, sizeof b);
	b.fail_at = 2;
	CHECK(review_diff(&s, rootfd, &c, &o, out_buf, &b, h2, NULL,
	    NULL) == -1 && errno == ENOSPC);
	changes_free(&c);
	session_close(&s);
	close(store);
	close(rootfd);
	fx_rm_rf(top);
}

int
main(void)
{
	TEST(t_stat);
	TEST(t_stat_scaled);
	TEST(t_stat_empty_and_deletions);
	TEST(t_stat_write_fails);
	TEST(t_json);
	TEST(t_json_alloc_faults);
	TEST(t_empty_digest);
	TEST(t_diff_session);
	return tap_done();
}
