/* test_ctl_verdict.c -- Student-t quantiles and Welch intervals (common/stats.c), and every
 * verdict rule as verdict_sweep shows it: seed 003's rows, codes per row and node, named
 * disagreeing nodes, noise, reference loops, the outcome and best point, warnings, compare. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctltest.h"
#include "judge/verdict.h"
#include "plan/plan.h"
#include "run/strategy.h"
#include "stats.h"
#include "testutil.h"

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

/* Seed 003, strip size (64 KiB the baseline, then 128, 256, 512, 1024 KiB): MiB/s per 60 s
 * pass, node1 then node2. The author: 128 "no appreciable difference", 256 "notable
 * improvement", 1024 "slowest option". */
static const double strip[5][2][5] = {
	{ { 1149.5, 1133.9, 1158.8, 1141.3, 1153.6 }, { 1119.2, 1130.2, 1156.7, 1126.4, 1149.3 } },
	{ { 1153.5, 1116.4, 1092.2, 1115.7, 1104.2 }, { 1130.6, 1117.1, 1091.2, 1108.9, 1109.4 } },
	{ { 1357.2, 1303.3, 1300.1, 1274.5, 1317.9 }, { 1351.1, 1324.9, 1285.5, 1272.6, 1315.4 } },
	{ { 1227.6, 1199.5, 1216.5, 1197.2, 1190.1 }, { 1212.9, 1227.6, 1212.5, 1206.1, 1202.5 } },
	{ { 1045.8, 1059.2, 1054.4, 1041.4, 1028.1 }, { 1047.2, 1044.8, 1037.4, 1060.1, 1038.4 } },
};

/* Seed 003, the mq-deadline knobs: the baseline (fifo_batch 16, front_merges 1, read_expire
 * 500, write_expire 5000, writes_starved 2), then each setting the author tried (the last row
 * of the seed's table repeats write_expire 500 and is left out); every one "no real
 * difference", "no change". */
static const double knobs[8][2][5] = {
	{ { 1289.7, 1271.7, 1291.7, 1280.4, 1285.2 }, { 1296.6, 1282.4, 1272.2, 1267.5, 1260.6 } },
	{ { 1273.4, 1281.8, 1268.4, 1290.2, 1268.8 }, { 1257.3, 1260.8, 1272.9, 1272.3, 1244.8 } },
	{ { 1278.9, 1268.5, 1283.9, 1292.1, 1287.1 }, { 1289.8, 1269.9, 1249.1, 1268.8, 1260.2 } },
	{ { 1276.7, 1269.1, 1274.9, 1272.7, 1272.7 }, { 1264.2, 1268.2, 1268.7, 1243.3, 1259.7 } },
	{ { 1285.2, 1278.9, 1289.5, 1274.5, 1280.1 }, { 1286.4, 1277.2, 1251.7, 1261.1, 1273.5 } },
	{ { 1272.7, 1278.5, 1279.1, 1275.6, 1281.2 }, { 1264.6, 1267.7, 1284.5, 1273.9, 1288.7 } },
	{ { 1278.8, 1285.3, 1282.5, 1289.3, 1290.9 }, { 1285.4, 1273.7, 1278.2, 1274.6, 1281.1 } },
	{ { 1301.9, 1298.8, 1289.6, 1305.7, 1285.8 }, { 1292.2, 1274.9, 1259.1, 1272.3, 1273.8 } },
};

/* A finished one-axis grid on two nodes, point i holding rows[i] (5 passes a node). */
static void seed_grid(struct sweep *s, const char *baseline, const char *axes,
                      const double (*rows)[2][5], int npoints)
{
	struct strategy_batch b = { 0 };
	char *t = ctltest_plan(2, baseline, axes, "grid", "5", "");
	int i, k;

	ctltest_sweep_text(s, t);
	free(t);
	assert_int_equal(strategy_next(s, &b), npoints);
	strategy_batch_release(&b);
	for (i = 0; i < npoints; i++)
		for (k = 0; k < 2; k++)
			ctltest_passes(s, i, k, rows[i][k], 5);
	verdict_sweep(s);
}

