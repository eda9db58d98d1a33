/*
 * The macOS backend, compiled on Linux against a fake sandbox-exec (a
 * shell script that records its argv and runs the command after "--"):
 * the choice and its reason (what the front end turns into the
 * unavailable note or 125), exit statuses, the argv that reaches
 * sandbox-exec, and the status report. What it cannot show is what the
 * real sandbox-exec does with the profile: that needs a Mac.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define sandbox_platform	mac_sandbox_platform
#define sandbox_overlay_start	mac_sandbox_overlay_start
#define sandbox_overlay_go	mac_sandbox_overlay_go
#define sandbox_overlay_wait	mac_sandbox_overlay_wait
#define sandbox_overlay_available mac_sandbox_overlay_available
#define sandbox_probe		mac_sandbox_probe
#define sandbox_unstamp		mac_sandbox_unstamp
#define sandbox_nested		mac_sandbox_nested
static const char *fake_exec;
#define SANDBOX_EXEC_PATH	fake_exec
#include "sandbox/sandbox_macos.c"

#include "lib/mem.h"
#include "tap.h"

static char dir[64], ws[128], tmp[128], state[128], fake[128], log_[128];
static char errout[128];

static void
writefile(const char *path, const char *s, mode_t mode)
{
	int fd;

	CHECK((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)) >= 0);
	CHECK(write(fd, s, strlen(s)) == (ssize_t)strlen(s));
	close(fd);
	CHECK(chmod(path, mode) == 0);
}

static void
setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/macos_test.XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(ws, sizeof ws, "%s/ws", dir);
	snprintf(tmp, sizeof tmp, "%s/tmp", dir);
	snprintf(state, sizeof state, "%s/home/.arcturn", dir);
	snprintf(fake, sizeof fake, "%s/sandbox-exec", dir);
	snprintf(log_, sizeof log_, "%s/argv", dir);
	snprintf(errout, sizeof errout, "%s/stderr", dir);
	CHECK(mkdir(ws, 0755) == 0 && mkdir(tmp, 0755) == 0);
	snprintf(state, sizeof state, "%s/home", dir);
	CHECK(mkdir(state, 0755) == 0);
	snprintf(state, sizeof state, "%s/home/.arcturn", dir);
	/* Records each argument NUL-terminated, then runs what follows --. */
	writefile(fake, "#!/bin/sh\nprintf '%s\\0' \"$@\" >\"$FAKE_LOG\"\n"
	    "while [ \"$1\" != -- ]; do shift; done\nshift\nexec \"$@\"\n", 0755);
	setenv("FAKE_LOG", log_, 1);
	fake_exec = fake;
}

static void
cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

static void
policy(struct policy *p)
{
	memset(p, 0, sizeof *p);
	p->mode = MODE_WORKSPACE_WRITE;
	p->network = 1;
	p->workspace = ws;
	p->tmpdir = tmp;
	p->state = state;
}

static struct sandbox_choice ch;

/*
 * Choose (into ch), then run the backend in a child (it execs); the
 * command's status, and the backend's one line in errout.
 */
static int
run(const struct policy *p, char **cmd)
{
	struct sandbox_end end;
	char err[512];
	pid_t pid;
	int st, fd, rc;

	unlink(log_);
	unlink(errout);
	sandbox_decide(p, &mac_sandbox_platform, &ch);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		fd = open(errout, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		err[0] = '\0';
		rc = sandbox_start(&mac_sandbox_platform, p, &ch, cmd, &end,
		    err, sizeof err);
		fprintf(stderr, "arcturn: %s\n", err);
		_exit(rc);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st));
	return WEXITSTATUS(st);
}

static int
errcontains(const char *s)
{
	char buf[4096];
	ssize_t n;
	int fd;

	CHECK((fd = open(errout, O_RDONLY)) >= 0);
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return strstr(buf, s) != NULL;
}

/* The recorded argv, as a vector (static storage). */
static int
logged(char **v, int max)
{
	static char buf[65536];
	ssize_t n;
	int fd, k = 0;
	char *s;

	if ((fd = open(log_, O_RDONLY)) < 0)
		return -1;
	n = read(fd, buf, sizeof buf);
	close(fd);
	for (s = buf; s < buf + n && k < max - 1; s += strlen(s) + 1)
		v[k++] = s;
	v[k] = NULL;
	return k;
}

