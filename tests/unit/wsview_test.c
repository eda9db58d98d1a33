/* wsview: one set of calls over the real tree or a session's shadow tree. */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "lib/mem.h"
#include "session/session.h"
#include "session/wsview.h"
#include "tap.h"

static char top[PATH_MAX], ws[PATH_MAX + 8], state[PATH_MAX + 8];
static struct session S;
static int rootfd = -1, store = -1;

static void
fresh(void)
{
	fx_tmpdir(top, "wsview_test");
	snprintf(ws, sizeof ws, "%s/ws", top);
	snprintf(state, sizeof state, "%s/state", top);
	CHECK(mkdir(ws, 0755) == 0);
	CHECK((rootfd = open(ws, O_RDONLY | O_DIRECTORY)) >= 0);
	umask(022);
}

static void
t_real(void)
{
	struct wsview v = { NULL, -1 };
	struct stat st;
	char got[64], *buf, abs[PATH_MAX + 32];
	size_t len;
	int fd;

	fresh();
	v.rootfd = rootfd;
	fx_put(rootfd, "x", "old", 0750);
	CHECK(wsview_write(&v, "x", "new", 3) == 0);
	CHECK(fx_read(rootfd, "x", got, sizeof got) == 3);
	CHECK_STR(got, "new");
	/* an existing file keeps its mode; a new one gets 0666 - umask */
	CHECK(fstatat(rootfd, "x", &st, 0) == 0 && (st.st_mode & 07777) == 0750);
	CHECK(wsview_write(&v, "a/b/y", "y", 1) == 0);
	CHECK(fstatat(rootfd, "a/b/y", &st, 0) == 0 &&
	    (st.st_mode & 07777) == 0644);
	CHECK(wsview_write(&v, "a", "z", 1) == -1 && errno == EISDIR);
	CHECK(mkfifoat(rootfd, "p", 0600) == 0);
	CHECK(wsview_write(&v, "p", "z", 1) == -1 && errno == EINVAL);
	CHECK(wsview_open(&v, "p") == -1 && errno == EINVAL);
	CHECK(wsview_open(&v, "a") == -1 && errno == EISDIR);
	CHECK(wsview_read(&v, "x", 2, &buf, &len) == -1 && errno == EFBIG);
	CHECK(wsview_read(&v, "a/b/y", 16, &buf, &len) == 0 && len == 1);
	mem_free(buf);
	/* a symlink out of the workspace is not followed */
	CHECK(symlinkat("/etc", rootfd, "out") == 0);
	CHECK(wsview_open(&v, "out/hostname") == -1 && errno == EXDEV);
	/* an absolute path (outside) goes as the system resolves it */
	snprintf(abs, sizeof abs, "%s/outside", top);
	CHECK(wsview_write(&v, abs, "o", 1) == 0);
	CHECK((fd = wsview_open(&v, abs)) >= 0);
	close(fd);
	/* kinds, a streamed write, the sweep of leftover temp files */
	CHECK(wsview_kind(&v, "p") == S_IFIFO);
	CHECK(wsview_kind(&v, "a") == S_IFDIR);
	CHECK(wsview_kind(&v, "a/b/y") == S_IFREG);
	CHECK(wsview_kind(&v, "nothing/here") == 0);
	CHECK(wsview_kind(&v, "out") == S_IFLNK);
	CHECK((fd = open(abs, O_RDONLY)) >= 0);
	CHECK(wsview_write_fd(&v, "a/streamed", fd) == 0);
	close(fd);
	CHECK(fx_read(rootfd, "a/streamed", got, sizeof got) == 1);
	fx_put(rootfd, "a/.arcturn-tmp-0123456789abcdef", "left", 0600);
	wsview_sweep(&v, "a/new");
	CHECK(!fx_exists(rootfd, "a/.arcturn-tmp-0123456789abcdef"));
	fx_rm_rf(top);
}

static void
t_session(void)
{
	struct wsview v = { &S, -1 };
	char got[64], *buf;
	size_t len;
	int fd;

	fresh();
	v.rootfd = rootfd;
	CHECK((store = session_store_open(state, 1)) >= 0);
	CHECK(session_open(store, "t", ws, &S) == 0);
	CHECK(session_lock(&S, LOCK_EX) == 0);
	fx_put(rootfd, "x", "real", 0644);
	CHECK(wsview_write(&v, "x", "shadow", 6) == 0);
	/* the real file is untouched, the view sees the shadow copy */
	CHECK(fx_read(rootfd, "x", got, sizeof got) == 4);
	CHECK(wsview_read(&v, "x", 64, &buf, &len) == 0 && len == 6 &&
	    memcmp(buf, "shadow", 6) == 0);
	mem_free(buf);
	CHECK(fx_read(S.upperfd, "x", got, sizeof got) == 6);
	CHECK((fd = wsview_open(&v, "x")) >= 0);
	close(fd);
	/* kinds in the session's view */
	CHECK(wsview_kind(&v, "x") == S_IFREG);
	CHECK(mkfifoat(rootfd, "fifo", 0600) == 0);
	CHECK(wsview_kind(&v, "fifo") == S_IFIFO);
	CHECK(wsview_kind(&v, "fifo/below") == 0);
	/* outside paths never reach the shadow tree */
	CHECK(wsview_write(&v, "/etc/x", "z", 1) == -1 && errno == EXDEV);
	CHECK(wsview_open(&v, "/etc/hostname") == -1 && errno == EXDEV);
	session_close(&S);
	close(store);
	fx_rm_rf(top);
}

int
main(void)
{
	TEST(t_real);
	TEST(t_session);
	return tap_done();
}
