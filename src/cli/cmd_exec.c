/*
 * cmd_exec: the portable front end of `arcturn exec` (`arcturn sandbox` is
 * cmd_sandbox.c). Parses flags, builds the policy (config.c), lets the
 * platform backend decide (sandbox.h), says what the decision means, and
 * hands over. With
 * --json, exec waits for the command and says how it ended, in one line
 * after the command's own output; with --json-fd N, on fd N instead (a
 * line of its own even when that output lacks a final newline).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/say.h"
#include "lib/mem.h"
#include "lib/path.h"
#include "policy/config.h"
#include "policy/grants.h"
#include "policy/roots.h"
#include "sandbox/sandbox.h"
#ifdef _WIN32
#include <windows.h>
#else
#include "session/session.h"
#endif

void
cmd_roots_text(const struct roots *r, char *buf, size_t len)
{
	static const char *const label[] = {
		[ROOTS_R_WORKSPACE] = "workspace",
		[ROOTS_R_TMPDIR] = "temp dir",
		[ROOTS_R_STATE] = "state dir",
		[ROOTS_R_GRANT] = "grant",
		[ROOTS_R_GITDIR] = "git dir",
	};
	const char *more = ", ...";
	size_t i, n = 0;
	int k, w;

	buf[0] = '\0';
	for (i = 0; i < r->w.n - r->ndev; i++) {
		k = r->wrule != NULL ? r->wrule[i] : ROOTS_R_GRANT;
		if (k > ROOTS_R_GITDIR)
			continue;
		w = snprintf(buf + n, len - n, "%s%s %s", n > 0 ? ", " : "",
		    label[k], r->w.v[i]);
		if (w < 0 || (size_t)w >= len - n - strlen(more)) {
			/* cut at the last whole entry */
			buf[n] = '\0';
			if (n + strlen(more) < len)
				strcat(buf, more);
			return;
		}
		n += (size_t)w;
	}
}

static void
warn_cb(const char *msg, void *arg)
{
	(void)arg;
	say_warn("%s", msg);
}

int
cmd_load(struct cli *c, struct config_flags *f, struct policy *p)
{
	char err[512];

	f->dir = c->dir;
	f->session = c->session;
	if (config_load(p, f, err, sizeof err, warn_cb, NULL) < 0) {
		say_err("%s", err);
		return -1;
	}
	return 0;
}

const char *
cmd_tilde(const struct policy *p, const char *path, char *buf, size_t len)
{
	const char *t = p->home != NULL && strcmp(p->home, "/") != 0 ?
	    path_tail(path, p->home) : NULL;

	if (t == NULL)
		return path;
	snprintf(buf, len, "~%s%s", t[0] != '\0' ? "/" : "", t);
	return buf;
}

static void
grant_note(const char *path, void *arg)
{
	const struct policy *p = arg;
	char buf[PATH_MAX + 2];

	say_note("exec: created %s for a grant (it did not exist)",
	    cmd_tilde(p, path, buf, sizeof buf));
}

/*
 * The grants beneath home that do not exist yet, made now that the
 * command will run (grants.h); each said unless -q. 0, or -1 said.
 */
static int
make_grants(const struct cli *c, struct policy *p)
{
	char err[PATH_MAX + 160];

	if (grants_make(p, c->quiet ? NULL : grant_note, p, err,
	    sizeof err) == 0)
		return 0;
	say_err("exec: %s", err);
	return -1;
}

/* A usage error of exec: 125, as every failure of arcturn's own. */
static int
exec_usage(void)
{
	say_is(SAY_USAGE, NULL);
	return EXIT_OWN;
}

static int
is_abs(const char *path)
{
#ifdef _WIN32
	if (((*path >= 'A' && *path <= 'Z') || (*path >= 'a' && *path <= 'z')) &&
	    path[1] == ':')
		return 1;
#endif
	return *path == '/';
}

/*
 * Where the command runs: --cwd DIR (relative to the workspace, or
 * absolute; at or beneath the workspace), else the workspace with -C
 * (as git -C and make -C do), else right here. 0 with *dir (NULL: stay),
 * or -1 said.
 */
