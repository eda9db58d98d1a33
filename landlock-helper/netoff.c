/*
 * netoff.c: the socket filter of --network off without a network
 * namespace (netoff.h).
 */
#include <sys/prctl.h>

#include <errno.h>

#include "netoff.h"
#include "uapi/tiocsti.h"

#if defined(__x86_64__)
#define ARCH_NATIVE	AUDIT_ARCH_X86_64
#define ARCH_COMPAT	AUDIT_ARCH_I386
#define N_SOCKET	41
#define N_SOCKET_X32	(0x40000000 | 41)
#define N_URING_X32	(0x40000000 | 425)
#define C_SOCKET	359
#elif defined(__aarch64__)
#define ARCH_NATIVE	AUDIT_ARCH_AARCH64
#define ARCH_COMPAT	AUDIT_ARCH_ARM
#define N_SOCKET	198
#define N_SOCKET_X32	N_SOCKET	/* no x32: repeat */
#define N_URING_X32	425
#define C_SOCKET	281
#else
#error "the network-off filter knows x86_64 and aarch64"
#endif
#define N_URING_SETUP	425	/* the same on every ABI */
#define C_SOCKETCALL	102

#define BPF_ALU_	0x04
#define BPF_AND_	0x50
#define SC_AND(k)	BPF_STMT(BPF_ALU_ | BPF_AND_ | BPF_K, (k))

#define AF_INET_	2
#define AF_INET6_	10
#define AF_PACKET_	17
#define SOCK_STREAM_	1
#define SOCK_TYPE_MASK_	0xf
#define IPPROTO_TCP_	6

/* Jumps are relative: to reach instruction T from I, jump T - I - 1. */
static const struct sock_filter netoff_filter[] = {
	/* 0 */	SC_LD(SECCOMP_DATA_ARCH),
	/* 1 */	SC_JEQ(ARCH_NATIVE, 0, 6),		/* compat: 8 */
	/* 2 */	SC_LD(SECCOMP_DATA_NR),
	/* 3 */	SC_JEQ(N_SOCKET, 9, 0),			/* socket: 13 */
	/* 4 */	SC_JEQ(N_SOCKET_X32, 8, 0),
	/* 5 */	SC_JEQ(N_URING_SETUP, 19, 0),		/* EPERM: 25 */
	/* 6 */	SC_JEQ(N_URING_X32, 18, 0),
	/* 7 */	SC_RET(SECCOMP_RET_ALLOW),
	/* 8 */	SC_JEQ(ARCH_COMPAT, 0, 14),		/* other: allow */
	/* 9 */	SC_LD(SECCOMP_DATA_NR),
	/* 10 */SC_JEQ(C_SOCKETCALL, 13, 0),		/* EACCES: 24 */
	/* 11 */SC_JEQ(C_SOCKET, 1, 0),
	/* 12 */SC_JEQ(N_URING_SETUP, 12, 10),
	/* socket(family, type, protocol): the low words */
	/* 13 */SC_LD(SECCOMP_DATA_ARG(0)),
	/* 14 */SC_JEQ(AF_PACKET_, 9, 0),
	/* 15 */SC_JEQ(AF_INET_, 1, 0),
	/* 16 */SC_JEQ(AF_INET6_, 0, 6),
	/* 17 */SC_LD(SECCOMP_DATA_ARG(1)),
	/* 18 */SC_AND(SOCK_TYPE_MASK_),
	/* 19 */SC_JEQ(SOCK_STREAM_, 0, 4),
	/* 20 */SC_LD(SECCOMP_DATA_ARG(2)),
	/* 21 */SC_JEQ(0, 1, 0),
	/* 22 */SC_JEQ(IPPROTO_TCP_, 0, 1),
	/* 23 */SC_RET(SECCOMP_RET_ALLOW),
	/* 24 */SC_RET(SECCOMP_RET_ERRNO | EACCES),
	/* 25 */SC_RET(SECCOMP_RET_ERRNO | EPERM),
};

int
netoff_install(void)
{
	struct sock_fprog prog = {
		.len = sizeof netoff_filter / sizeof netoff_filter[0],
		.filter = (struct sock_filter *)netoff_filter,
	};

	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}
