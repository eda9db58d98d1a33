/*
 * The macOS Seatbelt argv and profile, built and checked on Linux: the
 * policy goes through roots_build over a fake file system (macOS's /var
 * and /tmp links), as sandbox_macos.c does, then through seatbelt_argv.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakefs.h"
#include "lib/mem.h"
#include "policy/roots.h"
#include "sandbox/sandbox_posix.h"
#include "sandbox/seatbelt.h"
#include "tap.h"

static struct fakefs fs;
static struct roots_ops ops = FAKEFS_OPS(&fs);

static void
fs_init(void)
{
	static const char *dirs[] = {
		"/", "/Users", "/Users/me", "/Users/me/proj", "/Users/me/proj/.git",
		"/Users/me/real", "/private", "/private/var", "/private/tmp",
		"/private/var/folders", "/private/var/folders/ab",
		"/private/var/folders/ab/T", "/opt", "/opt/cache", NULL
	};
	int i;

	memset(&fs, 0, sizeof fs);
	fs.links[0][0] = "/var";
	fs.links[0][1] = "/private/var";
	fs.links[1][0] = "/tmp";
	fs.links[1][1] = "/private/tmp";
	fs.links[2][0] = "/Users/me/link";
	fs.links[2][1] = "/Users/me/real";
	for (i = 0; dirs[i] != NULL; i++)
		fakefs_add(&fs, dirs[i], 0);
}

/*
 * What sandbox_macos.c does: the roots of p (protected paths that do not
 * exist yet included), then the argv. -1 with errno and err on failure.
 */
static int
seatbelt(const struct policy *p, char **c, const struct roots_ops *o,
    char ***v, char *err, size_t errlen)
{
	struct roots r;
	int rc, e;

	*v = NULL;
	if (roots_build(p, ROOTS_PROTECT | ROOTS_MISSING, o, &r) < 0) {
		snprintf(err, errlen, "%s", r.why);
		return -1;
	}
	rc = seatbelt_argv(&r, p->network, c, v);
	if (rc < 0)
		snprintf(err, errlen, "seatbelt: %s", strerror(errno));
	e = errno;
	roots_free(&r);
	errno = e;
	return rc;
}

static char *protect_default[] = { ".git/hooks", ".git/config" };

static void
policy_init(struct policy *p)
{
	memset(p, 0, sizeof *p);
	p->mode = MODE_WORKSPACE_WRITE;
	p->network = 1;
	p->workspace = "/Users/me/proj";
	p->tmpdir = "/var/folders/ab/T/";
	p->state = "/Users/me/.arcturn";
	p->user_config = "/Users/me/.config/arcturn/config.json";
	p->protect.v = protect_default;
	p->protect.n = 2;
}

static char *cmd[] = { "make", "-j2", "all", NULL };

/* argv without the profile (element 2), which is checked apart. */
static void
check_argv(char **v, const char **want)
{
	int i;

	CHECK(v != NULL);
	CHECK_STR(v[0], "/usr/bin/sandbox-exec");
	CHECK_STR(v[1], "-p");
	CHECK(v[2] != NULL);
	for (i = 0; want[i] != NULL; i++) {
		CHECK(v[3 + i] != NULL);
		CHECK_STR(v[3 + i], want[i]);
	}
	CHECK(v[3 + i] == NULL);
}

static const char *
generated(char **v)
{
	const char *g = strstr(v[2], "; writable roots (generated)");

	CHECK(g != NULL);
	return g;
}