static int
run_dir(const struct cli *c, const struct policy *p, const char *cwd,
    char **dir)
{
	struct stat st;
	char *j;

	*dir = NULL;
	if (cwd == NULL) {
		if (c->dir != NULL && (*dir = mem_strdup(p->workspace)) == NULL) {
			say_errno("exec");
			return -1;
		}
		return 0;
	}
	j = is_abs(cwd) ? mem_strdup(cwd) : path_join(p->workspace, cwd);
	if (j == NULL) {
		say_errno("exec");
		return -1;
	}
	*dir = path_realpath(j, NULL);
	mem_free(j);
	if (*dir == NULL || stat(*dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		if (*dir != NULL)
			errno = ENOTDIR;
		say_errno("exec: --cwd: %s", cwd);
		say_is(SAY_USAGE, cwd);
	} else if (!path_under(*dir, p->workspace)) {
		say_err("exec: --cwd: %s: outside the workspace %s", cwd,
		    p->workspace);
		say_is(SAY_USAGE, cwd);
	} else
		return 0;
	mem_free(*dir);
	*dir = NULL;
	return -1;
}

/*
 * exec --explain (or stderr a terminal): after a confined command that
 * exited non-zero, one line naming the writable roots and --grant, for
 * a failure that was a refused write. Built before the run (roots_build
 * creates nothing without ops) only where p goes away with the run.
 */
static void
explain_text(const struct policy *p, char *buf, size_t len)
{
	char roots[2048];
	struct roots r;

	buf[0] = '\0';
	if (roots_build(p, ROOTS_GIT, NULL, &r) < 0)
		return;
	cmd_roots_text(&r, roots, sizeof roots);
	roots_free(&r);
	snprintf(buf, len, "the command may write only in %s%s; a write "
	    "refused elsewhere needs %s", roots, p->mode == MODE_READ_ONLY ?
	    " (sandbox read-only)" : "", p->mode == MODE_READ_ONLY ?
	    "--sandbox workspace-write" : "--grant DIR (or \"grants\" in "
	    "the config)");
}

/* The line, when the command ran (end) and exited non-zero. */
static void
explain(const char *text, const struct sandbox_end *end)
{
	if (text[0] != '\0' && end->ran && end->sig == 0 && end->status != 0)
		say_note("exec: exit status %d; %s", end->status, text);
}

/*
 * --json-fd N: --json, its document on the caller's open, writable fd N
 * (a line of its own whatever the command printed), kept from the
 * command (close-on-exec), so that it cannot write one of its own there.
 */
static int
json_fd(struct cli *c, const char *arg)
{
	char *end;
	long n;
	int fl;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end != '\0' || n > 1023 ||
	    errno != 0) {
		say_err("exec: --json-fd takes a file descriptor number, "
		    "not %s", arg);
		return -1;
	}
#ifndef _WIN32
	if ((fl = fcntl((int)n, F_GETFL)) < 0 || (fl & O_ACCMODE) == O_RDONLY) {
		say_err("exec: --json-fd %ld: %s", n, fl < 0 ?
		    strerror(errno) : "open for reading only");
		return -1;
	}
	if (n > 2)
		(void)fcntl((int)n, F_SETFD, FD_CLOEXEC);
#else
	(void)fl;
#endif
	c->json = 1;
	say_start(NULL, 1);
	say_json_fd((int)n);
	return 0;
}

/* What exec --json says besides how the command ended. */
struct exec_doc {
	char		 backend[32];
	int		 confined;
	int		 mode;
	int		 dry_run;
	int		 checkpoint;
	char		 session[80];	/* "": null */
	double		 start;		/* now_ms() */
};

/* A steady clock, in milliseconds. */
static double
now_ms(void)
{
#ifdef _WIN32
	return (double)GetTickCount64();
#else
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return 0;
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
#endif
}

static const char *
mode_word(int mode)
{
	return mode == MODE_OFF ? "off" : mode == MODE_READ_ONLY ?
	    "read-only" : "workspace-write";
}

