/* mcrng.c -- xoshiro256** and Gaussian draws for the Monte Carlo benchmarks. */
#include <math.h>

#include "mcrng.h"
#include "banned.h"

/* xoshiro256** (Blackman and Vigna), seeded through splitmix64. */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rng_seed(struct rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
	r->has_spare = 0;
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

/* Uniform on (-1, 1). */
double rng_sym(struct rng *r)
{
	return ((rng_next(r) >> 11) + 0.5) * 0x1.0p-52 - 1.0;
}

/* Standard normal, Marsaglia's polar method. */
double rng_normal(struct rng *r)
{
	double u, v, s;

	if (r->has_spare) {
		r->has_spare = 0;
		return r->spare;
	}
	do {
		u = rng_sym(r);
		v = rng_sym(r);
		s = u * u + v * v;
	} while (s >= 1.0 || s == 0.0);
	s = sqrt(-2.0 * log(s) / s);
	r->spare = v * s;
	r->has_spare = 1;
	return u * s;
}
