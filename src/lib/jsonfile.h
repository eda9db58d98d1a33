/*
 * jsonfile: a small JSON file read whole and parsed by cJSON, with the
 * place of every key and value, so that errors can say FILE:LINE:COLUMN.
 *
 * cJSON is the one reader: it alone decides what is valid and builds the
 * tree. It records no positions, and when it rejects a text its error
 * offset (return_parse_end) says where it stopped but not what it wanted
 * there. One pass over the text supplies both, and judges nothing cJSON
 * judges (escapes, numbers, literals, depth):
 *
 * - on a text cJSON accepted, the pass records where each key and each
 *   value starts, in document order: the index, below;
 * - on a text cJSON rejected, the pass runs up to cJSON's offset and names
 *   what the grammar wanted there ("expected ':', found '1'", "unexpected
 *   end of input", "unterminated string", "invalid escape in string",
 *   "invalid number", "nested too deeply"). cJSON's offset is one byte late
 *   in two cases, which are reported where they start: a key that is not a
 *   string (cJSON stops after its first byte) and an unterminated string
 *   (after its opening quote).
 * The pass and cJSON are held to each other every time, not only in tests:
 * an index that does not match the tree item for item refuses the file
 * (`internal: ...`, so that no caller reads past the index), and a
 * rejection the pass cannot place is reported at cJSON's own offset as
 * "invalid JSON". Neither happens; the unit tests check both on thousands
 * of mutated texts.
 *
 * Positions: lines from 1, columns in bytes from 1 (a tab is one column,
 * a UTF-8 character as many as it has bytes; only '\n' ends a line, so
 * the '\r' of "\r\n" is the last column of its line). A UTF-8 byte order
 * mark at the start does not count. Every byte <= ' ' is a blank, as in
 * cJSON.
 *
 * The index: at[0] is the root value. A container's entries follow its
 * own: an array's elements; an object's members as key, value, key,
 * value. at[i].next is the entry after i's whole subtree, so walking the
 * cJSON tree in the same order pairs every item with its entry:
 *
 *	size_t i = 1;				(the root is an object)
 *	cJSON_ArrayForEach(v, jf.root) {
 *		key at jf.at[i].off, value at jf.at[i + 1].off;
 *		for an array v, its first element is entry i + 2,
 *		    the next one jf.at[i + 2].next, and so on;
 *		i = jf.at[i + 1].next;
 *	}
 *
 * at[i].nul marks a string with an escaped NUL (\u0000, or \u with a
 * non-hex digit, which cJSON reads as 0): cJSON's C string ends there, so
 * the caller can refuse the value instead of acting on a shortened one.
 */
#ifndef ARCTURN_JSONFILE_H
#define ARCTURN_JSONFILE_H

#include <stddef.h>

#include <cJSON.h>

struct jsonfile_at {
	size_t	off;		/* byte offset of the first byte */
	size_t	next;		/* the entry after this one's subtree */
	int	nul;		/* a string holding an escaped NUL */
};

struct jsonfile {
	const char	*path;	/* as given to jsonfile_read */
	char		*text;	/* the file, NUL-terminated */
	size_t		 len;
	cJSON		*root;
	struct jsonfile_at *at;	/* the index */
	size_t		 n;
};

/*
 * Read the regular file path (at most max bytes; a fifo is never waited
 * for) and parse it. Returns 1 with *jf filled, 0 when path does not
 * exist (ENOENT or ENOTDIR on the way: no file, *jf zeroed), or -1 with
 * errno and one line in err (cut to errlen; err may be NULL):
 *   `PATH: reason`		unreadable; EINVAL not a regular file
 *				("not a regular file"); EFBIG larger than max
 *				("larger than MAX bytes"); ENOMEM
 *   `PATH:LINE:COLUMN: what`	EINVAL: a NUL byte ("unexpected NUL
 *				byte"), or the first byte cJSON rejects
 * Allocation goes through mem (cJSON's too, through its hooks). Errors:
 * the err/errlen convention of src/STYLE.md.
 */
int	jsonfile_read(struct jsonfile *jf, const char *path, size_t max,
	    char *err, size_t errlen);

/*
 * Route cJSON's allocations through mem (so that its fault injection
 * reaches them), once per process: every module that builds or parses
 * cJSON trees calls this first; later calls do nothing.
 */
void	jsonfile_hooks(void);

/* Free what jsonfile_read filled in and zero *jf; a zeroed jf is fine. */
void	jsonfile_free(struct jsonfile *jf);

/* The line and column of byte offset off (past the end: the end). */
void	jsonfile_linecol(const struct jsonfile *jf, size_t off, size_t *line,
	    size_t *col);

#endif
