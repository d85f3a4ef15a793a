/* stats.c -- sample summaries, Welch's t and the normal, t and chi-square distributions. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "xmalloc.h"
#include "banned.h"

void stats_summarize(const double *x, int n, struct stats_summary *out)
{
	double sum = 0, ss = 0;
	int i;

	memset(out, 0, sizeof(*out));
	if (n <= 0)
		return;
	out->n = n;
	out->min = out->max = x[0];
	for (i = 0; i < n; i++) {
		sum += x[i];
		if (x[i] < out->min)
			out->min = x[i];
		if (x[i] > out->max)
			out->max = x[i];
	}
	out->mean = sum / n;
	if (n < 2)
		return;
	for (i = 0; i < n; i++)
		ss += (x[i] - out->mean) * (x[i] - out->mean);
	out->stdev = sqrt(ss / (n - 1));
}

#define LENTZ_TINY 1e-300

/* One step of the modified Lentz method for a continued fraction b0 + a1/(b1 + a2/(b2 + ...)):
 * fold the term an/(bn + ...) into c and d, kept away from zero; returns the factor the
 * fraction's value is multiplied by (near 1 once it has converged). */
static double lentz_step(double an, double bn, double *c, double *d)
{
	*d = bn + an * *d;
	if (fabs(*d) < LENTZ_TINY)
		*d = LENTZ_TINY;
	*c = bn + an / *c;
	if (fabs(*c) < LENTZ_TINY)
		*c = LENTZ_TINY;
	*d = 1.0 / *d;
	return *d * *c;
}

/* Continued fraction for the incomplete beta function (modified Lentz). */
static double stats_betacf(double a, double b, double x)
{
	const double eps = 1e-15;
	double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0), h;
	int m;

	if (fabs(d) < LENTZ_TINY)
		d = LENTZ_TINY;
	d = 1.0 / d;
	h = d;
	for (m = 1; m <= 1000; m++) {
		int m2 = 2 * m;
		double aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)), del;

		h *= lentz_step(aa, 1.0, &c, &d);
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
		del = lentz_step(aa, 1.0, &c, &d);
		h *= del;
		if (fabs(del - 1.0) < eps)
			break;
	}
	return h;
}

double stats_betainc(double a, double b, double x)
{
	double lbt;

	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	/* The fraction converges fast for x < (a+1)/(a+b+2); use the symmetry otherwise. */
	if (x < (a + 1.0) / (a + b + 2.0))
		return exp(lbt) * stats_betacf(a, b, x) / a;
	return 1.0 - exp(lbt) * stats_betacf(b, a, 1.0 - x) / b;
}

/* P(T > t) for t >= 0, through the incomplete beta function. */
static double t_upper(double t, double df)
{
	return 0.5 * stats_betainc(df / 2.0, 0.5, df / (df + t * t));
}

double stats_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || df <= 0)
		return NAN;
	tail = t_upper(fabs(t), df);
	return t >= 0 ? 1.0 - tail : tail;
}

double stats_t_sf(double t, double df)
{
	double tail;

	if (isnan(t) || df <= 0)
		return NAN;
	tail = t_upper(fabs(t), df);
	return t >= 0 ? tail : 1.0 - tail;
}

/*
 * Solve P(T > x) = tail for x >= 0 (tail <= 0.5) by Newton's method on the upper tail,
 * which is convex and decreasing on x >= 0, kept inside a bracket that falls back to
 * bisection. The start is the Cornish-Fisher expansion around the normal quantile.
 */
double stats_t_quantile(double p, double df)
{
	double tail, z, z2, x, lo = 0.0, hi = 1.0, lnorm;
	int i, neg = 0;

	if (!(p > 0.0 && p < 1.0) || !(df > 0))
		return NAN;
	if (p == 0.5)
		return 0.0;
	tail = p > 0.5 ? 1.0 - p : p;
	neg = p < 0.5;
	while (t_upper(hi, df) > tail && hi < 1e300)
		hi *= 2.0;
	z = -stats_norm_quantile(tail);
	z2 = z * z;
	x = z + (z2 * z + z) / (4 * df) + (5 * z2 * z2 * z + 16 * z2 * z + 3 * z) / (96 * df * df);
	if (!(x > lo && x < hi))
		x = 0.5 * (lo + hi);
	lnorm = lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * M_PI);
	for (i = 0; i < 200; i++) {
		double g = t_upper(x, df) - tail, dens, next;

		if (g > 0)
			lo = x;
		else
			hi = x;
		dens = exp(lnorm - (df + 1) / 2 * log1p(x * x / df));
		next = dens > 0 ? x + g / dens : 0.5 * (lo + hi);
		if (!(next > lo && next < hi))
			next = 0.5 * (lo + hi);
		if (fabs(next - x) <= 1e-14 * fabs(next) || hi - lo <= 1e-14 * hi) {
			x = next;
			break;
		}
		x = next;
	}
	return neg ? -x : x;
}

double stats_norm_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

/*
 * Newton's method on the lower tail from the Abramowitz-Stegun 26.2.23 start (error below
 * 4.5e-4); erfc keeps the residual accurate far into the tail, so a few steps reach double
 * precision.
 */
double stats_norm_quantile(double p)
{
	double q, t, x;
	int i;

	if (!(p > 0.0 && p < 1.0))
		return NAN;
	if (p == 0.5)
		return 0.0;
	q = p < 0.5 ? p : 1.0 - p;
	t = sqrt(-2.0 * log(q));
	x = -(t - (2.515517 + 0.802853 * t + 0.010328 * t * t) /
	                  (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t));
	for (i = 0; i < 20; i++) {
		double dens = exp(-0.5 * x * x) / sqrt(2.0 * M_PI);
		double step = (stats_norm_cdf(x) - q) / dens;

		x -= step;
		if (fabs(step) <= 1e-15 * fabs(x))
			break;
	}
	return p < 0.5 ? x : -x;
}

