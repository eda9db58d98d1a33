/*
 * landlock-helper: confine the writes of one command and run it.
 *
 *	landlock-helper [-m | -M] [-n] [-g] [-o DIR -u UPPER -k WORK]
 *	    [-L FD] [-w PATH]... [-P PATH]... [-p PATH]...
 *	    [-s PATH]... [-t PATH]... [-a PATH]... [-A] -- CMD [ARG]...
 *	landlock-helper -I [-c FD] [-g] [-s PATH]... [-t PATH]...
 *	    [-a PATH]... [-A] -- CMD [ARG]...
 *
 *	-w PATH	writable root (a directory, or a single file such as a device)
 *	-p PATH	protected path: stays read-only even inside a writable root
 *		(needs the mount layer; Landlock cannot carve out a subpath)
 *	-P PATH	a parent of a protected path, pinned so that it cannot be
 *		renamed away (outermost first; the mount layer)
 *	-m	add the mount layer when user namespaces allow it, else go on
 *		with Landlock alone
 *	-M	the mount layer is required: exit 125 when it cannot be had
 *	-n	no network (a fresh network namespace, else Landlock TCP rules)
 *	-o DIR -u UPPER -k WORK
 *		dry run: mount overlayfs on DIR (lower: DIR itself, upper and
 *		work from the session), so every change lands in UPPER; needs
 *		the mount layer (implies -M). The mount is volatile: UPPER
 *		is not synced at the end, and the WORK/work it leaves must be
 *		moved aside before the next mount (overlayfs refuses it).
 *	-L FD	an open file (the session lock) that stays open until the
 *		last process of the command is gone; the command never has it
 *	-s PATH	a root whose pathname unix sockets the command may connect to
 *		(the workspace, a grant); -t PATH: one whose sockets it may
 *		not, though it may write there (the temp and state dirs);
 *		-a PATH: a socket (or a folder of them) allowed by name; -A:
 *		every socket. A socket the command's own processes bound is
 *		always allowed. See gate.h.
 *	-g	the seccomp gate even where Landlock has RESOLVE_UNIX
 *	-I	run as pid 1 of a pid namespace someone else made (bubblewrap,
 *		which built the rest of the sandbox); -c FD: write the
 *		command's wait status there (an int) when it ends
 *
 * arcturn embeds this program and starts it with the whole policy on argv
 * (computed by its roots module: canonical paths, at most HELPER_MAXPATHS
 * of each kind); it reads no config and no environment.
 *
 * Order matters. The mount layer (mount.c) comes first, with new user,
 * mount, IPC and pid namespaces; then the processes (proc.c): the helper
 * stays as the waiter (arcturn's pid, its signals and exit status), its
 * child is init of the pid namespace (the reaper, and the supervisor of
 * the unix socket gate), and init's child becomes the command. Root loses
 * CAP_SYS_ADMIN and the other capabilities that could undo the layer, and
 * any namespace the command nests gets locked copies of the mounts. Then
 * Landlock: only write-type accesses are handled, so reads and exec stay
 * as they were; every handled access is allowed beneath the writable
 * roots. Then no_new_privs, the seccomp filter (TIOCSTI refused, the
 * socket calls handed to the supervisor) and exec.
 *
 * Exit status when CMD never starts: 125 setup failed, 126 CMD could not be
 * executed, 127 CMD not found. Otherwise CMD's: its exit code, or the
 * signal that killed it, raised again on the helper.
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helper.h"
#include "landlock_uapi.h"
#include "mount.h"
#include "proc.h"

/* "exec --dry-run: " while setting up a dry run, so the user knows which */
static const char *prefix = "";

const char *
say_prefix(void)
{
	return prefix;
}

void
say(const char *what, const char *path, int e)
{
	if (path != NULL)
		fprintf(stderr, "arcturn: %s%s: %s: %s\n", prefix, what, path,
		    strerror(e));
	else
		fprintf(stderr, "arcturn: %s%s: %s\n", prefix, what,
		    strerror(e));
}

_Noreturn void
fail(const char *what, const char *path)
{
	say(what, path, errno);
	_exit(125);
}

/*
 * Capabilities root must not keep: with them it could undo or step around
 * the confinement (CAP_SYS_ADMIN clears our read-only flags, CAP_MKNOD
 * makes a device node to a disk, CAP_DAC_READ_SEARCH opens files by
 * handle, CAP_SYS_MODULE loads kernel code, ...). Dropped from the
 * bounding set and from the effective, permitted and inheritable sets; an
 * unprivileged caller has none of them and is left alone.
 */
