/* test_ctl_effect.c -- every rule of effect.c: intervals, fleet meta-analysis, decisions,
 * disagreement, noise, the adaptive stopping rule, and seed 003's rows. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stats.h"
#include "stats/effect.h"
#include "stats/rounds.h"
#include "testutil.h"

#define NODES_MAX 200
#define PASSES_MAX 512

/* A comparison under construction: per node, reference and point passes. */
static struct fixture {
	int nnodes;
	double ref[NODES_MAX][PASSES_MAX], pt[NODES_MAX][PASSES_MAX];
	struct effect_sample r[NODES_MAX], p[NODES_MAX];
} fx;

static void fx_reset(int nnodes)
{
	memset(&fx, 0, sizeof(fx));
	fx.nnodes = nnodes;
}

static void fx_node(int i, const double *ref, int nr, const double *pt, int np)
{
	memcpy(fx.ref[i], ref, nr * sizeof(double));
	memcpy(fx.pt[i], pt, np * sizeof(double));
	fx.r[i] = (struct effect_sample){ fx.ref[i], nr, NULL };
	fx.p[i] = (struct effect_sample){ fx.pt[i], np, NULL };
}

/* n passes with exactly this mean and sample CV: the mean itself when n is odd, the rest
 * alternating mean ± d with d chosen so that the sample SD is mean × cv. */
static void pattern(double *x, double mean, double cv_pct, int n)
{
	double s = mean * cv_pct / 100.0, d = n % 2 ? s : s * sqrt((n - 1.0) / n);
	int i, j = 0;

	if (n % 2)
		x[j++] = mean;
	for (i = 0; j < n; i++, j++)
		x[j] = mean + (i % 2 ? -d : d);
}

/* Node i: reference level 1000 × level, point (1 + effect) times that, n passes each. */
static void fx_pattern(int i, double level, double ref_cv, double effect_pct, double pt_cv, int n)
{
	double r[PASSES_MAX], p[PASSES_MAX];

	assert_in_range(n, 1, PASSES_MAX);
	pattern(r, 1000.0 * level, ref_cv, n);
	pattern(p, 1000.0 * level * (1.0 + effect_pct / 100.0), pt_cv, n);
	fx_node(i, r, n, p, n);
}

static void fx_run_look(double min_pct, bool minimize, int look, int nlooks, struct effect *out)
{
	struct effect_input in = { .nnodes = fx.nnodes,
		                   .ref = fx.r,
		                   .point = fx.p,
		                   .min_effect_pct = min_pct,
		                   .minimize = minimize,
		                   .look = look,
		                   .nlooks = nlooks };
	struct err e = { 0 };

	assert_int_equal(effect_compute(&in, out, &e), 0);
}

static void fx_run(double min_pct, bool minimize, struct effect *out)
{
	fx_run_look(min_pct, minimize, 1, 1, out);
}

/* One node: Δ as a ratio of means on the log scale, the delta-method SE, Welch df. */
static void test_node_hand(void **state)
{
	double ref[] = { 98, 100, 102 }, pt[] = { 108, 110, 112 };
	struct effect o;
	double a, b, v, df, t;

	(void)state;
	fx_reset(1);
	fx_node(0, ref, 3, pt, 3);
	fx_run(5, false, &o);
	/*
	 * By hand: means 100 and 110, SD 2 each.
	 * a = 2² / 110² / 3 = 1.101928e-4, b = 2² / 100² / 3 = 1.333333e-4, v = 2.435262e-4
	 * df = v² / (a²/2 + b²/2) = 5.930499e-8 / 1.496013e-8 = 3.964206
	 * θ = ln 1.1 = 0.0953102; 95 %: θ ± t(0.975, 3.964) √v = 0.0953102 ± 2.78226 × 0.0156053
	 */
	a = 4.0 / (110.0 * 110.0) / 3;
	b = 4.0 / 1e4 / 3;
	v = a + b;
	df = v * v / (a * a / 2 + b * b / 2);
	assert_float_equal(df, 3.964206, 1e-6);
	t = stats_t_quantile(0.975, df);
	assert_int_equal(o.nused, 1);
	assert_int_equal(o.nodes[0].state, EFFECT_NODE_USED);
	assert_float_equal(o.nodes[0].delta_pct, 10.0, 1e-9);
	assert_float_equal(o.nodes[0].log_ratio, log(1.1), 1e-12);
	assert_float_equal(o.nodes[0].se_log, sqrt(v), 1e-12);
	assert_float_equal(o.nodes[0].df, df, 1e-9);
	assert_float_equal(o.nodes[0].ci_low_pct, 100 * expm1(log(1.1) - t * sqrt(v)), 1e-9);
	assert_float_equal(o.nodes[0].ci_high_pct, 100 * expm1(log(1.1) + t * sqrt(v)), 1e-9);
	assert_float_equal(o.nodes[0].cv_ref_pct, 2.0, 1e-9);
	assert_float_equal(o.nodes[0].cv_point_pct, 200.0 / 110, 1e-9);
	assert_float_equal(o.nodes[0].mean_ref, 100, 1e-9);
	assert_float_equal(o.nodes[0].mean_point, 110, 1e-9);
	assert_int_equal(o.nodes[0].decision, EFFECT_GAIN);
	/* One node: the fleet is that node, with no heterogeneity to measure. */
	assert_float_equal(o.delta_pct, 10.0, 1e-9);
	assert_float_equal(o.ci95_low_pct, o.nodes[0].ci_low_pct, 1e-9);
	assert_float_equal(o.ci95_high_pct, o.nodes[0].ci_high_pct, 1e-9);
	assert_float_equal(o.df, df, 1e-9);
	assert_float_equal(o.q, 0, 0);
	assert_int_equal(o.q_df, 0);
	assert_true(isnan(o.q_p));
	assert_float_equal(o.tau2, 0, 0);
	assert_float_equal(o.i2_pct, 0, 0);
	assert_float_equal(o.nodes[0].weight_pct, 100, 1e-9);
	assert_int_equal(o.decision, EFFECT_GAIN);
	assert_true(o.stop);
	effect_release(&o);
}

