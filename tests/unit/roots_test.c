/*
 * roots: policy in, writable roots, protected paths and pins out. A fake
 * file system stands in for macOS's /var -> /private/var and for symlinks
 * in the workspace; one test runs on the real file system. Limits, the
 * questions the file tools will ask, and an allocation fault loop.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakefs.h"
#include "lib/mem.h"
#include "policy/roots.h"
#include "sandbox/sandbox_posix.h"
#include "tap.h"

static struct fakefs fs;
static struct roots_ops ops = FAKEFS_OPS(&fs);

static void
fs_init(void)
{
	static const char *dirs[] = {
		"/", "/home", "/home/me", "/home/me/proj", "/home/me/proj/.git",
		"/home/me/proj/.git/hooks", "/home/me/proj/real",
		"/home/me/proj/a", "/home/me/proj/a/b", "/home/me/proj/a/b/c",
		"/home/me/proj/a/b/c/d", "/home/me/proj/a/b/e",
		"/home/me/proj/a/x", "/outside", "/outside/sub",
		"/outside/sub/x", "/tmp", "/dev", "/dev/null", "/dev/zero",
		"/dev/tty", "/dev/pts", "/private", "/private/var",
		"/private/var/folders", "/private/var/folders/T", NULL
	};
	int i;

	memset(&fs, 0, sizeof fs);
	fs.links[0][0] = "/var";
	fs.links[0][1] = "/private/var";
	fs.links[1][0] = "/home/me/proj/evil";	/* out of the workspace */
	fs.links[1][1] = "/outside";
	fs.links[2][0] = "/home/me/proj/in";	/* within it */
	fs.links[2][1] = "/home/me/proj/real";
	fs.links[3][0] = "/home/me/link";	/* to the workspace */
	fs.links[3][1] = "/home/me/proj";
	for (i = 0; dirs[i] != NULL; i++)
		fakefs_add(&fs, dirs[i], 0);
	fakefs_add(&fs, "/home/me/proj/.git/config", 1);
}

static char *prot_default[] = { ".git/hooks", ".git/config" };

static void
policy_init(struct policy *p)
{
	memset(p, 0, sizeof *p);
	p->mode = MODE_WORKSPACE_WRITE;
	p->network = 1;
	p->workspace = "/home/me/proj";
	p->tmpdir = "/tmp";
	p->state = "/home/me/.arcturn";
	p->user_config = "/home/me/.config/arcturn/config.json";
	p->protect.v = prot_default;
	p->protect.n = 2;
}

static int
in_list(const struct strlist *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return 1;
	return 0;
}

/* a and b hold the same lists, in the same order, with the same rules */
static void
same_list(const struct strlist *a, const unsigned char *ar,
    const struct strlist *b, const unsigned char *br)
{
	size_t i;

	CHECK(a->n == b->n);
	for (i = 0; i < a->n && i < b->n; i++) {
		CHECK_STR(a->v[i], b->v[i]);
		CHECK(ar == NULL || br == NULL || ar[i] == br[i]);
	}
}

static void
same_roots(const struct roots *a, const struct roots *b)
{
	CHECK(a->ndev == b->ndev);
	same_list(&a->w, a->wrule, &b->w, b->wrule);
	same_list(&a->p, a->prule, &b->p, b->prule);
	same_list(&a->pin, NULL, &b->pin, NULL);
	same_list(&a->absent, a->arule, &b->absent, b->arule);
	same_list(&a->watch, a->xrule, &b->watch, b->xrule);
}

/* l holds exactly want (NULL-terminated), in this order */
static void
same(const struct strlist *l, const char **want)
{
	size_t i;

	for (i = 0; want[i] != NULL; i++) {
		if (i >= l->n) {
			fprintf(stderr, "# missing %s (have %zu)\n", want[i], l->n);
			for (i = 0; i < l->n; i++)
				fprintf(stderr, "#  have %s\n", l->v[i]);
			CHECK(0);
		}
		CHECK_STR(l->v[i], want[i]);
	}
	if (i != l->n)
		fprintf(stderr, "# extra %s\n", l->v[i]);
	CHECK(i == l->n);
}

static void
t_linux_default(void)
{
	const char *w[] = { "/home/me/proj", "/tmp", "/home/me/.arcturn",
	    "/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx",
	    "/dev/pts", "/dev/shm", NULL };
	const char *p[] = { "/home/me/proj/.git/hooks",
	    "/home/me/proj/.git/config", "/home/me/.arcturn/overlays",
	    "/home/me/.arcturn/checkpoints", "/home/me/.arcturn/cache", NULL };
	const char *pin[] = { "/home/me/proj/.git", NULL };
	struct policy pol;
	struct roots r;

	fs_init();
	policy_init(&pol);
	CHECK(roots_build(&pol, ROOTS_PROTECT | ROOTS_DEVICES, &ops, &r) == 0);
	same(&r.w, w);
	CHECK(r.ndev == 7);	/* as named: a backend skips what is missing */
	same(&r.p, p);
	same(&r.pin, pin);
	/* made: the state dir, overlays/, checkpoints/, cache/; not the
	   config's folder */
	CHECK(fs.mkdirs == 4);
	CHECK(fakefs_find(&fs, "/home/me/.arcturn/cache", 23) >= 0);
	CHECK(fakefs_find(&fs, "/home/me/.config", 16) < 0);
	roots_free(&r);
	/* without ROOTS_PROTECT and ROOTS_DEVICES: the roots alone */
	fs_init();
	CHECK(roots_build(&pol, 0, &ops, &r) == 0);
	CHECK(r.w.n == 3 && r.ndev == 0 && r.p.n == 0 && r.pin.n == 0);
	CHECK(fs.mkdirs == 1);
	roots_free(&r);
}

