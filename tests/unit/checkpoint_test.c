/*
 * checkpoint_test: the turn and blob store. Round trips (file, link,
 * absent, directory), shared blobs, the current turn, retention by count and by
 * bytes, damaged records, and fault loops over allocations and writes.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint/checkpoint.h"
#include "fixture.h"
#include "lib/fsx.h"
#include "lib/mem.h"
#include "tap.h"

#define ZEROS	"0000000000000000000000000000000000000000000000000000000000000000"

static char g_dir[PATH_MAX], g_state[PATH_MAX], g_ws[PATH_MAX];
static int g_root = -1;

static void
setup(void)
{
	fx_tmpdir(g_dir, "ckpt");
	snprintf(g_state, sizeof g_state, "%s/state", g_dir);
	snprintf(g_ws, sizeof g_ws, "%s/ws", g_dir);
	CHECK(mkdir(g_ws, 0755) == 0);
	CHECK((g_root = open(g_ws, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0);
}

static void
teardown(void)
{
	close(g_root);
	fx_rm_rf(g_dir);
}

static int
storefd(const char *sub)
{
	char p[PATH_MAX * 2];
	unsigned char d[HASH_LEN];
	char hex[HASH_HEXLEN + 1];

	hash_buf(g_ws, strlen(g_ws), d);
	hash_hex(d, hex);
	snprintf(p, sizeof p, "%s/checkpoints/%s/%s", g_state, hex, sub);
	return open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static int
count(const char *sub, const char *prefix)
{
	int fd = storefd(sub), n;

	CHECK(fd >= 0);
	n = fx_count(fd, ".", prefix);
	close(fd);
	return n;
}

/* One turn that snapshots rel and then writes text over it. */
static unsigned long
write_turn(struct ckpt *c, const char *rel, const char *text)
{
	struct ckpt_turn t;
	struct ckpt_entry *e;
	unsigned long id;

	CHECK(ckpt_for_write(c, &t) == 0);
	CHECK(ckpt_snapshot(c, &t, g_root, rel) >= 0);
	CHECK(ckpt_save(c, &t) == 0);
	fx_put(g_root, rel, text, 0644);
	CHECK((e = ckpt_find(&t, rel)) != NULL);
	CHECK(ckpt_state(c, g_root, rel, 0, &e->after) == 0);
	CHECK(ckpt_save(c, &t) == 0);
	id = t.id;
	ckpt_turn_clear(&t);
	return id;
}

static void
t_round_trip(void)
{
	struct ckpt_turn t, *l;
	struct ckpt *c;
	char hex[HASH_HEXLEN + 1], buf[64];
	size_t n;
	int bfd;

	setup();
	fx_put(g_root, "a.txt", "old a\n", 0640);
	CHECK(symlinkat("a.txt", g_root, "ln") == 0);
	CHECK(ckpt_open(g_state, g_ws, 1, LOCK_EX, NULL, &c) == 0);
	CHECK(ckpt_for_write(c, &t) == 0);
	CHECK(t.id == 1);
	CHECK(ckpt_snapshot(c, &t, g_root, "a.txt") == 1);
	CHECK(ckpt_snapshot(c, &t, g_root, "a.txt") == 0);
	CHECK(ckpt_snapshot(c, &t, g_root, "ln") == 1);
	CHECK(ckpt_snapshot(c, &t, g_root, "sub/new\nline") == 1);
	CHECK((t.label = mem_strdup("two\nlines")) != NULL);
	CHECK(ckpt_save(c, &t) == 0);
	ckpt_turn_clear(&t);
	CHECK(ckpt_list(c, &l, &n) == 0);
	/* the missing folder above the new file is recorded before it */
	CHECK(n == 1 && l[0].id == 1 && l[0].n == 4);
	CHECK_STR(l[0].label, "two\nlines");
	CHECK_STR(l[0].e[0].path, "a.txt");
	CHECK(l[0].e[0].before.kind == PSTATE_FILE);
	CHECK(l[0].e[0].before.mode == 0640);
	CHECK(l[0].e[1].before.kind == PSTATE_LINK);
	CHECK_STR(l[0].e[2].path, "sub");
	CHECK(l[0].e[2].before.kind == PSTATE_ABSENT);
	CHECK_STR(l[0].e[3].path, "sub/new\nline");
	CHECK(l[0].e[3].before.kind == PSTATE_ABSENT);
	/* the blobs hold the content and the link target */
	bfd = ckpt_blobs(c);
	hash_hex(l[0].e[0].before.sha, hex);
	CHECK(fx_read(bfd, hex, buf, sizeof buf) == 6);
	CHECK_STR(buf, "old a\n");
	hash_hex(l[0].e[1].before.sha, hex);
	CHECK(fx_read(bfd, hex, buf, sizeof buf) == 5);
	CHECK_STR(buf, "a.txt");
	ckpt_turns_free(l, n);
	ckpt_close(c);
	/* a second writer is a new turn; same content shares the blob */
	CHECK(ckpt_open(g_state, g_ws, 0, LOCK_EX, NULL, &c) == 0);
	CHECK(write_turn(c, "b.txt", "x") == 2);
	fx_put(g_root, "c.txt", "old a\n", 0600);
	CHECK(write_turn(c, "c.txt", "y") == 3);
	ckpt_close(c);
	CHECK(count("blobs", "") == 2);
	CHECK(count("turns", "") == 3);
	teardown();
}

