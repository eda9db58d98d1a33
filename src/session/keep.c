/*
 * keep: the replaced/ area of a session and the apply's checkpoint turn
 * (keep.h).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/fsx.h"
#include "lib/hash.h"
#include "lib/mem.h"
#include "lib/os.h"
#include "lib/path.h"
#include "lib/pstate.h"
#include "session/keep.h"

#define DFLAGS		(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define COPY_BUF	(128 * 1024)
#define KEEP_MAXN	100000
#define TURN_MARK	".turn"

/* What put snapshotted of one path: its state before the apply. */
struct kept_state {
	char			*rel;
	struct pstate		 before;
	int			 lazy;		/* its blob not synced yet */
};

struct keep {
	struct session		*s;
	struct ckpt		*ck;		/* or NULL */
	struct kept_state	*ks;		/* under mu */
	size_t			 nks, cks;
	pthread_mutex_t		 mu;
	int			 dirfd;		/* replaced/<N>, or -1 */
	char			 name[KEEP_NAMELEN];	/* N */
	size_t			 count;
	int			 whole;		/* keep_turn: all in its turn */
	int			 join;		/* keep_join */
	struct apply_keeper	 keeper;
};

/* replaced/<N>, the first N free: made on the first put. */
static int
area(struct keep *k)
{
	int rfd, n, fd = -1;

	if (k->dirfd >= 0)
		return k->dirfd;
	if (mkdirat(k->s->dirfd, "replaced", 0700) < 0 && errno != EEXIST)
		return -1;
	if ((rfd = openat(k->s->dirfd, "replaced", DFLAGS)) < 0)
		return -1;
	for (n = 1; n < KEEP_MAXN; n++) {
		snprintf(k->name, sizeof k->name, "%d", n);
		if (mkdirat(rfd, k->name, 0700) == 0) {
			fd = openat(rfd, k->name, DFLAGS);
			break;
		}
		if (errno != EEXIST)
			break;
	}
	if (n == KEEP_MAXN)
		errno = EMLINK;
	fsx_close(rfd);
	if (fd >= 0)
		k->dirfd = fd;
	return fd;
}

/*
 * replaced/<N>.turn: all that replaced/<N> holds is in a recorded turn
 * (keep_unrecorded), made after the turn and synced.
 */
static int
mark_recorded(struct keep *k)
{
	char mark[KEEP_NAMELEN + sizeof TURN_MARK];
	int rfd, rc;

	snprintf(mark, sizeof mark, "%s%s", k->name, TURN_MARK);
	if ((rfd = openat(k->s->dirfd, "replaced", DFLAGS)) < 0)
		return -1;
	rc = fsx_write_atomic(rfd, mark, "", 0, 0600, 0);
	fsx_close(rfd);
	return rc;
}

/* The mirror directory of rel's parent under top (made, 0700): its fd. */
static int
mirror_parent(int top, const char *rel, const char **base)
{
	return fsx_open_dirs(top, rel, FSX_DIRS_PARENT | FSX_DIRS_MAKE, 0700,
	    base, NULL);
}

/* Copy the regular file dirfd/name to kfd/kname, hashing the bytes. */
static int
copy_file(int dirfd, const char *name, int kfd, const char *kname,
    struct apply_kept *out)
{
	struct hash_ctx h;
	struct stat st;
	char *buf = NULL;
	ssize_t n;
	int in, o = -1, rc = -1;

