/*
 * Front ends of the dry-run commands: write, edit, read, diff, apply,
 * discard, session. Exit codes (cmd.h): 0 ok; 1 refused or partly failed
 * (edit without a unique match, a path outside the workspace under dry
 * run, a file that cannot be read or written, apply with failures or
 * declined at the prompt, --expect mismatch); 2 usage or environment
 * (bad options, config, an unusable session store, a corrupt session, no
 * terminal to confirm on without --yes).
 *
 * The workspace's session: --session ID, else ARCTURN_SESSION, else the
 * default session of the workspace (created by the first dry-run write).
 * A named session that belongs to another workspace is refused by write,
 * edit, read, diff and apply (their paths are relative to the workspace).
 * `read` is redirected to the session when dry run is on or a session is
 * named; otherwise it reads the real file.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cJSON.h>

#include "apply.h"
#include "cmd.h"
#include "config.h"
#include "fsx.h"
#include "hash.h"
#include "mem.h"
#include "overlay.h"
#include "sandbox.h"
#include "session.h"
#include "udiff.h"

#define EDIT_MAX	((size_t)256 << 20)
#define CAP_DEFAULT	200

struct ses {
	struct policy	 p;
	int		 storefd;
	int		 rootfd;
	struct session	 s;
	int		 open;
	int		 named;		/* --session or ARCTURN_SESSION */
	char		 id[SESSION_IDMAX + 1];
};

enum { GOT, NONE, ERR };

/* Names the session an exec --dry-run holds locked while its command runs. */
#define DRYRUN_BUSY_ENV	"ARCTURN_DRY_RUN_HELD"

static void
cfg_warn(const char *msg, void *arg)
{
	warnx("%s", msg);
}

static mode_t
cur_umask(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

static void
json_hooks(void)
{
	static cJSON_Hooks h = { mem_alloc, mem_free };

	cJSON_InitHooks(&h);
}

static void
ses_init(struct ses *x)
{
	memset(x, 0, sizeof *x);
	x->storefd = x->rootfd = -1;
	x->s.dirfd = x->s.upperfd = x->s.basefd = x->s.lockfd = -1;
}

static void
ses_done(struct ses *x)
{
	if (x->open)
		session_close(&x->s);
	x->open = 0;
	if (x->storefd >= 0)
		close(x->storefd);
	if (x->rootfd >= 0)
		close(x->rootfd);
	x->storefd = x->rootfd = -1;
	policy_free(&x->p);
}

static int
ses_load(struct ses *x, struct cli *c, int dry_run)
{
	struct config_flags fl;
	char err[1024];

	memset(&fl, 0, sizeof fl);
	fl.dir = c->dir;
	fl.session = c->session;
	fl.mode = -1;
	fl.dry_run = dry_run ? 1 : -1;
	fl.require_sandbox = -1;
	fl.network = -1;
	if (config_load(&x->p, &fl, err, sizeof err, cfg_warn, NULL) < 0) {
		memset(&x->p, 0, sizeof x->p);
		warnx("%s", err);
		return -1;
	}
	x->named = x->p.session != NULL;
	return 0;
}

static int
ses_root(struct ses *x, const char *what, const char *root)
{
	if (x->rootfd >= 0)
		return 0;
	x->rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (x->rootfd < 0) {
		warn("%s: %s", what, root);
		return -1;
	}
	return 0;
}

/* A restart cut a dry-run command short (session_run_begin). */
static void
warn_cut(const char *what, const char *id)
{
	warnx("%s: session %s: a restart cut a dry-run command in it short; "
	    "part of what it wrote may be missing: review the diff before "
	    "applying", what, id);
}

/*
 * Open the selected session (creating it with create) and lock it with
 * lockop (0: no lock). GOT, NONE (nothing to open) or ERR (printed).
 */
static int
ses_open(struct ses *x, const char *what, int create, int lockop)
{
	const char *id = x->p.session, *busy;
	int tries;

	if (id != NULL && !session_id_valid(id)) {
		warnx("%s: session: %s: invalid session id "
		    "(want [a-z0-9][a-z0-9-]{0,63})", what, id);
		return ERR;
	}
	for (tries = 0; tries < 16; tries++) {
		if (x->storefd < 0) {
			x->storefd = session_store_open(x->p.state, create);
			if (x->storefd < 0) {
				if (errno == ENOENT && !create)
					return NONE;
				warn("%s: %s/overlays", what, x->p.state);
				return ERR;
			}
		}
		if (id == NULL) {
			if (session_default(x->storefd, x->p.workspace, create,
			    x->id) < 0) {
				if (errno == ENOENT && !create)
					return NONE;
				warn("%s: default session of %s", what,
				    x->p.workspace);
				return ERR;
			}
		} else
			snprintf(x->id, sizeof x->id, "%s", id);
		/*
		 * Inside the exec --dry-run that holds this session: its
		 * store is read-only here and its lock taken; say so.
		 */
		if ((busy = getenv(DRYRUN_BUSY_ENV)) != NULL &&
		    strcmp(busy, x->id) == 0) {
			warnx("%s: session %s is held by the exec --dry-run this "
			    "command runs under", what, x->id);
			return ERR;
		}
		if (session_open(x->storefd, x->id, create ? x->p.workspace :
		    NULL, &x->s) < 0) {
			if (errno == ENOENT && !create)
				return NONE;
			if (errno == EBADMSG)
				warnx("%s: session %s: %s", what, x->id,
				    x->s.why);
			else
				warn("%s: session %s", what, x->id);
			return ERR;
		}
		x->open = 1;
		if (lockop == 0 || session_lock(&x->s, lockop) == 0) {
			if (session_interrupted(&x->s))
				warn_cut(what, x->id);
			return GOT;
		}
		session_close(&x->s);
		x->open = 0;
		if (errno != ESTALE) {
			warn("%s: session %s: lock", what, x->id);
			return ERR;
		}
	}
	warnx("%s: session %s: removed and recreated repeatedly; giving up",
	    what, x->id);
	return ERR;
}

/* The session must belong to the workspace we run in. */
static int
ses_same_ws(struct ses *x, const char *what)
{
	if (strcmp(x->s.workspace, x->p.workspace) == 0)
		return 0;
	warnx("%s: session %s: belongs to workspace %s, not %s (use -C)",
	    what, x->id, x->s.workspace, x->p.workspace);
	return -1;
}

static void
list_warn(const char *path, int err, const char *what, void *arg)
{
	const char *cmd = arg;

	if (err != 0)
		warnx("%s: %s: %s (%s)", cmd, path, what, strerror(err));
	else
		warnx("%s: %s: %s", cmd, path, what);
}

/* ---- real (not dry-run) file access ---- */

/*
 * Open the parent of a resolved path (workspace-relative when inside,
 * else absolute); *name points at its last component. -2: printed.
 */
static int
real_parent(struct ses *x, const char *what, const char *rel, int inside,
    int mkdirs, const char **name)
{
	const char *slash;
	char *dir;
	int fd;

	if (inside) {
		if (ses_root(x, what, x->p.workspace) < 0)
			return -2;
		return fsx_open_parent(x->rootfd, rel, mkdirs, name);
	}
	slash = strrchr(rel, '/');
	if ((dir = mem_strndup(rel, slash == rel ? 1 : (size_t)(slash - rel)))
	    == NULL)
		return -1;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	mem_free(dir);
	*name = slash + 1;
	return fd;
}

static int
real_write(struct ses *x, const char *what, const char *rel, int inside,
    const char *buf, size_t len)
{
	struct stat st;
	const char *name;
	mode_t mode = 0666 & ~cur_umask();
	int fd, rc;

	fd = real_parent(x, what, rel, inside, 1, &name);
	if (fd < 0)
		return fd;
	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISDIR(st.st_mode)) {
			close(fd);
			errno = EISDIR;
			return -1;
		}
		if (S_ISREG(st.st_mode))
			mode = st.st_mode & 07777;
		else if (!S_ISLNK(st.st_mode)) {
			close(fd);
			errno = EINVAL;
			return -1;
		}
	}
	rc = fsx_write_atomic(fd, name, buf, len, mode, 0);
	{
		int saved = errno;

		close(fd);
		errno = saved;
	}
	return rc;
}

