/*
 * landlock-helper: confine the writes of one command, then become it.
 *
 *	landlock-helper [-m | -M] [-n] [-o DIR -u UPPER -k WORK]
 *	    [-w PATH]... [-p PATH]... -- CMD [ARG]...
 *
 *	-w PATH	writable root (a directory, or a single file such as a device)
 *	-p PATH	protected path: stays read-only even inside a writable root
 *		(needs the mount layer; Landlock cannot carve out a subpath)
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
 * arcturn embeds this program and starts it with the whole policy on argv;
 * it reads no config and no environment. The process chain is exec-only:
 * the helper sets up the confinement and execs CMD in place, so the pid,
 * signals and exit status are CMD's own.
 *
 * Order matters. The mount layer (new user + mount namespace; every mount
 * read-only; writable roots re-attached from clones taken before; protected
 * paths bound read-only on top) is built first; root then loses
 * CAP_SYS_ADMIN so it cannot clear those flags, and any namespace the
 * command nests gets locked copies of the mounts. Then Landlock: only write-type
 * accesses are handled, so reads and exec stay as they were; every handled
 * access is allowed beneath the writable roots. Then no_new_privs, a
 * seccomp filter refusing TIOCSTI, and exec.
 *
 * Exit status when CMD never starts: 125 setup failed, 126 CMD could not be
 * executed, 127 CMD not found.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "landlock_uapi.h"
#include "tiocsti.h"

#define MAXPATHS	64

struct opts {
	const char	*w[MAXPATHS];
	int		 nw;
	const char	*p[MAXPATHS];
	int		 np;
	int		 mount;		/* 0 off, 1 try, 2 required */
	int		 nonet;
	const char	*ovl;		/* -o: overlay on this path ... */
	const char	*upper;		/* -u: ... with this upper dir */
	const char	*work;		/* -k: ... and this work dir */
	char		**cmd;
};

/* "exec --dry-run: " while setting up a dry run, so the user knows which */
static const char *prefix = "";

static void
say(const char *what, const char *path, int e)
{
	if (path != NULL)
		fprintf(stderr, "arcturn: %s%s: %s: %s\n", prefix, what, path,
		    strerror(e));
	else
		fprintf(stderr, "arcturn: %s%s: %s\n", prefix, what,
		    strerror(e));
}

static _Noreturn void
fail(const char *what, const char *path)
{
	say(what, path, errno);
	_exit(125);
}

static int
writefile(const char *path, const char *s)
{
	int fd, saved;
	ssize_t n;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	n = write(fd, s, strlen(s));
	saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/*
 * Map our ids to themselves in the user namespace we just entered. An
 * unprivileged user maps its own ids, which needs no privilege. Root maps
 * every id, so that files of other users stay writable in the workspace;
 * that needs CAP_SETUID over the parent namespace, which the process gave
 * up by entering the new one, so a child left behind in the parent
 * namespace writes the maps (see mapper()).
 */
static int
map_own_ids(uid_t uid, gid_t gid)
{
	char buf[64];

	if (writefile("/proc/self/setgroups", "deny") < 0 && errno != ENOENT)
		return -1;
	snprintf(buf, sizeof buf, "%u %u 1", (unsigned)uid, (unsigned)uid);
	if (writefile("/proc/self/uid_map", buf) < 0)
		return -1;
	snprintf(buf, sizeof buf, "%u %u 1", (unsigned)gid, (unsigned)gid);
	return writefile("/proc/self/gid_map", buf);
}

/*
 * Fork the child that will write root's identity maps once we have
 * unshared; it waits for one byte on the pipe (EOF: give up). Returns its
 * pid, or -1.
 */
static pid_t
mapper(int *wfd)
{
	char path[64], c;
	int p[2], ok;
	pid_t pid, parent = getpid();

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		snprintf(path, sizeof path, "/proc/%d/uid_map", (int)parent);
		ok = writefile(path, "0 0 4294967295") == 0;
		snprintf(path, sizeof path, "/proc/%d/gid_map", (int)parent);
		ok = ok && writefile(path, "0 0 4294967295") == 0;
		_exit(ok ? 0 : 1);
	}
	close(p[0]);
	*wfd = p[1];
	return pid;
}

