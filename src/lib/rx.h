/*
 * rx: a small regular-expression matcher for searching lines (MCP's
 * search_content), in time linear in the line for any pattern (an NFA
 * run state by state, never backtracking), so that no pattern a client
 * sends can make a search take long. It takes the part of POSIX extended
 * regular expressions that grep users write:
 *
 *	c	a character; \c the character c itself (\. \( \\ ...)
 *	.	any character
 *	[abc] [a-z] [^...]	a set (a leading ] is literal), with the
 *		classes [:alpha:] [:digit:] [:alnum:] [:upper:] [:lower:]
 *		[:space:] [:punct:] [:xdigit:] inside
 *	^ $	the start and the end of the line
 *	x* x+ x?	zero or more, one or more, zero or one
 *	a|b	either
 *	( )	a group
 *
 * Bytes are characters (UTF-8 matches byte by byte: "é" as a literal
 * works, "." takes one byte of it). Not taken, with an error that says
 * so: {m,n} repetition and back-references.
 *
 * rx_compile returns the compiled pattern, or NULL with one line in err
 * (errno EINVAL for a bad pattern, ENOMEM). rx_search: 1 when the
 * pattern matches somewhere in s (len bytes, one line), else 0.
 * Allocation goes through mem.
 */
#ifndef ARCTURN_RX_H
#define ARCTURN_RX_H

#include <stddef.h>

struct rx;

struct rx	*rx_compile(const char *pat, int icase, char *err,
		    size_t errlen);
int		 rx_search(struct rx *, const char *s, size_t len);
void		 rx_free(struct rx *);

#endif
