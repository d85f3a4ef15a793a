/* sweepdoc_read.c -- the sweep document (schema/sweep.schema.json, versions 1 to 5) read back
 * into the sweep model, streamed (one node result at a time), for analyze, every error naming
 * its JSON path. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "doc/sweepdoc.h"
#include "jsonstream.h"
#include "plan/plan_parse.h"
#include "timeutil.h"
#include "xmalloc.h"
#include "banned.h"

#define PATH_MAX_LEN 200

/* Report "PATH: message" as an invalid_sweep error. */
#define fail(e, path, ...) err_set_at((e), -EINVAL, ERR_INVALID_SWEEP, (path), __VA_ARGS__)

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
	struct config applied = { 0 };
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
		if ((rc = value_take(json_object_get(v, "value"), k, p, &applied, e)) < 0)
			return rc;
		if (json_is_true(adj))
			r->adjusted_mask |= 1u << (applied.n - 1);
	}
	node_result_applied_set(r, &applied);
	return 0;
}

/* What a measurement is: sweep.h's rule, the live path's too. */
static int pass_value_check(double v, const char *path, struct err *e)
{
	char why[128];

	if (sweep_pass_problem(v, why, sizeof(why)))
		return fail(e, path, "%s", why);
	return 0;
}

/* A pass of format 3: {"value": number, "round": integer >= 1, "started_at": ISO time}; round
 * and started_at null when not recorded (a sweep from before rounds, written again). */
/* A suite pass's "workloads" (format 5): every series of the plan, named by workload and
 * metric, into v. */
static int pass_series_parse(json_t *wl, const char *path, const struct plan *plan, double *v,
                             int *n, struct err *e)
{
	struct plan_series ser[PLAN_SERIES_MAX];
	char p[PATH_MAX_LEN];
	int k, rc;

	*n = plan_series_build(plan, ser);
	snprintf(p, sizeof(p), "%s.workloads", path);
	if (!json_is_array(wl))
		return fail(e, p, wl ? "expected an array" : "required field is missing (a suite)");
	for (k = 0; k < *n; k++) {
		const char *name = plan->workloads[ser[k].workload].name;
		json_t *x, *m = NULL;
		size_t i;

		json_array_foreach(wl, i, x)
		{
			if (json_is_string(json_object_get(x, "name")) &&
			    !strcmp(json_string_value(json_object_get(x, "name")), name)) {
				m = json_object_get(json_object_get(x, "metrics"), ser[k].metric);
				break;
			}
		}
		if (!json_is_number(m))
			return fail(e, p, "no '%s' for workload '%s'", ser[k].metric, name);
		if ((rc = pass_value_check(json_number_value(m), p, e)) < 0)
			return rc;
		v[k] = json_number_value(m);
	}
	return 0;
}

static int pass_parse(json_t *o, const char *path, struct node_result *r, bool warmup,
                      const struct plan *plan, int version, struct err *e)
{
	double sv[PLAN_SERIES_MAX];
	int nsv = 0;
	char p[PATH_MAX_LEN];
	long long round;
	const char *t;
	double at = 0;
	json_t *v;
	int rc;

	if (!json_is_object(o))
		return fail(e, path, "expected an object {value, round, started_at}");
	v = json_object_get(o, "value");
	if (!json_is_number(v)) {
		snprintf(p, sizeof(p), "%s.value", path);
		return fail(e, p, v ? "expected a number" : "required field is missing");
	}
	snprintf(p, sizeof(p), "%s.value", path);
	if ((rc = pass_value_check(json_number_value(v), p, e)) < 0)
		return rc;
	if ((rc = int_get(o, "round", path, 1, INT32_MAX, true, 0, &round, e)) < 0 ||
	    (rc = str_get(o, "started_at", path, false, &t, e)) < 0)
		return rc;
	if (t && time_parse_iso(t, &at) < 0) {
		snprintf(p, sizeof(p), "%s.started_at", path);
		return fail(e, p, "'%.40s' is not an ISO-8601 UTC time", t);
	}
	if (!warmup && version >= 5 && plan->nworkloads &&
	    (rc = pass_series_parse(json_object_get(o, "workloads"), path, plan, sv, &nsv, e)) < 0)
		return rc;
	node_result_pass_add_at(r, json_number_value(v), (int)round, at, warmup);
	if (nsv)
		node_result_series_add(r, sv, nsv);
	return 0;
}

/* "passes": the metric per loop (format 1 and 2: numbers; 3: pass objects); "warmup" (format
 * 3, optional): the warm-up passes. */
