/* api.c -- the agent's JSON API: route table, health, devices, params, sessions, sysctls, audit. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_priv.h"
#include "api/switches.h"
#include "num.h"
#include "protocol.h"
#include "queue/job.h"
#include "timeutil.h"
#include "utf8.h"
#include "version.h"
#include "xmalloc.h"
#include "banned.h"

void api_json(struct http_resp *resp, int status, json_t *json)
{
	char *body = json ? json_dumps(json, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;

	json_decref(json);
	/* json_pack() gives NULL for a string that is not UTF-8: never an empty body. */
	if (!body) {
		http_error(resp, 500, ERR_INTERNAL, "the answer could not be encoded as JSON");
		return;
	}
	resp->status = status;
	http_body_take(resp, body, "application/json");
}

void api_fail(struct http_resp *resp, const struct err *e)
{
	enum err_code code = e->code != ERR_NONE ? e->code : ERR_INTERNAL;

	http_error(resp, err_code_status(code), code, "%s", e->msg[0] ? e->msg : "failed");
}

json_t *api_body_object(const struct http_req *req, struct http_resp *resp,
                        const char *const *allowed, bool empty_ok)
{
	json_error_t jerr;
	struct err e;
	json_t *o;

	if (req->body_len == 0 && empty_ok)
		return json_object();
	o = json_loadb(req->body, req->body_len, JSON_REJECT_DUPLICATES, &jerr);
	if (!o) {
		http_error(resp, 400, ERR_BAD_JSON,
		           "request body is not valid JSON: %s (line %d, column %d)", jerr.text,
		           jerr.line, jerr.column);
		return NULL;
	}
	if (!json_is_object(o)) {
		json_decref(o);
		http_error(resp, 400, ERR_BAD_JSON, "request body must be a JSON object");
		return NULL;
	}
	err_clear(&e);
	if (wire_keys_check(o, allowed, NULL, &e)) {
		json_decref(o);
		api_fail(resp, &e);
		return NULL;
	}
	return o;
}

void api_origin(const struct http_req *req, char *out, size_t len)
{
	char raw[320];

	/* The origin is stored and shown as JSON: the path as valid UTF-8. */
	snprintf(raw, sizeof(raw), "request %llu %s %.*s", (unsigned long long)req->id, req->method,
	         utf8_cut(req->path, 200), req->path);
	utf8_clean(out, len, raw);
}

static json_t *param_json(const struct param *p)
{
	json_t *o = json_object();
	int i;

	json_object_set_new(o, "value", wire_value_to_json(p->kind, p->value));
	json_object_set_new(o, "writable", json_boolean(p->writable));
	if (p->n_choices) {
		json_t *a = json_array();

		for (i = 0; i < p->n_choices; i++)
			json_array_append_new(a, wire_value_to_json(p->kind, p->choices[i]));
		json_object_set_new(o, "choices", a);
	}
	if (p->has_min)
		json_object_set_new(o, "min", json_integer((json_int_t)p->min));
	if (p->has_max)
		json_object_set_new(o, "max", json_integer((json_int_t)p->max));
	if (p->unit)
		json_object_set_new(o, "unit", json_string(p->unit));
	return o;
}

static void health_get(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	json_t *features = json_array();
	int i;

	/* GET /health lists every feature of protocol.h; switches_no_long_poll() hides the two
	 * that hold requests. */
	for (i = 0; i < FEATURE_N; i++)
		if (!switches_no_long_poll() || (i != FEATURE_LONG_POLL && i != FEATURE_UNTIL_END))
			json_array_append_new(features, json_string(feature_names[i]));
	/* time_s: the agent's clock, to the microsecond: a controller bounds the offset of this
	 * clock from its own with the request's round trip (jobs start by it: "start_at"). */
	api_json(resp, 200,
	         json_pack("{s:s,s:s,s:s,s:I,s:f,s:o}", "status", "ok", "version",
	                   FLEETTUNE_VERSION, "node", a->node, "uptime_s",
	                   (json_int_t)(time_mono_s() - a->started_mono_s), "time_s",
	                   round((time_now_s() + switches_clock_offset_s()) * 1e6) / 1e6,
	                   "features", features));
}

