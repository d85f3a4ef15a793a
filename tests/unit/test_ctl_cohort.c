/* test_ctl_cohort.c -- cohorts: nodes grouped by cohort_by over their identity and labels, the
 * between-cohort test on hand-computed numbers, rows split (or not) by cohort, each cohort's
 * own decision, disagreeing nodes named within a cohort, and the best per cohort. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctltest.h"
#include "judge/analysis.h"
#include "judge/cohort.h"
#include "model/words.h"
#include "render/report.h"
#include "run/schedule.h"
#include "run/strategy.h"
#include "testutil.h"
#include "xmalloc.h"

/* Set node k's model and firmware (NULL: not reported). */
static void ident(struct sweep *s, int k, const char *model, const char *fw)
{
	sweep_identity_set(s, k, IDF_MODEL, model);
	sweep_identity_set(s, k, IDF_FIRMWARE, fw);
}

static void test_grouping(void **state)
{
	char *t =
	        ctltest_plan(6, "{\"x\":0}", "[{\"param\":\"x\",\"values\":[1]}]", "grid", "5", "");
	struct buf b = BUF_INIT;
	struct sweep s;

	(void)state;
	ctltest_sweep_text(&s, t);
	free(t);
	ident(&s, 0, "ST300", "2.3");
	ident(&s, 1, "ST300", "2.1");
	ident(&s, 2, "ST300", "2.3");
	ident(&s, 3, NULL, NULL); /* an agent that reports no identity */
	ident(&s, 4, "ST300", "2.1");
	ident(&s, 5, "ST300", NULL); /* a model without firmware is a cohort of its own */
	cohort_assign(&s);
	assert_int_equal(s.ncohorts, 4);
	/* In the order of their first node. */
	assert_int_equal(s.cohorts[0].nnodes, 2);
	assert_int_equal(s.cohorts[0].nodes[0], 0);
	assert_int_equal(s.cohorts[0].nodes[1], 2);
	assert_int_equal(s.cohorts[1].nodes[0], 1);
	assert_int_equal(s.cohorts[1].nodes[1], 4);
	assert_int_equal(s.cohorts[2].nnodes, 1);
	assert_int_equal(s.cohorts[2].nodes[0], 3);
	assert_int_equal(s.cohorts[3].nodes[0], 5);
	assert_int_equal(s.cohort_of[4], 1);
	assert_int_equal(s.cohort_of[5], 3);
	assert_string_equal(sweep_cohort_value(&s, 1, 1), "2.1");
	assert_string_equal(sweep_cohort_value(&s, 2, 0), "(none)");
	sweep_cohort_key(&s, 0, &b);
	assert_string_equal(b.data, "model=ST300 firmware=2.3");
	buf_reset(&b);
	words_cohorts(&s, &b);
	assert_string_equal(b.data, "cohorts by model, firmware: 4\n"
	                            "  model=ST300 firmware=2.3 (2 nodes): n1, n3\n"
	                            "  model=ST300 firmware=2.1 (2 nodes): n2, n5\n"
	                            "  model=(none) firmware=(none) (1 node): n4\n"
	                            "  model=ST300 firmware=(none) (1 node): n6\n");
	buf_release(&b);

	/* Grouping again replaces the cohorts: by model alone there are two. */
	s.plan.ncohort_by = 1;
	cohort_assign(&s);
	assert_int_equal(s.ncohorts, 2);
	assert_int_equal(s.cohorts[0].nnodes, 5);
	/* cohort_by []: one cohort of every node. */
	s.plan.ncohort_by = 0;
	cohort_assign(&s);
	assert_int_equal(s.ncohorts, 1);
	assert_int_equal(s.cohorts[0].nnodes, 6);
	sweep_release(&s);
}

/* Node labels and the kernel: label.KEY, a bare label name, and an identity field of the
 * host. */