static void
t_current_turn(void)
{
	struct ckpt_turn *l;
	struct ckpt *c;
	unsigned long id;
	size_t n;

	setup();
	CHECK(ckpt_open(g_state, g_ws, 0, LOCK_SH, NULL, &c) == -1);
	CHECK(errno == ENOENT);
	CHECK(ckpt_open(g_state, g_ws, 1, LOCK_EX, NULL, &c) == 0);
	CHECK(ckpt_turn_start(c, "first", &id) == 0 && id == 1);
	CHECK(write_turn(c, "a", "1") == 1);
	CHECK(write_turn(c, "b", "2") == 1);
	CHECK(write_turn(c, "a", "3") == 1);
	CHECK(ckpt_list(c, &l, &n) == 0);
	CHECK(n == 1 && l[0].n == 2);
	CHECK(l[0].e[0].before.kind == PSTATE_ABSENT);
	CHECK(l[0].e[0].after.kind == PSTATE_FILE);
	CHECK_STR(l[0].label, "first");
	ckpt_turns_free(l, n);
	CHECK(ckpt_turn_end(c) == 0);
	CHECK(write_turn(c, "a", "4") == 2);
	ckpt_close(c);
	teardown();
}

static void
t_retention(void)
{
	struct ckpt_limits lim = { 3, 0 };
	struct ckpt_turn *l;
	struct ckpt *c;
	char text[32];
	size_t n;
	int i;

	setup();
	CHECK(ckpt_open(g_state, g_ws, 1, LOCK_EX, &lim, &c) == 0);
	for (i = 0; i < 6; i++) {
		snprintf(text, sizeof text, "content %d\n", i);
		write_turn(c, "f", text);
	}
	CHECK(ckpt_list(c, &l, &n) == 0);
	CHECK(n == 3 && l[0].id == 4 && l[2].id == 6);
	ckpt_turns_free(l, n);
	/* the blobs of turns 1-3 (absent, content 0, 1) are gone */
	CHECK(count("blobs", "") == 3);
	ckpt_close(c);
	teardown();
}

static void
t_maxbytes(void)
{
	struct ckpt_limits lim = { 100, 250 };
	struct ckpt_turn *l;
	struct ckpt *c;
	char text[128];
	size_t n;
	int i;

	setup();
	CHECK(ckpt_open(g_state, g_ws, 1, LOCK_EX, &lim, &c) == 0);
	for (i = 0; i < 5; i++) {
		memset(text, 'a' + i, 100);
		text[100] = '\0';
		fx_put(g_root, "g", text, 0644);
		write_turn(c, "g", "next");
	}
	/* each turn keeps one 100-byte blob: two fit in 250 */
	CHECK(ckpt_list(c, &l, &n) == 0);
	CHECK(n == 2 && l[0].id == 4 && l[1].id == 5);
	ckpt_turns_free(l, n);
	CHECK(count("blobs", "") == 2);
	ckpt_close(c);
	teardown();
}