/* One device of GET /devices: what sysfs_devices_list says and its identity. */
static json_t *device_json(struct agent *a, const struct device_info *di)
{
	struct device_identity id;
	struct err e;
	json_t *o = json_pack("{s:s,s:I,s:b,s:s,s:b}", "name", di->name, "size_bytes",
	                      (json_int_t)di->size_bytes, "rotational", di->rotational, "scheduler",
	                      di->scheduler, "writable", di->writable);

	err_clear(&e);
	if (identity_device_read(&a->fs, di->name, a->cfg.hide_serial, &id, &e) == 0)
		json_object_set_new(o, "identity", wire_device_identity_to_json(&id));
	return o;
}

static json_t *host_json(struct agent *a)
{
	struct host_identity h;

	identity_host_read(&a->fs, &h);
	return wire_host_identity_to_json(&h);
}

static void devices_list(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct device_info *list = NULL;
	json_t *arr;
	struct err e;
	int n = 0, i;

	err_clear(&e);
	if (sysfs_devices_list(&a->fs, &list, &n, &e)) {
		api_fail(resp, &e);
		return;
	}
	arr = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(arr, device_json(a, &list[i]));
	free(list);
	api_json(resp, 200, json_pack("{s:o,s:o}", "devices", arr, "host", host_json(a)));
}

/* GET /devices/{dev}: the device as the list shows it, with the host's identity. */
static void device_get(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct device_info *list = NULL;
	json_t *o = NULL;
	struct err e;
	int n = 0, i;

	err_clear(&e);
	if (sysfs_device_check(&a->fs, req->args[0], &e) ||
	    sysfs_devices_list(&a->fs, &list, &n, &e)) {
		api_fail(resp, &e);
		return;
	}
	for (i = 0; i < n && !o; i++)
		if (!strcmp(list[i].name, req->args[0]))
			o = device_json(a, &list[i]);
	free(list);
	if (!o) { /* listed by name check, gone by the time of the list */
		http_error(resp, 404, ERR_NOT_FOUND, "no block device '%s'", req->args[0]);
		return;
	}
	json_object_set_new(o, "host", host_json(a));
	api_json(resp, 200, o);
}

/* Render the GET params body for dev; caller frees. */
static char *params_body(struct agent *a, const char *dev, struct err *e)
{
	struct params ps = { 0, NULL };
	json_t *obj, *o;
	char *body;
	int i;

	if (sysfs_params_read(&a->fs, dev, &ps, e))
		return NULL;
	obj = json_object();
	for (i = 0; i < ps.n; i++)
		json_object_set_new(obj, ps.p[i].name, param_json(&ps.p[i]));
	sysfs_params_release(&ps);
	o = json_pack("{s:s,s:o}", "device", dev, "params", obj);
	body = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(o);
	return body;
}

/*
 * GET params reads ~50 sysfs files. Under load the rendered body is reused
 * for params_cache_ms, but never across a write made by this agent: the
 * tune generation changes with every write. Only changes made outside the
 * agent can be up to params_cache_ms late.
 */
static void params_get(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	unsigned long gen = tune_generation(&a->tune);
	double now = time_mono_s();
	char *body;
	struct err e;

	body = params_cache_get(&a->pcache, req->args[0], gen, now);
	if (!body) {
		err_clear(&e);
		body = params_body(a, req->args[0], &e);
		if (!body) {
			api_fail(resp, &e);
			return;
		}
		params_cache_put(&a->pcache, req->args[0], gen, now, body);
	}
	resp->status = 200;
	http_body_take(resp, body, "application/json");
}

static void param_get(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct param p;
	json_t *o;
	struct err e;

	err_clear(&e);
	if (sysfs_param_read(&a->fs, req->args[0], req->args[1], &p, &e)) {
		api_fail(resp, &e);
		return;
	}
	o = param_json(&p);
	json_object_set_new(o, "device", json_string(req->args[0]));
	json_object_set_new(o, "name", json_string(p.name));
	api_json(resp, 200, o);
}

static void tune_fail(struct http_resp *resp, const struct err *e, bool rolled_back)
{
	enum err_code code = e->code != ERR_NONE ? e->code : ERR_INTERNAL;
	json_t *o =
	        json_pack("{s:{s:s,s:s}}", "error", "code", err_code_name(code), "message", e->msg);

	if (rolled_back)
		json_object_set_new(o, "rolled_back", json_true());
	api_json(resp, err_code_status(code), o);
}

