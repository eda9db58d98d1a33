/*
 * os: the few calls the portable core (fsx, shadow, session) needs that
 * POSIX lacks or each system spells its own way. One implementation per
 * system, in a whole file: os_linux.c, os_macos.c. Nothing else in the
 * core names a system.
 *
 * Every function returns 0 (or an fd, or a length) or -1 with errno.
 * ENOSYS means "this system (or kernel, or seccomp profile) cannot do it
 * this way": the caller takes its portable path instead.
 */
#ifndef ARCTURN_OS_H
#define ARCTURN_OS_H

#include <sys/stat.h>
#include <sys/types.h>

#include <stddef.h>
#include <time.h>

/*
 * The open flag for a directory crossed on the way, or one only fstat'ed
 * or fsync'ed: O_PATH where the system has it (search permission is
 * enough), else O_RDONLY.
 */
extern const int os_o_path;

/*
 * openat(2) of rel beneath rootfd, the kernel refusing any step out of it
 * (openat2 RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS): EXDEV for a symlink or
 * ".." that leads out. ENOSYS where the kernel lacks it or a seccomp
 * profile refuses it (then it stays off for the process).
 */
int	os_open_beneath(int rootfd, const char *rel, int flags, mode_t mode);

/*
 * renameat(dirfd, from, dirfd, to) that fails with EEXIST instead of
 * replacing to (renameat2 RENAME_NOREPLACE). ENOSYS where the system or
 * the file system lacks it.
 */
int	os_rename_noreplace(int dirfd, const char *from, const char *to);

/*
 * Swap dirfd/a and dirfd/b atomically: each name ends up with the other's
 * object (renameat2 RENAME_EXCHANGE; renameatx_np RENAME_SWAP on macOS).
 * Both must exist (ENOENT). ENOSYS where the system or the file system
 * lacks it: the caller re-checks and renames instead.
 */
int	os_rename_exchange(int dirfd, const char *a, const char *b);

/*
 * chmod dirfd/name through an fd that pins the inode (O_PATH and its
 * /proc/self/fd name), never following a symlink: EOPNOTSUPP for a
 * symlink; ENOSYS without O_PATH or /proc.
 */
int	os_chmod_pinned(int dirfd, const char *name, mode_t mode);

/*
 * The two extended-attribute calls overlayfs's whiteout and opaque marks
 * need, on an open fd. ENOTSUP where the file system has none.
 */
long	os_getxattr(int fd, const char *name, char *buf, size_t len);
/* The size of fd's list of extended attribute names: 0 when it has none. */
long	os_xattr_names(int fd);
int	os_setxattr(int fd, const char *name, const void *val, size_t len);

/* Flush the file system holding fd (syncfs; sync(2) where it is missing). */
int	os_syncfs(int fd);

/*
 * 1 when one os_syncfs of fd's file system is as sure as an fsync of each
 * of many files on it, and cheaper (one device flush, not one per file):
 * Linux 5.8 or later (syncfs reports writeback errors since), a local
 * file system whose syncfs writes everything (ext4, xfs, btrfs, f2fs,
 * tmpfs; not FUSE or a network file system), and little dirty data
 * waiting in the kernel (under OS_SYNCFS_DIRTY_MAX, so the call never
 * waits for another program's gigabytes). 0: sync the files one by one.
 */
#define OS_SYNCFS_DIRTY_MAX	(32L * 1024 * 1024)
int	os_syncfs_cheap(int fd);

/*
 * A counting semaphore for a pool of threads: an unnamed POSIX semaphore
 * on Linux (far smaller in a static binary than a condition variable);
 * macOS has none, so a mutex and a condition variable there. os_sem_new
 * starts at 0; NULL with errno when it cannot be made. os_sem_wait waits
 * on through EINTR.
 */
struct os_sem;
struct os_sem *os_sem_new(void);
void	os_sem_post(struct os_sem *);
void	os_sem_wait(struct os_sem *);
void	os_sem_free(struct os_sem *);

/*
 * Start writing fd's dirty pages out, without waiting (sync_file_range;
 * nothing where it is missing): a later fsync then finds them on their way.
 */
void	os_start_writeback(int fd);

/*
 * Open the absolute path for nothing but to know it is there (O_PATH),
 * refusing a symlink anywhere on the way, the last component too
 * (openat2 RESOLVE_NO_SYMLINKS): an fd, or -1 with errno (ELOOP at a
 * symlink; ENOSYS where the system cannot say, macOS or an old kernel).
 */
int	os_open_nolinks(const char *path);

/* A pipe whose two ends are close-on-exec: 0, or -1 with errno. */
int	os_pipe_cloexec(int fd[2]);

/*
 * Run fn(arg) in a child process that ends with the status fn returns,
 * and that shares our memory until it execs or ends, while we wait
 * (vfork's contract: fn execs, or says why it could not and returns; it
 * must not change what we own). Linux: clone(CLONE_VM | CLONE_VFORK) on
 * a stack of its own, so that nothing of ours is copied for a child that
 * only execs; elsewhere fork(). The child's pid, or -1 with errno.
 */
pid_t	os_spawn(int (*fn)(void *), void *arg);

/* The status-change and modification times of st, to the nanosecond. */
struct timespec os_ctime(const struct stat *st);
struct timespec os_mtime(const struct stat *st);

#endif
