/*
 * gate_send.h: the sends the unix socket gate makes on the command's
 * behalf (gate_send.c): sendto with an address, sendmsg and sendmmsg, on
 * any kind of socket. (A sendto without an address goes to the connected
 * peer, which a gated connect chose, and never reaches the supervisor.)
 *
 * The socket is our duplicate, taken once; what it is decides what is
 * done, and the send is made on it, so that a descriptor swapped by
 * another thread of the command meanwhile changes nothing:
 *	- a unix datagram socket: a pathname address is pinned and decided
 *	  (gate.h), and the datagram goes to the pin;
 *	- a unix stream socket with an address: answered here, EISCONN when
 *	  connected, else EOPNOTSUPP, as the kernel would (nothing is sent);
 *	- a unix seqpacket socket: the address is dropped (the kernel ignores
 *	  it there) and the message goes to the connected peer;
 *	- any other socket (inet, netlink, ...): sent with the address as
 *	  copied; such a socket cannot name a unix path.
 * Payload (up to 8 MiB a datagram; a stream in 1 MiB pieces, each sent
 * before the next is read, as many as the socket takes), the address and
 * the ancillary data are copied once from the command's memory. The
 * descriptors of SCM_RIGHTS are passed as ours; SCM_CREDENTIALS must
 * name the calling process and its own real, effective or saved ids (the
 * kernel would refuse others to it), and is then sent naming us, as the
 * kernel requires of the sender. The socket's flags (O_NONBLOCK) are the
 * command's, for the file is shared; SIGPIPE goes to the calling thread
 * where the kernel would send it. A blocking send waits here, where only
 * a fatal signal ends the command's wait.
 */
#ifndef ARCTURN_GATE_SEND_H
#define ARCTURN_GATE_SEND_H

#include "gate_calls.h"

/*
 * Make the send of call c (nr: N_SENDTO, N_SENDMSG or N_SENDMMSG of
 * gate_filter.h): its result, or -1 with errno as the call would fail
 * (EACCES: refused by the gate).
 */
int64_t	gate_send(struct gate_call *c, int nr);

#endif