static void
t_exec_through_sandbox_exec(void)
{
	char out[160], lnk[160], want[200], *v[64];
	char *cmd[] = { "sh", "-c", "echo hi >\"$1\"; exit 7", "sh", out, NULL };
	struct policy p;
	int n, i, found = 0;
	struct stat st;

	setup();
	/* the temp dir is given through a link: it arrives resolved */
	snprintf(lnk, sizeof lnk, "%s/tmplink", dir);
	CHECK(symlink(tmp, lnk) == 0);
	snprintf(out, sizeof out, "%s/out", ws);
	policy(&p);
	p.tmpdir = lnk;
	CHECK(run(&p, cmd) == 7);
	CHECK(stat(out, &st) == 0);		/* the command ran */
	CHECK(stat(state, &st) == 0 && S_ISDIR(st.st_mode)); /* state made */
	n = logged(v, 64);
	CHECK(n > 8);
	CHECK_STR(v[0], "-p");
	CHECK(strstr(v[1], "(version 1)") != NULL);
	CHECK(strstr(v[1], dir) == NULL);	/* no path in the profile */
	snprintf(want, sizeof want, "WRITABLE_ROOT_1=%s", tmp);
	for (i = 2; i < n; i++)
		found |= strcmp(v[i], want) == 0 && strcmp(v[i - 1], "-D") == 0;
	CHECK(found);
	CHECK_STR(v[n - 6], "--");
	CHECK_STR(v[n - 5], "sh");
	CHECK_STR(v[n - 1], out);
	cleanup();
}

static void
t_not_found_and_not_executable(void)
{
	char *missing[] = { "arcturn-no-such-command", NULL };
	char *rel[] = { "./nope", NULL };
	char noexec[160], *ne[] = { noexec, NULL };
	struct policy p;

	setup();
	policy(&p);
	CHECK(run(&p, missing) == 127);
	CHECK(logged((char *[4]){ 0 }, 4) == -1);	/* never reached it */
	CHECK(errcontains("arcturn-no-such-command: command not found"));
	CHECK(run(&p, rel) == 127);
	snprintf(noexec, sizeof noexec, "%s/data.txt", dir);
	writefile(noexec, "not a program\n", 0644);
	CHECK(run(&p, ne) == 126);
	CHECK(run(&p, (char *[]){ dir, NULL }) == 126);	/* a directory */
	cleanup();
}

static void
t_unavailable(void)
{
	char *cmd[] = { "sh", "-c", "exit 3", NULL };
	struct policy p;

	setup();
	fake_exec = "/nonexistent/sandbox-exec";
	policy(&p);
	/* no backend, and why: the front end prints the note, runs it */
	CHECK(run(&p, cmd) == 3);
	CHECK(ch.verdict == SANDBOX_NONE);
	CHECK_STR(ch.name, "none");
	CHECK_STR(ch.why, "/nonexistent/sandbox-exec: No such file or directory");
	CHECK(logged((char *[4]){ 0 }, 4) == -1);
	/* a forced seatbelt that cannot run is unavailable all the same */
	p.backend = "seatbelt";
	CHECK(run(&p, cmd) == 3);
	CHECK(ch.verdict == SANDBOX_NONE && ch.forced);
	CHECK_STR(ch.why, "forced by ARCTURN_BACKEND=seatbelt, but "
	    "/nonexistent/sandbox-exec: No such file or directory");
	cleanup();
}

