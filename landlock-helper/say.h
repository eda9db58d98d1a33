/*
 * say.h: the one way the helper reports a failure before the command
 * runs. Every line reads `arcturn: [prefix]what[: path]: strerror(e)` on
 * stderr, as arcturn's own errors do, so the user cannot tell which of
 * the two programs spoke and need not.
 *
 * say_dryrun(1) puts "exec --dry-run: not running the command: " before
 * what, while a dry run is being set up (so the user knows the command
 * never ran against the real tree); say_dryrun(0) takes it away again.
 * say_prefix: that prefix, or "".
 * fail() says it with errno and exits 125: the command never runs half
 * confined.
 */
#ifndef ARCTURN_SAY_H
#define ARCTURN_SAY_H

void		say(const char *what, const char *path, int e);
void		say_dryrun(int on);
const char	*say_prefix(void);
_Noreturn void	fail(const char *what, const char *path);

#endif
