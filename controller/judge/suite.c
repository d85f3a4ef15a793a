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

double suite_cell_holm_worst(const struct suite_cell *cells, int n, const bool *stopped, int k)
{
	double *p = xcalloc((size_t)n + 1, sizeof(*p)), *adj = xcalloc((size_t)n + 1, sizeof(*adj));
	double worst = NAN;
	int j, m = 0, at = -1;

	for (j = 0; j < n; j++) {
		if (!cells[j].present || !isfinite(cells[j].p))
			continue;
		if (j == k)
			at = m;
		/* A series still looking may end anywhere: at p = 1 it ranks after cell k, where
		 * it raises k's adjusted p the most (Holm's adjusted p only grows as another p
		 * moves from below k's to above it). */
		p[m++] = stopped[j] || j == k ? cells[j].p : 1.0;
	}
	if (at >= 0) {
		stats_holm(p, m, adj);
		worst = adj[at];
	}
	free(p);
	free(adj);
	return worst;
}

bool suite_row_settled(const struct suite_row *r, int nworkloads, const bool *stopped,
                       bool mean_stopped, bool shown_breach, bool checks_settled,
                       enum plan_rule rule, int primary, double alpha)
{
	bool all = true;
	int w;

	if (shown_breach)
		return true; /* vetoed whatever the workloads do */
	if (rule == PLAN_RULE_PRIMARY || rule == PLAN_RULE_MEAN) {
		const struct suite_cell *c =
		        rule == PLAN_RULE_PRIMARY ? &r->cells[primary] : &r->mean;
		bool st = rule == PLAN_RULE_PRIMARY ? stopped[primary] : mean_stopped;

		return st && (!c->present || c->verdict != EFFECT_GAIN || checks_settled);
	}
	for (w = 0; w < nworkloads; w++) {
		/* A decided loss: no_loss never crowns it, provided Holm keeps it whatever the
		 * workloads still looking do (their p-values move the correction). */
		if (r->cells[w].present && r->cells[w].raw == EFFECT_LOSS && stopped[w] &&
		    suite_cell_holm_worst(r->cells, nworkloads, stopped, w) <= alpha)
			return true;
		all &= stopped[w] || !r->cells[w].present;
	}
	return all && (r->ngain == 0 || checks_settled);
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

/* Point i's comparison in series sweep w as cohort c sees it (c < 0: the fleet): the
 * cohort's own on a row split by cohort (*own is then set), the row's otherwise. */
static const struct effect *series_fx(const struct sweep *w, int i, int c, bool *own)
{
	const struct point *p = &w->points[i];
	bool o = c >= 0 && c < w->ncohorts && p->between.split && p->cohort_fx;

	if (own)
		*own |= o;
	return o ? &p->cohort_fx[c] : &p->fx;
}

static void cell_fill(struct suite_cell *c, const struct sweep *w, int i, int co, bool *own)
{
	const struct point *p = &w->points[i];
	bool split = false;
	const struct effect *fx = series_fx(w, i, co, &split);

	memset(c, 0, sizeof(*c));
	c->present = p->ref >= 0 && fx->nused > 0 && isfinite(fx->delta_pct);
	if (c->present && own)
		*own |= split;
	c->raw = !c->present ? EFFECT_NA : split ? fx->decision : p->verdict;
	c->delta_pct = c->present ? fx->delta_pct : NAN;
	c->low_pct = c->present ? fx->ci95_low_pct : NAN;
	c->high_pct = c->present ? fx->ci95_high_pct : NAN;
	c->p = c->present ? suite_p_value(fx->log_ratio, fx->se_log, fx->df) : NAN;
	c->p_holm = NAN;
	c->verdict = c->raw;
}

/* Row i of s as cohort co sees it (co < 0: the fleet): its cells Holm-corrected, its
 * guardrails' checks and its verdict under the rule; *own: some figure is the cohort's own. */
static void row_fill(const struct sweep *s, const struct suite *su, int i, int co,
                     struct suite_row *r, bool *own)
{
	const struct plan *p = &s->plan;
	bool minimize[PLAN_WORKLOADS_MAX];
	double alpha = EFFECT_ALPHA;
	int j, w, g;

