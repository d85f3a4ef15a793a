/* test_ctl_drift.c -- drift.c: the trend test per node (rounds, times, pass order), Holm over
 * the nodes, warm-up told from drift, and the warm-up passes of job.warmup_loops. */
#include <math.h>
#include <stdlib.h>

#include "ctltest.h"
#include "judge/drift.h"
#include "model/sweep.h"
#include "stats/rounds.h"
#include "testutil.h"

/* A deterministic noise in about (-1, 1) x scale, from a counter. */
static double noise(unsigned *c, double scale)
{
	*c = *c * 1103515245u + 12345u;
	return scale * (((*c >> 8) & 0xffff) / 32768.0 - 1.0);
}

/*
 * A grid of nnodes nodes and 4 points run in `rounds` interleaved rounds (rounds.h's order),
 * node k drifting drift_pct[k] % per run, noise of about noise_pct %, the first round of every
 * point warm_pct % low; passes carry rounds and start times (1 s a run) unless plain (then
 * the loops of a point run back to back, as before rounds).
 */
static void grid_run(struct sweep *s, int nnodes, int rounds, const double *drift_pct,
                     double noise_pct, double warm_pct, bool plain)
{
	static const int pts[4] = { 0, 1, 2, 3 };
	char *t = ctltest_plan(nnodes, "{\"nr_requests\":128}",
	                       "[{\"param\":\"nr_requests\",\"values\":[64,128,256,512]}]", "grid",
	                       "5", "");
	struct config c;
	unsigned ctr = 77;
	int order[4], i, r, k, run = 0;

	ctltest_sweep_text(s, t);
	free(t);
	for (i = 0; i < 4; i++) {
		c = s->plan.axes[0].values[i];
		sweep_point_add(s, i ? ROLE_CANDIDATE : ROLE_BASELINE, -1, i ? 0 : -1, &c);
	}
	for (r = 1; r <= rounds; r++) {
		rounds_order(3, 0, r, pts, 4, order);
		for (i = 0; i < 4; i++, run++) {
			int p = plain ? run / rounds : order[i];

			for (k = 0; k < nnodes; k++) {
				struct node_result *nr = &s->points[p].nodes[k];
				double v = 1000 * pow(1 + drift_pct[k] / 100, run) *
				           (1 + noise(&ctr, noise_pct / 100));

				if ((plain ? run % rounds == 0 : r == 1) && warm_pct > 0)
					v *= 1 - warm_pct / 100;
				nr->state = NODE_OK;
				if (plain)
					node_result_pass_add(nr, v);
				else
					node_result_pass_add_at(nr, v, r, 1e9 + run, false);
			}
		}
	}
	for (i = 0; i < 4; i++)
		s->points[i].loops_run = rounds;
}

static void test_drift_rounds(void **state)
{
	double d[3] = { 0.5, 0, -1.0 };
	struct sweep s;

	(void)state;
	grid_run(&s, 3, 6, d, 0.5, 0, false);
	drift_analyze(&s);
	assert_true(s.drift.rounds);
	assert_true(s.drift.timed);
	assert_float_equal(s.drift.span_s, 23, 0);
	/* node 1: 0.5 % a run over 23 runs; node 3 falls 1 % a run; node 2 does not drift. */
	assert_true(s.drift.nodes[0].significant);
	assert_float_equal(s.drift.nodes[0].change_pct, 100 * (pow(1.005, 23) - 1), 1.5);
	assert_true(s.drift.nodes[0].low_pct < s.drift.nodes[0].change_pct);
	assert_true(s.drift.nodes[0].high_pct > s.drift.nodes[0].change_pct);
	assert_false(s.drift.nodes[1].significant);
	assert_true(s.drift.nodes[2].significant);
	assert_float_equal(s.drift.nodes[2].change_pct, 100 * (pow(0.99, 23) - 1), 1.5);
	assert_int_equal(s.drift.nsignificant, 2);
	assert_int_equal(s.drift.nodes[0].npasses, 24);
	/* A drift is no warm-up, though every point's first pass is its lowest. */
	assert_false(s.drift.nodes[0].warmup);
	assert_int_equal(s.drift.nwarmup_nodes, 0);
	sweep_release(&s);
}

static void test_no_drift(void **state)
{
	double d[2] = { 0, 0 };
	struct sweep s;

	(void)state;
	grid_run(&s, 2, 5, d, 1.0, 0, false);
	drift_analyze(&s);
	assert_int_equal(s.drift.nsignificant, 0);
	assert_true(fabs(s.drift.nodes[0].change_pct) < 3);
	assert_true(s.drift.nodes[0].p > 0.05);
	sweep_release(&s);
}

/* Every point's first pass 20 % low: warm-up, named with its shortfall, and not read as a
 * drift (the trend leaves the first passes out). */