#define CAP_SYS_PTRACE_	19
static const int dropcaps[] = {
	2,	/* CAP_DAC_READ_SEARCH */
	9,	/* CAP_LINUX_IMMUTABLE */
	12,	/* CAP_NET_ADMIN */
	16,	/* CAP_SYS_MODULE */
	17,	/* CAP_SYS_RAWIO */
	CAP_SYS_PTRACE_,
	20,	/* CAP_SYS_PACCT */
	21,	/* CAP_SYS_ADMIN */
	22,	/* CAP_SYS_BOOT */
	25,	/* CAP_SYS_TIME */
	27,	/* CAP_MKNOD */
	30,	/* CAP_AUDIT_CONTROL */
	32,	/* CAP_MAC_OVERRIDE */
	33,	/* CAP_MAC_ADMIN */
	34,	/* CAP_SYSLOG */
	38,	/* CAP_PERFMON */
	39,	/* CAP_BPF */
	40,	/* CAP_CHECKPOINT_RESTORE */
};

void
drop_caps(int keep_ptrace)
{
	struct { uint32_t version; int pid; } hdr = { 0x20080522, 0 };
	struct { uint32_t eff, perm, inh; } data[2];
	size_t i;
	int c;

	if (syscall(SYS_capget, &hdr, data) < 0)
		fail("capget", NULL);
	if (data[0].perm == 0 && data[1].perm == 0)
		return;
	for (i = 0; i < sizeof dropcaps / sizeof dropcaps[0]; i++) {
		c = dropcaps[i];
		if (c == CAP_SYS_PTRACE_ && keep_ptrace)
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
			fail("drop capability", NULL);
		data[c / 32].eff &= ~(1U << (c % 32));
		data[c / 32].perm &= ~(1U << (c % 32));
		data[c / 32].inh &= ~(1U << (c % 32));
	}
	if (syscall(SYS_capset, &hdr, data) < 0)
		fail("capset", NULL);
}

void
drop_ptrace(void)
{
	struct { uint32_t version; int pid; } hdr = { 0x20080522, 0 };
	struct { uint32_t eff, perm, inh; } data[2];

	if (syscall(SYS_capget, &hdr, data) < 0)
		fail("capget", NULL);
	if (!(data[0].perm & (1U << CAP_SYS_PTRACE_)) &&
	    !(data[0].eff & (1U << CAP_SYS_PTRACE_)))
		return;
	if (prctl(PR_CAPBSET_DROP, CAP_SYS_PTRACE_, 0, 0, 0) < 0 &&
	    errno != EINVAL)
		fail("drop capability", NULL);
	data[0].eff &= ~(1U << CAP_SYS_PTRACE_);
	data[0].perm &= ~(1U << CAP_SYS_PTRACE_);
	data[0].inh &= ~(1U << CAP_SYS_PTRACE_);
	if (syscall(SYS_capset, &hdr, data) < 0)
		fail("capset", NULL);
}

/* Every write-type right; reads and exec are never handled. */
#define WRITE_RIGHTS	(LANDLOCK_ACCESS_FS_WRITE_FILE | \
	LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE | \
	LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | \
	LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | \
	LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | \
	LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER | \
	LANDLOCK_ACCESS_FS_TRUNCATE)
/* On a single file (a device, the command's stdout): write, truncate. */
#define FILE_RIGHTS	(LANDLOCK_ACCESS_FS_WRITE_FILE | \
	LANDLOCK_ACCESS_FS_TRUNCATE)
/*
 * Nowhere, but for one exception: a disk's device node would be a way
 * out. Nobody here can make a device node (root lost CAP_MKNOD), so
 * MAKE_BLOCK is granted on the roots whose sockets the command may reach
 * (-s) and on no other: Landlock then refuses to move a directory from
 * any other root into one of those (it would gain the right), so that a
 * folder of sockets in the temp dir (tmux's /tmp/tmux-UID) cannot be
 * moved into reach. A socket file moved alone gets a new ctime, which
 * the gate checks (gate.c).
 */
#define DEVICE_RIGHTS	(LANDLOCK_ACCESS_FS_MAKE_CHAR | \
	LANDLOCK_ACCESS_FS_MAKE_BLOCK)
#define REACH_MARK	LANDLOCK_ACCESS_FS_MAKE_BLOCK

int
ll_abi(void)
{
	long v = syscall(__NR_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);

	return v < 0 ? 0 : (int)v;
}

int
ll_resolve_unix(void)
{
	struct landlock_ruleset_attr ra = {
		.handled_access_fs = LANDLOCK_ACCESS_FS_RESOLVE_UNIX,
	};
	int fd;

	if (ll_abi() < LANDLOCK_ABI_RESOLVE_UNIX)
		return 0;
	fd = (int)syscall(__NR_landlock_create_ruleset, &ra, sizeof ra, 0);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static int
listed(const char *const *l, int n, const char *path)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(l[i], path) == 0)
			return 1;
	return 0;
}

