/* api_jobs.c -- the jobs and results routes: submit (or dry-run), list, get, cancel, raw output,
 * history. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_priv.h"
#include "job.h"
#include "num.h"
#include "stats.h"
#include "timeutil.h"
#include "utf8.h"
#include "xmalloc.h"
#include "banned.h"

/* {METRIC: {mean, stdev, min, max, n}} over the passes' metrics, metrics in first-seen order. */
static json_t *summary_json(const struct pass_rec *passes, int n)
{
	struct metric_names names = { 0 };
	json_t *summary = json_object();
	double *vals = xcalloc((size_t)n + 1, sizeof(double));
	int i, k, p;

	for (p = 0; p < n; p++)
		for (i = 0; i < passes[p].metrics.n; i++)
			metric_names_add(&names, passes[p].metrics.m[i].name);
	for (i = 0; i < names.n; i++) {
		struct stats_summary st;

		k = 0;
		for (p = 0; p < n; p++) {
			const struct metric *m = metrics_get(&passes[p].metrics, names.name[i]);

			if (m)
				vals[k++] = m->value;
		}
		stats_summarize(vals, k, &st);
		json_object_set_new(summary, names.name[i],
		                    json_pack("{s:f,s:f,s:f,s:f,s:i}", "mean", st.mean, "stdev",
		                              st.stdev, "min", st.min, "max", st.max, "n", st.n));
	}
	free(vals);
	return summary;
}

static json_t *metrics_json(const struct metrics *m)
{
	json_t *o = json_object();
	int i;

	for (i = 0; i < m->n; i++)
		json_object_set_new(o, m->m[i].name, json_real(m->m[i].value));
	return o;
}

/* The parameter snapshot: integers as numbers, the rest as strings; null before loop 1. */
static json_t *params_json(const struct job_rec *j)
{
	json_t *o;
	int64_t v;
	int i;

	if (!j->has_params)
		return json_null();
	o = json_object();
	for (i = 0; i < j->n_params; i++) {
		const struct store_value *p = &j->params[i];

		if (p->number && !num_parse_i64(p->value, &v))
			json_object_set_new(o, p->name, json_integer((json_int_t)v));
		else
			json_object_set_new(o, p->name, json_string(p->value));
	}
	return o;
}

/* The members of a job object that ?fields= may pick; "id" and "version" are always there. */
enum job_field {
	JF_STATE = 1u << 0,
	JF_DEVICE = 1u << 1,
	JF_ENGINE = 1u << 2,
	JF_SPEC = 1u << 3,
	JF_LABELS = 1u << 4,
	JF_PROGRESS = 1u << 5,
	JF_LOOPS = 1u << 6,
	JF_LOOPS_DONE = 1u << 7,
	JF_SUMMARY = 1u << 8,
	JF_PASSES = 1u << 9,
	JF_PARAMS = 1u << 10,
	JF_CREATED_AT = 1u << 11,
	JF_STARTED_AT = 1u << 12,
	JF_FINISHED_AT = 1u << 13,
	JF_ERROR = 1u << 14,
	JF_PARAMS_CHANGED = 1u << 15,
	JF_ALL = (1u << 16) - 1,
};

static const struct {
	const char *name;
	unsigned bit;
} job_fields[] = {
	{ "id", 0 },
	{ "state", JF_STATE },
	{ "device", JF_DEVICE },
	{ "engine", JF_ENGINE },
	{ "spec", JF_SPEC },
	{ "labels", JF_LABELS },
	{ "progress", JF_PROGRESS },
	{ "loops", JF_LOOPS },
	{ "loops_done", JF_LOOPS_DONE },
	{ "summary", JF_SUMMARY },
	{ "passes", JF_PASSES },
	{ "params", JF_PARAMS },
	{ "created_at", JF_CREATED_AT },
	{ "started_at", JF_STARTED_AT },
	{ "finished_at", JF_FINISHED_AT },
	{ "error", JF_ERROR },
	{ "params_changed", JF_PARAMS_CHANGED },
	{ "version", 0 },
};

#define N_JOB_FIELDS (sizeof(job_fields) / sizeof(job_fields[0]))

