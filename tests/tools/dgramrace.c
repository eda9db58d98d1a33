/*
 * dgramrace: the descriptor-swap race on the socket gate's sends (issue
 * 25, item 4), and the outside end that counts what arrives (for the
 * tests only).
 *
 *	dgramrace recv PATH READY	bind a unix datagram socket at PATH,
 *					write "ready" to the file (a fifo)
 *					READY, count datagrams until one
 *					reads "end", print "got N"
 *	dgramrace end PATH		send "end" to PATH
 *	dgramrace race PATH TRIES sendto|sendmsg|sendmmsg
 *					make TRIES sends of one datagram to
 *					PATH on descriptor number N, while a
 *					second thread keeps putting a unix
 *					datagram socket and a UDP socket in
 *					turn at N (dup2), one send after
 *					each swap at least; print "sent K"
 *					(the sends that succeeded)
 *
 * A gate that checks what N is and then lets the kernel go on with the
 * call can be won: it sees the UDP socket (no path to reach), the kernel
 * then finds the unix one and sends to PATH. Without a gate every send
 * made while N is the unix socket arrives. Exit 2 on a failure of its own.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct sockaddr_un sa;
static int num, unixfd, udpfd;
static atomic_int stop;
static atomic_long cycles;

static void
die(const char *what)
{
	perror(what);
	exit(2);
}

static void
addr(const char *path)
{
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sa.sun_path) {
		fprintf(stderr, "dgramrace: %s: too long\n", path);
		exit(2);
	}
	strcpy(sa.sun_path, path);
}

/* A while: each socket stays at N long enough for a send to meet it. */
static void
hold(void)
{
	volatile int j;

	for (j = 0; j < 2000; j++)
		;
}

static void *
swapper(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		if (dup2(unixfd, num) < 0)
			die("dgramrace: dup2");
		hold();
		if (dup2(udpfd, num) < 0)
			die("dgramrace: dup2");
		hold();
		atomic_fetch_add(&cycles, 1);
	}
	return NULL;
}

static int
send_one(const char *how)
{
	char b = 'x';
	struct iovec iov = { &b, 1 };
	struct msghdr m = { .msg_name = &sa, .msg_namelen = sizeof sa,
	    .msg_iov = &iov, .msg_iovlen = 1 };
	struct mmsghdr mm = { .msg_hdr = m };

	if (strcmp(how, "sendto") == 0)
		return sendto(num, &b, 1, 0, (struct sockaddr *)&sa,
		    sizeof sa) == 1;
	if (strcmp(how, "sendmsg") == 0)
		return sendmsg(num, &m, 0) == 1;
	return sendmmsg(num, &mm, 1, 0) == 1;
}

static int
race(long tries, const char *how)
{
	pthread_t t;
	long k, sent = 0, seen = 0;

	if ((unixfd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0 ||
	    (udpfd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0 ||
	    (num = dup(udpfd)) < 0)
		die("dgramrace: socket");
	if (pthread_create(&t, NULL, swapper, NULL) != 0)
		die("dgramrace: pthread_create");
	/* each send after another swap: the swapper runs all along */
	for (k = 0; k < tries; k++) {
		while (atomic_load(&cycles) == seen)
			;
		seen = atomic_load(&cycles);
		sent += send_one(how);
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("sent %ld\n", sent);
	return 0;
}

static int
recv_all(const char *ready)
{
	char buf[16];
	ssize_t n;
	long got = 0;
	int s, f;

	if ((s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(s, (struct sockaddr *)&sa, sizeof sa) < 0)
		die("dgramrace: bind");
	if ((f = open(ready, O_WRONLY | O_CLOEXEC)) < 0 ||
	    write(f, "ready\n", 6) != 6)
		die("dgramrace: ready");
	close(f);
	while ((n = recv(s, buf, sizeof buf, 0)) >= 0 || errno == EINTR)
		if (n == 3 && memcmp(buf, "end", 3) == 0)
			break;
		else if (n >= 0)
			got++;
	printf("got %ld\n", got);
	return 0;
}

int
main(int argc, char **argv)
{
	int s;

	if (argc >= 3)
		addr(argv[2]);
	if (argc == 4 && strcmp(argv[1], "recv") == 0)
		return recv_all(argv[3]);
	if (argc == 3 && strcmp(argv[1], "end") == 0) {
		if ((s = socket(AF_UNIX, SOCK_DGRAM, 0)) < 0 ||
		    sendto(s, "end", 3, 0, (struct sockaddr *)&sa,
		    sizeof sa) != 3)
			die("dgramrace: end");
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "race") == 0 &&
	    (strcmp(argv[4], "sendto") == 0 ||
	    strcmp(argv[4], "sendmsg") == 0 ||
	    strcmp(argv[4], "sendmmsg") == 0))
		return race(atol(argv[3]), argv[4]);
	fprintf(stderr, "usage: dgramrace recv PATH READY | end PATH | "
	    "race PATH TRIES sendto|sendmsg|sendmmsg\n");
	return 2;
}
