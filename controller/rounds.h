/* rounds.h -- the order in which a block's points run, round by round (pure: no I/O). */
#ifndef FT_ROUNDS_H
#define FT_ROUNDS_H

#include <stdint.h>

/*
 * The rule, in the words the README quotes.
 *
 * The points that are compared with one another form a block (a grid's points, an axis'
 * baseline and values, a race's survivors with the axis' baseline, the final confirmation
 * with the original baseline measured again). A block runs in rounds: a round runs one loop
 * of each of its points that is due, every node running the same point at the same moment, so
 * that whatever moves a whole round (drift, a neighbour's burst) moves every point of the
 * round alike and cancels when points are compared within rounds (effect.h).
 *
 * The order inside a round: rounds come in pairs (1 and 2, 3 and 4, ...). For each pair a
 * seeded hash gives every point a random key; the pair's first round runs the points by
 * increasing key, its second by decreasing key (the mirror of the first). Why both:
 *  - mirrored, every point's mean position over the pair is the same, so a drift that is
 *    linear in time within the pair cancels exactly from every comparison, whatever the
 *    number of points (an ABBA design);
 *  - randomised from pair to pair (the seed is kept in the sweep), no point always runs
 *    first, and whatever is not linear (a curved drift, the first run after a change being
 *    slower) becomes noise the intervals carry, not a bias.
 * A plain random order per round leaves a linear drift as extra noise on every comparison;
 * a fixed ABBA order always runs the same point first and last. The keys depend on the seed,
 * the block, the pair and the point only, so a point that leaves the block between the two
 * rounds of a pair (a race's drop) keeps the others mirrored.
 */

/* Round round (1-based, counted within the block) of block block: the n points of points[]
 * in their order, into out[] (out may not alias points). */
void rounds_order(uint64_t seed, int block, int round, const int *points, int n, int *out);

/*
 * A batch of items (point, loops), as rounds: round j (1-based) runs every item with j loops
 * or more, in rounds_order for the block's round first_round + j - 1. out_point and out_round
 * (room for the sum of the loops) receive the runs in order: each a point and its round
 * within the block. Returns the number of runs.
 */
int rounds_expand(uint64_t seed, int block, int first_round, const int *points, const int *loops,
                  int n, int *out_point, int *out_round);

/* A fresh seed for a sweep's round order (time and pid mixed; never 0). */
uint64_t rounds_seed_new(void);

#endif