/* Q, τ², I², the random-effects mean and Holm's adjusted p on three nodes, by hand. */
static void test_heterogeneity_hand(void **state)
{
	double ref[] = { 98, 100, 102 };
	double p0[] = { 103, 105, 107 }, p1[] = { 108, 110, 112 }, p2[] = { 118, 120, 122 };
	struct effect o;

	(void)state;
	fx_reset(3);
	fx_node(0, ref, 3, p0, 3);
	fx_node(1, ref, 3, p1, 3);
	fx_node(2, ref, 3, p2, 3);
	fx_run(5, false, &o);
	/*
	 * By hand. θ = ln(1.05, 1.10, 1.20) = 0.0487902, 0.0953102, 0.1823216.
	 * v = 2²/m²/3 + 2²/100²/3 = 2.542706e-4, 2.435262e-4, 2.259259e-4.
	 * w = 1/v = 3932.818, 4106.335, 4426.230; Σw = 12465.382, Σw² = 5.192055e7.
	 * θ_fixed = Σwθ/Σw = 0.1115293.
	 * Q = Σ w (θ - θ_fixed)² = 3932.818 × 0.0038910 + 4106.335 × 0.0002622
	 *   + 4426.230 × 0.0050420 = 38.74281 on 2 df; p = 3.8646e-9.
	 * τ² = (Q - 2) / (Σw - Σw²/Σw) = 36.74281 / 8300.203 = 0.00442674; τ = 6.6534 %.
	 * I² = (Q - 2) / Q = 94.838 %.
	 * u = 1/(v + τ²) = 213.6293, 214.1207, 214.9307; θ = Σuθ/Σu = 0.1089458 (+11.5102 %),
	 * SE = 1/√Σu = 0.0394459.
	 * Node vs the rest: node 0: rest = 0.1388980, var = 3.716174e-4, t = -4.67428 on
	 * 3.9905 df, p = 0.0095425; node 1: t = -1.07248, p = 0.344406; node 2: t = 5.88972 on
	 * 3.8740 df, p = 0.0045916. Holm: node 2 × 3 = 0.0137748, node 0 × 2 = 0.0190850,
	 * node 1 × 1 = 0.344406.
	 */
	assert_float_equal(o.q, 38.74280934642098, 1e-9);
	assert_int_equal(o.q_df, 2);
	assert_float_equal(o.q_p, 3.864611516282315e-09, 1e-15);
	assert_float_equal(o.tau2, 0.004426736107749101, 1e-12);
	assert_float_equal(o.tau_pct, 100 * sqrt(0.004426736107749101), 1e-9);
	assert_float_equal(o.i2_pct, 94.83775174351222, 1e-9);
	assert_float_equal(o.log_ratio, 0.10894584853909761, 1e-12);
	assert_float_equal(o.delta_pct, 11.510196430604424, 1e-9);
	assert_float_equal(o.se_log, 0.03944594503771769, 1e-12);
	assert_float_equal(o.nodes[0].weight_pct, 100 * 213.62926034 / 642.68071693, 1e-6);
	assert_float_equal(o.nodes[0].differs_p, 0.019085014643911494, 1e-9);
	assert_float_equal(o.nodes[1].differs_p, 0.3444064230431924, 1e-9);
	assert_float_equal(o.nodes[2].differs_p, 0.013774818048973753, 1e-9);
	assert_true(o.nodes[0].differs);
	assert_false(o.nodes[1].differs);
	assert_true(o.nodes[2].differs);
	/* Heterogeneity is significant and nodes 0 and 2 differ, but every node's own decision
	 * is gain (+5 % counts: at least min_effect), like the fleet's: nobody disagrees. */
	assert_int_equal(o.nodes[0].decision, EFFECT_GAIN);
	assert_int_equal(o.nodes[1].decision, EFFECT_GAIN);
	assert_int_equal(o.nodes[2].decision, EFFECT_GAIN);
	assert_int_equal(o.fleet_decision, EFFECT_GAIN);
	assert_int_equal(o.decision, EFFECT_GAIN);
	assert_int_equal(o.ndisagree, 0);
	effect_release(&o);
}

/* The 90 % interval just inside and just outside ±min_effect, on both sides.
 * Both samples have CV 2 % over 3 passes: v = 2 × 0.02² / 3, √v = 0.0163299, df = 4,
 * half-width h = t(0.95, 4) √v = 2.131847 × 0.0163299 = 0.0348129 (log units). */
static void test_equivalence_edges(void **state)
{
	double h = stats_t_quantile(0.95, 4) * sqrt(2 * 0.0004 / 3);
	double up = 1.05 * exp(-h), down = 0.95 * exp(h); /* ratios putting an edge on ±5 % */
	struct effect o;

	(void)state;
	assert_float_equal(h, 0.03481291216045717, 1e-12);
	fx_reset(1);
	fx_pattern(0, 1, 2, 100 * (up * (1 - 1e-7) - 1), 2, 3);
	fx_run(5, false, &o);
	assert_float_equal(o.df, 4, 1e-9);
	assert_true(o.eq_high_pct < 5 && o.eq_high_pct > 4.9999);
	assert_float_equal(o.ci90_high_pct, o.eq_high_pct, 1e-12);
	assert_int_equal(o.decision, EFFECT_EQUIVALENT);
	effect_release(&o);
	fx_pattern(0, 1, 2, 100 * (up * (1 + 1e-7) - 1), 2, 3);
	fx_run(5, false, &o);
	assert_true(o.eq_high_pct > 5 && o.eq_high_pct < 5.0001);
	assert_int_equal(o.decision, EFFECT_INCONCLUSIVE);
	effect_release(&o);
	fx_pattern(0, 1, 2, 100 * (down * (1 + 1e-7) - 1), 2, 3);
	fx_run(5, false, &o);
	assert_true(o.eq_low_pct > -5);
	assert_int_equal(o.decision, EFFECT_EQUIVALENT);
	effect_release(&o);
	fx_pattern(0, 1, 2, 100 * (down * (1 - 1e-7) - 1), 2, 3);
	fx_run(5, false, &o);
	assert_true(o.eq_low_pct < -5);
	assert_int_equal(o.decision, EFFECT_INCONCLUSIVE);
	effect_release(&o);
	/* Exactly on the band is outside it (the interval must lie strictly inside). */
	fx_pattern(0, 1, 0, 5, 0, 3);
	fx_run(5.0, false, &o);
	assert_int_not_equal(o.decision, EFFECT_EQUIVALENT);
	effect_release(&o);
}

/* Gain needs the 95 % interval above 0 and Δ >= min_effect; loss mirrors it. CV 10 % over
 * 3 passes: h = t(0.975, 4) √(2 × 0.01 / 3) = 2.776445 × 0.0816497 = 0.2266958. */
