/* drift.c -- each node's trend over a sweep and its warm-up, from the passes; no I/O. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge/drift.h"
#include "stats.h"
#include "xmalloc.h"
#include "banned.h"

/* One node's judged passes in the trend: log value, time, point; grouped by point. */
struct series {
	int n;
	double *y, *t;
	int *group; /* per entry: its configuration's group (one intercept each in the trend) */
	int *point; /* per entry: its point (a point's entries are consecutive) */
	int *first; /* per entry: 1 for a point's first pass in time */
};

static void series_release(struct series *x)
{
	free(x->y);
	free(x->t);
	free(x->group);
	free(x->point);
	free(x->first);
	memset(x, 0, sizeof(*x));
}

/* The time of pass j of r: its start, its round, or its index (by the sweep's mode). */
static double pass_time(const struct sweep_drift *d, const struct node_result *r, int j)
{
	if (d->timed)
		return r->pass_started_at[j];
	if (d->rounds)
		return r->pass_round[j];
	return j;
}

static bool judged(const struct node_result *r)
{
	return r->state == NODE_OK && r->npasses >= 2;
}

/* Node k's passes of points with 2 or more judged positive passes, grouped by canon[]: the
 * points of one group in a row, each point's passes in a row. */
static void series_build(const struct sweep *s, int k, const int *canon, struct series *x)
{
	int i, j, g, cap = 0;

	memset(x, 0, sizeof(*x));
	for (i = 0; i < s->npoints; i++)
		cap += judged(&s->points[i].nodes[k]) ? s->points[i].nodes[k].npasses : 0;
	x->y = xcalloc((size_t)cap + 1, sizeof(double));
	x->t = xcalloc((size_t)cap + 1, sizeof(double));
	x->group = xcalloc((size_t)cap + 1, sizeof(int));
	x->point = xcalloc((size_t)cap + 1, sizeof(int));
	x->first = xcalloc((size_t)cap + 1, sizeof(int));
	for (g = 0; g < s->npoints; g++) {
		for (i = g; i < s->npoints; i++) {
			const struct node_result *r = &s->points[i].nodes[k];
			int start = x->n, f = -1;

			if (canon[i] != g || !judged(r))
				continue;
			for (j = 0; j < r->npasses; j++) {
				if (!(r->passes[j] > 0))
					continue;
				x->y[x->n] = log(r->passes[j]);
				x->t[x->n] = pass_time(&s->drift, r, j);
				x->group[x->n] = g;
				x->point[x->n] = i;
				if (f < 0 || x->t[x->n] < x->t[f])
					f = x->n;
				x->n++;
			}
			if (x->n - start < 2)
				x->n = start;
			else
				x->first[f] = 1;
		}
	}
}

/* Each point's group: with times or rounds, the first point of the same configuration (a
 * configuration measured again, minutes later, shares its intercept: how far it moved in
 * between is drift too); without (a point's loops ran back to back, their order is their
 * only time), the point itself. */
static int *groups_make(const struct sweep *s)
{
	int *canon = xcalloc((size_t)s->npoints + 1, sizeof(int)), i, j;

	for (i = 0; i < s->npoints; i++) {
		canon[i] = i;
		for (j = 0; j < i && s->drift.rounds; j++)
			if (canon[j] == j && config_equal(&s->points[j].cfg, &s->points[i].cfg)) {
				canon[i] = j;
				break;
			}
	}
	return canon;
}

/* The span of t over the series (the sweep's length for this node). */
static double series_span(const struct sweep *s, const struct series *x)
{
	double lo = INFINITY, hi = -INFINITY;
	int i;

	if (!s->drift.timed && !s->drift.rounds)
		return x->n > 1 ? x->n - 1 : 0; /* back-to-back loops: one run apart */
	for (i = 0; i < x->n; i++) {
		lo = fmin(lo, x->t[i]);
		hi = fmax(hi, x->t[i]);
	}
	return x->n ? hi - lo : 0;
}

static int double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One point's first pass against the rest of it, detrended: its residual and the lowest of
 * the others'. */
struct first_pass {
	double r, lowest;
};

/* Node k's warm-up: each point's first pass against the trend of its other passes. */
static void warmup_find(const struct series *x, struct sweep_drift_node *dn,
                        struct stats_slope *trend)
{
	int n = x->n, i, j, q, m = 0, nf = 0, w = 0;
	double *y = xcalloc((size_t)n + 1, sizeof(double)),
	       *t = xcalloc((size_t)n + 1, sizeof(double));
	struct first_pass *fp = xcalloc((size_t)n + 1, sizeof(*fp));
	double *shortfall = xcalloc((size_t)n + 1, sizeof(double));
	int *grp = xcalloc((size_t)n + 1, sizeof(int));
	double rss = 0, g, sd, floor_log = log1p(-DRIFT_WARM_MIN_PCT / 100.0);
	struct stats_slope sl;

