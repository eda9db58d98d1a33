/*
 * fsx: resolution beneath a root (openat2 and the portable walk must give
 * the same answers), atomic writes, bounded reads, temp-file hygiene.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "lib/fsx.h"
#include "lib/hash.h"
#include "lib/mem.h"
#include "tap.h"

static char g_base[PATH_MAX], g_ws[PATH_MAX], g_out[PATH_MAX];
static int g_root = -1;

static void
cleanup(void)
{
	if (g_base[0] != '\0')
		fx_rm_rf(g_base);
}

static void
put(const char *rel, const char *data)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", g_ws, rel);
	CHECK((f = fopen(p, "w")) != NULL);
	fputs(data, f);
	CHECK(fclose(f) == 0);
}

static void
lnk(const char *target, const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof p, "%s/%s", g_ws, rel);
	CHECK(symlink(target, p) == 0);
}

static void
dir(const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof p, "%s/%s", g_ws, rel);
	CHECK(mkdir(p, 0755) == 0);
}

/* The fixture: ws/ (the root) next to out/ (must never be touched). */
static void
build_tree(void)
{
	char p[PATH_MAX];
	int i;

	if (g_root >= 0)
		close(g_root);
	if (g_base[0] == '\0') {
		const char *t = getenv("TMPDIR");

		snprintf(g_base, sizeof g_base, "%s/fsx_test.XXXXXX",
		    t && *t ? t : "/tmp");
		CHECK(mkdtemp(g_base) != NULL);
		atexit(cleanup);
	} else {
		fx_rm_rf(g_base);
		CHECK(mkdir(g_base, 0700) == 0);
	}
	snprintf(g_ws, sizeof g_ws, "%s/ws", g_base);
	snprintf(g_out, sizeof g_out, "%s/out", g_base);
	CHECK(mkdir(g_ws, 0755) == 0);
	CHECK(mkdir(g_out, 0755) == 0);
	snprintf(p, sizeof p, "%s/secret", g_out);
	CHECK(close(open(p, O_CREAT | O_WRONLY, 0600)) == 0);

	dir("a");
	dir("a/b");
	put("a/b/file", "hello");
	lnk("b", "a/rel");
	lnk("../a/b", "a/up");
	lnk(g_out, "abs");
	snprintf(p, sizeof p, "%s/a", g_ws);
	lnk(p, "abs_in");
	lnk("../out", "esc");
	lnk("../../out/secret", "a/esc2");
	lnk("loop2", "loop1");
	lnk("loop1", "loop2");
	lnk("self", "self");
	lnk("a/b/file", "flink");
	lnk("nothere", "dangling");
	lnk("a/new", "dangling_in");
	lnk("../out/created", "dangling_out");
	lnk("/proc/self/root", "magic");
	/* chains of exactly 40 and 41 links to a/b/file */
	for (i = 0; i < 41; i++) {
		char name[32], to[32];

		snprintf(name, sizeof name, "c%d", i);
		if (i == 0)
			snprintf(to, sizeof to, "a/b/file");
		else
			snprintf(to, sizeof to, "c%d", i - 1);
		lnk(to, name);
	}
	CHECK((g_root = open(g_ws, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0);
}

struct ocase {
	const char	*rel;
	int		 flags;
	int		 want;		/* 0: success, else errno */
	const char	*what;		/* on success: what it opened */
};

static const struct ocase cases[] = {
	{ "a/b/file", O_RDONLY, 0, "f:hello" },
	{ "a/b/file", O_RDONLY | O_NOFOLLOW, 0, "f:hello" },
	{ "a/./b//file", O_RDONLY, 0, "f:hello" },
	{ "a/../a/b/file", O_RDONLY, 0, "f:hello" },
	{ "a/rel/file", O_RDONLY, 0, "f:hello" },
	{ "a/up/file", O_RDONLY, 0, "f:hello" },
	{ "a/rel/../b/file", O_RDONLY, 0, "f:hello" },
	{ "flink", O_RDONLY, 0, "f:hello" },
	{ "flink", O_RDONLY | O_NOFOLLOW, ELOOP, NULL },
	{ "flink", O_PATH | O_NOFOLLOW, 0, "l" },
	{ "a/rel", O_RDONLY | O_DIRECTORY, 0, "d:a/b" },
	{ "a/rel/", O_RDONLY | O_NOFOLLOW, 0, "d:a/b" },
	{ "a/b/..", O_RDONLY, 0, "d:a" },
	{ ".", O_RDONLY, 0, "d:." },
	{ "a/..", O_RDONLY, 0, "d:." },
	{ "..", O_RDONLY, EXDEV, NULL },
	{ "../out/secret", O_RDONLY, EXDEV, NULL },
	{ "a/../../out/secret", O_RDONLY, EXDEV, NULL },
	{ "a/b/../../..", O_RDONLY, EXDEV, NULL },
	{ "/etc/passwd", O_RDONLY, EXDEV, NULL },
	{ "abs", O_RDONLY, EXDEV, NULL },
	{ "abs/secret", O_RDONLY, EXDEV, NULL },
	{ "abs_in/b/file", O_RDONLY, EXDEV, NULL },
	{ "esc/secret", O_RDONLY, EXDEV, NULL },
	{ "esc/secret", O_RDONLY | O_NOFOLLOW, EXDEV, NULL },
	{ "a/esc2", O_RDONLY, EXDEV, NULL },
	{ "magic", O_RDONLY, EXDEV, NULL },
	{ "magic/etc", O_RDONLY, EXDEV, NULL },
	{ "loop1", O_RDONLY, ELOOP, NULL },
	{ "loop1/x", O_RDONLY, ELOOP, NULL },
	{ "self", O_RDONLY, ELOOP, NULL },
	{ "c39", O_RDONLY, 0, "f:hello" },
	{ "c40", O_RDONLY, ELOOP, NULL },
	{ "dangling", O_RDONLY, ENOENT, NULL },
	{ "nothere/x", O_RDONLY, ENOENT, NULL },
	{ "", O_RDONLY, ENOENT, NULL },
	{ "a/b/file/x", O_RDONLY, ENOTDIR, NULL },
	{ "a/b/file/", O_RDONLY, ENOTDIR, NULL },
	{ "a/b", O_RDONLY | O_CREAT, EISDIR, NULL },
	{ "dangling_out", O_WRONLY | O_CREAT, EXDEV, NULL },
	{ "esc/new", O_WRONLY | O_CREAT, EXDEV, NULL },
	{ "dangling", O_WRONLY | O_CREAT | O_EXCL, EEXIST, NULL },
	{ "dangling_out", O_WRONLY | O_CREAT | O_EXCL, EEXIST, NULL },
	{ "dangling_in", O_WRONLY | O_CREAT, 0, "f:" },
	{ "dangling_in", O_WRONLY | O_CREAT | O_EXCL, EEXIST, NULL },
	{ "flink", O_WRONLY | O_CREAT | O_NOFOLLOW, ELOOP, NULL },
	{ "a/b/new2", O_WRONLY | O_CREAT | O_EXCL, 0, "f:" },
};
#define NCASES	(sizeof cases / sizeof cases[0])

/* Describe what fd is, in the fixture's terms. */
static void
describe(int fd, char *buf, size_t size)
{
	static const char *dirs[] = { ".", "a", "a/b" };
	struct stat st, ds;
	char p[PATH_MAX];
	ssize_t n;
	size_t i;
	int rfd;

	CHECK(fstat(fd, &st) == 0);
	if (S_ISLNK(st.st_mode)) {
		snprintf(buf, size, "l");
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
			snprintf(p, sizeof p, "%s/%s", g_ws, dirs[i]);
			CHECK(stat(p, &ds) == 0);
			if (ds.st_ino == st.st_ino && ds.st_dev == st.st_dev) {
				snprintf(buf, size, "d:%s", dirs[i]);
				return;
			}
		}
		snprintf(buf, size, "d:?");
		return;
	}
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	CHECK((rfd = open(p, O_RDONLY)) >= 0);
	n = read(rfd, p, sizeof p - 1);
	close(rfd);
	CHECK(n >= 0);
	p[n] = '\0';
	snprintf(buf, size, "f:%s", p);
}

/* Run every case in a fresh tree; results go to res[i]. */
static void
run_cases(int walk, char res[][64])
{
	size_t i;
	int fd;

	build_tree();
	fsx_force_walk(walk);
	for (i = 0; i < NCASES; i++) {
		errno = 0;
		fd = fsx_open_beneath(g_root, cases[i].rel, cases[i].flags,
		    0644);
		if (fd >= 0) {
			describe(fd, res[i], 64);
			close(fd);
		} else
			snprintf(res[i], 64, "e:%s", strerror(errno));
	}
	fsx_force_walk(0);
}

static void
t_cases_both_paths(void)
{
	static char r2[NCASES][64], rw[NCASES][64];
	char want[64];
	size_t i;
	int bad = 0, fds = fx_count_fds();

	run_cases(0, r2);
	CHECK(fx_count(AT_FDCWD, g_out, "") == 1);
	run_cases(1, rw);
	CHECK(fx_count(AT_FDCWD, g_out, "") == 1);
	for (i = 0; i < NCASES; i++) {
		if (cases[i].want == 0)
			snprintf(want, sizeof want, "%s", cases[i].what);
		else
			snprintf(want, sizeof want, "e:%s",
			    strerror(cases[i].want));
		if (strcmp(r2[i], want) != 0 || strcmp(rw[i], want) != 0) {
			fprintf(stderr, "# %s (flags %#x): openat2 %s, walk %s,"
			    " want %s\n", cases[i].rel, cases[i].flags, r2[i],
			    rw[i], want);
			bad++;
		}
	}
	CHECK(bad == 0);
	close(g_root);
	g_root = -1;
	CHECK(fx_count_fds() == fds);
}

static void
t_open_parent(void)
{
	const char *b;
	char d[64];
	int walk, fd;

	for (walk = 0; walk < 2; walk++) {
		build_tree();
		fsx_force_walk(walk);
		CHECK((fd = fsx_open_parent(g_root, "a/b/file", 0, &b)) >= 0);
		CHECK_STR(b, "file");
		describe(fd, d, sizeof d);
		CHECK_STR(d, "d:a/b");
		close(fd);
		CHECK((fd = fsx_open_parent(g_root, "top", 0, &b)) >= 0);
		CHECK_STR(b, "top");
		describe(fd, d, sizeof d);
		CHECK_STR(d, "d:.");
		close(fd);
		CHECK((fd = fsx_open_parent(g_root, "a/rel/x", 0, &b)) >= 0);
		describe(fd, d, sizeof d);
		CHECK_STR(d, "d:a/b");
		close(fd);
		/* ancestors that lead out: refused, nothing created outside */
		CHECK(fsx_open_parent(g_root, "abs/x", 1, &b) == -1 &&
		    errno == EXDEV);
		CHECK(fsx_open_parent(g_root, "abs/n1/n2/x", 1, &b) == -1 &&
		    errno == EXDEV);
		CHECK(fsx_open_parent(g_root, "esc/n1/x", 1, &b) == -1 &&
		    errno == EXDEV);
		CHECK(fsx_open_parent(g_root, "a/esc2/x", 1, &b) == -1);
		CHECK(fsx_open_parent(g_root, "../x", 1, &b) == -1 &&
		    errno == EXDEV);
		CHECK(fsx_open_parent(g_root, "/x", 1, &b) == -1 &&
		    errno == EXDEV);
		CHECK(fsx_open_parent(g_root, "a/../../x", 1, &b) == -1 &&
		    errno == EXDEV);
		CHECK(fx_count(AT_FDCWD, g_out, "") == 1);
		/* missing parents: ENOENT, or created with mkdirs */
		CHECK(fsx_open_parent(g_root, "n1/n2/x", 0, &b) == -1 &&
		    errno == ENOENT);
		CHECK(!fx_exists(g_root, "n1"));
		CHECK((fd = fsx_open_parent(g_root, "n1/n2/n3/x", 1, &b)) >= 0);
		CHECK_STR(b, "x");
		close(fd);
		CHECK(fx_exists(g_root, "n1/n2/n3"));
		CHECK((fd = fsx_open_parent(g_root, "a/rel/m1/x", 1, &b)) >= 0);
		close(fd);
		CHECK(fx_exists(g_root, "a/b/m1"));
		CHECK(fsx_open_parent(g_root, "a/b/file/x/y", 1, &b) == -1 &&
		    errno == ENOTDIR);
		CHECK(fsx_open_parent(g_root, "loop1/x", 1, &b) == -1 &&
		    errno == ELOOP);
		/* a last component that cannot be a file name */
		CHECK(fsx_open_parent(g_root, "a/..", 0, &b) == -1 &&
		    errno == EINVAL);
		CHECK(fsx_open_parent(g_root, "a/", 0, &b) == -1 &&
		    errno == EINVAL);
		CHECK(fsx_open_parent(g_root, "", 0, &b) == -1 &&
		    errno == EINVAL);
		fsx_force_walk(0);
	}
}

/* fsx_open_dirs: a link never counts, even one that stays beneath root. */
static void
t_open_dirs(void)
{
	struct stat st;
	const char *b;
	char d[64];
	int fd, made, fds = fx_count_fds();
	mode_t old;

	build_tree();
	CHECK((fd = fsx_open_dirs(g_root, "a//b/file", FSX_DIRS_PARENT, 0, &b,
	    NULL)) >= 0);
	CHECK_STR(b, "file");
	describe(fd, d, sizeof d);
	CHECK_STR(d, "d:a/b");
	close(fd);
	CHECK((fd = fsx_open_dirs(g_root, "top", FSX_DIRS_PARENT, 0, &b,
	    NULL)) >= 0);
	CHECK_STR(b, "top");
	describe(fd, d, sizeof d);
	CHECK_STR(d, "d:.");
	close(fd);
	CHECK((fd = fsx_open_dirs(g_root, "a/b", 0, 0, NULL, NULL)) >= 0);
	describe(fd, d, sizeof d);
	CHECK_STR(d, "d:a/b");
	close(fd);
	/* links in the way, inside or out: ELOOP, nothing made */
	CHECK(fsx_open_dirs(g_root, "a/rel/x", FSX_DIRS_PARENT |
	    FSX_DIRS_MAKE, 0700, &b, &made) == -1 && errno == ELOOP);
	CHECK(b != NULL && strcmp(b, "rel/x") == 0);	/* the link's name */
	CHECK(fsx_open_dirs(g_root, "/a/x", FSX_DIRS_PARENT, 0, &b, NULL) ==
	    -1 && errno == EINVAL);
	CHECK(fsx_open_dirs(g_root, "a/..", FSX_DIRS_PARENT, 0, &b, NULL) ==
	    -1 && errno == EINVAL);
	CHECK(fsx_open_dirs(g_root, "abs/n1/x", FSX_DIRS_PARENT |
	    FSX_DIRS_MAKE, 0700, &b, &made) == -1 && errno == ELOOP);
	CHECK(fx_count(AT_FDCWD, g_out, "") == 1);
	CHECK(fsx_open_dirs(g_root, "a/b/file/x", FSX_DIRS_PARENT, 0, &b,
	    NULL) == -1 && errno == ENOTDIR);
	CHECK(fsx_open_dirs(g_root, "a/../a/x", FSX_DIRS_PARENT, 0, &b,
	    NULL) == -1 && errno == EINVAL);
	CHECK(fsx_open_dirs(g_root, "./a/x", FSX_DIRS_PARENT, 0, &b,
	    NULL) == -1 && errno == EINVAL);
	/* made with the mode asked for, whatever the umask */
	old = umask(0277);
	CHECK((fd = fsx_open_dirs(g_root, "m1/m2/x", FSX_DIRS_PARENT |
	    FSX_DIRS_MAKE, 0700, &b, &made)) >= 0 && made == 1);
	umask(old);
	CHECK(fstat(fd, &st) == 0 && (st.st_mode & 07777) == 0700);
	close(fd);
	CHECK((fd = fsx_open_dirs(g_root, "m1/m2", FSX_DIRS_MAKE, 0700, NULL,
	    &made)) >= 0 && made == 0);
	close(fd);
	CHECK(fsx_open_dirs(g_root, "n1/x", FSX_DIRS_PARENT, 0, &b, NULL) ==
	    -1 && errno == ENOENT);
	CHECK(!fx_exists(g_root, "n1"));
	close(g_root);
	g_root = -1;
	CHECK(fx_count_fds() == fds);
}

static void
read_back(const char *rel, const char *want, mode_t mode)
{
	char p[PATH_MAX], buf[256];
	struct stat st;
	ssize_t n;
	int fd;

	snprintf(p, sizeof p, "%s/%s", g_ws, rel);
	CHECK(lstat(p, &st) == 0 && S_ISREG(st.st_mode));
	CHECK((st.st_mode & 07777) == mode);
	CHECK((fd = open(p, O_RDONLY)) >= 0);
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	CHECK(n >= 0);
	buf[n] = '\0';
	CHECK_STR(buf, want);
}

static void
t_write_atomic(void)
{
	char p[PATH_MAX];
	const char *b;
	int fd, fds;

	build_tree();
	fds = fx_count_fds();
	CHECK((fd = fsx_open_parent(g_root, "a/b/file", 0, &b)) >= 0);
	CHECK(fsx_write_atomic(fd, "new", "one", 3, 0640, 1) == 0);
	read_back("a/b/new", "one", 0640);
	CHECK(fsx_write_atomic(fd, "new", "two", 3, 0600, 1) == -1 &&
	    errno == EEXIST);
	read_back("a/b/new", "one", 0640);
	CHECK(fsx_write_atomic(fd, "new", "three", 5, 0751, 0) == 0);
	read_back("a/b/new", "three", 0751);
	/* an injected write failure: original intact, errno kept */
	fsx_fail_write_after(0);
	CHECK(fsx_write_atomic(fd, "new", "four", 4, 0644, 0) == -1 &&
	    errno == EIO);
	CHECK(fsx_write_failed());
	fsx_fail_write_after(-1);
	read_back("a/b/new", "three", 0751);
	/* the name became a directory: EISDIR from the rename */
	CHECK(mkdirat(fd, "d", 0755) == 0);
	CHECK(fsx_write_atomic(fd, "d", "x", 1, 0644, 0) == -1 &&
	    errno == EISDIR);
	CHECK(fsx_write_atomic(fd, "d", "x", 1, 0644, 1) == -1 &&
	    errno == EEXIST);
	CHECK(fx_count(AT_FDCWD, g_ws, FSX_TMP_PREFIX) == 0);
	snprintf(p, sizeof p, "%s/a/b", g_ws);
	CHECK(fx_count(AT_FDCWD, p, FSX_TMP_PREFIX) == 0);
	close(fd);
	/* a symlink named like the target is replaced, never followed */
	CHECK((fd = fsx_open_parent(g_root, "esc", 0, &b)) >= 0);
	CHECK(fsx_write_atomic(fd, "esc", "mine", 4, 0644, 0) == 0);
	read_back("esc", "mine", 0644);
	CHECK(fx_count(AT_FDCWD, g_out, "") == 1);
	/* a fresh symlink, atomically */
	CHECK(fsx_symlink_atomic(fd, "sl", "a/b/file", 1) == 0);
	CHECK(fsx_symlink_atomic(fd, "sl", "x", 1) == -1 && errno == EEXIST);
	CHECK(fsx_symlink_atomic(fd, "sl", "a/rel", 0) == 0);
	snprintf(p, sizeof p, "%s/sl", g_ws);
	{
		char t[64];
		ssize_t n = readlink(p, t, sizeof t - 1);

		CHECK(n == 5);
		t[n] = '\0';
		CHECK_STR(t, "a/rel");
	}
	CHECK(fx_count(AT_FDCWD, g_ws, FSX_TMP_PREFIX) == 0);
	close(fd);
	CHECK(fx_count_fds() == fds);
}

static void
t_write_atomic_fd(void)
{
	char p[PATH_MAX], buf[16];
	const char *b;
	struct stat st;
	off_t size = 64L << 20;
	int src, fd;

	build_tree();
	snprintf(p, sizeof p, "%s/src", g_base);
	CHECK((src = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600)) >= 0);
	CHECK(ftruncate(src, size) == 0);
	CHECK(pwrite(src, "start", 5, 0) == 5);
	CHECK(pwrite(src, "mid", 3, 1 << 20) == 3);
	CHECK(pwrite(src, "end", 3, size - 3) == 3);
	CHECK((fd = fsx_open_parent(g_root, "big", 0, &b)) >= 0);
	CHECK(fsx_write_atomic_fd(fd, "big", src, 0644, 1) == 0);
	CHECK(fstatat(fd, "big", &st, AT_SYMLINK_NOFOLLOW) == 0);
	CHECK(st.st_size == size);
	/* holes stay holes: far fewer blocks than the size */
	CHECK(st.st_blocks * 512 < size / 2);
	close(src);
	CHECK((src = openat(fd, "big", O_RDONLY)) >= 0);
	CHECK(pread(src, buf, 5, 0) == 5 && memcmp(buf, "start", 5) == 0);
	CHECK(pread(src, buf, 4, (1 << 20) - 1) == 4 &&
	    memcmp(buf, "\0mid", 4) == 0);
	CHECK(pread(src, buf, 4, size - 4) == 4 &&
	    memcmp(buf, "\0end", 4) == 0);
	/* not a regular file */
	CHECK(fsx_write_atomic_fd(fd, "x", fd, 0644, 1) == -1 &&
	    errno == EINVAL);
	close(src);
	CHECK(fx_count(AT_FDCWD, g_ws, FSX_TMP_PREFIX) == 0);
	close(fd);
}

