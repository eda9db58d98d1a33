/*
 * difflines: the benchmark driver for the diff engine and renderer. Reads
 * two files and prints what udiff_file renders for them (git-style, no
 * cap, no colour) on stdout, as `diff -u` would be used.
 *
 *	difflines OLD NEW [PATH]
 *
 * Exit status: 0 equal, 1 different, 2 trouble (as diff(1)).
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diff/udiff.h"
#include "lib/mem.h"

static char *
slurp(const char *path, size_t *len, unsigned int *mode)
{
	struct stat st;
	char *buf;
	size_t n = 0;
	ssize_t r;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &st) < 0)
		err(2, "%s", path);
	*mode = st.st_mode & 0111 ? 0100755 : 0100644;
	if ((buf = malloc(st.st_size + 1)) == NULL)
		err(2, "%s", path);
	while (n < (size_t)st.st_size &&
	    (r = read(fd, buf + n, st.st_size - n)) > 0)
		n += r;
	close(fd);
	*len = n;
	return buf;
}

static int
out(const void *buf, size_t len, void *arg)
{
	const char *p = buf;
	ssize_t w;

	while (len > 0) {
		if ((w = write(1, p, len)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		len -= w;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct udiff_side a = { UDIFF_FILE, 0, NULL, 0 };
	struct udiff_side b = { UDIFF_FILE, 0, NULL, 0 };
	struct udiff_opts o = { 3, -1, 0 };
	struct udiff_stats st;
	char *ad, *bd;

	if (argc < 3 || argc > 4)
		errx(2, "usage: difflines OLD NEW [PATH]");
	a.data = ad = slurp(argv[1], &a.len, &a.mode);
	b.data = bd = slurp(argv[2], &b.len, &b.mode);
	if (udiff_file(argc > 3 ? argv[3] : "f", &a, &b, &o, out, NULL, NULL,
	    &st) < 0)
		err(2, "diff");
	free(ad);
	free(bd);
	return st.added + st.removed + st.binary > 0 || a.mode != b.mode;
}
