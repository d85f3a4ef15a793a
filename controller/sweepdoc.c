/* sweepdoc.c -- the sweep document (schema/sweep.schema.json): written from the sweep model
 * with every figure and its words, and read back (the data only, every error naming its JSON
 * path). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sweepdoc.h"
#include "timeutil.h"
#include "words.h"
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
	json_t *o;

	if (fx->nused == 0)
		return json_null();
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

static json_t *node_json(const struct sweep *s, const struct point *p, int k)
{
	const struct node_result *r = &p->nodes[k];
	json_t *o = json_object(), *passes = json_array(), *applied = json_object();
	int j;

	json_object_set_new(o, "node", json_string(s->plan.nodes[k].name));
	json_object_set_new(o, "state", json_string(sweep_node_state_code(r->state)));
	for (j = 0; j < r->npasses; j++)
		json_array_append_new(passes, json_real(r->passes[j]));
	json_object_set_new(o, "passes", passes);
	json_object_set_new(o, "n", json_integer(r->sum.n));
	json_object_set_new(o, "mean", r->sum.n ? json_real(r->sum.mean) : json_null());
	json_object_set_new(o, "stdev", r->sum.n ? json_real(r->sum.stdev) : json_null());
	json_object_set_new(o, "min", r->sum.n ? json_real(r->sum.min) : json_null());
	json_object_set_new(o, "max", r->sum.n ? json_real(r->sum.max) : json_null());
	for (j = 0; j < r->applied.n; j++) {
		json_t *a = json_object();
		const struct setting *req = config_get(sweep_node_cfg(p, k), r->applied.s[j].name);

		if (req)
			json_object_set_new(a, "requested", setting_json_new(req));
		json_object_set_new(a, "value", setting_json_new(&r->applied.s[j]));
		json_object_set_new(a, "adjusted", json_boolean(r->adjusted_mask & (1u << j)));
		json_object_set_new(applied, r->applied.s[j].name, a);
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
	json_object_set_new(o, "error", r->error[0] ? json_string(r->error) : json_null());
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

/* The cohorts: what the nodes were grouped by, each cohort's values, nodes and best. */
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
		if (co->best >= 0 && s->ncohorts >= 2) {
			best = json_object();
			json_object_set_new(best, "point", json_integer(co->best));
			json_object_set_new(best, "params",
			                    config_json_new(sweep_cohort_best_cfg(s, c)));
			json_object_set_new(best, "delta_pct", num_or_null(co->best_delta_pct));
			json_object_set_new(best, "own", json_boolean(co->best_own));
		} else if (s->ncohorts >= 2 || s->best < 0) {
			best = json_null();
		} else { /* one cohort: the sweep's best */
			best = json_object();
			json_object_set_new(best, "point", json_integer(s->best));
			json_object_set_new(best, "params",
			                    config_json_new(&s->points[s->best].cfg));
			json_object_set_new(best, "delta_pct",
			                    num_or_null(s->points[s->best].delta_pct));
			json_object_set_new(best, "own", json_false());
		}
		json_object_set_new(x, "best", best);
		json_array_append_new(arr, x);
	}
	json_object_set_new(o, "cohorts", arr);
}

char *sweepdoc_write(const struct sweep *s)
{
	json_t *o = json_object(), *nodes = json_array(), *points = json_array(),
	       *cols = json_array();
	json_t *warn = json_array(), *axes = json_array(), *plan, *best;
	char names[PLAN_COLUMNS_MAX][PARAM_NAME_MAX];
	struct buf b = BUF_INIT;
	int i, j, nc = plan_columns(&s->plan, names, PLAN_COLUMNS_MAX);
	char *text;

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
	if (s->best >= 0) {
		best = json_object();
		json_object_set_new(best, "point", json_integer(s->best));
		json_object_set_new(best, "params", config_json_new(&s->points[s->best].cfg));
		json_object_set_new(best, "delta_pct", num_or_null(s->points[s->best].delta_pct));
		json_object_set_new(best, "verdict",
		                    json_string(words_decision_code(s->points[s->best].verdict)));
	} else {
		best = json_null();
	}
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
	plan = s->plan.json ? json_loads(s->plan.json, 0, NULL) : NULL;
	json_object_set_new(o, "plan", plan ? plan : json_null());
	/* Full precision (17 digits): analyze re-judges the passes exactly as show judged them. */
	text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(o);
	return text;
}

/* Reading: the data only, for analyze. */

#define PATH_MAX_LEN 200

/* Report "PATH: message" as an invalid_sweep error. */
#define fail(e, path, ...) err_set_at((e), -EINVAL, "invalid_sweep", (path), __VA_ARGS__)

