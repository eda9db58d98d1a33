/* session: ids, creation, meta.json parsing, locking, base records. */
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"
#include "lib/hash.h"
#include "lib/mem.h"
#include "session/session.h"
#include "session/session_apply.h"
#include "session/session_base.h"
#include "session/session_rmtree.h"
#include "session/session_run.h"
#include "tap.h"

static char root[PATH_MAX], top[PATH_MAX], state[PATH_MAX], ws[PATH_MAX];

/* A fresh state dir and workspace under the run's temp dir. */
static int
fresh(void)
{
	snprintf(top, sizeof top, "%s/t.XXXXXX", root);
	CHECK(mkdtemp(top) != NULL);
	snprintf(state, sizeof state, "%s/state", top);
	snprintf(ws, sizeof ws, "%s/ws", top);
	CHECK(mkdir(ws, 0755) == 0);
	return session_store_open(state, 1);
}

static void
t_id_valid(void)
{
	char id64[66];

	CHECK(session_id_valid("a"));
	CHECK(session_id_valid("0"));
	CHECK(session_id_valid("ab-12-x"));
	CHECK(session_id_valid("a-"));
	CHECK(!session_id_valid(""));
	CHECK(!session_id_valid(NULL));
	CHECK(!session_id_valid("-a"));
	CHECK(!session_id_valid("A"));
	CHECK(!session_id_valid("../x"));
	CHECK(!session_id_valid(".."));
	CHECK(!session_id_valid("a/b"));
	CHECK(!session_id_valid("a.b"));
	CHECK(!session_id_valid("a_b"));
	CHECK(!session_id_valid("a b"));
	memset(id64, 'a', 64);
	id64[64] = '\0';
	CHECK(session_id_valid(id64));
	id64[64] = 'a';
	id64[65] = '\0';
	CHECK(!session_id_valid(id64));
}

static void
t_new_id(void)
{
	char a[SESSION_IDMAX + 1], b[SESSION_IDMAX + 1];

	CHECK(session_new_id(a) == 0);
	CHECK(session_new_id(b) == 0);
	CHECK(session_id_valid(a) && session_id_valid(b));
	CHECK(strlen(a) == 16);
	CHECK(strcmp(a, b) != 0);
}

static void
t_create_open(void)
{
	struct session s, t;
	struct stat st;
	int store = fresh();

	CHECK(store >= 0);
	CHECK(session_open(store, "abc", ws, &s) == 0);
	CHECK_STR(s.workspace, ws);
	CHECK_STR(s.id, "abc");
	CHECK(strlen(s.created) == 20);
	CHECK(fx_exists(s.dirfd, "meta.json"));
	CHECK(fx_exists(s.dirfd, "lock"));
	CHECK(fstatat(s.dirfd, "upper", &st, 0) == 0 && S_ISDIR(st.st_mode));
	CHECK(fstatat(s.dirfd, "work", &st, 0) == 0 && S_ISDIR(st.st_mode));
	CHECK(fstatat(s.dirfd, "base", &st, 0) == 0 && S_ISDIR(st.st_mode));
	CHECK(fstatat(store, "abc", &st, 0) == 0 && (st.st_mode & 077) == 0);
	session_close(&s);
	/* Reopen without a workspace: no creation, same data. */
	CHECK(session_open(store, "abc", NULL, &t) == 0);
	CHECK_STR(t.workspace, ws);
	session_close(&t);
	/* Missing, and not created. */
	CHECK(session_open(store, "nope", NULL, &t) == -1 && errno == ENOENT);
	CHECK(!fx_exists(store, "nope"));
	/* No temp dirs left behind. */
	CHECK(fx_count(store, ".", ".tmp-") == 0);
	close(store);
}

static void
t_bad_id_builds_no_path(void)
{
	struct session s;
	int store = fresh();

	CHECK(session_open(store, "../evil", ws, &s) == -1 && errno == EINVAL);
	CHECK(session_open(store, "..", ws, &s) == -1 && errno == EINVAL);
	CHECK(!fx_exists(store, "../evil"));
	CHECK(fx_count(store, ".", ".tmp-") == 0);
	session_close(&s);
	close(store);
}

static void
corrupt_case(const char *meta, const char *want)
{
	struct session s;
	int store = fresh(), dfd;

	CHECK(session_open(store, "c1", ws, &s) == 0);
	session_close(&s);
	dfd = openat(store, "c1", O_RDONLY | O_DIRECTORY);
	CHECK(dfd >= 0);
	if (meta == NULL)
		CHECK(unlinkat(dfd, "meta.json", 0) == 0);
	else
		fx_put(dfd, "meta.json", meta, 0600);
	close(dfd);
	errno = 0;
	CHECK(session_open(store, "c1", NULL, &s) == -1);
	CHECK(errno == EBADMSG);
	if (strstr(s.why, want) == NULL)
		fprintf(stderr, "# why: %s\n", s.why);
	CHECK(strstr(s.why, want) != NULL);
	CHECK(s.dirfd == -1 && s.workspace == NULL);
	close(store);
}

static void
t_meta_corrupt(void)
{
	corrupt_case("{ not json", "not valid JSON");
	corrupt_case("[1,2]", "not a JSON object");
	corrupt_case("{\"id\":\"c1\",\"workspace\":\"/x\",\"created\":\"t\"}",
	    "version");
	corrupt_case("{\"version\":9,\"id\":\"c1\",\"workspace\":\"/x\","
	    "\"created\":\"t\"}", "unsupported format version");
	corrupt_case("{\"version\":1,\"id\":\"other\",\"workspace\":\"/x\","
	    "\"created\":\"t\"}", "does not match");
	corrupt_case("{\"version\":1,\"id\":\"c1\",\"workspace\":\"rel\","
	    "\"created\":\"t\"}", "workspace");
	corrupt_case("{\"version\":1,\"id\":\"c1\",\"workspace\":\"/x\"}",
	    "created");
	corrupt_case("", "not valid JSON");
	corrupt_case(NULL, "missing");
	corrupt_case("{\"version\":3,\"id\":\"c1\",\"workspace\":\"/x\","
	    "\"created\":\"t\"}", "unsupported format version");
}

/* New sessions are format 2; a format 1 session (file records) opens. */
static void
t_meta_versions(void)
{
	struct apply_base b, g;
	struct session s;
	struct stat st;
	unsigned char d[HASH_LEN];
	char meta[256], name[HASH_HEXLEN + 1];
	ino_t ino;
	size_t n;
	int store = fresh(), dfd;

	CHECK(session_open(store, "v1", ws, &s) == 0);
	session_close(&s);
	CHECK((dfd = openat(store, "v1", O_RDONLY | O_DIRECTORY)) >= 0);
	{
		int fd = openat(dfd, "meta.json", O_RDONLY);
		ssize_t r;

		CHECK(fd >= 0);
		CHECK((r = read(fd, meta, sizeof meta - 1)) > 0);
		n = (size_t)r;
		meta[n] = '\0';
		close(fd);
	}
	CHECK(strstr(meta, "\"version\":\t2,") != NULL);
	fx_put(dfd, "meta.json", "{\"version\":1,\"id\":\"v1\",\"workspace\":"
	    "\"/x\",\"created\":\"2026-01-01T00:00:00Z\"}", 0600);
	CHECK(session_open(store, "v1", NULL, &s) == 0);
	CHECK(strcmp(s.workspace, "/x") == 0);
	CHECK(s.version == 1);
	/* a reader leaves it at 1 ... */
	CHECK(session_base_get(&s, "a", &b) == -1 && errno == ENOENT);
	session_close(&s);
	CHECK(fx_read(dfd, "meta.json", meta, sizeof meta) > 0);
	CHECK(strstr(meta, "\"version\":1,") != NULL);
	/* ... the first link record makes it 2, all else as it was */
	CHECK(session_open(store, "v1", NULL, &s) == 0);
	hash_buf("old", 3, d);
	hash_hex(d, name);
	fx_put(s.basefd, name, "file 640 00000000000000000000000000000000"
	    "000000000000000000000000000000ff\nold", 0600);
	memset(&b, 0, sizeof b);
	b.ps.kind = PSTATE_FILE;
	b.ps.mode = 0644;
	CHECK(session_base_put(&s, "a", &b) == 0);
	CHECK(s.version == 2);
	session_close(&s);
	CHECK(fx_read(dfd, "meta.json", meta, sizeof meta) > 0);
	CHECK(strstr(meta, "\"version\":\t2,") != NULL);
	CHECK(fstatat(dfd, "meta.json", &st, 0) == 0 &&
	    (st.st_mode & 07777) == 0600);
	CHECK(session_open(store, "v1", NULL, &s) == 0);
	CHECK(s.version == 2 && strcmp(s.workspace, "/x") == 0 &&
	    strcmp(s.created, "2026-01-01T00:00:00Z") == 0);
	CHECK(session_base_get(&s, "a", &g) == 0 && g.ps.mode == 0644);
	CHECK(session_base_get(&s, "old", &g) == 0 && g.ps.mode == 0640 &&
	    g.ps.sha[HASH_LEN - 1] == 0xff);
	/* a version 2 session is not written again */
	CHECK(fstatat(dfd, "meta.json", &st, 0) == 0);
	ino = st.st_ino;
	CHECK(session_base_put(&s, "b", &b) == 0);
	CHECK(fstatat(dfd, "meta.json", &st, 0) == 0 && st.st_ino == ino);
	session_close(&s);
	close(dfd);
	close(store);
}

