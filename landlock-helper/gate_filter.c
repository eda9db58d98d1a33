/*
 * gate_filter.c: the unix socket gate's seccomp filter (gate_filter.h): socket
 * calls that may name a path go to the supervisor, io_uring and the socket
 * calls of 32-bit programs are refused, and so are TIOCSTI and TIOCLINUX.
 */
#include <sys/syscall.h>

#include <errno.h>
#include <unistd.h>

#include "gate_filter.h"

/*
 * The 32-bit compat ABI, whose socket calls are refused (the supervisor
 * reads 64-bit layouts only).
 */
#if defined(__x86_64__)
#define ARCH_NATIVE	AUDIT_ARCH_X86_64
#define ARCH_COMPAT	AUDIT_ARCH_I386
#define X32_BIT		0x40000000U
static const uint32_t compat_sock[] = { 102, 361, 362, 369, 370, 345 };
#define C_IOCTL		54
#elif defined(__aarch64__)
#define ARCH_NATIVE	AUDIT_ARCH_AARCH64
#define ARCH_COMPAT	AUDIT_ARCH_ARM
static const uint32_t compat_sock[] = { 282, 283, 290, 296, 374 };
#define C_IOCTL		54
#endif
#define N_URING_SETUP	425	/* and 426, 427: the same on every ABI */

#define BPF_JSET_	0x40

enum { L_NEXT, L_ALLOW, L_NOTIFY, L_EPERM, L_EACCES, L_ENOSYS, L_IOCTL,
    L_SENDTO, L_COMPAT, L_N };

#define MAXINS	64
static struct sock_filter insns[MAXINS];
static unsigned char jt_l[MAXINS], jf_l[MAXINS];
static int nins, labels[L_N];
static struct sock_fprog gate_prog = { 0, insns };

static void
emit(uint16_t code, uint32_t k, int lt, int lf)
{
	insns[nins] = (struct sock_filter){ code, 0, 0, k };
	jt_l[nins] = (unsigned char)lt;
	jf_l[nins] = (unsigned char)lf;
	nins++;
}

#define LD(off)		emit(BPF_LD | BPF_W | BPF_ABS, (off), 0, 0)
#define JEQ(k, t, f)	emit(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define RET(v)		emit(BPF_RET | BPF_K, (v), 0, 0)
#define LABEL(l)	(labels[l] = nins)

/*
 * Every path that reads only the architecture and the number ends in
 * ALLOW, so the kernel caches the verdict for those calls and runs no
 * filter for them at all: only ioctl and the socket calls pay.
 */
static void
build(void)
{
	size_t i;
	int k, to;

	nins = 0;
	LD(SECCOMP_DATA_ARCH);
	JEQ(ARCH_NATIVE, L_NEXT, L_COMPAT);
	LD(SECCOMP_DATA_NR);
#ifdef X32_BIT
	emit(BPF_JMP | BPF_JSET_ | BPF_K, X32_BIT, L_ENOSYS, L_NEXT);
#endif
	JEQ(N_IOCTL, L_IOCTL, L_NEXT);
	JEQ(N_CONNECT, L_NOTIFY, L_NEXT);
	JEQ(N_BIND, L_NOTIFY, L_NEXT);
	JEQ(N_SENDMSG, L_NOTIFY, L_NEXT);
	JEQ(N_SENDMMSG, L_NOTIFY, L_NEXT);
	JEQ(N_SENDTO, L_SENDTO, L_NEXT);
	JEQ(N_URING_SETUP, L_EPERM, L_NEXT);
	JEQ(N_URING_SETUP + 1, L_EPERM, L_NEXT);
	JEQ(N_URING_SETUP + 2, L_EPERM, L_NEXT);
	RET(SECCOMP_RET_ALLOW);
	/* sendto with no address goes to the connected peer */
	LABEL(L_SENDTO);
	LD(SECCOMP_DATA_ARG(4));
	JEQ(0, L_NEXT, L_NOTIFY);
	LD(SECCOMP_DATA_ARG(4) + 4);
	JEQ(0, L_ALLOW, L_NOTIFY);
	LABEL(L_COMPAT);
	JEQ(ARCH_COMPAT, L_NEXT, L_ENOSYS);
	LD(SECCOMP_DATA_NR);
	JEQ(C_IOCTL, L_IOCTL, L_NEXT);
	for (i = 0; i < sizeof compat_sock / sizeof compat_sock[0]; i++)
		JEQ(compat_sock[i], L_EACCES, L_NEXT);
	JEQ(N_URING_SETUP, L_EPERM, L_NEXT);
	JEQ(N_URING_SETUP + 1, L_EPERM, L_NEXT);
	JEQ(N_URING_SETUP + 2, L_EPERM, L_ALLOW);
	/* (BPF jumps only forward: the blocks both ABIs share come last) */
	LABEL(L_IOCTL);
	LD(SECCOMP_DATA_ARG(1));
	JEQ(TIOCSTI_CMD, L_EPERM, L_NEXT);
	JEQ(TIOCLINUX_CMD, L_EPERM, L_ALLOW);
	LABEL(L_ALLOW);
	RET(SECCOMP_RET_ALLOW);
	LABEL(L_NOTIFY);
	RET(SECCOMP_RET_USER_NOTIF_);
	LABEL(L_EPERM);
	RET(SECCOMP_RET_ERRNO | EPERM);
	LABEL(L_EACCES);
	RET(SECCOMP_RET_ERRNO | EACCES);
	LABEL(L_ENOSYS);
	RET(SECCOMP_RET_ERRNO | ENOSYS);
	for (k = 0; k < nins; k++) {
		if ((insns[k].code & 0x07) != BPF_JMP)
			continue;
		to = jt_l[k] == L_NEXT ? k + 1 : labels[jt_l[k]];
		insns[k].jt = (uint8_t)(to - k - 1);
		to = jf_l[k] == L_NEXT ? k + 1 : labels[jf_l[k]];
		insns[k].jf = (uint8_t)(to - k - 1);
	}
	gate_prog.len = (unsigned short)nins;
}

int
gate_install(void)
{
	unsigned long fl = SECCOMP_FILTER_FLAG_NEW_LISTENER_ |
	    SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV_;
	int fd;

	if (gate_prog.len == 0)
		build();
	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER_, fl,
	    &gate_prog);
	if (fd < 0 && errno == EINVAL) {
		/* before 5.19: a signal may then restart a call in flight */
		fl &= ~SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV_;
		fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER_, fl,
		    &gate_prog);
	}
	return fd;
}