static void test_seed003_strip_size(void **state)
{
	struct sweep s;
	int k;

	(void)state;
	seed_grid(&s, "{\"strip_kib\":64}",
	          "[{\"param\":\"strip_kib\",\"values\":[64,128,256,512,1024]}]", strip, 5);
	/* 128 KiB: -2.5 %, and the 90 % interval lies inside ±5 %: no real difference. */
	assert_int_equal(s.points[1].verdict, EFFECT_EQUIVALENT);
	assert_true(s.points[1].fx.ci90_low_pct > -5 && s.points[1].fx.ci90_high_pct < 5);
	/* 256 KiB: +14 % on both nodes. */
	assert_int_equal(s.points[2].verdict, EFFECT_GAIN);
	assert_float_equal(s.points[2].delta_pct, 14.7, 0.5);
	for (k = 0; k < 2; k++)
		assert_int_equal(s.points[2].nodes[k].verdict, EFFECT_GAIN);
	/* 1024 KiB: the slowest, -8 %. */
	assert_int_equal(s.points[4].verdict, EFFECT_LOSS);
	assert_true(s.points[4].ci_high_pct < 0);
	/* 512 KiB is +5.9 % over 64 KiB (the author compared it with 256 KiB). */
	assert_int_equal(s.points[3].verdict, EFFECT_GAIN);
	assert_int_equal(ctltest_best(&s, -1), 2);
	assert_int_equal(s.outcome, OUTCOME_BEST);
	assert_int_equal(s.noise.nnoisy, 0);
	sweep_release(&s);
}

static void test_seed003_mq_deadline_knobs(void **state)
{
	const char *base = "{\"iosched.fifo_batch\":16,\"iosched.front_merges\":1,"
	                   "\"iosched.read_expire\":500,\"iosched.write_expire\":5000,"
	                   "\"iosched.writes_starved\":2}";
	const char *axes = "[{\"params\":[\"iosched.fifo_batch\",\"iosched.read_expire\","
	                   "\"iosched.write_expire\",\"iosched.writes_starved\"],\"values\":["
	                   "[16,500,5000,2],[16,500,5000,1],[16,500,5000,4],[16,500,5000,8],"
	                   "[16,500,500,2],[16,5000,500,2],[32,500,5000,2],[64,500,5000,2]]}]";
	struct sweep s;
	int i;

	(void)state;
	seed_grid(&s, base, axes, knobs, 8);
	for (i = 1; i < 8; i++) {
		assert_int_equal(s.points[i].verdict, EFFECT_EQUIVALENT);
		assert_true(fabs(s.points[i].delta_pct) < 2);
	}
	assert_int_equal(ctltest_best(&s, -1), -1);
	assert_int_equal(s.outcome, OUTCOME_BASELINE);
	sweep_release(&s);
}

/* A grid of n nodes, one axis "x" [1, 2, 3] over baseline 0 and 5 passes a node, point i node
 * k at level[k] * (1 + eff[i][k] / 100) with a fixed ±cv % pattern. */
static void grid_nodes(struct sweep *s, int n, double cv, const double *level,
                       const double (*eff)[16], const char *extra)
{
	static const double z[5] = { -1.26, -0.64, 0, 0.64, 1.26 }; /* SD 1 */
	struct strategy_batch b = { 0 };
	char *t = ctltest_plan(n, "{\"x\":0}", "[{\"param\":\"x\",\"values\":[1,2,3]}]", "grid",
	                       "5", extra);
	double x[5];
	int i, k, j;

	ctltest_sweep_text(s, t);
	free(t);
	assert_int_equal(strategy_next(s, &b), 4);
	strategy_batch_release(&b);
	for (i = 0; i < 4; i++)
		for (k = 0; k < n; k++) {
			for (j = 0; j < 5; j++)
				x[j] = level[k] * (1 + eff[i][k] / 100) *
				       (1 + cv / 100 * z[(j + i + k) % 5]);
			ctltest_passes(s, i, k, x, 5);
		}
	verdict_sweep(s);
}