/* macOS: /var is a link; roots and protected paths arrive resolved */
static void
t_fake_realpath(void)
{
	const char *w[] = { "/private/var/folders/T/ws", "/private/tmp",
	    "/private/var/folders/T/ws/.st", NULL };
	const char *p[] = { "/private/var/folders/T/ws/.git/hooks",
	    "/private/var/folders/T/ws/.st/overlays",
	    "/private/var/folders/T/ws/.st/checkpoints",
	    "/private/var/folders/T/ws/.st/cache", NULL };
	char *prot[] = { ".git/hooks" };
	struct policy pol;
	struct roots r;

	fs_init();
	fs.links[1][0] = "/tmp";
	fs.links[1][1] = "/private/tmp";
	fakefs_add(&fs, "/private/tmp", 0);
	fakefs_add(&fs, "/private/var/folders/T/ws", 0);
	policy_init(&pol);
	pol.workspace = "/var/folders/T/ws/";
	pol.tmpdir = "/tmp";
	pol.state = "/var/folders/T/ws/.st";
	pol.protect.v = prot;
	pol.protect.n = 1;
	pol.user_config = NULL;
	/* Seatbelt keeps what does not exist yet: a deny refuses creating it */
	CHECK(roots_build(&pol, ROOTS_PROTECT | ROOTS_MISSING, &ops, &r) == 0);
	same(&r.w, w);
	same(&r.p, p);
	/* pins are for what exists (a mount can only pin what exists) */
	CHECK(r.pin.n == 0);
	CHECK(roots_writable(&r, "/private/var/folders/T/ws/src/x.c"));
	CHECK(!roots_writable(&r, "/var/folders/T/ws/src/x.c"));
	roots_free(&r);
}

/*
 * A protect entry through a workspace symlink is the link's target: kept
 * (with its pins) when the target is in the workspace, dropped when it
 * is outside every root (it is read-only there anyway; a read-only bind
 * of it must not make the outside a writable view).
 */
static void
t_symlink_protect(void)
{
	char *prot[] = { "evil/sub/x", "in/x", "in" };
	const char *p[] = { "/home/me/proj/real/x", "/home/me/proj/real",
	    NULL };
	const char *pin[] = { "/home/me/proj/real", NULL };
	struct policy pol;
	struct roots r;

	fs_init();
	fakefs_add(&fs, "/home/me/proj/real/x", 1);
	policy_init(&pol);
	pol.protect.v = prot;
	pol.protect.n = 3;
	pol.user_config = NULL;
	CHECK(roots_build(&pol, ROOTS_PROTECT, &ops, &r) == 0);
	CHECK(r.p.n >= 2);
	CHECK_STR(r.p.v[0], p[0]);
	CHECK_STR(r.p.v[1], p[1]);
	CHECK(!roots_protected(&r, "/outside/sub/x"));
	same(&r.pin, pin);
	roots_free(&r);
	/* the workspace itself given through a link: the same answer */
	fs_init();
	fakefs_add(&fs, "/home/me/proj/real/x", 1);
	pol.workspace = "/home/me/link";
	CHECK(roots_build(&pol, ROOTS_PROTECT, &ops, &r) == 0);
	CHECK_STR(r.w.v[0], "/home/me/proj");
	CHECK_STR(r.p.v[0], p[0]);
	roots_free(&r);
}

/* A workspace of $HOME holds the user config's folder: made, protected. */
static void
t_config_in_home(void)
{
	struct policy pol;
	struct roots r;

	fs_init();
	policy_init(&pol);
	pol.workspace = "/home/me";
	pol.protect.n = 0;
	CHECK(roots_build(&pol, ROOTS_PROTECT, &ops, &r) == 0);
	CHECK(fakefs_find(&fs, "/home/me/.config", 16) >= 0);
	CHECK(fakefs_find(&fs, "/home/me/.config/arcturn", 24) >= 0);
	CHECK(roots_protected(&r, "/home/me/.config/arcturn/config.json"));
	CHECK(!roots_protected(&r, "/home/me/.config/other"));
	/* its parent is pinned: `mv .config x` cannot get around it */
	CHECK(r.pin.n == 1);
	CHECK_STR(r.pin.v[0], "/home/me/.config");
	/* overlays/ is beneath the state dir, a root nearer than $HOME */
	CHECK(roots_protected(&r, "/home/me/.arcturn/overlays/s/meta.json"));
	roots_free(&r);
	/* a config file at / has the folder /: no root holds it */
	fs_init();
	pol.user_config = "/config.json";
	CHECK(roots_build(&pol, ROOTS_PROTECT, &ops, &r) == 0);
	CHECK(!roots_protected(&r, "/config.json"));
	roots_free(&r);
}

/* Pins: strictly between root and path, outermost first, each once. */
static void
t_pins(void)
{
	char *prot[] = { "a/b/c/d", "a/b/e", "a/x", "a/b/c/d", ".git" };
	const char *p[] = { "/home/me/proj/a/b/c/d", "/home/me/proj/a/b/e",
	    "/home/me/proj/a/x", "/home/me/proj/.git", NULL };
	const char *pin[] = { "/home/me/proj/a", "/home/me/proj/a/b",
	    "/home/me/proj/a/b/c", NULL };
	struct policy pol;
	struct roots r;

	fs_init();
	policy_init(&pol);
	pol.protect.v = prot;
	pol.protect.n = 5;
	pol.state = "/home/me/proj/.st";	/* a root inside a root */
	pol.user_config = NULL;
	CHECK(roots_build(&pol, ROOTS_PROTECT, &ops, &r) == 0);
	/* the listed twice is listed once; then the state dir's three */
	CHECK(r.p.n == 7);
	r.p.n = 4;
	same(&r.p, p);
	r.p.n = 7;
	/* .st/overlays has .st for its root: nothing to pin */
	CHECK_STR(r.p.v[4], "/home/me/proj/.st/overlays");
	same(&r.pin, pin);
	roots_free(&r);
}