static void test_grouping_labels(void **state)
{
	const char *t = "{\"name\":\"t\",\"nodes\":["
	                "{\"name\":\"a\",\"url\":\"http://h:1\",\"device\":\"sda\","
	                "\"labels\":{\"rack\":\"r1\",\"model\":\"lab\"}},"
	                "{\"name\":\"b\",\"url\":\"http://h:2\",\"device\":\"sda\","
	                "\"labels\":{\"rack\":\"r2\"}},"
	                "{\"name\":\"c\",\"url\":\"http://h:3\",\"device\":\"sda\","
	                "\"labels\":{\"rack\":\"r1\"}}],"
	                "\"baseline\":{\"x\":0},\"axes\":[{\"param\":\"x\",\"values\":[1]}],"
	                "\"job\":{\"fio\":{\"rw\":\"write\"}},"
	                "\"cohort_by\":[\"rack\",\"kernel\",\"label.model\"]}";
	struct buf b = BUF_INIT;
	struct sweep s;

	(void)state;
	ctltest_sweep_text(&s, t);
	sweep_identity_set(&s, 0, IDF_KERNEL, "6.1.0");
	sweep_identity_set(&s, 1, IDF_KERNEL, "6.1.0");
	sweep_identity_set(&s, 2, IDF_KERNEL, "6.1.0");
	sweep_identity_set(&s, 0, IDF_MODEL, "ST300"); /* label.model is the label, not this */
	sweep_identity_set(&s, 2, IDF_MODEL, "ST300");
	cohort_assign(&s);
	assert_int_equal(s.ncohorts, 3);
	sweep_cohort_key(&s, 0, &b);
	assert_string_equal(b.data, "rack=r1 kernel=6.1.0 label.model=lab");
	buf_reset(&b);
	sweep_cohort_key(&s, 2, &b);
	assert_string_equal(b.data, "rack=r1 kernel=6.1.0 label.model=(none)");
	assert_int_equal(s.cohort_of[1], 1);
	buf_release(&b);
	sweep_release(&s);
}

/* Q_between and its p-value, computed by hand (Python, double precision). */
static void test_between(void **state)
{
	const double t2[] = { 0.1, -0.1 }, v2[] = { 0.0004, 0.0009 };
	const double t3[] = { 0.05, 0.02, 0.08 }, v3[] = { 0.0001, 0.0004, 0.0025 };
	const double t4[] = { 0.05, NAN, 0.05, 0.02 }, v4[] = { 0.0001, 0.0004, 0.0001, -1 };
	struct cohort_test ct;

	(void)state;
	/* w = 2500, 1111.1; θ̄ = 0.0384615; Q = 2500 (0.0615385)² + 1111.1 (0.1384615)² =
	 * 30.769231; p = erfc(√(Q/2)) = 2.906e-8. */
	cohort_between(2, t2, v2, &ct);
	assert_int_equal(ct.ncohorts, 2);
	assert_int_equal(ct.df, 1);
	assert_float_equal(ct.q, 30.769230769230774, 1e-9);
	assert_float_equal(ct.p, 2.9060948200698178e-08, 1e-12);
	/* Three cohorts: θ̄ = 0.0451163, Q = 2.3023256 on 2 df, p = e^(−Q/2) = 0.316269. */
	cohort_between(3, t3, v3, &ct);
	assert_int_equal(ct.df, 2);
	assert_float_equal(ct.q, 2.302325581395349, 1e-9);
	assert_float_equal(ct.p, 0.3162688010656038, 1e-9);
	/* A cohort without a figure or with a negative variance is left out: two equal ones are
	 * left, Q = 0, p = 1. */
	cohort_between(4, t4, v4, &ct);
	assert_int_equal(ct.ncohorts, 2);
	assert_float_equal(ct.q, 0, 1e-15);
	assert_float_equal(ct.p, 1, 1e-12);
	/* One cohort: no test. */
	cohort_between(1, t2, v2, &ct);
	assert_int_equal(ct.ncohorts, 1);
	assert_true(isnan(ct.p));
}

