/* timeutil.c -- clocks, time formatting and parsing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timeutil.h"
#include "banned.h"

double time_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double time_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void time_deadline_after(double wait_s, struct timespec *ts)
{
	long ns = (long)(wait_s * 1e9);

	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ns / 1000000000L;
	ts->tv_nsec += ns % 1000000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

void time_fmt_iso(double epoch_s, char *out, size_t len)
{
	time_t t = (time_t)epoch_s;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void time_fmt_iso_ms(double epoch_s, char *out, size_t len)
{
	time_t t = (time_t)epoch_s;
	/* A microsecond up before truncating: a time parsed from "...36.218Z" is a double a hair
	 * below .218 and must print as it was written. */
	long ms = (long)((epoch_s - (double)t) * 1000.0 + 1e-3);
	char base[32];
	struct tm tm;

	if (ms < 0)
		ms = 0;
	if (ms > 999)
		ms = 999;
	gmtime_r(&t, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, len, "%s.%03ldZ", base, ms);
}

/* strptime takes 2026-02-30 and 25:61 field by field, and timegm rolls them over into March:
 * a time is real when formatting it back gives the same fields. */
static int tm_epoch(struct tm *tm, double *epoch_s)
{
	struct tm want = *tm, back;
	time_t t = timegm(tm);

	if (t == (time_t)-1 || !gmtime_r(&t, &back))
		return -EINVAL;
	if (back.tm_year != want.tm_year || back.tm_mon != want.tm_mon ||
	    back.tm_mday != want.tm_mday || back.tm_hour != want.tm_hour ||
	    back.tm_min != want.tm_min || back.tm_sec != want.tm_sec)
		return -EINVAL;
	*epoch_s = (double)t;
	return 0;
}

int time_parse_iso(const char *s, double *epoch_s)
{
	const char *p;
	char *end;
	struct tm tm;
	double frac = 0, t;

	memset(&tm, 0, sizeof(tm));
	p = s ? strptime(s, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
	if (!p)
		return -EINVAL;
	if (*p == '.') {
		frac = strtod(p, &end);
		if (end == p + 1)
			return -EINVAL;
		p = end;
	}
	if (*p == 'Z')
		p++;
	if (*p || tm_epoch(&tm, &t))
		return -EINVAL;
	*epoch_s = t + frac;
	return 0;
}

int time_parse_date(const char *s, double *epoch_s)
{
	struct tm tm;
	const char *p;

	if (time_parse_iso(s, epoch_s) == 0)
		return 0;
	memset(&tm, 0, sizeof(tm));
	p = s ? strptime(s, "%Y-%m-%d", &tm) : NULL;
	if (!p || *p)
		return -EINVAL;
	return tm_epoch(&tm, epoch_s);
}
