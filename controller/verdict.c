/* verdict.c -- statistics and verdicts over a sweep's passes; no I/O, no libraries. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "race.h"
#include "verdict.h"
#include "xmalloc.h"
#include "banned.h"

void verdict_compare(const struct stats_summary *base, const struct stats_summary *point,
                     bool minimize, double min_effect_pct, struct verdict_cmp *out)
{
	struct stats_welch w;
	double d, lo, hi;
	bool excludes0;

	out->delta_pct = out->ci_low_pct = out->ci_high_pct = NAN;
	out->verdict = VERDICT_NA;
	if (base->n < 1 || point->n < 1 || base->mean == 0.0)
		return;
	stats_welch(base, point, 0.95, &w);
	out->delta_pct = 100.0 * (point->mean / base->mean - 1.0);
	out->ci_low_pct = 100.0 * w.ci_low / base->mean;
	out->ci_high_pct = 100.0 * w.ci_high / base->mean;
	if (base->mean < 0) { /* keep low <= high for negative metrics */
		double t = out->ci_low_pct;

		out->ci_low_pct = out->ci_high_pct;
		out->ci_high_pct = t;
	}
	d = minimize ? -out->delta_pct : out->delta_pct;
	lo = out->ci_low_pct;
	hi = out->ci_high_pct;
	excludes0 = !isnan(lo) && !isnan(hi) && (lo > 0.0 || hi < 0.0);
	if (excludes0 && d >= min_effect_pct)
		out->verdict = VERDICT_GAIN;
	else if (excludes0 && d <= -min_effect_pct)
		out->verdict = VERDICT_LOSS;
	else if (fabs(d) < min_effect_pct)
		out->verdict = VERDICT_NONE;
	else
		out->verdict = VERDICT_UNCLEAR;
}

enum row_verdict verdict_row(const enum verdict *v, int n)
{
	enum verdict first = VERDICT_NA;
	int i;

	for (i = 0; i < n; i++) {
		if (v[i] == VERDICT_NA)
			continue;
		if (first == VERDICT_NA)
			first = v[i];
		else if (v[i] != first)
			return ROW_DISAGREE;
	}
	switch (first) {
	case VERDICT_GAIN:
		return ROW_GAIN;
	case VERDICT_LOSS:
		return ROW_LOSS;
	case VERDICT_NONE:
		return ROW_NONE;
	case VERDICT_UNCLEAR:
		return ROW_INCONCLUSIVE;
	default:
		return ROW_NA;
	}
}

static bool node_has_data(const struct node_result *r)
{
	return r->npasses > 0 &&
	       (r->state == NODE_OK || r->state == NODE_FAILED || r->state == NODE_CANCELLED);
}

/* The most passes any node of pt has. */
static int loops_max(const struct sweep *s, const struct point *pt)
{
	int i, n = 0;

	for (i = 0; i < s->plan.nnodes; i++)
		if (pt->nodes[i].npasses > n)
			n = pt->nodes[i].npasses;
	return n;
}

/* Per loop, the mean across the nodes that have that loop and are OK in both points. out
 * holds loops_max(s, pt) values. */
static int fleet_sample(const struct sweep *s, const struct point *pt, const struct point *ref,
                        double *out)
{
	int loop, i, n = 0, nloops = loops_max(s, pt);

	for (loop = 0; loop < nloops; loop++) {
		double sum = 0;
		int k = 0;

		for (i = 0; i < s->plan.nnodes; i++) {
			const struct node_result *r = &pt->nodes[i], *b = &ref->nodes[i];

			if (r->state != NODE_OK || b->state != NODE_OK || loop >= r->npasses)
				continue;
			sum += r->passes[loop];
			k++;
		}
		if (k)
			out[n++] = sum / k;
	}
	return n;
}

/* The row's Δ and CI: the fleet mean per loop of pt against ref's. */
static void fleet_compare(const struct sweep *s, struct point *pt, const struct point *ref)
{
	double *a = xcalloc((size_t)loops_max(s, ref) + 1, sizeof(double));
	double *b = xcalloc((size_t)loops_max(s, pt) + 1, sizeof(double));
	int na = fleet_sample(s, ref, pt, a), nb = fleet_sample(s, pt, ref, b);
	struct stats_summary sa, sb;
	struct stats_welch w;

	stats_summarize(a, na, &sa);
	stats_summarize(b, nb, &sb);
	if (na > 0 && nb > 0 && sa.mean != 0.0) {
		stats_welch(&sa, &sb, 0.95, &w);
		pt->delta_pct = 100.0 * (sb.mean / sa.mean - 1.0);
		pt->ci_low_pct = 100.0 * w.ci_low / sa.mean;
		pt->ci_high_pct = 100.0 * w.ci_high / sa.mean;
	}
	free(a);
	free(b);
}

