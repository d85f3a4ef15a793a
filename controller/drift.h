/* drift.h -- how each node's figures moved over a sweep (a trend test per node) and whether
 * its first passes stand out as warm-up (pure: no I/O). */
#ifndef FT_DRIFT_H
#define FT_DRIFT_H

#include "sweep.h"

/*
 * The rule, in the words the README quotes.
 *
 * Trend. Per node, the log of every judged pass (warm-up passes left out) against the time it
 * started, with one intercept per point and one slope (stats_within_slope: only how a point's
 * own passes move counts, so the points' own differences do not read as drift). Time is the
 * passes' start times when every pass has one, else their rounds, else their order within the
 * point (format 1 and 2 documents: a point's loops ran back to back, one run apart; the
 * sweep's length is then the node's pass count). The change over the sweep is
 * 100 (e^(slope × span) - 1) with its 95 % interval; a node drifts when its p, Holm-adjusted
 * over the nodes, is at most 5 % and the change is at least DRIFT_MIN_PCT either way.
 *
 * Warm-up. Per node, for each point with 3 judged passes or more: its first pass (in time),
 * against the trend fitted without the first passes. It stands out when its residual is below
 * every other pass of the point, more than 3 residual SDs and more than DRIFT_WARM_MIN_PCT
 * below the rest. The node warms up when more than half of those points, and 2 or more, have
 * a first pass that stands out; the shortfall quoted is their median.
 */

#define DRIFT_MIN_PCT 1.0      /* a drift smaller than this over the sweep is not reported */
#define DRIFT_WARM_MIN_PCT 3.0 /* a first pass less than this below the rest is no warm-up */

/* Fill s->drift from s's passes (replacing what it held). */
void drift_analyze(struct sweep *s);

#endif
