/*
 * keys.c: the user keyrings kept from a command without a user namespace
 * (keys.h).
 */
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "keys.h"
#include "uapi/tiocsti.h"

#if defined(__x86_64__)
#define ARCH_NATIVE	AUDIT_ARCH_X86_64
#define N_ADD_KEY	248
#define N_REQUEST_KEY	249
#define N_KEYCTL	250
#define X32_BIT		0x40000000U
#elif defined(__aarch64__)
#define ARCH_NATIVE	AUDIT_ARCH_AARCH64
#define N_ADD_KEY	217
#define N_REQUEST_KEY	218
#define N_KEYCTL	219
#define X32_BIT		0U
#else
#error "the keyring filter knows x86_64 and aarch64"
#endif
/* The key calls of the other ABIs (refused: 32-bit key_serial_t args). */
static const uint32_t compat_keys[] = {
#if defined(__x86_64__)
	286, 287, 288,		/* i386 */
	X32_BIT | 248, X32_BIT | 249, X32_BIT | 250,	/* x32 */
#else
	309, 310, 311,		/* arm */
#endif
};

/* Kernel UAPI (linux/keyctl.h). */
#define KEY_SPEC_USER_KEYRING		(-4)
#define KEY_SPEC_USER_SESSION_KEYRING	(-5)
#define KEYCTL_GET_KEYRING_ID		0
#define KEYCTL_SET_REQKEY_KEYRING	14
#define KEY_REQKEY_DEFL_USER_KEYRING	4
#define KEY_REQKEY_DEFL_USER_SESSION_KEYRING 5
#define KEYCTL_GET_PERSISTENT		22

#define BPF_JA_		0x00
#define BPF_JGE_	0x30

/*
 * Jump targets while building: L_NEXT the next instruction, L_ALLOW and
 * L_DENY the last two; resolved to relative offsets at the end.
 */
enum { L_NEXT = 0, L_ALLOW = 254, L_DENY = 255 };

#define MAXINS	128
static struct sock_filter ins[MAXINS];
static int n;

static void
op(uint16_t code, uint32_t k, uint8_t t, uint8_t f)
{
	if (n < MAXINS)
		ins[n] = (struct sock_filter){ code, t, f, k };
	n++;
}

/* Deny when the low word loaded from argument a is one of ids. */
static void
check_arg(int a, const uint32_t *ids, int nids)
{
	int i;

	op(BPF_LD | BPF_W | BPF_ABS, SECCOMP_DATA_ARG(a), 0, 0);
	for (i = 0; i < nids; i++)
		op(BPF_JMP | BPF_JEQ | BPF_K, ids[i], L_DENY, L_NEXT);
}

static void
build(const uint32_t *ids, int nids)
{
	size_t c;
	int i, j, add, req, kc, x32 = -1;

	n = 0;
	op(BPF_LD | BPF_W | BPF_ABS, SECCOMP_DATA_ARCH, 0, 0);
	op(BPF_JMP | BPF_JEQ | BPF_K, ARCH_NATIVE, 1, 0);
	/* another arch: its key calls are refused, the rest allowed */
	op(BPF_JMP | BPF_JA_, 0, 0, 0);	/* patched: to the compat block */
	op(BPF_LD | BPF_W | BPF_ABS, SECCOMP_DATA_NR, 0, 0);
	if (X32_BIT != 0) {
		x32 = n;
		op(BPF_JMP | BPF_JGE_ | BPF_K, X32_BIT, 0, 0);	/* patched */
	}
	add = n;
	op(BPF_JMP | BPF_JEQ | BPF_K, N_ADD_KEY, 0, 0);	/* patched */
	req = n;
	op(BPF_JMP | BPF_JEQ | BPF_K, N_REQUEST_KEY, 0, 0);	/* patched */
	kc = n;
	op(BPF_JMP | BPF_JEQ | BPF_K, N_KEYCTL, 0, L_ALLOW);	/* patched */
	/* keyctl(op, a2, a3, a4, a5) */
	ins[kc].jt = (uint8_t)(n - kc - 1);
	op(BPF_LD | BPF_W | BPF_ABS, SECCOMP_DATA_ARG(0), 0, 0);
	op(BPF_JMP | BPF_JEQ | BPF_K, KEYCTL_GET_PERSISTENT, L_DENY, L_NEXT);
	op(BPF_JMP | BPF_JEQ | BPF_K, KEYCTL_SET_REQKEY_KEYRING, L_NEXT, 3);
	op(BPF_LD | BPF_W | BPF_ABS, SECCOMP_DATA_ARG(1), 0, 0);
	op(BPF_JMP | BPF_JEQ | BPF_K, KEY_REQKEY_DEFL_USER_KEYRING, L_DENY,
	    L_NEXT);
	op(BPF_JMP | BPF_JEQ | BPF_K, KEY_REQKEY_DEFL_USER_SESSION_KEYRING,
	    L_DENY, L_ALLOW);
	for (i = 1; i <= 4; i++)
		check_arg(i, ids, nids);
	op(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	/* add_key(type, desc, payload, plen, keyring) */
	ins[add].jt = (uint8_t)(n - add - 1);
	check_arg(4, ids, nids);
	op(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	/* request_key(type, desc, callout, dest_keyring) */
	ins[req].jt = (uint8_t)(n - req - 1);
	check_arg(3, ids, nids);
	op(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	/* the other ABIs: from instruction 2, and x32's from x32 */
	ins[2].k = (uint32_t)(n - 3);
	if (x32 >= 0)
		ins[x32].jt = (uint8_t)(n - x32 - 1);
	op(BPF_LD | BPF_W | BPF_ABS, SECCOMP_DATA_NR, 0, 0);
	for (c = 0; c < sizeof compat_keys / sizeof compat_keys[0]; c++)
		op(BPF_JMP | BPF_JEQ | BPF_K, compat_keys[c], L_DENY, L_NEXT);
	op(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);	/* L_ALLOW */
	op(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES, 0, 0);	/* L_DENY */
	for (i = 0; i < n && n <= MAXINS; i++) {
		if ((ins[i].code & 0x07) != BPF_JMP || ins[i].code == (BPF_JMP |
		    BPF_JA_))
			continue;
		j = ins[i].jt;
		if (j == L_ALLOW || j == L_DENY)
			ins[i].jt = (uint8_t)(n - (j == L_DENY ? 1 : 2) - i - 1);
		j = ins[i].jf;
		if (j == L_ALLOW || j == L_DENY)
			ins[i].jf = (uint8_t)(n - (j == L_DENY ? 1 : 2) - i - 1);
	}
}

static uint32_t ids[6] = { (uint32_t)KEY_SPEC_USER_KEYRING,
    (uint32_t)KEY_SPEC_USER_SESSION_KEYRING };
static int nids = 2;

void
keys_lookup(const struct opts *o)
{
	long s;
	int i;

	for (i = 0; i < o->nkeyrings; i++)
		ids[nids++] = (uint32_t)o->keyrings[i];

	/* made if need be, so that none appears later with a new serial */
	if ((s = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID,
	    KEY_SPEC_USER_KEYRING, 1)) > 0)
		ids[nids++] = (uint32_t)s;
	if ((s = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID,
	    KEY_SPEC_USER_SESSION_KEYRING, 1)) > 0)
		ids[nids++] = (uint32_t)s;
}

int
keys_install(void)
{
	struct sock_fprog prog = { 0, ins };

	build(ids, nids);
	if (n > MAXINS) {
		errno = E2BIG;
		return -1;
	}
	prog.len = (unsigned short)n;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}
