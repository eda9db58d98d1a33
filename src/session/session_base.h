/*
 * session_base: the base records of a session, overlays/<id>/base/<P>
 * (the store's layout is drawn in session.h).
 *
 * A base record is the state of the real path when it was first captured
 * (first write, edit or removal through the session), written once and
 * never replaced: `<kind> <mode> <sha256>`. kind is absent, file, link,
 * dir, fifo, sock, chr or blk; mode is octal permission bits; the hash is
 * of the content (file) or the link target (link), zeros otherwise. kind
 * `none` says that no state could be recorded for the path (apply refuses
 * it; struct apply_base, unrecorded): its mode field holds the reason, an
 * errno value, or 0 when the run that changed the path never ended. A
 * flat directory keyed by the hash of the path keeps records of "a" (a
 * file) and "a/b" (after a became a directory) apart, which a mirror tree
 * could not.
 *
 * A record is a symlink whose target is that line, the hash in base64url
 * (43 digits, unpadded): at most 55 bytes, which ext4 and others keep in
 * the inode itself, so a record has no data block, and removing a
 * session's thousands of records costs no discard each. symlinkat makes
 * it whole or not at all and refuses an existing name (the first capture
 * wins); the directory is fsynced after, unless s->nosync. Records that
 * arcturn wrote before (session format 1) are regular files: the line
 * with the hash in hex, a newline and the raw path bytes; they are still
 * read, and a short one (what a crash before its data reached the disk
 * left) is reported as truncated, never read as a shorter path's record.
 *
 * Functions return 0 or -1 with errno; EBADMSG with s->why set says
 * which record is damaged (e.g. "base record for src/a.c truncated").
 */
#ifndef ARCTURN_SESSION_BASE_H
#define ARCTURN_SESSION_BASE_H

#include "apply/apply.h"

struct session;

/*
 * Base records. session_base_get fills *b (ENOENT: none; EBADMSG: a
 * truncated or corrupt record, s->why says which). session_base_put
 * writes the record unless one exists (then it does nothing: the first
 * capture wins), without fsync when s->nosync is set. session_base_del
 * drops it (no record: 0).
 */
int	session_base_get(struct session *s, const char *rel,
	    struct apply_base *b);
int	session_base_put(struct session *s, const char *rel,
	    const struct apply_base *b);
int	session_base_del(struct session *s, const char *rel);

#endif