static void
t_backend_env(void)
{
	char *cmd[] = { "sh", "-c", "exit 4", NULL };
	struct policy p;

	setup();
	policy(&p);
	p.backend = "helper";
	CHECK(run(&p, cmd) == 125);
	CHECK(ch.verdict == SANDBOX_BAD);
	CHECK(errcontains("ARCTURN_BACKEND=helper: unknown backend (seatbelt, "
	    "none)"));
	CHECK(logged((char *[4]){ 0 }, 4) == -1);
	p.backend = "none";
	CHECK(run(&p, cmd) == 4);
	CHECK(ch.verdict == SANDBOX_NONE && ch.forced);
	CHECK_STR(ch.why, "forced by ARCTURN_BACKEND=none");
	CHECK(logged((char *[4]){ 0 }, 4) == -1);
	p.backend = "seatbelt";
	CHECK(run(&p, cmd) == 4);
	CHECK(ch.verdict == SANDBOX_CONFINE && ch.forced);
	CHECK(logged((char *[64]){ 0 }, 64) > 5);
	/* not forced: seatbelt because sandbox-exec is there */
	p.backend = NULL;
	CHECK(run(&p, cmd) == 4);
	CHECK(ch.verdict == SANDBOX_CONFINE && !ch.forced);
	CHECK_STR(ch.name, "seatbelt");
	CHECK(strstr(ch.why, "is present") != NULL);
	/* mode off: no sandbox-exec, whatever ARCTURN_BACKEND says */
	p.backend = "bogus";
	p.mode = MODE_OFF;
	CHECK(run(&p, cmd) == 4);
	CHECK(ch.verdict == SANDBOX_OFF);
	CHECK(logged((char *[4]){ 0 }, 4) == -1);
	CHECK(!errcontains("note:"));
	cleanup();
}

static void
t_bad_root_is_own_failure(void)
{
	char *cmd[] = { "true", NULL };
	char *grants[] = { "relative" };
	struct policy p;

	setup();
	policy(&p);
	p.grants.v = grants;
	p.grants.n = 1;
	CHECK(run(&p, cmd) == 125);
	CHECK(errcontains("grant: relative: Invalid argument"));
	CHECK(logged((char *[4]){ 0 }, 4) == -1);
	cleanup();
}

/* choose, then probe; every guarantee of the table is reported on */
static void
probe(const struct policy *p, struct sandbox_report *r)
{
	int i;

	sandbox_decide(p, &mac_sandbox_platform, &ch);
	mac_sandbox_probe(p, &ch, r);
	for (i = 0; i < SANDBOX_NKEYS; i++) {
		CHECK(r->g[i].set);
		CHECK(r->g[i].why[0] != '\0');
	}
}

static void
t_probe_is_honest(void)
{
	struct sandbox_report r;
	struct policy p;
	int i, verified = 0;

	setup();
	policy(&p);
	probe(&p, &r);
	CHECK_STR(r.backend, "seatbelt");
	for (i = 0; i < r.nfacts; i++)
		if (strcmp(r.facts[i].key, "verified") == 0)
			verified = strstr(r.facts[i].value,
			    "never run on a real Mac") != NULL;
	CHECK(verified);
	CHECK(r.dry_run_exec == 0);
	CHECK(r.g[SG_WRITES].holds);
	CHECK(strstr(r.g[SG_WRITES].why, "never run on a real Mac") != NULL);
	fake_exec = "/nonexistent/sandbox-exec";
	probe(&p, &r);
	CHECK_STR(r.backend, "none");
	CHECK(r.g[SG_WRITES].holds == 0);
	CHECK(strstr(r.why, "; exec runs the command unconfined") != NULL);
	p.require_sandbox = 1;
	probe(&p, &r);
	CHECK(strstr(r.why, "; exec exits 125") != NULL);
	p.mode = MODE_OFF;
	probe(&p, &r);
	CHECK_STR(r.backend, "off");
	CHECK(r.g[SG_WRITES].holds == 0);
	cleanup();
}

static void
t_stubs(void)
{
	struct sandbox_overlay_run *run;
	struct policy p;
	char err[256], *cmd[] = { "true", NULL };

	setup();
	policy(&p);
	CHECK(mac_sandbox_unstamp(&p, NULL, err, sizeof err) == -1);
	CHECK(errno == ENOTSUP);
	CHECK(mac_sandbox_overlay_start(&p, "u", "w", -1, cmd, &run, err,
	    sizeof err) == -1 && run == NULL);
	CHECK(strstr(err, "not available on macOS yet") != NULL);
	cleanup();
}

int
main(void)
{
	TEST(t_exec_through_sandbox_exec);
	TEST(t_not_found_and_not_executable);
	TEST(t_unavailable);
	TEST(t_backend_env);
	TEST(t_bad_root_is_own_failure);
	TEST(t_probe_is_honest);
	TEST(t_stubs);
	return tap_done();
}
