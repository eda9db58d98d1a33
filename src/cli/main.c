#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildinfo.h"	/* generated per target by the Makefile */
#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/say.h"
#include "lib/jsonfile.h"
#include "uapi/landlock_uapi.h"

#ifdef __linux__
/*
 * The binary's one sscanf is cJSON's "%lg", reading a number it printed
 * back to check its precision: strtod does that. musl's scanf family
 * would add 4 KB for nothing. Any other format is refused.
 */
int
sscanf(const char *restrict s, const char *restrict fmt, ...)
{
	va_list ap;
	char *end;
	double d;

	if (strcmp(fmt, "%lg") != 0) {
		errno = EINVAL;
		return EOF;
	}
	d = strtod(s, &end);
	if (end == s)
		return strspn(s, " \t\n\v\f\r") == strlen(s) ? EOF : 0;
	va_start(ap, fmt);
	*va_arg(ap, double *) = d;
	va_end(ap);
	return 1;
}
#endif

int	cmd_mcp(struct cli *);	/* mcp.h (mcp_win.c on Windows) */

struct command {
	const char	*name;
	int		(*fn)(struct cli *);
	const char	*usage;
	const char	*help;
	const char	*brief;		/* one line for the list in --help */
};

static const struct command commands[] = {
	{ "exec", cmd_exec,
	  "exec [--sandbox MODE] [--grant PATH]... [--dry-run | --checkpoint\n"
	  "             [--join-turn]] [--require-sandbox] [--network on|off]\n"
	  "             [--allow-unix PATH]...\n"
	  "             [--cwd DIR] [--explain] [--json-fd N]\n"
	  "             [--] CMD [ARG]...",
	  "Run CMD so that it can write only inside the workspace, the temp dir,\n"
	  "arcturn's state dir and granted paths. Reads, exec and network stay\n"
	  "as they were. CMD runs in the current directory, or in the workspace\n"
	  "when one is named before the command (as git and make do with theirs).\n\n"
	  "  --cwd DIR           run CMD in DIR: relative to the workspace, or\n"
	  "                      absolute; it must lie inside the workspace\n"
	  "  --sandbox MODE      off, workspace-write (default) or read-only\n"
	  "  --grant PATH        also allow writes beneath PATH (absolute, or ~/...;\n"
	  "                      a missing one beneath your home is created, 0700)\n"
	  "  --dry-run           capture every write into the dry-run session\n"
	  "  --checkpoint        as --dry-run, then apply it all as one undoable turn\n"
	  "  --join-turn         with --checkpoint: add to the turn `arcturn turn`\n"
	  "                      began instead of a turn of its own\n"
	  "  --require-sandbox   exit 125 instead of running unconfined\n"
	  "  --network on|off    keep or cut network access (default on)\n"
	  "  --allow-unix PATH   also allow connecting to the unix socket PATH (or\n"
	  "                      those beneath it; \"all\": every one), with the\n"
	  "                      network on\n"
	  "  --explain           when CMD fails, name where it may write and\n"
	  "                      --grant (also without it on a terminal)\n"
	  "  --json-fd N         say how CMD ended in JSON on file descriptor\n"
	  "                      N, a line of its own whatever CMD printed\n\n"
	  "Exit status: CMD's own, 128+N if killed by signal N, 125 if arcturn\n"
	  "failed, 126 if CMD could not run, 127 if CMD was not found. Asked for\n"
	  "JSON, arcturn says how it ended in one line after CMD's own output\n"
	  "(which may lack its final newline: --json-fd keeps the two apart).\n"
	  "ARCTURN_BACKEND=helper|helper-landlock|bwrap|none forces a backend.",
	  "run a command that may write only in the workspace and grants" },
	{ "sandbox", cmd_sandbox,
	  "sandbox status [--json] | sandbox unstamp [PATH]",
	  "Show which backend `arcturn exec` would use here, why the others\n"
	  "were skipped, and which guarantees hold on this machine (--json for\n"
	  "a machine-readable report). `unstamp` (Windows) restores the\n"
	  "integrity labels arcturn stamped on writable roots.",
	  "say which sandbox runs here, and what it guarantees" },
	{ "write", cmd_write, "write [--dry-run] [--expect-sha256 HEX] PATH",
	  "Write standard input to PATH, a file inside the workspace (into\n"
	  "the session under dry run).\n\n"
	  "  --dry-run            write into the dry-run session, not the\n"
	  "                       real file\n"
	  "  --expect-sha256 HEX  write only over content with this SHA-256\n"
	  "                       (what you read), else refuse\n\n"
	  "  $ make-config | arcturn write etc/app.conf",
	  "write standard input to a file (a file tool for agents)" },
	{ "edit", cmd_edit, "edit [--dry-run] PATH --old TEXT --new TEXT [--all]",
	  "Replace the one occurrence of TEXT in PATH, a file inside the\n"
	  "workspace.\n\n"
	  "  --old TEXT  the text to replace: it must occur exactly once\n"
	  "  --new TEXT  what replaces it\n"
	  "  --all       replace every occurrence instead\n"
	  "  --dry-run   edit the dry-run session's copy, not the real file\n\n"
	  "  $ arcturn edit src/main.c --old 'int x;' --new 'long x;'",
	  "replace one text in a file" },
	{ "read", cmd_read, "read [--dry-run] PATH",
	  "Print PATH: under dry run (--dry-run, dryRun in the config or\n"
	  "ARCTURN_DRY_RUN), as the pending session sees it; else the real\n"
	  "file.\n\n"
	  "  --dry-run   read the file as the dry-run session has it",
	  "print a file as the pending changes see it" },
	{ "diff", cmd_diff,
	  "diff [--full] [--stat] [--name-only] [--name-status]\n"
	  "             [--color=auto|always|never] [--no-pager] [PATH]...",
	  "Show every pending change (or those at or beneath PATH) as one\n"
	  "git-style diff, each file's first 200 body lines unless --full;\n"
	  "on a terminal through the pager ($PAGER) unless --no-pager.\n\n"
	  "  --full            no cap on the lines shown per file\n"
	  "  --stat            a diffstat instead of the diff\n"
	  "  --name-only       the changed paths, one a line\n"
	  "  --name-status     the paths, each after its status letter\n"
	  "  --color[=WHEN]    auto (default), always or never; --colour too\n"
	  "  --no-pager        never page the output\n\n"
	  "  $ arcturn diff --stat; arcturn diff src/",
	  "review the pending changes as one git-style diff" },
	{ "apply", cmd_apply,
	  "apply [--yes] [--expect DIGEST] [--force PATH...]\n"
	  "              [--progress-fd N] [PATH]...",
	  "Apply pending changes to the workspace, file by file, as one undoable\n"
	  "turn (only those at or beneath each PATH, when given).\n\n"
	  "  -y, --yes         do not ask first\n"
	  "  --expect DIGEST   apply only if the changes are still those\n"
	  "                    whose digest `arcturn diff` showed\n"
	  "  --force PATH...   land the named paths over conflicts\n"
	  "  --progress-fd N   for a program: a line DONE TOTAL on\n"
	  "                    descriptor N as each file is done\n\n"
	  "  $ arcturn apply --expect 3f2a...   land exactly what was reviewed",
	  "land the pending changes, as one undoable turn" },
	{ "discard", cmd_discard, "discard [--yes] [PATH]...",
	  "Throw away the pending changes of the session (only those of each\n"
	  "PATH, when given).\n\n"
	  "  -y, --yes   do not ask first",
	  "throw the pending changes away" },
	{ "session", cmd_session, "session list|show|rm [--yes] [ID]",
	  "List, show or remove dry-run sessions (rm asks first, as discard\n"
	  "does, unless --yes).\n\n"
	  "  -y, --yes   rm: do not ask first",
	  "list, show or remove dry-run sessions" },
	{ "turn", cmd_turn, "turn [--label TEXT]",
	  "Start a turn: later writes and edits join it, and rewind or undo\n"
	  "take it back as one. Without it, each write or edit is a turn.\n\n"
	  "  --label TEXT   what the turn is for, shown by checkpoints",
	  "start a turn that later writes join" },
	{ "rewind", cmd_rewind, "rewind [TURN] [--force]",
	  "Restore every path the turns since TURN (default: the last one)\n"
	  "changed to its state before them. A path changed since is a\n"
	  "conflict: nothing is restored unless --force. The rewind is a turn\n"
	  "itself.\n\n"
	  "  --force   restore over paths changed since, too",
	  "put back what the turns since TURN changed" },
	{ "undo", cmd_undo, "undo [--force]",
	  "Rewind the last turn (undo twice: redo).\n\n"
	  "  --force   restore over paths changed since, too",
	  "take the last turn back (twice: redo)" },
	{ "checkpoints", cmd_checkpoints,
	  "checkpoints [--json] [--prune-damaged]",
	  "List the turns of the workspace, newest first, with their paths.\n"
	  "A damaged record is listed as such; --prune-damaged removes it.",
	  "list the turns, newest first" },
	{ "mcp", cmd_mcp, "mcp [--dry-run] [--allow-apply] [--max-output BYTES]",
	  "Serve the workspace to an agent as an MCP server over stdio\n"
	  "(newline-delimited JSON-RPC): file, search, command, review and\n"
	  "turn tools with the policy of the commands above, calls served\n"
	  "side by side.\n\n"
	  "  --dry-run       capture writes and commands in the dry-run session\n"
	  "  --allow-apply   also offer apply_changes (default: a human applies)\n"
	  "  --max-output BYTES  text a listing or search returns (default 65536)",
	  "serve the workspace to an agent over MCP (stdio)" },
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void
usage_all(FILE *f)
{
	size_t i;

	fprintf(f, "usage: arcturn [-C DIR] [--session ID] [--json] [-q | --quiet] COMMAND ...\n\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "       arcturn %s\n", commands[i].usage);
	fprintf(f, "       arcturn --version | --help | COMMAND --help\n");
}

/* --help and `arcturn help`: the usage, what each command does, examples. */
static int
help_all(void)
{
	size_t i;

	usage_all(stdout);
	printf("\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		printf("  %-12s %s\n", commands[i].name, commands[i].brief);
	printf("\nexamples:\n"
	    "  $ arcturn exec -- make test             build and test; writes stay\n"
	    "                                          in the workspace and temp dir\n"
	    "  $ arcturn exec --grant '~/.npm' -- npm install\n"
	    "                                          and let npm keep its cache\n"
	    "  $ arcturn exec --dry-run -- sh build.sh capture every change instead\n"
	    "  $ arcturn diff; arcturn apply           review them, then land them\n"
	    "  $ arcturn undo                          take the last turn back\n"
	    "\n`arcturn help COMMAND` (or COMMAND --help) says more of one.\n");
	return fflush(stdout) == 0 ? 0 : EXIT_USAGE;
}

static int
help_one(const struct command *cmd)
{
	printf("usage: arcturn %s\n\n%s\n", cmd->usage, cmd->help);
	return fflush(stdout) == 0 ? 0 : EXIT_USAGE;
}

static const struct command *
find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/* The command name closest to a mistyped one (two edits at most), or NULL. */
static const char *
suggest(const char *name)
{
	const char *best = NULL;
	size_t i;
	int d, bd = 3;

	for (i = 0; i < NCOMMANDS; i++)
		if ((d = cli_distance(name, commands[i].name)) < bd) {
			bd = d;
			best = commands[i].name;
		}
	return bd <= (strlen(name) > 3 ? 2 : 1) ? best : NULL;
}

void
cmd_usage(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			say_usage(commands[i].usage);
}

/* A usage error among the global options. */
static int
bad_usage(const struct cli *cli)
{
	usage_all(stderr);
	say_start("", cli->json);
	say_is(SAY_USAGE, NULL);
	return say_finish(EXIT_USAGE);
}

/* The first line stays `arcturn VERSION`: scripts read it. */
static int
version(int json)
{
	const char *helper = BUILD_HELPER_SHA256;
	int abi;

	if (!json) {
		printf("arcturn %s\n", ARCTURN_VERSION);
		printf("commit: %s\n", BUILD_COMMIT);
		printf("target: %s\n", BUILD_TARGET);
		printf("helper: %s%s\n", *helper ? "landlock-helper sha256 " :
		    "none", helper);
		printf("landlock: knows ABI 1 to %d\n", LANDLOCK_ABI_KNOWN);
	} else {
		printf("{\"schema\":\"arcturn/version/v1\",\"version\":\"%s\","
		    "\"commit\":\"%s\",\"target\":\"%s\",\"helper_sha256\":",
		    ARCTURN_VERSION, BUILD_COMMIT, BUILD_TARGET);
		if (*helper)
			printf("\"%s\"", helper);
		else
			printf("null");
		printf(",\"landlock_abis\":[");
		for (abi = 1; abi <= LANDLOCK_ABI_KNOWN; abi++)
			printf("%s%d", abi > 1 ? "," : "", abi);
		printf("]}\n");
	}
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : EXIT_USAGE;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "session", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "dry-run", no_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct cli cli = { 0 };
	const struct command *cmd = NULL;
	const char *near;
	size_t i;
	int c, rc, ver = 0;

	jsonfile_hooks();	/* before any cJSON tree is made */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:C:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'C':
			cli.dir = optarg;
			break;
		case 's':
			cli.session = optarg;
			break;
		case 'j':
			cli.json = 1;
			break;
		case 'd':
			cli.dry_run = 1;
			break;
		case 'q':
			cli.quiet = 1;
			break;
		case 'h':
			return help_all();
		case 'V':
			ver = 1;	/* after the loop: --json may follow */
			break;
		case ':':
			if (optopt != 0)
				say_err("option -%c needs a value", optopt);
			else
				say_err("option %s needs a value",
				    argv[optind - 1]);
			return bad_usage(&cli);
		default:
			if (optopt != 0)
				say_err("unknown option -%c", optopt);
			else if ((near = cli_nearest(opts,
			    argv[optind - 1])) != NULL)
				say_err("unknown option %s (did you mean "
				    "--%s?)", argv[optind - 1], near);
			else
				say_err("unknown option %s", argv[optind - 1]);
			return bad_usage(&cli);
		}
	}
	if (ver)
		return version(cli.json);
	/* `help` and `help COMMAND`, as --help and COMMAND --help */
	if (optind < argc && strcmp(argv[optind], "help") == 0) {
		/* the first word after it; --json anywhere (for an error) */
		for (i = (size_t)optind + 1, c = 0; i < (size_t)argc; i++)
			if (strcmp(argv[i], "--json") == 0)
				cli.json = 1;
			else if (c == 0 && argv[i][0] != '-')
				c = (int)i;
		if (c == 0)
			return help_all();
		if ((cmd = find_command(argv[c])) != NULL)
			return help_one(cmd);
		optind = c;	/* the unknown one is told below */
	}
	if (optind < argc && (cmd = find_command(argv[optind])) == NULL)
		/* what a mistyped command was asked for: --json after it */
		for (i = (size_t)optind + 1; i < (size_t)argc; i++)
			if (strcmp(argv[i], "--json") == 0)
				cli.json = 1;
	say_start("", cli.json);
	if (optind >= argc) {
		say_err("no command given (see arcturn --help)");
		say_is(SAY_USAGE, NULL);
		usage_all(stderr);
		return say_finish(EXIT_USAGE);
	}
	if (cmd == NULL) {
		near = suggest(argv[optind]);
		if (near != NULL)
			say_err("unknown command: %s (did you mean '%s'? see "
			    "arcturn --help)", argv[optind], near);
		else
			say_err("unknown command: %s (see arcturn --help)",
			    argv[optind]);
		say_is(SAY_USAGE, NULL);
		return say_finish(EXIT_USAGE);
	}
	cli.argc = argc - optind;
	cli.argv = argv + optind;
	if (cli.argc > 1 && (strcmp(cli.argv[1], "--help") == 0 ||
	    strcmp(cli.argv[1], "-h") == 0))
		return help_one(cmd);
	/* getopt state is reset for the command's own parser. */
	optind = 0;
	say_start(cmd->name, cli.json);
	rc = cmd->fn(&cli);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		say_errno("write to standard output");
		if (rc == 0)
			rc = strcmp(cmd->name, "exec") == 0 ? EXIT_OWN : EXIT_USAGE;
	}
	return say_finish(rc);
}
