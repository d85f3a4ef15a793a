/* sweepdoc.c -- the sweep document (schema/sweep.schema.json) written from the sweep model,
 * with every figure and its words (sweepdoc_read.c reads it back). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "doc/sweepdoc.h"
#include "model/words.h"
#include "timeutil.h"
#include "xmalloc.h"
#include "banned.h"

/* Writing: every field of the schema, analysis and words included. */

static json_t *num_or_null(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static json_t *time_json(double t)
{
	char iso[40];

	if (t <= 0)
		return json_null();
	time_fmt_iso(t, iso, sizeof(iso));
	return json_string(iso);
}

static json_t *pair_json(double lo, double hi)
{
	json_t *a = json_array();

	json_array_append_new(a, num_or_null(lo));
	json_array_append_new(a, num_or_null(hi));
	return a;
}

/* A node's figures of a comparison (nd NULL: the point has none) into o. */
static void effect_node_json(const struct effect_node *nd, json_t *o)
{
	bool used = nd && nd->state == EFFECT_NODE_USED;

	json_object_set_new(o, "effect_state",
	                    nd ? json_string(effect_node_state_name(nd->state)) : json_null());
	json_object_set_new(o, "blocked", json_boolean(nd && nd->blocked));
	json_object_set_new(o, "ref_n", nd ? json_integer(nd->n_ref) : json_null());
	json_object_set_new(o, "cv_pct", nd ? num_or_null(nd->cv_point_pct) : json_null());
	json_object_set_new(o, "ref_cv_pct", nd ? num_or_null(nd->cv_ref_pct) : json_null());
	json_object_set_new(o, "df", used ? num_or_null(nd->df) : json_null());
	json_object_set_new(o, "weight_pct", used ? num_or_null(nd->weight_pct) : json_null());
	json_object_set_new(o, "differs_p", used ? num_or_null(nd->differs_p) : json_null());
	json_object_set_new(o, "disagrees", json_boolean(nd && nd->disagrees));
}

/* The fleet figures of a comparison, or null when it has no used node. */
static json_t *fleet_json(const struct effect *fx)
{
	double lo, hi, level;
	json_t *o;

	if (fx->nused == 0)
		return json_null();
	effect_deciding_interval(fx, fx->decision, &lo, &hi, &level);
	o = json_object();
	json_object_set_new(o, "decision", json_string(effect_decision_name(fx->fleet_decision)));
	json_object_set_new(o, "nodes_used", json_integer(fx->nused));
	json_object_set_new(o, "delta_pct", num_or_null(fx->delta_pct));
	json_object_set_new(o, "ci95_pct", pair_json(fx->ci95_low_pct, fx->ci95_high_pct));
	json_object_set_new(o, "ci90_pct", pair_json(fx->ci90_low_pct, fx->ci90_high_pct));
	json_object_set_new(o, "df", num_or_null(fx->df));
	json_object_set_new(o, "tau_pct", num_or_null(fx->tau_pct));
	json_object_set_new(o, "i2_pct", num_or_null(fx->i2_pct));
	json_object_set_new(o, "q", num_or_null(fx->q));
	json_object_set_new(o, "q_df", json_integer(fx->q_df));
	json_object_set_new(o, "q_p", num_or_null(fx->q_p));
	json_object_set_new(o, "alpha", num_or_null(fx->alpha));
	json_object_set_new(o, "decided_pct", pair_json(lo, hi));
	json_object_set_new(o, "decided_level_pct", num_or_null(level));
	return o;
}

/* The noise figures of a comparison, or null when it has no used node. */
static json_t *noise_json(const struct effect *fx)
{
	json_t *o;

	if (fx->nused == 0)
		return json_null();
	o = json_object();
	json_object_set_new(o, "cv_pct", num_or_null(fx->cv_pct));
	json_object_set_new(o, "loops", num_or_null(fx->loops));
	json_object_set_new(o, "mde_pct", num_or_null(fx->mde_pct));
	json_object_set_new(o, "loops_needed",
	                    fx->loops_needed > 0 ? json_integer(fx->loops_needed) : json_null());
	json_object_set_new(o, "noisy", json_boolean(fx->noisy));
	return o;
}

/* The nodes a heterogeneous decision names, with their own figures; fx's node j is plan node
 * map[j] (map NULL: j). */
static json_t *disagree_json(const struct plan *p, const struct effect *fx, const int *map)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < fx->ndisagree; i++) {
		const struct effect_node *nd = &fx->nodes[fx->disagree[i]];
		json_t *o = json_object();
		int k = map ? map[fx->disagree[i]] : fx->disagree[i];

		json_object_set_new(o, "node", json_string(p->nodes[k].name));
		json_object_set_new(o, "delta_pct", num_or_null(nd->delta_pct));
		json_object_set_new(o, "ci_low_pct", num_or_null(nd->ci_low_pct));
		json_object_set_new(o, "ci_high_pct", num_or_null(nd->ci_high_pct));
		json_object_set_new(o, "verdict", json_string(effect_decision_name(nd->decision)));
		json_object_set_new(o, "differs_p", num_or_null(nd->differs_p));
		json_array_append_new(a, o);
	}
	return a;
}

