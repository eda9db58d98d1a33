/*
 * conflict: a pending change's real path against its base (conflict.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "apply/apply_swap.h"
#include "lib/fsx.h"
#include "lib/mem.h"
#include "session/changes_base.h"
#include "session/conflict.h"
#include "session/session_base.h"

/* What apply_read_real saw, as a base record holds it. */
static void
as_base(const struct apply_real *r, struct apply_base *b)
{
	memset(b, 0, sizeof *b);
	b->ps = r->ps;
}

/* The kind of conflict between the item's base and r, the real state. */
static int
judge(const struct apply_item *it, const struct apply_real *r)
{
	if (it->base.unrecorded)
		return CONFLICT_UNRECORDED;
	if (apply_base_matches(it, r))
		return CONFLICT_NONE;
	if (it->base.ps.kind == PSTATE_ABSENT)
		return CONFLICT_CREATED;
	if (r->ps.kind == PSTATE_ABSENT)
		return CONFLICT_DELETED;
	return CONFLICT_CHANGED;
}

int
conflict_of(struct session *s, int rootfd, const struct changes *c,
    size_t i, struct apply_base *now)
{
	struct apply_item it;
	struct apply_real *r;
	const char *name;
	int pfd, kind;

	memset(&it, 0, sizeof it);
	it.path = c->v[i].path;
	/* a directory's mode counts only for a mode change */
	it.kind = c->v[i].status == CHANGE_DIRMODE ? APPLY_CHMOD : APPLY_FILE;
	if (changes_base(s, c, i, &it.base) < 0)
		return -1;
	if ((r = mem_calloc(1, sizeof *r)) == NULL)
		return -1;
	if ((pfd = fsx_open_parent(rootfd, it.path, 0, &name)) < 0) {
		if (errno != ENOENT && errno != ENOTDIR) {
			mem_free(r);
			/* apply says why (a symlink out): not a conflict */
			return errno == EXDEV ? CONFLICT_NONE : -1;
		}
		r->ps.kind = PSTATE_ABSENT;
	} else if (apply_read_real(pfd, name, r) < 0) {
		close(pfd);
		mem_free(r);
		return -1;
	} else
		close(pfd);
	if (now != NULL)
		as_base(r, now);
	kind = judge(&it, r);
	mem_free(r);
	return kind;
}

int
conflict_of_file(struct session *s, const struct changes *c, size_t i,
    const struct stat *st, const unsigned char sha[HASH_LEN])
{
	struct apply_item it;
	struct apply_real r;

	memset(&it, 0, sizeof it);
	it.path = c->v[i].path;
	it.kind = APPLY_FILE;
	if (changes_base(s, c, i, &it.base) < 0)
		return -1;
	memset(&r.ps, 0, sizeof r.ps);
	r.ps.kind = PSTATE_FILE;
	r.ps.mode = st->st_mode & 07777;
	r.size = st->st_size;
	r.dev = st->st_dev;
	r.ino = st->st_ino;
	memcpy(r.ps.sha, sha, HASH_LEN);
	return judge(&it, &r);
}

const char *
conflict_mark(int kind)
{
	switch (kind) {
	case CONFLICT_CHANGED:
		return "conflict: changed since capture";
	case CONFLICT_CREATED:
		return "conflict: created since capture";
	case CONFLICT_DELETED:
		return "conflict: deleted since capture";
	default:	/* none; unrecorded is apply's refusal to say */
		return NULL;
	}
}

int
conflict_take(struct session *s, const char *rel,
    const struct apply_base *now)
{
	if (session_base_del(s, rel) < 0)
		return -1;
	return session_base_put(s, rel, now);
}
