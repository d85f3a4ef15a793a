/* test_ctl_suite.c -- suites: the plan's workloads, matrix and iozone expansions, decide and
 * guardrails; Holm, the guardrail check and the rules on hand-computed examples; a judged
 * suite sweep under each rule; a two-cohort suite judged per cohort; adaptive loops and the
 * adaptive race under the rule. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "buf.h"
#include "doc/sweepdoc.h"
#include "judge/analysis.h"
#include "judge/race.h"
#include "judge/suite.h"
#include "model/sweep.h"
#include "plan/plan.h"
#include "plan/plan_parse.h"
#include "render/report.h"
#include "run/strategy.h"
#include "store/ctlstore.h"
#include "ctltest.h"
#include "testutil.h"
#include "xmalloc.h"

static const char *head =
        "{\"name\":\"s\",\"nodes\":[{\"name\":\"a\",\"url\":\"http://127.0.0.1:1\","
        "\"device\":\"sda\"}],\"baseline\":{\"nr_requests\":128},"
        "\"axes\":[{\"param\":\"nr_requests\",\"values\":[256]}],\"strategy\":\"grid\","
        "\"job\":{\"engine\":\"fio\",\"fio\":{\"runtime_s\":1},\"loops\":3}";

static int parse(const char *tail, struct plan *p, struct err *e)
{
	char text[4096];

	snprintf(text, sizeof(text), "%s%s}", head, tail);
	return plan_parse(text, NULL, p, e);
}

static void expect_error(const char *tail, const char *needle)
{
	struct plan p;
	struct err e = { 0 };

	assert_int_equal(parse(tail, &p, &e), -EINVAL);
	if (!strstr(e.msg, needle))
		fail_msg("'%s' not in '%s'", needle, e.msg);
}

static void test_workloads(void **state)
{
	struct plan p;
	struct err e = { 0 };
	struct plan_series ser[PLAN_SERIES_MAX];

	(void)state;
	assert_int_equal(
	        parse(",\"workloads\":[{\"name\":\"seq read 1M\",\"fio\":{\"rw\":\"read\","
	              "\"bs\":\"1m\"}},{\"name\":\"rand read 4k\",\"fio\":{\"rw\":"
	              "\"randread\",\"bs\":\"4k\"},\"metric\":\"read.iops\"},{\"name\":"
	              "\"w\",\"fio\":{\"rw\":\"write\"},\"metric\":\"write.clat_p99_us\"}],"
	              "\"decide\":{\"rule\":\"primary\",\"primary\":\"rand read 4k\"},"
	              "\"guardrails\":[{\"metric\":\"read.clat_p99_us\",\"max_loss_pct\":"
	              "10},{\"metric\":\"write.clat_p99_us\",\"workload\":\"w\","
	              "\"max_loss_pct\":5}]",
	              &p, &e),
	        0);
	assert_int_equal(p.nworkloads, 3);
	assert_string_equal(p.workloads[0].name, "seq read 1M");
	assert_string_equal(p.workloads[0].metric, "read.bw_mib");
	assert_string_equal(p.workloads[0].fio_json, "{\"rw\":\"read\",\"bs\":\"1m\"}");
	assert_false(p.workloads[0].minimize);
	assert_string_equal(p.workloads[1].metric, "read.iops");
	assert_true(p.workloads[2].minimize); /* a latency, by its name */
	assert_int_equal(p.rule, PLAN_RULE_PRIMARY);
	assert_int_equal(p.primary, 1);
	assert_int_equal(p.lead, 1);
	/* The lead workload is the plain metric. */
	assert_string_equal(p.metric, "read.iops");
	assert_int_equal(p.nguardrails, 2);
	assert_string_equal(p.guardrails[0].workload, "*");
	assert_true(p.guardrails[0].minimize);
	/* The series: the 3 workloads' own, then p99 on the 3 workloads, then nothing more for
	 * w's write p99 (its own metric already). */
	assert_int_equal(plan_series_build(&p, ser), 6);
	assert_int_equal(ser[3].workload, 0);
	assert_string_equal(ser[3].metric, "read.clat_p99_us");
	assert_int_equal(ser[5].workload, 2);
	assert_int_equal(plan_series_find(ser, 6, 2, "write.clat_p99_us"), 2);
	plan_release(&p);
}

static void test_matrix(void **state)
{
	struct plan p;
	struct err e = { 0 };

	(void)state;
	assert_int_equal(parse(",\"matrix\":{\"rw\":[\"read\",\"randread\",\"write\","
	                       "\"randwrite\"],\"numjobs\":[1,4,16]}",
	                       &p, &e),
	                 0);
	assert_int_equal(p.nworkloads, 12);
	assert_string_equal(p.suite, "matrix");
	assert_string_equal(p.workloads[0].name, "read nj1");
	assert_string_equal(p.workloads[1].name, "read nj4");
	assert_string_equal(p.workloads[4].name, "randread nj4");
	assert_string_equal(p.workloads[4].fio_json, "{\"rw\":\"randread\",\"numjobs\":4}");
	assert_string_equal(p.workloads[11].name, "randwrite nj16");
	assert_string_equal(p.workloads[11].metric, "write.bw_mib");
	assert_string_equal(p.workloads[4].metric, "read.bw_mib");
	plan_release(&p);
	/* Another key, and the matrix's own metric. */
	assert_int_equal(parse(",\"matrix\":{\"rw\":[\"randread\"],\"iodepth\":[1,32],\"bs\":"
	                       "[\"4k\"],\"metric\":\"read.iops\"}",
	                       &p, &e),
	                 0);
	assert_int_equal(p.nworkloads, 2);
	assert_string_equal(p.workloads[1].name, "randread qd32 bs:4k");
	assert_string_equal(p.workloads[1].metric, "read.iops");
	plan_release(&p);
	expect_error(",\"matrix\":{\"rw\":[\"read\",\"write\",\"rw\"],\"numjobs\":[1,2,3,4,5,6]}",
	             "more than 16 workloads");
	expect_error(",\"matrix\":{\"rw\":[]}", "matrix.rw: expected a non-empty list");
}

