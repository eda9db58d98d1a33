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
 * Sends: sendto with an address, sendmsg and sendmmsg are made here on
 * every kind of socket (gate_send.h), with payload, address and
 * ancillary data copied, on the duplicate that was checked: the kernel
 * never goes on with a trapped call itself, so a second thread that
 * swaps the descriptor or rewrites the arguments meanwhile changes
 * nothing. io_uring is refused (it could connect without a system call
 * the filter sees), and so are socket calls of 32-bit programs.
 *
 * Calls made here carry the supervisor's credentials: the peer of a
 * connection sees its pid (uid and gid are the command's).
 */
#ifndef ARCTURN_GATE_H
#define ARCTURN_GATE_H

#include <sys/ioctl.h>
#include <sys/types.h>

#include <stdint.h>

#include "opts.h"

/* Kernel UAPI (linux/seccomp.h). */
struct seccomp_data_ {
	int32_t		 nr;
	uint32_t	 arch;
	uint64_t	 ip;
	uint64_t	 args[6];
};

struct seccomp_notif_ {
	uint64_t		 id;
	uint32_t		 pid;
	uint32_t		 flags;
	struct seccomp_data_	 data;
};

struct seccomp_notif_resp_ {
	uint64_t	 id;
	int64_t		 val;
	int32_t		 error;
	uint32_t	 flags;
};

#define NOTIF_RECV	_IOWR('!', 0, struct seccomp_notif_)
#define NOTIF_SEND	_IOWR('!', 1, struct seccomp_notif_resp_)
#define NOTIF_ID_VALID	_IOW('!', 2, uint64_t)
#define NOTIF_SET_FLAGS	_IOW('!', 4, uint64_t)
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP_	1UL

/*
 * The supervisor (gate.c), under o's socket rules, for the listener that
 * gate_install (gate_filter.h) made. gate_clock, at the very start:
 * when the command's processes started (for the ctime rule). gate_dir
 * opens /proc/self/fd (an fd, or -1 with errno), before the command
 * exists: without it the gate cannot reach the command's descriptors,
 * and nothing may run. gate_init records the listener and the policy,
 * moves the calling process's cwd to that folder (dfd, closed) and
 * returns 0, or -1 with errno; the threads that
 * serve the listener are gate_worker.h's. gate_report prints the refused
 * line (the first socket refused, how many more) on stderr, if anything
 * was refused.
 */
void	gate_clock(void);
int	gate_dir(void);
int	gate_init(int listener, int dfd, const struct opts *o);
void	gate_report(void);

/*
 * Reaching into the command gate_readmem and gate_writemem copy
 * len bytes from or to thread pid's memory at addr (EFAULT for a bad
 * address). gate_valid: is notification id still pending (its thread
 * has not gone or been interrupted)? Ask after reading the command's
 * memory, before trusting what was read. gate_target_fd duplicates
 * descriptor fd of the notifying thread tid, whichever thread of the
 * command it is (EBADF as the call would have, ENOENT when the call is
 * gone, EPERM for a thread with a descriptor table of its own where the
 * kernel has no PIDFD_THREAD) and sets *procpid to the number
 * our /proc knows that thread by. gate_pin resolves path as thread
 * procpid sees it (its root, its cwd, its /proc/self) and pins what it
 * names (dir: a directory) with an O_PATH descriptor. gate_ids reads
 * thread procpid's process id (as its own pid namespace numbers it) and
 * its real, effective and saved user and group ids (as ours map them):
 * 0, or -1 with errno. gate_sigpipe sends SIGPIPE to thread procpid, as
 * the kernel does to the sender on a broken stream.
 */
int	gate_readmem(pid_t pid, uint64_t addr, void *buf, size_t len);
int	gate_writemem(pid_t pid, uint64_t addr, const void *buf, size_t len);
int	gate_valid(uint64_t id);
int	gate_target_fd(pid_t tid, uint64_t id, int fd, int *procpid);
int	gate_pin(int procpid, const char *path, int dir);
int	gate_ids(int procpid, pid_t *tgid, uid_t uid[3], gid_t gid[3]);
void	gate_sigpipe(int procpid);

/*
 * The policy gate_decide: may the command reach the socket
 * pinned on our descriptor fd? 0, or -1 with errno ECONNREFUSED (not a
 * socket) or EACCES (refused, and remembered for gate_report).
 * gate_record: sock (our duplicate) was just bound to name in the
 * directory pinned on dfd; remember that socket file as the command's own.
 */
int	gate_decide(int fd);
void	gate_record(int sock, int dfd, const char *name);

#endif
