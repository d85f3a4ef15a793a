/* analysis.c -- when verdicts are computed: after each run of a point, at the sweep's close,
 * once for a sweep read back, and for compare. */
#include "analysis.h"
#include "banned.h"

void analysis_point_ran(struct sweep *s, int i)
{
	/* The whole sweep for now: the points compared with i, the best, the noise summary and
	 * the warnings all move with it. */
	(void)i;
	verdict_sweep(s);
}

void analysis_sweep_closed(struct sweep *s)
{
	verdict_sweep(s);
}

void analysis_sweep_loaded(struct sweep *s)
{
	verdict_sweep(s);
}

void analysis_sweeps_compared(const struct sweep *a, const struct sweep *b,
                              struct verdict_comparison *out)
{
	verdict_sweeps_compare(a, b, out);
}