static void test_iozone(void **state)
{
	static const char *const names[] = { "write",       "rewrite",      "read", "reread",
		                             "random read", "random write", "mixed" };
	struct plan p;
	struct err e = { 0 };
	int i;

	(void)state;
	assert_int_equal(parse(",\"suite\":\"iozone\"", &p, &e), 0);
	assert_int_equal(p.nworkloads, 7);
	for (i = 0; i < 7; i++)
		assert_string_equal(p.workloads[i].name, names[i]);
	assert_string_equal(p.workloads[6].fio_json, "{\"rw\":\"randrw\",\"rwmixread\":50}");
	assert_string_equal(p.workloads[0].metric, "write.bw_mib");
	assert_string_equal(p.workloads[3].metric, "read.bw_mib");
	plan_release(&p);
	assert_int_equal(parse(",\"suite\":\"iozone\",\"threads\":[1,6]", &p, &e), 0);
	assert_int_equal(p.nworkloads, 14);
	assert_string_equal(p.workloads[0].name, "write t1");
	assert_string_equal(p.workloads[7].name, "write t6");
	assert_string_equal(p.workloads[11].fio_json, "{\"rw\":\"randread\",\"numjobs\":6}");
	plan_release(&p);
	expect_error(",\"suite\":\"iozone\",\"threads\":[1,2,4]", "at most 2 thread counts");
	expect_error(",\"suite\":\"bonnie\"", "the only preset is \"iozone\"");
	expect_error(",\"threads\":[1]", "threads: only the iozone suite");
}

static void test_plan_errors(void **state)
{
	(void)state;
	expect_error(",\"workloads\":[]", "workloads: expected a non-empty array");
	expect_error(",\"workloads\":[{\"name\":\" x\"}]", "workloads[0]: name ' x' must be");
	expect_error(",\"workloads\":[{\"name\":\"x/y\"}]", "workloads[0]: name 'x/y'");
	expect_error(",\"workloads\":[{\"name\":\"x\"},{\"name\":\"x\"}]",
	             "workloads[1]: name 'x' is given twice");
	expect_error(",\"workloads\":[{\"name\":\"x\",\"size\":1}]", "workloads[0]");
	expect_error(",\"workloads\":[{\"name\":\"x\"}],\"suite\":\"iozone\"", "one of workloads");
	expect_error(",\"decide\":{\"rule\":\"mean\"}", "decide: only a suite");
	expect_error(",\"guardrails\":[]", "guardrails: only a suite");
	expect_error(",\"workloads\":[{\"name\":\"x\"}],\"decide\":{\"rule\":\"best\"}",
	             "decide.rule: 'best' is not one of no_loss, primary, mean");
	expect_error(",\"workloads\":[{\"name\":\"x\"}],\"decide\":{\"rule\":\"primary\"}",
	             "decide.primary: required");
	expect_error(",\"workloads\":[{\"name\":\"x\"}],\"decide\":{\"rule\":\"primary\","
	             "\"primary\":\"y\"}",
	             "decide.primary: 'y' is not a workload");
	expect_error(",\"workloads\":[{\"name\":\"x\"}],\"decide\":{\"rule\":\"mean\","
	             "\"weights\":{\"x\":0}}",
	             "decide.weights: 'x': a weight is a positive number");
	expect_error(",\"workloads\":[{\"name\":\"x\"}],\"guardrails\":[{\"metric\":"
	             "\"read.clat_p99_us\"}]",
	             "guardrails[0]: max_loss_pct: required");
	expect_error(",\"workloads\":[{\"name\":\"x\"}],\"guardrails\":[{\"metric\":"
	             "\"read.clat_p99_us\",\"workload\":\"z\",\"max_loss_pct\":5}]",
	             "guardrails[0]: workload 'z' is not a workload");
}

static void test_holm(void **state)
{
	/* Holm by hand: p 0.01, 0.04, 0.03 -> sorted 0.01 x 3 = 0.03, 0.03 x 2 = 0.06,
	 * max(0.06, 0.04 x 1) = 0.06. At 5 % only the first claim stands. */
	struct suite_cell c[4] = { 0 };
	int k;

	(void)state;
	for (k = 0; k < 3; k++) {
		c[k].present = true;
		c[k].raw = EFFECT_GAIN;
	}
	c[0].p = 0.01;
	c[1].p = 0.04;
	c[2].p = 0.03;
	c[1].raw = EFFECT_LOSS;
	c[3].present = false; /* not in the family */
	c[3].raw = EFFECT_NA;
	c[3].p = NAN;
	suite_cells_holm(c, 4, 0.05, true);
	assert_float_equal(c[0].p_holm, 0.03, 1e-12);
	assert_float_equal(c[1].p_holm, 0.06, 1e-12);
	assert_float_equal(c[2].p_holm, 0.06, 1e-12);
	assert_true(isnan(c[3].p_holm));
	assert_int_equal(c[0].verdict, EFFECT_GAIN);
	assert_int_equal(c[1].verdict, EFFECT_INCONCLUSIVE);
	assert_int_equal(c[2].verdict, EFFECT_INCONCLUSIVE);
	/* Uncorrected (primary, mean): the raw decisions stand. */
	suite_cells_holm(c, 4, 0.05, false);
	assert_int_equal(c[1].verdict, EFFECT_LOSS);
	/* p of θ = 0.1 with SE 0.05: z = 2, normal 0.0455; t with 4 df 0.1161. */
	assert_float_equal(suite_p_value(0.1, 0.05, 0), 0.045500, 1e-5);
	assert_float_equal(suite_p_value(-0.1, 0.05, 4), 0.116117, 1e-5);
	assert_true(isnan(suite_p_value(0.1, 0, 4)));
}

/* A decided loss under no_loss settles its row only when Holm keeps it whatever the open
 * workloads do. p: A 0.02 (raw loss, stopped), B 0.001 (open), C 0.5 (open). Now: 0.001 x 3 =
 * 0.003, 0.02 x 2 = 0.04, so A's corrected loss stands; but B may still end at p = 1: then
 * 0.02 x 3 = 0.06 > 0.05 and the loss is withdrawn, so the row is not settled. With B stopped
 * (its 0.001 kept) A's worst is 0.04: settled. With A at 0.015: 0.015 x 3 = 0.045: settled. */