	in = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	if (in < 0)
		return -1;
	if (fstat(in, &st) < 0)
		goto out;
	if (!S_ISREG(st.st_mode)) {
		errno = ESTALE;
		goto out;
	}
	o = openat(kfd, kname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, st.st_mode & 07777);
	if (o < 0 || (buf = mem_alloc(COPY_BUF)) == NULL)
		goto out;
	hash_init(&h);
	for (;;) {
		n = read(in, buf, COPY_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto out;
		if (n == 0)
			break;
		hash_update(&h, buf, (size_t)n);
		if (fsx_write_full(o, buf, (size_t)n) < 0)
			goto out;
	}
	hash_final(&h, out->sha);
	out->have_sha = 1;
	if (fchmod(o, st.st_mode & 07777) < 0 || fsync(o) < 0)
		goto out;
	rc = 0;
out:
	mem_free(buf);
	fsx_close(in);
	if (o >= 0) {
		fsx_close(o);
		if (rc < 0) {
			int saved = errno;

			unlinkat(kfd, kname, 0);
			errno = saved;
		}
	}
	return rc;
}

/* Keep a copy of dirfd/name (link failed): what the copy can hold. */
static int
copy_object(int dirfd, const char *name, int kfd, const char *kname,
    struct apply_kept *out)
{
	char *target;
	struct stat st;
	ssize_t n;
	int rc;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (S_ISREG(st.st_mode))
		return copy_file(dirfd, name, kfd, kname, out);
	if (S_ISLNK(st.st_mode)) {
		if ((target = mem_alloc(PATH_MAX)) == NULL)
			return -1;
		n = readlinkat(dirfd, name, target, PATH_MAX - 1);
		if (n < 0) {
			mem_free(target);
			return -1;
		}
		target[n] = '\0';
		hash_buf(target, (size_t)n, out->sha);
		out->have_sha = 1;
		rc = symlinkat(target, kfd, kname);
		mem_free(target);
		return rc;
	}
	if (S_ISFIFO(st.st_mode))
		return mknodat(kfd, kname, S_IFIFO | (st.st_mode & 07777), 0);
	/* a socket or a device: nothing to copy but the fact */
	return 0;
}

/* The index of rel in k->ks, or k->nks (under mu). */
static size_t
ks_find(const struct keep *k, const char *rel)
{
	size_t i;

	for (i = k->nks; i > 0; i--)
		if (strcmp(k->ks[i - 1].rel, rel) == 0)
			return i - 1;
	return k->nks;
}

static void
ks_forget(struct keep *k, const char *rel)
{
	size_t i;
	int e = errno;

	pthread_mutex_lock(&k->mu);
	if ((i = ks_find(k, rel)) < k->nks) {
		mem_free(k->ks[i].rel);
		k->ks[i] = k->ks[--k->nks];
	}
	pthread_mutex_unlock(&k->mu);
	errno = e;
}

/*
 * Snapshot dirfd/name, the object at rel, into the store (a blob) and
 * note its state as rel's before. No store: nothing to do.
 */
static int
snapshot(struct keep *k, const char *rel, int dirfd, const char *name)
{
	struct kept_state *v;
	struct pstate st;
	char *r;
	size_t cap;
	int rc = -1;

	if (k->ck == NULL)
		return 0;
	if (ckpt_state(k->ck, dirfd, name, 1, &st) < 0)
		return -1;
	if ((r = mem_strdup(rel)) == NULL)
		return -1;
	pthread_mutex_lock(&k->mu);
	if (k->nks == k->cks) {
		cap = k->cks ? k->cks * 2 : 64;
		if ((v = mem_reallocarray(k->ks, cap, sizeof *v)) == NULL)
			goto out;
		k->ks = v;
		k->cks = cap;
	}
	k->ks[k->nks].rel = r;
	k->ks[k->nks].before = st;
	k->ks[k->nks].lazy = st.kind == PSTATE_FILE;
	k->nks++;
	r = NULL;
	rc = 0;
out:
	pthread_mutex_unlock(&k->mu);
	mem_free(r);
	return rc;
}

static int
put(void *arg, const char *rel, int dirfd, const char *name,
    struct apply_kept *out)
{
	struct keep *k = arg;
	struct stat st;
	const char *base;
	int top, pfd, tries;

