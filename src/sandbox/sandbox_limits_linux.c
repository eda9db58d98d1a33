/*
 * sandbox_limits_linux: what every confined command gets from the
 * process that starts its backend, whichever backend that is
 * (sandbox_linux.h): a session keyring of its own and no core dumps.
 */
#include <sys/resource.h>
#include <sys/syscall.h>

#include <errno.h>
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
