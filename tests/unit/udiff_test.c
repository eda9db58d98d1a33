/*
 * udiff: every fixture renders exactly as `git diff` prints it (index line
 * dropped), and the rendering turns the old tree into the new one through
 * `git apply` and `patch -p1`; the cap cuts at hunk boundaries with a
 * marker git apply tolerates; colours match git's; failures are clean.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diff/udiff.h"
#include "lib/hash.h"
#include "lib/mem.h"
#include "tap.h"

#define T(s)	UDIFF_FILE, 0100644, s, sizeof(s) - 1
#define X(s)	UDIFF_FILE, 0100755, s, sizeof(s) - 1
#define L(s)	UDIFF_SYMLINK, 0120000, s, sizeof(s) - 1
#define NONE	UDIFF_ABSENT, 0, NULL, 0

struct fix {
	const char		*name;
	const char		*path;
	struct udiff_side	 old;
	struct udiff_side	 new;
	const char		*nopatch;	/* why patch(1) cannot do it */
	const char		*nogit;		/* why git apply cannot */
	int			 hunks;		/* expected hunk count, or -1 */
};

#define BIN	"binary: without an index line neither tool applies it"

static char big_old[160000], big_new[160000];

static struct fix fx[] = {
	{ "one line changed", "f", { T("1\n2\n3\n4\n5\n6\n7\n8\n9\n") },
	    { T("1\n2\n3\n4\nfive\n6\n7\n8\n9\n") }, NULL, NULL, 1 },
	{ "change at start", "f", { T("1\n2\n3\n4\n5\n6\n7\n8\n9\n") },
	    { T("one\n2\n3\n4\n5\n6\n7\n8\n9\n") }, NULL, NULL, 1 },
	{ "change at end", "f", { T("1\n2\n3\n4\n5\n6\n7\n8\n9\n") },
	    { T("1\n2\n3\n4\n5\n6\n7\n8\nnine\n") }, NULL, NULL, 1 },
	{ "gap of 6 merges", "f",
	    { T("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n") },
	    { T("1\n2\nC\n4\n5\n6\n7\n8\n9\nD\n11\n12\n13\n14\n15\n16\n") },
	    NULL, NULL, 1 },
	{ "gap of 7 splits", "f",
	    { T("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n") },
	    { T("1\n2\nC\n4\n5\n6\n7\n8\n9\n10\nE\n12\n13\n14\n15\n16\n") },
	    NULL, NULL, 2 },
	{ "pure insertion", "f", { T("1\n2\n3\n4\n5\n6\n7\n8\n") },
	    { T("1\n2\n3\n4\nnew a\nnew b\n5\n6\n7\n8\n") }, NULL, NULL, 1 },
	{ "pure deletion", "f", { T("1\n2\n3\n4\n5\n6\n7\n8\n") },
	    { T("1\n2\n3\n6\n7\n8\n") }, NULL, NULL, 1 },
	{ "whole rewrite", "f", { T("a\nb\nc\n") }, { T("x\ny\nz\nw\n") },
	    NULL, NULL, 1 },
	{ "function name", "prog.c",
	    { T("int\nmain(void)\n{\n\tint a;\n\tint b;\n\tint c;\n"
	    "\tint d;\n\treturn 0;\n}\n") },
	    { T("int\nmain(void)\n{\n\tint a;\n\tint b;\n\tint c;\n"
	    "\tint d;\n\treturn 1;\n}\n") }, NULL, NULL, 1 },
	{ "long function line", "long.c",
	    { T("static int a_function_with_a_name_long_enough(int argument_one, "
	    "int argument_two, int three)   \n{\n1\n2\n3\n4\n5\n6\n") },
	    { T("static int a_function_with_a_name_long_enough(int argument_one, "
	    "int argument_two, int three)   \n{\n1\n2\n3\n4\n5\nsix\n") },
	    NULL, NULL, 1 },
	{ "non-UTF-8 function line", "latin.c",
	    { T("void caf\351(void)\n{\n1\n2\n3\n4\n5\n6\n") },
	    { T("void caf\351(void)\n{\n1\n2\n3\n4\n5\nsix\n") },
	    NULL, NULL, 1 },
	{ "append at end", "f", { T("a\n") }, { T("a\nb\n") }, NULL, NULL, 1 },
	{ "no newline old", "f", { T("a\nb") }, { T("a\nb\n") }, NULL, NULL, 1 },
	{ "no newline new", "f", { T("a\nb\n") }, { T("a\nc") }, NULL, NULL, 1 },
	{ "no newline both", "f", { T("x\ny\nz") }, { T("x\nY\nz") },
	    NULL, NULL, 1 },
	{ "crlf", "win.txt", { T("a\r\nb\r\nc\r\n") },
	    { T("a\r\nB\r\nc\r\nd\r\n") }, NULL, NULL, 1 },
	{ "empty to text", "f", { T("") }, { T("a\n") }, NULL, NULL, 1 },
	{ "text to empty", "f", { T("a\nb\n") }, { T("") }, NULL, NULL, 1 },
	{ "create", "sub/dir/new", { NONE }, { T("hello\nworld\n") },
	    NULL, NULL, 1 },
	{ "create empty", "empty", { NONE }, { T("") }, NULL, NULL, 0 },
	{ "create executable", "run.sh", { NONE }, { X("#!/bin/sh\n") },
	    NULL, NULL, 1 },
	{ "delete", "gone", { T("x\ny\n") }, { NONE }, NULL, NULL, 1 },
	{ "delete empty", "gone-empty", { T("") }, { NONE }, NULL, NULL, 0 },
	{ "binary change", "bin", { T("a\0b") }, { T("a\0c") }, BIN, BIN, 0 },
	{ "binary create", "newbin", { NONE }, { T("\0\1\2") }, BIN, BIN, 0 },
	{ "binary delete", "oldbin", { T("x\0") }, { NONE }, BIN, BIN, 0 },
	{ "mode only", "tool", { T("a\n") }, { X("a\n") }, NULL, NULL, 0 },
	{ "mode and text", "tool2", { X("a\n") }, { T("b\n") }, NULL, NULL, 1 },
	{ "symlink change", "link", { L("target") }, { L("other") },
	    "patch(1) refuses to patch an existing symlink", NULL, 1 },
	{ "symlink create", "newlink", { NONE }, { L("some/where") },
	    NULL, NULL, 1 },
	{ "file to symlink", "tc1", { T("f\n") }, { L("t") },
	    NULL, NULL, 2 },
	{ "symlink to file", "tc2", { L("t") }, { T("f\ng\n") },
	    NULL, NULL, 2 },
	{ "large scattered edits", "big", { UDIFF_FILE, 0100644, big_old, 0 },
	    { UDIFF_FILE, 0100644, big_new, 0 }, NULL, NULL, -1 },
	{ "name with space", "a file", { T("1\n") }, { T("2\n") }, NULL, NULL, 1 },
	{ "create with space", "new file", { NONE }, { T("1\n") },
	    NULL, NULL, 1 },
	{ "name with tab", "ta\tb", { T("1\n") }, { T("2\n") }, NULL, NULL, 1 },
	{ "name with newline", "new\nline", { T("1\n") }, { T("2\n") },
	    "patch(1) cannot name a file with a newline", NULL, 1 },
	{ "name with quote", "say \"hi\"", { T("1\n") }, { T("2\n") },
	    NULL, NULL, 1 },
	{ "name with backslash", "back\\slash", { T("1\n") }, { T("2\n") },
	    NULL, NULL, 1 },
	{ "non-UTF-8 name", "caf\351", { T("1\n") }, { T("2\n") },
	    NULL, NULL, 1 },
	{ "UTF-8 name", "caf\303\251 x", { NONE }, { T("1\n") },
	    NULL, NULL, 1 },
};
#define NFX	(sizeof(fx) / sizeof(fx[0]))

