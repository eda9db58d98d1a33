/*
 * gate_calls.h: the socket calls the gate makes on the command's behalf
 * (gate_calls.c): connect and bind through a pinned target, datagrams
 * (sendto, sendmsg, sendmmsg) with their payload, address and SCM_RIGHTS
 * copied from the command. Decided with gate.h's policy.
 */
#ifndef ARCTURN_GATE_CALLS_H
#define ARCTURN_GATE_CALLS_H

#include "gate.h"

/*
 * Make the call of notification req on the command's behalf and fill
 * resp: its result, its errno, or "let the kernel go on"
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE_).
 */
void	gate_handle(const struct seccomp_notif_ *req,
	    struct seccomp_notif_resp_ *resp);

#endif
