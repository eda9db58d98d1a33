/*
 * userns_why.c: why there is no user namespace, in words (userns_why.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fmt.h"
#include "userns_why.h"

#define MAX_NS	"user.max_user_namespaces"
#define CLONE	"kernel.unprivileged_userns_clone"
#define APPARMOR "kernel.apparmor_restrict_unprivileged_userns"

/* The sysctl's number, or -1 where it does not exist. */
static long
knob(const char *name)
{
	char path[96], buf[32], *p;
	ssize_t n;
	int fd;

	fmt_buf(path, sizeof path, "/proc/sys/%s", name);
	for (p = path + 10; *p != '\0'; p++)
		if (*p == '.')
			*p = '/';
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return fmt_long(buf, NULL);
}

const char *
userns_why(int e, char *buf, size_t len)
{
	int unpriv = geteuid() != 0;
	long max = knob(MAX_NS);

	if (max == 0)
		fmt_buf(buf, len, "user namespaces are turned off on this "
		    "machine (%s=0); turn them on with "
		    "`sysctl -w %s=16384`", MAX_NS, MAX_NS);
	else if (unpriv && knob(CLONE) == 0)
		fmt_buf(buf, len, "user namespaces are turned off for "
		    "unprivileged users on this machine (%s=0); turn them on "
		    "with `sysctl -w %s=1`", CLONE, CLONE);
	else if (unpriv && knob(APPARMOR) == 1)
		fmt_buf(buf, len, "AppArmor restricts unprivileged user "
		    "namespaces on this machine (%s=1); lift it with "
		    "`sysctl -w %s=0`, or give arcturn an AppArmor profile "
		    "with a `userns,` rule", APPARMOR, APPARMOR);
	else if (e == ENOSPC)
		fmt_buf(buf, len, "the limit on user namespaces is reached "
		    "(%s=%ld here, or the limit of an enclosing namespace); "
		    "raise it with `sysctl -w %s=N`", MAX_NS, max, MAX_NS);
	else if (e == EPERM || e == EACCES)
		fmt_buf(buf, len, "user namespaces are refused here (%s: a "
		    "container's seccomp profile, a security module or a "
		    "sysctl); allow unshare(CLONE_NEWUSER) to have them",
		    strerror(e));
	else
		fmt_buf(buf, len, "user namespaces are unusable here (%s)",
		    strerror(e));
	return buf;
}
