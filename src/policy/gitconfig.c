/*
 * gitconfig: a git config file's syntax (gitconfig.h), after git's
 * config.c (get_base_var, get_value, parse_value).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "lib/mem.h"
#include "policy/gitconfig.h"

struct parse {
	char		 section[GITCONFIG_NAME];
	int		 sub;		/* the section has a subsection */
};

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static int
alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

/*
 * A value at *pp (after '='), unquoted and unescaped into out (len
 * bytes), as git's parse_value does; *pp is left at the line's end.
 * -1 for a value git refuses.
 */
static int
value(const char **pp, char *out, size_t len)
{
	const char *p = *pp;
	size_t o = 0, space = 0;
	int quote = 0, c;

	while (*p == ' ' || *p == '\t')
		p++;
	for (;; p++) {
		c = *p;
		if (c == '\n' || c == '\0') {
			if (quote)
				return -1;
			break;
		}
		if (!quote && (c == ';' || c == '#')) {
			while (*p != '\n' && *p != '\0')
				p++;
			break;
		}
		if (!quote && (c == ' ' || c == '\t' || c == '\r')) {
			if (o > 0)
				space++;
			continue;
		}
		for (; space > 0; space--)
			if (o + 1 < len)
				out[o++] = ' ';
		if (c == '\\') {
			switch (*++p) {
			case '\n':
				continue;
			case 't':
				c = '\t';
				break;
			case 'b':
				c = '\b';
				break;
			case 'n':
				c = '\n';
				break;
			case '"':
			case '\\':
				c = *p;
				break;
			default:
				return -1;
			}
		} else if (c == '"') {
			quote = !quote;
			continue;
		}
		if (o + 1 < len)
			out[o++] = (char)c;
	}
	out[o] = '\0';
	*pp = p;
	return 0;
}

/* A section header at *pp ('['): the section, lower case. -1: bad. */
static int
section(struct parse *cp, const char **pp)
{
	const char *p = *pp + 1;
	size_t o = 0;

	for (; alnum(*p) || *p == '-' || *p == '.'; p++) {
		if (*p == '.')
			break;		/* [section.sub]: the old spelling */
		if (o + 1 < sizeof cp->section)
			cp->section[o++] = (char)lower(*p);
	}
	cp->section[o] = '\0';
	cp->sub = 0;
	if (*p == '.') {
		for (p++; alnum(*p) || *p == '-' || *p == '.'; p++)
			cp->sub = 1;
	} else {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '"') {
			cp->sub = 1;
			for (p++; *p != '"'; p++) {
				if (*p == '\0' || *p == '\n')
					return -1;
				if (*p == '\\' && p[1] != '\0' && p[1] != '\n')
					p++;
			}
			p++;
		}
	}
	if (*p != ']' || o == 0)
		return -1;
	*pp = p + 1;
	return 0;
}


int
gitconfig_parse(const char *buf, gitconfig_fn *fn, void *arg)
{
	struct parse ps;
	const char *p = buf;
	char key[GITCONFIG_KEY], *val;
	size_t o;
	int rc = 0, e;

	if ((val = mem_alloc(GITCONFIG_VALUE)) == NULL)
		return -1;
	memset(&ps, 0, sizeof ps);
	while (*p != '\0') {
		if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
			p++;
			continue;
		}
		if (*p == '#' || *p == ';') {
			while (*p != '\n' && *p != '\0')
				p++;
			continue;
		}
		if (*p == '[') {
			if (section(&ps, &p) < 0)
				break;
			continue;
		}
		if (!alnum(*p) || (*p >= '0' && *p <= '9'))
			break;
		for (o = 0; alnum(*p) || *p == '-'; p++)
			if (o + 1 < sizeof key)
				key[o++] = (char)lower(*p);
		key[o] = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '=') {
			p++;
			if (value(&p, val, GITCONFIG_VALUE) < 0)
				break;
			if ((rc = fn(ps.section, ps.sub, key, val, arg)) < 0)
				break;
		} else if (*p == '\n' || *p == '\0' || *p == '\r' ||
		    *p == '#' || *p == ';') {
			while (*p != '\n' && *p != '\0')
				p++;
		} else
			break;
	}
	e = errno;
	mem_free(val);
	errno = e;
	return rc < 0 ? -1 : 0;
}