static int cur;
static char tmpdir[PATH_MAX];

struct sbuf {
	char	*p;
	size_t	 n;
	size_t	 cap;
	int	 calls;
	int	 failat;
};

static int
sb_out(const void *b, size_t n, void *arg)
{
	struct sbuf *s = arg;

	if (s->failat >= 0 && s->calls++ == s->failat) {
		errno = EIO;
		return -1;
	}
	if (s->n + n + 1 > s->cap) {
		s->cap = (s->n + n + 1) * 2;
		s->p = realloc(s->p, s->cap);
	}
	memcpy(s->p + s->n, b, n);
	s->n += n;
	s->p[s->n] = '\0';
	return 0;
}

static char *
render(const struct fix *f, long cap, int color, size_t *len,
    struct udiff_stats *st, struct hash_ctx *dig)
{
	struct udiff_opts o = { 3, cap, color, 0 };
	struct sbuf s = { NULL, 0, 0, 0, -1 };

	if (udiff_file(f->path, &f->old, &f->new, &o, sb_out, &s, dig,
	    st) != 0)
		return NULL;
	if (s.p == NULL)
		s.p = calloc(1, 1);
	*len = s.n;
	return s.p;
}

static void
mkparents(const char *path)
{
	char b[PATH_MAX], *p;

	snprintf(b, sizeof(b), "%s", path);
	for (p = b + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(b, 0755);
			*p = '/';
		}
}

