/* test_ctl_sweep.c -- the sweep data model: points, node results, pass storage, codes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ctltest.h"
#include "model/sweep.h"
#include "plan/plan.h"
#include "plan/plan_parse.h"
#include "testutil.h"

static void sweep_new(struct sweep *s)
{
	const char *t = "{\"name\":\"t\",\"nodes\":[{\"name\":\"a\",\"url\":\"http://h:1\","
	                "\"device\":\"sda\"},{\"name\":\"b\",\"url\":\"http://h:2\",\"device\":"
	                "\"sdb\"}],\"baseline\":{\"nr_requests\":128},"
	                "\"axes\":[{\"param\":\"nr_requests\",\"values\":[64]}],"
	                "\"job\":{\"loops\":3}}";
	struct plan p;
	struct err e;

	assert_int_equal(plan_parse(t, NULL, &p, &e), 0);
	sweep_init(s, &p);
}

static void test_points(void **state)
{
	struct sweep s;
	struct config c = { 0 };
	int i;

	(void)state;
	sweep_new(&s);
	assert_int_equal(ctltest_best(&s, -1), -1);
	assert_int_equal(s.outcome, OUTCOME_PENDING);
	assert_string_equal(s.status, "running");
	assert_string_equal(s.plan.name, "t");
	s.node_dropped[1] = true;
	/* Enough points to grow the array several times. */
	for (i = 0; i < 40; i++) {
		config_set(&c, "nr_requests", i % 2 ? "64" : "128", true);
		assert_int_equal(
		        sweep_point_add(&s, i ? ROLE_CANDIDATE : ROLE_BASELINE, -1, i ? 0 : -1, &c),
		        i);
	}
	assert_int_equal(s.npoints, 40);
	assert_int_equal(s.points[39].index, 39);
	assert_int_equal(s.points[0].ref, -1);
	assert_int_equal(s.points[5].ref, 0);
	assert_string_equal(config_get(&s.points[5].cfg, "nr_requests")->value, "64");
	/* A node dropped earlier starts every new point dropped. */
	assert_int_equal(s.points[7].nodes[0].state, NODE_PENDING);
	assert_int_equal(s.points[7].nodes[1].state, NODE_DROPPED);
	assert_true(isnan(s.points[7].delta_pct));
	assert_true(isnan(s.points[7].nodes[0].delta_pct));
	sweep_release(&s);
}

/* Passes are appended without a fixed limit: a point can run again and again. */
static void test_passes_grow(void **state)
{
	struct sweep s;
	struct config c = { 0 };
	struct node_result *r;
	int i;

	(void)state;
	sweep_new(&s);
	sweep_point_add(&s, ROLE_BASELINE, -1, -1, &c);
	r = &s.points[0].nodes[0];
	for (i = 0; i < 3 * PLAN_LOOPS_MAX; i++)
		node_result_pass_add(r, i * 1.5);
	assert_int_equal(r->npasses, 3 * PLAN_LOOPS_MAX);
	assert_float_equal(r->passes[0], 0, 0);
	assert_float_equal(r->passes[3 * PLAN_LOOPS_MAX - 1], (3 * PLAN_LOOPS_MAX - 1) * 1.5, 0);
	assert_int_equal(s.points[0].nodes[1].npasses, 0);
	sweep_release(&s);
}

/* A job's figures handed over in one call at each poll: the read-back, only the passes the node
 * lacks (each with its series), the mkfs command; a figure that is no measurement stops it. */
static void test_job_record(void **state)
{
	static const double passes[] = { 10, 11, 12, INFINITY };
	static const double series[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct sweep s;
	struct config c = { 0 }, applied = { 0 };
	struct sweep_job_figures jf = {
		.passes = passes, .npasses = 2, .round = 3, .started_at = 100, .warmup = true
	};
	struct node_result *r;
	char why[128];

	(void)state;
	sweep_new(&s);
	sweep_point_add(&s, ROLE_BASELINE, -1, -1, &c);
	r = &s.points[0].nodes[0];
	assert_int_equal(sweep_node_job_record(r, &jf, why, sizeof(why)), -1);
	assert_int_equal(r->nwarmup, 2); /* a warm-up run's passes */
	assert_int_equal(r->npasses, 0);
	assert_null(r->applied);
	config_set(&applied, "nr_requests", "128", true);
	jf = (struct sweep_job_figures){ .applied = &applied,
		                         .adjusted = 1,
		                         .passes = passes,
		                         .npasses = 1,
		                         .series = series,
		                         .nseries = 2,
		                         .round = 4,
		                         .mkfs = "mkfs.xfs -f /dev/sda" };
	assert_int_equal(sweep_node_job_record(r, &jf, why, sizeof(why)), -1);
	jf.npasses = 3; /* the next poll: two more */
	assert_int_equal(sweep_node_job_record(r, &jf, why, sizeof(why)), -1);
	assert_int_equal(r->npasses, 3);
	assert_float_equal(r->passes[2], 12, 0);
	assert_int_equal(r->pass_round[2], 4);
	assert_float_equal(r->series[2 * 2 + 1], 6, 0);
	assert_string_equal(r->applied->s[0].value, "128");
	assert_int_equal(r->adjusted_mask, 1);
	assert_string_equal(r->mkfs, "mkfs.xfs -f /dev/sda");
	jf.npasses = 4;
	jf.mkfs = "mkfs.xfs -f -i size=1024 /dev/sda";
	assert_int_equal(sweep_node_job_record(r, &jf, why, sizeof(why)), 3);
	assert_non_null(strstr(why, "not a measurement"));
	assert_int_equal(r->npasses, 3);
	assert_string_equal(r->mkfs, "mkfs.xfs -f /dev/sda"); /* nothing after the refusal */
	sweep_release(&s);
}

static void test_codes(void **state)
{
	int i;

	(void)state;
	for (i = ROLE_BASELINE; i <= ROLE_FINAL; i++)
		assert_int_equal(sweep_role_parse(sweep_role_code((enum point_role)i)), i);
	for (i = NODE_PENDING; i <= NODE_DROPPED; i++)
		assert_int_equal(sweep_node_state_parse(sweep_node_state_code((enum node_state)i)),
		                 i);
	for (i = EFFECT_GAIN; i <= EFFECT_HETEROGENEOUS; i++)
		assert_int_equal(sweep_verdict_parse(sweep_verdict_code((enum effect_decision)i)),
		                 i);
	for (i = OUTCOME_PENDING; i <= OUTCOME_NO_FIGURES; i++)
		assert_int_equal(sweep_outcome_parse(sweep_outcome_code((enum sweep_outcome)i)), i);
	/* Codes, not words: stable snake_case for the store. */
	assert_string_equal(sweep_verdict_code(EFFECT_EQUIVALENT), "equivalent");
	assert_string_equal(sweep_verdict_code(EFFECT_HETEROGENEOUS), "heterogeneous");
	assert_null(sweep_verdict_code(EFFECT_NA));
	assert_int_equal(sweep_verdict_parse("na"), -1);
	assert_int_equal(sweep_verdict_parse("none"), -1);
	assert_string_equal(sweep_outcome_code(OUTCOME_BASELINE_FAILED), "baseline_failed");
	assert_string_equal(sweep_verdict_code(EFFECT_INCONCLUSIVE), "inconclusive");
	assert_int_equal(sweep_role_parse("bogus"), -1);
	assert_int_equal(sweep_outcome_parse(""), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_points),
		cmocka_unit_test(test_passes_grow),
		cmocka_unit_test(test_job_record),
		cmocka_unit_test(test_codes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
