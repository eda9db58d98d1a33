/*
 * sigfwd: the one waiter of the sandbox layer. While arcturn waits for the
 * child that runs the command (posix_child's, bwrap, the helper), a
 * signal another process sends arcturn (HUP, INT, QUIT, TERM, USR1, USR2)
 * is passed on to the process that speaks for the command; one a
 * terminal sent has reached the whole process group already and is not
 * sent twice, and one arcturn ignored (nohup's HUP) stays ignored.
 *
 *   sigfwd_hold	before the fork: every signal blocked, the handler
 *			installed where the disposition is not SIG_IGN;
 *			nothing is passed on yet
 *   sigfwd_child	in the child: the dispositions as they were, and the
 *			mask as it was (keep: with the passed-on signals
 *			still blocked, for bwrap, whose helper unblocks them
 *			for the command)
 *   sigfwd_to		pass on to target from now on and unblock
 *   sigfwd_wait	wait for pid (EINTR retried) and end: waitpid's
 *			result, errno kept
 *   sigfwd_end		nothing passed on any more, the dispositions and
 *			mask as before sigfwd_hold (also after a failed fork)
 *   sigfwd_block	block the six until sigfwd_unblock(old), and say the
 *			last of them that arcturn got since sigfwd_hold, from
 *			anyone (a terminal's too), or 0: a caller that has
 *			not started the command yet takes it as a no
 *
 * One waiter at a time in a process (the target is one global that the
 * handler reads).
 */
#ifndef ARCTURN_SIGFWD_H
#define ARCTURN_SIGFWD_H

#include <sys/types.h>

#include <signal.h>

#define SIGFWD_N	6

struct sigfwd {
	struct sigaction	 old[SIGFWD_N];
	sigset_t		 mask;
	int			 held;
};

void	sigfwd_hold(struct sigfwd *);
void	sigfwd_child(const struct sigfwd *, int keep);
void	sigfwd_to(struct sigfwd *, pid_t target);
pid_t	sigfwd_wait(struct sigfwd *, pid_t pid, int *st);
void	sigfwd_end(struct sigfwd *);
int	sigfwd_block(sigset_t *old);
void	sigfwd_unblock(const sigset_t *old);

#endif