static void
put_side(const char *dir, const char *path, const struct udiff_side *s)
{
	char p[PATH_MAX], *t;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, path);
	mkparents(p);
	unlink(p);
	if (s->kind == UDIFF_FILE) {
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		CHECK(fd >= 0);
		CHECK(write(fd, s->data, s->len) == (ssize_t)s->len);
		CHECK(fchmod(fd, s->mode & 0777) == 0);
		close(fd);
	} else if (s->kind == UDIFF_SYMLINK) {
		t = strndup(s->data, s->len);
		CHECK(symlink(t, p) == 0);
		free(t);
	}
}

static int
same_side(const char *dir, const char *path, const struct udiff_side *s,
    int modes)
{
	char p[PATH_MAX], *buf;
	struct stat st;
	ssize_t n;
	int fd, ok;

	snprintf(p, sizeof(p), "%s/%s", dir, path);
	if (lstat(p, &st) < 0)
		return errno == ENOENT && s->kind == UDIFF_ABSENT;
	buf = malloc(st.st_size + 1);
	if (S_ISLNK(st.st_mode)) {
		n = readlink(p, buf, st.st_size + 1);
		ok = s->kind == UDIFF_SYMLINK;
	} else {
		fd = open(p, O_RDONLY | O_CLOEXEC);
		n = fd < 0 ? -1 : read(fd, buf, st.st_size + 1);
		if (fd >= 0)
			close(fd);
		ok = s->kind == UDIFF_FILE && S_ISREG(st.st_mode);
		if (modes && (st.st_mode & 0100) != (s->mode & 0100))
			ok = 0;
	}
	ok = ok && n == (ssize_t)s->len && memcmp(buf, s->data, n) == 0;
	free(buf);
	return ok;
}

static int
sh(const char *fmt, const char *a)
{
	char cmd[2 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), fmt, a, a, a);
	return system(cmd);
}

static void
writefile(const char *path, const char *data, size_t len)
{
	FILE *fp = fopen(path, "w");

	CHECK(fp != NULL);
	CHECK(fwrite(data, 1, len, fp) == len);
	CHECK(fclose(fp) == 0);
}

static char *
readfile(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "r");
	char *b = NULL;
	size_t cap = 0, n = 0, r;

	CHECK(fp != NULL);
	do {
		if (n + 4096 > cap)
			b = realloc(b, cap = (n + 4096) * 2);
		r = fread(b + n, 1, 4096, fp);
		n += r;
	} while (r > 0);
	fclose(fp);
	b[n] = '\0';
	*len = n;
	return b;
}

static const char *
newdir(const char *name)
{
	static char d[PATH_MAX];

	snprintf(d, sizeof(d), "%s/%s-%d", tmpdir, name, cur);
	CHECK(sh("rm -rf '%s'", d) == 0);
	CHECK(mkdir(d, 0700) == 0);
	return d;
}

static int
have(const char *tool)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "%s --version >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

/*
 * What `git diff` prints for the fixtures (old tree committed, new tree
 * staged), index lines dropped; colour when asked.
 */