/* Every rule surfaces as a code per row and per node, with the named nodes. */
static void test_codes_per_row(void **state)
{
	static const double level[16] = { 1000, 1100, 950, 1020, 980, 1010, 1040, 990, 1005, 970 };
	static const double eff[4][16] = {
		{ 0 },
		/* x=1: +10 % on 8 nodes, -10 % on n3 and n7 */
		{ 10, 10, -10, 10, 10, 10, -10, 10, 10, 10 },
		/* x=2: +1 % everywhere */
		{ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 },
		/* x=3: -12 % everywhere */
		{ -12, -12, -12, -12, -12, -12, -12, -12, -12, -12 },
	};
	struct sweep s;
	int k;

	(void)state;
	grid_nodes(&s, 10, 1, level, eff, "");
	/* x=1: the fleet gains, two nodes lose: heterogeneous, and exactly those two named. */
	assert_int_equal(s.points[1].fx.fleet_decision, EFFECT_GAIN);
	assert_int_equal(s.points[1].verdict, EFFECT_HETEROGENEOUS);
	assert_int_equal(s.points[1].fx.ndisagree, 2);
	assert_int_equal(s.points[1].fx.disagree[0], 2);
	assert_int_equal(s.points[1].fx.disagree[1], 6);
	assert_int_equal(s.points[1].nodes[2].verdict, EFFECT_LOSS);
	assert_int_equal(s.points[1].nodes[0].verdict, EFFECT_GAIN);
	assert_true(s.points[1].fx.q_p < 0.05);
	/* x=2: equivalent on the fleet and on every node. */
	assert_int_equal(s.points[2].verdict, EFFECT_EQUIVALENT);
	for (k = 0; k < 10; k++)
		assert_int_equal(s.points[2].nodes[k].verdict, EFFECT_EQUIVALENT);
	/* x=3: a loss. */
	assert_int_equal(s.points[3].verdict, EFFECT_LOSS);
	assert_float_equal(s.points[3].delta_pct, -12, 0.2);
	/* A heterogeneous gain is not the best: nothing is. */
	assert_int_equal(ctltest_best(&s, -1), -1);
	assert_int_equal(s.outcome, OUTCOME_BASELINE);
	assert_int_equal(s.points[0].verdict, EFFECT_NA);
	sweep_release(&s);
}

/* One noisy node among many that agree changes nothing; two nodes going opposite ways with
 * no fleet decision disagree with each other. */
static void test_disagreement_that_means_it(void **state)
{
	static const double level[16] = { 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000 };
	static const double same[4][16] = { { 0 },
		                            { 10, 10, 10, 10, 10, 10, 10, 10 },
		                            { 20, -20 },
		                            { 10, 10, 10, 10, 10, 10, 10, 13 } };
	struct sweep s;

	(void)state;
	grid_nodes(&s, 8, 1, level, same, "");
	assert_int_equal(s.points[1].verdict, EFFECT_GAIN);
	assert_int_equal(s.points[1].fx.ndisagree, 0);
	/* x=3: n8 gains more than the others: Q may be significant, but its own decision is the
	 * fleet's (gain), so nobody disagrees. */
	assert_int_equal(s.points[3].verdict, EFFECT_GAIN);
	assert_int_equal(s.points[3].fx.ndisagree, 0);
	sweep_release(&s);
	/* Two nodes: +20 % and -20 %. The fleet cannot decide; each node decides the other way. */
	grid_nodes(&s, 2, 1, level, same, "");
	assert_int_equal(s.points[2].fx.fleet_decision, EFFECT_INCONCLUSIVE);
	assert_int_equal(s.points[2].verdict, EFFECT_HETEROGENEOUS);
	assert_int_equal(s.points[2].fx.ndisagree, 2);
	sweep_release(&s);
}

/* The noise summary: rows whose minimum detectable effect exceeds min_effect, and the loops
 * that would resolve it. */
