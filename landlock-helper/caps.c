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
 * Capabilities root must not keep: with them it could undo or step around
 * the confinement (CAP_SYS_ADMIN clears our read-only flags, CAP_MKNOD
 * makes a device node to a disk, CAP_DAC_READ_SEARCH opens files by
 * handle, CAP_SYS_MODULE loads kernel code, ...). Dropped from the
 * bounding set and from the effective, permitted and inheritable sets; an
 * unprivileged caller has none of them and is left alone.
 */
#define CAP_SYS_PTRACE_	19
static const int dropcaps[] = {
	2,	/* CAP_DAC_READ_SEARCH */
	9,	/* CAP_LINUX_IMMUTABLE */
	12,	/* CAP_NET_ADMIN */
	16,	/* CAP_SYS_MODULE */
	17,	/* CAP_SYS_RAWIO */
	CAP_SYS_PTRACE_,
	20,	/* CAP_SYS_PACCT */
	21,	/* CAP_SYS_ADMIN */
	22,	/* CAP_SYS_BOOT */
	25,	/* CAP_SYS_TIME */
	27,	/* CAP_MKNOD */
	30,	/* CAP_AUDIT_CONTROL */
	32,	/* CAP_MAC_OVERRIDE */
	33,	/* CAP_MAC_ADMIN */
	34,	/* CAP_SYSLOG */
	38,	/* CAP_PERFMON */
	39,	/* CAP_BPF */
	40,	/* CAP_CHECKPOINT_RESTORE */
};

void
caps_drop(int keep_ptrace)
{
	struct { uint32_t version; int pid; } hdr = { 0x20080522, 0 };
	struct { uint32_t eff, perm, inh; } data[2];
	size_t i;
	int c;

	if (syscall(SYS_capget, &hdr, data) < 0)
		fail("capget", NULL);
	if (data[0].perm == 0 && data[1].perm == 0)
		return;
	for (i = 0; i < sizeof dropcaps / sizeof dropcaps[0]; i++) {
		c = dropcaps[i];
		if (c == CAP_SYS_PTRACE_ && keep_ptrace)
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
			fail("drop capability", NULL);
		data[c / 32].eff &= ~(1U << (c % 32));
		data[c / 32].perm &= ~(1U << (c % 32));
		data[c / 32].inh &= ~(1U << (c % 32));
	}
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
