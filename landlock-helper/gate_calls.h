/*
 * gate_calls.h: the socket calls the gate makes on the command's behalf
 * (gate_calls.c): connect and bind through a pinned target; the sends
 * are gate_send.h's. Decided with gate.h's policy.
 *
 * Nothing is let through on a guess: every call is made here, on our
 * duplicate of the command's descriptor (pidfd_getfd), with arguments
 * copied once from the command's memory, so the object checked is the
 * object used. The kernel never goes on with a trapped call itself
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE is not used).
 */
#ifndef ARCTURN_GATE_CALLS_H
#define ARCTURN_GATE_CALLS_H

#include <sys/socket.h>

#include "gate.h"

/*
 * Make the call of notification req on the command's behalf and fill
 * resp with its result or its errno.
 */
void	gate_handle(const struct seccomp_notif_ *req,
	    struct seccomp_notif_resp_ *resp);

/*
 * For gate_send.c. One trapped call: its thread, notification, raw
 * arguments, the thread's number in our /proc, our duplicate of its
 * socket and the pinned target (-1 until taken; gate_handle closes
 * them).
 */
struct gate_call {
	pid_t		 tid;
	uint64_t	 id;
	const uint64_t	*arg;
	int		 procpid;
	int		 sock;
	int		 pinfd;
};

/*
 * gate_call_sock takes our duplicate of descriptor fd into c->sock and
 * checks that the call is still pending. gate_call_addr copies the
 * address (addr, len64) of the call from the command: len64 beyond a
 * sockaddr_storage is EINVAL, as the kernel's sendto and connect say.
 * gate_unix_path is the path in a unix address (NUL-ended in place, as
 * the kernel ends it), or NULL (another family, abstract, unnamed).
 * gate_pin_addr pins the socket at path in the command's view, decides
 * (gate_decide) and rewrites *su to name the pin; *pin gets the pinned
 * descriptor (the caller closes it). Each returns 0, or -1 with errno
 * as the call would fail.
 */
int	gate_call_sock(struct gate_call *c, int fd);
int	gate_call_addr(struct gate_call *c, uint64_t addr, uint64_t len64,
	    struct sockaddr_storage *ss, socklen_t *len);
const char *gate_unix_path(struct sockaddr_storage *ss, socklen_t len);
int	gate_pin_addr(struct gate_call *c, const char *path,
	    struct sockaddr_storage *ss, socklen_t *len, int *pin);

#endif
