/*
 * gitctl: a repository's control files found by reading a fake file
 * system (fakefs.h): where gitctl_find finds the repository from a
 * workspace, what gitctl_scan adds (linked worktrees, submodules, the
 * pointer files), what config files say through their includes, the
 * global config files, paths written in git files, the bounds, and an
 * allocation fault loop. roots_test checks what roots makes of it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fakefs.h"
#include "lib/mem.h"
#include "policy/gitctl.h"
#include "tap.h"

static struct fakefs fs;
static struct gitctl_ops ops = FAKEFS_GITCTL_OPS(&fs);

static void
fs_init(void)
{
	static const char *dirs[] = {
		"/", "/home", "/home/me", "/home/me/proj", "/home/me/proj/.git",
		"/home/me/proj/.git/hooks", "/home/me/proj/.git/worktrees",
		"/home/me/proj/.git/modules", "/home/me/proj/sub", "/tmp",
		"/outside", NULL
	};
	int i;

	memset(&fs, 0, sizeof fs);
	fs.links[0][0] = "/home/me/link";	/* to the workspace */
	fs.links[0][1] = "/home/me/proj";
	for (i = 0; dirs[i] != NULL; i++)
		fakefs_add(&fs, dirs[i], 0);
}

/* Take /home/me/proj/.git (and what is beneath it) out of fs. */
static void
no_dotgit(void)
{
	int i;

	for (i = 0; i < fs.nexists; i++)
		if (strncmp(fs.exists[i], "/home/me/proj/.git", 18) == 0)
			fs.exists[i][0] = '\0';
}

static int
in_list(const struct strlist *l, const char *s)
{
	return strlist_has(l, s, strlen(s));
}

/* Where the repository is found from the workspace (git's own walk). */
static void
t_find(void)
{
	struct gitctl g;

	/* a subfolder, reached through a link: the .git above it */
	fs_init();
	gitctl_init(&g, "/home/me", &ops);
	CHECK(gitctl_find(&g, "/home/me/link/sub") == 0);
	CHECK(g.na == 1 && g.gitfile == NULL);
	CHECK_STR(g.a[0].dir, "/home/me/proj/.git");
	CHECK_STR(g.a[0].top, "/home/me/link");
	CHECK(g.a[0].kind == GITCTL_MAIN);
	CHECK_STR(gitctl_common(&g), "/home/me/proj/.git");
	gitctl_free(&g);
	gitctl_free(&g);		/* again: a no-op */

	/* a bare repository: the workspace itself, no work tree */
	fs_init();
	fakefs_add(&fs, "/home/me/bare", 0);
	fakefs_file(&fs, "/home/me/bare/HEAD", "ref: refs/heads/main\n");
	fakefs_add(&fs, "/home/me/bare/objects", 0);
	fakefs_add(&fs, "/home/me/bare/refs", 0);
	gitctl_init(&g, NULL, &ops);
	CHECK(gitctl_find(&g, "/home/me/bare") == 0);
	CHECK(g.na == 1 && g.a[0].top == NULL);
	CHECK_STR(g.a[0].dir, "/home/me/bare");
	gitctl_free(&g);

	/* a .git file that is no gitdir file: git stops there, so do we */
	fs_init();
	no_dotgit();
	fakefs_file(&fs, "/home/me/proj/.git", "not a gitdir line\n");
	gitctl_init(&g, NULL, &ops);
	CHECK(gitctl_find(&g, "/home/me/proj") == 0 && g.na == 0);
	gitctl_free(&g);

	/* no repository anywhere */
	fs_init();
	no_dotgit();
	gitctl_init(&g, NULL, &ops);
	CHECK(gitctl_find(&g, "/home/me/proj/sub") == 0 && g.na == 0);
	CHECK(gitctl_scan(&g) == 0 && g.na == 0 && g.nfound == 0);
	gitctl_free(&g);

	/* an unreadable .git: an error, never "no repository" */
	fs_init();
	fs.fail_prefix = "/home/me/proj/.git";
	fs.fail_errno = EACCES;
	gitctl_init(&g, NULL, &ops);
	CHECK(gitctl_find(&g, "/home/me/proj") == -1 && errno == EACCES);
	CHECK_STR(g.why, "git: /home/me/proj/.git: Permission denied");
	gitctl_free(&g);
}