static void test_split(void **state)
{
	const double a[] = { 0, 10, 4 }, b[] = { 0, -10, 12 };
	struct buf w = BUF_INIT;
	struct sweep s;

	(void)state;
	ctltest_cohort_sweep(&s, 8, 6, a, b, -1, 0);
	assert_int_equal(s.ncohorts, 2);
	/* x=1: +10 % on A, -10 % on B: split, each cohort's own decision. */
	assert_true(s.points[1].between.split);
	assert_true(s.points[1].between.p < 1e-6);
	assert_int_equal(s.points[1].verdict, EFFECT_COHORTS);
	assert_int_equal(s.points[1].cohort_fx[0].decision, EFFECT_GAIN);
	assert_int_equal(s.points[1].cohort_fx[1].decision, EFFECT_LOSS);
	assert_int_equal(s.points[1].cohort_fx[0].nnodes, 6);
	assert_float_equal(s.points[1].cohort_fx[0].delta_pct, 10, 0.5);
	assert_float_equal(s.points[1].cohort_fx[1].delta_pct, -10, 0.5);
	/* x=2: +4 % (below min_effect: not a gain) on A, +12 % on B: split too. */
	assert_true(s.points[2].between.split);
	assert_int_equal(s.points[2].cohort_fx[1].decision, EFFECT_GAIN);
	/* The best per cohort: A's is x=1, B's x=2; the fleet has none (every row split). */
	assert_int_equal(ctltest_best(&s, 0), 1);
	assert_int_equal(ctltest_best(&s, 1), 2);
	assert_true(s.cohorts[0].own);
	assert_float_equal(s.cohorts[1].decision.delta_pct, 12, 0.5);
	assert_int_equal(ctltest_best(&s, -1), -1);
	assert_int_equal(s.outcome, OUTCOME_BEST);
	/* The verdict says so by cohort; the best line names each cohort's best. */
	words_verdict(&s, &s.points[1], &w);
	assert_string_equal(w.data, "cohorts differ: model=A firmware=1.0 (6 nodes): significant "
	                            "gain +10.0 % [+8.8, +11.3]; model=B firmware=1.0 (2 nodes): "
	                            "significant loss \u221210.0 % [\u221211.9, \u22128.1]");
	buf_reset(&w);
	words_best_line(&s, &w);
	assert_string_equal(w.data, "best per cohort (the cohorts' effects differ):\n"
	                            "  model=A firmware=1.0 (6 nodes): x=1  +10.0 % (significant "
	                            "gain on all 6 nodes)\n"
	                            "  model=B firmware=1.0 (2 nodes): x=2  +12.0 % (significant "
	                            "gain on both nodes)\n");
	buf_release(&w);
	sweep_release(&s);
}

static void test_no_split(void **state)
{
	const double a[] = { 0, 10, 6 }, b[] = { 0, 10, 6 }, c[] = { 0, 20, 0 }, d[] = { 0, 8, 0 };
	struct buf w = BUF_INIT;
	struct sweep s;

	(void)state;
	/* The same +10 % on both cohorts: one fleet effect, as without cohorts. */
	ctltest_cohort_sweep(&s, 8, 6, a, b, -1, 0);
	assert_false(s.points[1].between.split);
	assert_int_equal(s.points[1].verdict, EFFECT_GAIN);
	assert_int_equal(ctltest_best(&s, -1), 1);
	assert_int_equal(ctltest_best(&s, 0), 1);
	assert_int_equal(ctltest_best(&s, 1), 1);
	assert_false(s.cohorts[0].own);
	words_best_line(&s, &w);
	assert_non_null(strstr(
	        w.data,
	        "best: x=1  +10.0 % (significant gain on all 8 nodes)\n  decided by its row"));
	buf_release(&w);
	sweep_release(&s);

	/* +20 % against +8 %: the effects differ (Q_between) but both cohorts gain: one row. */
	ctltest_cohort_sweep(&s, 8, 6, c, d, -1, 0);
	assert_true(s.points[1].between.p < 1e-6);
	assert_false(s.points[1].between.split);
	assert_int_equal(s.points[1].verdict, s.points[1].fx.decision);
	sweep_release(&s);
}

