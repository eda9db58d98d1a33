/*
 * say: error lines and the --json document (say.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "cli/say.h"
#include "lib/jsonfile.h"
#include "lib/mem.h"
#include "lib/utf8.h"

/* zero at start (in .bss, not 5 KB of .data in the binary) */
static struct {
	const char	*cmd;		/* the command, NULL before it is known */
	int		 json;
	int		 docfd;		/* --json-fd's fd + 1; 0: stdout */
	int		 printed;	/* a document went out */
	int		 have;		/* an error was said */
	int		 err;		/* its errno, or 0 */
	enum say_code	 code;
	char		 msg[16384];	/* room for a few paths and a reason */
	char		 path[4096];
	char		 hint[4096];
} st;

static const char *const words[] = {
	[SAY_NONE] = "failed",
	[SAY_USAGE] = "usage",
	[SAY_REFUSED] = "refused",
	[SAY_CONFLICT] = "conflict",
	[SAY_NOT_FOUND] = "not_found",
	[SAY_PERMISSION] = "permission",
	[SAY_NO_SPACE] = "no_space",
	[SAY_BUSY] = "busy",
	[SAY_DAMAGED] = "damaged",
	[SAY_CONFIG] = "config",
	[SAY_SANDBOX] = "sandbox",
	[SAY_CANNOT_RUN] = "cannot_run",
	[SAY_FAILED] = "failed",
	[SAY_OUTSIDE_ROOTS] = "outside_roots",
	[SAY_PROTECTED] = "protected",
};

/* The command is known ("" in main.c until it is). */
static int
named(void)
{
	return st.cmd != NULL && st.cmd[0] != '\0';
}

void
say_start(const char *cmd, int json)
{
	if (cmd != NULL)
		st.cmd = cmd;
	st.json = json;
}

void
say_json_fd(int fd)
{
	st.docfd = fd + 1;
}

int
say_json(void)
{
	return st.json;
}

/*
 * The line is said whole, however long (a deep path); the JSON error's
 * message keeps its first sizeof st.msg - 1 bytes.
 */
static void
line(int keep, int err, const char *prefix, const char *fmt, va_list ap)
{
	char buf[sizeof st.msg], *big = NULL, *shown = NULL;
	const char *msg = buf, *sep = err != 0 ? ": " : "";
	const char *why = err != 0 ? strerror(err) : "";
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(buf, sizeof buf, fmt, ap);
	if (n < 0)
		buf[0] = '\0';
	else if ((size_t)n >= sizeof buf &&
	    (big = mem_alloc((size_t)n + 1)) != NULL) {
		vsnprintf(big, (size_t)n + 1, fmt, aq);
		msg = big;
	}
	va_end(aq);
	/* a name holding a newline or a terminal escape stays one line */
	if ((shown = mem_alloc(strlen(msg) * 4 + 1)) != NULL) {
		utf8_one_line(shown, strlen(msg) * 4 + 1, msg);
		msg = shown;
	}
	fprintf(stderr, "arcturn: %s%s%s%s\n", prefix, msg, sep, why);
	if (keep && !st.have) {
		st.have = 1;
		st.err = err;
		snprintf(st.msg, sizeof st.msg, "%s%s%s", msg, sep, why);
	}
	mem_free(shown);
	mem_free(big);
}

void
say_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	line(1, 0, "", fmt, ap);
	va_end(ap);
}

void
say_errno(const char *fmt, ...)
{
	va_list ap;
	int err = errno;

	va_start(ap, fmt);
	line(1, err, "", fmt, ap);
	va_end(ap);
	errno = err;
}

void
say_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	line(0, 0, "warning: ", fmt, ap);
	va_end(ap);
}

void
say_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	line(0, 0, "", fmt, ap);
	va_end(ap);
}

void
say_usage(const char *usage)
{
	fprintf(stderr, "usage: arcturn %s\n", usage);
	if (!st.have) {
		st.have = 1;
		st.err = 0;
		snprintf(st.msg, sizeof st.msg, "usage: arcturn %s", usage);
	}
	st.code = SAY_USAGE;
}

void
say_is(enum say_code code, const char *path)
{
	if (st.code == SAY_NONE || code == SAY_USAGE)
		st.code = code;
	if (path != NULL && st.path[0] == '\0')
		snprintf(st.path, sizeof st.path, "%s", path);
}

void
say_hint(const char *hint)
{
	if (hint != NULL && st.hint[0] == '\0')
		snprintf(st.hint, sizeof st.hint, "%s", hint);
}

