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
 * namespace, waits until it is gone, reports the command's wait status to
 * the helper, which ends as the command did at once, and only then ends
 * itself (the namespaces and their mounts are torn down as init exits,
 * off the helper's path); when the helper ends first (killed, even with
 * SIGKILL), init notices the hangup of the socket between them and does
 * the same. Either way the session lock (-L), which only init and the
 * helper hold, is let go when the last process is gone: init's exit
 * unmounts a dry run's overlay before its descriptors are let go.
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

#include <sys/types.h>

#include "opts.h"

/* At the very start: the signal state the command is to inherit. */
void	proc_start(const struct opts *o);

/*
 * With the mount layer: make init, with one clone carrying flags (the
 * namespaces, mount.h) and CLONE_VM: init shares the helper's memory
 * and runs on a static stack of its own, so that nothing is copied. init
 * waits until proc_go, then runs fn(arg, its end of ctl) and never
 * returns. Returns init's pid, with *ctl the helper's end of the socket
 * between the two (close-on-exec); -1 with errno when the clone is
 * refused; exits 125 on other failures. From then on the helper only
 * maps init's ids (mount_map), says go and waits: init's memory is its
 * own, the helper touches none of it (no allocation, no stdio). The one
 * thing both share is errno (one thread pointer): the helper's calls
 * set it only when they fail, and init is waiting while those that can
 * (the maps) run.
 */
pid_t	proc_init(int flags, int (*fn)(void *, int), void *arg, int *ctl);
void	proc_go(int ctl);

/*
 * The helper, outside the pid namespace: pass signals on to init, and end
 * as the command did as soon as init reports its wait status on ctl
 * (init then tears the namespaces down without the helper waiting).
 */
_Noreturn void	proc_wait(pid_t init, int ctl);

/*
 * In init: a fresh /proc for the new pid namespace. An unprivileged
 * user's is writable, and Landlock lets the command write beneath it
 * (ll_confine's proc): a user namespace the command nests (unshare -Ur,
 * Chromium's sandbox) needs its id maps written there. Nothing else in
 * it is the command's to write: the global files (/proc/sys,
 * sysrq-trigger) are root's, the supervisor's are root's (it is
 * undumpable), and no process outside the pid namespace is in it. Root's
 * stays read-only: its uid 0 is the real one, which alone lets a process
 * write most of /proc/sys. Where the kernel refuses (a container hiding
 * parts of /proc), the old one stays: the command then sees the outer
 * pids there. 1 when the command may write beneath /proc.
 */
int	proc_fresh(void);

/*
 * Start the command and supervise it until it ends; the calling process
 * is already confined. The command's own process drops CAP_SYS_PTRACE
 * (with gate), takes a Landlock layer of its own (ll_nest, with gate and
 * not under bubblewrap), installs the seccomp filter (the gate's, else
 * the TIOCSTI one) and those named in filters (PROC_NETOFF: netoff.h's,
 * PROC_KEYS: keys.h's, PROC_NOOPENAT2: openat2 answered ENOSYS, for
 * root's command, whose O_CREAT mode arcturn's setuid filter cannot read
 * in open_how: it opens with openat as before 5.6), and execs. mode PROC_NS: init of our pid namespace,
 * reporting to the helper on ctl; PROC_BWRAP: init of bubblewrap's,
 * reporting on o->statusfd; PROC_PLAIN: the helper itself, with no pid
 * namespace, ending as the command did.
 */
enum { PROC_NS, PROC_PLAIN, PROC_BWRAP };
enum { PROC_NETOFF = 1, PROC_KEYS = 2, PROC_NOOPENAT2 = 4 };
_Noreturn void	proc_supervise(const struct opts *o, int mode, int ctl,
		    int gate, int filters);

/*
 * Become the command (no supervisor: the kernel decides about sockets):
 * the signal state of proc_start, the filters named, the TIOCSTI
 * filter, exec. Returns only
 * when the command did not start: 126, or 127 when it was not found.
 */
int	proc_exec(char **cmd, int filters);

#endif
