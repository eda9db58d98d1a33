/*
 * sandbox: the platform backend behind `arcturn exec` and `arcturn sandbox
 * status`. One implementation per platform, in whole files:
 * sandbox_linux.c (with sandbox_helper_linux.c, sandbox_bwrap_linux.c,
 * sandbox_probe_linux.c and kernel_linux.c: the Landlock helper,
 * bubblewrap, the status probe, the kernel's answers and the fd guards),
 * sandbox_macos.c (Seatbelt), sandbox_win.c (Low integrity).
 * cmd_exec.c is the front end and the only caller.
 *
 * Calling sequence, as doas's main does around permit(): the backend
 * decides, silently; the front end speaks.
 *
 *	sandbox_choose(p, &ch);		which backend, why, forced or not
 *	switch (ch.verdict) {
 *	case SANDBOX_BAD:	print ch.why, exit EXIT_OWN
 *	case SANDBOX_NONE:	p->require_sandbox ? print, EXIT_OWN :
 *				print the unavailable note, go on
 *	}
 *	rc = sandbox_run(p, &ch, argv, &end, err, errlen);
 *					returns on failure, or after a wait
 *
 * Nothing here prints or exits. Every failure comes back as an exit status
 * (exitcode.h) with one line in err, `what: path: reason`; how a command
 * ended comes back as one value, struct sandbox_end, from the wait that
 * saw it end, and from nowhere else.
 */
#ifndef ARCTURN_SANDBOX_H
#define ARCTURN_SANDBOX_H

#include <stddef.h>

#include "policy/policy.h"

enum sandbox_verdict {
	SANDBOX_CONFINE,	/* a backend confines the command */
	SANDBOX_OFF,		/* sandbox mode off: run it as it is */
	SANDBOX_NONE,		/* no backend here (why says): unconfined */
	SANDBOX_BAD		/* ARCTURN_BACKEND names no backend: 125 */
};

struct sandbox_choice {
	enum sandbox_verdict verdict;
	int		 backend;	/* index into the platform's names */
	const char	*name;		/* static: "helper", "seatbelt", "none" */
	int		 forced;	/* named by ARCTURN_BACKEND */
	char		 why[256];
};

/*
 * Decide how a command would run under p: sandbox mode off; else the
 * backend ARCTURN_BACKEND names (helper, helper-landlock, bwrap, none on
 * Linux; seatbelt, none on macOS; low-integrity, none on Windows), demoted
 * to none with the reason when this machine cannot run it; else the first
 * backend this machine can run. Never fails; probes, creates nothing.
 */
void	sandbox_choose(const struct policy *p, struct sandbox_choice *ch);

/*
 * How a command ended: the value that every wait of this layer returns
 * (a backend that waits, sandbox_run_wait, sandbox_overlay_wait), and the
 * only way a caller learns it. Where the wait is in another process (the
 * child that runs the backend for sandbox_run_wait or for the sweep, or
 * MCP's `arcturn exec`), how that child ended and whether it said why
 * first become this value in one place, sandbox_end_from.
 *
 *	ran	it was started and waited for; clear: it never started (the
 *		sandbox failed, or the command cannot be found or run), and
 *		err says why
 *	status	as exec reports it: its exit code, 128+N for signal N; when
 *		it never started, EXIT_OWN (125: the sandbox failed),
 *		EXIT_NOEXEC (126) or EXIT_NOTFOUND (127)
 *	sig	N when signal N ended it, else 0 (status alone cannot tell
 *		exit code 143 from SIGTERM)
 */
struct sandbox_end {
	int	ran;
	int	status;
	int	sig;
};

/*
 * *end for a child of ours that ran a command (or arcturn exec): its exit
 * code (-1 when a signal ended it), sig (0 when none did), and said: it
 * wrote a line of its own before it ended (why the command did not
 * start). The command ran unless the child exited 125 to 127 having said
 * why; a command's own 125 to 127 is its result.
 */
void	sandbox_end_from(struct sandbox_end *end, int code, int sig,
	    int said);

