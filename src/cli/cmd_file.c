/*
 * Front ends of the file commands: write, edit, read. Exit codes (cmd.h):
 * 0 ok; 1 refused or failed (edit without a unique match, a path outside
 * the workspace under dry run, a file that cannot be read or written); 2
 * usage or environment (bad options, config, an unusable session store,
 * a corrupt session).
 *
 * Each command chooses its workspace view once (wsview.h): the session's
 * shadow tree under dry run (read: also when a session is named and has
 * one), else the real tree. `read` of a path outside the workspace always
 * reads the real file; write and edit refuse one (and a workspace that
 * is /, the home, a system folder or the state dir).
 *
 * write and edit obey the policy exec's sandbox does (roots.h), with and
 * without dry run: a path outside the writable roots, or a protected one
 * (existing or not), is refused with one line. The check is on the
 * canonical path, and again, in the real tree, on the directory actually
 * opened. Sandbox mode off is no policy: nothing is refused.
 *
 * With --json each prints one document (cmd_json.h, say.h): write and
 * edit what they wrote and the checkpoint turn it joined, read the
 * content (text when it is UTF-8 without NUL, else base64; a file over
 * READ_JSON_MAX is refused).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/cmd_dryrun.h"
#include "cli/cmd_json.h"
#include "cli/say.h"
#include "lib/edit.h"
#include "lib/fsx.h"
#include "lib/hash.h"
#include "lib/mem.h"
#include "lib/path.h"
#include "lib/utf8.h"
#include "policy/config_check.h"
#include "policy/roots.h"
#include "policy/writecheck.h"
#include "session/shadow.h"
#include "session/workspace.h"
#include "session/wsview.h"

#define EDIT_MAX	((size_t)256 << 20)
#define READ_JSON_MAX	((size_t)64 << 20)	/* read --json: content cap */

/* The policy on one path (roots.h, writecheck.h): what put asks. */
struct guard {
	int		 on;		/* a policy applies (mode not off) */
	struct workspace	*x;
	struct roots	 r;		/* built when on */
	char		*abs;		/* the path as named, absolute */
	int		 refused;	/* policy_may_write said no: v */
	struct policy_verdict v;
};


static void
guard_free(struct guard *g)
{
	if (g->on)
		roots_free(&g->r);
	mem_free(g->abs);
	g->abs = NULL;
	g->on = 0;
}

/*
 * Refuse (EXIT_REFUSED, `what: path: RULE; WAY OUT`, dryrun_denied) a
 * path the policy does not let a command write: rel as begin resolved it
 * (workspace-relative when inside, else absolute). This answers early,
 * on the path; the decision is guard_dir's, on the folder opened.
 */
static int
guard_check(struct workspace *x, const char *path, const char *rel,
    int inside, struct guard *g, struct workspace_err *e)
{
	struct roots_denial d;
	char *abs;

	memset(g, 0, sizeof *g);
	if (x->p.mode == MODE_OFF)
		return 0;
	g->x = x;
	if ((abs = inside ? path_join(x->p.workspace, rel) :
	    mem_strdup(rel)) == NULL)
		return workspace_fail(e, EXIT_USAGE, errno, path, NULL);
	if (roots_build(&x->p, ROOTS_PROTECT | ROOTS_MISSING | ROOTS_DEVICES |
	    ROOTS_GIT, NULL, &g->r) < 0) {
		mem_free(abs);
		return workspace_fail(e, EXIT_USAGE, 0, "", "%s", g->r.why);
	}
	g->on = 1;
	g->abs = abs;
	if (roots_deny(&g->r, abs, &d) < 0) {
		dryrun_denied(e, &x->p, &g->r, &d, path, abs);
		return e->status;
	}
	return 0;
}

/*
 * wsview_write's check, on the real folder it opened beneath the
 * workspace: the one write check (policy_may_write), lexical, canonical
 * and the identity of dirfd.
 */
static int
guard_dir(int dirfd, const char *name, void *arg)
{
	struct guard *g = arg;

	if (policy_may_write(&g->r, g->abs, dirfd, name, &g->v) == 0)
		return 0;
	g->refused = 1;
	errno = EACCES;
	return -1;
}

/* Word guard_dir's no: roots' refusals as guard_check words them. */
static void
guard_say(struct guard *g, const char *path, struct workspace_err *e)
{
	if (g->v.why == POLICY_DENIED)
		dryrun_denied(e, &g->x->p, &g->r, &g->v.d, path, g->abs);
	else if (g->v.why == POLICY_MOVED)
		workspace_fail(e, EXIT_REFUSED, 0, path, "a folder on its way "
		    "changed while it was written; refused");
	else
		workspace_fail(e, EXIT_REFUSED, g->v.err, path, "%s; refused",
		    policy_reason(&g->v));
}

