/*
 * session_base: the base records of a session (session_base.h).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsx.h"
#include "hash.h"
#include "mem.h"
#include "session.h"
#include "session_base.h"

#define BASE_MAX	(8192 + 4096)


static void
base_name(const char *rel, char name[HASH_HEXLEN + 1])
{
	unsigned char d[HASH_LEN];

	hash_buf(rel, strlen(rel), d);
	hash_hex(d, name);
}

static int
unhex(const char *p, unsigned char out[HASH_LEN])
{
	int i, hi, lo;

	for (i = 0; i < HASH_LEN; i++) {
		hi = p[2 * i];
		lo = p[2 * i + 1];
		hi = hi >= '0' && hi <= '9' ? hi - '0' :
		    hi >= 'a' && hi <= 'f' ? hi - 'a' + 10 : -1;
		lo = lo >= '0' && lo <= '9' ? lo - '0' :
		    lo >= 'a' && lo <= 'f' ? lo - 'a' + 10 : -1;
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

/* Record kinds: the type bits they stand for (0: absent, ~0: none). */
static const struct {
	const char	*name;
	unsigned int	 fmt;
} kinds[] = {
	{ "absent", 0 }, { "file", S_IFREG }, { "link", S_IFLNK },
	{ "dir", S_IFDIR }, { "fifo", S_IFIFO }, { "sock", S_IFSOCK },
	{ "chr", S_IFCHR }, { "blk", S_IFBLK }, { "none", ~0U }
};

int
session_base_get(struct session *s, const char *rel, struct apply_base *b)
{
	char name[HASH_HEXLEN + 1], kind[8], *buf, *nl, *end;
	size_t len, plen = strlen(rel), i;
	unsigned long mode;

	base_name(rel, name);
	if (fsx_read_all(s->basefd, name, BASE_MAX, &buf, &len) < 0) {
		if (errno == EINVAL || errno == EFBIG || errno == ELOOP) {
			snprintf(s->why, sizeof s->why, "base record for %s "
			    "not a regular file", rel);
			errno = EBADMSG;
		}
		return -1;
	}
	memset(b, 0, sizeof *b);
	nl = memchr(buf, '\n', len);
	/* what a crash before the data reached the disk leaves */
	if (nl == NULL || (size_t)(buf + len - nl - 1) < plen)
		goto truncated;
	if ((size_t)(nl - buf) < 6 + HASH_HEXLEN ||
	    (size_t)(buf + len - nl - 1) != plen ||
	    memcmp(nl + 1, rel, plen) != 0)
		goto corrupt;
	*nl = '\0';
	end = strchr(buf, ' ');
	if (end == NULL || end - buf >= (long)sizeof kind)
		goto corrupt;
	memcpy(kind, buf, (size_t)(end - buf));
	kind[end - buf] = '\0';
	errno = 0;
	mode = strtoul(end + 1, &end, 8);
	if (errno != 0 || *end != ' ' || mode > 07777 ||
	    strlen(end + 1) != HASH_HEXLEN || unhex(end + 1, b->sha) < 0)
		goto corrupt;
	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(kind, kinds[i].name) == 0)
			break;
	if (i == sizeof kinds / sizeof kinds[0])
		goto corrupt;
	switch (kinds[i].fmt) {
	case 0:
		b->absent = 1;
		break;
	case ~0U:
		b->unrecorded = 1;
		b->why = (int)mode;
		mode = 0;
		break;
	case S_IFLNK:
		b->is_link = 1;
		break;
	case S_IFDIR:
		b->is_dir = 1;
		break;
	case S_IFREG:
		break;
	default:
		b->special = kinds[i].fmt;
	}
	b->mode = (unsigned int)mode;
	mem_free(buf);
	return 0;
truncated:
	mem_free(buf);
	snprintf(s->why, sizeof s->why, "base record for %s truncated", rel);
	errno = EBADMSG;
	return -1;
corrupt:
	mem_free(buf);
	snprintf(s->why, sizeof s->why, "base record for %s corrupt", rel);
	errno = EBADMSG;
	return -1;
}

static const char *
kind_name(const struct apply_base *b)
{
	size_t i;

	if (b->unrecorded)
		return "none";
	if (b->absent)
		return "absent";
	if (b->is_link)
		return "link";
	if (b->is_dir)
		return "dir";
	for (i = 0; b->special != 0 && i < sizeof kinds / sizeof kinds[0]; i++)
		if (kinds[i].fmt == b->special)
			return kinds[i].name;
	return "file";
}

int
session_base_put(struct session *s, const char *rel,
    const struct apply_base *b)
{
	char name[HASH_HEXLEN + 1], hex[HASH_HEXLEN + 1], *buf;
	size_t plen = strlen(rel), hlen;
	unsigned int mode;
	int rc;

	base_name(rel, name);
	hash_hex(b->sha, hex);
	mode = b->unrecorded ? (unsigned int)b->why : b->mode;
	if ((buf = mem_alloc(64 + HASH_HEXLEN + plen)) == NULL)
		return -1;
	hlen = (size_t)snprintf(buf, 64 + HASH_HEXLEN, "%s %o %s\n",
	    kind_name(b), mode & 07777, hex);
	memcpy(buf + hlen, rel, plen);
	rc = fsx_write_atomic(s->basefd, name, buf, hlen + plen, 0600,
	    FSX_NOREPLACE | (s->nosync ? FSX_NOSYNC : 0));
	mem_free(buf);
	if (rc < 0 && errno == EEXIST)
		rc = 0;
	return rc;
}

int
session_base_del(struct session *s, const char *rel)
{
	char name[HASH_HEXLEN + 1];

	base_name(rel, name);
	if (unlinkat(s->basefd, name, 0) < 0 && errno != ENOENT)
		return -1;
	return 0;
}