/* An integer member in [lo, hi]; null or missing gives dflt when allow_null. */
static int int_get(json_t *obj, const char *key, const char *path, long long lo, long long hi,
                   bool allow_null, long long dflt, long long *out, struct err *e)
{
	json_t *v = json_object_get(obj, key);
	char p[PATH_MAX_LEN];

	snprintf(p, sizeof(p), "%s%s%s", path, *path ? "." : "", key);
	if (!v || json_is_null(v)) {
		if (!allow_null)
			return fail(e, p, v ? "expected an integer" : "required field is missing");
		*out = dflt;
		return 0;
	}
	if (!json_is_integer(v))
		return fail(e, p, "expected an integer%s", allow_null ? " or null" : "");
	if (json_integer_value(v) < lo || json_integer_value(v) > hi)
		return fail(e, p, "%lld is not between %lld and %lld",
		            (long long)json_integer_value(v), lo, hi);
	*out = json_integer_value(v);
	return 0;
}

/* A string member; NULL when null or missing and allowed. */
static int str_get(json_t *obj, const char *key, const char *path, bool required, const char **out,
                   struct err *e)
{
	json_t *v = json_object_get(obj, key);
	char p[PATH_MAX_LEN];

	snprintf(p, sizeof(p), "%s%s%s", path, *path ? "." : "", key);
	*out = NULL;
	if (!v || json_is_null(v)) {
		if (required)
			return fail(e, p, v ? "expected a string" : "required field is missing");
		return 0;
	}
	if (!json_is_string(v))
		return fail(e, p, "expected a string%s", required ? "" : " or null");
	*out = json_string_value(v);
	return 0;
}

/* An epoch time from an ISO-8601 string member; 0 when null or missing. */
static int time_get(json_t *obj, const char *key, double *out, struct err *e)
{
	const char *t;
	int rc = str_get(obj, key, "", false, &t, e);

	*out = 0;
	if (rc < 0 || !t)
		return rc;
	if (time_parse_iso(t, out) < 0)
		return fail(e, key, "'%.40s' is not an ISO-8601 UTC time", t);
	return 0;
}

/* One parameter value (an integer or a string) of name into c. */
static int value_take(json_t *v, const char *name, const char *path, struct config *c,
                      struct err *e)
{
	char text[PARAM_VALUE_MAX];

	if (json_is_integer(v))
		snprintf(text, sizeof(text), "%lld", (long long)json_integer_value(v));
	else if (json_is_string(v) && strlen(json_string_value(v)) < sizeof(text))
		snprintf(text, sizeof(text), "%s", json_string_value(v));
	else
		return fail(e, path, "expected an integer or a string shorter than %d bytes",
		            PARAM_VALUE_MAX);
	if (config_set(c, name, text, json_is_integer(v)) < 0)
		return fail(e, path, "too long a name, or more than %d parameters", CONFIG_MAX);
	return 0;
}

/* "params": {name: value}. */
static int params_parse(json_t *obj, const char *path, struct config *c, struct err *e)
{
	char p[PATH_MAX_LEN];
	const char *k;
	json_t *v;
	int rc;

	memset(c, 0, sizeof(*c));
	if (!json_is_object(obj))
		return fail(e, path, obj ? "expected an object" : "required field is missing");
	json_object_foreach(obj, k, v)
	{
		snprintf(p, sizeof(p), "%s.%s", path, k);
		if ((rc = value_take(v, k, p, c, e)) < 0)
			return rc;
	}
	return 0;
}

/* "applied": {name: {"value": v, "adjusted": bool, "requested": v}}: the read-back. */
static int applied_parse(json_t *obj, const char *path, struct node_result *r, struct err *e)
{
	char p[PATH_MAX_LEN];
	const char *k;
	json_t *v, *adj;
	int rc;

	if (!obj || json_is_null(obj))
		return 0;
	if (!json_is_object(obj))
		return fail(e, path, "expected an object");
	json_object_foreach(obj, k, v)
	{
		snprintf(p, sizeof(p), "%s.%s", path, k);
		if (!json_is_object(v))
			return fail(e, p, "expected an object");
		adj = json_object_get(v, "adjusted");
		if (adj && !json_is_boolean(adj)) {
			snprintf(p, sizeof(p), "%s.%s.adjusted", path, k);
			return fail(e, p, "expected true or false");
		}
		snprintf(p, sizeof(p), "%s.%s.value", path, k);
		if ((rc = value_take(json_object_get(v, "value"), k, p, &r->applied, e)) < 0)
			return rc;
		if (json_is_true(adj))
			r->adjusted_mask |= 1u << (r->applied.n - 1);
	}
	return 0;
}

