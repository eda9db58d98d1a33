/*
 * nosuid_test: root's seccomp filter against setuid/setgid bits and
 * extended attributes (sandbox_limits_linux.c), run through a small cBPF
 * interpreter instead of the kernel: for every system call number of each
 * architecture, with and without the bits in the mode and O_CREAT or
 * O_TMPFILE in the flags, its verdict is the rule table's (and every jump
 * lands inside the program).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#define linux_limits	t_linux_limits
#define linux_nosuid	t_linux_nosuid
#define prctl		fake_prctl
#define geteuid		fake_geteuid
#include "sandbox/sandbox_limits_linux.c"

#include "tap.h"

#ifdef ARCH_NATIVE
static struct nosuid_insn prog[MAXINSN];
static size_t proglen, ran;	/* ran: instructions the last run took */
static int attached;

int
fake_prctl(int op, ...)
{
	struct nosuid_prog *p;
	va_list ap;

	va_start(ap, op);
	if (op == PR_SET_SECCOMP) {
		(void)va_arg(ap, unsigned long);
		p = va_arg(ap, struct nosuid_prog *);
		memcpy(prog, p->filter, p->len * sizeof *p->filter);
		proglen = p->len;
		attached++;
	}
	va_end(ap);
	return 0;
}

uid_t
fake_geteuid(void)
{
	return 0;
}

/* struct seccomp_data: nr, arch, ip, then six 64-bit arguments */
static uint32_t
load(uint32_t off, uint32_t nr, uint32_t arch, const uint64_t *args)
{
	if (off == DATA_NR)
		return nr;
	if (off == DATA_ARCH)
		return arch;
	CHECK(off >= 16 && off < 64 && (off - 16) % 8 == 0);
	return (uint32_t)args[(off - 16) / 8];
}

static uint32_t
run(uint32_t nr, uint32_t arch, const uint64_t *args)
{
	uint32_t acc = 0;
	size_t pc = 0, steps;
	const struct nosuid_insn *i;

	for (steps = 0; steps < proglen; steps++) {
		ran = steps + 1;
		CHECK(pc < proglen);
		i = &prog[pc++];
		switch (i->code) {
		case LD_ABS:
			acc = load(i->k, nr, arch, args);
			break;
		case JEQ_K:
			pc += acc == i->k ? i->jt : i->jf;
			break;
		case JGE_K:
			pc += acc >= i->k ? i->jt : i->jf;
			break;
		case JSET_K:
			pc += (acc & i->k) != 0 ? i->jt : i->jf;
			break;
		case RET_K:
			return i->k;
		default:
			CHECK(!"an instruction the interpreter does not know");
		}
	}
	CHECK(!"ran off the end");
	return 0;
}

/* What the table says for nr with these arguments. */
static uint32_t
want(const struct nosuid_rule *t, size_t nt, uint32_t nr,
    const uint64_t *args)
{
	size_t i;

	for (i = 0; i < nt; i++) {
		if (t[i].nr != nr)
			continue;
		switch (t[i].kind) {
		case R_MODE:
			return args[t[i].a] & SUID_BITS ? RET_ERRNO(EPERM) :
			    RET_ALLOW;
		case R_OPEN:
			return (args[t[i].a] & CREATE_FLAGS) &&
			    (args[t[i].b] & SUID_BITS) ? RET_ERRNO(EPERM) :
			    RET_ALLOW;
		case R_NOSYS:
			return RET_ERRNO(ENOSYS);
		default:
			return RET_ERRNO(EOPNOTSUPP);
		}
	}
	return RET_ALLOW;
}

static const uint64_t argsets[][6] = {
	{ 0, 0, 0, 0, 0, 0 },
	{ 0644, 0644, 0644, 0644, 0, 0 },
	{ 04755, 04755, 04755, 04755, 0, 0 },
	{ 02755, 0100, 02755, 02755, 0, 0 },
	{ 0, 0100, 04755, 04755, 0, 0 },
	{ 0, 0, 0100, 02000, 0, 0 },
	{ 0, 020000000, 06000, 0, 0, 0 },
	{ 06000, 020000000, 020000000, 06000, 0, 0 },
	{ 0xffffffffU, 0xffffffffU, 0xffffffffU, 0xffffffffU, 0, 0 },
};
#define NARGSETS	(sizeof argsets / sizeof argsets[0])

