/*
 * apply: every item lands whole or not at all, never outside the
 * workspace, conflicts are refused, failures stay per item, a kill -9
 * leaves old-or-new files and a second run finishes.
 */
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apply/apply.h"
#include "fixture.h"
#include "lib/fsx.h"
#include "lib/hash.h"
#include "lib/mem.h"
#include "tap.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE	(1 << 1)
#endif

#define R_ESCAPE	"resolves outside the workspace (symlink); refused"
#define R_CHANGED	"changed since capture; refused"
#define R_CREATED	"created since capture; refused"
#define R_DELETED	"deleted since capture; refused"
#define R_NOTEMPTY	"not empty: holds entries created since capture; kept"

static char g_base[PATH_MAX], g_ws[PATH_MAX], g_up[PATH_MAX], g_out[PATH_MAX];
static char g_kept[PATH_MAX];
static int g_root = -1, g_upfd = -1;
static const char *g_tmproot;	/* instead of $TMPDIR */

static void
cleanup(void)
{
	if (g_base[0] != '\0')
		fx_rm_rf(g_base);
}

static void
path_in(char *buf, const char *top, const char *rel)
{
	snprintf(buf, PATH_MAX, "%s/%s", top, rel);
}

static void
mkparents(const char *top, const char *rel)
{
	int fd;

	CHECK((fd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0);
	fx_mkparents(fd, rel);
	close(fd);
}

static void
put(const char *top, const char *rel, const char *data, mode_t mode)
{
	int fd;

	CHECK((fd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0);
	fx_put(fd, rel, data, mode);
	close(fd);
}

static void
lnk(const char *top, const char *rel, const char *target)
{
	char p[PATH_MAX];

	mkparents(top, rel);
	path_in(p, top, rel);
	CHECK(symlink(target, p) == 0);
}

static void
mkd(const char *top, const char *rel)
{
	char p[PATH_MAX];

	mkparents(top, rel);
	path_in(p, top, rel);
	CHECK(mkdir(p, 0755) == 0);
}

static int g_ntmp;

static int
tmp_cb(const char *p, const struct stat *st, int type, struct FTW *f)
{
	if (fsx_is_tmp_name(p + f->base) ||
	    strncmp(p + f->base, FSX_SWP_PREFIX, sizeof FSX_SWP_PREFIX - 1) == 0)
		g_ntmp++;
	return 0;
}

/* Temp files anywhere in the workspace. */
static int
count_tmp(void)
{
	g_ntmp = 0;
	CHECK(nftw(g_ws, tmp_cb, 32, FTW_PHYS) == 0);
	return g_ntmp;
}

static void
setup(void)
{
	const char *t = g_tmproot ? g_tmproot : getenv("TMPDIR");

	if (g_root >= 0)
		close(g_root);
	if (g_upfd >= 0)
		close(g_upfd);
	if (g_base[0] == '\0') {
		snprintf(g_base, sizeof g_base, "%s/apply_test.XXXXXX",
		    t && *t ? t : "/tmp");
		CHECK(mkdtemp(g_base) != NULL);
		atexit(cleanup);
	} else {
		fx_rm_rf(g_base);
		CHECK(mkdir(g_base, 0700) == 0);
	}
	snprintf(g_ws, sizeof g_ws, "%s/ws", g_base);
	snprintf(g_up, sizeof g_up, "%s/up", g_base);
	snprintf(g_out, sizeof g_out, "%s/out", g_base);
	snprintf(g_kept, sizeof g_kept, "%s/kept", g_base);
	CHECK(mkdir(g_kept, 0700) == 0);
	CHECK(mkdir(g_ws, 0755) == 0);
	CHECK(mkdir(g_up, 0755) == 0);
	CHECK(mkdir(g_out, 0755) == 0);
	CHECK((g_root = open(g_ws, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0);
	CHECK((g_upfd = open(g_up, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0);
}

/* Record the real path's state, as the overlay does at capture. */
static void
capture(const char *rel, struct apply_base *b)
{
	char p[PATH_MAX], t[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd;

	memset(b, 0, sizeof *b);
	path_in(p, g_ws, rel);
	if (lstat(p, &st) < 0) {
		CHECK(errno == ENOENT);
		b->ps.kind = PSTATE_ABSENT;
		return;
	}
	b->ps.mode = st.st_mode & 07777;
	if (S_ISLNK(st.st_mode)) {
		b->ps.kind = PSTATE_LINK;
		CHECK((n = readlink(p, t, sizeof t)) >= 0);
		hash_buf(t, (size_t)n, b->ps.sha);
	} else if (S_ISDIR(st.st_mode))
		b->ps.kind = PSTATE_DIR;
	else {
		b->ps.kind = PSTATE_FILE;
		CHECK((fd = open(p, O_RDONLY)) >= 0);
		CHECK(hash_fd(fd, b->ps.sha) == 0);
		close(fd);
	}
}

/*
 * A change described by its old and new state; setup_specs lays out the
 * old state in ws/ and the new one in up/, and fills the items.
 */
struct spec {
	enum apply_kind	 kind;
	const char	*path;
	const char	*old;		/* old content; NULL: absent */
	unsigned int	 old_mode;
	const char	*new;		/* new content or link target */
	unsigned int	 new_mode;
};

/* A tree with a file deep down, a file, and a link out. */
static void
lay_tree(const char *rel)
{
	char p[PATH_MAX];

	mkd(g_ws, rel);
	snprintf(p, sizeof p, "%s/sub/deep/f", rel);
	put(g_ws, p, "deep", 0644);
	snprintf(p, sizeof p, "%s/out", rel);
	lnk(g_ws, p, g_out);
	snprintf(p, sizeof p, "%s/f", rel);
	put(g_ws, p, "f", 0644);
}

static void
lay_old(const struct spec *s)
{
	switch (s->kind) {
	case APPLY_RMDIR:
		/* what capture recorded beneath it went by earlier items */
		mkd(g_ws, s->path);
		break;
	case APPLY_MKDIR:
	case APPLY_SYMLINK:
		if (s->old != NULL)
			put(g_ws, s->path, s->old, s->old_mode);
		else
			mkparents(g_ws, s->path);
		break;
	default:
		if (s->old != NULL)
			put(g_ws, s->path, s->old, s->old_mode);
		break;
	}
}

static void
setup_specs(const struct spec *s, size_t n, struct apply_item *it,
    int lay_new)
{
	size_t i;

	for (i = 0; i < n; i++) {
		lay_old(&s[i]);
		memset(&it[i], 0, sizeof it[i]);
		it[i].path = s[i].path;
		it[i].kind = s[i].kind;
		it[i].srcdir = g_upfd;
		it[i].src = s[i].path;
		it[i].mode = s[i].new_mode;
		capture(s[i].path, &it[i].base);
		if (!lay_new)
			continue;
		if (s[i].kind == APPLY_FILE)
			put(g_up, s[i].path, s[i].new, 0600);
		else if (s[i].kind == APPLY_SYMLINK)
			lnk(g_up, s[i].path, s[i].new);
	}
}

static int
file_is(const char *rel, const char *data, unsigned int mode)
{
	char p[PATH_MAX], *buf;
	struct stat st;
	size_t len = strlen(data);
	ssize_t n;
	int fd, ok;

	path_in(p, g_ws, rel);
	if (lstat(p, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (st.st_mode & 07777) != mode || (size_t)st.st_size != len)
		return 0;
	CHECK((buf = malloc(len + 1)) != NULL);
	CHECK((fd = open(p, O_RDONLY)) >= 0);
	n = read(fd, buf, len + 1);
	close(fd);
	ok = n == (ssize_t)len && memcmp(buf, data, len) == 0;
	free(buf);
	return ok;
}

static int
absent(const char *rel)
{
	char p[PATH_MAX];
	struct stat st;

	path_in(p, g_ws, rel);
	return lstat(p, &st) < 0 && errno == ENOENT;
}

static int
link_is(const char *rel, const char *target)
{
	char p[PATH_MAX], t[PATH_MAX];
	ssize_t n;

	path_in(p, g_ws, rel);
	if ((n = readlink(p, t, sizeof t - 1)) < 0)
		return 0;
	t[n] = '\0';
	return strcmp(t, target) == 0;
}

static int
mode_is(const char *rel, unsigned int mode, int dir)
{
	char p[PATH_MAX];
	struct stat st;

	path_in(p, g_ws, rel);
	return lstat(p, &st) == 0 && (st.st_mode & 07777) == mode &&
	    (S_ISDIR(st.st_mode) != 0) == dir;
}

static int
tree_whole(const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof p, "%s/sub/deep/f", rel);
	if (!file_is(p, "deep", 0644))
		return 0;
	snprintf(p, sizeof p, "%s/f", rel);
	if (!file_is(p, "f", 0644))
		return 0;
	snprintf(p, sizeof p, "%s/out", rel);
	return link_is(p, g_out);
}

/* 0: the old state, 1: the new one, -1: anything else. */
static int
state(const struct spec *s)
{
	int old = 0, new = 0;

	switch (s->kind) {
	case APPLY_FILE:
		old = s->old ? file_is(s->path, s->old, s->old_mode) :
		    absent(s->path);
		new = file_is(s->path, s->new, s->new_mode);
		break;
	case APPLY_SYMLINK:
		old = s->old ? file_is(s->path, s->old, s->old_mode) :
		    absent(s->path);
		new = link_is(s->path, s->new);
		break;
	case APPLY_MKDIR:
		old = absent(s->path);
		new = mode_is(s->path, s->new_mode, 1);
		break;
	case APPLY_DELETE:
		old = file_is(s->path, s->old, s->old_mode);
		new = absent(s->path);
		break;
	case APPLY_RMDIR:
		old = mode_is(s->path, 0755, 1);
		new = absent(s->path);
		break;
	case APPLY_FIFO:
	case APPLY_LINK:
		break;
	case APPLY_CHMOD:
		old = file_is(s->path, s->old, s->old_mode);
		new = file_is(s->path, s->old, s->new_mode);
		break;
	}
	return new ? 1 : old ? 0 : -1;
}

static const struct spec mix[] = {
	{ APPLY_FILE, "a/replace", "old contents\n", 0644, "new contents\n", 0644 },
	{ APPLY_FILE, "a/modechange", "same\n", 0644, "other\n", 0755 },
	{ APPLY_FILE, "n1/n2/newfile", NULL, 0, "brand new\n", 0640 },
	{ APPLY_FILE, "top", "t\n", 0600, "top level\n", 0600 },
	{ APPLY_SYMLINK, "a/newlink", NULL, 0, "replace", 0 },
	{ APPLY_SYMLINK, "a/file2link", "was a file\n", 0644, "../top", 0 },
	{ APPLY_MKDIR, "a/newdir", NULL, 0, NULL, 0750 },
	{ APPLY_DELETE, "a/gone", "bye\n", 0644, NULL, 0 },
	{ APPLY_RMDIR, "tree", NULL, 0, NULL, 0 },
	{ APPLY_CHMOD, "a/exec", "#!/bin/sh\n", 0644, NULL, 0755 },
};
#define NMIX	(sizeof mix / sizeof mix[0])

static void
t_all_kinds(void)
{
	struct apply_item it[NMIX];
	size_t i;
	int fds;

	setup();
	setup_specs(mix, NMIX, it, 1);
	for (i = 0; i < NMIX; i++)
		CHECK(state(&mix[i]) == 0);
	fds = fx_count_fds();
	CHECK(apply_run(g_root, it, NMIX, NULL) == 0);
	for (i = 0; i < NMIX; i++) {
		if (it[i].failed)
			fprintf(stderr, "# %s: %s\n", it[i].path, it[i].reason);
		CHECK(!it[i].failed && it[i].err == 0 &&
		    it[i].reason[0] == '\0');
		CHECK(state(&mix[i]) == 1);
	}
	CHECK(count_tmp() == 0);
	CHECK(fx_count(AT_FDCWD, g_out, "") == 0);
	/* Again: everything is already in place, so all count as applied. */
	CHECK(apply_run(g_root, it, NMIX, NULL) == 0);
	for (i = 0; i < NMIX; i++)
		CHECK(!it[i].failed && state(&mix[i]) == 1);
	CHECK(fx_count_fds() == fds);
	/* Bad arguments fail before any item. */
	CHECK(apply_run(g_upfd, it, 0, NULL) == 0);
	CHECK(apply_run(-1, it, NMIX, NULL) == -1 && errno == EBADF);
	CHECK(apply_run(g_root, NULL, 1, NULL) == -1 && errno == EINVAL);
}

static void
t_symlink_escape(void)
{
	static const struct spec s[] = {
		{ APPLY_FILE, "abs/new", NULL, 0, "x\n", 0644 },
		{ APPLY_FILE, "rel/new", NULL, 0, "x\n", 0644 },
		{ APPLY_FILE, "abs/deep/er/new", NULL, 0, "x\n", 0644 },
		{ APPLY_FILE, "d/viarel/new", NULL, 0, "x\n", 0644 },
		{ APPLY_SYMLINK, "abs/l", NULL, 0, "x", 0 },
		{ APPLY_MKDIR, "abs/dir", NULL, 0, NULL, 0755 },
		{ APPLY_DELETE, "abs/victim", "v\n", 0644, NULL, 0 },
		{ APPLY_RMDIR, "abs/vdir", NULL, 0, NULL, 0 },
		{ APPLY_CHMOD, "rel/victim", "v\n", 0644, NULL, 0777 },
		{ APPLY_FILE, "ok/new", NULL, 0, "fine\n", 0644 },
		{ APPLY_FILE, "inlink/new", NULL, 0, "through an inside link\n", 0644 },
	};
	enum { N = sizeof s / sizeof s[0] };
	struct apply_item it[N];
	char p[PATH_MAX];
	size_t i;
	int w;

	setup();
	/* Capture happens while the paths are plain directories... */
	mkd(g_ws, "abs");
	mkd(g_ws, "rel");
	mkd(g_ws, "d");
	mkd(g_ws, "d/real");
	lnk(g_ws, "inlink", "d/real");
	setup_specs(s, N, it, 1);
	/* ...then the command swaps them for links that lead out. */
	put(g_out, "victim", "v\n", 0644);
	mkd(g_out, "vdir");
	put(g_out, "vdir/keep", "keep\n", 0644);
	path_in(p, g_ws, "abs");
	fx_rm_rf(p);
	lnk(g_ws, "abs", g_out);
	path_in(p, g_ws, "rel");
	fx_rm_rf(p);
	lnk(g_ws, "rel", "../out");
	lnk(g_ws, "d/viarel", "../../out");
	for (w = 0; w < 2; w++) {
		fsx_force_walk(w);
		CHECK(apply_run(g_root, it, N, NULL) == N - 2);
		for (i = 0; i < N - 2; i++) {
			CHECK(it[i].failed && it[i].err == 0);
			CHECK_STR(it[i].reason, R_ESCAPE);
		}
		CHECK(!it[N - 2].failed && state(&s[N - 2]) == 1);
		CHECK(!it[N - 1].failed);
		CHECK(file_is("d/real/new", "through an inside link\n", 0644));
		/* nothing written, created, changed or removed outside */
		CHECK(fx_count(AT_FDCWD, g_out, "") == 2);
		path_in(p, g_out, "vdir");
		CHECK(fx_count(AT_FDCWD, p, "") == 1);
		path_in(p, g_out, "victim");
		{
			struct stat st;

			CHECK(stat(p, &st) == 0 &&
			    (st.st_mode & 07777) == 0644 && st.st_size == 2);
		}
		path_in(p, g_ws, "ok/new");
		CHECK(unlink(p) == 0);
		path_in(p, g_ws, "d/real/new");
		CHECK(unlink(p) == 0);
	}
	fsx_force_walk(0);
	CHECK(count_tmp() == 0);
}

/*
 * While apply runs, another process keeps exchanging a directory of the
 * workspace with a symlink that leads out. Whatever the interleaving, no
 * byte may land outside.
 */
static void
race(int walk, const char *linkto)
{
	struct apply_item it;
	char rel[64], p[PATH_MAX];
	pid_t pid;
	int i, applied = 0, refused = 0, other = 0, st;

	setup();
	mkd(g_ws, "d");
	lnk(g_ws, "l", linkto);
	put(g_up, "src", "payload\n", 0644);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		for (;;)
			syscall(SYS_renameat2, g_root, "d", g_root, "l",
			    RENAME_EXCHANGE);
	}
	fsx_force_walk(walk);
	for (i = 0; i < 1000; i++) {
		snprintf(rel, sizeof rel, "d/f%d", i);
		memset(&it, 0, sizeof it);
		it.path = rel;
		it.kind = APPLY_FILE;
		it.srcdir = g_upfd;
		it.src = "src";
		it.mode = 0644;
		it.base.ps.kind = PSTATE_ABSENT;
		CHECK(apply_run(g_root, &it, 1, NULL) >= 0);
		if (!it.failed)
			applied++;
		else if (strcmp(it.reason, R_ESCAPE) == 0)
			refused++;
		else {
			if (other++ < 3)
				printf("# other: %s (%d)\n", it.reason, it.err);
		}
	}
	fsx_force_walk(0);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	printf("# race (%s, %s): %d applied, %d refused, %d other\n",
	    walk ? "walk" : "openat2", linkto, applied, refused, other);
	CHECK(fx_count(AT_FDCWD, g_out, "") == 0);
	CHECK(applied + refused + other == 1000);
	/* every applied file is inside, under whichever name the dir has */
	path_in(p, g_ws, "d");
	st = fx_count(AT_FDCWD, p, "");
	path_in(p, g_ws, "l");
	CHECK(st + fx_count(AT_FDCWD, p, "") == applied);
	CHECK(count_tmp() == 0);
}

static void
t_race_swap_openat2_abs(void)
{
	race(0, g_out);
}

static void
t_race_swap_walk_abs(void)
{
	race(1, g_out);
}

static void
t_race_swap_openat2_rel(void)
{
	race(0, "../out");
}

static void
t_race_swap_walk_rel(void)
{
	race(1, "../out");
}

static void
t_conflicts(void)
{
	static const struct spec s[] = {
		{ APPLY_FILE, "edited", "v1\n", 0644, "mine\n", 0644 },
		{ APPLY_FILE, "created", NULL, 0, "mine\n", 0644 },
		{ APPLY_FILE, "deleted", "v1\n", 0644, "mine\n", 0644 },
		{ APPLY_FILE, "chmodded", "v1\n", 0644, "mine\n", 0644 },
		{ APPLY_FILE, "nowlink", "v1\n", 0644, "mine\n", 0644 },
		{ APPLY_DELETE, "del-edited", "v1\n", 0644, NULL, 0 },
		{ APPLY_MKDIR, "mkdir-created", NULL, 0, NULL, 0755 },
		{ APPLY_SYMLINK, "link-created", NULL, 0, "t", 0 },
		{ APPLY_CHMOD, "chmod-edited", "v1\n", 0644, NULL, 0600 },
		{ APPLY_FILE, "same-as-new", NULL, 0, "mine\n", 0644 },
		{ APPLY_FILE, "fine", "v1\n", 0644, "mine\n", 0644 },
		{ APPLY_DELETE, "del-deleted", "v1\n", 0644, NULL, 0 },
		{ APPLY_RMDIR, "rmtree-swapped", NULL, 0, NULL, 0 },
	};
	enum { N = sizeof s / sizeof s[0] };
	static const char *why[N] = {
		R_CHANGED, R_CREATED, R_DELETED, R_CHANGED, R_CHANGED,
		R_CHANGED, R_CREATED, R_CREATED, R_CHANGED, "", "", "",
		R_CHANGED,
	};
	struct apply_item it[N];
	char p[PATH_MAX];
	size_t i;

	setup();
	setup_specs(s, N, it, 1);
	/* the user's changes after capture */
	put(g_ws, "edited", "v2\n", 0644);
	put(g_ws, "created", "theirs\n", 0644);
	path_in(p, g_ws, "deleted");
	CHECK(unlink(p) == 0);
	path_in(p, g_ws, "chmodded");
	CHECK(chmod(p, 0600) == 0);
	path_in(p, g_ws, "nowlink");
	CHECK(unlink(p) == 0);
	lnk(g_ws, "nowlink", "edited");
	put(g_ws, "del-edited", "v2\n", 0644);
	put(g_ws, "mkdir-created", "theirs\n", 0644);
	put(g_ws, "link-created", "theirs\n", 0644);
	put(g_ws, "chmod-edited", "v2\n", 0644);
	put(g_ws, "same-as-new", "mine\n", 0644);
	path_in(p, g_ws, "del-deleted");
	CHECK(unlink(p) == 0);
	path_in(p, g_ws, "rmtree-swapped");
	fx_rm_rf(p);
	put(g_out, "keep", "keep\n", 0644);
	lnk(g_ws, "rmtree-swapped", g_out);

	CHECK(apply_run(g_root, it, N, NULL) == 10);
	for (i = 0; i < N; i++) {
		CHECK_STR(it[i].reason, why[i]);
		CHECK(it[i].failed == (why[i][0] != '\0'));
		CHECK(it[i].err == 0);
	}
	/* the user's versions are all kept */
	CHECK(file_is("edited", "v2\n", 0644));
	CHECK(file_is("created", "theirs\n", 0644));
	CHECK(absent("deleted"));
	CHECK(file_is("chmodded", "v1\n", 0600));
	CHECK(link_is("nowlink", "edited"));
	CHECK(file_is("del-edited", "v2\n", 0644));
	CHECK(file_is("mkdir-created", "theirs\n", 0644));
	CHECK(file_is("link-created", "theirs\n", 0644));
	CHECK(file_is("chmod-edited", "v2\n", 0644));
	CHECK(file_is("same-as-new", "mine\n", 0644));
	CHECK(file_is("fine", "mine\n", 0644));
	CHECK(absent("del-deleted"));
	CHECK(link_is("rmtree-swapped", g_out));
	CHECK(fx_count(AT_FDCWD, g_out, "") == 1);
	CHECK(count_tmp() == 0);
}

/* Hard link: the path gets a new inode, the other name keeps old bytes. */
static void
t_hardlink_and_final_symlink(void)
{
	static const struct spec s[] = {
		{ APPLY_FILE, "linked", "old\n", 0644, "new\n", 0644 },
		{ APPLY_FILE, "was-link", NULL, 0, "regular now\n", 0644 },
		{ APPLY_DELETE, "del-link", NULL, 0, NULL, 0 },
	};
	struct apply_item it[3];
	char p[PATH_MAX], q[PATH_MAX];

	setup();
	put(g_out, "target", "outside\n", 0644);
	path_in(q, g_out, "target");
	lnk(g_ws, "was-link", q);
	lnk(g_ws, "del-link", q);
	setup_specs(s, 3, it, 1);
	CHECK(it[1].base.ps.kind == PSTATE_LINK &&
	    it[2].base.ps.kind == PSTATE_LINK);
	path_in(p, g_ws, "linked");
	path_in(q, g_ws, "other-name");
	CHECK(link(p, q) == 0);
	CHECK(apply_run(g_root, it, 3, NULL) == 0);
	CHECK(file_is("linked", "new\n", 0644));
	CHECK(file_is("other-name", "old\n", 0644));
	CHECK(file_is("was-link", "regular now\n", 0644));
	CHECK(absent("del-link"));
	path_in(p, g_out, "target");
	CHECK(fx_count(AT_FDCWD, g_out, "") == 1);
	{
		struct stat st;

		CHECK(lstat(p, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_size == 8);
	}
}

static void
t_target_became_dir(void)
{
	static const struct spec s[] = {
		{ APPLY_FILE, "x", "old\n", 0644, "new\n", 0644 },
		{ APPLY_FILE, "y", NULL, 0, "new\n", 0644 },
		{ APPLY_FILE, "ok", "old\n", 0644, "new\n", 0644 },
	};
	struct apply_item it[4];
	char p[PATH_MAX];

	setup();
	setup_specs(s, 3, it, 1);
	path_in(p, g_ws, "x");
	CHECK(unlink(p) == 0);
	mkd(g_ws, "x");
	put(g_ws, "x/inner", "keep\n", 0644);
	mkd(g_ws, "y");
	/* a directory captured as a directory, now to become a file: the
	   rename refuses with EISDIR and the directory stays */
	mkd(g_ws, "z");
	put(g_ws, "z/inner", "keep\n", 0644);
	put(g_up, "z", "file\n", 0644);
	memset(&it[3], 0, sizeof it[3]);
	it[3].path = "z";
	it[3].kind = APPLY_FILE;
	it[3].srcdir = g_upfd;
	it[3].src = "z";
	it[3].mode = 0644;
	capture("z", &it[3].base);
	CHECK(apply_run(g_root, it, 4, NULL) == 3);
	CHECK(it[0].failed && it[0].err == 0);
	CHECK_STR(it[0].reason, R_CHANGED);
	CHECK(it[1].failed && it[1].err == 0);
	CHECK_STR(it[1].reason, R_CREATED);
	CHECK(!it[2].failed && file_is("ok", "new\n", 0644));
	CHECK(it[3].failed && it[3].err == EISDIR);
	CHECK_STR(it[3].reason, strerror(EISDIR));
	CHECK(file_is("x/inner", "keep\n", 0644));
	CHECK(file_is("z/inner", "keep\n", 0644));
	path_in(p, g_ws, "y");
	CHECK(fx_count(AT_FDCWD, p, "") == 0);
	CHECK(count_tmp() == 0);
}

static void
readonly_dir(void)
{
	static const struct spec s[] = {
		{ APPLY_FILE, "ro/file", "old\n", 0644, "new\n", 0644 },
		{ APPLY_FILE, "ro/new", NULL, 0, "new\n", 0644 },
		{ APPLY_DELETE, "ro/del", "old\n", 0644, NULL, 0 },
		{ APPLY_FILE, "rw/file", "old\n", 0644, "new\n", 0644 },
	};
	struct apply_item it[4];
	char p[PATH_MAX];
	int i;

	setup_specs(s, 4, it, 1);
	path_in(p, g_ws, "ro");
	CHECK(chmod(p, 0555) == 0);
	CHECK(apply_run(g_root, it, 4, NULL) == 3);
	for (i = 0; i < 3; i++) {
		CHECK(it[i].failed && it[i].err == EACCES);
		CHECK_STR(it[i].reason, strerror(EACCES));
		CHECK(state(&s[i]) == 0);
	}
	CHECK(!it[3].failed && state(&s[3]) == 1);
	CHECK(count_tmp() == 0);
	CHECK(chmod(p, 0755) == 0);
}

static void
t_readonly_dir(void)
{
	pid_t pid;
	int st;

	setup();
	if (geteuid() != 0) {
		readonly_dir();
		return;
	}
	/* Root ignores directory permissions: run this one as nobody. */
	CHECK(chmod(g_base, 0711) == 0);
	CHECK(chown(g_ws, 65534, 65534) == 0);
	CHECK(chown(g_up, 65534, 65534) == 0);
	CHECK((pid = fork()) >= 0);
	if (pid == 0) {
		g_base[0] = '\0';	/* the parent cleans up */
		if (setgroups(0, NULL) < 0 || setgid(65534) < 0 ||
		    setuid(65534) < 0)
			_exit(77);
		prctl(PR_SET_DUMPABLE, 1);	/* LeakSanitizer needs it */
		if (access(g_ws, W_OK | X_OK) < 0)
			_exit(78);
		readonly_dir();
		exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
		SKIP("running as root and cannot become nobody");
	if (WIFEXITED(st) && WEXITSTATUS(st) == 78)
		SKIP("running as root and TMPDIR is not reachable by nobody");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static const struct apply_env tenv;
static int kept_is(const char *, const char *);

/* The fault loops: for n = 0, 1, ... the nth allocation (or write) fails. */
static const struct spec faulty[] = {
	{ APPLY_FILE, "a/replace", "old contents\n", 0644, "new contents\n", 0644 },
	{ APPLY_FILE, "n1/n2/newfile", NULL, 0, "brand new\n", 0640 },
	{ APPLY_SYMLINK, "a/newlink", NULL, 0, "replace", 0 },
	{ APPLY_MKDIR, "a/newdir", NULL, 0, NULL, 0750 },
	{ APPLY_DELETE, "a/gone", "bye\n", 0644, NULL, 0 },
	{ APPLY_RMDIR, "tree", NULL, 0, NULL, 0 },
	{ APPLY_CHMOD, "a/exec", "#!/bin/sh\n", 0644, NULL, 0755 },
	{ APPLY_FILE, "a/big", "small\n", 0644, NULL, 0600 },
};
#define NFAULTY	(sizeof faulty / sizeof faulty[0])

static void
fault_loop(int writes)
{
	struct apply_item it[NFAULTY];
	struct spec s[NFAULTY];
	char *big;
	size_t i, bigsz = 1 << 20;
	long n, failed, nfailed_total = 0;
	int fds = -1, happened;

	CHECK((big = malloc(bigsz + 1)) != NULL);
	memset(big, 'b', bigsz);
	big[bigsz] = '\0';
	memcpy(s, faulty, sizeof s);
	s[NFAULTY - 1].new = big;
	for (n = 0; ; n++) {
		setup();
		setup_specs(s, NFAULTY, it, 1);
		if (fds < 0)
			fds = fx_count_fds();
		if (writes)
			fsx_fail_write_after(n);
		else
			mem_fail_after(n);
		failed = apply_run(g_root, it, NFAULTY, NULL);
		happened = writes ? fsx_write_failed() : mem_failed();
		fsx_fail_write_after(-1);
		mem_fail_after(-1);
		CHECK(failed >= 0);
		nfailed_total += failed;
		for (i = 0; i < NFAULTY; i++) {
			CHECK(state(&s[i]) == (it[i].failed ? 0 : 1));
			if (it[i].failed) {
				CHECK(it[i].err == (writes ? EIO : ENOMEM));
				CHECK_STR(it[i].reason, strerror(it[i].err));
			}
		}
		CHECK(failed <= 1);
		CHECK(count_tmp() == 0);
		CHECK(fx_count_fds() == fds);
		/* a second run lands the rest */
		CHECK(apply_run(g_root, it, NFAULTY, NULL) == 0);
		for (i = 0; i < NFAULTY; i++)
			CHECK(state(&s[i]) == 1);
		if (!happened)
			break;
		CHECK(failed == 1);
	}
	printf("# %s fault loop: %ld injection points\n",
	    writes ? "write" : "allocation", n);
	CHECK(n > 0);
	free(big);
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

/*
 * kill -9 at random moments of a 1000-file apply: every file old or new,
 * at most the one temp file being written, and a second run finishes.
 * The moments are stratified: kill k lands at a random point of the k-th
 * of KILLS equal slices of a full run, so that fewer kills still cover
 * the whole apply, start to end (50 uniform ones took 45 s under ASan).
 */
#define NCRASH	1000
#define KILLS	24

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
t_crash_kill9(void)
{
	static struct spec s[NCRASH];
	static struct apply_item it[NCRASH];
	static char paths[NCRASH][32], olds[NCRASH][32];
	static char news[NCRASH][8200];
	unsigned int seed = 12345;
	double t0, full = 0;
	int k, i, st, partial = 0, nold, nnew;
	pid_t pid;

	/*
	 * kill -9 loses no page cache, so fsync plays no part in what this
	 * checks; on tmpfs the 50 rounds take seconds rather than minutes.
	 */
	if (access("/dev/shm", W_OK | X_OK) == 0)
		g_tmproot = "/dev/shm";
	setup();
	for (i = 0; i < NCRASH; i++) {
		int j;

		snprintf(paths[i], sizeof paths[i], "%c%d/f%d",
		    i % 10 == 7 || i % 10 == 8 ? 'n' : 'd', i % 7, i);
		snprintf(olds[i], sizeof olds[i], "old %d\n", i);
		j = snprintf(news[i], sizeof news[i], "new %d\n", i);
		memset(news[i] + j, 'a' + i % 26, 8190 - j);
		news[i][8190] = '\n';
		news[i][8191] = '\0';
		s[i].path = paths[i];
		s[i].old_mode = 0644;
		if (i % 10 == 9) {
			s[i].kind = APPLY_DELETE;
			s[i].old = olds[i];
		} else {
			s[i].kind = APPLY_FILE;
			s[i].old = i % 10 == 7 || i % 10 == 8 ? NULL : olds[i];
			s[i].new = news[i];
			s[i].new_mode = i % 2 ? 0600 : 0644;
		}
	}
	setup_specs(s, NCRASH, it, 1);

	for (k = 0; k <= KILLS; k++) {
		double delay;

		fx_rm_rf(g_kept);
		CHECK(mkdir(g_kept, 0700) == 0);
		if (k > 0) {
			fx_rm_rf(g_ws);
			CHECK(mkdir(g_ws, 0755) == 0);
			close(g_root);
			CHECK((g_root = open(g_ws, O_RDONLY | O_DIRECTORY |
			    O_CLOEXEC)) >= 0);
			for (i = 0; i < NCRASH; i++)
				lay_old(&s[i]);
		}
		t0 = now();
		pid = fork();
		CHECK(pid >= 0);
		if (pid == 0)
			_exit(apply_run(g_root, it, NCRASH, &tenv) == 0 ? 0 : 1);
		if (k == 0) {
			/* calibration: a full run, not killed */
			CHECK(waitpid(pid, &st, 0) == pid);
			CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
			full = now() - t0;
			printf("# crash: a full apply of %d files takes %.0f ms\n",
			    NCRASH, full * 1000);
			for (i = 0; i < NCRASH; i++)
				CHECK(state(&s[i]) == 1);
			continue;
		}
		delay = full * (k - 1 + (rand_r(&seed) % 1000) / 1000.0) /
		    KILLS;
		usleep((useconds_t)(delay * 1e6));
		kill(pid, SIGKILL);
		CHECK(waitpid(pid, &st, 0) == pid);
		nold = nnew = 0;
		for (i = 0; i < NCRASH; i++) {
			int r = state(&s[i]);

			if (r < 0)
				fprintf(stderr, "# torn: %s\n", s[i].path);
			CHECK(r >= 0);
			if (r)
				nnew++;
			else
				nold++;
			/* what it replaced is kept, whenever it was killed */
			if (r && s[i].old != NULL)
				CHECK(kept_is(s[i].path, s[i].old) == 1);
		}
		if (nold && nnew)
			partial++;
		CHECK(count_tmp() <= 1);
		CHECK(apply_run(g_root, it, NCRASH, &tenv) == 0);
		for (i = 0; i < NCRASH; i++)
			CHECK(state(&s[i]) == 1);
		CHECK(count_tmp() == 0);
	}
	printf("# crash: %d of %d kills landed mid-apply\n", partial, KILLS);
}

static void
t_sparse_2g(void)
{
	struct apply_item it;
	struct statvfs sv;
	struct rusage ru0, ru1;
	struct stat st;
	off_t size = 2LL << 30;
	char buf[8];
	int fd;

	setup();
	CHECK(statvfs(g_base, &sv) == 0);
	if ((unsigned long long)sv.f_bavail * sv.f_frsize < (3ULL << 30))
		SKIP("less than 3 GB free on the test file system");
	CHECK((fd = openat(g_upfd, "big", O_RDWR | O_CREAT, 0644)) >= 0);
	CHECK(ftruncate(fd, size) == 0);
	CHECK(pwrite(fd, "head", 4, 0) == 4);
	CHECK(pwrite(fd, "mid!", 4, size / 2) == 4);
	CHECK(pwrite(fd, "tail", 4, size - 4) == 4);
	close(fd);
	memset(&it, 0, sizeof it);
	it.path = "sub/big";
	it.kind = APPLY_FILE;
	it.srcdir = g_upfd;
	it.src = "big";
	it.mode = 0644;
	it.base.ps.kind = PSTATE_ABSENT;
	CHECK(getrusage(RUSAGE_SELF, &ru0) == 0);
	CHECK(apply_run(g_root, &it, 1, NULL) == 0);
	CHECK(getrusage(RUSAGE_SELF, &ru1) == 0);
	printf("# 2 GB apply: peak RSS grew by %ld KB\n",
	    ru1.ru_maxrss - ru0.ru_maxrss);
	CHECK(ru1.ru_maxrss - ru0.ru_maxrss < 64 * 1024);
	CHECK(fstatat(g_root, "sub/big", &st, 0) == 0 && st.st_size == size);
	CHECK((fd = openat(g_root, "sub/big", O_RDONLY)) >= 0);
	CHECK(pread(fd, buf, 4, 0) == 4 && memcmp(buf, "head", 4) == 0);
	CHECK(pread(fd, buf, 4, size / 2) == 4 && memcmp(buf, "mid!", 4) == 0);
	CHECK(pread(fd, buf, 4, size - 4) == 4 && memcmp(buf, "tail", 4) == 0);
	CHECK(pread(fd, buf, 4, size / 4) == 4 &&
	    memcmp(buf, "\0\0\0\0", 4) == 0);
	close(fd);
	CHECK(count_tmp() == 0);
}


/*
 * A keeper for tests: kept/<rel with '/' as '%'>, a hard link of what is
 * kept. fail_keep makes put fail with that errno.
 */
static int g_fail_keep;
static int g_fail_sync, g_sync_check, g_syncs, g_sync_bad;
static char g_pending[64][64];	/* kept since the last sync */
static int g_npending;

static void
flat(const char *rel, char *out)
{
	size_t i;

	for (i = 0; rel[i] != '\0' && i < PATH_MAX - 1; i++)
		out[i] = rel[i] == '/' ? '%' : rel[i];
	out[i] = '\0';
}

static int
tk_put(void *arg, const char *rel, int dirfd, const char *name,
    struct apply_kept *k)
{
	char f[PATH_MAX];
	struct stat st;
	int kfd, rc = -1;

	if (g_fail_keep) {
		errno = g_fail_keep;
		return -1;
	}
	if (g_sync_check && g_npending < 64)
		snprintf(g_pending[g_npending++], sizeof g_pending[0], "%s",
		    rel);
	memset(k, 0, sizeof *k);
	flat(rel, f);
	if ((kfd = open(g_kept, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	unlinkat(kfd, f, 0);
	if (linkat(dirfd, name, kfd, f, 0) == 0 &&
	    fstatat(kfd, f, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		k->linked = 1;
		k->dev = st.st_dev;
		k->ino = st.st_ino;
		rc = 0;
	}
	fsx_close(kfd);
	return rc;
}

static void
tk_drop(void *arg, const char *rel)
{
	char f[PATH_MAX], p[PATH_MAX];

	flat(rel, f);
	snprintf(p, sizeof p, "%s/%s", g_kept, f);
	unlink(p);
}


/*
 * The keeper's sync: counts its calls, fails with g_fail_sync, and with
 * g_sync_check makes sure nothing kept since the last sync was swapped
 * out yet: each still stands at its workspace path (the same inode).
 */
static int
tk_sync(void *arg)
{
	char f[PATH_MAX];
	struct stat k, w;
	int i, kfd;

	g_syncs++;
	if (g_fail_sync) {
		errno = g_fail_sync;
		return -1;
	}
	if (!g_sync_check)
		return 0;
	CHECK((kfd = open(g_kept, O_RDONLY | O_DIRECTORY)) >= 0);
	for (i = 0; i < g_npending; i++) {
		flat(g_pending[i], f);
		if (fstatat(kfd, f, &k, AT_SYMLINK_NOFOLLOW) < 0 ||
		    fstatat(g_root, g_pending[i], &w,
		    AT_SYMLINK_NOFOLLOW) < 0 || k.st_ino != w.st_ino)
			g_sync_bad++;
	}
	close(kfd);
	g_npending = 0;
	return 0;
}

static const struct apply_keeper tkeeper = { tk_put, tk_drop, tk_sync,
    NULL };
static const struct apply_env tenv = { &tkeeper, NULL, NULL, 0, NULL, NULL };
static const struct apply_env tgive = { &tkeeper, NULL, NULL, 1, NULL, NULL };

/* What kept/ holds for rel: 1 a file with data, 0 nothing, -1 other. */
static int
kept_is(const char *rel, const char *data)
{
	char f[PATH_MAX], buf[256];
	int kfd;
	ssize_t n;

	flat(rel, f);
	CHECK((kfd = open(g_kept, O_RDONLY | O_DIRECTORY)) >= 0);
	n = fx_read(kfd, f, buf, sizeof buf - 1);
	close(kfd);
	if (n < 0)
		return errno == ENOENT ? 0 : -1;
	buf[n] = '\0';
	return strcmp(buf, data) == 0 ? 1 : -1;
}

/* A directory that holds entries nobody recorded stays, with them. */
static void
t_rmdir_keeps_content(void)
{
	struct apply_item it[2];

	setup();
	lay_tree("t");
	mkd(g_ws, "e");
	memset(it, 0, sizeof it);
	it[0].path = "t";
	it[0].kind = APPLY_RMDIR;
	capture("t", &it[0].base);
	it[1].path = "e";
	it[1].kind = APPLY_RMDIR;
	capture("e", &it[1].base);
	CHECK(apply_run(g_root, it, 2, &tenv) == 1);
	CHECK(it[0].failed && it[0].err == 0);
	CHECK_STR(it[0].reason, R_NOTEMPTY);
	CHECK(tree_whole("t"));
	CHECK(!it[1].failed && absent("e"));
	CHECK(fx_count(AT_FDCWD, g_out, "") == 0);
}

/* What apply replaces or deletes is kept; what it creates needs nothing. */
static void
t_keeps_replaced(void)
{
	static const struct spec s[] = {
		{ APPLY_FILE, "a/replace", "old a\n", 0644, "new a\n", 0644 },
		{ APPLY_DELETE, "b", "old b\n", 0600, NULL, 0 },
		{ APPLY_SYMLINK, "c", "old c\n", 0644, "a/replace", 0 },
		{ APPLY_FILE, "d", NULL, 0, "new d\n", 0644 },
		{ APPLY_FILE, "e", "old e\n", 0644, "new e\n", 0644 },
	};
	enum { N = sizeof s / sizeof s[0] };
	struct apply_item it[N];
	int w;

	for (w = 0; w < 2; w++) {
		setup();
		apply_force_rename(w);
		setup_specs(s, N, it, 1);
		/* the keeper fails for e: nothing of e is replaced */
		g_fail_keep = 0;
		CHECK(apply_run(g_root, it, N - 1, &tenv) == 0);
		g_fail_keep = EACCES;
		CHECK(apply_run(g_root, it + N - 1, 1, &tenv) == 1);
		g_fail_keep = 0;
		apply_force_rename(0);
		CHECK(state(&s[0]) == 1 && state(&s[1]) == 1 &&
		    state(&s[2]) == 1 && state(&s[3]) == 1);
		CHECK(it[0].kept && it[1].kept && it[2].kept && !it[3].kept);
		CHECK(kept_is("a/replace", "old a\n") == 1);
		CHECK(kept_is("b", "old b\n") == 1);
		CHECK(kept_is("c", "old c\n") == 1);
		CHECK(kept_is("d", "") == 0);
		CHECK(it[4].failed && it[4].err == EACCES);
		CHECK_STR(it[4].reason, "cannot keep what it replaces: "
		    "Permission denied");
		CHECK(state(&s[4]) == 0 && kept_is("e", "") == 0);
		CHECK(count_tmp() == 0);
	}
}

/*
 * Compare and swap: while apply replaces f, another process rewrites it
 * at a random moment, in place (O_TRUNC) or by renaming a new file over
 * it. Whatever the interleaving, the user's version ends up in place.
 * Half the rounds give the source (give_src): then a refused swap leaves
 * the change pending, by content, and no name in the session is ever the
 * real file's; in a quarter of those the copy that makes the session's
 * name again fails (a full disk), and it is linked again instead.
 */
static void
t_swap_race(void)
{
	static const struct spec s[] = {
		{ APPLY_FILE, "f", "base\n", 0644, "applied\n", 0644 },
	};
	const struct apply_env *env;
	struct apply_item it;
	struct stat us, ws;
	char user[64], p[PATH_MAX], q[PATH_MAX], buf[16];
	unsigned int seed = 4242;
	int round, st, fd, applied = 0, refused = 0, w, gave = 0;
	double t0, full = 0;
	pid_t pid;

	for (round = 0; round < 400; round++) {
		w = round % 4 == 3;	/* a quarter without exchange */
		env = round % 8 >= 4 ? &tgive : &tenv;
		setup();
		setup_specs(s, 1, &it, 1);
		snprintf(user, sizeof user, "user %d\n", round);
		path_in(p, g_up, "f");
		CHECK(chmod(p, 0644) == 0);	/* the item's mode: given */
		path_in(p, g_ws, "f");
		path_in(q, g_ws, "f.new");
		t0 = now();
		pid = fork();
		CHECK(pid >= 0);
		if (pid == 0) {
			usleep(full > 0 ? (useconds_t)(full * 1e6 *
			    (rand_r(&seed) % 1200) / 1000.0) : 0);
			if (round % 2 == 0) {
				fd = open(p, O_WRONLY | O_TRUNC);
				if (fd >= 0) {
					(void)!write(fd, user, strlen(user));
					close(fd);
				}
			} else {
				fd = open(q, O_WRONLY | O_CREAT | O_TRUNC,
				    0644);
				(void)!write(fd, user, strlen(user));
				close(fd);
				rename(q, p);
			}
			_exit(0);
		}
		rand_r(&seed);
		apply_force_rename(w);
		if (round % 16 >= 12)
			fsx_fail_write_after(0);
		CHECK(apply_run(g_root, &it, 1, env) >= 0);
		fsx_fail_write_after(-1);
		apply_force_rename(0);
		if (round < 8)
			full = full > now() - t0 ? full : now() - t0;
		CHECK(waitpid(pid, &st, 0) == pid);
		if (it.failed) {
			refused++;
			CHECK_STR(it.reason, R_CHANGED);
		} else
			applied++;
		/* never lost: the user's version is the one in place */
		if (!w || !file_is("f", "applied\n", 0644)) {
			if (!file_is("f", user, 0644))
				fprintf(stderr, "# round %d: lost\n", round);
			CHECK(file_is("f", user, 0644));
		} else
			/* no exchange: the window is kept, never lost */
			CHECK(kept_is("f", user) == 1 ||
			    kept_is("f", "base\n") == 1);
		CHECK(count_tmp() == 0);
		if (env != &tgive)
			continue;
		path_in(p, g_up, "f");
		path_in(q, g_ws, "f");
		if (stat(p, &us) == 0) {
			CHECK(stat(q, &ws) == 0 && us.st_ino != ws.st_ino);
		} else
			gave++;
		if (it.failed) {	/* pending still, as it was */
			CHECK((fd = open(p, O_RDONLY)) >= 0);
			CHECK(read(fd, buf, sizeof buf) == 8 &&
			    memcmp(buf, "applied\n", 8) == 0);
			close(fd);
		}
	}
	printf("# swap race: %d applied (then rewritten), %d refused; "
	    "%d sources given\n", applied, refused, gave);
	CHECK(gave > 0);
}

/* Fifos are made as fifos; a command's hard link stays a hard link. */
static void
t_fifo_and_link(void)
{
	struct apply_item it[5];
	struct stat a, b;

	setup();
	put(g_ws, "q", "a file\n", 0644);
	put(g_up, "lead", "shared\n", 0640);
	put(g_ws, "other", "not shared\n", 0640);
	memset(it, 0, sizeof it);
	it[0].path = "p";
	it[0].kind = APPLY_FIFO;
	it[0].mode = 0640;
	it[0].base.ps.kind = PSTATE_ABSENT;
	it[1].path = "q";
	it[1].kind = APPLY_FIFO;
	it[1].mode = 0600;
	capture("q", &it[1].base);
	it[2].path = "d/lead";
	it[2].kind = APPLY_FILE;
	it[2].srcdir = g_upfd;
	it[2].src = "lead";
	it[2].mode = 0640;
	it[2].base.ps.kind = PSTATE_ABSENT;
	it[3].path = "e/follow";
	it[3].kind = APPLY_LINK;
	it[3].srcdir = g_upfd;
	it[3].src = "lead";
	it[3].link = "d/lead";
	it[3].mode = 0640;
	it[3].base.ps.kind = PSTATE_ABSENT;
	it[4] = it[3];
	it[4].path = "e/wrong";
	it[4].link = "other";
	apply_run(g_root, it, 5, &tenv);
	for (int i = 0; i < 5; i++)
		if (it[i].failed)
			fprintf(stderr, "# %s: %s\n", it[i].path, it[i].reason);
	CHECK(it[4].failed && !it[0].failed && !it[1].failed &&
	    !it[2].failed && !it[3].failed);
	CHECK(fstatat(g_root, "p", &a, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISFIFO(a.st_mode) && (a.st_mode & 07777) == 0640);
	CHECK(fstatat(g_root, "q", &a, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISFIFO(a.st_mode) && (a.st_mode & 07777) == 0600);
	CHECK(kept_is("q", "a file\n") == 1);
	CHECK(fstatat(g_root, "d/lead", &a, AT_SYMLINK_NOFOLLOW) == 0);
	CHECK(fstatat(g_root, "e/follow", &b, AT_SYMLINK_NOFOLLOW) == 0);
	CHECK(a.st_ino == b.st_ino && a.st_dev == b.st_dev &&
	    a.st_nlink == 2);
	CHECK(it[4].failed && it[4].err == 0);
	CHECK_STR(it[4].reason, "the file it is a hard link of does not hold "
	    "its content; kept");
	CHECK(absent("e/wrong") && file_is("other", "not shared\n", 0640));
	/* again: all in place already */
	CHECK(apply_run(g_root, it, 4, &tenv) == 0);
	CHECK(count_tmp() == 0);
}

/* No record at capture: refused, never applied blind. */
static void
t_unrecorded(void)
{
	static const struct spec s[] = {
		{ APPLY_FILE, "f", "user's\n", 0644, "mine\n", 0644 },
		{ APPLY_DELETE, "g", "user's\n", 0644, NULL, 0 },
		{ APPLY_FILE, "h", "user's\n", 0644, "mine\n", 0644 },
		{ APPLY_FILE, "done", "mine\n", 0644, "mine\n", 0644 },
	};
	struct apply_item it[4];
	int i;

	setup();
	setup_specs(s, 4, it, 1);
	for (i = 0; i < 4; i++) {
		memset(&it[i].base, 0, sizeof it[i].base);
		it[i].base.unrecorded = 1;
	}
	it[2].base.why = ESTALE;
	CHECK(apply_run(g_root, it, 4, &tenv) == 3);
	CHECK_STR(it[0].reason, "no record of the file at capture; refused");
	CHECK_STR(it[1].reason, "no record of the file at capture; refused");
	CHECK_STR(it[2].reason, "no record of the file at capture (it changed "
	    "while the command ran); refused");
	CHECK(!it[3].failed);
	CHECK(file_is("f", "user's\n", 0644) && file_is("g", "user's\n", 0644));
	CHECK(file_is("h", "user's\n", 0644));
}

/* Deleting a recorded fifo; a fifo where a file was recorded: conflict. */
static void
t_special_bases(void)
{
	struct apply_item it[2];
	struct stat st;
	char p[PATH_MAX];

	setup();
	path_in(p, g_ws, "pipe");
	CHECK(mkfifo(p, 0620) == 0 && chmod(p, 0620) == 0);
	put(g_ws, "was-file", "x\n", 0644);
	memset(it, 0, sizeof it);
	it[0].path = "pipe";
	it[0].kind = APPLY_DELETE;
	it[0].base.ps.kind = PSTATE_FIFO;
	it[0].base.ps.mode = 0620;
	it[1].path = "was-file";
	it[1].kind = APPLY_DELETE;
	capture("was-file", &it[1].base);
	path_in(p, g_ws, "was-file");
	CHECK(unlink(p) == 0 && mkfifo(p, 0644) == 0);
	apply_run(g_root, it, 2, &tenv);
	for (int i = 0; i < 2; i++)
		if (it[i].failed)
			fprintf(stderr, "# %s: %s\n", it[i].path, it[i].reason);
	CHECK(!it[0].failed && absent("pipe"));
	snprintf(p, sizeof p, "%s/pipe", g_kept);
	CHECK(lstat(p, &st) == 0 && S_ISFIFO(st.st_mode));
	CHECK(it[1].failed);
	CHECK_STR(it[1].reason, R_CHANGED);
	path_in(p, g_ws, "was-file");
	CHECK(lstat(p, &st) == 0 && S_ISFIFO(st.st_mode));
}

/*
 * give_src: a source that qualifies becomes the new file (its mtime now,
 * its name in the session gone with the swap); one with another mode is
 * copied; one whose item is refused is left as it was, with one name.
 */
static void
t_batch_give(struct spec *s, struct apply_item *it, int n)
{
	char p[PATH_MAX];
	struct stat up, ws;
	struct timespec t0;
	int i;

	setup();
	setup_specs(s, (size_t)n, it, 1);
	for (i = 4; i < n; i++) {
		path_in(p, g_up, s[i].path);
		CHECK(chmod(p, i == 5 ? 0600 : 0644) == 0);
	}
	put(g_ws, s[6].path, "the user's\n", 0644);	/* a conflict */
	CHECK(clock_gettime(CLOCK_REALTIME, &t0) == 0);
	sleep(1);
	CHECK(apply_run_batch(g_root, it, (size_t)n, &tgive) == 1);
	CHECK(it[6].failed && it[6].err == 0);
	CHECK(count_tmp() == 0);
	for (i = 4; i < n; i++) {
		path_in(p, g_up, s[i].path);
		/* a given copy's name went with its swap: nothing in the
		   session is a name of the real file */
		CHECK((stat(p, &up) == 0) == (i == 5 || i == 6));
		path_in(p, g_ws, s[i].path);
		CHECK(stat(p, &ws) == 0);
		if (i == 6) {
			CHECK(file_is(s[i].path, "the user's\n", 0644));
			CHECK(up.st_nlink == 1 && up.st_ino != ws.st_ino);
			continue;
		}
		CHECK(state(&s[i]) == 1);
		if (i == 5)	/* not given (its mode): a copy */
			CHECK(up.st_ino != ws.st_ino);
		CHECK(ws.st_nlink == 1 && ws.st_mtime > t0.tv_sec);
	}
}

/*
 * apply_run_batch: 40 independent items in two directories go in batches
 * of 16; each batch keeps what it replaces and syncs it (one call) before
 * anything is swapped. A sync that fails fails the items that kept
 * something, and nothing of theirs is replaced. Out of fds, a batch ends
 * early and the rest go in the next: every item is applied all the same.
 */
static void
t_batch(void)
{
	enum { N = 40 };
	static char path[N][16], old[N][16], new[N][16];
	struct spec s[N];
	struct apply_item it[N];
	struct rlimit rl;
	int i, w, fd, ok;

	for (i = 0; i < N; i++) {
		s[i].path = path[i];
		s[i].old_mode = s[i].new_mode = 0644;
		snprintf(old[i], sizeof old[i], "old %d\n", i);
		snprintf(new[i], sizeof new[i], "new %d\n", i);
		if (i < 2) {		/* created */
			snprintf(path[i], sizeof path[i], "d1/c%d", i);
			s[i].kind = APPLY_FILE;
			s[i].old = NULL;
			s[i].new = new[i];
		} else if (i < 4) {	/* deleted */
			snprintf(path[i], sizeof path[i], "d1/x%d", i);
			s[i].kind = APPLY_DELETE;
			s[i].old = old[i];
			s[i].new = NULL;
		} else {		/* replaced */
			snprintf(path[i], sizeof path[i], "d%d/f%02d",
			    i < 20 ? 1 : 2, i);
			s[i].kind = APPLY_FILE;
			s[i].old = old[i];
			s[i].new = new[i];
		}
	}
	for (w = 0; w < 3; w++) {
		setup();
		setup_specs(s, N, it, 1);
		g_syncs = g_sync_bad = g_npending = 0;
		g_sync_check = w == 0;
		g_fail_sync = w == 1 ? EIO : 0;
		if (w == 2) {
			/* five fds free: a batch holds two items at most */
			CHECK((fd = dup(0)) >= 0);
			close(fd);
			CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0);
			rl.rlim_cur = (rlim_t)fd + 5;
			CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
		}
		ok = apply_run_batch(g_root, it, N, &tenv) == (w == 1 ? N - 2 :
		    0);
		if (w == 2) {
			rl.rlim_cur = rl.rlim_max;
			CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
		}
		CHECK(ok);
		g_fail_sync = 0;
		CHECK(count_tmp() == 0);
		for (i = 0; i < N; i++) {
			CHECK(state(&s[i]) == (w == 1 && i >= 2 ? 0 : 1));
			CHECK(kept_is(path[i], old[i]) == (i < 2 || w == 1 ?
			    0 : 1));
			if (w == 1 && i >= 2) {
				CHECK(it[i].failed && it[i].err == EIO);
				CHECK_STR(it[i].reason, "cannot keep what it "
				    "replaces: Input/output error");
			}
		}
		printf("# batch %d: %d syncs, %d bad\n", w, g_syncs, g_sync_bad);
		if (w == 0)
			CHECK(g_syncs == 3 && g_sync_bad == 0 &&
			    g_npending == 0);
		if (w == 2)
			CHECK(g_syncs > 3);
	}
	t_batch_give(s, it, N);
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
	RUN(t_all_kinds);
	RUN(t_symlink_escape);
	RUN(t_race_swap_openat2_abs);
	RUN(t_race_swap_walk_abs);
	RUN(t_race_swap_openat2_rel);
	RUN(t_race_swap_walk_rel);
	RUN(t_conflicts);
	RUN(t_hardlink_and_final_symlink);
	RUN(t_target_became_dir);
	RUN(t_readonly_dir);
	RUN(t_fault_alloc);
	RUN(t_fault_write);
	RUN(t_crash_kill9);
	RUN(t_sparse_2g);
	RUN(t_rmdir_keeps_content);
	RUN(t_keeps_replaced);
	RUN(t_swap_race);
	RUN(t_fifo_and_link);
	RUN(t_unrecorded);
	RUN(t_special_bases);
	RUN(t_batch);
	return tap_done();
}
