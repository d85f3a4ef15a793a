/* test_ctl_verdict.c -- Student-t quantiles, Welch intervals, every verdict rule, the sweep's
 * outcome and best point, warnings, and the statistics of compare. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "ctltest.h"
#include "plan.h"
#include "stats.h"
#include "strategy.h"
#include "verdict.h"

static void summ(const double *x, int n, struct stats_summary *s)
{
	stats_summarize(x, n, s);
}

static void test_t_quantile_textbook(void **state)
{
	(void)state;
	assert_float_equal(stats_t_quantile(0.975, 1), 12.7062, 1e-4);
	assert_float_equal(stats_t_quantile(0.975, 2), 4.3027, 1e-4);
	assert_float_equal(stats_t_quantile(0.975, 4), 2.7764, 1e-4);
	assert_float_equal(stats_t_quantile(0.975, 8), 2.3060, 1e-4);
	assert_float_equal(stats_t_quantile(0.975, 10), 2.2281, 1e-4);
	assert_float_equal(stats_t_quantile(0.975, 30), 2.0423, 1e-4);
	assert_float_equal(stats_t_quantile(0.95, 5), 2.0150, 1e-4);
	assert_float_equal(stats_t_quantile(0.995, 3), 5.8409, 1e-4);
	assert_float_equal(stats_t_quantile(0.025, 4), -2.7764, 1e-4);
	assert_float_equal(stats_t_quantile(0.5, 7), 0.0, 1e-12);
	assert_float_equal(stats_t_quantile(0.975, 1e6), 1.95997, 1e-4);
	assert_true(isnan(stats_t_quantile(1.0, 3)));
	assert_true(isnan(stats_t_quantile(0.9, 0)));
	/* The CDF inverts the quantile, also for fractional df. */
	assert_float_equal(stats_t_cdf(stats_t_quantile(0.975, 5.5), 5.5), 0.975, 1e-12);
	assert_float_equal(stats_t_cdf(0, 3), 0.5, 1e-15);
}

static void test_betainc(void **state)
{
	(void)state;
	/* I_x(1,1) = x; I_x(a,1) = x^a; I_0.5(a,a) = 0.5. */
	assert_float_equal(stats_betainc(1, 1, 0.3), 0.3, 1e-12);
	assert_float_equal(stats_betainc(3, 1, 0.5), 0.125, 1e-12);
	assert_float_equal(stats_betainc(2.5, 2.5, 0.5), 0.5, 1e-12);
	assert_float_equal(stats_betainc(2, 3, 0), 0, 0);
	assert_float_equal(stats_betainc(2, 3, 1), 1, 0);
}

static void test_welch_df(void **state)
{
	(void)state;
	/* Equal variances and sizes: df = 2(n-1). */
	assert_float_equal(stats_welch_df(2.5, 5, 2.5, 5), 8.0, 1e-12);
	/* Hand-computed: (2.5/5 + 10/5)^2 / ((0.5^2)/4 + (2^2)/4) = 6.25 / 1.0625. */
	assert_float_equal(stats_welch_df(2.5, 5, 10, 5), 6.25 / 1.0625, 1e-12);
	/* One variance zero: the other's n-1. */
	assert_float_equal(stats_welch_df(0, 4, 3, 6), 5.0, 1e-12);
	assert_float_equal(stats_welch_df(0, 4, 0, 6), 0.0, 0);
}

static void test_welch_ci(void **state)
{
	double a[] = { 1, 2, 3, 4, 5 }, b[] = { 3, 4, 5, 6, 7 };
	struct stats_summary sa, sb;
	struct stats_welch w;

	(void)state;
	summ(a, 5, &sa);
	summ(b, 5, &sb);
	stats_welch(&sa, &sb, 0.95, &w);
	/* diff 2, se 1, df 8, t 2.3060 */
	assert_float_equal(w.diff, 2.0, 1e-12);
	assert_float_equal(w.se, 1.0, 1e-12);
	assert_float_equal(w.df, 8.0, 1e-12);
	assert_float_equal(w.ci_low, 2.0 - 2.306004, 1e-5);
	assert_float_equal(w.ci_high, 2.0 + 2.306004, 1e-5);
}

static void test_welch_n2(void **state)
{
	double a[] = { 10, 12 }, b[] = { 20, 22 };
	struct stats_summary sa, sb;
	struct stats_welch w;

	(void)state;
	summ(a, 2, &sa);
	summ(b, 2, &sb);
	stats_welch(&sa, &sb, 0.95, &w);
	/* var 2 each, se sqrt(2), df 2, t 4.302653 */
	assert_float_equal(w.df, 2.0, 1e-12);
	assert_float_equal(w.ci_low, 10 - 4.302653 * sqrt(2), 1e-5);
	assert_float_equal(w.ci_high, 10 + 4.302653 * sqrt(2), 1e-5);
}