static void test_gain_loss_thresholds(void **state)
{
	double h = stats_t_quantile(0.975, 4) * sqrt(2 * 0.01 / 3);
	struct effect o;

	(void)state;
	assert_float_equal(h, 0.22669579355275235, 1e-12);
	fx_reset(1);
	/* Δ = +25.4 %, far above min_effect: the interval's lower end at 0 decides. */
	fx_pattern(0, 1, 10, 100 * (exp(h) * (1 + 1e-7) - 1), 10, 3);
	fx_run(5, false, &o);
	assert_true(o.sig_low_pct > 0);
	assert_float_equal(o.sig_low_pct, o.ci95_low_pct, 1e-12);
	assert_int_equal(o.decision, EFFECT_GAIN);
	effect_release(&o);
	fx_pattern(0, 1, 10, 100 * (exp(h) * (1 - 1e-7) - 1), 10, 3);
	fx_run(5, false, &o);
	assert_true(o.sig_low_pct < 0);
	assert_int_equal(o.decision, EFFECT_INCONCLUSIVE);
	effect_release(&o);
	fx_pattern(0, 1, 10, 100 * (exp(-h) * (1 - 1e-7) - 1), 10, 3);
	fx_run(5, false, &o);
	assert_true(o.sig_high_pct < 0);
	assert_int_equal(o.decision, EFFECT_LOSS);
	effect_release(&o);
	fx_pattern(0, 1, 10, 100 * (exp(-h) * (1 + 1e-7) - 1), 10, 3);
	fx_run(5, false, &o);
	assert_int_equal(o.decision, EFFECT_INCONCLUSIVE);
	effect_release(&o);
	/* A tight interval: Δ = 5 % exactly is a gain, 4.99 % is not (and 4.99 % ± 0.3 is not
	 * inside the band either). */
	fx_pattern(0, 1, 0.1, 5, 0.1, 5);
	fx_run(5, false, &o);
	assert_float_equal(o.delta_pct, 5, 1e-9);
	assert_int_equal(o.decision, EFFECT_GAIN);
	effect_release(&o);
	fx_pattern(0, 1, 0.1, 4.99, 0.1, 5);
	fx_run(5, false, &o);
	assert_true(o.sig_low_pct > 0);
	assert_int_equal(o.decision, EFFECT_INCONCLUSIVE);
	effect_release(&o);
	fx_pattern(0, 1, 0.1, -5, 0.1, 5);
	fx_run(5, false, &o);
	assert_int_equal(o.decision, EFFECT_LOSS);
	effect_release(&o);
	/* min_effect 0: any significant change is a gain or a loss; nothing is equivalent. */
	fx_pattern(0, 1, 0.1, 0.5, 0.1, 5);
	fx_run(0, false, &o);
	assert_int_equal(o.decision, EFFECT_GAIN);
	effect_release(&o);
	fx_pattern(0, 1, 0.1, 0, 0.1, 5);
	fx_run(0, false, &o);
	assert_int_equal(o.decision, EFFECT_INCONCLUSIVE);
	assert_int_equal(o.loops_needed, -1);
	effect_release(&o);
}

/* minimize: lower is better, so a drop is a gain; Δ keeps the metric's sign. */
static void test_minimize(void **state)
{
	struct effect o;

	(void)state;
	fx_reset(2);
	fx_pattern(0, 1, 1, -10, 1, 5);
	fx_pattern(1, 1.2, 1, -10, 1, 5);
	fx_run(5, true, &o);
	assert_float_equal(o.delta_pct, -10, 1e-9);
	assert_true(o.ci95_high_pct < 0);
	assert_int_equal(o.decision, EFFECT_GAIN);
	assert_int_equal(o.nodes[0].decision, EFFECT_GAIN);
	effect_release(&o);
	fx_run(5, false, &o);
	assert_int_equal(o.decision, EFFECT_LOSS);
	effect_release(&o);
	fx_pattern(0, 1, 1, 10, 1, 5);
	fx_pattern(1, 1.2, 1, 10, 1, 5);
	fx_run(5, true, &o);
	assert_int_equal(o.decision, EFFECT_LOSS);
	effect_release(&o);
	/* Equivalence is symmetric. */
	fx_pattern(0, 1, 1, 1, 1, 5);
	fx_pattern(1, 1.2, 1, 1, 1, 5);
	fx_run(5, true, &o);
	assert_int_equal(o.decision, EFFECT_EQUIVALENT);
	effect_release(&o);
}

/* Missing nodes and nodes with one pass stay out of the fleet; the rest decide. */
static void test_missing_and_single_pass(void **state)
{
	double one[] = { 1000 }, three[] = { 1090, 1100, 1110 }, neg[] = { -5, -6 };
	struct effect o;

	(void)state;
	fx_reset(5);
	fx_pattern(0, 1, 1, 10, 1, 5);
	fx_pattern(1, 1, 1, 10, 1, 5);
	fx_node(2, three, 3, three, 0); /* the point never ran on node 2 */
	fx_node(3, one, 1, three, 3);   /* one reference pass: no variance */
	fx_node(4, neg, 2, neg, 2);     /* not a ratio of positive means */
	fx_run(5, false, &o);
	assert_int_equal(o.nused, 2);
	assert_int_equal(o.nodes[2].state, EFFECT_NODE_MISSING);
	assert_int_equal(o.nodes[2].n_ref, 3);
	assert_int_equal(o.nodes[2].n_point, 0);
	assert_true(isnan(o.nodes[2].delta_pct));
	assert_int_equal(o.nodes[2].decision, EFFECT_NA);
	assert_int_equal(o.nodes[3].state, EFFECT_NODE_FEW_PASSES);
	assert_float_equal(o.nodes[3].delta_pct, 10, 1e-9); /* shown, but not used */
	assert_true(isnan(o.nodes[3].ci_low_pct));
	assert_int_equal(o.nodes[3].decision, EFFECT_NA);
	assert_float_equal(o.nodes[3].cv_ref_pct, 0, 0);
	assert_int_equal(o.nodes[4].state, EFFECT_NODE_NONPOSITIVE);
	assert_true(isnan(o.nodes[4].weight_pct));
	assert_false(o.nodes[3].disagrees);
	assert_int_equal(o.decision, EFFECT_GAIN);
	assert_string_equal(effect_node_state_name(o.nodes[3].state), "few_passes");
	effect_release(&o);
	/* No usable node at all: no decision, no figures, keep looping unless it is the last
	 * look. */
	fx_reset(2);
	fx_node(0, one, 1, one, 1);
	fx_node(1, one, 0, one, 0);
	fx_run_look(5, false, 1, 5, &o);
	assert_int_equal(o.nused, 0);
	assert_int_equal(o.decision, EFFECT_NA);
	assert_true(isnan(o.delta_pct));
	assert_true(isnan(o.mde_pct));
	assert_false(o.stop);
	assert_int_equal(o.ndisagree, 0);
	effect_release(&o);
	fx_run_look(5, false, 5, 5, &o);
	assert_true(o.stop);
	effect_release(&o);
	/* No nodes. */
	fx_reset(0);
	fx_run(5, false, &o);
	assert_int_equal(o.decision, EFFECT_NA);
	effect_release(&o);
}

