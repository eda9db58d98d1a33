/*
 * proc.c: the processes of a confined run (proc.h).
 */
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "caps.h"
#include "gate.h"
#include "gate_filter.h"
#include "gate_worker.h"
#include "keys.h"
#include "landlock.h"
#include "netoff.h"
#include "proc.h"
#include "say.h"
#include "uapi/tiocsti.h"

/* Passed on to the command when a process sends them to us. */
static const int fwd_sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1,
    SIGUSR2 };
#define NFWD	(int)(sizeof fwd_sigs / sizeof fwd_sigs[0])

static sigset_t orig_mask;	/* the mask the command gets */
static int orig_ign[NFWD];	/* ignored when we started */
static int pipe_ign, chld_ign;
static sigset_t fwd;		/* what we pass on (not ignored) */
static sigset_t waitset;	/* fwd and SIGCHLD: blocked, waited for */

void
proc_start(const struct opts *o)
{
	struct sigaction sa;
	int i;

	gate_clock();
	sigprocmask(SIG_SETMASK, NULL, &orig_mask);
	sigemptyset(&fwd);
	for (i = 0; i < NFWD; i++) {
		orig_ign[i] = sigaction(fwd_sigs[i], NULL, &sa) == 0 &&
		    sa.sa_handler == SIG_IGN;
		if (!orig_ign[i])
			sigaddset(&fwd, fwd_sigs[i]);
	}
	pipe_ign = sigaction(SIGPIPE, NULL, &sa) == 0 &&
	    sa.sa_handler == SIG_IGN;
	chld_ign = sigaction(SIGCHLD, NULL, &sa) == 0 &&
	    sa.sa_handler == SIG_IGN;
	/* an ignored SIGCHLD would reap our children for us */
	signal(SIGCHLD, SIG_DFL);
	waitset = fwd;
	sigaddset(&waitset, SIGCHLD);
	/* bubblewrap's init was started with them blocked (arcturn did) */
	if (o->init)
		for (i = 0; i < NFWD; i++)
			sigdelset(&orig_mask, fwd_sigs[i]);
}

/* The command's signal state: what the helper was started with. */
static void
restore_signals(void)
{
	int i;

	for (i = 0; i < NFWD; i++)
		signal(fwd_sigs[i], orig_ign[i] ? SIG_IGN : SIG_DFL);
	signal(SIGPIPE, pipe_ign ? SIG_IGN : SIG_DFL);
	signal(SIGCHLD, chld_ign ? SIG_IGN : SIG_DFL);
	sigprocmask(SIG_SETMASK, &orig_mask, NULL);
}

static int
user_sent(const struct signalfd_siginfo *si)
{
	int c = si->ssi_code;

	return c == SI_USER || c == SI_QUEUE || c == SI_TKILL;
}

/* End as the command did. */
static _Noreturn void
mirror(int st)
{
	struct rlimit none = { 0, 0 };
	sigset_t s;
	int sig;

	if (WIFSIGNALED(st)) {
		sig = WTERMSIG(st);
		/*
		 * setrlimit's call, without musl's fallback for kernels
		 * before 2.6.36 (it links in __synccall: 1.5 KB)
		 */
		(void)syscall(SYS_prlimit64, 0, RLIMIT_CORE, &none, NULL);
		signal(sig, SIG_DFL);
		sigemptyset(&s);
		sigaddset(&s, sig);
		sigprocmask(SIG_UNBLOCK, &s, NULL);
		kill(getpid(), sig);
		_exit(128 + sig);
	}
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 125);
}

static void
seccomp_tiocsti(void)
{
	struct sock_fprog prog = {
		.len = TIOCSTI_FILTER_LEN,
		.filter = (struct sock_filter *)tiocsti_filter,
	};

	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		fail("seccomp", NULL);
}

