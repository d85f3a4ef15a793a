/* test_stats.c -- the normal, t and chi-square distributions of stats.c against table values. */
#include <math.h>

#include "stats.h"
#include "testutil.h"

/* Relative closeness, for values spanning many orders of magnitude. */
static void assert_rel(double got, double want, double rel)
{
	if (!(fabs(got - want) <= rel * fabs(want)))
		fail_msg("got %.17g, want %.17g (relative tolerance %g)", got, want, rel);
}

static void test_norm_cdf(void **state)
{
	(void)state;
	assert_float_equal(stats_norm_cdf(0), 0.5, 1e-15);
	assert_float_equal(stats_norm_cdf(1.959963985), 0.975, 1e-9);
	assert_float_equal(stats_norm_cdf(-1), 0.15865525393145707, 1e-15);
	assert_float_equal(stats_norm_cdf(3), 0.9986501019683699, 1e-15);
	/* The lower tail keeps its precision: Phi(-8) = 6.22e-16. */
	assert_rel(stats_norm_cdf(-8), 6.220960574271785e-16, 1e-9);
}

static void test_norm_quantile(void **state)
{
	(void)state;
	assert_float_equal(stats_norm_quantile(0.975), 1.959963984540054, 1e-12);
	assert_float_equal(stats_norm_quantile(0.95), 1.6448536269514722, 1e-12);
	assert_float_equal(stats_norm_quantile(0.9), 1.2815515655446004, 1e-12);
	assert_float_equal(stats_norm_quantile(0.8), 0.8416212335729143, 1e-12);
	assert_float_equal(stats_norm_quantile(0.999), 3.090232306167813, 1e-12);
	assert_float_equal(stats_norm_quantile(0.025), -1.959963984540054, 1e-12);
	assert_float_equal(stats_norm_quantile(0.5), 0.0, 0);
	assert_rel(stats_norm_quantile(1e-10), -6.361340902404056, 1e-12);
	assert_true(isnan(stats_norm_quantile(0)));
	assert_true(isnan(stats_norm_quantile(1)));
	assert_true(isnan(stats_norm_quantile(NAN)));
}

static void test_gammainc(void **state)
{
	double x;

	(void)state;
	/* P(1, x) = 1 - e^-x and P(1/2, x) = erf(sqrt(x)), on both sides of x = a + 1. */
	for (x = 0.05; x < 30; x *= 1.7) {
		assert_float_equal(stats_gammainc(1, x), 1 - exp(-x), 1e-14);
		assert_float_equal(stats_gammainc(0.5, x), erf(sqrt(x)), 1e-14);
		assert_rel(stats_gammainc_upper(1, x), exp(-x), 1e-12);
		assert_float_equal(stats_gammainc(3.7, x) + stats_gammainc_upper(3.7, x), 1, 1e-14);
	}
	assert_float_equal(stats_gammainc(2, 0), 0, 0);
	assert_float_equal(stats_gammainc_upper(2, 0), 1, 0);
	assert_true(isnan(stats_gammainc(0, 1)));
}

static void test_chi2(void **state)
{
	(void)state;
	/* Critical values from the chi-square table. */
	assert_float_equal(stats_chi2_cdf(3.841458820694124, 1), 0.95, 1e-12);
	assert_float_equal(stats_chi2_sf(5.991464547107979, 2), 0.05, 1e-12);
	assert_float_equal(stats_chi2_sf(11.070497693516351, 5), 0.05, 1e-12);
	assert_float_equal(stats_chi2_sf(23.20925115895436, 10), 0.01, 1e-12);
	assert_float_equal(stats_chi2_sf(232.91182176847585, 199), 0.05, 1e-10);
	assert_float_equal(stats_chi2_cdf(2.0, 3), 0.42759329552912023, 1e-13);
	assert_rel(stats_chi2_sf(30, 10), 0.000856641210775301, 1e-10);
	assert_float_equal(stats_chi2_sf(1e-3, 4), 0.9999998750416589, 1e-15);
	/* Far tail: a Q of 300 on 100 degrees of freedom. */
	assert_rel(stats_chi2_sf(300, 100), 7.4121008573230175e-22, 1e-8);
}