static void test_noise(void **state)
{
	static const double level[16] = { 1000, 1000 };
	static const double eff[4][16] = { { 0 }, { 4.7, 4.7 }, { 30, 30 }, { -2, -2 } };
	static const double level4[16] = { 1000, 1000, 1000, 1000 };
	static const double split[4][16] = {
		{ 0 }, { 20, -20, 20, -20 }, { 2, 2, 2, 2 }, { -1, -1, -1, -1 }
	};
	struct sweep s;

	(void)state;
	grid_nodes(&s, 2, 30, level, eff, "");
	assert_int_equal(s.noise.nrows, 3);
	assert_int_equal(s.noise.nnoisy, 3);
	assert_float_equal(s.noise.cv_pct, 30, 3);
	assert_true(s.noise.mde_pct > 30);
	/* 5 % at CV 30 % on 2 nodes: a few hundred loops, more than the 5 run. */
	assert_true(s.noise.loops_needed > 100 && s.noise.loops_needed < 1000);
	assert_int_equal(s.noise.nunreachable, 0);
	assert_int_equal(s.points[1].verdict, EFFECT_INCONCLUSIVE);
	assert_true(s.points[1].fx.noisy);
	sweep_release(&s);
	/* CV 8 %: +30 % is decided a gain though its MDE is above 5 %; a decided row needs no
	 * more loops and is not in the noise line. */
	grid_nodes(&s, 2, 8, level, eff, "");
	assert_int_equal(s.points[2].verdict, EFFECT_GAIN);
	assert_true(s.points[2].fx.noisy);
	assert_int_equal(s.points[1].verdict, EFFECT_INCONCLUSIVE);
	assert_true(s.points[1].fx.noisy);
	assert_int_equal(s.noise.nrows, 3);
	assert_int_equal(s.noise.nnoisy, 2);
	sweep_release(&s);
	/* 4 nodes at CV 8 %: x=1 splits them +20 % / -20 % (more loops cannot resolve it: the
	 * line names it apart), x=2 and x=3 are small and noisy. The MDE quoted is of those. */
	grid_nodes(&s, 4, 8, level4, split, "");
	assert_int_equal(s.points[1].verdict, EFFECT_HETEROGENEOUS);
	assert_int_equal(s.points[1].fx.loops_needed, -1);
	assert_int_equal(s.noise.nunreachable, 1);
	assert_true(s.noise.tau_pct > 10);
	assert_int_equal(s.noise.nnoisy, 3);
	assert_float_equal(s.noise.mde_pct, fmax(s.points[2].fx.mde_pct, s.points[3].fx.mde_pct),
	                   1e-9);
	assert_true(s.noise.mde_pct < s.points[1].fx.mde_pct);
	assert_true(s.noise.loops_needed > 5);
	sweep_release(&s);
	/* Quiet passes: no noise. */
	grid_nodes(&s, 2, 0.5, level, eff, "");
	assert_int_equal(s.noise.nnoisy, 0);
	/* +4.7 %: real, but the interval reaches past 5 %: unsure whether it is 5 % or more. */
	assert_int_equal(s.points[1].verdict, EFFECT_INCONCLUSIVE);
	assert_false(s.points[1].fx.noisy);
	assert_int_equal(s.points[3].verdict, EFFECT_EQUIVALENT);
	sweep_release(&s);
	/* min_effect 0: any significant difference counts and there is nothing to resolve. */
	grid_nodes(&s, 2, 30, level, eff, ",\"min_effect_pct\":0");
	assert_int_equal(s.noise.nnoisy, 0);
	assert_int_equal(s.noise.nrows, 3);
	sweep_release(&s);
}