/*
 * A linked worktree as the workspace: its admin dir, then the common dir
 * its commondir names; the .git file it came through.
 */
static void
t_linked(void)
{
	struct gitctl g;

	fs_init();
	fakefs_add(&fs, "/home/me/proj/.git/worktrees/wt", 0);
	fakefs_file(&fs, "/home/me/proj/.git/worktrees/wt/commondir",
	    "../..\n");
	fakefs_add(&fs, "/outside/wt", 0);
	fakefs_file(&fs, "/outside/wt/.git",
	    "gitdir: /home/me/proj/.git/worktrees/wt\n");
	gitctl_init(&g, NULL, &ops);
	CHECK(gitctl_find(&g, "/outside/wt") == 0);
	CHECK(g.na == 2);
	CHECK_STR(g.a[0].dir, "/home/me/proj/.git/worktrees/wt");
	CHECK(g.a[0].kind == GITCTL_LINKED);
	CHECK_STR(g.a[0].top, "/outside/wt");
	CHECK_STR(g.a[1].dir, "/home/me/proj/.git");
	CHECK(g.a[1].kind == GITCTL_MAIN);
	CHECK_STR(g.a[1].top, "/home/me/proj");
	CHECK_STR(g.gitfile, "/outside/wt/.git");
	CHECK_STR(gitctl_common(&g), "/home/me/proj/.git");
	gitctl_free(&g);
}

/* The worktrees and submodules beneath the common dir, and pointers. */
static void
t_scan(void)
{
	const char *G = "/home/me/proj/.git";
	struct gitctl g;
	size_t i;

	fs_init();
	fakefs_add(&fs, "/home/me/proj/.git/worktrees/wt", 0);
	fakefs_file(&fs, "/home/me/proj/.git/worktrees/wt/gitdir",
	    "/home/me/proj/wt/.git\n");
	fakefs_file(&fs, "/home/me/proj/.git/worktrees/junk", "a file\n");
	fakefs_add(&fs, "/home/me/proj/.git/modules/lib", 0);
	fakefs_file(&fs, "/home/me/proj/.git/modules/lib/HEAD", "x\n");
	fakefs_file(&fs, "/home/me/proj/.git/modules/lib/config",
	    "[core]\n\tworktree = ../../../lib\n");
	/* "vendor/x": a name with a slash; and x's own submodule y */
	fakefs_add(&fs, "/home/me/proj/.git/modules/vendor", 0);
	fakefs_add(&fs, "/home/me/proj/.git/modules/vendor/x", 0);
	fakefs_file(&fs, "/home/me/proj/.git/modules/vendor/x/config",
	    "[core]\n\tworktree = ../../../../vendor/x\n");
	fakefs_add(&fs, "/home/me/proj/.git/modules/vendor/x/modules", 0);
	fakefs_add(&fs, "/home/me/proj/.git/modules/vendor/x/modules/y", 0);
	fakefs_file(&fs, "/home/me/proj/.git/modules/vendor/x/modules/y/HEAD",
	    "x\n");
	gitctl_init(&g, NULL, &ops);
	CHECK(gitctl_find(&g, "/home/me/proj") == 0);
	CHECK(gitctl_scan(&g) == 0);
	CHECK(g.nfound == 1 && g.na == 5);
	CHECK_STR(g.a[0].dir, G);
	CHECK_STR(g.a[1].dir, "/home/me/proj/.git/worktrees/wt");
	CHECK(g.a[1].kind == GITCTL_LINKED);
	CHECK_STR(g.a[1].top, "/home/me/proj/wt");
	CHECK_STR(g.a[2].dir, "/home/me/proj/.git/modules/lib");
	CHECK(g.a[2].kind == GITCTL_MODULE);
	CHECK_STR(g.a[2].top, "/home/me/proj/lib");
	CHECK_STR(g.a[3].dir, "/home/me/proj/.git/modules/vendor/x");
	CHECK_STR(g.a[4].dir, "/home/me/proj/.git/modules/vendor/x/modules/y");
	CHECK(g.a[4].top == NULL);
	for (i = 2; i < 5; i++)
		CHECK(g.a[i].kind == GITCTL_MODULE);
	CHECK(g.ptr.n == 3);
	CHECK(in_list(&g.ptr, "/home/me/proj/wt/.git"));
	CHECK(in_list(&g.ptr, "/home/me/proj/lib/.git"));
	CHECK(in_list(&g.ptr, "/home/me/proj/vendor/x/.git"));
	gitctl_free(&g);
}