/* A pass as format 3 writes it: {"value", "round", "started_at"} (round and start null when
 * not recorded). */
static json_t *pass_json(double value, int round, double started_at)
{
	json_t *o = json_object();
	char iso[40];

	json_object_set_new(o, "value", json_real(value));
	json_object_set_new(o, "round", round > 0 ? json_integer(round) : json_null());
	if (started_at > 0) {
		/* Rounded to the millisecond (the sweep keeps them so): analyze reads back exactly
		 * the start the live sweep judged. */
		long long ms = llround(started_at * 1000.0);
		char sec[32];

		time_fmt_iso((double)(ms / 1000), sec, sizeof(sec));
		snprintf(iso, sizeof(iso), "%.19s.%03lldZ", sec, ms % 1000);
		json_object_set_new(o, "started_at", json_string(iso));
	} else {
		json_object_set_new(o, "started_at", json_null());
	}
	return o;
}

/* A suite pass's "workloads": [{"name", "metrics": {metric: value}}] of its series. */
static json_t *pass_workloads_json(const struct sweep *s, const struct node_result *r, int j)
{
	struct plan_series ser[PLAN_SERIES_MAX];
	int n = plan_series_build(&s->plan, ser), w, k;
	json_t *a = json_array();

	for (w = 0; w < s->plan.nworkloads; w++) {
		json_t *o = json_object(), *m = json_object();

		for (k = 0; k < n; k++)
			if (ser[k].workload == w)
				json_object_set_new(
				        m, ser[k].metric,
				        json_real(r->series[(size_t)j * (size_t)n + k]));
		json_object_set_new(o, "name", json_string(s->plan.workloads[w].name));
		json_object_set_new(o, "metrics", m);
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *node_json(const struct sweep *s, const struct point *p, int k)
{
	const struct node_result *r = &p->nodes[k];
	json_t *o = json_object(), *passes = json_array(), *applied = json_object();
	json_t *warm = json_array();
	int j;

	json_object_set_new(o, "node", json_string(s->plan.nodes[k].name));
	json_object_set_new(o, "state", json_string(sweep_node_state_code(r->state)));
	for (j = 0; j < r->npasses; j++) {
		json_t *ps = pass_json(r->passes[j], r->pass_round[j], r->pass_started_at[j]);

		if (s->plan.nworkloads && r->series && r->nseries > 0)
			json_object_set_new(ps, "workloads", pass_workloads_json(s, r, j));
		json_array_append_new(passes, ps);
	}
	json_object_set_new(o, "passes", passes);
	for (j = 0; j < r->nwarmup; j++)
		json_array_append_new(warm, pass_json(r->warmup[j].value, r->warmup[j].round,
		                                      r->warmup[j].started_at));
	json_object_set_new(o, "warmup", warm);
	json_object_set_new(o, "n", json_integer(r->sum.n));
	json_object_set_new(o, "mean", r->sum.n ? json_real(r->sum.mean) : json_null());
	json_object_set_new(o, "stdev", r->sum.n ? json_real(r->sum.stdev) : json_null());
	json_object_set_new(o, "min", r->sum.n ? json_real(r->sum.min) : json_null());
	json_object_set_new(o, "max", r->sum.n ? json_real(r->sum.max) : json_null());
	for (j = 0; r->applied && j < r->applied->n; j++) {
		json_t *a = json_object();
		const struct setting *got = &r->applied->s[j];
		const struct setting *req = config_get(sweep_node_cfg(p, k), got->name);

		if (req)
			json_object_set_new(a, "requested", setting_json_new(req));
		json_object_set_new(a, "value", setting_json_new(got));
		json_object_set_new(a, "adjusted", json_boolean(r->adjusted_mask & (1u << j)));
		json_object_set_new(applied, got->name, a);
	}
	json_object_set_new(o, "applied", applied);
	if (r->cfg) /* the node ran its cohort's own configuration */
		json_object_set_new(o, "params", config_json_new(r->cfg));
	json_object_set_new(o, "job_id", r->job_id ? json_integer(r->job_id) : json_null());
	json_object_set_new(o, "job_runtime_s",
	                    r->job_runtime_s > 0 ? json_real(r->job_runtime_s) : json_null());
	json_object_set_new(o, "delta_pct", num_or_null(r->delta_pct));
	json_object_set_new(o, "ci_low_pct", num_or_null(r->ci_low_pct));
	json_object_set_new(o, "ci_high_pct", num_or_null(r->ci_high_pct));
	json_object_set_new(o, "verdict",
	                    r->verdict == EFFECT_NA ? json_null()
	                                            : json_string(words_decision_code(r->verdict)));
	effect_node_json(sweep_node_effect(p, k), o);
	json_object_set_new(o, "error", r->error ? json_string(r->error) : json_null());
	if (r->mkfs)
		json_object_set_new(o, "mkfs", json_string(r->mkfs));
	return o;
}

/* A point's race (adaptive), or null: state, why, round, loops, vs and the interval. */
static json_t *race_json(const struct race_mark *m)
{
	json_t *o;

	if (m->state == RACE_NONE)
		return json_null();
	o = json_object();
	json_object_set_new(o, "state", json_string(sweep_race_state_code(m->state)));
	json_object_set_new(o, "why",
	                    m->why == RACE_WHY_NONE ? json_null()
	                                            : json_string(sweep_race_why_code(m->why)));
	json_object_set_new(o, "round", json_integer(m->round));
	json_object_set_new(o, "loops", json_integer(m->loops));
	json_object_set_new(o, "vs", m->vs >= 0 ? json_integer(m->vs) : json_null());
	json_object_set_new(o, "delta_pct", num_or_null(m->delta_pct));
	json_object_set_new(o, "low_pct", num_or_null(m->low_pct));
	json_object_set_new(o, "high_pct", num_or_null(m->high_pct));
	return o;
}

/* A row judged within each cohort: "cohorts" (each cohort's own figures, decision and words)
 * and "between" (the between-cohort test), [] and null when the sweep has one cohort. */
static void cohorts_point_json(const struct sweep *s, const struct point *p, json_t *o)
{
	json_t *arr = json_array(), *bt;
	int c;

	for (c = 0; p->cohort_fx && c < s->ncohorts; c++) {
		const struct effect *fx = &p->cohort_fx[c];
		json_t *co = json_object();
		struct buf b = BUF_INIT;

		words_cohort_decision(s, p, c, true, &b);
		json_object_set_new(co, "cohort", json_integer(c));
		json_object_set_new(co, "verdict",
		                    fx->decision == EFFECT_NA
		                            ? json_null()
		                            : json_string(words_decision_code(fx->decision)));
		json_object_set_new(co, "verdict_text", json_string(b.data ? b.data : ""));
		json_object_set_new(co, "fleet", fleet_json(fx));
		json_object_set_new(co, "disagree",
		                    disagree_json(&s->plan, fx, s->cohorts[c].nodes));
		json_array_append_new(arr, co);
		buf_release(&b);
	}
	json_object_set_new(o, "cohorts", arr);
	if (!p->cohort_fx) {
		json_object_set_new(o, "between", json_null());
		return;
	}
	bt = json_object();
	json_object_set_new(bt, "cohorts", json_integer(p->between.ncohorts));
	json_object_set_new(bt, "q",
	                    p->between.ncohorts >= 2 ? num_or_null(p->between.q) : json_null());
	json_object_set_new(bt, "df", json_integer(p->between.df));
	json_object_set_new(bt, "p", num_or_null(p->between.p));
	json_object_set_new(bt, "split", json_boolean(p->between.split));
	json_object_set_new(o, "between", bt);
}

static json_t *point_json(const struct sweep *s, const struct point *p)
{
	json_t *o = json_object(), *nodes = json_array(), *cells = json_object();
	char cols[PLAN_COLUMNS_MAX][PARAM_NAME_MAX];
	int nc = plan_columns(&s->plan, cols, PLAN_COLUMNS_MAX), k;

	json_object_set_new(o, "index", json_integer(p->index));
	json_object_set_new(o, "role", json_string(sweep_role_code(p->role)));
	json_object_set_new(o, "axis", p->axis >= 0 ? json_integer(p->axis) : json_null());
	json_object_set_new(o, "ref", p->ref >= 0 ? json_integer(p->ref) : json_null());
	json_object_set_new(o, "block", json_integer(p->block));
	json_object_set_new(o, "params", config_json_new(&p->cfg));
	json_object_set_new(o, "loops", json_integer(p->loops_run));
	for (k = 0; k < nc; k++) {
		struct buf b = BUF_INIT;

		words_param(s, p, cols[k], &b);
		json_object_set_new(cells, cols[k], json_string(b.data ? b.data : ""));
		buf_release(&b);
	}
	json_object_set_new(o, "display", cells);
	json_object_set_new(o, "race", race_json(&p->race));
	for (k = 0; k < s->plan.nnodes; k++)
		json_array_append_new(nodes, node_json(s, p, k));
	json_object_set_new(o, "nodes", nodes);
	json_object_set_new(o, "delta_pct", num_or_null(p->delta_pct));
	json_object_set_new(o, "ci_low_pct", num_or_null(p->ci_low_pct));
	json_object_set_new(o, "ci_high_pct", num_or_null(p->ci_high_pct));
	json_object_set_new(o, "spread_pct", num_or_null(p->spread_pct));
	json_object_set_new(o, "verdict",
	                    p->verdict == EFFECT_NA ? json_null()
	                                            : json_string(words_decision_code(p->verdict)));
	if (p->role == ROLE_BASELINE) {
		json_object_set_new(o, "verdict_text", json_null());
	} else {
		struct buf b = BUF_INIT;

		words_verdict(s, p, &b);
		json_object_set_new(o, "verdict_text", json_string(b.data ? b.data : ""));
		buf_release(&b);
	}
	json_object_set_new(o, "ref_loops",
	                    p->ref_loops > 0 ? json_integer(p->ref_loops) : json_null());
	json_object_set_new(o, "fleet", fleet_json(&p->fx));
	json_object_set_new(o, "noise", noise_json(&p->fx));
	json_object_set_new(o, "disagree", disagree_json(&s->plan, &p->fx, NULL));
	cohorts_point_json(s, p, o);
	if (p->ref >= 0 && p->fx.nused > 0) {
		json_t *st = json_object();

		json_object_set_new(st, "look", json_integer(sweep_point_look(s, p->index)));
		json_object_set_new(st, "looks", json_integer(sweep_nlooks(&s->plan)));
		json_object_set_new(st, "stop", json_boolean(p->fx.stop));
		json_object_set_new(o, "stopping", st);
	} else {
		json_object_set_new(o, "stopping", json_null());
	}
	return o;
}

/* The sweep's noise summary, with the line the table prints under it (text null when none). */
static json_t *sweep_noise_json(const struct sweep *s)
{
	const struct sweep_noise *ns = &s->noise;
	json_t *o = json_object();
	struct buf b = BUF_INIT;

	json_object_set_new(o, "rows", json_integer(ns->nrows));
	json_object_set_new(o, "noisy_rows", json_integer(ns->nnoisy));
	json_object_set_new(o, "cv_pct", ns->nnoisy ? num_or_null(ns->cv_pct) : json_null());
	json_object_set_new(o, "mde_pct", ns->nnoisy ? num_or_null(ns->mde_pct) : json_null());
	json_object_set_new(o, "loops_needed",
	                    ns->loops_needed > 0 ? json_integer(ns->loops_needed) : json_null());
	json_object_set_new(o, "unreachable_rows", json_integer(ns->nunreachable));
	json_object_set_new(o, "differ_rows", json_integer(ns->ndiffer));
	json_object_set_new(o, "tau_pct", ns->ndiffer ? num_or_null(ns->tau_pct) : json_null());
	if (ns->nnoisy)
		words_noise(s, &b);
	json_object_set_new(o, "text", b.len ? json_string(b.data) : json_null());
	buf_release(&b);
	return o;
}

/* How every node's figures moved, its warm-up, and the lines the table prints about them. */
static json_t *drift_json(const struct sweep *s)
{
	const struct sweep_drift *d = &s->drift;
	json_t *o = json_object(), *nodes = json_array();
	struct buf b = BUF_INIT;
	int k;

	json_object_set_new(o, "rounds", json_boolean(d->rounds));
	json_object_set_new(o, "timed", json_boolean(d->timed));
	json_object_set_new(o, "span_s", d->timed ? json_real(d->span_s) : json_null());
	for (k = 0; k < d->nnodes; k++) {
		const struct sweep_drift_node *dn = &d->nodes[k];
		json_t *n = json_object();

		json_object_set_new(n, "node", json_string(s->plan.nodes[k].name));
		json_object_set_new(n, "passes", json_integer(dn->npasses));
		json_object_set_new(n, "change_pct", num_or_null(dn->change_pct));
		json_object_set_new(n, "ci95_pct", pair_json(dn->low_pct, dn->high_pct));
		json_object_set_new(n, "p", num_or_null(dn->p));
		json_object_set_new(n, "significant", json_boolean(dn->significant));
		json_object_set_new(n, "warmup", json_boolean(dn->warmup));
		json_object_set_new(n, "warm_points", json_integer(dn->warm_points));
		json_object_set_new(n, "warm_of", json_integer(dn->warm_of));
		json_object_set_new(n, "warm_pct", num_or_null(dn->warm_pct));
		json_object_set_new(n, "warmup_passes", json_integer(dn->nwarmup));
		json_object_set_new(n, "warmup_pct", num_or_null(dn->warmup_pct));
		json_array_append_new(nodes, n);
	}
	json_object_set_new(o, "nodes", nodes);
	if (d->nsignificant > 0)
		words_drift(s, &b);
	json_object_set_new(o, "text", b.len ? json_string(b.data) : json_null());
	buf_reset(&b);
	if (words_warmup_due(s))
		words_warmup(s, &b);
	json_object_set_new(o, "warmup_text", b.len ? json_string(b.data) : json_null());
	buf_reset(&b);
	if (words_rounds_due(s))
		words_rounds(s, &b);
	json_object_set_new(o, "rounds_text", b.len ? json_string(b.data) : json_null());
	buf_release(&b);
	return o;
}

/* What a node is, the fields its agent reported: rotational as a boolean, sizes as integers,
 * the rest as strings. */
static json_t *identity_json(const struct node_identity *id)
{
	json_t *o = json_object();
	long long v;
	int f;

	for (f = 0; f < IDF_N; f++) {
		const char *t = id->field[f];
		char *end;

		if (!t)
			continue;
		v = strtoll(t, &end, 10);
		if (f == IDF_ROTATIONAL && (!strcmp(t, "true") || !strcmp(t, "false")))
			json_object_set_new(o, identity_field_names[f], json_boolean(*t == 't'));
		else if ((f == IDF_LOGICAL_BLOCK_BYTES || f == IDF_PHYSICAL_BLOCK_BYTES ||
		          f == IDF_SIZE_BYTES) &&
		         *t && !*end)
			json_object_set_new(o, identity_field_names[f], json_integer(v));
		else
			json_object_set_new(o, identity_field_names[f], json_string(t));
	}
	return o;
}

/* One step of a decision: a row behind its suggestion. */
static json_t *step_json(const struct sweep *s, const struct decision_step *st)
{
	json_t *o = json_object();

	json_object_set_new(o, "point", json_integer(st->point));
	json_object_set_new(o, "axis", st->axis >= 0 ? json_integer(st->axis) : json_null());
	json_object_set_new(o, "params", config_json_new(&s->points[st->point].cfg));
	json_object_set_new(o, "verdict",
	                    st->verdict == EFFECT_NA
	                            ? json_null()
	                            : json_string(words_decision_code(st->verdict)));
	json_object_set_new(o, "delta_pct", num_or_null(st->delta_pct));
	json_object_set_new(o, "low_pct", num_or_null(st->low_pct));
	json_object_set_new(o, "high_pct", num_or_null(st->high_pct));
	json_object_set_new(o, "level_pct", num_or_null(st->level_pct));
	return o;
}

/* A decision (model/decision.h) as the document carries it, with its summary line. */
static json_t *decision_json(const struct sweep *s, const struct decision *d)
{
	json_t *o = json_object(), *steps = json_array();
	struct buf b = BUF_INIT;
	int i;

	json_object_set_new(o, "state", json_string(decision_state_code(d->state)));
	json_object_set_new(o, "basis", json_string(decision_basis_code(d->basis)));
	json_object_set_new(o, "why", json_string(decision_why_code(d->why)));
	json_object_set_new(o, "params",
	                    d->state == DECISION_NONE ? json_null() : config_json_new(&d->cfg));
	json_object_set_new(o, "point", d->point >= 0 ? json_integer(d->point) : json_null());
	json_object_set_new(o, "ref", d->ref >= 0 ? json_integer(d->ref) : json_null());
	json_object_set_new(o, "verdict",
	                    d->verdict == EFFECT_NA ? json_null()
	                                            : json_string(words_decision_code(d->verdict)));
	json_object_set_new(o, "delta_pct", num_or_null(d->delta_pct));
	json_object_set_new(o, "low_pct", num_or_null(d->low_pct));
	json_object_set_new(o, "high_pct", num_or_null(d->high_pct));
	json_object_set_new(o, "level_pct", num_or_null(d->level_pct));
	json_object_set_new(o, "nodes_used", json_integer(d->nused));
	json_object_set_new(o, "nodes_gain", json_integer(d->ngain));
	for (i = 0; i < d->nsteps; i++)
		json_array_append_new(steps, step_json(s, &d->steps[i]));
	json_object_set_new(o, "steps", steps);
	words_decision_summary(d, s->status, &b);
	json_object_set_new(o, "summary", json_string(b.data ? b.data : ""));
	buf_release(&b);
	return o;
}

/* The cohorts: what the nodes were grouped by, each cohort's values, nodes and decision. */
static void cohorts_json(const struct sweep *s, json_t *o)
{
	json_t *by = json_array(), *arr = json_array();
	int c, j;

	for (j = 0; j < s->plan.ncohort_by; j++)
		json_array_append_new(by, json_string(s->plan.cohort_by[j]));
	json_object_set_new(o, "cohort_by", by);
	for (c = 0; c < s->ncohorts; c++) {
		const struct sweep_cohort *co = &s->cohorts[c];
		json_t *x = json_object(), *vals = json_object(), *nodes = json_array(), *best;
		const struct decision *d;
		struct buf b = BUF_INIT;

		sweep_cohort_key(s, c, &b);
		json_object_set_new(x, "key", json_string(b.data ? b.data : ""));
		buf_release(&b);
		for (j = 0; j < co->nvalues; j++)
			json_object_set_new(vals, s->plan.cohort_by[j],
			                    co->values[j] ? json_string(co->values[j])
			                                  : json_null());
		json_object_set_new(x, "values", vals);
		for (j = 0; j < co->nnodes; j++)
			json_array_append_new(nodes, json_string(s->plan.nodes[co->nodes[j]].name));
		json_object_set_new(x, "nodes", nodes);
		d = sweep_decision(s, c);
		if (d->state == DECISION_CONFIRMED) {
			best = json_object();
			json_object_set_new(best, "point", json_integer(d->point));
			json_object_set_new(best, "params", config_json_new(&d->cfg));
			json_object_set_new(best, "delta_pct", num_or_null(d->delta_pct));
			json_object_set_new(best, "own", json_boolean(s->ncohorts >= 2 && co->own));
		} else {
			best = json_null();
		}
		json_object_set_new(x, "decision", decision_json(s, d));
		json_object_set_new(x, "best", best);
		json_array_append_new(arr, x);
	}
	json_object_set_new(o, "cohorts", arr);
}

static json_t *cell_json(const struct suite_cell *c)
{
	json_t *o = json_object();

	json_object_set_new(o, "delta_pct", num_or_null(c->present ? c->delta_pct : NAN));
	json_object_set_new(o, "ci_low_pct", num_or_null(c->present ? c->low_pct : NAN));
	json_object_set_new(o, "ci_high_pct", num_or_null(c->present ? c->high_pct : NAN));
	json_object_set_new(o, "p", num_or_null(c->present ? c->p : NAN));
	json_object_set_new(o, "p_holm", num_or_null(c->present ? c->p_holm : NAN));
	json_object_set_new(o, "verdict_raw", json_string(effect_decision_name(c->raw)));
	json_object_set_new(o, "verdict", json_string(effect_decision_name(c->verdict)));
	return o;
}

/* The matrix of rows ([s->npoints], the fleet's or a cohort's): a row per compared
 * configuration, its cells, mean, guardrails' checks and verdict under the rule. */
static json_t *matrix_json(const struct sweep *s, const struct suite_row *rows)
{
	const struct plan *p = &s->plan;
	json_t *arr = json_array();
	struct buf b = BUF_INIT;
	int i, w, c;

	for (i = 0; i < s->npoints; i++) {
		const struct suite_row *r = &rows[i];
		json_t *x, *cells, *checks;

		if (s->points[i].ref < 0)
			continue;
		x = json_object();
		cells = json_array();
		checks = json_array();
		buf_reset(&b);
		config_format(&s->points[i].cfg, &b);
		json_object_set_new(x, "point", json_integer(i));
		json_object_set_new(x, "configuration", json_string(b.data ? b.data : ""));
		json_object_set_new(x, "params", config_json_new(&s->points[i].cfg));
		for (w = 0; w < p->nworkloads; w++) {
			json_t *cj = cell_json(&r->cells[w]);

			json_object_set_new(cj, "workload", json_string(p->workloads[w].name));
			json_array_append_new(cells, cj);
		}
		json_object_set_new(x, "cells", cells);
		json_object_set_new(x, "mean", cell_json(&r->mean));
		for (c = 0; c < r->nchecks; c++) {
			const struct suite_check *k = &r->checks[c];
			json_t *cj = json_object();

			json_object_set_new(cj, "guardrail", json_integer(k->guardrail));
			json_object_set_new(cj, "workload",
			                    json_string(p->workloads[k->workload].name));
			json_object_set_new(cj, "loss_pct", num_or_null(k->loss_pct));
			json_object_set_new(cj, "bound_pct", num_or_null(k->bound_pct));
			json_object_set_new(cj, "breached", json_boolean(k->breached));
			json_object_set_new(cj, "over_pct",
			                    num_or_null(k->breached ? k->over_pct : NAN));
			json_array_append_new(checks, cj);
		}
		json_object_set_new(x, "guardrails", checks);
		json_object_set_new(x, "breaches", json_integer(r->nbreaches));
		json_object_set_new(x, "verdict", json_string(suite_verdict_code(r->verdict)));
		json_object_set_new(x, "score_pct", num_or_null(r->score_pct));
		json_object_set_new(x, "score_low_pct", num_or_null(r->score_low_pct));
		json_object_set_new(x, "score_high_pct", num_or_null(r->score_high_pct));
		json_array_append_new(arr, x);
	}
	buf_release(&b);
	return arr;
}

/* "suite": the workloads, the rule, each workload's own decision, the matrix (every cell and
 * guardrail check), each cohort's matrix and decision (two cohorts or more) and the rule's
 * decision (the document's "decision" too). */
static json_t *suite_json(const struct sweep *s)
{
	const struct suite *su = s->suite;
	const struct plan *p = &s->plan;
	json_t *o = json_object(), *wl = json_array(), *gr = json_array(), *co = json_array();
	struct buf b = BUF_INIT;
	int w, c;

	json_object_set_new(o, "preset", p->suite[0] ? json_string(p->suite) : json_null());
	json_object_set_new(o, "rule", json_string(plan_rule_name(su->rule)));
	json_object_set_new(o, "rule_words", json_string(words_rule(su->rule)));
	json_object_set_new(o, "primary",
	                    su->rule == PLAN_RULE_PRIMARY
	                            ? json_string(p->workloads[p->primary].name)
	                            : json_null());
	json_object_set_new(o, "correction",
	                    json_string(su->rule == PLAN_RULE_NO_LOSS ? "holm" : "none"));
	for (w = 0; w < p->nworkloads; w++) {
		json_t *x = json_object();

		json_object_set_new(x, "name", json_string(p->workloads[w].name));
		json_object_set_new(x, "metric", json_string(p->workloads[w].metric));
		json_object_set_new(
		        x, "goal", json_string(p->workloads[w].minimize ? "minimize" : "maximize"));
		json_object_set_new(x, "weight", json_real(p->workloads[w].weight));
		json_object_set_new(x, "fio", json_loads(p->workloads[w].fio_json, 0, NULL));
		json_object_set_new(x, "decision", decision_json(&su->wl[w], &su->wl[w].decision));
		json_array_append_new(wl, x);
	}
	json_object_set_new(o, "workloads", wl);
	for (c = 0; c < p->nguardrails; c++) {
		json_t *x = json_object();

		json_object_set_new(x, "metric", json_string(p->guardrails[c].metric));
		json_object_set_new(x, "workload", json_string(p->guardrails[c].workload));
		json_object_set_new(x, "max_loss_pct", json_real(p->guardrails[c].max_loss_pct));
		json_array_append_new(gr, x);
	}
	json_object_set_new(o, "guardrails", gr);
	json_object_set_new(o, "matrix", matrix_json(s, su->rows));
	for (c = 0; su->cohort_rows && c < su->ncohorts; c++) {
		json_t *x = json_object();

		json_object_set_new(x, "cohort", json_integer(c));
		json_object_set_new(x, "matrix", matrix_json(s, su->cohort_rows[c]));
		json_object_set_new(x, "decision", decision_json(s, &s->cohorts[c].decision));
		buf_reset(&b);
		words_suite_decision(s, &s->cohorts[c].decision, &b);
		if (b.len && b.data[b.len - 1] == '\n')
			b.data[--b.len] = '\0';
		json_object_set_new(x, "words", json_string(b.data ? b.data : ""));
		json_array_append_new(co, x);
	}
	buf_release(&b);
	json_object_set_new(o, "cohorts", co);
	json_object_set_new(o, "cohorts_differ",
	                    json_boolean(su->ncohorts >= 2 && sweep_cohort_decisions_differ(s)));
	json_object_set_new(o, "decision", decision_json(s, &su->decision));
	return o;
}

char *sweepdoc_write(const struct sweep *s)
{
	json_t *o = json_object(), *nodes = json_array(), *points = json_array(),
	       *cols = json_array();
	json_t *warn = json_array(), *axes = json_array(), *plan, *best;
	char names[PLAN_COLUMNS_MAX][PARAM_NAME_MAX];
	struct buf b = BUF_INIT;
	int i, j, nc = plan_columns(&s->plan, names, PLAN_COLUMNS_MAX);
	char *text, seed[24];

	json_object_set_new(o, "format", json_string("fleettune-sweep"));
	json_object_set_new(o, "format_version", json_integer(SWEEPDOC_FORMAT_VERSION));
	json_object_set_new(o, "id", json_integer(s->id));
	json_object_set_new(o, "name", json_string(s->plan.name));
	json_object_set_new(o, "status", json_string(s->status));
	json_object_set_new(o, "created_at", time_json(s->created_at));
	json_object_set_new(o, "finished_at", time_json(s->finished_at));
	json_object_set_new(o, "strategy", json_string(plan_strategy_name(s->plan.strategy)));
	json_object_set_new(o, "metric", json_string(s->plan.metric));
	json_object_set_new(o, "unit", json_string(plan_metric_unit(s->plan.metric)));
	json_object_set_new(o, "goal", json_string(s->plan.minimize ? "minimize" : "maximize"));
	json_object_set_new(o, "min_effect_pct", json_real(s->plan.min_effect_pct));
	json_object_set_new(o, "engine", json_string(s->plan.engine));
	json_object_set_new(o, "loops", json_integer(s->plan.loops));
	json_object_set_new(o, "loops_max", json_integer(s->plan.loops_max));
	json_object_set_new(o, "runtime_s",
	                    s->plan.runtime_s > 0 ? json_real(s->plan.runtime_s) : json_null());
	json_object_set_new(o, "warmup_loops", json_integer(s->plan.warmup_loops));
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)s->order_seed);
	json_object_set_new(o, "order_seed", json_string(seed));
	json_object_set_new(o, "rounds", json_integer(s->nrounds));
	for (i = 0; i < s->plan.nnodes; i++) {
		json_t *n = json_object();

		json_object_set_new(n, "name", json_string(s->plan.nodes[i].name));
		json_object_set_new(n, "url", json_string(s->plan.nodes[i].url));
		json_object_set_new(n, "device", json_string(s->plan.nodes[i].device));
		json_object_set_new(n, "dropped", json_boolean(s->node_dropped[i]));
		json_object_set_new(n, "identity", identity_json(&s->identity[i]));
		json_object_set_new(n, "cohort",
		                    s->cohort_of ? json_integer(s->cohort_of[i]) : json_null());
		json_array_append_new(nodes, n);
	}
	json_object_set_new(o, "nodes", nodes);
	for (i = 0; i < nc; i++)
		json_array_append_new(cols, json_string(names[i]));
	json_object_set_new(o, "columns", cols);
	json_object_set_new(o, "baseline", config_json_new(&s->plan.baseline));
	for (i = 0; i < s->plan.naxes; i++) {
		json_t *a = json_object(), *ps = json_array(), *vs = json_array();

		for (j = 0; j < s->plan.axes[i].nparams; j++)
			json_array_append_new(ps, json_string(s->plan.axes[i].params[j]));
		for (j = 0; j < s->plan.axes[i].nvalues; j++)
			json_array_append_new(vs, config_json_new(&s->plan.axes[i].values[j]));
		json_object_set_new(a, "params", ps);
		json_object_set_new(a, "values", vs);
		json_array_append_new(axes, a);
	}
	json_object_set_new(o, "axes", axes);
	for (i = 0; i < s->npoints; i++)
		json_array_append_new(points, point_json(s, &s->points[i]));
	json_object_set_new(o, "points", points);
	if (s->decision.state == DECISION_CONFIRMED) {
		best = json_object();
		json_object_set_new(best, "point", json_integer(s->decision.point));
		json_object_set_new(best, "params", config_json_new(&s->decision.cfg));
		json_object_set_new(best, "delta_pct", num_or_null(s->decision.delta_pct));
		json_object_set_new(best, "verdict",
		                    json_string(words_decision_code(s->decision.verdict)));
	} else {
		best = json_null();
	}
	json_object_set_new(o, "decision", decision_json(s, &s->decision));
	json_object_set_new(o, "suite", s->suite ? suite_json(s) : json_null());
	json_object_set_new(o, "best", best);
	cohorts_json(s, o);
	json_object_set_new(o, "outcome", json_string(sweep_outcome_code(s->outcome)));
	words_best_line(s, &b);
	if (b.len && b.data[b.len - 1] == '\n')
		b.data[--b.len] = '\0';
	json_object_set_new(o, "best_line", json_string(b.data));
	buf_release(&b);
	for (i = 0; i < s->nwarnings; i++) {
		buf_reset(&b);
		words_warning(s, &s->warnings[i], &b);
		json_array_append_new(warn, json_string(b.data));
	}
	buf_release(&b);
	json_object_set_new(o, "warnings", warn);
	json_object_set_new(o, "noise", sweep_noise_json(s));
	json_object_set_new(o, "drift", drift_json(s));
	plan = s->plan.json ? json_loads(s->plan.json, 0, NULL) : NULL;
	json_object_set_new(o, "plan", plan ? plan : json_null());
	/* Full precision (17 digits): analyze re-judges the passes exactly as show judged them. */
	text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(o);
	return text;
}