static void test_warmup(void **state)
{
	double d[2] = { 0, 0.3 };
	struct sweep s;

	(void)state;
	grid_run(&s, 2, 5, d, 0.5, 20, false);
	drift_analyze(&s);
	assert_true(s.drift.nodes[0].warmup);
	assert_int_equal(s.drift.nodes[0].warm_of, 4);
	assert_int_equal(s.drift.nodes[0].warm_points, 4);
	assert_float_equal(s.drift.nodes[0].warm_pct, 20, 1.5);
	assert_false(s.drift.nodes[0].significant);
	assert_true(s.drift.nodes[1].warmup);
	assert_float_equal(s.drift.nodes[1].change_pct, 100 * (pow(1.003, 19) - 1), 1.0);
	assert_int_equal(s.drift.nwarmup_nodes, 2);
	sweep_release(&s);
}

/* Before rounds (format 2): time is the order of a point's own back-to-back loops. */
static void test_plain_order(void **state)
{
	double d[2] = { 1.0, 0 };
	struct sweep s;

	(void)state;
	grid_run(&s, 2, 5, d, 0.3, 0, true);
	drift_analyze(&s);
	assert_false(s.drift.rounds);
	assert_false(s.drift.timed);
	assert_true(s.drift.nodes[0].significant);
	/* 1 % a run within each point, over the node's 20 passes (19 runs apart). */
	assert_float_equal(s.drift.nodes[0].change_pct, 100 * (pow(1.01, 19) - 1), 2.5);
	assert_false(s.drift.nodes[1].significant);
	sweep_release(&s);
}

/* The warm-up loops of job.warmup_loops are counted, and how far below they ran. */
static void test_warmup_passes(void **state)
{
	double d[2] = { 0, 0 };
	struct sweep s;
	int i;

	(void)state;
	grid_run(&s, 2, 4, d, 0.2, 0, false);
	for (i = 0; i < 4; i++)
		node_result_pass_add_at(&s.points[i].nodes[0], 900, 1, 1, true);
	drift_analyze(&s);
	assert_int_equal(s.drift.nodes[0].nwarmup, 4);
	assert_int_equal(s.drift.nodes[1].nwarmup, 0);
	assert_int_equal(s.drift.nwarmup_passes, 4);
	assert_float_equal(s.drift.nodes[0].warmup_pct, 10, 0.5);
	assert_true(isnan(s.drift.nodes[1].warmup_pct));
	/* They are not judged: 4 passes per point, as before. */
	assert_int_equal(s.drift.nodes[0].npasses, 16);
	sweep_release(&s);
}

/* Holm over many nodes: one drifting node among 40 quiet ones is still named, and the quiet
 * ones stay quiet. */
static void test_holm_many_nodes(void **state)
{
	double d[41] = { 0 };
	struct sweep s;
	int k, named = 0;

	(void)state;
	d[17] = 0.8;
	grid_run(&s, 41, 5, d, 1.0, 0, false);
	drift_analyze(&s);
	for (k = 0; k < 41; k++)
		named += s.drift.nodes[k].significant;
	assert_true(s.drift.nodes[17].significant);
	assert_int_equal(named, 1);
	sweep_release(&s);
}

/* The same configuration measured in two blocks minutes apart (an axis' baseline and the next
 * axis' baseline, as in the demo), each block flat in itself, the second 8 % up on node 1:
 * the repeated configuration shares one intercept, so its move between the blocks is drift. */
static void test_step_between_blocks(void **state)
{
	char *t =
	        ctltest_plan(2, "{\"nr_requests\":128}",
	                     "[{\"param\":\"nr_requests\",\"values\":[64,128]}]", "grid", "5", "");
	struct config c64, c128;
	unsigned ctr = 5;
	struct sweep s;
	int b, i, r, k, run = 0;

	(void)state;
	ctltest_sweep_text(&s, t);
	free(t);
	c128 = s.plan.axes[0].values[1];
	c64 = s.plan.axes[0].values[0];
	for (b = 0; b < 2; b++) {
		int base = sweep_point_add(&s, ROLE_BASELINE, -1, b ? 0 : -1, &c128);

		sweep_point_add(&s, ROLE_CANDIDATE, -1, base, &c64);
		for (r = 1; r <= 5; r++)
			for (i = base; i < base + 2; i++, run++)
				for (k = 0; k < 2; k++) {
					double v = 1000 * (b && k == 0 ? 1.08 : 1.0) *
					           (1 + noise(&ctr, 0.003));

					s.points[i].nodes[k].state = NODE_OK;
					node_result_pass_add_at(&s.points[i].nodes[k], v, b * 5 + r,
					                        1e9 + run * 10, false);
				}
	}
	for (i = 0; i < 4; i++)
		s.points[i].loops_run = 5;
	drift_analyze(&s);
	assert_true(s.drift.nodes[0].significant);
	assert_true(s.drift.nodes[0].change_pct > 4);
	assert_false(s.drift.nodes[1].significant);
	sweep_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drift_rounds),
		cmocka_unit_test(test_no_drift),
		cmocka_unit_test(test_warmup),
		cmocka_unit_test(test_plain_order),
		cmocka_unit_test(test_warmup_passes),
		cmocka_unit_test(test_holm_many_nodes),
		cmocka_unit_test(test_step_between_blocks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
