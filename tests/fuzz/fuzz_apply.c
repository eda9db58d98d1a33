/*
 * fuzz_apply: a property. The input builds a real tree (dirs, files,
 * in-tree symlinks, fifos) and then a dry-run session over it through
 * the same calls write and edit use (shadow_write, shadow_remove). What
 * the session shows (the merged view, read path by path) is the changed
 * tree. The diff is rendered and digested, then every change is applied
 * with a keeper: the real tree must then be exactly the changed tree
 * (kinds, bytes, modes, link targets), with nothing pending, no temp
 * file left, and everything it replaced kept.
 */
#include <sys/file.h>

#include "fuzz.h"

#include "lib/mem.h"
#include "session/changes.h"
#include "session/keep.h"
#include "session/plan.h"
#include "session/review.h"
#include "session/shadow.h"

/* One entry of a tree listing. */
struct ent {
	char		 path[256];
	int		 kind;		/* S_IFREG, S_IFDIR, S_IFLNK, S_IFIFO */
	unsigned int	 mode;
	char		 data[128];
	size_t		 len;
};

struct listing {
	struct ent	*v;
	size_t		 n, cap;
};

static void
add(struct listing *l, const struct ent *e)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = realloc(l->v, l->cap * sizeof *l->v);
		if (l->v == NULL)
			abort();
	}
	l->v[l->n++] = *e;
}

static int
cmp_ent(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->path,
	    ((const struct ent *)b)->path);
}

