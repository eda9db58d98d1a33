/*
 * config_test: precedence, narrowing, every error's exact text and
 * position, warnings, and a fault-injection loop. Each test runs in a fork
 * with its own temp dir T: HOME=T/home, TMPDIR=T/tmp, cwd T/ws. Tests end
 * through exit(), so the temp dir is removed and LeakSanitizer checks the
 * child (tap.h's _exit would skip both).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/mem.h"
#include "policy/config.h"
#include "tap.h"

#define FLAGS0	{ NULL, NULL, -1, -1, -1, -1, NULL, 0, NULL, 0 }

static char T[512];	/* canonical temp dir of this test */
static char UC[600];	/* user config path */
static char WC[600];	/* workspace config path */
static char E[1024];		/* err from the last load */
static char W[16384];		/* warnings, one per line */
static int nwarn;
static void (*cur)(void);

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	if (flag == FTW_DP)
		chmod(path, 0700);
	return remove(path) == 0 ? 0 : 0;
}

static void
teardown(void)
{
	if (T[0] != '\0' && chdir("/") == 0) {
		chmod(T, 0700);
		nftw(T, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	}
}

static char *
tp(const char *fmt, ...)	/* T/relative, in a rotating buffer */
{
	static char bufs[8][1024];
	static int k;
	char rel[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof rel, fmt, ap);
	va_end(ap);
	k = (k + 1) % 8;
	snprintf(bufs[k], sizeof bufs[k], "%s/%s", T, rel);
	return bufs[k];
}

static void
mkdirs(const char *path)
{
	char tmp[PATH_MAX], *s;

	snprintf(tmp, sizeof tmp, "%s", path);
	for (s = tmp + 1; *s != '\0'; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(tmp, 0755);
			*s = '/';
		}
	mkdir(tmp, 0755);
}

static void
put(const char *path, const char *text, size_t len)
{
	char dir[PATH_MAX], *s;
	int fd;

	snprintf(dir, sizeof dir, "%s", path);
	if ((s = strrchr(dir, '/')) != NULL) {
		*s = '\0';
		mkdirs(dir);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	CHECK(fd >= 0);
	CHECK(write(fd, text, len) == (ssize_t)len);
	close(fd);
}

static void
ucfg(const char *text)
{
	put(UC, text, strlen(text));
}

static void
wcfg(const char *text)
{
	put(WC, text, strlen(text));
}

static void
on_warn(const char *msg, void *arg)
{
	size_t n = strlen(W);

	CHECK(arg == (void *)W);
	CHECK(strchr(msg, '\n') == NULL);
	snprintf(W + n, sizeof W - n, "%s\n", msg);
	nwarn++;
}

static int
load(struct policy *p, const struct config_flags *fl)
{
	int rc;

	memset(p, 0xa5, sizeof *p);	/* config_load must not rely on it */
	W[0] = '\0';
	nwarn = 0;
	memset(E, 'x', sizeof E);
	rc = config_load(p, fl, E, sizeof E, on_warn, W);
	if (rc != 0) {
		/* p is freed and zeroed on error */
		CHECK(p->workspace == NULL && p->grants.v == NULL &&
		    p->protect.v == NULL && p->user_config == NULL);
		CHECK(strchr(E, '\n') == NULL);
	}
	return rc;
}

/* Expect load to fail with exactly this message. */
static void
fails(const struct config_flags *fl, const char *fmt, ...)
{
	struct config_flags none = FLAGS0;
	struct policy p;
	char want[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(want, sizeof want, fmt, ap);
	va_end(ap);
	CHECK(load(&p, fl ? fl : &none) == -1);
	CHECK(errno != 0);
	CHECK_STR(E, want);
}

/* Load with no flags, expecting success. */
static void
ok(struct policy *p)
{
	struct config_flags none = FLAGS0;

	if (load(p, &none) != 0) {
		fprintf(stderr, "# unexpected error: %s\n", E);
		CHECK(0);
	}
}

static void
setup(void)
{
	char tmpl[] = "/tmp/config_test.XXXXXX";
	char *d = mkdtemp(tmpl);

	CHECK(d != NULL);
	CHECK(realpath(d, T) != NULL);
	atexit(teardown);
	mkdirs(tp("home"));
	mkdirs(tp("ws"));
	mkdirs(tp("tmp"));
	mkdirs(tp("out"));
	CHECK(setenv("HOME", tp("home"), 1) == 0);
	CHECK(setenv("TMPDIR", tp("tmp"), 1) == 0);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("ARCTURN_HOME");
	unsetenv("ARCTURN_DRY_RUN");
	unsetenv("ARCTURN_SESSION");
	snprintf(UC, sizeof UC, "%s", tp("home/.config/arcturn/config.json"));
	snprintf(WC, sizeof WC, "%s", tp("ws/.arcturn.json"));
	CHECK(chdir(tp("ws")) == 0);
}

static void
wrap(void)
{
	setup();
	cur();
	exit(0);	/* teardown, then the leak check */
}

#define RUN(fn) (cur = (fn), tap_run(#fn, wrap))

static int
strlist_is(const struct strlist *l, int n, ...)
{
	va_list ap;
	int i, r = (size_t)n == l->n;

	va_start(ap, n);
	for (i = 0; i < n; i++) {
		const char *s = va_arg(ap, const char *);

		if (r && strcmp(l->v[i], s) != 0) {
			fprintf(stderr, "# [%d] = \"%s\", want \"%s\"\n", i,
			    l->v[i], s);
			r = 0;
		}
	}
	va_end(ap);
	if ((size_t)n != l->n)
		fprintf(stderr, "# %zu entries, want %d\n", l->n, n);
	return r;
}

/* ---- defaults and sources ---- */

static void
t_defaults(void)
{
	struct policy p;

	ok(&p);
	CHECK(p.mode == MODE_WORKSPACE_WRITE);
	CHECK(p.network == 1);
	CHECK(p.dry_run == 0);
	CHECK(p.require_sandbox == 0);
	CHECK(p.grants.n == 0);
	CHECK(strlist_is(&p.protect, 2, ".git/hooks", ".git/config"));
	CHECK_STR(p.workspace, tp("ws"));
	CHECK_STR(p.state, tp("home/.arcturn"));
	CHECK_STR(p.tmpdir, tp("tmp"));
	CHECK_STR(p.user_config, UC);
	CHECK(p.session == NULL);
	CHECK(nwarn == 0);
	CHECK(E[0] == '\0');
	policy_free(&p);
	CHECK(p.workspace == NULL);
	policy_free(&p);	/* zeroed: harmless twice */
	policy_free(NULL);
}

static void
t_never_writes(void)
{
	struct policy p;
	struct stat st;

	ok(&p);
	CHECK(stat(tp("home/.arcturn"), &st) == -1 && errno == ENOENT);
	CHECK(stat(tp("home/.config"), &st) == -1 && errno == ENOENT);
	CHECK(stat(WC, &st) == -1 && errno == ENOENT);
	policy_free(&p);
}

static void
t_user_config_all_keys(void)
{
	struct policy p;
	char cfg[4096];

	snprintf(cfg, sizeof cfg, "{\n"
	    "  \"dryRun\": true,\n"
	    "  \"sandbox\": \"read-only\",\n"
	    "  \"grants\": [\"%s\", \"%s/\"],\n"
	    "  \"requireSandbox\": true,\n"
	    "  \"network\": \"off\",\n"
	    "  \"protect\": [\"secrets\", \"./b//c/\", \"secrets\"]\n"
	    "}\n", tp("out"), tp("tmp"));
	ucfg(cfg);
	ok(&p);
	CHECK(p.dry_run == 1);
	CHECK(p.mode == MODE_READ_ONLY);
	CHECK(p.require_sandbox == 1);
	CHECK(p.network == 0);
	CHECK(strlist_is(&p.grants, 2, tp("out"), tp("tmp")));
	/* replaces the default list; normalised; duplicates dropped */
	CHECK(strlist_is(&p.protect, 2, "secrets", "b/c"));
	CHECK(nwarn == 0);
	policy_free(&p);
}

static void
t_user_config_empty_protect(void)
{
	struct policy p;

	ucfg("{\"protect\": []}");
	ok(&p);
	CHECK(p.protect.n == 0);
	policy_free(&p);
}

static void
t_user_config_can_loosen(void)
{
	struct policy p;

	ucfg("{\"sandbox\": \"off\", \"network\": \"on\", \"dryRun\": false,"
	    " \"requireSandbox\": false}");
	ok(&p);
	CHECK(p.mode == MODE_OFF);
	CHECK(p.network == 1 && p.dry_run == 0 && p.require_sandbox == 0);
	CHECK(nwarn == 0);
	policy_free(&p);
}

static void
t_xdg_config_home(void)
{
	struct policy p;

	mkdirs(tp("real/xdg"));
	CHECK(symlink(tp("real/xdg"), tp("xdg")) == 0);
	CHECK(setenv("XDG_CONFIG_HOME", tp("xdg"), 1) == 0);
	ucfg("{\"dryRun\": true}");	/* under HOME: not read now */
	put(tp("real/xdg/arcturn/config.json"), "{\"network\": \"off\"}", 18);
	ok(&p);
	CHECK_STR(p.user_config, tp("real/xdg/arcturn/config.json"));
	CHECK(p.network == 0 && p.dry_run == 0);
	policy_free(&p);

	/* a relative XDG_CONFIG_HOME is ignored, as the XDG spec says */
	CHECK(setenv("XDG_CONFIG_HOME", "xdg", 1) == 0);
	ok(&p);
	CHECK_STR(p.user_config, UC);
	CHECK(p.dry_run == 1);
	policy_free(&p);
}

static void
t_user_config_path_when_missing(void)
{
	struct policy p;

	/* canonical even though neither the file nor its dirs exist */
	mkdirs(tp("real/h"));
	CHECK(symlink(tp("real/h"), tp("h")) == 0);
	CHECK(setenv("HOME", tp("h"), 1) == 0);
	ok(&p);
	CHECK_STR(p.user_config, tp("real/h/.config/arcturn/config.json"));
	CHECK_STR(p.state, tp("real/h/.arcturn"));
	policy_free(&p);

	/* ~/.config is a file, or a dangling link: simply no config */
	put(tp("real/h/.config"), "x", 1);
	ok(&p);
	policy_free(&p);
	CHECK(unlink(tp("real/h/.config")) == 0);
	CHECK(symlink(tp("nowhere"), tp("real/h/.config")) == 0);
	ok(&p);
	policy_free(&p);
}

static void
t_home_unset(void)
{
	struct passwd *pw = getpwuid(getuid());
	struct policy p;
	char want[PATH_MAX + 16], real[PATH_MAX];

	if (pw == NULL || pw->pw_dir == NULL || realpath(pw->pw_dir, real) == NULL)
		SKIP("no passwd entry with an existing home");
	unsetenv("HOME");
	ok(&p);
	snprintf(want, sizeof want, "%s/.arcturn", real);
	CHECK_STR(p.state, want);
	CHECK(strncmp(p.user_config, real, strlen(real)) == 0);
	policy_free(&p);
}

/* ---- workspace config: narrowing only ---- */

static void
t_workspace_narrows(void)
{
	struct policy p;

	wcfg("{\"dryRun\": true, \"sandbox\": \"read-only\", "
	    "\"requireSandbox\": true, \"network\": \"off\", "
	    "\"protect\": [\"keys\", \".git/hooks\"], \"grants\": []}");
	ok(&p);
	CHECK(p.dry_run == 1);
	CHECK(p.mode == MODE_READ_ONLY);
	CHECK(p.require_sandbox == 1);
	CHECK(p.network == 0);
	/* added to the defaults, duplicates dropped */
	CHECK(strlist_is(&p.protect, 3, ".git/hooks", ".git/config", "keys"));
	CHECK(nwarn == 0);
	policy_free(&p);
}

static void
t_workspace_adds_to_user_protect(void)
{
	struct policy p;

	ucfg("{\"protect\": [\"a\"]}");
	wcfg("{\"protect\": [\"b\"]}");
	ok(&p);
	CHECK(strlist_is(&p.protect, 2, "a", "b"));
	policy_free(&p);
}

static void
t_workspace_cannot_loosen(void)
{
	struct policy p;
	char cfg[4096], want[8192];

	ucfg("{\"dryRun\": true, \"sandbox\": \"read-only\", "
	    "\"requireSandbox\": true, \"network\": \"off\"}");
	snprintf(cfg, sizeof cfg, "{\"dryRun\": false, \"sandbox\": \"off\", "
	    "\"requireSandbox\": false, \"network\": \"on\", "
	    "\"grants\": [\"%s\"]}", tp("out"));
	wcfg(cfg);
	ok(&p);
	CHECK(p.dry_run == 1);
	CHECK(p.mode == MODE_READ_ONLY);
	CHECK(p.require_sandbox == 1);
	CHECK(p.network == 0);
	CHECK(p.grants.n == 0);
	snprintf(want, sizeof want,
	    "%s: \"dryRun\": false ignored: a workspace config can only turn it on\n"
	    "%s: \"sandbox\": \"off\" ignored: a workspace config cannot loosen \"read-only\"\n"
	    "%s: \"requireSandbox\": false ignored: a workspace config can only turn it on\n"
	    "%s: \"network\": \"on\" ignored: a workspace config can only turn network off\n"
	    "%s: \"grants\" ignored: a workspace config cannot grant writes\n",
	    WC, WC, WC, WC, WC);
	CHECK_STR(W, want);
	CHECK(nwarn == 5);
	policy_free(&p);
}

static void
t_workspace_loosening_warns_even_when_moot(void)
{
	struct policy p;
	char want[4096];

	/* default user config: the values agree, but the keys can never
	 * loosen, so the user hears that they are ignored */
	wcfg("{\"dryRun\": false, \"network\": \"on\"}");
	ok(&p);
	CHECK(p.dry_run == 0 && p.network == 1);
	snprintf(want, sizeof want,
	    "%s: \"dryRun\": false ignored: a workspace config can only turn it on\n"
	    "%s: \"network\": \"on\" ignored: a workspace config can only turn network off\n",
	    WC, WC);
	CHECK_STR(W, want);
	policy_free(&p);
}

static void
t_workspace_mode_order(void)
{
	struct policy p;
	char want[4096];

	/* off < workspace-write < read-only */
	ucfg("{\"sandbox\": \"off\"}");
	wcfg("{\"sandbox\": \"workspace-write\"}");
	ok(&p);
	CHECK(p.mode == MODE_WORKSPACE_WRITE && nwarn == 0);
	policy_free(&p);

	wcfg("{\"sandbox\": \"off\"}");		/* equal: no warning */
	ok(&p);
	CHECK(p.mode == MODE_OFF && nwarn == 0);
	policy_free(&p);

	ucfg("{\"sandbox\": \"read-only\"}");
	wcfg("{\"sandbox\": \"workspace-write\"}");
	ok(&p);
	CHECK(p.mode == MODE_READ_ONLY);
	snprintf(want, sizeof want, "%s: \"sandbox\": \"workspace-write\" "
	    "ignored: a workspace config cannot loosen \"read-only\"\n", WC);
	CHECK_STR(W, want);
	policy_free(&p);

	ucfg("{}");
	wcfg("{\"sandbox\": \"off\"}");		/* looser than the default */
	ok(&p);
	CHECK(p.mode == MODE_WORKSPACE_WRITE && nwarn == 1);
	policy_free(&p);
}

static void
t_workspace_grants_not_checked(void)
{
	struct policy p;
	char want[4096];

	/* ignored grants are not resolved (but still type-checked) */
	wcfg("{\"grants\": [\"relative\", \"/does/not/exist\"]}");
	ok(&p);
	CHECK(p.grants.n == 0);
	snprintf(want, sizeof want, "%s: \"grants\" ignored: a workspace "
	    "config cannot grant writes\n", WC);
	CHECK_STR(W, want);
	policy_free(&p);

	wcfg("{\"grants\": [\"/ok\", 3]}");
	fails(NULL, "%s:1:20: \"grants\" must be an array of strings", WC);
}

static void
t_workspace_follows_dir_flag(void)
{
	struct config_flags fl = FLAGS0;
	struct policy p;

	mkdirs(tp("other"));
	put(tp("other/.arcturn.json"), "{\"dryRun\": true}", 16);
	fl.dir = tp("other");
	CHECK(load(&p, &fl) == 0);
	CHECK(p.dry_run == 1);
	CHECK_STR(p.workspace, tp("other"));
	policy_free(&p);
}

/* ---- environment and flags ---- */

static void
t_env_over_workspace(void)
{
	struct policy p;

	wcfg("{\"dryRun\": true}");
	CHECK(setenv("ARCTURN_DRY_RUN", "0", 1) == 0);
	ok(&p);
	CHECK(p.dry_run == 0);
	policy_free(&p);

	ucfg("{\"dryRun\": true}");
	wcfg("{}");
	ok(&p);
	CHECK(p.dry_run == 0);
	policy_free(&p);

	ucfg("{\"dryRun\": false}");
	CHECK(setenv("ARCTURN_DRY_RUN", "1", 1) == 0);
	ok(&p);
	CHECK(p.dry_run == 1);
	policy_free(&p);

	CHECK(setenv("ARCTURN_DRY_RUN", "", 1) == 0);	/* empty: unset */
	ok(&p);
	CHECK(p.dry_run == 0);
	policy_free(&p);
}

/*
 * Every combination of the sources for each setting, against the rule:
 * defaults < user < workspace (narrowing only) < environment < flags.
 * Value index 0 means "not set" in that source.
 */
static void
config_with(const char *path, const char *key, const char *val)
{
	char cfg[256];

	if (val == NULL)
		snprintf(cfg, sizeof cfg, "{}");
	else
		snprintf(cfg, sizeof cfg, "{\"%s\": %s}", key, val);
	put(path, cfg, strlen(cfg));
}

static void
t_precedence_matrix_bools(void)
{
	static const char *const json[] = { NULL, "true", "false" };
	static const char *const env[] = { NULL, "1", "0" };
	static const int flag[] = { -1, 1, 0 };
	struct config_flags fl;
	struct policy p;
	int u, w, e, f, want, warns, which;

	for (which = 0; which < 2; which++)	/* dryRun, requireSandbox */
	for (u = 0; u < 3; u++)
	for (w = 0; w < 3; w++)
	for (e = 0; e < 3; e++)
	for (f = 0; f < 3; f++) {
		const char *key = which ? "requireSandbox" : "dryRun";

		if (which && e > 0)
			continue;	/* no environment for requireSandbox */
		config_with(UC, key, json[u]);
		config_with(WC, key, json[w]);
		if (env[e] != NULL)
			setenv("ARCTURN_DRY_RUN", env[e], 1);
		else
			unsetenv("ARCTURN_DRY_RUN");
		fl = (struct config_flags)FLAGS0;
		if (which)
			fl.require_sandbox = flag[f];
		else
			fl.dry_run = flag[f];
		want = 0;
		warns = 0;
		if (u > 0)
			want = u == 1;
		if (w == 1)
			want = 1;
		else if (w == 2)
			warns = 1;
		if (e > 0)
			want = e == 1;
		if (f > 0)
			want = f == 1;
		CHECK(load(&p, &fl) == 0);
		if ((which ? p.require_sandbox : p.dry_run) != want ||
		    nwarn != warns) {
			fprintf(stderr, "# %s user %d ws %d env %d flag %d: "
			    "got %d/%d warnings, want %d/%d\n", key, u, w, e, f,
			    which ? p.require_sandbox : p.dry_run, nwarn, want,
			    warns);
			CHECK(0);
		}
		policy_free(&p);
	}
}

static void
t_precedence_matrix_mode(void)
{
	static const char *const json[] = { NULL, "\"off\"",
	    "\"workspace-write\"", "\"read-only\"" };
	struct config_flags fl;
	struct policy p;
	int u, w, f, want, warns;

	for (u = 0; u < 4; u++)
	for (w = 0; w < 4; w++)
	for (f = 0; f < 4; f++) {
		config_with(UC, "sandbox", json[u]);
		config_with(WC, "sandbox", json[w]);
		fl = (struct config_flags)FLAGS0;
		fl.mode = f - 1;	/* -1, off, workspace-write, read-only */
		want = u > 0 ? u - 1 : MODE_WORKSPACE_WRITE;
		warns = 0;
		if (w > 0 && w - 1 >= want)
			want = w - 1;
		else if (w > 0)
			warns = 1;
		if (f > 0)
			want = f - 1;
		CHECK(load(&p, &fl) == 0);
		if ((int)p.mode != want || nwarn != warns) {
			fprintf(stderr, "# user %d ws %d flag %d: got %d/%d "
			    "warnings, want %d/%d\n", u, w, f, p.mode, nwarn,
			    want, warns);
			CHECK(0);
		}
		policy_free(&p);
	}
}

static void
t_precedence_matrix_network(void)
{
	static const char *const json[] = { NULL, "\"on\"", "\"off\"" };
	static const int flag[] = { -1, 1, 0 };
	struct config_flags fl;
	struct policy p;
	int u, w, f, want, warns;

	for (u = 0; u < 3; u++)
	for (w = 0; w < 3; w++)
	for (f = 0; f < 3; f++) {
		config_with(UC, "network", json[u]);
		config_with(WC, "network", json[w]);
		fl = (struct config_flags)FLAGS0;
		fl.network = flag[f];
		want = u > 0 ? u == 1 : 1;
		warns = w == 1;
		if (w == 2)
			want = 0;
		if (f > 0)
			want = f == 1;
		CHECK(load(&p, &fl) == 0);
		CHECK(p.network == want);
		CHECK(nwarn == warns);
		policy_free(&p);
	}
}

static void
t_env_dry_run_bad(void)
{
	CHECK(setenv("ARCTURN_DRY_RUN", "yes", 1) == 0);
	fails(NULL, "ARCTURN_DRY_RUN=yes: expected 1 or 0");
	CHECK(errno == EINVAL);
	CHECK(setenv("ARCTURN_DRY_RUN", "1\033[2J", 1) == 0);
	fails(NULL, "ARCTURN_DRY_RUN=1\\x1b[2J: expected 1 or 0");
}

static void
t_flags_over_everything(void)
{
	struct config_flags fl = FLAGS0;
	struct policy p;

	ucfg("{\"sandbox\": \"read-only\", \"network\": \"off\"}");
	wcfg("{\"sandbox\": \"read-only\", \"dryRun\": true, "
	    "\"requireSandbox\": true}");
	CHECK(setenv("ARCTURN_DRY_RUN", "1", 1) == 0);
	fl.mode = MODE_OFF;
	fl.network = 1;
	fl.dry_run = 0;
	fl.require_sandbox = 0;
	CHECK(load(&p, &fl) == 0);
	CHECK(p.mode == MODE_OFF);
	CHECK(p.network == 1);
	CHECK(p.dry_run == 0);
	CHECK(p.require_sandbox == 0);
	policy_free(&p);

	fl = (struct config_flags)FLAGS0;
	CHECK(setenv("ARCTURN_DRY_RUN", "0", 1) == 0);
	fl.dry_run = 1;
	fl.require_sandbox = 1;
	fl.network = 0;
	fl.mode = MODE_WORKSPACE_WRITE;
	ucfg("{}");
	wcfg("{}");
	CHECK(load(&p, &fl) == 0);
	CHECK(p.dry_run == 1 && p.require_sandbox == 1 && p.network == 0);
	CHECK(p.mode == MODE_WORKSPACE_WRITE);
	policy_free(&p);

	fl = (struct config_flags)FLAGS0;
	fl.mode = 7;
	fails(&fl, "sandbox: 7: unknown sandbox mode");
}

static void
t_session(void)
{
	struct config_flags fl = FLAGS0;
	struct policy p;

	CHECK(setenv("ARCTURN_SESSION", "from-env", 1) == 0);
	ok(&p);
	CHECK_STR(p.session, "from-env");
	policy_free(&p);

	fl.session = "from-flag";
	CHECK(load(&p, &fl) == 0);
	CHECK_STR(p.session, "from-flag");
	policy_free(&p);

	CHECK(setenv("ARCTURN_SESSION", "", 1) == 0);
	ok(&p);
	CHECK(p.session == NULL);
	policy_free(&p);

	CHECK(setenv("ARCTURN_SESSION", "../x", 1) == 0);
	fails(NULL, "session: ../x: invalid session id "
	    "(expected [a-z0-9][a-z0-9-]{0,63})");
	unsetenv("ARCTURN_SESSION");
	fl.session = "-a";
	fails(&fl, "session: -a: invalid session id "
	    "(expected [a-z0-9][a-z0-9-]{0,63})");
	fl.session = "Abc";
	CHECK(load(&p, &fl) == -1);
	fl.session = "a234567890123456789012345678901234567890123456789012345678901234";
	CHECK(load(&p, &fl) == 0);	/* 64 characters */
	policy_free(&p);
	fl.session = "a2345678901234567890123456789012345678901234567890123456789012345";
	CHECK(load(&p, &fl) == -1);	/* 65 */
}

static void
t_flag_grants(void)
{
	struct config_flags fl = FLAGS0;
	struct policy p;
	const char *g[4];
	char cfg[4096];

	mkdirs(tp("real/g"));
	CHECK(symlink(tp("real/g"), tp("link")) == 0);
	snprintf(cfg, sizeof cfg, "{\"grants\": [\"%s\"]}", tp("out"));
	ucfg(cfg);
	g[0] = tp("link");
	g[1] = tp("out/");
	g[2] = tp("real/g/.");
	fl.grants = g;
	fl.ngrants = 3;
	CHECK(load(&p, &fl) == 0);
	/* user config first, then flags; canonical; no duplicates */
	CHECK(strlist_is(&p.grants, 2, tp("out"), tp("real/g")));
	policy_free(&p);

	g[0] = "out";
	fl.ngrants = 1;
	fails(&fl, "grant: out: not an absolute path");
	CHECK(errno == EINVAL);
	g[0] = tp("nope/x");
	fails(&fl, "grant: %s: No such file or directory; create it first (arcturn creates a missing grant only beneath your home)", tp("nope/x"));
	CHECK(errno == ENOENT);
	put(tp("file"), "x", 1);
	g[0] = tp("file/x");
	fails(&fl, "grant: %s: Not a directory", tp("file/x"));
	g[0] = tp("file");	/* a single file may be granted */
	CHECK(load(&p, &fl) == 0);
	CHECK(strlist_is(&p.grants, 2, tp("out"), tp("file")));
	policy_free(&p);
}

/*
 * ~, $HOME and ${HOME} expand in --grant and in the user config; a missing
 * grant beneath home waits in grants_new (config_load creates nothing);
 * ~user, other variables and a missing grant elsewhere are errors.
 */
static void
t_grant_home(void)
{
	struct config_flags fl = FLAGS0;
	struct policy p;
	struct stat st;
	const char *g[4];
	char cfg[4096];

	mkdirs(tp("home/have"));
	mkdirs(tp("real/h"));
	CHECK(symlink(tp("real/h"), tp("home/out")) == 0);
	snprintf(cfg, sizeof cfg, "{\"grants\": [\"$HOME/have\", "
	    "\"${HOME}/.cache/pip\", \"~/.npm\"]}");
	ucfg(cfg);
	g[0] = "~/.npm/";	/* the same, once */
	g[1] = "~";
	g[2] = "$HOME/.cargo";
	fl.grants = g;
	fl.ngrants = 3;
	CHECK(load(&p, &fl) == 0);
	CHECK(strlist_is(&p.grants, 2, tp("home/have"), tp("home")));
	CHECK(strlist_is(&p.grants_new, 3, tp("home/.cache/pip"),
	    tp("home/.npm"), tp("home/.cargo")));
	CHECK(lstat(tp("home/.npm"), &st) == -1 && errno == ENOENT);
	CHECK(lstat(tp("home/.cache"), &st) == -1 && errno == ENOENT);
	policy_free(&p);

	/* through a symlink out of home: not beneath it, not created */
	ucfg("{}");
	g[0] = "~/out/new";
	fl.ngrants = 1;
	fails(&fl, "grant: ~/out/new: No such file or directory; create it "
	    "first (arcturn creates a missing grant only beneath your home)");
	g[0] = "~root/x";
	fails(&fl, "grant: ~root/x: only your own home expands (~ or ~/...); "
	    "write the path out");
	CHECK(errno == EINVAL);
	g[0] = "$HOMEX/y";
	fails(&fl, "grant: $HOMEX/y: only $HOME or ${HOME} expands here; "
	    "write the path out");
	g[0] = "~x";
	fails(&fl, "grant: ~x: only your own home expands (~ or ~/...); "
	    "write the path out");
	ucfg("{\"grants\": [\"~other/.npm\"]}");
	fails(NULL, "%s:1:13: grant: ~other/.npm: only your own home expands "
	    "(~ or ~/...); write the path out", UC);
	/* home itself missing: nothing lies beneath it */
	ucfg("{}");
	CHECK(setenv("HOME", tp("nohome"), 1) == 0);
	g[0] = "~/.npm";
	fails(&fl, "grant: ~/.npm: No such file or directory; create it "
	    "first (arcturn creates a missing grant only beneath your home)");
}

static void
t_user_config_grant_errors(void)
{
	char cfg[4096];

	ucfg("{\n  \"grants\": [\"rel/x\"]\n}\n");
	fails(NULL, "%s:2:14: grant: rel/x: not an absolute path", UC);
	snprintf(cfg, sizeof cfg, "{\"grants\": [\"%s\",\n\t\"%s\"]}",
	    tp("out"), tp("missing"));
	ucfg(cfg);
	fails(NULL, "%s:2:2: grant: %s: No such file or directory; create it "
	    "first (arcturn creates a missing grant only beneath your home)",
	    UC, tp("missing"));
	CHECK(errno == ENOENT);
}

static void
t_workspace_dir(void)
{
	struct config_flags fl = FLAGS0;
	struct policy p;

	mkdirs(tp("real/w"));
	CHECK(symlink(tp("real/w"), tp("wl")) == 0);
	CHECK(chdir(T) == 0);
	fl.dir = "wl";
	CHECK(load(&p, &fl) == 0);
	CHECK_STR(p.workspace, tp("real/w"));
	policy_free(&p);

	CHECK(chdir(tp("wl")) == 0);	/* the cwd, canonicalised */
	ok(&p);
	CHECK_STR(p.workspace, tp("real/w"));
	policy_free(&p);

	fl.dir = tp("nope");
	fails(&fl, "workspace: %s: No such file or directory", tp("nope"));
	put(tp("f"), "", 0);
	fl.dir = tp("f");
	fails(&fl, "workspace: %s: Not a directory", tp("f"));
	CHECK(errno == ENOTDIR);
}

static void
t_state_dir(void)
{
	struct policy p;

	mkdirs(tp("real/s"));
	CHECK(symlink(tp("real/s"), tp("s")) == 0);
	CHECK(setenv("ARCTURN_HOME", tp("s/a/b/"), 1) == 0);
	ok(&p);
	CHECK_STR(p.state, tp("real/s/a/b"));	/* existing part resolved */
	policy_free(&p);

	CHECK(setenv("ARCTURN_HOME", tp("s"), 1) == 0);
	ok(&p);
	CHECK_STR(p.state, tp("real/s"));
	policy_free(&p);

	CHECK(setenv("ARCTURN_HOME", "", 1) == 0);	/* empty: default */
	ok(&p);
	CHECK_STR(p.state, tp("home/.arcturn"));
	policy_free(&p);

	CHECK(setenv("ARCTURN_HOME", "rel", 1) == 0);
	fails(NULL, "ARCTURN_HOME: rel: not an absolute path");

	put(tp("sf"), "x", 1);
	CHECK(setenv("ARCTURN_HOME", tp("sf"), 1) == 0);
	fails(NULL, "state dir: %s: Not a directory", tp("sf"));
	CHECK(setenv("ARCTURN_HOME", tp("sf/x"), 1) == 0);
	fails(NULL, "state dir: %s: Not a directory", tp("sf/x"));
	CHECK(symlink(tp("nowhere"), tp("dangling")) == 0);
	CHECK(setenv("ARCTURN_HOME", tp("dangling"), 1) == 0);
	fails(NULL, "state dir: %s: No such file or directory", tp("dangling"));
	CHECK(setenv("ARCTURN_HOME", tp("dangling/sub"), 1) == 0);
	fails(NULL, "state dir: %s: No such file or directory",
	    tp("dangling/sub"));
	CHECK(setenv("ARCTURN_HOME", tp("missing/../x"), 1) == 0);
	fails(NULL, "state dir: %s: No such file or directory",
	    tp("missing/../x"));
}

static void
t_tmpdir(void)
{
	struct policy p;
	char tmp[PATH_MAX];

	CHECK(realpath("/tmp", tmp) != NULL);
	mkdirs(tp("real/t"));
	CHECK(symlink(tp("real/t"), tp("t")) == 0);
	CHECK(setenv("TMPDIR", tp("t"), 1) == 0);
	ok(&p);
	CHECK_STR(p.tmpdir, tp("real/t"));
	policy_free(&p);

	CHECK(setenv("TMPDIR", tp("nope"), 1) == 0);
	ok(&p);
	CHECK_STR(p.tmpdir, tmp);
	policy_free(&p);

	put(tp("tf"), "x", 1);
	CHECK(setenv("TMPDIR", tp("tf"), 1) == 0);
	ok(&p);
	CHECK_STR(p.tmpdir, tmp);
	policy_free(&p);

	CHECK(setenv("TMPDIR", "", 1) == 0);
	ok(&p);
	CHECK_STR(p.tmpdir, tmp);
	policy_free(&p);

	unsetenv("TMPDIR");
	ok(&p);
	CHECK_STR(p.tmpdir, tmp);
	policy_free(&p);
}

/* ---- syntax errors: FILE:LINE:COLUMN ---- */

static void
t_broken_json_positions(void)
{
	char deep[2048];
	int i;

	ucfg("{\"dryRun\": tru}");
	fails(NULL, "%s:1:12: expected a value, found 't'", UC);
	CHECK(errno == EINVAL);
	ucfg("{\"a\": True}");
	fails(NULL, "%s:1:7: expected a value, found 'T'", UC);
	ucfg("{\"a\": \x80}");
	fails(NULL, "%s:1:7: expected a value, found byte 0x80", UC);
	ucfg("{\"a\":\n\x01}");	/* cJSON skips control bytes as blanks */
	fails(NULL, "%s:2:2: expected a value, found '}'", UC);

	ucfg("{\n  \"dryRun\": true\n  \"network\": \"off\"\n}\n");
	fails(NULL, "%s:3:3: expected ',' or '}', found '\"'", UC);
	ucfg("{\"a\": [1 2]}");
	fails(NULL, "%s:1:10: expected ',' or ']', found '2'", UC);
	ucfg("{\"a\": 1.2.3}");
	fails(NULL, "%s:1:10: expected ',' or '}', found '.'", UC);

	ucfg("{\"a\": 1,}");
	fails(NULL, "%s:1:9: expected a string key, found '}'", UC);
	ucfg("{a: 1}");
	fails(NULL, "%s:1:2: expected a string key, found 'a'", UC);
	ucfg("{\"a\": [1,]}");
	fails(NULL, "%s:1:10: expected a value, found ']'", UC);
	ucfg("{}");
	wcfg("{\n\n\n        ]");
	fails(NULL, "%s:4:9: expected a string key, found ']'", WC);
	unlink(WC);

	ucfg("{\"protect\": [\"a\"]} x");
	fails(NULL, "%s:1:20: expected end of input, found 'x'", UC);
	ucfg("{\"a\": 1}\r\n}");
	fails(NULL, "%s:2:1: expected end of input, found '}'", UC);
	ucfg("{\"a\": \"\xff\"}\n{");
	fails(NULL, "%s:2:1: expected end of input, found '{'", UC);

	/* an unterminated string is reported where it starts */
	ucfg("{\n\t\"protect\": [\"a\",\n\t\t\"unterminated]\n}\n");
	fails(NULL, "%s:3:3: unterminated string", UC);
	ucfg("{\"a\": \"x\\\"}");
	fails(NULL, "%s:1:7: unterminated string", UC);
	ucfg("{\"a\": \"\\q\"}");
	fails(NULL, "%s:1:8: invalid escape in string", UC);
	ucfg("{\"a\": \"\\ud800x\"}");
	fails(NULL, "%s:1:8: invalid \\u escape in string", UC);
	ucfg("{\"a\": \"ok\\ud83d\\ude00\\udc00\"}");
	fails(NULL, "%s:1:22: invalid \\u escape in string", UC);
	ucfg("{\"a\": -}");
	fails(NULL, "%s:1:7: invalid number", UC);

	ucfg("");
	fails(NULL, "%s:1:1: unexpected end of input", UC);
	ucfg("\n\n   ");
	fails(NULL, "%s:3:4: unexpected end of input", UC);
	ucfg("{\"a\": [1, {\"b\":");
	fails(NULL, "%s:1:16: unexpected end of input", UC);
	put(UC, "{\"a\": \0}", 8);
	fails(NULL, "%s:1:7: unexpected NUL byte", UC);

	/* a byte order mark is skipped and not counted */
	ucfg("\xEF\xBB\xBF{\"x\" 1}");
	fails(NULL, "%s:1:6: expected ':', found '1'", UC);

	/* cJSON's nesting limit: 1000 levels */
	strcpy(deep, "{\"a\": ");
	for (i = 0; i < 999; i++)
		strcat(deep, "[");
	for (i = 0; i < 999; i++)
		strcat(deep, "]");
	strcat(deep, "}");
	ucfg(deep);
	{
		struct policy p;

		ok(&p);
		policy_free(&p);
	}
	strcpy(deep, "{\"a\": ");
	for (i = 0; i < 1000; i++)
		strcat(deep, "[");
	ucfg(deep);
	fails(NULL, "%s:1:1006: nested too deeply", UC);
}

static void
t_syntax_agrees_with_cjson(void)
{
	static const char *const base[] = {
		"{\"dryRun\": true, \"sandbox\": \"read-only\", \"x\": [1, -2.5e3,"
		    " 0.5E-2, \"a\\\"b\\\\c\\/\\u00e9\\ud83d\\ude00\\n\", true, false,"
		    " null, {\"y\": {}, \"z\": []}], \"network\": \"off\"}",
		"\xEF\xBB\xBF { \"protect\" : [ \"a\" , \"b/c\" ] ,\n\t\"k\":\"\\u12\"}",
		"{\"a\":[[[[{\"b\":[\"\\uD800\\uDC00\",\"\\uzzzz\"]}]]]],\"c\":-0}",
	};
	static const char ins[] = "{}[]\",:\\u0123456789eE.+-tfnrl \n\x01\x7f\xc3";
	struct policy p;
	char text[512];
	unsigned long seed = 12345;
	size_t len, at;
	int i, rc, nerr = 0, nok = 0;

	for (i = 0; i < 4000; i++) {
		snprintf(text, sizeof text, "%s", base[i % 3]);
		len = strlen(text);
		for (int m = 0; m < 1 + i % 3; m++) {
			seed = seed * 6364136223846793005UL + 1442695040888963407UL;
			at = (seed >> 33) % (len + 1);
			switch ((seed >> 20) % 3) {
			case 0:		/* delete */
				if (at < len) {
					memmove(text + at, text + at + 1, len - at);
					len--;
				}
				break;
			case 1:		/* insert */
				if (len + 2 < sizeof text) {
					memmove(text + at + 1, text + at, len - at + 1);
					text[at] = ins[(seed >> 40) % (sizeof ins - 1)];
					len++;
				}
				break;
			default:	/* replace */
				if (at < len)
					text[at] = ins[(seed >> 40) % (sizeof ins - 1)];
				break;
			}
		}
		ucfg(text);
		rc = load(&p, NULL);
		if (rc == 0) {
			nok++;
			policy_free(&p);
			continue;
		}
		nerr++;
		if (strstr(E, ": invalid JSON") != NULL ||
		    strstr(E, ": internal:") != NULL) {
			fprintf(stderr, "# text: %s\n# err: %s\n", text, E);
			CHECK(0);
		}
	}
	CHECK(nerr > 1000 && nok > 100);	/* both sides exercised */
}

static void
t_not_an_object(void)
{
	ucfg("[\"dryRun\"]");
	fails(NULL, "%s:1:1: expected a JSON object at the top level", UC);
	ucfg("\n  true\n");
	fails(NULL, "%s:1:1: expected a JSON object at the top level", UC);
	ucfg("{}");
	wcfg("\"x\"");
	fails(NULL, "%s:1:1: expected a JSON object at the top level", WC);
}

/* ---- wrong types and bad values: position of the value ---- */

static void
t_wrong_types(void)
{
	ucfg("{\"dryRun\": \"yes\"}");
	fails(NULL, "%s:1:12: \"dryRun\" must be true or false", UC);
	CHECK(errno == EINVAL);

	ucfg("{\n    \"network\": \"on\",\n    \"requireSandbox\": null\n}");
	fails(NULL, "%s:3:23: \"requireSandbox\" must be true or false", UC);

	ucfg("{\"sandbox\":\"bogus\"}");
	fails(NULL, "%s:1:12: \"sandbox\" must be \"off\", "
	    "\"workspace-write\" or \"read-only\"", UC);
	ucfg("{\"sandbox\": 1}");
	fails(NULL, "%s:1:13: \"sandbox\" must be \"off\", "
	    "\"workspace-write\" or \"read-only\"", UC);
	ucfg("{\"sandbox\": \"Read-Only\"}");
	fails(NULL, "%s:1:13: \"sandbox\" must be \"off\", "
	    "\"workspace-write\" or \"read-only\"", UC);
	ucfg("{\"sandbox\": \"off\\u0000x\"}");
	fails(NULL, "%s:1:13: \"sandbox\" must be \"off\", "
	    "\"workspace-write\" or \"read-only\"", UC);

	ucfg("{\"network\": false}");
	fails(NULL, "%s:1:13: \"network\" must be \"on\" or \"off\"", UC);

	ucfg("{\"grants\": \"/tmp\"}");
	fails(NULL, "%s:1:12: \"grants\" must be an array of strings", UC);
	ucfg("{\"grants\": {}}");
	fails(NULL, "%s:1:12: \"grants\" must be an array of strings", UC);
	ucfg("{\"grants\": [\"/\",\n   [\"/tmp\"]]}");
	fails(NULL, "%s:2:4: \"grants\" must be an array of strings", UC);
	ucfg("{\"grants\": [\"/tmp\", \"/\\u0000x\"]}");
	fails(NULL, "%s:1:21: \"grants\": string contains a NUL character",
	    UC);

	ucfg("{\"protect\": [true]}");
	fails(NULL, "%s:1:14: \"protect\" must be an array of strings", UC);

	/* wrong types are errors in the workspace config too */
	ucfg("{}");
	wcfg("{\"dryRun\": 1}");
	fails(NULL, "%s:1:12: \"dryRun\" must be true or false", WC);
}

static void
t_position_scanner(void)
{
	/* the same name nested inside another value is not the key */
	ucfg("{\"x\": {\"dryRun\": 1, \"s\": \"\\\"dryRun\\\": 2\"},"
	    " \"y\": [\"dryRun\", {\"dryRun\": 3}],\n \"dryRun\": 4}");
	fails(NULL, "%s:2:12: \"dryRun\" must be true or false", UC);

	/* a key spelled with escapes is the same key */
	ucfg("{\"dry\\u0052un\":  \"yes\"}");
	fails(NULL, "%s:1:18: \"dryRun\" must be true or false", UC);

	/* whitespace around the colon, array elements after nesting */
	ucfg("{ \"protect\"\n :\n\t[ \"a\" , [1,[2]] ] }");
	fails(NULL, "%s:3:10: \"protect\" must be an array of strings", UC);
}

/*
 * FILE:LINE:COLUMN through the whole chain: a byte order mark, CRLF line
 * ends, multi-byte UTF-8 (columns are bytes), a value that ends the file,
 * nested arrays before and inside the value at fault.
 */
static void
t_position_mapping(void)
{
	ucfg("\xEF\xBB\xBF{\"dryRun\": 1}");
	fails(NULL, "%s:1:12: \"dryRun\" must be true or false", UC);
	ucfg("\xEF\xBB\xBF{\n\"dryRun\": 1}");
	fails(NULL, "%s:2:11: \"dryRun\" must be true or false", UC);

	ucfg("{\r\n  \"network\": \"off\",\r\n  \"dryRun\": 1\r\n}\r\n");
	fails(NULL, "%s:3:13: \"dryRun\" must be true or false", UC);
	ucfg("{\r\n\"a\": 1\r\n\"b\": 2}");
	fails(NULL, "%s:3:1: expected ',' or '}', found '\"'", UC);

	ucfg("{\"\xc3\xa9\": 0, \"dryRun\": 1}");
	fails(NULL, "%s:1:21: \"dryRun\" must be true or false", UC);
	ucfg("{\"protect\": [\"\xf0\x9f\x98\x80\", \"../x\"]}");
	fails(NULL, "%s:1:22: protect: ../x: contains a \"..\" component", UC);

	ucfg("{\"dryRun\":1}");
	fails(NULL, "%s:1:11: \"dryRun\" must be true or false", UC);
	ucfg("{\"grants\":[\"/\",7]}");
	fails(NULL, "%s:1:16: \"grants\" must be an array of strings", UC);
	ucfg("{\"dryRun\": true");
	fails(NULL, "%s:1:16: unexpected end of input", UC);

	ucfg("{\"x\": [[1, [2, [3]]], {\"y\": [4]}], \"dryRun\": 5}");
	fails(NULL, "%s:1:46: \"dryRun\" must be true or false", UC);
	ucfg("{\"protect\": [\"a\", [\"b\", [\"c\"]], \"../d\"]}");
	fails(NULL, "%s:1:19: \"protect\" must be an array of strings", UC);
	ucfg("{\"grants\": [\"/\", [[]], [\"/\"]], \"protect\": [\"/x\"]}");
	fails(NULL, "%s:1:18: \"grants\" must be an array of strings", UC);
	ucfg("{\"x\": [[1, [2, [3 4]]]]}");
	fails(NULL, "%s:1:19: expected ',' or ']', found '4'", UC);
}

static void
t_protect_values(void)
{
	struct policy p;

	ucfg("{\"protect\": [\"ok\", \"../x\"]}");
	fails(NULL, "%s:1:20: protect: ../x: contains a \"..\" component", UC);
	ucfg("{\"protect\": [\"a/b/../../c\"]}");
	fails(NULL, "%s:1:14: protect: a/b/../../c: contains a \"..\" "
	    "component", UC);
	ucfg("{\"protect\": [\n\"/etc/passwd\"]}");
	fails(NULL, "%s:2:1: protect: /etc/passwd: not a relative path", UC);
	ucfg("{\"protect\": [\"\"]}");
	fails(NULL, "%s:1:14: protect: \"\": does not name a path inside "
	    "the workspace", UC);
	ucfg("{\"protect\": [\"./\"]}");
	fails(NULL, "%s:1:14: protect: ./: does not name a path inside "
	    "the workspace", UC);
	ucfg("{}");
	wcfg("{\"protect\": [\"a\", \"..\"]}");
	fails(NULL, "%s:1:19: protect: ..: contains a \"..\" component", WC);

	/* names that merely contain dots are fine */
	wcfg("{\"protect\": [\"..a/b..\", \".../x\"]}");
	ok(&p);
	CHECK(strlist_is(&p.protect, 4, ".git/hooks", ".git/config",
	    "..a/b..", ".../x"));
	policy_free(&p);
}

static void
t_duplicate_keys(void)
{
	ucfg("{\"dryRun\": true,\n \"network\": \"on\",\n \"dryRun\": true}");
	fails(NULL, "%s:3:2: duplicate key \"dryRun\"", UC);
	ucfg("{}");
	wcfg("{\"protect\": [], \"protect\": []}");
	fails(NULL, "%s:1:17: duplicate key \"protect\"", WC);
}

/* ---- warnings ---- */

static void
t_unknown_keys(void)
{
	struct policy p;
	char want[4096];

	ucfg("{\"dryrun\": true, \"x\": {\"sandbox\": 1}}");
	wcfg("{\"bad\\u001bname\\\"\": 0, \"network\": \"off\"}");
	ok(&p);
	CHECK(p.dry_run == 0);		/* keys are case-sensitive */
	CHECK(p.network == 0);
	snprintf(want, sizeof want,
	    "%s: unknown key \"dryrun\"\n"
	    "%s: unknown key \"x\"\n"
	    "%s: unknown key \"bad\\x1bname\\x22\"\n", UC, UC, WC);
	CHECK_STR(W, want);
	CHECK(nwarn == 3);
	policy_free(&p);

	/* no callback: warnings are dropped */
	CHECK(config_load(&p, NULL, E, sizeof E, NULL, NULL) == 0);
	CHECK(p.network == 0);
	policy_free(&p);
}

static void
t_long_unknown_key(void)
{
	struct policy p;
	char cfg[4096], key[201];

	memset(key, 'k', 200);
	key[200] = '\0';
	snprintf(cfg, sizeof cfg, "{\"%s\": 1}", key);
	ucfg(cfg);
	ok(&p);
	CHECK(nwarn == 1);
	CHECK(strstr(W, "kkk...\"\n") != NULL);
	CHECK(strlen(W) < strlen(UC) + 100);
	policy_free(&p);
}

static void
t_many_unknown_keys(void)
{
	struct policy p;
	char cfg[4096], want[4096];
	int i;

	strcpy(cfg, "{");
	for (i = 0; i < CONFIG_WARN_MAX + 5; i++)
		snprintf(cfg + strlen(cfg), sizeof cfg - strlen(cfg),
		    "%s\"k%d\": %d", i ? ", " : "", i, i);
	strcat(cfg, "}");
	wcfg(cfg);
	ok(&p);
	CHECK(nwarn == CONFIG_WARN_MAX + 1);
	snprintf(want, sizeof want, "%s: unknown key \"k%d\"\n%s: 5 more "
	    "unknown keys\n", WC, CONFIG_WARN_MAX - 1, WC);
	CHECK(strlen(W) > strlen(want));
	CHECK_STR(W + strlen(W) - strlen(want), want);
	policy_free(&p);
}

static void
t_list_limits(void)
{
	static char cfg[(CONFIG_LIST_MAX + 2) * 8 + 64];
	struct policy p;
	size_t n;
	int i;

	/* quadratic work on a hostile list is bounded by the cap */
	strcpy(cfg, "{\"protect\": [");
	n = strlen(cfg);
	for (i = 0; i < CONFIG_LIST_MAX; i++)
		n += (size_t)snprintf(cfg + n, sizeof cfg - n, "%s\"p%d\"",
		    i ? "," : "", i);
	strcpy(cfg + n, "]}");
	wcfg(cfg);
	ok(&p);
	CHECK(p.protect.n == CONFIG_LIST_MAX + 2);
	policy_free(&p);
	strcpy(cfg + n, ",\"x\"]}");
	wcfg(cfg);
	fails(NULL, "%s:1:%zu: \"protect\": more than %d entries", WC, n + 2,
	    CONFIG_LIST_MAX);
}

/* ---- unreadable files ---- */

static void
t_unreadable(void)
{
	struct policy p;
	char big[CONFIG_FILE_MAX + 16];

	mkdirs(UC);
	fails(NULL, "%s: not a regular file", UC);
	rmdir(UC);

	CHECK(mkfifo(WC, 0644) == 0);	/* must not block */
	fails(NULL, "%s: not a regular file", WC);
	unlink(WC);

	memset(big, ' ', sizeof big);
	big[0] = '{';
	big[sizeof big - 1] = '}';
	put(WC, big, sizeof big);
	fails(NULL, "%s: larger than %d bytes", WC, CONFIG_FILE_MAX);
	CHECK(errno == EFBIG);
	big[sizeof big - 18] = '}';
	put(WC, big, sizeof big - 17);	/* just under the limit */
	ok(&p);
	policy_free(&p);
}

static void
t_permission_denied(void)
{
	ucfg("{}");
	CHECK(chmod(UC, 0) == 0);
	if (geteuid() == 0) {
		/* root reads anything: look as nobody (euid only, so the
		 * temp dir can still be removed) */
		CHECK(chmod(T, 0755) == 0);
		CHECK(chmod(tp("home"), 0755) == 0);
		if (seteuid(65534) != 0)
			SKIP("cannot switch the effective uid");
	}
	fails(NULL, "%s: Permission denied", UC);
	CHECK(errno == EACCES);
	if (getuid() == 0)
		CHECK(seteuid(0) == 0);
}

static void
t_config_mode(void)
{
	CHECK(config_mode("off") == MODE_OFF);
	CHECK(config_mode("workspace-write") == MODE_WORKSPACE_WRITE);
	CHECK(config_mode("read-only") == MODE_READ_ONLY);
	CHECK(config_mode("readonly") == -1);
	CHECK(config_mode("") == -1);
	CHECK(config_mode("OFF") == -1);
	CHECK(config_mode(NULL) == -1);
}

static void
t_small_err_buffer(void)
{
	struct policy p;
	char small[8];

	ucfg("{\"dryRun\": 2}");
	CHECK(config_load(&p, NULL, small, sizeof small, NULL, NULL) == -1);
	CHECK(strlen(small) == 7);
	CHECK(config_load(&p, NULL, NULL, 0, NULL, NULL) == -1);
	CHECK(errno == EINVAL);
}

/* ---- allocation failures ---- */

static void
fault_fixture(void)
{
	char cfg[4096];

	snprintf(cfg, sizeof cfg, "{\"dryRun\": false, \"sandbox\": \"off\", "
	    "\"grants\": [\"%s\", \"%s\"], \"protect\": [\"a\", \"b/c\"], "
	    "\"network\": \"on\", \"unknown\": {\"deep\": [1, 2, \"x\"]}}",
	    tp("out"), tp("tmp"));
	ucfg(cfg);
	wcfg("{\"sandbox\": \"read-only\", \"protect\": [\"d\", \"a\"], "
	    "\"network\": \"on\", \"grants\": [\"/x\"], \"dryRun\": true}");
	CHECK(setenv("ARCTURN_SESSION", "s1", 1) == 0);
	CHECK(setenv("ARCTURN_HOME", tp("home/state/sub"), 1) == 0);
}

static void
t_fault_injection(void)
{
	struct config_flags fl = FLAGS0;
	struct policy p;
	const char *g[1];
	long n;
	int rc, failed;

	fault_fixture();
	g[0] = tp("home");
	fl.grants = g;
	fl.ngrants = 1;
	fl.session = "s2";
	for (n = 0; n < 10000; n++) {
		mem_fail_after(n);
		rc = load(&p, &fl);
		failed = mem_failed();
		mem_fail_after(-1);
		if (!failed) {
			CHECK(rc == 0);
			break;
		}
		if (rc != -1) {
			fprintf(stderr, "# n=%ld: rc %d despite the failure\n",
			    n, rc);
			CHECK(0);
		}
		CHECK(errno == ENOMEM);
		if (strstr(E, "Cannot allocate memory") == NULL) {
			fprintf(stderr, "# n=%ld: err \"%s\"\n", n, E);
			CHECK(0);
		}
	}
	CHECK(n > 10);		/* it did reach the parser and the lists */
	printf("# fault loop: %ld allocations, each failed once\n", n);
	CHECK(p.mode == MODE_READ_ONLY && p.dry_run == 1 && p.network == 1);
	CHECK(strlist_is(&p.grants, 3, tp("out"), tp("tmp"), tp("home")));
	CHECK(strlist_is(&p.protect, 3, "a", "b/c", "d"));
	CHECK_STR(p.session, "s2");
	CHECK_STR(p.state, tp("home/state/sub"));
	policy_free(&p);
}

static void
t_fault_injection_broken(void)
{
	struct policy p;
	long n;
	int failed, rc;

	/* failures inside the parser of a broken file still say ENOMEM,
	 * not "invalid JSON" */
	ucfg("{\"a\": [1, 2, {\"b\": \"c\"}], \"protect\": [\"x\"], \"z\": }");
	for (n = 0; n < 10000; n++) {
		mem_fail_after(n);
		rc = load(&p, NULL);
		failed = mem_failed();
		mem_fail_after(-1);
		CHECK(rc == -1);
		if (!failed)
			break;
		CHECK(errno == ENOMEM);
		CHECK(strstr(E, "Cannot allocate memory") != NULL);
	}
	CHECK_STR(E + strlen(UC), ":1:50: expected a value, found '}'");
}

int
main(void)
{
	RUN(t_defaults);
	RUN(t_never_writes);
	RUN(t_user_config_all_keys);
	RUN(t_user_config_empty_protect);
	RUN(t_user_config_can_loosen);
	RUN(t_xdg_config_home);
	RUN(t_user_config_path_when_missing);
	RUN(t_home_unset);
	RUN(t_workspace_narrows);
	RUN(t_workspace_adds_to_user_protect);
	RUN(t_workspace_cannot_loosen);
	RUN(t_workspace_loosening_warns_even_when_moot);
	RUN(t_workspace_mode_order);
	RUN(t_workspace_grants_not_checked);
	RUN(t_workspace_follows_dir_flag);
	RUN(t_env_over_workspace);
	RUN(t_precedence_matrix_bools);
	RUN(t_precedence_matrix_mode);
	RUN(t_precedence_matrix_network);
	RUN(t_env_dry_run_bad);
	RUN(t_flags_over_everything);
	RUN(t_session);
	RUN(t_flag_grants);
	RUN(t_user_config_grant_errors);
	RUN(t_grant_home);
	RUN(t_workspace_dir);
	RUN(t_state_dir);
	RUN(t_tmpdir);
	RUN(t_broken_json_positions);
	RUN(t_syntax_agrees_with_cjson);
	RUN(t_not_an_object);
	RUN(t_wrong_types);
	RUN(t_position_scanner);
	RUN(t_position_mapping);
	RUN(t_protect_values);
	RUN(t_duplicate_keys);
	RUN(t_unknown_keys);
	RUN(t_long_unknown_key);
	RUN(t_many_unknown_keys);
	RUN(t_list_limits);
	RUN(t_unreadable);
	RUN(t_permission_denied);
	RUN(t_config_mode);
	RUN(t_small_err_buffer);
	RUN(t_fault_injection);
	RUN(t_fault_injection_broken);
	return tap_done();
}
