/*
 * netoff.h: --network off where the command has no network namespace of
 * its own (helper-landlock; the mount layer's namespaces refused).
 * Landlock then refuses TCP bind and connect (ABI 4), and nothing else:
 * MPTCP (IPPROTO_MPTCP on a stream socket), UDP, ICMP ping sockets, SCTP
 * and raw sockets reach the network as before, and so do root's packet
 * sockets. So the command also gets this seccomp filter, on socket(2):
 *
 *	AF_INET, AF_INET6	only SOCK_STREAM with protocol 0 or
 *				IPPROTO_TCP (what Landlock covers);
 *	AF_PACKET		refused;
 *	anything else		allowed (AF_UNIX, AF_NETLINK: they do not
 *				leave the machine; the gate or Landlock
 *				decides about unix sockets).
 *
 * Refused with EACCES, as the kernel refuses a socket type not permitted.
 * io_uring is refused (EPERM: it makes sockets without socket(2)), and
 * so is the 32-bit socketcall(2), whose arguments a filter cannot read.
 * The filter reads only the arguments of socket(2) and the number of
 * other calls, so the kernel caches "allowed" for every other call.
 *
 * netoff_install: add the filter to the calling thread (no_new_privs
 * set), next to the gate's or the TIOCSTI filter; 0, or -1 with errno.
 */
#ifndef ARCTURN_NETOFF_H
#define ARCTURN_NETOFF_H

int	netoff_install(void);

#endif
