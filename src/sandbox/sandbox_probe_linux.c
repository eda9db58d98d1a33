/*
 * sandbox_probe_linux: `arcturn sandbox status` on Linux (sandbox.h):
 * what the kernel offers, which backend runs and why, and which of the
 * guarantees hold with it.
 */
#include <sys/utsname.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "landlock-helper/userns_why.h"
#include "sandbox/kernel_linux.h"
#include "sandbox/sandbox.h"
#include "sandbox/sandbox_linux.h"
#include "uapi/landlock_uapi.h"

static void
bwrap_version(const char *path, char *buf, size_t len)
{
	int pfd[2], st;
	ssize_t n;
	pid_t pid;

	snprintf(buf, len, "unknown");
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return;
	if ((pid = fork()) == 0) {
		dup2(pfd[1], 1);
		execl(path, "bwrap", "--version", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	if (pid > 0) {
		n = read(pfd[0], buf, len - 1);
		if (n > 0) {
			buf[n] = '\0';
			buf[strcspn(buf, "\n")] = '\0';
		}
		waitpid(pid, &st, 0);
	}
	close(pfd[0]);
}

/*
 * What a user namespace the command makes in the sandbox can do, for ch
 * (userns: the machine allows them; mount: the helper gets its mount
 * layer; proc: the layer's init mounts a /proc of its own). Landlock
 * refuses mount(2) to a confined process, and writes beneath /proc but
 * where the helper gives an unprivileged command a /proc of its own pid
 * namespace (the id maps are there); bwrap confines by mounts alone,
 * which a nested namespace gets locked, read-only copies of.
 */
static void
nested_fact(struct sandbox_report *r, const struct sandbox_choice *ch,
    int userns, int mount, int proc)
{
	const char *word, *why;

	if (!userns) {
		word = "none";
		why = "user namespaces are unusable here (user_namespaces)";
	} else if (ch->verdict != SANDBOX_CONFINE) {
		word = "mounts";
		why = "not confined: as outside arcturn";
	} else if (ch->backend == LB_BWRAP) {
		word = "mounts";
		why = "bwrap's mounts are locked read-only in a nested "
		    "namespace: unshare -Ur, bwrap (as root: bwrap "
		    "--unshare-user) and rootless podman work inside";
	} else if (ch->backend == LB_HELPER && mount && proc &&
	    geteuid() != 0) {
		word = "id_maps";
		why = "unshare -Ur works inside (id maps, no mounts): "
		    "Landlock refuses mount(2), so bwrap and podman do not";
	} else {
		word = "unmapped";
		why = ch->backend == LB_HELPER && mount && proc ?
		    "root's /proc stays read-only (its uid 0 is the real one), "
		    "so a nested user namespace gets no id maps (unshare -U "
		    "works, unshare -Ur does not); Landlock refuses mount(2)" :
		    "Landlock refuses writes to /proc without the mount "
		    "layer's pid namespace, so a nested user namespace gets "
		    "no id maps (unshare -U works, unshare -Ur does not), and "
		    "mount(2)";
	}
	sandbox_fact(r, "nested_namespaces", "%s: %s", word, why);
	sandbox_fact_as(r, SF_WORD, 0, word);
}

/*
 * The facts; *abi and *mount (the helper's mount layer can be had), and
 * in nowhy why it cannot.
 */
static void
facts(struct sandbox_report *r, const struct sandbox_choice *ch, int *abi,
    int *mount, char *nowhy, size_t nowhylen)
{
	struct utsname u;
	char buf[PATH_MAX], ver[128];
	int ue, me, idmap, fd, e = -1;

	if (uname(&u) == 0)
		sandbox_fact(r, "kernel", "%s %s %s", u.sysname, u.release,
		    u.machine);
	if ((*abi = linux_landlock_abi()) > 0) {
		sandbox_fact(r, "landlock_abi", "%d (arcturn knows 1 to %d)",
		    *abi, LANDLOCK_ABI_KNOWN);
		sandbox_fact_as(r, SF_INT, *abi, NULL);
	} else {
		sandbox_fact(r, "landlock_abi", "unavailable (%s)",
		    strerror(-*abi));
		sandbox_fact_as(r, SF_NULL, 0, NULL);
	}
	sandbox_fact_json(r, "landlock_abi_known", SF_INT, LANDLOCK_ABI_KNOWN,
	    NULL);
	ue = linux_userns(0);
	me = ue == 0 ? linux_userns(1) : ue;
	idmap = linux_idmap_writable();
	*mount = ue == 0 && me == 0 && idmap;
	nowhy[0] = '\0';
	if (*mount)
		sandbox_fact(r, "user_namespaces", "usable");
	else if (ue == 0 && !idmap) {
		snprintf(nowhy, nowhylen, "id maps are not writable here "
		    "(inside another sandbox?)");
		sandbox_fact(r, "user_namespaces", "unusable for the mount "
		    "layer: %s", nowhy);
	} else
		sandbox_fact(r, "user_namespaces", "unusable: %s",
		    userns_why(ue ? ue : me, nowhy, nowhylen));
	sandbox_fact_as(r, SF_WORD, 0, *mount ? "usable" : "unusable");
	if (*abi >= LANDLOCK_ABI_RESOLVE_UNIX)
		sandbox_fact(r, "unix_sockets", "Landlock RESOLVE_UNIX (ABI %d)",
		    LANDLOCK_ABI_RESOLVE_UNIX);
	else
		sandbox_fact(r, "unix_sockets", "seccomp user-notification gate "
		    "(Landlock %s has no RESOLVE_UNIX)", *abi > 0 ?
		    "of this kernel" : "missing");
	if (*mount) {
		e = linux_fresh_proc();
		if (e == 0)
			sandbox_fact(r, "proc", "a /proc of the sandbox's own "
			    "pid namespace");
		else
			sandbox_fact(r, "proc", "the outer /proc stays (mounting "
			    "one: %s): the command sees outer pids there",
			    strerror(e));
	} else
		sandbox_fact_json(r, "proc", SF_NULL, 0, NULL);
	nested_fact(r, ch, ue == 0, *mount, e == 0);
	if (linux_bwrap_path(buf, sizeof buf) == 0) {
		bwrap_version(buf, ver, sizeof ver);
		sandbox_fact(r, "bwrap", "%s (%s)", buf, ver);
	} else {
		sandbox_fact(r, "bwrap", "not found on PATH");
		sandbox_fact_as(r, SF_NULL, 0, NULL);
	}
	if (linux_memfd_noexec() == 2)
		sandbox_fact(r, "helper_start", "cache file (vm.memfd_noexec=2)");
	else if ((fd = helper_memfd()) >= 0) {
		close(fd);
		sandbox_fact(r, "helper_start", "from memory (memfd)");
	} else
		sandbox_fact(r, "helper_start", "cache file (memfd_create: %s)",
		    strerror(errno));
}

/*
 * How the helper decides about pathname unix sockets here: Landlock's
 * RESOLVE_UNIX from its ABI (abi), else the seccomp gate; under bwrap abi
 * is 0 (the helper is init there and always runs the gate).
 */
static void
unix_guarantee(struct sandbox_report *r, const struct policy *p, int abi)
{
	char outer[64];
	int resolve = abi >= LANDLOCK_ABI_RESOLVE_UNIX, gate = !resolve ||
	    p->unix_gate;

	if (gate && sandbox_nested(outer, sizeof outer)) {
		/* one seccomp listener per process: the outer gate decides */
		sandbox_guarantee(r, SG_UNIX_SOCKETS, 0, "inside another "
		    "arcturn sandbox (%s): its gate decides, by its rules (the "
		    "kernel allows one supervisor per process)", outer);
		return;
	}
	if (!gate)
		sandbox_guarantee(r, SG_UNIX_SOCKETS, 1, "Landlock ABI %d "
		    "RESOLVE_UNIX: only sockets beneath the workspace and "
		    "grants, those unixSockets or --allow-unix name, and the "
		    "command's own", abi);
	else
		sandbox_guarantee(r, SG_UNIX_SOCKETS, 1, "seccomp gate: a "
		    "supervisor makes every connect, bind and addressed send "
		    "for the command itself, on the socket it checked, to the "
		    "target it pinned (peers see the supervisor's pid; "
		    "io_uring and 32-bit socket calls refused; README)");
}

static void
bwrap_guarantees(struct sandbox_report *r, const struct policy *p)
{
	static const struct sandbox_claim c[] = {
		{ SG_WRITES, 1, "bwrap: / bound read-only, roots bound "
		    "read-write" },
		{ SG_METADATA, 1, "read-only bind mounts refuse chmod, chown, "
		    "utimes and xattrs" },
		{ SG_PROTECTED, 1, "bound read-only on top of the roots" },
		{ SG_TRUNCATION, 1, "read-only bind mounts" },
		{ SG_DEVICES, 1, "--dev gives a minimal /dev, with a devpts "
		    "of its own: other terminals are out of reach" },
		{ SG_SIGNALS, 1, "bwrap --unshare-pid: processes outside are "
		    "out of reach" },
		{ SG_TIOCSTI, 1, "seccomp filter of arcturn's init in the "
		    "sandbox" },
		{ SG_NETWORK_OFF, 1, "bwrap --unshare-net" },
		{ SG_IPC, 1, "bwrap --unshare-ipc, and a /dev/shm of its own" },
		{ SG_LIFETIME, 1, "bwrap --unshare-pid --die-with-parent: "
		    "arcturn's init ends every process of the command when "
		    "the command or arcturn ends" },
	};

	sandbox_claims(r, c, sizeof c / sizeof c[0]);
	unix_guarantee(r, p, 0);
	if (p->network)
		sandbox_guarantee(r, SG_ABSTRACT, 0, "with the network on, "
		    "bwrap shares the network namespace, and with it the "
		    "abstract sockets (X11's @/tmp/.X11-unix/X0, D-Bus) of "
		    "every process outside; --network off cuts them");
	else
		sandbox_guarantee(r, SG_ABSTRACT, 1, "bwrap --unshare-net: a "
		    "network namespace of its own");
}

/* git, missing protected paths, the state dir: a mount layer or bwrap. */
static const struct sandbox_claim mounted[] = {
	{ SG_GIT, 1, "read-only: hooks (and core.hooksPath), config, "
	    "config.worktree, commondir, gitdir files of the repository, its "
	    "worktrees and submodules; a submodule's config is put back "
	    "after" },
	{ SG_MISSING, 0, "a mount covers only what exists: a missing hooks "
	    "folder is made first, but a protected file created during the "
	    "run exists until the command ends, when arcturn moves it aside "
	    "(or exits 125 and refuses to run here until it is gone)" },
	{ SG_STATE, 1, "overlays/ and cache/ bound read-only" },
};

static void
helper_guarantees(struct sandbox_report *r, const struct policy *p, int abi,
    int mount)
{
	sandbox_guarantee(r, SG_WRITES, 1, "Landlock ABI %d%s", abi,
	    mount ? " and read-only mounts" : "");
	if (mount) {
		sandbox_guarantee(r, SG_METADATA, 1, "mount layer: everything "
		    "outside the roots is mounted read-only");
		sandbox_guarantee(r, SG_PROTECTED, 1, "bound read-only by the "
		    "mount layer");
	} else {
		sandbox_guarantee(r, SG_METADATA, 0, "Landlock does not cover "
		    "chmod, chown, utimes or xattrs, and the mount layer that "
		    "would needs user namespaces");
		sandbox_guarantee(r, SG_PROTECTED, 0, "Landlock cannot make a "
		    "subpath of a writable root read-only; needs the mount "
		    "layer");
	}
	sandbox_guarantee(r, SG_TRUNCATION, abi >= 3 || mount, "%s",
	    abi >= 3 ? "Landlock ABI 3 truncate right" : mount ?
	    "read-only mounts" : "needs Landlock ABI 3 or the mount layer");
	if (mount)
		sandbox_guarantee(r, SG_DEVICES, 1, "Landlock: only the listed "
		    "devices are writable%s; a devpts of its own: other "
		    "terminals are out of reach", abi >= 5 ? ", and only they "
		    "take ioctls (ABI 5)" : "");
	else
		sandbox_guarantee(r, SG_DEVICES, 0, "/dev/pts is listed: other "
		    "terminals (root: every user's) stay writable; a devpts of "
		    "its own needs user namespaces");
	sandbox_guarantee(r, SG_SIGNALS, mount || abi >= 6, "%s", mount ?
	    "pid namespace: processes outside are out of reach" : abi >= 6 ?
	    "Landlock ABI 6 signal scoping" : "needs Landlock ABI 6 or user "
	    "namespaces");
	sandbox_guarantee(r, SG_TIOCSTI, 1, "seccomp filter refuses TIOCSTI "
	    "and TIOCLINUX");
	sandbox_guarantee(r, SG_NETWORK_OFF, mount || abi >= 4, "%s", mount ?
	    "new network namespace" : abi >= 4 ? "Landlock ABI 4: TCP "
	    "bind and connect; a seccomp filter: no other inet socket (no "
	    "UDP, MPTCP, ICMP, SCTP or raw) and no packet socket" :
	    "needs user namespaces or Landlock ABI 4");
	unix_guarantee(r, p, abi);
	if (mount && !p->network)
		sandbox_guarantee(r, SG_ABSTRACT, 1, "a network namespace of "
		    "its own (--network off)%s", abi >= 6 ? ", and Landlock "
		    "ABI 6 scoping" : "");
	else
		sandbox_guarantee(r, SG_ABSTRACT, abi >= 6, "%s", abi >= 6 ?
		    "Landlock ABI 6 abstract socket scoping" : "needs Landlock "
		    "ABI 6 (or --network off with user namespaces): abstract "
		    "sockets of outside processes (X11, D-Bus) are reachable");
	if (mount) {
		sandbox_claims(r, mounted, sizeof mounted / sizeof mounted[0]);
		sandbox_guarantee(r, SG_IPC, 1, "new IPC namespace (SysV shared "
		    "memory, semaphores, message queues, POSIX message "
		    "queues) and a /dev/shm of its own");
		sandbox_guarantee(r, SG_LIFETIME, 1, "pid namespace: its init "
		    "ends every process of the command when the command or "
		    "arcturn ends, however arcturn ends");
	} else {
		sandbox_guarantee(r, SG_GIT, 0, "Landlock cannot make a subpath "
		    "of the workspace read-only: git's hooks and config stay "
		    "writable; needs the mount layer");
		sandbox_guarantee(r, SG_MISSING, 0, "nothing is protected "
		    "without the mount layer");
		sandbox_guarantee(r, SG_STATE, 0, "~/.arcturn is writable: a "
		    "command can change pending sessions (apply shows them "
		    "in the diff) and the helper cache (verified by SHA-256 "
		    "before each start)");
		sandbox_guarantee(r, SG_IPC, 0, "needs user namespaces: SysV "
		    "IPC, POSIX message queues and /dev/shm of this user's "
		    "processes (any, for root) are shared");
		sandbox_guarantee(r, SG_LIFETIME, 0, "no pid namespace without "
		    "user namespaces: processes the command leaves behind keep "
		    "running after arcturn ends (their socket calls then "
		    "fail)");
	}
}

void
sandbox_probe(const struct policy *p, const struct sandbox_choice *ch,
    struct sandbox_report *r)
{
	char buf[PATH_MAX], nowhy[320];
	const char *dwhy;
	int abi, mount, tiocsti, confine = ch->verdict == SANDBOX_CONFINE;

	sandbox_report_start(r, p, ch);
	facts(r, ch, &abi, &mount, nowhy, sizeof nowhy);
	mount = mount && confine && ch->backend == LB_HELPER;
	/* helper-landlock is the helper, reported as such */
	if (confine && ch->backend != LB_BWRAP)
		snprintf(r->backend, sizeof r->backend, "%s", mount ?
		    "helper+mount" : "helper");
	if (confine && ch->backend == LB_HELPER && !mount)
		snprintf(r->why, sizeof r->why, "%s; no mount layer, Landlock "
		    "only: %s", ch->why, nowhy);
	dwhy = helper_overlay_unavailable(p, 1, buf, sizeof buf);
	r->dry_run_exec = dwhy == NULL;
	snprintf(r->dry_run_why, sizeof r->dry_run_why, "%s", dwhy == NULL ?
	    "overlayfs on the workspace in the helper's mount layer" : dwhy);
	sandbox_guarantee(r, SG_LABELS, 1, "nothing is stamped: the "
	    "confinement ends with the command");
	if (!confine) {
		tiocsti = linux_legacy_tiocsti();
		if (tiocsti < 0)
			sandbox_guarantee(r, SG_TIOCSTI, 0,
			    "dev.tty.legacy_tiocsti=?");
		else
			sandbox_guarantee(r, SG_TIOCSTI, tiocsti == 0,
			    "dev.tty.legacy_tiocsti=%d", tiocsti);
	} else if (ch->backend == LB_BWRAP) {
		bwrap_guarantees(r, p);
		sandbox_claims(r, mounted, sizeof mounted / sizeof mounted[0]);
	}
	else
		helper_guarantees(r, p, abi, mount);
}
