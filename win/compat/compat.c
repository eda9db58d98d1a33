/* The shims declared in compat.h and err.h, for the Windows build. */
#include <windows.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "pwd.h"

/* The real functions, not the macros compat.h puts over them. */
#undef stat
#undef lstat
#undef open
#undef getenv

static void
vmsg(int witherr, int e, const char *fmt, va_list ap)
{
	fputs("arcturn: ", stderr);
	if (fmt != NULL)
		vfprintf(stderr, fmt, ap);
	if (witherr)
		fprintf(stderr, "%s%s", fmt != NULL ? ": " : "", strerror(e));
	fputc('\n', stderr);
}

void
vwarn(const char *fmt, va_list ap)
{
	vmsg(1, errno, fmt, ap);
}

void
vwarnx(const char *fmt, va_list ap)
{
	vmsg(0, 0, fmt, ap);
}

void
warn(const char *fmt, ...)
{
	va_list ap;
	int e = errno;

	va_start(ap, fmt);
	vmsg(1, e, fmt, ap);
	va_end(ap);
}

void
warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(0, 0, fmt, ap);
	va_end(ap);
}

void
err(int status, const char *fmt, ...)
{
	va_list ap;
	int e = errno;

	va_start(ap, fmt);
	vmsg(1, e, fmt, ap);
	va_end(ap);
	exit(status);
}

void
errx(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(0, 0, fmt, ap);
	va_end(ap);
	exit(status);
}

struct passwd *
getpwuid(int uid)
{
	errno = ENOENT;
	return NULL;
}

int
getuid(void)
{
	return 0;
}

wchar_t *
compat_wide(const char *s)
{
	wchar_t *w;
	int n;

	n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	if (n <= 0) {
		errno = EILSEQ;
		return NULL;
	}
	if ((w = malloc((size_t)n * sizeof *w)) == NULL)
		return NULL;
	MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
	return w;
}

char *
compat_utf8(const wchar_t *w)
{
	char *s;
	int n;

	n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
	if (n <= 0) {
		errno = EILSEQ;
		return NULL;
	}
	if ((s = malloc((size_t)n)) == NULL)
		return NULL;
	WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
	return s;
}

static int
letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int
compat_winpath(const char *p, char *out, size_t len)
{
	size_t i, k = 0;

	if (p[0] == '/' && letter(p[1]) && p[2] == ':')
		p++;				/* /C:/x */
	else if (p[0] == '/' && letter(p[1]) && (p[2] == '/' || p[2] == '\0')) {
		if (len < 3) {			/* /c/x, the MSYS spelling */
			errno = ENAMETOOLONG;
			return -1;
		}
		out[k++] = (char)(p[1] & ~0x20);
		out[k++] = ':';
		p += 2;
		if (*p == '\0' && k < len)
			out[k++] = '\\';
	}
	for (i = 0; p[i] != '\0'; i++) {
		if (k + 1 >= len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		out[k++] = p[i] == '/' ? '\\' : p[i];
	}
	out[k] = '\0';
	return 0;
}

int
compat_posixpath(const char *p, char *out, size_t len)
{
	size_t i, k = 0;

	if (letter(p[0]) && p[1] == ':')
		out[k++] = '/';
	for (i = 0; p[i] != '\0'; i++) {
		if (k + 1 >= len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		out[k++] = p[i] == '\\' ? '/' : p[i];
	}
	/* "/C:" alone names the drive's root: "/C:/" */
	if (k == 3 && out[0] == '/' && out[2] == ':' && k + 1 < len)
		out[k++] = '/';
	out[k] = '\0';
	return 0;
}

static int
errno_of(DWORD e)
{
	switch (e) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_NAME:
	case ERROR_BAD_NETPATH:
		return ENOENT;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
		return EACCES;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return ENOMEM;
	default:
		return EIO;
	}
}

char *
realpath(const char *path, char *resolved)
{
	char win[MAX_PATH * 4], *u, *p;
	wchar_t *w, full[32768];
	HANDLE h;
	DWORD n;

	if (compat_winpath(path, win, sizeof win) == -1)
		return NULL;
	if ((w = compat_wide(win)) == NULL)
		return NULL;
	h = CreateFileW(w, FILE_READ_ATTRIBUTES, FILE_SHARE_READ |
	    FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
	    FILE_FLAG_BACKUP_SEMANTICS, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		errno = errno_of(GetLastError());
		return NULL;
	}
	n = GetFinalPathNameByHandleW(h, full, 32768, FILE_NAME_NORMALIZED |
	    VOLUME_NAME_DOS);
	CloseHandle(h);
	if (n == 0 || n >= 32768) {
		errno = n == 0 ? errno_of(GetLastError()) : ENAMETOOLONG;
		return NULL;
	}
	if ((u = compat_utf8(full)) == NULL)
		return NULL;
	p = u;
	if (strncmp(p, "\\\\?\\UNC\\", 8) == 0) {
		p += 6;
		p[0] = '\\';
	} else if (strncmp(p, "\\\\?\\", 4) == 0)
		p += 4;
	if (resolved == NULL)
		resolved = malloc(PATH_MAX);
	if (resolved == NULL || compat_posixpath(p, resolved, PATH_MAX) == -1) {
		free(u);
		return NULL;
	}
	free(u);
	return resolved;
}

int
compat_stat(const char *path, struct stat *st)
{
	char win[PATH_MAX];

	if (compat_winpath(path, win, sizeof win) == -1)
		return -1;
	return stat(win, st);
}

int
compat_open(const char *path, int flags, ...)
{
	char win[PATH_MAX];
	va_list ap;
	int mode = 0;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, int);
		va_end(ap);
	}
	if (compat_winpath(path, win, sizeof win) == -1)
		return -1;
	return open(win, flags | O_BINARY, mode);
}

char *
compat_getenv(const char *name)
{
	static char home[PATH_MAX], tmp[PATH_MAX];
	const char *v;

	if ((v = getenv(name)) != NULL && *v != '\0') {
		if (strcmp(name, "HOME") == 0 && letter(v[0]) && v[1] == ':')
			return compat_posixpath(v, home, sizeof home) == 0 ?
			    home : NULL;
		if (strcmp(name, "TMPDIR") == 0 && letter(v[0]) && v[1] == ':')
			return compat_posixpath(v, tmp, sizeof tmp) == 0 ?
			    tmp : NULL;
		return (char *)v;
	}
	if (strcmp(name, "HOME") == 0 && (v = getenv("USERPROFILE")) != NULL)
		return compat_posixpath(v, home, sizeof home) == 0 ? home : NULL;
	if (strcmp(name, "TMPDIR") == 0 && (v = getenv("TEMP")) != NULL)
		return compat_posixpath(v, tmp, sizeof tmp) == 0 ? tmp : NULL;
	return NULL;
}

/*
 * lib/os.h's os_open_nolinks, which path.c asks before realpath: Windows
 * cannot say in one call, so realpath answers (ENOSYS).
 */
int
os_open_nolinks(const char *path)
{
	(void)path;
	errno = ENOSYS;
	return -1;
}
