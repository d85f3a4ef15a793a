/* sweep.c -- a sweep's points and node results: creation, pass storage, stable codes. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/sweep.h"
#include "timeutil.h"
#include "xmalloc.h"
#include "banned.h"

void sweep_init(struct sweep *s, struct plan *plan)
{
	memset(s, 0, sizeof(*s));
	s->plan = *plan;
	memset(plan, 0, sizeof(*plan));
	snprintf(s->status, sizeof(s->status), "running");
	s->node_dropped = xcalloc((size_t)s->plan.nnodes + 1, sizeof(bool));
	s->identity = xcalloc((size_t)s->plan.nnodes + 1, sizeof(*s->identity));
	decision_init(&s->decision);
	s->created_at = time_now_s();
}

void sweep_release(struct sweep *s)
{
	int i, k;

	if (!s)
		return;
	sweep_cohorts_clear(s);
	sweep_suite_clear(s);
	for (i = 0; i < s->npoints; i++) {
		for (k = 0; k < s->plan.nnodes; k++) {
			free(s->points[i].nodes[k].passes);
			free(s->points[i].nodes[k].series);
			free(s->points[i].nodes[k].pass_round);
			free(s->points[i].nodes[k].pass_started_at);
			free(s->points[i].nodes[k].warmup);
			free(s->points[i].nodes[k].cfg);
			free((void *)s->points[i].nodes[k].applied);
			free(s->points[i].nodes[k].mkfs);
			free(s->points[i].nodes[k].error);
		}
		free(s->points[i].nodes);
		effect_release(&s->points[i].fx);
	}
	free(s->points);
	free(s->node_dropped);
	free(s->drift.nodes);
	for (k = 0; s->identity && k < s->plan.nnodes; k++)
		for (i = 0; i < IDF_N; i++)
			free(s->identity[k].field[i]);
	free(s->identity);
	plan_release(&s->plan);
	memset(s, 0, sizeof(*s));
}

void sweep_identity_set(struct sweep *s, int k, enum identity_field f, const char *value)
{
	free(s->identity[k].field[f]);
	s->identity[k].field[f] = value ? xstrdup(value) : NULL;
}

void sweep_cohorts_clear(struct sweep *s)
{
	int i, j;

	for (i = 0; i < s->npoints; i++) {
		for (j = 0; s->points[i].cohort_fx && j < s->ncohorts; j++)
			effect_release(&s->points[i].cohort_fx[j]);
		free(s->points[i].cohort_fx);
		s->points[i].cohort_fx = NULL;
		memset(&s->points[i].between, 0, sizeof(s->points[i].between));
	}
	for (i = 0; i < s->ncohorts; i++) {
		for (j = 0; j < s->cohorts[i].nvalues; j++)
			free(s->cohorts[i].values[j]);
		free(s->cohorts[i].values);
		free(s->cohorts[i].nodes);
	}
	free(s->cohorts);
	free(s->cohort_of);
	s->cohorts = NULL;
	s->cohort_of = NULL;
	s->ncohorts = 0;
}

enum effect_decision sweep_cohort_decision(const struct point *p, int c)
{
	return c >= 0 && p->between.split && p->cohort_fx ? p->cohort_fx[c].decision : p->verdict;
}

double sweep_cohort_delta_pct(const struct point *p, int c)
{
	return c >= 0 && p->between.split && p->cohort_fx ? p->cohort_fx[c].delta_pct
	                                                  : p->delta_pct;
}

const char *sweep_cohort_value(const struct sweep *s, int c, int j)
{
	const struct sweep_cohort *co = &s->cohorts[c];

	return j < co->nvalues && co->values[j] ? co->values[j] : "(none)";
}

void sweep_cohort_key(const struct sweep *s, int c, struct buf *out)
{
	int j;

	for (j = 0; j < s->cohorts[c].nvalues; j++)
		buf_printf(out, "%s%s=%s", j ? " " : "", s->plan.cohort_by[j],
		           sweep_cohort_value(s, c, j));
}

int sweep_point_add(struct sweep *s, enum point_role role, int axis, int ref,
                    const struct config *cfg)
{
	struct point *p;
	int i;

	if (s->npoints == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->points = xrealloc(s->points, (size_t)s->cap * sizeof(*s->points));
	}
	p = &s->points[s->npoints];
	memset(p, 0, sizeof(*p));
	p->index = s->npoints;
	p->role = role;
	p->axis = axis;
	p->ref = ref;
	p->block = s->npoints;
	p->cfg = *cfg;
	p->nodes = xcalloc((size_t)s->plan.nnodes + 1, sizeof(*p->nodes));
	for (i = 0; i < s->plan.nnodes; i++) {
		p->nodes[i].state = s->node_dropped[i] ? NODE_DROPPED : NODE_PENDING;
		p->nodes[i].delta_pct = p->nodes[i].ci_low_pct = p->nodes[i].ci_high_pct = NAN;
	}
	p->delta_pct = p->ci_low_pct = p->ci_high_pct = p->spread_pct = NAN;
	p->race.vs = -1;
	p->race.delta_pct = p->race.low_pct = p->race.high_pct = NAN;
	return s->npoints++;
}

const struct config *sweep_node_cfg(const struct point *p, int k)
{
	return p->nodes[k].cfg ? p->nodes[k].cfg : &p->cfg;
}

void sweep_node_cfg_set(struct sweep *s, int i, int k, const struct config *cfg)
{
	struct node_result *r = &s->points[i].nodes[k];

	free(r->cfg);
	r->cfg = NULL;
	if (cfg && !config_equal(cfg, &s->points[i].cfg)) {
		r->cfg = xmalloc(sizeof(*r->cfg));
		*r->cfg = *cfg;
	}
}

enum decision_why sweep_baseline_why(const struct sweep *s)
{
	int k, cancelled = 0;

	if (!s->npoints || !strcmp(s->status, "completed"))
		return DECISION_WHY_BASELINE_FAILED;
	for (k = 0; k < s->plan.nnodes; k++) {
		const struct node_result *r = &s->points[0].nodes[k];

		if (r->state == NODE_FAILED || r->npasses > 0)
			return DECISION_WHY_BASELINE_FAILED;
		cancelled += r->state == NODE_CANCELLED;
	}
	return cancelled > 0 ? DECISION_WHY_BASELINE_CANCELLED : DECISION_WHY_BASELINE_NOT_RUN;
}

const struct decision *sweep_decision(const struct sweep *s, int c)
{
	return c >= 0 && s->ncohorts >= 2 && c < s->ncohorts ? &s->cohorts[c].decision
	                                                     : &s->decision;
}

bool sweep_cohort_decisions_differ(const struct sweep *s)
{
	int c;

	for (c = 0; s->ncohorts >= 2 && c < s->ncohorts; c++) {
		const struct decision *d = &s->cohorts[c].decision;

		if (d->state != s->decision.state || d->point != s->decision.point ||
		    !config_equal(&d->cfg, &s->decision.cfg))
			return true;
	}
	return false;
}

bool sweep_point_mixed(const struct sweep *s, const struct point *p)
{
	int k;

	for (k = 0; k < s->plan.nnodes; k++)
		if (p->nodes[k].cfg)
			return true;
	return false;
}

void sweep_point_loops_add(struct sweep *s, int i, int loops)
{
	struct point *p = &s->points[i];

	p->loops_run += loops;
	p->ref_loops = p->ref >= 0 ? s->points[p->ref].loops_run : 0;
}

const struct effect_node *sweep_node_effect(const struct point *p, int k)
{
	return k < p->fx.nnodes ? &p->fx.nodes[k] : NULL;
}

int sweep_nlooks(const struct plan *p)
{
	return p->loops_max > p->loops ? p->loops_max - p->loops + 1 : 1;
}

int sweep_point_look(const struct sweep *s, int i)
{
	int look = s->points[i].loops_run - s->plan.loops + 1, n = sweep_nlooks(&s->plan);

	return look < 1 ? 1 : look > n ? n : look;
}

/* Start times are kept to the millisecond, as the sweep document writes them: the live
 * sweep, the stored one and its document then judge the same figures. */