/* "state,progress,passes" into a mask of job_field bits; 400 naming an unknown member. */
static int job_fields_parse(const char *list, unsigned *mask, struct err *e)
{
	const char *p = list, *end;
	size_t len, i;

	*mask = 0;
	for (;;) {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		for (i = 0; i < N_JOB_FIELDS; i++)
			if (strlen(job_fields[i].name) == len &&
			    !strncmp(job_fields[i].name, p, len))
				break;
		if (i == N_JOB_FIELDS)
			return err_set(
			        e, -EINVAL, "bad_request",
			        "fields: '%.*s' is not a member of a job (id, state, device, "
			        "engine, spec, labels, progress, loops, loops_done, summary, "
			        "passes, params, created_at, started_at, finished_at, error, "
			        "version)",
			        (int)(len < 40 ? len : 40), p);
		*mask |= job_fields[i].bit;
		if (!end)
			return 0;
		p = end + 1;
	}
}

/* A job object with the members in fields (JF_ALL: the whole object, as GET
 * /api/v1/jobs/{id} and the results history show it); passes are read only when asked for. */
static json_t *job_json(struct agent *a, const struct job_rec *j, unsigned fields)
{
	struct pass_rec *passes = NULL;
	json_t *o = json_object();
	int n = 0, i;
	struct err e;

	err_clear(&e);
	if ((fields & (JF_SUMMARY | JF_PASSES)) && job_passes(a->jobs, j->id, &passes, &n, &e))
		n = 0;
	json_object_set_new(o, "id", json_integer((json_int_t)j->id));
	if (fields & JF_STATE)
		json_object_set_new(o, "state", json_string(j->state));
	if (fields & JF_DEVICE)
		json_object_set_new(o, "device", json_string(j->device));
	if (fields & JF_ENGINE)
		json_object_set_new(o, "engine", json_string(j->engine));
	if (fields & JF_SPEC)
		json_object_set_new(o, "spec", wire_job_spec_to_json(&j->spec));
	if (fields & JF_LABELS)
		json_object_set_new(o, "labels", wire_labels_to_json(&j->spec));
	if (fields & JF_PROGRESS)
		json_object_set_new(o, "progress", json_real(j->progress));
	if (fields & JF_LOOPS)
		json_object_set_new(o, "loops", json_integer(j->loops));
	if (fields & JF_LOOPS_DONE)
		json_object_set_new(o, "loops_done", json_integer(j->loops_done));
	if (fields & JF_SUMMARY)
		json_object_set_new(o, "summary", summary_json(passes, n));
	if (fields & JF_PASSES) {
		json_t *arr = json_array();

		for (i = 0; i < n; i++)
			json_array_append_new(
			        arr, json_pack("{s:i,s:o,s:o,s:o}", "loop", passes[i].loop,
			                       "started_at", api_time(passes[i].started_at),
			                       "finished_at", api_time(passes[i].finished_at),
			                       "metrics", metrics_json(&passes[i].metrics)));
		json_object_set_new(o, "passes", arr);
	}
	if (fields & JF_PARAMS)
		json_object_set_new(o, "params", params_json(j));
	if (fields & JF_CREATED_AT)
		json_object_set_new(o, "created_at", api_time(j->created_at));
	if (fields & JF_STARTED_AT)
		json_object_set_new(o, "started_at", api_time(j->started_at));
	if (fields & JF_FINISHED_AT)
		json_object_set_new(o, "finished_at", api_time(j->finished_at));
	if (fields & JF_ERROR)
		json_object_set_new(o, "error",
		                    j->has_error ? json_pack("{s:s,s:s}", "code", j->error_code,
		                                             "message", j->error_message)
		                                 : json_null());
	if (fields & JF_PARAMS_CHANGED)
		json_object_set_new(o, "params_changed",
		                    j->has_params_changed ? json_string(j->params_changed)
		                                          : json_null());
	json_object_set_new(o, "version", json_integer((json_int_t)j->version));
	free(passes);
	return o;
}

static int job_id_arg(const struct http_req *req, int64_t *id, struct err *e)
{
	if (num_parse_i64(req->args[0], id) || *id <= 0)
		return err_set(e, -ENOENT, "not_found", "no job '%.*s'", utf8_cut(req->args[0], 32),
		               req->args[0]);
	return 0;
}

