/* test_ctl_schedule.c -- schedule.c: a batch as interleaved rounds, a new block's warm-up
 * rounds, a later batch continuing its block, the sweep's round numbers. */
#include <stdlib.h>
#include <string.h>

#include "ctltest.h"
#include "run/schedule.h"
#include "run/strategy.h"
#include "stats/rounds.h"
#include "testutil.h"

static void grid(struct sweep *s, const char *loops, const char *extra)
{
	char *t = ctltest_plan(2, "{\"nr_requests\":128}",
	                       "[{\"param\":\"nr_requests\",\"values\":[64,256,512]}]", "grid",
	                       loops, extra);

	ctltest_sweep_text(s, t);
	free(t);
	s->order_seed = 11;
}

/* Run the schedule as the runner would: passes stamped with their rounds. */
static void run(struct sweep *s, const struct schedule *sc)
{
	int i, k;

	for (i = 0; i < sc->n; i++) {
		if (!sc->runs[i].warmup)
			sweep_point_loops_add(s, sc->runs[i].point, 1);
		for (k = 0; k < s->plan.nnodes; k++) {
			s->points[sc->runs[i].point].nodes[k].state = NODE_OK;
			node_result_pass_add_at(&s->points[sc->runs[i].point].nodes[k], 100,
			                        sc->runs[i].round, 1, sc->runs[i].warmup);
		}
	}
}

static void test_grid_rounds(void **state)
{
	struct strategy_batch b = { 0 };
	struct schedule sc = { 0 };
	int order[4], pts[4] = { 0, 1, 2, 3 }, r, i;
	struct sweep s;

	(void)state;
	grid(&s, "3", "");
	assert_int_equal(strategy_next(&s, &b), 4);
	assert_int_equal(schedule_batch(&s, &b, &sc), 12);
	assert_int_equal(s.nrounds, 3);
	for (r = 1; r <= 3; r++) {
		rounds_order(11, 0, r, pts, 4, order);
		for (i = 0; i < 4; i++) {
			assert_int_equal(sc.runs[(r - 1) * 4 + i].point, order[i]);
			assert_int_equal(sc.runs[(r - 1) * 4 + i].round, r);
			assert_false(sc.runs[(r - 1) * 4 + i].warmup);
		}
	}
	for (i = 0; i < 4; i++)
		assert_int_equal(s.points[i].block, 0);
	run(&s, &sc);
	assert_true(sweep_has_rounds(&s));
	assert_int_equal(s.points[2].nodes[1].pass_round[2], 3);
	schedule_release(&sc);
	strategy_batch_release(&b);
	sweep_release(&s);
}

/* job.warmup_loops: a new block starts with that many rounds of every point, marked warm-up. */
static void test_warmup_rounds(void **state)
{
	struct strategy_batch b = { 0 };
	struct schedule sc = { 0 };
	struct sweep s;
	int i;

	(void)state;
	grid(&s, "3", "");
	s.plan.warmup_loops = 1;
	strategy_next(&s, &b);
	assert_int_equal(schedule_batch(&s, &b, &sc), 16);
	for (i = 0; i < 16; i++) {
		assert_int_equal(sc.runs[i].warmup, i < 4);
		assert_int_equal(sc.runs[i].round, i / 4 + 1);
	}
	run(&s, &sc);
	assert_int_equal(s.points[1].nodes[0].nwarmup, 1);
	assert_int_equal(s.points[1].nodes[0].npasses, 3);
	assert_int_equal(s.points[1].loops_run, 3);
	schedule_release(&sc);
	strategy_batch_release(&b);
	sweep_release(&s);
}

/* Adaptive loops: a later batch of the block's points continues its rounds (no warm-up), the
 * mirror pairing counting on from the block's rounds so far. */
static void test_continuation(void **state)
{
	struct strategy_batch b = { 0 };
	struct schedule sc = { 0 };
	int order[2], two[2] = { 0, 2 };
	struct sweep s;

	(void)state;
	grid(&s, "{\"min\":3,\"max\":6}", "");
	s.plan.warmup_loops = 1;
	strategy_next(&s, &b);
	schedule_batch(&s, &b, &sc);
	run(&s, &sc);
	assert_int_equal(s.nrounds, 4);
	b.n = 2;
	b.items[0].point = 0;
	b.items[0].loops = 1;
	b.items[1].point = 2;
	b.items[1].loops = 1;
	assert_int_equal(schedule_batch(&s, &b, &sc), 2);
	/* The block ran 4 rounds (1 warm-up, 3 judged): this is its round 5, the sweep's 5. */
	rounds_order(11, 0, 5, two, 2, order);
	assert_int_equal(sc.runs[0].point, order[0]);
	assert_int_equal(sc.runs[0].round, 5);
	assert_false(sc.runs[0].warmup);
	assert_int_equal(s.nrounds, 5);
	schedule_release(&sc);
	strategy_batch_release(&b);
	sweep_release(&s);
}

/* A second block (new points) starts at the sweep's next round, as its own block 1. */
static void test_new_block_numbers(void **state)
{
	struct strategy_batch b = { 0 };
	struct schedule sc = { 0 };
	struct config c;
	struct sweep s;
	int i, order[2], pts[2] = { 4, 5 };

	(void)state;
	grid(&s, "2", "");
	strategy_next(&s, &b);
	schedule_batch(&s, &b, &sc);
	run(&s, &sc);
	c = s.plan.baseline;
	sweep_point_add(&s, ROLE_BASELINE, -1, 0, &c);
	sweep_point_add(&s, ROLE_FINAL, -1, 4, &s.points[2].cfg);
	b.n = 2;
	for (i = 0; i < 2; i++) {
		b.items[i].point = 4 + i;
		b.items[i].loops = 2;
	}
	assert_int_equal(schedule_batch(&s, &b, &sc), 4);
	rounds_order(11, 4, 1, pts, 2, order);
	assert_int_equal(sc.runs[0].point, order[0]);
	assert_int_equal(sc.runs[0].round, 3);
	assert_int_equal(sc.runs[3].round, 4);
	assert_int_equal(s.points[5].block, 4);
	schedule_release(&sc);
	strategy_batch_release(&b);
	sweep_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grid_rounds),
		cmocka_unit_test(test_warmup_rounds),
		cmocka_unit_test(test_continuation),
		cmocka_unit_test(test_new_block_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