static int passes_parse(json_t *arr, const char *path, int version, bool warmup,
                        const struct plan *plan, struct node_result *r, struct err *e)
{
	char p[PATH_MAX_LEN];
	size_t i;
	json_t *v;
	int rc;

	if (warmup && !arr)
		return 0;
	if (!json_is_array(arr))
		return fail(e, path, arr ? "expected an array" : "required field is missing");
	if (json_array_size(arr) > SWEEPDOC_PASSES_MAX)
		return fail(e, path, "more than %d passes", SWEEPDOC_PASSES_MAX);
	json_array_foreach(arr, i, v)
	{
		snprintf(p, sizeof(p), "%s[%zu]", path, i);
		if (version >= 3) {
			if ((rc = pass_parse(v, p, r, warmup, plan, version, e)) < 0)
				return rc;
			continue;
		}
		if (!json_is_number(v))
			return fail(e, p, "expected a number");
		if ((rc = pass_value_check(json_number_value(v), p, e)) < 0)
			return rc;
		node_result_pass_add(r, json_number_value(v));
	}
	return 0;
}

/* points[i].nodes[k]: plan node k's result. */
static int node_parse(const struct sweep *s, json_t *o, const char *path, int k, int version,
                      struct node_result *r, struct err *e)
{
	const char *name, *state, *error, *mkfs;
	char p[PATH_MAX_LEN];
	long long job;
	json_t *rt;
	int rc, st;