/*
 * The new content of the file the user named path, from buf (len bytes)
 * or, when fd >= 0, streamed from fd to its end: e says how it went.
 */
static void
put(const struct wsview *v, const char *rel, const void *buf, size_t len,
    int fd, const unsigned char *want, const char *path, struct guard *g,
    struct workspace_err *e)
{
	wsview_check_fn *chk = g->on ? guard_dir : NULL;
	int rc;

	rc = fd >= 0 ? wsview_write_fd_checked(v, rel, fd, want, chk, g) :
	    wsview_write_checked(v, rel, buf, len, want, chk, g);
	if (rc == 0)
		e->status = 0;
	else if (g->refused)
		guard_say(g, path, e);
	else if (errno == ECANCELED && want != NULL) {
		/* not what --expect-sha256 names: changed since it was read */
		workspace_fail(e, EXIT_REFUSED, 0, path,
		    "changed while editing; not written");
		say_is(SAY_CONFLICT, rel);
	} else
		workspace_fail(e, EXIT_REFUSED, errno, path, NULL);
}

/*
 * Load the policy (dry: --dry-run given) and resolve the path the user
 * named (argv[optind]). 0 inside, 1 outside, -1 (e filled). A command
 * that writes refuses a workspace that is /, the home, a system folder
 * or the state dir (config_check_workspace: started there, the current
 * folder is no project), and under dry run a path outside it.
 */
static int
begin(struct workspace *x, struct cli *c, int dry, int writes, char **rel,
    struct workspace_err *e)
{
	char err[2 * PATH_MAX];

	if (dryrun_load(x, c, dry, e) < 0)
		return -1;
	if (writes && config_check_workspace(&x->p, err, sizeof err) < 0) {
		workspace_fail(e, EXIT_USAGE, 0, "", "%s", err);
		e->code = SAY_USAGE;
		snprintf(e->hint, sizeof e->hint, "name the project's folder: "
		    "arcturn -C DIR %s ...", c->argv[0]);
		return -1;
	}
	return workspace_resolve(x, c->argv[optind], writes && x->p.dry_run,
	    rel, e);
}

/*
 * The view (workspace_view) for begin's r: write and edit the session's
 * under dry run; read also when a session is named, but only for a path
 * inside the workspace (outside, it reads the real file).
 */
static int
view_flags(const struct workspace *x, int r, int writes)
{
	int f = r == 0 ? WORKSPACE_VIEW_ROOT : 0;

	if (writes ? x->p.dry_run : r == 0 && (x->p.dry_run || x->named))
		f |= WORKSPACE_VIEW_SESSION;
	return writes ? f | WORKSPACE_VIEW_WRITE : f;
}

/*
 * write and edit take no path outside the workspace, even one in another
 * writable root (the temp dir, a grant), and say so first: a grant's
 * hint would not let them in. -1 (e filled) for r, begin's 1.
 */
static int
inside_only(const struct workspace *x, const char *path, int r,
    struct workspace_err *e)
{
	if (r == 0)
		return 0;
	workspace_fail(e, EXIT_REFUSED, 0, path, "outside the workspace %s",
	    x->p.workspace);
	e->code = SAY_OUTSIDE_ROOTS;
	snprintf(e->hint, sizeof e->hint, "write and edit take paths inside "
	    "it (-C DIR names another workspace)");
	return -1;
}

/* An empty PATH names nothing: a usage error of its own. */
static int
empty_path(const char *name, const char *path)
{
	if (path[0] != '\0')
		return 0;
	say_err("%s: empty path", name);
	say_is(SAY_USAGE, NULL);
	return -1;
}

/*
 * write and read: [--dry-run] PATH, among the global options; write also
 * [--expect-sha256 HEX] (want not NULL: *want set to it, or left NULL).
 */
static int
parse_dry(struct cli *c, int *dry, const char *name, unsigned char *buf,
    const unsigned char **want)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'd' },
		{ "expect-sha256", required_argument, NULL, 'x' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	while ((ch = cli_getopt(c, "", opts)) != -1) {
		if (ch == 'd')
			*dry = 1;
		else if (ch == 'x' && want != NULL &&
		    hash_unhex(optarg, buf) == 0)
			*want = buf;
		else {
			if (ch == 'x' && want != NULL)
				say_err("%s: --expect-sha256: %s: not a "
				    "SHA-256 (64 lower-case hex digits)", name,
				    optarg);
			cmd_usage(name);
			return -1;
		}
	}
	*dry = *dry || c->dry_run;
	if (optind != c->argc - 1) {
		cmd_usage(name);
		return -1;
	}
	return empty_path(name, c->argv[optind]);
}