static int
real_open(struct ses *x, const char *what, const char *rel, int inside)
{
	struct stat st;
	int fd;

	if (inside) {
		if (ses_root(x, what, x->p.workspace) < 0)
			return -2;
		fd = fsx_open_beneath(x->rootfd, rel, O_RDONLY | O_NONBLOCK |
		    O_CLOEXEC, 0);
	} else
		fd = open(rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			errno = EISDIR;
		else
			errno = EINVAL;
		close(fd);
		return -1;
	}
	return fd;
}

/* Whether workspace/rel is dir or beneath it. */
static int
is_beneath(const char *ws, const char *rel, const char *dir)
{
	size_t wl = strcmp(ws, "/") == 0 ? 0 : strlen(ws), dl = strlen(dir);
	size_t rl = strlen(rel), al = wl + 1 + rl;
	char *abs;
	int r;

	if (dl > al || (abs = mem_alloc(al + 1)) == NULL)
		return 0;
	memcpy(abs, ws, wl);
	abs[wl] = '/';
	memcpy(abs + wl + 1, rel, rl + 1);
	r = strncmp(abs, dir, dl) == 0 && (abs[dl] == '/' || abs[dl] == '\0');
	mem_free(abs);
	return r;
}

/*
 * Resolve PATH (overlay_resolve: 0 inside, 1 outside). Under dry run a
 * path outside the workspace, or inside arcturn's state dir, is refused.
 * -1: failed, -2: refused (both printed).
 */
static int
resolve(struct ses *x, const char *what, const char *path, int dry,
    char **rel)
{
	int r;

	r = overlay_resolve(x->p.workspace, path, rel);
	if (r < 0) {
		warn("%s: %s", what, path);
		return -1;
	}
	if (dry && r == 1) {
		warnx("%s: %s: outside the workspace %s; refused under dry run",
		    what, path, x->p.workspace);
		return -2;
	}
	if (dry && x->p.state != NULL &&
	    is_beneath(x->p.workspace, *rel, x->p.state)) {
		warnx("%s: %s: inside arcturn's state dir; refused", what, path);
		return -2;
	}
	return r;
}

/* ---- write / edit / read ---- */

static int
parse_dry(struct cli *c, int *dry, const char *name)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	while ((ch = getopt_long(c->argc, c->argv, "", opts, NULL)) != -1) {
		if (ch == 'd')
			*dry = 1;
		else {
			cmd_usage(name);
			return -1;
		}
	}
	return 0;
}

static int
shadow_write(struct ses *x, const char *what, const char *path,
    const char *rel, const char *buf, size_t len)
{
	mode_t um = cur_umask();
	int r;

	r = ses_open(x, what, 1, LOCK_EX);
	if (r != GOT)
		return EXIT_USAGE;
	if (ses_same_ws(x, what) < 0 || ses_root(x, what, x->p.workspace) < 0)
		return EXIT_USAGE;
	if (overlay_write(&x->s, x->rootfd, rel, buf, len, 0666 & ~um,
	    0777 & ~um) < 0) {
		warn("%s: %s", what, path);
		return EXIT_REFUSED;
	}
	return 0;
}

int
cmd_write(struct cli *c)
{
	struct ses x;
	char *buf = NULL, *rel = NULL;
	size_t len;
	int dry = 0, r, rc = EXIT_USAGE;

	ses_init(&x);
	if (parse_dry(c, &dry, "write") < 0)
		return EXIT_USAGE;
	if (optind != c->argc - 1) {
		cmd_usage("write");
		return EXIT_USAGE;
	}
	if (ses_load(&x, c, dry) < 0)
		return EXIT_USAGE;
	r = resolve(&x, "write", c->argv[optind], x.p.dry_run, &rel);
	if (r < 0) {
		rc = EXIT_REFUSED;
		goto out;
	}
	if (fsx_read_fd(STDIN_FILENO, SIZE_MAX - 1, &buf, &len) < 0) {
		warn("write: standard input");
		goto out;
	}
	if (x.p.dry_run)
		rc = shadow_write(&x, "write", c->argv[optind], rel, buf, len);
	else if ((r = real_write(&x, "write", rel, r == 0, buf, len)) < 0) {
		if (r == -1)
			warn("write: %s", c->argv[optind]);
		rc = EXIT_REFUSED;
	} else
		rc = 0;
out:
	mem_free(buf);
	mem_free(rel);
	ses_done(&x);
	return rc;
}

/* Count non-overlapping occurrences of pat in buf. */
static size_t
count_occ(const char *buf, size_t len, const char *pat, size_t plen)
{
	const char *p = buf, *end = buf + len, *hit;
	size_t n = 0;

	while ((size_t)(end - p) >= plen &&
	    (hit = memmem(p, (size_t)(end - p), pat, plen)) != NULL) {
		n++;
		p = hit + plen;
	}
	return n;
}

