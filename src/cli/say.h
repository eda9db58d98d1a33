/*
 * say: what a command says. Error and warning lines on stderr, always in
 * the form `arcturn: ...` (never the program's path); with --json, the
 * command's one JSON document on stdout, one line, whose first key is
 * "schema": "arcturn/<command>/v1" (schema/<command>.json).
 *
 * A command that fails without printing its document gets one from
 * main.c (say_finish): {"schema": ..., "error": {"code", "message",
 * "path"?, "hint"?}}, holding the first error line said and the exit
 * status the command returned; hint is the way out of a refusal, as the
 * line ends with it (say_hint). The lines stay on stderr in both modes.
 *
 * Only main.c and the front ends (cmd_*, mcp.c) use it (src/STYLE.md).
 */
#ifndef ARCTURN_SAY_H
#define ARCTURN_SAY_H

#include <cJSON.h>

#include "lib/exitcode.h"

/*
 * main.c, once the command is known ("" before); a command may name its
 * document more closely ("session-list"). cmd NULL: the name stays.
 */
void	say_start(const char *cmd, int json);
int	say_json(void);
/* exec --json-fd: documents go to fd (open, writable), not stdout. */
void	say_json_fd(int fd);

/* `arcturn: fmt` on stderr; the first one is the JSON error's message. */
void	say_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same with `: strerror(errno)` appended (errno sets the code). */
void	say_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The error kept so far gets this code, and this path when path != NULL. */
void	say_is(enum say_code, const char *path);
/* ... and this hint (the first one given stays). */
void	say_hint(const char *hint);
/* The code errno stands for (SAY_FAILED for most). */
enum say_code say_code_of(int err);
/*
 * `usage: arcturn USAGE` on stderr: a usage error (code "usage"), whose
 * message is this line unless an error was said before it.
 */
void	say_usage(const char *usage);
/* `arcturn: warning: fmt` on stderr; never an error. */
void	say_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A note to a person: `arcturn: fmt` on stderr, never kept as an error. */
void	say_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * A new document {"schema": "arcturn/<name>/v1"}; name NULL: the
 * command's. NULL when out of memory (errno).
 */
cJSON	*say_doc(const char *name);
/* Print doc as one line on stdout and free it: 0, or -1 (said). */
int	say_print(cJSON *doc);
/*
 * The same for a document built step by step: built 0 (a step failed,
 * out of memory) frees doc and says so instead of printing a part.
 */
int	say_print_built(cJSON *doc, int built);
/* 1 once a document went out. */
int	say_printed(void);

/*
 * main.c, after the command: with --json, a failure (rc != 0) that
 * printed no document prints the error document. Returns rc.
 */
int	say_finish(int rc);

#endif
