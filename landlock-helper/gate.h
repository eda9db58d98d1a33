/*
 * gate.h: the unix socket gate, for kernels whose Landlock cannot decide
 * about pathname unix sockets (no LANDLOCK_ACCESS_FS_RESOLVE_UNIX).
 *
 * A pathname unix socket is a way to ask a process outside the sandbox
 * to act: tmux runs shell commands, the systemd user manager starts
 * units, docker.sock is root. Neither Landlock's write rules, nor a
 * read-only mount, nor a network namespace stop connect(2) to one. The
 * command's seccomp filter (gate_prog) therefore hands connect, bind,
 * sendto with an address, sendmsg and sendmmsg to a supervisor (the
 * command's init, or the helper itself without a pid namespace), which
 * reads the call's arguments once from the command's memory, duplicates
 * its socket (pidfd_getfd), resolves a socket path in the command's view
 * (/proc/PID/root or cwd), pins what it found (O_PATH), checks it, and
 * makes the call itself through the pinned file (/proc/self/fd/N), so
 * that no rename or symlink swap after the check can change what is
 * reached. The command gets the call's result, or EACCES.
 *
 * What the command may reach (decided on the pinned socket):
 *	(a) a socket its own processes bound (every bind is made here, and
 *	    the inode bound is learnt from the kernel: sock_diag), anywhere;
 *	(b) a socket beneath a -s root (the workspace, a grant) but not
 *	    beneath a -t one (the temp and state dirs), put there before
 *	    the command started: its ctime must be older, for a socket moved
 *	    or linked into reach from the temp dir gets a new one;
 *	(c) a socket named with -a (or beneath a folder named so), or any
 *	    with -A.
 * The path of the pinned socket must lead to the same socket in the
 * supervisor's own view (no mount of the command's own can dress a
 * socket up as one beneath the workspace).
 *
 * Datagrams: sendto, sendmsg and sendmmsg on an AF_UNIX datagram socket
 * are made here too (payload, address and SCM_RIGHTS copied). On any
 * other socket they cannot name a path, and the kernel goes on with the
 * call (SECCOMP_USER_NOTIF_FLAG_CONTINUE): a second thread that replaced
 * that descriptor with a unix datagram socket between the check and the
 * kernel's reading of it would win that race (Landlock's RESOLVE_UNIX
 * has none). io_uring is refused (it could connect without a system call
 * the filter sees), and so are socket calls of 32-bit programs.
 *
 * Calls made here carry the supervisor's credentials: the peer of a
 * connection sees its pid (uid and gid are the command's).
 */
#ifndef ARCTURN_GATE_H
#define ARCTURN_GATE_H

#include <stdint.h>

#include "helper.h"
#include "tiocsti.h"

/*
 * Install the gate's filter (the gate and the TIOCSTI refusal in one
 * program) on the calling thread (no_new_privs set):
 * the listener fd (close-on-exec), or -1 with errno (EBUSY: another
 * listener already supervises this process, as inside another arcturn).
 */
int	gate_install(void);

/*
 * Supervise listener under o's socket rules. gate_init records the
 * policy, moves the calling process's cwd to /proc/self/fd and returns 0,
 * or -1 with errno. gate_busy is 0 while no worker thread runs: then the
 * caller polls the listener and calls gate_spawn when it is readable.
 * gate_report prints the refused line (the first socket refused, how many
 * more) on stderr, if anything was refused.
 */
int	gate_init(int listener, const struct opts *o);
int	gate_busy(void);
void	gate_spawn(void);
void	gate_report(void);

/* When the command's processes started (for the ctime rule). */
void	gate_clock(void);

#endif
