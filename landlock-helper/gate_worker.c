/*
 * gate_worker.c: the threads that serve the gate's listener
 * (gate_worker.h).
 */
#include <sys/ioctl.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "gate_calls.h"
#include "gate_worker.h"

#define MAXWORKERS	64

static int listener = -1;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int nworkers, nidle;

static void *worker(void *);

/* One more worker blocked in NOTIF_RECV (mu held). */
static void
gate_spawn_locked(void)
{
	pthread_attr_t a;
	pthread_t t;
	sigset_t all, old;

	if (nworkers >= MAXWORKERS)
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_attr_init(&a) == 0) {
		(void)pthread_attr_setstacksize(&a, 128 * 1024);
		(void)pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&t, &a, worker, NULL) == 0) {
			nworkers++;
			nidle++;
		}
		pthread_attr_destroy(&a);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void *
worker(void *arg)
{
	struct seccomp_notif_ req;
	struct seccomp_notif_resp_ resp;

	(void)arg;
	for (;;) {
		memset(&req, 0, sizeof req);
		if (ioctl(listener, NOTIF_RECV, &req) < 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			break;		/* the listener is gone */
		}
		pthread_mutex_lock(&mu);
		if (--nidle == 0)
			gate_spawn_locked();
		pthread_mutex_unlock(&mu);
		gate_handle(&req, &resp);
		(void)ioctl(listener, NOTIF_SEND, &resp);
		pthread_mutex_lock(&mu);
		nidle++;
		pthread_mutex_unlock(&mu);
	}
	pthread_mutex_lock(&mu);
	nidle--;
	nworkers--;
	pthread_mutex_unlock(&mu);
	return NULL;
}

void
gate_spawn(int fd)
{
	listener = fd;
	pthread_mutex_lock(&mu);
	if (nidle == 0)
		gate_spawn_locked();
	pthread_mutex_unlock(&mu);
}

int
gate_busy(void)
{
	int n;

	pthread_mutex_lock(&mu);
	n = nworkers;
	pthread_mutex_unlock(&mu);
	return n > 0;
}