static int
mapper_done(pid_t pid, int wfd, int go)
{
	int st;

	if (go && write(wfd, "x", 1) != 1)
		go = 0;
	close(wfd);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return go && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
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

static int
open_tree(const char *path, unsigned flags)
{
	return (int)syscall(__NR_open_tree, AT_FDCWD, path, flags);
}

static int
move_mount(int fd, const char *to)
{
	return (int)syscall(__NR_move_mount, fd, "", AT_FDCWD, to,
	    MOVE_MOUNT_F_EMPTY_PATH);
}

static int
set_rdonly(int dfd, const char *path, unsigned flags)
{
	struct mount_attr a = { .attr_set = MOUNT_ATTR_RDONLY };

	return (int)syscall(__NR_mount_setattr, dfd, path, flags, &a, sizeof a);
}

static void
loopback_up(void)
{
	struct ifreq ifr;
	int s;

	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return;
	memset(&ifr, 0, sizeof ifr);
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		(void)ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
}

static int
fsconfig(int fd, unsigned cmd, const char *key, const char *val)
{
	return (int)syscall(__NR_fsconfig, fd, cmd, key, val, 0);
}

/*
 * overlayfs on o->ovl with the session's upper and work dirs. userxattr:
 * we are in a user namespace, so overlayfs keeps its whiteouts as 0/0
 * character devices and its opaque marks as user.overlay.* xattrs.
 * volatile: no sync of the upper file system at unmount (a whole-disk
 * sync for every command, even one that wrote nothing); the caller makes
 * what landed in UPPER durable itself, and moves WORK/work (which a
 * volatile mount marks and overlayfs then refuses) aside before each run.
 * A kernel without the option just mounts without it.
 */
static void
overlay(const struct opts *o)
{
	int fs, mnt;

	if ((fs = (int)syscall(__NR_fsopen, "overlay", FSOPEN_CLOEXEC)) < 0)
		fail("overlayfs", NULL);
	if (fsconfig(fs, FSCONFIG_SET_STRING, "lowerdir+", o->ovl) < 0)
		fail("overlayfs lower", o->ovl);
	if (fsconfig(fs, FSCONFIG_SET_STRING, "upperdir", o->upper) < 0)
		fail("overlayfs upper", o->upper);
	if (fsconfig(fs, FSCONFIG_SET_STRING, "workdir", o->work) < 0)
		fail("overlayfs work", o->work);
	if (fsconfig(fs, FSCONFIG_SET_FLAG, "userxattr", NULL) < 0)
		fail("overlayfs userxattr", NULL);
	(void)fsconfig(fs, FSCONFIG_SET_FLAG, "volatile", NULL);
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL) < 0)
		fail("overlayfs mount", o->ovl);
	if ((mnt = (int)syscall(__NR_fsmount, fs, FSMOUNT_CLOEXEC, 0)) < 0)
		fail("overlayfs fsmount", o->ovl);
	if (move_mount(mnt, o->ovl) < 0)
		fail("overlayfs attach", o->ovl);
	close(mnt);
	close(fs);
}

/* The writable root that holds path, or NULL. */
static const char *
root_of(const struct opts *o, const char *path)
{
	const char *best = NULL;
	size_t n;
	int i;

	for (i = 0; i < o->nw; i++) {
		n = strlen(o->w[i]);
		if (strncmp(path, o->w[i], n) == 0 && path[n] == '/' &&
		    (best == NULL || n > strlen(best)))
			best = o->w[i];
	}
	return best;
}

/*
 * A protected path is only as safe as its parents: `mv .git .old; mkdir
 * -p .git/hooks` would get around a read-only .git/hooks. Each directory
 * between the writable root and the protected path becomes a mount point
 * of itself (still writable), and a mount point cannot be renamed or
 * removed.
 */
static void
pin_parents(const struct opts *o, int upto)
{
	char buf[PATH_MAX], *c;
	const char *p = o->p[upto], *root = root_of(o, p);
	size_t n;
	int fd, i, done;

	if (root == NULL || strlen(p) >= sizeof buf)
		return;
	strcpy(buf, p);
	/*
	 * Outermost first, so that each clone holds no pin made before it
	 * (innermost first would copy every deeper pin again at each level);
	 * a parent an earlier protected path shares is pinned once.
	 */
	for (c = buf + strlen(root) + 1; (c = strchr(c, '/')) != NULL; c++) {
		n = (size_t)(c - buf);
		for (done = 0, i = 0; i < upto && !done; i++)
			done = strncmp(o->p[i], buf, n) == 0 && o->p[i][n] == '/';
		if (done)
			continue;
		*c = '\0';
		fd = open_tree(buf, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
		    AT_RECURSIVE);
		if (fd < 0 || move_mount(fd, buf) < 0)
			fail("mount layer: pin", buf);
		close(fd);
		*c = '/';
	}
}

/*
 * Returns 1 with the layer in place, 0 when user namespaces are not to be
 * had (nothing changed: Landlock alone follows), and exits 125 on a failure
 * half way.
 */