/* What config files say: hooks paths, the last worktree, includes. */
static void
t_config(void)
{
	struct gitctl_cfg cfg;
	struct gitctl g;

	fs_init();
	fakefs_file(&fs, "/home/me/proj/.git/config",
	    "[core]\n\thooksPath = h1\n\tworktree = a\n"
	    "[include]\n\tpath = inc\n"
	    "[includeIf \"gitdir:/nowhere/\"]\n\tpath = ~/cond\n"
	    "[include]\n\tpath = ~other/x\n"
	    "[core]\n\tworktree = b\n\thooksPath = h1\n");
	fakefs_file(&fs, "/home/me/proj/.git/inc",
	    "[core]\n\thooksPath = ~/h2\n[include]\n\tpath = config\n");
	fakefs_file(&fs, "/home/me/cond", "[core]\n\thooksPath = /abs\n");
	memset(&cfg, 0, sizeof cfg);
	gitctl_init(&g, "/home/me", &ops);
	CHECK(gitctl_config(&g, "/home/me/proj/.git/config", &cfg) == 0);
	CHECK(cfg.hooks.n == 3);
	CHECK_STR(cfg.hooks.v[0], "h1");
	CHECK_STR(cfg.hooks.v[1], "~/h2");
	CHECK_STR(cfg.hooks.v[2], "/abs");
	CHECK_STR(cfg.worktree, "b");
	/* each included file once, even the one that includes its includer */
	CHECK(cfg.inc.n == 3);
	CHECK_STR(cfg.inc.v[0], "/home/me/proj/.git/inc");
	CHECK_STR(cfg.inc.v[1], "/home/me/proj/.git/config");
	CHECK_STR(cfg.inc.v[2], "/home/me/cond");
	gitctl_cfg_free(&cfg);
	gitctl_cfg_free(&cfg);
	/* a missing file says nothing, and is no error */
	CHECK(gitctl_config(&g, "/home/me/none", &cfg) == 0);
	CHECK(cfg.hooks.n == 0 && cfg.inc.n == 0 && cfg.worktree == NULL);
	gitctl_free(&g);
}

/* Includes stop GITCTL_DEPTH levels down. */
static void
t_config_depth(void)
{
	static char text[GITCTL_DEPTH + 3][64];
	struct gitctl_cfg cfg;
	struct gitctl g;
	char name[64];
	int i;

	fs_init();
	for (i = 0; i < GITCTL_DEPTH + 3; i++) {
		snprintf(text[i], sizeof text[i],
		    "[include]\n\tpath = c%d\n[core]\n\thooksPath = h%d\n",
		    i + 1, i);
		snprintf(name, sizeof name, "/home/me/c%d", i);
		fakefs_file(&fs, name, text[i]);
	}
	memset(&cfg, 0, sizeof cfg);
	gitctl_init(&g, NULL, &ops);
	CHECK(gitctl_config(&g, "/home/me/c0", &cfg) == 0);
	CHECK(cfg.inc.n == GITCTL_DEPTH);
	CHECK(cfg.hooks.n == GITCTL_DEPTH + 1);
	gitctl_cfg_free(&cfg);
	gitctl_free(&g);
}

