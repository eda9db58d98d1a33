/*
 * tap: a tiny TAP producer for the C unit tests. Each test runs in a forked
 * child so a crash fails one test, not the run. Usage:
 *
 *	static void t_something(void) { CHECK(1 + 1 == 2); }
 *	int main(void) { TEST(t_something); return tap_done(); }
 *
 * CHECK failures print a diagnostic and make the child exit 1. SKIP(why)
 * ends the test as skipped with a reason.
 */
#ifndef ARCTURN_TAP_H
#define ARCTURN_TAP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int tap_n, tap_failed;

#define CHECK(c) do { if (!(c)) { \
	fprintf(stderr, "# %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); \
	exit(1); } } while (0)
#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); \
	if (a_ == NULL || b_ == NULL || strcmp(a_, b_) != 0) { \
	fprintf(stderr, "# %s:%d: got \"%s\", want \"%s\"\n", __FILE__, __LINE__, \
	    a_ ? a_ : "(null)", b_ ? b_ : "(null)"); exit(1); } } while (0)
#define SKIP(why) do { printf("# SKIP-REASON %s\n", why); fflush(stdout); \
	exit(77); } while (0)

static void
tap_run(const char *name, void (*fn)(void))
{
	pid_t pid;
	int st;

	fflush(stdout);
	fflush(stderr);
	tap_n++;
	pid = fork();
	if (pid == 0) {
		fn();
		/* exit, not _exit: LeakSanitizer checks at exit */
		exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0) {
		printf("not ok %d - %s # fork failed\n", tap_n, name);
		tap_failed++;
		return;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		printf("ok %d - %s\n", tap_n, name);
	else if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
		printf("ok %d - %s # skip\n", tap_n, name);
	else {
		printf("not ok %d - %s\n", tap_n, name);
		if (WIFSIGNALED(st))
			printf("# killed by signal %d\n", WTERMSIG(st));
		tap_failed++;
	}
	fflush(stdout);
}

#define TEST(fn) tap_run(#fn, fn)

static int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