/* With ref_loops set, a point counts only the reference's passes of its last look. */
static void test_ref_loops(void **state)
{
	static const double level[16] = { 1000, 1000 };
	static const double eff[4][16] = { { 0 }, { 10, 10 }, { 10, 10 }, { 10, 10 } };
	const double later[3] = { 1200, 1210, 1190 };
	struct sweep s;
	int k;

	(void)state;
	grid_nodes(&s, 2, 1, level, eff, "");
	assert_int_equal(s.points[1].verdict, EFFECT_GAIN);
	/* The reference ran 3 more loops after point 1's last look (for the others). */
	for (k = 0; k < 2; k++)
		for (int j = 0; j < 3; j++)
			node_result_pass_add(&s.points[0].nodes[k], later[j]);
	s.points[0].loops_run = 8;
	s.points[1].ref_loops = 5;
	verdict_sweep(&s);
	/* Point 1 is judged on what it was judged on; point 2 counts all 8. */
	assert_int_equal(s.points[1].verdict, EFFECT_GAIN);
	assert_int_equal(s.points[1].fx.nodes[0].n_ref, 5);
	assert_int_equal(s.points[2].fx.nodes[0].n_ref, 8);
	assert_int_not_equal(s.points[2].verdict, EFFECT_GAIN);
	sweep_release(&s);
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
	assert_int_equal(s.points[5].verdict, EFFECT_GAIN);
	assert_int_equal(s.points[7].verdict, EFFECT_LOSS);
	assert_float_equal(s.points[5].delta_pct, -30, 0.1);
	assert_int_equal(ctltest_best(&s, -1), 5);
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
	/* Point 1: a gains, b shows no real difference; the fleet cannot decide between them. */
	for (j = 0; j < 3; j++)
		s.points[1].nodes[0].passes[j] += 20;
	verdict_sweep(&s);
	assert_int_equal(s.points[1].nodes[0].verdict, EFFECT_GAIN);
	assert_int_equal(s.points[1].nodes[1].verdict, EFFECT_EQUIVALENT);
	assert_int_equal(s.points[1].fx.fleet_decision, EFFECT_INCONCLUSIVE);
	assert_int_equal(s.points[1].verdict, EFFECT_HETEROGENEOUS);
	assert_int_equal(s.points[1].fx.ndisagree, 2);
	assert_int_equal(s.nwarnings, 1);
	assert_int_equal(s.warnings[0].code, WARNING_NODE_OFFSET);
	assert_int_equal(s.warnings[0].node, 1);
	assert_int_equal(s.warnings[0].other, 0);
	assert_true(s.warnings[0].offset_pct < -15 && s.warnings[0].offset_pct > -25);
	assert_int_equal(s.warnings[0].npoints, 9);
	assert_true(s.points[2].spread_pct > 20.0);
	/* Nothing gained on the fleet: the baseline stays, honestly. */
	assert_int_equal(ctltest_best(&s, -1), -1);
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
	assert_int_equal(ctltest_best(&s, -1), -1);
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
/* The final confirmation is judged against the original baseline with effect.c; when it is a
 * gain the decision is confirmed, else it is unconfirmed: the axis rows' suggestion, never a
 * best (issue 28); a candidate that is no gain is never chosen on an axis. */
static void test_final_confirmation(void **state)
{
	/* Effects per point against point 0 (0: baseline, 1-2: x, 3: y's baseline, 4: y=1, 5:
	 * the original baseline measured again, 6: the final confirmation against it), 5 loops
	 * at CV 1 %. */
	const double held[7] = { 0, 8, 12, 12, 12.5, 0, 12 };
	const double lost[7] = { 0, 8, 12, 12, 12.5, 0, 0.5 };
	struct sweep s;

	(void)state;
	ctltest_sequential_run(&s, "5", held, 1);
	assert_int_equal(s.npoints, 7);
	assert_int_equal(s.points[5].role, ROLE_BASELINE);
	assert_int_equal(s.points[5].ref, 0);
	assert_int_equal(s.points[6].role, ROLE_FINAL);
	assert_int_equal(s.points[6].ref, 5);
	/* Axis x picked x=2 (+12 %, the larger gain); y=1 (+0.45 % on its baseline) is no real
	 * difference. */
	assert_string_equal(config_get(&s.points[3].cfg, "x")->value, "2");
	assert_int_equal(s.points[4].verdict, EFFECT_EQUIVALENT);
	assert_string_equal(config_get(&s.points[6].cfg, "y")->value, "0");
	assert_int_equal(s.points[6].verdict, EFFECT_GAIN);
	assert_float_equal(s.points[6].delta_pct, 12, 1e-6);
	assert_int_equal(ctltest_best(&s, -1), 6);
	assert_int_equal(s.outcome, OUTCOME_BEST);
	assert_int_equal(s.decision.state, DECISION_CONFIRMED);
	assert_int_equal(s.decision.basis, DECISION_BASIS_FINAL);
	assert_int_equal(s.decision.ref, 5);
	assert_float_equal(s.decision.level_pct, 95, 1e-9);
	assert_true(s.decision.low_pct > 0);
	sweep_release(&s);
	/* The confirmation did not hold up (+0.5 % against the original baseline): no best. The
	 * decision is unconfirmed, with what each comparison showed: axis x's row x=2 (+12 %, a
	 * gain) suggested x=2 y=0, the final confirmation showed no real difference. */
	ctltest_sequential_run(&s, "5", lost, 1);
	assert_int_equal(s.points[6].verdict, EFFECT_EQUIVALENT);
	assert_int_equal(ctltest_best(&s, -1), -1);
	assert_int_equal(s.outcome, OUTCOME_BASELINE);
	assert_int_equal(s.decision.state, DECISION_UNCONFIRMED);
	assert_int_equal(s.decision.why, DECISION_WHY_NOT_CONFIRMED);
	assert_int_equal(s.decision.basis, DECISION_BASIS_FINAL);
	assert_int_equal(s.decision.point, 6);
	assert_int_equal(s.decision.verdict, EFFECT_EQUIVALENT);
	assert_float_equal(s.decision.delta_pct, 0.5, 1e-6);
	/* Equivalence is decided on the 90 % interval. */
	assert_float_equal(s.decision.level_pct, 90, 1e-9);
	assert_string_equal(config_get(&s.decision.cfg, "x")->value, "2");
	assert_string_equal(config_get(&s.decision.cfg, "y")->value, "0");
	assert_int_equal(s.decision.nsteps, 1);
	assert_int_equal(s.decision.steps[0].point, 2);
	assert_int_equal(s.decision.steps[0].verdict, EFFECT_GAIN);
	assert_float_equal(s.decision.steps[0].delta_pct, 12, 1e-6);
	sweep_release(&s);
}

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
	assert_float_equal(c.rows[4].fx.nodes[0].delta_pct, 20, 1e-9);
	assert_int_equal(c.rows[4].fx.nodes[0].decision, EFFECT_GAIN);
	assert_int_equal(c.rows[4].fx.decision, EFFECT_GAIN);
	assert_float_equal(c.rows[4].fx.delta_pct, 20, 0.1);
	assert_int_equal(c.rows[1].fx.decision, EFFECT_EQUIVALENT);
	assert_false(c.rows[8].cells[0].present);
	assert_int_equal(c.rows[8].fx.decision, EFFECT_NA);
	/* Fixed loops on both sides: plain 95 % and 90 % intervals. */
	assert_float_equal(c.rows[4].fx.alpha, 0.05, 1e-12);
	verdict_comparison_release(&c);
	sweep_release(&a);
	sweep_release(&b);
}

