/*
 * fmt.h: the few conversions between numbers and text the helper makes,
 * without stdio. musl's printf family formats floating point and wide
 * characters and pulls in the FILE machinery, and strtol its generic
 * scanner: some 15 KB of a helper that is mapped, and paged in, on every
 * run (issue 28). What they printed and read stays byte for byte the same.
 *
 * fmt_buf is snprintf(buf, len, f, ...) for the conversions %d %u %ld
 * %lu %s and %% alone (no flags, width or precision; a NULL string is
 * "(null)", as musl prints it; any other conversion is written out as
 * it stands). At most len - 1 bytes and a NUL go into buf (nothing when
 * len is 0); it returns the length of the whole text, so that a return
 * of len or more means it was cut.
 *
 * fmt_err writes the same text on stderr: in one write(2) when it is at
 * most FMT_ERRBUF bytes, else in pieces of that size (stdio's unbuffered
 * stderr wrote 80 bytes at a time). errno is left as it was.
 *
 * fmt_long is strtol(s, end, 10): leading white space, a sign, digits;
 * LONG_MAX or LONG_MIN with errno ERANGE past the range; 0 with *end = s
 * when there is no digit. end may be NULL.
 *
 * Libc only (write, strlen): arcturn links it too, for userns_why.
 */
#ifndef ARCTURN_FMT_H
#define ARCTURN_FMT_H

#include <stddef.h>

#define FMT_ERRBUF	1024

int	fmt_buf(char *buf, size_t len, const char *f, ...)
	    __attribute__((format(printf, 3, 4)));
void	fmt_err(const char *f, ...) __attribute__((format(printf, 1, 2)));
long	fmt_long(const char *s, char **end);

#endif
