/*
 * gitconfig: the syntax of a git config file, as git's config.c reads it,
 * and nothing else: no files, no includes, no meaning. gitctl reads the
 * files and decides which entries matter (core.hooksPath, core.worktree,
 * include.path, includeIf.*.path).
 *
 * gitconfig_parse walks buf (NUL-terminated) and calls fn once for each
 * `key = value` line, in order:
 *
 *	section	the section's name, lower case ("core", "includeif"), at
 *		most GITCONFIG_NAME - 1 bytes (a longer one is cut)
 *	sub	1 when the section has a subsection (`[includeIf "gitdir:x"]`,
 *		or the old `[section.sub]`); its name is not kept
 *	key	the variable's name, lower case, at most GITCONFIG_KEY - 1
		bytes
 *	value	with git's quoting undone: `"..."` quotes, the escapes \t \b
 *		\n \" \\, a backslash-newline continued line, inner white space
 *		folded to one space, trailing white space and comments (`#`,
 *		`;`) dropped; at most GITCONFIG_VALUE - 1 bytes (cut beyond)
 *
 * A key with no `=` (a boolean true, to git) is not passed on. Parsing
 * stops quietly at the first line git would refuse (a bad section header,
 * a key that does not start with a letter, an unknown escape, an open
 * quote at the line's end): git then refuses the whole file and runs
 * nothing from it, so what came before it is all that could matter.
 *
 * Errors: the errno convention. 0 when buf was walked (to its end or to
 * a line git refuses); -1 with errno ENOMEM, or with what fn left in errno
 * when fn returned -1, which stops the walk at once.
 */
#ifndef ARCTURN_GITCONFIG_H
#define ARCTURN_GITCONFIG_H

#include <limits.h>

#define GITCONFIG_NAME	32		/* section name, with its NUL */
#define GITCONFIG_KEY	64		/* key, with its NUL */
#define GITCONFIG_VALUE	PATH_MAX	/* value, with its NUL */

typedef int gitconfig_fn(const char *section, int sub, const char *key,
    const char *value, void *arg);

int	gitconfig_parse(const char *buf, gitconfig_fn *fn, void *arg);

#endif
