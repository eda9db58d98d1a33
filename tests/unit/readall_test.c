/*
 * readall: whole files into memory, bounded, never blocking. readall_fd
 * on a regular file and on a pipe (no size to go by); readall_path on a
 * file, through a symlink, a fifo, a directory, a missing path; the
 * bound; allocation faults. (fsx_test covers fsx_read_all on top.)
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/mem.h"
#include "lib/readall.h"
#include "tap.h"

static char dir[] = "/tmp/readall_test.XXXXXX";

static const char *
at(const char *name)
{
	static char p[256];

	snprintf(p, sizeof p, "%s/%s", dir, name);
	return p;
}

static void
put(const char *name, const char *text)
{
	FILE *f;

	CHECK((f = fopen(at(name), "w")) != NULL);
	CHECK(fputs(text, f) >= 0 && fclose(f) == 0);
}

static void
t_path(void)
{
	char *buf = NULL;
	size_t len = 99;

	alarm(20);	/* a blocking open on the fifo would hang: fail instead */
	put("file", "hello");
	put("empty", "");
	CHECK(readall_path(at("file"), 100, &buf, &len) == 0);
	CHECK(len == 5 && memcmp(buf, "hello", 6) == 0);
	mem_free(buf);
	CHECK(readall_path(at("file"), 5, &buf, &len) == 0 && len == 5);
	mem_free(buf);
	buf = NULL;
	CHECK(readall_path(at("file"), 4, &buf, &len) == -1 &&
	    errno == EFBIG && buf == NULL);
	CHECK(readall_path(at("empty"), 0, &buf, &len) == 0 && len == 0 &&
	    buf[0] == '\0');
	mem_free(buf);
	buf = NULL;
	/* symlinks are followed, as git follows them */
	CHECK(symlink("file", at("link")) == 0);
	CHECK(readall_path(at("link"), 100, &buf, &len) == 0 && len == 5);
	mem_free(buf);
	buf = NULL;
	CHECK(readall_path(at("missing"), 100, &buf, &len) == -1 &&
	    errno == ENOENT);
	CHECK(mkfifo(at("fifo"), 0644) == 0);
	CHECK(readall_path(at("fifo"), 100, &buf, &len) == -1 &&
	    errno == EINVAL);
	CHECK(readall_path(dir, 100, &buf, &len) == -1 && errno == EISDIR);
	CHECK(readall_path("/dev/null", 100, &buf, &len) == -1 &&
	    errno == EINVAL);
	CHECK(buf == NULL);
	alarm(0);
}

/* A pipe has no size: read to its end, growing, within the bound. */
static void
t_fd_pipe(void)
{
	static char big[10000];
	char *buf;
	size_t len;
	int p[2];

	memset(big, 'x', sizeof big);
	CHECK(pipe(p) == 0);
	CHECK(write(p[1], big, sizeof big) == (ssize_t)sizeof big);
	close(p[1]);
	CHECK(readall_fd(p[0], sizeof big, &buf, &len) == 0);
	CHECK(len == sizeof big && memcmp(buf, big, len) == 0 &&
	    buf[len] == '\0');
	mem_free(buf);
	close(p[0]);
	CHECK(pipe(p) == 0);
	CHECK(write(p[1], big, sizeof big) == (ssize_t)sizeof big);
	close(p[1]);
	CHECK(readall_fd(p[0], sizeof big - 1, &buf, &len) == -1 &&
	    errno == EFBIG);
	close(p[0]);
}

static void
t_alloc_faults(void)
{
	char *buf;
	size_t len;
	long n;

	put("file2", "hello");
	for (n = 0; n < 100; n++) {
		mem_fail_after(n);
		if (readall_path(at("file2"), 100, &buf, &len) == 0) {
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
}

int
main(void)
{
	static const char *const names[] = { "file", "file2", "empty", "link",
	    "fifo" };
	size_t i;
	int rc;

	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	TEST(t_path);
	TEST(t_fd_pipe);
	TEST(t_alloc_faults);
	rc = tap_done();
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		(void)unlink(at(names[i]));
	(void)rmdir(dir);
	return rc;
}
