/*
 * kernel_test: the fd guard of kernel_linux (linux_fds_guard) with and
 * without /proc: an inherited regular file or directory becomes
 * close-on-exec, a pipe does not. Without /proc (a tmpfs over it in a
 * mount namespace of our own) the guard cannot list the descriptors and
 * asks every number instead.
 */
#include <sys/mount.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/kernel_linux.h"
#include "tap.h"

static int
cloexec(int fd)
{
	int flags = fcntl(fd, F_GETFD);

	return flags >= 0 && (flags & FD_CLOEXEC);
}

/* Open a file, a directory and a pipe without close-on-exec; guard. */
static void
guard_and_check(void)
{
	char path[] = "/tmp/kernel_test.XXXXXX", err[256] = "";
	int file, dir, p[2], high;

	CHECK((file = mkstemp(path)) >= 0);
	unlink(path);
	CHECK((dir = open("/", O_RDONLY | O_DIRECTORY)) >= 0);
	CHECK(pipe(p) == 0);
	/* far above the others: found by listing or by asking every number */
	CHECK((high = fcntl(file, F_DUPFD, 900)) >= 900);
	CHECK(!cloexec(file) && !cloexec(dir) && !cloexec(p[0]) &&
	    !cloexec(high));
	CHECK(linux_fds_guard(err, sizeof err) == 0);
	CHECK(cloexec(file));
	CHECK(cloexec(dir));
	CHECK(cloexec(high));
	CHECK(!cloexec(p[0]));
	CHECK(!cloexec(p[1]));
}

static void
t_guard_with_proc(void)
{
	guard_and_check();
}

static void
t_guard_without_proc(void)
{
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		SKIP("no user namespace here");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("none", "/proc", "tmpfs", 0, NULL) < 0)
		SKIP("cannot hide /proc here");
	CHECK(open("/proc/self/fd", O_RDONLY | O_DIRECTORY) < 0);
	guard_and_check();
	_exit(0);	/* the leak checker's exit reads /proc: not here */
}

int
main(void)
{
	TEST(t_guard_with_proc);
	TEST(t_guard_without_proc);
	return tap_done();
}