static void
t_read_only(void)
{
	struct policy pol;
	struct roots r;

	fs_init();
	policy_init(&pol);
	pol.mode = MODE_READ_ONLY;
	CHECK(roots_build(&pol, ROOTS_PROTECT | ROOTS_DEVICES, &ops, &r) == 0);
	CHECK(r.w.n == 1 + r.ndev);
	CHECK_STR(r.w.v[0], "/tmp");
	CHECK(r.p.n == 0 && r.pin.n == 0);	/* nothing beneath /tmp */
	CHECK(fs.mkdirs == 0);			/* no state dir made */
	roots_free(&r);
	/* a workspace inside the temp dir is writable: protected there */
	fs_init();
	fakefs_add(&fs, "/tmp/ws", 0);
	fakefs_add(&fs, "/tmp/ws/.git", 0);
	pol.workspace = "/tmp/ws";
	pol.protect.v = prot_default;
	pol.protect.n = 1;
	fakefs_add(&fs, "/tmp/ws/.git/hooks", 0);
	CHECK(roots_build(&pol, ROOTS_PROTECT, &ops, &r) == 0);
	CHECK(r.p.n == 1);
	CHECK_STR(r.p.v[0], "/tmp/ws/.git/hooks");
	CHECK(r.pin.n == 2);
	CHECK_STR(r.pin.v[0], "/tmp/ws");
	roots_free(&r);
}

/* Windows: the state dir is no root; nothing is made without mkdir */
static void
t_nostate(void)
{
	struct roots_ops nomk = FAKEFS_OPS(&fs);
	struct policy pol;
	struct roots r;

	nomk.mkdir = NULL;
	fs_init();
	policy_init(&pol);
	CHECK(roots_build(&pol, ROOTS_NOSTATE, &nomk, &r) == 0);
	CHECK(r.w.n == 2);
	CHECK_STR(r.w.v[0], "/home/me/proj");
	CHECK_STR(r.w.v[1], "/tmp");
	CHECK(fs.mkdirs == 0);
	roots_free(&r);
}

/* .git a file (a linked worktree): nothing can exist beneath it */
static void
t_parent_is_a_file(void)
{
	char *prot[] = { ".git/config/x" };
	struct policy pol;
	struct roots r;

	fs_init();
	policy_init(&pol);
	pol.protect.v = prot;
	pol.protect.n = 1;
	pol.user_config = NULL;
	CHECK(roots_build(&pol, ROOTS_PROTECT | ROOTS_MISSING, &ops, &r) == 0);
	CHECK(!roots_protected(&r, "/home/me/proj/.git/config/x"));
	roots_free(&r);
}

static void
t_errors(void)
{
	char *grants[] = { "relative" }, *prot[] = { "denied/x" };
	char *along = malloc(PATH_MAX + 2), *lprot[] = { along };
	struct policy pol;
	struct roots r;

	fs_init();
	policy_init(&pol);
	pol.grants.v = grants;
	pol.grants.n = 1;
	CHECK(roots_build(&pol, 0, &ops, &r) == -1);
	CHECK(errno == EINVAL);
	CHECK_STR(r.why, "grant: relative: Invalid argument");
	CHECK(r.w.n == 0 && r.w.v == NULL);	/* nothing left to free */
	/* a state dir that cannot be made */
	policy_init(&pol);
	pol.state = "/denied/.arcturn";
	fs.fail_prefix = "/denied";
	fs.fail_errno = EACCES;
	CHECK(roots_build(&pol, 0, &ops, &r) == -1);
	CHECK(errno == EACCES);
	CHECK_STR(r.why, "state dir: /denied/.arcturn: Permission denied");
	/* a protected path that cannot be looked at: never silently open */
	policy_init(&pol);
	pol.protect.v = prot;
	pol.protect.n = 1;
	fs.fail_prefix = "/home/me/proj/denied";
	CHECK(roots_build(&pol, ROOTS_PROTECT, &ops, &r) == -1);
	CHECK(errno == EACCES);
	CHECK_STR(r.why, "protected path: /home/me/proj/denied/x: "
	    "Permission denied");
	/* nor one too long to name */
	fs.fail_prefix = NULL;
	CHECK(along != NULL);
	memset(along, 'x', PATH_MAX + 1);
	along[PATH_MAX + 1] = '\0';
	pol.protect.v = lprot;
	CHECK(roots_build(&pol, ROOTS_PROTECT | ROOTS_MISSING, &ops, &r) == -1);
	CHECK(errno == ENAMETOOLONG);
	CHECK(strncmp(r.why, "protected path: /home/me/proj/xxx", 33) == 0);
	/* an incomplete policy */
	policy_init(&pol);
	pol.tmpdir = NULL;
	CHECK(roots_build(&pol, 0, &ops, &r) == -1 && errno == EINVAL);
	free(along);
}

/* Many roots, deep pins: roots has no limit of its own (the helper has). */
static void
t_limits(void)
{
	char *grants[300], names[300][32], deep[PATH_MAX], *prot[] = { deep };
	char path[PATH_MAX], *c;
	struct policy pol;
	struct roots r;
	size_t i, n = 0;

	fs_init();
	policy_init(&pol);
	for (i = 0; i < 300; i++) {
		snprintf(names[i], sizeof names[i], "/home/me/g%zu", i);
		grants[i] = names[i];
	}
	pol.grants.v = grants;
	pol.grants.n = 300;
	deep[0] = '\0';
	for (i = 0; i < 100; i++)
		n += (size_t)snprintf(deep + n, sizeof deep - n, "%sd%zu",
		    i ? "/" : "", i);
	/* 100 levels: 99 folders, then a file */
	snprintf(path, sizeof path, "/home/me/proj/%s", deep);
	for (c = path + 14; (c = strchr(c, '/')) != NULL; c++) {
		*c = '\0';
		fakefs_add(&fs, path, 0);
		*c = '/';
	}
	fakefs_add(&fs, path, 1);
	pol.protect.v = prot;
	pol.protect.n = 1;
	pol.user_config = NULL;
	CHECK(roots_build(&pol, ROOTS_PROTECT, &ops, &r) == 0);
	CHECK(r.w.n == 303);
	CHECK_STR(r.w.v[302], "/home/me/g299");
	CHECK(r.p.n == 4);		/* the deep file, overlays/,
					   checkpoints/, cache/ */
	CHECK(r.pin.n == 99);		/* every folder above the file */
	CHECK_STR(r.pin.v[0], "/home/me/proj/d0");
	CHECK(strlen(r.pin.v[98]) > strlen(r.pin.v[97]));
	roots_free(&r);
}

