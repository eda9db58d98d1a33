/*
 * labeljournal: the bookkeeping behind Windows Low-integrity stamping.
 *
 * A Low-integrity process may write only to objects labelled Low. arcturn
 * stamps each writable root with the inheritable Low label LABEL_LOW; the
 * label persists on disk after the command ends, so the label the root had
 * before is first written to a journal, and labeljournal_unstamp puts it
 * back. This module holds only the order of operations and the journal
 * format; the operating system sits behind struct labeljournal_ops
 * (sandbox_win.c gives the real one, the unit test a fake that can crash
 * between any two calls).
 *
 * Crash safety, by construction:
 *   stamp:   journal entry written (atomic replace) -> label set to Low.
 *            A crash in between leaves an entry whose previous label is the
 *            current one: unstamping it changes nothing, stamping again
 *            keeps it. A path already in the journal is stamped again
 *            without a new entry, so the first previous label is never
 *            overwritten by Low.
 *   unstamp: previous label set -> entry removed (atomic replace). A crash
 *            in between leaves an entry that, unstamped again, sets the
 *            same label again.
 * Entries are unstamped newest first, so nested roots come back in order.
 *
 * The journal (a text file, one entry a line, bytes below 0x20, '%' and
 * 0x7f written as %XX) is read whole and replaced whole under ops->lock.
 * A journal that does not parse is never rewritten: EBADMSG.
 */
#ifndef ARCTURN_LABELJOURNAL_H
#define ARCTURN_LABELJOURNAL_H

#include <stddef.h>

/* Inheritable (OI, CI) Low mandatory label, no-write-up: SDDL SACL. */
#define LABEL_LOW	"S:(ML;OICI;NW;;;LW)"

/*
 * The operating system. Labels are SDDL strings ("" for no explicit
 * label); paths are UTF-8, canonical. Each returns 0 or -1 with errno.
 *   get_label  the path's own (not inherited) label, *sddl from mem_alloc
 *   set_label  set it ("" removes the explicit label), propagating to
 *              the children that inherit it
 *   read       the whole file into *buf (mem_alloc); ENOENT when missing
 *   write      replace the file atomically and durably
 *   lock       take an exclusive lock beside the journal (may block);
 *              unlock releases it
 */
struct labeljournal_ops {
	int	(*get_label)(const char *path, char **sddl, void *);
	int	(*set_label)(const char *path, const char *sddl, void *);
	int	(*read)(const char *file, char **buf, size_t *len, void *);
	int	(*write)(const char *file, const char *buf, size_t len, void *);
	int	(*lock)(const char *file, void *);
	void	(*unlock)(void *);
	void	*arg;
};

/*
 * Stamp path with LABEL_LOW, recording its previous label in the journal
 * file first (see above). Returns 0, or -1 with errno and one line in err.
 */
int	labeljournal_stamp(const char *journal, const char *path,
	    const struct labeljournal_ops *, char *err, size_t errlen);

/*
 * Restore the previous label of path (every journalled path when path is
 * NULL), newest first, removing each restored entry. A failure does not
 * stop the others; their entries stay. *restored counts the entries
 * restored. Returns 0 when every one was restored (also when none
 * matched: *restored is 0), or -1 with errno and one line in err about
 * the first failure.
 */
int	labeljournal_unstamp(const char *journal, const char *path,
	    const struct labeljournal_ops *, size_t *restored, char *err,
	    size_t errlen);

/*
 * Count the journalled paths (for `arcturn sandbox status`). Returns the
 * count (0 when the journal is missing), or -1 with errno.
 */
long	labeljournal_count(const char *journal, const struct labeljournal_ops *);

#endif