	memset(out, 0, sizeof *out);
	if (snapshot(k, rel, dirfd, name) < 0)
		return -1;
	pthread_mutex_lock(&k->mu);
	top = area(k);
	pthread_mutex_unlock(&k->mu);
	if (top < 0 || (pfd = mirror_parent(top, rel, &base)) < 0) {
		ks_forget(k, rel);
		return -1;
	}
	for (tries = 0; tries < 2; tries++) {
		if (linkat(dirfd, name, pfd, base, 0) == 0) {
			if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
				break;
			out->linked = 1;
			out->dev = st.st_dev;
			out->ino = st.st_ino;
			goto done;
		}
		if (errno == EEXIST) {
			/* left by an earlier try of this path: ours to go */
			if (unlinkat(pfd, base, 0) < 0 && errno != ENOENT)
				break;
			continue;
		}
		if (errno != EXDEV && errno != EPERM && errno != EMLINK)
			break;
		if (copy_object(dirfd, name, pfd, base, out) < 0)
			break;
		goto done;
	}
	fsx_close(pfd);
	ks_forget(k, rel);
	return -1;
done:
	close(pfd);
	pthread_mutex_lock(&k->mu);
	k->count++;
	pthread_mutex_unlock(&k->mu);
	return 0;
}

static void
drop(void *arg, const char *rel)
{
	struct keep *k = arg;
	const char *base;
	int pfd;

	ks_forget(k, rel);
	if (k->dirfd < 0 || (pfd = mirror_parent(k->dirfd, rel, &base)) < 0)
		return;
	if (unlinkat(pfd, base, 0) == 0) {
		pthread_mutex_lock(&k->mu);
		k->count--;
		pthread_mutex_unlock(&k->mu);
	}
	close(pfd);
}

/*
 * Make the blobs put stored (unsynced: ckpt_lazy) durable, then their
 * directory: several of them with one syncfs of the store's file system
 * where that is cheap (os_syncfs_cheap), else one by one. The lock is
 * held throughout: a sync returns only when all that was put before it
 * began is on disk, whichever thread syncs it.
 */
static int
sync_kept(void *arg)
{
	struct keep *k = arg;
	char hex[HASH_HEXLEN + 1];
	size_t i, lazy = 0;
	int fd, rc = 0, any = 0;

	if (k->ck == NULL)
		return 0;
	pthread_mutex_lock(&k->mu);
	for (i = 0; i < k->nks; i++)
		lazy += k->ks[i].lazy != 0;
	if (lazy > 1 && os_syncfs_cheap(ckpt_blobs(k->ck))) {
		if ((rc = os_syncfs(ckpt_blobs(k->ck))) == 0)
			for (i = 0; i < k->nks; i++)
				k->ks[i].lazy = 0;
		pthread_mutex_unlock(&k->mu);
		return rc;
	}
	for (i = 0; i < k->nks && rc == 0; i++) {
		if (!k->ks[i].lazy)
			continue;
		hash_hex(k->ks[i].before.sha, hex);
		fd = openat(ckpt_blobs(k->ck), hex, O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (fd < 0 || fsync(fd) < 0)
			rc = -1;
		else
			k->ks[i].lazy = 0;
		fsx_close(fd);
		any = 1;
	}
	if (rc == 0 && any)
		rc = fsx_sync_dir(ckpt_blobs(k->ck));
	pthread_mutex_unlock(&k->mu);
	return rc;
}

int
keep_open(struct session *s, struct ckpt *ck, struct keep **kp)
{
	struct keep *k;

	if ((k = mem_calloc(1, sizeof *k)) == NULL)
		return -1;
	if (pthread_mutex_init(&k->mu, NULL) != 0) {
		mem_free(k);
		errno = ENOMEM;
		return -1;
	}
	k->s = s;
	k->ck = ck;
	k->dirfd = -1;
	k->keeper.put = put;
	k->keeper.drop = drop;
	k->keeper.sync = sync_kept;
	k->keeper.arg = k;
	if (ck != NULL)
		ckpt_lazy(ck, 1);
	*kp = k;
	return 0;
}

const struct apply_keeper *
keep_keeper(struct keep *k)
{
	return &k->keeper;
}

size_t
keep_count(const struct keep *k)
{
	return k == NULL ? 0 : k->count;
}

const char *
keep_name(const struct keep *k)
{
	return k == NULL || k->dirfd < 0 ? NULL : k->name;
}

/* What the change list saw at a path it changed, as a checkpoint state. */
static int
seen(const struct change *ch, struct pstate *st)
{
	memset(st, 0, sizeof *st);
	if (ch->old_kind == SHADOW_ABSENT)
		st->kind = PSTATE_ABSENT;
	else if (ch->old_kind == SHADOW_DIR) {
		st->kind = PSTATE_DIR;
		st->mode = ch->old_mode & 07777;
	} else
		return 0;	/* a file put did not keep: not replaced */
	return 1;
}

/* Add rel to t (before given, after read now) unless it did not change. */
static int
turn_add(struct keep *k, struct ckpt_turn *t, int rootfd, const char *rel,
    const struct pstate *before)
{
	struct pstate after;
	struct ckpt_entry *e;

	if ((e = ckpt_find(t, rel)) != NULL) {
		/* the first change of a path says before; a joined turn
		   takes the after this apply left */
		if (k->join && ckpt_state(k->ck, rootfd, rel, 0, &after) == 0)
			e->after = after;
		return 0;
	}
	if (ckpt_state(k->ck, rootfd, rel, 0, &after) < 0)
		return errno == EAGAIN ? 0 : -1;	/* changing under us */
	if (pstate_special(before) || pstate_special(&after) ||
	    pstate_same(before, &after))
		return 0;
	return ckpt_add(t, rel, before, &after);
}

int
keep_turn(struct keep *k, int rootfd, const struct changes *c,
    const char *label, unsigned long *id)
{
	struct ckpt_turn t;
	struct pstate st;
	size_t i, j;
	int rc = 0;

	*id = 0;
	if (k->ck == NULL)
		return 0;
	/* what puts stored is synced (sync_kept); what is stored here, a
	   chmod's bytes, is synced as it is stored: the record names it */
	ckpt_lazy(k->ck, 0);
	if ((!k->join && ckpt_turn_end(k->ck) < 0) ||
	    ckpt_for_write(k->ck, &t) < 0)
		return -1;
	for (i = 0; i < c->n && rc == 0; i++) {
		j = ks_find(k, c->v[i].path);
		if (j < k->nks)
			rc = turn_add(k, &t, rootfd, c->v[i].path,
			    &k->ks[j].before);
		else if (c->v[i].applied && seen(&c->v[i], &st))
			rc = turn_add(k, &t, rootfd, c->v[i].path, &st);
		else if (c->v[i].applied && c->v[i].status == CHANGE_MODE &&
		    c->v[i].old_kind == SHADOW_FILE &&
		    (rc = ckpt_state(k->ck, rootfd, c->v[i].path, 1,
		    &st)) == 0 && st.kind == PSTATE_FILE) {
			/* chmod only: the same bytes (stored), the old mode */
			st.mode = c->v[i].old_mode & 07777;
			rc = turn_add(k, &t, rootfd, c->v[i].path, &st);
		}
	}
	/* kept paths the change list does not name (none today) */
	for (i = 0; i < k->nks && rc == 0; i++)
		rc = turn_add(k, &t, rootfd, k->ks[i].rel, &k->ks[i].before);
	/* bytes kept that the turn cannot give back (a file now a fifo) */
	k->whole = 1;
	for (i = 0; i < k->nks; i++)
		if ((k->ks[i].before.kind == PSTATE_FILE ||
		    k->ks[i].before.kind == PSTATE_LINK) &&
		    ckpt_find(&t, k->ks[i].rel) == NULL)
			k->whole = 0;
	if (rc == 0 && t.n > 0) {
		if (t.label == NULL || t.label[0] == '\0') {
			mem_free(t.label);
			t.label = mem_strdup(label);
		}
		if (t.label == NULL || ckpt_save(k->ck, &t) < 0)
			rc = -1;
		else
			*id = t.id;
	}
	ckpt_turn_clear(&t);
	if (rc < 0)
		k->whole = 0;
	else if (k->whole && k->dirfd >= 0 && mark_recorded(k) < 0)
		k->whole = 0;
	return rc;
}

void
keep_join(struct keep *k, int on)
{
	if (k != NULL)
		k->join = on;
}

int
keep_whole(const struct keep *k)
{
	return k->whole;
}

int
keep_unrecorded(struct session *s, char name[KEEP_NAMELEN])
{
	char **names, mark[KEEP_NAMELEN + sizeof TURN_MARK];
	struct stat st;
	size_t n, i;
	int rfd, found = 0;

	if ((rfd = openat(s->dirfd, "replaced", DFLAGS)) < 0)
		return errno == ENOENT ? 0 : -1;
	if (fsx_list(rfd, NULL, NULL, &names, &n) < 0) {
		fsx_close(rfd);
		return -1;
	}
	for (i = 0; i < n && !found; i++) {
		if (strlen(names[i]) >= KEEP_NAMELEN ||
		    strspn(names[i], "0123456789") != strlen(names[i]))
			continue;
		snprintf(mark, sizeof mark, "%s%s", names[i], TURN_MARK);
		if (fstatat(rfd, mark, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			snprintf(name, KEEP_NAMELEN, "%s", names[i]);
			found = 1;
		}
	}
	fsx_names_free(names, n);
	fsx_close(rfd);
	return found;
}

void
keep_close(struct keep *k)
{
	size_t i;

	if (k == NULL)
		return;
	if (k->ck != NULL)
		ckpt_lazy(k->ck, 0);
	for (i = 0; i < k->nks; i++)
		mem_free(k->ks[i].rel);
	mem_free(k->ks);
	if (k->dirfd >= 0) {
		/* the names made in replaced/ are part of what is kept */
		fsync(k->dirfd);
		close(k->dirfd);
	}
	pthread_mutex_destroy(&k->mu);
	mem_free(k);
}

/* Add what dirfd (replaced/<N>/prefix) holds to t, recursively. */
static int
recover_dir(struct ckpt *ck, int rootfd, int dirfd, const char *prefix,
    struct ckpt_turn *t, int depth)
{
	struct pstate before, after;
	struct stat st;
	char **names, *rel;
	size_t n, i;
	int fd, rc = 0;

	if (depth > 256) {
		errno = ELOOP;
		return -1;
	}
	if (fsx_list(dirfd, NULL, NULL, &names, &n) < 0)
		return -1;
	for (i = 0; i < n && rc == 0; i++) {
		if (fsx_is_tmp_name(names[i]) ||
		    fstatat(dirfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if ((rel = *prefix != '\0' ? path_join(prefix, names[i]) :
		    mem_strdup(names[i])) == NULL) {
			rc = -1;
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			if ((fd = openat(dirfd, names[i], DFLAGS)) < 0)
				rc = -1;
			else {
				rc = recover_dir(ck, rootfd, fd, rel, t,
				    depth + 1);
				close(fd);
			}
		} else if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
		    ckpt_find(t, rel) == NULL &&
		    (rc = ckpt_state(ck, dirfd, names[i], 1, &before)) == 0 &&
		    (rc = ckpt_state(ck, rootfd, rel, 0, &after)) == 0 &&
		    !pstate_special(&after) && !pstate_same(&before, &after))
			rc = ckpt_add(t, rel, &before, &after);
		mem_free(rel);
	}
	fsx_names_free(names, n);
	return rc;
}

int
keep_recover(struct session *s, struct ckpt *ck, int rootfd,
    const char *label, size_t *n)
{
	struct keep k;
	struct ckpt_turn t;
	char name[KEEP_NAMELEN];
	int rfd, fd, rc, r;

	*n = 0;
	while ((r = keep_unrecorded(s, name)) > 0) {
		memset(&k, 0, sizeof k);
		k.s = s;
		snprintf(k.name, sizeof k.name, "%s", name);
		if ((rfd = openat(s->dirfd, "replaced", DFLAGS)) < 0)
			return -1;
		fd = openat(rfd, name, DFLAGS);
		fsx_close(rfd);
		if (fd < 0)
			return -1;
		if (ckpt_turn_end(ck) < 0 || ckpt_for_write(ck, &t) < 0) {
			close(fd);
			return -1;
		}
		rc = recover_dir(ck, rootfd, fd, "", &t, 0);
		close(fd);
		if (rc == 0 && t.n > 0) {
			mem_free(t.label);
			if ((t.label = mem_strdup(label)) == NULL ||
			    ckpt_save(ck, &t) < 0)
				rc = -1;
			else
				(*n)++;
		}
		ckpt_turn_clear(&t);
		if (rc < 0 || mark_recorded(&k) < 0)
			return -1;
	}
	return r;
}