static void
t_damaged(void)
{
	static const char *bad[] = {
		"", "arcturn-turn 1\n", "arcturn-turn 1\nid 1\ntime 5\n",
		"arcturn-turn 1\nid 1\ntime 5\nlabel 3\nab\npaths 0\nend\n",
		"arcturn-turn 1\nid 1\ntime 5\nlabel 0\n\npaths 1\nfile 644 "
		    "00 absent 0 00 1\na\nend\n",
		"arcturn-turn 1\nid 2\ntime 5\nlabel 0\n\npaths 0\nend\n",
	};
	struct ckpt_turn *l, u;
	struct ckpt *c;
	size_t i, n;
	int tfd;

	setup();
	CHECK(ckpt_open(g_state, g_ws, 1, LOCK_EX, NULL, &c) == 0);
	ckpt_close(c);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK((tfd = storefd("turns")) >= 0);
		fx_put(tfd, "0000000001", bad[i], 0600);
		close(tfd);
		/* listed as damaged, with no paths, not an error */
		CHECK(ckpt_open(g_state, g_ws, 0, LOCK_SH, NULL, &c) == 0);
		CHECK(ckpt_list(c, &l, &n) == 0);
		CHECK(n == 1 && l[0].id == 1 && l[0].n == 0);
		CHECK(l[0].damaged == CKPT_CORRUPT ||
		    l[0].damaged == CKPT_TRUNCATED);
		CHECK(ckpt_load(c, 1, &u) == -1 && errno == EBADMSG);
		ckpt_turns_free(l, n);
		ckpt_close(c);
	}
	teardown();
}

/* A directory's state is its kind and mode; it round-trips; "other" never. */
static void
t_dir(void)
{
	static const char other[] = "arcturn-turn 1\nid 1\ntime 5\nlabel 0\n\n"
	    "paths 1\nother 644 " ZEROS " absent 0 " ZEROS " 1\na\nend\n";
	struct pstate d, a;
	struct ckpt_turn t, u;
	struct ckpt *c;
	char *buf;
	size_t len;

	setup();
	CHECK(mkdirat(g_root, "d", 0750) == 0);
	CHECK(fchmodat(g_root, "d", 0750, 0) == 0);
	CHECK(ckpt_open(g_state, g_ws, 1, LOCK_EX, NULL, &c) == 0);
	CHECK(ckpt_state(c, g_root, "d", 1, &d) == 0);
	CHECK(d.kind == PSTATE_DIR && d.mode == 0750);
	CHECK(strcmp(pstate_kind_name(d.kind), "dir") == 0);
	/* write's snapshot takes no directory */
	memset(&t, 0, sizeof t);
	t.id = 1;
	CHECK(ckpt_snapshot(c, &t, g_root, "d") == -1 && errno == EINVAL);
	memset(&a, 0, sizeof a);
	a.kind = PSTATE_ABSENT;
	CHECK(ckpt_add(&t, "d", &d, &a) == 0);
	CHECK(ckpt_format(&t, &buf, &len) == 0);
	CHECK(ckpt_parse(buf, len, &u) == 0);
	CHECK(u.n == 1 && u.e[0].before.kind == PSTATE_DIR &&
	    u.e[0].before.mode == 0750 && u.e[0].after.kind == PSTATE_ABSENT);
	mem_free(buf);
	ckpt_turn_clear(&u);
	ckpt_turn_clear(&t);
	CHECK(ckpt_parse(other, sizeof other - 1, &u) == -1 &&
	    errno == EBADMSG);
	ckpt_close(c);
	teardown();
}

/* Append text to the turns/ file name (made if missing). */
static void
append_turns(const char *name, const char *text, size_t len)
{
	int dfd = storefd("turns"), fd;

	CHECK(dfd >= 0);
	CHECK((fd = openat(dfd, name, O_WRONLY | O_APPEND | O_CREAT |
	    O_CLOEXEC, 0600)) >= 0);
	CHECK(write(fd, text, len) == (ssize_t)len);
	close(fd);
	close(dfd);
}

