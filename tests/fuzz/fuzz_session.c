/*
 * fuzz_session: the session readers on hostile input. The first byte
 * picks what the rest is:
 *   0  meta.json of a session: session_open returns it or EBADMSG with
 *	a reason, and session_remove_id removes it either way;
 *   1  a base record, as a record file (the old form) and, when it can
 *	be a link's target, as a record link: session_base_get parses it
 *	or says EBADMSG, and a record it parsed round-trips through
 *	session_base_put;
 *   2+ a program that builds a hostile session (upper/ and the real
 *	tree: dirs, files, symlinks anywhere, both whiteout forms, opaque
 *	marks, fifos, hard links, mode-0 dirs, chains deeper than the
 *	limit, damaged parts), then reads it as every command does: the
 *	change list, the diff and digest, the plan, the base of each
 *	change, the marking of unrecorded changes; and removes it.
 * Nothing may crash, leak, follow a link out, or leave anything behind.
 */
#include <sys/file.h>
#include <sys/xattr.h>

#include "fuzz.h"

#include "lib/mem.h"
#include "session/changes.h"
#include "session/changes_base.h"
#include "session/plan.h"
#include "session/review.h"
#include "session/session_base.h"
#include "session/session_rmtree.h"
#include "session/shadow.h"

static int
sink(const void *buf, size_t len, void *arg)
{
	*(size_t *)arg += len;
	return 0;
}

static int
dir_of(int top, const char *rel, const char **base)
{
	return fsx_open_parent(top, rel, 1, base);
}