static double ms(double t)
{
	return t > 0 ? round(t * 1000.0) / 1000.0 : 0;
}

const char *sweep_pass_problem(double v, char *why, size_t len)
{
	if (isfinite(v) && fabs(v) <= SWEEP_PASS_ABS_MAX && v >= 0)
		return NULL;
	snprintf(why, len, "%g is not a measurement (%s)", v,
	         !isfinite(v) || fabs(v) > SWEEP_PASS_ABS_MAX ? "at most 1e+15 in magnitude"
	                                                      : "a figure is never negative");
	return why;
}

void node_result_pass_add_at(struct node_result *r, double value, int round_no, double started_at,
                             bool warmup)
{
	if (warmup) {
		if (r->nwarmup == r->warmup_cap) {
			r->warmup_cap = r->warmup_cap ? r->warmup_cap * 2 : 4;
			r->warmup = xrealloc(r->warmup, (size_t)r->warmup_cap * sizeof(*r->warmup));
		}
		r->warmup[r->nwarmup].value = value;
		r->warmup[r->nwarmup].round = round_no;
		r->warmup[r->nwarmup++].started_at = ms(started_at);
		return;
	}
	if (r->npasses == r->passes_cap) {
		r->passes_cap = r->passes_cap ? r->passes_cap * 2 : 8;
		r->passes = xrealloc(r->passes, (size_t)r->passes_cap * sizeof(*r->passes));
		r->pass_round =
		        xrealloc(r->pass_round, (size_t)r->passes_cap * sizeof(*r->pass_round));
		r->pass_started_at = xrealloc(r->pass_started_at,
		                              (size_t)r->passes_cap * sizeof(*r->pass_started_at));
	}
	r->passes[r->npasses] = value;
	r->pass_round[r->npasses] = round_no;
	r->pass_started_at[r->npasses++] = ms(started_at);
}

