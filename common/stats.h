/* stats.h -- descriptive statistics over a sample of doubles (pure functions). */
#ifndef FT_STATS_H
#define FT_STATS_H

struct stats_summary {
	int n;
	double mean;
	double stdev; /* sample standard deviation (n-1); 0 when n < 2 */
	double min;
	double max;
};

/* Summarise x[0..n). n may be 0 (everything zero). */
void stats_summarize(const double *x, int n, struct stats_summary *out);

/* Standard normal CDF Phi(z). Phi(1.959964) = 0.975. */
double stats_norm_cdf(double z);
/* Standard normal quantile: the z with Phi(z) = p, for 0 < p < 1 (NAN otherwise).
 * z(0.975) = 1.959964, z(0.8) = 0.841621. */
double stats_norm_quantile(double p);

/* Regularized lower incomplete gamma function P(a, x), for a > 0 and x >= 0. */
double stats_gammainc(double a, double x);
/* Its complement Q(a, x) = 1 - P(a, x), computed directly (accurate for small Q). */
double stats_gammainc_upper(double a, double x);
/* Chi-square CDF P(X <= x) with k > 0 degrees of freedom. chi2(3.841459; 1) = 0.95. */
double stats_chi2_cdf(double x, double k);
/* Chi-square upper tail P(X > x): the p-value of a statistic x with k degrees of freedom. */
double stats_chi2_sf(double x, double k);

/* Regularized incomplete beta function I_x(a, b), for a, b > 0 and 0 <= x <= 1. */
double stats_betainc(double a, double b, double x);
/* Student-t cumulative distribution P(T <= t) with df > 0 degrees of freedom. */
double stats_t_cdf(double t, double df);
/* Student-t upper tail P(T > t), accurate far into the tail (p-values). */
double stats_t_sf(double t, double df);
/* Student-t quantile: the t with P(T <= t) = p, for 0 < p < 1 and df > 0 (df may be
 * fractional, as Welch-Satterthwaite gives). t(0.975, 4) = 2.776. */
double stats_t_quantile(double p, double df);

/* Welch's t comparison of two independent samples' means (b - a). */
struct stats_welch {
	double diff;   /* mean_b - mean_a */
	double se;     /* standard error of diff */
	double df;     /* Welch-Satterthwaite degrees of freedom; 0 when undefined */
	double ci_low; /* confidence interval of diff; NAN when n_a < 2 or n_b < 2 */
	double ci_high;
};

/* Welch-Satterthwaite degrees of freedom for variances va, vb and sizes na, nb (>= 2 each).
 * Returns 0 when both variances are zero. */
double stats_welch_df(double va, int na, double vb, int nb);
/* Compare summaries a and b at confidence level conf (e.g. 0.95). When both samples have
 * zero variance the interval collapses to [diff, diff]. */
void stats_welch(const struct stats_summary *a, const struct stats_summary *b, double conf,
                 struct stats_welch *out);

/* Holm's step-down adjustment of n p-values: adjusted[i] for p[i] (0..1), each the running
 * maximum of min(1, (n - rank) p) over the p-values in increasing order (ties in index order). */
void stats_holm(const double *p, int n, double *adjusted);

/* The common slope of y on t within groups: a least-squares line with one intercept per
 * group and one slope (each group's points centred on its own means). Groups with fewer than
 * 2 points, or with no spread of t, add nothing. */
struct stats_slope {
	int n;        /* observations in groups that count */
	int ngroups;  /* groups that count */
	double slope; /* dy/dt; NAN when no group counts */
	double se;    /* its standard error; NAN when df < 1 */
	double df;    /* n - ngroups - 1 */
	double p;     /* two-sided p of slope = 0 (t distribution); NAN when se is */
};

/* y, t over n observations whose group ids run in contiguous stretches (group[i] equal for
 * one group's observations, which are consecutive). */
void stats_within_slope(const double *y, const double *t, const int *group, int n,
                        struct stats_slope *out);

#endif
