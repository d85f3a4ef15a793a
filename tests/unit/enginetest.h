/* enginetest.h -- helpers shared by the engine parser tests (test_fio, test_dd, ...). */
#ifndef FT_ENGINETEST_H
#define FT_ENGINETEST_H

#include <jansson.h>

#include "engine.h"
#include "testutil.h"

/* Parse test JSON or fail the test. Caller decrefs. */
static inline json_t *load(const char *text)
{
	json_error_t jerr;
	json_t *j = json_loads(text, 0, &jerr);

	if (!j)
		fail_msg("bad test JSON %s: %s", text, jerr.text);
	return j;
}

/* The metric exists and equals want to within tol. */
static inline void assert_metric_tol(const struct metrics *m, const char *name, double want,
                                     double tol)
{
	const struct metric *x = metrics_get(m, name);

	if (!x)
		fail_msg("metric %s missing", name);
	if (x->value < want - tol || x->value > want + tol)
		fail_msg("metric %s = %f, want %f", name, x->value, want);
}

#endif
