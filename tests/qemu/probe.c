/*
 * probe: what an aarch64 command sees inside `arcturn exec` under
 * qemu-user (tests/qemu/run).
 *
 *	probe put PATH	create PATH; exit 0, or 1 with the reason on stderr
 *	probe tiocsti	push one byte into the terminal on fd 0; prints
 *			"EPERM" when a seccomp filter refused it, else the
 *			result (no terminal is needed: the filter answers
 *			before the kernel looks at the fd)
 *	probe exit N	exit with status N
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	char c = 'x';
	int fd;

	if (argc == 3 && strcmp(argv[1], "put") == 0) {
		fd = open(argv[2], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, "probe\n", 6) != 6 || close(fd) < 0) {
			fprintf(stderr, "probe: %s: %s\n", argv[2],
			    strerror(errno));
			return 1;
		}
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "tiocsti") == 0) {
		if (ioctl(0, TIOCSTI, &c) == 0)
			printf("pushed\n");
		else
			printf("%s\n", errno == EPERM ? "EPERM" : strerror(errno));
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "exit") == 0)
		return atoi(argv[2]);
	fprintf(stderr, "usage: probe put PATH | tiocsti | exit N\n");
	return 2;
}
