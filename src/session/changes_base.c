/*
 * changes_base: the base records of pending changes (changes_base.h).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <string.h>

#include "lib/fsx.h"
#include "lib/mem.h"
#include "session/changes.h"
#include "session/changes_base.h"
#include "session/session_base.h"
#include "session/shadow.h"
#include "session/shadow_base.h"

/* Whether change i is a deletion implied by a whiteout or opaque dir. */
static int
implied_by_origin(const struct change *ch)
{
	return (ch->status == CHANGE_DELETED || ch->status == CHANGE_RMDIR) &&
	    strcmp(ch->origin, ch->path) != 0;
}

int
changes_base(struct session *s, const struct changes *c, size_t i,
    struct apply_base *b)
{
	const struct change *ch = &c->v[i];
	struct apply_base ob;

	if (session_base_get(s, ch->path, b) == 0)
		return 0;
	memset(b, 0, sizeof *b);
	if (errno == EBADMSG) {
		b->unrecorded = 1;
		b->why = EBADMSG;
		return 0;
	}
	if (errno != ENOENT)
		return -1;
	if (implied_by_origin(ch)) {
		if (session_base_get(s, ch->origin, &ob) == 0 &&
		    !ob.unrecorded) {
			/* not there when the whole was captured */
			b->ps.kind = PSTATE_ABSENT;
			return 0;
		}
		if (errno != ENOENT && errno != EBADMSG && !ob.unrecorded)
			return -1;
	}
	b->unrecorded = 1;
	return 0;
}

/* Errors that say the records cannot be written, not that a path is odd. */
static int
fatal_err(int e)
{
	return e == ENOSPC || e == EDQUOT || e == EMFILE || e == ENFILE ||
	    e == ENOMEM || e == EROFS || e == EIO;
}

/* A set of paths (origins recorded in this pass): few, so a list. */
struct pathset {
	char	**v;
	size_t	  n, cap;
};

static int
set_has(const struct pathset *ps, const char *p)
{
	size_t i;

	for (i = 0; i < ps->n; i++)
		if (strcmp(ps->v[i], p) == 0)
			return 1;
	return 0;
}

static int
set_add(struct pathset *ps, const char *p)
{
	char **nv;

	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? ps->cap * 2 : 8;
		if ((nv = mem_reallocarray(ps->v, ps->cap,
		    sizeof *nv)) == NULL)
			return -1;
		ps->v = nv;
	}
	if ((ps->v[ps->n] = mem_strdup(p)) == NULL)
		return -1;
	ps->n++;
	return 0;
}

/* Record rel's real state now (or why it cannot be had). */
static int
record_one(struct session *s, int rootfd, const char *rel, int mkdir_new,
    const struct timespec *since, struct changes_rec *out)
{
	struct apply_base b;
	int e;

	memset(&b, 0, sizeof b);
	if (mkdir_new)
		b.ps.kind = PSTATE_ABSENT;
	else if (shadow_base_real(rootfd, rel, since, &b) < 0) {
		e = errno;
		if (fatal_err(e))
			return -1;
		memset(&b, 0, sizeof b);
		b.unrecorded = 1;
		b.why = e == EAGAIN ? ESTALE : e;
		if (out->first == NULL) {
			if ((out->first = mem_strdup(rel)) == NULL)
				return -1;
			out->first_why = b.why;
		}
		out->unrecorded++;
	}
	if (session_base_put(s, rel, &b) < 0)
		return -1;
	if (!b.unrecorded)
		out->recorded++;
	return 0;
}

int
changes_record_bases(struct session *s, int rootfd,
    const struct timespec *since, struct changes_rec *out)
{
	struct pathset mine = { NULL, 0, 0 };
	struct apply_base b;
	struct changes c;
	struct change *ch;
	size_t i;
	int rc = -1, was = s->nosync, e;

	memset(out, 0, sizeof *out);
	s->nosync = 1;
	if (changes_list(s, rootfd, &c, NULL, NULL) < 0)
		goto out;
	for (i = 0; i < c.n; i++) {
		ch = &c.v[i];
		if (session_base_get(s, ch->path, &b) == 0)
			continue;
		if (errno != ENOENT && errno != EBADMSG)
			goto out;
		if (errno == EBADMSG)
			continue;	/* a record we did not write: refused */
		if (implied_by_origin(ch)) {
			/*
			 * The whole was captured before this run: what is
			 * in it without a record came later. Never take it
			 * as what the deletion was made on.
			 */
			if (!set_has(&mine, ch->origin)) {
				if (session_base_get(s, ch->origin, &b) == 0 ||
				    errno == EBADMSG)
					continue;
				if (errno != ENOENT)
					goto out;
				if (record_one(s, rootfd, ch->origin, 0, since,
				    out) < 0 || set_add(&mine, ch->origin) < 0)
					goto out;
			}
		}
		if (record_one(s, rootfd, ch->path, ch->status ==
		    CHANGE_MKDIR && ch->old_kind == SHADOW_ABSENT, since,
		    out) < 0)
			goto out;
		/* what a deletion beneath may name as its origin */
		if ((ch->status == CHANGE_RMDIR || ch->status == CHANGE_MKDIR ||
		    ch->status == CHANGE_DIRMODE) && set_add(&mine, ch->path) < 0)
			goto out;
	}
	rc = 0;
out:
	e = errno;
	s->nosync = was;
	changes_free(&c);
	fsx_names_free(mine.v, mine.n);
	errno = e;
	return rc;
}

void
changes_rec_free(struct changes_rec *r)
{
	mem_free(r->first);
	r->first = NULL;
}

long
changes_mark_unrecorded(struct session *s, int rootfd)
{
	struct changes c;
	struct apply_base b;
	long n = 0;
	size_t i;
	int e;

	if (changes_list(s, rootfd, &c, NULL, NULL) < 0) {
		changes_free(&c);
		return -1;
	}
	for (i = 0; i < c.n; i++) {
		if (session_base_get(s, c.v[i].path, &b) == 0 ||
		    errno == EBADMSG)
			continue;
		if (errno != ENOENT)
			goto fail;
		/* in a whole captured before: came later, refused as such */
		if (implied_by_origin(&c.v[i]) &&
		    (session_base_get(s, c.v[i].origin, &b) == 0 ||
		    errno == EBADMSG))
			continue;
		memset(&b, 0, sizeof b);
		/* mkdir never destroys anything: it needs no record */
		if (c.v[i].status == CHANGE_MKDIR &&
		    c.v[i].old_kind == SHADOW_ABSENT)
			b.ps.kind = PSTATE_ABSENT;
		else
			b.unrecorded = 1;
		if (session_base_put(s, c.v[i].path, &b) < 0)
			goto fail;
		n += b.unrecorded;
	}
	changes_free(&c);
	return n;
fail:
	e = errno;
	changes_free(&c);
	errno = e;
	return -1;
}
