/*
 * udiff: renders one file's change as the section `git diff` prints for
 * it, so that `git apply` and `patch -p1` accept the concatenation of
 * sections: `diff --git a/P b/P`, the extended headers (new file mode,
 * deleted file mode, old mode/new mode, index line omitted), `--- a/P` /
 * `+++ b/P` (with git's quoting of unusual names, and the trailing TAB git
 * adds for names containing a space), hunks with `ctx` lines of context
 * and git's hunk-header rules, `\ No newline at end of file`, and
 * `Binary files a/P and b/P differ` for binary content.
 *
 * Output goes through a callback (0 = ok, -1 = stop with errno set). The
 * body (lines after the `+++` header) is capped at opts->cap lines, cut at a
 * hunk boundary and followed by `... diff truncated: N more lines for P`;
 * cap < 0 means no cap. When digest is non-NULL the full, uncapped section
 * is fed to it whatever the cap, so one pass both prints and hashes.
 */
#ifndef ARCTURN_UDIFF_H
#define ARCTURN_UDIFF_H

#include <stddef.h>

#include "diff/diff.h"
#include "lib/hash.h"

enum udiff_kind {
	UDIFF_ABSENT,		/* file does not exist on this side */
	UDIFF_FILE,		/* regular file: data/len are its bytes */
	UDIFF_SYMLINK		/* symlink: data/len are its target */
};

struct udiff_side {
	enum udiff_kind	 kind;
	unsigned int	 mode;	/* 0100644, 0100755 or 0120000 as git prints */
	const char	*data;
	size_t		 len;
};

struct udiff_opts {
	int		 ctx;	/* context lines, 3 */
	long		 cap;	/* body line cap (200), < 0: none */
	int		 color;	/* 1: ANSI colours as git uses them */
	int		 escape; /* 1 (a terminal): control characters in
				   content as \xNN; the digest still takes
				   the raw bytes */
};

struct udiff_stats {
	long		 added;
	long		 removed;
	int		 binary;
	long		 truncated;	/* body lines left out by the cap */
};

typedef int udiff_out_fn(const void *buf, size_t len, void *arg);

/*
 * Render the change of path (workspace-relative, raw bytes) from old to
 * new. Writes nothing when both sides are equal. Returns 0, or -1 with errno
 * (ENOMEM, or whatever out set). stats may be NULL.
 */
int	udiff_file(const char *path, const struct udiff_side *old,
	    const struct udiff_side *new, const struct udiff_opts *,
	    udiff_out_fn *out, void *arg, struct hash_ctx *digest,
	    struct udiff_stats *stats);

/*
 * udiff_file with the diff's arrays kept in sc (diff.h) from one file to
 * the next; sc NULL: as udiff_file.
 */
int	udiff_file_in(struct diff_scratch *sc, const char *path,
	    const struct udiff_side *old, const struct udiff_side *new,
	    const struct udiff_opts *, udiff_out_fn *out, void *arg,
	    struct hash_ctx *digest, struct udiff_stats *stats);

/* git's quoting of a path for headers: returns a new string or NULL. */
char	*udiff_quote(const char *prefix, const char *path);

#endif
