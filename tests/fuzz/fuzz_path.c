/*
 * fuzz_path: the path walker. A fixed tree with links that stay inside,
 * lead out (absolute, "..", chains), loop or dangle; the input is a
 * relative path (first byte: open flags). fsx_open_beneath through
 * openat2 and through the portable walk must agree (both fail, or both
 * open the same inode), and whatever they open must lie beneath the
 * root. fsx_open_parent must name a last component inside the path.
 * path_canon (PATH_LEXICAL) of the root plus the input must be absolute
 * and free of ".", ".." and empty components.
 */
#include "fuzz.h"

#include "lib/mem.h"
#include "lib/path.h"

static char rootp[PATH_MAX + 8];
static int rootfd = -1;

static void
tree(void)
{
	static const char *dirs[] = { "a", "a/b", "a/b/c", "sub", "x y" };
	static const char *links[][2] = {
		{ "up", ".." }, { "abs", "/" }, { "loop", "loop" },
		{ "in", "a/b" }, { "out2", "../../.." }, { "chain", "in/../up" },
		{ "nothing", "nowhere" }, { "a/b/back", "../.." },
		{ "a/b/etc", "/etc" }, { "sub/self", "." }, { "sub/deep", "../a/b/c" },
		{ "loop2", "sub/../loop2" },
	};
	size_t i;
	int fd;

	fz_scratch();
	snprintf(rootp, sizeof rootp, "%s/root", fz_top);
	if (mkdir(rootp, 0755) < 0 && errno != EEXIST)
		abort();
	rootfd = open(rootp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		abort();
	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
		(void)mkdirat(rootfd, dirs[i], 0755);
	for (i = 0; i < sizeof links / sizeof links[0]; i++)
		(void)symlinkat(links[i][1], rootfd, links[i][0]);
	if ((fd = openat(rootfd, "a/b/c/f", O_WRONLY | O_CREAT, 0644)) >= 0)
		close(fd);
	(void)mknodat(rootfd, "a/fifo", S_IFIFO | 0644, 0);
}

/* Is fd beneath the root (its /proc name starts with rootp/)? */
static int
inside(int fd)
{
	char proc[64], got[PATH_MAX];
	size_t rl = strlen(rootp);
	ssize_t n;

	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	if ((n = readlink(proc, got, sizeof got - 1)) < 0)
		return 1;	/* no /proc: nothing to tell */
	got[n] = '\0';
	return strncmp(got, rootp, rl) == 0 && (got[rl] == '\0' ||
	    got[rl] == '/');
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int fl[] = {
		O_RDONLY, O_RDONLY | O_NOFOLLOW, O_RDONLY | O_DIRECTORY,
		O_PATH, O_PATH | O_NOFOLLOW, O_RDONLY | O_NONBLOCK,
	};
	char rel[PATH_MAX], abs[PATH_MAX * 2];
	const char *base;
	struct stat s1, s2;
	char *out;
	int flags, f1, f2, e1, e2, pfd;
	size_t n;

	if (rootfd < 0)
		tree();
	if (size == 0)
		return 0;
	/* openat2 takes O_PATH with O_DIRECTORY and O_NOFOLLOW only */
	flags = fl[data[0] % 6];
	if (!(flags & O_PATH))
		flags |= O_NONBLOCK;
	n = size - 1 < sizeof rel - 1 ? size - 1 : sizeof rel - 1;
	memcpy(rel, data + 1, n);
	rel[n] = '\0';
	n = strlen(rel);

	fsx_force_walk(0);
	f1 = fsx_open_beneath(rootfd, rel, flags, 0);
	e1 = errno;
	fsx_force_walk(1);
	f2 = fsx_open_beneath(rootfd, rel, flags, 0);
	e2 = errno;
	fsx_force_walk(0);
	if ((f1 >= 0) != (f2 >= 0)) {
		fprintf(stderr, "openat2 %d (%s), walk %d (%s): \"%s\"\n", f1,
		    strerror(e1), f2, strerror(e2), rel);
		abort();
	}
	if (f1 < 0 && (e1 == EXDEV) != (e2 == EXDEV)) {
		fprintf(stderr, "escape judged apart: %s / %s: \"%s\"\n",
		    strerror(e1), strerror(e2), rel);
		abort();
	}
	if (f1 >= 0) {
		if (fstat(f1, &s1) < 0 || fstat(f2, &s2) < 0 ||
		    s1.st_ino != s2.st_ino || s1.st_dev != s2.st_dev)
			abort();
		if (!inside(f1) || !inside(f2)) {
			fprintf(stderr, "outside the root: \"%s\"\n", rel);
			abort();
		}
		close(f1);
		close(f2);
	}

	if ((pfd = fsx_open_parent(rootfd, rel, 0, &base)) >= 0) {
		if (base < rel || base > rel + n || strchr(base, '/') != NULL ||
		    !inside(pfd))
			abort();
		close(pfd);
	}

	snprintf(abs, sizeof abs, "%s/%s", rootp, rel);
	if (path_canon(abs, PATH_LEXICAL, NULL, &out) == 0) {
		if (out[0] != '/' || strstr(out, "//") != NULL ||
		    strstr(out, "/./") != NULL || strstr(out, "/../") != NULL ||
		    (strlen(out) >= 3 && strcmp(out + strlen(out) - 3,
		    "/..") == 0) || (strlen(out) >= 2 &&
		    strcmp(out + strlen(out) - 2, "/.") == 0))
			abort();
		mem_free(out);
	}
	return 0;
}
