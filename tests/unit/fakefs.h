/*
 * fakefs: a file system made of a list, behind the roots_ops seam, for
 * the tests of roots and seatbelt on Linux. Links rewrite a prefix on a
 * component boundary, like macOS's /var -> /private/var; a path exists
 * when it is listed (as a directory, or with fakefs_file as a file, below
 * which nothing exists: ENOTDIR); every path beneath fail_prefix fails with
 * fail_errno. mkdir lists the path and counts the call. A file may have
 * content (fakefs_file), for the git discovery's reads; a directory's
 * listing is the listed paths right beneath it. FAKEFS_OPS is the whole
 * roots_ops over fs, FAKEFS_GITCTL_OPS the gitctl_ops.
 */
#ifndef ARCTURN_FAKEFS_H
#define ARCTURN_FAKEFS_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "lib/mem.h"
#include "policy/roots.h"
#include "policy/strlist.h"

#define FAKEFS_MAX	512

struct fakefs {
	const char	*links[8][2];
	char		 exists[FAKEFS_MAX][512];
	char		 isfile[FAKEFS_MAX];
	const char	*content[FAKEFS_MAX];
	int		 nexists;
	int		 mkdirs;
	const char	*fail_prefix;
	int		 fail_errno;
};

static void
fakefs_add(struct fakefs *fs, const char *path, int isfile)
{
	if (fs->nexists < FAKEFS_MAX) {
		fs->isfile[fs->nexists] = (char)isfile;
		fs->content[fs->nexists] = NULL;
		snprintf(fs->exists[fs->nexists++], 512, "%s", path);
	}
}

/* A file with content (a static string, not copied). */
static void __attribute__((unused))
fakefs_file(struct fakefs *fs, const char *path, const char *content)
{
	fakefs_add(fs, path, 1);
	if (fs->nexists > 0)
		fs->content[fs->nexists - 1] = content;
}

static int
fakefs_find(const struct fakefs *fs, const char *path, size_t len)
{
	int i;

	for (i = 0; i < fs->nexists; i++)
		if (strlen(fs->exists[i]) == len &&
		    strncmp(fs->exists[i], path, len) == 0)
			return i;
	return -1;
}

/*
 * ".." taken out of an absolute path as the kernel walks it: the folder it
 * leaves must exist (listed), else ENOENT. In place; -1 with errno.
 */
