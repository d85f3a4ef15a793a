/* verdict.c -- each row, compared point and sweep judged with effect.c; no I/O, no libraries. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cohort.h"
#include "race.h"
#include "verdict.h"
#include "xmalloc.h"
#include "banned.h"

/* Judge one comparison of n nodes with effect_compute into fx (released first). A malformed
 * input (a pass that is not a finite number: never from an agent) leaves fx without nodes and
 * without a decision. */
static void judge(int n, const struct effect_sample *sr, const struct effect_sample *sp,
                  const struct plan *p, int look, int nlooks, struct effect *fx)
{
	struct effect_input in = { .nnodes = n,
		                   .ref = sr,
		                   .point = sp,
		                   .min_effect_pct = p->min_effect_pct,
		                   .minimize = p->minimize,
		                   .look = look,
		                   .nlooks = nlooks };

	effect_release(fx);
	if (effect_compute(&in, fx, NULL) == 0)
		return;
	in.nnodes = 0;
	effect_compute(&in, fx, NULL);
}

static bool node_has_data(const struct node_result *r)
{
	return r->npasses > 0 &&
	       (r->state == NODE_OK || r->state == NODE_FAILED || r->state == NODE_CANCELLED);
}

/* Node k's samples of a comparison: counted only where it finished both points; the
 * reference's first ref_loops passes when ref_loops is set. */
static void sample_pair(const struct node_result *ref, const struct node_result *pt, int ref_loops,
                        struct effect_sample *sr, struct effect_sample *sp)
{
	sr->x = sp->x = NULL;
	sr->n = sp->n = 0;
	if (ref->state != NODE_OK || pt->state != NODE_OK)
		return;
	sr->x = ref->passes;
	sr->n = ref_loops > 0 && ref_loops < ref->npasses ? ref_loops : ref->npasses;
	sp->x = pt->passes;
	sp->n = pt->npasses;
}

/* The summaries and spread of point i, and its comparison with its reference. */
static void point_analyze(struct sweep *s, int i)
{
	struct point *pt = &s->points[i];
	const struct point *ref = pt->ref >= 0 ? &s->points[pt->ref] : NULL;
	double lo = INFINITY, hi = -INFINITY, tot = 0;
	struct effect_sample *sr, *sp;
	int k, n = s->plan.nnodes, used = 0;

	pt->delta_pct = pt->ci_low_pct = pt->ci_high_pct = pt->spread_pct = NAN;
	pt->verdict = EFFECT_NA;
	for (k = 0; k < n; k++) {
		struct node_result *r = &pt->nodes[k];

		r->delta_pct = r->ci_low_pct = r->ci_high_pct = NAN;
		r->verdict = EFFECT_NA;
		stats_summarize(r->passes, node_has_data(r) ? r->npasses : 0, &r->sum);
		if (r->sum.n > 0) {
			lo = fmin(lo, r->sum.mean);
			hi = fmax(hi, r->sum.mean);
			tot += r->sum.mean;
			used++;
		}
	}
	if (used >= 2 && tot != 0.0)
		pt->spread_pct = 100.0 * (hi - lo) / (tot / used);
	effect_release(&pt->fx);
	if (!ref)
		return;
	sr = xcalloc((size_t)n + 1, sizeof(*sr));
	sp = xcalloc((size_t)n + 1, sizeof(*sp));
	for (k = 0; k < n; k++)
		sample_pair(&ref->nodes[k], &pt->nodes[k], pt->ref_loops, &sr[k], &sp[k]);
	judge(n, sr, sp, &s->plan, sweep_point_look(s, i), sweep_nlooks(&s->plan), &pt->fx);
	free(sr);
	free(sp);
	for (k = 0; k < pt->fx.nnodes; k++) {
		const struct effect_node *nd = &pt->fx.nodes[k];
		struct node_result *r = &pt->nodes[k];

		r->delta_pct = nd->delta_pct;
		r->ci_low_pct = nd->ci_low_pct;
		r->ci_high_pct = nd->ci_high_pct;
		r->verdict = nd->decision;
	}
	pt->delta_pct = pt->fx.delta_pct;
	pt->ci_low_pct = pt->fx.ci95_low_pct;
	pt->ci_high_pct = pt->fx.ci95_high_pct;
	if (pt->role != ROLE_BASELINE)
		pt->verdict = pt->fx.decision;
}

