#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
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

#include "lib/fsx.h"
#include "lib/hash.h"
#include "lib/jsonfile.h"
#include "lib/mem.h"
#include "lib/utc.h"
#include "session/session.h"
#include "session/session_rmtree.h"

#define META		"meta.json"
#define META_MAX	65536
#define DFLAGS		(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define WAIT_NOTE_NS	1000000000L	/* say that we wait after this */
#define WAIT_STEP_NS	1000000L

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

void
session_path(char *buf, size_t len, const char *state, const char *id,
    const char *part)
{
	if (id == NULL)
		snprintf(buf, len, "%s/" SESSION_STORE, state);
	else if (part == NULL)
		snprintf(buf, len, "%s/" SESSION_STORE "/%s", state, id);
	else
		snprintf(buf, len, "%s/" SESSION_STORE "/%s/%s", state, id,
		    part);
}

int
session_store_open(const char *state, int create)
{
	int sfd, fd;

	/* made only when missing; openat: no fcntl after musl's open(2) */
	sfd = openat(AT_FDCWD, state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd < 0 && errno == ENOENT && create) {
		if (mkdir(state, 0700) < 0 && errno != EEXIST)
			return -1;
		sfd = openat(AT_FDCWD, state, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC);
	}
	if (sfd < 0)
		return -1;
	fd = openat(sfd, SESSION_STORE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create &&
	    mkdir_ok(sfd, SESSION_STORE, 0700) == 0)
		fd = openat(sfd, SESSION_STORE, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
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

	jsonfile_hooks();
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

	jsonfile_hooks();
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
	else if (v->valuedouble != SESSION_VERSION &&
	    v->valuedouble != SESSION_VERSION_FILES)
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
		s->version = (int)v->valuedouble;
		rc = 0;
	}
	cJSON_Delete(o);
	return rc;
}

static void
now_utc(char out[UTC_ISO_LEN])
{
	if (utc_iso(time(NULL), out) < 0)
		snprintf(out, UTC_ISO_LEN, "1970-01-01T00:00:00Z");
}

int
session_upgrade(struct session *s)
{
	char *meta;
	int rc;

	if (s->version == SESSION_VERSION)
		return 0;
	if (meta_build(s->id, s->workspace, s->created, &meta) < 0)
		return -1;
	rc = fsx_write_atomic(s->dirfd, META, meta, strlen(meta), 0600,
	    s->nosync ? FSX_NOSYNC : 0);
	mem_free(meta);
	if (rc == 0)
		s->version = SESSION_VERSION;
	return rc;
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
session_let_go(struct session *s)
{
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
	rc = session_rmtree_wide(storefd, trash);
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

int
session_upper_full(struct session *s, int *err)
{
	static char probe[4096];	/* zeros, in .bss: not in the file */
	char tmp[FSX_TMP_NAMELEN + 1];
	struct statvfs sv;
	int fd, rc = 0;

	*err = ENOSPC;
	if (fstatvfs(s->upperfd, &sv) < 0)
		return -1;
	if (geteuid() == 0 ? sv.f_bfree == 0 || (sv.f_files > 0 &&
	    sv.f_ffree == 0) : sv.f_bavail == 0 || (sv.f_files > 0 &&
	    sv.f_favail == 0))
		return 1;
	if (fsx_tmp_name(tmp) < 0)
		return -1;
	if ((fd = openat(s->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		return errno == ENOSPC || errno == EDQUOT ?
		    (*err = errno, 1) : -1;
	if (fsx_write_full(fd, probe, sizeof probe) < 0 || fsync(fd) < 0) {
		rc = errno == ENOSPC || errno == EDQUOT ? 1 : -1;
		*err = errno;
	}
	close(fd);
	(void)unlinkat(s->dirfd, tmp, 0);
	return rc;
}
