/*
 * Windows label bookkeeping with the OS faked: round trips, nested roots,
 * and a crash (every further call fails, as if the process had died)
 * between any two OS calls, including between the journal write and the
 * stamp: after a restart, unstamp always gives back the original labels.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mem.h"
#include "sandbox/labeljournal.h"
#include "tap.h"

#define J	"C:\\Users\\me\\.arcturn\\labels.journal"
#define MED	"S:(ML;;NW;;;ME)"

struct fake {
	char	 path[8][128];
	char	 label[8][64];
	int	 npaths;
	char	*file;		/* the journal's bytes, NULL when missing */
	size_t	 filelen;
	long	 crash_at;	/* the nth OS call from now "dies"; -1 never */
	int	 crashed;
	int	 locked;
	int	 fail_set;	/* set_label on path[fail_set - 1] fails */
	int	 calls;
};

static struct fake fk;

static int
op(void)
{
	fk.calls++;
	if (fk.crashed || (fk.crash_at >= 0 && fk.crash_at-- == 0)) {
		fk.crashed = 1;
		errno = EIO;
		return -1;
	}
	return 0;
}

static int
find(const char *path)
{
	int i;

	for (i = 0; i < fk.npaths; i++)
		if (strcmp(fk.path[i], path) == 0)
			return i;
	return -1;
}

static int
f_get(const char *path, char **sddl, void *arg)
{
	int i;

	CHECK(fk.locked == 1);
	if (op() == -1)
		return -1;
	if ((i = find(path)) < 0) {
		errno = ENOENT;
		return -1;
	}
	return (*sddl = mem_strdup(fk.label[i])) == NULL ? -1 : 0;
}

static int
f_set(const char *path, const char *sddl, void *arg)
{
	int i;

	CHECK(fk.locked == 1);
	if (op() == -1)
		return -1;
	if ((i = find(path)) < 0) {
		errno = ENOENT;
		return -1;
	}
	if (fk.fail_set == i + 1) {
		errno = EACCES;
		return -1;
	}
	snprintf(fk.label[i], sizeof fk.label[i], "%s", sddl);
	return 0;
}

static int
f_read(const char *file, char **buf, size_t *len, void *arg)
{
	CHECK(strcmp(file, J) == 0);
	if (op() == -1)
		return -1;
	if (fk.file == NULL) {
		errno = ENOENT;
		return -1;
	}
	if ((*buf = mem_alloc(fk.filelen + 1)) == NULL)
		return -1;
	memcpy(*buf, fk.file, fk.filelen);
	(*buf)[fk.filelen] = '\0';
	*len = fk.filelen;
	return 0;
}

/* Atomic: the whole new content, or the old one untouched. */
static int
f_write(const char *file, const char *buf, size_t len, void *arg)
{
	CHECK(fk.locked == 1);
	CHECK(strcmp(file, J) == 0);
	if (op() == -1)
		return -1;
	free(fk.file);
	CHECK((fk.file = malloc(len + 1)) != NULL);
	memcpy(fk.file, buf, len);
	fk.file[len] = '\0';
	fk.filelen = len;
	return 0;
}

static int
f_lock(const char *file, void *arg)
{
	CHECK(fk.locked == 0);
	if (op() == -1)
		return -1;
	fk.locked = 1;
	return 0;
}

static void
f_unlock(void *arg)
{
	CHECK(fk.locked == 1);
	fk.locked = 0;
}

static const struct labeljournal_ops ops = {
	f_get, f_set, f_read, f_write, f_lock, f_unlock, NULL
};

static const char *orig[] = {
	"",			/* no explicit label (Medium by default) */
	MED,			/* explicit Medium */
	LABEL_LOW,		/* already Low before arcturn came */
	"",
};
static const char *paths[] = {
	"C:\\work\\proj", "D:\\cache", "C:\\Users\\me\\low", "C:\\work\\proj\\sub",
};
#define NP	4

