/*
 * nosys: run a command with some kernel features taken away by a seccomp
 * filter, to simulate machines that lack them (for the tests only).
 *
 *	nosys [-l] [-m] [-t] [-u | -s] [--] CMD [ARG]...
 *
 *	-l	no Landlock: landlock_* syscalls fail with ENOSYS
 *	-u	no user namespaces: unshare/clone with CLONE_NEWUSER fail with
 *		EPERM, clone3 with ENOSYS (so callers fall back to clone)
 *	-s	the same with ENOSPC: what the kernel says where
 *		user.max_user_namespaces is 0
 *	-m	no memfd exec: memfd_create fails with ENOSYS
 *	-t	no PIDFD_THREAD (Linux < 6.9): pidfd_open with that flag fails
 *		with EINVAL
 *
 * The filter is inherited across fork and exec, as on a real machine
 * whose container runtime filters those calls. x86_64 only.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "../../uapi/tiocsti.h"

#define BPF_JSET	0x40
#define CLONE_NEWUSER_	0x10000000U
#define PIDFD_THREAD_	0x80U		/* O_EXCL */
#define RET_ERRNO(e)	SC_RET(SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

int
main(int argc, char **argv)
{
	struct sock_filter f[64];
	struct sock_fprog prog;
	int n = 0, i, l = 0, u = 0, m = 0, t = 0;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (strcmp(argv[i], "-l") == 0)
			l = 1;
		else if (strcmp(argv[i], "-u") == 0)
			u = EPERM;
		else if (strcmp(argv[i], "-s") == 0)
			u = ENOSPC;
		else if (strcmp(argv[i], "-m") == 0)
			m = 1;
		else if (strcmp(argv[i], "-t") == 0)
			t = 1;
		else
			goto usage;
	}
	if (i >= argc)
		goto usage;

	f[n++] = (struct sock_filter)SC_LD(SECCOMP_DATA_ARCH);
	f[n++] = (struct sock_filter)SC_JEQ(AUDIT_ARCH_X86_64, 1, 0);
	f[n++] = (struct sock_filter)SC_RET(SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)SC_LD(SECCOMP_DATA_NR);
	if (l) {
		/* landlock_create_ruleset, _add_rule, _restrict_self */
		f[n++] = (struct sock_filter)SC_JEQ(444, 3, 0);
		f[n++] = (struct sock_filter)SC_JEQ(445, 2, 0);
		f[n++] = (struct sock_filter)SC_JEQ(446, 1, 0);
		f[n++] = (struct sock_filter)SC_JEQ(0xffffffffU, 0, 1);
		f[n++] = (struct sock_filter)RET_ERRNO(ENOSYS);
	}
	if (m) {
		f[n++] = (struct sock_filter)SC_JEQ(319, 0, 1);
		f[n++] = (struct sock_filter)RET_ERRNO(ENOSYS);
	}
	if (u) {
		f[n++] = (struct sock_filter)SC_JEQ(435, 0, 1);	/* clone3 */
		f[n++] = (struct sock_filter)RET_ERRNO(ENOSYS);
		/* unshare(flags), clone(flags, ...): flags in args[0] */
		f[n++] = (struct sock_filter)SC_JEQ(272, 1, 0);
		f[n++] = (struct sock_filter)SC_JEQ(56, 0, 4);
		f[n++] = (struct sock_filter)SC_LD(SECCOMP_DATA_ARG(0));
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
		    CLONE_NEWUSER_, 0, 1);
		f[n++] = (struct sock_filter)RET_ERRNO(u);
		f[n++] = (struct sock_filter)SC_RET(SECCOMP_RET_ALLOW);
	}
	if (t) {
		/* pidfd_open(pid, flags): last, as it loads an argument */
		f[n++] = (struct sock_filter)SC_JEQ(434, 0, 3);
		f[n++] = (struct sock_filter)SC_LD(SECCOMP_DATA_ARG(1));
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
		    PIDFD_THREAD_, 0, 1);
		f[n++] = (struct sock_filter)RET_ERRNO(EINVAL);
	}
	f[n++] = (struct sock_filter)SC_RET(SECCOMP_RET_ALLOW);
	prog.len = (unsigned short)n;
	prog.filter = f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0) {
		perror("nosys: seccomp");
		return 125;
	}
	execvp(argv[i], argv + i);
	perror(argv[i]);
	return 127;
usage:
	fprintf(stderr, "usage: nosys [-l] [-m] [-t] [-u | -s] [--] CMD [ARG]...\n");
	return 2;
}
