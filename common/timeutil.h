/* timeutil.h -- wall and monotonic clocks, ISO-8601 formatting and parsing. */
#ifndef FT_TIMEUTIL_H
#define FT_TIMEUTIL_H

#include <stdint.h>
#include <time.h>

/* Seconds since the epoch, with sub-second precision. */
double time_now_s(void);
/* Monotonic seconds, for measuring durations. */
double time_mono_s(void);
/* The CLOCK_REALTIME time wait_s from now into ts: the deadline pthread_cond_timedwait()
 * takes, whatever clock the caller measures with. */
void time_deadline_after(double wait_s, struct timespec *ts);
/* Format epoch seconds as "2026-11-29T23:03:36Z" into out (>= 21 bytes). */
void time_fmt_iso(double epoch_s, char *out, size_t len);
/* The same with milliseconds: "2026-11-29T23:03:36.123Z" (out >= 25 bytes). */
void time_fmt_iso_ms(double epoch_s, char *out, size_t len);
/* Parse ISO-8601 UTC "2026-11-29T23:03:36Z" (a fraction ".123" and the "Z" optional) into
 * epoch seconds. Returns 0, or -EINVAL for anything else, a time that does not exist too
 * ("2026-02-30", "24:00:00", a leap second). */
int time_parse_iso(const char *s, double *epoch_s);
/* The same, or a date alone "2026-11-29" (its midnight UTC). */
int time_parse_date(const char *s, double *epoch_s);

#endif
