/*
 * sandbox_posix: the part of the Linux and macOS backends that is plain
 * POSIX (sandbox_posix.h).
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/exitcode.h"
#include "lib/os.h"
#include "sandbox/sandbox.h"
#include "sandbox/sandbox_posix.h"
#include "sandbox/sigfwd.h"

static int
status(int e)
{
	return e == ENOENT || e == ENOTDIR ? EXIT_NOTFOUND : EXIT_NOEXEC;
}

static int
say(char **cmd, int e, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: %s", cmd[0], e == ENOENT ?
	    "command not found" : strerror(e));
	return status(e);
}

int
posix_exec(char **cmd, char *err, size_t errlen)
{
	execvp(cmd[0], cmd);
	return say(cmd, errno, err, errlen);
}

/* 0 when path is a file we may execute, else -1 with errno. */
static int
runnable(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -1;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return -1;
	}
	return access(path, X_OK);
}

int
posix_which(const char *name, int abs_only, char *buf, size_t len)
{
	const char *path = getenv("PATH"), *p, *end;
	int e = ENOENT;
	size_t n;

	if (*name == '\0') {
		errno = ENOENT;
		return -1;
	}
	if (strchr(name, '/') != NULL) {
		if ((size_t)snprintf(buf, len, "%s", name) >= len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		return runnable(buf);
	}
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p = end + 1) {
		n = strcspn(p, ":");
		end = p + n;
		if ((abs_only && (n == 0 || p[0] != '/')) ||
		    (size_t)snprintf(buf, len, "%.*s%s%s", (int)n, p,
		    n == 0 ? "" : "/", name) >= len)
			;
		else if (runnable(buf) == 0)
			return 0;
		else if (errno == EACCES)
			e = EACCES;
		if (*end == '\0')
			break;
	}
	errno = e;
	return -1;
}

int
posix_check(char **cmd, char *err, size_t errlen)
{
	char buf[PATH_MAX];

	if (posix_which(cmd[0], 0, buf, sizeof buf) == 0)
		return 0;
	return say(cmd, errno, err, errlen);
}

static int
sys_mkdir(const char *path, mode_t mode, void *arg)
{
	(void)arg;
	return mkdir(path, mode);
}

const struct roots_ops posix_roots_ops = { .mkdir = sys_mkdir };

/* The child of posix_child, with our signals back. */
struct child {
	int		(*fn)(void *, int);
	void		 *arg;
	struct sigfwd	  sf;
	int		  pfd[2];
};

static int
child_main(void *arg)
{
	struct child *c = arg;

	sigfwd_child(&c->sf, 0);
	close(c->pfd[0]);
	return c->fn(c->arg, c->pfd[1]);
}

void
posix_end(struct sandbox_end *end, int st)
{
	sandbox_end_from(end, WIFEXITED(st) ? WEXITSTATUS(st) : -1,
	    WIFSIGNALED(st) ? WTERMSIG(st) : 0, 0);
}

void
posix_end_as(const struct sandbox_end *end)
{
	struct rlimit none = { 0, 0 };
	sigset_t s;

	if (!end->ran || end->sig <= 0)
		return;
	(void)setrlimit(RLIMIT_CORE, &none);
	signal(end->sig, SIG_DFL);
	sigemptyset(&s);
	sigaddset(&s, end->sig);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	kill(getpid(), end->sig);
}

int
posix_child(int (*fn)(void *, int), void *arg, int flags,
    struct sandbox_end *end, char *line, size_t size, char *err,
    size_t errlen)
{
	struct child c;
	size_t len = 0;
	ssize_t n;
	int *pfd = c.pfd, st;
	pid_t pid;

	line[0] = '\0';
	memset(&c, 0, sizeof c);
	c.fn = fn;
	c.arg = arg;
	if (os_pipe_cloexec(pfd) < 0) {
		snprintf(err, errlen, "exec: pipe: %s", strerror(errno));
		return -1;
	}
	sigfwd_hold(&c.sf);
	fflush(stdout);
	if (flags & POSIX_CHILD_EXECS)
		pid = os_spawn(child_main, &c);
	else if ((pid = fork()) == 0)
		_exit(child_main(&c));
	close(pfd[1]);
	if (pid < 0) {
		snprintf(err, errlen, "exec: fork: %s", strerror(errno));
		sigfwd_end(&c.sf);
		close(pfd[0]);
		return -1;
	}
	sigfwd_to(&c.sf, pid);
	/* what the child says before its exec (EOF once it has exec'd) */
	while (len + 1 < size &&
	    ((n = read(pfd[0], line + len, size - 1 - len)) > 0 ||
	    (n < 0 && errno == EINTR)))
		if (n > 0)
			len += (size_t)n;
	line[len] = '\0';
	close(pfd[0]);
	if (sigfwd_wait(&c.sf, pid, &st) < 0) {
		snprintf(err, errlen, "exec: wait: %s", strerror(errno));
		return -1;
	}
	sandbox_end_from(end, WIFEXITED(st) ? WEXITSTATUS(st) : -1,
	    WIFSIGNALED(st) ? WTERMSIG(st) : 0, line[0] != '\0');
	return 0;
}

/* What the child of sandbox_run_wait runs. */
struct wait_job {
	const struct policy		*p;
	const struct sandbox_choice	*ch;
	char				**argv;
	pid_t				 parent;
};

/*
 * The child: sandbox_run, which replaces it where the backend allows. A
 * backend that returns after the command (a Linux sweep) ends the child
 * as the command ended, so that the parent sees a signal as one.
 */
static int
wait_run(void *arg, int fd)
{
	struct wait_job *j = arg;
	struct sandbox_end end = { 0, 0, 0 };
	char err[1024];
	int rc;

#ifdef __linux__
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return EXIT_OWN;
#endif
	if (getppid() != j->parent)
		return EXIT_OWN;
	err[0] = '\0';
	/* not found or not runnable is arcturn's to say, whatever the backend */
	if ((rc = posix_check(j->argv, err, sizeof err)) == 0)
		rc = sandbox_run(j->p, j->ch, j->argv, &end, err, sizeof err);
	if (err[0] != '\0')
		(void)!write(fd, err, strlen(err));
	posix_end_as(&end);
	return rc;
}

int
sandbox_run_wait(const struct policy *p, const struct sandbox_choice *ch,
    char **argv, struct sandbox_end *end, char *err, size_t errlen)
{
	struct wait_job j = { p, ch, argv, getpid() };
	char line[1024];

	memset(end, 0, sizeof *end);
	end->status = EXIT_OWN;
	if (posix_child(wait_run, &j, 0, end, line, sizeof line, err,
	    errlen) < 0)
		return EXIT_OWN;
	if (line[0] != '\0')
		snprintf(err, errlen, "%s", line);
	return end->status;
}
