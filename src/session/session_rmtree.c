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

#include "lib/fsx.h"
#include "lib/mem.h"
#include "lib/os.h"
#include "session/session_rmtree.h"

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

/*
 * The wide remover: a pool of threads sharing a list of tasks. Each
 * unlink waits for the device to drop what it freed (a file's blocks, a
 * directory's block; with -o discard that is a round trip to the disk
 * each), so many at once take a fraction of the time of one after
 * another. A task is a directory to empty or a slice of the names of one
 * directory to unlink. A directory stays open (its node) while tasks of
 * it are pending, so every call is relative to an fd opened without
 * following a symlink; when its last task is done it is removed through
 * its parent's fd. Nothing here is required to succeed: what it leaves
 * (a tree deeper than its fds allow, an error) is for session_rmtree.
 */
#define POOL_THREADS	8
#define POOL_FDS	64	/* directories open at once, at most */
#define POOL_SLICE	32	/* names of one directory per task */

struct rmnode {
	struct rmnode	*parent;	/* NULL: the top, in pool.topfd */
	char		*name;		/* in the parent */
	int		 fd;
	size_t		 pending;	/* its tasks not done yet */
};

struct rmtask {
	struct rmtask	*next;
	struct rmnode	*node;		/* the directory the task is in */
	char		*dir;		/* a subdirectory to empty, or NULL */
	char		**names;	/* or names to unlink */
	size_t		 n;
};

struct pool {
	pthread_mutex_t	 mu;
	struct os_sem	*sem;		/* a post per task, then one per
					   thread when all is done */
	struct rmtask	*head;
	size_t		 busy;		/* tasks being worked on */
	size_t		 fds;		/* nodes open */
	int		 topfd;
	dev_t		 dev;
};

static void
task_free(struct rmtask *t)
{
	if (t == NULL)
		return;
	mem_free(t->dir);
	fsx_names_free(t->names, t->n);
	mem_free(t);
}

/* Queue a task (with p->mu held); 0, or -1 when out of memory. */
static int
push(struct pool *p, struct rmnode *node, char *dir, char **names, size_t n)
{
	struct rmtask *t;

	if ((t = mem_calloc(1, sizeof *t)) == NULL)
		return -1;
	t->node = node;
	t->dir = dir;
	t->names = names;
	t->n = n;
	t->next = p->head;
	p->head = t;
	node->pending++;
	os_sem_post(p->sem);
	return 0;
}

/*
 * A task of node is done (p->mu held, and held again on return): the
 * nodes that are finished go. A finished node is nobody else's, and it
 * holds its parent, so its rmdir (a wait for the device) runs unlocked.
 */
static void
done(struct pool *p, struct rmnode *node)
{
	struct rmnode *up;

	while (node != NULL && --node->pending == 0) {
		up = node->parent;
		p->fds--;
		pthread_mutex_unlock(&p->mu);
		close(node->fd);
		/* ENOTEMPTY (it failed inside, or grew): session_rmtree's */
		(void)unlinkat(up != NULL ? up->fd : p->topfd, node->name,
		    AT_REMOVEDIR);
		mem_free(node->name);
		mem_free(node);
		pthread_mutex_lock(&p->mu);
		node = up;
	}
}

/*
 * Empty the directory parent/dir (dir is the scan's to free): its names
 * go to tasks a slice at a time, its subdirectories to tasks of their
 * own. With POOL_FDS directories open already, the subtree goes here and
 * now, one fd at a time (session_rmtree). Called without p->mu.
 */
