/*
 * fuzz: what the libFuzzer targets share. Each target works in one
 * scratch directory of its own (under $TMPDIR, /dev/shm when it can),
 * made at the first input and emptied between inputs; nothing outside it
 * is ever written. tests/fuzz/run builds and runs them.
 */
#ifndef ARCTURN_FUZZ_H
#define ARCTURN_FUZZ_H

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fsx.h"
#include "session/session.h"
#include "session/session_rmtree.h"

static char fz_top[PATH_MAX];
static int fz_topfd = -1;

/* The scratch directory, made once per process. */
static int
fz_scratch(void)
{
	const char *t;

	if (fz_topfd >= 0)
		return fz_topfd;
	t = access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" :
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
	snprintf(fz_top, sizeof fz_top, "%s/arcturn-fuzz.XXXXXX", t);
	if (mkdtemp(fz_top) == NULL) {
		perror(fz_top);
		abort();
	}
	fz_topfd = open(fz_top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fz_topfd < 0)
		abort();
	return fz_topfd;
}

/* Empty the scratch directory (it stays). */
static void
fz_clean(void)
{
	char **names;
	size_t n, i;

	if (fsx_list(fz_topfd, NULL, NULL, &names, &n) < 0)
		abort();
	for (i = 0; i < n; i++)
		if (session_rmtree(fz_topfd, names[i]) < 0) {
			perror(names[i]);
			abort();
		}
	fsx_names_free(names, n);
}

/* A reader over the fuzz input: bytes, small numbers, short names. */
struct fz_in {
	const uint8_t	*p;
	size_t		 n;
};

static int
fz_byte(struct fz_in *in)
{
	if (in->n == 0)
		return -1;
	in->n--;
	return *in->p++;
}

/* A name from a small alphabet, so that paths meet: "a".."d", "." ... */
static void
fz_name(struct fz_in *in, char *out, size_t len)
{
	static const char *names[] = {
		"a", "b", "c", "d", "e", ".x", "sub", "..", ".", "x y",
		".arcturn-tmp-0123456789abcdef", "\xc3\xbc", "-", "a\nb", "f",
		"ab",
	};
	int b = fz_byte(in);

	snprintf(out, len, "%s", names[(b < 0 ? 0 : b) % 16]);
}

/* A relative path of 1..4 names joined by '/'. */
static void
fz_path(struct fz_in *in, char *out, size_t len, int allow_dots)
{
	char name[64];
	int k, i, b = fz_byte(in);

	k = 1 + (b < 0 ? 0 : b) % 4;
	out[0] = '\0';
	for (i = 0; i < k; i++) {
		do
			fz_name(in, name, sizeof name);
		while (!allow_dots && (strcmp(name, ".") == 0 ||
		    strcmp(name, "..") == 0) && in->n > 0);
		if (!allow_dots && (strcmp(name, ".") == 0 ||
		    strcmp(name, "..") == 0))
			snprintf(name, sizeof name, "z");
		if (i > 0)
			strncat(out, "/", len - strlen(out) - 1);
		strncat(out, name, len - strlen(out) - 1);
	}
}

/* Up to max bytes of content, as the input gives them. */
static size_t
fz_bytes(struct fz_in *in, char *out, size_t max)
{
	int b = fz_byte(in);
	size_t k = (size_t)(b < 0 ? 0 : b) % (max + 1), i;

	for (i = 0; i < k && in->n > 0; i++)
		out[i] = (char)fz_byte(in);
	return i;
}

#endif