static void
t_questions(void)
{
	struct policy pol;
	struct roots r;

	fs_init();
	policy_init(&pol);
	CHECK(roots_build(&pol, ROOTS_PROTECT | ROOTS_DEVICES, &ops, &r) == 0);
	CHECK(roots_writable(&r, "/home/me/proj"));
	CHECK(roots_writable(&r, "/home/me/proj/src/main.c"));
	CHECK(!roots_writable(&r, "/home/me/projx"));
	CHECK(!roots_writable(&r, "/home/me"));
	CHECK(roots_writable(&r, "/dev/null"));
	CHECK(roots_writable(&r, "/dev/pts/3"));
	CHECK(!roots_writable(&r, "/dev/sda"));
	CHECK(roots_protected(&r, "/home/me/proj/.git/hooks"));
	CHECK(roots_protected(&r, "/home/me/proj/.git/hooks/pre-commit"));
	CHECK(!roots_protected(&r, "/home/me/proj/.git/HEAD"));
	CHECK(!roots_protected(&r, "/home/me/proj/.git"));
	roots_free(&r);
	roots_free(&r);		/* twice is harmless */
}

/* The nth allocation fails: ENOMEM, nothing leaked, nothing left. */
static void
t_alloc_faults(void)
{
	char *grants[] = { "/home/me/link/new", "/var/folders/T" };
	char *prot[] = { ".git/hooks", "in/x", "a/b/c/d", ".git/config" };
	struct policy pol;
	struct roots r, ref;
	long n;
	int rc;

	/* n = -1: the reference, no allocation fails */
	for (n = -1; n < 10000; n++) {
		fs_init();
		fakefs_add(&fs, "/home/me/proj/real/x", 1);
		policy_init(&pol);
		pol.grants.v = grants;
		pol.grants.n = 2;
		pol.protect.v = prot;
		pol.protect.n = 4;
		mem_fail_after(n);
		rc = roots_build(&pol, ROOTS_PROTECT | ROOTS_DEVICES |
		    ROOTS_MISSING, &ops, &r);
		if (n < 0) {
			CHECK(rc == 0);
			ref = r;
			continue;
		}
		if (!mem_failed()) {
			CHECK(rc == 0);
			/* 7, and git's missing config.worktree and commondir */
			CHECK(r.p.n == 9 && r.pin.n == 5);
			same_roots(&r, &ref);
			roots_free(&r);
			break;
		}
		CHECK(rc == -1 && errno == ENOMEM);
		CHECK(r.w.v == NULL && r.p.v == NULL && r.pin.v == NULL);
	}
	mem_fail_after(-1);
	CHECK(n > 20 && n < 10000);
	roots_free(&ref);
}

/* The real thing: realpath(3), mkdir(2), a symlinked workspace. */
static void
t_real_fs(void)
{
	char dir[] = "/tmp/roots_test.XXXXXX", *real, ws[PATH_MAX];
	char st[PATH_MAX], cfg[PATH_MAX], lnk[PATH_MAX], cmd[PATH_MAX + 16];
	struct policy pol;
	struct roots r;
	struct stat sb;

	CHECK(mkdtemp(dir) != NULL);
	CHECK((real = realpath(dir, NULL)) != NULL);
	snprintf(ws, sizeof ws, "%s/ws", real);
	CHECK(mkdir(ws, 0755) == 0);
	snprintf(cmd, sizeof cmd, "%s/.git", ws);
	CHECK(mkdir(cmd, 0755) == 0);
	snprintf(cmd, sizeof cmd, "%s/.git/hooks", ws);
	CHECK(mkdir(cmd, 0755) == 0);
	snprintf(lnk, sizeof lnk, "%s/link", real);
	CHECK(symlink(ws, lnk) == 0);
	snprintf(st, sizeof st, "%s/.arcturn", ws);
	snprintf(cfg, sizeof cfg, "%s/.config/arcturn/config.json", ws);
	policy_init(&pol);
	pol.workspace = lnk;
	pol.tmpdir = real;
	pol.state = st;
	pol.user_config = cfg;
	CHECK(roots_build(&pol, ROOTS_PROTECT, &posix_roots_ops, &r) == 0);
	CHECK_STR(r.w.v[0], ws);
	CHECK(stat(st, &sb) == 0 && (sb.st_mode & 0777) == 0700);
	snprintf(cmd, sizeof cmd, "%s/.config/arcturn", ws);
	CHECK(stat(cmd, &sb) == 0 && S_ISDIR(sb.st_mode));
	CHECK(roots_protected(&r, cmd));
	snprintf(cmd, sizeof cmd, "%s/.git/hooks", ws);
	CHECK(roots_protected(&r, cmd));
	/* missing: no mount can cover it, but it is protected all the same */
	snprintf(cmd, sizeof cmd, "%s/.git/config", ws);
	CHECK(roots_protected(&r, cmd));
	CHECK(in_list(&r.absent, cmd) && !in_list(&r.p, cmd));
	/* the global git config beneath the workspace's .config: too */
	snprintf(cmd, sizeof cmd, "%s/.config/git/config", ws);
	CHECK(in_list(&r.absent, cmd));
	roots_free(&r);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", real);
	CHECK(system(cmd) == 0);
	free(real);
}

/* ---- git ---- */

/* fs_init plus a repository layout for the git tests, ws /home/me/proj */
static void
git_init(void)
{
	fs_init();
	fakefs_add(&fs, "/home/me/proj/.git/worktrees", 0);
	fakefs_add(&fs, "/home/me/proj/.git/modules", 0);
}