/* One step of the program against upper (u) or the real tree (r). */
static void
step(struct fz_in *in, int ufd, int rfd)
{
	char p[256], q[256], buf[64];
	const char *b, *b2;
	int op = fz_byte(in), top, pfd, qfd, fd, k, i;
	size_t n;

	if (op < 0)
		return;
	top = op & 1 ? rfd : ufd;
	fz_path(in, p, sizeof p, 0);
	if ((pfd = dir_of(top, p, &b)) < 0)
		return;
	switch ((op >> 1) % 11) {
	case 0:
		(void)mkdirat(pfd, b, (mode_t)(0700 | (fz_byte(in) & 0777)));
		break;
	case 1:
		n = fz_bytes(in, buf, sizeof buf);
		fd = openat(pfd, b, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
		    O_NONBLOCK | O_CLOEXEC, 0644);
		if (fd >= 0) {
			if (n > 0 && write(fd, buf, n) < 0)
				break;
			(void)fchmod(fd, (mode_t)(fz_byte(in) & 07777));
			close(fd);
		}
		break;
	case 2: {
		static const char *targets[] = { "/", "/etc/passwd", "..",
		    "../..", "a", "a/b", "loop", "", "sub/../..", "x y" };
		(void)symlinkat(targets[(fz_byte(in) & 0xff) % 10], pfd, b);
		break;
	}
	case 3:
		(void)mknodat(pfd, b, S_IFCHR, 0);	/* a whiteout */
		break;
	case 4:
		(void)mknodat(pfd, b, S_IFIFO | 0644, 0);
		break;
	case 5:
		fd = openat(pfd, b, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		if (fd >= 0) {
			k = fz_byte(in);
			(void)fsetxattr(fd, k & 1 ? "trusted.overlay.opaque" :
			    "user.overlay.opaque", k & 2 ? "y" : "x", 1, 0);
			close(fd);
		}
		break;
	case 6:
		fz_path(in, q, sizeof q, 0);
		if ((qfd = dir_of(top, q, &b2)) >= 0) {
			(void)linkat(pfd, b, qfd, b2, 0);
			close(qfd);
		}
		break;
	case 7:
		/* never through a link: one may lead to / or /etc/passwd */
		(void)fchmodat(pfd, b, (mode_t)(fz_byte(in) & 07777),
		    AT_SYMLINK_NOFOLLOW);
		break;
	case 8:
		fd = openat(pfd, b, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
		    0644);
		if (fd >= 0) {
			(void)fsetxattr(fd, "user.overlay.whiteout", "y", 1, 0);
			close(fd);
		}
		break;
	case 9:
		/* a chain past the depth limit */
		k = 500 + fz_byte(in);
		if ((fd = dup(pfd)) < 0)
			break;
		for (i = 0; i < k; i++) {
			if (mkdirat(fd, "n", 0755) < 0 && errno != EEXIST)
				break;
			qfd = openat(fd, "n", O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW);
			close(fd);
			if ((fd = qfd) < 0)
				break;
		}
		if (fd >= 0) {
			(void)mknodat(fd, "w", S_IFCHR, 0);
			close(fd);
		}
		break;
	case 10:
		(void)unlinkat(pfd, b, 0);
		break;
	}
	close(pfd);
}

static void
read_session(struct session *s, int rootfd)
{
	struct changes c;
	struct apply_base b;
	struct plan p;
	char hex[HASH_HEXLEN + 1];
	size_t out = 0, i;
	int *sel;

	if (changes_list(s, rootfd, &c, NULL, NULL) == 0) {
		(void)review_diff(s, rootfd, &c, NULL, sink, &out, hex, NULL,
		    NULL);
		for (i = 0; i < c.n; i++)
			(void)changes_base(s, &c, i, &b);
		if ((sel = mem_calloc(c.n + 1, sizeof *sel)) != NULL) {
			long un;

			(void)plan_select(&c, NULL, 0, sel, &un);
			(void)plan_count(&c, sel);
			if (plan_build(s, rootfd, &c, sel, &p) == 0)
				plan_free(&p);
			mem_free(sel);
		}
	}
	changes_free(&c);
	(void)changes_mark_unrecorded(s, rootfd);
}

/* The record of "f" parses or says EBADMSG; parsed, it round-trips. */
static void
round_trip(struct session *s)
{
	struct apply_base b, g;

	if (session_base_get(s, "f", &b) == 0) {
		if (session_base_put(s, "g", &b) < 0 ||
		    session_base_get(s, "g", &g) < 0 ||
		    memcmp(&b, &g, sizeof b) != 0)
			abort();
	} else if (errno != EBADMSG)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	struct session s;
	char ws[PATH_MAX + 8], name[HASH_HEXLEN + 1];
	unsigned char d[HASH_LEN];
	int store, mode, rootfd, fd, damage;

	fz_scratch();
	fz_clean();
	snprintf(ws, sizeof ws, "%s/ws", fz_top);
	if (mkdir(ws, 0755) < 0 || mkdirat(fz_topfd, "state", 0700) < 0)
		abort();
	if ((store = session_store_open(ws, 0)) >= 0)
		abort();	/* not a store: no overlays/ there */
	{
		char st[PATH_MAX + 16];

		snprintf(st, sizeof st, "%s/state", fz_top);
		if ((store = session_store_open(st, 1)) < 0)
			abort();
	}
	if (session_open(store, "s", ws, &s) < 0)
		abort();
	mode = fz_byte(&in);
	if (mode < 0)
		mode = 2;
	if (mode == 0) {
		session_close(&s);
		fd = openat(store, "s/meta.json", O_WRONLY | O_TRUNC);
		if (fd < 0 || (in.n > 0 && write(fd, in.p, in.n) < 0))
			abort();
		close(fd);
		if (session_open(store, "s", NULL, &s) == 0)
			session_close(&s);
		else if (errno != EBADMSG || s.why[0] == '\0')
			abort();
	} else if (mode == 1) {
		hash_buf("f", 1, d);
		hash_hex(d, name);
		fd = openat(s.basefd, name, O_WRONLY | O_CREAT, 0600);
		if (fd < 0 || (in.n > 0 && write(fd, in.p, in.n) < 0))
			abort();
		close(fd);
		round_trip(&s);
		if (in.n > 0 && in.n < 256 && memchr(in.p, '\0', in.n) == NULL) {
			char target[256];

			memcpy(target, in.p, in.n);
			target[in.n] = '\0';
			if (unlinkat(s.basefd, name, 0) < 0 ||
			    symlinkat(target, s.basefd, name) < 0)
				abort();
			(void)session_base_del(&s, "g");
			round_trip(&s);
		}
		session_close(&s);
	} else {
		if ((rootfd = open(ws, O_RDONLY | O_DIRECTORY)) < 0)
			abort();
		while (in.n > 0)
			step(&in, s.upperfd, rootfd);
		if (session_lock(&s, LOCK_EX) < 0)
			abort();
		read_session(&s, rootfd);
		session_close(&s);
		/* damage a part, then open it as every command does */
		damage = mode % 5;
		if (damage == 1)
			(void)session_rmtree(store, "s/base");
		else if (damage == 2)
			(void)session_rmtree(store, "s/upper");
		else if (damage == 3)
			(void)unlinkat(store, "s/meta.json", 0);
		if (session_open(store, "s", NULL, &s) == 0) {
			if (session_lock(&s, LOCK_SH) == 0)
				read_session(&s, rootfd);
			session_close(&s);
		} else if (errno != EBADMSG)
			abort();
		close(rootfd);
	}
	if (session_remove_id(store, "s", NULL, NULL) < 0)
		abort();
	if (faccessat(store, "s", F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		abort();
	close(store);
	return 0;
}