static void
t_golden_default(void)
{
	const char *want[] = {
		"-D", "WRITABLE_ROOT_0=/Users/me/proj",
		"-D", "WRITABLE_ROOT_1=/private/var/folders/ab/T",
		"-D", "WRITABLE_ROOT_2=/Users/me/.arcturn",
		"-D", "PROTECTED_0=/Users/me/proj/.git/hooks",
		"-D", "PROTECTED_1=/Users/me/proj/.git/config",
		/* git's pointers: a deny refuses creating them too */
		"-D", "PROTECTED_2=/Users/me/proj/.git/config.worktree",
		"-D", "PROTECTED_3=/Users/me/proj/.git/commondir",
		"-D", "PROTECTED_4=/Users/me/.arcturn/overlays",
		"-D", "PROTECTED_5=/Users/me/.arcturn/checkpoints",
		"-D", "PROTECTED_6=/Users/me/.arcturn/cache",
		"--", "make", "-j2", "all", NULL
	};
	struct policy p;
	char **v, err[256];

	fs_init();
	policy_init(&p);
	CHECK(seatbelt(&p, cmd, &ops, &v, err, sizeof err) == 0);
	check_argv(v, want);
	/*
	 * the state dir, its overlays/, checkpoints/ and cache/; no root
	 * holds the config
	 */
	CHECK(fs.mkdirs == 4);
	CHECK_STR(generated(v),
	    "; writable roots (generated)\n"
	    "(allow file-write* (subpath (param \"WRITABLE_ROOT_0\")))\n"
	    "(allow file-write* (subpath (param \"WRITABLE_ROOT_1\")))\n"
	    "(allow file-write* (subpath (param \"WRITABLE_ROOT_2\")))\n"
	    "\n; protected paths (generated, last: they win)\n"
	    "(deny file-write* (subpath (param \"PROTECTED_0\")))\n"
	    "(deny file-write* (subpath (param \"PROTECTED_1\")))\n"
	    "(deny file-write* (subpath (param \"PROTECTED_2\")))\n"
	    "(deny file-write* (subpath (param \"PROTECTED_3\")))\n"
	    "(deny file-write* (subpath (param \"PROTECTED_4\")))\n"
	    "(deny file-write* (subpath (param \"PROTECTED_5\")))\n"
	    "(deny file-write* (subpath (param \"PROTECTED_6\")))\n");
	seatbelt_free(v);
}

static void
t_golden_grants(void)
{
	char *grants[] = { "/opt/cache", "/Users/me/link/sub", "/tmp" };
	const char *want[] = {
		"-D", "WRITABLE_ROOT_0=/Users/me/proj",
		"-D", "WRITABLE_ROOT_1=/private/var/folders/ab/T",
		"-D", "WRITABLE_ROOT_2=/Users/me/.arcturn",
		"-D", "WRITABLE_ROOT_3=/opt/cache",
		"-D", "WRITABLE_ROOT_4=/Users/me/real/sub",
		"-D", "WRITABLE_ROOT_5=/private/tmp",
		"-D", "PROTECTED_0=/Users/me/.arcturn/overlays",
		"-D", "PROTECTED_1=/Users/me/.arcturn/checkpoints",
		"-D", "PROTECTED_2=/Users/me/.arcturn/cache",
		"--", "make", "-j2", "all", NULL
	};
	struct policy p;
	char **v, err[256];

	fs_init();
	snprintf(fs.exists[fs.nexists++], 256, "%s", "/Users/me/.arcturn");
	policy_init(&p);
	p.grants.v = grants;
	p.grants.n = 3;
	p.protect.n = 0;
	p.user_config = NULL;
	CHECK(seatbelt(&p, cmd, &ops, &v, err, sizeof err) == 0);
	check_argv(v, want);
	CHECK(strstr(generated(v), "WRITABLE_ROOT_5\")))\n") != NULL);
	CHECK(strstr(generated(v), "WRITABLE_ROOT_6") == NULL);
	seatbelt_free(v);
}

static void
t_golden_read_only(void)
{
	char *grants[] = { "/opt/cache" };
	const char *want[] = {
		"-D", "WRITABLE_ROOT_0=/private/var/folders/ab/T",
		"--", "make", "-j2", "all", NULL
	};
	struct policy p;
	char **v, err[256];

	fs_init();
	policy_init(&p);
	p.mode = MODE_READ_ONLY;
	p.grants.v = grants;	/* ignored in read-only mode */
	p.grants.n = 1;
	CHECK(seatbelt(&p, cmd, &ops, &v, err, sizeof err) == 0);
	check_argv(v, want);
	CHECK(fs.mkdirs == 0);	/* the state dir is not a root: not created */
	CHECK(strstr(v[2], "WRITABLE_ROOT_1") == NULL);
	/* nothing protected lies beneath the temp dir: no deny rule */
	CHECK(strstr(generated(v), "PROTECTED_") == NULL);
	seatbelt_free(v);
}