static char *
git_says(const struct fix *f, size_t nf, int color, size_t *len)
{
	char d[PATH_MAX], out[PATH_MAX + 16], *s, *w, *line, *next;
	size_t i, n;

	snprintf(d, sizeof(d), "%s", newdir("git"));
	for (i = 0; i < nf; i++)
		put_side(d, f[i].path, &f[i].old);
	CHECK(sh("cd '%s' && git init -q && git add -A && "
	    "git -c user.name=t -c user.email=t@t commit -q --allow-empty "
	    "-m old", d) == 0);
	for (i = 0; i < nf; i++)
		put_side(d, f[i].path, &f[i].new);
	snprintf(out, sizeof(out), "%s.out", d);
	CHECK(sh(color ? "cd '%s' && git add -A && git diff --cached "
	    "--no-renames --color=always >'%s.out'" :
	    "cd '%s' && git add -A && git diff --cached --no-renames "
	    ">'%s.out'", d) == 0);
	s = readfile(out, &n);
	/* drop index lines (header only: body lines start with " -+@\\") */
	for (line = w = s; line < s + n; line = next) {
		next = memchr(line, '\n', s + n - line);
		next = next ? next + 1 : s + n;
		if (strncmp(line, "index ", 6) == 0 ||
		    strncmp(line, "\033[1mindex ", 10) == 0)
			continue;
		memmove(w, line, next - line);
		w += next - line;
	}
	*w = '\0';
	*len = w - s;
	return s;
}

static int
count_hunks(const char *s)
{
	int n = 0;

	for (; (s = strstr(s, "\n@@ -")) != NULL; s++)
		n++;
	return n;
}

static void
show_diff(const char *what, const char *a, const char *b)
{
	char pa[PATH_MAX], pb[PATH_MAX];

	snprintf(pa, sizeof(pa), "%s/want", tmpdir);
	snprintf(pb, sizeof(pb), "%s/got", tmpdir);
	writefile(pa, a, strlen(a));
	writefile(pb, b, strlen(b));
	fprintf(stderr, "# %s differs (want vs got):\n", what);
	sh("diff -a '%s/want' '%s/got' | sed 's/^/#   /' | head -40 >&2",
	    tmpdir);
}

/* One fixture: as git prints it; applies with git apply and patch -p1. */
static void
t_fixture(void)
{
	const struct fix *f = &fx[cur];
	char *ours, *want, p[PATH_MAX], cmd[3 * PATH_MAX];
	const char *d;
	size_t len, wlen;
	struct udiff_stats st;

	if (!have("git"))
		SKIP("git not installed");
	ours = render(f, -1, 0, &len, &st, NULL);
	CHECK(ours != NULL);
	CHECK(strlen(ours) == len);
	want = git_says(f, 1, 0, &wlen);
	if (strcmp(want, ours) != 0)
		show_diff(f->name, want, ours);
	CHECK_STR(ours, want);
	if (f->hunks >= 0)
		CHECK(count_hunks(ours) == f->hunks);
	CHECK(st.binary == (f->nogit != NULL && strcmp(f->nogit, BIN) == 0));

	snprintf(p, sizeof(p), "%s/p%d.diff", tmpdir, cur);
	writefile(p, ours, len);
	if (f->nogit == NULL) {
		d = newdir("apply");
		put_side(d, f->path, &f->old);
		snprintf(cmd, sizeof(cmd), "cd '%s' && git init -q && "
		    "git apply '%s'", d, p);
		CHECK(system(cmd) == 0);
		CHECK(same_side(d, f->path, &f->new, 1));
	} else
		printf("# git apply skipped: %s\n", f->nogit);
	if (f->nopatch == NULL && have("patch")) {
		d = newdir("patch");
		put_side(d, f->path, &f->old);
		snprintf(cmd, sizeof(cmd), "cd '%s' && patch -p1 -s -f "
		    "--no-backup-if-mismatch <'%s'", d, p);
		CHECK(system(cmd) == 0);
		CHECK(same_side(d, f->path, &f->new, 1));
	} else
		printf("# patch skipped: %s\n", f->nopatch ? f->nopatch :
		    "patch not installed");
	free(ours);
	free(want);
	exit(0);
}

