/*
 * apply_phase: items by folder, and a phase of them run in a few threads
 * (apply_phase.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "apply/apply.h"
#include "apply/apply_phase.h"
#include "lib/mem.h"

/*
 * Items of the phases without inner order are split over a few threads,
 * each running its share in batches (apply_run_batch): concurrent fsyncs
 * share journal commits.
 */
#define APPLY_THREADS	8
#define APPLY_CHUNK	16

static size_t
parent_len(const char *p)
{
	const char *slash = strrchr(p, '/');

	return slash == NULL ? 0 : (size_t)(slash - p);
}

int
apply_same_dir(const char *a, const char *b)
{
	size_t la = parent_len(a);

	return la == parent_len(b) && memcmp(a, b, la) == 0;
}

int
apply_cmp_by_dir(const struct apply_item *x, const struct apply_item *y)
{
	size_t lx = parent_len(x->path), ly = parent_len(y->path);
	int c;

	c = memcmp(x->path, y->path, lx < ly ? lx : ly);
	if (c != 0)
		return c;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x->path + lx, y->path + ly);
}

struct chunk {
	int			 rootfd;
	struct apply_item	*it;
	size_t			 n;
	const struct apply_env	*env;
	int			 batch;		/* items independent */
	long			 rc;
	int			 err;
};

static void *
chunk_run(void *arg)
{
	struct chunk *c = arg;

	c->rc = c->batch ? apply_run_batch(c->rootfd, c->it, c->n, c->env) :
	    apply_run(c->rootfd, c->it, c->n, c->env);
	c->err = errno;
	return NULL;
}

void
apply_run_phase(int rootfd, struct apply_item *it, size_t n, int parallel,
    const struct apply_env *env)
{
	struct chunk ck[APPLY_THREADS];
	pthread_t th[APPLY_THREADS];
	int started[APPLY_THREADS];
	size_t nt = 1, i, k, off, end, per;

	if (n == 0)
		return;
	if (parallel) {
		nt = (n + APPLY_CHUNK - 1) / APPLY_CHUNK;
		if (nt > APPLY_THREADS)
			nt = APPLY_THREADS;
	}
	per = (n + nt - 1) / nt;
	/* Chunks end only where a directory's group ends. */
	for (i = 0, off = 0; i < nt; i++, off = end) {
		end = i == nt - 1 || off + per >= n ? n : off + per;
		while (end < n && end > off &&
		    apply_same_dir(it[end - 1].path, it[end].path))
			end++;
		ck[i].rootfd = rootfd;
		ck[i].it = it + off;
		ck[i].n = end - off;
		ck[i].env = env;
		ck[i].batch = parallel;
		ck[i].rc = 0;
		started[i] = i > 0 && ck[i].n > 0 &&
		    pthread_create(&th[i], NULL, chunk_run, &ck[i]) == 0;
	}
	/* Chunk 0 here; a chunk whose thread did not start, after it. */
	for (i = 0; i < nt; i++)
		if (!started[i] && ck[i].n > 0)
			chunk_run(&ck[i]);
	for (i = 0; i < nt; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		/* Nothing tried in this chunk: each item fails with the cause. */
		for (k = 0; ck[i].n > 0 && ck[i].rc < 0 && k < ck[i].n; k++) {
			ck[i].it[k].failed = 1;
			ck[i].it[k].err = ck[i].err;
			snprintf(ck[i].it[k].reason, sizeof ck[i].it[k].reason,
			    "%s", strerror(ck[i].err));
		}
	}
}

void
apply_skip_failed(struct apply_item *it, size_t k, size_t end)
{
	size_t *bad, nb = 0, i, j, l;

	for (j = 0; j < k; j++)
		nb += it[j].failed != 0;
	if (nb == 0 || (bad = mem_calloc(nb, sizeof *bad)) == NULL)
		return;
	for (nb = 0, j = 0; j < k; j++)
		if (it[j].failed)
			bad[nb++] = j;
	for (i = k; i < end; i++)
		for (j = 0; j < nb && !it[i].failed; j++) {
			l = strlen(it[bad[j]].path);
			if (strncmp(it[i].path, it[bad[j]].path, l) != 0 ||
			    (it[i].path[l] != '\0' && it[i].path[l] != '/'))
				continue;
			it[i].failed = 1;
			it[i].err = 0;
			snprintf(it[i].reason, sizeof it[i].reason, "not "
			    "tried: %s was not restored", it[bad[j]].path);
		}
	mem_free(bad);
}