/* The one line after the command, or nothing when it never ran. */
static int
exec_json(const struct exec_doc *d, int rc, const struct sandbox_end *end)
{
	double ms = now_ms() - d->start;
	cJSON *o;
	int fail;

	if (!end->ran)
		return rc;	/* say_finish: the error document */
	fail = (o = say_doc(NULL)) == NULL ||
	    cJSON_AddNumberToObject(o, "status", rc) == NULL ||
	    (end->sig == 0 ? cJSON_AddNumberToObject(o, "exit_code",
	    end->status) : cJSON_AddNullToObject(o, "exit_code")) == NULL ||
	    (end->sig != 0 ? cJSON_AddNumberToObject(o, "signal", end->sig) :
	    cJSON_AddNullToObject(o, "signal")) == NULL ||
	    cJSON_AddStringToObject(o, "backend", d->backend) == NULL ||
	    cJSON_AddBoolToObject(o, "confined", d->confined) == NULL ||
	    cJSON_AddStringToObject(o, "mode", mode_word(d->mode)) == NULL ||
	    cJSON_AddBoolToObject(o, "dry_run", d->dry_run) == NULL ||
	    cJSON_AddBoolToObject(o, "checkpoint", d->checkpoint) == NULL ||
	    (d->session[0] != '\0' ? cJSON_AddStringToObject(o, "session",
	    d->session) : cJSON_AddNullToObject(o, "session")) == NULL ||
	    cJSON_AddNumberToObject(o, "duration_ms", ms < 0 ? 0 :
	    (double)(long long)(ms + 0.5)) == NULL;
	/* the command's status stands; a lost line is said on stderr */
	(void)say_print_built(o, !fail);
	return rc;
}

/*
 * exec --dry-run and --checkpoint (they take p over). The session a dry
 * run wrote in: the one named, else the workspace's default.
 */
static int
exec_dry(struct policy *p, struct cli *c, char **argv, int checkpoint,
    int join, struct exec_doc *d, int expl)
{
	struct sandbox_end end;
	struct policy q;
	char *state = NULL, *ws = NULL, why[4096];
	int rc;
#ifndef _WIN32
	int fd;
#endif

	d->dry_run = !checkpoint;
	d->checkpoint = checkpoint;
	d->confined = 1;
	d->mode = MODE_WORKSPACE_WRITE;	/* the overlay takes every write */
	snprintf(d->backend, sizeof d->backend, "helper+mount");
	why[0] = '\0';
	if (expl) {
		q = *p;
		q.mode = MODE_WORKSPACE_WRITE;
		explain_text(&q, why, sizeof why);
	}
	if (!c->json) {
		rc = checkpoint ? dryrun_exec_checkpoint(p, c, argv, join,
		    &end) : dryrun_exec(p, argv, &end);
		explain(why, &end);
		return rc;
	}
	if (!checkpoint && p->session != NULL)
		snprintf(d->session, sizeof d->session, "%s", p->session);
	if ((state = mem_strdup(p->state)) == NULL ||
	    (ws = mem_strdup(p->workspace)) == NULL) {
		say_errno("exec");
		mem_free(state);
		policy_free(p);
		return EXIT_OWN;
	}
	rc = checkpoint ? dryrun_exec_checkpoint(p, c, argv, join, &end) :
	    dryrun_exec(p, argv, &end);
	explain(why, &end);
#ifndef _WIN32
	if (!checkpoint && d->session[0] == '\0' &&
	    (fd = session_store_open(state, 0)) >= 0) {
		if (session_default(fd, ws, 0, d->session) < 0)
			d->session[0] = '\0';
		close(fd);
	}
#endif
	mem_free(state);
	mem_free(ws);
	return exec_json(d, rc, &end);
}

