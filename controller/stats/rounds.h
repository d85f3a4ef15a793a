/* rounds.h -- the order in which a block's points run, round by round (pure: no I/O). */
#ifndef FT_ROUNDS_H
#define FT_ROUNDS_H

#include <stdint.h>

/*
 * A block (the points compared with one another) runs in rounds: one loop of each point a
 * round, every node the same point at the same moment. Rounds come in pairs; for each pair a
 * seeded hash orders the points, the pair's second round runs them in the mirror order: a
 * linear drift within a pair cancels exactly, and no point always runs first.
 * docs/method.md ("Interleaved rounds") says why this order.
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