/* Fill point i of a grid sweep with 5 passes per node at mean x (1 + noise), in rounds 1..5
 * with start times, or without rounds. */
static void fill_rounds(struct sweep *s, int i, double mean, bool rounds)
{
	int k, j;

	for (k = 0; k < s->plan.nnodes; k++) {
		struct node_result *r = &s->points[i].nodes[k];

		r->state = NODE_OK;
		r->npasses = 0;
		for (j = 0; j < 5; j++) {
			double v = mean * (1 + 0.01 * ((j * 7 + k * 3 + i) % 5 - 2) / 2.0);

			if (rounds)
				node_result_pass_add_at(r, v, j + 1, 1e9 + j * 10 + i, false);
			else
				node_result_pass_add(r, v);
		}
	}
	s->points[i].loops_run = 5;
}

/* Two runs of the same plan, every figure of the second 5 % up (a step between them): the
 * shift is run-to-run variation, nothing is significant, and compare says how large a
 * difference these runs cannot attribute. A change of one configuration beyond that is still
 * shown. */
static void test_compare_run_to_run(void **state)
{
	struct verdict_comparison c;
	struct sweep a, b;
	int i, sig = 0;

	(void)state;
	grid_new(&a, "");
	grid_new(&b, "");
	for (i = 0; i < a.npoints; i++) {
		fill_rounds(&a, i, 100, true);
		fill_rounds(&b, i, i == 4 ? 150 : 105, true);
	}
	verdict_sweep(&a);
	verdict_sweep(&b);
	verdict_sweeps_compare(&a, &b, &c);
	assert_int_equal(c.nrows, 9);
	assert_int_equal(c.rr.nshift, 2);
	assert_true(c.rr.from_between);
	assert_false(c.rr.assumed);
	assert_float_equal(c.rr.shift_pct, 5, 0.3);
	assert_float_equal(c.rr.sd_pct, 5, 0.5);
	assert_true(c.rr.within_pct > 10);
	for (i = 0; i < c.nrows; i++)
		if (i != 4)
			sig += c.rows[i].fx.decision == EFFECT_GAIN ||
			       c.rows[i].fx.decision == EFFECT_LOSS;
	assert_int_equal(sig, 0);
	/* The rows' intervals carry it: +5 % is within them. */
	assert_true(c.rows[1].fx.ci95_low_pct < 0 && c.rows[1].fx.ci95_high_pct > 5);
	/* Point 4's +50 % is beyond what the runs move. */
	assert_int_equal(c.rows[4].fx.decision, EFFECT_GAIN);
	verdict_comparison_release(&c);
	sweep_release(&b);
	/* Nothing to estimate it from (no node with 2 passes in both): assumed min_effect. */
	grid_new(&b, "");
	verdict_sweep(&b);
	verdict_sweeps_compare(&a, &b, &c);
	assert_true(c.rr.assumed || c.rr.nwithin > 0);
	verdict_comparison_release(&c);
	sweep_release(&a);
	grid_new(&a, "");
	verdict_sweep(&a);
	verdict_sweeps_compare(&a, &b, &c);
	assert_true(c.rr.assumed);
	assert_float_equal(c.rr.sd_pct, 5, 1e-9);
	assert_float_equal(c.rr.df, 0, 0);
	assert_float_equal(c.rr.within_pct, 100 * expm1(1.959964 * log(1.05)), 1e-3);
	verdict_comparison_release(&c);
	sweep_release(&a);
	sweep_release(&b);
}