/* All fixtures as one aggregate diff: git apply takes the whole stream. */
static void
t_aggregate(void)
{
	struct sbuf s = { NULL, 0, 0, 0, -1 };
	struct udiff_opts o = { 3, -1, 0, 0 };
	struct fix sub[NFX];
	size_t i, n = 0, wlen;
	char *want, p[PATH_MAX], cmd[3 * PATH_MAX];
	const char *d;

	if (!have("git"))
		SKIP("git not installed");
	for (i = 0; i < NFX; i++) {
		if (fx[i].nogit != NULL || strcmp(fx[i].path, "f") == 0)
			continue;
		sub[n++] = fx[i];
		CHECK(udiff_file(fx[i].path, &fx[i].old, &fx[i].new, &o,
		    sb_out, &s, NULL, NULL) == 0);
	}
	/* git sorts by path; so does arcturn: compare only when sorted */
	want = git_says(sub, n, 0, &wlen);
	CHECK(wlen > 0);
	d = newdir("agg");
	for (i = 0; i < n; i++)
		put_side(d, sub[i].path, &sub[i].old);
	snprintf(p, sizeof(p), "%s/agg.diff", tmpdir);
	writefile(p, s.p, s.n);
	snprintf(cmd, sizeof(cmd), "cd '%s' && git init -q && git apply '%s'",
	    d, p);
	CHECK(system(cmd) == 0);
	for (i = 0; i < n; i++)
		CHECK(same_side(d, sub[i].path, &sub[i].new, 1));
	free(s.p);
	free(want);
	exit(0);
}

/* Random edits of a numbered file: hunks as git prints them. */
static void
t_random_vs_git(void)
{
	static char a[20000], b[20000];
	struct fix f = { "random", "r", { UDIFF_FILE, 0100644, a, 0 },
	    { UDIFF_FILE, 0100644, b, 0 }, NULL, NULL, -1 };
	unsigned long rng = 99;
	int it, i, n;
	size_t al, bl, len, wlen;
	char *ours, *want;

	if (!have("git"))
		SKIP("git not installed");
	for (it = 0; it < 40; it++) {
		al = bl = 0;
		n = 20 + it * 5;
		for (i = 0; i < n; i++) {
			rng = rng * 6364136223846793005UL + 1442695040888963407UL;
			al += sprintf(a + al, "line %d\n", i);
			switch ((rng >> 33) % 9) {
			case 0:
				break;
			case 1:
				bl += sprintf(b + bl, "new %d\nline %d\n", it, i);
				break;
			case 2:
				bl += sprintf(b + bl, "changed %d\n", i);
				break;
			default:
				bl += sprintf(b + bl, "line %d\n", i);
			}
		}
		f.old.len = al;
		f.new.len = bl;
		ours = render(&f, -1, 0, &len, NULL, NULL);
		want = git_says(&f, 1, 0, &wlen);
		if (strcmp(ours, want) != 0)
			show_diff("random edit", want, ours);
		CHECK_STR(ours, want);
		free(ours);
		free(want);
	}
	exit(0);
}

/* A file with 100 separate hunks of 9 body lines each. */
static struct fix manyhunks = { "many hunks", "many", { UDIFF_FILE, 0100644,
    NULL, 0 }, { UDIFF_FILE, 0100644, NULL, 0 }, NULL, NULL, 100 };

static void
make_manyhunks(void)
{
	static char a[16000], b[16000];
	size_t al = 0, bl = 0;
	int i;

	for (i = 0; i < 1000; i++) {
		al += sprintf(a + al, "line %d\n", i);
		bl += sprintf(b + bl, i % 10 == 5 ? "LINE %d\n" : "line %d\n", i);
	}
	manyhunks.old.data = a;
	manyhunks.old.len = al;
	manyhunks.new.data = b;
	manyhunks.new.len = bl;
}