/* For n = 0, 1, ...: the nth write fails; no temp file, old or new. */
static void
t_write_fault_loop(void)
{
	char p[PATH_MAX], *buf;
	const char *b;
	size_t len = 1 << 20;
	long n;
	int src, fd, r, fds;

	build_tree();
	fds = fx_count_fds();
	CHECK((buf = malloc(len)) != NULL);
	memset(buf, 'n', len);
	snprintf(p, sizeof p, "%s/src", g_base);
	CHECK((src = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600)) >= 0);
	CHECK(write(src, buf, len) == (ssize_t)len);
	CHECK((fd = fsx_open_parent(g_root, "a/b/file", 0, &b)) >= 0);
	for (n = 0; ; n++) {
		fsx_fail_write_after(n);
		r = fsx_write_atomic_fd(fd, "file", src, 0600, 0);
		fsx_fail_write_after(-1);
		snprintf(p, sizeof p, "%s/a/b", g_ws);
		CHECK(fx_count(AT_FDCWD, p, FSX_TMP_PREFIX) == 0);
		if (r == 0)
			break;
		CHECK(errno == EIO);
		read_back("a/b/file", "hello", 0644);
	}
	CHECK(n == (long)(len / (256 * 1024)));
	close(src);
	close(fd);
	free(buf);
	CHECK(fx_count_fds() == fds);
}