/*
 * The workspace's own repository: hooks, config, and git's pointers
 * (missing: absent, and in p with ROOTS_MISSING); a hooks folder that is
 * missing is made with ROOTS_MAKE.
 */
static void
t_git_plain(void)
{
	struct policy pol;
	struct roots r;

	git_init();
	policy_init(&pol);
	pol.user_config = NULL;
	CHECK(roots_build(&pol, ROOTS_PROTECT, &ops, &r) == 0);
	CHECK(in_list(&r.p, "/home/me/proj/.git/hooks"));
	CHECK(in_list(&r.p, "/home/me/proj/.git/config"));
	CHECK(in_list(&r.absent, "/home/me/proj/.git/commondir"));
	CHECK(in_list(&r.absent, "/home/me/proj/.git/config.worktree"));
	CHECK(!in_list(&r.p, "/home/me/proj/.git/commondir"));
	CHECK(roots_protected(&r, "/home/me/proj/.git/commondir"));
	CHECK(!roots_protected(&r, "/home/me/proj/.git/HEAD"));
	CHECK(!roots_protected(&r, "/home/me/proj/.git/objects/ab/cd"));
	CHECK(r.watch.n == 0);
	roots_free(&r);
	/* a hooks folder that is not there: made, then mounted */
	git_init();
	memset(fs.exists[fakefs_find(&fs, "/home/me/proj/.git/hooks", 24)], 0,
	    4);
	CHECK(roots_build(&pol, ROOTS_PROTECT, &ops, &r) == 0);
	CHECK(in_list(&r.absent, "/home/me/proj/.git/hooks"));
	roots_free(&r);
	CHECK(roots_build(&pol, ROOTS_PROTECT | ROOTS_MAKE, &ops, &r) == 0);
	CHECK(fakefs_find(&fs, "/home/me/proj/.git/hooks", 24) >= 0);
	CHECK(in_list(&r.p, "/home/me/proj/.git/hooks"));
	CHECK(!in_list(&r.absent, "/home/me/proj/.git/hooks"));
	roots_free(&r);
	/* no .git/ entry in the list: no git protection at all */
	git_init();
	pol.protect.n = 0;
	CHECK(roots_build(&pol, ROOTS_PROTECT | ROOTS_MISSING, &ops, &r) == 0);
	CHECK(!roots_protected(&r, "/home/me/proj/.git/config"));
	CHECK(!roots_protected(&r, "/home/me/proj/.git/commondir"));
	roots_free(&r);
}

/* Every path roots_build asks realpath about, in order (t_once). */
static char asked[256][512];
static int nasked;

static char *
counting_realpath(const char *path, void *arg)
{
	if (nasked < 256)
		snprintf(asked[nasked++], sizeof asked[0], "%s", path);
	return fake_realpath(path, arg);
}

/*
 * One build asks about each path once (a memo: git's files, their
 * folders and the home dir come up again and again), and a build where
 * everything it makes exists already asks mkdir nothing.
 */
static void
t_once(void)
{
	struct roots_ops cops = FAKEFS_OPS(&fs);
	struct policy pol;
	struct roots r, ref;
	int a, b, n;

	cops.realpath = counting_realpath;
	git_init();
	policy_init(&pol);
	pol.home = "/home/me";
	CHECK(roots_build(&pol, ROOTS_PROTECT | ROOTS_MISSING | ROOTS_GIT |
	    ROOTS_MAKE | ROOTS_DEVICES, &ops, &ref) == 0);
	fs.mkdirs = 0;
	nasked = 0;
	CHECK(roots_build(&pol, ROOTS_PROTECT | ROOTS_MISSING | ROOTS_GIT |
	    ROOTS_MAKE | ROOTS_DEVICES, &cops, &r) == 0);
	same_roots(&r, &ref);
	CHECK(fs.mkdirs == 0);
	CHECK(nasked > 10 && nasked < 256);
	for (n = 0, a = 0; a < nasked; a++)
		for (b = a + 1; b < nasked; b++)
			if (strcmp(asked[a], asked[b]) == 0) {
				fprintf(stderr, "# asked twice: %s\n",
				    asked[a]);
				n++;
			}
	CHECK(n == 0);
	roots_free(&r);
	roots_free(&ref);
}

/*
 * The workspace is a linked worktree of a repository elsewhere: its admin
 * dir and the common dir's objects/, refs/, logs/ become roots (ROOTS_GIT,
 * workspace-write only); the pointers are protected, the common dir's
 * config and hooks are outside every root.
 */
