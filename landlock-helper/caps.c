/*
 * caps.c: the capabilities root gives up (caps.h).
 */
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "caps.h"
#include "say.h"

/*
 * The capabilities root keeps: the set bubblewrap keeps for arcturn
 * (sandbox_bwrap_linux.c, Docker's default set without CAP_MKNOD), so
 * that both backends give root's command the same. Every other one goes
 * (CAP_SYS_ADMIN would clear our read-only flags, CAP_MKNOD make a node
 * of a disk, CAP_DAC_READ_SEARCH open files by handle, CAP_SYS_TTY_CONFIG
 * hang up a terminal with vhangup, ...), from the bounding set and from
 * the effective, permitted, inheritable and ambient sets; an
 * unprivileged caller has none of them and is left alone.
 */
#define CAP_SYS_PTRACE_	19
static const int keepcaps[] = {
	0,	/* CAP_CHOWN */
	1,	/* CAP_DAC_OVERRIDE */
	3,	/* CAP_FOWNER */
	4,	/* CAP_FSETID */
	5,	/* CAP_KILL */
	6,	/* CAP_SETGID */
	7,	/* CAP_SETUID */
	8,	/* CAP_SETPCAP */
	10,	/* CAP_NET_BIND_SERVICE */
	13,	/* CAP_NET_RAW */
	18,	/* CAP_SYS_CHROOT */
	29,	/* CAP_AUDIT_WRITE */
	31,	/* CAP_SETFCAP */
};

static int
kept(int c, int keep_ptrace)
{
	size_t i;

	if (c == CAP_SYS_PTRACE_ && keep_ptrace)
		return 1;
	for (i = 0; i < sizeof keepcaps / sizeof keepcaps[0]; i++)
		if (keepcaps[i] == c)
			return 1;
	return 0;
}

void
caps_drop(int keep_ptrace)
{
	struct { uint32_t version; int pid; } hdr = { 0x20080522, 0 };
	struct { uint32_t eff, perm, inh; } data[2];
	int c;

	if (syscall(SYS_capget, &hdr, data) < 0)
		fail("capget", NULL);
	if (data[0].perm == 0 && data[1].perm == 0)
		return;
	/* every capability the kernel knows (EINVAL past the last) */
	for (c = 0; c < 64; c++) {
		if (kept(c, keep_ptrace))
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0) {
			if (errno == EINVAL)
				break;
			fail("drop capability", NULL);
		}
		data[c / 32].eff &= ~(1U << (c % 32));
		data[c / 32].perm &= ~(1U << (c % 32));
		data[c / 32].inh &= ~(1U << (c % 32));
	}
	for (; c < 64; c++) {
		data[c / 32].eff &= ~(1U << (c % 32));
		data[c / 32].perm &= ~(1U << (c % 32));
		data[c / 32].inh &= ~(1U << (c % 32));
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 &&
	    errno != EINVAL)
		fail("drop ambient capabilities", NULL);
	if (syscall(SYS_capset, &hdr, data) < 0)
		fail("capset", NULL);
}

void
caps_drop_ptrace(void)
{
	struct { uint32_t version; int pid; } hdr = { 0x20080522, 0 };
	struct { uint32_t eff, perm, inh; } data[2];

	if (syscall(SYS_capget, &hdr, data) < 0)
		fail("capget", NULL);
	if (!(data[0].perm & (1U << CAP_SYS_PTRACE_)) &&
	    !(data[0].eff & (1U << CAP_SYS_PTRACE_)))
		return;
	if (prctl(PR_CAPBSET_DROP, CAP_SYS_PTRACE_, 0, 0, 0) < 0 &&
	    errno != EINVAL)
		fail("drop capability", NULL);
	data[0].eff &= ~(1U << CAP_SYS_PTRACE_);
	data[0].perm &= ~(1U << CAP_SYS_PTRACE_);
	data[0].inh &= ~(1U << CAP_SYS_PTRACE_);
	if (syscall(SYS_capset, &hdr, data) < 0)
		fail("capset", NULL);
}