	/* The trend without the first passes. */
	for (i = 0; i < n; i++) {
		if (x->first[i])
			continue;
		y[m] = x->y[i];
		t[m] = x->t[i];
		grp[m++] = x->group[i];
	}
	stats_within_slope(y, t, grp, m, &sl);
	*trend = sl;
	g = isfinite(sl.slope) ? sl.slope : 0.0;
	/* Per point with 2 other passes or more: the residuals about the others' detrended mean. */
	for (i = 0; i < n; i = j) {
		double mean = 0;
		int cnt = 0, f = -1;

		for (j = i; j < n && x->point[j] == x->point[i]; j++) {
			if (x->first[j]) {
				f = j;
				continue;
			}
			mean += x->y[j] - g * x->t[j];
			cnt++;
		}
		if (f < 0 || cnt < 2)
			continue;
		mean /= cnt;
		fp[nf].lowest = INFINITY;
		for (q = i; q < j; q++) {
			double r = x->y[q] - g * x->t[q] - mean;

			if (q == f) {
				fp[nf].r = r;
			} else {
				rss += r * r;
				fp[nf].lowest = fmin(fp[nf].lowest, r);
			}
		}
		nf++;
	}
	dn->warm_of = nf;
	/* The others' residual SD, pooled: one mean per point and the slope estimated. */
	sd = m - nf - 1 > 0 ? sqrt(rss / (m - nf - 1)) : NAN;
	for (i = 0; i < nf && isfinite(sd); i++)
		if (fp[i].r < fp[i].lowest && fp[i].r < -3.0 * sd && fp[i].r < floor_log)
			shortfall[w++] = -100.0 * expm1(fp[i].r);
	dn->warm_points = w;
	if (w > 0) {
		qsort(shortfall, (size_t)w, sizeof(double), double_cmp);
		dn->warm_pct =
		        w % 2 ? shortfall[w / 2] : (shortfall[w / 2 - 1] + shortfall[w / 2]) / 2;
	}
	dn->warmup = w >= 2 && 2 * w > nf;
	free(y);
	free(t);
	free(grp);
	free(fp);
	free(shortfall);
}

/* The warm-up passes run on node k (plan job.warmup_loops): how many, and how far below
 * their point's judged passes they ran. */
static void warmup_passes(const struct sweep *s, int k, struct sweep_drift_node *dn)
{
	double sum = 0;
	int i, j, n = 0;

	for (i = 0; i < s->npoints; i++) {
		const struct node_result *r = &s->points[i].nodes[k];
		struct stats_summary sm;

		dn->nwarmup += r->nwarmup;
		stats_summarize(r->passes, r->npasses, &sm);
		for (j = 0; j < r->nwarmup && sm.n > 0 && sm.mean > 0; j++, n++)
			sum += 100.0 * (1.0 - r->warmup[j].value / sm.mean);
	}
	dn->warmup_pct = n ? sum / n : NAN;
}

void drift_analyze(struct sweep *s)
{
	struct sweep_drift *d = &s->drift;
	int n = s->plan.nnodes, i, j, k, m = 0;
	double *p = xcalloc(2 * ((size_t)n + 1), sizeof(double)), *adj = p + n + 1;
	int *node = xcalloc((size_t)n + 1, sizeof(int)), *canon;

	free(d->nodes);
	memset(d, 0, sizeof(*d));
	d->nnodes = n;
	d->nodes = xcalloc((size_t)n + 1, sizeof(*d->nodes));
	d->rounds = sweep_has_rounds(s);
	d->timed = d->rounds;
	for (i = 0; i < s->npoints && d->timed; i++)
		for (k = 0; k < n && d->timed; k++)
			for (j = 0; j < s->points[i].nodes[k].npasses; j++)
				d->timed = d->timed && s->points[i].nodes[k].pass_started_at[j] > 0;
	canon = groups_make(s);
	for (k = 0; k < n; k++) {
		struct sweep_drift_node *dn = &d->nodes[k];
		struct stats_slope sl, rest;
		struct series x;
		double span, h;

		dn->change_pct = dn->low_pct = dn->high_pct = dn->p = dn->warm_pct = NAN;
		dn->change_log = dn->change_se_log = NAN;
		series_build(s, k, canon, &x);
		warmup_find(&x, dn, &rest);
		/* A warm-up is no drift: the trend of a node that warms up leaves the first passes
		 * out. */
		if (dn->warmup)
			sl = rest;
		else
			stats_within_slope(x.y, x.t, x.group, x.n, &sl);
		span = series_span(s, &x);
		if (d->timed && span > d->span_s)
			d->span_s = span;
		dn->npasses = sl.n;
		if (isfinite(sl.slope) && span > 0) {
			dn->change_log = sl.slope * span;
			dn->change_pct = 100.0 * expm1(sl.slope * span);
			if (isfinite(sl.se)) {
				dn->change_se_log = sl.se * span;
				h = stats_t_quantile(0.975, sl.df) * sl.se * span;
				dn->low_pct = 100.0 * expm1(sl.slope * span - h);
				dn->high_pct = 100.0 * expm1(sl.slope * span + h);
			}
		}
		if (isfinite(sl.p)) {
			p[m] = sl.p;
			node[m++] = k;
		}
		warmup_passes(s, k, dn);
		d->nwarmup_nodes += dn->warmup;
		d->nwarmup_passes += dn->nwarmup;
		series_release(&x);
	}
	/* Holm over the nodes with a trend. */
	stats_holm(p, m, adj);
	for (i = 0; i < m; i++) {
		struct sweep_drift_node *dn = &d->nodes[node[i]];

		dn->p = adj[i];
		dn->significant = adj[i] <= 0.05 && fabs(dn->change_pct) >= DRIFT_MIN_PCT;
		d->nsignificant += dn->significant;
	}
	free(p);
	free(node);
	free(canon);
}
