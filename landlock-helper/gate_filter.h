/*
 * gate_filter.h: the command's seccomp filter (gate_filter.c): the socket
 * calls that may name a path go to the gate's supervisor (gate.h),
 * io_uring and the socket calls of 32-bit programs are refused, and so
 * are TIOCSTI and TIOCLINUX.
 */
#ifndef ARCTURN_GATE_FILTER_H
#define ARCTURN_GATE_FILTER_H

#include "uapi/tiocsti.h"

/* Kernel UAPI (linux/seccomp.h). */
#define SECCOMP_SET_MODE_FILTER_		1
#define SECCOMP_FILTER_FLAG_NEW_LISTENER_	(1UL << 3)
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV_	(1UL << 5)
#define SECCOMP_RET_USER_NOTIF_			0x7fc00000U

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
 * Install the filter on the calling thread (no_new_privs set): the
 * listener fd (close-on-exec), or -1 with errno (EBUSY: another listener
 * already supervises this process, as inside another arcturn).
 */
int	gate_install(void);

#endif