static void test_welch_n1_undefined(void **state)
{
	double a[] = { 10 }, b[] = { 20, 22 };
	struct stats_summary sa, sb;
	struct stats_welch w;

	(void)state;
	summ(a, 1, &sa);
	summ(b, 2, &sb);
	stats_welch(&sa, &sb, 0.95, &w);
	assert_true(isnan(w.ci_low));
	assert_true(isnan(w.ci_high));
}

static void cmp(const double *a, int na, const double *b, int nb, bool minimize, double min_pct,
                struct verdict_cmp *c)
{
	struct stats_summary sa, sb;

	summ(a, na, &sa);
	summ(b, nb, &sb);
	verdict_compare(&sa, &sb, minimize, min_pct, c);
}

static void test_verdict_rules(void **state)
{
	double base[] = { 100, 100, 100 }, up10[] = { 110, 110, 110 }, down10[] = { 90, 90, 90 };
	double same[] = { 100, 100, 100 }, up2[] = { 102, 102, 102 };
	double noisy_base[] = { 1, 2, 3, 4, 5 }, noisy_up[] = { 3, 4, 5, 6, 7 };
	double n2a[] = { 10, 12 }, n2b[] = { 20, 22 };
	struct verdict_cmp c;

	(void)state;
	/* Zero variance: the interval collapses onto the difference. */
	cmp(base, 3, up10, 3, false, 5, &c);
	assert_float_equal(c.delta_pct, 10.0, 1e-9);
	assert_float_equal(c.ci_low_pct, 10.0, 1e-9);
	assert_int_equal(c.verdict, VERDICT_GAIN);
	cmp(base, 3, down10, 3, false, 5, &c);
	assert_int_equal(c.verdict, VERDICT_LOSS);
	/* Identical samples: no real difference. */
	cmp(base, 3, same, 3, false, 5, &c);
	assert_float_equal(c.delta_pct, 0.0, 1e-12);
	assert_int_equal(c.verdict, VERDICT_NONE);
	/* Significant but below min_effect: none. */
	cmp(base, 3, up2, 3, false, 5, &c);
	assert_int_equal(c.verdict, VERDICT_NONE);
	/* Large effect, interval spanning 0: unclear. Δ = 2/3, CI = (2 ± 2.306) / 3. */
	cmp(noisy_base, 5, noisy_up, 5, false, 5, &c);
	assert_float_equal(c.delta_pct, 200.0 / 3, 1e-9);
	assert_float_equal(c.ci_low_pct, 100.0 * (2 - 2.306004) / 3, 1e-3);
	assert_float_equal(c.ci_high_pct, 100.0 * (2 + 2.306004) / 3, 1e-3);
	assert_int_equal(c.verdict, VERDICT_UNCLEAR);
	/* n = 2: df 2, CI (10 ± 6.085) / 11 excludes 0. */
	cmp(n2a, 2, n2b, 2, false, 5, &c);
	assert_float_equal(c.delta_pct, 100.0 * 10 / 11, 1e-9);
	assert_int_equal(c.verdict, VERDICT_GAIN);
	/* minimize flips: lower latency is a gain. */
	cmp(base, 3, down10, 3, true, 5, &c);
	assert_int_equal(c.verdict, VERDICT_GAIN);
	assert_float_equal(c.delta_pct, -10.0, 1e-9);
	cmp(base, 3, up10, 3, true, 5, &c);
	assert_int_equal(c.verdict, VERDICT_LOSS);
	/* Exactly min_effect counts as an effect. */
	cmp(base, 3, (double[]){ 105, 105, 105 }, 3, false, 5, &c);
	assert_int_equal(c.verdict, VERDICT_GAIN);
	/* One pass each: no interval, a big change stays unclear, a tiny one is none. */
	cmp(base, 1, up10, 1, false, 5, &c);
	assert_int_equal(c.verdict, VERDICT_UNCLEAR);
	cmp(base, 1, same, 1, false, 5, &c);
	assert_int_equal(c.verdict, VERDICT_NONE);
}

