/*
 * sigfwd: signals passed on while the sandbox layer waits (sigfwd.h).
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <string.h>

#include "sandbox/sigfwd.h"

static const int sigs[SIGFWD_N] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM,
    SIGUSR1, SIGUSR2 };

static volatile sig_atomic_t target, caught;

/* Pass on a signal a process sent us; a terminal's reached it already. */
static void
pass_on(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)uc;
	caught = sig;
	if (target > 0 && (si->si_code == SI_USER || si->si_code == SI_QUEUE
#ifdef SI_TKILL
	    || si->si_code == SI_TKILL
#endif
	    ))
		(void)kill((pid_t)target, sig);
	errno = saved;
}

void
sigfwd_hold(struct sigfwd *f)
{
	struct sigaction fwd;
	sigset_t all;
	size_t i;

	memset(&fwd, 0, sizeof fwd);
	fwd.sa_sigaction = pass_on;
	fwd.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&fwd.sa_mask);
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &f->mask);
	target = caught = 0;
	for (i = 0; i < SIGFWD_N; i++) {
		sigaction(sigs[i], NULL, &f->old[i]);
		if (f->old[i].sa_handler != SIG_IGN)
			sigaction(sigs[i], &fwd, NULL);
	}
	f->held = 1;
}

void
sigfwd_child(const struct sigfwd *f, int keep)
{
	sigset_t m = f->mask;
	size_t i;

	for (i = 0; i < SIGFWD_N; i++) {
		sigaction(sigs[i], &f->old[i], NULL);
		if (keep)
			sigaddset(&m, sigs[i]);
	}
	sigprocmask(SIG_SETMASK, &m, NULL);
}

void
sigfwd_to(struct sigfwd *f, pid_t t)
{
	target = t;
	if (f->held) {
		sigprocmask(SIG_SETMASK, &f->mask, NULL);
		f->held = 0;
	}
}

pid_t
sigfwd_wait(struct sigfwd *f, pid_t pid, int *st)
{
	pid_t w;
	int e;

	while ((w = waitpid(pid, st, 0)) < 0 && errno == EINTR)
		;
	e = errno;
	sigfwd_end(f);
	errno = e;
	return w;
}

void
sigfwd_end(struct sigfwd *f)
{
	size_t i;

	target = 0;
	for (i = 0; i < SIGFWD_N; i++)
		sigaction(sigs[i], &f->old[i], NULL);
	if (f->held) {
		sigprocmask(SIG_SETMASK, &f->mask, NULL);
		f->held = 0;
	}
}

int
sigfwd_block(sigset_t *old)
{
	sigset_t six;
	size_t i;

	sigemptyset(&six);
	for (i = 0; i < SIGFWD_N; i++)
		sigaddset(&six, sigs[i]);
	sigprocmask(SIG_BLOCK, &six, old);
	return caught;
}

void
sigfwd_unblock(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}
