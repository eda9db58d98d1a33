#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "fsx.h"
#include "hash.h"
#include "mem.h"
#include "session.h"

#define META		"meta.json"
#define META_MAX	65536
#define BASE_MAX	(8192 + 4096)
#define DFLAGS		(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define WAIT_NOTE_NS	1000000000L	/* say that we wait after this */
#define WAIT_STEP_NS	10000000L

static void
json_hooks(void)
{
	static cJSON_Hooks h = { mem_alloc, mem_free };

	cJSON_InitHooks(&h);
}

int
session_id_valid(const char *id)
{
	size_t i;

	if (id == NULL || id[0] == '\0')
		return 0;
	for (i = 0; id[i] != '\0'; i++) {
		if (i >= SESSION_IDMAX)
			return 0;
		if ((id[i] >= 'a' && id[i] <= 'z') ||
		    (id[i] >= '0' && id[i] <= '9'))
			continue;
		if (id[i] == '-' && i > 0)
			continue;
		return 0;
	}
	return 1;
}

static int
random_hex(char *out, size_t nbytes)
{
	unsigned char r[32], d[HASH_LEN];
	char hex[HASH_HEXLEN + 1];

	if (nbytes * 2 > HASH_HEXLEN || hash_random(r, sizeof r) < 0)
		return -1;
	hash_buf(r, sizeof r, d);
	hash_hex(d, hex);
	memcpy(out, hex, nbytes * 2);
	out[nbytes * 2] = '\0';
	return 0;
}

int
session_new_id(char id[SESSION_IDMAX + 1])
{
	return random_hex(id, 8);
}

