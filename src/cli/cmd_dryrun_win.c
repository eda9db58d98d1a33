/*
 * cmd_dryrun_win: the dry-run commands on Windows. The dry-run engine
 * (sessions, shadow tree, apply) is written against POSIX file calls and
 * is not built for Windows yet; each command says so plainly.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "policy/config.h"
#include "sandbox/sandbox.h"

#define NOT_ON_WINDOWS(fn, name) int fn(struct cli *c) {		\
	fprintf(stderr, "arcturn: %s: not available on Windows yet "	\
	    "(needs the POSIX overlay)\n", name);			\
	return EXIT_USAGE; }

NOT_ON_WINDOWS(cmd_write, "write")
NOT_ON_WINDOWS(cmd_edit, "edit")
NOT_ON_WINDOWS(cmd_read, "read")
NOT_ON_WINDOWS(cmd_diff, "diff")
NOT_ON_WINDOWS(cmd_apply, "apply")
NOT_ON_WINDOWS(cmd_discard, "discard")
NOT_ON_WINDOWS(cmd_session, "session")
NOT_ON_WINDOWS(cmd_turn, "turn")
NOT_ON_WINDOWS(cmd_rewind, "rewind")
NOT_ON_WINDOWS(cmd_undo, "undo")
NOT_ON_WINDOWS(cmd_checkpoints, "checkpoints")

int
dryrun_exec(struct policy *p, char **argv, struct sandbox_end *end)
{
	(void)argv;
	memset(end, 0, sizeof *end);
	end->status = EXIT_OWN;
	policy_free(p);
	fprintf(stderr, "arcturn: exec --dry-run: not available on Windows yet "
	    "(needs the POSIX overlay); not running the command\n");
	return EXIT_OWN;
}

int
dryrun_exec_checkpoint(struct policy *p, struct cli *c, char **argv,
    int join, struct sandbox_end *end)
{
	(void)c;
	memset(end, 0, sizeof *end);
	end->status = EXIT_OWN;
	(void)argv;
	policy_free(p);
	fprintf(stderr, "arcturn: exec --checkpoint: not available on Windows "
	    "yet (needs the POSIX overlay); not running the command\n");
	return EXIT_OWN;
}