static void test_settled_holm(void **state)
{
	struct suite_row r = { 0 };
	struct suite_cell c[3] = { 0 };
	bool stopped[3] = { true, false, false };
	int k;

	(void)state;
	for (k = 0; k < 3; k++) {
		c[k].present = true;
		c[k].raw = EFFECT_INCONCLUSIVE;
	}
	c[0].raw = EFFECT_LOSS;
	c[0].p = 0.02;
	c[1].raw = EFFECT_GAIN;
	c[1].p = 0.001;
	c[2].p = 0.5;
	suite_cells_holm(c, 3, 0.05, true);
	assert_float_equal(c[0].p_holm, 0.04, 1e-12);
	assert_int_equal(c[0].verdict, EFFECT_LOSS);
	r.cells = c;
	suite_row_decide(&r, 3, (const bool[]){ false, false, false }, PLAN_RULE_NO_LOSS, 0);
	assert_int_equal(r.verdict, SUITE_LOSS);
	assert_float_equal(suite_cell_holm_worst(c, 3, stopped, 0), 0.06, 1e-12);
	assert_false(
	        suite_row_settled(&r, 3, stopped, false, false, true, PLAN_RULE_NO_LOSS, 0, 0.05));
	stopped[1] = true;
	assert_float_equal(suite_cell_holm_worst(c, 3, stopped, 0), 0.04, 1e-12);
	assert_true(
	        suite_row_settled(&r, 3, stopped, false, false, true, PLAN_RULE_NO_LOSS, 0, 0.05));
	stopped[1] = false;
	c[0].p = 0.015;
	suite_cells_holm(c, 3, 0.05, true);
	assert_float_equal(suite_cell_holm_worst(c, 3, stopped, 0), 0.045, 1e-12);
	assert_true(
	        suite_row_settled(&r, 3, stopped, false, false, true, PLAN_RULE_NO_LOSS, 0, 0.05));
	/* A cell that does not count has no worst. */
	c[2].present = false;
	assert_true(isnan(suite_cell_holm_worst(c, 3, stopped, 2)));
	/* Every workload stopped: settled (no loop moves any p). */
	c[0].p = 0.02;
	c[2].present = true;
	suite_cells_holm(c, 3, 0.05, true);
	suite_row_decide(&r, 3, (const bool[]){ false, false, false }, PLAN_RULE_NO_LOSS, 0);
	stopped[1] = stopped[2] = true;
	assert_true(
	        suite_row_settled(&r, 3, stopped, false, false, true, PLAN_RULE_NO_LOSS, 0, 0.05));
}

static void test_guardrail_check(void **state)
{
	struct effect fx = { 0 };
	struct suite_check c = { 0 };

	(void)state;
	fx.nused = 2;
	/* A p99 latency +30 %, its 90 % interval [20, 40]: a loss of 30, bounded by 40; a
	 * guardrail of 10 % is breached by 30 points. */
	fx.delta_pct = 30;
	fx.eq_low_pct = 20;
	fx.eq_high_pct = 40;
	suite_check_fill(&c, &fx, true, 10);
	assert_float_equal(c.loss_pct, 30, 1e-12);
	assert_float_equal(c.bound_pct, 40, 1e-12);
	assert_true(c.breached);
	assert_float_equal(c.over_pct, 30, 1e-12);
	/* Throughput -3 %, [-6, 0]: a loss of 3, bounded by 6: within 10 %, not within 5 %. */
	fx.delta_pct = -3;
	fx.eq_low_pct = -6;
	fx.eq_high_pct = 0;
	suite_check_fill(&c, &fx, false, 10);
	assert_float_equal(c.loss_pct, 3, 1e-12);
	assert_float_equal(c.bound_pct, 6, 1e-12);
	assert_false(c.breached);
	suite_check_fill(&c, &fx, false, 5);
	assert_true(c.breached);
	assert_float_equal(c.over_pct, 1, 1e-12);
	/* A latency that went down is no loss. */
	fx.delta_pct = -10;
	fx.eq_low_pct = -14;
	fx.eq_high_pct = -6;
	suite_check_fill(&c, &fx, true, 0);
	assert_false(c.breached);
	/* No figure: not shown within the limit. */
	fx.nused = 0;
	suite_check_fill(&c, &fx, true, 10);
	assert_true(c.breached);
}

static void cell(struct suite_cell *c, enum effect_decision d, double delta)
{
	memset(c, 0, sizeof(*c));
	c->present = true;
	c->raw = c->verdict = d;
	c->delta_pct = delta;
	c->low_pct = delta - 2;
	c->high_pct = delta + 2;
}

static void test_rules(void **state)
{
	struct suite_cell cells[3];
	struct suite_check checks[1];
	struct suite_row r = { .cells = cells, .checks = checks };
	bool minimize[3] = { false, false, true };

	(void)state;
	cell(&cells[0], EFFECT_GAIN, 10);
	cell(&cells[1], EFFECT_LOSS, -10);
	cell(&cells[2], EFFECT_EQUIVALENT, 1);
	cell(&r.mean, EFFECT_INCONCLUSIVE, -0.3);
	suite_row_decide(&r, 3, minimize, PLAN_RULE_NO_LOSS, 0);
	assert_int_equal(r.verdict, SUITE_LOSS);
	assert_int_equal(r.ngain, 1);
	assert_int_equal(r.nloss, 1);
	assert_float_equal(r.score_pct, -0.3, 1e-12);
	suite_row_decide(&r, 3, minimize, PLAN_RULE_PRIMARY, 0);
	assert_int_equal(r.verdict, SUITE_GAIN);
	assert_float_equal(r.score_pct, 10, 1e-12);
	suite_row_decide(&r, 3, minimize, PLAN_RULE_PRIMARY, 1);
	assert_int_equal(r.verdict, SUITE_LOSS);
	suite_row_decide(&r, 3, minimize, PLAN_RULE_MEAN, 0);
	assert_int_equal(r.verdict, SUITE_NO_GAIN);
	/* A latency primary: its Δ -8 % is a score of +8. */
	cell(&cells[2], EFFECT_GAIN, -8);
	suite_row_decide(&r, 3, minimize, PLAN_RULE_PRIMARY, 2);
	assert_float_equal(r.score_pct, 8, 1e-12);
	/* No loss anywhere, one gain: no_loss crowns it, unless a guardrail is breached. */
	cell(&cells[1], EFFECT_INCONCLUSIVE, 1);
	suite_row_decide(&r, 3, minimize, PLAN_RULE_NO_LOSS, 0);
	assert_int_equal(r.verdict, SUITE_GAIN);
	r.nchecks = 1;
	checks[0].breached = true;
	suite_row_decide(&r, 3, minimize, PLAN_RULE_NO_LOSS, 0);
	assert_int_equal(r.verdict, SUITE_VETOED);
	assert_int_equal(r.nbreaches, 1);
	cell(&r.mean, EFFECT_GAIN, 6);
	checks[0].breached = false;
	suite_row_decide(&r, 3, minimize, PLAN_RULE_MEAN, 0);
	assert_int_equal(r.verdict, SUITE_GAIN);
	assert_float_equal(r.score_pct, 6, 1e-12);
}

/* A deterministic noise in [-1, 1]. */
static double noise(unsigned *x)
{
	*x = *x * 1103515245u + 12345u;
	return ((double)((*x >> 8) % 20001) - 10000.0) / 10000.0;
}

/* A judged 2-node grid suite sweep: baseline and one candidate, 5 rounds; series w of the
 * candidate eff[w] % away from the baseline's, per-pass noise ±2 %. */
