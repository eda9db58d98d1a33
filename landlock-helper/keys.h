/*
 * keys.h: the user's keyrings, kept from the command. The kernel keeps
 * one user keyring and one user session keyring per uid (and user
 * namespace); they are the user's whatever session the command runs in,
 * and the user keyring grants its uid every right even without
 * possession. So a command that names one (@u, @us, or its serial, which
 * /proc/keys lists) can read, add, update, link and revoke the user's
 * keys there (Kerberos caches, fscrypt and ecryptfs keys). A user
 * namespace does not help: @u is then the namespace's, but the real
 * keyrings stay reachable by serial, since the helper maps the user's
 * ids (root's: all of them) to themselves. The command's session keyring
 * is arcturn's business: it starts the helper in a new one.
 *
 * keys_lookup, at the start, before any namespace: the serials of the
 * user keyring and the user session keyring, made if missing (so that
 * none appears later with a serial the filter does not know), and those
 * given with -K.
 * keys_install adds a seccomp filter to the calling thread (no_new_privs
 * set) that refuses, with EACCES:
 *	add_key, request_key and keyctl naming KEY_SPEC_USER_KEYRING,
 *	KEY_SPEC_USER_SESSION_KEYRING or either serial in any argument that
 *	may hold a key (keyctl: the low words of all four; a pointer or
 *	length that happens to equal one is refused too);
 *	KEYCTL_SET_REQKEY_KEYRING to either keyring, and
 *	KEYCTL_GET_PERSISTENT (the user's persistent keyring);
 *	the key calls of 32-bit programs.
 * The command's own session, process and thread keyrings keep working.
 * Returns 0, or -1 with errno.
 *
 * Under bwrap (-I) the helper starts inside bwrap's namespaces, where
 * an unprivileged user's @u is the namespace's: arcturn looks the real
 * serials up outside and passes them with -K.
 */
#ifndef ARCTURN_KEYS_H
#define ARCTURN_KEYS_H

#include "opts.h"

void	keys_lookup(const struct opts *o);
int	keys_install(void);

#endif
