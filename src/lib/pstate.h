/*
 * pstate: what stands at a path, as arcturn records it: its kind, its
 * permission bits and the hash of its content. One type for every record
 * of a path's state: a checkpoint's before and after (checkpoint.h), a
 * session's base records (session_base.h, inside struct apply_base) and
 * what apply finds at a path now (struct apply_real, which adds the
 * identity that its race checks need).
 *
 * The hash is the SHA-256 of a regular file's bytes or of a symlink's
 * target; it is zero for every other kind. The mode means nothing for a
 * symlink (Linux gives every link 0777) and is not compared.
 *
 * pstate_read looks at one name in a folder it is given, without
 * following it; walking a workspace-relative path to that folder is the
 * caller's (fsx_open_dirs). It returns 0 or -1 with errno: those of
 * fstatat, readlinkat, openat, fstat and read; ENAMETOOLONG for a link
 * target of PATH_MAX bytes or more; EINVAL for a file type that has no
 * kind here.
 */
#ifndef ARCTURN_PSTATE_H
#define ARCTURN_PSTATE_H

#include <sys/stat.h>

#include "lib/hash.h"

/* The file types, and absent: zero, what memset makes of a state. */
enum pstate_kind {
	PSTATE_ABSENT, PSTATE_FILE, PSTATE_LINK, PSTATE_DIR, PSTATE_FIFO,
	PSTATE_SOCK, PSTATE_CHR, PSTATE_BLK
};

struct pstate {
	enum pstate_kind kind;
	unsigned int	 mode;		/* permission bits */
	unsigned char	 sha[HASH_LEN];	/* content or link target */
};

/*
 * What pstate_read looked at besides the state, for a caller that checks
 * an object's identity or keeps its bytes.
 */
struct pstate_look {
	char		*target;	/* in: NULL, or PATH_MAX bytes that
					   get a link's target, NUL-ended */
	struct stat	 st;		/* of the object the state describes:
					   a regular file's is of the file
					   opened and hashed, not of what a
					   stat saw a moment before */
	int		 fd;		/* a regular file's, open read-only
					   (the caller closes it); else -1 */
	int		 replaced;	/* the name held another object when
					   looked at than the one then opened:
					   the path is changing */
};

/*
 * The state of dirfd/name, not followed; a missing name is PSTATE_ABSENT.
 * look: NULL, or what else was seen (above).
 */
int	pstate_read(int dirfd, const char *name, struct pstate *s,
	    struct pstate_look *look);

/* The kind of the type bits of mode (st_mode); -1 for none. */
int	pstate_kind_of(unsigned int mode);

/*
 * 1 when a and b are one state: the same kind, and unless absent the same
 * mode (not for links) and the same hash (files and links); else 0.
 */
int	pstate_same(const struct pstate *a, const struct pstate *b);

/* 1 for a fifo, socket or device: no content a record could keep. */
int	pstate_special(const struct pstate *s);

/*
 * The kind's word in records: "absent", "file", "link", "dir", "fifo",
 * "sock", "chr" or "blk"; pstate_kind_parse is the kind of such a word,
 * or -1.
 */
const char *pstate_kind_name(enum pstate_kind);
int	pstate_kind_parse(const char *word);

#endif