/* "passes": the metric per loop. */
static int passes_parse(json_t *arr, const char *path, struct node_result *r, struct err *e)
{
	char p[PATH_MAX_LEN];
	size_t i;
	json_t *v;

	if (!json_is_array(arr))
		return fail(e, path, arr ? "expected an array" : "required field is missing");
	if (json_array_size(arr) > SWEEPDOC_PASSES_MAX)
		return fail(e, path, "more than %d passes", SWEEPDOC_PASSES_MAX);
	json_array_foreach(arr, i, v)
	{
		snprintf(p, sizeof(p), "%s[%zu]", path, i);
		if (!json_is_number(v))
			return fail(e, p, "expected a number");
		/* A mean and spread of such values overflow to inf: no engine measures them. */
		if (!isfinite(json_number_value(v)) ||
		    fabs(json_number_value(v)) > SWEEPDOC_PASS_ABS_MAX)
			return fail(e, p, "%g is not a measurement (at most %g in magnitude)",
			            json_number_value(v), SWEEPDOC_PASS_ABS_MAX);
		node_result_pass_add(r, json_number_value(v));
	}
	return 0;
}

/* points[i].nodes[k]: plan node k's result. */
static int node_parse(const struct sweep *s, json_t *o, const char *path, int k,
                      struct node_result *r, struct err *e)
{
	const char *name, *state, *error;
	char p[PATH_MAX_LEN];
	long long job;
	json_t *rt;
	int rc, st;

	if (!json_is_object(o))
		return fail(e, path, "expected an object");
	if ((rc = str_get(o, "node", path, true, &name, e)) < 0 ||
	    (rc = str_get(o, "state", path, true, &state, e)) < 0 ||
	    (rc = str_get(o, "error", path, false, &error, e)) < 0)
		return rc;
	if (strcmp(name, s->plan.nodes[k].name)) {
		snprintf(p, sizeof(p), "%s.node", path);
		return fail(e, p, "'%.60s', expected '%s' (nodes in plan order)", name,
		            s->plan.nodes[k].name);
	}
	if ((st = sweep_node_state_parse(state)) < 0) {
		snprintf(p, sizeof(p), "%s.state", path);
		return fail(e, p, "'%.40s' is not pending, ok, failed, cancelled or dropped",
		            state);
	}
	r->state = (enum node_state)st;
	snprintf(p, sizeof(p), "%s.passes", path);
	if ((rc = passes_parse(json_object_get(o, "passes"), p, r, e)) < 0)
		return rc;
	snprintf(p, sizeof(p), "%s.applied", path);
	if ((rc = applied_parse(json_object_get(o, "applied"), p, r, e)) < 0)
		return rc;
	if ((rc = int_get(o, "job_id", path, 0, INT64_MAX, true, 0, &job, e)) < 0)
		return rc;
	r->job_id = job;
	rt = json_object_get(o, "job_runtime_s");
	if (rt && !json_is_null(rt) && !json_is_number(rt)) {
		snprintf(p, sizeof(p), "%s.job_runtime_s", path);
		return fail(e, p, "expected a number or null");
	}
	r->job_runtime_s = rt && json_is_number(rt) ? json_number_value(rt) : 0;
	snprintf(r->error, sizeof(r->error), "%s", error ? error : "");
	if (json_object_get(o, "params")) { /* a configuration of its own (a cohort's) */
		struct config own;

		snprintf(p, sizeof(p), "%s.params", path);
		if ((rc = params_parse(json_object_get(o, "params"), p, &own, e)) < 0)
			return rc;
		r->cfg = xmalloc(sizeof(*r->cfg));
		*r->cfg = own;
	}
	return 0;
}