/* Zero variance: intervals collapse onto Δ; between-node spread becomes τ². */
static void test_zero_variance(void **state)
{
	struct effect o;

	(void)state;
	fx_reset(2);
	fx_pattern(0, 1, 0, 10, 0, 3);
	fx_pattern(1, 2, 0, 10, 0, 3);
	fx_run(5, false, &o);
	assert_float_equal(o.delta_pct, 10, 1e-6);
	assert_float_equal(o.ci95_low_pct, 10, 1e-3);
	assert_float_equal(o.ci95_high_pct, 10, 1e-3);
	assert_float_equal(o.nodes[0].df, 4, 0); /* n_p + n_r - 2 when both SDs are 0 */
	assert_float_equal(o.tau2, 0, 1e-12);
	assert_int_equal(o.decision, EFFECT_GAIN);
	assert_false(o.noisy);
	assert_int_equal(o.loops_needed, 2);
	effect_release(&o);
	fx_pattern(0, 1, 0, 0, 0, 3);
	fx_run(5, false, &o);
	assert_int_equal(o.nodes[0].decision, EFFECT_EQUIVALENT);
	assert_int_equal(o.nodes[1].decision, EFFECT_GAIN);
	/* Two exact effects, 0 and ln 1.1 apart: τ² is their variance, (ln 1.1)² / 2, less the
	 * variance floor. */
	assert_float_equal(o.tau2, log(1.1) * log(1.1) / 2, 1e-9);
	assert_true(o.q_p < 1e-6);
	assert_int_equal(o.fleet_decision, EFFECT_INCONCLUSIVE);
	/* The fleet cannot decide, and the nodes' own decisions conflict. */
	assert_int_equal(o.decision, EFFECT_HETEROGENEOUS);
	effect_release(&o);
}

/* Outliers: 2 of 20 nodes respond the other way and are named; one noisy node is not. */
static void test_outlier_naming(void **state)
{
	struct effect o;
	int i;

	(void)state;
	fx_reset(20);
	for (i = 0; i < 20; i++)
		fx_pattern(i, 1 + 0.01 * i, 1, i == 5 || i == 13 ? -10 : 10, 1, 5);
	fx_run(5, false, &o);
	assert_true(o.q_p < 0.05);
	assert_int_equal(o.fleet_decision, EFFECT_GAIN);
	assert_int_equal(o.decision, EFFECT_HETEROGENEOUS);
	assert_int_equal(o.ndisagree, 2);
	assert_int_equal(o.disagree[0], 5);
	assert_int_equal(o.disagree[1], 13);
	assert_float_equal(o.nodes[5].delta_pct, -10, 1e-9);
	assert_int_equal(o.nodes[5].decision, EFFECT_LOSS);
	assert_true(o.nodes[5].disagrees);
	assert_false(o.nodes[0].disagrees);
	assert_string_equal(effect_decision_name(o.decision), "heterogeneous");
	effect_release(&o);

	/* One node with passes spread by 30 %: whatever its Δ, its own decision is
	 * inconclusive, so it is not a disagreement. */
	for (i = 0; i < 20; i++)
		fx_pattern(i, 1 + 0.01 * i, 1, 10, 1, 5);
	fx_pattern(7, 1, 30, -10, 30, 5);
	fx_run(5, false, &o);
	assert_int_equal(o.nodes[7].decision, EFFECT_INCONCLUSIVE);
	assert_false(o.nodes[7].disagrees);
	assert_int_equal(o.decision, EFFECT_GAIN);
	assert_int_equal(o.ndisagree, 0);
	effect_release(&o);

	/* Two nodes, one gains and one loses: the fleet cannot decide, both are named. */
	fx_reset(2);
	fx_pattern(0, 1, 1, 10, 1, 5);
	fx_pattern(1, 1, 1, -10, 1, 5);
	fx_run(5, false, &o);
	assert_int_equal(o.fleet_decision, EFFECT_INCONCLUSIVE);
	assert_int_equal(o.decision, EFFECT_HETEROGENEOUS);
	assert_int_equal(o.ndisagree, 2);
	effect_release(&o);

	/* A node that is only a bit weaker than the others (+7 % vs +10 %) differs
	 * significantly but also gains: the fleet's decision stands. */
	fx_reset(10);
	for (i = 0; i < 10; i++)
		fx_pattern(i, 1, 0.5, i == 3 ? 7 : 10, 0.5, 5);
	fx_run(5, false, &o);
	assert_true(o.nodes[3].differs);
	assert_false(o.nodes[3].disagrees);
	assert_int_equal(o.decision, EFFECT_GAIN);
	effect_release(&o);
}

/* Holm over the nodes: the smallest p is multiplied by k, the next by k - 1, ... and the
 * adjusted p never falls along the order. 3 nodes with the same data as
 * test_heterogeneity_hand but a fourth node identical to node 1: k = 4, so node 2's p
 * (0.0045916 by hand for k = 3) is now multiplied by 4, node 0's by 3. */
static void test_holm(void **state)
{
	double ref[] = { 98, 100, 102 };
	double p0[] = { 103, 105, 107 }, p1[] = { 108, 110, 112 }, p2[] = { 118, 120, 122 };
	double raw[4];
	struct effect o;
	int i;

	(void)state;
	fx_reset(4);
	fx_node(0, ref, 3, p0, 3);
	fx_node(1, ref, 3, p1, 3);
	fx_node(2, ref, 3, p2, 3);
	fx_node(3, ref, 3, p1, 3);
	fx_run(5, false, &o);
	/* Unadjusted p by the documented formula, from the module's own weights. */
	for (i = 0; i < 4; i++) {
		double s0 = 0, s1 = 0, s2 = 0, t;
		int j;

		for (j = 0; j < 4; j++) {
			double u = 1.0 / (o.nodes[j].se_log * o.nodes[j].se_log + o.tau2);

			if (j == i)
				continue;
			s0 += u;
			s1 += u * o.nodes[j].log_ratio;
			s2 += u * u * o.nodes[j].se_log * o.nodes[j].se_log;
		}
		t = (o.nodes[i].log_ratio - s1 / s0) /
		    sqrt(o.nodes[i].se_log * o.nodes[i].se_log + s2 / (s0 * s0));
		raw[i] = 2 * stats_t_sf(fabs(t), o.nodes[i].df);
	}
	/* Order: node 2, node 0, then nodes 1 and 3 (equal). */
	assert_true(raw[2] < raw[0] && raw[0] < raw[1]);
	assert_float_equal(o.nodes[2].differs_p, fmin(1, 4 * raw[2]), 1e-12);
	assert_float_equal(o.nodes[0].differs_p, fmax(4 * raw[2], fmin(1, 3 * raw[0])), 1e-12);
	assert_float_equal(o.nodes[1].differs_p, fmax(o.nodes[0].differs_p, fmin(1, 2 * raw[1])),
	                   1e-12);
	assert_float_equal(o.nodes[3].differs_p, fmax(o.nodes[1].differs_p, fmin(1, raw[3])),
	                   1e-12);
	effect_release(&o);
}

