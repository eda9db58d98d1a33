/*
 * landlock_uapi.h: what arcturn and its Landlock helper both need from the
 * Linux kernel interface, and the limits of the contract between them.
 *
 * The kernel's definitions (Landlock, the mount API, openat2, memfd) are
 * spelled out here because musl-gcc sees no kernel headers and
 * distribution headers lag the kernel. Values are the kernel's UAPI
 * (include/uapi/linux/landlock.h, mount.h, openat2.h, memfd.h); they never
 * change once released. Plain definitions only, so the header also
 * compiles, unused, in the macOS and Windows builds of main.c.
 *
 * In uapi/, a folder neither program owns, as `uapi/landlock_uapi.h`.
 * Included by the helper (landlock-helper/) and by arcturn's Linux files
 * (src/sandbox/sandbox_*_linux.c, the openat2 path of src/lib/fsx.c,
 * src/lib/os_linux.c, main.c's --version), so the two programs cannot
 * disagree.
 */
#ifndef ARCTURN_LANDLOCK_UAPI_H
#define ARCTURN_LANDLOCK_UAPI_H

#include <stdint.h>

/* The highest Landlock ABI this build knows how to use. */
#define LANDLOCK_ABI_KNOWN	9

/*
 * The helper's argv: at most this many writable roots (-w), protected
 * paths (-p), pinned parents (-P) and unix socket paths (-s, -t, -a) each. arcturn checks before it starts
 * the helper; the helper refuses more (usage, 125).
 */
#define HELPER_MAXPATHS		256

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset	444
#define __NR_landlock_add_rule		445
#define __NR_landlock_restrict_self	446
#endif
#ifndef __NR_open_tree
#define __NR_open_tree		428
#define __NR_move_mount		429
#endif
#ifndef __NR_fsopen
#define __NR_fsopen		430
#define __NR_fsconfig		431
#define __NR_fsmount		432
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr	442
#endif
#ifndef __NR_openat2
#define __NR_openat2		437
#endif

#define LANDLOCK_CREATE_RULESET_VERSION	(1U << 0)
#define LANDLOCK_RULE_PATH_BENEATH	1
#define LANDLOCK_RULE_NET_PORT		2

/* ABI 1 */
#define LANDLOCK_ACCESS_FS_EXECUTE	(1ULL << 0)
#define LANDLOCK_ACCESS_FS_WRITE_FILE	(1ULL << 1)
#define LANDLOCK_ACCESS_FS_READ_FILE	(1ULL << 2)
#define LANDLOCK_ACCESS_FS_READ_DIR	(1ULL << 3)
#define LANDLOCK_ACCESS_FS_REMOVE_DIR	(1ULL << 4)
#define LANDLOCK_ACCESS_FS_REMOVE_FILE	(1ULL << 5)
#define LANDLOCK_ACCESS_FS_MAKE_CHAR	(1ULL << 6)
#define LANDLOCK_ACCESS_FS_MAKE_DIR	(1ULL << 7)
#define LANDLOCK_ACCESS_FS_MAKE_REG	(1ULL << 8)
#define LANDLOCK_ACCESS_FS_MAKE_SOCK	(1ULL << 9)
#define LANDLOCK_ACCESS_FS_MAKE_FIFO	(1ULL << 10)
#define LANDLOCK_ACCESS_FS_MAKE_BLOCK	(1ULL << 11)
#define LANDLOCK_ACCESS_FS_MAKE_SYM	(1ULL << 12)
/* ABI 2 */
#define LANDLOCK_ACCESS_FS_REFER	(1ULL << 13)
/* ABI 3 */
#define LANDLOCK_ACCESS_FS_TRUNCATE	(1ULL << 14)
/* ABI 5 */
#define LANDLOCK_ACCESS_FS_IOCTL_DEV	(1ULL << 15)
/*
 * ABI 9 (Linux 7.1; ABI 8 added only LANDLOCK_RESTRICT_SELF_TSYNC):
 * connect(2) and sendmsg(2) to a pathname unix socket are refused with
 * EACCES unless a rule allows its path, or the socket was made in the
 * same domain. The value is the one the upstream series and util-linux's
 * setpriv use; it is taken only where the kernel says ABI 9 or later and
 * accepts the bit (the helper checks both), so a kernel that gave bit 16
 * another meaning would simply not be asked for it.
 */
#define LANDLOCK_ACCESS_FS_RESOLVE_UNIX	(1ULL << 16)
#define LANDLOCK_ABI_RESOLVE_UNIX	9

/* ABI 4 */
#define LANDLOCK_ACCESS_NET_BIND_TCP	(1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP	(1ULL << 1)

/* ABI 6 */
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET	(1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL			(1ULL << 1)

struct landlock_ruleset_attr {
	uint64_t	handled_access_fs;
	uint64_t	handled_access_net;	/* ABI 4 */
	uint64_t	scoped;			/* ABI 6 */
};

struct landlock_path_beneath_attr {
	uint64_t	allowed_access;
	int32_t		parent_fd;
} __attribute__((packed));

/* Mount API (glibc 2.36's <sys/mount.h> has these too: keep its own) */
#ifndef MOUNT_ATTR_RDONLY
#define OPEN_TREE_CLONE		1
#define OPEN_TREE_CLOEXEC	02000000
#define MOVE_MOUNT_F_EMPTY_PATH	0x00000004
#define FSOPEN_CLOEXEC		0x00000001
#define FSMOUNT_CLOEXEC		0x00000001
#define FSCONFIG_SET_FLAG	0
#define FSCONFIG_SET_STRING	1
#define FSCONFIG_CMD_CREATE	6
#define MOUNT_ATTR_RDONLY	0x00000001
#define MOUNT_ATTR_NOSUID	0x00000002
#define MOUNT_ATTR_NODEV	0x00000004

struct mount_attr {
	uint64_t	attr_set;
	uint64_t	attr_clr;
	uint64_t	propagation;
	uint64_t	userns_fd;
};
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE		0x8000
#endif
#ifndef MS_REC
#define MS_REC			16384
#define MS_PRIVATE		(1 << 18)
#endif

/* memfd_create */
#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC		0x0001U
#endif
#ifndef MFD_EXEC
#define MFD_EXEC		0x0010U	/* 6.3: an executable memfd */
#endif

/* openat2 */
#define RESOLVE_NO_XDEV		0x01
#define RESOLVE_NO_MAGICLINKS	0x02
#define RESOLVE_NO_SYMLINKS	0x04
#define RESOLVE_BENEATH		0x08
#define RESOLVE_IN_ROOT		0x10

struct open_how {
	uint64_t	flags;
	uint64_t	mode;
	uint64_t	resolve;
};

#endif
