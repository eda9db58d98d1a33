/*
 * tclient: connect from the main thread and from N pthreads at once, for
 * tests/bats/compat.bats (a supervisor that looks up only the thread
 * group leader fails every thread but the main one).
 *
 *	tclient tcp HOST PORT N		GET /data/I.txt over HTTP/1.0
 *	tclient unix PATH N		send "hi", read the answer
 *
 * Prints one line per connection, sorted by name: "main ok BODY",
 * "tI ok BODY", or "tI error ERRNO STRERROR"; exits 1 when any failed.
 * I is the thread's number, and the file it asks for is I mod 8.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXT	64

struct job {
	int	 n;		/* -1: the main thread */
	char	 line[512];
	int	 ok;
};

static const char *kind, *host, *port, *upath;

static int
dial(void)
{
	struct addrinfo hints, *res, *ai;
	struct sockaddr_un sun;
	int fd, e = 0;

	if (strcmp(kind, "unix") == 0) {
		memset(&sun, 0, sizeof sun);
		sun.sun_family = AF_UNIX;
		snprintf(sun.sun_path, sizeof sun.sun_path, "%s", upath);
		if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
			return -1;
		if (connect(fd, (struct sockaddr *)&sun, sizeof sun) == 0)
			return fd;
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	memset(&hints, 0, sizeof hints);
	hints.ai_socktype = SOCK_STREAM;
	if ((e = getaddrinfo(host, port, &hints, &res)) != 0) {
		errno = e == EAI_SYSTEM ? errno : EHOSTUNREACH;
		return -1;
	}
	fd = -1;
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if ((fd = socket(ai->ai_family, ai->ai_socktype, 0)) == -1) {
			e = errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		e = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd == -1)
		errno = e;
	return fd;
}

static void *
run(void *arg)
{
	struct job *j = arg;
	char req[128], buf[4096], name[16], *body;
	size_t len = 0;
	ssize_t r;
	int fd;

	if (j->n < 0)
		snprintf(name, sizeof name, "main");
	else
		snprintf(name, sizeof name, "t%d", j->n);
	if ((fd = dial()) == -1) {
		snprintf(j->line, sizeof j->line, "%s error %d %s", name, errno,
		    strerror(errno));
		return NULL;
	}
	if (strcmp(kind, "unix") == 0)
		snprintf(req, sizeof req, "hi");
	else
		snprintf(req, sizeof req,
		    "GET /data/%d.txt HTTP/1.0\r\nHost: %s\r\n\r\n",
		    (j->n < 0 ? 0 : j->n) % 8, host);
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		snprintf(j->line, sizeof j->line, "%s error %d %s", name, errno,
		    strerror(errno));
		close(fd);
		return NULL;
	}
	while (len < sizeof buf - 1 &&
	    (r = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
		len += r;
	buf[len] = '\0';
	close(fd);
	body = strstr(buf, "\r\n\r\n");
	body = body != NULL ? body + 4 : buf;
	body[strcspn(body, "\n")] = '\0';
	snprintf(j->line, sizeof j->line, "%s ok %s", name, body);
	j->ok = 1;
	return NULL;
}

static int
cmp(const void *a, const void *b)
{
	return strcmp(((const struct job *)a)->line,
	    ((const struct job *)b)->line);
}

int
main(int argc, char **argv)
{
	static struct job jobs[MAXT + 1];
	pthread_t tid[MAXT];
	int i, n, bad = 0;

	if (argc == 5 && strcmp(argv[1], "tcp") == 0) {
		host = argv[2];
		port = argv[3];
	} else if (argc == 4 && strcmp(argv[1], "unix") == 0) {
		upath = argv[2];
	} else {
		fprintf(stderr, "usage: tclient tcp HOST PORT N | unix PATH N\n");
		return 2;
	}
	kind = argv[1];
	n = atoi(argv[argc - 1]);
	if (n < 0 || n > MAXT)
		n = MAXT;
	jobs[0].n = -1;
	run(&jobs[0]);
	for (i = 0; i < n; i++) {
		jobs[i + 1].n = i;
		if (pthread_create(&tid[i], NULL, run, &jobs[i + 1]) != 0) {
			perror("pthread_create");
			return 2;
		}
	}
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	qsort(jobs, n + 1, sizeof jobs[0], cmp);
	for (i = 0; i <= n; i++) {
		printf("%s\n", jobs[i].line);
		bad |= !jobs[i].ok;
	}
	return bad;
}