static int
turns_has(const char *name)
{
	int dfd = storefd("turns"), rc;
	struct stat st;

	CHECK(dfd >= 0);
	rc = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
	close(dfd);
	return rc;
}

/*
 * The .after log: a write's new state is appended, not fsynced; loading
 * applies whole entries up to a torn or foreign tail; saving the record
 * folds the log in and removes it; retention drops it with its record.
 */
static void
t_after_log(void)
{
	static const char torn[] = "after file 644 abc";
	struct pstate now;
	struct ckpt_turn t, u;
	struct ckpt *c;
	struct ckpt_limits lim = { 1, 0 };
	char big[4096];
	size_t i;

	setup();
	fx_put(g_root, "a", "old\n", 0644);
	CHECK(ckpt_open(g_state, g_ws, 1, LOCK_EX, NULL, &c) == 0);
	CHECK(ckpt_for_write(c, &t) == 0);
	CHECK(ckpt_snapshot(c, &t, g_root, "sub/deep/new") == 1);
	CHECK(ckpt_snapshot(c, &t, g_root, "a") == 1);
	CHECK(ckpt_save(c, &t) == 0);
	fx_put(g_root, "a", "new\n", 0600);
	CHECK(mkdirat(g_root, "sub", 0755) == 0);
	CHECK(mkdirat(g_root, "sub/deep", 0700) == 0);
	fx_put(g_root, "sub/deep/new", "n", 0644);
	CHECK(ckpt_settle(c, &t, g_root, "a") == 0);
	CHECK(ckpt_note_after(c, &t, "a") == 0);
	CHECK(ckpt_settle(c, &t, g_root, "sub/deep/new") == 0);
	CHECK(ckpt_note_after(c, &t, "sub/deep/new") == 0);
	CHECK(turns_has("0000000001.after"));
	/* the record still says after = before; the log says the rest */
	CHECK(ckpt_load(c, t.id, &u) == 0);
	CHECK(ckpt_state(c, g_root, "a", 0, &now) == 0);
	CHECK(memcmp(&ckpt_find(&u, "a")->after, &now, sizeof now) == 0);
	CHECK(ckpt_find(&u, "a")->after.mode == 0600);
	CHECK(ckpt_find(&u, "sub")->after.kind == PSTATE_DIR);
	CHECK(ckpt_find(&u, "sub/deep")->after.mode == 0700);
	CHECK(ckpt_find(&u, "sub/deep/new")->after.kind == PSTATE_FILE);
	ckpt_turn_clear(&u);
	/* a torn tail and what follows it are left out, the rest holds */
	append_turns("0000000001.after", torn, sizeof torn - 1);
	append_turns("0000000001.after", "after absent 0 " ZEROS " 1\na\n",
	    strlen("after absent 0 " ZEROS " 1\na\n"));
	CHECK(ckpt_load(c, t.id, &u) == 0);
	CHECK(ckpt_find(&u, "a")->after.kind == PSTATE_FILE);
	CHECK(ckpt_find(&u, "a")->after.mode == 0600);
	ckpt_turn_clear(&u);
	/* saving the record folds the log in and removes it */
	CHECK(ckpt_save(c, &t) == 0);
	CHECK(!turns_has("0000000001.after"));
	CHECK(ckpt_load(c, t.id, &u) == 0);
	CHECK(ckpt_find(&u, "a")->after.mode == 0600);
	CHECK(ckpt_find(&u, "sub/deep")->after.mode == 0700);
	ckpt_turn_clear(&u);
	/* a log past its bound is folded instead of grown */
	memset(big, ' ', sizeof big);
	for (i = 0; i < 300; i++)
		append_turns("0000000001.after", big, sizeof big);
	CHECK(ckpt_note_after(c, &t, "a") == 0);
	CHECK(!turns_has("0000000001.after"));
	CHECK(ckpt_note_after(c, &t, "a") == 0);
	CHECK(turns_has("0000000001.after"));
	ckpt_turn_clear(&t);
	ckpt_close(c);
	/* retention (keep 1) drops turn 1's log with its record */
	CHECK(ckpt_open(g_state, g_ws, 0, LOCK_EX, &lim, &c) == 0);
	CHECK(write_turn(c, "b", "b") == 2);
	CHECK(!turns_has("0000000001"));
	CHECK(!turns_has("0000000001.after"));
	ckpt_close(c);
	teardown();
}