static char *
replace_all(const char *buf, size_t len, const char *old, size_t olen,
    const char *new, size_t nlen, size_t n, size_t *outlen)
{
	const char *p = buf, *end = buf + len, *hit;
	char *out, *q;
	size_t total;

	if (nlen > olen && n > (SIZE_MAX - len) / (nlen - olen)) {
		errno = ENOMEM;
		return NULL;
	}
	total = len - n * olen + n * nlen;
	if ((out = mem_alloc(total + 1)) == NULL)
		return NULL;
	q = out;
	while (n-- > 0 && (hit = memmem(p, (size_t)(end - p), old, olen))) {
		memcpy(q, p, (size_t)(hit - p));
		q += hit - p;
		memcpy(q, new, nlen);
		q += nlen;
		p = hit + olen;
	}
	memcpy(q, p, (size_t)(end - p));
	q += end - p;
	*outlen = (size_t)(q - out);
	return out;
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
	struct ses x;
	const char *old = NULL, *new = NULL, *path, *name;
	char *rel = NULL, *buf = NULL, *out = NULL;
	size_t len, olen, n, outlen;
	mode_t mode;
	struct stat st;
	int ch, all = 0, dry = 0, r, rc = EXIT_USAGE, fd;

	ses_init(&x);
	while ((ch = getopt_long(c->argc, c->argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			old = optarg;
			break;
		case 'n':
			new = optarg;
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
	if (optind != c->argc - 1 || old == NULL || new == NULL) {
		cmd_usage("edit");
		return EXIT_USAGE;
	}
	path = c->argv[optind];
	if ((olen = strlen(old)) == 0) {
		warnx("edit: %s: --old must not be empty", path);
		return EXIT_USAGE;
	}
	if (ses_load(&x, c, dry) < 0)
		return EXIT_USAGE;
	if ((r = resolve(&x, "edit", path, x.p.dry_run, &rel)) < 0) {
		rc = EXIT_REFUSED;
		goto out;
	}
	if (x.p.dry_run) {
		if (ses_open(&x, "edit", 1, LOCK_EX) != GOT ||
		    ses_same_ws(&x, "edit") < 0 ||
		    ses_root(&x, "edit", x.p.workspace) < 0)
			goto out;
		if (overlay_read(&x.s, x.rootfd, rel, EDIT_MAX, &buf, &len,
		    &mode) < 0) {
			warn("edit: %s", path);
			rc = EXIT_REFUSED;
			goto out;
		}
	} else {
		fd = real_parent(&x, "edit", rel, r == 0, 0, &name);
		if (fd < 0 || fstatat(fd, name, &st, 0) < 0 ||
		    fsx_read_all(fd, name, EDIT_MAX, &buf, &len) < 0) {
			if (fd != -2)
				warn("edit: %s", path);
			if (fd >= 0)
				close(fd);
			rc = EXIT_REFUSED;
			goto out;
		}
		close(fd);
	}
	n = count_occ(buf, len, old, olen);
	if (n == 0) {
		warnx("edit: %s: old text not found", path);
		rc = EXIT_REFUSED;
		goto out;
	}
	if (n > 1 && !all) {
		warnx("edit: %s: old text found %zu times; use --all or more "
		    "context", path, n);
		rc = EXIT_REFUSED;
		goto out;
	}
	if ((out = replace_all(buf, len, old, olen, new, strlen(new), n,
	    &outlen)) == NULL) {
		warn("edit: %s", path);
		goto out;
	}
	if (x.p.dry_run) {
		mode_t um = cur_umask();

		if (overlay_write(&x.s, x.rootfd, rel, out, outlen, 0666 & ~um,
		    0777 & ~um) < 0) {
			warn("edit: %s", path);
			rc = EXIT_REFUSED;
			goto out;
		}
	} else if ((r = real_write(&x, "edit", rel, r == 0, out, outlen)) < 0) {
		if (r == -1)
			warn("edit: %s", path);
		rc = EXIT_REFUSED;
		goto out;
	}
	rc = 0;
out:
	mem_free(rel);
	mem_free(buf);
	mem_free(out);
	ses_done(&x);
	return rc;
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

int
cmd_read(struct cli *c)
{
	struct ses x;
	const char *path;
	char *rel = NULL;
	int r, fd = -1, shadow, rc = EXIT_REFUSED, got = NONE, dry = 0;

	ses_init(&x);
	if (parse_dry(c, &dry, "read") < 0)
		return EXIT_USAGE;
	if (optind != c->argc - 1) {
		cmd_usage("read");
		return EXIT_USAGE;
	}
	path = c->argv[optind];
	if (ses_load(&x, c, dry) < 0)
		return EXIT_USAGE;
	if ((r = resolve(&x, "read", path, 0, &rel)) < 0)
		goto out;
	if (r == 0 && (x.p.dry_run || x.named)) {
		got = ses_open(&x, "read", 0, LOCK_SH);
		if (got == ERR || (got == GOT && ses_same_ws(&x, "read") < 0)) {
			rc = EXIT_USAGE;
			goto out;
		}
	}
	if (got == GOT) {
		if (ses_root(&x, "read", x.p.workspace) < 0) {
			rc = EXIT_USAGE;
			goto out;
		}
		fd = overlay_open(&x.s, x.rootfd, rel, &shadow);
	} else
		fd = real_open(&x, "read", rel, r == 0);
	if (fd < 0) {
		if (fd == -1)
			warn("read: %s", path);
		goto out;
	}
	if (copy_out(fd) < 0) {
		warn("read: %s", path);
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	mem_free(rel);
	ses_done(&x);
	return rc;
}

/* ---- diff ---- */

static int
out_stdout(const void *buf, size_t len, void *arg)
{
	if (len > 0 && fwrite(buf, 1, len, stdout) != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

static int
out_null(const void *buf, size_t len, void *arg)
{
	return 0;
}

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

static int
ndigits(long v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static void
print_stat(struct overlay_changes *ch, int color)
{
	struct overlay_change *e;
	char **names;
	size_t i, nw = 0, files = 0, l;
	long maxc = 0, ins = 0, del = 0, total, a, r, graph, cw;
	int w = 80;

	if ((names = mem_calloc(ch->n + 1, sizeof *names)) == NULL) {
		warn("diff");
		return;
	}
	for (i = 0; i < ch->n; i++) {
		e = &ch->v[i];
		if (e->gone || e->status == OVERLAY_MKDIR ||
		    e->status == OVERLAY_RMDIR || e->status == OVERLAY_DIRMODE)
			continue;
		names[i] = udiff_quote("", e->path);
		if (names[i] == NULL)
			continue;
		l = strlen(names[i]);
		if (l > nw)
			nw = l;
		if (!e->st.binary && e->st.added + e->st.removed > maxc)
			maxc = e->st.added + e->st.removed;
	}
	cw = ndigits(maxc);
	/* As git: counts line up with the "Bin" of binary files. */
	for (i = 0; i < ch->n; i++)
		if (names[i] != NULL && ch->v[i].st.binary && cw < 3)
			cw = 3;
	if (nw > (size_t)(w * 5 / 8) && nw + cw + 6 + 10 > (size_t)w)
		nw = (size_t)(w * 5 / 8);
	graph = w - (long)nw - cw - 6;
	if (graph < 6)
		graph = 6;
	for (i = 0; i < ch->n; i++) {
		e = &ch->v[i];
		if (names[i] == NULL)
			continue;
		files++;
		l = strlen(names[i]);
		if (l > nw)
			printf(" ...%s", names[i] + l - nw + 3);
		else
			printf(" %-*s", (int)nw, names[i]);
		if (e->st.binary) {
			printf(" | Bin %lld -> %lld bytes\n",
			    e->old_kind == OVERLAY_FILE ? e->old_size : 0LL,
			    e->new_kind == OVERLAY_FILE ? e->new_size : 0LL);
			continue;
		}
		a = e->st.added;
		r = e->st.removed;
		ins += a;
		del += r;
		total = a + r;
		printf(" | %*ld%s", (int)cw, total, total ? " " : "");
		if (maxc > graph && total > 0) {
			long sa = a, sr = r, t = 1 + total * (graph - 1) / maxc;

			sa = a ? (a * t + total / 2) / total : 0;
			if (a && sa == 0)
				sa = 1;
			sr = t - sa;
			if (r && sr == 0) {
				sr = 1;
				if (sa > 1)
					sa--;
			}
			a = sa;
			r = sr;
		}
		if (a)
			printf("%s", color ? "\033[32m" : "");
		for (; a > 0; a--)
			putchar('+');
		if (e->st.added && color)
			printf("\033[m");
		if (r)
			printf("%s", color ? "\033[31m" : "");
		for (; r > 0; r--)
			putchar('-');
		if (e->st.removed && color)
			printf("\033[m");
		putchar('\n');
	}
	printf(" %zu file%s changed", files, files == 1 ? "" : "s");
	if (ins || del == 0)
		printf(", %ld insertion%s(+)", ins, ins == 1 ? "" : "s");
	if (del || ins == 0)
		printf(", %ld deletion%s(-)", del, del == 1 ? "" : "s");
	putchar('\n');
	for (i = 0; i < ch->n; i++)
		mem_free(names[i]);
	mem_free(names);
}

static cJSON *
mode_json(enum overlay_kind k, unsigned int perm)
{
	char b[16];
	unsigned int t;

	switch (k) {
	case OVERLAY_FILE:
		t = 0100000;
		break;
	case OVERLAY_SYMLINK:
		t = 0120000;
		break;
	case OVERLAY_DIR:
		t = 040000;
		break;
	default:
		return cJSON_CreateNull();
	}
	snprintf(b, sizeof b, "%06o", t | perm);
	return cJSON_CreateString(b);
}

static int
print_json(struct ses *x, struct overlay_changes *ch, const char *hex)
{
	struct overlay_change *e;
	cJSON *o, *files, *f;
	char *txt;
	size_t i;

	json_hooks();
	if ((o = cJSON_CreateObject()) == NULL)
		goto nomem;
	if (cJSON_AddStringToObject(o, "session", x->id) == NULL ||
	    cJSON_AddStringToObject(o, "workspace", x->p.workspace) == NULL ||
	    (files = cJSON_AddArrayToObject(o, "files")) == NULL)
		goto nomem;
	for (i = 0; i < ch->n; i++) {
		e = &ch->v[i];
		if (e->gone)
			continue;
		if ((f = cJSON_CreateObject()) == NULL)
			goto nomem;
		cJSON_AddItemToArray(files, f);
		if (cJSON_AddStringToObject(f, "path", e->path) == NULL ||
		    cJSON_AddStringToObject(f, "status",
		    overlay_status_name(e->status)) == NULL)
			goto nomem;
		cJSON_AddItemToObject(f, "mode_before",
		    mode_json(e->old_kind, e->old_mode));
		cJSON_AddItemToObject(f, "mode_after",
		    mode_json(e->new_kind, e->new_mode));
		if (cJSON_AddNumberToObject(f, "added",
		    (double)e->st.added) == NULL ||
		    cJSON_AddNumberToObject(f, "removed",
		    (double)e->st.removed) == NULL ||
		    cJSON_AddBoolToObject(f, "binary", e->st.binary) == NULL)
			goto nomem;
	}
	if (cJSON_AddNumberToObject(o, "count", (double)ch->count) == NULL ||
	    cJSON_AddStringToObject(o, "digest", hex) == NULL)
		goto nomem;
	if ((txt = cJSON_Print(o)) == NULL)
		goto nomem;
	printf("%s\n", txt);
	mem_free(txt);
	cJSON_Delete(o);
	return 0;
nomem:
	cJSON_Delete(o);
	warnx("diff: %s", strerror(ENOMEM));
	return -1;
}

/* Render (or just hash) the pending set; hex gets the digest. */
static int
run_diff(struct ses *x, struct overlay_changes *ch, const char *what,
    long cap, int color, int print, char hex[HASH_HEXLEN + 1])
{
	struct udiff_opts o;
	struct hash_ctx d;
	unsigned char dg[HASH_LEN];

	memset(&o, 0, sizeof o);
	o.ctx = 3;
	o.cap = cap;
	o.color = color;
	hash_init(&d);
	if (overlay_diff(&x->s, x->rootfd, ch, &o, print ? out_stdout :
	    out_null, NULL, &d, list_warn, (void *)what) < 0) {
		warn("%s", what);
		return -1;
	}
	hash_final(&d, dg);
	hash_hex(dg, hex);
	return 0;
}

int
cmd_diff(struct cli *c)
{
	static const struct option opts[] = {
		{ "full", no_argument, NULL, 'f' },
		{ "stat", no_argument, NULL, 's' },
		{ "color", optional_argument, NULL, 'c' },
		{ "colour", optional_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 }
	};
	struct ses x;
	struct overlay_changes ch = { NULL, 0, 0 };
	char hex[HASH_HEXLEN + 1];
	const char *when = NULL;
	int full = 0, stat = 0, color, r, rc = EXIT_USAGE, opt;

	ses_init(&x);
	while ((opt = getopt_long(c->argc, c->argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			full = 1;
			break;
		case 's':
			stat = 1;
			break;
		case 'c':
			when = optarg != NULL ? optarg : "always";
			break;
		default:
			cmd_usage("diff");
			return EXIT_USAGE;
		}
	}
	if (optind != c->argc || (color = want_color(when)) < 0) {
		if (optind == c->argc)
			warnx("diff: --color=%s: want auto, always or never",
			    when);
		cmd_usage("diff");
		return EXIT_USAGE;
	}
	if (ses_load(&x, c, 0) < 0)
		return EXIT_USAGE;
	r = ses_open(&x, "diff", 0, LOCK_SH);
	if (r == ERR)
		goto out;
	if (r == NONE) {
		if (x.named) {
			warnx("diff: session %s: no such session", x.p.session);
			goto out;
		}
		/* Nothing pending: like git diff, print nothing. */
		if (c->json) {
			unsigned char dg[HASH_LEN];
			struct hash_ctx d;

			hash_init(&d);
			hash_final(&d, dg);
			hash_hex(dg, hex);
			x.id[0] = '\0';
			if (print_json(&x, &ch, hex) < 0)
				goto out;
		}
		rc = 0;
		goto out;
	}
	if (ses_same_ws(&x, "diff") < 0 ||
	    ses_root(&x, "diff", x.p.workspace) < 0)
		goto out;
	if (overlay_changes(&x.s, x.rootfd, &ch, list_warn, "diff") < 0) {
		warn("diff: session %s", x.id);
		goto out;
	}
	if (c->json || stat) {
		if (run_diff(&x, &ch, "diff", -1, 0, 0, hex) < 0)
			goto out;
		if (c->json) {
			if (print_json(&x, &ch, hex) < 0)
				goto out;
		} else if (ch.n > 0) {
			print_stat(&ch, color);
			printf("digest: %s\n", hex);
		}
	} else {
		if (run_diff(&x, &ch, "diff", full ? -1 : CAP_DEFAULT, color,
		    1, hex) < 0)
			goto out;
		if (ch.n > 0)
			printf("digest: %s\n", hex);
	}
	rc = 0;
out:
	overlay_changes_free(&ch);
	ses_done(&x);
	return rc;
}

/* ---- apply / discard ---- */

/*
 * Ask on the terminal: /dev/tty, else stdin when it is one. Returns 1
 * for yes, 0 for no, -1 when there is no terminal.
 */
static int
confirm(const char *question, const char *choices, const char *yes)
{
	char line[64];
	size_t n = 0;
	ssize_t r;
	char ch;
	int in, out, own = 0;

	in = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (in >= 0) {
		out = in;
		own = 1;
	} else if (isatty(STDIN_FILENO)) {
		in = STDIN_FILENO;
		out = STDERR_FILENO;
	} else
		return -1;
	fflush(stdout);
	dprintf(out, "%s %s ", question, choices);
	for (;;) {
		r = read(in, &ch, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || ch == '\n')
			break;
		if (n < sizeof line - 1)
			line[n++] = ch;
	}
	line[n] = '\0';
	if (r <= 0)
		dprintf(out, "\n");
	if (own)
		close(in);
	for (n = 0; line[n] == ' ' || line[n] == '\t'; n++)
		;
	return line[n] != '\0' && strchr(yes, line[n] | 0x20) != NULL;
}

/* How many of the counted (not implied) changes are in a state. */
static size_t
count_where(struct overlay_changes *ch, const int *sel, int applied)
{
	size_t i, n = 0;

	for (i = 0; i < ch->n; i++)
		if (sel[i] && !ch->v[i].implied &&
		    (applied < 0 || ch->v[i].applied == applied))
			n++;
	return n;
}

static int
under(const char *path, const char *dir)
{
	size_t l = strlen(dir);

	return strncmp(path, dir, l) == 0 && path[l] == '/';
}

/*
 * Run one phase's items through apply_run. Items of the phases without
 * inner order are split over a few threads: each item costs two fsyncs
 * (file and directory), and concurrent fsyncs share journal commits.
 */
#define APPLY_THREADS	8
#define APPLY_CHUNK	16

struct chunk {
	int			 rootfd;
	struct apply_item	*it;
	size_t			 n;
	long			 rc;
	int			 err;
};

static void *
chunk_run(void *arg)
{
	struct chunk *c = arg;

	c->rc = apply_run(c->rootfd, c->it, c->n);
	c->err = errno;
	return NULL;
}

static void
run_phase(int rootfd, struct apply_item *it, size_t n, int parallel)
{
	struct chunk ck[APPLY_THREADS];
	pthread_t th[APPLY_THREADS];
	int started[APPLY_THREADS];
	size_t nt = 1, i, k, off, end, per;

	if (n == 0)
		return;
	if (parallel) {
		nt = (n + APPLY_CHUNK - 1) / APPLY_CHUNK;
		if (nt > APPLY_THREADS)
			nt = APPLY_THREADS;
	}
	per = (n + nt - 1) / nt;
	/* Chunks end only where a directory's group ends (overlay.h). */
	for (i = 0, off = 0; i < nt; i++, off = end) {
		end = i == nt - 1 || off + per >= n ? n : off + per;
		while (end < n && end > off &&
		    overlay_same_dir(it[end - 1].path, it[end].path))
			end++;
		ck[i].rootfd = rootfd;
		ck[i].it = it + off;
		ck[i].n = end - off;
		ck[i].rc = 0;
		started[i] = i > 0 && ck[i].n > 0 &&
		    pthread_create(&th[i], NULL, chunk_run, &ck[i]) == 0;
	}
	/* Chunk 0 here; a chunk whose thread did not start, after it. */
	for (i = 0; i < nt; i++)
		if (!started[i] && ck[i].n > 0)
			chunk_run(&ck[i]);
	for (i = 0; i < nt; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		/* Nothing tried in this chunk: each item fails with the cause. */
		for (k = 0; ck[i].n > 0 && ck[i].rc < 0 && k < ck[i].n; k++) {
			ck[i].it[k].failed = 1;
			ck[i].it[k].err = ck[i].err;
			snprintf(ck[i].it[k].reason, sizeof ck[i].it[k].reason,
			    "%s", strerror(ck[i].err));
		}
	}
}

/* Run the plan's phases in order; see overlay.h for what each holds. */
static void
run_plan(int rootfd, struct overlay_plan *p)
{
	struct apply_item *rm;
	size_t i, k;

	run_phase(rootfd, p->items[OVERLAY_PH_DELETE],
	    p->n[OVERLAY_PH_DELETE], 1);
	for (k = 0; k < p->n[OVERLAY_PH_RMTREE]; k++) {
		rm = &p->items[OVERLAY_PH_RMTREE][k];
		for (i = 0; i < p->n[OVERLAY_PH_DELETE]; i++)
			if (p->items[OVERLAY_PH_DELETE][i].failed &&
			    under(p->items[OVERLAY_PH_DELETE][i].path, rm->path))
				break;
		if (i < p->n[OVERLAY_PH_DELETE]) {
			rm->failed = 1;
			snprintf(rm->reason, sizeof rm->reason,
			    "a file beneath it was not applied; kept");
		} else
			run_phase(rootfd, rm, 1, 0);
	}
	run_phase(rootfd, p->items[OVERLAY_PH_MKDIR], p->n[OVERLAY_PH_MKDIR],
	    0);
	run_phase(rootfd, p->items[OVERLAY_PH_FILES], p->n[OVERLAY_PH_FILES],
	    1);
	run_phase(rootfd, p->items[OVERLAY_PH_DIRMODE],
	    p->n[OVERLAY_PH_DIRMODE], 0);
}

int
cmd_apply(struct cli *c)
{
	static const struct option opts[] = {
		{ "yes", no_argument, NULL, 'y' },
		{ "expect", required_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 }
	};
	struct ses x;
	struct overlay_changes ch = { NULL, 0, 0 };
	struct overlay_plan plan;
	char hex[HASH_HEXLEN + 1], q[96], **paths = NULL;
	const char *expect = NULL;
	int *sel = NULL, yes = 0, r, rc = EXIT_USAGE, opt, ph, all, ok;
	size_t i, k, np = 0, nsel, napplied, nfailed;
	long unmatched;

	memset(&plan, 0, sizeof plan);
	ses_init(&x);
	while ((opt = getopt_long(c->argc, c->argv, "y", opts, NULL)) != -1) {
		switch (opt) {
		case 'y':
			yes = 1;
			break;
		case 'e':
			expect = optarg;
			break;
		default:
			cmd_usage("apply");
			return EXIT_USAGE;
		}
	}
	if (ses_load(&x, c, 0) < 0)
		return EXIT_USAGE;
	r = ses_open(&x, "apply", 0, LOCK_EX);
	if (r == ERR)
		goto out;
	if (r == NONE) {
		if (x.named) {
			warnx("apply: session %s: no such session", x.p.session);
			goto out;
		}
		if (expect != NULL) {
			warnx("apply: nothing pending; --expect %s refused",
			    expect);
			rc = EXIT_REFUSED;
			goto out;
		}
		if (!c->quiet)
			printf("No pending changes.\n");
		rc = 0;
		goto out;
	}
	if (ses_same_ws(&x, "apply") < 0 ||
	    ses_root(&x, "apply", x.p.workspace) < 0)
		goto out;
	if (overlay_changes(&x.s, x.rootfd, &ch, list_warn, "apply") < 0) {
		warn("apply: session %s", x.id);
		goto out;
	}
	if (expect != NULL) {
		if (run_diff(&x, &ch, "apply", -1, 0, 0, hex) < 0)
			goto out;
		if (strcasecmp(expect, hex) != 0) {
			warnx("apply: pending changes do not match --expect %s "
			    "(pending: %s); refused", expect, hex);
			rc = EXIT_REFUSED;
			goto out;
		}
	}
	if (ch.n == 0) {
		if (!c->quiet)
			printf("No pending changes.\n");
		if (optind == c->argc) {
			x.open = 0;
			session_remove(&x.s);
		}
		rc = 0;
		goto out;
	}
	np = (size_t)(c->argc - optind);
	if (np > 0 && (paths = mem_calloc(np, sizeof *paths)) == NULL) {
		warn("apply");
		goto out;
	}
	for (i = 0; i < np; i++) {
		r = overlay_resolve(x.p.workspace, c->argv[optind + (int)i],
		    &paths[i]);
		if (r != 0) {
			if (r < 0)
				warn("apply: %s", c->argv[optind + (int)i]);
			else
				warnx("apply: %s: outside the workspace",
				    c->argv[optind + (int)i]);
			rc = EXIT_REFUSED;
			goto out;
		}
	}
	if ((sel = mem_calloc(ch.n, sizeof *sel)) == NULL) {
		warn("apply");
		goto out;
	}
	overlay_select(&ch, paths, np, sel, &unmatched);
	if (unmatched >= 0) {
		warnx("apply: %s: no pending change there",
		    c->argv[optind + (int)unmatched]);
		rc = EXIT_REFUSED;
		goto out;
	}
	nsel = count_where(&ch, sel, -1);
	if (nsel == 0)
		for (i = 0; i < ch.n; i++)
			nsel += sel[i];
	if (!yes) {
		snprintf(q, sizeof q, "Apply %zu file(s) to the workspace?",
		    nsel);
		r = confirm(q, "[a]pply/[k]eep pending", "ay");
		if (r < 0) {
			warnx("apply: no terminal to confirm on; use --yes to "
			    "apply %zu file(s) without asking", nsel);
			goto out;
		}
		if (r == 0) {
			if (!c->quiet)
				printf("Kept %zu pending file(s).\n", nsel);
			rc = EXIT_REFUSED;
			goto out;
		}
	}
	if (overlay_plan(&x.s, x.rootfd, &ch, sel, &plan) < 0) {
		warn("apply: session %s", x.id);
		goto out;
	}
	run_plan(x.rootfd, &plan);
	for (i = 0; i < ch.n; i++)
		ch.v[i].applied = sel[i];
	for (ph = 0; ph < OVERLAY_NPHASE; ph++)
		for (k = 0; k < plan.n[ph]; k++)
			if (plan.items[ph][k].failed)
				ch.v[plan.owner[ph][k]].applied = 0;
	for (ph = 0; ph < OVERLAY_NPHASE; ph++)
		for (k = 0; k < plan.n[ph]; k++)
			if (plan.items[ph][k].failed)
				warnx("apply: %s: %s", plan.items[ph][k].path,
				    plan.items[ph][k].reason);
	napplied = count_where(&ch, sel, 1);
	nfailed = count_where(&ch, sel, 0);
	if (nfailed == 0)
		for (i = 0; i < ch.n; i++)
			nfailed += sel[i] && !ch.v[i].applied;
	all = 1;
	for (i = 0; i < ch.n; i++)
		if (!ch.v[i].applied)
			all = 0;
	ok = overlay_settle(&x.s, &ch);
	if (ok < 0)
		warn("apply: session %s: dropping applied changes", x.id);
	else if (ok > 0)
		warnx("apply: session %s: %d applied change(s) could not be "
		    "dropped from the session", x.id, ok);
	if (all) {
		x.open = 0;
		if (session_remove(&x.s) < 0)
			warn("apply: removing session %s", x.id);
	}
	if (nfailed > 0) {
		printf("Applied %zu, failed %zu. Pending changes kept.\n",
		    napplied, nfailed);
		rc = EXIT_REFUSED;
	} else {
		if (!c->quiet)
			printf("Applied %zu file(s).\n", napplied);
		rc = 0;
	}
out:
	overlay_plan_free(&plan);
	overlay_changes_free(&ch);
	for (i = 0; paths != NULL && i < np; i++)
		mem_free(paths[i]);
	mem_free(paths);
	mem_free(sel);
	ses_done(&x);
	return rc;
}

int
cmd_discard(struct cli *c)
{
	static const struct option opts[] = {
		{ "yes", no_argument, NULL, 'y' },
		{ NULL, 0, NULL, 0 }
	};
	struct ses x;
	struct overlay_changes ch = { NULL, 0, 0 };
	char q[96];
	size_t n = 0;
	int yes = 0, r, rc = EXIT_USAGE, opt;

	ses_init(&x);
	while ((opt = getopt_long(c->argc, c->argv, "y", opts, NULL)) != -1) {
		if (opt == 'y')
			yes = 1;
		else {
			cmd_usage("discard");
			return EXIT_USAGE;
		}
	}
	if (optind != c->argc) {
		cmd_usage("discard");
		return EXIT_USAGE;
	}
	if (ses_load(&x, c, 0) < 0)
		return EXIT_USAGE;
	r = ses_open(&x, "discard", 0, LOCK_EX);
	if (r == ERR)
		goto out;
	if (r == NONE) {
		if (!c->quiet)
			printf("No pending changes.\n");
		rc = 0;
		goto out;
	}
	/* Count against the session's own workspace, wherever we run. */
	if (ses_root(&x, "discard", x.s.workspace) == 0 &&
	    overlay_changes(&x.s, x.rootfd, &ch, NULL, NULL) == 0)
		n = ch.count;
	if (n > 0 && !yes) {
		snprintf(q, sizeof q, "Discard %zu pending file change(s)?", n);
		r = confirm(q, "[d]iscard/[k]eep", "dy");
		if (r < 0) {
			warnx("discard: no terminal to confirm on; use --yes to "
			    "discard %zu pending file change(s)", n);
			goto out;
		}
		if (r == 0) {
			if (!c->quiet)
				printf("Kept %zu pending file change(s).\n", n);
			rc = EXIT_REFUSED;
			goto out;
		}
	}
	x.open = 0;
	if (session_remove(&x.s) < 0) {
		warn("discard: session %s", x.id);
		goto out;
	}
	if (!c->quiet) {
		if (n > 0)
			printf("Discarded %zu pending file change(s).\n", n);
		else
			printf("No pending changes.\n");
	}
	rc = 0;
out:
	overlay_changes_free(&ch);
	ses_done(&x);
	return rc;
}

/* ---- session list|show|rm ---- */

static char
status_letter(enum overlay_status s)
{
	switch (s) {
	case OVERLAY_ADDED:
	case OVERLAY_MKDIR:
		return 'A';
	case OVERLAY_DELETED:
	case OVERLAY_RMDIR:
		return 'D';
	case OVERLAY_TYPE:
		return 'T';
	default:
		return 'M';
	}
}

/* Pending changes of an open session, against its own workspace. */
static long
pending_of(struct session *s, struct overlay_changes *ch)
{
	int rootfd, rc;

	memset(ch, 0, sizeof *ch);
	if (session_lock(s, LOCK_SH) < 0)
		return -1;
	rootfd = open(s->workspace, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		session_unlock(s);
		return -1;
	}
	rc = overlay_changes(s, rootfd, ch, NULL, NULL);
	close(rootfd);
	session_unlock(s);
	return rc < 0 ? -1 : (long)ch->count;
}

static int
session_list_cmd(struct ses *x, struct cli *c)
{
	struct overlay_changes ch;
	struct session s;
	char **ids = NULL;
	size_t n = 0, i;
	cJSON *arr = NULL, *o;
	char *txt;
	long pend;
	int rc = 0;

	x->storefd = session_store_open(x->p.state, 0);
	if (x->storefd < 0 && errno != ENOENT) {
		warn("session: %s/overlays", x->p.state);
		return EXIT_USAGE;
	}
	if (x->storefd >= 0 && session_list(x->storefd, &ids, &n) < 0) {
		warn("session: %s/overlays", x->p.state);
		return EXIT_USAGE;
	}
	json_hooks();
	if (c->json && (arr = cJSON_CreateArray()) == NULL) {
		session_ids_free(ids, n);
		warnx("session: %s", strerror(ENOMEM));
		return EXIT_USAGE;
	}
	if (!c->json && n > 0)
		printf("%-16s %7s  %s\n", "ID", "PENDING", "WORKSPACE");
	for (i = 0; i < n; i++) {
		if (session_open(x->storefd, ids[i], NULL, &s) < 0) {
			if (errno == ENOENT)
				continue;
			if (errno == EBADMSG)
				warnx("session: %s: %s", ids[i], s.why);
			else
				warn("session: %s", ids[i]);
			rc = EXIT_REFUSED;
			continue;
		}
		pend = pending_of(&s, &ch);
		if (pend < 0)
			warn("session: %s: %s", ids[i], s.workspace);
		if (c->json) {
			if ((o = cJSON_CreateObject()) == NULL)
				goto nomem;
			cJSON_AddItemToArray(arr, o);
			if (!cJSON_AddStringToObject(o, "id", ids[i]) ||
			    !cJSON_AddStringToObject(o, "workspace",
			    s.workspace) ||
			    !cJSON_AddStringToObject(o, "created", s.created) ||
			    !(pend >= 0 ? cJSON_AddNumberToObject(o, "pending",
			    (double)pend) : cJSON_AddNullToObject(o, "pending")))
				goto nomem;
		} else if (pend >= 0)
			printf("%-16s %7ld  %s\n", ids[i], pend, s.workspace);
		else
			printf("%-16s %7s  %s\n", ids[i], "?", s.workspace);
		overlay_changes_free(&ch);
		session_close(&s);
	}
	if (c->json) {
		if ((txt = cJSON_Print(arr)) == NULL) {
			cJSON_Delete(arr);
			session_ids_free(ids, n);
			warnx("session: %s", strerror(ENOMEM));
			return EXIT_USAGE;
		}
		printf("%s\n", txt);
		mem_free(txt);
		cJSON_Delete(arr);
	}
	session_ids_free(ids, n);
	return rc;
nomem:
	overlay_changes_free(&ch);
	session_close(&s);
	cJSON_Delete(arr);
	session_ids_free(ids, n);
	warnx("session: %s", strerror(ENOMEM));
	return EXIT_USAGE;
}

static int
session_show_cmd(struct ses *x, struct cli *c)
{
	struct overlay_changes ch = { NULL, 0, 0 };
	struct overlay_change *e;
	cJSON *o = NULL, *files, *f;
	char *txt;
	size_t i;
	long pend;
	int r;

	r = ses_open(x, "session", 0, 0);
	if (r == ERR)
		return EXIT_USAGE;
	if (r == NONE) {
		if (x->named)
			warnx("session: %s: no such session", x->p.session);
		else
			warnx("session: no session for workspace %s",
			    x->p.workspace);
		return EXIT_USAGE;
	}
	pend = pending_of(&x->s, &ch);
	if (pend < 0)
		warn("session: %s: %s", x->id, x->s.workspace);
	if (!c->json) {
		printf("session:   %s\nworkspace: %s\ncreated:   %s\n", x->id,
		    x->s.workspace, x->s.created);
		if (pend >= 0)
			printf("pending:   %ld\n", pend);
		for (i = 0; i < ch.n; i++) {
			e = &ch.v[i];
			if (!e->implied)
				printf("  %c %s%s\n", status_letter(e->status),
				    e->path, e->new_kind == OVERLAY_DIR ||
				    e->status == OVERLAY_RMDIR ? "/" : "");
		}
		overlay_changes_free(&ch);
		return pend < 0 ? EXIT_REFUSED : 0;
	}
	json_hooks();
	if ((o = cJSON_CreateObject()) == NULL ||
	    !cJSON_AddStringToObject(o, "id", x->id) ||
	    !cJSON_AddStringToObject(o, "workspace", x->s.workspace) ||
	    !cJSON_AddStringToObject(o, "created", x->s.created) ||
	    !(pend >= 0 ? cJSON_AddNumberToObject(o, "pending", (double)pend) :
	    cJSON_AddNullToObject(o, "pending")) ||
	    !cJSON_AddBoolToObject(o, "interrupted",
	    session_interrupted(&x->s)) ||
	    (files = cJSON_AddArrayToObject(o, "files")) == NULL)
		goto nomem;
	for (i = 0; i < ch.n; i++) {
		e = &ch.v[i];
		if (e->implied)
			continue;
		if ((f = cJSON_CreateObject()) == NULL)
			goto nomem;
		cJSON_AddItemToArray(files, f);
		if (!cJSON_AddStringToObject(f, "path", e->path) ||
		    !cJSON_AddStringToObject(f, "status",
		    overlay_status_name(e->status)))
			goto nomem;
	}
	if ((txt = cJSON_Print(o)) == NULL)
		goto nomem;
	printf("%s\n", txt);
	mem_free(txt);
	cJSON_Delete(o);
	overlay_changes_free(&ch);
	return pend < 0 ? EXIT_REFUSED : 0;
nomem:
	cJSON_Delete(o);
	overlay_changes_free(&ch);
	warnx("session: %s", strerror(ENOMEM));
	return EXIT_USAGE;
}

static int
session_rm_cmd(struct ses *x, struct cli *c, const char *id)
{
	int r;

	if (!session_id_valid(id)) {
		warnx("session: %s: invalid session id "
		    "(want [a-z0-9][a-z0-9-]{0,63})", id);
		return EXIT_USAGE;
	}
	mem_free(x->p.session);
	if ((x->p.session = mem_strdup(id)) == NULL) {
		warn("session");
		return EXIT_USAGE;
	}
	r = ses_open(x, "session", 0, LOCK_EX);
	if (r == ERR)
		return EXIT_USAGE;
	if (r == NONE) {
		warnx("session: %s: no such session", id);
		return EXIT_USAGE;
	}
	x->open = 0;
	if (session_remove(&x->s) < 0) {
		warn("session: rm %s", id);
		return EXIT_USAGE;
	}
	if (!c->quiet)
		printf("Removed session %s.\n", id);
	return 0;
}

int
cmd_session(struct cli *c)
{
	struct ses x;
	const char *sub;
	int rc = EXIT_USAGE;

	ses_init(&x);
	if (c->argc < 2) {
		cmd_usage("session");
		return EXIT_USAGE;
	}
	sub = c->argv[1];
	if (strcmp(sub, "list") == 0 && c->argc == 2) {
		if (ses_load(&x, c, 0) == 0)
			rc = session_list_cmd(&x, c);
	} else if (strcmp(sub, "show") == 0 && c->argc <= 3) {
		if (c->argc == 3 && !session_id_valid(c->argv[2])) {
			warnx("session: %s: invalid session id "
			    "(want [a-z0-9][a-z0-9-]{0,63})", c->argv[2]);
			return EXIT_USAGE;
		}
		if (ses_load(&x, c, 0) == 0) {
			if (c->argc == 3) {
				mem_free(x.p.session);
				x.p.session = mem_strdup(c->argv[2]);
				x.named = 1;
			}
			if (c->argc != 3 || x.p.session != NULL)
				rc = session_show_cmd(&x, c);
		}
	} else if (strcmp(sub, "rm") == 0 && c->argc == 3) {
		if (ses_load(&x, c, 0) == 0)
			rc = session_rm_cmd(&x, c, c->argv[2]);
	} else {
		cmd_usage("session");
		return EXIT_USAGE;
	}
	ses_done(&x);
	return rc;
}

/* While the command runs: delete the last run's overlayfs work dir. */
static void
sweep(void *s)
{
	session_run_sweep(s);
}

/*
 * exec --dry-run, for cmd_exec (which hands its policy over): the command
 * runs with overlayfs on the workspace and the session's upper dir, under
 * the session's exclusive lock; when it ends, the real state of every
 * path it changed becomes that change's base (apply refuses a file whose
 * real content changes after that). Fails closed: when the overlay cannot
 * be had, nothing is created and the command does not run (125).
 */
int
dryrun_exec(struct policy *p, char **cmd)
{
	struct session_run run;
	struct ses x;
	char upper[PATH_MAX], work[PATH_MAX], err[1024];
	int rc, changed;

	if (!sandbox_overlay_available(p, err, sizeof err)) {
		warnx("exec --dry-run: %s; not running the command", err);
		policy_free(p);
		return EXIT_OWN;
	}
	ses_init(&x);
	x.p = *p;
	memset(p, 0, sizeof *p);
	x.named = x.p.session != NULL;
	if (ses_open(&x, "exec", 1, LOCK_EX) != GOT ||
	    ses_same_ws(&x, "exec") < 0 ||
	    ses_root(&x, "exec", x.p.workspace) < 0) {
		ses_done(&x);
		return EXIT_OWN;
	}
	/* so that arcturn inside the command fails instead of waiting */
	(void)setenv(DRYRUN_BUSY_ENV, x.id, 1);
	snprintf(upper, sizeof upper, "%s/overlays/%s/upper", x.p.state, x.id);
	snprintf(work, sizeof work, "%s/overlays/%s/work", x.p.state, x.id);
	if (session_run_begin(&x.s, &run) < 0) {
		warn("exec --dry-run: session %s: preparing the overlay; not "
		    "running the command", x.id);
		ses_done(&x);
		return EXIT_OWN;
	}
	err[0] = '\0';
	rc = sandbox_exec_overlay(&x.p, upper, work, cmd, sweep, &x.s, err,
	    sizeof err);
	changed = session_run_changed(&x.s, &run);
	if (rc < 0) {
		warnx("%s", err);
		rc = EXIT_OWN;
	} else if (changed && overlay_record_bases(&x.s, x.rootfd) < 0)
		warn("exec --dry-run: session %s: recording what the changes "
		    "were made on", x.id);
	if (session_run_end(&x.s, changed) < 0)
		warn("exec --dry-run: session %s: syncing what the command "
		    "wrote", x.id);
	ses_done(&x);
	return rc;
}