static void
t_golden_protected(void)
{
	char *prot[] = { "secrets", "link/x", "deep/er/file", ".git" };
	const char *want[] = {
		"-D", "WRITABLE_ROOT_0=/Users/me/real",
		"-D", "WRITABLE_ROOT_1=/private/var/folders/ab/T",
		"-D", "WRITABLE_ROOT_2=/Users/me/.arcturn",
		"-D", "PROTECTED_0=/Users/me/real/secrets",
		"-D", "PROTECTED_1=/Users/me/real/link/x",
		"-D", "PROTECTED_2=/Users/me/real/deep/er/file",
		"-D", "PROTECTED_3=/Users/me/real/.git",
		"-D", "PROTECTED_4=/Users/me/.arcturn/overlays",
		"-D", "PROTECTED_5=/Users/me/.arcturn/checkpoints",
		"-D", "PROTECTED_6=/Users/me/.arcturn/cache",
		"--", "make", "-j2", "all", NULL
	};
	struct policy p;
	char **v, err[256];
	const char *g, *lastallow, *firstdeny;

	fs_init();
	policy_init(&p);
	p.workspace = "/Users/me/link";	/* a root given through a link */
	p.user_config = NULL;
	p.protect.v = prot;
	p.protect.n = 4;
	CHECK(seatbelt(&p, cmd, &ops, &v, err, sizeof err) == 0);
	check_argv(v, want);
	g = generated(v);
	lastallow = strstr(g, "(allow file-write* (subpath (param \"WRITABLE_ROOT_2\")))");
	firstdeny = strstr(g, "(deny file-write*");
	CHECK(lastallow != NULL && firstdeny != NULL && lastallow < firstdeny);
	/* Every deny comes after the base profile's own allows, too. */
	CHECK(strstr(v[2], "(allow file-write*\n\t(literal \"/dev/null\")") < firstdeny);
	seatbelt_free(v);
}

static void
t_network_off(void)
{
	struct policy p;
	char **v, err[256];

	fs_init();
	policy_init(&p);
	CHECK(seatbelt(&p, cmd, &ops, &v, err, sizeof err) == 0);
	CHECK(strstr(v[2], "(deny network") == NULL);
	seatbelt_free(v);
	p.network = 0;
	CHECK(seatbelt(&p, cmd, &ops, &v, err, sizeof err) == 0);
	CHECK(strstr(generated(v), "\n(deny network*)\n") != NULL);
	CHECK(strstr(generated(v), "(allow network-outbound (remote unix-socket))") != NULL);
	/* network rules come after the file rules */
	CHECK(strstr(generated(v), "(deny network*)") > strstr(generated(v), "PROTECTED_4"));
	seatbelt_free(v);
}

/* The base profile is seatbelt/base.sb, byte for byte, at the start. */
static void
t_base_is_embedded(void)
{
	struct policy p;
	char **v, err[256], buf[16384];
	ssize_t n;
	int fd;

	if ((fd = open("seatbelt/base.sb", O_RDONLY)) < 0)
		SKIP("seatbelt/base.sb not found (run from the repository root)");
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	CHECK(n > 100);
	buf[n] = '\0';
	fs_init();
	policy_init(&p);
	CHECK(seatbelt(&p, cmd, &ops, &v, err, sizeof err) == 0);
	CHECK(strncmp(v[2], buf, (size_t)n) == 0);
	CHECK(strstr(buf, "(version 1)\n(allow default)\n(deny file-write*)\n") != NULL);
	seatbelt_free(v);
}

/*
 * Hostile paths: quotes, backslashes, parentheses, newlines, semicolons
 * and non-ASCII bytes reach sandbox-exec only as -D values, never as
 * profile text.
 */
