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

/*
 * What keep_begin saw at a path it hashed, the same before and after
 * (dev, inode, size, times): put finds the same object there, the state
 * and its blob are those of the turn, not read again.
 */
struct ident {
	dev_t			 dev;
	ino_t			 ino;
	off_t			 size;
	struct timespec		 mtim, ctim;
	int			 ok;
};

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
	struct ckpt_turn	 t;		/* keep_begin's, recorded open */
	size_t			 nold;		/* entries t had when joined */
	struct ident		*id;		/* of t's entries from nold */
	int			 begun;
	int			 marked;	/* replaced/<N>.turn is there */
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

int
keep_mark(struct session *s, const char *name, int on)
{
	char mark[KEEP_NAMELEN + sizeof KEEP_TURN_MARK];
	int rfd, rc;

	snprintf(mark, sizeof mark, "%s%s", name, KEEP_TURN_MARK);
	if ((rfd = openat(s->dirfd, "replaced", DFLAGS)) < 0)
		return -1;
	if (on)
		rc = fsx_write_atomic(rfd, mark, "", 0, 0600, 0);
	else
		rc = unlinkat(rfd, mark, 0) < 0 && errno != ENOENT ? -1 :
		    fsx_sync_dir(rfd);
	fsx_close(rfd);
	return rc;
}

static int
set_mark(struct keep *k, int on)
{
	if (keep_mark(k->s, k->name, on) < 0)
		return -1;
	k->marked = on;
	return 0;
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

/* The index of rel among keep_begin's entries of t, or t.n. */
static size_t
begun_entry(const struct keep *k, const char *rel)
{
	size_t lo = k->nold, hi = k->t.n, mid;
	int c;

	/* in the change list's bytewise order */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = strcmp(rel, k->t.e[mid].path)) == 0)
			return mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return k->t.n;
}

static int
same_ident(const struct ident *a, const struct stat *st)
{
	struct timespec m = os_mtime(st), c = os_ctime(st);

	return a->ok && a->dev == st->st_dev && a->ino == st->st_ino &&
	    a->size == st->st_size &&
	    a->mtim.tv_sec == m.tv_sec && a->mtim.tv_nsec == m.tv_nsec &&
	    a->ctim.tv_sec == c.tv_sec && a->ctim.tv_nsec == c.tv_nsec;
}

static void
take_ident(struct ident *a, const struct stat *st)
{
	a->dev = st->st_dev;
	a->ino = st->st_ino;
	a->size = st->st_size;
	a->mtim = os_mtime(st);
	a->ctim = os_ctime(st);
	a->ok = 1;
}

/*
 * Whether the open turn holds st as rel's before. A joined turn that
 * had rel holds its first before, and the versions after it are the
 * turn's own (as for write): it holds rel.
 */
static int
turn_holds(struct keep *k, const char *rel, const struct pstate *st)
{
	size_t i;

	for (i = 0; i < k->nold; i++)
		if (strcmp(k->t.e[i].path, rel) == 0)
			return 1;
	i = begun_entry(k, rel);
	return i < k->t.n && pstate_same(&k->t.e[i].before, st);
}

/*
 * Snapshot dirfd/name, the object at rel, into the store (a blob) and
 * note its state as rel's before: the turn's, when keep_begin hashed
 * that very object (its blob synced then). No store: nothing to do.
 */
static int
snapshot(struct keep *k, const char *rel, int dirfd, const char *name,
    struct pstate *out)
{
	struct kept_state *v;
	struct pstate st;
	struct stat now;
	char *r;
	size_t cap, i;
	int rc = -1, lazy;

	if (k->ck == NULL)
		return 0;
	i = begun_entry(k, rel);
	if (k->id != NULL && i < k->t.n &&
	    fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
	    same_ident(&k->id[i - k->nold], &now)) {
		st = k->t.e[i].before;
		lazy = 0;
	} else if (ckpt_state(k->ck, dirfd, name, 1, &st) < 0)
		return -1;
	else
		lazy = st.kind == PSTATE_FILE;
	*out = st;
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
	k->ks[k->nks].lazy = lazy;
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
	struct pstate was;
	struct stat st;
	const char *base;
	int top, pfd, tries;

