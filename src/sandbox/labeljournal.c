#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/mem.h"
#include "sandbox/labeljournal.h"

#define HEADER	"arcturn-label-journal 1\n"

struct entry {
	char	*path;
	char	*sddl;		/* the label before the stamp */
};

struct journal {
	struct entry	*e;
	size_t		 n, cap;
};

static void
journal_free(struct journal *j)
{
	size_t i;

	for (i = 0; i < j->n; i++) {
		mem_free(j->e[i].path);
		mem_free(j->e[i].sddl);
	}
	mem_free(j->e);
	j->e = NULL;
	j->n = j->cap = 0;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decode s[0..len) into a new string; EBADMSG on a bad escape. */
static char *
unescape(const char *s, size_t len)
{
	char *d;
	size_t i, k = 0;
	int hi, lo;

	if ((d = mem_alloc(len + 1)) == NULL)
		return NULL;
	for (i = 0; i < len; i++) {
		if (s[i] != '%') {
			d[k++] = s[i];
			continue;
		}
		if (i + 2 >= len) {
			mem_free(d);
			errno = EBADMSG;
			return NULL;
		}
		hi = hexval((unsigned char)s[i + 1]);
		lo = hexval((unsigned char)s[i + 2]);
		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
			mem_free(d);
			errno = EBADMSG;
			return NULL;
		}
		d[k++] = (char)(hi << 4 | lo);
		i += 2;
	}
	d[k] = '\0';
	return d;
}

static int
push(struct journal *j, char *path, char *sddl)
{
	struct entry *e;

	if (j->n == j->cap) {
		size_t cap = j->cap ? j->cap * 2 : 8;

		if ((e = mem_reallocarray(j->e, cap, sizeof *e)) == NULL)
			return -1;
		j->e = e;
		j->cap = cap;
	}
	j->e[j->n].path = path;
	j->e[j->n].sddl = sddl;
	j->n++;
	return 0;
}

static int
parse(struct journal *j, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl, *tab;
	char *path, *sddl;
	int e;

	if (len == 0)
		return 0;
	if (len < sizeof HEADER - 1 || memcmp(buf, HEADER, sizeof HEADER - 1) != 0)
		goto bad;
	for (p += sizeof HEADER - 1; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			goto bad;
		if ((tab = memchr(p, '\t', (size_t)(nl - p))) == NULL || tab == p ||
		    memchr(tab + 1, '\t', (size_t)(nl - tab - 1)) != NULL)
			goto bad;
		if ((path = unescape(p, (size_t)(tab - p))) == NULL)
			goto fail;
		if ((sddl = unescape(tab + 1, (size_t)(nl - tab - 1))) == NULL) {
			e = errno;
			mem_free(path);
			errno = e;
			goto fail;
		}
		if (push(j, path, sddl) == -1) {
			e = errno;
			mem_free(path);
			mem_free(sddl);
			errno = e;
			goto fail;
		}
	}
	return 0;
bad:
	errno = EBADMSG;
fail:
	e = errno;
	journal_free(j);
	errno = e;
	return -1;
}

static size_t
escape(const char *s, char *out)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;
	unsigned char c;

	for (; *s != '\0'; s++) {
		c = (unsigned char)*s;
		if (c < 0x20 || c == '%' || c == 0x7f) {
			if (out != NULL) {
				out[n] = '%';
				out[n + 1] = hex[c >> 4];
				out[n + 2] = hex[c & 15];
			}
			n += 3;
		} else {
			if (out != NULL)
				out[n] = (char)c;
			n++;
		}
	}
	return n;
}

static int
save(const char *file, const struct journal *j,
    const struct labeljournal_ops *ops)
{
	size_t len = sizeof HEADER - 1, i, k;
	char *buf;
	int rc, e;

	for (i = 0; i < j->n; i++)
		len += escape(j->e[i].path, NULL) + 1 + escape(j->e[i].sddl, NULL) + 1;
	if ((buf = mem_alloc(len + 1)) == NULL)
		return -1;
	memcpy(buf, HEADER, sizeof HEADER - 1);
	k = sizeof HEADER - 1;
	for (i = 0; i < j->n; i++) {
		k += escape(j->e[i].path, buf + k);
		buf[k++] = '\t';
		k += escape(j->e[i].sddl, buf + k);
		buf[k++] = '\n';
	}
	buf[k] = '\0';
	rc = ops->write(file, buf, k, ops->arg);
	e = errno;
	mem_free(buf);
	errno = e;
	return rc;
}