	if (!json_is_object(o))
		return fail(e, path, "expected an object");
	if ((rc = str_get(o, "node", path, true, &name, e)) < 0 ||
	    (rc = str_get(o, "state", path, true, &state, e)) < 0 ||
	    (rc = str_get(o, "error", path, false, &error, e)) < 0 ||
	    (rc = str_get(o, "mkfs", path, false, &mkfs, e)) < 0)
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
	if ((rc = passes_parse(json_object_get(o, "passes"), p, version, false, &s->plan, r, e)) <
	    0)
		return rc;
	snprintf(p, sizeof(p), "%s.warmup", path);
	if (version >= 3 &&
	    (rc = passes_parse(json_object_get(o, "warmup"), p, version, true, &s->plan, r, e)) < 0)
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
	node_result_error_set(r, error);
	node_result_mkfs_set(r, mkfs);
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

/* A jsonstream error as the reader's. */
static int stream_fail(int rc, const struct err *se, struct err *e)
{
	return err_set(e, rc, ERR_INVALID_SWEEP, "%s", se->msg);
}

/* The value text[start, end) parsed alone (any JSON value); a syntax error is placed in the
 * whole document ("line L, column C: ..."). NULL on error. */
static json_t *span_load(const struct jsonstream *js, size_t start, size_t end, struct err *e)
{
	json_error_t je;
	json_t *v = json_loadb(js->text + start, end - start,
	                       JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
	int line, column;

	if (v)
		return v;
	jsonstream_where(js, start, &line, &column);
	if (je.line > 1) {
		line += je.line - 1;
		column = je.column;
	} else if (je.column > 0) {
		column += je.column - 1;
	}
	err_set(e, -EINVAL, ERR_INVALID_SWEEP, "line %d, column %d: %s", line, column, je.text);
	return NULL;
}

/* The value at the stream's position, skipped and parsed alone. NULL on error. */
static json_t *value_load(struct jsonstream *js, struct err *e)
{
	struct err se = { 0 };
	size_t start, end;
	int rc;

	if ((rc = jsonstream_skip(js, &start, &end, &se)) < 0) {
		stream_fail(rc, &se, e);
		return NULL;
	}
	return span_load(js, start, end, e);
}

/* Where one member of an object walked by object_gather goes instead of the object: its
 * value at the stream's position, which take consumes. */
struct streamed {
	const char *key;
	int (*take)(struct jsonstream *js, struct streamed *m, struct err *e);
	bool seen;
	size_t start, end; /* the value's span (points) */
	size_t n, cap;     /* the array's elements (nodes), when array; spans of the first max */
	size_t max;        /* elements whose spans are kept (the plan's nodes: more is refused) */
	size_t *spans;     /* [2 * min(n, max)]: start, end of each */
	bool array;
	json_t *other; /* a value that is not an array (nodes), for its error */
};

/* The object at the stream's position into o, member by member, each value parsed alone,
 * except m's, which m->take consumes; a duplicate key is refused as jansson refuses one. */
static int object_gather(struct jsonstream *js, json_t *o, struct streamed *m, struct err *e)
{
	struct err se = { 0 };
	size_t n = 0, ks, ke;
	int rc, line, column;
	json_t *key, *v;

	if ((rc = jsonstream_enter(js, '{', &se)) < 0)
		return stream_fail(rc, &se, e);
	while ((rc = jsonstream_member(js, &n, &ks, &ke, &se)) > 0) {
		const char *k;

		if (!(key = span_load(js, ks, ke, e)))
			return -EINVAL;
		k = json_string_value(key);
		if (json_object_get(o, k) || (!strcmp(k, m->key) && m->seen)) {
			json_decref(key);
			jsonstream_where(js, ks, &line, &column);
			return err_set(e, -EINVAL, ERR_INVALID_SWEEP,
			               "line %d, column %d: duplicate object key", line, column);
		}
		if (!strcmp(k, m->key)) {
			json_decref(key);
			m->seen = true;
			if ((rc = m->take(js, m, e)) < 0)
				return rc;
			continue;
		}
		if (!(v = value_load(js, e))) {
			json_decref(key);
			return -EINVAL;
		}
		json_object_set_new(o, k, v);
		json_decref(key);
	}
	return rc < 0 ? stream_fail(rc, &se, e) : 0;
}

/* The document's "points": its span, walked once the rest of the document is read (the plan,
 * which the writer puts last, says how to read a suite's passes). */
static int points_take(struct jsonstream *js, struct streamed *m, struct err *e)
{
	struct err se = { 0 };
	int rc = jsonstream_skip(js, &m->start, &m->end, &se);

	return rc < 0 ? stream_fail(rc, &se, e) : 0;
}

/* A point's "nodes": the span of each element (a node result, parsed alone later). */
static int nodes_take(struct jsonstream *js, struct streamed *m, struct err *e)
{
	struct err se = { 0 };
	size_t count = 0;
	int rc;

	if (jsonstream_peek(js) != '[') {
		m->other = value_load(js, e);
		return m->other ? 0 : -EINVAL;
	}
	m->array = true;
	jsonstream_enter(js, '[', &se);
	while ((rc = jsonstream_element(js, &count, &se)) > 0) {
		size_t start, end;

		if ((rc = jsonstream_skip(js, &start, &end, &se)) < 0)
			break;
		if (m->n < m->max) {
			if (m->n == m->cap) {
				m->cap = m->cap ? 2 * m->cap : 64;
				m->spans = xrealloc(m->spans, m->cap * 2 * sizeof(*m->spans));
			}
			m->spans[2 * m->n] = start;
			m->spans[2 * m->n + 1] = end;
		}
		m->n++;
	}
	return rc < 0 ? stream_fail(rc, &se, e) : 0;
}

/* points[i] (o: its members but "nodes", whose elements' spans are in ns): appended to s as
 * point i, its node results parsed one at a time. */
static int point_parse(struct sweep *s, const struct jsonstream *js, json_t *o,
                       const struct streamed *ns, int i, int version, struct err *e)
{
	char path[PATH_MAX_LEN], p[PATH_MAX_LEN];
	const char *role;
	long long index = 0, axis = -1, ref = -1, loops = -1, ref_loops = 0;
	struct config cfg;
	struct point *pt;
	size_t k;
	int rc, r;

	snprintf(path, sizeof(path), "points[%d]", i);
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
	snprintf(p, sizeof(p), "%s.nodes", path);
	if (!ns->array)
		return fail(e, p, ns->seen ? "expected an array" : "required field is missing");
	if (ns->n != (size_t)s->plan.nnodes)
		return fail(e, p, "%zu results, expected one per plan node (%d)", ns->n,
		            s->plan.nnodes);
	sweep_point_add(s, (enum point_role)r, (int)axis, (int)ref, &cfg);
	pt = &s->points[i];
	pt->ref_loops = (int)ref_loops;
	for (k = 0; k < ns->n; k++) {
		json_t *n = span_load(js, ns->spans[2 * k], ns->spans[2 * k + 1], e);

		if (!n)
			return -EINVAL;
		snprintf(p, sizeof(p), "%s.nodes[%zu]", path, k);
		rc = node_parse(s, n, p, (int)k, version, &pt->nodes[k], e);
		json_decref(n);
		if (rc < 0)
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
 * fields of common/protocol.h as strings (cleaned: identity_text_clean), booleans or
 * integers; other keys are ignored. */
static int identity_take(struct sweep *s, int k, json_t *o, const char *path, struct err *e)
{
	char p[PATH_MAX_LEN], num[32], clean[IDENTITY_VALUE_MAX];
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
		snprintf(clean, sizeof(clean), "%s", t);
		identity_text_clean(clean);
		sweep_identity_set(s, k, f, *clean ? clean : NULL);
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

/* Format 3: "order_seed" (a decimal string: 64 bits do not fit a JSON number) and "rounds",
 * both optional; rounds defaults to the passes' highest. */
static int rounds_parse(struct sweep *s, json_t *root, struct err *e)
{
	const char *seed;
	unsigned long long v;
	char *end;
	long long n;
	int rc, i, k, j;

	if ((rc = str_get(root, "order_seed", "", false, &seed, e)) < 0)
		return rc;
	if (seed) {
		errno = 0;
		v = strtoull(seed, &end, 10);
		if (!*seed || *end || errno || *seed == '-')
			return fail(e, "order_seed", "'%.40s' is not a decimal 64-bit seed", seed);
		s->order_seed = v;
	}
	for (i = 0; i < s->npoints; i++)
		for (k = 0; k < s->plan.nnodes; k++)
			for (j = 0; j < s->points[i].nodes[k].npasses; j++)
				if (s->points[i].nodes[k].pass_round[j] > s->nrounds)
					s->nrounds = s->points[i].nodes[k].pass_round[j];
	if ((rc = int_get(root, "rounds", "", 0, INT32_MAX, true, s->nrounds, &n, e)) < 0)
		return rc;
	if (n > s->nrounds)
		s->nrounds = (int)n;
	sweep_blocks_derive(s);
	return 0;
}

/* points[i], the object at the stream's position: gathered without its node results,
 * which point_parse reads one at a time. */
static int point_stream(struct sweep *s, struct jsonstream *js, int i, int version, struct err *e)
{
	struct streamed ns = { .key = "nodes", .take = nodes_take, .max = (size_t)s->plan.nnodes };
	char path[PATH_MAX_LEN];
	json_t *o, *v;
	int rc;

	if (jsonstream_peek(js) != '{') {
		if (!(v = value_load(js, e)))
			return -EINVAL;
		json_decref(v);
		snprintf(path, sizeof(path), "points[%d]", i);
		return fail(e, path, "expected an object");
	}
	o = json_object();
	rc = object_gather(js, o, &ns, e);
	if (rc == 0)
		rc = point_parse(s, js, o, &ns, i, version, e);
	json_decref(o);
	json_decref(ns.other);
	free(ns.spans);
	return rc;
}

/* "points", the span [start, end) of the text: each point in turn. */
static int points_parse(struct sweep *s, const struct jsonstream *doc, size_t start, size_t end,
                        int version, struct err *e)
{
	struct jsonstream js;
	struct err se = { 0 };
	size_t count = 0;
	json_t *v;
	int rc;

	jsonstream_init(&js, doc->text, end);
	js.pos = start;
	if (jsonstream_peek(&js) != '[') {
		if (!(v = value_load(&js, e)))
			return -EINVAL;
		json_decref(v);
		return fail(e, "points", "expected an array");
	}
	jsonstream_enter(&js, '[', &se);
	while ((rc = jsonstream_element(&js, &count, &se)) > 0)
		if ((rc = point_stream(s, &js, (int)count - 1, version, e)) < 0)
			return rc;
	return rc < 0 ? stream_fail(rc, &se, e) : 0;
}

/* Everything after the plan: the sweep's own fields (root: the document's members but
 * "points") and its points (pts: their span). */
static int body_parse(struct sweep *s, json_t *root, const struct jsonstream *js,
                      const struct streamed *pts, int version, struct err *e)
{
	const char *status;
	long long id = 0;
	json_t *o;
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
	if (!pts->seen)
		return fail(e, "points", "required field is missing");
	if ((rc = points_parse(s, js, pts->start, pts->end, version, e)) < 0)
		return rc;
	return rounds_parse(s, root, e);
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
		return err_set(e, rc, ERR_INVALID_SWEEP, "plan.%s", pe.msg);
	return 0;
}

/*
 * The document is read once by a pull tokenizer: every member but "points" parsed alone into
 * root (small: the plan, the nodes, the summary), the points walked after them, each node
 * result parsed alone, read into s and freed, so that what is held is the model, not the
 * document's tree.
 */
int sweepdoc_parse(const char *text, struct sweep *s, struct err *e)
{
	struct streamed pts = { .key = "points", .take = points_take };
	struct jsonstream js;
	struct err se = { 0 };
	json_t *root = NULL, *v;
	struct plan plan;
	long long version;
	int rc;

	memset(s, 0, sizeof(*s));
	jsonstream_init(&js, text, strlen(text));
	if (jsonstream_peek(&js) != '{') {
		if (!(v = value_load(&js, e)))
			return -EINVAL;
		json_decref(v);
		if ((rc = jsonstream_end(&js, &se)) < 0)
			return stream_fail(rc, &se, e);
		return fail(e, "$", "expected an object (a sweep document)");
	}
	root = json_object();
	if ((rc = object_gather(&js, root, &pts, e)) < 0)
		goto out;
	if ((rc = jsonstream_end(&js, &se)) < 0) {
		rc = stream_fail(rc, &se, e);
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
	rc = body_parse(s, root, &js, &pts, (int)version, e);
	if (rc < 0)
		sweep_release(s);
out:
	json_decref(root);
	return rc;
}