static const char *const value_keys[] = { "value", NULL };

/* Parse a {"value": X} body into it->requested, and it->name from path argument
 * name_arg. Returns the body (caller decrefs), or NULL with the 4xx in resp. */
static json_t *value_body(const struct http_req *req, struct http_resp *resp, int name_arg,
                          struct tune_item *it)
{
	json_t *body, *v;
	struct err e;

	body = api_body_object(req, resp, value_keys, false);
	if (!body)
		return NULL;
	err_clear(&e);
	memset(it, 0, sizeof(*it));
	v = json_object_get(body, "value");
	if (!v)
		err_set(&e, -EINVAL, ERR_BAD_REQUEST, "value: required");
	else if (!wire_value_from_json(v, "value", it->requested, sizeof(it->requested), &e))
		snprintf(it->name, sizeof(it->name), "%s", req->args[name_arg]);
	if (e.code != ERR_NONE) {
		json_decref(body);
		api_fail(resp, &e);
		return NULL;
	}
	return body;
}

static void param_put(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct tune_item it;
	char origin[320];
	bool rolled_back = false;
	json_t *body, *o;
	struct err e;

	body = value_body(req, resp, 1, &it);
	if (!body)
		return;
	err_clear(&e);
	api_origin(req, origin, sizeof(origin));
	if (tune_apply(&a->tune, req->args[0], &it, 1, origin, &rolled_back, &e)) {
		tune_fail(resp, &e, rolled_back);
	} else {
		job_params_written(a->jobs, req->args[0], &it, 1, origin);
		o = wire_tune_item_to_json(&it, json_object_get(body, "value"));
		json_object_set_new(o, "device", json_string(req->args[0]));
		json_object_set_new(o, "name", json_string(it.name));
		api_json(resp, 200, o);
	}
	json_decref(body);
}

static const char *const patch_keys[] = { "params", NULL };

/* What a dry run found for one item: what a real PATCH would write. */
static json_t *would_apply_json(const struct tune_item *it, const json_t *requested)
{
	json_t *o = json_object();

	json_object_set_new(o, "previous",
	                    it->previous[0] ? wire_value_to_json(it->kind, it->previous)
	                                    : json_null());
	json_object_set(o, "requested", (json_t *)requested);
	json_object_set_new(o, "value", wire_value_to_json(it->kind, it->canon));
	if (it->aliased)
		json_object_set_new(o, "mapped_to", json_string(it->canon));
	if (it->deferred)
		json_object_set_new(o, "checked", json_string("after_switch"));
	return o;
}

/* PATCH params, or with ?dry_run=true the same validation and nothing written. */
static void params_patch(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct tune_set set = { 0, NULL };
	bool dry_run = http_query_bool(req, "dry_run", false), rolled_back = false;
	const char *dev = req->args[0];
	char origin[320];
	json_t *body, *params, *items;
	struct err e;
	int i;

	body = api_body_object(req, resp, patch_keys, false);
	if (!body)
		return;
	err_clear(&e);
	params = json_object_get(body, "params");
	if (wire_params_from_json(params, 1, &set, &e)) {
		api_fail(resp, &e);
		goto out;
	}
	if (dry_run) {
		if (tune_validate(&a->tune, dev, set.items, set.n, &e)) {
			tune_fail(resp, &e, false);
			goto out;
		}
	} else {
		api_origin(req, origin, sizeof(origin));
		if (tune_apply(&a->tune, dev, set.items, set.n, origin, &rolled_back, &e)) {
			tune_fail(resp, &e, rolled_back);
			goto out;
		}
		job_params_written(a->jobs, dev, set.items, set.n, origin);
	}
	items = json_object();
	for (i = 0; i < set.n; i++) {
		const json_t *requested = json_object_get(params, set.items[i].name);

		json_object_set_new(items, set.items[i].name,
		                    dry_run ? would_apply_json(&set.items[i], requested)
		                            : wire_tune_item_to_json(&set.items[i], requested));
	}
	if (dry_run)
		api_json(resp, 200,
		         json_pack("{s:s,s:b,s:o}", "device", dev, "dry_run", 1, "would_apply",
		                   items));
	else
		api_json(resp, 200, json_pack("{s:s,s:o}", "device", dev, "applied", items));
out:
	tune_set_release(&set);
	json_decref(body);
}

