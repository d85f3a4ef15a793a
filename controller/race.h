/* race.h -- the adaptive strategy's race within an axis (the leader, the values dropped, how
 * the race ends) and what an adaptive sweep spends in loops (pure: no I/O). */
#ifndef FT_RACE_H
#define FT_RACE_H

#include <stdbool.h>

#include "err.h"
#include "plan.h"
#include "sweep.h"

/*
 * The rule, in the words the README quotes.
 *
 * An axis' race holds its baseline point (the configuration chosen so far, i.e. the
 * baseline's value of this axis) and one candidate point per other value of the axis, all
 * marked RACE_RUNNING. Round 1 runs every one of them job.loops.min loops on every node at
 * once; every later round runs each survivor one more loop. After a round the survivors have
 * n loops and the race takes look j = n - min + 1 of K = max - min + 1, with the stopping
 * rule of effect.h: every interval below is at the look's α = 5 %/K (two-sided), so a wrong
 * "worse" or "equivalent" at any one look has probability at most α, and by the union bound
 * at most 5 % over the K looks. m is min_effect_pct; "oriented" means positive is better
 * (goal minimize flips the signs). Only nodes where both points finished every loop (state
 * ok) are compared (effect_compute; a node failing mid-race leaves the comparison).
 *
 *  leader     the survivor with the best fleet Δ against the axis' baseline point; ties go
 *             to the baseline, then to the earlier value of the axis.
 *  compared   every other survivor v against the leader (the leader is the reference): the
 *             (1 - α) interval [lo, hi] and the (1 - 2α) equivalence interval, oriented.
 *  dropped    worse:      the baseline's value when hi < -m (the leader beats it by more
 *                         than min_effect, so keeping the baseline is no longer an option);
 *                         another value when hi < 0 (shown worse than the leader, which
 *                         cannot lose a value within min_effect of the best: the leader is
 *                         better).
 *             equivalent: another value (not the baseline's) whose equivalence interval lies
 *                         inside (-m, +m): no better than the leader beyond min_effect and
 *                         not cheaper to keep, so of no interest.
 *             failed:     no node has 2 usable passes of it.
 *  end        one survivor left: it wins (last). Every other survivor equivalent to the
 *             leader (only the baseline's value can be: the others were dropped): the
 *             baseline's value wins, the leader ties (all_equivalent). Only the leader and the
 *             baseline's value left, the baseline's value shown no better than the leader by
 *             min_effect (its interval against the leader below +m) but neither worse by m
 *             nor equivalent (not_better); the survivors at job.loops.max (cap); a next round
 *             over budget_s (budget): the leader is kept. It wins if it is the baseline's
 *             value, or the baseline's value was dropped, or it is a fleet gain over the
 *             baseline point at the look's α (effect.h: interval above 0 and Δ >= m);
 *             otherwise it is kept *tentatively* (RACE_TENTATIVE): not shown better, carried
 *             forward so that the later axes race over it, and the final confirmation against
 *             the original baseline with full loops decides whether anything is adopted (a
 *             tentative value is never a gain by itself; a loss, and a value that only looked
 *             better, fails there and the baseline is kept). The baseline's value is kept
 *             instead only when no node compares it with the leader. The survivors that are
 *             not kept are left open.
 *
 * Rounds: every round runs the survivors and the axis' baseline point, also once the
 * baseline's value is dropped (every survivor's Δ is measured against it within rounds, so a
 * round without it would measure none): rounds.h's interleaved order.
 *
 * Benchmark-seconds: a point's loops (every run of it) times the job's runtime_s, summed over
 * the points of the sweep; per node, since every node runs every loop at the same time.
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
 * point (effect.h at one look: the 95 % interval above 0 and Δ >= min_effect, goal applied)
 * is a gain. */
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
