/*
 * landlock-helper: confine the writes of one command, then become it.
 *
 *	landlock-helper [-m | -M] [-n] [-o DIR -u UPPER -k WORK]
 *	    [-w PATH]... [-P PATH]... [-p PATH]... -- CMD [ARG]...
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
 *
 * arcturn embeds this program and starts it with the whole policy on argv
 * (computed by its roots module: canonical paths, at most HELPER_MAXPATHS
 * of each kind); it reads no config and no environment. The process chain
 * is exec-only: the helper sets up the confinement and execs CMD in place,
 * so the pid, signals and exit status are CMD's own.
 *
 * Order matters. The mount layer (mount.c) comes first; root then loses
 * CAP_SYS_ADMIN and the other capabilities that could undo it, and any
 * namespace the command nests gets locked copies of the mounts. Then
 * Landlock: only write-type accesses are handled, so reads and exec stay
 * as they were; every handled access is allowed beneath the writable
 * roots. Then no_new_privs, a seccomp filter refusing TIOCSTI, and exec.
 *
 * Exit status when CMD never starts: 125 setup failed, 126 CMD could not be
 * executed, 127 CMD not found.
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "helper.h"
#include "landlock_uapi.h"
#include "mount.h"
#include "tiocsti.h"

/* "exec --dry-run: " while setting up a dry run, so the user knows which */
static const char *prefix = "";

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
static const int dropcaps[] = {
	2,	/* CAP_DAC_READ_SEARCH */
	9,	/* CAP_LINUX_IMMUTABLE */
	12,	/* CAP_NET_ADMIN */
	16,	/* CAP_SYS_MODULE */
	17,	/* CAP_SYS_RAWIO */
	19,	/* CAP_SYS_PTRACE */
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

static void
drop_caps(void)
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
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
			fail("drop capability", NULL);
		data[c / 32].eff &= ~(1U << (c % 32));
		data[c / 32].perm &= ~(1U << (c % 32));
		data[c / 32].inh &= ~(1U << (c % 32));
	}
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
/* On a single file (a device): writing and truncating it. */
#define FILE_RIGHTS	(LANDLOCK_ACCESS_FS_WRITE_FILE | \
	LANDLOCK_ACCESS_FS_TRUNCATE)
/* Nowhere: a disk's device node would be a way out. */
#define DEVICE_RIGHTS	(LANDLOCK_ACCESS_FS_MAKE_CHAR | \
	LANDLOCK_ACCESS_FS_MAKE_BLOCK)

static void
landlock(const struct opts *o, int netns)
{
	struct landlock_ruleset_attr ra = {
		.handled_access_fs = WRITE_RIGHTS,
		.handled_access_net = o->nonet && !netns ?
		    LANDLOCK_ACCESS_NET_BIND_TCP |
		    LANDLOCK_ACCESS_NET_CONNECT_TCP : 0,
		.scoped = LANDLOCK_SCOPE_SIGNAL |
		    LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET,
	};
	struct landlock_path_beneath_attr pb;
	uint64_t net = ra.handled_access_net;
	struct stat st;
	int abi, rfd, fd, i;

	if ((abi = (int)syscall(__NR_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION)) < 1)
		fail("landlock", NULL);
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
	if (net != 0 && ra.handled_access_net == 0) {
		errno = ENOSYS;
		fail("network off needs a network namespace or Landlock ABI 4",
		    NULL);
	}
	rfd = (int)syscall(__NR_landlock_create_ruleset, &ra, sizeof ra, 0);
	if (rfd < 0)
		fail("landlock: create ruleset", NULL);
	for (i = 0; i < o->nw; i++) {
		if ((fd = open(o->w[i], O_PATH | O_CLOEXEC)) < 0) {
			if (errno == ENOENT)
				continue;
			fail("landlock: open", o->w[i]);
		}
		if (fstat(fd, &st) < 0)
			fail("landlock: stat", o->w[i]);
		pb.parent_fd = fd;
		pb.allowed_access = ra.handled_access_fs & (S_ISDIR(st.st_mode) ?
		    ~(uint64_t)DEVICE_RIGHTS : FILE_RIGHTS);
		if (syscall(__NR_landlock_add_rule, rfd,
		    LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
			fail("landlock: add rule", o->w[i]);
		close(fd);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		fail("no_new_privs", NULL);
	if (syscall(__NR_landlock_restrict_self, rfd, 0) < 0)
		fail("landlock: restrict", NULL);
	close(rfd);
}

static void
seccomp_tiocsti(void)
{
	struct sock_fprog prog = {
		.len = TIOCSTI_FILTER_LEN,
		.filter = (struct sock_filter *)tiocsti_filter,
	};

	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		fail("seccomp", NULL);
}

static int
parse(int argc, char **argv, struct opts *o)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			o->cmd = argv + i + 1;
			return *o->cmd != NULL ? 0 : -1;
		}
		if (strcmp(a, "-m") == 0 || strcmp(a, "-M") == 0)
			o->mount = a[1] == 'm' ? 1 : 2;
		else if (strcmp(a, "-n") == 0)
			o->nonet = 1;
		else if ((strcmp(a, "-o") == 0 || strcmp(a, "-u") == 0 ||
		    strcmp(a, "-k") == 0) && i + 1 < argc) {
			if (a[1] == 'o')
				o->ovl = argv[++i];
			else if (a[1] == 'u')
				o->upper = argv[++i];
			else
				o->work = argv[++i];
		} else if (strcmp(a, "-w") == 0 && i + 1 < argc &&
		    o->nw < HELPER_MAXPATHS)
			o->w[o->nw++] = argv[++i];
		else if (strcmp(a, "-P") == 0 && i + 1 < argc &&
		    o->npin < HELPER_MAXPATHS)
			o->pin[o->npin++] = argv[++i];
		else if (strcmp(a, "-p") == 0 && i + 1 < argc &&
		    o->np < HELPER_MAXPATHS)
			o->p[o->np++] = argv[++i];
		else
			return -1;
	}
	return -1;
}

int
main(int argc, char **argv)
{
	struct opts o = { 0 };
	int netns = 0, e;

	if (parse(argc, argv, &o) < 0)
		goto usage;
	if (o.ovl != NULL || o.upper != NULL || o.work != NULL) {
		if (o.ovl == NULL || o.upper == NULL || o.work == NULL)
			goto usage;
		o.mount = 2;	/* never run a dry run against the real tree */
		prefix = "exec --dry-run: not running the command: ";
	}
	if (o.mount)
		mount_layer(&o, &netns);
	prefix = "";
	drop_caps();
	landlock(&o, netns);
	seccomp_tiocsti();
	execvp(o.cmd[0], o.cmd);
	e = errno;
	say(o.cmd[0], NULL, e);
	return e == ENOENT || e == ENOTDIR ? 127 : 126;
usage:
	fprintf(stderr, "usage: landlock-helper [-m | -M] [-n] [-o DIR -u UPPER "
	    "-k WORK] [-w PATH]... [-P PATH]... [-p PATH]... -- CMD "
	    "[ARG]...\n");
	return 125;
}