static void suite_sweep(struct sweep *s, const char *extra, const double *eff, int nser)
{
	char *plan = ctltest_plan(2, "{\"x\":0}", "[{\"param\":\"x\",\"values\":[1]}]", "grid", "5",
	                          extra);
	struct config c1 = { 0 };
	unsigned seed = 7;
	int i, k, j, q;

	ctltest_sweep_text(s, plan);
	free(plan);
	assert_int_equal(sweep_point_add(s, ROLE_BASELINE, -1, -1, &s->plan.baseline), 0);
	c1 = s->plan.axes[0].values[0];
	assert_int_equal(sweep_point_add(s, ROLE_CANDIDATE, 0, 0, &c1), 1);
	for (i = 0; i < 2; i++) {
		s->points[i].block = 0;
		s->points[i].loops_run = 5;
		for (k = 0; k < 2; k++) {
			struct node_result *r = &s->points[i].nodes[k];

			r->state = NODE_OK;
			for (q = 0; q < 5; q++) {
				double v[PLAN_SERIES_MAX];

				for (j = 0; j < nser; j++)
					v[j] = 1000.0 * (1 + (i ? eff[j] : 0) / 100) *
					       (1 + 0.02 * noise(&seed));
				node_result_pass_add_at(r, v[s->plan.lead], q + 1, 0, false);
				node_result_series_add(r, v, nser);
			}
		}
	}
	s->nrounds = 5;
	snprintf(s->status, sizeof(s->status), "completed");
	analysis_sweep_loaded(s);
}

#define WL2                                                                                        \
	",\"workloads\":[{\"name\":\"A\",\"fio\":{\"rw\":\"read\"}},{\"name\":\"B\",\"fio\":"      \
	"{\"rw\":\"randread\"}}]"

static void test_judged(void **state)
{
	/* A +10 %, B -10 %. */
	const double eff[4] = { 10, -10, 0, 0 };
	const double lat[4] = { 10, 0, 30, 0 }; /* A +10 %, its p99 +30 % */
	struct sweep s;

	(void)state;
	suite_sweep(&s, WL2, eff, 2);
	assert_non_null(s.suite);
	assert_int_equal(s.suite->nseries, 2);
	assert_int_equal(s.suite->rows[1].cells[0].verdict, EFFECT_GAIN);
	assert_int_equal(s.suite->rows[1].cells[1].verdict, EFFECT_LOSS);
	assert_int_equal(s.suite->rows[1].verdict, SUITE_LOSS);
	assert_int_equal(s.decision.state, DECISION_NONE);
	assert_int_equal(s.outcome, OUTCOME_BASELINE);
	/* The mean of the two ratios: √(1.1 × 0.9) - 1 = -0.5 %, about. */
	assert_float_equal(s.suite->rows[1].mean.delta_pct, 100 * (sqrt(1.1 * 0.9) - 1), 0.8);
	sweep_release(&s);

	suite_sweep(&s, WL2 ",\"decide\":{\"rule\":\"primary\",\"primary\":\"A\"}", eff, 2);
	assert_int_equal(s.suite->rows[1].verdict, SUITE_GAIN);
	assert_int_equal(s.decision.state, DECISION_CONFIRMED);
	assert_int_equal(s.decision.point, 1);
	assert_int_equal(s.outcome, OUTCOME_BEST);
	assert_float_equal(s.decision.delta_pct, 10, 1.5);
	sweep_release(&s);

	/* primary A with a guardrail on B's bandwidth: B's -10 % is beyond 5 %. */
	suite_sweep(&s,
	            WL2 ",\"decide\":{\"rule\":\"primary\",\"primary\":\"A\"},\"guardrails\":"
	                "[{\"metric\":\"read.bw_mib\",\"workload\":\"B\",\"max_loss_pct\":5}]",
	            eff, 2);
	assert_int_equal(s.suite->rows[1].verdict, SUITE_VETOED);
	assert_int_equal(s.suite->rows[1].nchecks, 1);
	assert_true(s.suite->rows[1].checks[0].breached);
	assert_int_equal(s.suite->rows[1].checks[0].workload, 1);
	assert_float_equal(s.suite->rows[1].checks[0].loss_pct, 10, 1.5);
	assert_int_equal(s.decision.state, DECISION_NONE);
	sweep_release(&s);

	/* A latency guardrail on every workload: series A, B, p99 of A, p99 of B. */
	suite_sweep(&s,
	            WL2 ",\"guardrails\":[{\"metric\":\"read.clat_p99_us\",\"max_loss_pct\":10}]",
	            lat, 4);
	assert_int_equal(s.suite->nseries, 4);
	assert_int_equal(s.suite->rows[1].cells[0].verdict, EFFECT_GAIN);
	assert_int_equal(s.suite->rows[1].nchecks, 2);
	assert_true(s.suite->rows[1].checks[0].breached);
	assert_false(s.suite->rows[1].checks[1].breached);
	assert_int_equal(s.suite->rows[1].verdict, SUITE_VETOED);
	assert_int_equal(s.decision.state, DECISION_NONE);
	sweep_release(&s);

	/* Without it, no_loss crowns A's gain. */
	suite_sweep(&s, WL2, lat, 2);
	assert_int_equal(s.suite->rows[1].verdict, SUITE_GAIN);
	assert_int_equal(s.decision.state, DECISION_CONFIRMED);
	sweep_release(&s);
}

/* A judged 4-node grid suite sweep in two cohorts by model (n1, n2 "X"; n3, n4 "Y"): the
 * candidate's series w is eff[cohort][w] % away from the baseline's, noise ±2 %. */
static void cohort_suite_sweep(struct sweep *s, const char *extra, const double eff[2][2])
{
	char *plan = ctltest_plan(4, "{\"x\":0}", "[{\"param\":\"x\",\"values\":[1]}]", "grid", "5",
	                          extra);
	unsigned seed = 11;
	int i, k, j, q;

	ctltest_sweep_text(s, plan);
	free(plan);
	for (k = 0; k < 4; k++)
		sweep_identity_set(s, k, IDF_MODEL, k < 2 ? "X" : "Y");
	sweep_point_add(s, ROLE_BASELINE, -1, -1, &s->plan.baseline);
	sweep_point_add(s, ROLE_CANDIDATE, 0, 0, &s->plan.axes[0].values[0]);
	for (i = 0; i < 2; i++) {
		s->points[i].block = 0;
		s->points[i].loops_run = 5;
		for (k = 0; k < 4; k++) {
			struct node_result *r = &s->points[i].nodes[k];

			r->state = NODE_OK;
			for (q = 0; q < 5; q++) {
				double v[2];

				for (j = 0; j < 2; j++)
					v[j] = 1000.0 * (1 + (i ? eff[k / 2][j] : 0) / 100) *
					       (1 + 0.02 * noise(&seed));
				node_result_pass_add_at(r, v[s->plan.lead], q + 1, 0, false);
				node_result_series_add(r, v, 2);
			}
		}
	}
	s->nrounds = 5;
	snprintf(s->status, sizeof(s->status), "completed");
	analysis_sweep_loaded(s);
}