/* Snapshot two paths and save, with the nth allocation or write failing. */
static void
fault_loop(int writes)
{
	struct ckpt_turn t, *l;
	struct ckpt *c;
	struct {
		char		 path[16];
		struct pstate before, after;
	} ref[2];
	long n;
	size_t nt, i;
	int fds = -1, rc, happened, bfd;

	/* n = -1: the reference turn, nothing fails */
	for (n = -1; ; n++) {
		setup();
		fx_put(g_root, "a", "alpha\n", 0644);
		CHECK(symlinkat("a", g_root, "l") == 0);
		if (fds < 0)
			fds = fx_count_fds();
		if (writes)
			fsx_fail_write_after(n);
		else
			mem_fail_after(n);
		memset(&t, 0, sizeof t);
		rc = ckpt_open(g_state, g_ws, 1, LOCK_EX, NULL, &c);
		if (rc == 0 && (rc = ckpt_for_write(c, &t)) == 0 &&
		    (rc = ckpt_snapshot(c, &t, g_root, "a")) >= 0 &&
		    (rc = ckpt_snapshot(c, &t, g_root, "l")) >= 0)
			rc = ckpt_save(c, &t);
		happened = writes ? fsx_write_failed() : mem_failed();
		fsx_fail_write_after(-1);
		mem_fail_after(-1);
		ckpt_turn_clear(&t);
		/* retention after a durable record may fail quietly */
		if (rc < 0)
			CHECK(errno == (writes ? EIO : ENOMEM));
		CHECK(happened || rc == 0);
		ckpt_close(c);
		CHECK(fx_count_fds() == fds);
		/* no temp name, and the turn is whole or absent */
		if ((bfd = storefd("blobs")) >= 0) {
			close(bfd);
			CHECK(count("blobs", FSX_TMP_PREFIX) == 0);
			CHECK(count("turns", FSX_TMP_PREFIX) == 0);
			CHECK(ckpt_open(g_state, g_ws, 0, LOCK_EX, NULL,
			    &c) == 0);
			CHECK(ckpt_list(c, &l, &nt) == 0);
			CHECK(nt == (rc < 0 ? 0 : 1));
			CHECK(nt == 0 || l[0].n == 2);
			/* a turn that is there is the reference's, entry for entry */
			for (i = 0; nt == 1 && i < l[0].n && i < 2; i++) {
				struct ckpt_entry *e = &l[0].e[i];

				if (n < 0) {
					snprintf(ref[i].path, sizeof ref[i].path,
					    "%s", e->path);
					ref[i].before = e->before;
					ref[i].after = e->after;
					continue;
				}
				CHECK_STR(e->path, ref[i].path);
				CHECK(memcmp(&e->before, &ref[i].before,
				    sizeof e->before) == 0);
				CHECK(memcmp(&e->after, &ref[i].after,
				    sizeof e->after) == 0);
			}
			ckpt_turns_free(l, nt);
			ckpt_close(c);
			CHECK(count("blobs", "") <= 2);
		}
		teardown();
		if (n < 0) {
			CHECK(rc == 0 && !happened);
			continue;
		}
		if (!happened)
			break;
	}
	printf("# %s fault loop: %ld injection points\n",
	    writes ? "write" : "allocation", n);
	CHECK(n > 0);
}

static void
t_fault_alloc(void)
{
	fault_loop(0);
}

static void
t_fault_write(void)
{
	fault_loop(1);
}

int
main(void)
{
	TEST(t_round_trip);
	TEST(t_current_turn);
	TEST(t_retention);
	TEST(t_maxbytes);
	TEST(t_damaged);
	TEST(t_dir);
	TEST(t_after_log);
	TEST(t_fault_alloc);
	TEST(t_fault_write);
	return tap_done();
}