static void
t_git_linked_worktree(void)
{
	const char *w[] = { "/home/me/proj", "/tmp", "/home/me/.arcturn",
	    "/outside/repo/.git/worktrees/proj",
	    "/outside/repo/.git/objects", "/outside/repo/.git/refs",
	    "/outside/repo/.git/logs", NULL };
	const char *why;
	struct policy pol;
	struct roots r;

	fs_init();
	memset(fs.exists[fakefs_find(&fs, "/home/me/proj/.git/hooks", 24)], 0,
	    4);
	memset(fs.exists[fakefs_find(&fs, "/home/me/proj/.git/config", 25)], 0,
	    4);
	memset(fs.exists[fakefs_find(&fs, "/home/me/proj/.git", 18)], 0, 4);
	fakefs_file(&fs, "/home/me/proj/.git",
	    "gitdir: /outside/repo/.git/worktrees/proj\n");
	fakefs_add(&fs, "/outside/repo", 0);
	fakefs_add(&fs, "/outside/repo/.git", 0);
	fakefs_add(&fs, "/outside/repo/.git/hooks", 0);
	fakefs_file(&fs, "/outside/repo/.git/config", "[core]\n");
	fakefs_add(&fs, "/outside/repo/.git/objects", 0);
	fakefs_add(&fs, "/outside/repo/.git/refs", 0);
	fakefs_add(&fs, "/outside/repo/.git/worktrees", 0);
	fakefs_add(&fs, "/outside/repo/.git/worktrees/proj", 0);
	fakefs_file(&fs, "/outside/repo/.git/worktrees/proj/commondir",
	    "../..\n");
	fakefs_file(&fs, "/outside/repo/.git/worktrees/proj/gitdir",
	    "/home/me/proj/.git\n");
	fakefs_file(&fs, "/outside/repo/.git/worktrees/proj/HEAD", "ref\n");
	policy_init(&pol);
	pol.user_config = NULL;
	CHECK(roots_build(&pol, ROOTS_PROTECT | ROOTS_GIT, &ops, &r) == 0);
	same(&r.w, w);
	CHECK(in_list(&r.p, "/home/me/proj/.git"));	/* the gitdir file */
	CHECK(in_list(&r.p, "/outside/repo/.git/worktrees/proj/commondir"));
	CHECK(in_list(&r.absent,
	    "/outside/repo/.git/worktrees/proj/config.worktree"));
	/* a linked worktree's admin dir has no hooks or config of its own */
	CHECK(!in_list(&r.absent, "/outside/repo/.git/worktrees/proj/hooks"));
	CHECK(roots_check(&r, "/outside/repo/.git/worktrees/proj/index",
	    &why) == 0);
	CHECK(roots_check(&r, "/outside/repo/.git/refs/heads/x", &why) == 0);
	CHECK(roots_check(&r, "/outside/repo/.git/config", &why) == -1);
	CHECK_STR(why, "outside the writable roots");
	CHECK(roots_check(&r, "/outside/repo/.git/packed-refs", &why) == -1);
	CHECK(roots_check(&r, "/home/me/proj/.git", &why) == -1);
	CHECK_STR(why, "protected path");
	roots_free(&r);
	/* without ROOTS_GIT (a dry run), or read-only: no such roots */
	CHECK(roots_build(&pol, ROOTS_PROTECT, &ops, &r) == 0);
	CHECK(r.w.n == 3);
	roots_free(&r);
	pol.mode = MODE_READ_ONLY;
	CHECK(roots_build(&pol, ROOTS_GIT, &ops, &r) == 0);
	CHECK(r.w.n == 1);
	roots_free(&r);
}

/*
 * Linked worktrees and submodules of the workspace's repository: each
 * admin dir's control files, each work tree's .git file; a module's
 * config is watched, not mounted (git submodule update rewrites it).
 * Module names may hold '/', and modules nest.
 */
static void
t_git_worktrees_modules(void)
{
	const char *G = "/home/me/proj/.git";
	char path[512];
	struct policy pol;
	struct roots r;

	git_init();
	fakefs_add(&fs, "/home/me/proj/.git/worktrees/wt", 0);
	fakefs_file(&fs, "/home/me/proj/.git/worktrees/wt/gitdir",
	    "/home/me/proj/wt/.git\n");
	fakefs_file(&fs, "/home/me/proj/.git/worktrees/wt/commondir",
	    "../..\n");
	fakefs_add(&fs, "/home/me/proj/wt", 0);
	fakefs_file(&fs, "/home/me/proj/wt/.git",
	    "gitdir: /home/me/proj/.git/worktrees/wt\n");
	/* a worktree elsewhere: its admin dir is ours, its .git is not */
	fakefs_add(&fs, "/home/me/proj/.git/worktrees/far", 0);
	fakefs_file(&fs, "/home/me/proj/.git/worktrees/far/gitdir",
	    "/outside/far/.git\n");
	fakefs_add(&fs, "/home/me/proj/.git/modules/lib", 0);
	fakefs_file(&fs, "/home/me/proj/.git/modules/lib/HEAD", "x\n");
	fakefs_file(&fs, "/home/me/proj/.git/modules/lib/config",
	    "[core]\n\tworktree = ../../../lib\n");
	fakefs_add(&fs, "/home/me/proj/.git/modules/lib/hooks", 0);
	fakefs_add(&fs, "/home/me/proj/lib", 0);
	fakefs_file(&fs, "/home/me/proj/lib/.git",
	    "gitdir: ../.git/modules/lib\n");
	/* "vendor/x": a name with a slash; and x's own submodule y */
	fakefs_add(&fs, "/home/me/proj/.git/modules/vendor", 0);
	fakefs_add(&fs, "/home/me/proj/.git/modules/vendor/x", 0);
	fakefs_file(&fs, "/home/me/proj/.git/modules/vendor/x/config",
	    "[core]\n\tworktree = ../../../../vendor/x\n");
	fakefs_add(&fs, "/home/me/proj/.git/modules/vendor/x/modules", 0);
	fakefs_add(&fs, "/home/me/proj/.git/modules/vendor/x/modules/y", 0);
	fakefs_file(&fs, "/home/me/proj/.git/modules/vendor/x/modules/y/HEAD",
	    "x\n");
	policy_init(&pol);
	pol.user_config = NULL;
	CHECK(roots_build(&pol, ROOTS_PROTECT, &ops, &r) == 0);
	CHECK(in_list(&r.p, "/home/me/proj/wt/.git"));
	CHECK(in_list(&r.p, "/home/me/proj/.git/worktrees/wt/commondir"));
	CHECK(in_list(&r.p, "/home/me/proj/lib/.git"));
	CHECK(in_list(&r.p, "/home/me/proj/.git/modules/lib/hooks"));
	CHECK(in_list(&r.watch, "/home/me/proj/.git/modules/lib/config"));
	CHECK(!in_list(&r.p, "/home/me/proj/.git/modules/lib/config"));
	CHECK(in_list(&r.watch,
	    "/home/me/proj/.git/modules/vendor/x/config"));
	snprintf(path, sizeof path, "%s/modules/vendor/x/modules/y/config", G);
	CHECK(in_list(&r.absent, path));
	CHECK(in_list(&r.absent, "/home/me/proj/.git/worktrees/far/"
	    "config.worktree"));
	CHECK(roots_protected(&r, "/home/me/proj/.git/modules/lib/config"));
	/* pins: renaming modules/ or worktrees/ cannot get around it */
	CHECK(in_list(&r.pin, "/home/me/proj/.git/modules"));
	CHECK(in_list(&r.pin, "/home/me/proj/.git/worktrees/wt"));
	roots_free(&r);
	/* Seatbelt and the file tools: a watched file is in p as well */
	CHECK(roots_build(&pol, ROOTS_PROTECT | ROOTS_MISSING, &ops, &r) == 0);
	CHECK(in_list(&r.p, "/home/me/proj/.git/modules/lib/config"));
	roots_free(&r);
}

