/*
 * unixconn: the two ends of bench/unix-connect.sh.
 *
 *	unixconn serve PATH|tcp	bind a stream socket at PATH (tcp: on
 *				127.0.0.1, its port printed on stdout),
 *				then accept and close connections until
 *				killed
 *	unixconn connect PATH|PORT N [THREADS]
 *				connect N times, one after the other
 *				(socket, connect, close), in each of THREADS
 *				threads at once (default 1: the main thread
 *				alone); PORT (digits) is on 127.0.0.1
 *
 * Exit status 1 on the first failure, with a message.
 */
#include <arpa/inet.h>
#include <err.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static struct sockaddr_storage ss;
static socklen_t sslen;
static const char *name;
static long n;

static void
addr(const char *a)
{
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	struct sockaddr_un *su = (struct sockaddr_un *)&ss;

	memset(&ss, 0, sizeof ss);
	name = a;
	if (strcmp(a, "tcp") == 0 || strspn(a, "0123456789") == strlen(a)) {
		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		in->sin_port = htons((unsigned short)atoi(a));
		sslen = sizeof *in;
		return;
	}
	su->sun_family = AF_UNIX;
	if (strlen(a) >= sizeof su->sun_path)
		errx(1, "%s: path too long", a);
	strcpy(su->sun_path, a);
	sslen = sizeof *su;
}

static void *
connects(void *arg)
{
	long i;
	int c;

	(void)arg;
	for (i = 0; i < n; i++) {
		if ((c = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC,
		    0)) < 0)
			err(1, "socket");
		if (connect(c, (struct sockaddr *)&ss, sslen) < 0)
			err(1, "connect %s (#%ld)", name, i + 1);
		close(c);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[64];
	long i, nt = 1;
	int s, c, one = 1;

	if (argc < 3)
		errx(2, "usage: unixconn serve PATH|tcp | "
		    "connect PATH|PORT N [THREADS]");
	addr(argv[2]);
	if (strcmp(argv[1], "serve") == 0) {
		if ((s = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC,
		    0)) < 0 ||
		    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one,
		    sizeof one) < 0 ||
		    bind(s, (struct sockaddr *)&ss, sslen) < 0 ||
		    listen(s, 512) < 0 ||
		    getsockname(s, (struct sockaddr *)&ss, &sslen) < 0)
			err(1, "%s", argv[2]);
		if (ss.ss_family == AF_INET) {
			printf("%d\n",
			    ntohs(((struct sockaddr_in *)&ss)->sin_port));
			fflush(stdout);
		}
		for (;;)
			if ((c = accept(s, NULL, NULL)) >= 0)
				close(c);
	}
	if (argc < 4 || (n = atol(argv[3])) <= 0 ||
	    (argc > 4 && ((nt = atol(argv[4])) <= 0 || nt > 64)))
		errx(2, "usage: unixconn connect PATH|PORT N [THREADS]");
	if (nt == 1) {
		connects(NULL);
		return 0;
	}
	for (i = 0; i < nt; i++)
		if ((errno = pthread_create(&t[i], NULL, connects, NULL)) != 0)
			err(1, "pthread_create");
	for (i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	return 0;
}