/* The real tree beneath dfd, as it is. */
static void
list_real(int dfd, const char *pre, struct listing *l)
{
	char **names;
	size_t n, i;
	struct stat st;
	struct ent e;
	ssize_t k;
	int fd;

	if (fsx_list(dfd, NULL, NULL, &names, &n) < 0)
		abort();
	for (i = 0; i < n; i++) {
		memset(&e, 0, sizeof e);
		snprintf(e.path, sizeof e.path, "%s%s%s", pre, *pre ? "/" : "",
		    names[i]);
		if (fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
			abort();
		e.kind = st.st_mode & S_IFMT;
		e.mode = st.st_mode & 07777;
		if (S_ISLNK(st.st_mode)) {
			e.mode = 0;
			k = readlinkat(dfd, names[i], e.data, sizeof e.data);
			e.len = k < 0 ? 0 : (size_t)k;
		} else if (S_ISREG(st.st_mode)) {
			fd = openat(dfd, names[i], O_RDONLY | O_NOFOLLOW);
			if (fd < 0)
				abort();
			k = read(fd, e.data, sizeof e.data);
			e.len = k < 0 ? 0 : (size_t)k;
			close(fd);
		}
		add(l, &e);
		if (S_ISDIR(st.st_mode)) {
			fd = openat(dfd, names[i], O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW);
			if (fd < 0)
				abort();
			list_real(fd, e.path, l);
			close(fd);
		}
	}
	fsx_names_free(names, n);
}

/* The tree the session shows: every path either tree names, looked up. */
static void
list_merged(struct session *s, int rootfd, struct listing *paths,
    struct listing *l)
{
	struct stat st;
	struct ent e;
	char *buf;
	size_t i, len;
	mode_t mode;
	int k;

	for (i = 0; i < paths->n; i++) {
		if (i > 0 && strcmp(paths->v[i].path, paths->v[i - 1].path) == 0)
			continue;
		memset(&e, 0, sizeof e);
		snprintf(e.path, sizeof e.path, "%s", paths->v[i].path);
		k = shadow_lookup(s, rootfd, e.path, &st);
		if (k <= 0)
			continue;
		e.kind = st.st_mode & S_IFMT;
		e.mode = st.st_mode & 07777;
		if (k == SHADOW_FILE) {
			if (shadow_read(s, rootfd, e.path, sizeof e.data, &buf,
			    &len, &mode) < 0)
				abort();
			memcpy(e.data, buf, len);
			e.len = len;
			mem_free(buf);
		} else if (k == SHADOW_SYMLINK) {
			/* the link itself: where the view holds it */
			int pfd;
			const char *b;
			ssize_t n;

			e.mode = 0;
			pfd = fsx_open_parent(s->upperfd, e.path, 0, &b);
			n = pfd < 0 ? -1 : readlinkat(pfd, b, e.data,
			    sizeof e.data);
			if (n < 0) {
				if (pfd >= 0)
					close(pfd);
				pfd = fsx_open_parent(rootfd, e.path, 0, &b);
				n = pfd < 0 ? -1 : readlinkat(pfd, b, e.data,
				    sizeof e.data);
			}
			if (pfd >= 0)
				close(pfd);
			e.len = n < 0 ? 0 : (size_t)n;
		}
		add(l, &e);
	}
}

/* Every path the real tree or upper/ names (whiteouts included). */
static void
all_paths(int dfd, const char *pre, struct listing *l)
{
	char **names;
	size_t n, i;
	struct stat st;
	struct ent e;
	int fd;

	if (fsx_list(dfd, NULL, NULL, &names, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		memset(&e, 0, sizeof e);
		snprintf(e.path, sizeof e.path, "%s%s%s", pre, *pre ? "/" : "",
		    names[i]);
		add(l, &e);
		if (fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(st.st_mode) && (fd = openat(dfd, names[i],
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW)) >= 0) {
			all_paths(fd, e.path, l);
			close(fd);
		}
	}
	fsx_names_free(names, n);
}

static int
sink(const void *buf, size_t len, void *arg)
{
	*(size_t *)arg += len;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	struct listing paths = { 0 }, want = { 0 }, got = { 0 };
	struct plan_result r;
	struct apply_env env;
	struct changes c;
	struct session s;
	struct keep *k;
	char ws[PATH_MAX + 8], st[PATH_MAX + 16], p[256], buf[64];
	char hex[HASH_HEXLEN + 1];
	const char *b;
	size_t i, out = 0, n;
	int store, rootfd, op, nreal, pfd, fd, *sel;
	long un;

	fz_scratch();
	fz_clean();
	umask(022);
	snprintf(ws, sizeof ws, "%s/ws", fz_top);
	snprintf(st, sizeof st, "%s/state", fz_top);
	if (mkdir(ws, 0755) < 0 || (store = session_store_open(st, 1)) < 0 ||
	    (rootfd = open(ws, O_RDONLY | O_DIRECTORY)) < 0)
		abort();
	if (session_open(store, "p", ws, &s) < 0 ||
	    session_lock(&s, LOCK_EX) < 0)
		abort();
	/* the real tree (not using the names reserved for temp files) */
	nreal = fz_byte(&in) % 12;
	for (i = 0; i < (size_t)nreal && in.n > 0; i++) {
		op = fz_byte(&in);
		fz_path(&in, p, sizeof p, 0);
		if (strstr(p, FSX_TMP_PREFIX) != NULL ||
		    (pfd = fsx_open_parent(rootfd, p, 1, &b)) < 0)
			continue;
		switch (op % 4) {
		case 0:
			(void)mkdirat(pfd, b, 0755);
			break;
		case 1:
			n = fz_bytes(&in, buf, sizeof buf);
			fd = openat(pfd, b, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW, op & 0x10 ? 0755 : 0644);
			if (fd >= 0) {
				if (write(fd, buf, n) < 0)
					abort();
				close(fd);
			}
			break;
		case 2:
			(void)symlinkat(op & 0x10 ? "a" : "sub/b", pfd, b);
			break;
		case 3:
			(void)mkfifoat(pfd, b, 0644);
			break;
		}
		close(pfd);
	}
	/* the session, as write and edit make it */
	while (in.n > 0) {
		op = fz_byte(&in);
		fz_path(&in, p, sizeof p, 0);
		if (op % 3 == 2)
			(void)shadow_remove(&s, rootfd, p);
		else {
			n = fz_bytes(&in, buf, sizeof buf);
			(void)shadow_write(&s, rootfd, p, buf, n, 0644, 0755);
		}
	}

	all_paths(rootfd, "", &paths);
	all_paths(s.upperfd, "", &paths);
	if (paths.n > 1)
		qsort(paths.v, paths.n, sizeof *paths.v, cmp_ent);
	list_merged(&s, rootfd, &paths, &want);

	if (changes_list(&s, rootfd, &c, NULL, NULL) < 0)
		abort();
	if (review_diff(&s, rootfd, &c, NULL, sink, &out, hex, NULL,
	    NULL) < 0)
		abort();
	if ((sel = mem_calloc(c.n + 1, sizeof *sel)) == NULL)
		abort();
	(void)plan_select(&c, NULL, 0, sel, &un);
	if (keep_open(&s, NULL, &k) < 0)
		abort();
	memset(&env, 0, sizeof env);
	env.keep = keep_keeper(k);
	if (plan_apply(&s, rootfd, &c, sel, &env, NULL, NULL, &r) < 0)
		abort();
	if (!r.all || r.failed != 0 || r.left != 0) {
		for (i = 0; i < c.n; i++)
			if (!c.v[i].applied)
				fprintf(stderr, "not applied: %s (%s)\n",
				    c.v[i].path,
				    changes_status_name(c.v[i].status));
		abort();
	}
	keep_close(k);
	mem_free(sel);
	changes_free(&c);

	/* the real tree is the changed tree, exactly */
	list_real(rootfd, "", &got);
	if (got.n > 1)
		qsort(got.v, got.n, sizeof *got.v, cmp_ent);
	if (got.n != want.n)
		goto differ;
	for (i = 0; i < got.n; i++)
		if (strcmp(got.v[i].path, want.v[i].path) != 0 ||
		    got.v[i].kind != want.v[i].kind ||
		    got.v[i].mode != want.v[i].mode ||
		    got.v[i].len != want.v[i].len ||
		    memcmp(got.v[i].data, want.v[i].data, got.v[i].len) != 0)
			goto differ;
	if (changes_list(&s, rootfd, &c, NULL, NULL) < 0 || c.n != 0)
		abort();
	changes_free(&c);
	free(paths.v);
	free(want.v);
	free(got.v);
	session_close(&s);
	close(rootfd);
	close(store);
	return 0;
differ:
	for (i = 0; i < want.n; i++)
		fprintf(stderr, "want %s %o %o %.*s\n", want.v[i].path,
		    want.v[i].kind, want.v[i].mode, (int)want.v[i].len,
		    want.v[i].data);
	for (i = 0; i < got.n; i++)
		fprintf(stderr, "got  %s %o %o %.*s\n", got.v[i].path,
		    got.v[i].kind, got.v[i].mode, (int)got.v[i].len,
		    got.v[i].data);
	abort();
}