/* points[i]: appended to s as point i. */
static int point_parse(struct sweep *s, json_t *o, int i, struct err *e)
{
	char path[PATH_MAX_LEN], p[PATH_MAX_LEN];
	const char *role;
	long long index, axis, ref, loops, ref_loops;
	struct config cfg;
	struct point *pt;
	json_t *nodes, *n;
	size_t k;
	int rc, r;

	snprintf(path, sizeof(path), "points[%d]", i);
	if (!json_is_object(o))
		return fail(e, path, "expected an object");
	if ((rc = int_get(o, "index", path, 0, INT32_MAX, true, i, &index, e)) < 0 ||
	    (rc = str_get(o, "role", path, true, &role, e)) < 0 ||
	    (rc = int_get(o, "axis", path, 0, s->plan.naxes - 1, true, -1, &axis, e)) < 0 ||
	    (rc = int_get(o, "ref", path, 0, INT32_MAX, true, -1, &ref, e)) < 0 ||
	    (rc = int_get(o, "loops", path, 0, INT32_MAX, true, -1, &loops, e)) < 0 ||
	    (rc = int_get(o, "ref_loops", path, 0, INT32_MAX, true, 0, &ref_loops, e)) < 0)
		return rc;
	if (index != i) {
		snprintf(p, sizeof(p), "%s.index", path);
		return fail(e, p, "%lld, expected %d (points are in run order)", index, i);
	}
	if (ref >= i) {
		snprintf(p, sizeof(p), "%s.ref", path);
		return fail(e, p, "%lld is not an earlier point", ref);
	}
	if ((r = sweep_role_parse(role)) < 0) {
		snprintf(p, sizeof(p), "%s.role", path);
		return fail(e, p, "'%.40s' is not baseline, candidate or final", role);
	}
	snprintf(p, sizeof(p), "%s.params", path);
	if ((rc = params_parse(json_object_get(o, "params"), p, &cfg, e)) < 0)
		return rc;
	nodes = json_object_get(o, "nodes");
	snprintf(p, sizeof(p), "%s.nodes", path);
	if (!json_is_array(nodes))
		return fail(e, p, nodes ? "expected an array" : "required field is missing");
	if ((int)json_array_size(nodes) != s->plan.nnodes)
		return fail(e, p, "%zu results, expected one per plan node (%d)",
		            json_array_size(nodes), s->plan.nnodes);
	sweep_point_add(s, (enum point_role)r, (int)axis, (int)ref, &cfg);
	pt = &s->points[i];
	pt->ref_loops = (int)ref_loops;
	json_array_foreach(nodes, k, n)
	{
		snprintf(p, sizeof(p), "%s.nodes[%zu]", path, k);
		if ((rc = node_parse(s, n, p, (int)k, &pt->nodes[k], e)) < 0)
			return rc;
	}
	/* Documents without "loops": the plan's, once the point ran. */
	pt->loops_run = (int)loops;
	for (k = 0; loops < 0 && k < (size_t)s->plan.nnodes; k++)
		if (pt->nodes[k].state != NODE_PENDING && pt->nodes[k].state != NODE_DROPPED)
			pt->loops_run = s->plan.loops;
	if (pt->loops_run < 0)
		pt->loops_run = 0;
	return 0;
}

/* A node's "identity" (optional: documents before it have none) into s->identity[k]: the
 * fields of common/protocol.h as strings, booleans or integers; other keys are ignored. */
static int identity_take(struct sweep *s, int k, json_t *o, const char *path, struct err *e)
{
	char p[PATH_MAX_LEN], num[32];
	int f;

	if (!o || json_is_null(o))
		return 0;
	if (!json_is_object(o))
		return fail(e, path, "expected an object");
	for (f = 0; f < IDF_N; f++) {
		json_t *v = json_object_get(o, identity_field_names[f]);
		const char *t;

		if (!v)
			continue;
		if (json_is_string(v)) {
			t = json_string_value(v);
		} else if (json_is_boolean(v)) {
			t = json_is_true(v) ? "true" : "false";
		} else if (json_is_integer(v)) {
			snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
			t = num;
		} else {
			snprintf(p, sizeof(p), "%s.%s", path, identity_field_names[f]);
			return fail(e, p, "expected a string, a boolean or an integer");
		}
		sweep_identity_set(s, k, f, t);
	}
	return 0;
}

/* "nodes": [{name, dropped, identity}], one per plan node. */
static int dropped_parse(struct sweep *s, json_t *arr, struct err *e)
{
	char p[PATH_MAX_LEN];
	const char *name;
	json_t *n, *d;
	size_t i;
	int k, rc;

	if (!json_is_array(arr))
		return fail(e, "nodes", arr ? "expected an array" : "required field is missing");
	if ((int)json_array_size(arr) != s->plan.nnodes)
		return fail(e, "nodes", "%zu nodes, but the plan has %d", json_array_size(arr),
		            s->plan.nnodes);
	json_array_foreach(arr, i, n)
	{
		snprintf(p, sizeof(p), "nodes[%zu]", i);
		if (!json_is_object(n))
			return fail(e, p, "expected an object");
		if ((rc = str_get(n, "name", p, true, &name, e)) < 0)
			return rc;
		if ((k = plan_node_find(&s->plan, name)) < 0) {
			snprintf(p, sizeof(p), "nodes[%zu].name", i);
			return fail(e, p, "'%.60s' is not a node of the plan", name);
		}
		d = json_object_get(n, "dropped");
		if (d && !json_is_boolean(d)) {
			snprintf(p, sizeof(p), "nodes[%zu].dropped", i);
			return fail(e, p, "expected true or false");
		}
		s->node_dropped[k] = json_is_true(d);
		snprintf(p, sizeof(p), "nodes[%zu].identity", i);
		if ((rc = identity_take(s, k, json_object_get(n, "identity"), p, e)) < 0)
			return rc;
	}
	return 0;
}