/*
 * Run argv[0] with argv under p as ch says (SANDBOX_OFF and SANDBOX_NONE:
 * unconfined, the front end has said so; SANDBOX_BAD: EXIT_OWN with
 * ch->why), replacing this process where the backend allows (exec-only
 * chain). Returns only when the command did not start (end->ran clear),
 * with EXIT_OWN, EXIT_NOEXEC or EXIT_NOTFOUND and one line in err; or
 * where the backend must wait (Windows; on Linux, a sweep after the
 * command, or bwrap), with how the command ended in *end and the status
 * exec exits with: end->status, or EXIT_OWN when the sweep after it
 * failed (err says what it found either way, or is empty).
 */
int	sandbox_run(const struct policy *p, const struct sandbox_choice *ch,
	    char **argv, struct sandbox_end *end, char *err, size_t errlen);

/*
 * sandbox_run, waited for (exec --json, which speaks after the command):
 * the same run in a child of this process, which waits for it, passing
 * on the signals a process sends it (a terminal's reach the command
 * directly); the child dies with it. Returns the status sandbox_run's
 * caller would exit with, and fills *end (end->ran clear: the command
 * never started, and err says why; a sweep that failed after the command
 * counts as that too). Windows: sandbox_run, which waits.
 */
int	sandbox_run_wait(const struct policy *p, const struct sandbox_choice *ch,
	    char **argv, struct sandbox_end *end, char *err, size_t errlen);

/*
 * The backend's name for a run under ch, as `sandbox status` and exec
 * --json give it: "helper+mount" where the helper gets its mount layer,
 * else ch->name ("helper", "bwrap", "seatbelt", "none"), "off" when the
 * mode is off.
 */
void	sandbox_label(const struct policy *p, const struct sandbox_choice *ch,
	    char *buf, size_t len);

/*
 * `arcturn sandbox status`: what a command would get under p and ch.
 *
 * The guarantees are one table (sandbox.c): every backend reports on every
 * key, in this order, and README's security table has a row for each (a
 * unit test checks both). A guarantee a backend leaves unset reads "NO".
 */
enum sandbox_key {
	SG_WRITES,		/* writes_outside */
	SG_METADATA,		/* metadata_outside */
	SG_PROTECTED,		/* protected_paths */
	SG_TRUNCATION,		/* truncation */
	SG_DEVICES,		/* devices */
	SG_SIGNALS,		/* signals */
	SG_TIOCSTI,		/* tiocsti */
	SG_NETWORK_OFF,		/* network_off */
	SG_UNIX_SOCKETS,	/* unix_sockets */
	SG_ABSTRACT,		/* abstract_sockets */
	SG_IPC,			/* ipc */
	SG_LIFETIME,		/* lifetime */
	SG_LABELS,		/* persistent_labels */
	/* git, protected paths that do not exist, the state dir */
	SG_GIT,			/* git_control_files */
	SG_MISSING,		/* protected_missing */
	SG_STATE,		/* state_dir */
	SANDBOX_NKEYS
};

struct sandbox_gdef {
	const char	*key;		/* JSON key */
	const char	*text;		/* what `sandbox status` calls it */
};

extern const struct sandbox_gdef sandbox_guarantees[SANDBOX_NKEYS];

#define SANDBOX_MAXFACTS	16

/*
 * What a fact is in `sandbox status --json`: its text (SF_TEXT, the
 * default), a number, a fixed word, or null (absent here).
 */
enum sandbox_ftype { SF_TEXT, SF_INT, SF_WORD, SF_NULL };

struct sandbox_report {
	char		 backend[32];	/* helper+mount, helper, bwrap, none, ... */
	char		 why[512];	/* why this backend; for none, the cause */
	struct {
		const char	*key;	/* static, e.g. "landlock_abi" */
		char		 value[512];	/* the text; "": JSON only */
		int		 type;	/* its JSON form (enum sandbox_ftype) */
		long		 num;	/* SF_INT */
		const char	*word;	/* SF_WORD: static */
	}		 facts[SANDBOX_MAXFACTS];
	int		 nfacts;
	struct {
		int	 set;		/* reported by the backend */
		int	 holds;
		char	 why[200];
	}		 g[SANDBOX_NKEYS];	/* by enum sandbox_key */
	int		 dry_run_exec;	/* exec --dry-run possible here */
	char		 dry_run_why[512];
};

