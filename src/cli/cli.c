/*
 * cli: the global options after the command, and arcturn's own option
 * errors (cli.h).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/say.h"

enum { G_JSON = 0x100, G_SESSION, G_DRY, G_QUIET };

static const struct option globals[] = {
	{ "json", no_argument, NULL, G_JSON },
	{ "session", required_argument, NULL, G_SESSION },
	{ "dry-run", no_argument, NULL, G_DRY },
	{ "quiet", no_argument, NULL, G_QUIET },
};
#define NGLOBALS (sizeof globals / sizeof globals[0])
#define MAXOPTS 32

/* The option the user wrote, as getopt left it: "--name[=value]". */
static const char *
given(const struct cli *c)
{
	return optind > 0 && optind <= c->argc ? c->argv[optind - 1] : "?";
}

/* 1 when name (up to '=') is an option of tab that takes no value. */
static int
takes_none(const struct option *tab, const char *arg)
{
	size_t len;

	if (strncmp(arg, "--", 2) != 0 || strchr(arg, '=') == NULL)
		return 0;
	arg += 2;
	len = (size_t)(strchr(arg, '=') - arg);
	for (; tab->name != NULL; tab++)
		if (strlen(tab->name) == len &&
		    strncmp(tab->name, arg, len) == 0)
			return tab->has_arg == no_argument;
	return 0;
}

static void
bad(const struct cli *c, const struct option *tab, int ch)
{
	const char *cmd = c->argv[0], *arg = given(c);
	int n;

	if (ch == ':' && optopt != 0 && optopt < 0x100 &&
	    strncmp(arg, "--", 2) != 0)
		say_err("%s: option -%c needs a value", cmd, optopt);
	else if (ch == ':')
		say_err("%s: option %s needs a value", cmd, arg);
	else if (takes_none(tab, arg)) {
		n = (int)(strchr(arg, '=') - arg);
		say_err("%s: %.*s takes no value (got %s)", cmd, n, arg, arg);
	} else if (optopt != 0 && optopt < 0x100 &&
	    strncmp(arg, "--", 2) != 0)
		say_err("%s: unknown option -%c", cmd, optopt);
	else
		say_err("%s: unknown option %s", cmd, arg);
	say_is(SAY_USAGE, NULL);
}

int
cli_getopt(struct cli *c, const char *shortopts, const struct option *longopts)
{
	static struct option tab[MAXOPTS + NGLOBALS + 1];
	static char opts[64];
	const char *own = shortopts;
	size_t n = 0, i;
	int ch;

	/* the command's own first: they win a name they share */
	for (; longopts != NULL && longopts[n].name != NULL && n < MAXOPTS; n++)
		tab[n] = longopts[n];
	for (i = 0; i < NGLOBALS; i++)
		tab[n++] = globals[i];
	memset(&tab[n], 0, sizeof tab[n]);
	if (*own == '+')
		own++;
	snprintf(opts, sizeof opts, "%s:C:q%s", *shortopts == '+' ? "+" : "",
	    own);
	opterr = 0;
	for (;;) {
		switch ((ch = getopt_long(c->argc, c->argv, opts, tab, NULL))) {
		case G_JSON:
			c->json = 1;
			say_start(NULL, 1);
			continue;
		case G_SESSION:
			c->session = optarg;
			continue;
		case G_DRY:
			c->dry_run = 1;
			continue;
		case 'C':
			c->dir = optarg;
			continue;
		case 'q':
		case G_QUIET:
			c->quiet = 1;
			continue;
		case '?':
		case ':':
			bad(c, tab, ch);
			return '?';
		default:
			return ch;
		}
	}
}

int
cli_no_dry_run(const struct cli *c, const char *why)
{
	if (!c->dry_run)
		return 0;
	say_err("%s: --dry-run does not apply: %s", c->argv[0], why);
	say_is(SAY_USAGE, NULL);
	return -1;
}
