/*
 * session_rmtree: delete a tree of the session store (session_rmtree.h).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "fsx.h"
#include "mem.h"
#include "session_rmtree.h"

#define DFLAGS		(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/*
 * Open the directory pfd/name to empty it, opening up a directory a dry
 * run left without permissions (overlayfs leaves work/work at mode 0, a
 * command may leave 0500 dirs); only on dev; its stat in *st.
 */
static int
open_rmdir(int pfd, const char *name, dev_t dev, struct stat *st)
{
	int fd;

	if (fstatat(pfd, name, st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (!S_ISDIR(st->st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	if (st->st_dev != dev) {
		errno = EXDEV;
		return -1;
	}
	fd = openat(pfd, name, DFLAGS);
	/*
	 * The session dir is ours alone (0700, read-only to confined
	 * commands), so the name cannot have been swapped since the fstatat.
	 */
	if (fd < 0 && errno == EACCES && st->st_uid == geteuid() &&
	    fchmodat(pfd, name, 0700, 0) == 0)
		fd = openat(pfd, name, DFLAGS);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0) {
		fsx_close(fd);
		return -1;
	}
	if ((st->st_mode & 0700) != 0700)
		fchmod(fd, 0700);
	return fd;
}

/* One directory being emptied: its name, identity, subdirs still to do. */
struct rmframe {
	char		*name;
	dev_t		 dev;
	ino_t		 ino;
	char		**subs;
	size_t		 nsub, isub;
	int		 tries;
};

/* Unlink every non-directory in fd; list the directories in f->subs. */
static int
rm_scan(int fd, dev_t dev, struct rmframe *f)
{
	struct dirent *e;
	struct stat st;
	char **nv;
	size_t cap = 0;
	DIR *d;
	int dfd, rc = 0;

	fsx_names_free(f->subs, f->nsub);
	f->subs = NULL;
	f->nsub = f->isub = 0;
	if ((dfd = dup(fd)) < 0)
		return -1;
	if ((d = fdopendir(dfd)) == NULL) {
		fsx_close(dfd);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		/* not a directory by its entry: no stat needed (EISDIR if
		   it became one: looked at below) */
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN &&
		    (unlinkat(fd, e->d_name, 0) == 0 || errno == ENOENT))
			continue;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT)
				rc = -1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (unlinkat(fd, e->d_name, 0) < 0 && errno != ENOENT)
				rc = -1;
			continue;
		}
		if (st.st_dev != dev) {
			errno = EXDEV;
			rc = -1;
			continue;
		}
		if (f->nsub == cap) {
			cap = cap ? cap * 2 : 8;
			if ((nv = mem_reallocarray(f->subs, cap,
			    sizeof *nv)) == NULL) {
				rc = -1;
				break;
			}
			f->subs = nv;
		}
		if ((f->subs[f->nsub] = mem_strdup(e->d_name)) == NULL) {
			rc = -1;
			break;
		}
		f->nsub++;
	}
	{
		int saved = errno;

		closedir(d);
		errno = saved;
	}
	return rc;
}

/*
 * Depth-first, one directory fd at a time: a directory is left through
 * "..", checked to be the parent we came from (dev and inode), so a tree
 * of any depth goes without running out of fds.
 */
