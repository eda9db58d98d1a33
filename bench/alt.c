/*
 * alt: time commands in alternating rounds (A B C A B C ...), so that a
 * machine whose speed drifts (other jobs, frequency) slows every command
 * alike, and print each command's median and the median of its per-round
 * ratio to the first command's time.
 *
 *	alt RUNS [-e VAR=VALUE]... NAME CMD [ARG]... [:: [-e ...] NAME CMD ...]...
 *
 * Commands are separated by "::" (a command may have "--" of its own).
 * Each command is started with posix_spawn (no shell), in the caller's
 * environment plus its own -e settings, its output sent to /dev/null.
 * Output, one line per command:  NAME median_ms ratio_to_first
 * Exit status 1 when a command could not be run or failed.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAXCMD	8
#define MAXENV	8

struct cmd {
	const char	 *name;
	char		**argv;
	char		**envp;
	double		 *ms;
	double		 *ratio;
};

static int
cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmpd);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static char **
with_env(char **add, int nadd)
{
	char **e;
	size_t n = 0, i;

	while (environ[n] != NULL)
		n++;
	if ((e = calloc(n + (size_t)nadd + 1, sizeof *e)) == NULL)
		err(1, "calloc");
	for (i = 0; i < (size_t)nadd; i++)
		e[i] = add[i];
	memcpy(e + nadd, environ, n * sizeof *e);
	return e;
}

static double
run(const struct cmd *c, posix_spawn_file_actions_t *fa)
{
	struct timespec a, b;
	pid_t pid;
	int st;

	clock_gettime(CLOCK_MONOTONIC, &a);
	if ((errno = posix_spawnp(&pid, c->argv[0], fa, NULL, c->argv,
	    c->envp)) != 0)
		err(1, "%s", c->argv[0]);
	if (waitpid(pid, &st, 0) < 0)
		err(1, "waitpid");
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		errx(1, "%s: failed (status %#x)", c->name, st);
	return (double)(b.tv_sec - a.tv_sec) * 1e3 +
	    (double)(b.tv_nsec - a.tv_nsec) / 1e6;
}

int
main(int argc, char **argv)
{
	struct cmd c[MAXCMD];
	posix_spawn_file_actions_t fa;
	char *env[MAXENV];
	int runs, nc = 0, ne, i, k, warm;

	if (argc < 4 || (runs = atoi(argv[1])) <= 0)
		errx(2, "usage: alt RUNS [-e VAR=VALUE]... NAME CMD [ARG]... "
		    "[:: ...]...");
	for (i = 2; i < argc && nc < MAXCMD; nc++) {
		ne = 0;
		while (i + 1 < argc && strcmp(argv[i], "-e") == 0 &&
		    ne < MAXENV) {
			env[ne++] = argv[i + 1];
			i += 2;
		}
		if (i + 1 >= argc)
			errx(2, "NAME and CMD expected");
		c[nc].name = argv[i++];
		c[nc].argv = argv + i;
		c[nc].envp = with_env(env, ne);
		while (i < argc && strcmp(argv[i], "::") != 0)
			i++;
		if (i < argc)
			argv[i++] = NULL;
		c[nc].ms = calloc((size_t)runs, sizeof(double));
		c[nc].ratio = calloc((size_t)runs, sizeof(double));
		if (c[nc].ms == NULL || c[nc].ratio == NULL)
			err(1, "calloc");
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	warm = runs / 10 < 5 ? 5 : runs / 10;
	for (i = 0; i < warm; i++)
		for (k = 0; k < nc; k++)
			(void)run(&c[k], &fa);
	for (i = 0; i < runs; i++) {
		/* rotate who goes first, so no command always follows another */
		for (k = 0; k < nc; k++) {
			int j = (k + i) % nc;

			c[j].ms[i] = run(&c[j], &fa);
		}
		for (k = 0; k < nc; k++)
			c[k].ratio[i] = c[k].ms[i] / c[0].ms[i];
	}
	for (k = 0; k < nc; k++)
		printf("%s %.3f %.3f\n", c[k].name, median(c[k].ms, runs),
		    median(c[k].ratio, runs));
	return 0;
}