int
cmd_exec(struct cli *c)
{
	static const struct option opts[] = {
		{ "sandbox", required_argument, NULL, 's' },
		{ "grant", required_argument, NULL, 'g' },
		{ "dry-run", no_argument, NULL, 'd' },
		{ "checkpoint", no_argument, NULL, 'k' },
		{ "require-sandbox", no_argument, NULL, 'r' },
		{ "network", required_argument, NULL, 'n' },
		{ "allow-unix", required_argument, NULL, 'u' },
		{ "cwd", required_argument, NULL, 'c' },
		{ "explain", no_argument, NULL, 'x' },
		{ "json-fd", required_argument, NULL, 'J' },
		{ "join-turn", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	struct config_flags f = { .mode = -1, .dry_run = -1,
	    .require_sandbox = -1, .network = -1 };
	struct policy p = { 0 };
	struct sandbox_choice ch;
	struct sandbox_end end;
	struct exec_doc d;
	const char **grants = NULL, **unix_sockets = NULL;
	const char *cwd = NULL;
	char err[512], outer[64], why[4096], *dir = NULL, **argv;
	int opt, rc, checkpoint = 0, join = 0, dry = 0, expl = 0;

	memset(&d, 0, sizeof d);
	d.start = now_ms();
	grants = mem_calloc((size_t)c->argc, sizeof *grants);
	unix_sockets = mem_calloc((size_t)c->argc, sizeof *unix_sockets);
	if (grants == NULL || unix_sockets == NULL) {
		say_errno("exec");
		mem_free(grants);
		mem_free(unix_sockets);
		return EXIT_OWN;
	}
	f.grants = grants;
	f.unix_sockets = unix_sockets;
	/* '+': the options end at the command */
	while ((opt = cli_getopt(c, "+", opts)) != -1) {
		switch (opt) {
		case 's':
			if ((f.mode = config_mode(optarg)) < 0) {
				say_err("exec: unknown sandbox mode: %s (off, "
				    "workspace-write, read-only)", optarg);
				goto usage;
			}
			break;
		case 'g':
			grants[f.ngrants++] = optarg;
			break;
		case 'd':
			f.dry_run = 1;
			dry = 1;
			break;
		case 'k':
			/* --dry-run's overlay, then applied as a turn */
			checkpoint = 1;
			f.dry_run = 1;
			break;
		case 'j':
			join = 1;
			break;
		case 'r':
			f.require_sandbox = 1;
			break;
		case 'u':
			unix_sockets[f.nunix++] = optarg;
			break;
		case 'n':
			if (strcmp(optarg, "on") == 0)
				f.network = 1;
			else if (strcmp(optarg, "off") == 0)
				f.network = 0;
			else {
				say_err("exec: --network takes on or off, not %s",
				    optarg);
				goto usage;
			}
			break;
		case 'c':
			cwd = optarg;
			break;
		case 'x':
			expl = 1;
			break;
		case 'J':
			if (json_fd(c, optarg) < 0)
				goto usage;
			break;
		default:
			goto usage;	/* cli_getopt said what */
		}
	}
	if (optind >= c->argc) {
		say_err("exec: no command given (usage: arcturn exec [OPTION]... "
		    "[--] CMD [ARG]...)");
		goto usage;
	}
	argv = c->argv + optind;
	if (checkpoint && (dry || c->dry_run)) {
		say_err("exec: --checkpoint applies what the command changes, "
		    "--dry-run keeps it pending: give one of them");
		goto usage;
	}
	if (join && !checkpoint) {
		say_err("exec: --join-turn adds --checkpoint's turn to the one "
		    "`arcturn turn` began: give --checkpoint too");
		goto usage;
	}
	if (c->dry_run)
		f.dry_run = 1;	/* given before the command: the same */
	rc = cmd_load(c, &f, &p);
	mem_free(grants);
	mem_free(unix_sockets);
	if (rc < 0)
		return EXIT_OWN;
	if (p.mode != MODE_OFF && strcmp(p.workspace, "/") == 0) {
		say_err("exec: workspace is /: refusing to make the whole "
		    "filesystem writable (use -C DIR)");
		policy_free(&p);
		return EXIT_OWN;
	}
	/* inputs that would widen the roots without a word, any backend */
	if (p.mode != MODE_OFF && config_check_inputs(&p, err,
	    sizeof err) < 0) {
		say_err("exec: %s", err);
		policy_free(&p);
		return EXIT_OWN;
	}
	/*
	 * The command runs in the workspace with -C (the helper finds the
	 * same dir again under its mounts); what reads c->dir later (exec
	 * --checkpoint's apply) gets the canonical path, valid from there.
	 */
	if (run_dir(c, &p, cwd, &dir) < 0) {
		policy_free(&p);
		return EXIT_OWN;
	}
	if (dir != NULL && chdir(dir) < 0) {
		say_errno("exec: %s", dir);
		mem_free(dir);
		policy_free(&p);
		return EXIT_OWN;
	}
	if (c->dir != NULL) {
		mem_free(dir);
		if ((dir = mem_strdup(p.workspace)) == NULL) {
			say_errno("exec");
			policy_free(&p);
			return EXIT_OWN;
		}
		c->dir = dir;
	}
	/* a terminal's user is told too; a pipe's reader asks for it */
	expl = expl || isatty(STDERR_FILENO);
	if (checkpoint || p.dry_run) {
#ifndef _WIN32
		/* the command runs with the grants beside the overlay */
		if (sandbox_overlay_available(&p, err, sizeof err) &&
		    make_grants(c, &p) < 0) {
			mem_free(dir);
			policy_free(&p);
			return EXIT_OWN;
		}
#endif
		rc = exec_dry(&p, c, argv, checkpoint, join, &d, expl);
		mem_free(dir);
		return rc;
	}
	mem_free(dir);
	sandbox_choose(&p, &ch);
	if (ch.verdict == SANDBOX_BAD || (ch.verdict == SANDBOX_NONE &&
	    p.require_sandbox)) {
		say_err("%s%s", ch.verdict == SANDBOX_BAD ? "" :
		    "sandbox required but unavailable: ", ch.why);
		say_is(SAY_SANDBOX, NULL);
		policy_free(&p);
		return EXIT_OWN;
	}
	if (ch.verdict == SANDBOX_CONFINE && p.mode == MODE_WORKSPACE_WRITE &&
	    make_grants(c, &p) < 0) {
		policy_free(&p);
		return EXIT_OWN;
	}
	/*
	 * ARCTURN_SANDBOX tells the command (and a nested arcturn) how it
	 * is confined. A run that does not confine it leaves the variable
	 * only when an outer arcturn's sandbox still does.
	 */
	outer[0] = '\0';
	if (ch.verdict == SANDBOX_CONFINE)
		(void)sandbox_setenv(p.mode == MODE_READ_ONLY ? "read-only" :
		    "workspace-write");
	else if (!sandbox_nested(outer, sizeof outer))
		(void)sandbox_setenv(NULL);
	/* the note must reach the user even when the exec succeeds */
	if (ch.verdict == SANDBOX_NONE && outer[0] != '\0')
		fprintf(stderr, "note: sandbox requested but unavailable here\n"
		    "note: %s; the command is still confined by the outer "
		    "arcturn sandbox (ARCTURN_SANDBOX=%s)\n", ch.why, outer);
	else if (ch.verdict == SANDBOX_NONE)
		fprintf(stderr, "note: sandbox requested but unavailable on "
		    "this platform\nnote: %s; the command runs WITHOUT "
		    "confinement\n", ch.why);
	err[0] = '\0';
	/*
	 * Explaining, arcturn waits for the command to speak after it (one
	 * fork more); otherwise the backend replaces it, as it always has.
	 */
	expl = expl && ch.verdict == SANDBOX_CONFINE;
	if (!c->json && !expl)
		rc = sandbox_run(&p, &ch, argv, &end, err, sizeof err);
	else {
		sandbox_label(&p, &ch, d.backend, sizeof d.backend);
		d.confined = ch.verdict == SANDBOX_CONFINE;
		d.mode = p.mode;
		rc = sandbox_run_wait(&p, &ch, argv, &end, err, sizeof err);
	}
	if (err[0] != '\0')
		say_err("%s", err);
	/* the roots only now, and only for a command that failed */
	if (expl && end.ran && end.sig == 0 && end.status != 0) {
		explain_text(&p, why, sizeof why);
		explain(why, &end);
	}
	policy_free(&p);
	return c->json ? exec_json(&d, rc, &end) : rc;
usage:
	mem_free(grants);
	mem_free(unix_sockets);
	return exec_usage();
}