static void test_seed003_strip_size(void **state)
{
	/* Seed 003, node1: 64 KiB strip (baseline) vs 128 KiB strip, 5 loops of 60 s. */
	double s64[] = { 1149.50, 1133.90, 1158.80, 1141.30, 1153.60 };
	double s128[] = { 1153.50, 1116.40, 1092.20, 1115.70, 1104.20 };
	double s256[] = { 1357.20, 1303.30, 1300.10, 1274.50, 1317.90 };
	struct verdict_cmp c;

	(void)state;
	cmp(s64, 5, s128, 5, false, 5, &c);
	/* means 1147.42 and 1116.40: Δ = -2.70 %, "no appreciable difference" */
	assert_float_equal(c.delta_pct, 100.0 * (1116.40 / 1147.42 - 1), 1e-9);
	assert_int_equal(c.verdict, VERDICT_NONE);
	cmp(s64, 5, s256, 5, false, 5, &c);
	/* 1310.60 vs 1147.42: +14.2 %, "notable improvement" */
	assert_float_equal(c.delta_pct, 100.0 * (1310.60 / 1147.42 - 1), 1e-9);
	assert_true(c.ci_low_pct > 0);
	assert_int_equal(c.verdict, VERDICT_GAIN);
}

static void test_row_verdicts(void **state)
{
	enum verdict g2[] = { VERDICT_GAIN, VERDICT_GAIN }, l2[] = { VERDICT_LOSS, VERDICT_LOSS };
	enum verdict n2[] = { VERDICT_NONE, VERDICT_NONE },
	             u2[] = { VERDICT_UNCLEAR, VERDICT_UNCLEAR };
	enum verdict mix[] = { VERDICT_GAIN, VERDICT_NONE }, na[] = { VERDICT_GAIN, VERDICT_NA };

	(void)state;
	assert_int_equal(verdict_row(g2, 2), ROW_GAIN);
	assert_int_equal(verdict_row(l2, 2), ROW_LOSS);
	assert_int_equal(verdict_row(n2, 2), ROW_NONE);
	assert_int_equal(verdict_row(u2, 2), ROW_INCONCLUSIVE);
	assert_int_equal(verdict_row(mix, 2), ROW_DISAGREE);
	assert_int_equal(verdict_row(na, 2), ROW_GAIN);
	assert_int_equal(verdict_row(na + 1, 1), ROW_NA);
}

/* A grid sweep with its 9 points and no results yet. */
static void grid_new(struct sweep *s, const char *extra)
{
	struct strategy_batch b = { 0 };

	ctltest_sweep(s, "grid", extra);
	assert_int_equal(strategy_next(s, &b), 9);
	strategy_batch_release(&b);
}

static void test_minimize_picks_lower(void **state)
{
	struct sweep s;
	int i;

	(void)state;
	grid_new(&s, ",\"metric\":\"write.clat_p99_us\",\"goal\":\"minimize\"");
	for (i = 0; i < s.npoints; i++)
		ctltest_fill(&s, i, 1000);
	ctltest_fill(&s, 3, 800);
	ctltest_fill(&s, 5, 700);
	ctltest_fill(&s, 7, 1300);
	verdict_sweep(&s);
	assert_int_equal(s.points[5].verdict, ROW_GAIN);
	assert_int_equal(s.points[7].verdict, ROW_LOSS);
	assert_int_equal(s.best, 5);
	assert_int_equal(s.outcome, OUTCOME_BEST);
	sweep_release(&s);
}

static void test_disagree_and_asymmetry(void **state)
{
	struct sweep s;
	int i, j;

	(void)state;
	grid_new(&s, "");
	for (i = 0; i < s.npoints; i++)
		ctltest_fill(&s, i, 100);
	/* Node b consistently ~20 % slower everywhere: one warning, as data. */
	for (i = 0; i < s.npoints; i++)
		for (j = 0; j < 3; j++)
			s.points[i].nodes[1].passes[j] *= 0.8;
	/* Point 1: a gains, b does not. */
	for (j = 0; j < 3; j++)
		s.points[1].nodes[0].passes[j] += 20;
	verdict_sweep(&s);
	assert_int_equal(s.points[1].nodes[0].verdict, VERDICT_GAIN);
	assert_int_equal(s.points[1].nodes[1].verdict, VERDICT_NONE);
	assert_int_equal(s.points[1].verdict, ROW_DISAGREE);
	assert_int_equal(s.nwarnings, 1);
	assert_int_equal(s.warnings[0].code, WARNING_NODE_OFFSET);
	assert_int_equal(s.warnings[0].node, 1);
	assert_int_equal(s.warnings[0].other, 0);
	assert_true(s.warnings[0].offset_pct < -15 && s.warnings[0].offset_pct > -25);
	assert_int_equal(s.warnings[0].npoints, 9);
	assert_true(s.points[2].spread_pct > 20.0);
	/* Nothing gained on every node: the baseline stays, honestly. */
	assert_int_equal(s.best, -1);
	assert_int_equal(s.outcome, OUTCOME_BASELINE);
	sweep_release(&s);
}

