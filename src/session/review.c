/*
 * review: the diff, digest, diffstat and JSON listing of a change list
 * (review.h).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "lib/fsx.h"
#include "lib/hash.h"
#include "lib/mem.h"
#include "lib/readall.h"
#include "session/conflict.h"
#include "session/review.h"

#define PERM(m)		((unsigned int)(m) & 07777)
#define OFLAGS		(O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)

/* What the digest is over: every section whole, 3 lines of context. */
static const struct udiff_opts digest_opts = { 3, -1, 0, 0 };

static int
out_null(const void *buf, size_t len, void *arg)
{
	return 0;
}

/* A buffer kept from one change to the next: grown, never shrunk. */
struct buf {
	char			*p;
	size_t			 cap;
};

struct side {
	struct udiff_side	 u;
	struct buf		*b;		/* holds the content */
	struct stat		 st;		/* of the file read */
	int			 big;
	int			 hashed;	/* sha is the content's */
	unsigned char		 sha[HASH_LEN];
	char			 sentinel[1 + HASH_LEN];
};

/* Room for n bytes in b; what it held is kept only when keep is set. */
static int
buf_room(struct buf *b, size_t n, int keep)
{
	char *p;

	if (n <= b->cap)
		return 0;
	if (n < b->cap * 2)
		n = b->cap * 2;
	if (n < 4096)
		n = 4096;
	if (keep)
		p = mem_realloc(b->p, n);
	else {
		mem_free(b->p);
		b->p = NULL;
		b->cap = 0;
		p = mem_alloc(n);
	}
	if (p == NULL)
		return -1;
	b->p = p;
	b->cap = n;
	return 0;
}

