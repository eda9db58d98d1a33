/*
 * sandbox_win: the Windows backend behind sandbox.h (Low integrity).
 *
 * The command runs with a copy of the user's token lowered to the Low
 * mandatory level: it reads and runs what it could before, but may write
 * only to objects labelled Low (no-write-up). Each writable root is
 * stamped with the inheritable Low label first, its previous label
 * journalled (labeljournal.c) in <state>/labels.journal; `arcturn sandbox
 * unstamp` restores them. The temp dir is <state>/tmp, stamped and passed
 * as TEMP and TMP; the user's own %TEMP% is never stamped, nor is the
 * state dir itself, which holds the journal. A job object kills the
 * command's whole process tree when arcturn goes away.
 *
 * Costs, stated in README: labels persist until unstamped, so any Low
 * process of the same user may write there meanwhile, and a program stored
 * beneath a stamped root runs at Low when started from there.
 *
 * Never run on a real Windows machine: the quoting is checked under Wine,
 * the journal with the OS calls faked (tests/unit/labeljournal_test.c).
 */
#include <windows.h>
#include <aclapi.h>
#include <sddl.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/exitcode.h"
#include "lib/mem.h"
#include "lib/path.h"
#include "policy/roots.h"
#include "sandbox/labeljournal.h"
#include "sandbox/sandbox.h"
#include "sandbox/winquote.h"

#undef getenv
#undef open
#undef stat

#define NEVER_RUN	"never run on a real Windows machine: argv quoting " \
	"is tested under Wine, the label journal with the OS calls faked"

static const char *const names[] = { "low-integrity", "none", NULL };

/* Every Windows since Vista has integrity levels: nothing to probe. */
static int
usable(char *why, size_t len)
{
	snprintf(why, len, "Windows: Low integrity level, writable roots "
	    "stamped Low");
	return 1;
}

static void
winerr(char *err, size_t errlen, const char *what, const char *path)
{
	DWORD e = GetLastError();
	char msg[160];
	size_t n;

	if (FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM |
	    FORMAT_MESSAGE_IGNORE_INSERTS, NULL, e, 0, msg, sizeof msg,
	    NULL) == 0)
		snprintf(msg, sizeof msg, "error %lu", (unsigned long)e);
	n = strlen(msg);
	while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r' ||
	    msg[n - 1] == '.'))
		msg[--n] = '\0';
	if (path != NULL)
		snprintf(err, errlen, "%s: %s: %s", what, path, msg);
	else
		snprintf(err, errlen, "%s: %s", what, msg);
}

static int
errno_of(DWORD e)
{
	switch (e) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
		return ENOENT;
	case ERROR_ACCESS_DENIED:
		return EACCES;
	case ERROR_NOT_ENOUGH_MEMORY:
		return ENOMEM;
	default:
		return EIO;
	}
}

/* The label journal's OS calls (labeljournal.h); paths are "C:\..." */

static int
w_get_label(const char *path, char **sddl, void *arg)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	PACL sacl = NULL;
	LPWSTR str = NULL;
	wchar_t *w;
	char *u;
	DWORD e;

	if ((w = compat_wide(path)) == NULL)
		return -1;
	e = GetNamedSecurityInfoW(w, SE_FILE_OBJECT, LABEL_SECURITY_INFORMATION,
	    NULL, NULL, NULL, &sacl, &sd);
	free(w);
	if (e != ERROR_SUCCESS) {
		errno = errno_of(e);
		return -1;
	}
	if (!ConvertSecurityDescriptorToStringSecurityDescriptorW(sd,
	    SDDL_REVISION_1, LABEL_SECURITY_INFORMATION, &str, NULL)) {
		errno = errno_of(GetLastError());
		LocalFree(sd);
		return -1;
	}
	LocalFree(sd);
	u = compat_utf8(str);
	LocalFree(str);
	if (u == NULL)
		return -1;
	*sddl = mem_strdup(u);
	free(u);
	return *sddl == NULL ? -1 : 0;
}