enum say_code
say_code_of(int err)
{
	switch (err) {
	case ENOENT:
	case ENOTDIR:
	case ESRCH:
		return SAY_NOT_FOUND;
	case EACCES:
	case EPERM:
	case EROFS:
		return SAY_PERMISSION;
	case ENOSPC:
#ifdef EDQUOT	/* not in mingw's errno.h */
	case EDQUOT:
#endif
		return SAY_NO_SPACE;
	case EBUSY:
	case EWOULDBLOCK:
		return SAY_BUSY;
	case EBADMSG:
		return SAY_DAMAGED;
	default:
		return SAY_FAILED;
	}
}

cJSON *
say_doc(const char *name)
{
	char schema[96];
	cJSON *o;

	jsonfile_hooks();
	snprintf(schema, sizeof schema, "arcturn/%s/v1",
	    name != NULL ? name : st.cmd != NULL ? st.cmd : "arcturn");
	if ((o = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(o, "schema", schema) == NULL) {
		cJSON_Delete(o);
		errno = ENOMEM;
		return NULL;
	}
	return o;
}

/* The line s and a newline to fd: 0, or -1 with errno. */
static int
put_fd(int fd, const char *s)
{
	size_t len = strlen(s), off = 0;
	ssize_t n;
	char nl = '\n';

	while (off < len) {
		if ((n = write(fd, s + off, len - off)) < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		off += (size_t)n;
	}
	while ((n = write(fd, &nl, 1)) < 0 && errno == EINTR)
		;
	return n == 1 ? 0 : -1;
}

/* Paths and messages are bytes: what is not UTF-8 becomes U+FFFD. */
int
say_print(cJSON *doc)
{
	char *txt = NULL, *clean = NULL;
	int rc = -1;

	if (doc != NULL && (txt = cJSON_PrintUnformatted(doc)) != NULL &&
	    (clean = utf8_clean(txt, strlen(txt), 1)) != NULL &&
	    (st.docfd > 0 ? put_fd(st.docfd - 1, clean) :
	    printf("%s\n", clean)) >= 0 && fflush(stdout) == 0)
		rc = 0;
	if (doc == NULL || txt == NULL || clean == NULL)
		say_err("%s: out of memory", named() ? st.cmd : "json");
	else if (rc < 0 && st.docfd > 0)
		say_errno("%s: write to --json-fd %d", named() ? st.cmd :
		    "json", st.docfd - 1);
	else if (rc < 0)
		say_errno("%s: write to standard output", named() ? st.cmd :
		    "json");
	st.printed = 1;
	mem_free(clean);
	mem_free(txt);
	cJSON_Delete(doc);
	return rc;
}

int
say_print_built(cJSON *doc, int built)
{
	if (!built) {
		cJSON_Delete(doc);
		doc = NULL;
	}
	return say_print(doc);
}

int
say_printed(void)
{
	return st.printed;
}

static enum say_code
code_for(int rc)
{
	if (st.code != SAY_NONE)
		return st.code;
	if (st.err != 0 && say_code_of(st.err) != SAY_FAILED)
		return say_code_of(st.err);
	switch (rc) {
	case EXIT_REFUSED:
		return SAY_REFUSED;
	case EXIT_NOEXEC:
		return SAY_CANNOT_RUN;
	case EXIT_NOTFOUND:
		return SAY_NOT_FOUND;
	default:
		return SAY_FAILED;
	}
}

int
say_finish(int rc)
{
	cJSON *o, *e;
	char msg[64];

	if (!st.json || rc == 0 || st.printed)
		return rc;
	if (!st.have)
		snprintf(msg, sizeof msg, "failed (exit status %d)", rc);
	if ((o = say_doc(named() ? NULL : "arcturn")) == NULL ||
	    (e = cJSON_AddObjectToObject(o, "error")) == NULL ||
	    cJSON_AddStringToObject(e, "code", words[code_for(rc)]) == NULL ||
	    cJSON_AddStringToObject(e, "message", st.have ? st.msg : msg) ==
	    NULL || (st.path[0] != '\0' &&
	    cJSON_AddStringToObject(e, "path", st.path) == NULL) ||
	    (st.hint[0] != '\0' &&
	    cJSON_AddStringToObject(e, "hint", st.hint) == NULL)) {
		cJSON_Delete(o);
		o = NULL;
	}
	(void)say_print(o);
	return rc;
}
