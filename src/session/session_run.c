/*
 * session_run: the marks around a dry-run command (session_run.h).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/fsx.h"
#include "lib/mem.h"
#include "lib/os.h"
#include "session/session.h"
#include "session/session_rmtree.h"
#include "session/session_run.h"

#define DEPTH_MAX	1024

#define RUN_MARK	"running"
#define RUN_IDLE	"idle"
#define RUN_CUT		"interrupted"
#define RUN_INCOMPLETE	"incomplete"
#define WORK_OLD	"work.old"
#define CLOCK_SLACK	50000000LL	/* ns */

#define BOOT_UNKNOWN	"unknown"

/* This boot's id, or BOOT_UNKNOWN (which no mark is trusted to match). */
static void
boot_id(char *buf, size_t len)
{
	if (fsx_read_line("/proc/sys/kernel/random/boot_id", buf, len) < 0 ||
	    buf[0] == '\0')
		snprintf(buf, len, "%s", BOOT_UNKNOWN);
}

enum { MARK_THIS = 1, MARK_OTHER = 0 };

/*
 * The run mark dirfd/name: MARK_THIS when it names boot (a known boot),
 * MARK_OTHER when it names another boot or cannot be read as a mark, -1
 * with errno when it is not there (ENOENT) or lookup failed.
 */
static int
mark_of(int dirfd, const char *name, const char *boot)
{
	char mark[64];
	ssize_t n;

	n = readlinkat(dirfd, name, mark, sizeof mark - 1);
	if (n < 0)
		return errno == EINVAL ? MARK_OTHER : -1;
	mark[n] = '\0';
	return strcmp(mark, boot) == 0 && strcmp(boot, BOOT_UNKNOWN) != 0 ?
	    MARK_THIS : MARK_OTHER;
}

static int
ctime_since(const struct stat *st, const struct timespec *t)
{
	struct timespec c = os_ctime(st);

	return c.tv_sec > t->tv_sec ||
	    (c.tv_sec == t->tv_sec && c.tv_nsec >= t->tv_nsec);
}

/* One directory of upper/ as begin saw it. */
struct run_dir {
	dev_t		dev;
	ino_t		ino;
	mode_t		mode;
	size_t		entries;
};

struct snap {
	struct run_dir	*v;
	size_t		 n, cap;
};

static int
cmp_dir(const void *a, const void *b)
{
	const struct run_dir *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return 0;
}

