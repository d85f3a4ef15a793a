/* drift.h -- how each node's figures moved over a sweep (a trend test per node) and whether
 * its first passes stand out as warm-up (pure: no I/O). */
#ifndef FT_DRIFT_H
#define FT_DRIFT_H

#include "model/sweep.h"

/*
 * Per node: the trend of the log of its judged passes against their start times (else rounds,
 * else the order of a point's own loops), one intercept per configuration (per point without
 * rounds) and one slope, Holm over
 * the nodes; a node drifts when p <= 5 % and the change over the sweep is >= DRIFT_MIN_PCT.
 * Warm-up: each point's first pass against the trend of the others; on most points more
 * than 3 SDs and DRIFT_WARM_MIN_PCT below. docs/method.md ("Drift and warm-up") has the rule.
 */

#define DRIFT_MIN_PCT 1.0      /* a drift smaller than this over the sweep is not reported */
#define DRIFT_WARM_MIN_PCT 3.0 /* a first pass less than this below the rest is no warm-up */

/* Fill s->drift from s's passes (replacing what it held). */
void drift_analyze(struct sweep *s);

#endif