static json_t *session_json(const struct session_rec *s)
{
	json_t *o = json_pack("{s:I,s:s,s:s,s:I,s:o,s:o}", "id", (json_int_t)s->id, "device",
	                      s->device, "state", s->state, "ttl_s", (json_int_t)s->ttl_s,
	                      "created_at", wire_time_to_json(s->created_at), "expires_at",
	                      wire_time_to_json(s->expires_at));

	if (s->ended_at > 0) {
		json_object_set_new(o, "ended_at", wire_time_to_json(s->ended_at));
		json_object_set_new(o, "end_reason", json_string(s->end_reason));
		json_object_set_new(o, "restore_outcome", json_string(s->restore_outcome));
	}
	return o;
}

/* Session ids in paths are positive decimal integers. */
static int id_arg(const struct http_req *req, int idx, int64_t *id, struct err *e)
{
	if (num_parse_i64(req->args[idx], id) || *id <= 0)
		return err_set(e, -ENOENT, ERR_NOT_FOUND, "no such id '%.*s'",
		               utf8_cut(req->args[idx], 32), req->args[idx]);
	return 0;
}

static const char *const session_keys[] = { "ttl_s", NULL };

static void session_post(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct session_rec rec;
	json_int_t ttl_s = SESSION_TTL_DEFAULT_S;
	json_t *body, *v;
	struct err e;
	char loc[64];

	body = api_body_object(req, resp, session_keys, true);
	if (!body)
		return;
	err_clear(&e);
	v = json_object_get(body, "ttl_s");
	if (v && !json_is_integer(v)) {
		json_decref(body);
		err_set(&e, -EINVAL, ERR_BAD_REQUEST,
		        "ttl_s: expected an integer number of seconds");
		api_fail(resp, &e);
		return;
	}
	if (v)
		ttl_s = json_integer_value(v);
	json_decref(body);
	if (sysfs_device_check(&a->fs, req->args[0], &e) ||
	    session_open(&a->sessions, req->args[0], ttl_s, time_now_s(), &rec, &e)) {
		api_fail(resp, &e);
		return;
	}
	snprintf(loc, sizeof(loc), "/api/v1/sessions/%lld", (long long)rec.id);
	resp->location = xstrdup(loc);
	api_json(resp, 201, session_json(&rec));
}

static void session_get_route(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct session_rec rec;
	struct err e;
	int64_t id;

	err_clear(&e);
	if (id_arg(req, 0, &id, &e) || session_get(&a->sessions, id, &rec, &e)) {
		api_fail(resp, &e);
		return;
	}
	api_json(resp, 200, session_json(&rec));
}

static void sessions_list(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct session_rec *list = NULL;
	const char *state = http_query(req, "state"), *dev = http_query(req, "device");
	json_t *arr;
	struct err e;
	int n = 0, i;

	err_clear(&e);
	if (session_list(&a->sessions, state, dev, &list, &n, &e)) {
		api_fail(resp, &e);
		return;
	}
	arr = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(arr, session_json(&list[i]));
	free(list);
	api_json(resp, 200, json_pack("{s:o}", "sessions", arr));
}

static void session_renew_post(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct session_rec rec;
	struct err e;
	int64_t id;

	err_clear(&e);
	if (req->body_len) {
		json_t *body = api_body_object(req, resp, NULL, true);

		if (!body)
			return;
		json_decref(body);
	}
	if (id_arg(req, 0, &id, &e) || session_renew(&a->sessions, id, time_now_s(), &rec, &e)) {
		api_fail(resp, &e);
		return;
	}
	api_json(resp, 200, session_json(&rec));
}

static void session_delete(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	bool do_restore = http_query_bool(req, "restore", true);
	struct session_rec rec;
	json_t *o;
	struct err e;
	int64_t id;

	err_clear(&e);
	if (id_arg(req, 0, &id, &e) ||
	    session_end(&a->sessions, id, do_restore, "closed", time_now_s(), &rec, &e)) {
		api_fail(resp, &e);
		return;
	}
	o = session_json(&rec);
	json_object_set_new(o, "restored", json_boolean(do_restore));
	api_json(resp, 200, o);
}