/*
 * core.hooksPath, in the repository's config, in a file it includes, and
 * in the global config; relative ones from the work tree's top; and what
 * git's config syntax allows around them.
 */
static void
t_git_hooks_path(void)
{
	static const char cfg[] =
	    "# a comment\n"
	    "[Core]\n"
	    "\trepositoryformatversion = 0 ; trailing comment\n"
	    "\tHooksPath = \".husky\" # husky\n"
	    "\tbare\n"
	    "[core \"sub\"] hookspath = not/this/one\n"
	    "[include]\n"
	    "\tpath = extra.cfg\n"
	    "[includeIf \"gitdir:~/x/\"]\n"
	    "\tpath = /home/me/proj/conf/cond.cfg\n";
	static const char extra[] =
	    "[core]\n\thooksPath = \"tools/git\\\n-hooks\"\n";
	static const char cond[] = "[core]\n\thooksPath = ~/proj/more\n";
	static const char global[] = "[core]\n\thooksPath = /home/me/proj/gh\n"
	    "[core\n\thooksPath = /home/me/proj/after-a-bad-line\n";
	struct policy pol;
	struct roots r;

	git_init();
	fakefs_file(&fs, "/home/me/proj/.git/cfg", cfg);
	memset(fs.exists[fakefs_find(&fs, "/home/me/proj/.git/config", 25)], 0,
	    4);
	fs.links[4][0] = "/home/me/proj/.git/config";
	fs.links[4][1] = "/home/me/proj/.git/cfg";
	fakefs_file(&fs, "/home/me/proj/.git/extra.cfg", extra);
	fakefs_add(&fs, "/home/me/proj/conf", 0);
	fakefs_file(&fs, "/home/me/proj/conf/cond.cfg", cond);
	fakefs_add(&fs, "/home/me/proj/.husky", 0);
	fakefs_add(&fs, "/home/me/proj/tools", 0);
	fakefs_file(&fs, "/home/me/.gitconfig", global);
	policy_init(&pol);
	pol.home = "/home/me";
	pol.user_config = NULL;
	CHECK(roots_build(&pol, ROOTS_PROTECT | ROOTS_MAKE, &ops, &r) == 0);
	CHECK(in_list(&r.p, "/home/me/proj/.husky"));
	/* the escaped newline joins "tools/git" and "-hooks"; made */
	CHECK(in_list(&r.p, "/home/me/proj/tools/git-hooks"));
	CHECK(fakefs_find(&fs, "/home/me/proj/tools/git-hooks", 29) >= 0);
	/* ~ is the home; the missing parent "more" is made too (one level) */
	CHECK(in_list(&r.p, "/home/me/proj/more"));
	CHECK(in_list(&r.p, "/home/me/proj/gh"));
	CHECK(!roots_protected(&r, "/home/me/proj/not/this/one"));
	CHECK(!roots_protected(&r, "/home/me/proj/after-a-bad-line"));
	/* the included files decide config too */
	CHECK(in_list(&r.p, "/home/me/proj/.git/extra.cfg"));
	CHECK(in_list(&r.p, "/home/me/proj/conf/cond.cfg"));
	roots_free(&r);
	/* without ".git/hooks" in the list, no hooks folder is looked for */
	pol.protect.v = prot_default + 1;
	pol.protect.n = 1;
	CHECK(roots_build(&pol, ROOTS_PROTECT, &ops, &r) == 0);
	CHECK(!roots_protected(&r, "/home/me/proj/.husky"));
	CHECK(roots_protected(&r, "/home/me/proj/conf/cond.cfg"));
	roots_free(&r);
}

