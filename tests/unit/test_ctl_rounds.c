/* test_ctl_rounds.c -- rounds.c: every point once per round, mirrored pairs, the order varying
 * from pair to pair and block to block, the seed reproducing it, batches expanded to rounds. */
#include <string.h>

#include "stats/rounds.h"
#include "testutil.h"

#define NPT 5

static const int pts[NPT] = { 0, 3, 4, 7, 9 };

/* out holds each of pts exactly once. */
static void assert_permutation(const int *out, int n, const int *of)
{
	int i, j, seen;

	for (i = 0; i < n; i++) {
		for (j = seen = 0; j < n; j++)
			seen += out[j] == of[i];
		assert_int_equal(seen, 1);
	}
}

static void test_every_point_once(void **state)
{
	int out[NPT], r;

	(void)state;
	for (r = 1; r <= 40; r++) {
		rounds_order(42, 0, r, pts, NPT, out);
		assert_permutation(out, NPT, pts);
	}
}

static void test_mirrored_pairs(void **state)
{
	int a[NPT], b[NPT], i, r;

	(void)state;
	for (r = 1; r <= 39; r += 2) {
		rounds_order(7, 2, r, pts, NPT, a);
		rounds_order(7, 2, r + 1, pts, NPT, b);
		for (i = 0; i < NPT; i++)
			assert_int_equal(a[i], b[NPT - 1 - i]);
	}
}

/* No point always runs first: over 40 rounds every one of 5 points does, and the pairs differ. */
static void test_order_varies(void **state)
{
	int out[NPT], first[10] = { 0 }, r, i, differ = 0, prev[NPT];

	(void)state;
	for (r = 1; r <= 40; r++) {
		rounds_order(1234, 0, r, pts, NPT, out);
		first[out[0]]++;
		if (r % 2 && r > 1)
			differ += memcmp(out, prev, sizeof(out)) != 0;
		if (r % 2)
			memcpy(prev, out, sizeof(out));
	}
	for (i = 0; i < NPT; i++)
		assert_true(first[pts[i]] > 0);
	assert_true(differ >= 15);
	/* Another block of the same sweep gets other orders. */
	rounds_order(1234, 0, 1, pts, NPT, prev);
	for (r = differ = 0; r < 10; r++) {
		rounds_order(1234, 10 + r, 1, pts, NPT, out);
		differ += memcmp(out, prev, sizeof(out)) != 0;
	}
	assert_true(differ >= 8);
}

static void test_seed_reproduces(void **state)
{
	int a[NPT], b[NPT], c[NPT], r, differ = 0;

	(void)state;
	for (r = 1; r <= 20; r++) {
		rounds_order(99, 3, r, pts, NPT, a);
		rounds_order(99, 3, r, pts, NPT, b);
		rounds_order(100, 3, r, pts, NPT, c);
		assert_memory_equal(a, b, sizeof(a));
		differ += memcmp(a, c, sizeof(a)) != 0;
	}
	assert_true(differ >= 15);
}

/* A point that leaves between the two rounds of a pair: the others stay mirrored. */
static void test_subset_stays_mirrored(void **state)
{
	int a[NPT], b[NPT - 1], without[NPT - 1] = { 0, 3, 7, 9 }, i, j = 0;

	(void)state;
	rounds_order(5, 1, 3, pts, NPT, a);
	rounds_order(5, 1, 4, without, NPT - 1, b);
	for (i = NPT - 1; i >= 0; i--) {
		if (a[i] == 4)
			continue;
		assert_int_equal(a[i], b[j++]);
	}
}

/* A batch: round j runs every item with j loops or more; rounds continue the block's count. */
static void test_expand(void **state)
{
	int points[] = { 2, 5, 6 }, loops[] = { 3, 1, 2 }, op[6], orr[6], order[3], n, i;

	(void)state;
	n = rounds_expand(8, 2, 1, points, loops, 3, op, orr);
	assert_int_equal(n, 6);
	assert_permutation(op, 3, points);
	for (i = 0; i < 3; i++)
		assert_int_equal(orr[i], 1);
	/* Round 2: points 2 and 6, mirrored; round 3: point 2 alone. */
	assert_int_equal(orr[3], 2);
	assert_int_equal(orr[4], 2);
	assert_int_equal(orr[5], 3);
	assert_int_equal(op[5], 2);
	rounds_order(8, 2, 2, (int[]){ 2, 6 }, 2, order);
	assert_memory_equal(op + 3, order, 2 * sizeof(int));
	/* A later batch of the same block starts at its next round. */
	n = rounds_expand(8, 2, 4, points, (int[]){ 1, 1, 1 }, 3, op, orr);
	assert_int_equal(n, 3);
	rounds_order(8, 2, 4, points, 3, order);
	assert_memory_equal(op, order, sizeof(order));
	assert_int_equal(orr[0], 4);
}

static void test_seed_new(void **state)
{
	(void)state;
	assert_true(rounds_seed_new() != 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_point_once),
		cmocka_unit_test(test_mirrored_pairs),
		cmocka_unit_test(test_order_varies),
		cmocka_unit_test(test_seed_reproduces),
		cmocka_unit_test(test_subset_stays_mirrored),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_seed_new),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