static void point_analyze(struct sweep *s, struct point *pt)
{
	const struct point *ref = pt->ref >= 0 ? &s->points[pt->ref] : NULL;
	double lo = INFINITY, hi = -INFINITY, tot = 0;
	enum verdict *v;
	int i, nv = 0, k = 0;

	pt->delta_pct = pt->ci_low_pct = pt->ci_high_pct = pt->spread_pct = NAN;
	pt->verdict = ROW_NA;
	for (i = 0; i < s->plan.nnodes; i++) {
		struct node_result *r = &pt->nodes[i];

		r->delta_pct = r->ci_low_pct = r->ci_high_pct = NAN;
		r->verdict = VERDICT_NA;
		stats_summarize(r->passes, node_has_data(r) ? r->npasses : 0, &r->sum);
		if (r->sum.n > 0) {
			lo = fmin(lo, r->sum.mean);
			hi = fmax(hi, r->sum.mean);
			tot += r->sum.mean;
			k++;
		}
	}
	if (k >= 2 && tot != 0.0)
		pt->spread_pct = 100.0 * (hi - lo) / (tot / k);
	if (!ref)
		return;
	v = xcalloc((size_t)s->plan.nnodes + 1, sizeof(*v));
	for (i = 0; i < s->plan.nnodes; i++) {
		struct node_result *r = &pt->nodes[i];
		const struct node_result *br = &ref->nodes[i];
		struct verdict_cmp c;

		if (r->state != NODE_OK || br->state != NODE_OK)
			continue;
		verdict_compare(&br->sum, &r->sum, s->plan.minimize, s->plan.min_effect_pct, &c);
		r->delta_pct = c.delta_pct;
		r->ci_low_pct = c.ci_low_pct;
		r->ci_high_pct = c.ci_high_pct;
		r->verdict = c.verdict;
		v[nv++] = c.verdict;
	}
	if (pt->role != ROLE_BASELINE)
		pt->verdict = verdict_row(v, nv);
	free(v);
	fleet_compare(s, pt, ref);
}

/* Better in the goal's direction. */
static double goal_delta(const struct sweep *s, double d)
{
	return s->plan.minimize ? -d : d;
}

static void best_pick(struct sweep *s)
{
	int i;

	s->best = -1;
	if (s->plan.strategy == PLAN_ADAPTIVE) {
		/* The races chose; the final confirmation that holds up on the fleet effect is
		 * the answer, and a value they dropped or left open is none. */
		for (i = 0; i < s->npoints; i++)
			if (s->points[i].role == ROLE_FINAL && race_confirmed(s, i))
				s->best = i;
		return;
	}
	if (s->plan.strategy == PLAN_SEQUENTIAL) {
		/* The final confirmation, when it ran and held up, is the answer. */
		for (i = 0; i < s->npoints; i++)
			if (s->points[i].role == ROLE_FINAL && s->points[i].verdict == ROW_GAIN)
				s->best = i;
		if (s->best >= 0)
			return;
	}
	for (i = 0; i < s->npoints; i++) {
		const struct point *p = &s->points[i];

		if (p->role != ROLE_CANDIDATE || p->verdict != ROW_GAIN)
			continue;
		if (s->best < 0 ||
		    goal_delta(s, p->delta_pct) > goal_delta(s, s->points[s->best].delta_pct))
			s->best = i;
	}
}

/* A figure: some node finished the point with passes. */
static bool point_has_figure(const struct sweep *s, const struct point *p)
{
	int k;

	for (k = 0; k < s->plan.nnodes; k++)
		if (p->nodes[k].state == NODE_OK && p->nodes[k].npasses > 0)
			return true;
	return false;
}

/* The point was run on some node (whatever came of it). */
static bool point_ran(const struct sweep *s, const struct point *p)
{
	int k;

	for (k = 0; k < s->plan.nnodes; k++)
		if (p->nodes[k].state != NODE_PENDING && p->nodes[k].state != NODE_DROPPED)
			return true;
	return false;
}

/* Best, or why there is none: the original baseline (point 0) has no figure on any node, or
 * configurations ran and none has a figure to compare. */
