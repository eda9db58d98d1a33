/*
 * sandbox_limits_linux: what every confined command gets from the
 * process that starts its backend, whichever backend that is
 * (sandbox_linux.h): a session keyring of its own, no core dumps, and,
 * for root, no setuid/setgid bits nor extended attributes.
 */
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/sandbox_linux.h"

#define KEYCTL_JOIN_SESSION_KEYRING	1	/* <linux/keyctl.h> */

int
linux_limits(char *err, size_t errlen)
{
	struct rlimit rl = { 0, 0 };

	/*
	 * A new anonymous session keyring: the caller's (Kerberos caches,
	 * fscrypt and ecryptfs keys) is no longer possessed, so its keys
	 * answer only to their user permissions (view). ENOSYS (no keys in
	 * this kernel) and EPERM (a seccomp profile refuses keyctl, for the
	 * command too) leave nothing to share.
	 */
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 &&
	    errno != ENOSYS && errno != EPERM) {
		snprintf(err, errlen, "exec: session keyring: %s",
		    strerror(errno));
		return -1;
	}
	/* a crash dumps nothing, and the command cannot raise it again */
	if (setrlimit(RLIMIT_CORE, &rl) < 0) {
		snprintf(err, errlen, "exec: core dump limit: %s",
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* Kernel UAPI, defined here: musl-gcc sees no kernel headers. */
struct nosuid_insn {
	uint16_t	code;
	uint8_t		jt;
	uint8_t		jf;
	uint32_t	k;
};

struct nosuid_prog {
	unsigned short		 len;
	struct nosuid_insn	*filter;
};

#define LD_ABS		0x20		/* BPF_LD | BPF_W | BPF_ABS */
#define JEQ_K		0x15		/* BPF_JMP | BPF_JEQ | BPF_K */
#define JGE_K		0x35		/* BPF_JMP | BPF_JGE | BPF_K */
#define JSET_K		0x45		/* BPF_JMP | BPF_JSET | BPF_K */
#define RET_K		0x06		/* BPF_RET | BPF_K */
#define RET_ALLOW	0x7fff0000U	/* SECCOMP_RET_ALLOW */
#define RET_ERRNO(e)	(0x00050000U | (e))
#define DATA_NR		0
#define DATA_ARCH	4
#define DATA_ARG(i)	(16 + 8 * (i))	/* low word on little endian */
#define SUID_BITS	06000		/* S_ISUID | S_ISGID */
#define CREATE_FLAGS	(0100 | 020000000)	/* O_CREAT | __O_TMPFILE */

enum { R_MODE, R_OPEN, R_NOSYS, R_NOXATTR };

struct nosuid_rule {
	uint32_t	nr;
	uint8_t		kind;
	uint8_t		a;	/* R_MODE: the mode; R_OPEN: the flags */
	uint8_t		b;	/* R_OPEN: the mode */
};

/*
 * Where a mode can carry the bits: chmod and its kin, open with O_CREAT,
 * mknod. io_uring (which opens and sets xattrs by itself) gets ENOSYS.
 * openat2 passes: its mode is in a struct seccomp cannot read, and the
 * helper's unix socket gate, which this filter covers too, needs it
 * (RESOLVE_IN_ROOT); only a filter on the command alone could refuse it. Setting an extended attribute gets EOPNOTSUPP, as on a
 * file system without them: seccomp cannot read the name, and
 * security.capability is one; cp, install and tar then carry on without
 * ACLs and xattrs, as they do on such a file system.
 */
#if defined(__x86_64__)
#define ARCH_NATIVE	0xc000003eU	/* AUDIT_ARCH_X86_64 */
#define ARCH_COMPAT	0x40000003U	/* AUDIT_ARCH_I386 */
#define X32_BIT		0x40000000U
static const struct nosuid_rule native[] = {
	{ 90, R_MODE, 1, 0 }, { 91, R_MODE, 1, 0 }, { 268, R_MODE, 2, 0 },
	{ 452, R_MODE, 2, 0 }, { 2, R_OPEN, 1, 2 }, { 257, R_OPEN, 2, 3 },
	{ 85, R_MODE, 1, 0 }, { 133, R_MODE, 1, 0 }, { 259, R_MODE, 2, 0 },
	{ 425, R_NOSYS, 0, 0 },
	{ 188, R_NOXATTR, 0, 0 }, { 189, R_NOXATTR, 0, 0 }, { 190, R_NOXATTR, 0, 0 },
	{ 463, R_NOXATTR, 0, 0 },
};
static const struct nosuid_rule compat[] = {
	{ 15, R_MODE, 1, 0 }, { 94, R_MODE, 1, 0 }, { 306, R_MODE, 2, 0 },
	{ 452, R_MODE, 2, 0 }, { 5, R_OPEN, 1, 2 }, { 295, R_OPEN, 2, 3 },
	{ 8, R_MODE, 1, 0 }, { 14, R_MODE, 1, 0 }, { 297, R_MODE, 2, 0 },
	{ 425, R_NOSYS, 0, 0 },
	{ 226, R_NOXATTR, 0, 0 }, { 227, R_NOXATTR, 0, 0 }, { 228, R_NOXATTR, 0, 0 },
	{ 463, R_NOXATTR, 0, 0 },
};
#elif defined(__aarch64__)
#define ARCH_NATIVE	0xc00000b7U	/* AUDIT_ARCH_AARCH64 */
static const struct nosuid_rule native[] = {
	{ 52, R_MODE, 1, 0 }, { 53, R_MODE, 2, 0 }, { 452, R_MODE, 2, 0 },
	{ 56, R_OPEN, 2, 3 }, { 33, R_MODE, 2, 0 },
	{ 425, R_NOSYS, 0, 0 },
	{ 5, R_NOXATTR, 0, 0 }, { 6, R_NOXATTR, 0, 0 }, { 7, R_NOXATTR, 0, 0 },
	{ 463, R_NOXATTR, 0, 0 },
};
#endif

#ifdef ARCH_NATIVE
#define NRULES(t)	(sizeof (t) / sizeof (t)[0])
#define MAXINSN		256
#define RULES_MAX	32	/* of one architecture */
_Static_assert(NRULES(native) <= RULES_MAX, "native rules");
#ifdef ARCH_COMPAT
_Static_assert(NRULES(compat) <= RULES_MAX, "compat rules");
#endif

/*
 * Past MAXINSN nothing is written and the length only grows, so that
 * linux_nosuid refuses the program; so does a jump too far for its byte.
 */
static size_t
emit(struct nosuid_insn *f, size_t n, uint16_t code, uint32_t k, uint8_t jt,
    uint8_t jf)
{
	if (n < MAXINSN) {
		f[n].code = code;
		f[n].jt = jt;
		f[n].jf = jf;
		f[n].k = k;
	}
	return n + 1;
}

/* f[at]'s jump (jt, else jf) to n, the next instruction to be emitted. */
static size_t
patch(struct nosuid_insn *f, size_t at, size_t n, int jt)
{
	if (n > MAXINSN || n - at - 1 > UINT8_MAX)
		return MAXINSN + 1;
	if (jt)
		f[at].jt = (uint8_t)(n - at - 1);
	else
		f[at].jf = (uint8_t)(n - at - 1);
	return n;
}

/* One rule: its number, then what it checks (every way out returns). */
static size_t
emit_rule(struct nosuid_insn *f, size_t n, const struct nosuid_rule *r)
{
	switch (r->kind) {
	case R_MODE:
		n = emit(f, n, JEQ_K, r->nr, 0, 4);
		n = emit(f, n, LD_ABS, DATA_ARG(r->a), 0, 0);
		n = emit(f, n, JSET_K, SUID_BITS, 0, 1);
		n = emit(f, n, RET_K, RET_ERRNO(EPERM), 0, 0);
		return emit(f, n, RET_K, RET_ALLOW, 0, 0);
	case R_OPEN:
		n = emit(f, n, JEQ_K, r->nr, 0, 6);
		n = emit(f, n, LD_ABS, DATA_ARG(r->a), 0, 0);
		n = emit(f, n, JSET_K, CREATE_FLAGS, 0, 3);
		n = emit(f, n, LD_ABS, DATA_ARG(r->b), 0, 0);
		n = emit(f, n, JSET_K, SUID_BITS, 0, 1);
		n = emit(f, n, RET_K, RET_ERRNO(EPERM), 0, 0);
		return emit(f, n, RET_K, RET_ALLOW, 0, 0);
	default:
		n = emit(f, n, JEQ_K, r->nr, 0, 1);
		return emit(f, n, RET_K, RET_ERRNO(r->kind == R_NOSYS ?
		    ENOSYS : EOPNOTSUPP), 0, 0);
	}
}

/*
 * The rules r[0..nr), sorted by number, as a search tree on the number
 * (in the accumulator): a call no rule names passes a few comparisons
 * instead of every rule's. The kernel runs each new filter for every
 * call number of every architecture when it is attached (to learn which
 * calls it always allows), so the length of that path is paid on every
 * exec, a microsecond or so per instruction here; the calls themselves
 * are then never run through it.
 */
static size_t
emit_tree(struct nosuid_insn *f, size_t n, const struct nosuid_rule *r,
    size_t nr)
{
	size_t i, mid, at;

	if (nr <= 3) {
		for (i = 0; i < nr; i++)
			n = emit_rule(f, n, &r[i]);
		return emit(f, n, RET_K, RET_ALLOW, 0, 0);
	}
	mid = nr / 2;
	at = n;
	n = emit(f, n, JGE_K, r[mid].nr, 0, 0);
	n = emit_tree(f, n, r, mid);
	n = patch(f, at, n, 1);
	return emit_tree(f, n, r + mid, nr - mid);
}

/* One architecture's rules: returns the new length. */
static size_t
emit_rules(struct nosuid_insn *f, size_t n, const struct nosuid_rule *r,
    size_t nr, int x32)
{
	struct nosuid_rule s[RULES_MAX], t;
	size_t i, j;

	/* sorted by number (a handful: insertion) */
	for (i = 0; i < nr; i++) {
		t = r[i];
		for (j = i; j > 0 && s[j - 1].nr > t.nr; j--)
			s[j] = s[j - 1];
		s[j] = t;
	}
	n = emit(f, n, LD_ABS, DATA_NR, 0, 0);
	if (x32) {	/* the x32 ABI: not checked here, so not offered */
		n = emit(f, n, JGE_K, 0x40000000U, 0, 1);
		n = emit(f, n, RET_K, RET_ERRNO(ENOSYS), 0, 0);
	}
	return emit_tree(f, n, s, nr);
}

int
linux_nosuid(char *err, size_t errlen)
{
	struct nosuid_insn f[MAXINSN];
	struct nosuid_prog prog;
	size_t n = 0, at;

	if (geteuid() != 0)
		return 0;
	n = emit(f, n, LD_ABS, DATA_ARCH, 0, 0);
	at = n;
	n = emit(f, n, JEQ_K, ARCH_NATIVE, 0, 0);
#ifdef X32_BIT
	n = emit_rules(f, n, native, NRULES(native), 1);
#else
	n = emit_rules(f, n, native, NRULES(native), 0);
#endif
	n = patch(f, at, n, 0);
#ifdef ARCH_COMPAT
	at = n;
	n = emit(f, n, JEQ_K, ARCH_COMPAT, 0, 0);
	n = emit_rules(f, n, compat, NRULES(compat), 0);
	n = patch(f, at, n, 0);
#endif
	/* any other ABI: nothing of it is checked, so none of it runs */
	n = emit(f, n, RET_K, RET_ERRNO(ENOSYS), 0, 0);
	if (n > MAXINSN) {
		snprintf(err, errlen, "exec: seccomp filter against setuid "
		    "bits: longer than %d instructions", MAXINSN);
		return -1;
	}
	prog.len = (unsigned short)n;
	prog.filter = f;
	/* root has CAP_SYS_ADMIN, except in some containers: then nnp */
	if (prctl(PR_SET_SECCOMP, 2, &prog, 0, 0) == 0 ||
	    (errno == EACCES && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
	    prctl(PR_SET_SECCOMP, 2, &prog, 0, 0) == 0))
		return 0;
	snprintf(err, errlen, "exec: seccomp filter against setuid bits: %s",
	    strerror(errno));
	return -1;
}
#else
int
linux_nosuid(char *err, size_t errlen)
{
	if (geteuid() != 0)
		return 0;
	snprintf(err, errlen, "exec: no seccomp filter against setuid bits "
	    "for this architecture");
	return -1;
}
#endif
