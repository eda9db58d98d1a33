/*
 * session_land: apply's sequence, veto to settle (session_land.h).
 */
#include <sys/file.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "checkpoint/checkpoint.h"
#include "lib/mem.h"
#include "lib/path.h"
#include "policy/roots.h"
#include "session/session_apply.h"
#include "session/session_land.h"

/*
 * path_canon of abs, also where a file stands where the change set makes
 * a directory (f becomes f/z: ENOTDIR): the part up to that file goes
 * through path_canon (its symlinks followed), the rest is appended.
 */
static int
canon_to_file(const char *abs, char **out)
{
	char *p, *slash, *c;
	int rc;

	*out = NULL;
	if ((rc = path_canon(abs, PATH_LEXICAL, NULL, out)) == 0 ||
	    errno != ENOTDIR)
		return rc;
	if ((p = mem_strdup(abs)) == NULL)
		return -1;
	while ((slash = strrchr(p, '/')) != NULL && slash != p) {
		*slash = '\0';
		if (path_canon(p, PATH_LEXICAL, NULL, &c) == 0) {
			rc = (*out = path_join(c, abs + (slash - p) + 1)) ==
			    NULL ? -1 : 0;
			mem_free(c);
			break;
		}
		if (errno != ENOTDIR)
			break;
	}
	mem_free(p);
	return *out != NULL ? 0 : -1;
}

/*
 * The policy at apply (roots.h): mark refused (changes.h) each selected
 * change that exec's sandbox would refuse, so that plan_apply leaves it
 * pending and says why; *r the roots (the engine asks them again).
 * Sandbox mode off is no policy (r zeroed).
 */
static int
veto(struct sland *l, struct roots *r)
{
	struct policy q = *l->p;
	struct changes *c = l->c;
	const char *why;
	char *abs, *canon;
	size_t i, j;
	int rc;

	memset(r, 0, sizeof *r);
	if (l->p->mode == MODE_OFF)
		return 0;
	/* apply writes the workspace: the protected paths are what it asks */
	q.mode = MODE_WORKSPACE_WRITE;
	if (roots_build(&q, ROOTS_PROTECT | ROOTS_MISSING, NULL, r) < 0) {
		snprintf(l->why, sizeof l->why, "%s", r->why);
		memset(r, 0, sizeof *r);
		return -1;
	}
	for (i = 0; i < c->n; i++) {
		if (!l->sel[i] || c->v[i].refuse != NULL)
			continue;
		/*
		 * The path as apply names it, and canonical as the file
		 * tools check it: a symlink in the real tree must not lead
		 * a change onto a protected path. (One that leads out of
		 * the workspace is apply's own refusal, which names it.)
		 */
		canon = NULL;
		if ((abs = path_join(l->p->workspace, c->v[i].path)) == NULL)
			goto oom;
		if (canon_to_file(abs, &canon) < 0) {
			mem_free(abs);
			if (errno == ENOMEM)
				goto oom;
			c->v[i].refuse = "cannot be checked against the "
			    "policy; refused";
			continue;
		}
		rc = roots_check(r, abs, &why);
		if (rc == 0 && roots_check(r, canon, &why) < 0 &&
		    strcmp(why, "protected path") == 0)
			rc = -1;
		mem_free(abs);
		mem_free(canon);
		if (rc < 0)
			c->v[i].refuse = strcmp(why, "protected path") == 0 ?
			    "protected path; refused" :
			    "outside the writable roots; refused";
	}
	/* a hard link to a refused path would give it a second name */
	for (i = 0; i < c->n; i++) {
		if (!l->sel[i] || c->v[i].refuse != NULL ||
		    c->v[i].link_to == NULL)
			continue;
		j = changes_find(c, c->v[i].link_to);
		if (j < c->n && strcmp(c->v[j].path, c->v[i].link_to) == 0 &&
		    c->v[j].refuse != NULL)
			c->v[i].refuse = c->v[j].refuse;
	}
	return 0;
oom:
	snprintf(l->why, sizeof l->why, "%s", strerror(ENOMEM));
	roots_free(r);
	memset(r, 0, sizeof *r);
	return -1;
}

/* The checkpoint store of the session's workspace, made if need be. */
static int
open_store(struct sland *l, struct ckpt **ck)
{
	struct ckpt_limits lim;

	lim.keep = l->p->ckpt_keep ? l->p->ckpt_keep : CKPT_KEEP_DEFAULT;
	lim.maxbytes = l->p->ckpt_maxbytes;
	if (ckpt_open(l->p->state, l->s->workspace, 1, LOCK_EX, &lim,
	    ck) < 0) {
		l->err = errno;
		return -1;
	}
	return 0;
}

