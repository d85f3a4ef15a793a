/* stats.c -- mean, sample standard deviation, min and max. */
#include <math.h>
#include <string.h>

#include "stats.h"
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

/* Continued fraction for the incomplete beta function (modified Lentz). */
static double stats_betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0), h;
	int m;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	h = d;
	for (m = 1; m <= 1000; m++) {
		int m2 = 2 * m;
		double aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)), del;

		d = 1.0 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1.0 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1.0 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
		d = 1.0 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1.0 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1.0 / d;
		del = d * c;
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

double stats_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || df <= 0)
		return NAN;
	tail = 0.5 * stats_betainc(df / 2.0, 0.5, df / (df + t * t));
	return t >= 0 ? 1.0 - tail : tail;
}

/* Bracket the root, then bisect: 200 halvings are far below double precision. */
double stats_t_quantile(double p, double df)
{
	double lo = 0.0, hi = 1.0, q = p;
	int i, neg = 0;

	if (!(p > 0.0 && p < 1.0) || !(df > 0))
		return NAN;
	if (p == 0.5)
		return 0.0;
	if (p < 0.5) {
		q = 1.0 - p;
		neg = 1;
	}
	while (stats_t_cdf(hi, df) < q && hi < 1e300)
		hi *= 2.0;
	for (i = 0; i < 200; i++) {
		double mid = 0.5 * (lo + hi);

		if (stats_t_cdf(mid, df) < q)
			lo = mid;
		else
			hi = mid;
		if (hi - lo <= 1e-13 * hi)
			break;
	}
	return neg ? -0.5 * (lo + hi) : 0.5 * (lo + hi);
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