/*
 * The keys the documents of write, edit and read open with: path (as
 * resolved: workspace-relative inside it), dry_run, session (the one the
 * view is, or null). NULL when out of memory.
 */
static cJSON *
doc_begin(const struct workspace *x, const struct wsview *v, const char *rel)
{
	cJSON *o;

	if ((o = say_doc(NULL)) == NULL ||
	    cJSON_AddStringToObject(o, "path", rel) == NULL ||
	    cJSON_AddBoolToObject(o, "dry_run", x->p.dry_run) == NULL ||
	    cmdjson_str(o, "session", v->s != NULL ? x->id : NULL) < 0) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* Print the document o, built when ok: 0, else the exit status. */
static int
doc_end(cJSON *o, int ok)
{
	return say_print_built(o, ok) == 0 ? 0 : EXIT_USAGE;
}

/*
 * Refuse what write and edit cannot replace, with its own words: a
 * directory, a fifo, a socket, a device (in the view: the session's, or
 * the real tree). 0 when it may go on; *kind is what wsview_kind said.
 */
static int
check_target(const struct wsview *v, const char *rel, const char *path,
    int *kind, struct workspace_err *e)
{
	const char *what;

	switch ((*kind = wsview_kind(v, rel))) {
	case -1:
		if (errno == EMFILE || errno == ENFILE)
			return workspace_fail(e, EXIT_REFUSED, errno, path,
			    NULL);
		return 0;	/* the write itself will say what is wrong */
	case S_IFDIR:
		return workspace_fail(e, EXIT_REFUSED, EISDIR, path, NULL);
	case S_IFIFO:
		what = "a fifo (named pipe)";
		break;
	case S_IFSOCK:
		what = "a socket";
		break;
	case S_IFCHR:
	case S_IFBLK:
		what = "a device";
		break;
	default:
		return 0;
	}
	return workspace_fail(e, EXIT_REFUSED, 0, path, "%s, not a regular "
	    "file; refused", what);
}

int
cmd_write(struct cli *c)
{
	struct workspace_err e = { .status = EXIT_USAGE };
	struct guard g = { 0 };
	struct ckpt_hold *h = NULL;
	struct wsview v;
	struct workspace x;
	struct stat st;
	const unsigned char *want = NULL;
	unsigned char wbuf[HASH_LEN];
	const char *path, *why;
	char *rel = NULL;
	cJSON *o = NULL;
	unsigned long turn = 0;
	int dry = 0, r, kind, fd;

	workspace_init(&x, &dryrun_notes);
	if (parse_dry(c, &dry, "write", wbuf, &want) < 0)
		return EXIT_USAGE;
	path = c->argv[optind];
	if ((r = begin(&x, c, dry, 1, &rel, &e)) < 0 ||
	    inside_only(&x, path, r, &e) < 0 ||
	    guard_check(&x, path, rel, r == 0, &g, &e) != 0)
		goto out;
	/* limits first: a refused write leaves nothing behind */
	if (x.p.dry_run && (why = shadow_path_problem(rel)) != NULL) {
		workspace_fail(&e, EXIT_REFUSED, 0, path, "path %s; refused",
		    why);
		goto out;
	}
	if (workspace_view(&x, "write", view_flags(&x, r, 1), &v, &e) < 0 ||
	    check_target(&v, rel, path, &kind, &e) != 0)
		goto out;
	/* the checkpoint store's lock is held until the write is recorded */
	if (r == 0 && checkpoint_before(&x, rel, path, &h, &e) < 0)
		goto out;
	/* streamed: the content is never held in memory whole */
	put(&v, rel, NULL, 0, STDIN_FILENO, want, path, &g, &e);
	/*
	 * What a killed write or apply left next to it: only once the
	 * write got through, in the folder the policy check passed.
	 */
	if (e.status == 0)
		wsview_sweep(&v, rel);
	/* what was written, measured while the locks still hold it */
	if (e.status == 0 && c->json) {
		st.st_size = 0;
		if ((fd = wsview_open(&v, rel)) < 0 || fstat(fd, &st) < 0)
			say_warn("write: %s: its size: %s", path,
			    dryrun_strerror(errno));
		fsx_close(fd);
		turn = checkpoint_turn(h);
		o = doc_begin(&x, &v, rel);
	}
	checkpoint_after(h, &x, "write", rel, path);
	if (e.status == 0 && c->json)
		e.status = doc_end(o, o != NULL &&
		    cmdjson_num(o, "bytes", (double)st.st_size, 0) == 0 &&
		    cJSON_AddBoolToObject(o, "created", kind <= 0) != NULL &&
		    cmdjson_num(o, "turn", (double)turn, turn == 0) == 0);
out:
	dryrun_report("write", &e);
	guard_free(&g);
	mem_free(rel);
	workspace_done(&x);
	return e.status;
}

/*
 * The edited text (edit.h, the core MCP edit_file shares): every
 * occurrence of old replaced by new (*np of them), refused (EXIT_REFUSED)
 * unless old occurs exactly once or all is set.
 */
static int
edit_text(const char *buf, size_t len, const char *old, const char *new,
    int all, const char *path, char **out, size_t *outlen, size_t *np,
    struct workspace_err *e)
{
	struct edit ed = { old, strlen(old), new, strlen(new), all };
	struct edit_result r;
	char why[64];

	if (edit_apply(buf, len, &ed, 1, out, outlen, &r) == 0) {
		*np = r.count;
		return 0;
	}
	if (r.why == EDIT_ERRNO)
		return workspace_fail(e, EXIT_USAGE, errno, path, NULL);
	return workspace_fail(e, EXIT_REFUSED, 0, path, "%s%s",
	    edit_reason(&r, why, sizeof why), r.why == EDIT_MANY ?
	    "; use --all or more context" : "");
}

int
cmd_edit(struct cli *c)
{
	static const struct option opts[] = {
		{ "old", required_argument, NULL, 'o' },
		{ "new", required_argument, NULL, 'n' },
		{ "all", no_argument, NULL, 'a' },
		{ "dry-run", no_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 }
	};
	struct workspace_err e = { .status = EXIT_USAGE };
	struct guard g = { 0 };
	struct ckpt_hold *h = NULL;
	struct wsview v;
	struct workspace x;
	const char *old = NULL, *new = NULL, *path;
	char *rel = NULL, *buf = NULL, *out = NULL;
	size_t len, outlen = 0, nrep = 0;
	unsigned long turn = 0;
	cJSON *o = NULL;
	int ch, all = 0, dry = 0, r, kind, twice = 0;

	workspace_init(&x, &dryrun_notes);
	/* a repeated --old or --new is said once all options are read */
	while ((ch = cli_getopt(c, "", opts)) != -1) {
		switch (ch) {
		case 'o':
		case 'n':
			if ((ch == 'o' ? old : new) != NULL && twice == 0)
				twice = ch;
			*(ch == 'o' ? &old : &new) = optarg;
			break;
		case 'a':
			all = 1;
			break;
		case 'd':
			dry = 1;
			break;
		default:
			cmd_usage("edit");
			return EXIT_USAGE;
		}
	}
	dry = dry || c->dry_run;
	if (twice != 0) {
		say_err("edit: --%s given twice", twice == 'o' ? "old" : "new");
		say_is(SAY_USAGE, NULL);
		return EXIT_USAGE;
	}
	if (optind != c->argc - 1) {
		cmd_usage("edit");
		return EXIT_USAGE;
	}
	path = c->argv[optind];
	if (empty_path("edit", path) < 0)
		return EXIT_USAGE;
	if (old == NULL || new == NULL) {
		say_err("edit: %s: --%s TEXT is missing", path, old == NULL ?
		    "old" : "new");
		cmd_usage("edit");
		return EXIT_USAGE;
	}
	if (old[0] == '\0') {
		say_err("edit: %s: --old must not be empty", path);
		say_is(SAY_USAGE, NULL);
		return EXIT_USAGE;
	}
	if ((r = begin(&x, c, dry, 1, &rel, &e)) < 0 ||
	    inside_only(&x, path, r, &e) < 0 ||
	    guard_check(&x, path, rel, r == 0, &g, &e) != 0 ||
	    workspace_view(&x, "edit", view_flags(&x, r, 1), &v, &e) < 0 ||
	    check_target(&v, rel, path, &kind, &e) != 0)
		goto out;
	if (wsview_read(&v, rel, EDIT_MAX, &buf, &len) < 0) {
		workspace_fail(&e, EXIT_REFUSED, errno, path, NULL);
		goto out;
	}
	if (edit_text(buf, len, old, new, all, path, &out, &outlen, &nrep,
	    &e) != 0 ||
	    (r == 0 && checkpoint_before(&x, rel, path, &h, &e) < 0))
		goto out;
	/* compare-and-swap: only over the very bytes the edit was made on */
	if (wsview_replace_if(&v, rel, buf, len, out, outlen,
	    g.on ? guard_dir : NULL, &g) == 0)
		e.status = 0;
	else if (g.refused)
		guard_say(&g, path, &e);
	else if (errno == ECANCELED) {
		workspace_fail(&e, EXIT_REFUSED, 0, path,
		    "changed while editing; not written");
		say_is(SAY_CONFLICT, rel);
	} else
		workspace_fail(&e, EXIT_REFUSED, errno, path, NULL);
	if (e.status == 0 && c->json) {
		turn = checkpoint_turn(h);
		o = doc_begin(&x, &v, rel);
	}
	checkpoint_after(h, &x, "edit", rel, path);
	if (e.status == 0 && c->json)
		e.status = doc_end(o, o != NULL &&
		    cmdjson_num(o, "replacements", (double)nrep, 0) == 0 &&
		    cmdjson_num(o, "bytes", (double)outlen, 0) == 0 &&
		    cmdjson_num(o, "turn", (double)turn, turn == 0) == 0);
out:
	dryrun_report("edit", &e);
	guard_free(&g);
	mem_free(rel);
	mem_free(buf);
	mem_free(out);
	workspace_done(&x);
	return e.status;
}

static int
copy_out(int fd)
{
	char buf[65536];
	ssize_t n;

	for (;;) {
		n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			return -1;
	}
}

/*
 * fd's bytes, at most max (EFBIG beyond), into *buf (mem_free it): 0, or
 * -1 with errno.
 */
static int
slurp(int fd, size_t max, char **buf, size_t *len)
{
	size_t cap = 65536, n = 0;
	ssize_t r;
	char *b, *nb;

	if ((b = mem_alloc(cap)) == NULL)
		return -1;
	for (;;) {
		if (n == cap) {
			if (cap > max) {
				mem_free(b);
				errno = EFBIG;
				return -1;
			}
			if ((nb = mem_realloc(b, cap * 2)) == NULL) {
				mem_free(b);
				return -1;
			}
			b = nb;
			cap *= 2;
		}
		if ((r = read(fd, b + n, cap - n)) < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			mem_free(b);
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			mem_free(b);
			errno = EFBIG;
			return -1;
		}
	}
	*buf = b;
	*len = n;
	return 0;
}

/*
 * read --json: the content in the document, as text when it is UTF-8
 * without NUL, else as base64. Files over READ_JSON_MAX are refused.
 */
static void
read_doc(const struct workspace *x, const struct wsview *v, const char *rel,
    int fd, const char *path, struct workspace_err *e)
{
	char *buf = NULL, *txt = NULL;
	size_t len = 0;
	cJSON *o;
	int b64;

	if (slurp(fd, READ_JSON_MAX, &buf, &len) < 0) {
		if (errno == EFBIG)
			workspace_fail(e, EXIT_REFUSED, 0, path, "larger than "
			    "%zu MiB; --json refuses it", READ_JSON_MAX >> 20);
		else
			workspace_fail(e, EXIT_REFUSED, errno, path, NULL);
		return;
	}
	if ((b64 = (txt = utf8_clean(buf, len, 0)) == NULL) &&
	    errno == EILSEQ)
		txt = cmdjson_base64(buf, len);
	mem_free(buf);
	o = doc_begin(x, v, rel);
	e->status = doc_end(o, o != NULL && txt != NULL &&
	    cmdjson_num(o, "bytes", (double)len, 0) == 0 &&
	    cJSON_AddStringToObject(o, "encoding", b64 ? "base64" :
	    "utf-8") != NULL &&
	    cJSON_AddStringToObject(o, "content", txt) != NULL);
	mem_free(txt);
}

int
cmd_read(struct cli *c)
{
	struct workspace_err e = { .status = EXIT_USAGE };
	struct wsview v;
	struct workspace x;
	const char *path;
	char *rel = NULL;
	int r, fd = -1, dry = 0;

	workspace_init(&x, &dryrun_notes);
	if (parse_dry(c, &dry, "read", NULL, NULL) < 0)
		return EXIT_USAGE;
	path = c->argv[optind];
	if ((r = begin(&x, c, dry, 0, &rel, &e)) < 0 ||
	    workspace_view(&x, "read", view_flags(&x, r, 0), &v, &e) < 0)
		goto out;
	if ((fd = wsview_open(&v, rel)) < 0)
		workspace_fail(&e, EXIT_REFUSED, errno, path, NULL);
	else if (c->json)
		read_doc(&x, &v, rel, fd, path, &e);
	else if (copy_out(fd) < 0)
		workspace_fail(&e, EXIT_REFUSED, errno, path, NULL);
	else
		e.status = 0;
out:
	dryrun_report("read", &e);
	fsx_close(fd);
	mem_free(rel);
	workspace_done(&x);
	return e.status;
}
