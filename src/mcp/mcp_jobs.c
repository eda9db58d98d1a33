/*
 * mcp_jobs: each tool call in a worker of its own (mcp_jobs.c, below).
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/mem.h"
#include "mcp/mcp.h"
#include "mcp/mcp_json.h"

long
mcp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
mcp_jobs_init(struct mcp_jobs *js)
{
	js->head = NULL;
	js->tail = &js->head;
	js->running = 0;
}

void
mcp_job_free(struct mcp_job *j)
{
	if (j == NULL)
		return;
	if (j->fd >= 0)
		close(j->fd);
	cJSON_Delete(j->id);
	mem_free(j->line);
	mem_free(j->dir);
	mem_free(j->r.line);
	mem_free(j);
}

int
mcp_jobs_add(struct mcp_jobs *js, const struct mcp_server *srv,
    const cJSON *id, const char *line, size_t len, int writer)
{
	struct mcp_job *j;

	if ((j = mem_calloc(1, sizeof *j)) == NULL)
		return -1;
	j->fd = -1;
	j->writer = writer;
	if ((j->id = cJSON_Duplicate(id, 1)) == NULL ||
	    (j->line = mem_strndup(line, len)) == NULL ||
	    (srv->dir != NULL && (j->dir = mem_strdup(srv->dir)) == NULL)) {
		mcp_job_free(j);
		return -1;
	}
	j->len = len;
	*js->tail = j;
	js->tail = &j->next;
	return 0;
}

static void
unlink_job(struct mcp_jobs *js, struct mcp_job *j)
{
	struct mcp_job **pp;

	for (pp = &js->head; *pp != NULL; pp = &(*pp)->next)
		if (*pp == j) {
			*pp = j->next;
			break;
		}
	js->tail = &js->head;
	while (*js->tail != NULL)
		js->tail = &(*js->tail)->next;
	j->next = NULL;
}

/* Write all of buf to fd: 0, or -1 (the server is gone). */
static int
put_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		if ((n = write(fd, buf, len)) < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A message as one line on the worker's pipe. */
static void
put_msg(int fd, cJSON *m)
{
	char *s;
	size_t len;

	if (m == NULL || (s = cJSON_PrintUnformatted(m)) == NULL) {
		cJSON_Delete(m);
		return;
	}
	cJSON_Delete(m);
	len = strlen(s);
	s[len] = '\n';	/* over the NUL: written by length */
	(void)put_all(fd, s, len + 1);
	cJSON_free(s);
}

struct prog {
	int		 fd;
	const cJSON	*token;
	const char	*tool;
	double		 last;
};

/*
 * notifications/progress: v, out of total when total > 0 (v always more
 * than the last: the spec wants it to increase), with msg.
 */
static void
notify(struct prog *p, double v, double total, const char *msg)
{
	cJSON *m, *pa;

	if (v <= p->last)
		v = p->last + 0.001;
	p->last = v;
	if ((m = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(m, "jsonrpc", "2.0") == NULL ||
	    cJSON_AddStringToObject(m, "method", "notifications/progress") ==
	    NULL || (pa = cJSON_AddObjectToObject(m, "params")) == NULL ||
	    !cJSON_AddItemToObject(pa, "progressToken",
	    cJSON_Duplicate(p->token, 1)) ||
	    cJSON_AddNumberToObject(pa, "progress", v) == NULL ||
	    (total > 0 && cJSON_AddNumberToObject(pa, "total", total) ==
	    NULL) ||
	    cJSON_AddStringToObject(pa, "message", msg) == NULL) {
		cJSON_Delete(m);
		return;
	}
	put_msg(p->fd, m);
}

/* A command's: seconds so far, output so far. */
static void
progress(void *arg, long ms, size_t bytes)
{
	struct prog *p = arg;
	char msg[128];

	snprintf(msg, sizeof msg, "%s: running for %.1f s, %zu bytes of "
	    "output so far", p->tool, (double)ms / 1000.0, bytes);
	notify(p, (double)ms / 1000.0, 0, msg);
}

/* An apply's: files done of files in all (a repeat is not said). */
static void
progress_files(void *arg, size_t done, size_t total)
{
	struct prog *p = arg;
	char msg[128];

	if ((double)done <= p->last)
		return;
	snprintf(msg, sizeof msg, "%s: %zu of %zu file%s done", p->tool,
	    done, total, total == 1 ? "" : "s");
	notify(p, (double)done, (double)total, msg);
}

static cJSON *
reply(const cJSON *id, cJSON *result, int code, const char *msg)
{
	cJSON *m, *e;

	if ((m = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(m, "jsonrpc", "2.0") == NULL ||
	    !cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, 1))) {
		cJSON_Delete(m);
		cJSON_Delete(result);
		return NULL;
	}
	if (code == 0 && result != NULL) {
		cJSON_AddItemToObject(m, "result", result);
		return m;
	}
	cJSON_Delete(result);
	if ((e = cJSON_AddObjectToObject(m, "error")) == NULL ||
	    cJSON_AddNumberToObject(e, "code", code ? code :
	    MCP_EINTERNAL) == NULL ||
	    cJSON_AddStringToObject(e, "message", code ? msg :
	    "out of memory") == NULL) {
		cJSON_Delete(m);
		return NULL;
	}
	return m;
}

/* The worker: call the tool of line, say it on fd, end. */
static void
worker(const struct mcp_server *srv0, const struct mcp_job *j, int fd,
    pid_t parent)
{
	struct mcp_server srv = *srv0;
	const char *line = j->line;
	size_t len = j->len;
	struct prog p = { fd, NULL, NULL, -1 };
	const cJSON *params, *name, *args, *meta;
	char msg[PATH_MAX + 256];
	cJSON *m, *res = NULL;
	int null, rc;

	if (mcp_child_tie(parent) < 0)
		_exit(1);
	/* stdin is the server's; stdout is the protocol's, written by it */
	if ((null = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0 ||
	    dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0)
		_exit(1);
	close(null);
	mcp_run_stop_on_term();
	srv.dir = j->dir;
	if (srv.dir == NULL && srv.why[0] == '\0')
		snprintf(srv.why, sizeof srv.why, "mcp: no workspace: give "
		    "one with -C DIR or an MCP root");
	if ((m = cJSON_ParseWithLength(line, len)) == NULL ||
	    mcp_json_lengths(m, line, len) < 0)
		_exit(1);
	params = cJSON_GetObjectItemCaseSensitive(m, "params");
	name = cJSON_GetObjectItemCaseSensitive(params, "name");
	args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
	meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
	p.token = cJSON_GetObjectItemCaseSensitive(meta, "progressToken");
	p.tool = name->valuestring;
	if (cJSON_IsString(p.token) || cJSON_IsNumber(p.token)) {
		srv.progress = progress;
		srv.progress_files = progress_files;
		srv.progress_arg = &p;
	}
	msg[0] = '\0';
	rc = mcp_tools_call(&srv, name->valuestring, args, &res, msg,
	    sizeof msg);
	put_msg(fd, reply(cJSON_GetObjectItemCaseSensitive(m, "id"), res, rc,
	    msg));
	_exit(0);
}

static int
start(struct mcp_jobs *js, struct mcp_job *j, const struct mcp_server *srv)
{
	int p[2];
	pid_t parent = getpid(), pid;

	if (pipe(p) < 0)
		return -1;
	fcntl(p[0], F_SETFD, FD_CLOEXEC);
	fcntl(p[1], F_SETFD, FD_CLOEXEC);
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		worker(srv, j, p[1], parent);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	j->pid = pid;
	j->fd = p[0];
	j->r.fd = p[0];
	j->r.max = (size_t)-1;	/* a reply is as long as the tool made it */
	mem_free(j->line);
	j->line = NULL;
	js->running++;
	return 0;
}

void
mcp_jobs_start(struct mcp_jobs *js, const struct mcp_server *srv,
    struct mcp_job **failed)
{
	struct mcp_job *j;
	int before = 0, writer_before = 0;

	*failed = NULL;
	for (j = js->head; j != NULL; j = j->next) {
		if (j->pid == 0 && js->running < MCP_JOBS_MAX &&
		    !writer_before && !(j->writer && before) &&
		    start(js, j, srv) < 0) {
			unlink_job(js, j);
			*failed = j;
			return;
		}
		before = 1;
		writer_before |= j->writer;
	}
}

int
mcp_jobs_writing(const struct mcp_jobs *js)
{
	const struct mcp_job *j;

	for (j = js->head; j != NULL; j = j->next)
		if (j->writer)
			return 1;
	return 0;
}

static void
stop(struct mcp_job *j)
{
	j->cancelled = 1;
	if (j->killed_at == 0) {
		kill(j->pid, SIGTERM);
		j->killed_at = mcp_now_ms();
	}
}

static int
same_id(const cJSON *a, const cJSON *b)
{
	if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
		return a->valuedouble == b->valuedouble;
	return cJSON_IsString(a) && cJSON_IsString(b) &&
	    strcmp(a->valuestring, b->valuestring) == 0;
}

int
mcp_jobs_cancel(struct mcp_jobs *js, const cJSON *id)
{
	struct mcp_job *j;

	for (j = js->head; j != NULL; j = j->next) {
		if (j->cancelled || !same_id(j->id, id))
			continue;
		if (j->pid == 0) {
			unlink_job(js, j);
			mcp_job_free(j);
		} else
			stop(j);
		return 1;
	}
	return 0;
}

void
mcp_jobs_kill_all(struct mcp_jobs *js)
{
	struct mcp_job *j, *next;

	for (j = js->head; j != NULL; j = next) {
		next = j->next;
		if (j->pid != 0)
			stop(j);
		else {
			unlink_job(js, j);
			mcp_job_free(j);
		}
	}
}

int
mcp_jobs_read(struct mcp_jobs *js, struct mcp_job *j,
    int (*put)(void *, const char *, size_t), void *arg)
{
	int rc, st, failed = 0;

	for (;;) {
		while ((rc = lines_take(&j->r)) == LINE_OK)
			if (!j->cancelled && put(arg, j->r.line, j->r.len) < 0)
				failed = 1;
		if (rc == LINE_ERR)
			j->cancelled = 1;	/* out of memory: said by none */
		if ((rc = lines_fill(&j->r)) > 0)
			continue;
		if (rc < 0 && (errno == EAGAIN || errno == EINTR))
			return failed ? -1 : 0;
		break;
	}
	/* EOF (or a broken pipe): the worker is done */
	close(j->fd);
	j->fd = -1;
	while (waitpid(j->pid, &st, 0) < 0 && errno == EINTR)
		;
	js->running--;
	unlink_job(js, j);
	mcp_job_free(j);
	return failed ? -1 : 0;
}

void
mcp_jobs_reap_slow(struct mcp_jobs *js, long *wait_ms)
{
	struct mcp_job *j;
	long now = mcp_now_ms(), left;

	*wait_ms = -1;
	for (j = js->head; j != NULL; j = j->next) {
		if (j->pid == 0 || j->killed_at == 0)
			continue;
		left = j->killed_at + 1000 - now;
		if (left <= 0) {
			kill(-j->pid, SIGKILL);
			kill(j->pid, SIGKILL);
			continue;
		}
		if (*wait_ms < 0 || left < *wait_ms)
			*wait_ms = left;
	}
}