static int
w_set_label(const char *path, const char *sddl, void *arg)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	PACL sacl = NULL;
	BOOL present = FALSE, dflt = FALSE;
	wchar_t *w, *ws;
	DWORD e;

	if ((ws = compat_wide(*sddl != '\0' ? sddl : "S:")) == NULL)
		return -1;
	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(ws,
	    SDDL_REVISION_1, &sd, NULL)) {
		e = GetLastError();
		free(ws);
		errno = errno_of(e);
		return -1;
	}
	free(ws);
	GetSecurityDescriptorSacl(sd, &present, &sacl, &dflt);
	if ((w = compat_wide(path)) == NULL) {
		LocalFree(sd);
		return -1;
	}
	/* SetNamedSecurityInfo also carries the label down to the children
	 * that inherit it: the first stamp of a large tree takes a while. */
	e = SetNamedSecurityInfoW(w, SE_FILE_OBJECT, LABEL_SECURITY_INFORMATION,
	    NULL, NULL, NULL, sacl);
	free(w);
	LocalFree(sd);
	if (e != ERROR_SUCCESS) {
		errno = errno_of(e);
		return -1;
	}
	return 0;
}

static int
w_read(const char *file, char **buf, size_t *len, void *arg)
{
	LARGE_INTEGER sz;
	HANDLE h;
	wchar_t *w;
	DWORD got;

	if ((w = compat_wide(file)) == NULL)
		return -1;
	h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING,
	    FILE_ATTRIBUTE_NORMAL, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		errno = errno_of(GetLastError());
		return -1;
	}
	if (!GetFileSizeEx(h, &sz) || sz.QuadPart > (1 << 24)) {
		CloseHandle(h);
		errno = EFBIG;
		return -1;
	}
	if ((*buf = mem_alloc((size_t)sz.QuadPart + 1)) == NULL) {
		CloseHandle(h);
		return -1;
	}
	if (!ReadFile(h, *buf, (DWORD)sz.QuadPart, &got, NULL) ||
	    got != (DWORD)sz.QuadPart) {
		CloseHandle(h);
		mem_free(*buf);
		errno = EIO;
		return -1;
	}
	CloseHandle(h);
	(*buf)[got] = '\0';
	*len = got;
	return 0;
}

static int
w_write(const char *file, const char *buf, size_t len, void *arg)
{
	char tmp[4096];
	wchar_t *w, *wt;
	HANDLE h;
	DWORD put;
	int ok;

	snprintf(tmp, sizeof tmp, "%s.tmp", file);
	if ((w = compat_wide(file)) == NULL)
		return -1;
	if ((wt = compat_wide(tmp)) == NULL) {
		free(w);
		return -1;
	}
	h = CreateFileW(wt, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
	    FILE_ATTRIBUTE_NORMAL, NULL);
	ok = h != INVALID_HANDLE_VALUE;
	if (ok) {
		ok = WriteFile(h, buf, (DWORD)len, &put, NULL) && put == len &&
		    FlushFileBuffers(h);
		CloseHandle(h);
	}
	ok = ok && MoveFileExW(wt, w, MOVEFILE_REPLACE_EXISTING |
	    MOVEFILE_WRITE_THROUGH);
	if (!ok) {
		errno = errno_of(GetLastError());
		DeleteFileW(wt);
	}
	free(w);
	free(wt);
	return ok ? 0 : -1;
}

static HANDLE lockh = INVALID_HANDLE_VALUE;

static int
w_lock(const char *file, void *arg)
{
	char lk[4096];
	wchar_t *w;
	int i;

	snprintf(lk, sizeof lk, "%s.lock", file);
	if ((w = compat_wide(lk)) == NULL)
		return -1;
	for (i = 0; i < 600; i++) {
		lockh = CreateFileW(w, GENERIC_WRITE, 0, NULL, OPEN_ALWAYS,
		    FILE_ATTRIBUTE_NORMAL, NULL);
		if (lockh != INVALID_HANDLE_VALUE ||
		    GetLastError() != ERROR_SHARING_VIOLATION)
			break;
		Sleep(50);
	}
	free(w);
	if (lockh == INVALID_HANDLE_VALUE) {
		errno = errno_of(GetLastError());
		return -1;
	}
	return 0;
}

