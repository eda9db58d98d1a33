/*
 * sandbox_sweep_linux: what no mount can cover, dealt with once the
 * command has ended (sandbox_linux.h: sweep_run, sweep_held): the
 * protected paths that did not exist when it started (roots.h: absent)
 * and the watched files (roots.h: watch).
 *
 * Nothing of the command runs when the sweep starts: the helper's
 * waiter returns once the init of the command's pid namespace has ended
 * (the kernel kills and reaps the rest of the namespace before that), and
 * bwrap once its pid 1 has. Should arcturn itself be killed, the backend
 * is killed with it (PR_SET_PDEATHSIG), and the command with the backend:
 * nothing runs on unswept (but nothing is swept either). The helper
 * without its mount layer (no user namespace: Landlock alone) has no pid
 * namespace: there a background child can outlive the command and race
 * the sweep, but there nothing is protected either (sandbox status says
 * so), and the helper falling back to it (-m) says so before the run.
 *
 * The walk to a path starts at / and never follows a symlink. A folder
 * that existed at the start gets back the mode it had (`chmod 555 .git`
 * must not keep a file in place); the first component that is not a
 * folder (a symlink put in place of one: `ln -s real tools` under
 * core.hooksPath = tools/git-hooks) is moved aside, never followed; the
 * protected path itself is moved aside whatever it is. Aside is a fresh
 * name in the same folder (NAME.arcturn-aside-RANDOM): a rename never
 * leaves the file system, and the command cannot have made that name
 * beforehand (arcturn draws it after the command ended; a name taken is
 * drawn again). What still cannot be dealt with is held: a marker in the
 * state dir's protected cache/ makes every later exec in that workspace
 * refuse until the path is gone (sweep_held).
 */
#include <sys/prctl.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/exitcode.h"
#include "lib/fsx.h"
#include "lib/hash.h"
#include "lib/mem.h"
#include "lib/os.h"
#include "policy/strlist.h"
#include "sandbox/sandbox.h"
#include "sandbox/sandbox_linux.h"
#include "sandbox/sandbox_posix.h"

/*
 * After the command: what the sweep found, as one line (the first
 * finding, and how many more), and what it could not deal with (hard:
 * the first such line, and the marker's lines).
 */
struct findings {
	char		 first[PATH_MAX + 512];
	size_t		 n;
	int		 minor;		/* first is a minor finding */
	char		 hard[PATH_MAX + 512];
	size_t		 nhard;
	struct strlist	 held;		/* "A path" or "C path" */
};

static void
vfound(struct findings *f, int minor, const char *fmt, va_list ap)
{
	if (f->n++ > 0 && (!f->minor || minor))
		return;
	f->minor = minor;
	vsnprintf(f->first, sizeof f->first, fmt, ap);
}

static void
found(struct findings *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfound(f, 0, fmt, ap);
	va_end(ap);
}

/* A finding that another one, when there is one, goes before. */
static void
found_minor(struct findings *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfound(f, 1, fmt, ap);
	va_end(ap);
}

/*
 * A hard finding: kind 'A' (a path that must be gone before the next
 * run) or 'C' (a protected file to check by hand).
 */
static void
failed(struct findings *f, int kind, const char *path, const char *fmt, ...)
{
	char line[PATH_MAX + 3];
	va_list ap;

	snprintf(line, sizeof line, "%c %s", kind, path);
	(void)strlist_push(&f->held, mem_strdup(line));
	if (f->nhard++ > 0)
		return;
	va_start(ap, fmt);
	vsnprintf(f->hard, sizeof f->hard, fmt, ap);
	va_end(ap);
}

/* The folders above one path as they were at the start, from / down. */
struct dirmark {
	dev_t	dev;
	ino_t	ino;
	mode_t	mode;
};

struct chain {
	struct dirmark	*d;
	size_t		 n;
};

/* A watched file (roots.h: watch) as it was before the command. */
struct snap {
	char		*buf;		/* NULL: could not be read */
	size_t		 len;
	mode_t		 mode;
	struct chain	 ch;
};

/*
 * The next component of *p (advanced past it) in comp: 1; 0 at the end,
 * or for a component longer than NAME_MAX (no file has such a name).
 */