static int
load(const char *file, struct journal *j, const struct labeljournal_ops *ops)
{
	char *buf;
	size_t len;
	int rc, e;

	memset(j, 0, sizeof *j);
	if (ops->read(file, &buf, &len, ops->arg) == -1)
		return errno == ENOENT ? 0 : -1;
	rc = parse(j, buf, len);
	e = errno;
	mem_free(buf);
	errno = e;
	return rc;
}

static int
fail(char *err, size_t errlen, const char *what, const char *path)
{
	int e = errno;

	snprintf(err, errlen, "%s: %s: %s", what, path,
	    e == EBADMSG ? "damaged journal, left as it is" : strerror(e));
	errno = e;
	return -1;
}

int
labeljournal_stamp(const char *journal, const char *path,
    const struct labeljournal_ops *ops, char *err, size_t errlen)
{
	struct journal j;
	char *p = NULL, *prev = NULL;
	size_t i;
	int rc = -1, e, known = 0;

	if (ops->lock(journal, ops->arg) == -1)
		return fail(err, errlen, "label journal: lock", journal);
	if (load(journal, &j, ops) == -1) {
		fail(err, errlen, "label journal", journal);
		goto out;
	}
	for (i = 0; i < j.n; i++)
		if (strcmp(j.e[i].path, path) == 0)
			known = 1;
	if (!known) {
		if (ops->get_label(path, &prev, ops->arg) == -1) {
			fail(err, errlen, "read label", path);
			goto out;
		}
		if ((p = mem_strdup(path)) == NULL || push(&j, p, prev) == -1) {
			e = errno;
			mem_free(p);
			mem_free(prev);
			errno = e;
			fail(err, errlen, "label journal", journal);
			goto out;
		}
		if (save(journal, &j, ops) == -1) {
			fail(err, errlen, "label journal", journal);
			goto out;
		}
	}
	if (ops->set_label(path, LABEL_LOW, ops->arg) == -1) {
		fail(err, errlen, "set Low label", path);
		goto out;
	}
	rc = 0;
out:
	e = errno;
	journal_free(&j);
	ops->unlock(ops->arg);
	errno = e;
	return rc;
}

int
labeljournal_unstamp(const char *journal, const char *path,
    const struct labeljournal_ops *ops, size_t *restored, char *err,
    size_t errlen)
{
	struct journal j;
	size_t i, k;
	int rc = 0, e = 0;

	*restored = 0;
	if (ops->lock(journal, ops->arg) == -1)
		return fail(err, errlen, "label journal: lock", journal);
	if (load(journal, &j, ops) == -1) {
		e = errno;
		fail(err, errlen, "label journal", journal);
		ops->unlock(ops->arg);
		errno = e;
		return -1;
	}
	/* Newest first; each restored entry is dropped from the journal. */
	for (i = j.n; i-- > 0;) {
		if (path != NULL && strcmp(j.e[i].path, path) != 0)
			continue;
		if (ops->set_label(j.e[i].path, j.e[i].sddl, ops->arg) == -1) {
			if (rc == 0) {
				e = errno;
				fail(err, errlen, "restore label", j.e[i].path);
			}
			rc = -1;
			continue;
		}
		mem_free(j.e[i].path);
		mem_free(j.e[i].sddl);
		for (k = i; k + 1 < j.n; k++)
			j.e[k] = j.e[k + 1];
		j.n--;
		if (save(journal, &j, ops) == -1) {
			/* The label is back; the entry stays until a rerun. */
			if (rc == 0) {
				e = errno;
				fail(err, errlen, "label journal", journal);
			}
			rc = -1;
			break;
		}
		(*restored)++;
	}
	journal_free(&j);
	ops->unlock(ops->arg);
	if (rc == -1)
		errno = e;
	return rc;
}

long
labeljournal_count(const char *journal, const struct labeljournal_ops *ops)
{
	struct journal j;
	long n;

	if (load(journal, &j, ops) == -1)
		return -1;
	n = (long)j.n;
	journal_free(&j);
	return n;
}