static void
w_unlock(void *arg)
{
	if (lockh != INVALID_HANDLE_VALUE)
		CloseHandle(lockh);
	lockh = INVALID_HANDLE_VALUE;
}

static const struct labeljournal_ops win_ops = {
	w_get_label, w_set_label, w_read, w_write, w_lock, w_unlock, NULL
};

/* <state>\name in Windows spelling. */
static int
state_path(const struct policy *p, const char *name, char *out, size_t len)
{
	char s[4096];

	if (compat_winpath(p->state, s, sizeof s) == -1)
		return -1;
	if ((size_t)snprintf(out, len, "%s%s%s", s, *name ? "\\" : "",
	    name) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

static int
make_dir(const char *path, char *err, size_t errlen)
{
	wchar_t *w;
	BOOL ok;

	if ((w = compat_wide(path)) == NULL) {
		snprintf(err, errlen, "mkdir: %s: %s", path, strerror(errno));
		return -1;
	}
	ok = CreateDirectoryW(w, NULL) || GetLastError() == ERROR_ALREADY_EXISTS;
	free(w);
	if (!ok) {
		winerr(err, errlen, "mkdir", path);
		return -1;
	}
	return 0;
}

/*
 * Stamp every writable root (roots.h) Low. The temp dir is <state>/tmp,
 * returned in tmp: the user's own %TEMP% is never stamped, nor is the
 * state dir, which holds the journal.
 */
static int
stamp_roots(const struct policy *p, char *tmp, size_t tmplen, char *err,
    size_t errlen)
{
	char journal[4096], w[4096];
	struct policy q = *p;
	struct roots r;
	size_t i;
	int rc = 0;

	if (state_path(p, "", w, sizeof w) == -1 ||
	    state_path(p, "labels.journal", journal, sizeof journal) == -1 ||
	    state_path(p, "tmp", tmp, tmplen) == -1) {
		snprintf(err, errlen, "state dir: %s: %s", p->state,
		    strerror(errno));
		return -1;
	}
	if (make_dir(w, err, errlen) == -1 || make_dir(tmp, err, errlen) == -1)
		return -1;
	if ((q.tmpdir = path_join(p->state, "tmp")) == NULL) {
		snprintf(err, errlen, "exec: %s", strerror(errno));
		return -1;
	}
	if (roots_build(&q, ROOTS_NOSTATE | ROOTS_GIT, NULL, &r) == -1) {
		snprintf(err, errlen, "%s", r.why);
		mem_free(q.tmpdir);
		return -1;
	}
	for (i = 0; i < r.w.n && rc == 0; i++) {
		if (compat_winpath(r.w.v[i], w, sizeof w) == -1) {
			snprintf(err, errlen, "stamp: %s: %s", r.w.v[i],
			    strerror(errno));
			rc = -1;
		} else
			rc = labeljournal_stamp(journal, w, &win_ops, err,
			    errlen);
	}
	roots_free(&r);
	mem_free(q.tmpdir);
	return rc;
}

/* A primary token like ours, at Low integrity. */
static HANDLE
low_token(char *err, size_t errlen)
{
	SID_IDENTIFIER_AUTHORITY ml = { SECURITY_MANDATORY_LABEL_AUTHORITY };
	TOKEN_MANDATORY_LABEL tml;
	HANDLE self = NULL, tok = NULL;
	PSID low = NULL;

	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_DUPLICATE |
	    TOKEN_QUERY | TOKEN_ADJUST_DEFAULT | TOKEN_ASSIGN_PRIMARY, &self)) {
		winerr(err, errlen, "OpenProcessToken", NULL);
		return NULL;
	}
	if (!DuplicateTokenEx(self, 0, NULL, SecurityImpersonation,
	    TokenPrimary, &tok)) {
		winerr(err, errlen, "DuplicateTokenEx", NULL);
		CloseHandle(self);
		return NULL;
	}
	CloseHandle(self);
	if (!AllocateAndInitializeSid(&ml, 1, SECURITY_MANDATORY_LOW_RID,
	    0, 0, 0, 0, 0, 0, 0, &low)) {
		winerr(err, errlen, "AllocateAndInitializeSid", NULL);
		CloseHandle(tok);
		return NULL;
	}
	memset(&tml, 0, sizeof tml);
	tml.Label.Attributes = SE_GROUP_INTEGRITY;
	tml.Label.Sid = low;
	if (!SetTokenInformation(tok, TokenIntegrityLevel, &tml,
	    sizeof tml + GetLengthSid(low))) {
		winerr(err, errlen, "SetTokenInformation(Low)", NULL);
		FreeSid(low);
		CloseHandle(tok);
		return NULL;
	}
	FreeSid(low);
	return tok;
}

