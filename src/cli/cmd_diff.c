/*
 * Front end of `arcturn diff [--full] [--stat] [--name-only]
 * [--name-status] [--color[=WHEN]] [--no-pager] [PATH]...`: the pending
 * changes of the workspace's session as one git-style diff (each file's
 * first CAP_DEFAULT body lines, then `... diff truncated: N more lines
 * for P`, unless --full), as a diffstat (--stat), as names (--name-only,
 * or with git's status letter and a tab: --name-status), or as a JSON
 * document (--json); the diff and the diffstat of the whole set end with
 * `digest: <sha256>` (what `apply --expect` checks) when anything is
 * pending. PATH... limits the output to the changes at or beneath those
 * paths (then no digest: it would not be the set's). Nothing pending:
 * nothing printed, as git diff. On a terminal the output goes through
 * $PAGER (default `less -FRX`, as git does) unless --no-pager; never
 * with --json or when stdout is no terminal. The pager gets the diff
 * from a spool file written under the session's shared lock, which is
 * let go before the pager starts: a writer never waits for the user to
 * quit less. --json prints one document (schema arcturn/diff/v1; digest
 * null for a part of the set). Exit 0; 1 a PATH with no pending change;
 * 2 usage, config, session.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/cmd_dryrun.h"
#include "cli/say.h"
#include "diff/udiff.h"
#include "lib/fsx.h"
#include "lib/hash.h"
#include "lib/mem.h"
#include "session/changes.h"
#include "session/plan.h"
#include "session/review.h"
#include "session/workspace.h"

#define CAP_DEFAULT	200

static int
want_color(const char *when)
{
	const char *nc;

	if (when == NULL || strcmp(when, "auto") == 0) {
		nc = getenv("NO_COLOR");
		return isatty(STDOUT_FILENO) && (nc == NULL || nc[0] == '\0');
	}
	if (strcmp(when, "always") == 0)
		return 1;
	if (strcmp(when, "never") == 0)
		return 0;
	return -1;
}

/* What the user asked to see. */
enum view { V_DIFF, V_STAT, V_JSON, V_NAMES, V_STATUS };

/*
 * Keep in c only the changes at or beneath the paths the user named
 * (plan_select's choice): the others are freed. A path that selects
 * nothing is refused (EXIT_REFUSED).
 */
static int
limit(struct workspace *x, struct changes *c, char **argv, size_t np,
    struct workspace_err *e)
{
	size_t i, j;
	int *sel, r;

	if ((sel = mem_calloc(c->n + 1, sizeof *sel)) == NULL)
		return workspace_fail(e, EXIT_USAGE, errno, "", NULL);
	r = workspace_select(x, c, argv, np, sel, e);
	if (r == 0) {
		c->count = 0;
		for (i = j = 0; i < c->n; i++) {
			if (sel[i]) {
				c->count += !c->v[i].implied;
				c->v[j++] = c->v[i];
				continue;
			}
			mem_free(c->v[i].path);
			mem_free(c->v[i].origin);
			mem_free(c->v[i].link_to);
		}
		c->n = j;
	}
	mem_free(sel);
	return r == 0 ? 0 : -1;
}

/* --name-only and --name-status: files only, as git lists them. */
static int
names(const struct changes *c, int status)
{
	static const char letter[] = "AMDMT";
	const struct change *ch;
	size_t i;
	char *q;
	int rc = 0;

	for (i = 0; rc == 0 && i < c->n; i++) {
		ch = &c->v[i];
		if (ch->status > CHANGE_TYPE)
			continue;
		if ((q = udiff_quote("", ch->path)) == NULL)
			return -1;
		if ((status && printf("%c\t", letter[ch->status]) < 0) ||
		    printf("%s\n", q) < 0)
			rc = -1;
		mem_free(q);
	}
	return rc;
}

/* The document of --json: digest NULL for a part of the set. */
static int
json(struct workspace *x, const struct changes *c, const char *digest)
{
	cJSON *doc;

	if ((doc = say_doc(NULL)) == NULL)
		return -1;
	if (review_json(doc, c, x->id[0] != '\0' ? x->id : NULL,
	    x->p.workspace, digest) < 0) {
		cJSON_Delete(doc);
		return -1;
	}
	return say_print(doc) < 0 ? -2 : 0;
}