static void test_t(void **state)
{
	(void)state;
	assert_float_equal(stats_t_quantile(0.975, 2.5), 3.5746548420118773, 1e-10);
	assert_float_equal(stats_t_quantile(0.95, 1), 6.313751514800932, 1e-10);
	/* Closed forms far in the tail: df 1 is Cauchy, tan(pi (p - 1/2)); df 2 is
	 * (2p - 1) / sqrt(2 p (1 - p)). */
	assert_rel(stats_t_quantile(1 - 1e-7, 1), tan(M_PI * (0.5 - 1e-7)), 1e-9);
	assert_rel(stats_t_quantile(1e-8, 2), (2e-8 - 1) / sqrt(2e-8 * (1 - 1e-8)), 1e-9);
	/* Table values (scipy 1.10), and the tail inverting the quantile where tables round. */
	assert_rel(stats_t_quantile(0.9999, 3), 22.203742266779802, 1e-9);
	assert_rel(stats_t_quantile(0.999, 1.3), 89.92242898205944, 1e-9);
	assert_rel(stats_t_cdf(stats_t_quantile(1e-9, 4), 4), 1e-9, 1e-12);
	assert_rel(stats_t_sf(stats_t_quantile(0.9999, 3), 3), 1e-4, 1e-12);
	assert_rel(stats_t_quantile(1e-4, 3), -stats_t_quantile(0.9999, 3), 1e-12);
	assert_float_equal(stats_t_sf(3, 8), 0.008535840616891317, 1e-15);
	assert_float_equal(stats_t_sf(-3, 8), 1 - 0.008535840616891317, 1e-15);
	assert_rel(stats_t_sf(10, 2), 0.004926228511662846, 1e-12);
	/* Large df approaches the normal. */
	assert_float_equal(stats_t_quantile(0.8, 1e7), stats_norm_quantile(0.8), 1e-6);
}

/* One slope, an intercept per group, by hand; a lone point and a group without spread in t add
 * nothing. */
static void test_within_slope(void **state)
{
	/* Group 1: t 0 1 2, y 1 2 4 (sxy 3, sxx 2, syy 42/9); group 2: t 0 2, y 10 11 (sxy 1, sxx
	 * 2, syy 1/2); group 3: one point; group 4: t 5 5. slope = 4/4 = 1, rss = 42/9 + 1/2 - 4,
	 * df = 5 - 2 - 1 = 2, se = sqrt(rss / 2 / 4). */
	double y[] = { 1, 2, 4, 10, 11, 7, 3, 9 }, t[] = { 0, 1, 2, 0, 2, 4, 5, 5 };
	int g[] = { 1, 1, 1, 2, 2, 3, 4, 4 };
	double rss = 42.0 / 9 + 0.5 - 4, se = sqrt(rss / 2 / 4);
	struct stats_slope sl;

	(void)state;
	stats_within_slope(y, t, g, 8, &sl);
	assert_int_equal(sl.n, 5);
	assert_int_equal(sl.ngroups, 2);
	assert_float_equal(sl.slope, 1, 1e-12);
	assert_float_equal(sl.df, 2, 0);
	assert_float_equal(sl.se, se, 1e-12);
	assert_float_equal(sl.p, 2 * stats_t_sf(1 / se, 2), 1e-12);
	/* Nothing to fit. */
	stats_within_slope(y + 5, t + 5, g + 5, 1, &sl);
	assert_int_equal(sl.ngroups, 0);
	assert_true(isnan(sl.slope) && isnan(sl.p));
	/* A perfect line: se 0, p 0. */
	stats_within_slope((double[]){ 1, 2, 3 }, (double[]){ 0, 1, 2 }, (int[]){ 0, 0, 0 }, 3,
	                   &sl);
	assert_float_equal(sl.slope, 1, 1e-12);
	assert_float_equal(sl.p, 0, 0);
}

/* Holm over 4: sorted 0.01, 0.02, 0.03, 0.6, times 4, 3, 2, 1 = 0.04, 0.06, 0.06, 0.6 (the
 * running maximum), given back in their own order; capped at 1. */
static void test_holm(void **state)
{
	double p[4] = { 0.03, 0.01, 0.02, 0.6 }, a[4];

	(void)state;
	stats_holm(p, 4, a);
	assert_float_equal(a[1], 0.04, 1e-12);
	assert_float_equal(a[2], 0.06, 1e-12);
	assert_float_equal(a[0], 0.06, 1e-12);
	assert_float_equal(a[3], 0.6, 1e-12);
	p[3] = 0.9;
	p[0] = 0.9;
	stats_holm(p, 4, a);
	assert_float_equal(a[0], 1.0, 0);
	stats_holm(p, 0, a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_holm),     cmocka_unit_test(test_within_slope),
		cmocka_unit_test(test_norm_cdf), cmocka_unit_test(test_norm_quantile),
		cmocka_unit_test(test_gammainc), cmocka_unit_test(test_chi2),
		cmocka_unit_test(test_t),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
