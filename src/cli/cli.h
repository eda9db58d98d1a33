/*
 * cli: the command line the front ends share. The global options
 * (-C DIR, --json, --dry-run, --session ID, -q | --quiet) are taken
 * before the command by main.c and after it by cli_getopt, among the
 * command's own;
 * a bad option is said in arcturn's own form, never getopt's, with the
 * nearest option of the command when one is near.
 */
#ifndef ARCTURN_CLI_H
#define ARCTURN_CLI_H

#include <getopt.h>

#include "cli/cmd.h"

/*
 * getopt_long(3) over c's argv with the command's own shortopts and
 * longopts (a leading '+' stops at the first operand, as there). A
 * global option sets c's field and is not returned; a command that has
 * "dry-run" in longopts gets it back as its own. An unknown option, a
 * missing value or a value given to an option that takes none is said
 * (`arcturn: CMD: ...`; an unknown long option with the nearest one of
 * longopts or the globals, `(did you mean --full?)`, when it is one or
 * two edits away) and '?' returned: the caller prints its usage.
 */
int	cli_getopt(struct cli *c, const char *shortopts,
	    const struct option *longopts);

/*
 * For a command that must not run under --dry-run (given to it, before
 * it or through the config): says why and returns -1, else 0.
 */
int	cli_no_dry_run(const struct cli *c, const char *why);

/*
 * The edits (insert, delete, change, swap two) from a to b, counted up
 * to 3: what the did-you-mean of a mistyped command or option weighs.
 */
int	cli_distance(const char *a, const char *b);

/*
 * The long option of tab (ended by a NULL name) nearest to arg, as the
 * user wrote it ("--name[=value]"): one edit away for a name of up to 3
 * letters, two for a longer one; NULL when none is that near.
 */
const char *cli_nearest(const struct option *tab, const char *arg);

#endif