/* Note dfd (stat st) and every directory beneath it. */
static int
snap_dir(struct snap *sn, int dfd, const struct stat *st, int depth)
{
	struct run_dir *nv, *me;
	struct dirent *e;
	struct stat cst;
	size_t idx;
	DIR *d;
	int fd, sub, rc = 0;

	if (depth > DEPTH_MAX) {
		errno = ELOOP;
		return -1;
	}
	if (sn->n == sn->cap) {
		sn->cap = sn->cap ? sn->cap * 2 : 64;
		if ((nv = mem_reallocarray(sn->v, sn->cap,
		    sizeof *nv)) == NULL)
			return -1;
		sn->v = nv;
	}
	idx = sn->n++;
	me = &sn->v[idx];
	me->dev = st->st_dev;
	me->ino = st->st_ino;
	me->mode = st->st_mode;
	me->entries = 0;
	if ((fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		sn->v[idx].entries++;
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		if (fstatat(dirfd(d), e->d_name, &cst, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(cst.st_mode))
			continue;
		sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;	/* mode 0: it changes, or it does not */
		rc = snap_dir(sn, sub, &cst, depth + 1);
		close(sub);
	}
	closedir(d);
	return rc;
}

static const struct run_dir *
snap_find(const struct session_run *r, const struct stat *st)
{
	struct run_dir key;

	key.dev = st->st_dev;
	key.ino = st->st_ino;
	if (r->ndirs == 0)
		return NULL;
	return bsearch(&key, r->dirs, r->ndirs, sizeof *r->dirs, cmp_dir);
}

/*
 * The entries of dfd that were there when begin looked, as far as one can
 * tell now: those unchanged since t, and directories begin noted. An
 * entry made or changed since t is judged on its own by the walk.
 */
static size_t
count_old(const struct session_run *r, int dfd, const struct timespec *t)
{
	struct dirent *e;
	struct stat st;
	size_t n = 0;
	DIR *d;
	int fd;

	if ((fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return (size_t)-1;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return (size_t)-1;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			n = (size_t)-1;
			break;
		}
		if (!ctime_since(&st, t) ||
		    (S_ISDIR(st.st_mode) && snap_find(r, &st) != NULL))
			n++;
	}
	closedir(d);
	return n;
}

static int
is_empty(int dfd)
{
	struct dirent *e;
	DIR *d;
	int fd, empty = 1;

	if ((fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 0;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return 0;
	}
	while (empty && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			empty = 0;
	closedir(d);
	return empty;
}

/*
 * Whether the directory dfd (stat st; real counterpart rfd/name, or rfd
 * -1) differs from what begin noted: another mode, or an entry gone. A
 * new one differs unless it is an empty copy-up of a real directory with
 * the same mode (overlayfs makes those for a file made and removed in
 * it, like index.lock).
 */
static int
dir_differs(const struct session_run *r, int dfd, const struct stat *st,
    int rfd, const char *name, const struct timespec *t)
{
	const struct run_dir *was = snap_find(r, st);
	struct stat rs;

	if (was != NULL)
		return was->mode != st->st_mode ||
		    was->entries != count_old(r, dfd, t);
	if (!is_empty(dfd) || rfd < 0 || name == NULL)
		return 1;
	if (fstatat(rfd, name, &rs, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISDIR(rs.st_mode) || (rs.st_mode & 07777) != (st->st_mode & 07777))
		return 1;
	{
		char v[4];

		/* an opaque dir hides the real one's entries: a change */
		return os_getxattr(dfd, "trusted.overlay.opaque", v, 4) >= 0 ||
		    os_getxattr(dfd, "user.overlay.opaque", v, 4) >= 0;
	}
}

/*
 * 1 when dfd (real counterpart rfd, or -1) or anything beneath it differs
 * from what begin noted, else 0. Every change overlayfs makes in upper/
 * moves some ctime there; a directory whose ctime moved is compared with
 * the note. Anything that cannot be looked at counts as changed.
 */
static int
changed_since(const struct session_run *r, int dfd, int rfd,
    const struct timespec *t, int depth)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	int fd, sub, rsub, rc = 0;

	if (depth > DEPTH_MAX)
		return 1;
	if ((fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 1;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return 1;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			rc = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			rc = ctime_since(&st, t);
			continue;
		}
		sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			rc = 1;
			continue;
		}
		if (ctime_since(&st, t) &&
		    dir_differs(r, sub, &st, rfd, e->d_name, t))
			rc = 1;
		if (rc == 0) {
			rsub = rfd < 0 ? -1 : openat(rfd, e->d_name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			rc = changed_since(r, sub, rsub, t, depth + 1);
			fsx_close(rsub);
		}
		close(sub);
	}
	closedir(d);
	return rc;
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC, in ns: moves when the clock is set */
static long long
clock_offset(void)
{
	struct timespec rt, mt;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	return (rt.tv_sec - mt.tv_sec) * 1000000000LL +
	    (rt.tv_nsec - mt.tv_nsec);
}

static int	note_dirs(struct session *, struct session_run *);

int
session_run_begin(struct session *s, struct session_run *r)
{
	char boot[64];
	struct stat st;
	int tries, m;

	memset(r, 0, sizeof *r);
	boot_id(boot, sizeof boot);
	/* a run that could not record its bases: mark them, then run */
	m = mark_of(s->dirfd, RUN_INCOMPLETE, boot);
	if (m >= 0) {
		r->unrecorded = 1;
		if (renameat(s->dirfd, RUN_INCOMPLETE, s->dirfd, RUN_IDLE) < 0)
			return -1;
	} else if (errno != ENOENT)
		return -1;
	m = mark_of(s->dirfd, RUN_MARK, boot);
	if (m == MARK_THIS) {
		/* arcturn was killed mid-run: the page cache has it all */
		if (os_syncfs(s->upperfd) < 0)
			return -1;
		if (renameat(s->dirfd, RUN_MARK, s->dirfd, RUN_IDLE) < 0)
			return -1;
		r->stale = r->unrecorded = 1;
	} else if (m == MARK_OTHER) {
		/* a restart (or a mark we cannot read) */
		if (renameat(s->dirfd, RUN_MARK, s->dirfd, RUN_CUT) < 0)
			return -1;
		r->cut = r->stale = r->unrecorded = 1;
	} else if (errno != ENOENT)
		return -1;
	/* normally gone already: session_run_sweep */
	if (unlinkat(s->dirfd, WORK_OLD, AT_REMOVEDIR) < 0 &&
	    errno != ENOENT && session_rmtree(s->dirfd, WORK_OLD) < 0)
		return -1;
	/* overlayfs leaves work/work at mode 0; moving a dir needs write */
	for (tries = 0; renameat(s->dirfd, "work/work", s->dirfd,
	    WORK_OLD) < 0; tries++) {
		if (errno == ENOENT)
			break;
		if (errno != EACCES || tries > 0 ||
		    fchmodat(s->dirfd, "work/work", 0700, 0) < 0)
			return -1;
	}
	/*
	 * The mark: the last run's, renamed back when it names this boot (a
	 * rename allocates no inode; on ext4 without a journal, every inode
	 * freed makes later allocations slower for minutes), else made anew.
	 */
	m = mark_of(s->dirfd, RUN_IDLE, boot);
	if (m == MARK_THIS) {
		if (renameat(s->dirfd, RUN_IDLE, s->dirfd, RUN_MARK) < 0)
			return -1;
	} else if ((m == MARK_OTHER && unlinkat(s->dirfd, RUN_IDLE, 0) < 0) ||
	    symlinkat(boot, s->dirfd, RUN_MARK) < 0)
		return -1;
	/* a rename sets the ctime too */
	if (fstatat(s->dirfd, RUN_MARK, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	r->since = os_ctime(&st);
	/*
	 * The command starts on a later tick than since: what it changes is
	 * stamped after since, and a file saved just before the run, in
	 * since's own tick, is not taken for a change of the run's.
	 */
	if (fsx_tick_past(s->dirfd, RUN_MARK, &r->since) < 0)
		return -1;
	r->clock = clock_offset();
	return note_dirs(s, r);
}

/* What upper/'s directories hold now; without it every run "changed". */
static int
note_dirs(struct session *s, struct session_run *r)
{
	struct snap sn = { NULL, 0, 0 };
	struct stat st;

	if (fstat(s->upperfd, &st) < 0)
		return -1;
	if (snap_dir(&sn, s->upperfd, &st, 0) < 0) {
		mem_free(sn.v);
		/* no note: every directory that moved counts as changed */
		return 0;
	}
	if (sn.n > 1)
		qsort(sn.v, sn.n, sizeof *sn.v, cmp_dir);
	r->dirs = sn.v;
	r->ndirs = sn.n;
	return 0;
}

void
session_run_free(struct session_run *r)
{
	mem_free(r->dirs);
	r->dirs = NULL;
	r->ndirs = 0;
}

/*
 * What a volatile mount leaves: work/work and its mark incompat/volatile/
 * dirty, the directories at mode 0 (session_run_end opens them up).
 */
static const char *const left_dirs[] = {
	"work/work", "work/work/incompat", "work/work/incompat/volatile"
};
static const char *const old_dirs[] = {
	WORK_OLD, WORK_OLD "/incompat", WORK_OLD "/incompat/volatile"
};

void
session_run_sweep(struct session *s)
{
	int saved = errno, i, ok;

	ok = unlinkat(s->dirfd, WORK_OLD "/incompat/volatile/dirty", 0) == 0;
	for (i = 2; i >= 0 && ok; i--)
		ok = unlinkat(s->dirfd, old_dirs[i], AT_REMOVEDIR) == 0;
	/* anything else (a copy-up a crash cut short): the long way */
	if (!ok)
		(void)session_rmtree(s->dirfd, WORK_OLD);
	errno = saved;
}

int
session_run_changed(struct session *s, int rootfd,
    const struct session_run *r)
{
	long long d = clock_offset() - r->clock;
	struct stat st;

	/* ctimes are only comparable while the clock was not set back */
	if (r->stale || d < -CLOCK_SLACK || d > CLOCK_SLACK)
		return 1;
	if (fstat(s->upperfd, &st) < 0)
		return 1;
	if (ctime_since(&st, &r->since) &&
	    dir_differs(r, s->upperfd, &st, -1, NULL, &r->since))
		return 1;
	return changed_since(r, s->upperfd, rootfd, &r->since, 0);
}

void
session_run_since(const struct session_run *r, struct timespec *out)
{
	long long back = r->clock - clock_offset();

	*out = r->since;
	if (back <= CLOCK_SLACK)
		return;
	back += CLOCK_SLACK;
	out->tv_sec -= (time_t)(back / 1000000000LL);
	out->tv_nsec -= (long)(back % 1000000000LL);
	if (out->tv_nsec < 0) {
		out->tv_nsec += 1000000000L;
		out->tv_sec--;
	}
}

int
session_run_end(struct session *s, int changed, int recorded)
{
	int i;

	/* so that its owner can delete the session with rm -r, and sweep */
	if (geteuid() != 0)
		for (i = 0; i < 3; i++)
			if (fchmodat(s->dirfd, left_dirs[i], 0700, 0) < 0)
				break;
	if (changed && os_syncfs(s->upperfd) < 0)
		return -1;
	return renameat(s->dirfd, RUN_MARK, s->dirfd, recorded ? RUN_IDLE :
	    RUN_INCOMPLETE);
}

int
session_run_incomplete(const struct session *s)
{
	struct stat st;

	return fstatat(s->dirfd, RUN_INCOMPLETE, &st,
	    AT_SYMLINK_NOFOLLOW) == 0;
}

int
session_run_interrupted(const struct session *s)
{
	char boot[64];
	struct stat st;

	if (fstatat(s->dirfd, RUN_CUT, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return 1;
	/* a mark from another boot, not settled yet: the next run will */
	if (fstatat(s->dirfd, RUN_MARK, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	boot_id(boot, sizeof boot);
	return mark_of(s->dirfd, RUN_MARK, boot) == MARK_OTHER;
}