/* Numbers past every table, up to the top of the range. */
static const uint32_t far[] = { 1024, 4095, 65535, 0x3fffffffU, 0x7fffffffU,
    0xbfffffffU, 0xfffffffeU, 0xffffffffU };

static void
check_arch(uint32_t arch, const struct nosuid_rule *t, size_t nt, int x32)
{
	uint32_t nr;
	size_t a, i, j;

	/* one rule per number: the search tree takes the first it meets */
	for (i = 0; i < nt; i++)
		for (j = i + 1; j < nt; j++)
			CHECK(t[i].nr != t[j].nr);
	for (i = 0; i < sizeof far / sizeof far[0]; i++)
		for (a = 0; a < NARGSETS; a++)
			CHECK(run(far[i], arch, argsets[a]) ==
			    (x32 && far[i] >= 0x40000000U ? RET_ERRNO(ENOSYS) :
			    want(t, nt, far[i], argsets[a])));
	for (nr = 0; nr < 1024; nr++)
		for (a = 0; a < NARGSETS; a++) {
			CHECK(run(nr, arch, argsets[a]) ==
			    want(t, nt, nr, argsets[a]));
			if (x32)
				CHECK(run(nr | 0x40000000U, arch, argsets[a]) ==
				    RET_ERRNO(ENOSYS));
		}
}

static void
t_table(void)
{
	char err[128];

	CHECK(t_linux_nosuid(err, sizeof err) == 0);
	CHECK(attached == 1 && proglen > 0 && proglen <= MAXINSN);
#ifdef X32_BIT
	check_arch(ARCH_NATIVE, native, NRULES(native), 1);
#else
	check_arch(ARCH_NATIVE, native, NRULES(native), 0);
#endif
#ifdef ARCH_COMPAT
	check_arch(ARCH_COMPAT, compat, NRULES(compat), 0);
#endif
}

/*
 * A call no rule names gets through in a few instructions, not one per
 * rule: the kernel runs a new filter for every call number of every
 * architecture when it is attached, so that path is paid on each exec.
 */
static void
t_short_path(void)
{
	char err[128];
	uint32_t nr, arch;
	size_t most = 0, a;


	static const uint32_t archs[] = { ARCH_NATIVE,
#ifdef ARCH_COMPAT
	    ARCH_COMPAT,
#endif
	};

	CHECK(t_linux_nosuid(err, sizeof err) == 0);
	for (a = 0; a < sizeof archs / sizeof archs[0]; a++) {
		arch = archs[a];
		for (nr = 0; nr < 1024; nr++)
			if (run(nr, arch, argsets[0]) == RET_ALLOW && ran > most)
				most = ran;
	}
	/*
	 * the arch, the number, x32 (or a second arch), three levels of
	 * the tree, a leaf's rules and, for a call a rule names, its
	 * checks: 12 at most on x86_64; the chain of every rule took 19
	 * for a call none names
	 */
	CHECK(most > 0 && most <= 12);
}

/*
 * A table too long for the program (or for a jump's byte) is refused:
 * nothing is written past the program, and linux_nosuid says so.
 */
static void
t_too_long(void)
{
	static struct nosuid_insn f[MAXINSN + 1];
	struct nosuid_rule big[RULES_MAX];
	size_t i, n;

	for (i = 0; i < RULES_MAX; i++)
		big[i] = (struct nosuid_rule){ (uint32_t)(i * 3), R_OPEN, 1,
		    2 };
	f[MAXINSN].code = 0xbeef;
	/* after another architecture's 64 instructions */
	n = emit_rules(f, 64, big, RULES_MAX, 0);
	CHECK(n > MAXINSN);
	CHECK(f[MAXINSN].code == 0xbeef);
	/* and a jump past a byte's reach */
	CHECK(patch(f, 0, 300, 1) == MAXINSN + 1);
	CHECK(patch(f, 0, 200, 0) == 200 && f[0].jf == 199);
}

/* Any other ABI: nothing of it is checked, so none of it runs. */
static void
t_other_arch(void)
{
	char err[128];
	uint32_t nr;

	CHECK(t_linux_nosuid(err, sizeof err) == 0);
	for (nr = 0; nr < 1024; nr++)
		CHECK(run(nr, 0x12345678U, argsets[0]) == RET_ERRNO(ENOSYS));
}
#endif

int
main(void)
{
#ifdef ARCH_NATIVE
	TEST(t_table);
	TEST(t_short_path);
	TEST(t_too_long);
	TEST(t_other_arch);
#endif
	return tap_done();
}