/* Within one sweep the rows are judged within rounds: a level that moves round by round (the
 * same in every point of a round) leaves the rows "no real difference"; without rounds the
 * same passes are judged as independent samples, as before. */
static void test_rows_within_rounds(void **state)
{
	struct sweep s;
	int i, k, j;

	(void)state;
	grid_new(&s, "");
	for (i = 0; i < s.npoints; i++) {
		fill_rounds(&s, i, 1000, true);
		for (k = 0; k < 2; k++)
			for (j = 0; j < 5; j++)
				s.points[i].nodes[k].passes[j] *= 1 + 0.06 * j;
	}
	verdict_sweep(&s);
	assert_true(s.points[1].fx.nodes[0].blocked);
	for (i = 1; i < s.npoints; i++)
		assert_int_equal(s.points[i].verdict, EFFECT_EQUIVALENT);
	assert_true(s.drift.rounds);
	for (i = 0; i < s.npoints; i++)
		for (k = 0; k < 2; k++)
			for (j = 0; j < 5; j++)
				s.points[i].nodes[k].pass_round[j] = 0;
	verdict_sweep(&s);
	assert_false(s.points[1].fx.nodes[0].blocked);
	assert_false(s.drift.rounds);
	assert_int_not_equal(s.points[1].verdict, EFFECT_EQUIVALENT);
	sweep_release(&s);
}

/* verdict_point_update after each point gives what verdict_sweep gives. */
static void test_point_update(void **state)
{
	struct sweep s, t;
	int i;

	(void)state;
	grid_new(&s, "");
	grid_new(&t, "");
	for (i = 0; i < s.npoints; i++) {
		fill_rounds(&s, i, i == 3 ? 1100 : 1000, true);
		fill_rounds(&t, i, i == 3 ? 1100 : 1000, true);
		verdict_point_update(&s, i);
	}
	verdict_sweep(&t);
	for (i = 0; i < s.npoints; i++) {
		assert_int_equal(s.points[i].verdict, t.points[i].verdict);
		assert_float_equal(s.points[i].delta_pct, t.points[i].delta_pct, 0);
	}
	assert_int_equal(ctltest_best(&s, -1), ctltest_best(&t, -1));
	assert_int_equal(ctltest_best(&s, -1), 3);
	/* The reference changing re-judges the points compared with it. */
	fill_rounds(&s, 0, 1100, true);
	verdict_point_update(&s, 0);
	assert_int_equal(s.points[3].verdict, EFFECT_EQUIVALENT);
	assert_int_equal(s.points[1].verdict, EFFECT_LOSS);
	sweep_release(&s);
	sweep_release(&t);
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
		cmocka_unit_test(test_seed003_strip_size),
		cmocka_unit_test(test_seed003_mq_deadline_knobs),
		cmocka_unit_test(test_codes_per_row),
		cmocka_unit_test(test_disagreement_that_means_it),
		cmocka_unit_test(test_noise),
		cmocka_unit_test(test_ref_loops),
		cmocka_unit_test(test_minimize_picks_lower),
		cmocka_unit_test(test_disagree_and_asymmetry),
		cmocka_unit_test(test_outcomes),
		cmocka_unit_test(test_final_confirmation),
		cmocka_unit_test(test_sweeps_compare),
		cmocka_unit_test(test_compare_run_to_run),
		cmocka_unit_test(test_rows_within_rounds),
		cmocka_unit_test(test_point_update),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
