/*
 * proc.h: the processes of a confined run (proc.c).
 *
 * With the mount layer (new user, mount, IPC and pid namespaces):
 *
 *	helper (the waiter: arcturn's pid; passes SIGHUP, SIGINT, SIGQUIT,
 *	 |	SIGTERM, SIGUSR1 and SIGUSR2 sent to it on to init, ends as
 *	 |	the command did: its exit code, or its signal raised again)
 *	 +- init (pid 1 of the new pid namespace: a fresh /proc, the write
 *	     |	confinement, undumpable; passes those signals on to the
 *	     |	command, reaps orphans, supervises the unix socket gate)
 *	     +- the command (a Landlock layer of its own, the seccomp
 *		filter, exec)
 *
 * When the command's process ends, init kills what is left of the
 * namespace, waits until it is gone and only then ends itself; when the
 * helper ends first (killed, even with SIGKILL), init notices the hangup
 * of the socket between them and does the same. Either way the session
 * lock (-L), which only init and the helper hold, is let go when the last
 * process is gone.
 *
 * Without it (helper-landlock): the helper confines itself, then either
 * becomes the command (the kernel decides about sockets: no gate) or
 * supervises the gate for it and ends as it did; its other processes are
 * not ended with it (no pid namespace). With -I the helper is init of a
 * pid namespace bubblewrap made, and writes the command's wait status on
 * the -c descriptor.
 *
 * Signals are passed on only when a process sent them (kill(2), not the
 * terminal: a terminal's ^C reaches the command directly, as it is in the
 * terminal's foreground process group too). A signal ignored when the
 * helper started stays ignored and is not passed on (nohup).
 */
#ifndef ARCTURN_PROC_H
#define ARCTURN_PROC_H

#include "helper.h"

/* At the very start: the signal state the command is to inherit. */
void	proc_start(const struct opts *o);

/*
 * Run o->cmd as above (pidns: the mount layer made the namespaces).
 * Returns only when the command did not start: its exit status (125 setup
 * failed, 126, 127); every other way ends the process.
 */
int	proc_run(struct opts *o, int pidns, int netns);

#endif
