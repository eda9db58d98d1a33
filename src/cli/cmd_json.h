/*
 * cmd_json: small builders the --json documents of the file, apply and
 * session front ends share (cmd_file.c, cmd_apply.c, cmd_session.c), on
 * top of say.h's say_doc. Absent values are JSON null, never left out.
 *
 * The adders return 0, or -1 when out of memory (the object keeps what
 * was added; the caller deletes it).
 */
#ifndef ARCTURN_CMD_JSON_H
#define ARCTURN_CMD_JSON_H

#include <stddef.h>

#include <cJSON.h>

/* key: s, or null when s is NULL. */
int	cmdjson_str(cJSON *o, const char *key, const char *s);

/* key: n, or null when absent is set. */
int	cmdjson_num(cJSON *o, const char *key, double n, int absent);

/*
 * The padded base64 (RFC 4648) of buf[0..len-1], NUL-terminated
 * (mem_free it). NULL with errno (ENOMEM).
 */
char	*cmdjson_base64(const void *buf, size_t len);

#endif