static int
component(const char **p, char comp[NAME_MAX + 1], int *last)
{
	const char *c = *p, *s;
	size_t n;

	while (*c == '/')
		c++;
	if (*c == '\0')
		return 0;
	s = strchr(c, '/');
	if ((n = s != NULL ? (size_t)(s - c) : strlen(c)) > NAME_MAX)
		return 0;
	memcpy(comp, c, n);
	comp[n] = '\0';
	*p = c + n;
	*last = s == NULL || s[strspn(s, "/")] == '\0';
	return 1;
}

static int
open_dir(int fd, const char *name)
{
	return openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* chmod the folder fd (O_PATH) through its /proc name. */
static int
fd_chmod(int fd, mode_t mode)
{
	char proc[32];

	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	return chmod(proc, mode);
}

/*
 * The folders that exist above path's last component, now (before the
 * command: each prefix is looked at by its name, one call each, not
 * following its last component; those above it were folders). A prefix
 * that prev (NULL: none) shares was just looked at for it: taken from pc.
 */
static int
chain_take(const char *path, struct chain *ch, const char *prev,
    const struct chain *pc)
{
	char buf[PATH_MAX];
	struct stat st;
	size_t max = 1, i, len = strlen(path);

	ch->n = 0;
	for (i = 0; i < len; i++)
		max += path[i] == '/';
	if ((ch->d = mem_calloc(max, sizeof *ch->d)) == NULL)
		return -1;
	if (len >= sizeof buf)
		return 0;
	memcpy(buf, path, len + 1);
	for (i = 1; i < len && ch->n < max; i++) {
		if (buf[i] != '/' || buf[i - 1] == '/')
			continue;
		if (prev != NULL && ch->n < pc->n &&
		    strncmp(prev, path, i + 1) == 0) {
			ch->d[ch->n] = pc->d[ch->n];
			ch->n++;
			continue;
		}
		buf[i] = '\0';
		if (lstat(buf, &st) < 0 || !S_ISDIR(st.st_mode))
			break;
		buf[i] = '/';
		ch->d[ch->n].dev = st.st_dev;
		ch->d[ch->n].ino = st.st_ino;
		ch->d[ch->n].mode = st.st_mode & 07777;
		ch->n++;
	}
	return 0;
}

/*
 * A fresh name for name in the same folder, NAME.arcturn-aside-RANDOM
 * (name cut to fit NAME_MAX).
 */
static int
aside_name(const char *name, char out[NAME_MAX + 1])
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz234567";
	unsigned char r[12];
	char rnd[sizeof r + 1];
	size_t i;
	int keep;

	if (hash_random(r, sizeof r) < 0)
		return -1;
	for (i = 0; i < sizeof r; i++)
		rnd[i] = digits[r[i] & 31];
	rnd[sizeof r] = '\0';
	keep = NAME_MAX - (int)(sizeof ".arcturn-aside-" - 1) -
	    (int)(sizeof r);
	snprintf(out, NAME_MAX + 1, "%.*s.arcturn-aside-%s", keep, name, rnd);
	return 0;
}

/*
 * Move fd/name aside to a fresh name (in to). Where the folder refuses
 * (the command made it read-only, or the user keeps it so), its owner
 * may write it for the rename and gets the mode back after.
 */
static int
move_aside(int fd, const char *name, char to[NAME_MAX + 1])
{
	struct stat st, dir;
	int k, rc = -1, e, opened = 0;

	for (k = 0; k < 16; k++) {
		if (aside_name(name, to) < 0)
			return -1;
		if ((rc = os_rename_noreplace(fd, name, to)) == 0)
			break;
		if (errno == ENOSYS) {
			/* nothing of the command runs any more */
			if (fstatat(fd, to, &st, AT_SYMLINK_NOFOLLOW) == 0)
				continue;
			if ((rc = renameat(fd, name, fd, to)) == 0)
				break;
		}
		if ((errno == EACCES || errno == EPERM) && !opened &&
		    fstat(fd, &dir) == 0 && fd_chmod(fd, (dir.st_mode & 07777) |
		    S_IRWXU) == 0) {
			opened = 1;
			k--;
			continue;
		}
		if (errno != EEXIST)
			break;
	}
	if (rc < 0 && errno == EEXIST)
		errno = EAGAIN;
	e = errno;
	if (opened)
		(void)fd_chmod(fd, dir.st_mode & 07777);
	errno = e;
	return rc;
}