/* Adaptive loops: α = 5 % / K per look; stop when decided or at the last look. */
static void test_adaptive_stopping(void **state)
{
	struct effect o;
	double t18 = stats_t_quantile(1 - 0.05 / 18 / 2, 8), t1 = stats_t_quantile(0.975, 8);

	(void)state;
	assert_float_equal(effect_alpha(1), 0.05, 0);
	assert_float_equal(effect_alpha(18), 0.05 / 18, 1e-15);
	/* One node, 5 passes each at CV 3 %: df 8, √v = 0.03 × √(2/5) = 0.0189737. A +7 % effect
	 * (θ = 0.0676586) clears t(0.975, 8) √v = 0.0437532 but not t(1 - 0.05/36, 8) √v. */
	assert_true(log(1.07) > t1 * 0.03 * sqrt(0.4));
	assert_true(log(1.07) < t18 * 0.03 * sqrt(0.4));
	fx_reset(1);
	fx_pattern(0, 1, 3, 7, 3, 5);
	fx_run_look(5, false, 1, 1, &o);
	assert_int_equal(o.decision, EFFECT_GAIN);
	assert_true(o.stop);
	effect_release(&o);
	fx_run_look(5, false, 3, 18, &o);
	assert_float_equal(o.alpha, 0.05 / 18, 1e-15);
	assert_float_equal(o.sig_low_pct, 100 * expm1(log(1.07) - t18 * 0.03 * sqrt(0.4)), 1e-9);
	assert_true(o.sig_low_pct < 0);
	/* The plain 95 % interval is still reported for display. */
	assert_true(o.ci95_low_pct > 0);
	assert_int_equal(o.decision, EFFECT_INCONCLUSIVE);
	assert_false(o.stop);
	effect_release(&o);
	/* The last look stops whatever the decision. */
	fx_run_look(5, false, 18, 18, &o);
	assert_int_equal(o.decision, EFFECT_INCONCLUSIVE);
	assert_true(o.stop);
	effect_release(&o);
	/* A clear effect stops early; so does a clear equivalence; a loss too. */
	fx_pattern(0, 1, 1, 10, 1, 5);
	fx_run_look(5, false, 1, 18, &o);
	assert_int_equal(o.decision, EFFECT_GAIN);
	assert_true(o.stop);
	effect_release(&o);
	fx_pattern(0, 1, 0.5, 0, 0.5, 5);
	fx_run_look(5, false, 1, 18, &o);
	assert_int_equal(o.decision, EFFECT_EQUIVALENT);
	assert_true(o.stop);
	effect_release(&o);
	fx_pattern(0, 1, 1, -10, 1, 5);
	fx_run_look(5, false, 2, 18, &o);
	assert_int_equal(o.decision, EFFECT_LOSS);
	assert_true(o.stop);
	effect_release(&o);
}

/* Noise: MDE at the loops run, loops needed, and the flag. Passes varying by 35 % on 2
 * nodes, 3 loops: far too noisy for 5 %. Rerun with the loops it asks for and the same CV,
 * the MDE is within 5 %; one loop fewer, it is not. */
static void test_noise(void **state)
{
	struct effect o;
	int need;

	(void)state;
	fx_reset(2);
	fx_pattern(0, 1, 35, 0, 35, 3);
	fx_pattern(1, 1.1, 35, 0, 35, 3);
	fx_run(5, false, &o);
	assert_float_equal(o.cv_pct, 35, 1e-9);
	assert_float_equal(o.loops, 3, 0);
	assert_float_equal(o.nodes[0].cv_ref_pct, 35, 1e-9);
	assert_true(o.mde_pct > 5);
	assert_true(o.noisy);
	assert_int_equal(o.decision, EFFECT_INCONCLUSIVE);
	need = o.loops_needed;
	/* 2 nodes, σ² = 2 × 0.35² per loop and node: about 2 (1.96 + 0.84)² 0.245 / 2 / 0.0488²
	 * = 405 loops by the normal approximation. */
	assert_in_range(need, 380, 440);
	effect_release(&o);
	fx_pattern(0, 1, 35, 0, 35, need);
	fx_pattern(1, 1.1, 35, 0, 35, need);
	fx_run(5, false, &o);
	assert_true(o.mde_pct <= 5);
	assert_false(o.noisy);
	assert_int_equal(o.loops_needed, need);
	effect_release(&o);
	fx_pattern(0, 1, 35, 0, 35, need - 1);
	fx_pattern(1, 1.1, 35, 0, 35, need - 1);
	fx_run(5, false, &o);
	assert_true(o.mde_pct > 5);
	assert_true(o.noisy);
	effect_release(&o);
	/* Real spread between nodes that more loops cannot average away: -1. */
	fx_reset(2);
	fx_pattern(0, 1, 1, -20, 1, 5);
	fx_pattern(1, 1, 1, 30, 1, 5);
	fx_run(5, false, &o);
	assert_true(o.tau_pct > 10);
	assert_int_equal(o.loops_needed, -1);
	assert_true(o.noisy);
	effect_release(&o);
}

/* 200 nodes give more certainty than 2, never less. */
static void test_more_nodes_narrower(void **state)
{
	double w2, w200;
	struct effect o;
	int i;

	(void)state;
	fx_reset(2);
	for (i = 0; i < 2; i++)
		fx_pattern(i, 1 + 0.05 * i, 5, 10, 5, 5);
	fx_run(5, false, &o);
	w2 = o.ci95_high_pct - o.ci95_low_pct;
	effect_release(&o);
	fx_reset(200);
	for (i = 0; i < 200; i++)
		fx_pattern(i, 1 + 0.05 * (i % 2), 5, 10, 5, 5);
	fx_run(5, false, &o);
	w200 = o.ci95_high_pct - o.ci95_low_pct;
	assert_true(w200 < w2 / 5);
	assert_float_equal(o.tau2, 0, 1e-15);
	assert_int_equal(o.decision, EFFECT_GAIN);
	effect_release(&o);
}

