/*
 * sandbox: the portable part of the backend interface (sandbox.h):
 * filling a status report. The backends themselves live in whole files
 * per platform.
 */
#include <stdarg.h>
#include <stdio.h>

#include "sandbox.h"

void
sandbox_fact(struct sandbox_report *r, const char *key, const char *fmt, ...)
{
	va_list ap;

	if (r->nfacts >= SANDBOX_MAXFACTS)
		return;
	r->facts[r->nfacts].key = key;
	va_start(ap, fmt);
	vsnprintf(r->facts[r->nfacts].value, sizeof r->facts[0].value, fmt,
	    ap);
	va_end(ap);
	r->nfacts++;
}

void
sandbox_guarantee(struct sandbox_report *r, const char *key,
    const char *name, int holds, const char *fmt, ...)
{
	va_list ap;

	if (r->ng >= SANDBOX_MAXGUAR)
		return;
	r->g[r->ng].key = key;
	r->g[r->ng].name = name;
	r->g[r->ng].holds = holds;
	va_start(ap, fmt);
	vsnprintf(r->g[r->ng].why, sizeof r->g[0].why, fmt, ap);
	va_end(ap);
	r->ng++;
}
