/*
 * userns_why.h: why this process cannot have a user namespace, in words
 * the user can act on. Distributions turn user namespaces off with a
 * sysctl, and unshare(2) then says EPERM, or ENOSPC ("No space left on
 * device") where user.max_user_namespaces is 0; AppArmor's restriction
 * lets the namespace be made and refuses its id maps (EPERM).
 *
 * userns_why reads the sysctls that can keep user namespaces away from
 * /proc/sys (those that exist) and writes into buf one clause naming the
 * cause and the way on (`sysctl -w ...`), without a final period; e is
 * the errno of the step that failed. Returns buf. Libc only: the helper
 * says it when its mount layer cannot be had, arcturn in sandbox status.
 */
#ifndef ARCTURN_USERNS_WHY_H
#define ARCTURN_USERNS_WHY_H

#include <stddef.h>

const char	*userns_why(int e, char *buf, size_t len);

#endif
