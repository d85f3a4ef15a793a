/* verdict.c -- each row, compared point and sweep judged with effect.c; no I/O, no libraries. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge/cohort.h"
#include "judge/drift.h"
#include "judge/race.h"
#include "judge/verdict.h"
#include "xmalloc.h"
#include "banned.h"

/* Judge one comparison of n nodes with effect_compute into fx (released first). A malformed
 * input (a pass that is not a finite number: never from an agent) leaves fx without nodes and
 * without a decision. */
static void judge_rr(int n, const struct effect_sample *sr, const struct effect_sample *sp,
                     const struct plan *p, int look, int nlooks, double extra_var, double extra_df,
                     struct effect *fx)
{
	struct effect_input in = { .nnodes = n,
		                   .ref = sr,
		                   .point = sp,
		                   .min_effect_pct = p->min_effect_pct,
		                   .minimize = p->minimize,
		                   .look = look,
		                   .nlooks = nlooks,
		                   .extra_var = extra_var,
		                   .extra_df = extra_df };

	effect_release(fx);
	if (effect_compute(&in, fx, NULL) == 0)
		return;
	in.nnodes = 0;
	effect_compute(&in, fx, NULL);
}

static void judge(int n, const struct effect_sample *sr, const struct effect_sample *sp,
                  const struct plan *p, int look, int nlooks, struct effect *fx)
{
	judge_rr(n, sr, sp, p, look, nlooks, 0, 0, fx);
}

static bool node_has_data(const struct node_result *r)
{
	return r->npasses > 0 &&
	       (r->state == NODE_OK || r->state == NODE_FAILED || r->state == NODE_CANCELLED);
}

/* Every pass of r carries its round. */
static bool all_rounds(const struct node_result *r)
{
	int j;

	for (j = 0; j < r->npasses; j++)
		if (r->pass_round[j] <= 0)
			return false;
	return r->npasses > 0;
}

/* Node k's samples of a comparison: counted only where it finished both points. Within a
 * sweep the passes carry their rounds (effect pairs them when both have them: the rounds the
 * point ran pick the reference's passes); without rounds, the reference's first ref_loops
 * passes when ref_loops is set. Across sweeps (blocked false) they are independent samples. */