/*
 * Render the pending set c (maybe empty: no session) as v asks. -1 with
 * errno; -2 said already (the JSON document could not go out).
 */
static int
render(struct workspace *x, struct changes *c, enum view v, int full,
    int color, int tty, int part)
{
	struct udiff_opts o;
	char hex[HASH_HEXLEN + 1];

	if (v == V_NAMES || v == V_STATUS)
		return names(c, v == V_STATUS);
	memset(&o, 0, sizeof o);
	o.ctx = 3;
	o.cap = v == V_DIFF && !full ? CAP_DEFAULT : -1;
	o.color = v == V_DIFF ? color : 0;
	o.escape = v == V_DIFF && tty;	/* raw for git apply through a pipe */
	if (review_diff(&x->s, x->rootfd, c, &o, v == V_DIFF ? dryrun_stdout :
	    NULL, NULL, hex, dryrun_list_warn, "diff") < 0)
		return -1;
	if (v == V_JSON)
		return json(x, c, part ? NULL : hex);
	if (c->n == 0)
		return 0;
	if (v == V_STAT && review_stat(c, color, dryrun_stdout, NULL) < 0)
		return -1;
	return part || printf("digest: %s\n", hex) >= 0 ? 0 : -1;
}

/*
 * The spool the diff is rendered into before it is paged: an unlinked
 * file in $TMPDIR (else /tmp), so that the pager starts, and the user
 * reads at leisure, after the session's lock is let go. stdout goes to
 * it between spool_start and spool_end.
 */
struct spool {
	int	 fd;		/* the unlinked file */
	int	 saved;		/* the terminal's stdout */
};

static int
spool_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[PATH_MAX];
	int fd;

	if (dir == NULL || *dir != '/')
		dir = "/tmp";
#ifdef O_TMPFILE
	if ((fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)) >= 0)
		return fd;
#endif
	if ((size_t)snprintf(path, sizeof path, "%s/arcturn-diff-XXXXXX",
	    dir) >= sizeof path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = mkstemp(path)) < 0)
		return -1;
	(void)unlink(path);
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

static int
spool_start(struct spool *sp)
{
	sp->fd = sp->saved = -1;
	fflush(stdout);
	if ((sp->fd = spool_file()) < 0)
		return -1;
	if ((sp->saved = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)) < 0 ||
	    dup2(sp->fd, STDOUT_FILENO) < 0) {
		fsx_close(sp->saved);
		fsx_close(sp->fd);
		sp->fd = sp->saved = -1;
		return -1;
	}
	return 0;
}

/* stdout back to the terminal: 0, or -1 when the spool's writes failed. */
static int
spool_end(struct spool *sp)
{
	int rc = 0, err = 0;

	if (sp->saved < 0)
		return 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		err = errno != 0 ? errno : EIO;
		rc = -1;
	}
	clearerr(stdout);
	(void)dup2(sp->saved, STDOUT_FILENO);
	close(sp->saved);
	sp->saved = -1;
	errno = err;
	return rc;
}

/* The spool's bytes to stdout (no pager, or it could not start). */
static void
spool_copy(int fd)
{
	char buf[8192];
	ssize_t n;

	while ((n = read(fd, buf, sizeof buf)) > 0)
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			break;
	fflush(stdout);
}

/*
 * Page the spool through $PAGER (default `less -FRX`, as git does; empty
 * or "cat": none), its stdin the spool, and wait for it, ignoring SIGINT
 * and SIGQUIT meanwhile as system(3) does (less takes ^C for itself).
 * A pager that cannot start: the diff goes to the terminal.
 */