static void
t_truncation(void)
{
	struct udiff_stats st;
	struct hash_ctx h1, h2, h3;
	unsigned char d1[HASH_LEN], d2[HASH_LEN], d3[HASH_LEN];
	size_t len, flen, i;
	char *capped, *full, *marker, p[PATH_MAX], cmd[3 * PATH_MAX];
	const char *d;
	int body = 0, inbody = 0;

	hash_init(&h1);
	capped = render(&manyhunks, 200, 0, &len, &st, &h1);
	CHECK(capped != NULL);
	hash_init(&h2);
	full = render(&manyhunks, -1, 0, &flen, NULL, &h2);
	CHECK(count_hunks(full) == 100);
	/* 22 whole hunks of 9 lines fit in 200; the rest is counted */
	CHECK(count_hunks(capped) == 22);
	CHECK(st.truncated == 900 - 22 * 9);
	marker = strstr(capped, "... diff truncated: ");
	CHECK(marker != NULL);
	CHECK_STR(marker, "... diff truncated: 702 more lines for many\n");
	CHECK(strncmp(capped, full, marker - capped) == 0);
	for (i = 0; capped + i < marker; i++)
		if (i == 0 || capped[i - 1] == '\n') {
			if (inbody)
				body++;
			if (strncmp(capped + i, "+++ ", 4) == 0)
				inbody = 1;
		}
	CHECK(body == 198);
	/* the digest covers the full section, whatever the cap */
	hash_final(&h1, d1);
	hash_final(&h2, d2);
	hash_buf(full, flen, d3);
	CHECK(memcmp(d1, d2, HASH_LEN) == 0);
	CHECK(memcmp(d1, d3, HASH_LEN) == 0);
	/* and never sees colours */
	hash_init(&h3);
	free(render(&manyhunks, 200, 1, &len, NULL, &h3));
	hash_final(&h3, d3);
	CHECK(memcmp(d1, d3, HASH_LEN) == 0);

	if (!have("git"))
		SKIP("git not installed");
	d = newdir("trunc");
	put_side(d, manyhunks.path, &manyhunks.old);
	snprintf(p, sizeof(p), "%s/trunc.diff", tmpdir);
	writefile(p, capped, strlen(capped));
	snprintf(cmd, sizeof(cmd), "cd '%s' && git init -q && "
	    "git apply --check '%s' && git apply '%s' && "
	    "grep -c LINE many | grep -qx 22", d, p, p);
	CHECK(system(cmd) == 0);
	free(capped);
	free(full);
	exit(0);
}

/* A first hunk bigger than the cap: header, no hunk, marker. */
static void
t_truncation_first_hunk(void)
{
	struct udiff_stats st;
	size_t len;
	char *s = render(&fx[7], 5, 0, &len, &st, NULL);	/* whole rewrite */

	CHECK(s != NULL);
	CHECK_STR(s, "diff --git a/f b/f\n--- a/f\n+++ b/f\n"
	    "... diff truncated: 8 more lines for f\n");
	CHECK(st.truncated == 8 && st.added == 4 && st.removed == 3);
	free(s);
	/* cap 0 on a mode-only change: nothing to cut */
	s = render(&fx[26], 0, 0, &len, &st, NULL);
	CHECK_STR(s, "diff --git a/tool b/tool\nold mode 100644\n"
	    "new mode 100755\n");
	CHECK(st.truncated == 0);
	free(s);
	exit(0);
}

static void
t_color_vs_git(void)
{
	static struct fix cf[] = {
		{ "ws", "ws", { T("a\nb\nc\n\n") },
		    { T("a\nb \n \tc\n\td\r\nint f()\n\n  \n\n") },
		    NULL, NULL, -1 },
		{ "noeol", "ne", { T("x\ny") }, { T("x\nz") }, NULL, NULL, -1 },
		{ "func", "fn.c", { T("int main\n1\n2\n3\n4\n5\n6\n") },
		    { T("int main\n1\n2\n3\n4\n5\nsix\n") }, NULL, NULL, -1 },
		{ "mode", "md", { T("a\n") }, { X("b\n") }, NULL, NULL, -1 },
		{ "bin", "bn", { T("\0") }, { T("\0\0") }, NULL, NULL, -1 },
		{ "new sp", "n s", { NONE }, { T("\n\n") }, NULL, NULL, -1 },
	};
	size_t i, len, wlen;
	char *ours, *want;

	if (!have("git"))
		SKIP("git not installed");
	for (i = 0; i < sizeof(cf) / sizeof(cf[0]); i++) {
		ours = render(&cf[i], -1, 1, &len, NULL, NULL);
		want = git_says(&cf[i], 1, 1, &wlen);
		if (strcmp(want, ours) != 0)
			show_diff(cf[i].name, want, ours);
		CHECK_STR(ours, want);
		free(ours);
		free(want);
	}
	exit(0);
}