	memset(out, 0, sizeof *out);
	memset(&was, 0, sizeof was);
	if (snapshot(k, rel, dirfd, name, &was) < 0)
		return -1;
	pthread_mutex_lock(&k->mu);
	top = area(k);
	/* not what the open turn holds (changed since keep_begin looked):
	   the area is no longer all in a turn, before anything is moved */
	if (top >= 0 && k->marked && k->ck != NULL &&
	    !turn_holds(k, rel, &was) && set_mark(k, 0) < 0)
		top = -1;
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

/* The state change i of c lands at its path: from the upper tree. */
static void
landing(struct keep *k, const struct change *ch, struct pstate *st)
{
	memset(st, 0, sizeof *st);
	switch (ch->status) {
	case CHANGE_DELETED:
	case CHANGE_RMDIR:
		st->kind = PSTATE_ABSENT;
		return;
	case CHANGE_MKDIR:
	case CHANGE_DIRMODE:
		st->kind = PSTATE_DIR;
		st->mode = ch->new_mode & 07777;
		return;
	default:
		break;
	}
	if (ckpt_state(k->ck, k->s->upperfd, ch->path, 0, st) == 0 &&
	    (st->kind == PSTATE_FILE || st->kind == PSTATE_LINK))
		return;
	/* what the list saw, without its hash (the settle reads it) */
	memset(st, 0, sizeof *st);
	st->kind = ch->new_kind == SHADOW_SYMLINK ? PSTATE_LINK : PSTATE_FILE;
	st->mode = ch->new_mode & 07777;
}

/*
 * The blobs of the before states t[from..] names, stored lazily, made
 * durable (the record that names them follows): one syncfs where that
 * is cheap, else each, then their directory (ckpt_save).
 */
static int
sync_befores(struct keep *k, size_t from)
{
	char hex[HASH_HEXLEN + 1];
	size_t i, n = 0;
	int fd, rc = 0;

	for (i = from; i < k->t.n; i++)
		n += k->t.e[i].before.kind == PSTATE_FILE ||
		    k->t.e[i].before.kind == PSTATE_LINK;
	if (n > 1 && os_syncfs_cheap(ckpt_blobs(k->ck)))
		return os_syncfs(ckpt_blobs(k->ck));
	for (i = from; i < k->t.n && rc == 0; i++) {
		if (k->t.e[i].before.kind != PSTATE_FILE &&
		    k->t.e[i].before.kind != PSTATE_LINK)
			continue;
		hash_hex(k->t.e[i].before.sha, hex);
		fd = openat(ckpt_blobs(k->ck), hex, O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (fd < 0 || fsync(fd) < 0)
			rc = -1;
		fsx_close(fd);
	}
	return rc;
}

int
keep_begin(struct keep *k, int rootfd, const struct changes *c,
    const int *sel, const char *label)
{
	struct pstate before, after;
	struct ident *v;
	struct stat st0, st1;
	size_t i, n, nid = 0, held = 0;
	int seen;

	if (k->ck == NULL)
		return 0;
	if ((!k->join && ckpt_turn_end(k->ck) < 0) ||
	    ckpt_for_write(k->ck, &k->t) < 0)
		return -1;
	k->begun = 1;
	k->nold = k->t.n;
	for (i = 0; i < c->n; i++) {
		if (!sel[i] || c->v[i].refuse != NULL)
			continue;
		/* a joined turn that has the path keeps its before; it is
		   open all the same, so that a kill settles its after */
		if (k->nold > 0 && ckpt_find(&k->t, c->v[i].path) != NULL) {
			held++;
			continue;
		}
		seen = fstatat(rootfd, c->v[i].path, &st0,
		    AT_SYMLINK_NOFOLLOW) == 0;
		if (ckpt_state(k->ck, rootfd, c->v[i].path, 1, &before) < 0) {
			if (errno != EAGAIN)
				return -1;
			continue;	/* changing under us: apply refuses */
		}
		/* fifos, sockets, devices: no turn holds them */
		if (pstate_special(&before))
			continue;
		landing(k, &c->v[i], &after);
		if (ckpt_add(&k->t, c->v[i].path, &before, &after) < 0)
			return -1;
		n = k->t.n - k->nold;
		if (n > nid) {
			nid = nid ? nid * 2 : 64;
			if ((v = mem_reallocarray(k->id, nid, sizeof *v)) ==
			    NULL)
				return -1;
			k->id = v;
		}
		memset(&k->id[n - 1], 0, sizeof k->id[n - 1]);
		if (seen && before.kind == PSTATE_FILE &&
		    fstatat(rootfd, c->v[i].path, &st1,
		    AT_SYMLINK_NOFOLLOW) == 0) {
			take_ident(&k->id[n - 1], &st0);
			if (!same_ident(&k->id[n - 1], &st1))
				k->id[n - 1].ok = 0;
		}
	}
	if (k->t.n == k->nold && held == 0)
		return 0;
	if (k->t.label == NULL || k->t.label[0] == '\0') {
		mem_free(k->t.label);
		if ((k->t.label = mem_strdup(label)) == NULL)
			return -1;
	}
	k->t.open = CKPT_OPEN_LAND;
	if (sync_befores(k, k->nold) < 0 || ckpt_save(k->ck, &k->t) < 0) {
		k->t.open = 0;
		return -1;
	}
	/* what put will keep is in that turn: the area is marked at once
	   (put takes the mark away first where it is not) */
	if (area(k) >= 0)
		(void)set_mark(k, 1);
	return 0;
}

int
keep_turn(struct keep *k, int rootfd, unsigned long *id)
{
	struct pstate after;
	size_t i, j;
	int rc = 0, held;

	*id = 0;
	if (k->ck == NULL || !k->begun)
		return 0;
	/* what puts stored is synced (sync_kept); what is stored here, a
	   chmod's bytes, is synced as it is stored: the record names it */
	ckpt_lazy(k->ck, 0);
	/* before: what put kept, where it differs from what was seen */
	for (i = k->nold; i < k->t.n; i++)
		if ((j = ks_find(k, k->t.e[i].path)) < k->nks)
			k->t.e[i].before = k->ks[j].before;
	/* kept paths the change list does not name (none today) */
	for (i = 0; i < k->nks && rc == 0; i++) {
		if (ckpt_find(&k->t, k->ks[i].rel) != NULL ||
		    pstate_special(&k->ks[i].before))
			continue;
		memset(&after, 0, sizeof after);	/* the settle reads it */
		rc = ckpt_add(&k->t, k->ks[i].rel, &k->ks[i].before, &after);
	}
	if (rc == 0 && (k->t.open || k->t.n > k->nold))
		rc = ckpt_settle_landed(k->ck, rootfd, &k->t, 1, 0,
		    CKPT_LAND_DROP_OTHER);
	/* bytes kept that the turn cannot give back (a file now a fifo);
	   the befores are what put kept (above), or a joined turn's */
	held = 1;
	for (i = 0; i < k->nks; i++)
		if ((k->ks[i].before.kind == PSTATE_FILE ||
		    k->ks[i].before.kind == PSTATE_LINK) &&
		    ckpt_find(&k->t, k->ks[i].rel) == NULL)
			held = 0;
	k->whole = held && rc == 0;
	if (rc == 0 && k->t.n > 0)
		*id = k->t.id;
	/* the mark says whether a turn (open still, maybe) holds it all */
	if (held && !k->marked && k->dirfd >= 0)
		(void)set_mark(k, 1);
	else if (!held && k->marked && set_mark(k, 0) < 0)
		k->whole = 0;
	if (k->dirfd >= 0 && !k->marked)
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
	mem_free(k->id);
	ckpt_turn_clear(&k->t);
	if (k->dirfd >= 0) {
		/* the names made in replaced/ are part of what is kept */
		fsync(k->dirfd);
		close(k->dirfd);
	}
	pthread_mutex_destroy(&k->mu);
	mem_free(k);
}