void node_result_series_add(struct node_result *r, const double *v, int n)
{
	if (n <= 0 || r->npasses <= 0)
		return;
	if (r->nseries != n) { /* the first suite pass (a node's series never change) */
		free(r->series);
		r->series = xcalloc((size_t)r->npasses * (size_t)n, sizeof(*r->series));
		r->nseries = n;
	} else {
		r->series =
		        xrealloc(r->series, (size_t)r->npasses * (size_t)n * sizeof(*r->series));
	}
	memcpy(&r->series[(size_t)(r->npasses - 1) * (size_t)n], v, (size_t)n * sizeof(*v));
}

/* A series' sweep (judge/suite.c builds it): its passes and node configurations are its own,
 * its plan, node_dropped and identity are borrowed from the suite's sweep. */
static void series_sweep_release(struct sweep *w)
{
	int i, k;

	for (i = 0; i < w->npoints; i++)
		for (k = 0; k < w->plan.nnodes; k++) {
			free(w->points[i].nodes[k].passes);
			free(w->points[i].nodes[k].pass_round);
			free(w->points[i].nodes[k].pass_started_at);
			free(w->points[i].nodes[k].cfg);
			memset(&w->points[i].nodes[k], 0, sizeof(w->points[i].nodes[k]));
		}
	/* Borrowed: the plan (a copy of the struct), node_dropped and identity. */
	sweep_cohorts_clear(w);
	w->node_dropped = NULL;
	w->identity = NULL;
	memset(&w->plan, 0, sizeof(w->plan));
	sweep_release(w);
}

static void suite_rows_free(struct suite_row *rows, int n)
{
	int j;

	for (j = 0; rows && j < n; j++) {
		free(rows[j].cells);
		free(rows[j].checks);
	}
	free(rows);
}

/* Free suite s: each series' sweep, its rows and each cohort's. NULL is fine. */
static void sweep_suite_free(struct suite *s)
{
	int j;

	if (!s)
		return;
	for (j = 0; s->wl && j < s->nseries; j++)
		series_sweep_release(&s->wl[j]);
	free(s->wl);
	if (s->mean)
		series_sweep_release(s->mean);
	free(s->mean);
	suite_rows_free(s->rows, s->npoints);
	for (j = 0; s->cohort_rows && j < s->ncohorts; j++)
		suite_rows_free(s->cohort_rows[j], s->npoints);
	free(s->cohort_rows);
	free(s);
}

void sweep_suite_clear(struct sweep *s)
{
	sweep_suite_free(s->suite);
	s->suite = NULL;
}

void node_result_applied_set(struct node_result *r, const struct config *c)
{
	struct config *a = NULL;

	if (c && c->n > 0) {
		a = xmalloc(offsetof(struct config, s) + (size_t)c->n * sizeof(c->s[0]));
		a->n = c->n;
		memcpy(a->s, c->s, (size_t)c->n * sizeof(c->s[0]));
	}
	free((void *)r->applied);
	r->applied = a;
}

void node_result_error_set(struct node_result *r, const char *why)
{
	char *m = why && *why ? xstrndup(why, SWEEP_ERROR_MAX - 1) : NULL;

	free(r->error);
	r->error = m;
}

void node_result_mkfs_set(struct node_result *r, const char *mkfs)
{
	char *m = mkfs && *mkfs ? xstrndup(mkfs, SWEEP_MKFS_MAX - 1) : NULL;

	free(r->mkfs);
	r->mkfs = m;
}