/* The global config files: ~/.gitconfig, then XDG's git/config. */
static void
t_global(void)
{
	struct strlist files = { NULL, 0 };
	struct gitctl_cfg cfg;
	struct gitctl g;

	fs_init();
	fakefs_file(&fs, "/home/me/.gitconfig", "[core]\n\thooksPath = g1\n");
	memset(&cfg, 0, sizeof cfg);
	gitctl_init(&g, "/home/me", &ops);
	CHECK(gitctl_global(&g, "/xdg/arcturn/config.json", &cfg, &files) ==
	    0);
	CHECK(files.n == 2);
	CHECK_STR(files.v[0], "/home/me/.gitconfig");
	CHECK_STR(files.v[1], "/xdg/git/config");
	CHECK(cfg.hooks.n == 1);
	CHECK_STR(cfg.hooks.v[0], "g1");
	strlist_free(&files);
	gitctl_cfg_free(&cfg);
	/* no user config: ~/.config/git/config */
	CHECK(gitctl_global(&g, NULL, &cfg, &files) == 0);
	CHECK(files.n == 2);
	CHECK_STR(files.v[1], "/home/me/.config/git/config");
	strlist_free(&files);
	gitctl_cfg_free(&cfg);
	gitctl_free(&g);
	/* no home: the XDG one only */
	gitctl_init(&g, NULL, &ops);
	CHECK(gitctl_global(&g, "/xdg/arcturn/config.json", &cfg, &files) ==
	    0);
	CHECK(files.n == 1);
	CHECK_STR(files.v[0], "/xdg/git/config");
	strlist_free(&files);
	gitctl_cfg_free(&cfg);
	gitctl_free(&g);
}

/* Paths written in git files. */
static void
t_path(void)
{
	struct gitctl g;
	char *s;

	fs_init();
	gitctl_init(&g, "/home/me", &ops);
	CHECK((s = gitctl_path(&g, "~/x", NULL)) != NULL);
	CHECK_STR(s, "/home/me/x");
	mem_free(s);
	CHECK((s = gitctl_path(&g, "../link/y", "/home/me/proj")) != NULL);
	CHECK_STR(s, "/home/me/proj/y");
	mem_free(s);
	CHECK((s = gitctl_path(&g, "/abs/z", NULL)) != NULL);
	CHECK_STR(s, "/abs/z");
	mem_free(s);
	CHECK(gitctl_path(&g, "~other/x", "/") == NULL && errno == ENOENT);
	CHECK(gitctl_path(&g, "rel", NULL) == NULL && errno == ENOENT);
	gitctl_free(&g);
	gitctl_init(&g, NULL, &ops);
	CHECK(gitctl_path(&g, "~/x", "/") == NULL && errno == ENOENT);
	CHECK(gitctl_isdir(&g, "/home/me") == 1);
	fakefs_file(&fs, "/home/me/f", "");
	CHECK(gitctl_isdir(&g, "/home/me/f") == 0);
	CHECK(gitctl_isdir(&g, "/home/me/none") == -1 && errno == ENOENT);
	gitctl_free(&g);
}

/* More submodules than GITCTL_MAX: E2BIG, saying so. */
static void
t_limits(void)
{
	static char names[GITCTL_MAX + 1][64];
	struct gitctl g;
	int i;

	fs_init();
	for (i = 0; i <= GITCTL_MAX; i++) {
		snprintf(names[i], sizeof names[i],
		    "/home/me/proj/.git/modules/m%d", i);
		fakefs_add(&fs, names[i], 0);
		strcat(names[i], "/HEAD");
		fakefs_file(&fs, names[i], "x\n");
	}
	gitctl_init(&g, NULL, &ops);
	CHECK(gitctl_find(&g, "/home/me/proj") == 0);
	CHECK(gitctl_scan(&g) == -1 && errno == E2BIG);
	CHECK(strstr(g.why, "more than 64 linked worktrees and submodules; "
	    "protection would be partial") != NULL);
	CHECK(g.na == GITCTL_MAX + 1);
	gitctl_free(&g);
}

