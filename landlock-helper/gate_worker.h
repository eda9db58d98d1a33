/*
 * gate_worker.h: the threads that serve the gate's listener
 * (gate_worker.c). Each blocks in NOTIF_RECV, hands the notification to
 * gate_handle (gate_calls.h) and answers; one more is started whenever
 * none is left waiting (at most 64), so that a call that blocks (a
 * connect to a busy listener) holds up no other. The kernel wakes a
 * worker on the caller's CPU while calls come one at a time (see
 * gate_worker.c for why only then).
 *
 * gate_busy is 0 while no worker runs: then the caller polls listener
 * and calls gate_spawn(listener) when it is readable (always the same
 * listener). The workers end when the listener is gone.
 */
#ifndef ARCTURN_GATE_WORKER_H
#define ARCTURN_GATE_WORKER_H

int	gate_busy(void);
void	gate_spawn(int listener);

#endif