static void
add_rule(int rfd, int fd, uint64_t access, const char *what)
{
	struct landlock_path_beneath_attr pb;

	pb.parent_fd = fd;
	pb.allowed_access = access;
	if (access != 0 && syscall(__NR_landlock_add_rule, rfd,
	    LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
		fail("landlock: add rule", what);
}

/* A rule on path (skipped when it does not exist). */
static void
path_rule(int rfd, const char *path, uint64_t dir, uint64_t file)
{
	struct stat st;
	int fd;

	if ((fd = open(path, O_PATH | O_CLOEXEC)) < 0) {
		if (errno == ENOENT)
			return;
		fail("landlock: open", path);
	}
	if (fstat(fd, &st) < 0)
		fail("landlock: stat", path);
	add_rule(rfd, fd, S_ISDIR(st.st_mode) ? dir : file, path);
	close(fd);
}

void
ll_confine(const struct opts *o, int netns, int resolve_unix, int proc)
{
	struct landlock_ruleset_attr ra = {
		.handled_access_fs = WRITE_RIGHTS,
		.handled_access_net = o->nonet && !netns ?
		    LANDLOCK_ACCESS_NET_BIND_TCP |
		    LANDLOCK_ACCESS_NET_CONNECT_TCP : 0,
		.scoped = LANDLOCK_SCOPE_SIGNAL |
		    LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET,
	};
	uint64_t net = ra.handled_access_net, h, ru;
	struct stat st;
	int abi, rfd, fd, i, fl;
	char path[32];

	if ((abi = ll_abi()) < 1) {
		errno = ENOSYS;
		fail("landlock", NULL);
	}
	/*
	 * Start from every right this helper knows and remove what the
	 * kernel lacks. What is removed is zero, so the kernel takes the
	 * whole struct (sizeof ra) at any ABI.
	 */
	switch (abi) {
	case 1:
		ra.handled_access_fs &= ~LANDLOCK_ACCESS_FS_REFER;
		/* FALLTHROUGH */
	case 2:
		ra.handled_access_fs &= ~LANDLOCK_ACCESS_FS_TRUNCATE;
		/* FALLTHROUGH */
	case 3:
		ra.handled_access_net = 0;
		/* FALLTHROUGH */
	case 4:
	case 5:
		ra.scoped = 0;
		/* FALLTHROUGH */
	default:
		break;
	}
	if (resolve_unix)
		ra.handled_access_fs |= LANDLOCK_ACCESS_FS_RESOLVE_UNIX;
	if (net != 0 && ra.handled_access_net == 0) {
		errno = ENOSYS;
		fail("network off needs a network namespace or Landlock ABI 4",
		    NULL);
	}
	h = ra.handled_access_fs;
	ru = h & LANDLOCK_ACCESS_FS_RESOLVE_UNIX;
	rfd = (int)syscall(__NR_landlock_create_ruleset, &ra, sizeof ra, 0);
	if (rfd < 0)
		fail("landlock: create ruleset", NULL);
	for (i = 0; i < o->nw; i++)
		path_rule(rfd, o->w[i], (h & ~(uint64_t)DEVICE_RIGHTS) |
		    (listed(o->s, o->ns, o->w[i]) ? REACH_MARK : 0),
		    h & FILE_RIGHTS);
	/* a /proc of our own pid namespace (proc.c's fresh_proc) */
	if (proc)
		path_rule(rfd, "/proc", h & FILE_RIGHTS, h & FILE_RIGHTS);
	/* where Landlock decides about sockets: what may be reached */
	if (ru) {
		for (i = 0; i < o->ns; i++)
			path_rule(rfd, o->s[i], ru, ru);
		for (i = 0; i < o->na; i++)
			path_rule(rfd, o->a[i], ru, ru);
		if (o->all)
			path_rule(rfd, "/", ru, ru);
	}
	/*
	 * The command's stdout and stderr, when they are files it was given
	 * open for writing: that file alone, with the rights the descriptor
	 * already has, so that `echo x > /dev/stderr` works wherever the
	 * file is. A descriptor open read-only gets nothing.
	 */
	for (fd = 1; fd <= 2; fd++) {
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
		    (fl = fcntl(fd, F_GETFL)) < 0 || (fl & O_ACCMODE) == O_RDONLY)
			continue;
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		add_rule(rfd, fd, h & FILE_RIGHTS, path);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		fail("no_new_privs", NULL);
	if (syscall(__NR_landlock_restrict_self, rfd, 0) < 0)
		fail("landlock: restrict", NULL);
	close(rfd);
}

int
ll_nest(void)
{
	struct landlock_ruleset_attr ra = {
		.handled_access_fs = LANDLOCK_ACCESS_FS_REFER,
		.scoped = LANDLOCK_SCOPE_SIGNAL |
		    LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET,
	};
	int abi = ll_abi(), rfd, fd, rc = -1;

	/*
	 * A layer of its own, so that Landlock keeps the command from
	 * tracing (every ABI) and signalling (ABI 6) the processes of the
	 * layer above. It restricts nothing else: every layer refuses to
	 * move a file to another directory unless a rule of its own grants
	 * REFER, so this one grants it everywhere. ABI 1 has no REFER and
	 * always refuses such moves anyway; there MAKE_BLOCK is handled
	 * instead (no one here can make a block device).
	 */
	if (abi < 1)
		return -1;
	if (abi < 2)
		ra.handled_access_fs = LANDLOCK_ACCESS_FS_MAKE_BLOCK;
	if (abi < 6)
		ra.scoped = 0;
	rfd = (int)syscall(__NR_landlock_create_ruleset, &ra, sizeof ra, 0);
	if (rfd < 0)
		return -1;
	if (abi >= 2) {
		struct landlock_path_beneath_attr pb = {
			.allowed_access = LANDLOCK_ACCESS_FS_REFER,
		};

		if ((fd = open("/", O_PATH | O_CLOEXEC)) < 0)
			goto out;
		pb.parent_fd = fd;
		if (syscall(__NR_landlock_add_rule, rfd,
		    LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0) {
			close(fd);
			goto out;
		}
		close(fd);
	}
	rc = (int)syscall(__NR_landlock_restrict_self, rfd, 0);
out:
	close(rfd);
	return rc < 0 ? -1 : 0;
}

static int
number(const char *s, int *v)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || n < 0 || n > 1 << 20)
		return -1;
	*v = (int)n;
	return 0;
}

/* -X PATH into list l, at most HELPER_MAXPATHS. */
static int
push(const char **l, int *n, const char *v)
{
	if (*n >= HELPER_MAXPATHS)
		return -1;
	l[(*n)++] = v;
	return 0;
}

static int
parse(int argc, char **argv, struct opts *o)
{
	int i;

	o->lockfd = o->statusfd = -1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--") == 0) {
			o->cmd = argv + i + 1;
			return *o->cmd != NULL ? 0 : -1;
		}
		if (a[0] != '-' || a[1] == '\0' || a[2] != '\0')
			return -1;
		switch (a[1]) {
		case 'm':
		case 'M':
			o->mount = a[1] == 'm' ? 1 : 2;
			continue;
		case 'n':
			o->nonet = 1;
			continue;
		case 'g':
			o->gate = 1;
			continue;
		case 'A':
			o->all = 1;
			continue;
		case 'I':
			o->init = 1;
			continue;
		}
		if (v == NULL)
			return -1;
		i++;
		switch (a[1]) {
		case 'o':
			o->ovl = v;
			break;
		case 'u':
			o->upper = v;
			break;
		case 'k':
			o->work = v;
			break;
		case 'L':
			if (number(v, &o->lockfd) < 0)
				return -1;
			break;
		case 'c':
			if (number(v, &o->statusfd) < 0)
				return -1;
			break;
		case 'w':
			if (push(o->w, &o->nw, v) < 0)
				return -1;
			break;
		case 'P':
			if (push(o->pin, &o->npin, v) < 0)
				return -1;
			break;
		case 'p':
			if (push(o->p, &o->np, v) < 0)
				return -1;
			break;
		case 's':
			if (push(o->s, &o->ns, v) < 0)
				return -1;
			break;
		case 't':
			if (push(o->t, &o->nt, v) < 0)
				return -1;
			break;
		case 'a':
			if (push(o->a, &o->na, v) < 0)
				return -1;
			break;
		default:
			return -1;
		}
	}
	return -1;
}

int
main(int argc, char **argv)
{
	struct opts o = { 0 };
	int netns = 0, mounted = 0;

	if (parse(argc, argv, &o) < 0)
		goto usage;
	if (o.ovl != NULL || o.upper != NULL || o.work != NULL) {
		if (o.ovl == NULL || o.upper == NULL || o.work == NULL ||
		    o.init)
			goto usage;
		o.mount = 2;	/* never run a dry run against the real tree */
		prefix = "exec --dry-run: not running the command: ";
	}
	if (o.init && o.mount)
		goto usage;
	proc_start(&o);
	if (o.mount)
		mounted = mount_layer(&o, &netns);
	prefix = "";
	return proc_run(&o, mounted, netns);
usage:
	fprintf(stderr, "usage: landlock-helper [-m | -M | -I] [-n] [-g] "
	    "[-o DIR -u UPPER -k WORK] [-L FD] [-c FD] [-w PATH]... "
	    "[-P PATH]... [-p PATH]... [-s PATH]... [-t PATH]... "
	    "[-a PATH]... [-A] -- CMD [ARG]...\n");
	return 125;
}