static void test_bad_input(void **state)
{
	double x[] = { 1, NAN };
	struct effect_sample s[1] = { { x, 2, NULL } }, ok[1] = { { x, 1, NULL } };
	struct effect_input in = {
		.nnodes = 1, .ref = ok, .point = s, .min_effect_pct = 5, .look = 1, .nlooks = 1
	};
	struct effect o;
	struct err e = { 0 };

	(void)state;
	assert_int_equal(effect_compute(&in, &o, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "node 0: point pass 2 is not a finite number"));
	assert_null(o.nodes);
	effect_release(&o);
	in.point = ok;
	in.look = 4;
	in.nlooks = 3;
	assert_int_equal(effect_compute(&in, &o, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "look 4 of 3"));
	in.look = 1;
	in.min_effect_pct = -1;
	assert_int_equal(effect_compute(&in, &o, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "min_effect_pct"));
	in.min_effect_pct = 5;
	in.ref = NULL;
	assert_int_equal(effect_compute(&in, &o, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "reference passes are missing"));
	effect_release(NULL);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(effect_decision_name(EFFECT_NA), "na");
	assert_string_equal(effect_decision_name(EFFECT_GAIN), "gain");
	assert_string_equal(effect_decision_name(EFFECT_LOSS), "loss");
	assert_string_equal(effect_decision_name(EFFECT_EQUIVALENT), "equivalent");
	assert_string_equal(effect_decision_name(EFFECT_INCONCLUSIVE), "inconclusive");
	assert_string_equal(effect_decision_name(EFFECT_HETEROGENEOUS), "heterogeneous");
	assert_string_equal(effect_node_state_name(EFFECT_NODE_USED), "used");
	assert_string_equal(effect_node_state_name(EFFECT_NODE_MISSING), "missing");
	assert_string_equal(effect_node_state_name(EFFECT_NODE_NONPOSITIVE), "nonpositive");
}

/* Seed 003: per-pass MiB/s of 5 loops × 60 s, node1 then node2, per row. */
struct seed_row {
	const char *name;
	double pass[2][5];
};

static void seed_compare(const struct seed_row *base, const struct seed_row *pt, struct effect *o)
{
	fx_reset(2);
	fx_node(0, base->pass[0], 5, pt->pass[0], 5);
	fx_node(1, base->pass[1], 5, pt->pass[1], 5);
	fx_run(5, false, o);
	printf("  %-34s vs %-24s %+6.2f %% [%+6.2f, %+6.2f] 90 %% [%+6.2f, %+6.2f] %s\n", pt->name,
	       base->name, o->delta_pct, o->ci95_low_pct, o->ci95_high_pct, o->ci90_low_pct,
	       o->ci90_high_pct, effect_decision_name(o->decision));
}

/* The strip-size table: 64 KiB is the baseline. */
static const struct seed_row strip[] = {
	{ "64 KiB",
	  { { 1149.50, 1133.90, 1158.80, 1141.30, 1153.60 },
	    { 1119.20, 1130.20, 1156.70, 1126.40, 1149.30 } } },
	{ "128 KiB",
	  { { 1153.50, 1116.40, 1092.20, 1115.70, 1104.20 },
	    { 1130.60, 1117.10, 1091.20, 1108.90, 1109.40 } } },
	{ "256 KiB",
	  { { 1357.20, 1303.30, 1300.10, 1274.50, 1317.90 },
	    { 1351.10, 1324.90, 1285.50, 1272.60, 1315.40 } } },
	{ "512 KiB",
	  { { 1227.60, 1199.50, 1216.50, 1197.20, 1190.10 },
	    { 1212.90, 1227.60, 1212.50, 1206.10, 1202.50 } } },
	{ "1024 KiB",
	  { { 1045.80, 1059.20, 1054.40, 1041.40, 1028.10 },
	    { 1047.20, 1044.80, 1037.40, 1060.10, 1038.40 } } },
};

static void test_seed003_strip_size(void **state)
{
	struct effect o;

	(void)state;
	printf("seed 003, strip size:\n");
	seed_compare(&strip[0], &strip[2], &o);
	assert_int_equal(o.decision, EFFECT_GAIN); /* "Notable improvement" */
	assert_float_equal(o.delta_pct, 14.69, 0.01);
	effect_release(&o);
	seed_compare(&strip[0], &strip[4], &o);
	assert_int_equal(o.decision, EFFECT_LOSS); /* "Slowest option" */
	assert_float_equal(o.delta_pct, -8.5, 0.1);
	effect_release(&o);
	/* 128 KiB, "no appreciable difference": -2.4 %, the 90 % interval inside ±5 %. */
	seed_compare(&strip[0], &strip[1], &o);
	assert_int_equal(o.decision, EFFECT_EQUIVALENT);
	effect_release(&o);
	/* 256 KiB beats every other strip size. */
	seed_compare(&strip[3], &strip[2], &o);
	assert_int_equal(o.decision, EFFECT_GAIN); /* "Drop from 256 KiB" */
	effect_release(&o);
}

/* Seed 003's nr_requests / queue_depth rows (the figures of ctltest_seed003_passes). */
static const struct seed_row kernel[] = {
	{ "nr_requests 128, queue_depth 256",
	  { { 1278.80, 1279.40, 1278.70, 1286.60, 1282.40 },
	    { 1268.40, 1256.90, 1262.70, 1257.60, 1260.90 } } },
	{ "nr_requests 975, queue_depth 256",
	  { { 1268.20, 1266.40, 1285.60, 1284.70, 1284.10 },
	    { 1270.50, 1273.60, 1258.60, 1270.30, 1265.20 } } },
	{ "nr_requests 975, queue_depth 975→919",
	  { { 1427.80, 1463.40, 1417.10, 1408.20, 1467.40 },
	    { 1433.20, 1399.10, 1415.90, 1411.60, 1427.80 } } },
	{ "nr_requests 4000, queue_depth 975→919",
	  { { 1842.40, 1857.20, 1920.10, 1839.50, 1902.30 },
	    { 1872.20, 1871.60, 1852.10, 1921.20, 1880.50 } } },
};

static void test_seed003_queue(void **state)
{
	struct effect o;
	double best = -INFINITY;
	int i, best_i = -1;

	(void)state;
	printf("seed 003, nr_requests / queue_depth:\n");
	seed_compare(&kernel[0], &kernel[1], &o);
	assert_int_equal(o.decision, EFFECT_EQUIVALENT); /* "No real difference on its own" */
	effect_release(&o);
	seed_compare(&kernel[0], &kernel[2], &o);
	assert_int_equal(o.decision, EFFECT_GAIN); /* "Significant boost" */
	effect_release(&o);
	for (i = 1; i < 4; i++) {
		seed_compare(&kernel[0], &kernel[i], &o);
		if (o.decision == EFFECT_GAIN && o.delta_pct > best) {
			best = o.delta_pct;
			best_i = i;
		}
		effect_release(&o);
	}
	assert_int_equal(best_i, 3); /* nr_requests 4000: the best, +47.7 % */
	assert_float_equal(best, 47.72, 0.01);
	/* ... and a gain over queue_depth 919 alone, not just over the baseline. */
	seed_compare(&kernel[2], &kernel[3], &o);
	assert_int_equal(o.decision, EFFECT_GAIN);
	effect_release(&o);
}

/* Tuning the deadline scheduler: every knob is "no real difference" against the default
 * values; only nr_requests 4000 (the last row) is a gain. */
