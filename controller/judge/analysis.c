/* analysis.c -- when verdicts are computed: after each run of a point, at the sweep's close,
 * once for a sweep read back, and for compare. */
#include "judge/analysis.h"
#include "judge/suite.h"
#include "banned.h"

/* A suite: each series judged as a sweep of its own, then the rule across them (suite.h). */
static void suite_judge(struct sweep *s)
{
	struct suite *su = suite_build(s);
	int j;

	if (!su)
		return;
	for (j = 0; j < su->nseries; j++)
		verdict_sweep(&su->wl[j]);
	verdict_sweep(su->mean);
	suite_finish(s);
}

void analysis_point_ran(struct sweep *s, int i)
{
	/* Point i and the points compared with it, the best and the noise summary: what the
	 * strategy and the store read between runs. The warnings, drift and warm-up wait for the
	 * sweep's close (nothing reads them before). */
	verdict_point_update(s, i);
	suite_judge(s);
}

void analysis_sweep_closed(struct sweep *s)
{
	verdict_sweep(s);
	suite_judge(s);
}

void analysis_sweep_loaded(struct sweep *s)
{
	verdict_sweep(s);
	suite_judge(s);
}

void analysis_sweeps_compared(const struct sweep *a, const struct sweep *b,
                              struct verdict_comparison *out)
{
	verdict_sweeps_compare(a, b, out);
}
