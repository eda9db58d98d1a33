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

#include "lib/fsx.h"
#include "lib/hash.h"
#include "lib/mem.h"
#include "lib/pstate.h"
#include "session/session.h"
#include "session/session_base.h"

#define BASE_MAX	(8192 + 4096)
#define SHA_B64		43	/* base64url digits of a SHA-256, unpadded */
#define REC_MAX	59	/* what ext4 keeps in the inode itself */

static const char B64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static void
base_name(const char *rel, char name[HASH_HEXLEN + 1])
{
	unsigned char d[HASH_LEN];

	hash_buf(rel, strlen(rel), d);
	hash_hex(d, name);
}

static void
b64_sha(const unsigned char sha[HASH_LEN], char out[SHA_B64 + 1])
{
	unsigned long acc = 0;
	size_t i, o = 0;
	int bits = 0;

	for (i = 0; i < HASH_LEN; i++) {
		acc = acc << 8 | sha[i];
		for (bits += 8; bits >= 6; bits -= 6)
			out[o++] = B64[acc >> (bits - 6) & 63];
	}
	out[o++] = B64[acc << (6 - bits) & 63];
	out[o] = '\0';
}

/* The SHA-256 of exactly SHA_B64 digits (the unused low bits zero). */
static int
unb64_sha(const char *p, unsigned char sha[HASH_LEN])
{
	unsigned long acc = 0;
	const char *c;
	size_t i, o = 0;
	int bits = 0;

	for (i = 0; i < SHA_B64; i++) {
		if (p[i] == '\0' || (c = strchr(B64, p[i])) == NULL)
			return -1;
		acc = acc << 6 | (unsigned long)(c - B64);
		if ((bits += 6) >= 8) {
			bits -= 8;
			sha[o++] = (unsigned char)(acc >> bits);
		}
	}
	return p[i] == '\0' && (acc & ((1UL << bits) - 1)) == 0 ? 0 : -1;
}

/*
 * "<kind> <mode> <hash>" into *b, the hash in hex (a record file) or
 * base64url (a record link); -1: not a record. The kinds are
 * lib/pstate.h's words, and "none" for an unrecorded base.
 */
static int
parse(char *line, int b64, struct apply_base *b)
{
	char kind[8], *end;
	unsigned long mode;
	int k;

	memset(b, 0, sizeof *b);
	end = strchr(line, ' ');
	if (end == NULL || end - line >= (long)sizeof kind)
		return -1;
	memcpy(kind, line, (size_t)(end - line));
	kind[end - line] = '\0';
	if (end[1] < '0' || end[1] > '7')
		return -1;
	errno = 0;
	mode = strtoul(end + 1, &end, 8);
	if (errno != 0 || *end != ' ' || mode > 07777)
		return -1;
	if (b64 ? unb64_sha(end + 1, b->ps.sha) < 0 :
	    strlen(end + 1) != HASH_HEXLEN ||
	    hash_unhex(end + 1, b->ps.sha) < 0)
		return -1;
	if (strcmp(kind, "none") == 0) {
		b->unrecorded = 1;
		b->why = (int)mode;
		return 0;
	}
	if ((k = pstate_kind_parse(kind)) < 0)
		return -1;
	b->ps.kind = (enum pstate_kind)k;
	b->ps.mode = (unsigned int)mode;
	return 0;
}

/* A record file (as arcturn wrote them before records were links). */
static int
get_file(struct session *s, const char *rel, const char *name,
    struct apply_base *b)
{
	char *buf, *nl;
	size_t len, plen = strlen(rel);

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
	if (parse(buf, 0, b) < 0)
		goto corrupt;
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

int
session_base_get(struct session *s, const char *rel, struct apply_base *b)
{
	char name[HASH_HEXLEN + 1], buf[REC_MAX + 2];
	ssize_t n;

	base_name(rel, name);
	if ((n = readlinkat(s->basefd, name, buf, sizeof buf)) < 0)
		return errno == EINVAL ? get_file(s, rel, name, b) : -1;
	buf[(size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1] = '\0';
	if ((size_t)n > REC_MAX || memchr(buf, '\0', (size_t)n) != NULL ||
	    parse(buf, 1, b) < 0) {
		snprintf(s->why, sizeof s->why, "base record for %s corrupt",
		    rel);
		errno = EBADMSG;
		return -1;
	}
	return 0;
}

int
session_base_put(struct session *s, const char *rel,
    const struct apply_base *b)
{
	char name[HASH_HEXLEN + 1], sha[SHA_B64 + 1], rec[REC_MAX + 1];
	unsigned int mode;

	if (session_upgrade(s) < 0)
		return -1;
	base_name(rel, name);
	b64_sha(b->ps.sha, sha);
	mode = b->unrecorded ? (unsigned int)b->why : b->ps.mode;
	snprintf(rec, sizeof rec, "%s %o %s", b->unrecorded ? "none" :
	    pstate_kind_name(b->ps.kind), mode & 07777, sha);
	if (symlinkat(rec, s->basefd, name) < 0)
		return errno == EEXIST ? 0 : -1;
	return s->nosync ? 0 : fsx_sync_dir(s->basefd);
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