/* A node of a cohort at -10 % while the rest of it gains +10 %: named within its cohort. */
static void test_named_within(void **state)
{
	const double a[] = { 0, 10, 0 }, b[] = { 0, -10, 0 };
	struct buf w = BUF_INIT;
	struct sweep s;

	(void)state;
	/* 20 nodes of A gain +10 % but n3 loses 10 %; B's 4 nodes lose 10 %. */
	ctltest_cohort_sweep(&s, 24, 20, a, b, 2, -10);
	assert_true(s.points[1].between.split);
	assert_int_equal(s.points[1].cohort_fx[0].decision, EFFECT_HETEROGENEOUS);
	assert_int_equal(s.points[1].cohort_fx[0].ndisagree, 1);
	/* The cohort's node 2 is plan node 2 (n3). */
	assert_int_equal(s.cohorts[0].nodes[s.points[1].cohort_fx[0].disagree[0]], 2);
	words_verdict(&s, &s.points[1], &w);
	assert_non_null(strstr(w.data, "model=A firmware=1.0 (20 nodes): nodes disagree: n3 "
	                               "differs: \u221210.0 %"));
	assert_non_null(strstr(w.data, "model=B firmware=1.0 (4 nodes): significant loss"));
	buf_release(&w);
	sweep_release(&s);
}

/* The table: a split row says so, and a row per cohort follows it with the cohort's nodes,
 * Δ and own decision; the fleet-scale table too. CSV names each node's cohort. */
static void test_table(void **state)
{
	const double a[] = { 0, 10, 6 }, b[] = { 0, -10, 6 };
	struct buf w = BUF_INIT;
	struct sweep s;

	(void)state;
	ctltest_cohort_sweep(&s, 8, 6, a, b, -1, 0);
	report_render(&s, REPORT_TABLE, &w);
	assert_non_null(strstr(w.data, "| by cohort             | cohorts differ (between "
	                               "cohorts p < 0.0001) |\n"));
	assert_non_null(strstr(w.data, "|   \u21b3 model=A firmware=1.0 (6 nodes) | 1095.6 \u00b1 "
	                               "24.1 |"));
	assert_non_null(strstr(w.data, "| 909.9 \u00b1 19.9  |        | \u221210.0 % "
	                               "[\u221211.9, \u22128.1] | significant loss "));
	/* x=2 is +6 % on both: one row, as without cohorts. */
	assert_non_null(strstr(w.data, "| +6.0 % [+5.0, +7.0]   | significant gain "));
	assert_non_null(strstr(w.data, "  model=B firmware=1.0 (2 nodes): x=2  +6.0 % "
	                               "(significant gain on both nodes)\n"));
	buf_reset(&w);
	report_render(&s, REPORT_CSV, &w);
	assert_non_null(strstr(w.data, ",node_disagrees,cohort,cohort_verdict,passes\n"));
	assert_non_null(strstr(w.data, ",model=B firmware=1.0,loss,887.292;"));
	sweep_release(&s);

	/* The fleet-scale table: each cohort's row with its own node columns. */
	buf_reset(&w);
	ctltest_cohort_sweep(&s, 24, 20, a, b, 2, -10);
	report_render(&s, REPORT_TABLE, &w);
	assert_non_null(strstr(w.data, "|   \u21b3 model=A firmware=1.0 (20 nodes) | 20/20 | "
	                               "1110.4 [898.2, 1125.4] | \u221210.0 / +10.0 / +10.0 %   "
	                               "| 19 / 1            |        | +8.9 % [+6.8, +11.1]  | "
	                               "nodes disagree: n3 differs: \u221210.0 %         |\n"));
	assert_non_null(strstr(w.data, "|   \u21b3 model=B firmware=1.0 (4 nodes)  | 4/4   |"));
	buf_release(&w);
	sweep_release(&s);
}

