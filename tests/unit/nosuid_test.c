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

static void
check_arch(uint32_t arch, const struct nosuid_rule *t, size_t nt, int x32)
{
	uint32_t nr;
	size_t a;

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

	CHECK(t_linux_nosuid(err, sizeof err) == 0);
	for (a = 0; a < 2; a++) {
#ifdef ARCH_COMPAT
		arch = a == 0 ? ARCH_NATIVE : ARCH_COMPAT;
#else
		arch = ARCH_NATIVE;
#endif
		for (nr = 0; nr < 1024; nr++)
			if (run(nr, arch, argsets[0]) == RET_ALLOW && ran > most)
				most = ran;
	}
	/* the arch, the number, x32, then a search tree: 4 + 3 + 4 + 1 */
	CHECK(most > 0 && most <= 12);
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
	TEST(t_other_arch);
#endif
	return tap_done();
}