/* Cohorts per suite: both cohorts gain 10 % on A; on B cohort X gains 10 % and cohort Y
 * loses 10 %. B's row splits by cohort, so the fleet's no_loss sees no loss and crowns x=1;
 * cohort Y's own suite row loses on B and keeps its baseline; the table and the document
 * say so. */
static void test_cohorts(void **state)
{
	const double eff[2][2] = { { 10, 10 }, { 10, -10 } };
	struct buf out = BUF_INIT;
	struct sweep s, back;
	struct err e = { 0 };
	json_t *doc, *co;
	char *text;

	(void)state;
	cohort_suite_sweep(&s, WL2 ",\"cohort_by\":[\"model\"]", eff);
	assert_int_equal(s.ncohorts, 2);
	assert_int_equal(s.suite->ncohorts, 2);
	assert_true(s.suite->wl[1].points[1].between.split);
	assert_false(s.suite->wl[0].points[1].between.split);
	/* The fleet: A gains, B is split (neither gain nor loss for the fleet). */
	assert_int_equal(s.suite->rows[1].cells[1].verdict, EFFECT_COHORTS);
	assert_int_equal(s.suite->rows[1].verdict, SUITE_GAIN);
	assert_int_equal(s.decision.state, DECISION_CONFIRMED);
	/* Cohort X: A (the fleet's figure, not split) and B (its own) gain. */
	assert_int_equal(s.suite->cohort_rows[0][1].cells[0].verdict, EFFECT_GAIN);
	assert_int_equal(s.suite->cohort_rows[0][1].cells[1].verdict, EFFECT_GAIN);
	assert_int_equal(s.suite->cohort_rows[0][1].verdict, SUITE_GAIN);
	assert_int_equal(s.cohorts[0].decision.state, DECISION_CONFIRMED);
	assert_int_equal(s.cohorts[0].decision.point, 1);
	assert_true(s.cohorts[0].own);
	assert_int_equal(s.cohorts[0].decision.nused, 2);
	/* Cohort Y: its own B loses, so under no_loss its suite decision is the baseline. */
	assert_int_equal(s.suite->cohort_rows[1][1].cells[1].verdict, EFFECT_LOSS);
	assert_float_equal(s.suite->cohort_rows[1][1].cells[1].delta_pct, -10, 1.5);
	assert_int_equal(s.suite->cohort_rows[1][1].verdict, SUITE_LOSS);
	assert_int_equal(s.cohorts[1].decision.state, DECISION_NONE);
	assert_true(sweep_cohort_decisions_differ(&s));
	assert_int_equal(s.outcome, OUTCOME_BEST);
	report_render(&s, REPORT_TABLE, &out);
	assert_non_null(strstr(out.data, "best per cohort under the rule (the cohorts' effects "
	                                 "differ):\n"));
	assert_non_null(strstr(out.data, "  model=X (2 nodes): x=1, mean Δ +"));
	assert_non_null(strstr(out.data,
	                       "  model=Y (2 nodes): none: no configuration passes the rule; the "
	                       "baseline stands\n"));
	/* Then each cohort's matrix: X's B is its own gain, Y's its own loss, each block ending
	 * with the cohort's decision. */
	{
		const char *x =
		        strstr(out.data, "\nmatrix of cohort model=X (2 nodes) (rule no_loss):\n");
		const char *y =
		        strstr(out.data, "\nmatrix of cohort model=Y (2 nodes) (rule no_loss):\n");
		const char *xd = strstr(out.data, "decision of model=X (2 nodes): x=1, mean Δ +");
		const char *yd = strstr(out.data, "decision of model=Y (2 nodes): none: no "
		                                  "configuration passes the rule; the baseline "
		                                  "stands\n");
		const char *row;

		assert_non_null(x);
		assert_non_null(y);
		assert_non_null(xd);
		assert_non_null(yd);
		assert_true(x < xd && xd < y && y < yd);
		row = strstr(x, "\nx=1  ");
		assert_non_null(row);
		assert_true(row < xd);
		assert_non_null(strstr(row, " gain  "));
		assert_true(strstr(row, " gain  ") < xd);
		row = strstr(y, "\nx=1  ");
		assert_non_null(row);
		assert_true(row < yd);
		assert_non_null(strstr(row, "] loss "));
		assert_true(strstr(row, "] loss ") < yd);
		assert_true(strstr(row, "  loss\n") < yd);
	}
	buf_release(&out);
	report_render(&s, REPORT_CSV, &out);
	assert_non_null(strstr(out.data, "\ncohort,point,configuration,workload,metric,"));
	assert_non_null(strstr(out.data, "\nmodel=Y,1,x=1,B,"));
	assert_non_null(strstr(out.data, ",loss,loss,false,loss,no_loss\n"));
	buf_release(&out);
	/* The document: each cohort's decision is its suite decision, and reading it back
	 * judges the same. */
	text = sweepdoc_write(&s);
	doc = json_loads(text, 0, NULL);
	assert_non_null(doc);
	co = json_object_get(doc, "cohorts");
	assert_int_equal(json_array_size(co), 2);
	assert_true(json_is_object(json_object_get(json_array_get(co, 0), "best")));
	assert_true(json_is_null(json_object_get(json_array_get(co, 1), "best")));
	/* The suite's cohorts: each one's matrix and its decision in words. */
	{
		json_t *su = json_object_get(doc, "suite");
		json_t *sc = json_object_get(su, "cohorts"), *row, *cell;

		assert_true(json_is_true(json_object_get(su, "cohorts_differ")));
		assert_int_equal(json_array_size(sc), 2);
		row = json_array_get(json_object_get(json_array_get(sc, 1), "matrix"), 0);
		assert_int_equal(json_integer_value(json_object_get(row, "point")), 1);
		assert_string_equal(json_string_value(json_object_get(row, "verdict")), "loss");
		cell = json_array_get(json_object_get(row, "cells"), 1);
		assert_string_equal(json_string_value(json_object_get(cell, "verdict")), "loss");
		assert_float_equal(json_real_value(json_object_get(cell, "delta_pct")), -10, 1.5);
		row = json_array_get(json_object_get(json_array_get(sc, 0), "matrix"), 0);
		assert_string_equal(json_string_value(json_object_get(row, "verdict")), "gain");
		assert_string_equal(
		        json_string_value(json_object_get(json_array_get(sc, 1), "words")),
		        "none: no configuration passes the rule; the baseline stands");
		assert_string_equal(
		        json_string_value(json_object_get(
		                json_object_get(json_array_get(sc, 0), "decision"), "state")),
		        "confirmed");
	}
	json_decref(doc);
	assert_int_equal(sweepdoc_parse(text, &back, &e), 0);
	analysis_sweep_loaded(&back);
	assert_int_equal(back.cohorts[1].decision.state, DECISION_NONE);
	assert_true(decision_equal(&back.cohorts[0].decision, &s.cohorts[0].decision));
	free(text);
	sweep_release(&back);
	sweep_release(&s);

	/* The same suite under primary A: every cohort gains on A, and they agree. */
	cohort_suite_sweep(&s,
	                   WL2 ",\"cohort_by\":[\"model\"],\"decide\":{\"rule\":\"primary\","
	                       "\"primary\":\"A\"}",
	                   eff);
	assert_int_equal(s.cohorts[0].decision.state, DECISION_CONFIRMED);
	assert_int_equal(s.cohorts[1].decision.state, DECISION_CONFIRMED);
	assert_float_equal(s.cohorts[1].decision.delta_pct, 10, 1.5);
	assert_false(sweep_cohort_decisions_differ(&s));
	sweep_release(&s);
}