/* The repository above the workspace; a bare one; a broken .git file. */
static void
t_git_find(void)
{
	struct policy pol;
	struct roots r;

	/* the workspace is a subfolder of a repository in the temp dir */
	fs_init();
	fakefs_add(&fs, "/tmp/repo", 0);
	fakefs_add(&fs, "/tmp/repo/.git", 0);
	fakefs_add(&fs, "/tmp/repo/.git/hooks", 0);
	fakefs_add(&fs, "/tmp/repo/sub", 0);
	policy_init(&pol);
	pol.workspace = "/tmp/repo/sub";
	pol.user_config = NULL;
	CHECK(roots_build(&pol, ROOTS_PROTECT, &ops, &r) == 0);
	CHECK(in_list(&r.p, "/tmp/repo/.git/hooks"));
	CHECK(in_list(&r.absent, "/tmp/repo/.git/commondir"));
	roots_free(&r);
	/* the workspace is a bare repository */
	fs_init();
	fakefs_add(&fs, "/home/me/bare", 0);
	fakefs_file(&fs, "/home/me/bare/HEAD", "ref: refs/heads/main\n");
	fakefs_add(&fs, "/home/me/bare/objects", 0);
	fakefs_add(&fs, "/home/me/bare/refs", 0);
	fakefs_add(&fs, "/home/me/bare/hooks", 0);
	pol.workspace = "/home/me/bare";
	CHECK(roots_build(&pol, ROOTS_PROTECT, &ops, &r) == 0);
	CHECK(in_list(&r.p, "/home/me/bare/hooks"));
	CHECK(in_list(&r.absent, "/home/me/bare/config"));
	roots_free(&r);
	/* a .git file that is no gitdir file: git stops there, and so do we */
	fs_init();
	memset(fs.exists[fakefs_find(&fs, "/home/me/proj/.git/hooks", 24)], 0,
	    4);
	memset(fs.exists[fakefs_find(&fs, "/home/me/proj/.git/config", 25)], 0,
	    4);
	memset(fs.exists[fakefs_find(&fs, "/home/me/proj/.git", 18)], 0, 4);
	fakefs_file(&fs, "/home/me/proj/.git", "not a gitdir line\n");
	pol.workspace = "/home/me/proj";
	CHECK(roots_build(&pol, ROOTS_PROTECT | ROOTS_MISSING, &ops, &r) == 0);
	CHECK(r.absent.n == 0);
	roots_free(&r);
	/* no repository anywhere: nothing of git, no absent paths */
	fs_init();
	memset(fs.exists[fakefs_find(&fs, "/home/me/proj/.git/hooks", 24)], 0,
	    4);
	memset(fs.exists[fakefs_find(&fs, "/home/me/proj/.git/config", 25)], 0,
	    4);
	memset(fs.exists[fakefs_find(&fs, "/home/me/proj/.git", 18)], 0, 4);
	CHECK(roots_build(&pol, ROOTS_PROTECT, &ops, &r) == 0);
	CHECK(r.absent.n == 0);
	roots_free(&r);
	/* an unreadable .git: never silently open */
	fs_init();
	fs.fail_prefix = "/home/me/proj/.git";
	fs.fail_errno = EACCES;
	CHECK(roots_build(&pol, ROOTS_PROTECT, &ops, &r) == -1);
	CHECK(errno == EACCES);
	CHECK_STR(r.why, "git: /home/me/proj/.git: Permission denied");
}

/* More admin dirs than ROOTS_GIT_MAX: refused, not half protected. */
static void
t_git_limits(void)
{
	static char names[ROOTS_GIT_MAX + 1][64], heads[ROOTS_GIT_MAX + 1][80];
	struct policy pol;
	struct roots r;
	int i;

	git_init();
	for (i = 0; i <= ROOTS_GIT_MAX; i++) {
		snprintf(names[i], sizeof names[i],
		    "/home/me/proj/.git/modules/m%d", i);
		snprintf(heads[i], sizeof heads[i], "%s/HEAD", names[i]);
		fakefs_add(&fs, names[i], 0);
		fakefs_file(&fs, heads[i], "x\n");
	}
	policy_init(&pol);
	CHECK(roots_build(&pol, ROOTS_PROTECT, &ops, &r) == -1);
	CHECK(errno == E2BIG);
	CHECK(strstr(r.why, "more than 64 linked worktrees and submodules") !=
	    NULL);
	CHECK(r.p.v == NULL && r.absent.v == NULL);
	/* one fewer is fine */
	fs.nexists -= 2;
	CHECK(roots_build(&pol, ROOTS_PROTECT, &ops, &r) == 0);
	roots_free(&r);
}

/* The nth allocation fails, git discovery included: ENOMEM, no leak. */
static void
t_git_alloc_faults(void)
{
	struct policy pol;
	struct roots r, ref;
	long n;
	int rc;

	/* n = -1: the reference, no allocation fails */
	for (n = -1; n < 100000; n++) {
		git_init();
		fakefs_add(&fs, "/home/me/proj/.git/worktrees/wt", 0);
		fakefs_file(&fs, "/home/me/proj/.git/worktrees/wt/gitdir",
		    "/home/me/proj/wt/.git\n");
		fakefs_add(&fs, "/home/me/proj/.git/modules/lib", 0);
		fakefs_file(&fs, "/home/me/proj/.git/modules/lib/config",
		    "[core]\n\tworktree = ../../../lib\n\thooksPath = h\n"
		    "[include]\n\tpath = ../../inc\n");
		fakefs_file(&fs, "/home/me/proj/.git/inc",
		    "[core]\n\thooksPath = ~/x\n");
		fakefs_add(&fs, "/home/me/proj/lib", 0);
		fakefs_file(&fs, "/home/me/proj/lib/.git", "gitdir: x\n");
		policy_init(&pol);
		pol.home = "/home/me";
		mem_fail_after(n);
		rc = roots_build(&pol, ROOTS_PROTECT | ROOTS_MISSING |
		    ROOTS_MAKE | ROOTS_GIT | ROOTS_DEVICES, &ops, &r);
		if (n < 0) {
			CHECK(rc == 0);
			ref = r;
			continue;
		}
		if (!mem_failed()) {
			CHECK(rc == 0);
			CHECK(in_list(&r.p, "/home/me/proj/lib/h"));
			CHECK(in_list(&r.p, "/home/me/proj/.git/inc"));
			same_roots(&r, &ref);
			roots_free(&r);
			break;
		}
		CHECK(rc == -1 && errno == ENOMEM);
		CHECK(r.w.v == NULL && r.p.v == NULL && r.absent.v == NULL &&
		    r.watch.v == NULL && r.pin.v == NULL);
	}
	mem_fail_after(-1);
	CHECK(n > 50 && n < 100000);
	roots_free(&ref);
}

int
main(void)
{
	TEST(t_linux_default);
	TEST(t_fake_realpath);
	TEST(t_symlink_protect);
	TEST(t_config_in_home);
	TEST(t_pins);
	TEST(t_read_only);
	TEST(t_nostate);
	TEST(t_parent_is_a_file);
	TEST(t_errors);
	TEST(t_limits);
	TEST(t_questions);
	TEST(t_alloc_faults);
	TEST(t_real_fs);
	TEST(t_git_plain);
	TEST(t_git_linked_worktree);
	TEST(t_git_worktrees_modules);
	TEST(t_git_hooks_path);
	TEST(t_git_find);
	TEST(t_once);
	TEST(t_git_limits);
	TEST(t_git_alloc_faults);
	return tap_done();
}
