/*
 * threadconnect: connect a stream socket from the thread a test names, so
 * that a test can check that the socket gate decides alike for every
 * thread of the command (for the tests only).
 *
 *	threadconnect main|thread|lone PORT|PATH
 *
 * PORT (digits) is a TCP port on 127.0.0.1, anything else a unix socket's
 * path.
 *	main	the main thread connects;
 *	thread	a second thread (pthreads) connects;
 *	lone	a second thread that took a descriptor table of its own
 *		(unshare(CLONE_FILES)) connects, while the main thread holds
 *		/dev/null at the same number in the table they shared: a gate
 *		that looks at the group's table instead of the thread's sees
 *		no socket there.
 * Prints "connected" (exit 0) or "refused: REASON" (exit 1); 2 on a
 * failure of its own.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <netinet/in.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *addr;
static int lone, ready[2], go[2];

static int
try_connect(void)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	struct sockaddr_un *un = (struct sockaddr_un *)&ss;
	socklen_t len;
	char c = 0;
	int s;

	memset(&ss, 0, sizeof ss);
	if (strspn(addr, "0123456789") == strlen(addr)) {
		in->sin_family = AF_INET;
		in->sin_port = htons((unsigned short)atoi(addr));
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof *in;
	} else {
		un->sun_family = AF_UNIX;
		if (strlen(addr) >= sizeof un->sun_path) {
			fprintf(stderr, "threadconnect: %s: too long\n", addr);
			exit(2);
		}
		strcpy(un->sun_path, addr);
		len = sizeof *un;
	}
	if ((s = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		perror("threadconnect: socket");
		exit(2);
	}
	if (lone) {
		if (unshare(CLONE_FILES) < 0) {
			perror("threadconnect: unshare");
			exit(2);
		}
		/* our table is a copy now: the main thread swaps its s */
		if (write(ready[1], &s, sizeof s) != (ssize_t)sizeof s ||
		    read(go[0], &c, 1) != 1)
			exit(2);
	}
	if (connect(s, (struct sockaddr *)&ss, len) == 0) {
		printf("connected\n");
		return 0;
	}
	printf("refused: %s\n", strerror(errno));
	return 1;
}

static void *
thread(void *arg)
{
	(void)arg;
	return (void *)(long)try_connect();
}

int
main(int argc, char **argv)
{
	pthread_t t;
	void *rc;
	int s, null;

	if (argc != 3)
		goto usage;
	addr = argv[2];
	if (strcmp(argv[1], "main") == 0)
		return try_connect();
	lone = strcmp(argv[1], "lone") == 0;
	if (!lone && strcmp(argv[1], "thread") != 0)
		goto usage;
	if (pipe(ready) < 0 || pipe(go) < 0 ||
	    pthread_create(&t, NULL, thread, NULL) != 0) {
		perror("threadconnect");
		return 2;
	}
	if (lone) {
		if (read(ready[0], &s, sizeof s) != (ssize_t)sizeof s ||
		    (null = open("/dev/null", O_RDONLY)) < 0 ||
		    dup2(null, s) < 0 || write(go[1], "", 1) != 1) {
			perror("threadconnect: lone");
			return 2;
		}
	}
	pthread_join(t, &rc);
	return (int)(long)rc;
usage:
	fprintf(stderr, "usage: threadconnect main|thread|lone PORT|PATH\n");
	return 2;
}