static void
t_read_all(void)
{
	char p[PATH_MAX], *buf;
	const char *b;
	size_t len;
	long n;
	int fd;

	build_tree();
	alarm(20);	/* a blocking open on the fifo would hang: fail instead */
	CHECK((fd = fsx_open_parent(g_root, "a/b/file", 0, &b)) >= 0);
	CHECK(fsx_read_all(fd, "file", 100, &buf, &len) == 0);
	CHECK(len == 5 && memcmp(buf, "hello", 5) == 0 && buf[5] == '\0');
	mem_free(buf);
	CHECK(fsx_read_all(fd, "file", 4, &buf, &len) == -1 &&
	    errno == EFBIG);
	CHECK(fsx_read_all(fd, "file", 5, &buf, &len) == 0 && len == 5);
	mem_free(buf);
	CHECK(fsx_read_all(fd, "missing", 5, &buf, &len) == -1 &&
	    errno == ENOENT);
	CHECK(mkfifoat(fd, "fifo", 0644) == 0);
	CHECK(fsx_read_all(fd, "fifo", 100, &buf, &len) == -1 &&
	    errno == EINVAL);
	CHECK(fsx_read_all(fd, ".", 100, &buf, &len) == -1 &&
	    errno == EINVAL);
	close(fd);
	CHECK(fsx_read_all(g_root, "flink", 100, &buf, &len) == -1 &&
	    errno == ELOOP);
	CHECK(fsx_read_all(g_root, "/dev/zero", 100, &buf, &len) == -1 &&
	    errno == EINVAL);
	snprintf(p, sizeof p, "%s/a", g_ws);
	/* allocation failures: ENOMEM, nothing leaked (ASan checks) */
	for (n = 0; ; n++) {
		mem_fail_after(n);
		if (fsx_read_all(g_root, "a/b/file", 100, &buf, &len) == 0) {
			mem_fail_after(-1);
			/* what a read without a failure gets */
			CHECK(len == 5 && memcmp(buf, "hello", 5) == 0);
			mem_free(buf);
			break;
		}
		mem_fail_after(-1);
		CHECK(errno == ENOMEM);
	}
	CHECK(n == 1);
	alarm(0);
}