/* Everything after the plan: the sweep's own fields and its points. */
static int body_parse(struct sweep *s, json_t *root, struct err *e)
{
	const char *status;
	long long id = 0;
	json_t *points, *o;
	size_t i;
	int rc;

	if ((rc = int_get(root, "id", "", 0, INT64_MAX, false, 0, &id, e)) < 0 ||
	    (rc = str_get(root, "status", "", true, &status, e)) < 0 ||
	    (rc = time_get(root, "created_at", &s->created_at, e)) < 0 ||
	    (rc = time_get(root, "finished_at", &s->finished_at, e)) < 0)
		return rc;
	if (!*status || strlen(status) >= sizeof(s->status))
		return fail(e, "status", "expected a status such as completed");
	/* The summary's copy of the threshold, where given, is the plan's (which plan_parse
	 * judged): a document that says otherwise is refused, not half believed. */
	o = json_object_get(root, "min_effect_pct");
	if (o && (!json_is_number(o) || json_number_value(o) < 0 || json_number_value(o) >= 1000))
		return fail(e, "min_effect_pct",
		            "must be a number between 0 and 1000, as in plans");
	if (o && fabs(json_number_value(o) - s->plan.min_effect_pct) > 1e-9)
		return fail(e, "min_effect_pct", "%g disagrees with plan.min_effect_pct %g",
		            json_number_value(o), s->plan.min_effect_pct);
	s->id = id;
	snprintf(s->status, sizeof(s->status), "%s", status);
	if ((rc = dropped_parse(s, json_object_get(root, "nodes"), e)) < 0)
		return rc;
	points = json_object_get(root, "points");
	if (!json_is_array(points))
		return fail(e, "points",
		            points ? "expected an array" : "required field is missing");
	json_array_foreach(points, i, o)
	{
		if ((rc = point_parse(s, o, (int)i, e)) < 0)
			return rc;
	}
	return 0;
}

/* The document's "plan", judged by plan_parse; its errors get the "plan." prefix. */
static int plan_take(json_t *root, struct plan *p, struct err *e)
{
	json_t *v = json_object_get(root, "plan");
	struct err pe = { 0 };
	char *text;
	int rc;

	if (!json_is_object(v))
		return fail(e, "plan",
		            v ? "expected an object (the plan the sweep ran)"
		              : "required field is missing");
	text = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
	rc = plan_parse(text, NULL, p, &pe);
	free(text);
	if (rc < 0)
		return err_set(e, rc, "invalid_sweep", "plan.%s", pe.msg);
	return 0;
}

int sweepdoc_parse(const char *text, struct sweep *s, struct err *e)
{
	json_error_t je;
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je), *v;
	struct plan plan;
	long long version;
	int rc;

	memset(s, 0, sizeof(*s));
	if (!root)
		return err_set(e, -EINVAL, "invalid_sweep", "line %d, column %d: %s", je.line,
		               je.column, je.text);
	if (!json_is_object(root)) {
		rc = fail(e, "$", "expected an object (a sweep document)");
		goto out;
	}
	v = json_object_get(root, "format");
	if (!json_is_string(v) || strcmp(json_string_value(v), "fleettune-sweep")) {
		rc = fail(e, "format", "%s (show --format json writes \"fleettune-sweep\")",
		          v ? "not a fleettune sweep document" : "required field is missing");
		goto out;
	}
	if ((rc = int_get(root, "format_version", "", 1, INT32_MAX, false, 0, &version, e)) < 0)
		goto out;
	if (version < SWEEPDOC_VERSION_MIN || version > SWEEPDOC_VERSION_MAX) {
		rc = fail(e, "format_version",
		          "%lld is newer than this fleettune-ctl reads (%d to %d)", version,
		          SWEEPDOC_VERSION_MIN, SWEEPDOC_VERSION_MAX);
		goto out;
	}
	if ((rc = plan_take(root, &plan, e)) < 0)
		goto out;
	sweep_init(s, &plan);
	rc = body_parse(s, root, e);
	if (rc < 0)
		sweep_release(s);
out:
	json_decref(root);
	return rc;
}
