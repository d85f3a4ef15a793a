/* mcrng.h -- the benchmarks' Monte Carlo generator: xoshiro256** and Gaussian draws (seeded,
 * deterministic on every machine). */
#ifndef FT_MCRNG_H
#define FT_MCRNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
	double spare;
	int has_spare;
};

/* Seed r through splitmix64. */
void rng_seed(struct rng *r, uint64_t seed);
/* The next 64 random bits. */
uint64_t rng_next(struct rng *r);
/* Uniform on (-1, 1). */
double rng_sym(struct rng *r);
/* Standard normal (Marsaglia's polar method). */
double rng_normal(struct rng *r);

#endif