static void
t_nothing_to_show(void)
{
	struct fix f = { "same", "s", { T("a\n") }, { T("a\n") }, 0, 0, 0 };
	struct fix g = { "none", "n", { NONE }, { NONE }, 0, 0, 0 };
	struct udiff_stats st;
	size_t len;
	char *s;

	s = render(&f, -1, 0, &len, &st, NULL);
	CHECK(s != NULL && len == 0);
	CHECK(st.added == 0 && st.removed == 0 && st.binary == 0);
	free(s);
	s = render(&g, -1, 0, &len, &st, NULL);
	CHECK(s != NULL && len == 0);
	free(s);
	exit(0);
}

static void
t_stats(void)
{
	struct udiff_stats st;
	size_t len;

	free(render(&fx[4], -1, 0, &len, &st, NULL));	/* gap of 7 */
	CHECK(st.added == 2 && st.removed == 2 && !st.binary &&
	    st.truncated == 0);
	free(render(&fx[23], -1, 0, &len, &st, NULL));	/* binary */
	CHECK(st.binary && st.added == 0 && st.removed == 0);
	free(render(&fx[30], -1, 0, &len, &st, NULL));	/* file to symlink */
	CHECK(st.added == 1 && st.removed == 1);
	exit(0);
}

static void
t_quote(void)
{
	static const struct {
		const char *in, *out;
	} q[] = {
		{ "plain/path.c", "a/plain/path.c" },
		{ "with space", "a/with space" },
		{ "ta\tb", "\"a/ta\\tb\"" },
		{ "new\nline", "\"a/new\\nline\"" },
		{ "say \"hi\"", "\"a/say \\\"hi\\\"\"" },
		{ "back\\slash", "\"a/back\\\\slash\"" },
		{ "caf\303\251", "\"a/caf\\303\\251\"" },
		{ "\001\177\033", "\"a/\\001\\177\\033\"" },
		{ "\a\b\v\f\r", "\"a/\\a\\b\\v\\f\\r\"" },
	};
	size_t i;
	char *s;

	for (i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		s = udiff_quote("a/", q[i].in);
		CHECK_STR(s, q[i].out);
		mem_free(s);
	}
	exit(0);
}

/* The nth allocation fails: -1 with ENOMEM, nothing leaked. */
static void
t_alloc_failures(void)
{
	static const int pick[] = { 4, 31, 32, 40, 23, 19 };
	struct udiff_opts o = { 3, 200, 1, 0 };
	struct hash_ctx h;
	size_t i;
	long n;
	int r, done;

	for (i = 0; i < sizeof(pick) / sizeof(pick[0]); i++) {
		const struct fix *f = &fx[pick[i]];

		for (done = 0, n = 0; !done && n < 500; n++) {
			struct sbuf s = { NULL, 0, 0, 0, -1 };

			hash_init(&h);
			mem_fail_after(n);
			errno = 0;
			r = udiff_file(f->path, &f->old, &f->new, &o, sb_out,
			    &s, &h, NULL);
			if (mem_failed()) {
				CHECK(r == -1);
				CHECK(errno == ENOMEM);
			} else {
				CHECK(r == 0);
				done = 1;
			}
			free(s.p);
		}
		mem_fail_after(-1);
		CHECK(done);
	}
	exit(0);
}

/* The output callback fails at its kth call: -1 with its errno, no leak. */
static void
t_out_fails(void)
{
	struct udiff_opts o = { 3, -1, 0, 0 };
	int k, r, done = 0;

	for (k = 0; !done && k < 100; k++) {
		struct sbuf s = { NULL, 0, 0, 0, k };

		errno = 0;
		r = udiff_file(fx[32].path, &fx[32].old, &fx[32].new, &o,
		    sb_out, &s, NULL, NULL);
		if (s.calls > k) {
			CHECK(r == -1);
			CHECK(errno == EIO);
		} else {
			CHECK(r == 0);
			done = 1;
		}
		free(s.p);
	}
	CHECK(done && k > 2);	/* the big file takes several writes */
	exit(0);
}

/*
 * escape (a terminal): control characters in content come out as \xNN,
 * colour codes and CRLF stay, and the digest is the raw one.
 */