static int
mkdir_ok(int dirfd, const char *name, mode_t mode)
{
	if (mkdirat(dirfd, name, mode) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

int
session_store_open(const char *state, int create)
{
	int sfd, fd;

	if (create && mkdir(state, 0700) < 0 && errno != EEXIST)
		return -1;
	sfd = open(state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd < 0)
		return -1;
	if (create && mkdir_ok(sfd, "overlays", 0700) < 0) {
		fsx_close(sfd);
		return -1;
	}
	fd = openat(sfd, "overlays", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	fsx_close(sfd);
	return fd;
}

static int
flock_retry(int fd, int op)
{
	while (flock(fd, op) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

/* The global lock: returns the locked fd (close it to unlock). */
static int
global_lock(int storefd)
{
	int fd;

	fd = openat(storefd, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (flock_retry(fd, LOCK_EX) < 0) {
		fsx_close(fd);
		return -1;
	}
	return fd;
}

static void
default_name(const char *workspace, char name[10 + HASH_HEXLEN])
{
	unsigned char d[HASH_LEN];
	char hex[HASH_HEXLEN + 1];

	hash_buf(workspace, strlen(workspace), d);
	hash_hex(d, hex);
	snprintf(name, 10 + HASH_HEXLEN, ".default-%s", hex);
}

/* Read a .default record: 0 with id filled, or -1 (ENOENT if none). */
static int
default_read(int storefd, const char *name, char id[SESSION_IDMAX + 1])
{
	char *buf;
	size_t len;

	if (fsx_read_all(storefd, name, 256, &buf, &len) < 0) {
		if (errno == EFBIG || errno == EINVAL)
			errno = ENOENT;
		return -1;
	}
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;
	if (len == 0 || len > SESSION_IDMAX) {
		mem_free(buf);
		errno = ENOENT;
		return -1;
	}
	memcpy(id, buf, len);
	id[len] = '\0';
	mem_free(buf);
	if (!session_id_valid(id)) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

static int
session_exists(int storefd, const char *id)
{
	struct stat st;

	return fstatat(storefd, id, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode);
}

int
session_default(int storefd, const char *workspace, int create,
    char id[SESSION_IDMAX + 1])
{
	struct session s;
	char name[10 + HASH_HEXLEN], line[SESSION_IDMAX + 2];
	int lfd, rc = -1;

	default_name(workspace, name);
	if (default_read(storefd, name, id) == 0 &&
	    session_exists(storefd, id))
		return 0;
	if (!create) {
		errno = ENOENT;
		return -1;
	}
	if ((lfd = global_lock(storefd)) < 0)
		return -1;
	if (default_read(storefd, name, id) == 0 &&
	    session_exists(storefd, id)) {
		rc = 0;
		goto out;
	}
	if (session_new_id(id) < 0)
		goto out;
	if (session_open(storefd, id, workspace, &s) < 0)
		goto out;
	session_close(&s);
	snprintf(line, sizeof line, "%s\n", id);
	rc = fsx_write_atomic(storefd, name, line, strlen(line), 0600, 0);
out:
	fsx_close(lfd);
	return rc;
}

static int
meta_build(const char *id, const char *workspace, const char *created,
    char **out)
{
	cJSON *o;
	char *txt, *buf;
	size_t n;

	json_hooks();
	if ((o = cJSON_CreateObject()) == NULL)
		goto nomem;
	if (cJSON_AddNumberToObject(o, "version", SESSION_VERSION) == NULL ||
	    cJSON_AddStringToObject(o, "id", id) == NULL ||
	    cJSON_AddStringToObject(o, "workspace", workspace) == NULL ||
	    cJSON_AddStringToObject(o, "created", created) == NULL) {
		cJSON_Delete(o);
		goto nomem;
	}
	txt = cJSON_Print(o);
	cJSON_Delete(o);
	if (txt == NULL)
		goto nomem;
	n = strlen(txt);
	if ((buf = mem_alloc(n + 2)) == NULL) {
		mem_free(txt);
		return -1;
	}
	memcpy(buf, txt, n);
	buf[n] = '\n';
	buf[n + 1] = '\0';
	mem_free(txt);
	*out = buf;
	return 0;
nomem:
	errno = ENOMEM;
	return -1;
}

static int
bad(struct session *s, const char *fmt, const char *arg)
{
	snprintf(s->why, sizeof s->why, fmt, arg);
	errno = EBADMSG;
	return -1;
}

static int
meta_parse(struct session *s, const char *buf, size_t len)
{
	cJSON *o, *v, *id, *ws, *cr;
	int rc = -1;

	json_hooks();
	o = cJSON_ParseWithLength(buf, len);
	if (o == NULL) {
		if (mem_failed()) {
			errno = ENOMEM;
			return -1;
		}
		return bad(s, "%s", META " truncated or not valid JSON");
	}
	v = cJSON_GetObjectItemCaseSensitive(o, "version");
	id = cJSON_GetObjectItemCaseSensitive(o, "id");
	ws = cJSON_GetObjectItemCaseSensitive(o, "workspace");
	cr = cJSON_GetObjectItemCaseSensitive(o, "created");
	if (!cJSON_IsObject(o))
		bad(s, "%s: not a JSON object", META);
	else if (!cJSON_IsNumber(v))
		bad(s, "%s: \"version\" missing or not a number", META);
	else if (v->valuedouble != SESSION_VERSION)
		bad(s, "%s: unsupported format version", META);
	else if (!cJSON_IsString(id) || strcmp(id->valuestring, s->id) != 0)
		bad(s, "%s: \"id\" does not match the directory name", META);
	else if (!cJSON_IsString(ws) || ws->valuestring[0] != '/')
		bad(s, "%s: \"workspace\" missing or not absolute", META);
	else if (!cJSON_IsString(cr) ||
	    strlen(cr->valuestring) >= sizeof s->created)
		bad(s, "%s: \"created\" missing or malformed", META);
	else if ((s->workspace = mem_strdup(ws->valuestring)) != NULL) {
		snprintf(s->created, sizeof s->created, "%s", cr->valuestring);
		rc = 0;
	}
	cJSON_Delete(o);
	return rc;
}

static void
now_utc(char out[32])
{
	struct tm tm;
	time_t t = time(NULL);

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(out, 32, "1970-01-01T00:00:00Z");
}

/* Build a whole session in .tmp-R, then rename it to id. */
static int
session_create(int storefd, const char *id, const char *workspace)
{
	struct stat st;
	char tmp[5 + 32 + 1], created[32], *meta = NULL;
	int dfd = -1, fd, rc = -1;
	mode_t um;

	memcpy(tmp, ".tmp-", 5);
	if (random_hex(tmp + 5, 16) < 0)
		return -1;
	if (stat(workspace, &st) < 0)
		return -1;
	if (mkdirat(storefd, tmp, 0700) < 0)
		return -1;
	dfd = openat(storefd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (dfd < 0)
		goto out;
	if (mkdirat(dfd, "upper", 0700) < 0 || mkdirat(dfd, "work", 0700) < 0 ||
	    mkdirat(dfd, "base", 0700) < 0)
		goto out;
	/* The upper root stands for the workspace root in a merged view. */
	um = umask(0);
	umask(um);
	if (fchmodat(dfd, "upper", (st.st_mode & 07777) | 0700, 0) < 0)
		goto out;
	fd = openat(dfd, "lock", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd < 0)
		goto out;
	close(fd);
	now_utc(created);
	if (meta_build(id, workspace, created, &meta) < 0)
		goto out;
	if (fsx_write_atomic(dfd, META, meta, strlen(meta), 0600, 0) < 0)
		goto out;
	if (renameat(storefd, tmp, storefd, id) < 0) {
		if (errno != EEXIST && errno != ENOTEMPTY)
			goto out;
		/* Somebody else created it first: theirs is as good. */
	}
	rc = 0;
out:
	mem_free(meta);
	fsx_close(dfd);
	if (session_rmtree(storefd, tmp) < 0 && rc == 0)
		rc = -1;
	return rc;
}

int
session_open(int storefd, const char *id, const char *workspace,
    struct session *s)
{
	char *buf;
	size_t len;
	int created = 0;

	memset(s, 0, sizeof *s);
	s->storefd = storefd;
	s->dirfd = s->upperfd = s->basefd = s->lockfd = -1;
	if (!session_id_valid(id)) {
		errno = EINVAL;
		return -1;
	}
	snprintf(s->id, sizeof s->id, "%s", id);
	for (;;) {
		s->dirfd = openat(storefd, id, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (s->dirfd >= 0)
			break;
		if (errno != ENOENT || workspace == NULL || created)
			return -1;
		if (session_create(storefd, id, workspace) < 0)
			return -1;
		created = 1;
	}
	if (fsx_read_all(s->dirfd, META, META_MAX, &buf, &len) < 0) {
		if (errno == ENOENT)
			bad(s, "%s", META " missing");
		else if (errno == EFBIG || errno == EINVAL || errno == ELOOP)
			bad(s, "%s", META " not a regular file of JSON");
		goto fail;
	}
	if (meta_parse(s, buf, len) < 0) {
		mem_free(buf);
		goto fail;
	}
	mem_free(buf);
	s->upperfd = openat(s->dirfd, "upper", O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	if (s->upperfd < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
			bad(s, "%s", "upper/ missing");
		goto fail;
	}
	s->basefd = openat(s->dirfd, "base", O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	if (s->basefd < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
			bad(s, "%s", "base/ missing");
		goto fail;
	}
	s->lockfd = openat(s->dirfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (s->lockfd < 0) {
		if (errno == EISDIR || errno == ELOOP)
			bad(s, "%s", "lock not a regular file");
		goto fail;
	}
	return 0;
fail:
	session_close(s);
	return -1;
}

/* flock, waiting; after a second, tell waiting(arg) once. */
static int
flock_wait(int fd, int op, void (*waiting)(void *), void *arg)
{
	struct timespec step = { 0, WAIT_STEP_NS };
	long waited;

	for (waited = 0; waited < WAIT_NOTE_NS; waited += WAIT_STEP_NS) {
		if (flock(fd, op | LOCK_NB) == 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK)
			return -1;
		if (waiting == NULL)
			return flock_retry(fd, op);
		nanosleep(&step, NULL);
	}
	waiting(arg);
	return flock_retry(fd, op);
}

int
session_lock(struct session *s, int op)
{
	return session_lock_wait(s, op, NULL, NULL);
}

int
session_lock_wait(struct session *s, int op, void (*waiting)(void *),
    void *arg)
{
	struct stat a, b;

	if (flock_wait(s->lockfd, op, waiting, arg) < 0)
		return -1;
	if (fstat(s->dirfd, &a) < 0 ||
	    fstatat(s->storefd, s->id, &b, AT_SYMLINK_NOFOLLOW) < 0 ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		flock(s->lockfd, LOCK_UN);
		errno = ESTALE;
		return -1;
	}
	s->locked = op;
	return 0;
}

void
session_unlock(struct session *s)
{
	if (s->locked && s->lockfd >= 0)
		flock(s->lockfd, LOCK_UN);
	s->locked = 0;
}

void
session_close(struct session *s)
{
	int saved = errno;

	if (s == NULL)
		return;
	session_unlock(s);
	if (s->lockfd >= 0)
		close(s->lockfd);
	if (s->basefd >= 0)
		close(s->basefd);
	if (s->upperfd >= 0)
		close(s->upperfd);
	if (s->dirfd >= 0)
		close(s->dirfd);
	s->lockfd = s->basefd = s->upperfd = s->dirfd = -1;
	mem_free(s->workspace);
	s->workspace = NULL;
	errno = saved;
}

/*
 * What a killed remover or creator left: every .trash-* (nobody else
 * uses one), and .tmp-* older than an hour (a creator may still be at
 * work on a young one). Best effort.
 */
static void
sweep_store(int storefd)
{
	struct dirent *e;
	struct stat st;
	DIR *d;
	int fd;

	fd = openat(storefd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, ".trash-", 7) == 0)
			session_rmtree(storefd, e->d_name);
		else if (strncmp(e->d_name, ".tmp-", 5) == 0 &&
		    fstatat(storefd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    st.st_mtime + 3600 < time(NULL))
			session_rmtree(storefd, e->d_name);
	}
	closedir(d);
}

int
session_remove(struct session *s)
{
	char trash[7 + 32 + 1], name[10 + HASH_HEXLEN], cur[SESSION_IDMAX + 1];
	int storefd = s->storefd, lfd, rc;

	memcpy(trash, ".trash-", 7);
	if (random_hex(trash + 7, 16) < 0 ||
	    renameat(storefd, s->id, storefd, trash) < 0) {
		session_close(s);
		return -1;
	}
	if (s->workspace != NULL && (lfd = global_lock(storefd)) >= 0) {
		default_name(s->workspace, name);
		if (default_read(storefd, name, cur) == 0 &&
		    strcmp(cur, s->id) == 0)
			unlinkat(storefd, name, 0);
		close(lfd);
	}
	session_close(s);
	rc = session_rmtree(storefd, trash);
	sweep_store(storefd);
	return rc;
}

/* Drop every .default record that names id (under the global lock). */
static void
drop_defaults(int storefd, const char *id)
{
	char cur[SESSION_IDMAX + 1];
	struct dirent *e;
	DIR *d;
	int fd, lfd;

	if ((lfd = global_lock(storefd)) < 0)
		return;
	if ((fd = openat(storefd, ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) >= 0 && (d = fdopendir(fd)) != NULL) {
		while ((e = readdir(d)) != NULL)
			if (strncmp(e->d_name, ".default-", 9) == 0 &&
			    default_read(storefd, e->d_name, cur) == 0 &&
			    strcmp(cur, id) == 0)
				unlinkat(storefd, e->d_name, 0);
		closedir(d);
	} else
		fsx_close(fd);
	close(lfd);
}

int
session_remove_id(int storefd, const char *id, void (*waiting)(void *),
    void *arg)
{
	char trash[7 + 32 + 1];
	struct stat a, b;
	int dfd, lfd, tries, rc;

	if (!session_id_valid(id)) {
		errno = EINVAL;
		return -1;
	}
	for (tries = 0; ; tries++) {
		dfd = openat(storefd, id, DFLAGS);
		if (dfd < 0) {
			/* not a directory: nothing of a session, but ours */
			if (errno != ENOTDIR && errno != ELOOP)
				return -1;
			if (unlinkat(storefd, id, 0) < 0)
				return -1;
			drop_defaults(storefd, id);
			return 0;
		}
		lfd = openat(dfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
		if (lfd >= 0 && flock_wait(lfd, LOCK_EX, waiting, arg) < 0) {
			fsx_close(lfd);
			lfd = -1;
		}
		/* still the session we locked? */
		if (fstat(dfd, &a) == 0 &&
		    fstatat(storefd, id, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			break;
		fsx_close(lfd);
		close(dfd);
		if (tries == 8) {
			errno = ESTALE;
			return -1;
		}
	}
	memcpy(trash, ".trash-", 7);
	rc = random_hex(trash + 7, 16);
	if (rc == 0)
		rc = renameat(storefd, id, storefd, trash);
	fsx_close(lfd);
	fsx_close(dfd);
	if (rc < 0)
		return -1;
	drop_defaults(storefd, id);
	rc = session_rmtree(storefd, trash);
	sweep_store(storefd);
	return rc;
}

void
session_ids_free(char **ids, size_t n)
{
	fsx_names_free(ids, n);
}

static int
is_session(int storefd, const char *name, void *arg)
{
	return session_id_valid(name) && session_exists(storefd, name);
}

int
session_list(int storefd, char ***idsp, size_t *np)
{
	return fsx_list(storefd, is_session, NULL, idsp, np);
}

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

/*
 * Open the directory pfd/name to empty it, opening up a directory a dry
 * run left without permissions (overlayfs leaves work/work at mode 0, a
 * command may leave 0500 dirs); only on dev; its stat in *st.
 */
static int
open_rmdir(int pfd, const char *name, dev_t dev, struct stat *st)
{
	int fd;

	if (fstatat(pfd, name, st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (!S_ISDIR(st->st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	if (st->st_dev != dev) {
		errno = EXDEV;
		return -1;
	}
	fd = openat(pfd, name, DFLAGS);
	/*
	 * The session dir is ours alone (0700, read-only to confined
	 * commands), so the name cannot have been swapped since the fstatat.
	 */
	if (fd < 0 && errno == EACCES && st->st_uid == geteuid() &&
	    fchmodat(pfd, name, 0700, 0) == 0)
		fd = openat(pfd, name, DFLAGS);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0) {
		fsx_close(fd);
		return -1;
	}
	if ((st->st_mode & 0700) != 0700)
		fchmod(fd, 0700);
	return fd;
}

/* One directory being emptied: its name, identity, subdirs still to do. */
struct rmframe {
	char		*name;
	dev_t		 dev;
	ino_t		 ino;
	char		**subs;
	size_t		 nsub, isub;
	int		 tries;
};

/* Unlink every non-directory in fd; list the directories in f->subs. */
static int
rm_scan(int fd, dev_t dev, struct rmframe *f)
{
	struct dirent *e;
	struct stat st;
	char **nv;
	size_t cap = 0;
	DIR *d;
	int dfd, rc = 0;

	fsx_names_free(f->subs, f->nsub);
	f->subs = NULL;
	f->nsub = f->isub = 0;
	if ((dfd = dup(fd)) < 0)
		return -1;
	if ((d = fdopendir(dfd)) == NULL) {
		fsx_close(dfd);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT)
				rc = -1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (unlinkat(fd, e->d_name, 0) < 0 && errno != ENOENT)
				rc = -1;
			continue;
		}
		if (st.st_dev != dev) {
			errno = EXDEV;
			rc = -1;
			continue;
		}
		if (f->nsub == cap) {
			cap = cap ? cap * 2 : 8;
			if ((nv = mem_reallocarray(f->subs, cap,
			    sizeof *nv)) == NULL) {
				rc = -1;
				break;
			}
			f->subs = nv;
		}
		if ((f->subs[f->nsub] = mem_strdup(e->d_name)) == NULL) {
			rc = -1;
			break;
		}
		f->nsub++;
	}
	{
		int saved = errno;

		closedir(d);
		errno = saved;
	}
	return rc;
}

/*
 * Depth-first, one directory fd at a time: a directory is left through
 * "..", checked to be the parent we came from (dev and inode), so a tree
 * of any depth goes without running out of fds.
 */
static int
rmtree_iter(int top, const char *name, dev_t dev)
{
	struct rmframe *fr = NULL, *f, *nf;
	struct stat st;
	size_t n = 0, cap = 0;
	int cur = -1, parent, rc = -1, err = 0;

	if ((cur = open_rmdir(top, name, dev, &st)) < 0)
		return errno == ENOENT ? 0 : -1;
	cap = 16;
	if ((fr = mem_calloc(cap, sizeof *fr)) == NULL)
		goto out;
	if ((fr[0].name = mem_strdup(name)) == NULL)
		goto out;
	fr[0].dev = st.st_dev;
	fr[0].ino = st.st_ino;
	n = 1;
	if (rm_scan(cur, dev, &fr[0]) < 0)
		err = errno;
	while (n > 0) {
		f = &fr[n - 1];
		if (f->isub < f->nsub) {
			const char *sub = f->subs[f->isub++];
			int fd = open_rmdir(cur, sub, dev, &st);

			if (fd < 0) {
				if (errno != ENOENT)
					err = errno;
				continue;
			}
			if (n == cap) {
				nf = mem_reallocarray(fr, cap * 2, sizeof *fr);
				if (nf == NULL) {
					fsx_close(fd);
					goto out;
				}
				memset(nf + cap, 0, cap * sizeof *nf);
				fr = nf;
				cap *= 2;
				f = &fr[n - 1];
			}
			fr[n].name = mem_strdup(sub);
			fr[n].dev = st.st_dev;
			fr[n].ino = st.st_ino;
			if (fr[n].name == NULL) {
				fsx_close(fd);
				goto out;
			}
			n++;
			close(cur);
			cur = fd;
			if (rm_scan(cur, dev, &fr[n - 1]) < 0)
				err = errno;
			continue;
		}
		/* f is empty but for what failed: go up and remove it */
		if (n == 1)
			parent = top;
		else {
			parent = openat(cur, "..", DFLAGS);
			if (parent < 0 || fstat(parent, &st) < 0 ||
			    st.st_dev != fr[n - 2].dev ||
			    st.st_ino != fr[n - 2].ino) {
				fsx_close(parent);
				errno = ESTALE;
				goto out;
			}
		}
		close(cur);
		cur = -1;
		if (unlinkat(parent, f->name, AT_REMOVEDIR) < 0 &&
		    errno != ENOENT) {
			if ((errno == ENOTEMPTY || errno == EEXIST) &&
			    err == 0 && f->tries++ < 3) {
				/* something appeared meanwhile: again */
				if ((cur = open_rmdir(parent, f->name, dev,
				    &st)) < 0) {
					if (parent != top)
						close(parent);
					goto out;
				}
				if (parent != top)
					close(parent);
				if (rm_scan(cur, dev, f) < 0)
					err = errno;
				continue;
			}
			if (err == 0)
				err = errno;
		}
		mem_free(f->name);
		fsx_names_free(f->subs, f->nsub);
		memset(f, 0, sizeof *f);
		n--;
		cur = parent == top ? -1 : parent;
	}
	if (err != 0) {
		errno = err;
		goto out;
	}
	rc = 0;
out:
	{
		int saved = errno;
		size_t i;

		fsx_close(cur);
		for (i = 0; fr != NULL && i < n; i++) {
			mem_free(fr[i].name);
			fsx_names_free(fr[i].subs, fr[i].nsub);
		}
		mem_free(fr);
		errno = saved;
	}
	return rc;
}

int
session_rmtree(int dirfd, const char *name)
{
	struct stat st, top;

	if (fstat(dirfd, &top) < 0)
		return -1;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
			return -1;
		return 0;
	}
	return rmtree_iter(dirfd, name, top.st_dev);
}
