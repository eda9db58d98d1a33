/*
 * err.h for mingw-w64, which has none: the BSD functions arcturn's
 * front ends use, printing `arcturn: ...` to stderr as on Linux and macOS.
 */
#ifndef ARCTURN_COMPAT_ERR_H
#define ARCTURN_COMPAT_ERR_H

#include <stdarg.h>

void	err(int, const char *, ...) __attribute__((noreturn, format(printf, 2, 3)));
void	errx(int, const char *, ...) __attribute__((noreturn, format(printf, 2, 3)));
void	warn(const char *, ...) __attribute__((format(printf, 1, 2)));
void	warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
void	vwarn(const char *, va_list);
void	vwarnx(const char *, va_list);

#endif