static void
t_paths_never_in_profile(void)
{
	static const char *nasty[] = {
		"/Users/me/a\"b",
		"/Users/me/back\\slash",
		"/Users/me/paren)(allow default)",
		"/Users/me/new\nline",
		"/Users/me/semi;colon",
		"/Users/me/\xc3\xa9t\xc3\xa9",
		"/Users/me/raw\xff\xfe",
		"/Users/me/\")) (allow file-write* (subpath \"/x",
		"/Users/me/sp ace\t#|x|#",
	};
	size_t nn = sizeof nasty / sizeof nasty[0], i, j;
	char *grants[16], *prot[] = { "q\"uote", "nl\nx" };
	struct policy p;
	char **v, err[256], want[512];
	const char *g, *line;

	fs_init();
	for (i = 0; i < nn; i++) {
		snprintf(fs.exists[fs.nexists++], 256, "%s", nasty[i]);
		grants[i] = (char *)nasty[i];
	}
	policy_init(&p);
	p.workspace = (char *)nasty[0];
	p.tmpdir = (char *)nasty[3];
	p.state = (char *)nasty[5];
	p.user_config = "/Users/me/\")/arcturn/config.json";
	p.grants.v = grants;
	p.grants.n = nn;
	p.protect.v = prot;
	p.protect.n = 2;
	CHECK(seatbelt(&p, cmd, &ops, &v, err, sizeof err) == 0);
	for (i = 0; i < nn; i++) {
		/* no path, nor its last component, is in the profile */
		CHECK(strstr(v[2], nasty[i]) == NULL);
		CHECK(strstr(v[2], nasty[i] + 10) == NULL);
		/* and each is exactly a -D value */
		snprintf(want, sizeof want, "WRITABLE_ROOT_%zu=%s", i + 3, nasty[i]);
		for (j = 3; v[j] != NULL && strcmp(v[j], want) != 0; j++)
			;
		if (v[j] == NULL)
			fprintf(stderr, "# missing %s\n", want);
		CHECK(v[j] != NULL && strcmp(v[j - 1], "-D") == 0);
	}
	CHECK(strstr(v[2], "q\"uote") == NULL && strstr(v[2], "nl\nx") == NULL);
	/* The generated part holds only comments and parameter rules. */
	g = generated(v);
	for (line = g; *line != '\0'; line = strchr(line, '\n') + 1) {
		size_t len = strcspn(line, "\n");
		char l[128];

		CHECK(len < sizeof l);
		memcpy(l, line, len);
		l[len] = '\0';
		if (len == 0 || l[0] == ';')
			continue;
		if (strncmp(l, "(allow file-write* (subpath (param \"WRITABLE_ROOT_", 50) == 0 ||
		    strncmp(l, "(deny file-write* (subpath (param \"PROTECTED_", 45) == 0) {
			CHECK(strcmp(l + len - 4, "\")))") == 0);
			CHECK(strspn(l + (l[1] == 'a' ? 50 : 45), "0123456789") ==
			    len - (l[1] == 'a' ? 50 : 45) - 4);
			continue;
		}
		fprintf(stderr, "# unexpected profile line: %s\n", l);
		CHECK(0);
	}
	/* every byte of the profile is printable ASCII, tab or newline */
	for (line = v[2]; *line != '\0'; line++)
		CHECK((*line >= 0x20 && *line < 0x7f) || *line == '\n' || *line == '\t');
	seatbelt_free(v);
}

/* Each root canonicalised through the seam, as it arrives in -D. */
static void
t_canon_rules(void)
{
	char *grants[] = { "/var/folders/ab/T/", "/tmp",
	    "/Users/me/link/not/yet//", "/nothing", "/",
	    "/Users/me/missing/.", NULL };
	const char *want[] = { "/private/var/folders/ab/T", "/private/tmp",
	    "/Users/me/real/not/yet", "/nothing", "/", "/Users/me/missing" };
	struct policy p;
	char **v, err[256], def[64];
	int i, j, found;

	fs_init();
	policy_init(&p);
	p.grants.v = grants;
	p.grants.n = 6;
	CHECK(seatbelt(&p, cmd, &ops, &v, err, sizeof err) == 0);
	for (i = 0; i < 6; i++) {
		snprintf(def, sizeof def, "WRITABLE_ROOT_%d=%s", i + 3, want[i]);
		for (found = 0, j = 3; v[j] != NULL; j++)
			found |= strcmp(v[j], def) == 0;
		CHECK(found);
	}
	seatbelt_free(v);
	/* relative paths, and ".." after a missing component, are refused */
	grants[0] = "Users/me";
	p.grants.n = 1;
	CHECK(seatbelt(&p, cmd, &ops, &v, err, sizeof err) == -1);
	CHECK(errno == EINVAL && v == NULL);
	CHECK_STR(err, "grant: Users/me: Invalid argument");
	grants[0] = "/Users/me/missing/..";
	CHECK(seatbelt(&p, cmd, &ops, &v, err, sizeof err) == -1);
	CHECK(errno == ENOENT);
	/* other errors pass through unchanged */
	fs.fail_prefix = "/denied";
	fs.fail_errno = EACCES;
	grants[0] = "/denied/x";
	CHECK(seatbelt(&p, cmd, &ops, &v, err, sizeof err) == -1);
	CHECK(errno == EACCES);
	CHECK_STR(err, "grant: /denied/x: Permission denied");
}

