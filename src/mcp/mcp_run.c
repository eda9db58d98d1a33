/*
 * mcp_run: the arcturn binary as a child of the MCP server (mcp.h), with
 * its input given, its output captured and capped, and a deadline.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/mem.h"
#include "mcp/mcp.h"

struct sink {
	int	 fd;
	char	*buf;
	size_t	 len, cap, total;
	int	*trunc;
	int	 tail;		/* keep a head and a tail (mcp_run.tail) */
};

static long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * SIGTERM in a worker (mcp_run_stop_on_term): outside mcp_run it ends the
 * worker; inside, it asks the loop (through the pipe) to stop the child:
 * SIGTERM to it first, so that arcturn exec passes it on and lands or
 * records what the command wrote, then SIGKILL to its process group.
 */
static volatile sig_atomic_t running, stop_asked;
static int stop_pipe[2] = { -1, -1 };


static void
on_term(int sig)
{
	int save = errno;

	if (running == 0)
		_exit(128 + sig);
	stop_asked = 1;
	if (stop_pipe[1] >= 0)
		(void)write(stop_pipe[1], "x", 1);
	errno = save;
}

/*
 * read(2) of s's fd into p: the count, or <= 0 with *rc what a sink's
 * read returns (1 to read again, 0 at EOF with the fd closed, -1).
 */
static ssize_t
sink_rd(struct sink *s, void *p, size_t len, int *rc)
{
	ssize_t n = read(s->fd, p, len);

	if (n < 0)
		*rc = errno == EINTR || errno == EAGAIN ? 1 : -1;
	else if (n == 0) {
		close(s->fd);
		s->fd = -1;
		*rc = 0;
	}
	return n;
}

/*
 * Head and tail: the first cap/2 bytes stay at buf; the rest goes round
 * a ring of the other half, put in order by sink_done.
 */
static int
sink_ring(struct sink *s)
{
	char b[65536];
	size_t head = s->cap / 2, ring = s->cap - head, i, at, k;
	ssize_t n;
	int rc;

	if ((n = sink_rd(s, b, sizeof b, &rc)) <= 0)
		return rc;
	for (i = 0; i < (size_t)n; i += k) {
		at = s->total + i;
		if (at < head) {
			k = head - at < (size_t)n - i ? head - at : (size_t)n - i;
			memcpy(s->buf + at, b + i, k);
			continue;
		}
		at = (at - head) % ring;
		k = ring - at < (size_t)n - i ? ring - at : (size_t)n - i;
		memcpy(s->buf + head + at, b + i, k);
	}
	s->total += (size_t)n;
	s->len = s->total < s->cap ? s->total : s->cap;
	if (s->total > s->cap)
		*s->trunc = 1;
	return 1;
}

/* The ring in order: its oldest byte first. -1 when out of memory. */
static int
sink_done(struct sink *s)
{
	size_t head = s->cap / 2, ring = s->cap - head, at;
	char *tmp;

	if (!s->tail || s->total <= s->cap)
		return 0;
	at = (s->total - head) % ring;
	if (at == 0)
		return 0;
	if ((tmp = mem_alloc(ring)) == NULL)
		return -1;
	memcpy(tmp, s->buf + head + at, ring - at);
	memcpy(tmp + ring - at, s->buf + head, at);
	memcpy(s->buf + head, tmp, ring);
	mem_free(tmp);
	return 0;
}

/* Read what is there into s; 0 at EOF (fd closed), 1 for more, -1 error. */
static int
sink_read(struct sink *s)
{
	char drop[65536];
	size_t room;
	ssize_t n;
	char *p;
	int rc;

	if (s->tail && s->cap >= 2)
		return sink_ring(s);

	room = s->cap - s->len;
	p = room > 0 ? s->buf + s->len : drop;
	if ((n = sink_rd(s, p, room > 0 ? (room < sizeof drop ? room :
	    sizeof drop) : sizeof drop, &rc)) <= 0)
		return rc;
	s->total += (size_t)n;
	if (room > 0)
		s->len += (size_t)n;
	else
		*s->trunc = 1;
	return 1;
}

/*
 * The lines "DONE TOTAL" of a child that counts files (mcp_run's
 * progress_fd), to progress_files as each comes whole. 0 at EOF (fd
 * closed), 1 for more.
 */
struct files {
	int	 fd;
	char	 line[64];
	size_t	 len;
};