static void sysctls_get(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct params ps = { 0, NULL };
	json_t *obj;
	struct err e;
	int i;

	err_clear(&e);
	sysfs_sysctls_read(&a->fs, &ps, &e);
	obj = json_object();
	for (i = 0; i < ps.n; i++)
		json_object_set_new(obj, ps.p[i].name, param_json(&ps.p[i]));
	sysfs_params_release(&ps);
	api_json(resp, 200,
	         json_pack("{s:o,s:b}", "sysctls", obj, "writes_allowed", a->cfg.allow_sysctl));
}

static void sysctl_get(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct param p;
	json_t *o;
	struct err e;

	err_clear(&e);
	if (sysfs_sysctl_read(&a->fs, req->args[0], &p, &e)) {
		api_fail(resp, &e);
		return;
	}
	o = param_json(&p);
	json_object_set_new(o, "name", json_string(p.name));
	api_json(resp, 200, o);
}

static void sysctl_put(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct tune_item it;
	char origin[320];
	json_t *body, *o;
	struct err e;

	body = value_body(req, resp, 0, &it);
	if (!body)
		return;
	err_clear(&e);
	api_origin(req, origin, sizeof(origin));
	if (tune_sysctl_set(&a->tune, &it, origin, &e)) {
		api_fail(resp, &e);
	} else {
		o = wire_tune_item_to_json(&it, json_object_get(body, "value"));
		json_object_set_new(o, "name", json_string(it.name));
		api_json(resp, 200, o);
	}
	json_decref(body);
}

static json_t *opt_string(int present, const char *s)
{
	return present ? json_string(s) : json_null();
}

static void changes_list(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct change_rec *list = NULL;
	int limit = (int)http_query_int(req, "limit", 100);
	json_t *arr;
	struct err e;
	int n = 0, i;

	err_clear(&e);
	if (store_changes_list(a->store, http_query(req, "device"), limit, &list, &n, &e)) {
		api_fail(resp, &e);
		return;
	}
	arr = json_array();
	for (i = 0; i < n; i++) {
		const struct change_rec *c = &list[i];

		json_array_append_new(
		        arr, json_pack("{s:I,s:o,s:s,s:s,s:o,s:o,s:o,s:s,s:s,s:o}", "id",
		                       (json_int_t)c->id, "at", wire_time_to_json(c->at), "device",
		                       c->device, "name", c->name, "previous",
		                       opt_string(c->has_previous, c->previous), "requested",
		                       opt_string(c->has_requested, c->requested), "applied",
		                       opt_string(c->has_applied, c->applied), "outcome",
		                       c->outcome, "origin", c->origin, "message",
		                       opt_string(c->has_message, c->message)));
	}
	free(list);
	api_json(resp, 200, json_pack("{s:o}", "changes", arr));
}

/* ---- the query parameters each route takes (none where a route has NULL) ---- */

static const char *const session_states[] = { "open", "closed", "restored", NULL };

