/*
 * utf8: check and clean UTF-8 (errno convention, src/STYLE.md).
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

#endif
