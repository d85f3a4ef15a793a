/* strategy.h -- which work a sweep does next (grid, sequential, adaptive): pure, no I/O. */
#ifndef FT_STRATEGY_H
#define FT_STRATEGY_H

#include <stdbool.h>

#include "model/sweep.h"
#include "plan/plan.h"

/* One item of work: run point (an index into the sweep) for loops more loops on every
 * active node. A point may come back in a later batch to get more loops. */
struct strategy_work {
	int point;
	int loops;
};

struct strategy_batch {
	int n, cap;
	struct strategy_work *items;
};

void strategy_batch_release(struct strategy_batch *b);

/*
 * The next batch of work given the results so far: appends the batch's new
 * points to s and replaces b's items. Returns the number of items, 0 when the
 * sweep is done. Call it again only once every item of the previous batch ran
 * (its results are in s) and s was analysed since (analysis.h): the choices
 * read the verdicts, and the strategy never computes them.
 *
 * grid: the baseline plus every combination of the axes, in one batch
 * (odometer order, the last axis fastest; the combination equal to the
 * baseline is the baseline row, not a second point).
 * sequential: per axis, a fresh baseline of the configuration chosen so far
 * and each value of the axis over it (values equal to that baseline are
 * skipped); the axis' choice is its candidate with the largest significant
 * gain, else its baseline. After the last axis, a final confirmation of the
 * chosen configuration against the original baseline, unless it is the
 * original baseline: a batch of the baseline measured again (a baseline point
 * compared with point 0) and the final point against it, so that both run in
 * the same rounds.
 * Every batch is one block of interleaved rounds (schedule.h): its points run
 * one loop each per round.
 * Adaptive loops (plan loops_max > loops): before moving on, every compared
 * point that effect has not stopped (neither decided nor at loops_max) gets
 * one more loop per batch, each after one more loop of its reference when the
 * reference has no more loops than it; items of one loop each.
 *
 * adaptive: per axis, the same points as sequential, raced (race.h): every one
 * runs job.loops.min loops in the first batch, then each batch is one round,
 * one loop per survivor and one of the axis' baseline point (race_round_points),
 * until the race ends; the next axis runs over the
 * value the race kept (won, or tentative: not shown better, carried forward)
 * while its first round fits the budget; then the final
 * confirmation of the chosen configuration (if not the original baseline)
 * against the original baseline measured again, as sequential's: job.loops.min
 * loops each, then one more round at a time while effect has not stopped it,
 * up to job.loops.max.
 */
int strategy_next(struct sweep *s, struct strategy_batch *b);
/* For --dry-run and the ETA: the most points the plan can run (adaptive: as sequential; the
 * final confirmation counts its two points). */
int strategy_estimate(const struct plan *p);

/* Above this many, sequential pre-flight checks single-axis configurations only. */
#define STRATEGY_CONFIGS_CAP 256

/*
 * Every distinct configuration the sweep may apply, for pre-flight; the
 * baseline first. grid: every point. sequential: the baseline, every axis
 * value over the baseline, and, while the total stays within cap, every
 * combination with earlier axes' values too (later axes run on top of
 * earlier winners, so any combination can be applied). Over cap only the
 * single-axis configurations are listed and *complete is false.
 * Returns the count; *out is heap (caller frees).
 */
int strategy_configs(const struct plan *p, int cap, struct config **out, bool *complete);

#endif