	const struct effect *fx;
	bool shown_breach = false, checks_settled = true, *stopped;

	r->cells = xcalloc((size_t)p->nworkloads, sizeof(*r->cells));
	r->checks = xcalloc((size_t)PLAN_SERIES_MAX, sizeof(*r->checks));
	if (s->points[i].ref < 0) {
		r->verdict = SUITE_NA;
		r->score_pct = r->score_low_pct = r->score_high_pct = NAN;
		r->settled = true;
		return;
	}
	for (w = 0; w < p->nworkloads; w++) {
		minimize[w] = p->workloads[w].minimize;
		cell_fill(&r->cells[w], &su->wl[w], i, co, own);
		if (su->wl[w].points[i].fx.alpha > 0)
			alpha = su->wl[w].points[i].fx.alpha;
	}
	suite_cells_holm(r->cells, p->nworkloads, alpha, su->rule == PLAN_RULE_NO_LOSS);
	cell_fill(&r->mean, su->mean, i, co, own);
	for (g = 0; g < p->nguardrails; g++)
		for (w = 0; w < p->nworkloads && r->nchecks < PLAN_SERIES_MAX; w++) {
			const struct plan_guardrail *gr = &p->guardrails[g];
			struct suite_check *c = &r->checks[r->nchecks];

			if (strcmp(gr->workload, "*") && strcmp(gr->workload, p->workloads[w].name))
				continue;
			j = plan_series_find(su->series, su->nseries, w, gr->metric);
			c->guardrail = g;
			c->workload = w;
			fx = j >= 0 ? series_fx(&su->wl[j], i, co, own) : NULL;
			suite_check_fill(c, fx, gr->minimize, gr->max_loss_pct);
			r->nchecks++;
			if (c->present) {
				/* The near end of the loss' 90 % interval: beyond the limit, the
				 * breach is shown and no loop takes it back. */
				double floor_pct = gr->minimize ? fx->eq_low_pct : -fx->eq_high_pct;

				shown_breach |= floor_pct > gr->max_loss_pct;
			}
			checks_settled &= (fx && fx->stop) || shown_breach;
		}
	suite_row_decide(r, p->nworkloads, minimize, su->rule, p->primary);
	stopped = xcalloc((size_t)p->nworkloads + 1, sizeof(*stopped));
	for (w = 0; w < p->nworkloads; w++)
		stopped[w] = series_fx(&su->wl[w], i, co, NULL)->stop;
	r->settled =
	        suite_row_settled(r, p->nworkloads, stopped, series_fx(su->mean, i, co, NULL)->stop,
	                          shown_breach, checks_settled, su->rule, p->primary, alpha);
	free(stopped);
}

/* The decision of cohort c (c < 0: the fleet) under the suite's rule from its rows
 * (decision.h's rule with the suite's row verdicts), given base, verdict.c's decision of the
 * lead workload for the same nodes: grid, its best row the rule crowns; sequential and
 * adaptive, the final confirmation's row (the strategy chose what it runs) confirmed only
 * when the rule crowns it. */
static void suite_decide(const struct sweep *s, const struct suite *su, int c,
                         const struct suite_row *rows, const struct decision *base,
                         struct decision *out)
{
	struct decision d = *base;
	int i, best = -1;