/* {"dry_run":true,"job":SPEC,"metrics":[...],"expected_runtime_s":N} for a checked spec. */
static json_t *dry_run_json(const struct job_spec *spec)
{
	struct metric_names names;
	json_t *metrics = json_array();
	double runtime_s = job_expected_runtime_s(spec);
	int i;

	job_metrics(spec, &names);
	for (i = 0; i < names.n; i++)
		json_array_append_new(metrics, json_string(names.name[i]));
	return json_pack("{s:b,s:o,s:o,s:o}", "dry_run", 1, "job", wire_job_spec_to_json(spec),
	                 "metrics", metrics, "expected_runtime_s",
	                 runtime_s == floor(runtime_s) ? json_integer((json_int_t)runtime_s)
	                                               : json_real(runtime_s));
}

/* POST /jobs: decode the body once, then check it (?dry_run=true: and stop there) or queue it. */
void api_jobs_post(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	bool dry_run = http_query_bool(req, "dry_run", false);
	struct job_spec spec;
	struct job_rec rec;
	char loc[64];
	int64_t id;
	json_t *body, *o;
	struct err e;
	int rc;

	body = api_body_object(req, resp, wire_job_keys, false);
	if (!body)
		return;
	err_clear(&e);
	rc = wire_job_spec_from_json(body, &spec, &e);
	json_decref(body);
	if (rc) {
		api_fail(resp, &e);
		return;
	}
	if (dry_run) {
		if (job_check(a->jobs, &spec, &e))
			api_fail(resp, &e);
		else
			api_json(resp, 200, dry_run_json(&spec));
		goto out;
	}
	if (job_submit(a->jobs, &spec, &id, &e)) {
		api_fail(resp, &e);
		goto out;
	}
	snprintf(loc, sizeof(loc), "/api/v1/jobs/%lld", (long long)id);
	resp->location = xstrdup(loc);
	if (job_get(a->jobs, id, &rec, &e) == 0) {
		o = job_json(a, &rec, JF_ALL);
		store_job_rec_release(&rec);
		/* Report "queued" as the submit saw it, even if the worker has already started. */
		json_object_set_new(o, "state", json_string("queued"));
		json_object_set_new(o, "version",
		                    json_integer((json_int_t)job_version("queued", 0, 0)));
		api_json(resp, 202, o);
	} else {
		api_json(resp, 202,
		         json_pack("{s:I,s:s}", "id", (json_int_t)id, "state", "queued"));
	}
out:
	job_spec_release(&spec);
}

void api_jobs_list(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct job_rec *list = NULL;
	int limit = (int)http_query_int(req, "limit", 50);
	json_t *arr;
	struct err e;
	int n = 0, i;

	err_clear(&e);
	if (job_list(a->jobs, http_query(req, "state"), limit, &list, &n, &e)) {
		api_fail(resp, &e);
		return;
	}
	arr = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(arr, job_json(a, &list[i], JF_ALL));
	store_jobs_free(list, n);
	api_json(resp, 200, json_pack("{s:o}", "jobs", arr));
}

/*
 * GET /jobs/{id}[?wait_s=N&after=VERSION][&fields=a,b]: the job, or with wait_s a long-poll:
 * answered at once when the job's version differs from after, else held until it changes or
 * N seconds pass (then answered with the same version). A job the agent has never had, or no
 * longer has, is 404 at once.
 */
void api_job_get(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	long long wait_s = http_query_int(req, "wait_s", 0);
	const char *fields = http_query(req, "fields");
	unsigned mask = JF_ALL;
	struct job_rec rec;
	struct err e;
	int64_t id;

	err_clear(&e);
	if (a->cfg.no_long_poll && (http_query(req, "wait_s") || http_query(req, "after"))) {
		/* As an agent before long-polls answered: the key is unknown. */
		http_error(resp, 400, "unknown_query_param",
		           "unknown query parameter '%s': GET /api/v1/jobs/{id} takes fields",
		           http_query(req, "wait_s") ? "wait_s" : "after");
		return;
	}
	if (wait_s > 0 && !http_query(req, "after")) {
		http_error(resp, 400, "bad_request",
		           "wait_s: needs after=VERSION, the version of the job you have (the "
		           "\"version\" of the last answer)");
		return;
	}
	if ((fields && job_fields_parse(fields, &mask, &e)) || job_id_arg(req, &id, &e) ||
	    job_get(a->jobs, id, &rec, &e)) {
		api_fail(resp, &e);
		return;
	}
	if (wait_s > 0 && !req->wait_over &&
	    !job_changed_since(rec.version, (uint64_t)http_query_int(req, "after", 0))) {
		resp->wait_s = (double)wait_s;
		resp->wait_key = (uint64_t)id;
	} else {
		api_json(resp, 200, job_json(a, &rec, mask));
	}
	store_job_rec_release(&rec);
}

