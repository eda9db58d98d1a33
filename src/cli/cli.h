/*
 * cli: the command line the front ends share. The global options
 * (-C DIR, --json, --dry-run, --session ID, -q | --quiet) are taken
 * before the command by main.c and after it by cli_getopt, among the
 * command's own;
 * a bad option is said in arcturn's own form, never getopt's.
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
 * (`arcturn: CMD: ...`) and '?' returned: the caller prints its usage.
 */
int	cli_getopt(struct cli *c, const char *shortopts,
	    const struct option *longopts);

/*
 * For a command that must not run under --dry-run (given to it, before
 * it or through the config): says why and returns -1, else 0.
 */
int	cli_no_dry_run(const struct cli *c, const char *why);

#endif
