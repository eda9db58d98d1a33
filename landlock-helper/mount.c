/*
 * mount.c: the helper's mount layer (mount.h).
 */
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fmt.h"
#include "mount.h"
#include "say.h"
#include "userns_why.h"

#define CLONE_FLAGS	(OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE)

static int
writefile(const char *path, const char *s)
{
	int fd, saved;
	ssize_t n;

	if ((fd = openat(AT_FDCWD, path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	n = write(fd, s, strlen(s));
	saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/*
 * Map init's ids, from outside its user namespace (the helper stays in
 * the parent one, and so keeps what a map needs there). An unprivileged
 * user maps its own ids, which needs no privilege; setgroups is denied
 * first, as the kernel requires for that gid map. Root maps every id, so
 * that files of other users stay writable in the workspace: its
 * CAP_SETUID in this namespace allows it.
 */
int
mount_map(pid_t init)
{
	char path[64], buf[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (uid == 0) {
		fmt_buf(path, sizeof path, "/proc/%d/uid_map", (int)init);
		if (writefile(path, "0 0 4294967295") < 0)
			return -1;
		fmt_buf(path, sizeof path, "/proc/%d/gid_map", (int)init);
		return writefile(path, "0 0 4294967295");
	}
	fmt_buf(path, sizeof path, "/proc/%d/setgroups", (int)init);
	if (writefile(path, "deny") < 0 && errno != ENOENT)
		return -1;
	fmt_buf(path, sizeof path, "/proc/%d/uid_map", (int)init);
	fmt_buf(buf, sizeof buf, "%u %u 1", (unsigned)uid, (unsigned)uid);
	if (writefile(path, buf) < 0)
		return -1;
	fmt_buf(path, sizeof path, "/proc/%d/gid_map", (int)init);
	fmt_buf(buf, sizeof buf, "%u %u 1", (unsigned)gid, (unsigned)gid);
	return writefile(path, buf);
}

static int
open_tree(const char *path)
{
	return (int)syscall(__NR_open_tree, AT_FDCWD, path, CLONE_FLAGS);
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

static int
fsconfig(int fd, unsigned cmd, const char *key, const char *val)
{
	return (int)syscall(__NR_fsconfig, fd, cmd, key, val, 0);
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

/*
 * -G: arcturn readies the session (its run mark, the work dir moved
 * aside) while the sandbox is being built, and says 'g' when the overlay
 * may go on it. Without that word (it could not, a signal stopped it, or
 * it is gone), or with the helper gone (ctl hangs up: nothing would see
 * the command end), init ends here, quietly and with nothing run:
 * arcturn speaks. The fd is closed before anything else happens, so
 * the command never has it.
 */
static void
wait_go(int fd, int ctl)
{
	struct pollfd pf[2] = { { fd, POLLIN, 0 }, { ctl, POLLIN, 0 } };
	ssize_t n = 0;
	char c = 0;

	while (poll(pf, 2, -1) < 0)
		if (errno != EINTR)
			_exit(125);
	if (pf[1].revents == 0)
		while ((n = read(fd, &c, 1)) < 0 && errno == EINTR)
			;
	if (n != 1 || c != 'g')
		_exit(125);
	close(fd);
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
overlay(const struct opts *o, int ctl)
{
	struct timespec ms = { 0, 1000000 };
	int fs, mnt, tries;

	if (o->gofd >= 0)
		wait_go(o->gofd, ctl);
	/*
	 * EBUSY: upper or work is still in use by the last run's overlay,
	 * whose init is ending (it holds the session lock until it is gone,
	 * proc.h; this is for a kernel that lets the lock go first).
	 */
	for (tries = 0;; tries++) {
		if ((fs = (int)syscall(__NR_fsopen, "overlay",
		    FSOPEN_CLOEXEC)) < 0)
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
		if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL) == 0)
			break;
		if (errno != EBUSY || tries == 1000)
			fail("overlayfs mount", o->ovl);
		close(fs);
		nanosleep(&ms, NULL);
	}
	if ((mnt = (int)syscall(__NR_fsmount, fs, FSMOUNT_CLOEXEC, 0)) < 0)
		fail("overlayfs fsmount", o->ovl);
	if (move_mount(mnt, o->ovl) < 0)
		fail("overlayfs attach", o->ovl);
	close(mnt);
	close(fs);
}

/*
 * The command's terminal keeps a name: its /dev/pts/N is about to be
 * another devpts's, so it is bound on /dev/console first, as bubblewrap
 * does (where ttyname(3) looks when the name in /proc/self/fd does not
 * match). By its name in this namespace (a bind from an fd opened in
 * another is refused), when that name is the terminal.
 */
static void
own_tty(void)
{
	char fdpath[32], tty[64];
	struct stat a, b;
	ssize_t n;
	int fd;

	for (fd = 0; fd <= 2; fd++) {
		if (!isatty(fd))
			continue;
		fmt_buf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fd);
		if ((n = readlink(fdpath, tty, sizeof tty - 1)) <= 0)
			return;
		tty[n] = '\0';
		if (strncmp(tty, "/dev/pts/", 9) != 0 || fstat(fd, &a) < 0 ||
		    stat(tty, &b) < 0 || a.st_rdev != b.st_rdev ||
		    a.st_ino != b.st_ino || stat("/dev/console", &b) < 0)
			return;
		if (mount(tty, "/dev/console", NULL, MS_BIND, NULL) < 0)
			fail("mount layer: /dev/console", tty);
		return;
	}
}

/* No user namespace, and the run needs one: say why in words, exit 125. */
_Noreturn void
mount_nouserns(const char *what, int e)
{
	char why[320];

	fmt_err("arcturn: %s%s: %s\n", say_prefix(), what,
	    userns_why(e, why, sizeof why));
	_exit(125);
}

int
mount_flags(const struct opts *o)
{
	int fd;

	/*
	 * Already confined (arcturn nested in itself): the outer Landlock
	 * domain refuses id maps, so a new namespace would leave us unmapped.
	 */
	if ((fd = openat(AT_FDCWD, "/proc/self/uid_map", O_WRONLY |
	    O_CLOEXEC)) < 0) {
		if (o->mount == 2)
			fail("mount layer: /proc/self/uid_map", NULL);
		return 0;
	}
	close(fd);
	return CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWPID |
	    (o->nonet ? CLONE_NEWNET : 0);
}

void
mount_refused(const struct opts *o, int e)
{
	char why[320];

	if (o->mount == 2)
		mount_nouserns("mount layer", e);
	if (o->np > 0)
		fmt_err("arcturn: note: no mount layer: %s; "
		    "Landlock only, protected paths stay writable "
		    "(see arcturn sandbox status)\n",
		    userns_why(e, why, sizeof why));
}

int
mount_layer(const struct opts *o, int ctl)
{
	int fds[HELPER_MAXPATHS], i, fd;
	struct stat st;
	char cwd[PATH_MAX];

	if (getcwd(cwd, sizeof cwd) == NULL)
		cwd[0] = '\0';
	/*
	 * An outer Landlock domain (arcturn inside itself) refuses mount
	 * changes: soft, before any mount has changed.
	 */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		if (o->mount == 2)
			fail("mount layer: make / private", NULL);
		return 0;
	}
	for (i = 0; i < o->nw; i++) {
		/*
		 * A root that does not exist is none (so Landlock treats it
		 * too). Device nodes stay writable on a read-only mount
		 * (Landlock decides which): re-attaching /dev/ptmx alone
		 * would cut it off from its devpts.
		 */
		fds[i] = -1;
		if (stat(o->w[i], &st) < 0) {
			if (errno == ENOENT)
				continue;
			fail("mount layer: stat", o->w[i]);
		}
		if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
			continue;
		if ((fds[i] = open_tree(o->w[i])) < 0)
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
	/*
	 * POSIX shared memory and semaphores of other processes live in
	 * /dev/shm, which stays writable: the command gets one of its own,
	 * as it gets SysV IPC of its own from the IPC namespace.
	 */
	for (i = 0; i < o->nw; i++)
		if (strcmp(o->w[i], "/dev/shm") == 0 && fds[i] >= 0 &&
		    mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV,
		    "mode=1777") < 0)
			fail("mount layer: /dev/shm", NULL);
	/*
	 * Terminals: a devpts instance of its own on /dev/pts, so that the
	 * ptys the command can open by name are those it made through
	 * /dev/ptmx (the kernel takes the instance mounted beside it), not
	 * the other terminals of the machine. Its own terminal it has open
	 * already; /dev/tty reaches it by name.
	 */
	for (i = 0; i < o->nw; i++)
		if (strcmp(o->w[i], "/dev/pts") == 0 && fds[i] >= 0) {
			own_tty();
			if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID |
			    MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620") < 0)
				fail("mount layer: /dev/pts", NULL);
		}
	if (o->ovl != NULL)
		overlay(o, ctl);
	/*
	 * A mount point cannot be renamed or removed. Outermost first, so
	 * that each clone holds no pin made before it.
	 */
	for (i = 0; i < o->npin; i++) {
		if ((fd = open_tree(o->pin[i])) < 0 ||
		    move_mount(fd, o->pin[i]) < 0)
			fail("mount layer: pin", o->pin[i]);
		close(fd);
	}
	for (i = 0; i < o->np; i++) {
		if ((fd = open_tree(o->p[i])) < 0)
			fail("mount layer: clone", o->p[i]);
		if (set_rdonly(fd, "", AT_EMPTY_PATH | AT_RECURSIVE) < 0 ||
		    move_mount(fd, o->p[i]) < 0)
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