static int
files_read(const struct mcp_server *srv, struct files *f, int say)
{
	char b[512], *end;
	unsigned long long done, total;
	ssize_t n, k;

	if ((n = read(f->fd, b, sizeof b)) < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : 0;
	if (n == 0)
		return 0;
	for (k = 0; k < n; k++) {
		if (b[k] != '\n') {
			if (f->len + 1 < sizeof f->line)
				f->line[f->len++] = b[k];
			continue;
		}
		f->line[f->len] = '\0';
		f->len = 0;
		done = strtoull(f->line, &end, 10);
		if (end == f->line || *end != ' ')
			continue;
		total = strtoull(end + 1, &end, 10);
		if (say && *end == '\0' && done <= total && total <= SIZE_MAX)
			srv->progress_files(srv->progress_arg, (size_t)done,
			    (size_t)total);
	}
	return 1;
}

static void
child(const struct mcp_server *srv, struct mcp_run *r, pid_t parent, int in,
    int out, int err, int prog)
{
	sigset_t none;

	setpgid(0, 0);
	/* the server gone (killed): its calls end too, where the OS can */
	if (mcp_child_tie(parent) < 0)
		_exit(125);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(125);
	/* the descriptor its argv names (--progress-fd), open across exec */
	if (prog >= 0 && (prog == r->progress_fd ?
	    fcntl(prog, F_SETFD, 0) : dup2(prog, r->progress_fd)) < 0)
		_exit(125);
	execv(srv->self, r->argv);
	_exit(125);
}

/* pipe2(O_CLOEXEC) where there is none (macOS): one thread, no race. */
static int
cloexec_pipe(int p[2])
{
	if (pipe(p) < 0)
		return -1;
	if (fcntl(p[0], F_SETFD, FD_CLOEXEC) < 0 ||
	    fcntl(p[1], F_SETFD, FD_CLOEXEC) < 0) {
		close(p[0]);
		close(p[1]);
		p[0] = p[1] = -1;
		return -1;
	}
	return 0;
}

void
mcp_run_stop_on_term(void)
{
	struct sigaction sa;

	if (stop_pipe[0] < 0 && cloexec_pipe(stop_pipe) == 0) {
		fcntl(stop_pipe[0], F_SETFL, O_NONBLOCK);
		fcntl(stop_pipe[1], F_SETFL, O_NONBLOCK);
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sigfillset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Block SIGTERM (on) or restore the mask (off) around the fork. */
static void
term_block(int on, sigset_t *old)
{
	sigset_t t;

	if (on) {
		sigemptyset(&t);
		sigaddset(&t, SIGTERM);
		sigprocmask(SIG_BLOCK, &t, old);
	} else
		sigprocmask(SIG_SETMASK, old, NULL);
}

/* The soonest of the deadlines that are set (-1: none), from now. */
static long
soonest(long now, const long *at, int n)
{
	long left = 0;
	int i, any = 0;

	for (i = 0; i < n; i++)
		if (at[i] > 0 && (!any || at[i] - now < left)) {
			left = at[i] - now;
			any = 1;
		}
	return !any ? -1 : left < 0 ? 0 : left;
}

int
mcp_run(const struct mcp_server *srv, struct mcp_run *r)
{
	struct sink s[2];
	struct files fl = { -1, "", 0 };
	struct pollfd pf[5];
	int pin[2] = { -1, -1 }, pout[2] = { -1, -1 }, perr[2] = { -1, -1 };
	int pprog[2] = { -1, -1 }, timed;
	int i, n, wst, infd, save, stopping = 0, killed = 0;
	size_t inoff = 0, said = 0, bytes;
	long start, deadline, hard = 0, grace = 0, left, told = 0, now;
	long at[4];
	char drop[64];
	sigset_t old;
	pid_t pid, parent;

	r->out = r->err = NULL;
	r->outlen = r->errlen = r->out_total = r->err_total = 0;
	r->out_trunc = r->err_trunc = r->timed_out = 0;
	r->status = -1;
	r->sig = 0;
	if ((r->out = mem_alloc(r->cap + 1)) == NULL ||
	    (r->err = mem_alloc(r->cap + 1)) == NULL ||
	    cloexec_pipe(pin) < 0 || cloexec_pipe(pout) < 0 ||
	    cloexec_pipe(perr) < 0)
		goto fail;
	/* files done, told by the child, instead of time and output */
	timed = srv->progress != NULL;
	if (r->progress_fd > 2 && srv->progress_files != NULL) {
		if (cloexec_pipe(pprog) < 0)
			goto fail;
		timed = 0;
	}
	parent = getpid();
	term_block(1, &old);
	if ((pid = fork()) < 0) {
		term_block(0, &old);
		goto fail;
	}
	if (pid == 0)
		child(srv, r, parent, pin[0], pout[1], perr[1], pprog[1]);
	setpgid(pid, pid);	/* either side may win the race: both set it */
	running = pid;
	term_block(0, &old);
	close_fd(&pin[0]);
	close_fd(&pout[1]);
	close_fd(&perr[1]);
	close_fd(&pprog[1]);
	fl.fd = pprog[0];
	pprog[0] = -1;
	if (fl.fd >= 0)
		fcntl(fl.fd, F_SETFL, O_NONBLOCK);
	infd = pin[1];
	if (r->in == NULL || r->inlen == 0)
		close_fd(&infd);
	else
		fcntl(infd, F_SETFL, O_NONBLOCK);
	fcntl(pout[0], F_SETFL, O_NONBLOCK);
	fcntl(perr[0], F_SETFL, O_NONBLOCK);
	s[0] = (struct sink){ pout[0], r->out, 0, r->cap, 0, &r->out_trunc,
	    r->tail };
	s[1] = (struct sink){ perr[0], r->err, 0, r->cap, 0, &r->err_trunc,
	    r->tail };
	start = now_ms();
	deadline = r->timeout_ms > 0 ? start + r->timeout_ms : 0;
	if (timed)
		srv->progress(srv->progress_arg, 0, 0);
	told = start;
	while (s[0].fd >= 0 || s[1].fd >= 0 || fl.fd >= 0) {
		n = 0;
		for (i = 0; i < 2; i++)
			if (s[i].fd >= 0)
				pf[n++] = (struct pollfd){ s[i].fd, POLLIN, 0 };
		if (fl.fd >= 0)
			pf[n++] = (struct pollfd){ fl.fd, POLLIN, 0 };
		if (infd >= 0)
			pf[n++] = (struct pollfd){ infd, POLLOUT, 0 };
		if (stop_pipe[0] >= 0 && !stopping)
			pf[n++] = (struct pollfd){ stop_pipe[0], POLLIN, 0 };
		/* what to wake for: the deadline, the kill, progress */
		at[0] = !stopping ? deadline : 0;
		at[1] = stopping && !killed ? hard : 0;
		at[2] = killed ? grace : 0;
		at[3] = timed && !stopping ?
		    told + MCP_PROGRESS_MS : 0;
		left = soonest(now_ms(), at, 4);
		if (poll(pf, (nfds_t)n, left > INT32_MAX ? INT32_MAX :
		    (int)left) < 0 && errno != EINTR)
			break;
		now = now_ms();
		if (!stopping && (stop_asked || (deadline != 0 &&
		    now >= deadline))) {
			/* arcturn exec passes SIGTERM on, lands what was
			   written and cleans up; SIGKILL if it does not end */
			while (stop_pipe[0] >= 0 &&
			    read(stop_pipe[0], drop, sizeof drop) > 0)
				;
			r->timed_out = !stop_asked;
			stopping = 1;
			kill(pid, SIGTERM);
			hard = now + (stop_asked ? MCP_STOP_MS : 2 * MCP_STOP_MS);
			close_fd(&infd);
		}
		if (stopping && !killed && now >= hard) {
			killed = 1;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			grace = now + MCP_STOP_MS;
		}
		if (killed && now >= grace)
			break;	/* a grandchild holds a pipe: stop reading */
		for (i = 0; i < 2; i++)
			if (s[i].fd >= 0 && sink_read(&s[i]) < 0)
				close_fd(&s[i].fd);
		/* read on while it stops: an apply finishing is not cut */
		if (fl.fd >= 0 && files_read(srv, &fl, !stopping) == 0)
			close_fd(&fl.fd);
		if (infd >= 0) {
			ssize_t w = write(infd, r->in + inoff, r->inlen - inoff);

			if (w > 0)
				inoff += (size_t)w;
			else if (w < 0 && errno != EAGAIN && errno != EINTR)
				close_fd(&infd);	/* EPIPE: it stopped reading */
			if (inoff == r->inlen)
				close_fd(&infd);
		}
		/* output grew (at most 5 a second), or a second went by */
		bytes = s[0].total + s[1].total;
		if (timed && !stopping &&
		    (now - told >= MCP_PROGRESS_MS ||
		    (bytes != said && now - told >= MCP_PROGRESS_MS / 5))) {
			srv->progress(srv->progress_arg, now - start, bytes);
			told = now;
			said = bytes;
		}
	}
	close_fd(&infd);
	close_fd(&s[0].fd);
	close_fd(&s[1].fd);
	close_fd(&fl.fd);
	while (waitpid(pid, &wst, 0) < 0)
		if (errno != EINTR) {
			running = 0;
			return -1;
		}
	running = 0;
	if (stop_asked)
		_exit(128 + SIGTERM);	/* the call is over: nothing after */
	if (WIFEXITED(wst))
		r->status = WEXITSTATUS(wst);
	else if (WIFSIGNALED(wst))
		r->sig = WTERMSIG(wst);
	if (sink_done(&s[0]) < 0 || sink_done(&s[1]) < 0)
		r->outlen = r->errlen = 0;	/* out of memory: nothing kept */
	else {
		r->outlen = s[0].len;
		r->errlen = s[1].len;
	}
	r->out_total = s[0].total;
	r->err_total = s[1].total;
	r->out[r->outlen] = '\0';
	r->err[r->errlen] = '\0';
	return 0;
fail:
	save = errno;
	close_fd(&pin[0]);
	close_fd(&pin[1]);
	close_fd(&pout[0]);
	close_fd(&pout[1]);
	close_fd(&perr[0]);
	close_fd(&perr[1]);
	close_fd(&pprog[0]);
	close_fd(&pprog[1]);
	mcp_run_free(r);
	errno = save;
	return -1;
}

void
mcp_run_free(struct mcp_run *r)
{
	mem_free(r->out);
	mem_free(r->err);
	r->out = r->err = NULL;
}
