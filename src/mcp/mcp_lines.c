/*
 * mcp_lines: the MCP server's input, a line at a time (mcp_lines.h).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "lib/mem.h"
#include "mcp/mcp_lines.h"

static int
line_add(struct reader *r, const char *p, size_t n)
{
	size_t want = r->len + n + 1, sz;
	char *q;

	if (want > r->size) {
		for (sz = r->size ? r->size : 4096; sz < want; sz *= 2)
			;
		if ((q = mem_realloc(r->line, sz)) == NULL)
			return -1;
		r->line = q;
		r->size = sz;
	}
	memcpy(r->line + r->len, p, n);
	r->len += n;
	r->line[r->len] = '\0';
	return 0;
}

/*
 * A whole line from what r holds (without its newline) into r->line,
 * r->len bytes: LINE_OK; LINE_BIG for one over the cap, read to its end
 * and dropped; LINE_NONE when what is held ends inside a line (kept:
 * the next call goes on with it); LINE_ERR with errno.
 */
int
lines_take(struct reader *r)
{
	const char *nl;
	size_t take;

	if (r->whole) {		/* the last line was handed out */
		r->whole = 0;
		r->len = 0;
		if (r->line != NULL)
			r->line[0] = '\0';
	}
	while (r->pos < r->n) {
		nl = memchr(r->chunk + r->pos, '\n', r->n - r->pos);
		take = nl != NULL ? (size_t)(nl - (r->chunk + r->pos)) :
		    r->n - r->pos;
		if (!r->skipping && r->len + take > (r->max ? r->max :
		    MCP_LINE_MAX)) {
			r->skipping = 1;
			r->len = 0;
		}
		if (!r->skipping && line_add(r, r->chunk + r->pos, take) < 0)
			return LINE_ERR;
		r->pos += take + (nl != NULL);
		if (nl == NULL)
			continue;
		r->whole = 1;
		if (r->skipping) {
			r->skipping = 0;
			return LINE_BIG;
		}
		if (r->len > 0 && r->line[r->len - 1] == '\r')
			r->line[--r->len] = '\0';
		return LINE_OK;
	}
	return LINE_NONE;
}

/* One read(2) into r: 1, or 0 at EOF, -1 with errno. */
int
lines_fill(struct reader *r)
{
	ssize_t n;

	r->pos = r->n = 0;
	do
		n = read(r->fd, r->chunk, sizeof r->chunk);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if (n == 0) {
		r->eof = 1;
		return 0;
	}
	r->n = (size_t)n;
	return 1;
}

/*
 * The next line: as take_line, reading as needed; LINE_EOF at the end of
 * input (a last line without a newline is dropped: a message cut short).
 */
int
lines_next(struct reader *r)
{
	int rc;

	for (;;) {
		if ((rc = lines_take(r)) != LINE_NONE)
			return rc;
		if (r->eof)
			return LINE_EOF;
		if ((rc = lines_fill(r)) < 0)
			return LINE_ERR;
		if (rc == 0)
			return LINE_EOF;
	}
}
