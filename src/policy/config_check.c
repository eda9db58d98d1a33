/*
 * config_check: the inputs that would widen what a command may write
 * (config_check.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/path.h"
#include "lib/utf8.h"
#include "policy/config_check.h"

/* The temp dir, state dir or grant path lies in, or NULL. */
static const char *
in_other_root(const struct policy *p, const char *path)
{
	size_t i;

	if (path_under(path, p->tmpdir))
		return p->tmpdir;
	if (path_under(path, p->state))
		return p->state;
	for (i = 0; i < p->grants.n; i++)
		if (path_under(path, p->grants.v[i]))
			return p->grants.v[i];
	return NULL;
}

int
config_check_link(const struct policy *p, const char *dir, char *err,
    size_t errlen)
{
	char cur[PATH_MAX], next[PATH_MAX], real[PATH_MAX];
	char msg[3 * PATH_MAX + 128];
	const char *q, *root;
	struct stat st;
	size_t n;

	if (dir == NULL)
		return 0;		/* the cwd: an inode, not a path */
	if (dir[0] == '/')
		snprintf(cur, sizeof cur, "/");
	else if (path_real(".", cur) == NULL)
		return 0;		/* real_dir said what it could */
	for (; *dir != '\0'; dir = q) {
		while (*dir == '/')
			dir++;
		n = strcspn(dir, "/");
		q = dir + n;
		if (n == 0)
			continue;
		if ((size_t)snprintf(next, sizeof next, "%s/%.*s",
		    strcmp(cur, "/") == 0 ? "" : cur, (int)n, dir) >=
		    sizeof next)
			return 0;
		if (lstat(next, &st) == 0 && S_ISLNK(st.st_mode) &&
		    (root = in_other_root(p, next)) != NULL) {
			if (err != NULL && errlen > 0) {
				snprintf(msg, sizeof msg, "workspace: %s: "
				    "reached through the symlink %s, which lies "
				    "in the writable root %s; refused (give the "
				    "real path)", p->workspace, next, root);
				utf8_one_line(err, errlen, msg);
			}
			errno = ELOOP;
			return -1;
		}
		if (path_real(next, real) == NULL)
			return 0;
		snprintf(cur, sizeof cur, "%s", real);
	}
	return 0;
}

/*
 * What path is or holds among the places a confined command must not be
 * able to move aside and replace: the workspace, (with home) the home
 * directory, arcturn's state dir, the user config. NULL when none; *what
 * is the place it holds ("" when path is the place).
 */
static const char *
holds_own(const struct policy *p, const char *path, int home,
    const char **what)
{
	*what = "";
	if (strcmp(path, p->workspace) == 0)
		return "is the workspace";
	if (path_under(p->workspace, path)) {
		*what = p->workspace;
		return "holds the workspace ";
	}
	if (home && p->home != NULL && path_under(p->home, path)) {
		*what = p->home;
		return "holds the home directory ";
	}
	if (path_under(p->state, path)) {
		*what = p->state;
		return "holds arcturn's state dir ";
	}
	if (p->user_config != NULL && path_under(p->user_config, path)) {
		*what = p->user_config;
		return "holds the user config ";
	}
	return NULL;
}

/* The first grant (made or still to make) that holds one, or 0. */
static int
check_grants(const struct policy *p, const struct strlist *l, char *err,
    size_t errlen)
{
	char msg[3 * PATH_MAX + 192];
	const char *why, *what;
	size_t i;

	for (i = 0; i < l->n; i++) {
		if ((why = holds_own(p, l->v[i], 0, &what)) == NULL)
			continue;
		snprintf(msg, sizeof msg, "grant: %s: %s%s; refused: a command "
		    "could move it aside and put its own in its place (grant "
		    "narrower folders beside it instead)", l->v[i], why, what);
		utf8_one_line(err, errlen, msg);
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int
config_check_inputs(const struct policy *p, char *err, size_t errlen)
{
	const char *t = p->tmpdir, *why = NULL, *what = "";
	char buf[PATH_MAX + 64], msg[2 * PATH_MAX + 192];

	if (strcmp(t, "/") == 0)
		why = "is the whole file system";
	else if (p->home != NULL && strcmp(t, p->home) == 0)
		why = "is the home directory";
	else
		why = holds_own(p, t, 1, &what);
	if (why == NULL && p->mode != MODE_WORKSPACE_WRITE)
		return 0;	/* grants are writable in this mode only */
	if (why == NULL)
		return check_grants(p, &p->grants, err, errlen) < 0 ||
		    check_grants(p, &p->grants_new, err, errlen) < 0 ? -1 : 0;
	snprintf(buf, sizeof buf, "%s%s", why, what);
	snprintf(msg, sizeof msg, "TMPDIR: %s: %s; refused: a command could "
	    "write there (point TMPDIR at a directory of its own)", t, buf);
	utf8_one_line(err, errlen, msg);
	errno = EINVAL;
	return -1;
}

int
config_check_workspace(const struct policy *p, char *err, size_t errlen)
{
	/* the system's own trees: nothing of a project's lives beneath */
	static const char *const tree[] = { "/etc", "/usr", "/bin", "/sbin",
	    "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/dev", "/proc",
	    "/sys", "/System", "/Library", "/private/etc", "/private/var/db",
	    NULL };
	/* folders that hold projects beneath them, but are none */
	static const char *const top[] = { "/var", "/opt", "/srv", "/run",
	    "/tmp", "/mnt", "/media", "/home", "/Users", "/Volumes", "/root",
	    "/private", "/private/var", "/private/tmp", "/usr/local", NULL };
	const char *ws = p->workspace, *what = NULL;
	size_t i;

	if (ws == NULL)
		return 0;
	if (strcmp(ws, "/") == 0)
		what = "the root of the file system";
	else if (p->home != NULL && strcmp(ws, p->home) == 0)
		what = "the home directory";
	else if (p->home != NULL && path_under(p->home, ws))
		what = "a folder that holds the home directory";
	else if (p->state != NULL && path_under(ws, p->state))
		what = "arcturn's state dir (ARCTURN_HOME) or beneath it";
	for (i = 0; what == NULL && tree[i] != NULL; i++)
		if (path_under(ws, tree[i]))
			what = "a system folder";
	for (i = 0; what == NULL && top[i] != NULL; i++)
		if (strcmp(ws, top[i]) == 0)
			what = "a system folder";
	if (what == NULL)
		return 0;
	if (err != NULL)
		snprintf(err, errlen, "workspace: %s: %s; refused as a "
		    "workspace", ws, what);
	errno = EINVAL;
	return -1;
}