static const struct query_param q_dry_run[] = {
	{ .key = "dry_run", .type = QUERY_BOOL },
	{ .key = NULL },
};
static const struct query_param q_sessions[] = {
	{ .key = "state", .type = QUERY_ENUM, .choices = session_states },
	{ .key = "device", .type = QUERY_TEXT },
	{ .key = NULL },
};
static const struct query_param q_session_end[] = {
	{ .key = "restore", .type = QUERY_BOOL },
	{ .key = NULL },
};
static const struct query_param q_profile_delete[] = {
	{ .key = "restore", .type = QUERY_BOOL },
	{ .key = NULL },
};
static const struct query_param q_changes[] = {
	{ .key = "device", .type = QUERY_TEXT },
	{ .key = "limit", .type = QUERY_INT, .min = 1, .max = 10000 },
	{ .key = NULL },
};
static const struct query_param q_jobs[] = {
	{ .key = "state", .type = QUERY_ENUM, .choices = job_state_names },
	{ .key = "limit", .type = QUERY_INT, .min = 1, .max = API_LIST_LIMIT_MAX },
	{ .key = "fields", .type = QUERY_TEXT },
	{ .key = NULL },
};
static const char *const job_waits[] = { "change", "end", NULL };
static const struct query_param q_job[] = {
	{ .key = "wait_s", .type = QUERY_INT, .min = 0, .max = JOB_WAIT_MAX_S },
	{ .key = "after", .type = QUERY_INT, .min = 0, .max = INT64_MAX },
	{ .key = "until", .type = QUERY_ENUM, .choices = job_waits },
	{ .key = "fields", .type = QUERY_TEXT },
	{ .key = NULL },
};
static const struct query_param q_job_raw[] = {
	{ .key = "loop", .type = QUERY_INT, .min = 1, .max = JOB_LOOPS_MAX },
	{ .key = NULL },
};
static const struct query_param q_results[] = {
	{ .key = "device", .type = QUERY_TEXT },
	{ .key = "engine", .type = QUERY_ENUM, .choices = engine_names },
	{ .key = "state", .type = QUERY_ENUM, .choices = job_state_names },
	{ .key = "since", .type = QUERY_TEXT },
	{ .key = "limit", .type = QUERY_INT, .min = 1, .max = API_LIST_LIMIT_MAX },
	{ .key = "before_id", .type = QUERY_INT, .min = 1, .max = INT64_MAX },
	{ .key = "workload", .type = QUERY_TEXT },
	{ .key = "label.", .type = QUERY_PREFIX },
	{ .key = "param.", .type = QUERY_PREFIX },
	{ .key = NULL },
};

const struct route api_routes[] = {
	{ "GET", "/api/v1/health", health_get, ROUTE_PUBLIC, NULL },
	{ "GET", "/api/v1/devices", devices_list, 0, NULL },
	{ "GET", "/api/v1/devices/{dev}", device_get, 0, NULL },
	{ "GET", "/api/v1/devices/{dev}/params", params_get, 0, NULL },
	{ "PATCH", "/api/v1/devices/{dev}/params", params_patch, 0, q_dry_run },
	{ "GET", "/api/v1/devices/{dev}/params/{name}", param_get, 0, NULL },
	{ "PUT", "/api/v1/devices/{dev}/params/{name}", param_put, 0, NULL },
	{ "POST", "/api/v1/devices/{dev}/sessions", session_post, 0, NULL },
	{ "GET", "/api/v1/sessions", sessions_list, 0, q_sessions },
	{ "GET", "/api/v1/sessions/{id}", session_get_route, 0, NULL },
	{ "POST", "/api/v1/sessions/{id}/renew", session_renew_post, 0, NULL },
	{ "DELETE", "/api/v1/sessions/{id}", session_delete, 0, q_session_end },
	{ "GET", "/api/v1/sysctl", sysctls_get, 0, NULL },
	{ "GET", "/api/v1/sysctl/{name}", sysctl_get, 0, NULL },
	{ "PUT", "/api/v1/sysctl/{name}", sysctl_put, 0, NULL },
	{ "GET", "/api/v1/changes", changes_list, ROUTE_PRIVATE, q_changes },
	{ "POST", "/api/v1/jobs", api_jobs_post, 0, q_dry_run },
	{ "GET", "/api/v1/jobs", api_jobs_list, 0, q_jobs },
	{ "GET", "/api/v1/jobs/{id}", api_job_get, 0, q_job },
	{ "DELETE", "/api/v1/jobs/{id}", api_job_delete, 0, NULL },
	{ "GET", "/api/v1/jobs/{id}/raw", api_job_raw, ROUTE_PRIVATE, q_job_raw },
	{ "GET", "/api/v1/results", api_results_list, 0, q_results },
	{ "GET", "/api/v1/profiles", api_profiles_list, 0, NULL },
	{ "GET", "/api/v1/profiles/{name}", api_profile_get, 0, NULL },
	{ "PUT", "/api/v1/profiles/{name}", api_profile_put, 0, q_dry_run },
	{ "DELETE", "/api/v1/profiles/{name}", api_profile_delete, 0, q_profile_delete },
	{ "GET", "/metrics", api_metrics, ROUTE_METRICS, NULL },
};

const int api_n_routes = (int)(sizeof(api_routes) / sizeof(api_routes[0]));