/* Better in the goal's direction. */
static double goal_delta(const struct sweep *s, double d)
{
	return s->plan.minimize ? -d : d;
}

/* Cohort c's best point (c < 0: the sweep's), or -1: for adaptive, the final confirmation
 * that holds up on the fleet effect (race_confirmed), a value the races dropped or left open
 * being none; for sequential, the final confirmation when it ran and held up; otherwise the
 * candidate row with the largest gain. A cohort sees a row split by cohort through its own
 * decision and Δ (cohort.h), and the sweep's best is never such a row. */
static int best_for(const struct sweep *s, int c)
{
	int i, best = -1;

	if (s->plan.strategy == PLAN_ADAPTIVE) {
		for (i = 0; i < s->npoints; i++) {
			const struct point *p = &s->points[i];

			if (p->role != ROLE_FINAL)
				continue;
			if (p->between.split ? sweep_cohort_decision(p, c) == EFFECT_GAIN
			                     : race_confirmed(s, i))
				best = i;
		}
		return best;
	}
	if (s->plan.strategy == PLAN_SEQUENTIAL) {
		for (i = 0; i < s->npoints; i++)
			if (s->points[i].role == ROLE_FINAL &&
			    sweep_cohort_decision(&s->points[i], c) == EFFECT_GAIN)
				best = i;
		if (best >= 0)
			return best;
	}
	for (i = 0; i < s->npoints; i++) {
		const struct point *p = &s->points[i];

		if (p->role != ROLE_CANDIDATE || sweep_cohort_decision(p, c) != EFFECT_GAIN)
			continue;
		if (best < 0 || goal_delta(s, sweep_cohort_delta_pct(p, c)) >
		                        goal_delta(s, sweep_cohort_delta_pct(&s->points[best], c)))
			best = i;
	}
	return best;
}

static void best_pick(struct sweep *s)
{
	int c;

	s->best = best_for(s, -1);
	for (c = 0; c < s->ncohorts && s->ncohorts >= 2; c++) {
		struct sweep_cohort *co = &s->cohorts[c];

		co->best = best_for(s, c);
		co->best_own = co->best >= 0 && s->points[co->best].between.split;
		co->best_delta_pct =
		        co->best >= 0 ? sweep_cohort_delta_pct(&s->points[co->best], c) : NAN;
	}
}

/* Every row judged within each cohort of s (cohort.h), when it has two or more: the same
 * node samples as the row, at the row's look (an adaptive final confirmation at its one
 * plain look, as race_confirmed judges it). */