/* A stand-in for the runner with a per-cohort response, run as the sweep runs a batch: in
 * interleaved rounds (schedule.h), one pass of a point on every node per run, stamped with its
 * round. Node k's pass at its configuration is 1000 x factor(x on its model) x factor(y) x a
 * drift of +0.5 % per run over the sweep x (1 + up to 2 % of fixed noise). Model A gains 10 % at
 * x=1 and loses 10 % at x=2, model B the other way round; y=1 gains 8 % on both. The drift
 * would read as an effect were the rows not judged within rounds, per cohort too. */
static int runs_done; /* over the sweep: the drift's clock */

static void cohort_run(struct sweep *s, const struct strategy_batch *b)
{
	struct schedule sc = { 0 };
	int i, k;

	schedule_batch(s, b, &sc);
	for (i = 0; i < sc.n; i++) {
		struct point *p = &s->points[sc.runs[i].point];
		int round = sc.runs[i].round;

		sweep_point_loops_add(s, p->index, 1);
		for (k = 0; k < s->plan.nnodes; k++) {
			const struct config *c = sweep_node_cfg(p, k);
			bool a = !strcmp(s->identity[k].field[IDF_MODEL], "A");
			const char *x = config_get(c, "x")->value, *y = config_get(c, "y")->value;
			double f = 1000;

			f *= !strcmp(x, "1")   ? (a ? 1.10 : 0.90)
			     : !strcmp(x, "2") ? (a ? 0.90 : 1.10)
			                       : 1;
			f *= !strcmp(y, "1") ? 1.08 : 1;
			f *= pow(1.005, runs_done);
			f *= 1 + 0.02 * sin(1.7 * k + 2.3 * p->index + 3.1 * p->nodes[k].npasses);
			node_result_pass_add_at(&p->nodes[k], f, round, 1e9 + runs_done, false);
			p->nodes[k].state = NODE_OK;
		}
		runs_done++;
		analysis_point_ran(s, p->index);
	}
	schedule_release(&sc);
}

/* Sequential per cohort: axis x splits (A wants 1, B wants 2), so axis y runs over each
 * cohort's own x on its nodes, and the final confirmation judges each cohort's configuration
 * against the original baseline: each cohort's best is its own. */
static void test_sequential_per_cohort(void **state)
{
	char *t = ctltest_plan(
	        8, "{\"x\":0,\"y\":0}",
	        "[{\"param\":\"x\",\"values\":[1,2]},{\"param\":\"y\",\"values\":[1]}]",
	        "sequential", "5", "");
	struct strategy_batch b = { 0 };
	struct buf w = BUF_INIT;
	const struct point *fin;
	struct sweep s;
	int k;

	(void)state;
	ctltest_sweep_text(&s, t);
	free(t);
	for (k = 0; k < 8; k++)
		ident(&s, k, k < 5 ? "A" : "B", "1.0");
	cohort_assign(&s);
	runs_done = 0;
	while (strategy_next(&s, &b) > 0)
		cohort_run(&s, &b);
	strategy_batch_release(&b);
	analysis_sweep_closed(&s);
	/* Axis x: baseline, x=1, x=2; axis y: its baseline and y=1 over each cohort's x; the
	 * original baseline measured again and the final confirmation beside it. */
	assert_int_equal(s.npoints, 7);
	assert_true(sweep_has_rounds(&s));
	assert_int_equal(s.points[5].role, ROLE_BASELINE);
	assert_int_equal(s.points[5].ref, 0);
	assert_int_equal(s.points[6].ref, 5);
	assert_true(s.points[1].between.split && s.points[2].between.split);
	assert_true(sweep_point_mixed(&s, &s.points[3]));
	assert_string_equal(config_get(sweep_node_cfg(&s.points[4], 0), "x")->value, "1");
	assert_string_equal(config_get(sweep_node_cfg(&s.points[4], 7), "x")->value, "2");
	assert_string_equal(config_get(sweep_node_cfg(&s.points[4], 7), "y")->value, "1");
	fin = &s.points[6];
	assert_int_equal(fin->role, ROLE_FINAL);
	assert_true(sweep_point_mixed(&s, fin));
	assert_int_equal(fin->verdict, EFFECT_COHORTS); /* one comparison per cohort */
	assert_int_equal(fin->cohort_fx[0].decision, EFFECT_GAIN);
	assert_int_equal(fin->cohort_fx[1].decision, EFFECT_GAIN);
	assert_int_equal(ctltest_best(&s, 0), 6);
	assert_int_equal(ctltest_best(&s, 1), 6);
	assert_string_equal(config_get((&s.cohorts[0].decision.cfg), "x")->value, "1");
	assert_string_equal(config_get((&s.cohorts[1].decision.cfg), "x")->value, "2");
	assert_int_equal(ctltest_best(&s, -1), -1);
	/* The table shows each cohort's value where they differ. */
	words_param(&s, fin, "x", &w);
	assert_string_equal(w.data, "1|2");
	buf_reset(&w);
	words_best_line(&s, &w);
	/* +18.8 % true; the nodes drifted about as much over the sweep (+0.5 % a run, +19 % over
	 * its 35 runs), which the rounds cancel: what is left is the 2 % noise's. */
	assert_non_null(strstr(w.data, "model=A firmware=1.0 (5 nodes): x=1 y=1  +18.7 %"));
	assert_non_null(strstr(w.data, "model=B firmware=1.0 (3 nodes): x=2 y=1  +18.5 %"));
	buf_release(&w);
	sweep_release(&s);
}