static void
scan(struct pool *p, struct rmnode *parent, char *dir)
{
	struct rmnode *node = NULL;
	struct dirent *e;
	struct stat st;
	char **names = NULL, *sub;
	size_t n = 0;
	DIR *d = NULL;
	int pfd = parent != NULL ? parent->fd : p->topfd, fd, dfd = -1;

	pthread_mutex_lock(&p->mu);
	if (p->fds >= POOL_FDS) {
		pthread_mutex_unlock(&p->mu);
		(void)session_rmtree(pfd, dir);
		mem_free(dir);
		return;
	}
	p->fds++;
	pthread_mutex_unlock(&p->mu);
	if ((fd = open_rmdir(pfd, dir, p->dev, &st)) < 0 ||
	    (node = mem_calloc(1, sizeof *node)) == NULL ||
	    (dfd = dup(fd)) < 0 || (d = fdopendir(dfd)) == NULL) {
		fsx_close(dfd);
		mem_free(node);
		fsx_close(fd);
		mem_free(dir);
		pthread_mutex_lock(&p->mu);
		p->fds--;
		pthread_mutex_unlock(&p->mu);
		return;
	}
	node->parent = parent;
	node->name = dir;
	node->fd = fd;
	pthread_mutex_lock(&p->mu);
	node->pending = 1;	/* this scan */
	if (parent != NULL)
		parent->pending++;	/* node, until it is gone */
	pthread_mutex_unlock(&p->mu);
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		/* DT_UNKNOWN goes with the names: a directory among them
		   fails its unlink (EISDIR) and is session_rmtree's */
		if (e->d_type == DT_DIR) {
			if ((sub = mem_strdup(e->d_name)) == NULL)
				continue;
			pthread_mutex_lock(&p->mu);
			if (push(p, node, sub, NULL, 0) < 0)
				mem_free(sub);
			pthread_mutex_unlock(&p->mu);
			continue;
		}
		if (names == NULL &&
		    (names = mem_calloc(POOL_SLICE, sizeof *names)) == NULL)
			continue;
		if ((names[n] = mem_strdup(e->d_name)) != NULL)
			n++;
		if (n == POOL_SLICE) {
			pthread_mutex_lock(&p->mu);
			if (push(p, node, NULL, names, n) < 0)
				fsx_names_free(names, n);
			pthread_mutex_unlock(&p->mu);
			names = NULL;
			n = 0;
		}
	}
	closedir(d);
	/* the last slice is this thread's own */
	while (n > 0) {
		(void)unlinkat(fd, names[--n], 0);
		mem_free(names[n]);
	}
	mem_free(names);
	pthread_mutex_lock(&p->mu);
	done(p, node);
	pthread_mutex_unlock(&p->mu);
}

/* All done (p->mu held): every thread waiting is woken to leave. */
static void
finish(struct pool *p)
{
	int i;

	if (p->head == NULL && p->busy == 0)
		for (i = 0; i < POOL_THREADS; i++)
			os_sem_post(p->sem);
}

/*
 * Take tasks until there are none and none running could make more. A
 * wake-up with nothing queued is finish()'s: each task's post is taken
 * by the one who takes the task.
 */
static void *
worker(void *arg)
{
	struct pool *p = arg;
	struct rmtask *t;
	size_t i;

	for (;;) {
		os_sem_wait(p->sem);
		pthread_mutex_lock(&p->mu);
		if ((t = p->head) == NULL)
			break;
		p->head = t->next;
		p->busy++;
		pthread_mutex_unlock(&p->mu);
		if (t->dir != NULL) {
			scan(p, t->node, t->dir);
			t->dir = NULL;
		} else
			for (i = 0; i < t->n; i++)
				(void)unlinkat(t->node->fd, t->names[i], 0);
		pthread_mutex_lock(&p->mu);
		done(p, t->node);
		task_free(t);
		p->busy--;
		finish(p);
		pthread_mutex_unlock(&p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int
session_rmtree_wide(int dirfd, const char *name)
{
	pthread_t th[POOL_THREADS - 1];
	int started[POOL_THREADS - 1];
	struct stat top;
	struct pool p;
	char *dir;
	size_t i;

	if (fstat(dirfd, &top) < 0)
		return -1;
	memset(&p, 0, sizeof p);
	p.topfd = dirfd;
	p.dev = top.st_dev;
	if ((dir = mem_strdup(name)) != NULL &&
	    pthread_mutex_init(&p.mu, NULL) == 0) {
		if ((p.sem = os_sem_new()) != NULL) {
			p.busy = 1;	/* the top's scan, here */
			for (i = 0; i < POOL_THREADS - 1; i++)
				started[i] = pthread_create(&th[i], NULL,
				    worker, &p) == 0;
			scan(&p, NULL, dir);
			pthread_mutex_lock(&p.mu);
			p.busy--;
			finish(&p);
			pthread_mutex_unlock(&p.mu);
			worker(&p);
			for (i = 0; i < POOL_THREADS - 1; i++)
				if (started[i])
					pthread_join(th[i], NULL);
			os_sem_free(p.sem);
		} else
			mem_free(dir);
		pthread_mutex_destroy(&p.mu);
	} else
		mem_free(dir);
	/* what is left (too deep, failed, appeared meanwhile), as ever */
	return session_rmtree(dirfd, name);
}
