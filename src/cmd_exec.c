#include <err.h>

#include "cmd.h"

int cmd_exec(struct cli *c) { warnx("exec: not built yet"); return EXIT_OWN; }
int cmd_sandbox(struct cli *c) { warnx("sandbox: not built yet"); return EXIT_USAGE; }