static int
rmtree_iter(int top, const char *name, dev_t dev)
{
	struct rmframe *fr = NULL, *f, *nf;
	struct stat st;
	size_t n = 0, cap = 0;
	int cur = -1, parent, rc = -1, err = 0;

	if ((cur = open_rmdir(top, name, dev, &st)) < 0)
		return errno == ENOENT ? 0 : -1;
	cap = 16;
	if ((fr = mem_calloc(cap, sizeof *fr)) == NULL)
		goto out;
	if ((fr[0].name = mem_strdup(name)) == NULL)
		goto out;
	fr[0].dev = st.st_dev;
	fr[0].ino = st.st_ino;
	n = 1;
	if (rm_scan(cur, dev, &fr[0]) < 0)
		err = errno;
	while (n > 0) {
		f = &fr[n - 1];
		if (f->isub < f->nsub) {
			const char *sub = f->subs[f->isub++];
			int fd = open_rmdir(cur, sub, dev, &st);

			if (fd < 0) {
				if (errno != ENOENT)
					err = errno;
				continue;
			}
			if (n == cap) {
				nf = mem_reallocarray(fr, cap * 2, sizeof *fr);
				if (nf == NULL) {
					fsx_close(fd);
					goto out;
				}
				memset(nf + cap, 0, cap * sizeof *nf);
				fr = nf;
				cap *= 2;
				f = &fr[n - 1];
			}
			fr[n].name = mem_strdup(sub);
			fr[n].dev = st.st_dev;
			fr[n].ino = st.st_ino;
			if (fr[n].name == NULL) {
				fsx_close(fd);
				goto out;
			}
			n++;
			close(cur);
			cur = fd;
			if (rm_scan(cur, dev, &fr[n - 1]) < 0)
				err = errno;
			continue;
		}
		/* f is empty but for what failed: go up and remove it */
		if (n == 1)
			parent = top;
		else {
			parent = openat(cur, "..", DFLAGS);
			if (parent < 0 || fstat(parent, &st) < 0 ||
			    st.st_dev != fr[n - 2].dev ||
			    st.st_ino != fr[n - 2].ino) {
				fsx_close(parent);
				errno = ESTALE;
				goto out;
			}
		}
		close(cur);
		cur = -1;
		if (unlinkat(parent, f->name, AT_REMOVEDIR) < 0 &&
		    errno != ENOENT) {
			if ((errno == ENOTEMPTY || errno == EEXIST) &&
			    err == 0 && f->tries++ < 3) {
				/* something appeared meanwhile: again */
				if ((cur = open_rmdir(parent, f->name, dev,
				    &st)) < 0) {
					if (parent != top)
						close(parent);
					goto out;
				}
				if (parent != top)
					close(parent);
				if (rm_scan(cur, dev, f) < 0)
					err = errno;
				continue;
			}
			if (err == 0)
				err = errno;
		}
		mem_free(f->name);
		fsx_names_free(f->subs, f->nsub);
		memset(f, 0, sizeof *f);
		n--;
		cur = parent == top ? -1 : parent;
	}
	if (err != 0) {
		errno = err;
		goto out;
	}
	rc = 0;
out:
	{
		int saved = errno;
		size_t i;

		fsx_close(cur);
		for (i = 0; fr != NULL && i < n; i++) {
			mem_free(fr[i].name);
			fsx_names_free(fr[i].subs, fr[i].nsub);
		}
		mem_free(fr);
		errno = saved;
	}
	return rc;
}

int
session_rmtree(int dirfd, const char *name)
{
	struct stat st, top;

	if (fstat(dirfd, &top) < 0)
		return -1;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
			return -1;
		return 0;
	}
	return rmtree_iter(dirfd, name, top.st_dev);
}

#define WIDE_MAX	4

struct wide {
	int		 fd;
	const char	*name;
	int		 rc, err;
};

static void *
wide_run(void *arg)
{
	struct wide *w = arg;

	w->rc = session_rmtree(w->fd, w->name);
	w->err = errno;
	return NULL;
}

int
session_rmtree_wide(int dirfd, const char *name)
{
	struct wide w[WIDE_MAX];
	pthread_t th[WIDE_MAX];
	int started[WIDE_MAX];
	struct stat st, top;
	struct rmframe f;
	size_t i, n;
	int fd, rc = 0, err = 0;

	memset(&f, 0, sizeof f);
	if (fstat(dirfd, &top) < 0)
		return -1;
	if ((fd = open_rmdir(dirfd, name, top.st_dev, &st)) < 0)
		return session_rmtree(dirfd, name);
	/* the files at the top go here; the subtrees, a few at once */
	(void)rm_scan(fd, top.st_dev, &f);
	for (i = 0; i < f.nsub; i += n) {
		for (n = 0; n < WIDE_MAX && i + n < f.nsub; n++) {
			w[n].fd = fd;
			w[n].name = f.subs[i + n];
			started[n] = n > 0 && pthread_create(&th[n], NULL,
			    wide_run, &w[n]) == 0;
		}
		for (n = 0; n < WIDE_MAX && i + n < f.nsub; n++)
			if (!started[n])
				wide_run(&w[n]);
		for (n = 0; n < WIDE_MAX && i + n < f.nsub; n++) {
			if (started[n])
				pthread_join(th[n], NULL);
			if (w[n].rc < 0 && err == 0)
				err = w[n].err;
		}
	}
	fsx_names_free(f.subs, f.nsub);
	close(fd);
	/* what is left (anything that appeared meanwhile), as ever */
	if ((rc = session_rmtree(dirfd, name)) == 0 && err != 0) {
		errno = err;
		rc = -1;
	}
	return rc;
}
