/*
 * tiocsti.h: a seccomp filter that refuses ioctl(TIOCSTI) and
 * ioctl(TIOCLINUX) with EPERM, so a confined command cannot push input into
 * the terminal it shares with the user. Shared by the helper (installed
 * before exec) and by arcturn (handed to bubblewrap with --seccomp).
 * Everything else is allowed; unknown architectures are left alone.
 */
#ifndef ARCTURN_TIOCSTI_H
#define ARCTURN_TIOCSTI_H

#include <errno.h>
#include <stdint.h>

/* Kernel UAPI, defined here: musl-gcc sees no kernel headers. */
struct sock_filter {
	uint16_t	code;
	uint8_t		jt;
	uint8_t		jf;
	uint32_t	k;
};

struct sock_fprog {
	unsigned short		 len;
	struct sock_filter	*filter;
};

#define BPF_LD		0x00
#define BPF_JMP		0x05
#define BPF_RET		0x06
#define BPF_W		0x00
#define BPF_ABS		0x20
#define BPF_JEQ		0x10
#define BPF_K		0x00
#define BPF_STMT(code, k)		{ (uint16_t)(code), 0, 0, (k) }
#define BPF_JUMP(code, k, jt, jf)	{ (uint16_t)(code), (jt), (jf), (k) }

#define SECCOMP_MODE_FILTER	2
#define SECCOMP_RET_ALLOW	0x7fff0000U
#define SECCOMP_RET_ERRNO	0x00050000U
#define SECCOMP_RET_DATA	0x0000ffffU

#define AUDIT_ARCH_X86_64	0xc000003eU
#define AUDIT_ARCH_I386		0x40000003U
#define AUDIT_ARCH_AARCH64	0xc00000b7U
#define AUDIT_ARCH_ARM		0x40000028U

/* struct seccomp_data: nr, arch, instruction_pointer, args[6] */
#define SECCOMP_DATA_NR		0
#define SECCOMP_DATA_ARCH	4
#define SECCOMP_DATA_ARG(i)	(16 + 8 * (i))	/* low word on little endian */

#define TIOCSTI_CMD	0x5412
#define TIOCLINUX_CMD	0x541c

#define SC_LD(off)	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define SC_JEQ(k, t, f)	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define SC_RET(v)	BPF_STMT(BPF_RET | BPF_K, (v))

/*
 * arch nr pairs: the native ioctl number, and a second one for the x32 or
 * compat numbering on the same audit arch (repeat the first when none).
 */
static const struct sock_filter tiocsti_filter[] = {
	SC_LD(SECCOMP_DATA_ARCH),
	SC_JEQ(AUDIT_ARCH_X86_64, 0, 3),
	SC_LD(SECCOMP_DATA_NR),
	SC_JEQ(16, 10, 0),			/* x86_64 ioctl */
	SC_JEQ(0x40000000 | 514, 9, 13),	/* x32 ioctl */
	SC_JEQ(AUDIT_ARCH_I386, 0, 2),
	SC_LD(SECCOMP_DATA_NR),
	SC_JEQ(54, 6, 10),			/* i386 ioctl */
	SC_JEQ(AUDIT_ARCH_AARCH64, 0, 2),
	SC_LD(SECCOMP_DATA_NR),
	SC_JEQ(29, 3, 7),			/* arm64 ioctl */
	SC_JEQ(AUDIT_ARCH_ARM, 0, 6),
	SC_LD(SECCOMP_DATA_NR),
	SC_JEQ(54, 0, 4),			/* arm ioctl */
	/* ioctl: look at the request (low 32 bits of args[1]) */
	SC_LD(SECCOMP_DATA_ARG(1)),
	SC_JEQ(TIOCSTI_CMD, 1, 0),
	SC_JEQ(TIOCLINUX_CMD, 0, 1),
	SC_RET(SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
	SC_RET(SECCOMP_RET_ALLOW),
};

#define TIOCSTI_FILTER_LEN (sizeof tiocsti_filter / sizeof tiocsti_filter[0])

#endif
