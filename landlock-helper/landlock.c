/*
 * landlock.c: the Landlock layers (landlock.h).
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "fmt.h"
#include "landlock.h"
#include "say.h"
#include "uapi/landlock_uapi.h"

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
/*
 * ioctl on a device (ABI 5) is handled too: a terminal's settings and
 * size (TCSETS, TIOCSWINSZ: SIGWINCH to its foreground) need no more than
 * an fd open for reading. Allowed on the writable roots only (the device
 * roots /dev/tty, /dev/ptmx, /dev/pts, ... and the grants); what the
 * command inherited open (its own terminal) keeps every right.
 */
#define IOCTL_DEV	LANDLOCK_ACCESS_FS_IOCTL_DEV

int
ll_abi(void)
{
	static int abi = -1;	/* the kernel is asked once */
	long v;

	if (abi < 0) {
		v = syscall(__NR_landlock_create_ruleset, NULL, 0,
		    LANDLOCK_CREATE_RULESET_VERSION);
		abi = v < 0 ? 0 : (int)v;
	}
	return abi;
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

	if ((fd = openat(AT_FDCWD, path, O_PATH | O_CLOEXEC)) < 0) {
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
		.handled_access_fs = WRITE_RIGHTS | IOCTL_DEV,
		.handled_access_net = o->nonet && !netns ?
		    LANDLOCK_ACCESS_NET_BIND_TCP |
		    LANDLOCK_ACCESS_NET_CONNECT_TCP : 0,
		.scoped = LANDLOCK_SCOPE_SIGNAL |
		    LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET,
	};
	uint64_t net = ra.handled_access_net, h, ru;
	struct stat st, tty;
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
		ra.handled_access_fs &= ~IOCTL_DEV;
		/* FALLTHROUGH */
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
	for (i = 0; i < o->nw; i++) {
		/*
		 * /dev/pts: with the mount layer's devpts (mount.h) only the
		 * ptys the command makes. Without one it holds every
		 * terminal of the machine, and Landlock cannot tell the
		 * command's new ptys from the others by path: the command
		 * needs both rights on its ptys (a pty's slave is set up by
		 * ioctl), so other terminals keep them (sandbox status says
		 * so). A device beneath any other writable root (a granted
		 * /dev/net or /dev/dri) takes ioctls as it does outside:
		 * the grant is the user's word for it.
		 */
		path_rule(rfd, o->w[i], (h & ~(uint64_t)DEVICE_RIGHTS) |
		    (listed(o->s, o->ns, o->w[i]) ? REACH_MARK : 0),
		    h & (FILE_RIGHTS | IOCTL_DEV));
	}
	/*
	 * /dev/console, where the mount layer bound the command's terminal
	 * (mount.h): a rule on it when it is that terminal, never on the
	 * system's console.
	 */
	if (stat("/dev/console", &st) == 0 && S_ISCHR(st.st_mode))
		for (fd = 0; fd <= 2; fd++)
			if (isatty(fd) && fstat(fd, &tty) == 0 &&
			    tty.st_rdev == st.st_rdev) {
				path_rule(rfd, "/dev/console", 0,
				    h & (FILE_RIGHTS | IOCTL_DEV));
				break;
			}
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
		fmt_buf(path, sizeof path, "/proc/self/fd/%d", fd);
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

		if ((fd = openat(AT_FDCWD, "/", O_PATH | O_CLOEXEC)) < 0)
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