static int
fakefs_dots(const struct fakefs *fs, char *buf)
{
	char out[4096];
	const char *p = buf, *q;
	size_t o = 0, n;

	if (strstr(buf, "/..") == NULL)
		return 0;
	while (*p != '\0') {
		while (*p == '/')
			p++;
		q = p + strcspn(p, "/");
		n = (size_t)(q - p);
		if (n == 0 || (n == 1 && p[0] == '.'))
			;
		else if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (o > 0 && fakefs_find(fs, out, o) < 0) {
				errno = ENOENT;
				return -1;
			}
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else if (o + n + 2 < sizeof out) {
			out[o++] = '/';
			memcpy(out + o, p, n);
			o += n;
		}
		p = q;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	memcpy(buf, out, o + 1);
	return 0;
}

/* Resolve path into buf (4096 bytes): 0, or -1 with errno. No allocation. */
static int
fakefs_resolve(struct fakefs *fs, const char *path, char *buf)
{
	char tmp[4096];
	const char *c;
	size_t n, l;
	int i, k, again = 1;

	snprintf(buf, 4096, "%s", path);
	if (fakefs_dots(fs, buf) < 0)
		return -1;
	n = strlen(buf);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	if (fs->fail_prefix != NULL && strncmp(buf, fs->fail_prefix,
	    strlen(fs->fail_prefix)) == 0) {
		errno = fs->fail_errno;
		return -1;
	}
	while (again) {
		again = 0;
		for (i = 0; i < 8 && fs->links[i][0] != NULL; i++) {
			l = strlen(fs->links[i][0]);
			if (strncmp(buf, fs->links[i][0], l) == 0 &&
			    (buf[l] == '/' || buf[l] == '\0')) {
				snprintf(tmp, sizeof tmp, "%s%s",
				    fs->links[i][1], buf + l);
				snprintf(buf, 4096, "%s", tmp);
				again = 1;
			}
		}
	}
	/* a listed file as a parent: ENOTDIR */
	for (c = buf + 1; (c = strchr(c, '/')) != NULL; c++)
		if ((k = fakefs_find(fs, buf, (size_t)(c - buf))) >= 0 &&
		    fs->isfile[k]) {
			errno = ENOTDIR;
			return -1;
		}
	if (fakefs_find(fs, buf, strlen(buf)) >= 0)
		return 0;
	errno = ENOENT;
	return -1;
}

static char *
fake_realpath(const char *path, void *arg)
{
	char buf[4096];

	if (fakefs_resolve(arg, path, buf) < 0)
		return NULL;
	return mem_strdup(buf);
}

/* mkdir: the parent must exist; the new path is listed resolved. */
static int __attribute__((unused))
fake_mkdir(const char *path, mode_t mode, void *arg)
{
	struct fakefs *fs = arg;
	char parent[4096], buf[4096], full[4352];
	const char *base;

	fs->mkdirs++;
	if (fakefs_resolve(fs, path, buf) == 0) {
		errno = EEXIST;
		return -1;
	}
	if (errno != ENOENT)
		return -1;
	base = strrchr(path, '/') + 1;
	snprintf(parent, sizeof parent, "%.*s", (int)(base - path - 1), path);
	if (fakefs_resolve(fs, parent[0] ? parent : "/", buf) < 0)
		return -1;
	snprintf(full, sizeof full, "%s/%s", strcmp(buf, "/") ? buf : "",
	    base);
	fakefs_add(fs, full, 0);
	return 0;
}

static int
fake_isdir(const char *path, void *arg)
{
	struct fakefs *fs = arg;
	char buf[4096];
	int k;

	if (fakefs_resolve(fs, path, buf) < 0)
		return -1;
	k = fakefs_find(fs, buf, strlen(buf));
	return fs->isfile[k] ? 0 : 1;
}

static char *
fake_read(const char *path, size_t max, void *arg)
{
	struct fakefs *fs = arg;
	const char *c;
	char buf[4096];
	int k;

	if (fakefs_resolve(fs, path, buf) < 0)
		return NULL;
	k = fakefs_find(fs, buf, strlen(buf));
	if (!fs->isfile[k]) {
		errno = EISDIR;
		return NULL;
	}
	c = fs->content[k] != NULL ? fs->content[k] : "";
	if (strlen(c) > max) {
		errno = EFBIG;
		return NULL;
	}
	return mem_strdup(c);
}

static int
fake_list(const char *path, struct strlist *l, void *arg)
{
	struct fakefs *fs = arg;
	char buf[4096];
	const char *e;
	size_t n;
	int i, k;

	if (fakefs_resolve(fs, path, buf) < 0)
		return -1;
	k = fakefs_find(fs, buf, strlen(buf));
	if (fs->isfile[k]) {
		errno = ENOTDIR;
		return -1;
	}
	n = strcmp(buf, "/") == 0 ? 0 : strlen(buf);
	for (i = 0; i < fs->nexists; i++) {
		e = fs->exists[i];
		if (strncmp(e, buf, n) != 0 || e[n] != '/' || e[n + 1] == '\0' ||
		    strchr(e + n + 1, '/') != NULL)
			continue;
		if (strlist_push(l, mem_strdup(e + n + 1)) < 0)
			return -1;
	}
	return 0;
}

#define FAKEFS_OPS(fs)	{ .realpath = fake_realpath, .mkdir = fake_mkdir, \
	.arg = (fs), .isdir = fake_isdir, .read = fake_read, .list = fake_list }

/* The same file system as gitctl_ops (gitctl.h), for gitctl's own tests. */
#define FAKEFS_GITCTL_OPS(fs)	{ .realpath = fake_realpath, \
	.isdir = fake_isdir, .read = fake_read, .list = fake_list, .arg = (fs) }

#endif