static void
spool_page(struct spool *sp)
{
	struct sigaction ign, oint, oquit;
	const char *cmd = getenv("PAGER");
	pid_t pid;
	int st;

	if (sp->fd < 0)
		return;
	if (lseek(sp->fd, 0, SEEK_SET) < 0)
		goto out;
	if (cmd == NULL)
		cmd = "less -FRX";
	if (*cmd == '\0' || strcmp(cmd, "cat") == 0) {
		spool_copy(sp->fd);
		goto out;
	}
	if (getenv("LESS") == NULL)
		(void)setenv("LESS", "FRX", 1);
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		sigaction(SIGINT, &oint, NULL);
		sigaction(SIGQUIT, &oquit, NULL);
		if (dup2(sp->fd, STDIN_FILENO) < 0)
			_exit(127);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	if (pid < 0)
		spool_copy(sp->fd);
out:
	close(sp->fd);
	sp->fd = -1;
}

int
cmd_diff(struct cli *c)
{
	static const struct option opts[] = {
		{ "full", no_argument, NULL, 'f' },
		{ "stat", no_argument, NULL, 's' },
		{ "color", optional_argument, NULL, 'c' },
		{ "colour", optional_argument, NULL, 'c' },
		{ "name-only", no_argument, NULL, 'n' },
		{ "name-status", no_argument, NULL, 'S' },
		{ "no-pager", no_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 }
	};
	struct spool sp = { -1, -1 };
	struct workspace_err e = { .status = EXIT_USAGE };
	struct changes ch = { NULL, 0, 0 };
	struct workspace x;
	const char *when = NULL;
	enum view v = V_DIFF;
	int full = 0, color, r, opt, paging = 1, tty;

	workspace_init(&x, &dryrun_notes);
	while ((opt = cli_getopt(c, "", opts)) != -1) {
		switch (opt) {
		case 'f':
			full = 1;
			break;
		case 's':
			v = V_STAT;
			break;
		case 'c':
			when = optarg != NULL ? optarg : "always";
			break;
		case 'n':
			v = V_NAMES;
			break;
		case 'S':
			v = V_STATUS;
			break;
		case 'P':
			paging = 0;
			break;
		default:
			cmd_usage("diff");
			return EXIT_USAGE;
		}
	}
	if ((color = want_color(when)) < 0) {
		say_err("diff: --color=%s: want auto, always or never", when);
		cmd_usage("diff");
		return EXIT_USAGE;
	}
	if (c->json)
		v = V_JSON;
	tty = isatty(STDOUT_FILENO);	/* before stdout goes to the spool */
	if (dryrun_load(&x, c, 0, &e) < 0 ||
	    (r = workspace_changes(&x, "diff", LOCK_SH, &ch, &e)) ==
	    WORKSPACE_ERR)
		goto out;
	/* Nothing pending: like git diff, print nothing (JSON: no files). */
	if (r == WORKSPACE_NONE)
		x.id[0] = '\0';
	if (r == WORKSPACE_NONE && optind < c->argc)
		workspace_fail(&e, EXIT_REFUSED, 0, c->argv[optind],
		    "no pending change there");
	else if (r == WORKSPACE_NONE && v != V_JSON)
		e.status = 0;
	else if (optind < c->argc && limit(&x, &ch, c->argv + optind,
	    (size_t)(c->argc - optind), &e) < 0)
		;
	else {
		/*
		 * On a terminal: rendered into the spool under the lock,
		 * paged once it is let go (the colour was chosen for the
		 * terminal, before stdout went to the spool).
		 */
		if (paging && v != V_JSON && ch.n > 0 &&
		    isatty(STDOUT_FILENO) && spool_start(&sp) < 0)
			say_warn("diff: no spool file for the pager (%s); not "
			    "paged", strerror(errno));
		r = render(&x, &ch, v, full, color, tty, optind < c->argc);
		if (spool_end(&sp) < 0 && r == 0)
			r = -1;
		if (r == -2)
			e.status = EXIT_USAGE;
		else if (r < 0)
			workspace_fail(&e, EXIT_USAGE, errno, "", NULL);
		else {
			e.status = 0;
			session_unlock(&x.s);
			spool_page(&sp);
		}
		fsx_close(sp.fd);
	}
out:
	dryrun_report("diff", &e);
	changes_free(&ch);
	workspace_done(&x);
	return e.status;
}