/* Sequential: the strategy races on the lead workload and the final confirmation's row is
 * confirmed only when the rule crowns it. Points: 0 the baseline and 1 the axis' candidate
 * (rounds 1-5), 2 the original baseline again and 3 the final confirmation (rounds 6-10). */
static void sequential_sweep(struct sweep *s, const char *extra, const double *eff, int nser)
{
	char *plan = ctltest_plan(2, "{\"x\":0}", "[{\"param\":\"x\",\"values\":[1]}]",
	                          "sequential", "5", extra);
	unsigned seed = 9;
	int i, k, j, q;

	ctltest_sweep_text(s, plan);
	free(plan);
	sweep_point_add(s, ROLE_BASELINE, 0, -1, &s->plan.baseline);
	sweep_point_add(s, ROLE_CANDIDATE, 0, 0, &s->plan.axes[0].values[0]);
	sweep_point_add(s, ROLE_BASELINE, -1, -1, &s->plan.baseline);
	sweep_point_add(s, ROLE_FINAL, -1, 2, &s->plan.axes[0].values[0]);
	for (i = 0; i < 4; i++) {
		s->points[i].block = i < 2 ? 0 : 2;
		s->points[i].loops_run = 5;
		for (k = 0; k < 2; k++) {
			struct node_result *r = &s->points[i].nodes[k];

			r->state = NODE_OK;
			for (q = 0; q < 5; q++) {
				double v[PLAN_SERIES_MAX];

				for (j = 0; j < nser; j++)
					v[j] = 1000.0 * (1 + (i % 2 ? eff[j] : 0) / 100) *
					       (1 + 0.02 * noise(&seed));
				node_result_pass_add_at(r, v[s->plan.lead], q + 1 + (i < 2 ? 0 : 5),
				                        0, false);
				node_result_series_add(r, v, nser);
			}
		}
	}
	s->nrounds = 10;
	snprintf(s->status, sizeof(s->status), "completed");
	analysis_sweep_loaded(s);
}

static void test_sequential(void **state)
{
	const double eff[2] = { 10, -10 };
	struct sweep s;

	(void)state;
	/* The lead workload A gains, B loses: no_loss does not confirm the final row. */
	sequential_sweep(&s, WL2, eff, 2);
	assert_int_equal(s.suite->wl[0].decision.state, DECISION_CONFIRMED); /* A alone would */
	assert_int_equal(s.suite->rows[3].verdict, SUITE_LOSS);
	assert_int_equal(s.decision.state, DECISION_UNCONFIRMED);
	assert_int_equal(s.decision.basis, DECISION_BASIS_FINAL);
	assert_int_equal(s.decision.why, DECISION_WHY_NOT_CONFIRMED);
	assert_int_equal(s.decision.verdict, EFFECT_LOSS);
	assert_int_not_equal(s.outcome, OUTCOME_BEST);
	sweep_release(&s);
	/* primary A: the final row is confirmed. */
	sequential_sweep(&s, WL2 ",\"decide\":{\"rule\":\"primary\",\"primary\":\"A\"}", eff, 2);
	assert_int_equal(s.decision.state, DECISION_CONFIRMED);
	assert_int_equal(s.decision.point, 3);
	assert_int_equal(s.outcome, OUTCOME_BEST);
	sweep_release(&s);
}

/* Sequential on a suite: the axis' choice is the row the rule crowns, not the lead workload's
 * gain. Axis x's candidate gains 10 % on A (the lead) and loses 10 % on B: under no_loss axis
 * y runs over x's baseline value; under primary A over x=1. */
static int strategy_x_after_axis(const char *extra)
{
	const double eff[2] = { 10, -10 };
	char *plan = ctltest_plan(2, "{\"x\":0,\"y\":0}",
	                          "[{\"param\":\"x\",\"values\":[1]},{\"param\":\"y\","
	                          "\"values\":[1]}]",
	                          "sequential", "5", extra);
	struct strategy_batch b = { 0 };
	unsigned seed = 5;
	struct sweep s;
	int i, k, q, j, x = -1;

	ctltest_sweep_text(&s, plan);
	free(plan);
	assert_true(strategy_next(&s, &b) > 0);
	for (i = 0; i < b.n; i++) {
		struct point *p = &s.points[b.items[i].point];
		bool cand = p->role == ROLE_CANDIDATE;

		sweep_point_loops_add(&s, p->index, b.items[i].loops);
		for (k = 0; k < 2; k++) {
			for (q = 0; q < b.items[i].loops; q++) {
				double v[2];

				for (j = 0; j < 2; j++)
					v[j] = 1000 * (1 + (cand ? eff[j] : 0) / 100) *
					       (1 + 0.02 * noise(&seed));
				node_result_pass_add(&p->nodes[k], v[s.plan.lead]);
				node_result_series_add(&p->nodes[k], v, 2);
			}
			p->nodes[k].state = NODE_OK;
		}
		analysis_point_ran(&s, p->index);
	}
	assert_int_equal(s.points[1].verdict, EFFECT_GAIN); /* A, the lead, gains alone */
	assert_true(strategy_next(&s, &b) > 0);
	for (i = 0; i < s.npoints; i++)
		if (s.points[i].axis == 1)
			x = !strcmp(config_get(&s.points[i].cfg, "x")->value, "1");
	strategy_batch_release(&b);
	sweep_release(&s);
	return x;
}

