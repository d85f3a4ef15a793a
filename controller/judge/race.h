/* race.h -- the adaptive strategy's race within an axis (the leader, the values dropped, how
 * the race ends) and what an adaptive sweep spends in loops (pure: no I/O). */
#ifndef FT_RACE_H
#define FT_RACE_H

#include <stdbool.h>

#include "err.h"
#include "model/sweep.h"
#include "plan/plan.h"

/*
 * An axis' race: its baseline point and one point per other value, all RACE_RUNNING; round 1
 * runs job.loops.min loops of each, every later round one more loop of each survivor and of
 * the axis' baseline point (also once the baseline's value is dropped: every survivor's Δ is
 * measured against it within rounds), in rounds.h's interleaved order. After a round the
 * survivors are compared with the leader (the best fleet Δ against the axis' baseline point)
 * with effect.c at the look's α, those shown worse, equivalent or without figures are
 * dropped, and the race ends (last, all_equivalent, not_better, cap, budget) with the leader
 * won or kept tentatively. docs/method.md states the rule in full, with the budget and the
 * expected cost. Benchmark-seconds are loops × the job's runtime_s, per node.
 */

/* Looks of a race: K = loops_max - loops + 1. */
int race_looks(const struct plan *p);
/* How many of axis ax's values change cfg: the candidates of its race (the baseline point is
 * one more racer). */
int race_axis_values(const struct plan *p, int ax, const struct config *cfg);

/* Judge axis ax after a round (its survivors ran the same number of loops): mark the leader's
 * rivals dropped, and end the race when one of the ends above holds, or when no next round
 * fits: the survivors reached loops_max, or one more loop each would take the sweep over its
 * budget. Returns true when the race of the axis is over (no point is RACE_RUNNING). */
bool race_judge(struct sweep *s, int ax);
/* The axis' race is over (it ran and no point of it is still running). */
bool race_over(const struct sweep *s, int ax);
/* The point the axis' race kept (RACE_WON or RACE_TENTATIVE: the configuration the next axis
 * races over), or -1 (no usable value: keep its baseline). */
int race_winner(const struct sweep *s, int ax);
/* The points of axis ax still racing, in index order; returns how many (out has room for
 * s->npoints). */
int race_survivors(const struct sweep *s, int ax, int *out);
/* The points of axis ax's next round: its survivors and, while any survive, the axis' baseline
 * point even once it is dropped (every survivor's Δ is measured against it, within rounds, so
 * it runs in every round), in index order; returns how many. */
int race_round_points(const struct sweep *s, int ax, int *out);

/* The final confirmation (or any point) holds up: its fleet effect against its reference
 * point at the look its loops reached (effect.h: the 1 - 5 %/K interval above 0 and
 * Δ >= min_effect, goal applied) is a gain. */
bool race_confirmed(const struct sweep *s, int point);

/* Loops per node asked so far: every point's loops_run, summed. */
int race_loops_spent(const struct sweep *s);
/* True when loops more loops per node (and the final confirmation's 2 x loops_max: its point
 * and the original baseline measured again beside it, kept in
 * reserve unless final is set) stay within the plan's budget_s; always true without one. */
bool race_fits(const struct sweep *s, int loops, bool final);
/*
 * Loops per node an adaptive sweep still runs from its present state (all of it for a sweep
 * with no points): worst, when every racer runs to loops_max and the final confirmation runs;
 * expected, under the successive-halving model: after each round half of the undecided rivals
 * of the leader (rounded down) are decided, so a race of V values costs V x min, then
 * u + 2 loops per round (the u rivals, the leader and the axis' baseline point; at most V)
 * while u = (V - 1) / 2, / 4, ... stays above 0 and the cap allows.
 * Both are capped by what the budget leaves.
 */
void race_remaining(const struct sweep *s, double *expected_loops, double *worst_loops);
/* A budget_s too small for the first round of the first axis and the final confirmation is a
 * plan error (it names budget_s and the least the plan needs). 0 when fine or no budget. */
int race_budget_check(const struct plan *p, struct err *e);

#endif