enum { W_OPEN, W_GONE, W_MOVED, W_FAIL };

/*
 * Walk down to path's folder (as the header comment says): W_OPEN with
 * *fdp that folder (O_PATH) and *name path's last component; W_GONE when
 * a component is missing; W_MOVED when a component above was not a
 * folder and is now aside (said in f); W_FAIL with errno and the folder
 * in *at (the length of path that names it).
 */
static int
walk(const char *path, const struct chain *ch, int *fdp, const char **name,
    size_t *at, struct findings *f)
{
	char comp[NAME_MAX + 1], to[NAME_MAX + 1];
	const char *p = path, *prev;
	struct stat st;
	size_t i = 0;
	int fd, sub, last, start, e;

	*at = 1;
	/* openat: musl's open(2) adds an fcntl for O_CLOEXEC (old kernels) */
	if ((fd = openat(AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return W_FAIL;
	for (;;) {
		prev = p;
		if (!component(&p, comp, &last)) {
			close(fd);
			errno = EINVAL;
			return W_FAIL;
		}
		if (last) {
			*name = p - strlen(comp);
			*fdp = fd;
			return W_OPEN;
		}
		*at = (size_t)(p - path);
		/*
		 * Every change through the folder's own fd (O_PATH, its
		 * /proc name): a name is never followed, even where a
		 * process of the command could still swap it (Landlock
		 * alone, no pid namespace). What does not open as a folder
		 * is looked at.
		 */
		sub = open_dir(fd, comp);
		e = errno;
		if (sub < 0 && fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			e = errno;
			close(fd);
			errno = e;
			return e == ENOENT ? W_GONE : W_FAIL;
		}
		if (sub < 0 && S_ISDIR(st.st_mode)) {
			close(fd);
			errno = e;	/* a folder, and it did not open */
			return W_FAIL;
		}
		if (sub < 0 && f == NULL) {
			close(fd);
			return W_GONE;	/* only looking */
		}
		if (sub < 0) {
			if (move_aside(fd, comp, to) < 0) {
				e = errno;
				close(fd);
				errno = e;
				return W_FAIL;
			}
			found(f, "exec: %s: the command put a %s at %.*s, "
			    "above this protected path; moved aside to %.*s/%s",
			    path,
			    S_ISLNK(st.st_mode) ? "symlink" : "file", (int)*at,
			    path, (int)(prev - path), path, to);
			close(fd);
			return W_MOVED;
		}
		close(fd);
		if (fstat(fd = sub, &st) < 0) {
			e = errno;
			close(fd);
			errno = e;
			return W_FAIL;
		}
		start = i < ch->n && st.st_dev == ch->d[i].dev &&
		    st.st_ino == ch->d[i].ino;
		if (start && f != NULL &&
		    (st.st_mode & 07777) != ch->d[i].mode) {
			if (fd_chmod(fd, ch->d[i].mode) < 0) {
				e = errno;
				close(fd);
				errno = e;
				return W_FAIL;
			}
			found_minor(f, "exec: %.*s: its mode was changed "
			    "during the run (%04o); put back (%04o)", (int)*at,
			    path, (unsigned)(st.st_mode & 07777),
			    (unsigned)ch->d[i].mode);
		}
		/* a folder the command made without search for its owner */
		if (!start && f != NULL && !(st.st_mode & S_IXUSR) &&
		    fd_chmod(fd, (st.st_mode & 07777) | S_IRWXU) < 0) {
			e = errno;
			close(fd);
			errno = e;
			return W_FAIL;
		}
		i++;
	}
}

/*
 * Protected paths that did not exist when the command started: what is
 * there now is moved aside (not deleted: it may be a file of the user's
 * that the command moved there), so that git run afterwards does not
 * read it. Paths in the same folder (config.worktree, commondir) are
 * looked at through the one fd the walk to the first of them opened.
 */
static void
sweep_absent(const struct roots *r, const struct chain *ac,
    struct findings *f)
{
	char to[NAME_MAX + 1];
	const char *path, *name, *prev = NULL;
	struct stat st;
	size_t i, at, dl = 0;
	int fd = -1;

	for (i = 0; i < r->absent.n; i++) {
		path = r->absent.v[i];
		if (fd >= 0 && strncmp(path, prev, dl) == 0 &&
		    path[dl] != '\0' && strchr(path + dl, '/') == NULL)
			name = path + dl;	/* prev's folder, open */
		else {
			if (fd >= 0)
				close(fd);
			fd = -1;
			switch (walk(path, &ac[i], &fd, &name, &at, f)) {
			case W_GONE:
			case W_MOVED:
				fd = -1;
				continue;
			case W_FAIL:
				fd = -1;
				failed(f, 'A', path, "exec: %s: a protected "
				    "path that did not exist; cannot reach %.*s "
				    "to see what the command left there (%s)",
				    path, (int)at, path, strerror(errno));
				continue;
			}
			prev = path;
			dl = (size_t)(name - path);
		}
		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT)
				failed(f, 'A', path, "exec: %s: a protected "
				    "path that did not exist; cannot look at "
				    "it (%s)", path, strerror(errno));
		} else if (move_aside(fd, name, to) == 0)
			found(f, "exec: %s: created during the run at a "
			    "protected path that did not exist; moved aside to "
			    "%.*s%s", path, (int)(name - path), path, to);
		else
			failed(f, 'A', path, "exec: %s: created during the run "
			    "at a protected path that did not exist; cannot "
			    "move it aside (%s)", path, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
}

/* Read the watched files and their folders: r->watch.n snaps, or NULL. */
static struct snap *
snap_take(const struct roots *r)
{
	struct snap *sn;
	struct stat st;
	const char *name;
	size_t i, at;
	int fd;

	if ((sn = mem_calloc(r->watch.n + 1, sizeof *sn)) == NULL)
		return NULL;
	for (i = 0; i < r->watch.n; i++) {
		if (chain_take(r->watch.v[i], &sn[i].ch, i > 0 ?
		    r->watch.v[i - 1] : NULL, i > 0 ? &sn[i - 1].ch : NULL) < 0)
			goto oom;
		if (walk(r->watch.v[i], &sn[i].ch, &fd, &name, &at,
		    NULL) != W_OPEN)
			continue;
		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && fsx_read_all(fd, name,
		    ROOTS_GIT_FILE, &sn[i].buf, &sn[i].len) == 0)
			sn[i].mode = st.st_mode & 07777;
		close(fd);
	}
	return sn;
oom:
	while (i-- > 0) {
		mem_free(sn[i].buf);
		mem_free(sn[i].ch.d);
	}
	mem_free(sn);
	return NULL;
}

/* Put fd/name back as sn says (as move_aside, on a read-only folder). */
static int
put_back(int fd, const char *name, const struct snap *sn)
{
	struct stat st;
	int rc, e;

	if ((rc = fsx_write_atomic(fd, name, sn->buf, sn->len, sn->mode,
	    0)) == 0 || (errno != EACCES && errno != EPERM) ||
	    fstat(fd, &st) < 0 || fd_chmod(fd, (st.st_mode & 07777) |
	    S_IRWXU) < 0)
		return rc;
	rc = fsx_write_atomic(fd, name, sn->buf, sn->len, sn->mode, 0);
	e = errno;
	(void)fd_chmod(fd, st.st_mode & 07777);
	errno = e;
	return rc;
}

/*
 * Put each watched file back as it was (snap_take), where the command
 * changed it; frees sn.
 */
static void
snap_restore(const struct roots *r, struct snap *sn, struct findings *f)
{
	char to[NAME_MAX + 1], *now;
	const char *path, *name;
	struct stat st;
	size_t i, len, at;
	int fd, same, w;

	for (i = 0; sn != NULL && i < r->watch.n; i++) {
		path = r->watch.v[i];
		if (sn[i].buf == NULL)
			goto next;
		if ((w = walk(path, &sn[i].ch, &fd, &name, &at, f)) ==
		    W_GONE)
			found(f, "exec: %s: the folder %.*s of this protected "
			    "file was removed during the run", path, (int)at,
			    path);
		if (w == W_FAIL)
			failed(f, 'C', path, "exec: %s: a protected file; "
			    "cannot reach %.*s to check it (%s)", path, (int)at,
			    path, strerror(errno));
		if (w != W_OPEN)
			goto next;
		now = NULL;
		same = fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && (st.st_mode & 07777) == sn[i].mode &&
		    fsx_read_all(fd, name, ROOTS_GIT_FILE, &now, &len) == 0 &&
		    len == sn[i].len && memcmp(now, sn[i].buf, len) == 0;
		mem_free(now);
		if (!same) {
			/* a folder in its place cannot be renamed over */
			if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISDIR(st.st_mode))
				(void)move_aside(fd, name, to);
			if (put_back(fd, name, &sn[i]) == 0)
				found(f, "exec: %s: a protected file changed "
				    "during the run; put back as it was", path);
			else
				failed(f, 'C', path, "exec: %s: a protected "
				    "file changed during the run; cannot put "
				    "it back (%s)", path, strerror(errno));
		}
		close(fd);
next:
		mem_free(sn[i].buf);
		mem_free(sn[i].ch.d);
	}
	mem_free(sn);
}

/* ---- The marker: a workspace held until what the sweep left is gone */

/*
 * The marker's name in $state/cache: unswept-<hash of the workspace>. It
 * holds records, each ended by a NUL (a path may hold a newline): "A
 * PATH", a path that must be gone before the next run, or "C PATH", a
 * protected file to check (the marker is then removed by hand).
 */
static void
held_name(const struct policy *p, char name[64])
{
	unsigned char d[HASH_LEN];
	char hex[HASH_HEXLEN + 1];

	hash_buf(p->workspace, strlen(p->workspace), d);
	hash_hex(d, hex);
	snprintf(name, 64, "unswept-%.32s", hex);
}

/* $state/cache (made with make), open; -1 with errno. */
static int
cache_dir(const struct policy *p, int make)
{
	int fd, sub, e;

	if ((fd = openat(AT_FDCWD, p->state, O_PATH | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	if (make && mkdirat(fd, "cache", 0700) < 0 && errno != EEXIST) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	sub = openat(fd, "cache", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	e = errno;
	close(fd);
	errno = e;
	return sub;
}

/* Write the marker: 0, or -1 with errno. */
static int
held_write(const struct policy *p, const struct strlist *l)
{
	char name[64], *buf, *s;
	size_t i, len = 0;
	int fd, rc, e;

	for (i = 0; i < l->n; i++)
		len += strlen(l->v[i]) + 1;
	if ((buf = s = mem_alloc(len + 1)) == NULL)
		return -1;
	for (i = 0; i < l->n; i++)
		s += sprintf(s, "%s", l->v[i]) + 1;	/* NUL-ended */
	if ((fd = cache_dir(p, 1)) < 0) {
		mem_free(buf);
		return -1;
	}
	held_name(p, name);
	rc = fsx_write_atomic(fd, name, buf, len, 0600, 0);
	e = errno;
	close(fd);
	mem_free(buf);
	errno = e;
	return rc;
}

/* 1 when path (absolute) names something now, not following a link. */
static int
still_there(const char *path)
{
	struct chain none = { NULL, 0 };
	const char *name;
	struct stat st;
	size_t at;
	int fd, w, rc;

	if ((w = walk(path, &none, &fd, &name, &at, NULL)) == W_GONE)
		return 0;
	if (w != W_OPEN)
		return 1;
	rc = fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	    errno != ENOENT;
	close(fd);
	return rc;
}

int
sweep_held(const struct policy *p, char *err, size_t errlen)
{
	char name[64], *buf, *line, *nl;
	size_t len;
	int fd, rc = 0;

	if (p->state == NULL || p->workspace == NULL ||
	    (fd = cache_dir(p, 0)) < 0)
		return 0;
	held_name(p, name);
	if (fsx_read_all(fd, name, 1 << 20, &buf, &len) < 0) {
		rc = errno == ENOENT ? 0 : -1;
		if (rc < 0)
			snprintf(err, errlen, "exec: %s/cache/%s: %s", p->state,
			    name, strerror(errno));
		close(fd);
		return rc;
	}
	for (line = buf; rc == 0 && line < buf + len; line = nl + 1) {
		if ((nl = memchr(line, '\0', (size_t)(buf + len - line))) ==
		    NULL)
			nl = buf + len;
		*nl = '\0';
		if (strlen(line) < 3 || line[1] != ' ')
			continue;
		if (line[0] == 'A' && still_there(line + 2)) {
			snprintf(err, errlen, "exec: %s: an earlier run left "
			    "this at a protected path and could not move it "
			    "aside (git may run what it says): refusing to run "
			    "here until it is gone; check it and remove it (if "
			    "it is yours, remove %s/cache/%s instead)",
			    line + 2, p->state, name);
			rc = -1;
		} else if (line[0] == 'C') {
			snprintf(err, errlen, "exec: %s: an earlier run "
			    "changed this protected file and could not put it "
			    "back: "
			    "refusing to run here; check it, then remove "
			    "%s/cache/%s", line + 2, p->state, name);
			rc = -1;
		}
	}
	if (rc == 0 && unlinkat(fd, name, 0) < 0 && errno != ENOENT) {
		snprintf(err, errlen, "exec: %s/cache/%s: %s", p->state, name,
		    strerror(errno));
		rc = -1;
	}
	mem_free(buf);
	close(fd);
	return rc;
}

/* What the child of sweep_run runs: the backend. */
struct sweep_job {
	const struct policy	*p;
	const struct roots	*r;
	int			 b;
	char			**cmd;
	pid_t			 parent;
};

static int
sweep_child(void *arg, int fd)
{
	struct sweep_job *j = arg;
	struct sandbox_end end;
	char line[512];
	int rc;

	line[0] = '\0';
	/*
	 * The backend ends with arcturn, however arcturn ends (the helper's
	 * waiter, and bwrap --die-with-parent, then end the command): it
	 * never goes on unsupervised, nor unswept.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 ||
	    getppid() != j->parent)
		return EXIT_OWN;
	rc = j->b == LB_BWRAP ? bwrap_run(j->p, j->r, j->cmd, &end, line,
	    sizeof line) : helper_run(j->p, j->r, 1, j->cmd, line, sizeof line);
	(void)fsx_write_full(fd, line, strlen(line));
	return rc;
}

int
sweep_run(const struct policy *p, const struct roots *r, int b, char **cmd,
    struct sandbox_end *end, char *err, size_t errlen)
{
	struct sweep_job j = { p, r, b, cmd, getpid() };
	struct findings f;
	struct chain *ac;
	struct snap *sn;
	char line[512], name[64];
	size_t i;
	int rc;

	memset(&f, 0, sizeof f);
	if ((ac = mem_calloc(r->absent.n + 1, sizeof *ac)) == NULL)
		goto oom;
	for (i = 0; i < r->absent.n; i++)
		if (chain_take(r->absent.v[i], &ac[i], i > 0 ?
		    r->absent.v[i - 1] : NULL, i > 0 ? &ac[i - 1] : NULL) < 0)
			goto oom;
	if ((sn = snap_take(r)) == NULL)
		goto oom;
	/* the helper is exec'd; bwrap_run waits for bwrap */
	if (posix_child(sweep_child, &j, b == LB_BWRAP ? 0 : POSIX_CHILD_EXECS,
	    end, line, sizeof line, err, errlen) < 0) {
		snap_restore(r, sn, &f);
		rc = EXIT_OWN;
		goto out;
	}
	rc = end->status;
	sweep_absent(r, ac, &f);
	snap_restore(r, sn, &f);
	if (f.nhard > 0) {
		/* loud, and held until it is resolved */
		held_name(p, name);
		if (held_write(p, &f.held) == 0)
			snprintf(err, errlen, "%s; run no git here before it "
			    "is gone: exec refuses to run in this workspace "
			    "until then (%s/cache/%s)%s",
			    f.hard, p->state, name, f.nhard > 1 ? ", and more" :
			    "");
		else
			snprintf(err, errlen, "%s; run no git here before it "
			    "is gone (%s/cache/%s: %s)", f.hard, p->state, name,
			    strerror(errno));
		rc = EXIT_OWN;
	} else if (line[0] != '\0')
		snprintf(err, errlen, "%s", line);
	else if (f.n > 1)
		snprintf(err, errlen, "%s (and %zu more)", f.first, f.n - 1);
	else if (f.n == 1)
		snprintf(err, errlen, "%s", f.first);
	goto out;
oom:
	snprintf(err, errlen, "exec: %s", strerror(errno));
	rc = EXIT_OWN;
out:
	for (i = 0; ac != NULL && i < r->absent.n; i++)
		mem_free(ac[i].d);
	mem_free(ac);
	strlist_free(&f.held);
	return rc;
}
