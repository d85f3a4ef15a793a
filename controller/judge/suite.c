/* suite.c -- a suite judged: per workload the sweep's own analysis, Holm within a
 * configuration across its workloads, the guardrails, the rule (no_loss, primary, mean) and
 * the suite's decision through the confirmed-decision rule. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/suite.h"
#include "stats.h"
#include "xmalloc.h"
#include "banned.h"

double suite_p_value(double theta, double se, double df)
{
	double z;

	if (!isfinite(theta) || !(se > 0) || !isfinite(se))
		return NAN;
	z = fabs(theta) / se;
	if (!(df > 0) || !isfinite(df))
		return 2.0 * (1.0 - stats_norm_cdf(z));
	return 2.0 * stats_t_sf(z, df);
}

void suite_cells_holm(struct suite_cell *cells, int n, double alpha, bool correct)
{
	double *p = xcalloc((size_t)n + 1, sizeof(*p)), *adj = xcalloc((size_t)n + 1, sizeof(*adj));
	int *at = xcalloc((size_t)n + 1, sizeof(*at));
	int k, m = 0;

	for (k = 0; k < n; k++)
		if (cells[k].present && isfinite(cells[k].p)) {
			at[m] = k;
			p[m++] = cells[k].p;
		}
	if (m > 0)
		stats_holm(p, m, adj);
	for (k = 0; k < n; k++) {
		cells[k].p_holm = NAN;
		cells[k].verdict = cells[k].raw;
	}
	for (k = 0; k < m; k++) {
		struct suite_cell *c = &cells[at[k]];

		c->p_holm = adj[k];
		if (correct && (c->raw == EFFECT_GAIN || c->raw == EFFECT_LOSS) && adj[k] > alpha)
			c->verdict = EFFECT_INCONCLUSIVE;
	}
	free(p);
	free(adj);
	free(at);
}

void suite_check_fill(struct suite_check *c, const struct effect *fx, bool minimize,
                      double max_loss_pct)
{
	c->present = fx && fx->nused > 0 && isfinite(fx->delta_pct) && isfinite(fx->eq_low_pct) &&
	             isfinite(fx->eq_high_pct);
	if (!c->present) {
		c->loss_pct = c->bound_pct = c->over_pct = NAN;
		c->breached = true; /* not shown within the limit: never the best */
		return;
	}
	c->loss_pct = minimize ? fx->delta_pct : -fx->delta_pct;
	c->bound_pct = minimize ? fx->eq_high_pct : -fx->eq_low_pct;
	c->breached = c->bound_pct > max_loss_pct;
	c->over_pct = c->breached ? c->bound_pct - max_loss_pct : 0;
}

static double oriented(double d, bool minimize)
{
	return minimize ? -d : d;
}

void suite_row_decide(struct suite_row *r, int nworkloads, const bool *minimize,
                      enum plan_rule rule, int primary)
{
	const struct suite_cell *c;
	enum effect_decision d;
	int w;

	r->ngain = r->nloss = 0;
	for (w = 0; w < nworkloads; w++) {
		r->ngain += r->cells[w].present && r->cells[w].verdict == EFFECT_GAIN;
		r->nloss += r->cells[w].present && r->cells[w].verdict == EFFECT_LOSS;
	}
	r->nbreaches = 0;
	for (w = 0; w < r->nchecks; w++)
		r->nbreaches += r->checks[w].breached;
	c = rule == PLAN_RULE_PRIMARY ? &r->cells[primary] : &r->mean;
	r->score_pct =
	        c->present ? oriented(c->delta_pct, rule == PLAN_RULE_PRIMARY && minimize[primary])
	                   : NAN;
	r->score_low_pct = c->low_pct;
	r->score_high_pct = c->high_pct;
	if (rule == PLAN_RULE_NO_LOSS) {
		bool any = false;

		for (w = 0; w < nworkloads; w++)
			any |= r->cells[w].present;
		if (!any)
			r->verdict = SUITE_NA;
		else if (r->nloss > 0)
			r->verdict = SUITE_LOSS;
		else if (r->ngain > 0)
			r->verdict = r->nbreaches ? SUITE_VETOED : SUITE_GAIN;
		else
			r->verdict = SUITE_NO_GAIN;
		return;
	}
	d = c->present ? c->verdict : EFFECT_NA;
	r->verdict = d == EFFECT_NA     ? SUITE_NA
	             : d == EFFECT_GAIN ? (r->nbreaches ? SUITE_VETOED : SUITE_GAIN)
	             : d == EFFECT_LOSS ? SUITE_LOSS
	                                : SUITE_NO_GAIN;
}

/* Series j's sweep: s's points, configurations and rounds with each node's passes the
 * series' values (from node_result.series; a node without them has none). j < 0: the
 * weighted geometric mean of the workloads' own metrics, each oriented so that higher is
 * better (a latency's reciprocal), per pass: its ratio between two points is the weighted
 * geometric mean of the workloads' ratios. */