/* What a cut-short apply kept becomes a turn: undo reaches it. */
static void
recover(struct sland *l, struct ckpt *ck)
{
	if (keep_recover(l->s, ck, l->rootfd, "apply (cut short)",
	    &l->recovered) < 0)
		l->recover_err = errno;
}

/*
 * The session goes when nothing of it is pending and it keeps nothing
 * that no turn holds (earlier); else, all applied, it is settled.
 */
static void
finish(struct sland *l, int all, int keeps)
{
	if (all && !keeps &&
	    (l->earlier = keep_unrecorded(l->s, l->earlier_name)) == 0) {
		l->removed = 1;
		if (session_remove(l->s) < 0)
			l->remove_err = errno;
	} else if (l->c->n > 0 && all &&
	    (l->res.left = plan_settle(l->s, l->c)) < 0)
		l->res.settle_err = errno;
}

/* Nothing pending: sweep, recover what a cut-short apply kept, drop. */
static enum sland_end
land_nothing(struct sland *l)
{
	struct ckpt *ck;
	char name[KEEP_NAMELEN];

	if (l->sweep != NULL)
		l->sweep(l->sarg);
	if (l->rootfd >= 0 && keep_unrecorded(l->s, name) > 0 &&
	    open_store(l, &ck) == 0) {
		if (keep_recover(l->s, ck, l->rootfd, "apply (cut short)",
		    &l->recovered) < 0)
			l->recovered = 0;
		ckpt_close(ck);
	}
	l->err = 0;
	l->recorded = 1;
	l->res.all = 1;
	finish(l, 1, 0);
	return SLAND_DONE;
}

enum sland_end
session_land(struct sland *l)
{
	struct apply_env env;
	struct roots r;
	struct keep *k = NULL;
	struct ckpt *ck = NULL;
	const char *name;
	enum sland_end end = SLAND_ERROR;

	memset(&l->res, 0, sizeof l->res);
	l->recorded = 1;
	if (l->c->n == 0)
		return land_nothing(l);
	if (veto(l, &r) != 0)
		return SLAND_POLICY;
	if (open_store(l, &ck) != 0) {
		roots_free(&r);
		return SLAND_STORE;
	}
	/* what a killed apply left, also beside paths it finished */
	if (l->sweep != NULL)
		l->sweep(l->sarg);
	recover(l, ck);
	if (keep_open(l->s, ck, &k) < 0) {
		l->err = errno;
		goto out;
	}
	/* exec --checkpoint --join-turn: into the turn `arcturn turn` began */
	keep_join(k, l->join);
	/* recorded before anything is touched: a record or nothing */
	if (keep_begin(k, l->rootfd, l->c, l->sel, l->label) < 0) {
		l->err = errno;
		end = SLAND_UNRECORDED;
		goto out;
	}
	memset(&env, 0, sizeof env);
	env.keep = keep_keeper(k);
	/*
	 * The session's copies themselves, linked in: they go once applied.
	 * Only with the mark that tells a later dry run to look for one
	 * left linked (session_apply.h); else apply copies.
	 */
	env.give_src = session_apply_begin(l->s) == 0;
	/* and the engine asks the write check on each folder it opens */
	if (l->p->mode != MODE_OFF) {
		env.roots = &r;
		env.ws = l->p->workspace;
	}
	env.progress = l->progress;
	env.parg = l->parg;
	if (plan_apply(l->s, l->rootfd, l->c, l->sel, &env, l->failed,
	    l->farg, &l->res) < 0) {
		l->err = errno;
		goto out;
	}
	if (keep_turn(k, l->rootfd, &l->id) < 0) {
		l->recorded = 0;
		l->rec_err = errno;
	}
	l->kept = keep_count(k);
	l->whole = l->recorded && keep_whole(k);
	name = keep_name(k);
	snprintf(l->name, sizeof l->name, "%s", name != NULL ? name : "");
	end = SLAND_DONE;
out:
	keep_close(k);	/* before the store: it ends the store's lazy mode */
	ckpt_close(ck);
	roots_free(&r);
	/* unrecorded: what it replaced lives on in the session only */
	if (end == SLAND_DONE)
		finish(l, l->res.all, !l->whole && l->kept > 0);
	return end;
}
