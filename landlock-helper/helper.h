/*
 * helper.h: the map of the helper, and the order in which it confines a
 * command. helper.c is main: the options, then these steps; each step is
 * a module below it, and a module includes only the headers of modules
 * below itself:
 *
 *	helper.c	main: argv (opts.h), the steps below
 *	proc.c		the processes: waiter, init, the command (proc.h)
 *	mount.c		the mount layer and its namespaces (mount.h)
 *	landlock.c	the Landlock layers (landlock.h)
 *	caps.c		the capabilities root gives up (caps.h)
 *	gate_worker.c	the threads serving the gate (gate_worker.h)
 *	gate_calls.c	the calls made for the command (gate_calls.h)
 *	gate.c		the gate's supervisor and policy (gate.h)
 *	gate_filter.c	the command's seccomp filter (gate_filter.h)
 *	netoff.c	--network off without a namespace (netoff.h)
 *	keys.c		the user's keyrings kept from the command (keys.h)
 *	say.c		failure reporting: say, fail (say.h)
 *	userns_why.c	why there is no user namespace (arcturn links it)
 *	fmt.c		printf and strtol without stdio (fmt.h; arcturn too)
 *	opts.h		the policy as parsed from argv
 *	../uapi/	the kernel definitions arcturn and the helper share
 *
 * The audit order: what must happen before what, and why.
 *
 *  1. proc_start, before anything else: the signal state the command is
 *     to inherit, read before the helper changes it (nohup's ignored
 *     signals stay ignored), and gate_clock, the time before which a
 *     socket must be older to count as "there before the command";
 *     then keys_lookup, before any user namespace hides them: the
 *     serials of the user's keyrings, which the command must not name
 *     (under bwrap, -I, arcturn looked them up outside and passed -K).
 *  2. init (proc_init), while the helper still has every capability it
 *     was given: one clone with the user, mount, IPC and pid (and with
 *     -n network) namespace flags and CLONE_VM, so that nothing is copied
 *     (no fork of the helper, no mapper process); the helper, still in
 *     the parent namespaces, writes init's id maps (mount_map: root's
 *     CAP_SETUID there lets it map every id), says go, and from then on
 *     only waits (proc_wait) and confines nothing more.
 *  3. The mount layer (mount_layer), in init: every mount read-only but
 *     the writable roots, pins and protected paths on top, then a fresh
 *     /proc of the new pid namespace (proc_fresh). It must come before
 *     Landlock, which forbids mount changes once in force, and before
 *     no_new_privs and the capability drop, which would make the mounts
 *     impossible. A failure after the first mount change is hard (125):
 *     never a half-built layer. A dry run's overlay (-o) goes on last,
 *     once arcturn says the session is ready (-G, wait_go: no word, or
 *     the helper gone, and init ends with nothing run; the fd closed).
 *  4. caps_drop, before Landlock: root loses what could undo the mounts
 *     or step around them (CAP_SYS_ADMIN, CAP_MKNOD, ...). With the gate
 *     the supervisor keeps CAP_SYS_PTRACE to reach into the command.
 *  5. ll_confine: no_new_privs, then the write confinement (and TCP when
 *     the network is off without a namespace of its own). The supervisor
 *     (init, or the helper itself) is confined too: it makes calls on the
 *     command's behalf and must not write where the command may not.
 *  6. The command's own process (proc_supervise's spawn), in this order:
 *     caps_drop_ptrace (the command must not trace its supervisor); its
 *     own Landlock layer (ll_nest: it can neither trace nor signal the
 *     layer above); the seccomp filters last: keys.h's, netoff.h's (with
 *     --network off and no network namespace), then the gate's, which
 *     hands socket calls to a supervisor that must already be confined
 *     (installed earlier, a filter would catch the helper's own set-up
 *     calls); then exec. Without the gate the helper itself becomes the
 *     command (proc_exec): the filters, then exec.
 *
 * Nothing runs CMD before step 6, and any failure up to it exits 125:
 * the command never runs half confined.
 */
#ifndef ARCTURN_HELPER_H
#define ARCTURN_HELPER_H

#endif
