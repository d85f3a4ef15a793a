/* switches.c -- the agent's test switches, read from the environment (switches.h). */
#include <stdlib.h>
#include <string.h>

#include "api/switches.h"
#include "banned.h"

/* Whether the environment variable name is exactly "1". */
static bool switch_on(const char *name)
{
	const char *v = getenv(name);

	return v && !strcmp(v, "1");
}

bool switches_no_long_poll(void)
{
	return switch_on("FLEETTUNE_TEST_NO_LONG_POLL");
}

double switches_clock_offset_s(void)
{
	const char *v = getenv("FLEETTUNE_TEST_CLOCK_OFFSET_S");
	char *end;
	double d;

	if (!v || !*v)
		return 0;
	d = strtod(v, &end);
	return *end || d != d ? 0 : d;
}