/*
 * An apply cut short may leave names in upper/ linked to real files: with
 * its mark, the applied ones go with their bases, the others become
 * copies, and only they; without it, nothing is walked.
 */
static ino_t
ino_of(int dirfd, const char *rel)
{
	struct stat st;

	return fstatat(dirfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 ? st.st_ino : 0;
}

static void
unalias_fixture(struct session *s, int rfd)
{
	/* applied, cut short before the drop: one inode */
	fx_put(s->upperfd, "b", "applied b\n", 0644);
	CHECK(linkat(s->upperfd, "b", rfd, "b", 0) == 0);
	fx_mkparents(rfd, "d/c");
	fx_mkparents(s->upperfd, "d/c");
	fx_put(s->upperfd, "d/c", "applied c\n", 0600);
	CHECK(linkat(s->upperfd, "d/c", rfd, "d/c", 0) == 0);
	/* the same, and then the user renamed the real file */
	fx_put(s->upperfd, "m", "applied m\n", 0640);
	CHECK(linkat(s->upperfd, "m", rfd, "moved", 0) == 0);
	/* reached through a real symlink: the walk does not follow it */
	CHECK(linkat(rfd, "out/x", s->upperfd, "l/x", 0) == 0);
	/* in a folder of upper/ its owner cannot read, one it cannot write */
	CHECK(mkdirat(s->upperfd, "u", 0700) == 0);
	fx_mkparents(rfd, "u/y");
	fx_put(s->upperfd, "u/y", "applied y\n", 0644);
	CHECK(linkat(s->upperfd, "u/y", rfd, "u/y", 0) == 0);
	CHECK(fchmodat(s->upperfd, "u", 0100, 0) == 0);
	CHECK(mkdirat(s->upperfd, "ro", 0700) == 0);
	fx_mkparents(rfd, "ro/z");
	fx_put(s->upperfd, "ro/z", "applied z\n", 0644);
	CHECK(linkat(s->upperfd, "ro/z", rfd, "ro/z", 0) == 0);
	CHECK(fchmodat(s->upperfd, "ro", 0555, 0) == 0);
	/* two names in upper/ (a command's ln) and the real one of the first */
	fx_put(s->upperfd, "k1", "applied k\n", 0644);
	CHECK(linkat(s->upperfd, "k1", s->upperfd, "k2", 0) == 0);
	CHECK(linkat(s->upperfd, "k1", rfd, "k1", 0) == 0);
}

/* Both folders as the fixture left them, then emptied. */
static void
unalias_modes(struct session *s, int rfd)
{
	struct stat st;

	CHECK(fstatat(s->upperfd, "u", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (st.st_mode & 07777) == 0100);
	CHECK(fstatat(s->upperfd, "ro", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (st.st_mode & 07777) == 0555);
	CHECK(fchmodat(s->upperfd, "u", 0700, 0) == 0);
	CHECK(fchmodat(s->upperfd, "ro", 0700, 0) == 0);
	(void)unlinkat(s->upperfd, "u/y", 0);
	(void)unlinkat(s->upperfd, "ro/z", 0);
	CHECK(unlinkat(s->upperfd, "u", AT_REMOVEDIR) == 0);
	CHECK(unlinkat(s->upperfd, "ro", AT_REMOVEDIR) == 0);
	(void)unlinkat(s->upperfd, "k2", 0);
	(void)unlinkat(rfd, "u/y", 0);
	(void)unlinkat(rfd, "ro/z", 0);
	(void)unlinkat(rfd, "k1", 0);
}

static void
t_unalias(void)
{
	struct apply_base b, g;
	struct session s;
	struct stat st;
	char buf[64];
	long n;
	int store = fresh(), rfd, i, rc;

	CHECK((rfd = open(ws, O_RDONLY | O_DIRECTORY)) >= 0);
	CHECK(session_open(store, "ua", ws, &s) == 0);
	CHECK(session_lock(&s, LOCK_EX) == 0);
	fx_put(rfd, "a", "real a\n", 0644);
	fx_put(s.upperfd, "a", "pending a\n", 0644);	/* a change */
	/* links a dry-run command made between files of upper/ stay */
	fx_put(rfd, "h1", "real h1\n", 0644);
	fx_put(s.upperfd, "h1", "linked\n", 0644);
	CHECK(linkat(s.upperfd, "h1", s.upperfd, "h2", 0) == 0);
	fx_mkparents(rfd, "out/x");
	fx_put(rfd, "out/x", "beside\n", 0644);
	CHECK(symlinkat("out", rfd, "l") == 0);
	CHECK(mkdirat(s.upperfd, "l", 0755) == 0);
	memset(&b, 0, sizeof b);
	b.ps.kind = PSTATE_FILE;
	b.ps.mode = 0644;
	for (i = 0; i < 2; i++) {
		unalias_fixture(&s, rfd);
		CHECK(session_base_put(&s, "a", &b) == 0);
		CHECK(session_base_put(&s, "b", &b) == 0);
		CHECK(session_base_put(&s, "d/c", &b) == 0);
		CHECK(session_base_put(&s, "m", &b) == 0);
		/* no mark: nothing is looked at */
		CHECK(session_unalias(&s, rfd) == 0);
		CHECK(ino_of(s.upperfd, "b") == ino_of(rfd, "b"));
		CHECK(session_apply_begin(&s) == 0);
		CHECK(fstatat(s.dirfd, "applying", &st, 0) == 0);
		CHECK(session_unalias(&s, rfd) == 8);
		CHECK(fstatat(s.dirfd, "applying", &st, 0) == -1 &&
		    errno == ENOENT);
		/* applied: the name and its base go */
		CHECK(!fx_exists(s.upperfd, "b") && !fx_exists(s.upperfd, "d/c"));
		CHECK(session_base_get(&s, "b", &g) == -1 && errno == ENOENT);
		CHECK(session_base_get(&s, "d/c", &g) == -1 && errno == ENOENT);
		CHECK(fchmodat(s.upperfd, "u", 0700, 0) == 0);
		CHECK(fchmodat(s.upperfd, "ro", 0700, 0) == 0);
		CHECK(!fx_exists(s.upperfd, "u/y") && !fx_exists(s.upperfd, "ro/z"));
		CHECK(fchmodat(s.upperfd, "u", 0100, 0) == 0);
		CHECK(fchmodat(s.upperfd, "ro", 0555, 0) == 0);
		/* k1 was the real k1: applied; k2 a copy of its own */
		CHECK(!fx_exists(s.upperfd, "k1"));
		CHECK(ino_of(s.upperfd, "k2") != ino_of(rfd, "k1"));
		CHECK(fx_read(s.upperfd, "k2", buf, sizeof buf) > 0);
		CHECK_STR(buf, "applied k\n");
		CHECK(fstatat(rfd, "k1", &st, 0) == 0 && st.st_nlink == 1);
		unalias_modes(&s, rfd);
		/* not the real file at its path: a copy of its own, pending */
		CHECK(ino_of(s.upperfd, "m") != ino_of(rfd, "moved"));
		CHECK(fx_read(s.upperfd, "m", buf, sizeof buf) > 0);
		CHECK_STR(buf, "applied m\n");
		CHECK(fstatat(s.upperfd, "m", &st, 0) == 0 &&
		    (st.st_mode & 07777) == 0640 && st.st_nlink == 1);
		CHECK(session_base_get(&s, "m", &g) == 0);
		CHECK(ino_of(s.upperfd, "l/x") != ino_of(rfd, "out/x"));
		CHECK(fx_read(s.upperfd, "l/x", buf, sizeof buf) > 0);
		CHECK_STR(buf, "beside\n");
		/* the real files and everything else, by content */
		CHECK(fx_read(rfd, "b", buf, sizeof buf) > 0);
		CHECK_STR(buf, "applied b\n");
		CHECK(fx_read(rfd, "d/c", buf, sizeof buf) > 0);
		CHECK_STR(buf, "applied c\n");
		CHECK(fx_read(rfd, "moved", buf, sizeof buf) > 0);
		CHECK_STR(buf, "applied m\n");
		CHECK(fx_read(rfd, "out/x", buf, sizeof buf) > 0);
		CHECK_STR(buf, "beside\n");
		CHECK(fstatat(rfd, "b", &st, 0) == 0 && st.st_nlink == 1);
		CHECK(fstatat(rfd, "moved", &st, 0) == 0 && st.st_nlink == 1);
		CHECK(fx_read(s.upperfd, "a", buf, sizeof buf) > 0);
		CHECK_STR(buf, "pending a\n");
		CHECK(session_base_get(&s, "a", &g) == 0);
		CHECK(fx_read(rfd, "a", buf, sizeof buf) > 0);
		CHECK_STR(buf, "real a\n");
		CHECK(ino_of(s.upperfd, "h1") == ino_of(s.upperfd, "h2"));
		CHECK(fstatat(s.upperfd, "h2", &st, 0) == 0 && st.st_nlink == 2);
		CHECK(fx_read(rfd, "h1", buf, sizeof buf) > 0);
		CHECK_STR(buf, "real h1\n");
		CHECK(fx_exists(s.upperfd, "d"));
		/* again, with the links made anew */
		CHECK(unlinkat(s.upperfd, "m", 0) == 0);
		CHECK(unlinkat(s.upperfd, "l/x", 0) == 0);
		CHECK(unlinkat(rfd, "b", 0) == 0 && unlinkat(rfd, "d/c", 0) == 0);
		CHECK(unlinkat(rfd, "moved", 0) == 0);
	}
	/* an allocation that fails leaves the mark, for the next one */
	unalias_fixture(&s, rfd);
	CHECK(session_apply_begin(&s) == 0);
	for (n = 0; n < 100; n++) {
		mem_fail_after(n);
		rc = (int)session_unalias(&s, rfd);
		mem_fail_after(-1);
		/* the folders' modes come back, whatever failed */
		CHECK(fstatat(s.upperfd, "u", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    (st.st_mode & 07777) == 0100);
		CHECK(fstatat(s.upperfd, "ro", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    (st.st_mode & 07777) == 0555);
		if (rc >= 0)
			break;
		CHECK(errno == ENOMEM);
		CHECK(fstatat(s.dirfd, "applying", &st, 0) == 0);
	}
	CHECK(n > 0 && n < 100);
	CHECK(!fx_exists(s.upperfd, "b") && !fx_exists(s.upperfd, "d/c"));
	CHECK(ino_of(s.upperfd, "m") != ino_of(rfd, "moved"));
	CHECK(fx_exists(s.upperfd, "a") && fx_exists(s.upperfd, "h2"));
	unalias_modes(&s, rfd);
	session_close(&s);
	close(rfd);
	close(store);
}

static void
t_default(void)
{
	char a[SESSION_IDMAX + 1], b[SESSION_IDMAX + 1];
	struct session s;
	int store = fresh();

	CHECK(session_default(store, ws, 0, a) == -1 && errno == ENOENT);
	CHECK(session_default(store, ws, 1, a) == 0);
	CHECK(session_id_valid(a));
	CHECK(session_default(store, ws, 0, b) == 0);
	CHECK_STR(a, b);
	CHECK(session_default(store, ws, 1, b) == 0);
	CHECK_STR(a, b);
	CHECK(session_default(store, "/elsewhere", 0, b) == -1);
	/* Removing the session drops the default with it. */
	CHECK(session_open(store, a, NULL, &s) == 0);
	CHECK(session_lock(&s, LOCK_EX) == 0);
	CHECK(session_remove(&s) == 0);
	CHECK(!fx_exists(store, a));
	CHECK(session_default(store, ws, 0, b) == -1 && errno == ENOENT);
	CHECK(fx_count(store, ".", ".default-") == 0);
	CHECK(fx_count(store, ".", ".trash-") == 0);
	CHECK(session_default(store, ws, 1, b) == 0);
	CHECK(strcmp(a, b) != 0);
	close(store);
}

/* Leftovers of a crash: removed trash goes, a young .tmp- stays. */
static void
t_sweep_leftovers(void)
{
	struct session s;
	struct timespec old[2] = { { 1000, 0 }, { 1000, 0 } };
	int store = fresh();

	CHECK(mkdirat(store, ".trash-dead", 0700) == 0);
	CHECK(mkdirat(store, ".tmp-young", 0700) == 0);
	CHECK(mkdirat(store, ".tmp-old", 0700) == 0);
	CHECK(utimensat(store, ".tmp-old", old, 0) == 0);
	CHECK(session_open(store, "sw", ws, &s) == 0);
	CHECK(session_lock(&s, LOCK_EX) == 0);
	CHECK(session_remove(&s) == 0);
	CHECK(!fx_exists(store, ".trash-dead"));
	CHECK(!fx_exists(store, ".tmp-old"));
	CHECK(fx_exists(store, ".tmp-young"));
	close(store);
}

static void
t_lock_excludes(void)
{
	struct session s, t;
	pid_t pid;
	int st, store = fresh();

	CHECK(session_open(store, "l1", ws, &s) == 0);
	CHECK(session_lock(&s, LOCK_EX) == 0);
	pid = fork();
	if (pid == 0) {
		int fd = openat(s.dirfd, "lock", O_RDWR);

		_exit(flock(fd, LOCK_EX | LOCK_NB) == -1 &&
		    errno == EWOULDBLOCK ? 0 : 1);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0);
	/* A second opener that waits sees the removal: ESTALE. */
	CHECK(session_open(store, "l1", NULL, &t) == 0);
	CHECK(session_remove(&s) == 0);
	CHECK(session_lock(&t, LOCK_EX) == -1 && errno == ESTALE);
	session_close(&t);
	close(store);
}

/* 8 processes increment a counter under the lock: nothing is lost. */
static void
t_lock_parallel(void)
{
	struct session s;
	char buf[32];
	pid_t pids[8];
	int i, j, st, fd, store = fresh();
	ssize_t n;

	CHECK(session_open(store, "par", ws, &s) == 0);
	fx_put(s.dirfd, "counter", "0", 0600);
	session_close(&s);
	for (i = 0; i < 8; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			struct session c;

			for (j = 0; j < 50; j++) {
				if (session_open(store, "par", NULL, &c) < 0 ||
				    session_lock(&c, LOCK_EX) < 0)
					_exit(1);
				fd = openat(c.dirfd, "counter", O_RDWR);
				n = pread(fd, buf, sizeof buf - 1, 0);
				buf[n < 0 ? 0 : n] = '\0';
				snprintf(buf, sizeof buf, "%d", atoi(buf) + 1);
				if (ftruncate(fd, 0) < 0 ||
				    pwrite(fd, buf, strlen(buf), 0) < 0)
					_exit(1);
				close(fd);
				session_close(&c);
			}
			_exit(0);
		}
	}
	for (i = 0; i < 8; i++)
		CHECK(waitpid(pids[i], &st, 0) == pids[i] && WIFEXITED(st) &&
		    WEXITSTATUS(st) == 0);
	CHECK(session_open(store, "par", NULL, &s) == 0);
	fd = openat(s.dirfd, "counter", O_RDONLY);
	n = read(fd, buf, sizeof buf - 1);
	buf[n < 0 ? 0 : n] = '\0';
	close(fd);
	CHECK_STR(buf, "400");
	session_close(&s);
	close(store);
}

static void
t_base_records(void)
{
	struct apply_base b, g;
	struct session s;
	int store = fresh(), i;

	CHECK(session_open(store, "b1", ws, &s) == 0);
	CHECK(session_base_get(&s, "x", &g) == -1 && errno == ENOENT);
	memset(&b, 0, sizeof b);
	b.ps.kind = PSTATE_FILE;
	b.ps.mode = 0755;
	for (i = 0; i < HASH_LEN; i++)
		b.ps.sha[i] = (unsigned char)i;
	CHECK(session_base_put(&s, "dir/odd\nname", &b) == 0);
	CHECK(session_base_get(&s, "dir/odd\nname", &g) == 0);
	CHECK(g.ps.kind == PSTATE_FILE && g.ps.mode == 0755);
	CHECK(memcmp(g.ps.sha, b.ps.sha, HASH_LEN) == 0);
	/* The first capture wins. */
	b.ps.mode = 0600;
	b.ps.kind = PSTATE_ABSENT;
	CHECK(session_base_put(&s, "dir/odd\nname", &b) == 0);
	CHECK(session_base_get(&s, "dir/odd\nname", &g) == 0);
	CHECK(g.ps.kind == PSTATE_FILE && g.ps.mode == 0755);
	memset(&b, 0, sizeof b);
	b.ps.kind = PSTATE_LINK;
	CHECK(session_base_put(&s, "l", &b) == 0);
	CHECK(session_base_get(&s, "l", &g) == 0 && g.ps.kind == PSTATE_LINK);
	b.ps.kind = PSTATE_DIR;
	b.ps.mode = 0700;
	CHECK(session_base_put(&s, "d", &b) == 0);
	CHECK(session_base_get(&s, "d", &g) == 0 && g.ps.kind == PSTATE_DIR &&
	    g.ps.mode == 0700);
	b.ps.kind = PSTATE_ABSENT;
	CHECK(session_base_put(&s, "new", &b) == 0);
	CHECK(session_base_get(&s, "new", &g) == 0 &&
	    g.ps.kind == PSTATE_ABSENT);
	CHECK(session_base_del(&s, "new") == 0);
	CHECK(session_base_get(&s, "new", &g) == -1 && errno == ENOENT);
	CHECK(session_base_del(&s, "new") == 0);
	session_close(&s);
	close(store);
}

static void
t_base_corrupt(void)
{
	struct apply_base b, g;
	struct session s;
	unsigned char d[HASH_LEN];
	char name[HASH_HEXLEN + 1];
	int store = fresh();

	CHECK(session_open(store, "b2", ws, &s) == 0);
	memset(&b, 0, sizeof b);
	b.ps.kind = PSTATE_FILE;
	CHECK(session_base_put(&s, "f", &b) == 0);
	hash_buf("f", 1, d);
	hash_hex(d, name);
	CHECK(unlinkat(s.basefd, name, 0) == 0);
	fx_put(s.basefd, name, "file 644 zz\nf", 0600);
	CHECK(session_base_get(&s, "f", &g) == -1 && errno == EBADMSG);
	CHECK(strstr(s.why, "corrupt") != NULL);
	CHECK(unlinkat(s.basefd, name, 0) == 0);
	/* A record for another path under this name: refused too. */
	fx_put(s.basefd, name, "absent 0 0000000000000000000000000000000000"
	    "000000000000000000000000000000\ng", 0600);
	CHECK(session_base_get(&s, "f", &g) == -1 && errno == EBADMSG);
	session_close(&s);
	close(store);
}

/*
 * A record is a symlink whose target is the record: no data block (no
 * discard when the session goes), made whole or not at all. Records as
 * regular files (written before) are still read; a damaged link is named.
 */
static void
t_base_links(void)
{
	static const char *bad[] = {
		"file 644",					/* no hash */
		"file 644 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh",	/* 42 */
		"file 644 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8A",	/* 44 */
		"file 644 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh9",	/* bits */
		"file 644 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+",	/* alphabet */
		"file 9 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
		"file -1 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
		"wat 644 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
		"file 644 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8 xxxxxxxxxxx",
		"file 644 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8 x",
		"file 17777 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
	};
	struct statfs sf;
	struct apply_base b, g;
	struct session s;
	struct stat st;
	unsigned char d[HASH_LEN];
	char name[HASH_HEXLEN + 1], target[128];
	ssize_t n;
	size_t i;
	int store = fresh();

	CHECK(session_open(store, "b3", ws, &s) == 0);
	memset(&b, 0, sizeof b);
	b.ps.mode = 07777;
	b.ps.kind = PSTATE_ABSENT;
	for (i = 0; i < HASH_LEN; i++)
		b.ps.sha[i] = (unsigned char)(0xff - i);
	CHECK(session_base_put(&s, "a/long/path", &b) == 0);
	hash_buf("a/long/path", 11, d);
	hash_hex(d, name);
	CHECK(fstatat(s.basefd, name, &st, AT_SYMLINK_NOFOLLOW) == 0);
	CHECK(S_ISLNK(st.st_mode) && st.st_size < 60);
	/* where short links are known to live in the inode: no block */
	CHECK(fstatfs(s.basefd, &sf) == 0);
	if (sf.f_type == 0xEF53 || sf.f_type == 0x01021994)
		CHECK(st.st_blocks == 0);
	else
		printf("# file system %lx: blocks not checked\n",
		    (unsigned long)sf.f_type);
	CHECK((n = readlinkat(s.basefd, name, target, sizeof target)) > 0 &&
	    n < 60);
	CHECK(session_base_get(&s, "a/long/path", &g) == 0 &&
	    g.ps.kind == PSTATE_ABSENT &&
	    g.ps.mode == 07777 && memcmp(g.ps.sha, b.ps.sha, HASH_LEN) == 0);
	/* every byte value of the hash comes back */
	for (i = 0; i < HASH_LEN; i++)
		b.ps.sha[i] = (unsigned char)(i * 8 + 3);
	b.ps.kind = PSTATE_FILE;
	b.unrecorded = 1;
	b.why = ESTALE;
	CHECK(session_base_put(&s, "u", &b) == 0);
	CHECK(session_base_get(&s, "u", &g) == 0 && g.unrecorded &&
	    g.why == ESTALE && memcmp(g.ps.sha, b.ps.sha, HASH_LEN) == 0);
	/* the old format: a regular file of the same name */
	hash_buf("old", 3, d);
	hash_hex(d, name);
	fx_put(s.basefd, name, "file 640 00000000000000000000000000000000"
	    "000000000000000000000000000000ff\nold", 0600);
	CHECK(session_base_get(&s, "old", &g) == 0 &&
	    g.ps.kind == PSTATE_FILE &&
	    g.ps.mode == 0640 && g.ps.sha[HASH_LEN - 1] == 0xff);
	/* a record there stays: the first capture wins, in either format */
	memset(&b, 0, sizeof b);
	b.ps.kind = PSTATE_ABSENT;
	CHECK(session_base_put(&s, "old", &b) == 0);
	CHECK(session_base_get(&s, "old", &g) == 0 &&
	    g.ps.kind == PSTATE_FILE);
	/* damaged links */
	hash_buf("f", 1, d);
	hash_hex(d, name);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		(void)unlinkat(s.basefd, name, 0);
		CHECK(symlinkat(bad[i], s.basefd, name) == 0);
		s.why[0] = '\0';
		if (session_base_get(&s, "f", &g) != -1 || errno != EBADMSG) {
			printf("# accepted: %s\n", bad[i]);
			CHECK(0);
		}
		CHECK(strcmp(s.why, "base record for f corrupt") == 0);
	}
	/* the well-formed one of those is read */
	(void)unlinkat(s.basefd, name, 0);
	CHECK(symlinkat("chr 600 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
	    s.basefd, name) == 0);
	CHECK(session_base_get(&s, "f", &g) == 0 && g.ps.kind == PSTATE_CHR &&
	    g.ps.mode == 0600 && g.ps.sha[0] == 0 && g.ps.sha[31] == 31);
	session_close(&s);
	close(store);
}

static void
t_list(void)
{
	struct session s;
	char **ids;
	size_t n;
	int store = fresh();

	CHECK(session_open(store, "zz", ws, &s) == 0);
	session_close(&s);
	CHECK(session_open(store, "a1", ws, &s) == 0);
	session_close(&s);
	CHECK(mkdirat(store, "Not-An-Id", 0700) == 0);
	CHECK(mkdirat(store, ".trash-x", 0700) == 0);
	fx_put(store, "plainfile", "x", 0600);
	CHECK(session_list(store, &ids, &n) == 0);
	CHECK(n == 2);
	CHECK_STR(ids[0], "a1");
	CHECK_STR(ids[1], "zz");
	session_ids_free(ids, n);
	close(store);
}

static void
t_rmtree_stays_inside(void)
{
	char out[PATH_MAX + 16];
	struct stat st;
	int store = fresh(), d, o;

	snprintf(out, sizeof out, "%s/outside", top);
	CHECK(mkdir(out, 0755) == 0);
	o = open(out, O_RDONLY | O_DIRECTORY);
	fx_put(o, "keep", "precious", 0600);
	CHECK(mkdirat(store, "victim", 0700) == 0);
	d = openat(store, "victim", O_RDONLY | O_DIRECTORY);
	CHECK(mkdirat(d, "ro", 0700) == 0);
	fx_put(d, "f", "x", 0600);
	CHECK(symlinkat(out, d, "link") == 0);
	{
		int r = openat(d, "ro", O_RDONLY | O_DIRECTORY);

		fx_put(r, "g", "y", 0600);
		CHECK(fchmod(r, 0500) == 0);
		close(r);
	}
	close(d);
	CHECK(session_rmtree(store, "victim") == 0);
	CHECK(!fx_exists(store, "victim"));
	CHECK(fstatat(o, "keep", &st, 0) == 0 && st.st_size == 8);
	CHECK(session_rmtree(store, "victim") == 0);
	close(o);
	close(store);
}

/* Make the nth allocation fail: a clean error, no leak, no stray dir. */
static void
t_alloc_faults(void)
{
	struct session s;
	char id[SESSION_IDMAX + 1];
	long n;
	int store = fresh(), rc;

	for (n = 0; n < 200; n++) {
		mem_fail_after(n);
		rc = session_open(store, "f1", ws, &s);
		mem_fail_after(-1);
		if (rc == 0) {
			session_close(&s);
			break;
		}
		CHECK(errno == ENOMEM);
		CHECK(fx_count(store, ".", ".tmp-") == 0);
	}
	CHECK(n < 200);
	for (n = 0; n < 200; n++) {
		mem_fail_after(n);
		rc = session_default(store, ws, 1, id);
		mem_fail_after(-1);
		if (rc == 0)
			break;
		CHECK(errno == ENOMEM);
	}
	CHECK(n < 200);
	close(store);
}

/* This boot's id as the kernel gives it. */
static void
this_boot(char *buf, size_t len)
{
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY);
	ssize_t n;

	CHECK(fd >= 0);
	n = read(fd, buf, len - 1);
	close(fd);
	CHECK(n > 1);
	buf[n - 1] = '\0';
}

static ino_t
ino_at(int dirfd, const char *name)
{
	struct stat st;

	CHECK(fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0);
	return st.st_ino;
}

/* ctimes in upper/ older than the mark: the coarse clock ticks first */
static void
settle(void)
{
	struct timespec ts = { 0, 30 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

static void
t_run_marks(void)
{
	struct session s;
	struct session_run r;
	struct timespec t;
	char boot[64], link[64];
	long long d;
	ssize_t n;
	ino_t ino;
	int store = fresh();

	this_boot(boot, sizeof boot);
	CHECK(session_open(store, "r1", ws, &s) == 0);
	CHECK(session_lock(&s, LOCK_EX) == 0);
	CHECK(mkdirat(s.upperfd, "a", 0755) == 0);
	CHECK(mkdirat(s.upperfd, "a/b", 0755) == 0);
	fx_put(s.upperfd, "a/b/old", "old\n", 0600);
	settle();

	/* a run that writes nothing: no sync, no records, mark renamed */
	CHECK(session_run_begin(&s, &r) == 0);
	CHECK(!r.cut && !r.stale);
	n = readlinkat(s.dirfd, "running", link, sizeof link - 1);
	CHECK(n > 0);
	link[n > 0 ? n : 0] = '\0';
	CHECK(strcmp(link, boot) == 0);
	CHECK(session_run_changed(&s, -1, &r) == 0);
	CHECK(session_run_end(&s, 0, 1) == 0);
	session_run_free(&r);
	CHECK(!fx_exists(s.dirfd, "running"));
	CHECK(fx_exists(s.dirfd, "idle"));
	ino = ino_at(s.dirfd, "idle");

	/* the next run renames the same mark back: no new inode */
	CHECK(session_run_begin(&s, &r) == 0);
	CHECK(ino_at(s.dirfd, "running") == ino);
	CHECK(!fx_exists(s.dirfd, "idle"));
	/* a change deep in upper/ is seen */
	fx_put(s.upperfd, "a/b/new", "new\n", 0600);
	CHECK(session_run_changed(&s, -1, &r) == 1);
	CHECK(session_run_end(&s, 1, 1) == 0);
	session_run_free(&r);
	settle();

	/* a clock set meanwhile: ctimes say nothing, so "changed" */
	CHECK(session_run_begin(&s, &r) == 0);
	CHECK(session_run_changed(&s, -1, &r) == 0);
	session_run_since(&r, &t);
	CHECK(t.tv_sec == r.since.tv_sec && t.tv_nsec == r.since.tv_nsec);
	r.clock -= 2000000000LL;	/* set forward: since stands */
	CHECK(session_run_changed(&s, -1, &r) == 1);
	session_run_since(&r, &t);
	CHECK(t.tv_sec == r.since.tv_sec && t.tv_nsec == r.since.tv_nsec);
	/*
	 * Set back 2 s: a file stamped up to 2 s (and the slack) before
	 * since may be the command's time's own, so the bases' bound moves
	 * back as far.
	 */
	r.clock += 4000000000LL;
	CHECK(session_run_changed(&s, -1, &r) == 1);
	session_run_since(&r, &t);
	d = (r.since.tv_sec - t.tv_sec) * 1000000000LL +
	    (r.since.tv_nsec - t.tv_nsec);
	CHECK(d >= 2000000000LL && d < 2200000000LL);
	CHECK(t.tv_nsec >= 0 && t.tv_nsec < 1000000000L);
	CHECK(session_run_end(&s, 0, 1) == 0);
	session_run_free(&r);

	/* arcturn killed mid-run (this boot): settled, records forced */
	CHECK(renameat(s.dirfd, "idle", s.dirfd, "running") == 0);
	CHECK(session_run_interrupted(&s) == 0);
	CHECK(session_run_begin(&s, &r) == 0);
	CHECK(r.stale && !r.cut);
	CHECK(session_run_changed(&s, -1, &r) == 1);
	CHECK(session_run_end(&s, 1, 1) == 0);
	session_run_free(&r);
	CHECK(session_run_interrupted(&s) == 0);

	/* a mark from another boot: a restart cut that run short */
	CHECK(unlinkat(s.dirfd, "idle", 0) == 0);
	CHECK(symlinkat("another-boot", s.dirfd, "running") == 0);
	CHECK(session_run_interrupted(&s) == 1);
	CHECK(session_run_begin(&s, &r) == 0);
	CHECK(r.cut && r.stale);
	CHECK(fx_exists(s.dirfd, "interrupted"));
	CHECK(session_run_end(&s, 1, 1) == 0);
	session_run_free(&r);
	CHECK(session_run_interrupted(&s) == 1);	/* until the session goes */
	/* an idle mark from another boot is made anew, not reused */
	CHECK(unlinkat(s.dirfd, "idle", 0) == 0);
	CHECK(symlinkat("another-boot", s.dirfd, "idle") == 0);
	CHECK(session_run_begin(&s, &r) == 0);
	n = readlinkat(s.dirfd, "running", link, sizeof link - 1);
	CHECK(n > 0);
	link[n > 0 ? n : 0] = '\0';
	CHECK(strcmp(link, boot) == 0);
	CHECK(!fx_exists(s.dirfd, "idle"));
	CHECK(session_run_end(&s, 0, 1) == 0);
	session_run_free(&r);
	CHECK(session_remove(&s) == 0);
	close(store);
}

/* What a volatile overlayfs mount leaves in work/, at overlayfs's modes. */
static void
volatile_leftover(int dirfd, int extra)
{
	CHECK(mkdirat(dirfd, "work/work", 0) == 0);
	CHECK(fchmodat(dirfd, "work/work", 0700, 0) == 0);
	CHECK(mkdirat(dirfd, "work/work/incompat", 0700) == 0);
	CHECK(mkdirat(dirfd, "work/work/incompat/volatile", 0700) == 0);
	fx_put(dirfd, "work/work/incompat/volatile/dirty", "", 0600);
	if (extra)
		fx_put(dirfd, "work/work/#7", "a copy-up cut short", 0600);
	CHECK(fchmodat(dirfd, "work/work/incompat/volatile/dirty", 0, 0) == 0);
	CHECK(fchmodat(dirfd, "work/work/incompat/volatile", 0, 0) == 0);
	CHECK(fchmodat(dirfd, "work/work/incompat", 0, 0) == 0);
	CHECK(fchmodat(dirfd, "work/work", 0, 0) == 0);
}

static void
t_run_sweep(void)
{
	struct session s;
	struct session_run r;
	int store = fresh(), extra;

	CHECK(session_open(store, "r2", ws, &s) == 0);
	CHECK(session_lock(&s, LOCK_EX) == 0);
	for (extra = 0; extra < 2; extra++) {
		volatile_leftover(s.dirfd, extra);
		CHECK(session_run_begin(&s, &r) == 0);
		/* overlayfs would refuse work/work: it is moved aside */
		CHECK(!fx_exists(s.dirfd, "work/work"));
		CHECK(fx_exists(s.dirfd, "work.old"));
		session_run_sweep(&s);
		CHECK(!fx_exists(s.dirfd, "work.old"));
		CHECK(fx_exists(s.dirfd, "work"));
		CHECK(session_run_end(&s, 0, 1) == 0);
		session_run_free(&r);
	}
	/* a sweep that never ran: the next begin finishes it */
	volatile_leftover(s.dirfd, 0);
	CHECK(session_run_begin(&s, &r) == 0);
	CHECK(session_run_end(&s, 0, 1) == 0);
	session_run_free(&r);
	volatile_leftover(s.dirfd, 1);
	CHECK(session_run_begin(&s, &r) == 0);
	CHECK(fx_exists(s.dirfd, "work.old"));
	CHECK(!fx_exists(s.dirfd, "work/work"));
	session_run_sweep(&s);
	CHECK(!fx_exists(s.dirfd, "work.old"));
	CHECK(session_run_end(&s, 0, 1) == 0);
	session_run_free(&r);
	CHECK(session_remove(&s) == 0);
	CHECK(!fx_exists(store, "r2"));
	close(store);
}


/* Every record kind round-trips; truncated and corrupt ones say which. */
static void
t_base_kinds(void)
{
	static const enum pstate_kind kinds[] = { PSTATE_FIFO, PSTATE_SOCK,
	    PSTATE_CHR, PSTATE_BLK };
	struct apply_base b, g;
	struct session s;
	unsigned char d[HASH_LEN];
	char name[HASH_HEXLEN + 1], rel[16];
	size_t i;
	int store = fresh();

	CHECK(session_open(store, "k", ws, &s) == 0);
	for (i = 0; i < 4; i++) {
		memset(&b, 0, sizeof b);
		b.ps.kind = kinds[i];
		b.ps.mode = 0640;
		snprintf(rel, sizeof rel, "s%zu", i);
		CHECK(session_base_put(&s, rel, &b) == 0);
		CHECK(session_base_get(&s, rel, &g) == 0);
		CHECK(memcmp(&b, &g, sizeof b) == 0);
	}
	memset(&b, 0, sizeof b);
	b.unrecorded = 1;
	b.why = ESTALE;
	CHECK(session_base_put(&s, "u", &b) == 0);
	CHECK(session_base_get(&s, "u", &g) == 0);
	CHECK(g.unrecorded && g.why == ESTALE && g.ps.mode == 0);
	/* the first capture wins: a later put changes nothing */
	memset(&b, 0, sizeof b);
	CHECK(session_base_put(&s, "u", &b) == 0);
	CHECK(session_base_get(&s, "u", &g) == 0 && g.unrecorded);
	/* what a crash before the data reached the disk leaves */
	hash_buf("t", 1, d);
	hash_hex(d, name);
	fx_put(s.basefd, name, "", 0600);
	CHECK(session_base_get(&s, "t", &g) == -1 && errno == EBADMSG);
	CHECK_STR(s.why, "base record for t truncated");
	fx_put(s.basefd, name, "file 644 00000", 0600);
	CHECK(session_base_get(&s, "t", &g) == -1 && errno == EBADMSG);
	CHECK(strstr(s.why, "truncated") != NULL);
	fx_put(s.basefd, name, "pipe 644 0000000000000000000000000000000000"
	    "000000000000000000000000000000\nt", 0600);
	CHECK(session_base_get(&s, "t", &g) == -1 && errno == EBADMSG);
	CHECK_STR(s.why, "base record for t corrupt");
	/* nosync: the same record, no fsync asked */
	s.nosync = 1;
	memset(&b, 0, sizeof b);
	b.ps.kind = PSTATE_DIR;
	b.ps.mode = 0700;
	CHECK(session_base_put(&s, "d", &b) == 0);
	CHECK(session_base_get(&s, "d", &g) == 0 && g.ps.kind == PSTATE_DIR &&
	    g.ps.mode == 0700);
	session_close(&s);
	close(store);
}

/* A damaged session says which part, and goes by its id all the same. */
static void
t_remove_damaged(void)
{
	static const char *part[] = { "base", "upper", "meta.json", "lock" };
	static const char *why[] = { "base/ missing", "upper/ missing",
	    "meta.json missing", "lock not a regular file" };
	char id[8], def[SESSION_IDMAX + 1];
	struct session s;
	size_t i;
	int store = fresh(), dfd;

	for (i = 0; i < 4; i++) {
		snprintf(id, sizeof id, "dm%zu", i);
		CHECK(session_open(store, id, ws, &s) == 0);
		fx_put(s.upperfd, "f", "x", 0644);
		session_close(&s);
		CHECK((dfd = openat(store, id, O_RDONLY | O_DIRECTORY)) >= 0);
		CHECK(session_rmtree(dfd, part[i]) == 0);
		if (i == 3)
			CHECK(mkdirat(dfd, "lock", 0700) == 0);
		close(dfd);
		CHECK(session_open(store, id, NULL, &s) == -1 &&
		    errno == EBADMSG);
		CHECK_STR(s.why, why[i]);
		CHECK(session_remove_id(store, id, NULL, NULL) == 0);
		CHECK(!fx_exists(store, id));
	}
	/* a default naming a damaged session is dropped with it */
	CHECK(session_default(store, ws, 1, def) == 0);
	CHECK((dfd = openat(store, def, O_RDONLY | O_DIRECTORY)) >= 0);
	CHECK(unlinkat(dfd, "meta.json", 0) == 0);
	close(dfd);
	CHECK(session_remove_id(store, def, NULL, NULL) == 0);
	CHECK(session_default(store, ws, 0, def) == -1 && errno == ENOENT);
	CHECK(fx_count(store, ".", ".default-") == 0);
	/* a plain file where a session should be goes too */
	fx_put(store, "junk", "x", 0600);
	CHECK(session_remove_id(store, "junk", NULL, NULL) == 0);
	CHECK(session_remove_id(store, "junk", NULL, NULL) == -1 &&
	    errno == ENOENT);
	CHECK(session_remove_id(store, "../x", NULL, NULL) == -1 &&
	    errno == EINVAL);
	CHECK(fx_count(store, ".", ".trash-") == 0);
	close(store);
}

/* Thousands of levels, dirs at mode 0, 16 fds: rmtree still finishes. */
static void
t_rmtree_deep(void)
{
	struct rlimit rl, low;
	int store = fresh(), fd, nfd, i;

	CHECK(mkdirat(store, "deep", 0700) == 0);
	CHECK((fd = openat(store, "deep", O_RDONLY | O_DIRECTORY)) >= 0);
	for (i = 0; i < 3000; i++) {
		CHECK(mkdirat(fd, "d", 0700) == 0);
		if (i % 100 == 0)
			fx_put(fd, "f", "x", 0600);
		CHECK((nfd = openat(fd, "d", O_RDONLY | O_DIRECTORY)) >= 0);
		if (i % 500 == 0)
			CHECK(fchmod(fd, 0500) == 0);
		close(fd);
		fd = nfd;
	}
	close(fd);
	CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	low = rl;
	low.rlim_cur = 16;
	CHECK(setrlimit(RLIMIT_NOFILE, &low) == 0);
	CHECK(session_rmtree(store, "deep") == 0);
	CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	CHECK(!fx_exists(store, "deep"));
	close(store);
}

/*
 * The wide remover: a flat directory of many names, a fan of directories,
 * a chain deeper than the fds its threads may hold, directories left
 * without permissions, and symlinks out of the tree, which are removed
 * and never followed; with an allocation failing anywhere, what is left
 * goes on the next call; no fd is left open.
 */
static void
mkvictim(int store, const char *out, int big)
{
	char name[32];
	int v, d, e, fd, nfd, i, j;

	CHECK(mkdirat(store, "victim", 0700) == 0);
	CHECK((v = openat(store, "victim", O_RDONLY | O_DIRECTORY)) >= 0);
	CHECK(mkdirat(v, "flat", 0700) == 0);
	CHECK((d = openat(v, "flat", O_RDONLY | O_DIRECTORY)) >= 0);
	for (i = 0; i < (big ? 500 : 100); i++) {
		snprintf(name, sizeof name, "r%03d", i);
		fx_put(d, name, "record\n", 0600);
	}
	CHECK(symlinkat(out, d, "out") == 0);
	CHECK(symlinkat("../../../outside/keep", d, "outfile") == 0);
	close(d);
	CHECK(mkdirat(v, "fan", 0700) == 0);
	CHECK((d = openat(v, "fan", O_RDONLY | O_DIRECTORY)) >= 0);
	for (i = 0; i < (big ? 20 : 6); i++) {
		snprintf(name, sizeof name, "d%02d", i);
		CHECK(mkdirat(d, name, 0700) == 0);
		CHECK((e = openat(d, name, O_RDONLY | O_DIRECTORY)) >= 0);
		for (j = 0; j < 10; j++) {
			snprintf(name, sizeof name, "s%d", j);
			CHECK(mkdirat(e, name, j == 3 ? 0 : 0700) == 0);
			if (j != 3) {
				snprintf(name, sizeof name, "s%d/f", j);
				fx_put(e, name, "x", 0600);
			}
		}
		CHECK(symlinkat(out, e, "s9/out") == 0);
		CHECK(fchmod(e, i % 5 == 0 ? 0500 : 0700) == 0);
		close(e);
	}
	close(d);
	CHECK(mkdirat(v, "chain", 0700) == 0);
	CHECK((fd = openat(v, "chain", O_RDONLY | O_DIRECTORY)) >= 0);
	for (i = 0; i < (big ? 200 : 80); i++) {
		CHECK(mkdirat(fd, "c", 0700) == 0);
		if (i % 10 == 0)
			fx_put(fd, "f", "x", 0600);
		CHECK((nfd = openat(fd, "c", O_RDONLY | O_DIRECTORY)) >= 0);
		close(fd);
		fd = nfd;
	}
	close(fd);
	close(v);
}

static void
t_rmtree_wide(void)
{
	char out[PATH_MAX + 16];
	struct stat st;
	int store = fresh(), o, fds, n, rc, faults = 0;

	snprintf(out, sizeof out, "%s/outside", top);
	CHECK(mkdir(out, 0755) == 0);
	CHECK((o = open(out, O_RDONLY | O_DIRECTORY)) >= 0);
	fx_put(o, "keep", "precious", 0600);
	CHECK(mkdirat(o, "sub", 0755) == 0);
	fx_put(o, "sub/also", "kept", 0600);
	fds = fx_count_fds();
	mkvictim(store, out, 1);
	CHECK(session_rmtree_wide(store, "victim") == 0);
	CHECK(!fx_exists(store, "victim"));
	CHECK(fx_count_fds() == fds);
	for (n = 0; n < 700; n += 23) {
		mkvictim(store, out, 0);
		mem_fail_after(n);
		rc = session_rmtree_wide(store, "victim");
		faults += mem_failed();
		mem_fail_after(-1);
		CHECK(rc == 0 || errno == ENOMEM);
		if (rc != 0)
			CHECK(session_rmtree_wide(store, "victim") == 0);
		CHECK(!fx_exists(store, "victim"));
		CHECK(fx_count_fds() == fds);
	}
	printf("# wide rmtree: %d of 31 runs had an allocation fail\n", faults);
	CHECK(faults > 10);
	CHECK(fstatat(o, "keep", &st, 0) == 0 && st.st_size == 8);
	CHECK(fstatat(o, "sub/also", &st, 0) == 0 && st.st_size == 4);
	CHECK(session_rmtree_wide(store, "victim") == 0);
	close(o);
	close(store);
}

static void
note_wait(void *arg)
{
	(*(int *)arg)++;
}

/* A lock held over a second is waited for, and said so once. */
static void
t_lock_wait_note(void)
{
	struct session s, t;
	pid_t pid;
	int store = fresh(), said = 0, st, p[2];
	char c;

	CHECK(session_open(store, "w", ws, &s) == 0);
	CHECK(pipe(p) == 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		CHECK(session_open(store, "w", NULL, &t) == 0);
		CHECK(session_lock(&t, LOCK_EX) == 0);
		CHECK(write(p[1], "x", 1) == 1);
		usleep(1500 * 1000);
		_exit(0);
	}
	CHECK(read(p[0], &c, 1) == 1);
	CHECK(session_lock_wait(&s, LOCK_EX, note_wait, &said) == 0);
	CHECK(said == 1);
	session_unlock(&s);
	CHECK(waitpid(pid, &st, 0) == pid);
	/* a short hold: no word */
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		CHECK(session_open(store, "w", NULL, &t) == 0);
		CHECK(session_lock(&t, LOCK_EX) == 0);
		CHECK(write(p[1], "x", 1) == 1);
		usleep(200 * 1000);
		_exit(0);
	}
	CHECK(read(p[0], &c, 1) == 1);
	said = 0;
	CHECK(session_lock_wait(&s, LOCK_SH, note_wait, &said) == 0);
	CHECK(said == 0);
	CHECK(waitpid(pid, &st, 0) == pid);
	session_close(&s);
	close(store);
}

/*
 * "Changed" means something in upper/ differs: `git status` makes and
 * removes .git/index.lock, which moves ctimes and nothing else.
 */
static void
t_run_changed_precisely(void)
{
	struct session s;
	struct session_run r;
	int store = fresh(), rootfd, fd;

	CHECK((rootfd = open(ws, O_RDONLY | O_DIRECTORY)) >= 0);
	CHECK(mkdirat(rootfd, ".git", 0755) == 0);
	CHECK(fchmodat(rootfd, ".git", 0755, 0) == 0);
	CHECK(mkdirat(rootfd, "src", 0700) == 0);
	CHECK(session_open(store, "c", ws, &s) == 0);
	CHECK(session_lock(&s, LOCK_EX) == 0);
	fx_put(s.upperfd, "kept", "k", 0644);
	settle();

	/* first run: .git copied up (empty, same mode), lock made, gone */
	CHECK(session_run_begin(&s, &r) == 0);
	CHECK(mkdirat(s.upperfd, ".git", 0755) == 0);
	CHECK(fchmodat(s.upperfd, ".git", 0755, 0) == 0);
	fx_put(s.upperfd, ".git/index.lock", "x", 0644);
	CHECK(unlinkat(s.upperfd, ".git/index.lock", 0) == 0);
	CHECK(session_run_changed(&s, rootfd, &r) == 0);
	CHECK(session_run_end(&s, 0, 1) == 0);
	session_run_free(&r);
	settle();
	/* again, .git already in upper/ */
	CHECK(session_run_begin(&s, &r) == 0);
	fx_put(s.upperfd, ".git/index.lock", "x", 0644);
	CHECK(unlinkat(s.upperfd, ".git/index.lock", 0) == 0);
	CHECK(session_run_changed(&s, rootfd, &r) == 0);
	/* ... but a file that stays is a change */
	fx_put(s.upperfd, ".git/index", "new index", 0644);
	CHECK(session_run_changed(&s, rootfd, &r) == 1);
	CHECK(session_run_end(&s, 1, 1) == 0);
	session_run_free(&r);
	settle();
	/* an entry removed that was there before: a change */
	CHECK(session_run_begin(&s, &r) == 0);
	CHECK(unlinkat(s.upperfd, "kept", 0) == 0);
	CHECK(session_run_changed(&s, rootfd, &r) == 1);
	CHECK(session_run_end(&s, 1, 1) == 0);
	session_run_free(&r);
	settle();
	/* a directory re-moded: a change; a copy-up of another mode too */
	CHECK(session_run_begin(&s, &r) == 0);
	CHECK(fchmodat(s.upperfd, ".git", 0700, 0) == 0);
	CHECK(session_run_changed(&s, rootfd, &r) == 1);
	CHECK(session_run_end(&s, 1, 1) == 0);
	session_run_free(&r);
	settle();
	CHECK(session_run_begin(&s, &r) == 0);
	CHECK(mkdirat(s.upperfd, "src", 0755) == 0);
	CHECK(fchmodat(s.upperfd, "src", 0755, 0) == 0);
	CHECK(session_run_changed(&s, rootfd, &r) == 1);
	CHECK(unlinkat(s.upperfd, "src", AT_REMOVEDIR) == 0);
	/* a new opaque dir over a real one hides its entries: a change */
	CHECK(mkdirat(s.upperfd, "src", 0700) == 0);
	CHECK(fchmodat(s.upperfd, "src", 0700, 0) == 0);
	CHECK(session_run_changed(&s, rootfd, &r) == 0);
	CHECK((fd = openat(s.upperfd, "src", O_RDONLY | O_DIRECTORY)) >= 0);
	if (fsetxattr(fd, "user.overlay.opaque", "y", 1, 0) == 0)
		CHECK(session_run_changed(&s, rootfd, &r) == 1);
	close(fd);
	CHECK(session_run_end(&s, 1, 1) == 0);
	session_run_free(&r);
	session_close(&s);
	close(rootfd);
	close(store);
}

/* A run that could not record: `incomplete`, and the next one knows. */
static void
t_run_incomplete(void)
{
	struct session s;
	struct session_run r;
	int store = fresh();

	CHECK(session_open(store, "i", ws, &s) == 0);
	CHECK(session_lock(&s, LOCK_EX) == 0);
	CHECK(session_run_begin(&s, &r) == 0);
	CHECK(!r.unrecorded);
	CHECK(session_run_end(&s, 1, 0) == 0);
	session_run_free(&r);
	CHECK(fx_exists(s.dirfd, "incomplete") && !fx_exists(s.dirfd, "idle"));
	CHECK(session_run_incomplete(&s) == 1);
	CHECK(session_run_begin(&s, &r) == 0);
	CHECK(r.unrecorded && !r.stale);
	CHECK(!fx_exists(s.dirfd, "incomplete") && fx_exists(s.dirfd,
	    "running"));
	CHECK(session_run_end(&s, 0, 1) == 0);
	session_run_free(&r);
	CHECK(session_run_incomplete(&s) == 0);
	/* killed mid-run: the next run must mark what it left, too */
	CHECK(renameat(s.dirfd, "idle", s.dirfd, "running") == 0);
	CHECK(session_run_begin(&s, &r) == 0);
	CHECK(r.unrecorded && r.stale);
	CHECK(session_run_end(&s, 0, 1) == 0);
	session_run_free(&r);
	session_close(&s);
	close(store);
}

int
main(void)
{
	const char *t = getenv("TMPDIR");
	int rc;

	snprintf(root, sizeof root, "%s/session_test.XXXXXX", t ? t : "/tmp");
	if (mkdtemp(root) == NULL) {
		perror(root);
		return 1;
	}
	TEST(t_id_valid);
	TEST(t_new_id);
	TEST(t_create_open);
	TEST(t_bad_id_builds_no_path);
	TEST(t_meta_corrupt);
	TEST(t_meta_versions);
	TEST(t_unalias);
	TEST(t_default);
	TEST(t_sweep_leftovers);
	TEST(t_lock_excludes);
	TEST(t_lock_parallel);
	TEST(t_base_records);
	TEST(t_base_corrupt);
	TEST(t_base_links);
	TEST(t_list);
	TEST(t_rmtree_stays_inside);
	TEST(t_alloc_faults);
	TEST(t_run_marks);
	TEST(t_run_sweep);
	TEST(t_base_kinds);
	TEST(t_remove_damaged);
	TEST(t_rmtree_deep);
	TEST(t_rmtree_wide);
	TEST(t_lock_wait_note);
	TEST(t_run_changed_precisely);
	TEST(t_run_incomplete);
	rc = tap_done();
	session_rmtree(AT_FDCWD, root);
	return rc;
}