static void
t_errors(void)
{
	struct policy p;
	char **v = (char **)1, err[256];
	char *grants[] = { "relative/grant" };
	char *empty[] = { NULL };

	fs_init();
	policy_init(&p);
	CHECK(seatbelt(&p, empty, &ops, &v, err, sizeof err) == -1);
	CHECK(errno == EINVAL && v == NULL);
	CHECK(seatbelt(&p, NULL, &ops, &v, err, sizeof err) == -1);
	CHECK(errno == EINVAL && v == NULL);
	p.grants.v = grants;
	p.grants.n = 1;
	CHECK(seatbelt(&p, cmd, &ops, &v, err, sizeof err) == -1);
	CHECK_STR(err, "grant: relative/grant: Invalid argument");
	/* a state dir that cannot be created */
	policy_init(&p);
	p.state = "/denied/.arcturn";
	fs.fail_prefix = "/denied";
	fs.fail_errno = EACCES;
	CHECK(seatbelt(&p, cmd, &ops, &v, err, sizeof err) == -1);
	CHECK(errno == EACCES);
	CHECK(strncmp(err, "state dir: /denied/.arcturn: ", 29) == 0);
}

/* The nth allocation fails: a clean ENOMEM, nothing leaked (ASan). */
static void
t_alloc_faults(void)
{
	char *grants[] = { "/opt/cache", "/tmp" };
	struct policy p;
	char **v, err[256];
	long n;
	int rc;

	char **ref;
	size_t i;

	/* the reference: the same call without a failure */
	fs_init();
	policy_init(&p);
	p.grants.v = grants;
	p.grants.n = 2;
	p.network = 0;
	CHECK(seatbelt(&p, cmd, &ops, &ref, err, sizeof err) == 0);
	for (n = 0; n < 10000; n++) {
		fs_init();
		policy_init(&p);
		p.grants.v = grants;
		p.grants.n = 2;
		p.network = 0;
		mem_fail_after(n);
		rc = seatbelt(&p, cmd, &ops, &v, err, sizeof err);
		if (!mem_failed()) {
			CHECK(rc == 0);
			/* the argv that got through is the reference's */
			for (i = 0; ref[i] != NULL && v[i] != NULL; i++)
				CHECK_STR(v[i], ref[i]);
			CHECK(ref[i] == NULL && v[i] == NULL);
			seatbelt_free(v);
			break;
		}
		CHECK(rc == -1 && errno == ENOMEM && v == NULL);
	}
	mem_fail_after(-1);
	CHECK(n > 10 && n < 10000);
	seatbelt_free(ref);
}

/* The real seam: realpath(3) and mkdir(2) on this machine. */
static void
t_sysops(void)
{
	char dir[] = "/tmp/seatbelt_test.XXXXXX", path[256], want[300];
	char link[256], *real, *grants[] = { link }, **v, err[256];
	struct policy p;
	struct stat st;
	int i, found = 0;

	CHECK(mkdtemp(dir) != NULL);
	CHECK((real = realpath(dir, NULL)) != NULL);
	snprintf(path, sizeof path, "%s/link", dir);
	CHECK(symlink(real, path) == 0);
	/* a grant through a link, its tail missing */
	snprintf(link, sizeof link, "%s/link/missing", dir);
	policy_init(&p);
	p.workspace = real;
	p.tmpdir = real;
	snprintf(path, sizeof path, "%s/state", real);
	p.state = path;
	p.protect.n = 0;
	p.user_config = NULL;
	p.grants.v = grants;
	p.grants.n = 1;
	CHECK(seatbelt(&p, cmd, &posix_roots_ops, &v, err, sizeof err) == 0);
	CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
	snprintf(want, sizeof want, "WRITABLE_ROOT_3=%s/missing", real);
	for (i = 3; v[i] != NULL; i++)
		found |= strcmp(v[i], want) == 0;
	CHECK(found);
	seatbelt_free(v);
	/* and again, now that it exists */
	CHECK(seatbelt(&p, cmd, &posix_roots_ops, &v, err, sizeof err) == 0);
	seatbelt_free(v);
	snprintf(want, sizeof want, "rm -rf '%s'", dir);
	CHECK(system(want) == 0);
	free(real);
}

int
main(void)
{
	TEST(t_golden_default);
	TEST(t_golden_grants);
	TEST(t_golden_read_only);
	TEST(t_golden_protected);
	TEST(t_network_off);
	TEST(t_base_is_embedded);
	TEST(t_paths_never_in_profile);
	TEST(t_canon_rules);
	TEST(t_errors);
	TEST(t_alloc_faults);
	TEST(t_sysops);
	return tap_done();
}
