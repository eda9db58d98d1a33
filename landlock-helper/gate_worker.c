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

/*
 * While the command makes one trapped call at a time, the kernel hands
 * each to a worker on the caller's CPU (SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP,
 * Linux 6.6; nothing where it is missing): 0.9 times the cost of a gated
 * connect here. Once calls overlap (a third worker is needed) it costs
 * more than it saves (1.2 to 1.7 times, four threads connecting), and is
 * turned off for the rest of the run.
 */
#define SYNC_MOST	2

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
			if (nworkers == SYNC_MOST + 1)
				(void)ioctl(listener, NOTIF_SET_FLAGS, 0UL);
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
	pthread_mutex_lock(&mu);
	if (listener < 0)
		(void)ioctl(fd, NOTIF_SET_FLAGS,
		    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP_);
	listener = fd;
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