static void
fake_init(void)
{
	int i;

	free(fk.file);
	memset(&fk, 0, sizeof fk);
	fk.crash_at = -1;
	for (i = 0; i < NP; i++) {
		snprintf(fk.path[i], sizeof fk.path[i], "%s", paths[i]);
		snprintf(fk.label[i], sizeof fk.label[i], "%s", orig[i]);
	}
	fk.npaths = NP;
}

static void
restart(void)
{
	fk.crashed = 0;
	fk.crash_at = -1;
	fk.locked = 0;	/* the lock died with the process */
}

static int
all_original(void)
{
	int i;

	for (i = 0; i < NP; i++)
		if (strcmp(fk.label[i], orig[i]) != 0)
			return 0;
	return 1;
}

static int
lines(void)
{
	size_t i;
	int n = 0;

	for (i = 0; fk.file != NULL && i < fk.filelen; i++)
		n += fk.file[i] == '\n';
	return n;
}

static void
t_roundtrip(void)
{
	char err[256];
	size_t n;
	int i;

	fake_init();
	CHECK(labeljournal_count(J, &ops) == 0);
	for (i = 0; i < NP; i++)
		CHECK(labeljournal_stamp(J, paths[i], &ops, err, sizeof err) == 0);
	for (i = 0; i < NP; i++)
		CHECK_STR(fk.label[i], LABEL_LOW);
	CHECK(labeljournal_count(J, &ops) == NP);
	CHECK(lines() == 1 + NP);
	/* stamping again records nothing new: the first label is kept */
	CHECK(labeljournal_stamp(J, paths[0], &ops, err, sizeof err) == 0);
	CHECK(labeljournal_count(J, &ops) == NP);
	CHECK(labeljournal_unstamp(J, NULL, &ops, &n, err, sizeof err) == 0);
	CHECK(n == NP);
	CHECK(all_original());
	CHECK(labeljournal_count(J, &ops) == 0);
	CHECK(fk.filelen == strlen("arcturn-label-journal 1\n"));
	CHECK(memcmp(fk.file, "arcturn-label-journal 1\n", fk.filelen) == 0);
	CHECK(fk.locked == 0);
}

static void
t_unstamp_one(void)
{
	char err[256];
	size_t n;

	fake_init();
	CHECK(labeljournal_stamp(J, paths[1], &ops, err, sizeof err) == 0);
	CHECK(labeljournal_stamp(J, paths[0], &ops, err, sizeof err) == 0);
	CHECK(labeljournal_unstamp(J, paths[1], &ops, &n, err, sizeof err) == 0);
	CHECK(n == 1);
	CHECK_STR(fk.label[1], MED);
	CHECK_STR(fk.label[0], LABEL_LOW);
	CHECK(labeljournal_count(J, &ops) == 1);
	/* a path that was never stamped: nothing to do, not an error */
	CHECK(labeljournal_unstamp(J, "C:\\never", &ops, &n, err, sizeof err) == 0);
	CHECK(n == 0);
	CHECK_STR(fk.label[0], LABEL_LOW);
}

/* Nested roots come back newest first: the child's own label, then the
 * parent's, whichever order the stamps took. */
static void
t_nested_order(void)
{
	char err[256];
	size_t n;

	fake_init();
	CHECK(labeljournal_stamp(J, paths[0], &ops, err, sizeof err) == 0);
	CHECK(labeljournal_stamp(J, paths[3], &ops, err, sizeof err) == 0);
	CHECK(strstr(fk.file, "proj\t\nC:\\work\\proj\\sub\t\n") != NULL);
	CHECK(labeljournal_unstamp(J, NULL, &ops, &n, err, sizeof err) == 0);
	CHECK(n == 2 && all_original());
}

