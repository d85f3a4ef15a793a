/* verdict.h -- every verdict of the controller: each sweep row and each compared point judged
 * with effect.c (per-node ratio of means, random-effects fleet effect), the best point, the
 * noise summary and the warnings (pure functions). */
#ifndef FT_VERDICT_H
#define FT_VERDICT_H

#include <stdbool.h>

#include "model/sweep.h"
#include "stats.h"
#include "stats/effect.h"

/*
 * Every statistic of the controller is effect.c's, and produces codes and
 * numbers only; the report words them. No I/O, no libraries.
 *
 * A comparison counts a node only where it finished both points (state ok);
 * the reference's passes are its first point.ref_loops ones when that is
 * set (adaptive loops: the passes it had when the point last ran, so a
 * point is judged on exactly the data of its last look).
 */

/*
 * Fill every analysis field of s: per point the summaries, the comparison
 * with its reference (point.fx and the row and node figures copied from it,
 * at the point's look of the stopping rule), the spread; the decisions (the
 * fleet's and each cohort's: model/decision.h states the rule: grid's best
 * row, else the final confirmation against the original baseline measured
 * again decides, the axis rows only suggest), the outcome, the noise summary
 * and the warnings. Idempotent. analysis.c decides when it runs; nothing else
 * in the controller calls it.
 */
void verdict_sweep(struct sweep *s);
/* After point i's passes changed (a run of it ended): re-judge point i and the points compared
 * with it (and within each cohort, when cohort_assign grouped the nodes into two or more), the
 * best point (the fleet's and each cohort's) and the noise summary; the warnings, drift and warm-up
 * are left as they were (verdict_sweep fills them). O(nodes x passes) per point re-judged: a sweep
 * calls it after every run instead of verdict_sweep. */
void verdict_point_update(struct sweep *s, int i);

/* One node of a compared point: sweep a's node against the node of b with the same name. Its
 * Δ, interval and own decision are the row's fx.nodes[k]. */
struct verdict_compare_cell {
	bool present; /* both sweeps have passes of this node at this point */
	struct stats_summary a, b;
};

/* One point that both sweeps ran (matched by its parameters). */
struct verdict_compare_row {
	int point_a, point_b;
	struct effect fx;                   /* b against a, over a's nodes; owned */
	struct verdict_compare_cell *cells; /* one per node of sweep a */
};

/*
 * The variation between two runs, which two sweeps run at different times cannot tell from an
 * effect: the variance of a configuration's log-mean measured again, beyond its passes' noise
 * (method of moments), the larger of the nodes' shifts between the runs (the median of each
 * node's log ratios over the points both ran; K df) and the repeats and drifts within them;
 * min_effect (5 % when 0) assumed, as known, when neither exists. Every compared row is
 * judged with it added (effect.h). docs/method.md ("Variation between runs") has the rule.
 */
struct verdict_run_to_run {
	int nshift;          /* nodes with a shift between the runs */
	double shift_pct;    /* the mean of their shifts, % */
	double shift_lo_pct; /* the smallest and the largest, % */
	double shift_hi_pct;
	int nwithin;        /* repeats and drifts within the runs */
	double within_var;  /* their estimate, log units² (0 when none) */
	double between_var; /* the shifts' estimate, log units² (0 when none) */
	bool assumed;       /* nothing to estimate from: var is min_effect's */
	bool from_between;  /* var is the between-runs estimate (else within, or assumed) */
	double var, df;     /* the variance used and its df (0: assumed, known) */
	double sd_pct;      /* 100 (e^sd - 1) */
	double within_pct;  /* differences under this (95 %) are within run-to-run variation */
};

struct verdict_comparison {
	int nrows;
	struct verdict_compare_row *rows; /* in the order of sweep a's points */
	struct verdict_run_to_run rr;
};

/*
 * Compare sweep b against sweep a (both analysed with verdict_sweep) with a's goal and
 * min_effect: per point that both ran, each node of a against b's node of the same name, and
 * the fleet effect, with the variation between the runs (above) in every interval. Either
 * sweep's loops may have stopped adaptively, so the tests use the per-look α of the sweep
 * with more looks.
 */
void verdict_sweeps_compare(const struct sweep *a, const struct sweep *b,
                            struct verdict_comparison *out);
void verdict_comparison_release(struct verdict_comparison *c);

#endif