/*
 * Probe the machine and fill r (zeroed here) for ch: facts, the backend
 * with its reason, and every guarantee. Never fails: what cannot be probed
 * is reported as such.
 */
void	sandbox_probe(const struct policy *p, const struct sandbox_choice *ch,
	    struct sandbox_report *r);

/*
 * Dry run: start argv under p with overlayfs mounted on the workspace
 * (lower: the workspace itself; upper and work: the session's dirs), so
 * that every change the command makes lands in upper: 0 with *run set
 * while the sandbox is being built. The overlay is mounted, and the
 * command started, only on sandbox_overlay_go(run, 1): meanwhile the
 * caller readies the session (the two overlap). sandbox_overlay_go(run,
 * 0), or arcturn's end, ends the helper before the overlay and the
 * command, quietly: the caller says why. go returns 0; or the number of
 * a signal that reached arcturn since start (HUP, INT, QUIT, TERM, USR1,
 * USR2, a terminal's too): then it told the helper no, and the command
 * never runs; or -1 when the helper had ended already (the wait tells
 * how). The caller may work
 * while the command runs too (the session's sweep); then
 * sandbox_overlay_wait waits for it (saying no to a run not told go),
 * frees run, fills *end
 * and returns end->status (its exit code, 128+N for signal N, 126/127;
 * EXIT_OWN with end->ran clear and one line in err when the wait
 * failed). Fails closed: start returns -1 with one line in err when the
 * overlay cannot be had here, and then the command did not run (status
 * 125 from the helper means the same).
 * SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1 and SIGUSR2 sent to arcturn
 * by a process are passed on to the command (a terminal's reach it
 * directly), and arcturn goes on waiting, so that the caller still sees
 * it end. It returns only when the last process of the command is gone:
 * the whole tree ends with the command's main process, and with arcturn,
 * however arcturn ends (SIGKILL too). lockfd (the session lock, or -1)
 * stays open in the sandbox's init until then, never in the command, so
 * the session stays locked while anything could still write in it.
 * The sandbox's init sends the status once nothing of the command is
 * left, and only then ends, unmounting the overlay as it does, while the
 * caller goes on; it holds lockfd's lock (the same open file) until it is
 * gone. So the caller lets the lock go by closing lockfd, never by
 * unlocking it (session_let_go): the next run waits until the overlay is
 * gone, which it could not mount while upper is in use.
 * sandbox_overlay_available returns 1 when the overlay can be had here,
 * else 0 with the reason in why; it creates nothing. Call it first:
 * sandbox_overlay_start does not repeat the check (the helper still fails
 * closed, 125, when it cannot mount the overlay). Linux and macOS (where
 * both refuse); the Windows build has no dry-run engine to call them.
 */
int	sandbox_overlay_available(const struct policy *p, char *why,
	    size_t len);
struct sandbox_overlay_run;
int	sandbox_overlay_start(const struct policy *p, const char *upper,
	    const char *work, int lockfd, char **argv,
	    struct sandbox_overlay_run **run, char *err, size_t errlen);
int	sandbox_overlay_go(struct sandbox_overlay_run *run, int go);
int	sandbox_overlay_wait(struct sandbox_overlay_run *run,
	    struct sandbox_end *end, char *err, size_t errlen);

/*
 * Set ARCTURN_SANDBOX, which every confined command inherits, to value
 * (the mode, and ",dry-run" when a dry run captures it), or remove it
 * (NULL). 0, or -1 with errno.
 */
int	sandbox_setenv(const char *value);

/*
 * 1 when this process runs inside another arcturn's sandbox, with that
 * one's ARCTURN_SANDBOX in mode: the variable must be set and the kernel
 * must agree (Linux: no_new_privs, which every arcturn backend sets and
 * nothing undoes). 0 elsewhere, and on macOS and Windows, which cannot
 * tell.
 */