	if (s->plan.strategy == PLAN_GRID) {
		for (i = 0; i < s->npoints; i++) {
			const struct suite_row *r = &rows[i];

			if (s->points[i].role != ROLE_CANDIDATE || r->verdict != SUITE_GAIN)
				continue;
			if (best < 0 || r->score_pct > rows[best].score_pct)
				best = i;
		}
		decision_init(&d);
		d.basis = DECISION_BASIS_GRID_ROW;
		d.why = base->why == DECISION_WHY_GAIN ? DECISION_WHY_NO_GAIN : base->why;
	} else if (d.basis == DECISION_BASIS_FINAL && d.point >= 0) {
		best = d.point;
		if (rows[best].verdict != SUITE_GAIN) {
			d.state = DECISION_UNCONFIRMED;
			d.why = DECISION_WHY_NOT_CONFIRMED;
			d.verdict = rows[best].verdict == SUITE_LOSS ? EFFECT_LOSS
			                                             : EFFECT_INCONCLUSIVE;
			d.delta_pct = rows[best].score_pct;
			d.low_pct = rows[best].score_low_pct;
			d.high_pct = rows[best].score_high_pct;
			best = -1;
		}
	}
	if (best >= 0) {
		const struct point *p = &s->points[best];
		bool own = false;
		const struct effect *fx = series_fx(
		        su->rule == PLAN_RULE_PRIMARY ? &su->wl[s->plan.primary] : su->mean, best,
		        c, &own);
		int k;

		d.state = DECISION_CONFIRMED;
		d.why = DECISION_WHY_GAIN;
		d.point = best;
		d.ref = p->ref;
		d.verdict = EFFECT_GAIN;
		d.delta_pct = rows[best].score_pct;
		d.low_pct = rows[best].score_low_pct;
		d.high_pct = rows[best].score_high_pct;
		d.level_pct = 95;
		d.cfg = c >= 0 ? *sweep_node_cfg(p, s->cohorts[c].nodes[0]) : p->cfg;
		d.nused = d.ngain = 0;
		for (k = 0; k < fx->nnodes; k++) {
			/* The fleet's comparison as cohort c sees it: its nodes' part. */
			if (c >= 0 && !own && s->cohort_of && s->cohort_of[k] != c)
				continue;
			d.nused += fx->nodes[k].state == EFFECT_NODE_USED;
			d.ngain += fx->nodes[k].state == EFFECT_NODE_USED &&
			           fx->nodes[k].decision == EFFECT_GAIN;
		}
	}
	*out = d;
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
	struct suite *su = s->suite;
	struct decision *base;
	bool *confirmed;
	int i, c, n;

	if (!su)
		return;
	su->npoints = s->npoints;
	su->rows = xcalloc((size_t)s->npoints + 1, sizeof(*su->rows));
	for (i = 0; i < s->npoints; i++)
		row_fill(s, su, i, -1, &su->rows[i], NULL);
	n = s->ncohorts >= 2 ? s->ncohorts : 0;
	su->ncohorts = n;
	su->cohort_rows = xcalloc((size_t)n + 1, sizeof(*su->cohort_rows));
	base = xcalloc((size_t)n + 1, sizeof(*base));
	confirmed = xcalloc((size_t)n + 1, sizeof(*confirmed));
	for (c = 0; c < n; c++) {
		su->cohort_rows[c] = xcalloc((size_t)s->npoints + 1, sizeof(**su->cohort_rows));
		base[c] = s->cohorts[c].decision;
	}
	suite_decide(s, su, -1, su->rows, &s->decision, &su->decision);
	s->decision = su->decision;
	for (c = 0; c < n; c++) {
		struct decision *d = &s->cohorts[c].decision;
		bool *rown = xcalloc((size_t)s->npoints + 1, sizeof(*rown));

		for (i = 0; i < s->npoints; i++)
			row_fill(s, su, i, c, &su->cohort_rows[c][i], &rown[i]);
		suite_decide(s, su, c, su->cohort_rows[c], &base[c], d);
		s->cohorts[c].own = d->point >= 0 && rown[d->point];
		confirmed[c] = d->state == DECISION_CONFIRMED;
		free(rown);
	}
	if (s->decision.state == DECISION_CONFIRMED)
		s->outcome = OUTCOME_BEST;
	else if (s->outcome == OUTCOME_BEST)
		s->outcome = OUTCOME_BASELINE;
	for (c = 0; c < n; c++)
		if (confirmed[c]) /* a cohort has a confirmed decision of its own */
			s->outcome = OUTCOME_BEST;
	free(base);
	free(confirmed);
}