static void sample_pair(const struct node_result *ref, const struct node_result *pt, int ref_loops,
                        bool blocked, struct effect_sample *sr, struct effect_sample *sp)
{
	sr->x = sp->x = NULL;
	sr->round = sp->round = NULL;
	sr->n = sp->n = 0;
	if (ref->state != NODE_OK || pt->state != NODE_OK)
		return;
	sr->x = ref->passes;
	sr->n = ref->npasses;
	sp->x = pt->passes;
	sp->n = pt->npasses;
	if (blocked) {
		sr->round = ref->pass_round;
		sp->round = pt->pass_round;
	}
	if (blocked && all_rounds(ref) && all_rounds(pt))
		return;
	sr->n = ref_loops > 0 && ref_loops < ref->npasses ? ref_loops : ref->npasses;
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
		sample_pair(&ref->nodes[k], &pt->nodes[k], pt->ref_loops, true, &sr[k], &sp[k]);
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

/* The comparison of point p as cohort c sees it: its own on a row split by cohort, the
 * row's otherwise (also for c < 0, the fleet). */
static const struct effect *cohort_effect(const struct point *p, int c)
{
	return c >= 0 && p->between.split && p->cohort_fx ? &p->cohort_fx[c] : &p->fx;
}

/* Row i's figures as cohort c sees them: its decision, Δ and the interval the decision used
 * (effect_deciding_interval: at its look), with that interval's level. */
static void step_fill(const struct sweep *s, int i, int c, struct decision_step *st)
{
	const struct point *p = &s->points[i];
	const struct effect *fx = cohort_effect(p, c);

	st->point = i;
	st->axis = p->axis;
	st->verdict = sweep_cohort_decision(p, c);
	st->delta_pct = sweep_cohort_delta_pct(p, c);
	effect_deciding_interval(fx, st->verdict, &st->low_pct, &st->high_pct, &st->level_pct);
}

/* The configuration cohort c's nodes ran at point p (c < 0: the point's). */
static const struct config *cohort_cfg(const struct sweep *s, const struct point *p, int c)
{
	return c >= 0 && s->ncohorts >= 2 ? sweep_node_cfg(p, s->cohorts[c].nodes[0]) : &p->cfg;
}

/* The deciding comparison of d is point i (against its reference), as cohort c sees it. */
static void comparison_fill(const struct sweep *s, int i, int c, struct decision *d)
{
	const struct point *p = &s->points[i];
	const struct effect *fx = cohort_effect(p, c);
	struct decision_step st;
	int k;

	step_fill(s, i, c, &st);
	d->point = i;
	d->ref = p->ref;
	d->verdict = st.verdict;
	d->delta_pct = st.delta_pct;
	d->low_pct = st.low_pct;
	d->high_pct = st.high_pct;
	d->level_pct = st.level_pct;
	d->nused = d->ngain = 0;
	if (c >= 0 && s->ncohorts >= 2 && fx == &p->fx) {
		/* A row not split by cohort, as cohort c sees it: its nodes' part of the fleet's.
		 */
		const struct sweep_cohort *co = &s->cohorts[c];

		for (k = 0; k < co->nnodes && co->nodes[k] < fx->nnodes; k++) {
			const struct effect_node *nd = &fx->nodes[co->nodes[k]];

			d->nused += nd->state == EFFECT_NODE_USED;
			d->ngain += nd->state == EFFECT_NODE_USED && nd->decision == EFFECT_GAIN;
		}
	} else {
		for (k = 0; k < fx->nnodes; k++) {
			d->nused += fx->nodes[k].state == EFFECT_NODE_USED;
			d->ngain += fx->nodes[k].state == EFFECT_NODE_USED &&
			            fx->nodes[k].decision == EFFECT_GAIN;
		}
	}
	d->cfg = *cohort_cfg(s, p, c);
}

/* The candidate of axis ax (-1: any, grid) with the largest gain as cohort c sees it, or -1. */
static int best_gain_row(const struct sweep *s, int ax, int c)
{
	int i, best = -1;

	for (i = 0; i < s->npoints; i++) {
		const struct point *p = &s->points[i];

		if (p->role != ROLE_CANDIDATE || (ax >= 0 && p->axis != ax) ||
		    sweep_cohort_decision(p, c) != EFFECT_GAIN)
			continue;
		if (best < 0 || goal_delta(s, sweep_cohort_delta_pct(p, c)) >
		                        goal_delta(s, sweep_cohort_delta_pct(&s->points[best], c)))
			best = i;
	}
	return best;
}

/* The row axis ax kept for cohort c: adaptive, its won or tentative candidate; sequential,
 * its candidate with the largest gain; -1 when it kept its baseline's value. */
static int axis_kept_row(const struct sweep *s, int ax, int c)
{
	int i, kept = -1;

	if (s->plan.strategy != PLAN_ADAPTIVE)
		return best_gain_row(s, ax, c);
	for (i = 0; i < s->npoints; i++) {
		const struct point *p = &s->points[i];

		if (p->axis == ax && p->role == ROLE_CANDIDATE &&
		    (p->race.state == RACE_WON || p->race.state == RACE_TENTATIVE))
			kept = i;
	}
	return kept;
}

/* The rows behind the suggestion (each axis' kept row) into d->steps, and the configuration
 * they chose (the last axis' kept row, else that axis' baseline point) into cfg; false when
 * no axis ran. */
static bool rows_choice(const struct sweep *s, int c, struct decision *d, struct config *cfg)
{
	int i, ax, last = -1, row;

	for (i = 0; i < s->npoints; i++)
		if (s->points[i].axis > last)
			last = s->points[i].axis;
	d->nsteps = 0;
	for (ax = 0; ax <= last; ax++) {
		row = axis_kept_row(s, ax, c);
		if (row >= 0 && d->nsteps < DECISION_STEPS_MAX)
			step_fill(s, row, c, &d->steps[d->nsteps++]);
	}
	if (last < 0)
		return false;
	row = axis_kept_row(s, last, c);
	if (row >= 0) {
		*cfg = *cohort_cfg(s, &s->points[row], c);
		return true;
	}
	for (i = 0; i < s->npoints; i++) {
		if (s->points[i].axis == last && s->points[i].role == ROLE_BASELINE) {
			*cfg = *cohort_cfg(s, &s->points[i], c);
			return true;
		}
	}
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

/* Cohort c's decision (c < 0: the fleet's) into d (decision.h states the rule). Grid: its
 * best row, measured beside the baseline in the same rounds, confirmed when it is a gain.
 * Sequential and adaptive: the final confirmation decides (adaptive without a split: the
 * race's own test, race_confirmed); the axis rows only suggest. */
static void decide(const struct sweep *s, int c, struct decision *d)
{
	struct config cfg = { 0 };
	int i, final = -1, row;
	bool confirmed;

	decision_init(d);
	if (s->plan.strategy == PLAN_GRID) {
		d->basis = DECISION_BASIS_GRID_ROW;
		row = best_gain_row(s, -1, c);
		d->why = DECISION_WHY_NO_GAIN;
		if (row >= 0) {
			comparison_fill(s, row, c, d);
			d->state = DECISION_CONFIRMED;
			d->why = DECISION_WHY_GAIN;
		}
		return;
	}
	for (i = 0; i < s->npoints; i++)
		if (s->points[i].role == ROLE_FINAL && point_ran(s, &s->points[i]))
			final = i;
	rows_choice(s, c, d, &cfg);
	if (final >= 0) {
		const struct point *p = &s->points[final];

		d->basis = DECISION_BASIS_FINAL;
		comparison_fill(s, final, c, d);
		confirmed = s->plan.strategy == PLAN_ADAPTIVE && !p->between.split
		                    ? race_confirmed(s, final)
		                    : sweep_cohort_decision(p, c) == EFFECT_GAIN;
		d->state = confirmed ? DECISION_CONFIRMED : DECISION_UNCONFIRMED;
		d->why = confirmed ? DECISION_WHY_GAIN : DECISION_WHY_NOT_CONFIRMED;
		return;
	}
	d->basis = DECISION_BASIS_ROWS;
	d->why = DECISION_WHY_NO_GAIN;
	if (cfg.n > 0 && !config_equal(&cfg, &s->plan.baseline)) {
		d->state = DECISION_UNCONFIRMED;
		d->why = DECISION_WHY_NO_FINAL;
		d->cfg = cfg;
	} else {
		d->nsteps = 0;
	}
}

/* The fleet's decision and each cohort's (when there are two or more). */
static void decisions_pick(struct sweep *s)
{
	int c;

	decide(s, -1, &s->decision);
	for (c = 0; c < s->ncohorts && s->ncohorts >= 2; c++) {
		struct sweep_cohort *co = &s->cohorts[c];

		decide(s, c, &co->decision);
		co->own = co->decision.point >= 0 && s->points[co->decision.point].between.split;
	}
}

/* Row i judged within each cohort of s (cohort.h; s has two or more): the same node samples
 * as the row (within rounds when its passes carry them), at the row's look (an adaptive final
 * confirmation of each cohort's own configuration at its one plain look: it runs
 * job.loops.max loops and takes none). Its earlier per-cohort judgement is dropped first. */
static void cohort_row_analyze(struct sweep *s, int i)
{
	struct point *pt = &s->points[i];
	bool plain = s->plan.strategy == PLAN_ADAPTIVE && pt->role == ROLE_FINAL &&
	             sweep_point_mixed(s, pt);
	int n = s->plan.nnodes, k;
	struct effect_sample *sr, *sp;

	for (k = 0; pt->cohort_fx && k < s->ncohorts; k++)
		effect_release(&pt->cohort_fx[k]);
	free(pt->cohort_fx);
	pt->cohort_fx = NULL;
	memset(&pt->between, 0, sizeof(pt->between));
	if (pt->ref < 0)
		return;
	sr = xcalloc((size_t)n + 1, sizeof(*sr));
	sp = xcalloc((size_t)n + 1, sizeof(*sp));
	for (k = 0; k < n; k++)
		sample_pair(&s->points[pt->ref].nodes[k], &pt->nodes[k], pt->ref_loops, true,
		            &sr[k], &sp[k]);
	cohort_point_judge(s, i, sr, sp, plain ? 1 : sweep_point_look(s, i),
	                   plain ? 1 : sweep_nlooks(&s->plan));
	free(sr);
	free(sp);
}

/* Every row judged within each cohort of s, when it has two or more. */
static void cohorts_analyze(struct sweep *s)
{
	int i;

	cohort_assign(s);
	for (i = 0; i < s->npoints && s->ncohorts >= 2; i++)
		cohort_row_analyze(s, i);
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

/* The decisions, and the outcome: a confirmed decision of the fleet or of some cohort, or
 * why there is none: the original baseline (point 0) has no figure on any node, or
 * configurations ran and none has a figure to compare. A decision of none says the same. */
static void outcome_pick(struct sweep *s)
{
	int i, tried = 0, measured = 0, c;
	enum decision_why why;

	decisions_pick(s);
	for (c = 0; c < s->ncohorts && s->ncohorts >= 2; c++)
		if (s->cohorts[c].decision.state == DECISION_CONFIRMED)
			tried = 1; /* a cohort has a confirmed decision of its own */
	if (s->decision.state == DECISION_CONFIRMED || tried) {
		s->outcome = OUTCOME_BEST;
		return;
	}
	if (s->npoints == 0 || !point_has_figure(s, &s->points[0])) {
		s->outcome = OUTCOME_BASELINE_FAILED;
	} else {
		for (i = 1; i < s->npoints; i++) {
			const struct point *p = &s->points[i];

			if (p->role == ROLE_BASELINE || !point_ran(s, p))
				continue;
			tried++;
			measured += point_has_figure(s, p);
		}
		s->outcome = tried > 0 && measured == 0 ? OUTCOME_NO_FIGURES : OUTCOME_BASELINE;
	}
	why = s->outcome == OUTCOME_BASELINE_FAILED ? sweep_baseline_why(s)
	      : s->outcome == OUTCOME_NO_FIGURES    ? DECISION_WHY_NO_FIGURES
	                                            : DECISION_WHY_NO_GAIN;
	if (s->decision.state == DECISION_NONE)
		s->decision.why = why;
	for (c = 0; c < s->ncohorts && s->ncohorts >= 2; c++)
		if (s->cohorts[c].decision.state == DECISION_NONE)
			s->cohorts[c].decision.why = why;
}

/* Warn when one node is more than 10 % away from the others' mean at every point. With two
 * nodes the comparison is symmetric, so only the second node is judged (against the first).
 * Linear in nodes x points: each point's sum of node means is taken once, and a node's
 * "others" are that sum without it. */
static void asymmetry_check(struct sweep *s)
{
	int n = s->plan.nnodes, i, j, first = n == 2 ? 1 : 0;
	int *above, *below, *seen, *cnt;
	double *sum_dev, *tot;

	if (n < 2)
		return;
	above = xcalloc(4 * ((size_t)n + 1) + (size_t)s->npoints + 1, sizeof(int));
	below = above + n + 1;
	seen = below + n + 1;
	cnt = seen + n + 1;
	sum_dev = xcalloc((size_t)n + 1 + (size_t)s->npoints + 1, sizeof(double));
	tot = sum_dev + n + 1;
	for (j = 0; j < s->npoints; j++)
		for (i = 0; i < n; i++)
			if (s->points[j].nodes[i].sum.n > 0) {
				tot[j] += s->points[j].nodes[i].sum.mean;
				cnt[j]++;
			}
	for (j = 0; j < s->npoints; j++) {
		const struct point *p = &s->points[j];

		for (i = first; i < n; i++) {
			double others, dev;

			if (p->nodes[i].sum.n == 0 || cnt[j] < 2)
				continue;
			others = tot[j] - p->nodes[i].sum.mean;
			if (others == 0.0)
				continue;
			others /= cnt[j] - 1;
			dev = 100.0 * (p->nodes[i].sum.mean / others - 1.0);
			seen[i]++;
			sum_dev[i] += dev;
			if (dev > 10.0)
				above[i]++;
			else if (dev < -10.0)
				below[i]++;
		}
	}
	for (i = first; i < n && s->nwarnings < SWEEP_WARNINGS_MAX; i++) {
		struct sweep_warning *w;

		if (seen[i] == 0 || (above[i] != seen[i] && below[i] != seen[i]))
			continue;
		w = &s->warnings[s->nwarnings++];
		w->code = WARNING_NODE_OFFSET;
		w->node = i;
		w->other = n == 2 ? 0 : -1;
		w->offset_pct = sum_dev[i] / seen[i];
		w->npoints = seen[i];
	}
	free(above);
	free(sum_dev);
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
	drift_analyze(s);
}

void verdict_point_update(struct sweep *s, int i)
{
	int j;

	point_analyze(s, i);
	if (s->ncohorts >= 2)
		cohort_row_analyze(s, i);
	for (j = i + 1; j < s->npoints; j++)
		if (s->points[j].ref == i) {
			point_analyze(s, j);
			if (s->ncohorts >= 2)
				cohort_row_analyze(s, j);
		}
	outcome_pick(s);
	noise_summarize(s);
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* ln(1 + pct / 100) of min_effect, 5 % when it is 0: the assumed run-to-run SD. */
static double ln_pct(double pct)
{
	return log1p((pct > 0 ? pct : 5.0) / 100.0);
}

/* The index of the point of s with cfg whose occurrence (0: the first point with it, 1: the
 * next, ...) is occ, or -1. */
static int point_occurrence(const struct sweep *s, const struct config *cfg, int occ)
{
	int j;

	for (j = 0; j < s->npoints; j++)
		if (config_equal(cfg, &s->points[j].cfg) && occ-- == 0)
			return j;
	return -1;
}

/* A node's mean of one point and the variance of its log (CV² / n); false when unusable. */
static bool node_mean(const struct node_result *r, double *mean, double *v)
{
	struct stats_summary sm;

	if (r->state != NODE_OK || r->npasses < 2)
		return false;
	stats_summarize(r->passes, r->npasses, &sm);
	if (!(sm.mean > 0))
		return false;
	*mean = sm.mean;
	*v = sm.stdev * sm.stdev / (sm.mean * sm.mean) / sm.n;
	return true;
}

/* Within sweep s: d² - v of every configuration measured again (each point against the next
 * point with the same configuration) and of every node's drift over the sweep, summed into
 * *sum; returns how many. */
static int within_repeats(const struct sweep *s, double *sum)
{
	int i, j, k, m = 0;

	for (i = 0; i < s->npoints; i++) {
		for (j = i + 1; j < s->npoints; j++)
			if (config_equal(&s->points[i].cfg, &s->points[j].cfg))
				break;
		if (j == s->npoints)
			continue;
		for (k = 0; k < s->plan.nnodes; k++) {
			double m1, v1, m2, v2, d;

			if (!node_mean(&s->points[i].nodes[k], &m1, &v1) ||
			    !node_mean(&s->points[j].nodes[k], &m2, &v2))
				continue;
			d = log(m2 / m1);
			*sum += d * d - v1 - v2;
			m++;
		}
	}
	/* A drift is known only from passes that carry their times or rounds: the order of the
	 * loops of a format 1 or 2 document tells how a point's own passes moved, not the sweep. */
	for (k = 0; k < s->drift.nnodes && s->drift.rounds; k++) {
		const struct sweep_drift_node *dn = &s->drift.nodes[k];

		if (!isfinite(dn->change_log) || !isfinite(dn->change_se_log))
			continue;
		*sum += dn->change_log * dn->change_log - dn->change_se_log * dn->change_se_log;
		m++;
	}
	return m;
}

static int double_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The run-to-run variation of verdict.h from the rows' first judgement (without it). */
static void run_to_run(const struct sweep *a, const struct sweep *b,
                       const struct verdict_comparison *c, struct verdict_run_to_run *rr)
{
	int n = a->plan.nnodes, i, k, m;
	double *theta = xcalloc((size_t)c->nrows + 1, sizeof(double));
	double sum_b = 0, sum_w = 0, mean = 0, m_log = ln_pct(a->plan.min_effect_pct);

	memset(rr, 0, sizeof(*rr));
	rr->shift_lo_pct = INFINITY;
	rr->shift_hi_pct = -INFINITY;
	for (k = 0; k < n; k++) {
		double v = 0, sft;

		for (i = m = 0; i < c->nrows; i++) {
			const struct effect_node *nd = &c->rows[i].fx.nodes[k];

			if (k >= c->rows[i].fx.nnodes || nd->state != EFFECT_NODE_USED)
				continue;
			theta[m++] = nd->log_ratio;
			v += nd->se_log * nd->se_log;
		}
		if (!m)
			continue;
		/* The median: a change of a few configurations does not move a node's shift. Its
		 * variance is about pi/2 that of the mean. */
		qsort(theta, (size_t)m, sizeof(double), double_cmp);
		sft = m % 2 ? theta[m / 2] : (theta[m / 2 - 1] + theta[m / 2]) / 2.0;
		v = (m > 2 ? M_PI / 2.0 : 1.0) * v / m / m;
		sum_b += sft * sft - v;
		mean += sft;
		rr->shift_lo_pct = fmin(rr->shift_lo_pct, 100.0 * expm1(sft));
		rr->shift_hi_pct = fmax(rr->shift_hi_pct, 100.0 * expm1(sft));
		rr->nshift++;
	}
	rr->shift_pct = rr->nshift ? 100.0 * expm1(mean / rr->nshift) : NAN;
	if (!rr->nshift)
		rr->shift_lo_pct = rr->shift_hi_pct = NAN;
	rr->nwithin = within_repeats(a, &sum_w) + within_repeats(b, &sum_w);
	rr->between_var = rr->nshift ? fmax(0.0, sum_b / rr->nshift) : 0.0;
	rr->within_var = rr->nwithin ? fmax(0.0, sum_w / rr->nwithin) : 0.0;
	if (!rr->nshift && !rr->nwithin) {
		rr->assumed = true;
		rr->var = m_log * m_log;
		rr->df = 0;
	} else if (rr->nshift && rr->between_var >= rr->within_var) {
		rr->from_between = true;
		rr->var = rr->between_var;
		rr->df = rr->nshift;
	} else {
		rr->var = rr->within_var;
		rr->df = rr->nwithin;
	}
	rr->sd_pct = 100.0 * expm1(sqrt(rr->var));
	rr->within_pct = 100.0 * expm1((rr->df > 0 ? stats_t_quantile(0.975, rr->df)
	                                           : stats_norm_quantile(0.975)) *
	                               sqrt(rr->var));
	free(theta);
}

void verdict_sweeps_compare(const struct sweep *a, const struct sweep *b,
                            struct verdict_comparison *out)
{
	int n = a->plan.nnodes, nlooks = max_int(sweep_nlooks(&a->plan), sweep_nlooks(&b->plan));
	struct effect_sample *sr =
	        xcalloc(2 * ((size_t)n + 1) * (size_t)(a->npoints + 1), sizeof(*sr));
	struct effect_sample *sp = sr + ((size_t)n + 1) * (size_t)(a->npoints + 1);
	int i, j, k;

	memset(out, 0, sizeof(*out));
	out->rows = xcalloc((size_t)a->npoints + 1, sizeof(*out->rows));
	for (i = 0; i < a->npoints; i++) {
		const struct point *pa = &a->points[i], *pb;
		struct effect_sample *r = sr + (size_t)out->nrows * (n + 1);
		struct effect_sample *p = sp + (size_t)out->nrows * (n + 1);
		struct verdict_compare_row *row;
		int occ = 0, jb;

		/* The k-th point of a with a configuration meets the k-th of b with it. */
		for (j = 0; j < i; j++)
			occ += config_equal(&pa->cfg, &a->points[j].cfg);
		jb = point_occurrence(b, &pa->cfg, occ);
		if (jb < 0)
			continue;
		pb = &b->points[jb];
		row = &out->rows[out->nrows++];
		row->point_a = i;
		row->point_b = pb->index;
		row->cells = xcalloc((size_t)n + 1, sizeof(*row->cells));
		for (k = 0; k < n; k++) {
			int kb = plan_node_find(&b->plan, a->plan.nodes[k].name);
			struct verdict_compare_cell *c = &row->cells[k];

			r[k].n = p[k].n = 0;
			if (kb < 0)
				continue;
			/* Two runs at different times: independent samples, never paired. */
			sample_pair(&pa->nodes[k], &pb->nodes[kb], 0, false, &r[k], &p[k]);
			c->present = r[k].n > 0 && p[k].n > 0;
			c->a = pa->nodes[k].sum;
			c->b = pb->nodes[kb].sum;
		}
		judge(n, r, p, &a->plan, nlooks, nlooks, &row->fx);
	}
	/* Then every row again with the variation between the runs in its intervals. */
	run_to_run(a, b, out, &out->rr);
	for (i = 0; i < out->nrows; i++)
		judge_rr(n, sr + (size_t)i * (n + 1), sp + (size_t)i * (n + 1), &a->plan, nlooks,
		         nlooks, out->rr.var, out->rr.df, &out->rows[i].fx);
	free(sr);
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
