/* verdict.h -- every verdict of the controller: each sweep row and each compared point judged
 * with effect.c (per-node ratio of means, random-effects fleet effect), the best point, the
 * noise summary and the warnings (pure functions). */
#ifndef FT_VERDICT_H
#define FT_VERDICT_H

#include <stdbool.h>

#include "effect.h"
#include "stats.h"
#include "sweep.h"

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
 * at the point's look of the stopping rule), the spread; the outcome and
 * best point, the noise summary and the warnings. The best point is, for
 * sequential, a final confirmation whose row is a gain; for adaptive, the
 * final point when its fleet effect against the original baseline is a gain
 * (race_confirmed), else none (the baseline); otherwise the
 * candidate row with the largest gain (a row is a gain only when the fleet
 * effect is one and no node disagrees). Idempotent. analysis.c decides
 * when it runs; nothing else in the controller calls it.
 */
void verdict_sweep(struct sweep *s);

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

struct verdict_comparison {
	int nrows;
	struct verdict_compare_row *rows; /* in the order of sweep a's points */
};

/*
 * Compare sweep b against sweep a (both analysed) with a's goal and
 * min_effect: per point that both ran, each node of a against b's node of the
 * same name, and the fleet effect. Either sweep's loops may have stopped
 * adaptively, so the tests use the per-look α of the sweep with more looks.
 */
void verdict_sweeps_compare(const struct sweep *a, const struct sweep *b,
                            struct verdict_comparison *out);
void verdict_comparison_release(struct verdict_comparison *c);

#endif