static void series_sweep(const struct sweep *s, const struct plan_series *ser, int nser, int j,
                         struct sweep *w)
{
	const struct plan *p = &s->plan;
	int i, k, q, x;

	memset(w, 0, sizeof(*w));
	w->plan = s->plan; /* borrowed (model/suite.c releases around it) */
	if (j >= 0) {
		snprintf(w->plan.metric, sizeof(w->plan.metric), "%s", ser[j].metric);
		w->plan.minimize = ser[j].minimize;
	} else {
		snprintf(w->plan.metric, sizeof(w->plan.metric), "suite.mean");
		w->plan.minimize = false;
	}
	w->plan.nworkloads = 0; /* a plain sweep: no suite of its own */
	w->node_dropped = s->node_dropped;
	w->identity = s->identity;
	w->id = s->id;
	snprintf(w->status, sizeof(w->status), "%s", s->status);
	w->order_seed = s->order_seed;
	w->nrounds = s->nrounds;
	decision_init(&w->decision);
	for (i = 0; i < s->npoints; i++) {
		const struct point *sp = &s->points[i];
		struct point *wp;

		sweep_point_add(w, sp->role, sp->axis, sp->ref, &sp->cfg);
		wp = &w->points[i];
		wp->block = sp->block;
		wp->loops_run = sp->loops_run;
		wp->loops_target = sp->loops_target;
		wp->ref_loops = sp->ref_loops;
		wp->race = sp->race;
		for (k = 0; k < p->nnodes; k++) {
			const struct node_result *sr = &sp->nodes[k];
			struct node_result *wr = &wp->nodes[k];

			wr->state = sr->state;
			if (sr->cfg)
				sweep_node_cfg_set(w, i, k, sr->cfg);
			if (sr->nseries != nser || !sr->series)
				continue;
			for (q = 0; q < sr->npasses; q++) {
				const double *v = &sr->series[(size_t)q * (size_t)nser];
				double val = 0, wsum = 0;

				if (j >= 0) {
					val = v[j];
				} else {
					bool ok = true;

					for (x = 0; x < p->nworkloads; x++) {
						double wt = p->workloads[x].weight;

						ok &= v[x] > 0;
						if (v[x] > 0)
							val += wt *
							       (p->workloads[x].minimize ? -1 : 1) *
							       log(v[x]);
						wsum += wt;
					}
					if (!ok || !(wsum > 0))
						continue;
					val = exp(val / wsum);
				}
				node_result_pass_add_at(wr, val, sr->pass_round[q],
				                        sr->pass_started_at[q], false);
			}
		}
	}
}

static void cell_fill(struct suite_cell *c, const struct point *p)
{
	const struct effect *fx = &p->fx;

	memset(c, 0, sizeof(*c));
	c->present = p->ref >= 0 && fx->nused > 0 && isfinite(fx->delta_pct);
	c->raw = c->present ? p->verdict : EFFECT_NA;
	c->delta_pct = c->present ? fx->delta_pct : NAN;
	c->low_pct = c->present ? fx->ci95_low_pct : NAN;
	c->high_pct = c->present ? fx->ci95_high_pct : NAN;
	c->p = c->present ? suite_p_value(fx->log_ratio, fx->se_log, fx->df) : NAN;
	c->p_holm = NAN;
	c->verdict = c->raw;
}

/* The suite's decision (decision.h's rule with the suite's row verdicts): grid, its best row
 * the rule crowns; sequential and adaptive, the final confirmation's row (the lead workload's
 * strategy chose what it runs) confirmed only when the rule crowns it. */
