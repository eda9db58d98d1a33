/*
 * Runs under Wine (built by `make wine-tests`): every argv vector of
 * quote_cases.h, quoted by winquote_cmdline and converted to UTF-16,
 * split again by the real CommandLineToArgvW, comes back unchanged. Then
 * the first QC_SPAWN vectors go through CreateProcessW to a child (this
 * program again, with ARCTURN_QC_CHILD set), whose C runtime splits the
 * line and prints its wide argv back, hex-encoded: the same answer.
 * Prints TAP.
 */
#include <windows.h>
#include <shellapi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "lib/mem.h"
#include "quote_cases.h"
#include "sandbox/winquote.h"

#define QC_SPAWN	150

static int ntest, nfail;

static void
tap(int ok, const char *name)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++ntest, name);
	nfail += !ok;
	fflush(stdout);
}

static wchar_t *
wide(const char *s)
{
	wchar_t *w;
	int n;

	n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	if (n <= 0)
		return NULL;
	w = calloc((size_t)n, sizeof *w);
	if (w != NULL)
		MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
	return w;
}

/* Child: print each argument as hex of its UTF-16 units, one a line. */
static int
child(int argc, wchar_t **argv)
{
	int i;
	wchar_t *p;

	for (i = 0; i < argc; i++) {
		for (p = argv[i]; *p != L'\0'; p++)
			printf("%04x", (unsigned)*p);
		printf("\n");
	}
	return 0;
}

static void
hexline(const wchar_t *w, char *out, size_t len)
{
	size_t k = 0;

	for (; *w != L'\0' && k + 5 < len; w++)
		k += (size_t)snprintf(out + k, len - k, "%04x", (unsigned)*w);
	out[k] = '\0';
}

/* Spawn self with line; compare what the child prints with want. */
static int
spawn_check(const wchar_t *self, const char *line, struct qc_case *c)
{
	SECURITY_ATTRIBUTES sa = { sizeof sa, NULL, TRUE };
	PROCESS_INFORMATION pi;
	STARTUPINFOW si;
	HANDLE rd, wr;
	static char out[65536], want[8192];
	wchar_t *wl, *wa;
	DWORD got, total = 0;
	char *p, *nl;
	int k, ok = 1;

	if (!CreatePipe(&rd, &wr, &sa, 0)) {
		fprintf(stderr, "# CreatePipe failed (%lu)\n",
		    (unsigned long)GetLastError());
		return 0;
	}
	SetHandleInformation(rd, HANDLE_FLAG_INHERIT, 0);
	memset(&si, 0, sizeof si);
	si.cb = sizeof si;
	si.dwFlags = STARTF_USESTDHANDLES;
	si.hStdOutput = wr;
	si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
	si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
	wl = wide(line);
	/*
	 * Wine's process creation fails now and then on a loaded machine
	 * (a fresh prefix, a busy wineserver): retry before calling it a
	 * quoting failure, and say why when it stays refused.
	 */
	for (k = 0; wl != NULL && k < 5; k++) {
		if (CreateProcessW(self, wl, NULL, NULL, TRUE, 0, NULL, NULL,
		    &si, &pi))
			break;
		Sleep(200);
	}
	if (wl == NULL || k == 5) {
		fprintf(stderr, "# CreateProcessW failed (%lu) for line [%s]\n",
		    (unsigned long)GetLastError(), line);
		free(wl);
		CloseHandle(rd);
		CloseHandle(wr);
		return 0;
	}
	free(wl);
	CloseHandle(wr);
	while (total < sizeof out - 1 && ReadFile(rd, out + total,
	    sizeof out - 1 - total, &got, NULL) && got > 0)
		total += got;
	out[total] = '\0';
	CloseHandle(rd);
	WaitForSingleObject(pi.hProcess, INFINITE);
	CloseHandle(pi.hProcess);
	CloseHandle(pi.hThread);
	p = out;
	for (k = 0; k < c->argc && ok; k++) {
		if ((nl = strchr(p, '\n')) == NULL) {
			ok = 0;
			break;
		}
		*nl = '\0';
		if (nl > p && nl[-1] == '\r')
			nl[-1] = '\0';
		wa = wide(c->argv[k]);
		hexline(wa, want, sizeof want);
		free(wa);
		/* argv[0] as the C runtime reports it is the program's own
		 * name for some runtimes: compare the arguments after it. */
		if (k > 0 && strcmp(p, want) != 0)
			ok = 0;
		p = nl + 1;
	}
	if (ok && *p != '\0')
		ok = 0;		/* more arguments than sent */
	if (!ok)
		fprintf(stderr, "# spawn mismatch for line [%s]\n", line);
	return ok;
}