/* The named crash: the journal entry is written, the stamp never happens. */
static void
t_crash_between_journal_and_stamp(void)
{
	char err[256];
	size_t n;

	fake_init();
	fk.crash_at = 4;	/* lock, read, get_label, write: ok; set dies */
	CHECK(labeljournal_stamp(J, paths[1], &ops, err, sizeof err) == -1);
	CHECK(fk.crashed && fk.calls == 5);
	restart();
	CHECK(labeljournal_count(J, &ops) == 1);	/* entry written */
	CHECK_STR(fk.label[1], MED);			/* label untouched */
	/* stamping again keeps the original previous label */
	CHECK(labeljournal_stamp(J, paths[1], &ops, err, sizeof err) == 0);
	CHECK_STR(fk.label[1], LABEL_LOW);
	CHECK(labeljournal_count(J, &ops) == 1);
	CHECK(labeljournal_unstamp(J, NULL, &ops, &n, err, sizeof err) == 0);
	CHECK_STR(fk.label[1], MED);
	/* and unstamping right after the crash is harmless too */
	fake_init();
	fk.crash_at = 4;
	CHECK(labeljournal_stamp(J, paths[1], &ops, err, sizeof err) == -1);
	restart();
	CHECK(labeljournal_unstamp(J, NULL, &ops, &n, err, sizeof err) == 0);
	CHECK(n == 1 && all_original());
	CHECK(labeljournal_count(J, &ops) == 0);
}

/* A crash at every possible point of a stamp sequence, then recovery. */
static void
t_crash_sweep_stamp(void)
{
	char err[256];
	size_t n;
	long at;
	int i, done = 0;

	for (at = 0; !done; at++) {
		CHECK(at < 1000);
		fake_init();
		fk.crash_at = at;
		for (i = 0; i < NP; i++)
			if (labeljournal_stamp(J, paths[i], &ops, err, sizeof err) == -1)
				break;
		done = !fk.crashed;
		restart();
		if (at % 2 == 1) {
			/* the user reruns the command first */
			for (i = 0; i < NP; i++)
				CHECK(labeljournal_stamp(J, paths[i], &ops, err, sizeof err) == 0);
		}
		CHECK(labeljournal_unstamp(J, NULL, &ops, &n, err, sizeof err) == 0);
		if (!all_original())
			fprintf(stderr, "# crash at call %ld: labels not restored\n", at);
		CHECK(all_original());
		CHECK(labeljournal_count(J, &ops) == 0);
	}
}

/* A crash at every point of an unstamp, then unstamp again. */
static void
t_crash_sweep_unstamp(void)
{
	char err[256];
	size_t n;
	long at;
	int i, done = 0;

	for (at = 0; !done; at++) {
		CHECK(at < 1000);
		fake_init();
		for (i = 0; i < NP; i++)
			CHECK(labeljournal_stamp(J, paths[i], &ops, err, sizeof err) == 0);
		fk.crash_at = at;
		(void)labeljournal_unstamp(J, NULL, &ops, &n, err, sizeof err);
		done = !fk.crashed;
		restart();
		CHECK(labeljournal_unstamp(J, NULL, &ops, &n, err, sizeof err) == 0);
		CHECK(all_original());
		CHECK(labeljournal_count(J, &ops) == 0);
	}
}

static void
t_partial_failure(void)
{
	char err[256];
	size_t n;
	int i;

	fake_init();
	for (i = 0; i < NP; i++)
		CHECK(labeljournal_stamp(J, paths[i], &ops, err, sizeof err) == 0);
	fk.fail_set = 2;	/* D:\cache refuses */
	CHECK(labeljournal_unstamp(J, NULL, &ops, &n, err, sizeof err) == -1);
	CHECK(errno == EACCES);
	CHECK(n == NP - 1);
	CHECK_STR(err, "restore label: D:\\cache: Permission denied");
	CHECK(labeljournal_count(J, &ops) == 1);
	CHECK(strstr(fk.file, "D:\\cache\t" MED "\n") != NULL);
	fk.fail_set = 0;
	CHECK(labeljournal_unstamp(J, NULL, &ops, &n, err, sizeof err) == 0);
	CHECK(n == 1 && all_original());
}