static void outcome_pick(struct sweep *s)
{
	int i, tried = 0, measured = 0;

	best_pick(s);
	if (s->best >= 0) {
		s->outcome = OUTCOME_BEST;
		return;
	}
	if (s->npoints == 0 || !point_has_figure(s, &s->points[0])) {
		s->outcome = OUTCOME_BASELINE_FAILED;
		return;
	}
	for (i = 1; i < s->npoints; i++) {
		const struct point *p = &s->points[i];

		if (p->role == ROLE_BASELINE || !point_ran(s, p))
			continue;
		tried++;
		measured += point_has_figure(s, p);
	}
	s->outcome = tried > 0 && measured == 0 ? OUTCOME_NO_FIGURES : OUTCOME_BASELINE;
}

/* Warn when one node is more than 10 % away from the others' mean at every point. With two
 * nodes the comparison is symmetric, so only the second node is judged (against the first). */
static void asymmetry_check(struct sweep *s)
{
	int i, j, k, first = s->plan.nnodes == 2 ? 1 : 0;

	if (s->plan.nnodes < 2)
		return;
	for (i = first; i < s->plan.nnodes; i++) {
		int above = 0, below = 0, seen = 0;
		double sum_dev = 0;
		struct sweep_warning *w;

		for (j = 0; j < s->npoints; j++) {
			const struct point *p = &s->points[j];
			double others = 0, dev;
			int n = 0;

			if (p->nodes[i].sum.n == 0)
				continue;
			for (k = 0; k < s->plan.nnodes; k++) {
				if (k != i && p->nodes[k].sum.n > 0) {
					others += p->nodes[k].sum.mean;
					n++;
				}
			}
			if (!n || others == 0.0)
				continue;
			others /= n;
			dev = 100.0 * (p->nodes[i].sum.mean / others - 1.0);
			seen++;
			sum_dev += dev;
			if (dev > 10.0)
				above++;
			else if (dev < -10.0)
				below++;
		}
		if (seen == 0 || (above != seen && below != seen) ||
		    s->nwarnings >= SWEEP_WARNINGS_MAX)
			continue;
		w = &s->warnings[s->nwarnings++];
		w->code = WARNING_NODE_OFFSET;
		w->node = i;
		w->other = s->plan.nnodes == 2 ? 0 : -1;
		w->offset_pct = sum_dev / seen;
		w->npoints = seen;
	}
}

void verdict_sweep(struct sweep *s)
{
	int i;

	s->nwarnings = 0;
	/* Points only ever refer to earlier points, so one pass in order suffices. */
	for (i = 0; i < s->npoints; i++)
		point_analyze(s, &s->points[i]);
	outcome_pick(s);
	asymmetry_check(s);
}

void verdict_sweeps_compare(const struct sweep *a, const struct sweep *b,
                            struct verdict_comparison *out)
{
	enum verdict *v = xcalloc((size_t)a->plan.nnodes + 1, sizeof(*v));
	int i, j, k;

	memset(out, 0, sizeof(*out));
	out->rows = xcalloc((size_t)a->npoints + 1, sizeof(*out->rows));
	for (i = 0; i < a->npoints; i++) {
		const struct point *pa = &a->points[i], *pb = NULL;
		struct verdict_compare_row *row;
		int nv = 0;

		for (j = 0; j < b->npoints && !pb; j++)
			if (config_equal(&pa->cfg, &b->points[j].cfg))
				pb = &b->points[j];
		if (!pb)
			continue;
		row = &out->rows[out->nrows++];
		row->point_a = i;
		row->point_b = pb->index;
		row->cells = xcalloc((size_t)a->plan.nnodes + 1, sizeof(*row->cells));
		for (k = 0; k < a->plan.nnodes; k++) {
			int kb = plan_node_find(&b->plan, a->plan.nodes[k].name);
			struct verdict_compare_cell *c = &row->cells[k];

			if (kb < 0 || pa->nodes[k].sum.n == 0 || pb->nodes[kb].sum.n == 0)
				continue;
			c->present = true;
			c->a = pa->nodes[k].sum;
			c->b = pb->nodes[kb].sum;
			verdict_compare(&c->a, &c->b, a->plan.minimize, a->plan.min_effect_pct,
			                &c->cmp);
			v[nv++] = c->cmp.verdict;
		}
		row->verdict = verdict_row(v, nv);
	}
	free(v);
}

void verdict_comparison_release(struct verdict_comparison *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < c->nrows; i++)
		free(c->rows[i].cells);
	free(c->rows);
	memset(c, 0, sizeof(*c));
}