/*
 * openat2 answered ENOSYS (a kernel before 5.6), so that root's command
 * opens with openat, whose O_CREAT mode the setuid filter reads. 437 on
 * x86_64, i386, arm and arm64 alike; x32 numbers it with bit 30.
 */
static const struct sock_filter no_openat2[] = {
	SC_LD(SECCOMP_DATA_NR),
	SC_JEQ(437, 1, 0),
	SC_JEQ(0x40000000 | 437, 0, 1),
	SC_RET(SECCOMP_RET_ERRNO | ENOSYS),
	SC_RET(SECCOMP_RET_ALLOW),
};

/* The seccomp filters the command gets besides the gate's or TIOCSTI's. */
static void
extra_filters(int filters)
{
	struct sock_fprog prog = {
		.len = sizeof no_openat2 / sizeof no_openat2[0],
		.filter = (struct sock_filter *)no_openat2,
	};

	if ((filters & PROC_NOOPENAT2) &&
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		fail("seccomp: openat2", NULL);
	if ((filters & PROC_NETOFF) && netoff_install() < 0)
		fail("seccomp: network off", NULL);
	if ((filters & PROC_KEYS) && keys_install() < 0)
		fail("seccomp: user keyrings", NULL);
}

static int
exec_cmd(char **cmd)
{
	int e;

	execvp(cmd[0], cmd);
	e = errno;
	say(cmd[0], NULL, e);
	return e == ENOENT || e == ENOTDIR ? 127 : 126;
}

/*
 * The command's process: made with CLONE_VM, CLONE_VFORK and CLONE_FILES
 * (as posix_spawn), so nothing is copied and the listener it makes is
 * ours too; it runs until it execs, while we wait.
 */
struct spawn {
	char	**cmd;
	int	  gate;		/* install the gate's filter */
	int	  nest;		/* a Landlock layer of its own (below) */
	int	  filters;	/* PROC_NETOFF, PROC_KEYS (proc.h) */
	int	  listener;	/* out: the gate's listener, or -1 */
	int	  outer;	/* out: another gate already supervises */
};

static int
command_main(void *arg)
{
	struct spawn *sp = arg;

	restore_signals();
	/* the supervisor kept CAP_SYS_PTRACE; the command must not */
	if (sp->gate)
		caps_drop_ptrace();
	if (sp->nest && ll_abi() > 0 && ll_nest() < 0)
		fail("landlock: the command's own layer", NULL);
	extra_filters(sp->filters);
	if (sp->gate) {
		if ((sp->listener = gate_install()) < 0) {
			/* one listener per process: arcturn inside arcturn */
			if (errno != EBUSY)
				fail("seccomp: unix socket gate", NULL);
			sp->outer = 1;
		}
	}
	if (sp->listener < 0)
		seccomp_tiocsti();
	_exit(exec_cmd(sp->cmd));
}

/*
 * The stacks of init and of the command's process: static, so that
 * nothing is mapped for them on each run (a page touched costs about as
 * much as a system call here, and only the pages used are touched), each
 * with a guard page below it, so that an overflow faults instead of
 * writing over what lies beneath. The command's process runs only until
 * it execs (execvp's path buffer is its largest frame).
 */
#define MAXPAGE		65536	/* the largest page size: the guard's */
#define INIT_STACK	(128 * 1024)
#define CMD_STACK	(64 * 1024)
static char init_stack[MAXPAGE + INIT_STACK] __attribute__((aligned(16)));
static char cmd_stack[MAXPAGE + CMD_STACK] __attribute__((aligned(16)));

/* The top of the static stack at base, its lowest whole page the guard. */
static char *
stack_top(char *base, size_t size)
{
	uintptr_t pg = (uintptr_t)getauxval(AT_PAGESZ);
	uintptr_t g = ((uintptr_t)base + pg - 1) & ~(pg - 1);

	if (pg == 0 || pg > MAXPAGE || mprotect((void *)g, pg, PROT_NONE) < 0)
		fail("exec: stack", NULL);
	return base + size;
}

static pid_t
spawn_command(struct spawn *sp)
{
	pid_t pid;

	pid = clone(command_main, stack_top(cmd_stack, sizeof cmd_stack),
	    CLONE_VM | CLONE_VFORK | CLONE_FILES | SIGCHLD, sp);
	if (pid < 0)
		fail("exec: clone", NULL);
	return pid;
}

_Noreturn void
proc_supervise(const struct opts *o, int mode, int ctl, int gate,
    int filters)
{
	/*
	 * Tracing the supervisor is refused by its being undumpable and the
	 * command's lacking CAP_SYS_PTRACE; with the gate, the helper's
	 * Landlock domain gets a layer of its own on top, which Landlock
	 * also keeps from tracing and (ABI 6) signalling the layer above.
	 * Not under bubblewrap: there the command has no Landlock domain of
	 * ours (bwrap is the backend for kernels without Landlock), and a
	 * layer would forbid the mounts a nested bwrap needs.
	 */
	struct spawn sp = { o->cmd, gate, gate && mode != PROC_BWRAP, filters,
	    -1, 0 };
	struct signalfd_siginfo si;
	struct pollfd pf[3];
	pid_t cmd, p;
	int sfd, n, ws, st = 0, done = 0, gone = 0, listener, i, gatefail = 0;
	int gdir = -1;

	sigprocmask(SIG_BLOCK, &waitset, NULL);
	if ((sfd = signalfd(-1, &waitset, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		fail("signalfd", NULL);
	if (o->lockfd >= 0)
		(void)fcntl(o->lockfd, F_SETFD, FD_CLOEXEC);
	if (o->statusfd >= 0)
		(void)fcntl(o->statusfd, F_SETFD, FD_CLOEXEC);
	/* the command must not trace us or read our memory */
	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/* the gate's way to the command's descriptors, before it exists */
	if (gate && (gdir = gate_dir()) < 0)
		fail("exec: unix socket gate: /proc/self/fd", NULL);
	cmd = spawn_command(&sp);
	listener = sp.listener;
	if (listener < 0 && gdir >= 0)
		close(gdir);
	if (listener >= 0 && gate_init(listener, gdir, o) < 0) {
		say("exec: unix socket gate: /proc/self/fd", NULL, errno);
		kill(cmd, SIGKILL);
		listener = -1;
		gatefail = 1;
	}
	while (!done) {
		n = 0;
		pf[n++] = (struct pollfd){ sfd, POLLIN, 0 };
		if (ctl >= 0)
			pf[n++] = (struct pollfd){ ctl, POLLIN, 0 };
		if (listener >= 0 && !gate_busy())
			pf[n++] = (struct pollfd){ listener, POLLIN, 0 };
		if (poll(pf, n, -1) < 0)
			continue;
		for (i = 1; i < n; i++) {
			if (pf[i].fd == ctl && pf[i].revents != 0) {
				/* the helper is gone: so is everything */
				gone = done = 1;
			} else if (pf[i].fd == listener &&
			    (pf[i].revents & POLLIN)) {
				gate_spawn(listener);
			} else if (pf[i].fd == listener && pf[i].revents != 0) {
				/*
				 * No task is left in the filter (POLLHUP):
				 * nothing more will come, and polling it again
				 * would return at once until SIGCHLD is read.
				 */
				listener = -1;
			}
		}
		if (!(pf[0].revents & POLLIN))
			continue;
		while (read(sfd, &si, sizeof si) == sizeof si) {
			if (si.ssi_signo != SIGCHLD) {
				if (user_sent(&si) && !done)
					kill(cmd, (int)si.ssi_signo);
				continue;
			}
			while ((p = waitpid(-1, &ws, WNOHANG)) > 0)
				if (p == cmd) {
					st = ws;
					done = 1;
				}
		}
	}
	if (mode != PROC_PLAIN) {
		/* nothing of the command outlives it */
		while ((p = waitpid(-1, NULL, WNOHANG)) > 0)
			;
		if (p == 0 || gone) {
			kill(-1, SIGKILL);
			while ((p = waitpid(-1, NULL, 0)) > 0 ||
			    (p < 0 && errno == EINTR))
				;
		}
	}
	/* the command was killed for the gate: the sandbox failed (125) */
	if (gatefail)
		st = 125 << 8;
	gate_report();
	if (gone)
		_exit(128 + SIGKILL);
	if (mode == PROC_NS) {
		(void)write(ctl, &st, sizeof st);
		_exit(0);
	}
	if (mode == PROC_BWRAP) {
		if (o->statusfd >= 0)
			(void)write(o->statusfd, &st, sizeof st);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	}
	mirror(st);
}

_Noreturn void
proc_wait(pid_t init, int ctl)
{
	struct signalfd_siginfo si;
	struct pollfd pf[2];
	ssize_t n;
	int sfd, st = 0, cst;

	/*
	 * init sends the command's wait status once nothing of the command
	 * is left, and only then tears its namespaces down (the mounts, a
	 * dry run's overlay): that is not waited for. init holds the session
	 * lock (-L) until it is done.
	 */
	if ((sfd = signalfd(-1, &fwd, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		goto reap;
	pf[0] = (struct pollfd){ sfd, POLLIN, 0 };
	pf[1] = (struct pollfd){ ctl, POLLIN, 0 };
	for (;;) {
		if (poll(pf, 2, -1) < 0)
			continue;
		if (pf[1].revents != 0)
			break;
		while (read(sfd, &si, sizeof si) == sizeof si)
			if (user_sent(&si))
				kill(init, (int)si.ssi_signo);
	}
	if ((n = read(ctl, &cst, sizeof cst)) == (ssize_t)sizeof cst)
		mirror(cst);
reap:
	/* init ended without a word (killed): end as it did */
	while (waitpid(init, &st, 0) < 0 && errno == EINTR)
		;
	mirror(st);
}

int
proc_fresh(void)
{
	unsigned long fl = MS_NOSUID | MS_NODEV | MS_NOEXEC;

	if (getuid() != 0 && geteuid() != 0 &&
	    mount("proc", "/proc", "proc", fl, NULL) == 0)
		return 1;
	(void)mount("proc", "/proc", "proc", fl | MS_RDONLY, NULL);
	return 0;
}

/* What init runs once the helper has mapped its ids. */
struct initjob {
	int	  ctl;
	int	  other;	/* the helper's end */
	int	(*fn)(void *, int);
	void	 *arg;
};

static int
init_start(void *arg)
{
	struct initjob *j = arg;
	char c;

	close(j->other);
	if (read(j->ctl, &c, 1) != 1)
		_exit(125);	/* the helper could not map our ids */
	return j->fn(j->arg, j->ctl);
}

pid_t
proc_init(int flags, int (*fn)(void *, int), void *arg, int *ctl)
{
	static struct initjob j;
	int sv[2], e;
	pid_t init;

	sigprocmask(SIG_BLOCK, &waitset, NULL);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		fail("exec: socketpair", NULL);
	j = (struct initjob){ sv[1], sv[0], fn, arg };
	init = clone(init_start, stack_top(init_stack, sizeof init_stack),
	    flags | CLONE_VM | SIGCHLD, &j);
	e = errno;
	close(sv[1]);
	if (init < 0) {
		close(sv[0]);
		errno = e;
		return -1;
	}
	*ctl = sv[0];
	return init;
}

void
proc_go(int ctl)
{
	if (write(ctl, "x", 1) != 1)
		fail("exec: init", NULL);
}

int
proc_exec(char **cmd, int filters)
{
	restore_signals();
	extra_filters(filters);
	seccomp_tiocsti();
	return exec_cmd(cmd);
}