/* Our environment with TEMP and TMP replaced by tmp (NULL: unchanged). */
static wchar_t *
env_block(const char *tmp)
{
	wchar_t *env, *e, *out, *o, *wt;
	size_t len = 0, tl;

	if (tmp == NULL)
		return NULL;
	if ((wt = compat_wide(tmp)) == NULL)
		return NULL;
	tl = wcslen(wt);
	if ((env = GetEnvironmentStringsW()) == NULL) {
		free(wt);
		return NULL;
	}
	for (e = env; *e != L'\0'; e += wcslen(e) + 1)
		len += wcslen(e) + 1;
	if ((out = malloc((len + 2 * (tl + 6) + 1) * sizeof *out)) == NULL) {
		FreeEnvironmentStringsW(env);
		free(wt);
		return NULL;
	}
	o = out;
	for (e = env; *e != L'\0'; e += wcslen(e) + 1) {
		if (_wcsnicmp(e, L"TEMP=", 5) == 0 || _wcsnicmp(e, L"TMP=", 4) == 0)
			continue;
		wcscpy(o, e);
		o += wcslen(e) + 1;
	}
	/* Windows wants the block sorted; CreateProcess tolerates these
	 * two at the end, and the child's lookups are by name. */
	swprintf(o, tl + 6, L"TEMP=%ls", wt);
	o += wcslen(o) + 1;
	swprintf(o, tl + 5, L"TMP=%ls", wt);
	o += wcslen(o) + 1;
	*o = L'\0';
	FreeEnvironmentStringsW(env);
	free(wt);
	return out;
}

/*
 * Start app with the command line under token (NULL: our own), in a job
 * that dies with us, wait, and return its exit code (in *end too).
 */
static int
run(HANDLE token, const wchar_t *app, wchar_t *line, wchar_t *env,
    struct sandbox_end *end, char *err, size_t errlen)
{
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION lim;
	PROCESS_INFORMATION pi;
	STARTUPINFOW si;
	HANDLE job;
	DWORD code, flags = CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT;
	BOOL ok;

	if ((job = CreateJobObjectW(NULL, NULL)) == NULL) {
		winerr(err, errlen, "CreateJobObject", NULL);
		return EXIT_OWN;
	}
	memset(&lim, 0, sizeof lim);
	lim.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
	SetInformationJobObject(job, JobObjectExtendedLimitInformation, &lim,
	    sizeof lim);
	memset(&si, 0, sizeof si);
	si.cb = sizeof si;
	if (token != NULL)
		ok = CreateProcessAsUserW(token, app, line, NULL, NULL, TRUE,
		    flags, env, NULL, &si, &pi);
	else
		ok = CreateProcessW(app, line, NULL, NULL, TRUE, flags, env,
		    NULL, &si, &pi);
	if (!ok) {
		winerr(err, errlen, token != NULL ? "CreateProcessAsUser" :
		    "CreateProcess", NULL);
		CloseHandle(job);
		return EXIT_NOEXEC;
	}
	if (!AssignProcessToJobObject(job, pi.hProcess)) {
		/* Without the job the tree could outlive us: refuse. */
		winerr(err, errlen, "AssignProcessToJobObject", NULL);
		TerminateProcess(pi.hProcess, EXIT_OWN);
		CloseHandle(pi.hThread);
		CloseHandle(pi.hProcess);
		CloseHandle(job);
		return EXIT_OWN;
	}
	ResumeThread(pi.hThread);
	CloseHandle(pi.hThread);
	WaitForSingleObject(pi.hProcess, INFINITE);
	if (!GetExitCodeProcess(pi.hProcess, &code))
		code = EXIT_OWN;
	CloseHandle(pi.hProcess);
	CloseHandle(job);
	/* Not a failure: nothing for the caller to print. */
	if (errlen > 0)
		err[0] = '\0';
	end->ran = 1;
	end->status = (int)code;
	end->sig = 0;
	return (int)code;
}

