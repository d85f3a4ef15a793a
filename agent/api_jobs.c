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

/* The full job object, as GET /api/v1/jobs/{id} and the results history show it. */
static json_t *job_json(struct agent *a, const struct job_rec *j)
{
	struct pass_rec *passes = NULL;
	json_t *o, *arr = json_array();
	int n = 0, i;
	struct err e;

	err_clear(&e);
	if (job_passes(a->jobs, j->id, &passes, &n, &e) == 0) {
		for (i = 0; i < n; i++)
			json_array_append_new(
			        arr, json_pack("{s:i,s:o,s:o,s:o}", "loop", passes[i].loop,
			                       "started_at", api_time(passes[i].started_at),
			                       "finished_at", api_time(passes[i].finished_at),
			                       "metrics", metrics_json(&passes[i].metrics)));
	}
	o = json_pack("{s:I,s:s,s:s,s:s,s:o,s:o,s:f,s:i,s:i}", "id", (json_int_t)j->id, "state",
	              j->state, "device", j->device, "engine", j->engine, "spec",
	              wire_job_spec_to_json(&j->spec), "labels", wire_labels_to_json(&j->spec),
	              "progress", j->progress, "loops", j->loops, "loops_done", j->loops_done);
	json_object_set_new(o, "summary", summary_json(passes, n));
	json_object_set_new(o, "passes", arr);
	json_object_set_new(o, "params", params_json(j));
	json_object_set_new(o, "created_at", api_time(j->created_at));
	json_object_set_new(o, "started_at", api_time(j->started_at));
	json_object_set_new(o, "finished_at", api_time(j->finished_at));
	json_object_set_new(o, "error",
	                    j->has_error ? json_pack("{s:s,s:s}", "code", j->error_code, "message",
	                                             j->error_message)
	                                 : json_null());
	json_object_set_new(o, "params_changed",
	                    j->has_params_changed ? json_string(j->params_changed) : json_null());
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
		o = job_json(a, &rec);
		store_job_rec_release(&rec);
		/* Report "queued" as the submit saw it, even if the worker has already started. */
		json_object_set_new(o, "state", json_string("queued"));
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
		json_array_append_new(arr, job_json(a, &list[i]));
	store_jobs_free(list, n);
	api_json(resp, 200, json_pack("{s:o}", "jobs", arr));
}

void api_job_get(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct job_rec rec;
	struct err e;
	int64_t id;

	err_clear(&e);
	if (job_id_arg(req, &id, &e) || job_get(a->jobs, id, &rec, &e)) {
		api_fail(resp, &e);
		return;
	}
	api_json(resp, 200, job_json(a, &rec));
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
	api_json(resp, rc == -EINPROGRESS ? 202 : 200, job_json(a, &rec));
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
	struct tm tm;
	const char *end;
	int64_t n;

	if (!num_parse_i64(s, &n) && n >= 0) {
		*out = (double)n;
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end) {
		memset(&tm, 0, sizeof(tm));
		end = strptime(s, "%Y-%m-%d", &tm);
	}
	if (!end || (*end && strcmp(end, "Z")))
		return -EINVAL;
	*out = (double)timegm(&tm);
	return 0;
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
		        "since: expected epoch seconds or 2026-11-29T23:00:00Z, got '%.*s'",
		        utf8_cut(since, 40), since);
		goto fail;
	}
	f.limit = (int)http_query_int(req, "limit", 50);
	f.before_id = http_query_int(req, "before_id", 0);
	if (job_results(a->jobs, &f, &list, &n, &e))
		goto fail;
	arr = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(arr, job_json(a, &list[i]));
	api_json(resp, 200,
	         json_pack("{s:o,s:o}", "results", arr, "next_before_id",
	                   n == f.limit && n > 0 ? json_integer((json_int_t)list[n - 1].id)
	                                         : json_null()));
	store_jobs_free(list, n);
	return;
fail:
	api_fail(resp, &e);
}
