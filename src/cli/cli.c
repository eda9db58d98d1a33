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

int
cli_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	int d[32][32], v;

	if (la > 31 || lb > 31)
		return 3;
	for (i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb] < 3 ? d[la][lb] : 3;
}

const char *
cli_nearest(const struct option *tab, const char *arg)
{
	char name[32];
	const char *best = NULL;
	size_t len;
	int d, bd = 3;

	if (strncmp(arg, "--", 2) != 0)
		return NULL;
	arg += 2;
	len = strcspn(arg, "=");
	if (len == 0 || len >= sizeof name)
		return NULL;
	memcpy(name, arg, len);
	name[len] = '\0';
	for (; tab->name != NULL; tab++)
		if ((d = cli_distance(name, tab->name)) < bd) {
			bd = d;
			best = tab->name;
		}
	return bd <= (len > 3 ? 2 : 1) ? best : NULL;
}

static void
bad(const struct cli *c, const struct option *tab, int ch)
{
	const char *cmd = c->argv[0], *arg = given(c), *near;
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
	else if ((near = cli_nearest(tab, arg)) != NULL)
		say_err("%s: unknown option %s (did you mean --%s?)", cmd,
		    arg, near);
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
