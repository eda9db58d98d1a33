/*
 * checkpoint_record: a turn record as text and back (checkpoint.h has
 * the format).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint/checkpoint.h"
#include "lib/mem.h"
#include "lib/pstate.h"

#define TURN_MAGIC	"arcturn-turn 1\n"
#define AFTER_KEY	"after"
#define OPEN_KEY	"open"
#define LAND_KEY	"open land"

/* The kinds a record holds (lib/pstate.h's words). */
static int
recorded(int k)
{
	return k == PSTATE_ABSENT || k == PSTATE_FILE || k == PSTATE_LINK ||
	    k == PSTATE_DIR;
}

/* A buffer that grows, for a record being written. */
struct sbuf {
	char	*p;
	size_t	 len, cap;
	int	 err;
};

static void
sb_put(struct sbuf *b, const void *s, size_t n)
{
	char *q;
	size_t cap;

	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		if ((q = mem_realloc(b->p, cap)) == NULL) {
			b->err = errno;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

/* Hand the text over (0), or free it and say why not (-1, errno). */
static int
sb_done(struct sbuf *b, char **buf, size_t *len)
{
	if (b->err) {
		errno = b->err;
		mem_free(b->p);
		return -1;
	}
	*buf = b->p;
	*len = b->len;
	return 0;
}

static void
sb_printf(struct sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	sb_put(b, tmp, n < 0 ? 0 : (size_t)n);
}

static void
sb_state(struct sbuf *b, const struct pstate *s)
{
	char hex[HASH_HEXLEN + 1];

	hash_hex(s->sha, hex);
	/* a special file is never recorded: "other" reads as corrupt */
	sb_printf(b, "%s %o %s ", recorded(s->kind) ?
	    pstate_kind_name(s->kind) : "other", s->mode & 07777, hex);
}

int
ckpt_format(const struct ckpt_turn *t, char **buf, size_t *len)
{
	struct sbuf b = { NULL, 0, 0, 0 };
	size_t i;

	sb_put(&b, TURN_MAGIC, sizeof TURN_MAGIC - 1);
	sb_printf(&b, "id %lu\ntime %lld\nlabel %zu\n", t->id,
	    (long long)t->time, strlen(t->label ? t->label : ""));
	if (t->label != NULL)
		sb_put(&b, t->label, strlen(t->label));
	sb_printf(&b, "\npaths %zu\n", t->n);
	for (i = 0; i < t->n; i++) {
		sb_state(&b, &t->e[i].before);
		sb_state(&b, &t->e[i].after);
		sb_printf(&b, "%zu\n", strlen(t->e[i].path));
		sb_put(&b, t->e[i].path, strlen(t->e[i].path));
		sb_put(&b, "\n", 1);
	}
	if (t->open == CKPT_OPEN_LAND)
		sb_put(&b, LAND_KEY "\n", sizeof LAND_KEY);
	else if (t->open)
		sb_put(&b, OPEN_KEY "\n", sizeof OPEN_KEY);
	sb_put(&b, "end\n", 4);
	return sb_done(&b, buf, len);
}

/* A parser over a record's bytes. */
struct rd {
	const char	*p, *end;
	int		 bad;
};

/* The text up to the next space or newline (which is skipped). */
static const char *
rd_word(struct rd *r, char *buf, size_t len)
{
	size_t n = 0;

	while (r->p < r->end && *r->p != ' ' && *r->p != '\n') {
		if (n + 1 < len)
			buf[n++] = *r->p;
		else
			r->bad = 1;
		r->p++;
	}
	buf[n] = '\0';
	if (r->p >= r->end)
		r->bad = 1;
	else
		r->p++;
	return buf;
}

static unsigned long long
rd_num(struct rd *r, int base)
{
	char buf[32], *e;
	unsigned long long v;

	rd_word(r, buf, sizeof buf);
	if (buf[0] < '0' || buf[0] > '9')
		r->bad = 1;
	v = strtoull(buf, &e, base);
	if (*e != '\0')
		r->bad = 1;
	return v;
}

static void
rd_key(struct rd *r, const char *key)
{
	char buf[16];

	if (strcmp(rd_word(r, buf, sizeof buf), key) != 0)
		r->bad = 1;
}

static char *
rd_bytes(struct rd *r, size_t n)
{
	char *s;

	if (r->bad || (size_t)(r->end - r->p) < n + 1 || r->p[n] != '\n' ||
	    memchr(r->p, '\0', n) != NULL) {
		r->bad = 1;
		return NULL;
	}
	if ((s = mem_strndup(r->p, n)) != NULL)
		r->p += n + 1;
	return s;
}

static void
rd_state(struct rd *r, struct pstate *s)
{
	char kind[16], hex[HASH_HEXLEN + 2];
	int k;

	k = pstate_kind_parse(rd_word(r, kind, sizeof kind));
	if (!recorded(k))
		r->bad = 1;
	s->kind = recorded(k) ? (enum pstate_kind)k : PSTATE_ABSENT;
	s->mode = (unsigned int)rd_num(r, 8) & 07777;
	if (hash_unhex(rd_word(r, hex, sizeof hex), s->sha) < 0)
		r->bad = 1;
}

int
ckpt_parse(const char *buf, size_t len, struct ckpt_turn *t)
{
	struct rd r = { buf, buf + len, 0 };
	size_t n, i, plen;

	memset(t, 0, sizeof *t);
	if (len < sizeof TURN_MAGIC - 1 ||
	    memcmp(buf, TURN_MAGIC, sizeof TURN_MAGIC - 1) != 0) {
		errno = EBADMSG;
		return -1;
	}
	r.p += sizeof TURN_MAGIC - 1;
	rd_key(&r, "id");
	t->id = (unsigned long)rd_num(&r, 10);
	rd_key(&r, "time");
	t->time = (time_t)rd_num(&r, 10);
	rd_key(&r, "label");
	n = (size_t)rd_num(&r, 10);
	if ((t->label = rd_bytes(&r, n)) == NULL)
		goto fail;
	rd_key(&r, "paths");
	n = (size_t)rd_num(&r, 10);
	if (r.bad || n > len / 8)
		goto bad;
	if (n > 0 && (t->e = mem_calloc(n, sizeof *t->e)) == NULL)
		goto fail;
	for (i = 0; i < n && !r.bad; i++) {
		rd_state(&r, &t->e[i].before);
		rd_state(&r, &t->e[i].after);
		plen = (size_t)rd_num(&r, 10);
		if ((t->e[i].path = rd_bytes(&r, plen)) == NULL)
			goto fail;
		t->n++;
	}
	if (!r.bad && (size_t)(r.end - r.p) >= sizeof OPEN_KEY &&
	    memcmp(r.p, OPEN_KEY "\n", sizeof OPEN_KEY) == 0) {
		t->open = CKPT_OPEN_REWIND;
		r.p += sizeof OPEN_KEY;
	} else if (!r.bad && (size_t)(r.end - r.p) >= sizeof LAND_KEY &&
	    memcmp(r.p, LAND_KEY "\n", sizeof LAND_KEY) == 0) {
		t->open = CKPT_OPEN_LAND;
		r.p += sizeof LAND_KEY;
	}
	rd_key(&r, "end");
	if (!r.bad)
		return 0;
bad:
	errno = EBADMSG;
fail:
	ckpt_turn_clear(t);
	if (r.bad)
		errno = EBADMSG;
	return -1;
}


int
ckpt_format_after(struct ckpt_entry *const *e, size_t n, char **buf,
    size_t *len)
{
	struct sbuf b = { NULL, 0, 0, 0 };
	size_t i;

	for (i = 0; i < n; i++) {
		sb_put(&b, AFTER_KEY " ", sizeof AFTER_KEY);
		sb_state(&b, &e[i]->after);
		sb_printf(&b, "%zu\n", strlen(e[i]->path));
		sb_put(&b, e[i]->path, strlen(e[i]->path));
		sb_put(&b, "\n", 1);
	}
	return sb_done(&b, buf, len);
}

size_t
ckpt_parse_after(const char *buf, size_t len, struct ckpt_turn *t)
{
	struct rd r = { buf, buf + len, 0 };
	struct pstate st;
	struct ckpt_entry *en;
	size_t plen, done = 0;
	char *path;

	while (r.p < r.end) {
		rd_key(&r, AFTER_KEY);
		rd_state(&r, &st);
		plen = (size_t)rd_num(&r, 10);
		if (r.bad || (path = rd_bytes(&r, plen)) == NULL)
			break;		/* a torn or foreign tail: the rest */
		if ((en = ckpt_find(t, path)) != NULL) {
			en->after = st;
			done++;
		}
		mem_free(path);
	}
	return done;
}

void
ckpt_turn_clear(struct ckpt_turn *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->n; i++)
		mem_free(t->e[i].path);
	mem_free(t->e);
	mem_free(t->label);
	memset(t, 0, sizeof *t);
}

void
ckpt_turns_free(struct ckpt_turn *t, size_t n)
{
	size_t i;

	for (i = 0; t != NULL && i < n; i++)
		ckpt_turn_clear(&t[i]);
	mem_free(t);
}
