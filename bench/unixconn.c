/*
 * unixconn: the two ends of bench/unix-connect.sh.
 *
 *	unixconn serve PATH	bind a stream socket at PATH, then accept
 *				and close connections until killed
 *	unixconn connect PATH N	connect to PATH N times, one after the
 *				other (socket, connect, close)
 *
 * Exit status 1 on the first failure, with a message.
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static void
addr(struct sockaddr_un *su, const char *path)
{
	memset(su, 0, sizeof *su);
	su->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof su->sun_path)
		errx(1, "%s: path too long", path);
	strcpy(su->sun_path, path);
}

int
main(int argc, char **argv)
{
	struct sockaddr_un su;
	long i, n;
	int s, c;

	if (argc < 3)
		errx(2, "usage: unixconn serve PATH | connect PATH N");
	addr(&su, argv[2]);
	if (strcmp(argv[1], "serve") == 0) {
		if ((s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
		    bind(s, (struct sockaddr *)&su, sizeof su) < 0 ||
		    listen(s, 512) < 0)
			err(1, "%s", argv[2]);
		for (;;)
			if ((c = accept(s, NULL, NULL)) >= 0)
				close(c);
	}
	if (argc < 4 || (n = atol(argv[3])) <= 0)
		errx(2, "usage: unixconn connect PATH N");
	for (i = 0; i < n; i++) {
		if ((c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
			err(1, "socket");
		if (connect(c, (struct sockaddr *)&su, sizeof su) < 0)
			err(1, "connect %s (#%ld)", argv[2], i + 1);
		close(c);
	}
	return 0;
}
