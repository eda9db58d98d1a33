/* Placeholder front ends for the dry-run commands (issue 3 replaces them). */
#include <err.h>

#include "cmd.h"

#define NOT_YET(fn) int fn(struct cli *c) { \
	warnx("%s: not built yet", c->argv[0]); return EXIT_USAGE; }

NOT_YET(cmd_write)
NOT_YET(cmd_edit)
NOT_YET(cmd_read)
NOT_YET(cmd_diff)
NOT_YET(cmd_apply)
NOT_YET(cmd_discard)
NOT_YET(cmd_session)
