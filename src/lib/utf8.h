/*
 * utf8: check and clean UTF-8 (errno convention, src/STYLE.md), and
 * make a message one line.
 */
#ifndef ARCTURN_UTF8_H
#define ARCTURN_UTF8_H

#include <stddef.h>

/*
 * A NUL-terminated copy of buf[0..len-1] (mem_free it). A byte that is
 * not part of a valid UTF-8 sequence (NUL included) becomes U+FFFD with
 * lossy, else the call fails with EILSEQ. NULL with errno.
 */
char	*utf8_clean(const char *buf, size_t len, int lossy);

/*
 * Copy the NUL-terminated text in into out (outlen > 0), each control
 * byte (below 0x20, and 0x7f) as \xNN, cut to fit: a message is one line,
 * and a path from a config file, the environment or the workspace may
 * hold a newline or a terminal escape.
 */
void	utf8_one_line(char *out, size_t outlen, const char *in);

#endif