static void test_sequential_strategy(void **state)
{
	(void)state;
	assert_int_equal(strategy_x_after_axis(WL2), 0);
	assert_int_equal(strategy_x_after_axis(WL2 ",\"decide\":{\"rule\":\"primary\","
	                                           "\"primary\":\"A\"}"),
	                 1);
}

/* Run s's strategy to its end: a pass of a node whose x is v gives workload j
 * 1000 x (1 + eff[v][j] / 100), noise ±2 %; every point analysed as it runs. */
static void suite_strategy_run(struct sweep *s, const double eff[][2])
{
	struct strategy_batch b = { 0 };
	unsigned seed = 13;
	int i, k, q, j, guard = 0;

	while (strategy_next(s, &b) > 0) {
		assert_true(++guard < 100);
		for (i = 0; i < b.n; i++) {
			struct point *p = &s->points[b.items[i].point];

			sweep_point_loops_add(s, p->index, b.items[i].loops);
			for (k = 0; k < s->plan.nnodes; k++) {
				long x = strtol(config_get(sweep_node_cfg(p, k), "x")->value, NULL,
				                10);

				for (q = 0; q < b.items[i].loops; q++) {
					double v[2];

					for (j = 0; j < 2; j++)
						v[j] = 1000 * (1 + eff[x][j] / 100) *
						       (1 + 0.02 * noise(&seed));
					node_result_pass_add(&p->nodes[k], v[s->plan.lead]);
					node_result_series_add(&p->nodes[k], v, 2);
				}
				p->nodes[k].state = NODE_OK;
			}
			analysis_point_ran(s, p->index);
		}
	}
	strategy_batch_release(&b);
	snprintf(s->status, sizeof(s->status), "completed");
	analysis_sweep_closed(s);
}

/* Adaptive loops judge under the rule: x=1 gains 10 % on A, the lead (decided at the first
 * look), and +4 % on B (undecided at the first look at CV 2 %: inside min_effect, too close to
 * it for the equivalence test). Under primary A the row is settled at once (3 loops, as the
 * lead alone would be); under no_loss B's verdict is needed, so the row takes more looks,
 * until B is decided or job.loops.max. */
static void test_adaptive_loops_rule(void **state)
{
	const double eff[2][2] = { { 0, 0 }, { 10, 4 } };
	struct sweep s;
	char *plan;

	(void)state;
	plan = ctltest_plan(2, "{\"x\":0}", "[{\"param\":\"x\",\"values\":[1]}]", "grid",
	                    "{\"min\":3,\"max\":8}",
	                    WL2 ",\"decide\":{\"rule\":\"primary\",\"primary\":\"A\"}");
	ctltest_sweep_text(&s, plan);
	free(plan);
	suite_strategy_run(&s, eff);
	assert_true(s.suite->rows[1].settled);
	assert_int_equal(s.points[1].loops_run, 3);
	assert_int_equal(s.decision.state, DECISION_CONFIRMED);
	sweep_release(&s);

	plan = ctltest_plan(2, "{\"x\":0}", "[{\"param\":\"x\",\"values\":[1]}]", "grid",
	                    "{\"min\":3,\"max\":8}", WL2);
	ctltest_sweep_text(&s, plan);
	free(plan);
	suite_strategy_run(&s, eff);
	assert_int_equal(s.suite->wl[0].points[1].verdict, EFFECT_GAIN);
	/* More looks than the lead needed, until B's verdict is decided (here equivalent, at
	 * the third look) or the last look. */
	assert_true(s.points[1].loops_run > 3);
	assert_true(s.points[0].loops_run >= s.points[1].loops_run);
	assert_true(s.suite->wl[1].points[1].fx.stop);
	assert_true(s.suite->wl[1].points[1].verdict == EFFECT_EQUIVALENT ||
	            s.points[1].loops_run == 8);
	assert_true(s.suite->rows[1].settled);
	sweep_release(&s);
}

/* The adaptive race judges under the rule: x=1 gains 10 % on A (the lead) and loses 10 % on
 * B; x=2 gains 6 % on both. On the lead alone x=1 leads the race; under no_loss its row is a
 * settled loss and it leaves the race ("rule"), x=2 winning and confirmed; under primary A
 * x=1 wins. */
static void test_adaptive_race_rule(void **state)
{
	const double eff[3][2] = { { 0, 0 }, { 10, -10 }, { 6, 6 } };
	struct sweep s;
	char *plan;
	int w;

	(void)state;
	plan = ctltest_plan(2, "{\"x\":0}", "[{\"param\":\"x\",\"values\":[1,2]}]", "adaptive",
	                    "{\"min\":3,\"max\":6}", WL2);
	ctltest_sweep_text(&s, plan);
	free(plan);
	suite_strategy_run(&s, eff);
	assert_int_equal(s.points[1].race.state, RACE_DROPPED);
	assert_int_equal(s.points[1].race.why, RACE_WHY_RULE);
	assert_string_equal(sweep_race_why_code(s.points[1].race.why), "rule");
	w = race_winner(&s, 0);
	assert_int_equal(w, 2);
	assert_int_equal(s.decision.state, DECISION_CONFIRMED);
	assert_string_equal(config_get(&s.decision.cfg, "x")->value, "2");
	sweep_release(&s);

	plan = ctltest_plan(2, "{\"x\":0}", "[{\"param\":\"x\",\"values\":[1,2]}]", "adaptive",
	                    "{\"min\":3,\"max\":6}",
	                    WL2 ",\"decide\":{\"rule\":\"primary\",\"primary\":\"A\"}");
	ctltest_sweep_text(&s, plan);
	free(plan);
	suite_strategy_run(&s, eff);
	w = race_winner(&s, 0);
	assert_int_equal(w, 1);
	assert_int_equal(s.decision.state, DECISION_CONFIRMED);
	assert_string_equal(config_get(&s.decision.cfg, "x")->value, "1");
	sweep_release(&s);
}