int	sandbox_nested(char *mode, size_t len);

/*
 * `arcturn sandbox unstamp [PATH]`: on Windows, give each writable root
 * stamped Low by earlier runs (only PATH when given) its previous label
 * back, from the journal in p->state. Returns how many it restored, with
 * a one-line summary in err, or -1 with errno and one line in err. Elsewhere nothing is ever
 * stamped: -1 with errno ENOTSUP.
 */
int	sandbox_unstamp(const struct policy *p, const char *path, char *err,
	    size_t errlen);

/*
 * For the backends (sandbox.c): the rules every platform shares.
 *
 * Each platform file defines sandbox_platform. names lists the backends
 * ARCTURN_BACKEND may name, "none" last, NULL-terminated. pick is called
 * with ch->forced set and ch->backend the named one (never none), to
 * demote it to none (appending ", but ..." to ch->why) when this machine
 * cannot run it; or with ch->forced clear, to set ch->backend to the
 * first one this machine can run (none when there is none) and say why.
 * A platform with one backend besides none (macOS, Windows) leaves pick
 * NULL and says in usable whether that one can run here: 1 with why it
 * is chosen, else 0 with what is missing; sandbox_decide picks from that.
 * run is sandbox_run for every verdict but SANDBOX_BAD: it fills *end
 * only when it waited for the command (sandbox_start has set it to "never
 * started" and makes end->status its status then). label, when not
 * NULL, names a confining choice as sandbox_label says it (the Linux
 * helper with or without its mount layer); NULL: the backend's name.
 * nested, when not NULL, is sandbox_nested; NULL: this platform cannot
 * tell (0).
 *
 * sandbox_choose and sandbox_run are sandbox_decide and sandbox_start on
 * this platform's sandbox_platform (a test may hand in another).
 *
 * sandbox_report_start zeroes r and fills the backend's name and reason
 * from ch; when ch does not confine, every guarantee reads "nothing
 * confines the command". sandbox_fact and sandbox_guarantee add to a
 * report (a fact is dropped when the report is full); key must be static.
 * sandbox_claims adds a backend's fixed guarantees from a table.
 */
struct sandbox_platform {
	const char *const *names;
	void	(*pick)(const struct policy *, struct sandbox_choice *);
	int	(*usable)(char *why, size_t len);
	int	(*run)(const struct policy *, const struct sandbox_choice *,
		    char **, struct sandbox_end *, char *, size_t);
	const char *(*label)(const struct sandbox_choice *);
	int	(*nested)(char *mode, size_t len);
};

struct sandbox_claim {
	enum sandbox_key key;
	int		 holds;
	const char	*why;
};

extern const struct sandbox_platform sandbox_platform;

void	sandbox_decide(const struct policy *p,
	    const struct sandbox_platform *pf, struct sandbox_choice *ch);
int	sandbox_start(const struct sandbox_platform *pf,
	    const struct policy *p, const struct sandbox_choice *ch,
	    char **argv, struct sandbox_end *end, char *err, size_t errlen);
void	sandbox_report_start(struct sandbox_report *r, const struct policy *p,
	    const struct sandbox_choice *ch);
void	sandbox_fact(struct sandbox_report *, const char *key,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/*
 * The last fact's JSON form (sandbox_fact_as), or a fact that only the
 * JSON report has (sandbox_fact_json: no text).
 */
void	sandbox_fact_as(struct sandbox_report *, enum sandbox_ftype, long num,
	    const char *word);
void	sandbox_fact_json(struct sandbox_report *, const char *key,
	    enum sandbox_ftype, long num, const char *word);
void	sandbox_guarantee(struct sandbox_report *, enum sandbox_key,
	    int holds, const char *fmt, ...)
	    __attribute__((format(printf, 4, 5)));
void	sandbox_claims(struct sandbox_report *, const struct sandbox_claim *,
	    size_t n);

#endif
