/*
 * bwrap_argv: the command line bwrap_run runs, checked without bwrap:
 * the roots bound as they must be, the namespaces, the helper as the
 * sandbox's init with its fds and keyrings, root's capabilities cut, and
 * the command last, whole.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mem.h"
#include "policy/policy.h"
#include "policy/roots.h"
#include "sandbox/sandbox_linux.h"
#include "tap.h"

/* The index of the first "a b" pair (b NULL: a alone) in argv, or -1. */
static long
find(char **argv, const char *a, const char *b)
{
	long i;

	for (i = 0; argv[i] != NULL; i++)
		if (strcmp(argv[i], a) == 0 && (b == NULL ||
		    (argv[i + 1] != NULL && strcmp(argv[i + 1], b) == 0)))
			return i;
	return -1;
}

static long
count(char **argv, const char *a)
{
	long i, n = 0;

	for (i = 0; argv[i] != NULL; i++)
		n += strcmp(argv[i], a) == 0;
	return n;
}

static void
t_argv(void)
{
	char *w[] = { "/w", "/tmp", "/dev/null" };
	char *prot[] = { "/w/.git/hooks" };
	char *pin[] = { "/w" };
	char *cmd[] = { "sh", "-c", "echo hi; exit 3", NULL };
	struct policy p;
	struct roots r;
	struct bwrap_fds f;
	char **argv;
	long dd, cmdat;

	memset(&p, 0, sizeof p);
	memset(&r, 0, sizeof r);
	memset(&f, 0, sizeof f);
	p.network = 1;
	p.mode = MODE_WORKSPACE_WRITE;
	p.workspace = "/w";
	p.tmpdir = "/tmp";
	p.state = "/home/me/.arcturn";
	r.w.v = w;
	r.w.n = 3;
	r.ndev = 1;		/* /dev/null: --dev gives it */
	r.p.v = prot;
	r.p.n = 1;
	r.pin.v = pin;
	r.pin.n = 1;
	f.helper = 7;
	f.info = 8;
	f.stat = 9;
	f.keys[0] = 1234;
	argv = bwrap_argv(&p, &r, cmd, &f);
	CHECK(argv != NULL);
	CHECK_STR(argv[0], "bwrap");
	/* the tree read-only, the roots bound writable, protected on top */
	CHECK(find(argv, "--ro-bind", "/") == 1);
	CHECK(find(argv, "--bind", "/w") >= 0);
	CHECK(find(argv, "--bind", "/tmp") >= 0);
	CHECK(find(argv, "--bind", "/dev/null") < 0);
	CHECK(find(argv, "--ro-bind", "/w/.git/hooks") >
	    find(argv, "--bind", "/w"));
	CHECK(count(argv, "--bind") == 3);	/* /w, /tmp, the pin /w */
	/* namespaces and lifetime */
	CHECK(find(argv, "--share-net", NULL) >= 0);
	CHECK(find(argv, "--unshare-pid", NULL) >= 0);
	CHECK(find(argv, "--unshare-ipc", NULL) >= 0);
	CHECK(find(argv, "--die-with-parent", NULL) >= 0);
	CHECK(find(argv, "--info-fd", "8") >= 0);
	/* no root: no capability words */
	CHECK(find(argv, "--cap-drop", NULL) < 0);
	/* the helper, then its options, then the command whole */
	dd = find(argv, "--", NULL);
	CHECK(dd > 0);
	CHECK_STR(argv[dd + 1], "/proc/self/fd/7");
	CHECK(find(argv, "-c", "9") > dd);
	CHECK(find(argv, "-K", "1234") > dd);
	CHECK(count(argv, "-K") == 1);		/* no second keyring */
	/* where unix sockets may be reached: the workspace, tmp, state */
	CHECK(find(argv, "-s", "/w") > dd);
	CHECK(find(argv, "-t", "/tmp") > dd);
	CHECK(find(argv, "-t", "/home/me/.arcturn") > dd);
	cmdat = find(argv, "sh", NULL);
	CHECK(cmdat > dd + 1);
	CHECK_STR(argv[cmdat - 1], "--");
	CHECK_STR(argv[cmdat + 1], "-c");
	CHECK_STR(argv[cmdat + 2], "echo hi; exit 3");
	CHECK(argv[cmdat + 3] == NULL);
	mem_free(argv);

	/* root, network off: capabilities cut to bwrap's set, no net */
	p.network = 0;
	f.root = 1;
	f.keys[0] = 0;
	argv = bwrap_argv(&p, &r, cmd, &f);
	CHECK(argv != NULL);
	CHECK(find(argv, "--unshare-net", NULL) >= 0);
	CHECK(find(argv, "--share-net", NULL) < 0);
	CHECK(find(argv, "--cap-drop", "ALL") >= 0);
	CHECK(find(argv, "--cap-add", "CAP_SYS_ADMIN") < 0);
	CHECK(find(argv, "--cap-add", "CAP_SYS_TTY_CONFIG") < 0);
	CHECK(find(argv, "--cap-add", "CAP_CHOWN") >= 0);
	CHECK(count(argv, "-K") == 0);
	mem_free(argv);

	/* out of memory: NULL, nothing leaked */
	mem_fail_after(0);
	CHECK(bwrap_argv(&p, &r, cmd, &f) == NULL && errno == ENOMEM);
	mem_fail_after(-1);
}

int
main(void)
{
	tap_run("t_argv", t_argv);
	return tap_done();
}
