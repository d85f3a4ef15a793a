/* suite.c -- a suite's row verdicts: their stable codes (the sweep that holds a suite frees it:
 * model/sweep.c's sweep_suite_clear). */
#include <stdlib.h>
#include <string.h>

#include "model/suite.h"
#include "banned.h"

static const char *const codes[] = { "na", "gain", "vetoed", "loss", "no_gain" };

const char *suite_verdict_code(enum suite_verdict v)
{
	return (unsigned)v < sizeof(codes) / sizeof(codes[0]) ? codes[v] : "na";
}

int suite_verdict_parse(const char *code)
{
	size_t i;

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (!strcmp(codes[i], code))
			return (int)i;
	return -1;
}