static void suite_decide(struct sweep *s, struct suite *su)
{
	struct decision d = s->decision;
	int i, best = -1;

	if (s->plan.strategy == PLAN_GRID) {
		for (i = 0; i < s->npoints; i++) {
			const struct suite_row *r = &su->rows[i];

			if (s->points[i].role != ROLE_CANDIDATE || r->verdict != SUITE_GAIN)
				continue;
			if (best < 0 || r->score_pct > su->rows[best].score_pct)
				best = i;
		}
		decision_init(&d);
		d.basis = DECISION_BASIS_GRID_ROW;
		d.why = s->decision.why == DECISION_WHY_GAIN ? DECISION_WHY_NO_GAIN
		                                             : s->decision.why;
	} else if (d.basis == DECISION_BASIS_FINAL && d.point >= 0) {
		best = d.point;
		if (su->rows[best].verdict != SUITE_GAIN) {
			d.state = DECISION_UNCONFIRMED;
			d.why = DECISION_WHY_NOT_CONFIRMED;
			d.verdict = su->rows[best].verdict == SUITE_LOSS ? EFFECT_LOSS
			                                                 : EFFECT_INCONCLUSIVE;
			d.delta_pct = su->rows[best].score_pct;
			d.low_pct = su->rows[best].score_low_pct;
			d.high_pct = su->rows[best].score_high_pct;
			best = -1;
		}
	}
	if (best >= 0) {
		const struct point *p = &s->points[best];
		const struct effect *fx = su->rule == PLAN_RULE_PRIMARY
		                                  ? &su->wl[s->plan.primary].points[best].fx
		                                  : &su->mean->points[best].fx;
		int k;

		d.state = DECISION_CONFIRMED;
		d.why = DECISION_WHY_GAIN;
		d.point = best;
		d.ref = p->ref;
		d.verdict = EFFECT_GAIN;
		d.delta_pct = su->rows[best].score_pct;
		d.low_pct = su->rows[best].score_low_pct;
		d.high_pct = su->rows[best].score_high_pct;
		d.level_pct = 95;
		d.cfg = p->cfg;
		d.nused = fx->nused;
		d.ngain = 0;
		for (k = 0; k < fx->nnodes; k++)
			d.ngain += fx->nodes[k].state == EFFECT_NODE_USED &&
			           fx->nodes[k].decision == EFFECT_GAIN;
	}
	su->decision = d;
	s->decision = d;
	for (i = 0; i < s->ncohorts && s->ncohorts >= 2; i++) {
		s->cohorts[i].decision = d; /* a suite decides for the fleet */
		s->cohorts[i].own = false;
	}
	if (d.state == DECISION_CONFIRMED)
		s->outcome = OUTCOME_BEST;
	else if (s->outcome == OUTCOME_BEST)
		s->outcome = OUTCOME_BASELINE;
}

struct suite *suite_build(struct sweep *s)
{
	const struct plan *p = &s->plan;
	struct suite *su;
	int j;

	sweep_suite_clear(s);
	if (p->nworkloads <= 0)
		return NULL;
	su = xcalloc(1, sizeof(*su));
	s->suite = su;
	su->rule = p->rule;
	su->nworkloads = p->nworkloads;
	su->nseries = plan_series_build(p, su->series);
	su->wl = xcalloc((size_t)su->nseries + 1, sizeof(*su->wl));
	for (j = 0; j < su->nseries; j++)
		series_sweep(s, su->series, su->nseries, j, &su->wl[j]);
	su->mean = xcalloc(1, sizeof(*su->mean));
	series_sweep(s, su->series, su->nseries, -1, su->mean);
	return su;
}

void suite_finish(struct sweep *s)
{
	const struct plan *p = &s->plan;
	struct suite *su = s->suite;
	bool minimize[PLAN_WORKLOADS_MAX];
	int i, j, w, g;

	if (!su)
		return;
	for (w = 0; w < p->nworkloads; w++)
		minimize[w] = p->workloads[w].minimize;
	su->npoints = s->npoints;
	su->rows = xcalloc((size_t)s->npoints + 1, sizeof(*su->rows));
	for (i = 0; i < s->npoints; i++) {
		struct suite_row *r = &su->rows[i];
		double alpha = EFFECT_ALPHA;

		r->cells = xcalloc((size_t)p->nworkloads, sizeof(*r->cells));
		r->checks = xcalloc((size_t)PLAN_SERIES_MAX, sizeof(*r->checks));
		if (s->points[i].ref < 0) {
			r->verdict = SUITE_NA;
			r->score_pct = r->score_low_pct = r->score_high_pct = NAN;
			continue;
		}
		for (w = 0; w < p->nworkloads; w++) {
			cell_fill(&r->cells[w], &su->wl[w].points[i]);
			if (su->wl[w].points[i].fx.alpha > 0)
				alpha = su->wl[w].points[i].fx.alpha;
		}
		suite_cells_holm(r->cells, p->nworkloads, alpha, su->rule == PLAN_RULE_NO_LOSS);
		cell_fill(&r->mean, &su->mean->points[i]);
		for (g = 0; g < p->nguardrails; g++)
			for (w = 0; w < p->nworkloads && r->nchecks < PLAN_SERIES_MAX; w++) {
				const struct plan_guardrail *gr = &p->guardrails[g];
				struct suite_check *c = &r->checks[r->nchecks];

				if (strcmp(gr->workload, "*") &&
				    strcmp(gr->workload, p->workloads[w].name))
					continue;
				j = plan_series_find(su->series, su->nseries, w, gr->metric);
				c->guardrail = g;
				c->workload = w;
				suite_check_fill(c, j >= 0 ? &su->wl[j].points[i].fx : NULL,
				                 gr->minimize, gr->max_loss_pct);
				r->nchecks++;
			}
		suite_row_decide(r, p->nworkloads, minimize, su->rule, p->primary);
	}
	suite_decide(s, su);
}