static void
t_escape(void)
{
	static const char oldt[] = "keep\nold\n";
	static const char newt[] = "keep\nx\033[1A\033[2Ky\rz\302\233w\tt\r\n";
	struct udiff_side a = { UDIFF_FILE, 0100644, oldt, sizeof oldt - 1 };
	struct udiff_side b = { UDIFF_FILE, 0100644, newt, sizeof newt - 1 };
	struct udiff_opts raw = { 3, -1, 0, 0 }, esc = { 3, -1, 0, 1 };
	struct udiff_opts cesc = { 3, -1, 1, 1 };
	struct sbuf r = { NULL, 0, 0, 0, -1 }, e = { NULL, 0, 0, 0, -1 };
	struct sbuf c = { NULL, 0, 0, 0, -1 };
	struct hash_ctx hr, he;
	unsigned char dr[HASH_LEN], de[HASH_LEN];
	static const char want[] =
	    "+x\\x1b[1A\\x1b[2Ky\\x0dz\\xc2\\x9bw\tt\r\n";

	hash_init(&hr);
	hash_init(&he);
	CHECK(udiff_file("f", &a, &b, &raw, sb_out, &r, &hr, NULL) == 0);
	CHECK(udiff_file("f", &a, &b, &esc, sb_out, &e, &he, NULL) == 0);
	CHECK(udiff_file("f", &a, &b, &cesc, sb_out, &c, NULL, NULL) == 0);
	hash_final(&hr, dr);
	hash_final(&he, de);
	CHECK(memcmp(dr, de, HASH_LEN) == 0);
	CHECK(memmem(r.p, r.n, "+x\033[1A", 6) != NULL);
	CHECK(memmem(e.p, e.n, want, sizeof want - 1) != NULL);
	CHECK(memchr(e.p, '\033', e.n) == NULL);
	/* with colours: the codes are ours, the content's are escaped */
	CHECK(memmem(c.p, c.n, "\\x1b[1A", 7) != NULL);
	CHECK(memmem(c.p, c.n, "\033[32m", 5) != NULL);
	free(r.p);
	free(e.p);
	free(c.p);
	exit(0);
}

static void
make_big(void)
{
	size_t al = 0, bl = 0;
	int i;

	for (i = 0; i < 4000; i++) {
		al += sprintf(big_old + al, "line %d of the big file\n", i);
		if (i % 37 == 3)
			continue;
		if (i % 53 == 7)
			bl += sprintf(big_new + bl, "inserted before %d\n", i);
		if (i % 71 == 11)
			bl += sprintf(big_new + bl, "line %d CHANGED\n", i);
		else
			bl += sprintf(big_new + bl, "line %d of the big file\n", i);
	}
	fx[32].old.len = al;
	fx[32].new.len = bl;
}

int
main(void)
{
	char name[128];
	const char *t = getenv("TMPDIR");

	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("LC_ALL", "C", 1);
	snprintf(tmpdir, sizeof(tmpdir), "%s/udiff_test.XXXXXX",
	    t != NULL && *t != '\0' ? t : "/tmp");
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	make_big();
	make_manyhunks();
	if (strcmp(fx[32].name, "large scattered edits") != 0 ||
	    strcmp(fx[26].name, "mode only") != 0 ||
	    strcmp(fx[23].name, "binary change") != 0 ||
	    strcmp(fx[30].name, "file to symlink") != 0 ||
	    strcmp(fx[7].name, "whole rewrite") != 0 ||
	    strcmp(fx[4].name, "gap of 7 splits") != 0) {
		fprintf(stderr, "fixture table out of order\n");
		return 1;
	}
	for (cur = 0; cur < (int)NFX; cur++) {
		snprintf(name, sizeof(name), "fixture: %s", fx[cur].name);
		tap_run(name, t_fixture);
	}
	TEST(t_aggregate);
	TEST(t_random_vs_git);
	TEST(t_truncation);
	TEST(t_truncation_first_hunk);
	TEST(t_color_vs_git);
	TEST(t_nothing_to_show);
	TEST(t_stats);
	TEST(t_quote);
	TEST(t_alloc_failures);
	TEST(t_out_fails);
	TEST(t_escape);
	sh("rm -rf '%s'", tmpdir);
	return tap_done();
}
