/* num.h -- strict number parsing: no atoi, no silent garbage, no octal. */
#ifndef FT_NUM_H
#define FT_NUM_H

#include <stdbool.h>
#include <stdint.h>

/* Parse a plain decimal integer: optional '-', digits, no leading zeros
 * (except "0"), no spaces, no '+'. Returns 0 or -EINVAL / -ERANGE. */
int num_parse_i64(const char *s, int64_t *out);
/* Like num_parse_i64 but also accepts one trailing newline (sysfs style)
 * and leading zeros. Used for values the kernel prints. */
int num_parse_kernel_i64(const char *s, int64_t *out);
/* True if s is a plain decimal integer as accepted by num_parse_i64. */
bool num_is_plain_int(const char *s);
/* Parse a size like "4k", "4M", "2g", "512" (bytes; k/m/g/t are binary
 * multiples, case-insensitive, optional trailing 'b' or 'ib'). */
int num_parse_size(const char *s, uint64_t *bytes);

/* A time as fio writes it: digits, then nothing (default_unit_us) or one of us/usec, ms/msec,
 * s/sec, m/min, h/hour, d/day (any case), into microseconds. -EINVAL for anything else, -ERANGE
 * past INT64_MAX. */
int num_parse_duration(const char *s, int64_t default_unit_us, int64_t *us);

#endif