static const struct seed_row deadline[] = {
	{ "defaults (baseline)",
	  { { 1289.70, 1271.70, 1291.70, 1280.40, 1285.20 },
	    { 1296.60, 1282.40, 1272.20, 1267.50, 1260.60 } } },
	{ "writes_starved 1",
	  { { 1273.40, 1281.80, 1268.40, 1290.20, 1268.80 },
	    { 1257.30, 1260.80, 1272.90, 1272.30, 1244.80 } } },
	{ "writes_starved 4",
	  { { 1278.90, 1268.50, 1283.90, 1292.10, 1287.10 },
	    { 1289.80, 1269.90, 1249.10, 1268.80, 1260.20 } } },
	{ "writes_starved 8",
	  { { 1276.70, 1269.10, 1274.90, 1272.70, 1272.70 },
	    { 1264.20, 1268.20, 1268.70, 1243.30, 1259.70 } } },
	{ "write_expire 500",
	  { { 1285.20, 1278.90, 1289.50, 1274.50, 1280.10 },
	    { 1286.40, 1277.20, 1251.70, 1261.10, 1273.50 } } },
	{ "read_expire 5000, write_expire 500",
	  { { 1272.70, 1278.50, 1279.10, 1275.60, 1281.20 },
	    { 1264.60, 1267.70, 1284.50, 1273.90, 1288.70 } } },
	{ "fifo_batch 32",
	  { { 1278.80, 1285.30, 1282.50, 1289.30, 1290.90 },
	    { 1285.40, 1273.70, 1278.20, 1274.60, 1281.10 } } },
	{ "fifo_batch 64",
	  { { 1301.90, 1298.80, 1289.60, 1305.70, 1285.80 },
	    { 1292.20, 1274.90, 1259.10, 1272.30, 1273.80 } } },
	{ "read_expire 500, write_expire 500",
	  { { 1272.90, 1295.30, 1287.30, 1277.20, 1270.60 },
	    { 1278.80, 1275.30, 1277.10, 1281.70, 1276.60 } } },
	{ "nr_requests 4000",
	  { { 2197.70, 2055.90, 2024.60, 2122.40, 2056.90 },
	    { 2017.90, 2036.60, 2098.20, 2058.40, 2091.10 } } },
};

static void test_seed003_deadline_knobs(void **state)
{
	int n = sizeof(deadline) / sizeof(deadline[0]), i;
	struct effect o;

	(void)state;
	printf("seed 003, mq-deadline knobs:\n");
	for (i = 1; i < n; i++) {
		seed_compare(&deadline[0], &deadline[i], &o);
		assert_int_equal(o.decision, i < n - 1 ? EFFECT_EQUIVALENT : EFFECT_GAIN);
		assert_false(o.noisy);
		effect_release(&o);
	}
}

/* Within rounds, by hand: three rounds, the reference flat, the point 10 %, 5 % and 0 % above
 * it; a second node whose level moves round by round as much as you like. */
static void test_blocked_hand(void **state)
{
	static const int rounds[] = { 1, 2, 3 };
	double ref[] = { 100, 100, 100 }, pt[] = { 110, 105, 100 };
	double ref2[] = { 100, 200, 400 }, pt2[] = { 105, 210, 420 };
	struct effect_sample r[2] = { { ref, 3, rounds }, { ref2, 3, rounds } };
	struct effect_sample p[2] = { { pt, 3, rounds }, { pt2, 3, rounds } };
	struct effect_input in = {
		.nnodes = 2, .ref = r, .point = p, .min_effect_pct = 5, .look = 1, .nlooks = 1
	};
	struct effect o;
	struct err e;
	double t = stats_t_quantile(0.975, 2);

	(void)state;
	assert_int_equal(effect_compute(&in, &o, &e), 0);
	/*
	 * Node 0: d = ln 1.1, ln 1.05, 0 = 0.0953102, 0.0487902, 0; θ = 0.0480334 (Δ 4.92057 %),
	 * s_d = 0.0476596, SE = s_d / √3 = 0.0275163, df 2.
	 */
	assert_true(o.nodes[0].blocked);
	assert_int_equal(o.nodes[0].n_ref, 3);
	assert_float_equal(o.nodes[0].log_ratio, 0.0480334480, 1e-9);
	assert_float_equal(o.nodes[0].delta_pct, 4.920574857, 1e-8);
	assert_float_equal(o.nodes[0].sd_pair, 0.0476595957, 1e-9);
	assert_float_equal(o.nodes[0].se_log, 0.0275162804, 1e-9);
	assert_float_equal(o.nodes[0].df, 2, 0);
	assert_float_equal(o.nodes[0].ci_low_pct, 100 * expm1(0.0480334480 - t * 0.0275162804),
	                   1e-6);
	/* Node 1: the level quadruples over the rounds, the point stays 5 % above it in each:
	 * exactly 5 %, no spread (independent samples would see a CV of 66 %). */
	assert_float_equal(o.nodes[1].delta_pct, 5.0, 1e-9);
	assert_true(o.nodes[1].se_log < 1e-5);
	effect_release(&o);
	/* The same node 1 without rounds: the ratio of means is 5 % too, but with no certainty. */
	r[1].round = NULL;
	assert_int_equal(effect_compute(&in, &o, &e), 0);
	assert_false(o.nodes[1].blocked);
	assert_true(o.nodes[1].se_log > 0.3);
	effect_release(&o);
}

/* Only the rounds both points ran are paired; one pass in common is too few. */
static void test_blocked_unmatched(void **state)
{
	static const int rr[] = { 1, 2, 3, 4, 7 }, rp[] = { 2, 4, 5, 7 }, one[] = { 9 };
	double ref[] = { 100, 101, 99, 100, 102 }, pt[] = { 111, 110, 500, 112 };
	struct effect_sample r[1] = { { ref, 5, rr } }, p[1] = { { pt, 4, rp } };
	struct effect_input in = {
		.nnodes = 1, .ref = r, .point = p, .min_effect_pct = 5, .look = 1, .nlooks = 1
	};
	struct effect o;
	struct err e;

	(void)state;
	assert_int_equal(effect_compute(&in, &o, &e), 0);
	/* Rounds 2, 4, 7: 111/101, 110/100, 112/102; round 5's 500 has no reference. */
	assert_int_equal(o.nodes[0].n_ref, 3);
	assert_int_equal(o.nodes[0].n_point, 3);
	assert_float_equal(o.nodes[0].log_ratio,
	                   (log(111.0 / 101) + log(110.0 / 100) + log(112.0 / 102)) / 3, 1e-12);
	assert_float_equal(o.nodes[0].mean_point, 111, 1e-12);
	effect_release(&o);
	p[0] = (struct effect_sample){ pt, 1, one };
	r[0] = (struct effect_sample){ ref, 1, one };
	assert_int_equal(effect_compute(&in, &o, &e), 0);
	assert_int_equal(o.nodes[0].state, EFFECT_NODE_FEW_PASSES);
	assert_int_equal(o.nused, 0);
	effect_release(&o);
	/* A pass of 0 (the device stalled: the demo on a busy disk had one) has no log ratio: the
	 * node is judged on the same rounds as independent samples, not dropped. */
	ref[1] = 0;
	r[0] = (struct effect_sample){ ref, 5, rr };
	p[0] = (struct effect_sample){ pt, 4, rp };
	assert_int_equal(effect_compute(&in, &o, &e), 0);
	assert_int_equal(o.nodes[0].state, EFFECT_NODE_USED);
	assert_false(o.nodes[0].blocked);
	assert_int_equal(o.nodes[0].n_ref, 3);
	assert_float_equal(o.nodes[0].mean_ref, (0 + 100 + 102) / 3.0, 1e-12);
	assert_float_equal(o.nodes[0].delta_pct, 100.0 * (111.0 / (202.0 / 3) - 1), 1e-9);
	assert_int_equal(o.nused, 1);
	effect_release(&o);
}

