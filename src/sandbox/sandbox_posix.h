/*
 * sandbox_posix: what the Linux and macOS backends share (sandbox.h):
 * running a command unconfined, finding it first as execvp(3) would (a
 * backend that hands the command to another program must still say 127
 * for "not found" and 126 for "cannot run"), and the system calls behind
 * roots_build.
 *
 * Each returns 0, or an exit status (exitcode.h) with one line in err,
 * `cmd: reason`; posix_which returns -1 with errno.
 */
#ifndef ARCTURN_SANDBOX_POSIX_H
#define ARCTURN_SANDBOX_POSIX_H

#include <stddef.h>

#include "policy/roots.h"
#include "sandbox/sandbox.h"

/* execvp(cmd[0], cmd); returns only on failure (EXIT_NOTFOUND, ...). */
int	posix_exec(char **cmd, char *err, size_t errlen);

/*
 * Where execvp would find name: name itself when it holds a '/', else the
 * first executable regular file in $PATH (default /usr/local/bin:/usr/bin:
 * /bin; an empty entry is the current directory, skipped with abs_only,
 * as is any relative entry). 0 with the path in buf, or -1 with errno:
 * ENOENT, EACCES (found, not executable), EISDIR, ENAMETOOLONG.
 */
int	posix_which(const char *name, int abs_only, char *buf, size_t len);

/* 0 when execvp would find cmd[0] and could run it, else a status. */
int	posix_check(char **cmd, char *err, size_t errlen);

/*
 * Run fn(arg, fd) in a child, which ends with the status fn returns (or
 * replaces itself, or dies as the command did: posix_end_as). fd is the
 * write end of a close-on-exec pipe: what the child writes there before
 * it execs (one line) comes back in line. While arcturn waits, a signal a
 * process sends it (not one the terminal sent the whole group) is passed
 * on to the child. 0 with *end how the child ended, with its line
 * (sandbox_end_from: the command ran unless the child exited 125 to 127
 * after writing a line, which then says why it never started); or -1
 * with err filled (`exec: what: reason`). flags POSIX_CHILD_EXECS: fn only execs (or
 * writes its line and returns), so the child shares our memory until then
 * instead of copying it (os_spawn), while we wait.
 */
#define POSIX_CHILD_EXECS	1
int	posix_child(int (*fn)(void *arg, int fd), void *arg, int flags,
	    struct sandbox_end *end, char *line, size_t size, char *err,
	    size_t errlen);

/*
 * posix_end: *end for a command that ran and ended with wait status st
 * (waitpid's). posix_end_as: end this process as end says the command
 * ended, when a signal ended it (that signal, with no core dump), so that
 * whoever waits for arcturn sees what it would have seen of the command;
 * returns when no signal did (or its default is to be ignored).
 */
void	posix_end(struct sandbox_end *end, int st);
void	posix_end_as(const struct sandbox_end *end);

/* realpath(3) and mkdir(2). */
extern const struct roots_ops posix_roots_ops;

#endif
