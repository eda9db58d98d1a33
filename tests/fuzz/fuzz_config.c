/*
 * fuzz_config: the config reader (config.c over jsonfile.c and cJSON).
 * The input is split at the first 0xff byte: what comes before is the
 * user config, what follows the workspace's .arcturn.json. config_load
 * must return 0 or -1 with a reason in err, free what it made, and never
 * crash; jsonfile_read must parse or refuse the same bytes cleanly.
 *
 * Every error and warning is one line without control bytes, whatever the
 * paths in the input hold (raw or as JSON escapes): config.c writes them
 * through utf8_one_line. CI's fuzz run of 2026-12-01 found a grant
 * "net\\n..." echoed with a raw newline before that.
 */
#include "fuzz.h"

#include "lib/jsonfile.h"
#include "lib/mem.h"
#include "policy/config.h"
#include "policy/policy.h"

static char ws[PATH_MAX + 8], xdg[PATH_MAX + 8], home[PATH_MAX + 8];

/* Whether msg holds a control byte (it would break or hide a line). */
static int
has_ctl(const char *msg)
{
	for (; *msg != '\0'; msg++)
		if ((unsigned char)*msg < 0x20 || *msg == 0x7f)
			return 1;
	return 0;
}

static void
put(const char *path, const uint8_t *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || (n > 0 && write(fd, p, n) != (ssize_t)n))
		abort();
	close(fd);
}

static void
warn_cb(const char *msg, void *arg)
{
	if (has_ctl(msg))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config_flags fl;
	struct policy p;
	struct jsonfile jf;
	char err[512], path[PATH_MAX + 64];
	const uint8_t *cut;
	size_t un;
	int rc;

	fz_scratch();
	fz_clean();
	snprintf(ws, sizeof ws, "%s/ws", fz_top);
	snprintf(home, sizeof home, "%s/home", fz_top);
	snprintf(xdg, sizeof xdg, "%s/xdg", fz_top);
	snprintf(path, sizeof path, "%s/arcturn", xdg);
	if (mkdir(ws, 0755) < 0 || mkdir(home, 0755) < 0 ||
	    mkdir(xdg, 0755) < 0 || mkdir(path, 0755) < 0)
		abort();
	setenv("HOME", home, 1);
	setenv("XDG_CONFIG_HOME", xdg, 1);
	setenv("TMPDIR", fz_top, 1);
	unsetenv("ARCTURN_HOME");
	unsetenv("ARCTURN_DRY_RUN");
	unsetenv("ARCTURN_SESSION");
	cut = memchr(data, 0xff, size);
	un = cut != NULL ? (size_t)(cut - data) : size;
	snprintf(path, sizeof path, "%s/arcturn/config.json", xdg);
	put(path, data, un);
	if (cut != NULL) {
		snprintf(path, sizeof path, "%s/.arcturn.json", ws);
		put(path, cut + 1, size - un - 1);
	}

	memset(&fl, 0, sizeof fl);
	fl.dir = ws;
	fl.mode = fl.dry_run = fl.require_sandbox = fl.network = -1;
	memset(&p, 0, sizeof p);
	err[0] = '\0';
	rc = config_load(&p, &fl, err, sizeof err, warn_cb, NULL);
	if (rc != 0 && (rc != -1 || err[0] == '\0'))
		abort();
	if (rc != 0 && has_ctl(err))
		abort();
	if (rc == 0)
		policy_free(&p);

	/* the same bytes through jsonfile alone */
	snprintf(path, sizeof path, "%s/arcturn/config.json", xdg);
	memset(&jf, 0, sizeof jf);
	rc = jsonfile_read(&jf, path, CONFIG_FILE_MAX, err, sizeof err);
	if (rc < 0 && has_ctl(err))
		abort();
	if (rc == 1) {
		if (jf.root == NULL || jf.n == 0)
			abort();
		jsonfile_free(&jf);
	}
	return 0;
}