void api_job_delete(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct job_rec rec;
	struct err e;
	int64_t id;
	int rc;

	err_clear(&e);
	if (job_id_arg(req, &id, &e) || job_get(a->jobs, id, &rec, &e)) {
		api_fail(resp, &e);
		return;
	}
	store_job_rec_release(&rec);
	rc = job_cancel(a->jobs, id, &e);
	if (rc && rc != -EINPROGRESS) {
		api_fail(resp, &e);
		return;
	}
	if (job_get(a->jobs, id, &rec, &e)) {
		api_fail(resp, &e);
		return;
	}
	api_json(resp, rc == -EINPROGRESS ? 202 : 200, job_json(a, &rec, JF_ALL));
	store_job_rec_release(&rec);
}

void api_job_raw(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	int loop = (int)http_query_int(req, "loop", 1);
	char *raw = NULL;
	size_t len;
	struct err e;
	int64_t id;

	err_clear(&e);
	if (job_id_arg(req, &id, &e) || job_raw(a->jobs, id, loop, &raw, &len, &e)) {
		api_fail(resp, &e);
		return;
	}
	resp->status = 200;
	resp->body = raw;
	resp->body_len = len;
	resp->content_type =
	        (len && raw[0] == '{') ? "application/json" : "text/plain; charset=utf-8";
}

/* "since": epoch seconds, or ISO-8601 "2026-11-29T23:00:00Z", or a date "2026-11-29". */
static int since_parse(const char *s, double *out)
{
	int64_t n;

	if (!num_parse_i64(s, &n) && n >= 0) {
		*out = (double)n;
		return 0;
	}
	return time_parse_date(s, out);
}

/* Keys and types were checked by the route's query table; the label./param. filters are
 * counted here. */
void api_results_list(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct result_filter f;
	struct job_rec *list = NULL;
	const char *since;
	json_t *arr;
	struct err e;
	int n = 0, i;

	err_clear(&e);
	memset(&f, 0, sizeof(f));
	f.device = http_query(req, "device");
	f.engine = http_query(req, "engine");
	f.state = http_query(req, "state");
	for (i = 0; i < req->n_query; i++) {
		const struct http_kv *kv = &req->query[i];
		bool label = !strncmp(kv->key, "label.", 6), param = !strncmp(kv->key, "param.", 6);
		struct store_kv *slot;

		if (!label && !param)
			continue;
		if ((label ? f.n_labels : f.n_params) == STORE_FILTER_MAX) {
			err_set(&e, -EINVAL, "bad_request", "at most %d %s filters",
			        STORE_FILTER_MAX, label ? "label" : "param");
			goto fail;
		}
		slot = label ? &f.labels[f.n_labels++] : &f.params[f.n_params++];
		slot->key = kv->key + 6;
		slot->value = kv->value;
	}
	since = http_query(req, "since");
	if (since && since_parse(since, &f.since)) {
		err_set(&e, -EINVAL, "bad_request",
		        "since: expected epoch seconds, a date 2026-11-29 or 2026-11-29T23:00:00Z "
		        "that "
		        "exists, got '%.*s'",
		        utf8_cut(since, 40), since);
		goto fail;
	}
	f.limit = (int)http_query_int(req, "limit", 50);
	f.before_id = http_query_int(req, "before_id", 0);
	if (job_results(a->jobs, &f, &list, &n, &e))
		goto fail;
	arr = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(arr, job_json(a, &list[i], JF_ALL));
	api_json(resp, 200,
	         json_pack("{s:o,s:o}", "results", arr, "next_before_id",
	                   n == f.limit && n > 0 ? json_integer((json_int_t)list[n - 1].id)
	                                         : json_null()));
	store_jobs_free(list, n);
	return;
fail:
	api_fail(resp, &e);
}