/* The table, the matrix and CSV; the document's round trip gives the same decision. */
static void test_render_doc(void **state)
{
	const double lat[4] = { 10, 0, 30, 0 };
	struct buf out = BUF_INIT;
	struct sweep s, back;
	struct err e = { 0 };
	char *doc;

	(void)state;
	suite_sweep(&s,
	            WL2 ",\"guardrails\":[{\"metric\":\"read.clat_p99_us\",\"max_loss_pct\":10}]",
	            lat, 4);
	report_render(&s, REPORT_TABLE, &out);
	assert_non_null(strstr(out.data, "workload 1 of 2: 'A' (read.bw_mib, higher is better)"));
	assert_non_null(strstr(out.data, "workload 2 of 2: 'B'"));
	assert_non_null(
	        strstr(out.data, "matrix (2 workloads against the baseline; rule no_loss)"));
	assert_non_null(strstr(out.data, "vetoed (guardrail)"));
	assert_non_null(strstr(out.data, "guardrail 1 (read.clat_p99_us may lose at most 10 %) "
	                                 "breached by x=1 on 'A': loss +"));
	assert_non_null(strstr(out.data, "best (rule no_loss: a gain on some workload and a loss "
	                                 "on none, Holm-corrected within each configuration): "
	                                 "none"));
	buf_reset(&out);
	report_render(&s, REPORT_CSV, &out);
	assert_non_null(strstr(out.data, "point,configuration,workload,metric,delta_pct"));
	assert_non_null(strstr(out.data, ",A,read.bw_mib,"));
	assert_non_null(strstr(out.data, ",gain,gain,true,vetoed,no_loss\n"));
	assert_non_null(strstr(out.data, "1,1,read.clat_p99_us,A,10,"));
	buf_release(&out);
	doc = sweepdoc_write(&s);
	assert_non_null(
	        strstr(doc, "\"workloads\": [{\"name\": \"A\", \"metrics\": {\"read.bw_mib\":") ||
	        strstr(doc, "\"metrics\""));
	assert_int_equal(sweepdoc_parse(doc, &back, &e), 0);
	analysis_sweep_loaded(&back);
	assert_non_null(back.suite);
	assert_int_equal(back.suite->nseries, 4);
	assert_true(decision_equal(&back.decision, &s.decision));
	assert_int_equal(back.suite->rows[1].verdict, SUITE_VETOED);
	assert_float_equal(back.suite->rows[1].checks[0].loss_pct,
	                   s.suite->rows[1].checks[0].loss_pct, 1e-9);
	sweep_release(&back);
	/* A pass without its workloads is refused, naming it. */
	{
		char *bad = xstrdup(doc), *at = strstr(bad, "\"read.clat_p99_us\"");

		assert_non_null(at);
		memcpy(at + 1, "read.clat_p42_us", 16);
		assert_int_equal(sweepdoc_parse(bad, &back, &e), -EINVAL);
		assert_non_null(strstr(e.msg, "workloads: no 'read.clat_p99_us' for workload 'A'"));
		free(bad);
	}
	free(doc);
	sweep_release(&s);
}

/* compare on two suites: a section per workload, each workload compared on its own; a
 * workload the second sweep does not have is named. */
static void test_compare(void **state)
{
	const double ea[2] = { 10, -10 }, eb[2] = { 10, 0 };
	struct buf out = BUF_INIT;
	struct sweep a, b;

	(void)state;
	suite_sweep(&a, WL2, ea, 2);
	suite_sweep(&b, WL2, eb, 2);
	a.id = 3;
	b.id = 4;
	analysis_sweep_loaded(&a); /* each workload's sweep takes its suite's id */
	analysis_sweep_loaded(&b);
	assert_int_equal(report_compare_suites(&a, &b, false, &out), 4);
	assert_non_null(strstr(out.data, "compare suite sweep 3 \"t\" \u2192 sweep 4 \"t\": 2 "
	                                 "workloads, each compared on its own\n"));
	assert_non_null(strstr(out.data, "workload 1 of 2: 'A' (read.bw_mib)\ncompare sweep 3"));
	assert_non_null(strstr(out.data, "workload 2 of 2: 'B' (read.bw_mib)\ncompare sweep 3"));
	/* B: -10 % in sweep 3, 0 in sweep 4: the second section's candidate row gains. */
	assert_non_null(strstr(strstr(out.data, "workload 2 of 2"), "+1"));
	buf_release(&out);
	sweep_release(&b);
	suite_sweep(&b,
	            ",\"workloads\":[{\"name\":\"A\",\"fio\":{\"rw\":\"read\"}},{\"name\":\"C\","
	            "\"fio\":{\"rw\":\"write\"}}]",
	            eb, 2);
	b.id = 5;
	analysis_sweep_loaded(&b);
	assert_int_equal(report_compare_suites(&a, &b, true, &out), 2);
	assert_non_null(strstr(out.data, "sweep 5 has no workload 'B'\n"));
	buf_release(&out);
	sweep_release(&a);
	sweep_release(&b);
}

/* The controller's database keeps every series of a suite's passes (migration 11). */
static void test_store(void **state)
{
	const double lat[4] = { 10, 0, 30, 0 };
	char *dir = tu_tmpdir(), db[512];
	struct ctlstore *st;
	struct sweep s, l;
	struct err e = { 0 };
	int i;

	(void)state;
	snprintf(db, sizeof(db), "%s/ctl.db", dir);
	assert_int_equal(ctlstore_open(db, &st, &e), 0);
	suite_sweep(&s,
	            WL2 ",\"guardrails\":[{\"metric\":\"read.clat_p99_us\",\"max_loss_pct\":10}]",
	            lat, 4);
	assert_int_equal(ctlstore_sweep_create(st, &s, &e), 0);
	for (i = 0; i < s.npoints; i++)
		assert_int_equal(ctlstore_point_save(st, &s, i, &e), 0);
	assert_int_equal(ctlstore_sweep_finish(st, &s, &e), 0);
	assert_int_equal(ctlstore_sweep_load(st, s.id, &l, &e), 0);
	analysis_sweep_loaded(&l);
	assert_non_null(l.suite);
	assert_int_equal(l.points[1].nodes[1].nseries, 4);
	assert_float_equal(l.points[1].nodes[1].series[4 * 3 + 2],
	                   s.points[1].nodes[1].series[4 * 3 + 2], 0);
	assert_int_equal(l.suite->rows[1].verdict, SUITE_VETOED);
	assert_true(decision_equal(&l.decision, &s.decision));
	sweep_release(&l);
	sweep_release(&s);
	ctlstore_close(st);
	tu_rmrf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_workloads),
		cmocka_unit_test(test_matrix),
		cmocka_unit_test(test_iozone),
		cmocka_unit_test(test_plan_errors),
		cmocka_unit_test(test_holm),
		cmocka_unit_test(test_settled_holm),
		cmocka_unit_test(test_guardrail_check),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_judged),
		cmocka_unit_test(test_render_doc),
		cmocka_unit_test(test_store),
		cmocka_unit_test(test_sequential),
		cmocka_unit_test(test_sequential_strategy),
		cmocka_unit_test(test_cohorts),
		cmocka_unit_test(test_adaptive_loops_rule),
		cmocka_unit_test(test_adaptive_race_rule),
		cmocka_unit_test(test_compare),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