static int
exec_with(const struct policy *p, char **cmd, int confine,
    struct sandbox_end *end, char *err, size_t errlen)
{
	wchar_t app[32768], *w0, *line = NULL, *env = NULL;
	char tmp[4096], *u, *cl;
	HANDLE tok = NULL;
	DWORD n;
	int rc;

	if ((w0 = compat_wide(cmd[0])) == NULL) {
		snprintf(err, errlen, "%s: %s", cmd[0], strerror(errno));
		return EXIT_OWN;
	}
	n = SearchPathW(NULL, w0, L".exe", 32768, app, NULL);
	free(w0);
	if (n == 0 || n >= 32768) {
		snprintf(err, errlen, "%s: command not found", cmd[0]);
		return EXIT_NOTFOUND;
	}
	if ((u = compat_utf8(app)) != NULL && winquote_is_batch(u)) {
		snprintf(err, errlen, "%s: batch files (.bat, .cmd) are refused: "
		    "cmd.exe parses their arguments again, by rules no quoting "
		    "makes safe; run `cmd /c` yourself if you mean it", u);
		free(u);
		return EXIT_NOEXEC;
	}
	free(u);
	if (winquote_cmdline(cmd, &cl) == -1) {
		snprintf(err, errlen, "%s: %s", cmd[0], errno == EINVAL ?
		    "a program name cannot hold a double quote" :
		    strerror(errno));
		return EXIT_OWN;
	}
	line = compat_wide(cl);
	mem_free(cl);
	if (line == NULL) {
		snprintf(err, errlen, "exec: %s", strerror(errno));
		return EXIT_OWN;
	}
	rc = EXIT_OWN;
	if (confine) {
		if (stamp_roots(p, tmp, sizeof tmp, err, errlen) == -1)
			goto out;
		if ((env = env_block(tmp)) == NULL) {
			snprintf(err, errlen, "exec: environment: %s",
			    strerror(errno));
			goto out;
		}
		if ((tok = low_token(err, errlen)) == NULL)
			goto out;
	}
	rc = run(tok, app, line, env, end, err, errlen);
out:
	if (tok != NULL)
		CloseHandle(tok);
	free(env);
	free(line);
	return rc;
}

static int
backend_run(const struct policy *p, const struct sandbox_choice *ch,
    char **cmd, struct sandbox_end *end, char *err, size_t errlen)
{
	return exec_with(p, cmd, ch->verdict == SANDBOX_CONFINE, end, err,
	    errlen);
}

/*
 * exec --dry-run: cmd_dryrun_win.c refuses it before it gets here, so
 * sandbox_overlay_available and sandbox_overlay_start/_go/_wait are not
 * built.
 */
const struct sandbox_platform sandbox_platform = {
	.names = names,
	.usable = usable,
	.run = backend_run,
};

int
sandbox_unstamp(const struct policy *p, const char *path, char *err,
    size_t errlen)
{
	char journal[4096], win[4096], *real;
	size_t n;
	int rc, e;

	if (state_path(p, "labels.journal", journal, sizeof journal) == -1) {
		snprintf(err, errlen, "state dir: %s: %s", p->state,
		    strerror(errno));
		return -1;
	}
	if (path != NULL) {
		rc = (real = path_realpath(path, NULL)) == NULL ? -1 :
		    compat_winpath(real, win, sizeof win);
		e = errno;
		mem_free(real);
		if (rc == -1) {
			snprintf(err, errlen, "unstamp: %s: %s", path,
			    strerror(e));
			return -1;
		}
	}
	if (labeljournal_unstamp(journal, path != NULL ? win : NULL, &win_ops,
	    &n, err, errlen) == -1)
		return -1;
	snprintf(err, errlen, "restored the label of %zu path(s)", n);
	return n > INT_MAX ? INT_MAX : (int)n;
}

