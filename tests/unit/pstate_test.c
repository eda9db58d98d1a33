/*
 * pstate_test: a path's recorded state (lib/pstate.h): every kind read
 * without following a link, what the look hands back, the rules of
 * pstate_same, and the record words both ways.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "lib/hash.h"
#include "lib/pstate.h"
#include "tap.h"

static char g_dir[PATH_MAX];
static int g_fd = -1;

static void
setup(void)
{
	fx_tmpdir(g_dir, "pstate_test");
	CHECK((g_fd = open(g_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0);
}

static void
cleanup(void)
{
	close(g_fd);
	fx_rm_rf(g_dir);
}

/* Files, links, folders, fifos, sockets and nothing, each as it is. */
static void
t_kinds(void)
{
	struct sockaddr_un sa;
	struct pstate s;
	unsigned char d[HASH_LEN];
	int fd, n;

	setup();
	fx_put(g_fd, "f", "hello\n", 0640);
	CHECK(fchmodat(g_fd, "f", 0640, 0) == 0);
	CHECK(symlinkat("f", g_fd, "l") == 0);
	CHECK(symlinkat("nowhere", g_fd, "dangling") == 0);
	CHECK(mkdirat(g_fd, "d", 0750) == 0 &&
	    fchmodat(g_fd, "d", 0750, 0) == 0);
	CHECK(mkfifoat(g_fd, "p", 0600) == 0 &&
	    fchmodat(g_fd, "p", 0600, 0) == 0);

	CHECK(pstate_read(g_fd, "f", &s, NULL) == 0);
	hash_buf("hello\n", 6, d);
	CHECK(s.kind == PSTATE_FILE && s.mode == 0640 &&
	    memcmp(s.sha, d, HASH_LEN) == 0);
	/* a link is its target, never what it points at */
	CHECK(pstate_read(g_fd, "l", &s, NULL) == 0);
	hash_buf("f", 1, d);
	CHECK(s.kind == PSTATE_LINK && memcmp(s.sha, d, HASH_LEN) == 0);
	CHECK(pstate_read(g_fd, "dangling", &s, NULL) == 0);
	CHECK(s.kind == PSTATE_LINK);
	memset(d, 0, sizeof d);
	CHECK(pstate_read(g_fd, "d", &s, NULL) == 0);
	CHECK(s.kind == PSTATE_DIR && s.mode == 0750 &&
	    memcmp(s.sha, d, HASH_LEN) == 0);
	/* a fifo is looked at, not opened (that would block) */
	CHECK(pstate_read(g_fd, "p", &s, NULL) == 0);
	CHECK(s.kind == PSTATE_FIFO && s.mode == 0600 && pstate_special(&s) &&
	    memcmp(s.sha, d, HASH_LEN) == 0);
	CHECK(pstate_read(g_fd, "none", &s, NULL) == 0);
	CHECK(s.kind == PSTATE_ABSENT && s.mode == 0 &&
	    memcmp(s.sha, d, HASH_LEN) == 0);
	/* a socket, where the path fits in sun_path */
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	n = snprintf(sa.sun_path, sizeof sa.sun_path, "%s/s", g_dir);
	if (n > 0 && (size_t)n < sizeof sa.sun_path) {
		CHECK((fd = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0);
		CHECK(bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
		CHECK(pstate_read(g_fd, "s", &s, NULL) == 0);
		CHECK(s.kind == PSTATE_SOCK && pstate_special(&s));
		close(fd);
	}
	/* a name beneath a file: not absent, an error */
	CHECK(pstate_read(g_fd, "f/x", &s, NULL) == -1 && errno == ENOTDIR);
	cleanup();
}

/* The look: a link's target, a regular file's stat and open fd. */
static void
t_look(void)
{
	struct pstate_look lk;
	struct pstate s;
	struct stat st;
	char target[PATH_MAX], buf[8];
	int before;

	setup();
	fx_put(g_fd, "f", "abc", 0600);
	CHECK(symlinkat("some/where", g_fd, "l") == 0);
	before = fx_count_fds();
	lk.target = target;
	CHECK(pstate_read(g_fd, "f", &s, &lk) == 0);
	CHECK(fstatat(g_fd, "f", &st, AT_SYMLINK_NOFOLLOW) == 0);
	CHECK(lk.fd >= 0 && !lk.replaced && lk.st.st_ino == st.st_ino &&
	    lk.st.st_size == 3);
	CHECK(pread(lk.fd, buf, sizeof buf, 0) == 3 &&
	    memcmp(buf, "abc", 3) == 0);
	close(lk.fd);
	CHECK(pstate_read(g_fd, "l", &s, &lk) == 0);
	CHECK(lk.fd == -1 && strcmp(target, "some/where") == 0 &&
	    S_ISLNK(lk.st.st_mode));
	/* without a buffer the target is still hashed */
	lk.target = NULL;
	CHECK(pstate_read(g_fd, "l", &s, &lk) == 0 && s.kind == PSTATE_LINK);
	CHECK(pstate_read(g_fd, "gone", &s, &lk) == 0);
	CHECK(s.kind == PSTATE_ABSENT && lk.fd == -1 && lk.st.st_ino == 0);
	CHECK(fx_count_fds() == before);
	cleanup();
}

/* What counts for each kind, and what does not. */
static void
t_same(void)
{
	struct pstate a, b;

	memset(&a, 0, sizeof a);
	b = a;
	a.mode = 0644;		/* absent: nothing else counts */
	CHECK(pstate_same(&a, &b));
	a.kind = b.kind = PSTATE_FILE;
	CHECK(!pstate_same(&a, &b));
	b.mode = 0644;
	CHECK(pstate_same(&a, &b));
	b.sha[0] = 1;
	CHECK(!pstate_same(&a, &b));
	/* a link: its target, never its mode */
	a.kind = b.kind = PSTATE_LINK;
	CHECK(!pstate_same(&a, &b));
	a.sha[0] = 1;
	a.mode = 0777;
	CHECK(pstate_same(&a, &b));
	/* a folder or a fifo: its mode */
	a.kind = b.kind = PSTATE_DIR;
	CHECK(!pstate_same(&a, &b));
	a.mode = 0644;
	CHECK(pstate_same(&a, &b));
	a.kind = b.kind = PSTATE_FIFO;
	CHECK(pstate_same(&a, &b));
	b.kind = PSTATE_SOCK;
	CHECK(!pstate_same(&a, &b));
}

/* The record words, both ways; a type without a kind. */
static void
t_names(void)
{
	static const char *const words[] = { "absent", "file", "link", "dir",
	    "fifo", "sock", "chr", "blk" };
	size_t i;

	for (i = 0; i < sizeof words / sizeof words[0]; i++) {
		CHECK_STR(pstate_kind_name((enum pstate_kind)i), words[i]);
		CHECK(pstate_kind_parse(words[i]) == (int)i);
	}
	CHECK(pstate_kind_parse("other") == -1);
	CHECK(pstate_kind_parse("none") == -1);
	CHECK(pstate_kind_parse("") == -1);
	CHECK(pstate_kind_of(S_IFREG | 0644) == PSTATE_FILE);
	CHECK(pstate_kind_of(S_IFBLK) == PSTATE_BLK);
	CHECK(pstate_kind_of(0) == -1);
}

int
main(void)
{
	TEST(t_kinds);
	TEST(t_look);
	TEST(t_same);
	TEST(t_names);
	return tap_done();
}