/* Series for P(a, x), converging fast for x < a + 1. */
static double gamma_series(double a, double x)
{
	double ap = a, term = 1.0 / a, sum = term;
	int n;

	for (n = 0; n < 10000; n++) {
		ap += 1.0;
		term *= x / ap;
		sum += term;
		if (fabs(term) < fabs(sum) * 1e-16)
			break;
	}
	return sum * exp(-x + a * log(x) - lgamma(a));
}

/* Continued fraction for Q(a, x) (modified Lentz), converging fast for x >= a + 1. */
static double gamma_fraction(double a, double x)
{
	double b = x + 1.0 - a, c = 1.0 / LENTZ_TINY, d = 1.0 / b, h = d;
	int i;

	for (i = 1; i < 10000; i++) {
		double an = -i * (i - a), del;

		b += 2.0;
		del = lentz_step(an, b, &c, &d);
		h *= del;
		if (fabs(del - 1.0) < 1e-16)
			break;
	}
	return h * exp(-x + a * log(x) - lgamma(a));
}

/* P(a, x), or with upper Q(a, x) = 1 - P(a, x): each side from the expansion that converges
 * at x, the complement taken of the other, so that a small Q keeps its digits. */
static double gammainc(double a, double x, bool upper)
{
	double p;

	if (!(a > 0) || isnan(x))
		return NAN;
	if (x <= 0 || isinf(x))
		p = x <= 0 ? 0.0 : 1.0;
	else if (x < a + 1.0)
		p = gamma_series(a, x);
	else
		return upper ? gamma_fraction(a, x) : 1.0 - gamma_fraction(a, x);
	return upper ? 1.0 - p : p;
}

double stats_gammainc(double a, double x)
{
	return gammainc(a, x, false);
}

double stats_gammainc_upper(double a, double x)
{
	return gammainc(a, x, true);
}

double stats_chi2_cdf(double x, double k)
{
	return stats_gammainc(k / 2.0, x / 2.0);
}

double stats_chi2_sf(double x, double k)
{
	return stats_gammainc_upper(k / 2.0, x / 2.0);
}

double stats_welch_df(double va, int na, double vb, int nb)
{
	double qa, qb, den;

	if (na < 2 || nb < 2)
		return 0.0;
	qa = va / na;
	qb = vb / nb;
	den = qa * qa / (na - 1) + qb * qb / (nb - 1);
	if (den <= 0.0)
		return 0.0;
	return (qa + qb) * (qa + qb) / den;
}

void stats_welch(const struct stats_summary *a, const struct stats_summary *b, double conf,
                 struct stats_welch *out)
{
	double va = a->stdev * a->stdev, vb = b->stdev * b->stdev, t;

	memset(out, 0, sizeof(*out));
	out->diff = b->mean - a->mean;
	out->ci_low = out->ci_high = NAN;
	if (a->n < 2 || b->n < 2)
		return;
	out->se = sqrt(va / a->n + vb / b->n);
	out->df = stats_welch_df(va, a->n, vb, b->n);
	if (out->se == 0.0 || out->df <= 0.0) {
		out->ci_low = out->ci_high = out->diff;
		return;
	}
	t = stats_t_quantile(0.5 + conf / 2.0, out->df);
	out->ci_low = out->diff - t * out->se;
	out->ci_high = out->diff + t * out->se;
}

void stats_within_slope(const double *y, const double *t, const int *group, int n,
                        struct stats_slope *out)
{
	double sxy = 0, sxx = 0, syy = 0, rss;
	int i = 0, j, m;

	memset(out, 0, sizeof(*out));
	out->slope = out->se = out->p = NAN;
	/* Sums of the centred products, group by group. */
	while (i < n) {
		double my = 0, mt = 0, gxx = 0;

		for (j = i; j < n && group[j] == group[i]; j++) {
			my += y[j];
			mt += t[j];
		}
		m = j - i;
		my /= m;
		mt /= m;
		for (j = i; j < i + m; j++)
			gxx += (t[j] - mt) * (t[j] - mt);
		if (m >= 2 && gxx > 0) {
			for (j = i; j < i + m; j++) {
				sxy += (t[j] - mt) * (y[j] - my);
				syy += (y[j] - my) * (y[j] - my);
			}
			sxx += gxx;
			out->n += m;
			out->ngroups++;
		}
		i += m;
	}
	if (out->ngroups == 0)
		return;
	out->slope = sxy / sxx;
	out->df = out->n - out->ngroups - 1;
	if (out->df < 1)
		return;
	rss = fmax(0.0, syy - out->slope * sxy);
	out->se = sqrt(rss / out->df / sxx);
	out->p = out->se > 0 ? fmin(1.0, 2.0 * stats_t_sf(fabs(out->slope / out->se), out->df))
	                     : (out->slope != 0 ? 0.0 : 1.0);
}

struct holm_rank {
	double p;
	int i;
};

static int holm_cmp(const void *a, const void *b)
{
	const struct holm_rank *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->i - y->i;
}

void stats_holm(const double *p, int n, double *adjusted)
{
	struct holm_rank *r = xcalloc((size_t)n + 1, sizeof(*r));
	double run = 0;
	int i;

	for (i = 0; i < n; i++) {
		r[i].p = p[i];
		r[i].i = i;
	}
	qsort(r, (size_t)n, sizeof(*r), holm_cmp);
	for (i = 0; i < n; i++) {
		double a = (n - i) * r[i].p;

		run = fmax(run, a < 1.0 ? a : 1.0);
		adjusted[r[i].i] = run;
	}
	free(r);
}
