/*
 * checkpoint: the store of turns and blobs (checkpoint.h has the layout
 * and the rules).
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint/checkpoint.h"
#include "checkpoint/checkpoint_impl.h"
#include "lib/fsx.h"
#include "lib/mem.h"

#define RECORD_MAX	((size_t)64 << 20)
#define AFTER_MAX	((size_t)1 << 20)	/* a log beyond it is folded */
#define NAMELEN		10
#define AFTER_SUFFIX	".after"

static int	ckpt_prune(struct ckpt *);

/* Open (with create: make) the directory name beneath dirfd. */
static int
subdir(int dirfd, const char *name, int create)
{
	int fd;

	if ((fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) >= 0 || !create || errno != ENOENT)
		return fd;
	if (mkdirat(dirfd, name, 0700) < 0 && errno != EEXIST)
		return -1;
	return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
}

static int
lock_retry(int fd, int op)
{
	while (flock(fd, op) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

void
ckpt_close(struct ckpt *c)
{
	int e = errno;

	if (c == NULL)
		return;
	fsx_close(c->blobsfd);
	fsx_close(c->turnsfd);
	fsx_close(c->lockfd);
	fsx_close(c->dirfd);
	mem_free(c);
	errno = e;
}

int
ckpt_open(const char *state, const char *workspace, int create, int lockop,
    const struct ckpt_limits *lim, struct ckpt **out)
{
	unsigned char d[HASH_LEN];
	char hex[HASH_HEXLEN + 1];
	struct ckpt *c;
	int sfd = -1, cfd = -1;

	*out = NULL;
	if ((c = mem_calloc(1, sizeof *c)) == NULL)
		return -1;
	c->dirfd = c->blobsfd = c->turnsfd = c->lockfd = -1;
	c->lim.keep = CKPT_KEEP_DEFAULT;
	if (lim != NULL)
		c->lim = *lim;
	hash_buf(workspace, strlen(workspace), d);
	hash_hex(d, hex);
	/* made only when missing; openat: no fcntl after musl's open(2) */
	sfd = openat(AT_FDCWD, state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd < 0 && errno == ENOENT && create &&
	    (mkdir(state, 0700) == 0 || errno == EEXIST))
		sfd = openat(AT_FDCWD, state, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC);
	if (sfd < 0 ||
	    (cfd = subdir(sfd, "checkpoints", create)) < 0 ||
	    (c->dirfd = subdir(cfd, hex, create)) < 0 ||
	    /* a store that lost them gets them again, empty */
	    (c->blobsfd = subdir(c->dirfd, "blobs", 1)) < 0 ||
	    (c->turnsfd = subdir(c->dirfd, "turns", 1)) < 0)
		goto fail;
	if ((c->lockfd = openat(c->dirfd, "lock", O_RDWR | O_CREAT |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) < 0 ||
	    lock_retry(c->lockfd, lockop) < 0)
		goto fail;
	fsx_close(sfd);
	fsx_close(cfd);
	*out = c;
	return 0;
fail:
	fsx_close(sfd);
	fsx_close(cfd);
	ckpt_close(c);
	return -1;
}

int
ckpt_diagnose(const char *state, const char *workspace, char *buf,
    size_t len)
{
	static const struct {
		const char	*name;
		int		 dir;
	} item[] = { { "blobs", 1 }, { "turns", 1 }, { "lock", 0 },
	    { "current", 0 } };
	unsigned char d[HASH_LEN];
	char hex[HASH_HEXLEN + 1], path[PATH_MAX];
	struct stat st;
	size_t i;
	int n;

	hash_buf(workspace, strlen(workspace), d);
	hash_hex(d, hex);
	for (i = 0; i < 3 + sizeof item / sizeof item[0]; i++) {
		if (i == 0)
			n = snprintf(path, sizeof path, "%s", state);
		else if (i == 1)
			n = snprintf(path, sizeof path, "%s/checkpoints", state);
		else if (i == 2)
			n = snprintf(path, sizeof path, "%s/checkpoints/%s",
			    state, hex);
		else
			n = snprintf(path, sizeof path, "%s/checkpoints/%s/%s",
			    state, hex, item[i - 3].name);
		if (n < 0 || (size_t)n >= sizeof path)
			return 0;
		if (lstat(path, &st) < 0) {
			if (errno == ENOENT)
				return 0;	/* made when needed */
			snprintf(buf, len, "%s: %s", path, strerror(errno));
			return 1;
		}
		if ((i < 3 || item[i - 3].dir) ? !S_ISDIR(st.st_mode) :
		    !S_ISREG(st.st_mode)) {
			snprintf(buf, len, "%s: not a %s; move it away (arcturn "
			    "makes it again)", path, (i < 3 ||
			    item[i - 3].dir) ? "directory" : "regular file");
			return 1;
		}
		if (access(path, (i < 3 || item[i - 3].dir) ? W_OK | X_OK :
		    R_OK | W_OK) < 0) {
			snprintf(buf, len, "%s: %s; the checkpoint store needs "
			    "it writable (ARCTURN_HOME chooses the state dir)",
			    path, strerror(errno));
			return 1;
		}
	}
	return 0;
}

int
ckpt_blobs(const struct ckpt *c)
{
	return c->blobsfd;
}

void
ckpt_lazy(struct ckpt *c, int on)
{
	c->lazy = on;
}

/* ---- Records ---- */

static void
turn_name(unsigned long id, char name[NAMELEN + 2])
{
	snprintf(name, NAMELEN + 2, "%010lu", id);
}

static void
after_name(unsigned long id, char name[NAMELEN + sizeof AFTER_SUFFIX + 1])
{
	snprintf(name, NAMELEN + sizeof AFTER_SUFFIX + 1, "%010lu"
	    AFTER_SUFFIX, id);
}

/* Remove turn id's .after log (ENOENT is no log); 0 or -1. */
static int
drop_after(struct ckpt *c, unsigned long id)
{
	char name[NAMELEN + sizeof AFTER_SUFFIX + 1];

	after_name(id, name);
	return unlinkat(c->turnsfd, name, 0) < 0 && errno != ENOENT ? -1 : 0;
}

static int
valid_name(const char *s, unsigned long *id)
{
	size_t i;

	if (strlen(s) != NAMELEN)
		return 0;
	for (i = 0; i < NAMELEN; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	*id = strtoul(s, NULL, 10);
	return *id > 0;
}

int
ckpt_save(struct ckpt *c, struct ckpt_turn *t)
{
	struct stat st;
	char name[NAMELEN + 2], *buf;
	size_t len;
	int rc, fresh;

	turn_name(t->id, name);
	fresh = fstatat(c->turnsfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0;
	if (ckpt_format(t, &buf, &len) < 0)
		return -1;
	/* the blobs it names are durable before it is */
	rc = c->dirty ? fsx_sync_dir(c->blobsfd) : 0;
	if (rc == 0)
		c->dirty = 0;
	if (rc == 0)
		rc = fsx_write_atomic(c->turnsfd, name, buf, len, 0600, 0);
	mem_free(buf);
	/* the record holds what the log said (t was loaded with it) */
	if (rc == 0 && !fresh)
		rc = drop_after(c, t->id);
	if (rc == 0 && fresh)
		(void)ckpt_prune(c);
	return rc;
}

/*
 * The entries a change of rel settles: rel's, then each folder above it
 * recorded absent before (the change made it). *e: mem_free it.
 */
static int
settled(struct ckpt_turn *t, const char *rel, struct ckpt_entry ***e,
    size_t *n)
{
	struct ckpt_entry *en;
	char *dir, *slash;
	const char *p;
	size_t max = 1;

	*n = 0;
	for (p = rel; *p != '\0'; p++)
		max += *p == '/';
	*e = mem_calloc(max, sizeof **e);
	if (*e == NULL || (dir = mem_strdup(rel)) == NULL) {
		mem_free(*e);
		*e = NULL;
		return -1;
	}
	if ((en = ckpt_find(t, rel)) != NULL)
		(*e)[(*n)++] = en;
	while ((slash = strrchr(dir, '/')) != NULL) {
		*slash = '\0';
		if ((en = ckpt_find(t, dir)) == NULL ||
		    en->before.kind != PSTATE_ABSENT)
			break;
		(*e)[(*n)++] = en;
	}
	mem_free(dir);
	return 0;
}

int
ckpt_drop(struct ckpt *c, unsigned long id)
{
	char name[NAMELEN + 2];

	turn_name(id, name);
	/* a damaged record may be an empty folder */
	if (drop_after(c, id) < 0 || (unlinkat(c->turnsfd, name, 0) < 0 &&
	    (errno != EISDIR || unlinkat(c->turnsfd, name, AT_REMOVEDIR) < 0)))
		return -1;
	return fsx_sync_dir(c->turnsfd);
}

int
ckpt_note_after(struct ckpt *c, struct ckpt_turn *t, const char *rel)
{
	char name[NAMELEN + sizeof AFTER_SUFFIX + 1], *buf = NULL;
	struct ckpt_entry **e;
	struct stat st;
	size_t n, len;
	ssize_t w;
	int fd = -1, rc = -1;

	if (settled(t, rel, &e, &n) < 0)
		return -1;
	if (n == 0) {
		mem_free(e);
		return 0;
	}
	after_name(t->id, name);
	if (fstatat(c->turnsfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (!S_ISREG(st.st_mode) || (size_t)st.st_size > AFTER_MAX)) {
		mem_free(e);
		return ckpt_save(c, t);
	}
	if (ckpt_format_after(e, n, &buf, &len) < 0)
		goto out;
	/* one write: a crash leaves the entries whole or a torn tail */
	if ((fd = openat(c->turnsfd, name, O_WRONLY | O_APPEND | O_CREAT |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		goto out;
	while ((w = write(fd, buf, len)) < 0 && errno == EINTR)
		;
	if (w < 0)
		goto out;
	if ((size_t)w != len) {
		errno = ENOSPC;
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0 && close(fd) < 0 && rc == 0)
		rc = -1;
	mem_free(buf);
	mem_free(e);
	return rc;
}

int
ckpt_load(struct ckpt *c, unsigned long id, struct ckpt_turn *t)
{
	char name[NAMELEN + 2], aname[NAMELEN + sizeof AFTER_SUFFIX + 1];
	char *buf;
	size_t len;
	int rc;

	turn_name(id, name);
	if (fsx_read_all(c->turnsfd, name, RECORD_MAX, &buf, &len) < 0)
		return -1;
	rc = ckpt_parse(buf, len, t);
	mem_free(buf);
	if (rc == 0 && t->id != id) {
		ckpt_turn_clear(t);
		errno = EBADMSG;
		return -1;
	}
	if (rc < 0)
		return -1;
	after_name(id, aname);
	if (fsx_read_all(c->turnsfd, aname, RECORD_MAX, &buf, &len) < 0) {
		if (errno == ENOENT)
			return 0;
		ckpt_turn_clear(t);
		return -1;
	}
	(void)ckpt_parse_after(buf, len, t);
	mem_free(buf);
	return 0;
}

static int
keep_turn(int dirfd, const char *name, void *arg)
{
	unsigned long id;

	(void)dirfd;
	(void)arg;
	return valid_name(name, &id);
}

/* The ids of the recorded turns, ascending. */
static int
ids(struct ckpt *c, unsigned long **out, size_t *n)
{
	char **names;
	size_t i;

	*out = NULL;
	if (fsx_list(c->turnsfd, keep_turn, NULL, &names, n) < 0)
		return -1;
	if (*n > 0 && (*out = mem_calloc(*n, sizeof **out)) == NULL) {
		fsx_names_free(names, *n);
		return -1;
	}
	for (i = 0; i < *n; i++)
		valid_name(names[i], &(*out)[i]);
	fsx_names_free(names, *n);
	return 0;
}

const char *
ckpt_damage_name(enum ckpt_damage d)
{
	switch (d) {
	case CKPT_TRUNCATED:
		return "truncated";
	case CKPT_CORRUPT:
		return "corrupt";
	case CKPT_NOT_FILE:
		return "not a regular file";
	case CKPT_UNREADABLE:
		return "unreadable";
	default:
		return "sound";
	}
}

/*
 * Turn id's record could not be loaded (errno): t a damaged turn, with
 * how it is damaged; -1 for a failure that is not damage (memory, or the
 * record gone meanwhile).
 */
static int
damaged(struct ckpt *c, unsigned long id, struct ckpt_turn *t)
{
	char name[NAMELEN + 2], *buf;
	struct stat st;
	size_t len;
	int e = errno;

	if (e == ENOMEM || e == ENOENT)
		return -1;
	memset(t, 0, sizeof *t);
	t->id = id;
	if ((t->label = mem_strdup("")) == NULL)
		return -1;
	turn_name(id, name);
	if (fstatat(c->turnsfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		t->time = st.st_mtime;
	if (e == EBADMSG) {
		t->damaged = CKPT_CORRUPT;
		if (fsx_read_all(c->turnsfd, name, RECORD_MAX, &buf,
		    &len) == 0) {
			if (len < 4 || memcmp(buf + len - 4, "end\n", 4) != 0)
				t->damaged = CKPT_TRUNCATED;
			mem_free(buf);
		}
	} else if (e == EINVAL || e == EISDIR || e == ELOOP)
		t->damaged = CKPT_NOT_FILE;
	else {
		t->damaged = CKPT_UNREADABLE;
		t->damage_err = e;
	}
	return 0;
}

int
ckpt_list(struct ckpt *c, struct ckpt_turn **out, size_t *nout)
{
	struct ckpt_turn *t = NULL;
	unsigned long *id;
	size_t n, i;

	*out = NULL;
	*nout = 0;
	if (ids(c, &id, &n) < 0)
		return -1;
	if (n > 0 && (t = mem_calloc(n, sizeof *t)) == NULL)
		goto fail;
	for (i = 0; i < n; i++)
		if (ckpt_load(c, id[i], &t[i]) < 0 &&
		    damaged(c, id[i], &t[i]) < 0)
			goto fail;
	mem_free(id);
	*out = t;
	*nout = n;
	return 0;
fail:
	ckpt_turns_free(t, n);
	mem_free(id);
	return -1;
}

/* ---- Turns ---- */

static int
next_id(struct ckpt *c, unsigned long *next)
{
	unsigned long *id;
	size_t n;

	if (ids(c, &id, &n) < 0)
		return -1;
	*next = n > 0 ? id[n - 1] + 1 : 1;
	mem_free(id);
	return 0;
}

int
ckpt_current(struct ckpt *c, unsigned long *id)
{
	char *buf, name[NAMELEN + 2];
	struct stat st;
	size_t len;

	*id = 0;
	if (fsx_read_all(c->dirfd, "current", 64, &buf, &len) < 0)
		return errno == ENOENT || errno == EINVAL ? 0 : -1;
	while (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (!valid_name(buf, id))
		*id = 0;
	mem_free(buf);
	turn_name(*id, name);
	if (*id > 0 && fstatat(c->turnsfd, name, &st, 0) < 0) {
		if (errno != ENOENT)
			return -1;
		*id = 0;	/* retention dropped it */
	}
	return 0;
}

int
ckpt_turn_start(struct ckpt *c, const char *label, unsigned long *id)
{
	struct ckpt_turn t;
	char name[NAMELEN + 2];
	int rc;

	memset(&t, 0, sizeof t);
	if (next_id(c, &t.id) < 0)
		return -1;
	t.time = time(NULL);
	if ((t.label = mem_strdup(label ? label : "")) == NULL)
		return -1;
	rc = ckpt_save(c, &t);
	*id = t.id;
	ckpt_turn_clear(&t);
	if (rc < 0)
		return -1;
	turn_name(*id, name);
	name[NAMELEN] = '\n';
	return fsx_write_atomic(c->dirfd, "current", name, NAMELEN + 1, 0600,
	    0);
}

int
ckpt_turn_end(struct ckpt *c)
{
	/* an empty folder in its place (damage) goes too */
	if (unlinkat(c->dirfd, "current", 0) < 0 && errno != ENOENT &&
	    (errno != EISDIR || unlinkat(c->dirfd, "current",
	    AT_REMOVEDIR) < 0))
		return -1;
	return 0;
}

int
ckpt_for_write(struct ckpt *c, struct ckpt_turn *t)
{
	unsigned long id;

	memset(t, 0, sizeof *t);
	if (ckpt_current(c, &id) < 0)
		return -1;
	/* a damaged record is no turn to join: a turn of its own */
	if (id > 0) {
		if (ckpt_load(c, id, t) == 0)
			return 0;
		if (errno == ENOMEM)
			return -1;
		memset(t, 0, sizeof *t);
	}
	if (next_id(c, &t->id) < 0)
		return -1;
	t->time = time(NULL);
	return 0;
}

int
ckpt_settle(struct ckpt *c, struct ckpt_turn *t, int rootfd, const char *rel)
{
	struct ckpt_entry **e;
	size_t n, i;
	int rc = 0;

	if (settled(t, rel, &e, &n) < 0)
		return -1;
	for (i = 0; i < n && rc == 0; i++)
		rc = ckpt_state(c, rootfd, e[i]->path, 0, &e[i]->after);
	mem_free(e);
	return rc;
}

/* ---- Retention ---- */

/* The names of the blobs turns name: a growing, sortable list. */
struct refs {
	char	**v;
	size_t	  n, cap;
	int	  all;		/* a record unread: every blob is named */
};

static int
ref_add(struct refs *r, const char *hex)
{
	char **v;
	size_t cap;

	if (r->n == r->cap) {
		cap = r->cap ? r->cap * 2 : 64;
		if ((v = mem_reallocarray(r->v, cap, sizeof *v)) == NULL)
			return -1;
		r->v = v;
		r->cap = cap;
	}
	if ((r->v[r->n] = mem_strdup(hex)) == NULL)
		return -1;
	r->n++;
	return 0;
}

/* The blob s names (none for a folder or an absent path). */
static int
ref_state(struct refs *r, const struct pstate *s)
{
	char hex[HASH_HEXLEN + 1];

	if (s->kind != PSTATE_FILE && s->kind != PSTATE_LINK)
		return 0;
	hash_hex(s->sha, hex);
	return ref_add(r, hex);
}

static int
is_hex(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
}

/*
 * A damaged record names every blob whose name its bytes hold (a run of
 * exactly 64 hex digits); one that cannot be read, every blob.
 */
static int
ref_damaged(struct ckpt *c, unsigned long id, struct refs *r)
{
	char name[NAMELEN + 2], hex[HASH_HEXLEN + 1], *buf;
	size_t len, i, k;
	int rc = 0;

	turn_name(id, name);
	if (fsx_read_all(c->turnsfd, name, RECORD_MAX, &buf, &len) < 0) {
		if (errno == ENOMEM)
			return -1;
		r->all = errno != ENOENT;
		return 0;
	}
	for (i = 0; i < len && rc == 0; i = k) {
		for (k = i; k < len && is_hex(buf[k]); k++)
			;
		if (k - i == HASH_HEXLEN) {
			memcpy(hex, buf + i, HASH_HEXLEN);
			hex[HASH_HEXLEN] = '\0';
			rc = ref_add(r, hex);
		}
		if (k == i)
			k++;
	}
	mem_free(buf);
	return rc;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
keep_blob(int dirfd, const char *name, void *arg)
{
	(void)dirfd;
	(void)arg;
	return strlen(name) == HASH_HEXLEN;
}

/*
 * Remove the blobs no turn names (an open turn names its after states'
 * too: what it set out to restore; a damaged record what its bytes
 * hold) and temp names a kill left; *bytes is the size of those that
 * stay.
 */
static int
gc(struct ckpt *c, unsigned long long *bytes)
{
	struct refs r = { NULL, 0, 0, 0 };
	struct ckpt_turn *t;
	struct stat st;
	char **names = NULL;
	size_t n, nn = 0, i, j;
	int rc = -1;

	*bytes = 0;
	if (ckpt_list(c, &t, &n) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (t[i].damaged != CKPT_SOUND &&
		    ref_damaged(c, t[i].id, &r) < 0)
			goto out;
		for (j = 0; j < t[i].n; j++)
			if (ref_state(&r, &t[i].e[j].before) < 0 ||
			    (t[i].open && ref_state(&r, &t[i].e[j].after) < 0))
				goto out;
	}
	if (r.n > 0)
		qsort(r.v, r.n, sizeof *r.v, cmp_str);
	(void)fsx_sweep_tmp(c->blobsfd);
	(void)fsx_sweep_tmp(c->turnsfd);
	if (fsx_list(c->blobsfd, keep_blob, NULL, &names, &nn) < 0)
		goto out;
	for (i = 0; i < nn; i++) {
		if (r.all || (r.n > 0 && bsearch(&names[i], r.v, r.n,
		    sizeof *r.v, cmp_str) != NULL)) {
			if (fstatat(c->blobsfd, names[i], &st,
			    AT_SYMLINK_NOFOLLOW) == 0)
				*bytes += (unsigned long long)st.st_size;
			continue;
		}
		if (unlinkat(c->blobsfd, names[i], 0) < 0 && errno != ENOENT)
			goto out;
	}
	rc = 0;
out:
	for (i = 0; i < r.n; i++)
		mem_free(r.v[i]);
	mem_free(r.v);
	fsx_names_free(names, nn);
	ckpt_turns_free(t, n);
	return rc;
}

/*
 * Drop the oldest turns beyond lim.keep, then (with lim.maxbytes) while
 * the blobs the rest name weigh more, never the newest turn.
 */
static int
ckpt_prune(struct ckpt *c)
{
	unsigned long *id;
	unsigned long long bytes;
	char name[NAMELEN + 2];
	size_t n, i = 0;
	int dropped = 0;

	if (ids(c, &id, &n) < 0)
		return -1;
	for (; n - i > 1 && n - i > c->lim.keep; i++, dropped++) {
		turn_name(id[i], name);
		if (drop_after(c, id[i]) < 0 ||
		    (unlinkat(c->turnsfd, name, 0) < 0 && errno != ENOENT))
			goto fail;
	}
	if (c->lim.maxbytes == 0 && !dropped) {
		mem_free(id);
		return 0;
	}
	for (;;) {
		/* a dropped record is gone for good before its blobs go */
		if (dropped && fsx_sync_dir(c->turnsfd) < 0)
			goto fail;
		dropped = 0;
		if (gc(c, &bytes) < 0)
			goto fail;
		if (c->lim.maxbytes == 0 || bytes <= c->lim.maxbytes ||
		    n - i <= 1)
			break;
		turn_name(id[i], name);
		if (drop_after(c, id[i++]) < 0 ||
		    (unlinkat(c->turnsfd, name, 0) < 0 && errno != ENOENT))
			goto fail;
		dropped = 1;
	}
	mem_free(id);
	return 0;
fail:
	mem_free(id);
	return -1;
}
