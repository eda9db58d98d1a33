/*
 * keep_recover: what an apply cut short left in replaced/ and no turn
 * holds, found and recorded as a turn (keep.h).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/fsx.h"
#include "lib/mem.h"
#include "lib/path.h"
#include "lib/pstate.h"
#include "session/keep.h"

#define DFLAGS		(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

int
keep_unrecorded(struct session *s, char name[KEEP_NAMELEN])
{
	char **names, mark[KEEP_NAMELEN + sizeof KEEP_TURN_MARK];
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
		snprintf(mark, sizeof mark, "%s%s", names[i], KEEP_TURN_MARK);
		if (fstatat(rfd, mark, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			snprintf(name, KEEP_NAMELEN, "%s", names[i]);
			found = 1;
		}
	}
	fsx_names_free(names, n);
	fsx_close(rfd);
	return found;
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
	struct ckpt_turn t;
	char name[KEEP_NAMELEN];
	int rfd, fd, rc, r;

	*n = 0;
	while ((r = keep_unrecorded(s, name)) > 0) {
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
		if (rc < 0 || keep_mark(s, name, 1) < 0)
			return -1;
	}
	return r;
}
