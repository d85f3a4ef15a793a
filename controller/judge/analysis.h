/* analysis.h -- when verdicts are computed: the one module that calls verdict.c's judges
 * (verdict_sweep, verdict_sweeps_compare), at the moments named below. */
#ifndef FT_ANALYSIS_H
#define FT_ANALYSIS_H

#include "judge/verdict.h"
#include "model/sweep.h"

/*
 * A sweep's analysis fields (filled by verdict.c: summaries, comparisons, the best, outcome,
 * noise and warnings) are brought up to date here and nowhere else. Every reader (the
 * strategy choosing the next batch, the store saving a point, the report, the progress
 * display) takes a sweep analysed at the last of these moments; each function is told what
 * changed, so it may recompute only what that touches: after a run, the point that ran
 * and the points compared with it, the best and the noise (O(nodes x passes) each, linear in
 * nodes); at the close and on load, the whole sweep with its warnings, drift and warm-up
 * (O(points x nodes x passes)).
 */

/* A run of point i landed: its passes, node states or errors changed. The run loop calls it
 * after every run, before the point is saved and before the strategy is asked for more. */
void analysis_point_ran(struct sweep *s, int i);
/* The sweep was closed (status and finished_at set): the analysis it is saved and shown with,
 * also when no point ran. */
void analysis_sweep_closed(struct sweep *s);
/* A sweep read back without its analysis (ctlstore_sweep_load, sweepdoc_parse), or whose
 * plan's min_effect changed (analyze --min-effect): judge every point. */
void analysis_sweep_loaded(struct sweep *s);
/* compare: sweep b judged against sweep a (both loaded and analysed), point by point. Release
 * out with verdict_comparison_release(). */
void analysis_sweeps_compared(const struct sweep *a, const struct sweep *b,
                              struct verdict_comparison *out);

#endif
