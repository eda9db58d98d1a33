/*
 * fmt.c: numbers and text without stdio (fmt.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "fmt.h"

/* Where the text goes: buf, and, when fd >= 0, fd each time buf fills. */
struct out {
	char	*buf;
	size_t	 len;		/* bytes of buf */
	size_t	 at;		/* bytes in buf */
	size_t	 n;		/* bytes of the whole text */
	int	 fd;
};

static void
flush(struct out *o)
{
	size_t off = 0;
	ssize_t w;

	/* as stdio: the rest after a short write, nothing more on an error */
	while (off < o->at && (w = write(o->fd, o->buf + off, o->at - off)) > 0)
		off += (size_t)w;
	o->at = 0;
}

static void
put(struct out *o, const char *s, size_t k)
{
	o->n += k;
	for (; k > 0; k--) {
		if (o->fd >= 0 && o->at == o->len)
			flush(o);
		if (o->at + (o->fd < 0) < o->len)	/* a string keeps its NUL */
			o->buf[o->at++] = *s++;
	}
}

static void
num(struct out *o, unsigned long v, int neg)
{
	char d[24], *p = d + sizeof d;

	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	if (neg)
		*--p = '-';
	put(o, p, (size_t)(d + sizeof d - p));
}

static void
vfmt(struct out *o, const char *f, va_list ap)
{
	const char *s;
	long v;
	int l;

	for (; *f != '\0'; f++) {
		if (*f != '%') {
			put(o, f, 1);
			continue;
		}
		l = f[1] == 'l';
		switch (f[1 + l]) {
		case 'd':
			v = l ? va_arg(ap, long) : va_arg(ap, int);
			num(o, v < 0 ? -(unsigned long)v : (unsigned long)v,
			    v < 0);
			break;
		case 'u':
			num(o, l ? va_arg(ap, unsigned long) :
			    va_arg(ap, unsigned), 0);
			break;
		case 's':
			if (l)
				goto other;
			if ((s = va_arg(ap, const char *)) == NULL)
				s = "(null)";
			put(o, s, strlen(s));
			break;
		case '%':
			if (l)
				goto other;
			put(o, f, 1);
			break;
		case '\0':
			return;
		default:
		other:
			put(o, f, (size_t)l + 2);
		}
		f += l + 1;
	}
}

int
fmt_buf(char *buf, size_t len, const char *f, ...)
{
	struct out o = { buf, len, 0, 0, -1 };
	va_list ap;

	va_start(ap, f);
	vfmt(&o, f, ap);
	va_end(ap);
	if (len > 0)
		buf[o.at] = '\0';
	return (int)o.n;
}

void
fmt_err(const char *f, ...)
{
	char buf[FMT_ERRBUF];
	struct out o = { buf, sizeof buf, 0, 0, 2 };
	va_list ap;
	int e = errno;

	va_start(ap, f);
	vfmt(&o, f, ap);
	va_end(ap);
	flush(&o);
	errno = e;
}

long
fmt_long(const char *s, char **end)
{
	const char *p = s;
	unsigned long v = 0, lim, d;
	int neg = 0, over = 0;

	while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
		p++;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (*p < '0' || *p > '9') {
		if (end != NULL)
			*end = (char *)s;
		return 0;
	}
	lim = neg ? (unsigned long)LONG_MAX + 1 : LONG_MAX;
	for (; *p >= '0' && *p <= '9'; p++) {
		d = (unsigned long)(*p - '0');
		if (v > (lim - d) / 10)
			over = 1;
		else
			v = v * 10 + d;
	}
	if (end != NULL)
		*end = (char *)p;
	if (over) {
		errno = ERANGE;
		return neg ? LONG_MIN : LONG_MAX;
	}
	return neg ? (v == 0 ? 0 : -(long)(v - 1) - 1) : (long)v;
}