/* Read fd (hint: its size) whole into b: its length, or -1. */
static int
read_into(int fd, size_t hint, struct buf *b, size_t *lenp)
{
	size_t len = 0;
	ssize_t n;

	if (buf_room(b, hint + 1, 0) < 0)
		return -1;
	for (;;) {
		if (len + 1 >= b->cap && buf_room(b, b->cap + 1, 1) < 0)
			return -1;
		n = read(fd, b->p + len, b->cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*lenp = len;
	return 0;
}

static unsigned int
git_mode(enum shadow_kind k, unsigned int perm)
{
	if (k == SHADOW_SYMLINK)
		return 0120000;
	return (perm & 0100) ? 0100755 : 0100644;
}

/* Load one side of a change from dirfd/path into sd->b (the caller's). */
static int
load_side(int dirfd, const char *path, enum shadow_kind k, struct side *sd,
    struct buf *b)
{
	const char *base;
	size_t len;
	ssize_t n;
	int fd;

	memset(sd, 0, sizeof *sd);
	sd->b = b;
	sd->u.kind = UDIFF_ABSENT;
	if (k != SHADOW_FILE && k != SHADOW_SYMLINK)
		return 0;
	if (k == SHADOW_SYMLINK) {
		if ((fd = fsx_open_parent(dirfd, path, 0, &base)) < 0)
			return -1;
		if (buf_room(b, PATH_MAX, 0) < 0) {
			fsx_close(fd);
			return -1;
		}
		n = readlinkat(fd, base, b->p, PATH_MAX);
		fsx_close(fd);
		if (n < 0) {
			if (errno == EINVAL)
				errno = ESTALE;
			return -1;
		}
		sd->u.kind = UDIFF_SYMLINK;
		sd->u.mode = 0120000;
		sd->u.data = b->p;
		sd->u.len = (size_t)n;
		return 0;
	}
	if ((fd = fsx_open_beneath(dirfd, path, OFLAGS, 0)) < 0)
		return -1;
	if (fstat(fd, &sd->st) < 0)
		goto fail;
	if (!S_ISREG(sd->st.st_mode)) {
		errno = ESTALE;
		goto fail;
	}
	sd->u.kind = UDIFF_FILE;
	sd->u.mode = git_mode(SHADOW_FILE, PERM(sd->st.st_mode));
	if ((size_t)sd->st.st_size > REVIEW_BIGFILE) {
		if (hash_fd(fd, sd->sha) < 0)
			goto fail;
		sd->big = 1;
		sd->hashed = 1;
	} else if (read_into(fd, (size_t)sd->st.st_size, b, &len) < 0)
		goto fail;
	else {
		sd->u.data = b->p;
		sd->u.len = len;
	}
	close(fd);
	return 0;
fail:
	fsx_close(fd);
	return -1;
}

/* The hash of a file side's content, once. */
static void
side_hash(struct side *sd)
{
	if (!sd->hashed)
		hash_buf(sd->u.data, sd->u.len, sd->sha);
	sd->hashed = 1;
}

/* A big file stands in as NUL + its hash: binary, equal iff same bytes. */
static void
side_sentinel(struct side *sd)
{
	if (sd->u.kind != UDIFF_FILE)
		return;
	side_hash(sd);
	sd->sentinel[0] = '\0';
	memcpy(sd->sentinel + 1, sd->sha, HASH_LEN);
	sd->u.data = sd->sentinel;
	sd->u.len = sizeof sd->sentinel;
}

static void
digest_line(struct hash_ctx *d, const struct change *ch)
{
	char line[64];
	int n;

	n = snprintf(line, sizeof line, "%s %o %o %o %o ",
	    changes_status_name(ch->status), (unsigned)ch->old_kind,
	    ch->old_mode, (unsigned)ch->new_kind, ch->new_mode);
	hash_update(d, line, (size_t)n);
	hash_update(d, ch->path, strlen(ch->path) + 1);
}

/* The content hash of one side of a binary change, as hex (files only). */
static void
digest_sha(struct hash_ctx *d, struct side *sd)
{
	char hex[HASH_HEXLEN + 1];

	if (sd->u.kind != UDIFF_FILE)
		return;
	side_hash(sd);
	hash_hex(sd->sha, hex);
	hash_update(d, hex, HASH_HEXLEN);
}

static void
digest_shas(struct hash_ctx *d, struct side *o, struct side *n)
{
	hash_update(d, "bin ", 4);
	digest_sha(d, o);
	hash_update(d, " ", 1);
	digest_sha(d, n);
	hash_update(d, "\n", 1);
}

static const char *
kind_word(enum shadow_kind k)
{
	switch (k) {
	case SHADOW_FIFO:
		return "fifo";
	case SHADOW_SPECIAL:
		return "socket or device";
	case SHADOW_SYMLINK:
		return "symlink";
	case SHADOW_DIR:
		return "directory";
	default:
		return "file";
	}
}

/*
 * What a git-style section cannot say (a fifo, a socket or device, a
 * hard link, a change apply will refuse) as one line of its own, which
 * `git apply` and `patch` pass over: `# arcturn: PATH: what`.
 */
static int
note(const struct change *ch, udiff_out_fn *out, void *arg)
{
	char line[PATH_MAX + 256], *q;
	int n = 0;

	if ((q = udiff_quote("", ch->path)) == NULL)
		return -1;
	if (ch->new_kind == SHADOW_FIFO || ch->new_kind == SHADOW_SPECIAL)
		n = snprintf(line, sizeof line, "# arcturn: %s: %s %s, mode "
		    "%o%s%s\n", q, ch->old_kind == SHADOW_ABSENT ? "new" :
		    "now a", kind_word(ch->new_kind), ch->new_mode,
		    ch->refuse != NULL ? "; " : "",
		    ch->refuse != NULL ? ch->refuse : "");
	else if ((ch->old_kind == SHADOW_FIFO ||
	    ch->old_kind == SHADOW_SPECIAL) && ch->status == CHANGE_DELETED)
		n = snprintf(line, sizeof line, "# arcturn: %s: %s deleted\n",
		    q, kind_word(ch->old_kind));
	else if (ch->refuse != NULL)
		n = snprintf(line, sizeof line, "# arcturn: %s: %s\n", q,
		    ch->refuse);
	else if (ch->link_to != NULL)
		n = snprintf(line, sizeof line, "# arcturn: %s: a hard link of "
		    "%s\n", q, ch->link_to);
	mem_free(q);
	if (n <= 0)
		return 0;
	return out(line, (size_t)n < sizeof line ? (size_t)n :
	    sizeof line - 1, arg);
}

/*
 * A change whose real path changed since capture (conflict.h): marked
 * `# arcturn: PATH: conflict: changed since capture`, its section left
 * out (it would show the user's edit as the change's deletion). kind is
 * what conflict_of or conflict_of_file said (-1: failed, with errno).
 */
static int
mark(struct change *ch, int kind, udiff_out_fn *out, void *arg)
{
	char line[PATH_MAX + 64], *q;
	const char *m;
	int n;

	ch->conflict = kind;
	if (ch->conflict < 0) {
		ch->conflict = CONFLICT_NONE;
		if (errno == ENOMEM)
			return -1;
	}
	if ((m = conflict_mark(ch->conflict)) == NULL)
		return 0;
	if ((q = udiff_quote("", ch->path)) == NULL)
		return -1;
	n = snprintf(line, sizeof line, "# arcturn: %s: %s\n", q, m);
	mem_free(q);
	return out(line, (size_t)n < sizeof line ? (size_t)n :
	    sizeof line - 1, arg);
}

/*
 * The cap on one file's body (the lines after `+++`): the first cap
 * lines go out, the rest are counted, and review_diff then says how many
 * with the seed's marker. udiff renders the section whole (its digest
 * input never changes shape); this cuts at a line, not at a hunk.
 */
struct capper {
	udiff_out_fn	*out;
	void		*arg;
	long		 cap;
	int		 body;		/* past the `+++` line */
	int		 bol;		/* at the start of a line */
	char		 head[8];	/* a header line's start, no colour */
	size_t		 nhead;
	int		 esc;		/* inside an ANSI sequence */
	int		 cutting;	/* the cap is reached */
	long		 shown, cut;
};

static int
cap_out(const void *buf, size_t len, void *arg)
{
	struct capper *k = arg;
	const char *p = buf, *from = buf, *end = p + len;

	for (; p < end && !k->cutting; p++) {
		if (!k->body) {
			if (k->esc)
				k->esc = *p != 'm';
			else if (*p == '\033')
				k->esc = 1;
			else if (*p != '\n' && k->nhead < sizeof k->head)
				k->head[k->nhead++] = *p;
			if (*p == '\n') {
				k->body = k->nhead >= 4 &&
				    memcmp(k->head, "+++ ", 4) == 0;
				k->nhead = 0;
			}
			continue;
		}
		if (k->bol && k->shown >= k->cap) {
			k->cutting = 1;
			break;
		}
		k->bol = *p == '\n';
		k->shown += k->bol;
	}
	if (p > from && k->out(from, (size_t)(p - from), k->arg) < 0)
		return -1;
	for (; p < end; p++)
		k->cut += *p == '\n';
	return 0;
}

/* After the file: the marker, when lines were left out. */
static int
cap_done(struct capper *k, const char *path, struct udiff_stats *st)
{
	char *q, line[64];
	int rc;

	if (k->cut == 0)
		return 0;
	st->truncated = k->cut;
	if ((q = udiff_quote("", path)) == NULL)
		return -1;
	snprintf(line, sizeof line, "... diff truncated: %ld", k->cut);
	rc = k->out(line, strlen(line), k->arg) < 0 ||
	    k->out(" more lines for ", 16, k->arg) < 0 ||
	    k->out(q, strlen(q), k->arg) < 0 || k->out("\n", 1, k->arg) < 0 ?
	    -1 : 0;
	mem_free(q);
	return rc;
}

int
review_diff(struct session *s, int rootfd, struct changes *c,
    const struct udiff_opts *opts, udiff_out_fn *out, void *arg,
    char hex[HASH_HEXLEN + 1], changes_warn_fn *wfn, void *warg)
{
	struct hash_ctx ctx, *digest = hex != NULL ? &ctx : NULL;
	unsigned char dg[HASH_LEN];
	struct udiff_opts uo;
	struct capper k;
	struct change *ch;
	struct side o, n;
	struct buf bo, bn;
	struct diff_scratch *sc;
	size_t i;
	int rc, r, e;

	if (opts == NULL)
		opts = &digest_opts;
	if (out == NULL)
		out = out_null;
	if (digest != NULL)
		hash_init(digest);
	memset(&bo, 0, sizeof bo);
	memset(&bn, 0, sizeof bn);
	memset(&uo, 0, sizeof uo);
	if ((sc = diff_scratch_new()) == NULL)
		return -1;
	rc = 0;
	for (i = 0; rc == 0 && i < c->n; i++) {
		ch = &c->v[i];
		memset(&ch->st, 0, sizeof ch->st);
		ch->gone = 0;
		if (digest != NULL)
			digest_line(digest, ch);
		if (note(ch, out, arg) < 0)
			goto fail;
		if (ch->status == CHANGE_MKDIR || ch->status == CHANGE_RMDIR ||
		    ch->status == CHANGE_DIRMODE) {
			if (mark(ch, conflict_of(s, rootfd, c, i, NULL), out,
			    arg) < 0)
				goto fail;
			continue;
		}
		/*
		 * The real side is read once: a regular file's conflict is
		 * judged on the bytes the section shows. Any other real
		 * side (or one that cannot be read) is looked at anew.
		 */
		if (load_side(rootfd, ch->path, ch->old_kind == SHADOW_SPECIAL ?
		    SHADOW_ABSENT : ch->old_kind, &o, &bo) < 0) {
			if ((e = errno) == ENOMEM || mark(ch, conflict_of(s,
			    rootfd, c, i, NULL), out, arg) < 0)
				goto fail;
			errno = e;
			goto vanished;
		}
		if (o.u.kind == UDIFF_FILE) {
			side_hash(&o);
			r = conflict_of_file(s, c, i, &o.st, o.sha);
		} else
			r = conflict_of(s, rootfd, c, i, NULL);
		if (mark(ch, r, out, arg) < 0)
			goto fail;
		if (load_side(s->upperfd, ch->path, ch->new_kind, &n, &bn) < 0)
			goto vanished;
		if (o.big || n.big) {
			side_sentinel(&o);
			side_sentinel(&n);
		}
		if (conflict_mark(ch->conflict) != NULL) {
			/* the user's edit is no deletion: digest it only */
			rc = udiff_file_in(sc, ch->path, &o.u, &n.u,
			    &digest_opts, out_null, NULL, digest, &ch->st);
		} else if (opts->cap >= 0) {
			memset(&k, 0, sizeof k);
			k.out = out;
			k.arg = arg;
			k.cap = opts->cap;
			k.bol = 1;
			uo = *opts;
			uo.cap = -1;
			rc = udiff_file_in(sc, ch->path, &o.u, &n.u, &uo,
			    cap_out, &k, digest, &ch->st);
			if (rc == 0)
				rc = cap_done(&k, ch->path, &ch->st);
		} else
			rc = udiff_file_in(sc, ch->path, &o.u, &n.u, opts,
			    out, arg, digest, &ch->st);
		if (rc == 0 && (o.big || n.big))
			ch->st.binary = 1;
		if (rc == 0 && digest != NULL && ch->st.binary)
			digest_shas(digest, &o, &n);
		continue;
vanished:
		if (errno == ENOMEM)
			goto fail;
		ch->gone = 1;
		if (wfn != NULL)
			wfn(ch->path, errno == ESTALE ? 0 : errno,
			    "changed during diff; left out", warg);
	}
	if (rc == 0 && digest != NULL) {
		hash_final(digest, dg);
		hash_hex(dg, hex);
	}
	goto out;
fail:
	rc = -1;
out:
	e = errno;
	mem_free(bo.p);
	mem_free(bn.p);
	diff_scratch_free(sc);
	errno = e;
	return rc;
}

/* An output callback that remembers its first failure. */
struct sink {
	udiff_out_fn	*out;
	void		*arg;
	int		 failed;
};

static void
put(struct sink *k, const char *s, size_t len)
{
	if (!k->failed && len > 0 && k->out(s, len, k->arg) < 0)
		k->failed = 1;
}

static void
putf(struct sink *k, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n > 0)
		put(k, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* n copies of c, in git's colour when color says so. */
static void
put_bar(struct sink *k, char c, long n, const char *color)
{
	char run[32];
	long m;

	if (n <= 0)
		return;
	if (color != NULL)
		put(k, color, strlen(color));
	memset(run, c, sizeof run);
	for (; n > 0; n -= m) {
		m = n < (long)sizeof run ? n : (long)sizeof run;
		put(k, run, (size_t)m);
	}
	if (color != NULL)
		put(k, "\033[m", 3);
}

static int
ndigits(long v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static int
stat_listed(const struct change *e)
{
	return !e->gone && e->status != CHANGE_MKDIR &&
	    e->status != CHANGE_RMDIR && e->status != CHANGE_DIRMODE;
}

/* One file's line: the name (cut from the left to nw), then its graph. */
static void
stat_line(struct sink *k, const struct change *e, const char *name,
    size_t nw, long cw, long maxc, long graph, int color)
{
	long a = e->st.added, r = e->st.removed, total = a + r;
	size_t l = strlen(name);

	if (l > nw) {
		put(k, " ...", 4);
		put(k, name + l - nw + 3, nw - 3);
	} else {
		put(k, " ", 1);
		put(k, name, l);
		put_bar(k, ' ', (long)(nw - l), NULL);
	}
	if (e->st.binary) {
		putf(k, " | Bin %lld -> %lld bytes\n",
		    e->old_kind == SHADOW_FILE ? e->old_size : 0LL,
		    e->new_kind == SHADOW_FILE ? e->new_size : 0LL);
		return;
	}
	putf(k, " | %*ld%s", (int)cw, total, total ? " " : "");
	if (maxc > graph && total > 0) {
		long sa, sr, t = 1 + total * (graph - 1) / maxc;

		sa = a ? (a * t + total / 2) / total : 0;
		if (a && sa == 0)
			sa = 1;
		sr = t - sa;
		if (r && sr == 0) {
			sr = 1;
			if (sa > 1)
				sa--;
		}
		a = sa;
		r = sr;
	}
	put_bar(k, '+', a, color && e->st.added ? "\033[32m" : NULL);
	put_bar(k, '-', r, color && e->st.removed ? "\033[31m" : NULL);
	put(k, "\n", 1);
}

int
review_stat(const struct changes *c, int color, udiff_out_fn *out,
    void *arg)
{
	struct sink k = { out, arg, 0 };
	const struct change *e;
	char **names;
	size_t i, nw = 0, files = 0, l;
	long maxc = 0, ins = 0, del = 0, graph, cw;
	const long w = REVIEW_STAT_WIDTH;
	int rc = -1;

	if ((names = mem_calloc(c->n + 1, sizeof *names)) == NULL)
		return -1;
	for (i = 0; i < c->n; i++) {
		e = &c->v[i];
		if (!stat_listed(e))
			continue;
		if ((names[i] = udiff_quote("", e->path)) == NULL)
			goto out;
		l = strlen(names[i]);
		if (l > nw)
			nw = l;
		if (!e->st.binary && e->st.added + e->st.removed > maxc)
			maxc = e->st.added + e->st.removed;
	}
	cw = ndigits(maxc);
	/* As git: counts line up with the "Bin" of binary files. */
	for (i = 0; i < c->n; i++)
		if (names[i] != NULL && c->v[i].st.binary && cw < 3)
			cw = 3;
	if (nw > (size_t)(w * 5 / 8) && nw + cw + 6 + 10 > (size_t)w)
		nw = (size_t)(w * 5 / 8);
	graph = w - (long)nw - cw - 6;
	if (graph < 6)
		graph = 6;
	for (i = 0; i < c->n; i++) {
		e = &c->v[i];
		if (names[i] == NULL)
			continue;
		files++;
		if (!e->st.binary) {
			ins += e->st.added;
			del += e->st.removed;
		}
		stat_line(&k, e, names[i], nw, cw, maxc, graph, color);
	}
	putf(&k, " %zu file%s changed", files, files == 1 ? "" : "s");
	if (ins || del == 0)
		putf(&k, ", %ld insertion%s(+)", ins, ins == 1 ? "" : "s");
	if (del || ins == 0)
		putf(&k, ", %ld deletion%s(-)", del, del == 1 ? "" : "s");
	put(&k, "\n", 1);
	rc = k.failed ? -1 : 0;
out:
	for (i = 0; i < c->n; i++)
		mem_free(names[i]);
	mem_free(names);
	return rc;
}

/*
 * The mode of one side as git writes it: 100644 or 100755 for a file
 * (the owner's execute bit), 120000 for a symlink and 040000 for a
 * directory whatever their permission bits; a fifo is 010000 with its
 * bits (git has none); null when absent, and for a socket or device.
 */
static cJSON *
mode_json(enum shadow_kind k, unsigned int perm)
{
	char b[16];
	unsigned int m;

	switch (k) {
	case SHADOW_FILE:
		m = git_mode(SHADOW_FILE, perm);
		break;
	case SHADOW_SYMLINK:
		m = 0120000;
		break;
	case SHADOW_DIR:
		m = 040000;
		break;
	case SHADOW_FIFO:
		m = 010000 | PERM(perm);
		break;
	default:
		return cJSON_CreateNull();
	}
	snprintf(b, sizeof b, "%06o", m);
	return cJSON_CreateString(b);
}

/* key: s, or null when s is NULL. */
static int
add_str(cJSON *o, const char *key, const char *s)
{
	return (s != NULL ? cJSON_AddStringToObject(o, key, s) :
	    cJSON_AddNullToObject(o, key)) == NULL ? -1 : 0;
}

static int
add_item(cJSON *o, const char *key, cJSON *v)
{
	if (v == NULL)
		return -1;
	if (!cJSON_AddItemToObject(o, key, v)) {
		cJSON_Delete(v);
		return -1;
	}
	return 0;
}

static int
json_file(cJSON *files, const struct change *e)
{
	const char *m = conflict_mark(e->conflict);
	cJSON *f;

	if ((f = cJSON_CreateObject()) == NULL)
		return -1;
	if (!cJSON_AddItemToArray(files, f)) {
		cJSON_Delete(f);
		return -1;
	}
	/* the mark's words after "conflict: " */
	if (m != NULL && strncmp(m, "conflict: ", 10) == 0)
		m += 10;
	if (add_str(f, "path", e->path) < 0 ||
	    add_str(f, "status", changes_status_name(e->status)) < 0 ||
	    add_item(f, "mode_before", mode_json(e->old_kind,
	    e->old_mode)) < 0 ||
	    add_item(f, "mode_after", mode_json(e->new_kind,
	    e->new_mode)) < 0 ||
	    cJSON_AddNumberToObject(f, "added", (double)e->st.added) == NULL ||
	    cJSON_AddNumberToObject(f, "removed",
	    (double)e->st.removed) == NULL ||
	    cJSON_AddBoolToObject(f, "binary", e->st.binary) == NULL ||
	    add_str(f, "conflict", m) < 0 ||
	    add_str(f, "refused", e->refuse) < 0 ||
	    add_str(f, "link_to", e->link_to) < 0)
		return -1;
	return 0;
}

int
review_json(cJSON *doc, const struct changes *c, const char *session,
    const char *workspace, const char *digest)
{
	cJSON *files;
	size_t i;

	if (add_str(doc, "session", session) < 0 ||
	    add_str(doc, "workspace", workspace) < 0 ||
	    cJSON_AddNumberToObject(doc, "count", (double)c->count) == NULL ||
	    add_str(doc, "digest", digest) < 0 ||
	    (files = cJSON_AddArrayToObject(doc, "files")) == NULL)
		goto nomem;
	for (i = 0; i < c->n; i++)
		if (!c->v[i].gone && json_file(files, &c->v[i]) < 0)
			goto nomem;
	return 0;
nomem:
	errno = ENOMEM;
	return -1;
}