static int
mount_layer(const struct opts *o, int *netns)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	int fds[MAXPATHS], i, fd, wfd = -1, flags = CLONE_NEWUSER | CLONE_NEWNS;
	struct stat st;
	pid_t mpid = -1;
	char cwd[PATH_MAX];

	if (getcwd(cwd, sizeof cwd) == NULL)
		cwd[0] = '\0';
	if (o->nonet)
		flags |= CLONE_NEWNET;
	/*
	 * Already confined (arcturn nested in itself): the outer Landlock
	 * domain refuses id maps, so a new namespace would leave us unmapped.
	 * Landlock alone stacks on the outer layers instead.
	 */
	if ((fd = open("/proc/self/uid_map", O_WRONLY | O_CLOEXEC)) < 0) {
		if (o->mount == 2)
			fail("mount layer: /proc/self/uid_map", NULL);
		return 0;
	}
	close(fd);
	if (uid == 0 && (mpid = mapper(&wfd)) < 0)
		fail("mount layer: fork", NULL);
	if (unshare(flags) < 0) {
		if (uid == 0)
			(void)mapper_done(mpid, wfd, 0);
		if (o->mount == 2)
			fail("mount layer: unshare", NULL);
		if (o->np > 0)
			fprintf(stderr, "arcturn: note: no user namespace (%s): "
			    "Landlock only, protected paths stay writable "
			    "(see arcturn sandbox status)\n", strerror(errno));
		return 0;
	}
	if (uid == 0 ? mapper_done(mpid, wfd, 1) : map_own_ids(uid, gid))
		fail("mount layer: id map", NULL);
	*netns = o->nonet;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		/*
		 * Refused when we already run confined (Landlock forbids
		 * mount changes): nothing was changed, Landlock stacks.
		 */
		if (o->mount == 2)
			fail("mount layer: make / private", NULL);
		return 0;
	}
	for (i = 0; i < o->nw; i++) {
		/*
		 * Device nodes stay writable on a read-only mount (Landlock
		 * decides which): re-attaching /dev/ptmx alone would cut it
		 * off from its devpts.
		 */
		fds[i] = -1;
		if (stat(o->w[i], &st) == 0 && (S_ISCHR(st.st_mode) ||
		    S_ISBLK(st.st_mode)))
			continue;
		fds[i] = open_tree(o->w[i], OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
		    AT_RECURSIVE);
		if (fds[i] < 0)
			fail("mount layer: clone", o->w[i]);
	}
	if (set_rdonly(AT_FDCWD, "/", AT_RECURSIVE) < 0)
		fail("mount layer: read-only /", NULL);
	for (i = 0; i < o->nw; i++) {
		if (fds[i] < 0)
			continue;
		if (move_mount(fds[i], o->w[i]) < 0)
			fail("mount layer: attach", o->w[i]);
		close(fds[i]);
	}
	if (o->ovl != NULL)
		overlay(o);
	for (i = 0; i < o->np; i++)
		pin_parents(o, i);
	for (i = 0; i < o->np; i++) {
		fd = open_tree(o->p[i], OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
		    AT_RECURSIVE);
		if (fd < 0)
			fail("mount layer: clone", o->p[i]);
		if (set_rdonly(fd, "", AT_EMPTY_PATH | AT_RECURSIVE) < 0)
			fail("mount layer: protect", o->p[i]);
		if (move_mount(fd, o->p[i]) < 0)
			fail("mount layer: protect", o->p[i]);
		close(fd);
	}
	if (o->nonet)
		loopback_up();
	/* the old cwd is on the read-only tree beneath the new mounts */
	if (cwd[0] != '\0' && chdir(cwd) < 0)
		fail("chdir", cwd);
	return 1;
}

static int
landlock_abi(void)
{
	long v = syscall(__NR_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);

	return v < 0 ? -1 : (int)v;
}

static void
landlock(const struct opts *o, int netns)
{
	struct landlock_ruleset_attr ra = { 0 };
	struct landlock_path_beneath_attr pb;
	struct stat st;
	size_t rasz;
	uint64_t file_rights;
	int abi, rfd, fd, i;

	if ((abi = landlock_abi()) < 1)
		fail("landlock", NULL);
	ra.handled_access_fs = LANDLOCK_ACCESS_FS_WRITE_FILE |
	    LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
	    LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
	    LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
	    LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
	    LANDLOCK_ACCESS_FS_MAKE_SYM;
	file_rights = LANDLOCK_ACCESS_FS_WRITE_FILE;
	if (abi >= 2)
		ra.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3) {
		ra.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
		file_rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
	}
	rasz = sizeof ra.handled_access_fs;
	if (abi >= 4) {
		rasz = offsetof(struct landlock_ruleset_attr, scoped);
		if (o->nonet && !netns)
			ra.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP |
			    LANDLOCK_ACCESS_NET_CONNECT_TCP;
	} else if (o->nonet && !netns) {
		errno = ENOSYS;
		fail("network off needs a network namespace or Landlock ABI 4",
		    NULL);
	}
	if (abi >= 6) {
		rasz = sizeof ra;
		ra.scoped = LANDLOCK_SCOPE_SIGNAL |
		    LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
	}
	rfd = (int)syscall(__NR_landlock_create_ruleset, &ra, rasz, 0);
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
		/* no device nodes anywhere: a disk node would be a way out */
		pb.allowed_access = S_ISDIR(st.st_mode) ? ra.handled_access_fs &
		    ~(LANDLOCK_ACCESS_FS_MAKE_CHAR |
		    LANDLOCK_ACCESS_FS_MAKE_BLOCK) : file_rights;
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
		}
		else if ((strcmp(a, "-w") == 0 || strcmp(a, "-p") == 0) &&
		    i + 1 < argc) {
			if (a[1] == 'w' && o->nw < MAXPATHS)
				o->w[o->nw++] = argv[++i];
			else if (a[1] == 'p' && o->np < MAXPATHS)
				o->p[o->np++] = argv[++i];
			else
				return -1;
		} else
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
	    "-k WORK] [-w PATH]... [-p PATH]... -- CMD [ARG]...\n");
	return 125;
}
