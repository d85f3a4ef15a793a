/* verdict.h -- Δ, Welch confidence intervals and verdicts for a sweep (pure functions). */
#ifndef FT_VERDICT_H
#define FT_VERDICT_H

#include <stdbool.h>

#include "stats.h"
#include "sweep.h"

/* One comparison of a point's sample against its baseline's. */
struct verdict_cmp {
	double delta_pct;   /* 100 * (mean_point / mean_base - 1); NAN if mean_base is 0 */
	double ci_low_pct;  /* 95 % Welch CI of mean_point - mean_base, in % of mean_base */
	double ci_high_pct; /* NAN when either sample has fewer than 2 values */
	enum verdict verdict;
};

/*
 * Compare point against base. gain: the CI excludes 0 and Δ >= +min_effect;
 * loss: the CI excludes 0 and Δ <= -min_effect; none: |Δ| < min_effect;
 * unclear otherwise. With minimize, gain and loss swap (lower is better).
 */
void verdict_compare(const struct stats_summary *base, const struct stats_summary *point,
                     bool minimize, double min_effect_pct, struct verdict_cmp *out);
/* Combine node verdicts (VERDICT_NA entries are ignored). */
enum row_verdict verdict_row(const enum verdict *v, int n);
const char *verdict_name(enum verdict v);         /* "gain", ... "" for NA */
const char *verdict_row_name(enum row_verdict v); /* "significant gain", ... */
/* Fill every analysis field of s: node and row comparisons, spread, best, warnings. */
void verdict_sweep(struct sweep *s);

#endif
