/*
 * mcp_win: `arcturn mcp` on Windows. The server's tools stand on the
 * dry-run engine, which is POSIX-only (cmd_dryrun_win.c): it says so.
 */
#include <stdio.h>

#include "cli/cmd.h"

int	cmd_mcp(struct cli *);

int
cmd_mcp(struct cli *c)
{
	fprintf(stderr, "arcturn: mcp: not available on Windows yet (needs "
	    "the POSIX overlay)\n");
	return EXIT_USAGE;
}