/* Adaptive per cohort: the race of axis x ends with its rows split, each cohort carries its own
 * winner into the race of y, and the final confirmation (job.loops.max) is judged per cohort. */
static void test_adaptive_per_cohort(void **state)
{
	char *t = ctltest_plan(
	        8, "{\"x\":0,\"y\":0}",
	        "[{\"param\":\"x\",\"values\":[1,2]},{\"param\":\"y\",\"values\":[1]}]", "adaptive",
	        "{\"min\":3,\"max\":8}", "");
	struct strategy_batch b = { 0 };
	struct sweep s;
	int k, i, fin = -1;

	(void)state;
	ctltest_sweep_text(&s, t);
	free(t);
	for (k = 0; k < 8; k++)
		ident(&s, k, k < 5 ? "A" : "B", "1.0");
	cohort_assign(&s);
	runs_done = 0;
	while (strategy_next(&s, &b) > 0)
		cohort_run(&s, &b);
	strategy_batch_release(&b);
	analysis_sweep_closed(&s);
	for (i = 0; i < s.npoints; i++)
		if (s.points[i].role == ROLE_FINAL)
			fin = i;
	assert_true(fin > 0);
	assert_true(sweep_point_mixed(&s, &s.points[fin]));
	assert_int_equal(s.points[fin].loops_run, 8);
	/* beside the original baseline measured again, as many loops, in the same rounds */
	assert_int_equal(s.points[s.points[fin].ref].role, ROLE_BASELINE);
	assert_int_equal(s.points[s.points[fin].ref].loops_run, 8);
	assert_int_equal(s.points[fin].verdict, EFFECT_COHORTS);
	assert_int_equal(ctltest_best(&s, 0), fin);
	assert_int_equal(ctltest_best(&s, 1), fin);
	assert_string_equal(config_get((&s.cohorts[0].decision.cfg), "x")->value, "1");
	assert_string_equal(config_get((&s.cohorts[1].decision.cfg), "x")->value, "2");
	assert_string_equal(config_get((&s.cohorts[1].decision.cfg), "y")->value, "1");
	sweep_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grouping),
		cmocka_unit_test(test_grouping_labels),
		cmocka_unit_test(test_between),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_no_split),
		cmocka_unit_test(test_named_within),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_sequential_per_cohort),
		cmocka_unit_test(test_adaptive_per_cohort),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
