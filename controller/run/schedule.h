/* schedule.h -- a batch of work as runs in interleaved rounds: the order, the rounds, the
 * warm-up rounds of a new block (pure: no I/O). */
#ifndef FT_SCHEDULE_H
#define FT_SCHEDULE_H

#include <stdbool.h>

#include "model/sweep.h"
#include "run/strategy.h"

/* One run: one loop of point on every active node, in the sweep's round. */
struct schedule_run {
	int point;
	int round;   /* the sweep's round (1-based): s->nrounds once the schedule is made */
	bool warmup; /* a warm-up loop (plan job.warmup_loops): stored, shown, never judged */
};

struct schedule {
	int n, cap;
	struct schedule_run *runs;
};

void schedule_release(struct schedule *sc);

/*
 * The runs of batch b (strategy_next's items: point, loops), replacing sc's. The batch's
 * points are one block (rounds.h): points that never ran open a new block (their block is the
 * first of them) and, with job.warmup_loops, its first rounds are warm-up rounds of every one
 * of them; points that ran before continue their block's rounds. Round j of the batch runs
 * every item with j loops or more, in rounds_order with the sweep's order_seed; every round
 * gets the sweep's next round number (s->nrounds counts them). Returns the number of runs.
 */
int schedule_batch(struct sweep *s, const struct strategy_batch *b, struct schedule *sc);

#endif