int
wmain(int argc, wchar_t **argv)
{
	static struct qc_case c;
	wchar_t self[MAX_PATH], **got, *w;
	char *line, name[128];
	size_t i;
	int n, k, ok, bad = 0, spawned_bad = 0, skipped = 0, batch_ok;

	if (GetEnvironmentVariableW(L"ARCTURN_QC_CHILD", NULL, 0) > 0)
		return child(argc, argv);
	GetModuleFileNameW(NULL, self, MAX_PATH);

	for (i = 0; i < QC_TOTAL; i++) {
		qc_get(i, &c);
		ok = winquote_cmdline(c.argv, &line) == 0;
		if (ok && (w = wide(line)) != NULL) {
			got = CommandLineToArgvW(w, &n);
			ok = got != NULL && n == c.argc;
			for (k = 0; ok && k < n; k++) {
				wchar_t *want = wide(c.argv[k]);

				ok = want != NULL && wcscmp(want, got[k]) == 0;
				free(want);
			}
			if (got != NULL)
				LocalFree(got);
			free(w);
		} else
			ok = 0;
		if (!ok && bad++ < 5)
			fprintf(stderr, "# CommandLineToArgvW mismatch, case %zu: [%s]\n",
			    i, ok ? "" : line);
		if (i < QC_NFIXED) {
			snprintf(name, sizeof name, "CommandLineToArgvW: fixed case %zu", i);
			tap(ok, name);
		}
		mem_free(line);
	}
	snprintf(name, sizeof name, "CommandLineToArgvW: %d generated vectors "
	    "round-trip", QC_RANDOM);
	tap(bad == 0, name);

	SetEnvironmentVariableW(L"ARCTURN_QC_CHILD", L"1");
	for (i = 0; i < QC_SPAWN; i++) {
		qc_get(i, &c);
		/*
		 * Wine's msvcrt applies the backslash rules to argv[0] too, so
		 * an argv[0] ending in a backslash shifts everything after it;
		 * CommandLineToArgvW (checked above) and the UCRT take argv[0]
		 * literally, and a program's file name never ends in one.
		 */
		n = (int)strlen(c.argv[0]);
		if (n > 0 && c.argv[0][n - 1] == '\\') {
			skipped++;
			continue;
		}
		if (winquote_cmdline(c.argv, &line) != 0) {
			spawned_bad++;
			continue;
		}
		if (!spawn_check(self, line, &c))
			spawned_bad++;
		mem_free(line);
	}
	SetEnvironmentVariableW(L"ARCTURN_QC_CHILD", NULL);
	snprintf(name, sizeof name, "CreateProcessW + C runtime: %d vectors "
	    "arrive unchanged (%d with argv[0] ending in a backslash left out)",
	    QC_SPAWN - skipped, skipped);
	tap(spawned_bad == 0, name);

	batch_ok = winquote_is_batch("C:\\x\\build.BAT") &&
	    winquote_is_batch("run.cmd. ") && !winquote_is_batch("C:\\x\\tool.exe");
	tap(batch_ok, "batch targets recognised");
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}
