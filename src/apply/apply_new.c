/*
 * apply_new: the new object an apply item puts in place, made under a
 * temp name beside the real path, and where its content comes from
 * (apply_new.h).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "apply/apply_new.h"
#include "apply/apply_swap.h"
#include "lib/fsx.h"
#include "lib/mem.h"
#include "lib/os.h"
#include "lib/path.h"
#include "policy/writecheck.h"

int
apply_open_src(struct apply_item *it)
{
	return fsx_regular(fsx_open_beneath(it->srcdir, it->src, OFLAGS, 0));
}

int
apply_read_target(const struct apply_item *it, char *buf, size_t size)
{
	const char *b;
	char *data;
	size_t len;
	ssize_t n;
	int pfd;

	if ((pfd = fsx_open_parent(it->srcdir, it->src, 0, &b)) < 0)
		return -1;
	n = readlinkat(pfd, b, buf, size);
	if (n < 0 && errno == EINVAL) {
		if (fsx_read_all(pfd, b, size - 1, &data, &len) < 0) {
			fsx_close(pfd);
			return -1;
		}
		memcpy(buf, data, len);
		n = (ssize_t)len;
		mem_free(data);
	}
	fsx_close(pfd);
	if (n < 0)
		return -1;
	if ((size_t)n >= size || memchr(buf, '\0', (size_t)n) != NULL) {
		errno = (size_t)n >= size ? ENAMETOOLONG : EINVAL;
		return -1;
	}
	buf[n] = '\0';
	if (n == 0) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

/*
 * The source of a FILE item as its new file (apply_env.give_src): linked
 * in under tmp when it qualifies, its times set to now. -1: it does not
 * (or the link failed); the caller copies.
 */
static int
give(struct apply_item *it, int pfd, int srcfd, char *tmp, struct stat *tst)
{
	struct stat st, dst;
	const char *b;
	int upfd, rc = -1;

	if (fstat(srcfd, &st) < 0 || st.st_nlink != 1 ||
	    PERM(st.st_mode) != PERM(it->mode) || st.st_uid != geteuid() ||
	    os_xattr_names(srcfd) != 0)
		return -1;
	if ((upfd = fsx_open_parent(it->srcdir, it->src, 0, &b)) < 0)
		return -1;
	/* its name must go right after the swap: not from a folder we
	   could not unlink it from (a command's chmod 555) */
	if (fstat(upfd, &dst) == 0 && (geteuid() == 0 ||
	    (dst.st_uid == geteuid() && (dst.st_mode & 0300) == 0300)) &&
	    fsx_tmp_link(upfd, b, pfd, tmp) == 0) {
		/* what got linked is the file checked, now touched */
		if (fstatat(pfd, tmp, tst, AT_SYMLINK_NOFOLLOW) == 0 &&
		    tst->st_dev == st.st_dev && tst->st_ino == st.st_ino &&
		    futimens(srcfd, NULL) == 0 && fstat(srcfd, tst) == 0)
			rc = 0;
		else
			unlinkat(pfd, tmp, 0);
	}
	fsx_close(upfd);
	return rc;
}

/* The write check on the file an APPLY_LINK item links to: 1 no. */
static int
link_denied(const struct apply_env *env, const char *link, int lpfd,
    const char *lname)
{
	struct policy_verdict v;
	char *lex;
	int rc;

	if (env == NULL || env->roots == NULL)
		return 0;
	if ((lex = path_join(env->ws, link)) == NULL)
		return 1;
	rc = policy_may_write(env->roots, lex, lpfd, lname, &v);
	mem_free(lex);
	return rc != 0;
}

/* The file lr an APPLY_LINK item links to holds srcfd's bytes: 1 yes. */
static int
link_holds(const struct apply_item *it, int srcfd, const struct apply_real *lr)
{
	return lr->ps.kind == PSTATE_FILE && lr->ps.mode == PERM(it->mode) &&
	    apply_same_bytes(srcfd, lr);
}

int
apply_make_new(struct apply_item *it, const struct apply_env *env, int rootfd,
    int pfd, int srcfd, const char *target, char *tmp, struct stat *tst,
    int *tfd, int *given)
{
	const char *lname;
	int lpfd, rc = -1;
	struct apply_real *lr = NULL;
	struct stat st;

	switch (it->kind) {
	case APPLY_FILE:
		if (env != NULL && env->give_src &&
		    give(it, pfd, srcfd, tmp, tst) == 0) {
			*given = 1;
			return 0;
		}
		return fsx_tmp_file(pfd, srcfd, PERM(it->mode), tmp, tst, tfd);
	case APPLY_SYMLINK:
		if (fsx_tmp_symlink(pfd, target, tmp) < 0)
			return -1;
		break;
	case APPLY_FIFO:
		if (fsx_tmp_fifo(pfd, PERM(it->mode), tmp) < 0)
			return -1;
		break;
	case APPLY_LINK:
		/* The file it links to must hold this file's bytes by now. */
		if ((lpfd = fsx_open_parent(rootfd, it->link, 0, &lname)) < 0)
			return -1;
		/* a second name for a file no writer may write: refused */
		if (link_denied(env, it->link, lpfd, lname)) {
			errno = EACCES;
			goto out;
		}
		if ((lr = mem_alloc(sizeof *lr)) == NULL ||
		    apply_read_real(lpfd, lname, lr) < 0)
			goto out;
		if (!link_holds(it, srcfd, lr)) {
			errno = ESTALE;
			goto out;
		}
		if (fsx_tmp_link(lpfd, lname, pfd, tmp) < 0)
			goto out;
		/* and what got linked is what was checked */
		if (fstatat(pfd, tmp, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    st.st_ino != lr->ino || st.st_dev != lr->dev ||
		    (!apply_real_unchanged(&st, lr) &&
		    (apply_read_real(pfd, tmp, lr) < 0 ||
		    !link_holds(it, srcfd, lr)))) {
			unlinkat(pfd, tmp, 0);
			errno = ESTALE;
			goto out;
		}
		rc = 0;
out:
		mem_free(lr);
		fsx_close(lpfd);
		if (rc < 0)
			return -1;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	return fstatat(pfd, tmp, tst, AT_SYMLINK_NOFOLLOW) < 0 ? -1 : 0;
}