/* A pure linear drift (on the log scale, 0.5 % per run) through rounds_order's mirrored pairs:
 * every point's Δ against the baseline is 0 exactly, whatever the order the seed gives. */
static void test_blocked_linear_drift(void **state)
{
	enum { NPT = 4, NR = 6 };
	static const int pts[NPT] = { 0, 1, 2, 3 };
	double x[NPT][NR];
	int rnd[NPT][NR], order[NPT], i, r, run = 0, seed;

	(void)state;
	for (seed = 1; seed <= 20; seed++) {
		run = 0;
		for (r = 1; r <= NR; r++) {
			rounds_order((uint64_t)seed, 0, r, pts, NPT, order);
			for (i = 0; i < NPT; i++, run++) {
				x[order[i]][r - 1] = 1000 * exp(log(1.005) * run);
				rnd[order[i]][r - 1] = r;
			}
		}
		for (i = 1; i < NPT; i++) {
			struct effect_sample a[1] = { { x[0], NR, rnd[0] } },
			                     b[1] = { { x[i], NR, rnd[i] } };
			struct effect_input in = { .nnodes = 1,
				                   .ref = a,
				                   .point = b,
				                   .min_effect_pct = 5,
				                   .look = 1,
				                   .nlooks = 1 };
			struct effect o;
			struct err e;

			assert_int_equal(effect_compute(&in, &o, &e), 0);
			assert_float_equal(o.nodes[0].delta_pct, 0, 1e-9);
			assert_float_equal(o.delta_pct, 0, 1e-9);
			effect_release(&o);
		}
	}
	/* Consecutive loops instead (all of point 0, then all of point 1, ...): the drift of
	 * NR runs reads as an effect. */
	for (i = 0; i < NPT; i++)
		for (r = 0; r < NR; r++)
			x[i][r] = 1000 * exp(log(1.005) * (i * NR + r));
	{
		struct effect_sample a[1] = { { x[0], NR, NULL } }, b[1] = { { x[3], NR, NULL } };
		struct effect_input in = { .nnodes = 1,
			                   .ref = a,
			                   .point = b,
			                   .min_effect_pct = 5,
			                   .look = 1,
			                   .nlooks = 1 };
		struct effect o;
		struct err e;

		assert_int_equal(effect_compute(&in, &o, &e), 0);
		assert_float_equal(o.delta_pct, 100 * (pow(1.005, 18) - 1), 1e-6);
		assert_int_equal(o.decision, EFFECT_GAIN);
		effect_release(&o);
	}
}

/* The run-to-run variance: added to the node's and the fleet's variance on Satterthwaite's df,
 * undivided by the number of nodes; as an assumption (df 0) it is taken as known. */
static void test_extra_variance(void **state)
{
	struct effect o, w;
	struct err e;
	double v, x = 0.03 * 0.03, df;
	struct effect_input in;

	(void)state;
	fx_reset(2);
	fx_pattern(0, 1.0, 1.0, 6.0, 1.0, 5);
	fx_pattern(1, 1.0, 1.0, 6.0, 1.0, 5);
	fx_run(5, false, &w);
	assert_int_equal(w.decision, EFFECT_GAIN);
	in = (struct effect_input){ .nnodes = 2,
		                    .ref = fx.r,
		                    .point = fx.p,
		                    .min_effect_pct = 5,
		                    .look = 1,
		                    .nlooks = 1,
		                    .extra_var = x,
		                    .extra_df = 4 };
	assert_int_equal(effect_compute(&in, &o, &e), 0);
	v = w.se_log * w.se_log;
	df = (v + x) * (v + x) / (v * v / w.df + x * x / 4);
	assert_float_equal(o.se_log, sqrt(v + x), 1e-12);
	assert_float_equal(o.df, df, 1e-9);
	assert_float_equal(o.delta_pct, w.delta_pct, 1e-12);
	assert_float_equal(o.nodes[0].se_log, sqrt(w.nodes[0].se_log * w.nodes[0].se_log + x),
	                   1e-12);
	/* 6 % against a run-to-run SD of 3 % on 4 df is no longer shown. */
	assert_int_equal(o.decision, EFFECT_INCONCLUSIVE);
	assert_true(o.ci95_low_pct < 0);
	effect_release(&o);
	in.extra_df = 0;
	assert_int_equal(effect_compute(&in, &o, &e), 0);
	assert_float_equal(o.df, w.df * (v + x) * (v + x) / (v * v), 1e-6);
	effect_release(&o);
	in.extra_var = -1;
	assert_int_equal(effect_compute(&in, &o, &e), -EINVAL);
	effect_release(&o);
	effect_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node_hand),
		cmocka_unit_test(test_blocked_hand),
		cmocka_unit_test(test_blocked_unmatched),
		cmocka_unit_test(test_blocked_linear_drift),
		cmocka_unit_test(test_extra_variance),
		cmocka_unit_test(test_heterogeneity_hand),
		cmocka_unit_test(test_equivalence_edges),
		cmocka_unit_test(test_gain_loss_thresholds),
		cmocka_unit_test(test_minimize),
		cmocka_unit_test(test_missing_and_single_pass),
		cmocka_unit_test(test_zero_variance),
		cmocka_unit_test(test_outlier_naming),
		cmocka_unit_test(test_holm),
		cmocka_unit_test(test_adaptive_stopping),
		cmocka_unit_test(test_noise),
		cmocka_unit_test(test_more_nodes_narrower),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_seed003_strip_size),
		cmocka_unit_test(test_seed003_queue),
		cmocka_unit_test(test_seed003_deadline_knobs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
