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
#include "session/keep.h"

#define DFLAGS		(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define COPY_BUF	(128 * 1024)
#define KEEP_MAXN	100000
#define TURN_MARK	".turn"

/* What put snapshotted of one path: its state before the apply. */
struct kept_state {
	char			*rel;
	struct ckpt_state	 before;
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

/*
 * replaced/<N>.turn: all that replaced/<N> holds is in a recorded turn,
 * open or settled (keep_unrecorded). Made (on) or taken away, synced.
 */
static int
set_mark(struct keep *k, int on)
{
	char mark[KEEP_NAMELEN + sizeof TURN_MARK];
	int rfd, rc;

	snprintf(mark, sizeof mark, "%s%s", k->name, TURN_MARK);
	if ((rfd = openat(k->s->dirfd, "replaced", DFLAGS)) < 0)
		return -1;
	if (on)
		rc = fsx_write_atomic(rfd, mark, "", 0, 0600, 0);
	else
		rc = unlinkat(rfd, mark, 0) < 0 && errno != ENOENT ? -1 :
		    fsx_sync_dir(rfd);
	fsx_close(rfd);
	if (rc == 0)
		k->marked = on;
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
snapshot(struct keep *k, const char *rel, int dirfd, const char *name,
    struct ckpt_state *out)
{
	struct kept_state *v;
	struct ckpt_state st;
	char *r;
	size_t cap;
	int rc = -1;

	if (k->ck == NULL)
		return 0;
	if (ckpt_state(k->ck, dirfd, name, 1, &st) < 0)
		return -1;
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
	k->ks[k->nks].lazy = st.kind == CKPT_FILE;
	k->nks++;
	r = NULL;
	rc = 0;
out:
	pthread_mutex_unlock(&k->mu);
	mem_free(r);
	return rc;
}

/*
 * Whether the open turn holds st as rel's before: keep_begin's entries
 * (from nold on) are in the change list's bytewise order.
 */
static int
turn_holds(struct keep *k, const char *rel, const struct ckpt_state *st)
{
	struct ckpt_entry *e = NULL;
	size_t lo = k->nold, hi = k->t.n, mid, i;
	int c;

	for (i = 0; i < k->nold && e == NULL; i++)
		if (strcmp(k->t.e[i].path, rel) == 0)
			e = &k->t.e[i];
	while (e == NULL && lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = strcmp(rel, k->t.e[mid].path)) == 0)
			e = &k->t.e[mid];
		else if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return e != NULL && ckpt_same(&e->before, st);
}

static int
put(void *arg, const char *rel, int dirfd, const char *name,
    struct apply_kept *out)
{
	struct keep *k = arg;
	struct ckpt_state was;
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
landing(struct keep *k, const struct change *ch, struct ckpt_state *st)
{
	memset(st, 0, sizeof *st);
	switch (ch->status) {
	case CHANGE_DELETED:
	case CHANGE_RMDIR:
		st->kind = CKPT_ABSENT;
		return;
	case CHANGE_MKDIR:
	case CHANGE_DIRMODE:
		st->kind = CKPT_DIR;
		st->mode = ch->new_mode & 07777;
		return;
	default:
		break;
	}
	if (ckpt_state(k->ck, k->s->upperfd, ch->path, 0, st) == 0 &&
	    (st->kind == CKPT_FILE || st->kind == CKPT_LINK))
		return;
	/* what the list saw, without its hash (the settle reads it) */
	memset(st, 0, sizeof *st);
	st->kind = ch->new_kind == SHADOW_SYMLINK ? CKPT_LINK : CKPT_FILE;
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
		n += k->t.e[i].before.kind == CKPT_FILE ||
		    k->t.e[i].before.kind == CKPT_LINK;
	if (n > 1 && os_syncfs_cheap(ckpt_blobs(k->ck)))
		return os_syncfs(ckpt_blobs(k->ck));
	for (i = from; i < k->t.n && rc == 0; i++) {
		if (k->t.e[i].before.kind != CKPT_FILE &&
		    k->t.e[i].before.kind != CKPT_LINK)
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
	struct ckpt_state before, after;
	size_t i;

	if (k->ck == NULL)
		return 0;
	if ((!k->join && ckpt_turn_end(k->ck) < 0) ||
	    ckpt_for_write(k->ck, &k->t) < 0)
		return -1;
	k->begun = 1;
	k->nold = k->t.n;
	for (i = 0; i < c->n; i++) {
		if (!sel[i] || c->v[i].refuse != NULL ||
		    (k->nold > 0 && ckpt_find(&k->t, c->v[i].path) != NULL))
			continue;
		if (ckpt_state(k->ck, rootfd, c->v[i].path, 1, &before) < 0) {
			if (errno != EAGAIN)
				return -1;
			continue;	/* changing under us: apply refuses */
		}
		/* fifos, sockets, devices: no turn holds them */
		if (before.kind == CKPT_OTHER)
			continue;
		landing(k, &c->v[i], &after);
		if (ckpt_add(&k->t, c->v[i].path, &before, &after) < 0)
			return -1;
	}
	if (k->t.n == k->nold)
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
	struct ckpt_entry *e;
	struct ckpt_state after;
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
		    k->ks[i].before.kind == CKPT_OTHER)
			continue;
		memset(&after, 0, sizeof after);	/* the settle reads it */
		rc = ckpt_add(&k->t, k->ks[i].rel, &k->ks[i].before, &after);
	}
	if (rc == 0 && (k->t.open || k->t.n > k->nold))
		rc = ckpt_settle_landed(k->ck, rootfd, &k->t, 1, 0,
		    CKPT_LAND_DROP_OTHER);
	/* bytes kept that the turn cannot give back (a file now a fifo) */
	held = 1;
	for (i = 0; i < k->nks; i++)
		if ((k->ks[i].before.kind == CKPT_FILE ||
		    k->ks[i].before.kind == CKPT_LINK) &&
		    ((e = ckpt_find(&k->t, k->ks[i].rel)) == NULL ||
		    !ckpt_same(&e->before, &k->ks[i].before)))
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
	ckpt_turn_clear(&k->t);
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
	struct ckpt_state before, after;
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
		    after.kind != CKPT_OTHER && !ckpt_same(&before, &after))
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
		if (rc < 0 || set_mark(&k, 1) < 0)
			return -1;
	}
	return r;
}
