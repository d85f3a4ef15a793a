/* fiosyntax.c -- fio's value syntaxes that the fio engine and the job-file parser both read:
 * numbers, block sizes, bssplit lists. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/fiosyntax.h"
#include "num.h"
#include "banned.h"

int fiosyntax_number(const char *s, size_t n, double *out)
{
	char buf[64], *end;

	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (!isdigit((unsigned char)buf[0]) && buf[0] != '.')
		return -EINVAL;
	*out = strtod(buf, &end);
	return *end || !isfinite(*out) ? -EINVAL : 0;
}

int fiosyntax_size(const char *s, size_t n, uint64_t *out)
{
	char buf[32];

	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return num_parse_size(buf, out) == 0 && *out >= 1 && *out <= (1ULL << 30) ? 0 : -EINVAL;
}

int fiosyntax_bssplit_parse(const char *v, uint64_t *min_bs, uint64_t *max_bs, char *why,
                            size_t len)
{
	const char *dir = v, *p, *end, *slash, *colon, *comma;
	uint64_t bs, lo = UINT64_MAX, hi = 0;
	int dirs = 0, entries, missing;
	double pct, sum;

	for (;;) {
		comma = strchr(dir, ',');
		end = comma ? comma : dir + strlen(dir);
		if (++dirs > 3) {
			snprintf(why, len, "at most 3 lists (read,write,trim)");
			return -EINVAL;
		}
		entries = missing = 0;
		sum = 0;
		for (p = dir; p < end; p = colon + 1) {
			colon = memchr(p, ':', (size_t)(end - p));
			if (!colon)
				colon = end;
			slash = memchr(p, '/', (size_t)(colon - p));
			if (fiosyntax_size(p, (size_t)((slash ? slash : colon) - p), &bs)) {
				snprintf(why, len, "'%.*s' is not a block size 1..1G like 4k",
				         (int)((slash ? slash : colon) - p) > 32
				                 ? 32
				                 : (int)((slash ? slash : colon) - p),
				         p);
				return -EINVAL;
			}
			if (!slash || slash + 1 == colon) {
				missing++;
			} else if (fiosyntax_number(slash + 1, (size_t)(colon - slash - 1), &pct) ||
			           pct < 0 || pct > 100) {
				snprintf(why, len, "'%.*s' is not a percentage 0..100",
				         (int)(colon - slash - 1) > 32 ? 32
				                                       : (int)(colon - slash - 1),
				         slash + 1);
				return -EINVAL;
			} else {
				sum += pct;
			}
			if (++entries > 64) {
				snprintf(why, len, "at most 64 block sizes in a list");
				return -EINVAL;
			}
			lo = bs < lo ? bs : lo;
			hi = bs > hi ? bs : hi;
			if (colon == end)
				break;
		}
		if (!entries) {
			snprintf(why, len, "an empty list");
			return -EINVAL;
		}
		if (sum > 100 + 1e-9 || (!missing && (sum < 100 - 1e-9))) {
			snprintf(why, len,
			         "the percentages of a list add up to %g; they must make 100 (or "
			         "less, with some left out)",
			         sum);
			return -EINVAL;
		}
		if (!comma)
			break;
		dir = comma + 1;
	}
	if (min_bs)
		*min_bs = lo;
	if (max_bs)
		*max_bs = hi;
	return 0;
}