static void cohorts_analyze(struct sweep *s)
{
	int n = s->plan.nnodes, i, k;
	struct effect_sample *sr, *sp;

	cohort_assign(s);
	if (s->ncohorts < 2)
		return;
	sr = xcalloc((size_t)n + 1, sizeof(*sr));
	sp = xcalloc((size_t)n + 1, sizeof(*sp));
	for (i = 0; i < s->npoints; i++) {
		const struct point *pt = &s->points[i];
		bool plain = s->plan.strategy == PLAN_ADAPTIVE && pt->role == ROLE_FINAL;

		if (pt->ref < 0)
			continue;
		for (k = 0; k < n; k++)
			sample_pair(&s->points[pt->ref].nodes[k], &pt->nodes[k], pt->ref_loops,
			            &sr[k], &sp[k]);
		cohort_point_judge(s, i, sr, sp, plain ? 1 : sweep_point_look(s, i),
		                   plain ? 1 : sweep_nlooks(&s->plan));
	}
	free(sr);
	free(sp);
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
	for (i = 0; i < s->ncohorts && s->ncohorts >= 2 && s->best < 0; i++)
		if (s->cohorts[i].best >= 0)
			tried = 1; /* a cohort has a best of its own */
	if (s->best >= 0 || tried) {
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

static bool decided(enum effect_decision d)
{
	return d == EFFECT_GAIN || d == EFFECT_LOSS || d == EFFECT_EQUIVALENT;
}

/* The noise line's figures: the undecided comparison rows that cannot resolve min_effect. With a
 * min_effect of 0 any significant difference counts, and there is nothing to resolve. */
static void noise_summarize(struct sweep *s)
{
	struct sweep_noise *ns = &s->noise;
	double mde_all = 0, mde_reachable = 0;
	int i;

	memset(ns, 0, sizeof(*ns));
	for (i = 0; i < s->npoints; i++) {
		const struct effect *fx = &s->points[i].fx;

		if (s->points[i].role == ROLE_BASELINE || fx->nused == 0 ||
		    s->points[i].between.split)
			continue;
		ns->nrows++;
		/* A decided row needs no more loops, however wide its interval. */
		if (!fx->noisy || !(s->plan.min_effect_pct > 0) || decided(fx->decision))
			continue;
		ns->nnoisy++;
		ns->cv_pct = fmax(ns->cv_pct, fx->cv_pct);
		mde_all = fmax(mde_all, fx->mde_pct);
		/* Rows whose nodes differ are named apart: their loop estimate counts τ, which
		 * more loops do not narrow. */
		if (effect_nodes_differ(fx)) {
			ns->ndiffer++;
			ns->tau_pct = fmax(ns->tau_pct, fx->tau_pct);
			ns->nunreachable += fx->loops_needed < 0;
			continue;
		}
		if (fx->loops_needed < 0) {
			ns->nunreachable++;
			continue;
		}
		mde_reachable = fmax(mde_reachable, fx->mde_pct);
		if (fx->loops_needed > ns->loops_needed)
			ns->loops_needed = fx->loops_needed;
	}
	/* The MDE quoted is of the rows more loops can resolve, when there are any: the MDE of a
	 * row whose nodes differ is their spread, which the line names separately. */
	ns->mde_pct = ns->nnoisy > ns->ndiffer ? mde_reachable : mde_all;
}

void verdict_sweep(struct sweep *s)
{
	int i;

	s->nwarnings = 0;
	/* Points only ever refer to earlier points, so one pass in order suffices. */
	for (i = 0; i < s->npoints; i++)
		point_analyze(s, i);
	cohorts_analyze(s);
	outcome_pick(s);
	noise_summarize(s);
	asymmetry_check(s);
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

void verdict_sweeps_compare(const struct sweep *a, const struct sweep *b,
                            struct verdict_comparison *out)
{
	int n = a->plan.nnodes, nlooks = max_int(sweep_nlooks(&a->plan), sweep_nlooks(&b->plan));
	struct effect_sample *sr = xcalloc((size_t)n + 1, sizeof(*sr));
	struct effect_sample *sp = xcalloc((size_t)n + 1, sizeof(*sp));
	int i, j, k;

	memset(out, 0, sizeof(*out));
	out->rows = xcalloc((size_t)a->npoints + 1, sizeof(*out->rows));
	for (i = 0; i < a->npoints; i++) {
		const struct point *pa = &a->points[i], *pb = NULL;
		struct verdict_compare_row *row;

		for (j = 0; j < b->npoints && !pb; j++)
			if (config_equal(&pa->cfg, &b->points[j].cfg))
				pb = &b->points[j];
		if (!pb)
			continue;
		row = &out->rows[out->nrows++];
		row->point_a = i;
		row->point_b = pb->index;
		row->cells = xcalloc((size_t)n + 1, sizeof(*row->cells));
		for (k = 0; k < n; k++) {
			int kb = plan_node_find(&b->plan, a->plan.nodes[k].name);
			struct verdict_compare_cell *c = &row->cells[k];

			sr[k].n = sp[k].n = 0;
			if (kb < 0)
				continue;
			sample_pair(&pa->nodes[k], &pb->nodes[kb], 0, &sr[k], &sp[k]);
			c->present = sr[k].n > 0 && sp[k].n > 0;
			c->a = pa->nodes[k].sum;
			c->b = pb->nodes[kb].sum;
		}
		judge(n, sr, sp, &a->plan, nlooks, nlooks, &row->fx);
	}
	free(sr);
	free(sp);
}

void verdict_comparison_release(struct verdict_comparison *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < c->nrows; i++) {
		free(c->rows[i].cells);
		effect_release(&c->rows[i].fx);
	}
	free(c->rows);
	memset(c, 0, sizeof(*c));
}
