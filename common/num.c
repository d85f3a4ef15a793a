/* num.c -- strict integer and size parsing. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "num.h"
#include "banned.h"

bool num_is_plain_int(const char *s)
{
	const char *p = s;

	if (!s || !*s)
		return false;
	if (*p == '-')
		p++;
	if (!*p)
		return false;
	if (*p == '0' && p[1] != '\0')
		return false;
	if (*p == '0' && p != s)
		return false; /* "-0" */
	for (; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

int num_parse_i64(const char *s, int64_t *out)
{
	long long v;
	char *end;

	if (!num_is_plain_int(s))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int num_parse_kernel_i64(const char *s, int64_t *out)
{
	long long v;
	char *end;
	const char *p = s;

	if (!s || !*s)
		return -EINVAL;
	if (*p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end == '\n')
		end++;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int num_parse_size(const char *s, uint64_t *bytes)
{
	unsigned long long v;
	uint64_t mult = 1;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	switch (tolower((unsigned char)*end)) {
	case '\0':
		break;
	case 'k':
		mult = 1ULL << 10;
		end++;
		break;
	case 'm':
		mult = 1ULL << 20;
		end++;
		break;
	case 'g':
		mult = 1ULL << 30;
		end++;
		break;
	case 't':
		mult = 1ULL << 40;
		end++;
		break;
	default:
		return -EINVAL;
	}
	if (mult > 1 && (!strcasecmp(end, "b") || !strcasecmp(end, "ib")))
		end += strlen(end);
	if (*end)
		return -EINVAL;
	if (v && mult > UINT64_MAX / v)
		return -ERANGE;
	*bytes = (uint64_t)v * mult;
	return 0;
}

int num_parse_duration(const char *s, int64_t default_unit_us, int64_t *us)
{
	static const struct {
		const char *name;
		int64_t us;
	} units[] = {
		{ "us", 1 },
		{ "usec", 1 },
		{ "ms", 1000 },
		{ "msec", 1000 },
		{ "s", 1000000 },
		{ "sec", 1000000 },
		{ "m", 60000000 },
		{ "min", 60000000 },
		{ "h", 3600000000LL },
		{ "hour", 3600000000LL },
		{ "d", 86400000000LL },
		{ "day", 86400000000LL },
	};
	unsigned long long v;
	int64_t mult = default_unit_us;
	char *end;
	size_t i;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end) {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcasecmp(end, units[i].name))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -EINVAL;
		mult = units[i].us;
	}
	if (v > (unsigned long long)(INT64_MAX / mult))
		return -ERANGE;
	*us = (int64_t)v * mult;
	return 0;
}