/* No best without something to compare: the baseline failed everywhere, or no
 * configuration produced a figure. */
static void test_outcomes(void **state)
{
	struct sweep s;
	int i, k;

	(void)state;
	grid_new(&s, "");
	for (i = 0; i < s.npoints; i++)
		ctltest_fill(&s, i, 100);
	for (k = 0; k < 2; k++) {
		s.points[0].nodes[k].state = NODE_FAILED;
		s.points[0].nodes[k].npasses = 0;
	}
	verdict_sweep(&s);
	assert_int_equal(s.outcome, OUTCOME_BASELINE_FAILED);
	assert_int_equal(s.best, -1);
	/* The baseline ran on one node: comparisons there; none gained. */
	ctltest_fill(&s, 0, 100);
	s.points[0].nodes[1].state = NODE_FAILED;
	verdict_sweep(&s);
	assert_int_equal(s.outcome, OUTCOME_BASELINE);
	/* Every configuration failed everywhere (a job every agent refuses). */
	ctltest_fill(&s, 0, 100);
	for (i = 1; i < s.npoints; i++)
		for (k = 0; k < 2; k++) {
			s.points[i].nodes[k].state = NODE_FAILED;
			s.points[i].nodes[k].npasses = 0;
		}
	verdict_sweep(&s);
	assert_int_equal(s.outcome, OUTCOME_NO_FIGURES);
	/* Interrupted before any configuration ran: not "no figures", the baseline stands. */
	for (i = 1; i < s.npoints; i++)
		for (k = 0; k < 2; k++)
			s.points[i].nodes[k].state = NODE_PENDING;
	verdict_sweep(&s);
	assert_int_equal(s.outcome, OUTCOME_BASELINE);
	sweep_release(&s);
	/* A sweep that never ran a point. */
	grid_new(&s, "");
	verdict_sweep(&s);
	assert_int_equal(s.outcome, OUTCOME_BASELINE_FAILED);
	sweep_release(&s);
}

/* compare: sweep b against sweep a, point by point (matched by parameters), node by node
 * (matched by name). */
static void test_sweeps_compare(void **state)
{
	struct verdict_comparison c;
	struct sweep a, b;
	int i;

	(void)state;
	grid_new(&a, "");
	grid_new(&b, "");
	for (i = 0; i < a.npoints; i++) {
		ctltest_fill(&a, i, 100);
		ctltest_fill(&b, i, i == 4 ? 120 : 100.2);
	}
	/* b lacks a's point 8 (a failed run of it leaves no passes). */
	b.points[8].nodes[0].npasses = b.points[8].nodes[1].npasses = 0;
	b.points[8].nodes[0].state = b.points[8].nodes[1].state = NODE_FAILED;
	verdict_sweep(&a);
	verdict_sweep(&b);
	verdict_sweeps_compare(&a, &b, &c);
	assert_int_equal(c.nrows, 9);
	assert_int_equal(c.rows[4].point_a, 4);
	assert_int_equal(c.rows[4].point_b, 4);
	assert_true(c.rows[4].cells[0].present);
	assert_float_equal(c.rows[4].cells[0].a.mean, 100, 1e-9);
	assert_float_equal(c.rows[4].cells[0].b.mean, 120, 1e-9);
	assert_float_equal(c.rows[4].cells[0].cmp.delta_pct, 20, 1e-9);
	assert_int_equal(c.rows[4].verdict, ROW_GAIN);
	assert_int_equal(c.rows[1].verdict, ROW_NONE);
	assert_false(c.rows[8].cells[0].present);
	assert_int_equal(c.rows[8].verdict, ROW_NA);
	verdict_comparison_release(&c);
	sweep_release(&a);
	sweep_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t_quantile_textbook),
		cmocka_unit_test(test_betainc),
		cmocka_unit_test(test_welch_df),
		cmocka_unit_test(test_welch_ci),
		cmocka_unit_test(test_welch_n2),
		cmocka_unit_test(test_welch_n1_undefined),
		cmocka_unit_test(test_verdict_rules),
		cmocka_unit_test(test_seed003_strip_size),
		cmocka_unit_test(test_row_verdicts),
		cmocka_unit_test(test_minimize_picks_lower),
		cmocka_unit_test(test_disagree_and_asymmetry),
		cmocka_unit_test(test_outcomes),
		cmocka_unit_test(test_sweeps_compare),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
