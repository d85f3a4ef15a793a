/* verdict.h -- Δ, Welch confidence intervals and verdicts for sweeps (pure functions). */
#ifndef FT_VERDICT_H
#define FT_VERDICT_H

#include <stdbool.h>

#include "stats.h"
#include "sweep.h"

/*
 * Every statistic of the controller lives here and produces codes and
 * numbers only; the report words them. No I/O, no libraries.
 */

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
/*
 * Fill every analysis field of s: node and row comparisons, spread, the
 * outcome and best point, and the warnings. sequential: a final point that
 * held up is the best; otherwise the candidate with the largest significant
 * gain. adaptive: the final point when its fleet effect against the original
 * baseline is a gain (race_confirmed), else none (the baseline).
 * Idempotent; call it after any change of the passes.
 */
void verdict_sweep(struct sweep *s);

/* One node of a compared point: sweep a's node against the node of b with the same name. */
struct verdict_compare_cell {
	bool present; /* both sweeps have passes of this node at this point */
	struct stats_summary a, b;
	struct verdict_cmp cmp; /* b against a */
};

/* One point that both sweeps ran (matched by its parameters). */
struct verdict_compare_row {
	int point_a, point_b;
	enum row_verdict verdict;
	struct verdict_compare_cell *cells; /* one per node of sweep a */
};

struct verdict_comparison {
	int nrows;
	struct verdict_compare_row *rows; /* in the order of sweep a's points */
};

/* Compare sweep b against sweep a (both analysed) with a's goal and min_effect. */
void verdict_sweeps_compare(const struct sweep *a, const struct sweep *b,
                            struct verdict_comparison *out);
void verdict_comparison_release(struct verdict_comparison *c);

#endif
