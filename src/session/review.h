/*
 * review: what `arcturn diff` shows of a change list (changes.h), through
 * one output callback (udiff_out_fn: 0 ok, -1 stop with errno), so that
 * the same renderers serve a terminal, a pipe, a buffer or a test.
 *
 *   review_diff	every change's git-style section (udiff.h), and the
 *			digest of the full change set
 *   review_stat	the diffstat git prints for `git diff --stat`
 *   review_json	the change listing as keys of a JSON document
 *
 * The digest is the SHA-256 (hex) over, for every change, a line naming
 * its status, kinds, modes and path, its uncapped section, and for a
 * binary or big file the SHA-256 of both sides: `apply --expect` compares
 * it with what was reviewed, so its input never changes shape.
 *
 * Nothing here prints or exits; a file that vanished while it was read
 * goes to the warn callback (changes.h) and is left out.
 */
#ifndef ARCTURN_REVIEW_H
#define ARCTURN_REVIEW_H

#include <stddef.h>

#include <cJSON.h>

#include "diff/udiff.h"
#include "lib/hash.h"
#include "session/changes.h"
#include "session/session.h"

/* Files larger than this are compared and hashed as binary, never loaded. */
#define REVIEW_BIGFILE		((size_t)64 << 20)

/* The width git's diffstat fits in (as for a terminal of 80 columns). */
#define REVIEW_STAT_WIDTH	80

/*
 * Render each change of c with udiff_file (opts as given; NULL: 3 lines
 * of context, no cap, no colour) through out (NULL: render nothing), and
 * put the digest of the full change set in digest (NULL: none). Fills each change's st and gone; a change whose
 * file vanished is marked gone, warned about and left out. s and rootfd
 * are not used when c is empty. Returns 0 or -1 with errno.
 */
int	review_diff(struct session *s, int rootfd, struct changes *c,
	    const struct udiff_opts *opts, udiff_out_fn *out, void *arg,
	    char digest[HASH_HEXLEN + 1], changes_warn_fn *, void *warnarg);

/*
 * The diffstat of c as git prints it: one line per file (quoted name,
 * `| N +++--`, or `| Bin A -> B bytes`), scaled to REVIEW_STAT_WIDTH,
 * then ` N files changed, N insertions(+), N deletions(-)`. Directory
 * changes and gone files are not listed. Needs the st that review_diff
 * fills. color: git's green and red.
 */
int	review_stat(const struct changes *c, int color, udiff_out_fn *out,
	    void *arg);

/*
 * The change listing, as keys added to doc (the caller's document, made
 * with the cJSON hooks it chose): "session" (null when NULL),
 * "workspace", "count", "digest" (null when NULL: a part of the set has
 * none), "files": [{"path", "status" (changes_status_name), "mode_before",
 * "mode_after" (git's modes: "100644", "100755", "120000" for any
 * symlink, "040000" for any directory, "010" and the bits for a fifo;
 * null when absent, and for a socket or device), "added", "removed",
 * "binary", "conflict" (conflict.h's words, "changed since capture", or
 * null), "refused" (why apply refuses it, or null), "link_to" (the path
 * it is a hard link of, or null)}...], gone files left out. Needs the st
 * and conflict that review_diff fills. 0, or -1 with ENOMEM (doc then
 * holds part of it: the caller deletes it).
 */
int	review_json(cJSON *doc, const struct changes *c, const char *session,
	    const char *workspace, const char *digest);

#endif
