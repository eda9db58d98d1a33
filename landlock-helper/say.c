/*
 * say.c: failure reporting (say.h).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "fmt.h"
#include "say.h"

static const char *prefix = "";

void
say_dryrun(int on)
{
	prefix = on ? "exec --dry-run: not running the command: " : "";
}

const char *
say_prefix(void)
{
	return prefix;
}

void
say(const char *what, const char *path, int e)
{
	if (path != NULL)
		fmt_err("arcturn: %s%s: %s: %s\n", prefix, what, path,
		    strerror(e));
	else
		fmt_err("arcturn: %s%s: %s\n", prefix, what, strerror(e));
}

_Noreturn void
fail(const char *what, const char *path)
{
	say(what, path, errno);
	_exit(125);
}
