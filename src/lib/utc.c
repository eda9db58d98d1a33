/*
 * utc: ISO 8601 times in UTC (utc.h).
 */
#include <stdio.h>
#include <time.h>

#include "lib/utc.h"

int
utc_iso(time_t t, char out[UTC_ISO_LEN])
{
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL)
		return -1;
	snprintf(out, UTC_ISO_LEN, "%04lld-%02d-%02dT%02d:%02d:%02dZ",
	    (long long)tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
	    tm.tm_hour, tm.tm_min, tm.tm_sec);
	return 0;
}
