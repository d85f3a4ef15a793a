/* rounds.c -- a block's points in rounds: seeded mirrored pairs of orders; no I/O. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stats/rounds.h"
#include "xmalloc.h"
#include "banned.h"

/* splitmix64's finaliser: a good 64-bit mix. */
static uint64_t mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

struct keyed {
	uint64_t key;
	int point;
};

static int keyed_cmp(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->point - y->point;
}

void rounds_order(uint64_t seed, int block, int round, const int *points, int n, int *out)
{
	struct keyed *k = xcalloc((size_t)n + 1, sizeof(*k));
	uint64_t pair = (uint64_t)(round > 0 ? (round - 1) / 2 : 0);
	bool mirror = round > 0 && round % 2 == 0;
	int i;

	for (i = 0; i < n; i++) {
		k[i].point = points[i];
		k[i].key = mix(mix(seed) ^ mix((uint64_t)(unsigned)block + 0x51ED27ull) ^
		               mix((pair << 32) + (uint64_t)(unsigned)points[i]));
	}
	qsort(k, (size_t)n, sizeof(*k), keyed_cmp);
	for (i = 0; i < n; i++)
		out[i] = k[mirror ? n - 1 - i : i].point;
	free(k);
}

int rounds_expand(uint64_t seed, int block, int first_round, const int *points, const int *loops,
                  int n, int *out_point, int *out_round)
{
	int *due = xcalloc((size_t)n + 1, sizeof(int)), j, i, m, runs = 0, most = 0;

	for (i = 0; i < n; i++)
		if (loops[i] > most)
			most = loops[i];
	for (j = 1; j <= most; j++) {
		for (i = m = 0; i < n; i++)
			if (loops[i] >= j)
				due[m++] = points[i];
		rounds_order(seed, block, first_round + j - 1, due, m, out_point + runs);
		for (i = 0; i < m; i++)
			out_round[runs + i] = first_round + j - 1;
		runs += m;
	}
	free(due);
	return runs;
}

uint64_t rounds_seed_new(void)
{
	struct timespec ts;
	uint64_t s;

	clock_gettime(CLOCK_REALTIME, &ts);
	s = mix((uint64_t)ts.tv_sec * 1000000007ull + (uint64_t)ts.tv_nsec) ^
	    mix((uint64_t)getpid());
	return s ? s : 1;
}