static void
t_alloc_faults(void)
{
	struct strlist files = { NULL, 0 }, rfiles = { NULL, 0 };
	struct gitctl_cfg cfg, rcfg;
	struct gitctl g;
	long n;
	size_t i;
	int rc;

	/* n = -1: the reference, no allocation fails */
	for (n = -1; n < 100000; n++) {
		fs_init();
		fakefs_add(&fs, "/home/me/proj/.git/worktrees/wt", 0);
		fakefs_file(&fs, "/home/me/proj/.git/worktrees/wt/gitdir",
		    "/home/me/proj/wt/.git\n");
		fakefs_add(&fs, "/home/me/proj/.git/modules/lib", 0);
		fakefs_file(&fs, "/home/me/proj/.git/modules/lib/config",
		    "[core]\n\tworktree = ../../../lib\n\thooksPath = h\n"
		    "[include]\n\tpath = ../../inc\n");
		fakefs_file(&fs, "/home/me/proj/.git/inc",
		    "[core]\n\thooksPath = ~/x\n");
		memset(&cfg, 0, sizeof cfg);
		gitctl_init(&g, "/home/me", &ops);
		mem_fail_after(n);
		rc = gitctl_find(&g, "/home/me/proj");
		if (rc == 0)
			rc = gitctl_scan(&g);
		if (rc == 0)
			rc = gitctl_config(&g,
			    "/home/me/proj/.git/modules/lib/config", &cfg);
		if (rc == 0)
			rc = gitctl_global(&g, NULL, &cfg, &files);
		if (n < 0) {
			CHECK(rc == 0);
			rcfg = cfg;
			rfiles = files;
			files.v = NULL;
			files.n = 0;
			gitctl_free(&g);
			continue;
		}
		if (!mem_failed()) {
			mem_fail_after(-1);
			CHECK(rc == 0);
			CHECK(g.na == 3 && cfg.inc.n == 1 && files.n == 2);
			/* what the reference found */
			CHECK(cfg.hooks.n == rcfg.hooks.n && cfg.inc.n == rcfg.inc.n &&
			    files.n == rfiles.n);
			for (i = 0; i < cfg.hooks.n && i < rcfg.hooks.n; i++)
				CHECK_STR(cfg.hooks.v[i], rcfg.hooks.v[i]);
			for (i = 0; i < cfg.inc.n && i < rcfg.inc.n; i++)
				CHECK_STR(cfg.inc.v[i], rcfg.inc.v[i]);
			for (i = 0; i < files.n && i < rfiles.n; i++)
				CHECK_STR(files.v[i], rfiles.v[i]);
			CHECK((cfg.worktree == NULL) == (rcfg.worktree == NULL));
			if (cfg.worktree != NULL && rcfg.worktree != NULL)
				CHECK_STR(cfg.worktree, rcfg.worktree);
			gitctl_cfg_free(&cfg);
			strlist_free(&files);
			gitctl_free(&g);
			break;
		}
		mem_fail_after(-1);
		CHECK(rc == -1 && errno == ENOMEM);
		CHECK(strstr(g.why, "Cannot allocate memory") != NULL);
		gitctl_cfg_free(&cfg);
		strlist_free(&files);
		gitctl_free(&g);
	}
	CHECK(n > 10 && n < 100000);
	gitctl_cfg_free(&rcfg);
	strlist_free(&rfiles);
}

int
main(void)
{
	TEST(t_find);
	TEST(t_linked);
	TEST(t_scan);
	TEST(t_config);
	TEST(t_config_depth);
	TEST(t_global);
	TEST(t_path);
	TEST(t_limits);
	TEST(t_alloc_faults);
	return tap_done();
}