static void
t_chmod_nofollow(void)
{
	char p[PATH_MAX];
	struct stat st;

	build_tree();
	CHECK(fsx_chmod_nofollow(g_root, "flink", 0600) == -1 &&
	    errno == EOPNOTSUPP);
	snprintf(p, sizeof p, "%s/a/b/file", g_ws);
	CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0644);
	CHECK(fsx_chmod_nofollow(g_root, "esc", 0777) == -1 &&
	    errno == EOPNOTSUPP);
	CHECK(stat(g_out, &st) == 0 && (st.st_mode & 07777) == 0755);
	CHECK(fsx_chmod_nofollow(g_root, "a/b/file", 0751) == 0);
	CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0751);
	CHECK(fsx_chmod_nofollow(g_root, "a", 0711) == 0);
	snprintf(p, sizeof p, "%s/a", g_ws);
	CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0711);
	CHECK(fsx_chmod_nofollow(g_root, "missing", 0600) == -1 &&
	    errno == ENOENT);
}


/* Streams, temp objects left for the caller, the exclusive rename. */
static void
t_stream_and_tmp(void)
{
	char tmp[FSX_TMP_NAMELEN + 1], buf[64], p[PATH_MAX];
	const char *b;
	struct stat st, a;
	int fd, pp[2], src;
	pid_t pid;

	build_tree();
	CHECK((fd = fsx_open_parent(g_root, "a/b/file", 0, &b)) >= 0);
	/* a pipe, read to its end in pieces */
	CHECK(pipe(pp) == 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		int i;

		close(pp[0]);
		for (i = 0; i < 1000; i++)
			CHECK(write(pp[1], "0123456789", 10) == 10);
		_exit(0);
	}
	close(pp[1]);
	CHECK(fsx_write_atomic_stream(fd, "piped", pp[0], 0640, 0) == 0);
	close(pp[0]);
	waitpid(pid, NULL, 0);
	CHECK(fstatat(fd, "piped", &st, 0) == 0 && st.st_size == 10000 &&
	    (st.st_mode & 07777) == 0640);
	/* a failing write midway leaves nothing */
	CHECK((src = openat(fd, "piped", O_RDONLY)) >= 0);
	fsx_fail_write_after(0);
	CHECK(fsx_write_atomic_stream(fd, "nope", src, 0644, 0) == -1 &&
	    errno == EIO);
	fsx_fail_write_after(-1);
	CHECK(fstatat(fd, "nope", &st, 0) == -1);
	/* temp objects stay under their names until the caller moves them */
	CHECK(lseek(src, 0, SEEK_SET) == 0);
	CHECK(fsx_tmp_file(fd, src, 0604, tmp, &st, NULL) == 0);
	CHECK(fsx_is_tmp_name(tmp) && S_ISREG(st.st_mode) &&
	    (st.st_mode & 07777) == 0604 && st.st_size == 10000);
	CHECK(fsx_rename_noreplace(fd, tmp, "piped") == -1 && errno == EEXIST);
	CHECK(fsx_rename_noreplace(fd, tmp, "copy") == 0);
	CHECK(fsx_tmp_symlink(fd, "../target", tmp) == 0);
	CHECK(readlinkat(fd, tmp, buf, sizeof buf) == 9);
	CHECK(unlinkat(fd, tmp, 0) == 0);
	CHECK(fsx_tmp_fifo(fd, 0610, tmp) == 0);
	CHECK(fstatat(fd, tmp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISFIFO(st.st_mode) && (st.st_mode & 07777) == 0610);
	CHECK(unlinkat(fd, tmp, 0) == 0);
	CHECK(fsx_tmp_link(fd, "copy", fd, tmp) == 0);
	CHECK(fstatat(fd, tmp, &st, 0) == 0 && fstatat(fd, "copy", &a, 0) == 0 &&
	    st.st_ino == a.st_ino);
	CHECK(fsx_sweep_tmp(fd) == 1);
	CHECK(fsx_tmp_link(fd, "missing", fd, tmp) == -1 && errno == ENOENT);
	close(src);
	snprintf(p, sizeof p, "%s/a/b", g_ws);
	CHECK(fx_count(AT_FDCWD, p, FSX_TMP_PREFIX) == 0);
	/* FSX_NOSYNC: the same result */
	CHECK(fsx_write_atomic(fd, "ns", "x", 1, 0600,
	    FSX_NOSYNC | FSX_NOREPLACE) == 0);
	CHECK(fsx_write_atomic(fd, "ns", "y", 1, 0600,
	    FSX_NOSYNC | FSX_NOREPLACE) == -1 && errno == EEXIST);
	close(fd);
}

static void
t_tmp_names(void)
{
	char p[PATH_MAX];
	int fd;

	build_tree();
	CHECK(fsx_is_tmp_name(".arcturn-tmp-0123456789abcdef"));
	CHECK(!fsx_is_tmp_name(".arcturn-tmp-0123456789abcde"));
	CHECK(!fsx_is_tmp_name(".arcturn-tmp-0123456789abcdefa"));
	CHECK(!fsx_is_tmp_name(".arcturn-tmp-0123456789ABCDEF"));
	CHECK(!fsx_is_tmp_name("arcturn-tmp-0123456789abcdef"));
	put(".arcturn-tmp-0123456789abcdef", "left by a crash");
	put(".arcturn-tmp-keepme", "a user's file");
	lnk("a", ".arcturn-tmp-aaaaaaaaaaaaaaaa");
	CHECK((fd = open(g_ws, O_RDONLY | O_DIRECTORY)) >= 0);
	CHECK(fsx_sweep_tmp(fd) == 2);
	close(fd);
	CHECK(!fx_exists(g_root, ".arcturn-tmp-0123456789abcdef"));
	CHECK(!fx_exists(g_root, ".arcturn-tmp-aaaaaaaaaaaaaaaa"));
	CHECK(fx_exists(g_root, ".arcturn-tmp-keepme"));
	CHECK(fx_exists(g_root, "a/b/file"));
	snprintf(p, sizeof p, "%s/a/b", g_ws);
	CHECK(fx_exists(AT_FDCWD, p));
}

/*
 * Swap names: a sweep removes one only while it holds the inode it names
 * (ours, never exchanged) or a regular file with another link (kept);
 * what an exchange moved aside and nothing else holds stays.
 */
static void
t_swap_names(void)
{
	char ours[FSX_SWP_NAMELEN + 1], aside[FSX_SWP_NAMELEN + 1],
	    kept[FSX_SWP_NAMELEN + 1], want[64];
	struct stat st;
	int fd;

	build_tree();
	CHECK((fd = open(g_ws, O_RDONLY | O_DIRECTORY)) >= 0);
	put("new", "ours");
	put("theirs", "the user's only copy");
	put("base", "kept by a link");
	CHECK(fstatat(fd, "new", &st, 0) == 0);
	CHECK(fsx_swap_name(fd, "new", st.st_ino, ours) == 0);
	snprintf(want, sizeof want, "%s%016llx-", FSX_SWP_PREFIX,
	    (unsigned long long)st.st_ino);
	CHECK(strlen(ours) == FSX_SWP_NAMELEN &&
	    strncmp(ours, want, strlen(want)) == 0);
	CHECK(!fx_exists(g_root, "new") && fx_exists(g_root, ours));
	/* ours named, then exchanged: the name holds the user's version */
	CHECK(fsx_swap_name(fd, "theirs", 0xfedcba987654ULL, aside) == 0);
	CHECK(fsx_swap_name(fd, "base", 0xfedcba987655ULL, kept) == 0);
	CHECK(linkat(fd, kept, fd, "base.kept", 0) == 0);
	put(".arcturn-swp-00000000000000zz-0000", "not a swap name");
	CHECK(fsx_swap_name(fd, "missing", 1, want) == -1 && errno == ENOENT);
	CHECK(fsx_sweep_tmp(fd) == 2);
	close(fd);
	CHECK(!fx_exists(g_root, ours));
	CHECK(!fx_exists(g_root, kept) && fx_exists(g_root, "base.kept"));
	CHECK(fx_exists(g_root, aside));
	CHECK(fx_exists(g_root, ".arcturn-swp-00000000000000zz-0000"));
}

/*
 * fsx_replace_if: lands only over the content hashed; anything else
 * there (other bytes, another mode, a symlink, a directory, nothing) is
 * ECANCELED and stays as it was; no temp file survives.
 */
static void
t_replace_if(void)
{
	unsigned char one[HASH_LEN], other[HASH_LEN];
	char p[PATH_MAX];
	int fds, pid, st;

	build_tree();
	fds = fx_count_fds();
	hash_buf("one", 3, one);
	hash_buf("ONE", 3, other);
	put("f", "one");
	snprintf(p, sizeof p, "%s/f", g_ws);
	CHECK(chmod(p, 0640) == 0);
	CHECK(fsx_replace_if(g_root, "f", other, "two", 3) == -1 &&
	    errno == ECANCELED);
	read_back("f", "one", 0640);
	CHECK(fsx_replace_if(g_root, "f", one, "ONE", 3) == 0);
	read_back("f", "ONE", 0640);
	/* the same call again: the file no longer holds "one" */
	CHECK(fsx_replace_if(g_root, "f", one, "ONE", 3) == -1 &&
	    errno == ECANCELED);
	/* the content is what counts, not the inode: a rename-save */
	put("f", "one");
	CHECK(chmod(p, 0600) == 0);
	CHECK(fsx_replace_if(g_root, "f", one, "", 0) == 0);
	read_back("f", "", 0600);
	CHECK(fsx_replace_if(g_root, "missing", one, "x", 1) == -1 &&
	    errno == ECANCELED);
	CHECK(!fx_exists(g_root, "missing"));
	lnk("f", "sl");
	put("f", "one");
	CHECK(fsx_replace_if(g_root, "sl", one, "x", 1) == -1 &&
	    errno == ECANCELED);
	dir("d");
	CHECK(fsx_replace_if(g_root, "d", one, "x", 1) == -1 &&
	    errno == ECANCELED);
	/* a write that fails: the original stays, the errno is kept */
	fsx_fail_write_after(0);
	CHECK(fsx_replace_if(g_root, "f", one, "two", 3) == -1 &&
	    errno == EIO);
	fsx_fail_write_after(-1);
	read_back("f", "one", 0600);
	/* the stream variant */
	{
		int pfd[2];

		CHECK(pipe(pfd) == 0);
		CHECK(write(pfd[1], "piped", 5) == 5);
		close(pfd[1]);
		CHECK(fsx_replace_if_stream(g_root, "f", one, pfd[0]) == 0);
		close(pfd[0]);
		read_back("f", "piped", 0600);
	}
	/*
	 * A change between the check and the swap (the test pause): the
	 * exchange puts it back. A child rewrites f in place once the temp
	 * file is there.
	 */
	put("f", "one");
	if ((pid = fork()) == 0) {
		int i, fd;

		for (i = 0; i < 400 && fx_count(AT_FDCWD, g_ws,
		    FSX_TMP_PREFIX) == 0; i++)
			usleep(10000);
		fd = open(p, O_WRONLY | O_TRUNC);
		_exit(fd >= 0 && write(fd, "user", 4) == 4 ? 0 : 1);
	}
	CHECK(pid > 0);
	setenv("ARCTURN_TEST_EDIT_PAUSE_MS", "1500", 1);
	CHECK(fsx_replace_if(g_root, "f", one, "ours", 4) == -1 &&
	    errno == ECANCELED);
	unsetenv("ARCTURN_TEST_EDIT_PAUSE_MS");
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0);
	read_back("f", "user", 0600);
	CHECK(fx_count(AT_FDCWD, g_ws, FSX_TMP_PREFIX) == 0);
	CHECK(fx_count_fds() == fds);
}

/* tap.h ends a passing test with _exit(): clean up explicitly. */
static void (*g_test)(void);

static void
run_and_clean(void)
{
	g_test();
	cleanup();
}

#define RUN(fn)	do { g_test = fn; tap_run(#fn, run_and_clean); } while (0)

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	RUN(t_cases_both_paths);
	RUN(t_open_parent);
	RUN(t_open_dirs);
	RUN(t_write_atomic);
	RUN(t_write_atomic_fd);
	RUN(t_write_fault_loop);
	RUN(t_read_all);
	RUN(t_chmod_nofollow);
	RUN(t_tmp_names);
	RUN(t_swap_names);
	RUN(t_stream_and_tmp);
	RUN(t_replace_if);
	return tap_done();
}
