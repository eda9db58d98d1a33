#include <errno.h>
#include <string.h>

#include "lib/mem.h"
#include "sandbox/winquote.h"

static int
needs_quotes(const char *a)
{
	return *a == '\0' || strpbrk(a, " \t\n\v\"") != NULL;
}

/*
 * Write the quoted form of a into out (when out is non-NULL) and return
 * its length; the same walk sizes and fills the buffer.
 */
static size_t
quote_arg(const char *a, char *out)
{
	size_t n = 0, bs, i;

#define PUT(c) do { if (out != NULL) out[n] = (c); n++; } while (0)
	if (!needs_quotes(a)) {
		for (; *a != '\0'; a++)
			PUT(*a);
		return n;
	}
	PUT('"');
	for (;;) {
		for (bs = 0; *a == '\\'; a++)
			bs++;
		if (*a == '\0') {
			/* Double them: the closing quote must stay a quote. */
			for (i = 0; i < 2 * bs; i++)
				PUT('\\');
			break;
		}
		if (*a == '"') {
			for (i = 0; i < 2 * bs + 1; i++)
				PUT('\\');
		} else {
			for (i = 0; i < bs; i++)
				PUT('\\');
		}
		PUT(*a);
		a++;
	}
	PUT('"');
#undef PUT
	return n;
}

/* argv[0]: quoted whole or not at all, no escapes (see winquote.h). */
static size_t
quote_prog(const char *a, char *out)
{
	size_t len = strlen(a);

	if (*a != '\0' && strpbrk(a, " \t") == NULL) {
		if (out != NULL)
			memcpy(out, a, len);
		return len;
	}
	if (out != NULL) {
		out[0] = '"';
		memcpy(out + 1, a, len);
		out[len + 1] = '"';
	}
	return len + 2;
}

int
winquote_cmdline(char *const argv[], char **out)
{
	size_t len, i, n;
	char *s;

	*out = NULL;
	if (argv == NULL || argv[0] == NULL || strchr(argv[0], '"') != NULL) {
		errno = EINVAL;
		return -1;
	}
	len = quote_prog(argv[0], NULL);
	for (i = 1; argv[i] != NULL; i++)
		len += 1 + quote_arg(argv[i], NULL);
	if ((s = mem_alloc(len + 1)) == NULL)
		return -1;
	n = quote_prog(argv[0], s);
	for (i = 1; argv[i] != NULL; i++) {
		s[n++] = ' ';
		n += quote_arg(argv[i], s + n);
	}
	s[n] = '\0';
	*out = s;
	return 0;
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

int
winquote_is_batch(const char *path)
{
	const char *base = path, *p, *end;

	for (p = path; *p != '\0'; p++)
		if (*p == '/' || *p == '\\')
			base = p + 1;
	/* "C:name" with no separator: the drive is not part of the name. */
	if (base == path && base[0] != '\0' && base[1] == ':')
		base += 2;
	/* An NTFS stream suffix (name:stream:$DATA) names the same file. */
	if ((end = strchr(base, ':')) == NULL)
		end = base + strlen(base);
	while (end > base && (end[-1] == '.' || end[-1] == ' '))
		end--;
	if (end - base < 4 || end[-4] != '.')
		return 0;
	p = end - 3;
	return (lower(p[0]) == 'b' && lower(p[1]) == 'a' && lower(p[2]) == 't') ||
	    (lower(p[0]) == 'c' && lower(p[1]) == 'm' && lower(p[2]) == 'd');
}