/* The run waits here already. */
int
sandbox_run_wait(const struct policy *p, const struct sandbox_choice *ch,
    char **argv, struct sandbox_end *end, char *err, size_t errlen)
{
	return sandbox_run(p, ch, argv, end, err, errlen);
}

/* whether or not the command runs at Low */
static const struct sandbox_claim always[] = {
	{ SG_PROTECTED, 0, "not enforced: the Low label is inherited by the "
	    "whole root" },
	{ SG_NETWORK_OFF, 0, "not implemented on Windows" },
	{ SG_UNIX_SOCKETS, 0, "not assessed on Windows: AF_UNIX sockets of "
	    "other processes are not gated" },
	{ SG_ABSTRACT, 0, "not assessed on Windows" },
	{ SG_IPC, 0, "named pipes, shared sections and other IPC of this "
	    "user's processes are not isolated" },
	{ SG_LIFETIME, 0, "processes the command starts may outlive arcturn "
	    "(no job object)" },
	{ SG_LABELS, 0, "stamped labels stay until `arcturn sandbox "
	    "unstamp`: any Low process of this user may write there "
	    "meanwhile, and a program stored there runs at Low" },
	/* git, missing protected paths, the state dir */
	{ SG_GIT, 0, "no protected paths on Windows: git's hooks and config "
	    "in the workspace stay writable" },
	{ SG_MISSING, 0, "no protected paths on Windows" },
	{ SG_STATE, 1, "~\\.arcturn is not stamped: only its tmp folder is "
	    "writable" },
};

static const struct sandbox_claim low[] = {
	{ SG_WRITES, 1, "Low integrity: no write up to Medium objects ("
	    NEVER_RUN ")" },
	{ SG_METADATA, 1, "no-write-up covers attributes, ACLs and deletion" },
	{ SG_TRUNCATION, 1, "no-write-up refuses write access, truncation "
	    "included" },
	{ SG_DEVICES, 0, "not assessed on Windows" },
	{ SG_SIGNALS, 0, "not assessed on Windows" },
	{ SG_TIOCSTI, 0, "no TIOCSTI on Windows; input injection into a "
	    "shared console is not assessed" },
};

void
sandbox_probe(const struct policy *p, const struct sandbox_choice *ch,
    struct sandbox_report *r)
{
	char journal[4096];
	OSVERSIONINFOW v;
	long n = -1;

	sandbox_report_start(r, p, ch);
	memset(&v, 0, sizeof v);
	v.dwOSVersionInfoSize = sizeof v;
	if (GetVersionExW(&v))
		sandbox_fact(r, "os", "Windows %lu.%lu build %lu",
		    (unsigned long)v.dwMajorVersion,
		    (unsigned long)v.dwMinorVersion,
		    (unsigned long)v.dwBuildNumber);
	sandbox_fact(r, "verified", "%s", NEVER_RUN);
	if (state_path(p, "labels.journal", journal, sizeof journal) == 0)
		n = labeljournal_count(journal, &win_ops);
	if (n >= 0)
		sandbox_fact(r, "stamped", "%ld path(s) stamped Low until "
		    "`arcturn sandbox unstamp`", n);
	else
		sandbox_fact(r, "stamped", "label journal unreadable: %s",
		    strerror(errno));
	snprintf(r->dry_run_why, sizeof r->dry_run_why, "not available on "
	    "Windows yet (needs the POSIX overlay)");
	sandbox_claims(r, always, sizeof always / sizeof always[0]);
	if (ch->verdict == SANDBOX_CONFINE)
		sandbox_claims(r, low, sizeof low / sizeof low[0]);
}