int sweep_node_job_record(struct node_result *r, const struct sweep_job_figures *jf, char *why,
                          size_t len)
{
	int j;

	if (jf->applied) {
		node_result_applied_set(r, jf->applied);
		r->adjusted_mask = jf->adjusted;
	}
	for (j = (jf->warmup ? r->nwarmup : r->npasses) - jf->passes_before; j < jf->npasses; j++) {
		if (sweep_pass_problem(jf->passes[j], why, len))
			return j;
		node_result_pass_add_at(r, jf->passes[j], jf->round, jf->started_at, jf->warmup);
		if (!jf->warmup && jf->series && jf->nseries)
			node_result_series_add(r, &jf->series[(size_t)j * (size_t)jf->nseries],
			                       jf->nseries);
	}
	if (jf->mkfs && jf->mkfs[0])
		node_result_mkfs_set(r, jf->mkfs);
	return -1;
}

void node_result_pass_add(struct node_result *r, double value)
{
	node_result_pass_add_at(r, value, 0, 0, false);
}

bool sweep_has_rounds(const struct sweep *s)
{
	int i, k, j, n = 0;

	for (i = 0; i < s->npoints; i++) {
		for (k = 0; k < s->plan.nnodes; k++) {
			const struct node_result *r = &s->points[i].nodes[k];

			for (j = 0; j < r->npasses; j++, n++)
				if (r->pass_round[j] <= 0)
					return false;
		}
	}
	return n > 0;
}

/* The index of code in names[0..n), or -1. */
static int code_find(const char *const *names, int n, const char *code)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], code))
			return i;
	return -1;
}

#define NAMES(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const role_codes[] = { "baseline", "candidate", "final" };
static const char *const node_state_codes[] = { "pending", "ok", "failed", "cancelled", "dropped" };
static const char *const race_state_codes[] = { "",     "running", "dropped",  "won",
	                                        "tied", "open",    "tentative" };
static const char *const race_why_codes[] = { "",       "worse",  "equivalent",
	                                      "failed", "last",   "all_equivalent",
	                                      "cap",    "budget", "not_better",
	                                      "rule" };
static const char *const outcome_codes[] = { "pending", "best", "baseline", "baseline_failed",
	                                     "no_figures" };

const char *sweep_role_code(enum point_role r)
{
	return role_codes[r];
}

int sweep_role_parse(const char *code)
{
	return code_find(role_codes, NAMES(role_codes), code);
}

const char *sweep_node_state_code(enum node_state st)
{
	return node_state_codes[st];
}

int sweep_node_state_parse(const char *code)
{
	return code_find(node_state_codes, NAMES(node_state_codes), code);
}

const char *sweep_verdict_code(enum effect_decision d)
{
	return d == EFFECT_NA ? NULL : effect_decision_name(d);
}

int sweep_verdict_parse(const char *code)
{
	int d = effect_decision_parse(code);

	return d == EFFECT_NA ? -1 : d;
}

const char *sweep_outcome_code(enum sweep_outcome o)
{
	return outcome_codes[o];
}

int sweep_outcome_parse(const char *code)
{
	return code_find(outcome_codes, NAMES(outcome_codes), code);
}

const char *sweep_race_state_code(enum race_state st)
{
	return race_state_codes[st];
}

int sweep_race_state_parse(const char *code)
{
	return code_find(race_state_codes, NAMES(race_state_codes), code);
}

const char *sweep_race_why_code(enum race_why w)
{
	return race_why_codes[w];
}

int sweep_race_why_parse(const char *code)
{
	return code_find(race_why_codes, NAMES(race_why_codes), code);
}

void sweep_blocks_derive(struct sweep *s)
{
	int *owner = xcalloc((size_t)s->nrounds + 2, sizeof(int)), i, k, j;

	for (i = 0; i < s->npoints; i++) {
		struct point *p = &s->points[i];

		p->block = i;
		for (k = 0; k < s->plan.nnodes; k++) {
			const struct node_result *r = &p->nodes[k];

			for (j = 0; j < r->npasses + r->nwarmup; j++) {
				int rd = j < r->npasses ? r->pass_round[j]
				                        : r->warmup[j - r->npasses].round;

				if (rd <= 0 || rd > s->nrounds)
					continue;
				if (owner[rd] && owner[rd] - 1 < p->block)
					p->block = s->points[owner[rd] - 1].block;
				else if (!owner[rd])
					owner[rd] = i + 1;
			}
		}
	}
	free(owner);
}