static void
t_damaged_journal(void)
{
	static const char *bad[] = {
		"garbage\n",
		"arcturn-label-journal 1\nno tab here\n",
		"arcturn-label-journal 1\nC:\\x\tS:\textra\n",
		"arcturn-label-journal 1\nC:\\x\t",
		"arcturn-label-journal 1\nC:\\%4\t\n",
		"arcturn-label-journal 1\nC:\\%00\t\n",
		"arcturn-label-journal 1\n\tS:\n",
		"arcturn-label-journal 2\n",
	};
	char err[256], *before;
	size_t i, n;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		fake_init();
		fk.file = strdup(bad[i]);
		fk.filelen = strlen(bad[i]);
		before = strdup(bad[i]);
		CHECK(labeljournal_stamp(J, paths[0], &ops, err, sizeof err) == -1);
		CHECK(errno == EBADMSG);
		CHECK(strstr(err, "damaged journal") != NULL);
		CHECK(labeljournal_unstamp(J, NULL, &ops, &n, err, sizeof err) == -1);
		CHECK(errno == EBADMSG);
		CHECK(labeljournal_count(J, &ops) == -1);
		CHECK(strcmp(fk.file, before) == 0);	/* never rewritten */
		CHECK(all_original());
		CHECK(fk.locked == 0);
		free(before);
	}
}

static void
t_escaping(void)
{
	static const char *odd[] = {
		"C:\\a\tb", "C:\\new\nline", "C:\\100%", "C:\\\xc3\xa9t\xc3\xa9",
	};
	char err[256];
	size_t i, n;

	fake_init();
	for (i = 0; i < 4; i++) {
		snprintf(fk.path[i], sizeof fk.path[i], "%s", odd[i]);
		snprintf(fk.label[i], sizeof fk.label[i], "S:(ML;;NW;;;%s)",
		    i % 2 ? "ME" : "HI");
	}
	for (i = 0; i < 4; i++)
		CHECK(labeljournal_stamp(J, odd[i], &ops, err, sizeof err) == 0);
	CHECK(lines() == 5);
	CHECK(strstr(fk.file, "C:\\a%09b\t") != NULL);
	CHECK(strstr(fk.file, "C:\\new%0Aline\t") != NULL);
	CHECK(strstr(fk.file, "C:\\100%25\t") != NULL);
	CHECK(labeljournal_unstamp(J, odd[1], &ops, &n, err, sizeof err) == 0);
	CHECK(n == 1);
	CHECK_STR(fk.label[1], "S:(ML;;NW;;;ME)");
	CHECK(labeljournal_unstamp(J, NULL, &ops, &n, err, sizeof err) == 0);
	CHECK(n == 3);
	CHECK_STR(fk.label[0], "S:(ML;;NW;;;HI)");
	CHECK_STR(fk.label[3], "S:(ML;;NW;;;ME)");
}

static void
t_alloc_faults(void)
{
	char err[256];
	size_t n;
	long k;
	int i, rc;

	for (k = 0; k < 1000; k++) {
		fake_init();
		CHECK(labeljournal_stamp(J, paths[0], &ops, err, sizeof err) == 0);
		mem_fail_after(k);
		rc = 0;
		for (i = 1; i < NP && rc == 0; i++)
			rc = labeljournal_stamp(J, paths[i], &ops, err, sizeof err);
		if (rc == 0)
			rc = labeljournal_unstamp(J, NULL, &ops, &n, err, sizeof err);
		if (!mem_failed()) {
			CHECK(rc == 0 && all_original());
			break;
		}
		CHECK(rc == -1 && errno == ENOMEM);
		mem_fail_after(-1);
		CHECK(fk.locked == 0);
		/* whatever was half done, a clean unstamp recovers */
		CHECK(labeljournal_unstamp(J, NULL, &ops, &n, err, sizeof err) == 0);
		CHECK(all_original());
	}
	mem_fail_after(-1);
	CHECK(k > 5 && k < 1000);
	free(fk.file);
	fk.file = NULL;
}

int
main(void)
{
	TEST(t_roundtrip);
	TEST(t_unstamp_one);
	TEST(t_nested_order);
	TEST(t_crash_between_journal_and_stamp);
	TEST(t_crash_sweep_stamp);
	TEST(t_crash_sweep_unstamp);
	TEST(t_partial_failure);
	TEST(t_damaged_journal);
	TEST(t_escaping);
	TEST(t_alloc_faults);
	return tap_done();
}
