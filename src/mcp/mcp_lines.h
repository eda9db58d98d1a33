/*
 * mcp_lines: the MCP server's input, newline-delimited messages read from
 * a descriptor (stdin) a line at a time, none longer than MCP_LINE_MAX
 * kept. The caller zeroes a struct reader and sets fd; r->line (r->len
 * bytes, NUL-terminated, without the newline or a CR before it) holds
 * the line handed out until the next call; mem_free(r->line) at the end.
 *
 *   lines_take	a whole line from what r holds: LINE_OK; LINE_BIG for one
 *		over the cap, read to its end and dropped; LINE_NONE when
 *		what is held ends inside a line (kept: the next call goes
 *		on with it); LINE_ERR with errno
 *   lines_fill	one read(2) into r: 1, or 0 at EOF, -1 with errno
 *   lines_next	as lines_take, reading as needed; LINE_EOF at the end of
 *		input (a last line without a newline is dropped: a
 *		message cut short)
 */
#ifndef ARCTURN_MCP_LINES_H
#define ARCTURN_MCP_LINES_H

#include <stddef.h>

#define MCP_LINE_MAX	((size_t)4 << 20)	/* 4 MiB a message */

/* stdin, a line at a time, no line longer than MCP_LINE_MAX kept. */
struct reader {
	int	 fd;
	char	 chunk[65536];
	size_t	 pos, n;
	char	*line;
	size_t	 len, size;
	int	 skipping;	/* in a line over the cap: dropped to its end */
	int	 whole;		/* line holds a whole line, handed out */
	int	 eof;		/* read(2) said end of input */
	size_t	 max;		/* the cap; 0: MCP_LINE_MAX */
};

enum { LINE_EOF, LINE_OK, LINE_BIG, LINE_ERR, LINE_NONE };

int	lines_take(struct reader *);
int	lines_fill(struct reader *);
int	lines_next(struct reader *);

#endif
