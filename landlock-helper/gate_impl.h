/*
 * gate_impl.h: the insides of the unix socket gate (gate.h), shared by
 * its three files and by nothing else:
 *	gate_filter.c	the seccomp filter and its installation;
 *	gate.c		the supervisor: its state, reaching into the
 *			command, the policy, the sockets the command bound,
 *			the worker threads;
 *	gate_calls.c	the calls made on the command's behalf.
 * Functions here follow the helper's convention: 0 (or a result) on
 * success, -1 with errno on failure; none of them prints.
 */
#ifndef ARCTURN_GATE_IMPL_H
#define ARCTURN_GATE_IMPL_H

#include <sys/ioctl.h>
#include <sys/types.h>

#include <stdint.h>

#include "gate.h"

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

#define SECCOMP_SET_MODE_FILTER_		1
#define SECCOMP_FILTER_FLAG_NEW_LISTENER_	(1UL << 3)
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV_	(1UL << 5)
#define SECCOMP_RET_USER_NOTIF_			0x7fc00000U
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE_	(1UL << 0)
#define NOTIF_RECV	_IOWR('!', 0, struct seccomp_notif_)
#define NOTIF_SEND	_IOWR('!', 1, struct seccomp_notif_resp_)
#define NOTIF_ID_VALID	_IOW('!', 2, uint64_t)

/* The user_msghdr and mmsghdr of a 64-bit process, as the kernel has them. */
struct kmsghdr {
	uint64_t	 name;
	uint32_t	 namelen;
	uint32_t	 pad1;
	uint64_t	 iov;
	uint64_t	 iovlen;
	uint64_t	 control;
	uint64_t	 controllen;
	uint32_t	 flags;
	uint32_t	 pad2;
};

struct kmmsghdr {
	struct kmsghdr	 hdr;
	uint32_t	 len;
	uint32_t	 pad;
};

struct kiovec {
	uint64_t	 base;
	uint64_t	 len;
};

/*
 * The native system call numbers the filter hands to the supervisor
 * (the filter's own file has those of the 32-bit compat ABI).
 */
#if defined(__x86_64__)
enum { N_IOCTL = 16, N_CONNECT = 42, N_SENDTO = 44, N_SENDMSG = 46,
    N_BIND = 49, N_SENDMMSG = 307 };
#elif defined(__aarch64__)
enum { N_IOCTL = 29, N_BIND = 200, N_CONNECT = 203, N_SENDTO = 206,
    N_SENDMSG = 211, N_SENDMMSG = 269 };
#else
#error "the unix socket gate knows x86_64 and aarch64"
#endif

/*
 * Reaching into the command (gate.c). gate_readmem and gate_writemem copy
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
 * names (dir: a directory) with an O_PATH descriptor.
 */
int	gate_readmem(pid_t pid, uint64_t addr, void *buf, size_t len);
int	gate_writemem(pid_t pid, uint64_t addr, const void *buf, size_t len);
int	gate_valid(uint64_t id);
int	gate_target_fd(pid_t tid, uint64_t id, int fd, int *procpid);
int	gate_pin(int procpid, const char *path, int dir);

/*
 * The policy (gate.c). gate_decide: may the command reach the socket
 * pinned on our descriptor fd? 0, or -1 with errno ECONNREFUSED (not a
 * socket) or EACCES (refused, and remembered for gate_report).
 * gate_record: sock (our duplicate) was just bound to name in the
 * directory pinned on dfd; remember that socket file as the command's own.
 */
int	gate_decide(int fd);
void	gate_record(int sock, int dfd, const char *name);

/*
 * Make the call of notification req on the command's behalf (gate_calls.c)
 * and fill resp: its result, its errno, or "let the kernel go on"
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE_).
 */
void	gate_handle(const struct seccomp_notif_ *req,
	    struct seccomp_notif_resp_ *resp);

#endif
