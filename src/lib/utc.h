/*
 * utc: a time as ISO 8601 in UTC, "YYYY-MM-DDTHH:MM:SSZ", the form of
 * meta.json's "created" and of checkpoint turns. Formatted from gmtime_r's
 * fields rather than with strftime, which would link the time zone code
 * (4 KB) for nothing.
 */
#ifndef ARCTURN_UTC_H
#define ARCTURN_UTC_H

#include <time.h>

#define UTC_ISO_LEN	32

/* 0, or -1 when t has no broken-down form (out is then untouched). */
int	utc_iso(time_t t, char out[UTC_ISO_LEN]);

#endif
