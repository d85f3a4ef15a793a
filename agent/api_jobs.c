/* api_jobs.c -- the jobs and results routes: submit, list, get, cancel, raw output, history. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_priv.h"
#include "job.h"
#include "num.h"
#include "stats.h"
#include "xmalloc.h"
#include "banned.h"

#define RESULTS_LIMIT_MAX 500

static json_t *json_or_null(const char *text)
{
	json_t *v;

	if (!text)
		return json_null();
	v = json_loads(text, 0, NULL);
	return v ? v : json_null();
}

/* {METRIC: {mean, stdev, min, max, n}} over the passes' metrics. */
static json_t *summary_json(json_t *passes)
{
	json_t *summary = json_object(), *names = json_object(), *pass, *metrics, *v;
	const char *name;
	size_t i, n = json_array_size(passes);
	double *vals = xcalloc(n + 1, sizeof(double));

	json_array_foreach(passes, i, pass)
	{
		json_object_foreach(json_object_get(pass, "metrics"), name, v)
		        json_object_set_new(names, name, json_true());
	}
	json_object_foreach(names, name, v)
	{
		struct stats_summary st;
		int k = 0;

		json_array_foreach(passes, i, pass)
		{
			metrics = json_object_get(pass, "metrics");
			if (json_is_number(json_object_get(metrics, name)))
				vals[k++] = json_number_value(json_object_get(metrics, name));
		}
		stats_summarize(vals, k, &st);
		json_object_set_new(summary, name,
		                    json_pack("{s:f,s:f,s:f,s:f,s:i}", "mean", st.mean, "stdev",
		                              st.stdev, "min", st.min, "max", st.max, "n", st.n));
	}
	json_decref(names);
	free(vals);
	return summary;
}

/* The full job object, as GET /api/v1/jobs/{id} and the results history show it. */
static json_t *job_json(struct agent *a, const struct job_rec *j)
{
	struct pass_rec *passes = NULL;
	json_t *o, *arr = json_array();
	bool running = false;
	double progress;
	int n = 0, i;
	struct err e;

	if (store_job_passes(a->store, j->id, &passes, &n, &e) == 0) {
		for (i = 0; i < n; i++)
			json_array_append_new(
			        arr, json_pack("{s:i,s:o,s:o,s:o}", "loop", passes[i].loop,
			                       "started_at", api_time(passes[i].started_at),
			                       "finished_at", api_time(passes[i].finished_at),
			                       "metrics", json_or_null(passes[i].metrics)));
		store_passes_free(passes, n);
	}
	progress = job_progress(a->jobs, j->id, &running);
	if (!running)
		progress = !strcmp(j->state, "succeeded") ? 1.0
		           : j->loops > 0                 ? (double)j->loops_done / j->loops
		                                          : 0;
	o = json_pack("{s:I,s:s,s:s,s:s,s:o,s:o,s:f,s:i,s:i}", "id", (json_int_t)j->id, "state",
	              j->state, "device", j->device, "engine", j->engine, "spec",
	              json_or_null(j->spec), "labels", json_or_null(j->labels), "progress",
	              progress, "loops", j->loops, "loops_done", j->loops_done);
	json_object_set_new(o, "summary", summary_json(arr));
	json_object_set_new(o, "passes", arr);
	json_object_set_new(o, "params", json_or_null(j->params));
	json_object_set_new(o, "created_at", api_time(j->created_at));
	json_object_set_new(o, "started_at", api_time(j->started_at));
	json_object_set_new(o, "finished_at", api_time(j->finished_at));
	json_object_set_new(o, "error",
	                    j->has_error ? json_pack("{s:s,s:s}", "code", j->error_code, "message",
	                                             j->error_message)
	                                 : json_null());
	return o;
}

static int job_id_arg(const struct http_req *req, int64_t *id, struct err *e)
{
	if (num_parse_i64(req->args[0], id) || *id <= 0)
		return err_set(e, -ENOENT, "not_found", "no job '%.32s'", req->args[0]);
	return 0;
}

void api_jobs_post(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct job_rec rec;
	char loc[64];
	int64_t id;
	json_t *body;
	struct err e;

	body = api_body_object(req, resp, job_spec_keys, false);
	if (!body)
		return;
	err_clear(&e);
	if (job_submit(a->jobs, body, &id, &e)) {
		json_decref(body);
		api_fail(resp, &e);
		return;
	}
	json_decref(body);
	snprintf(loc, sizeof(loc), "/api/v1/jobs/%lld", (long long)id);
	resp->location = xstrdup(loc);
	if (store_job_get(a->store, id, &rec, &e) == 0) {
		json_t *o = job_json(a, &rec);

		store_job_rec_release(&rec);
		/* Report "queued" as the submit saw it, even if the worker has already started. */
		json_object_set_new(o, "state", json_string("queued"));
		api_json(resp, 202, o);
		return;
	}
	api_json(resp, 202, json_pack("{s:I,s:s}", "id", (json_int_t)id, "state", "queued"));
}

static const char *const job_states[] = { "queued",    "running",     "succeeded", "failed",
	                                  "cancelled", "interrupted", NULL };

static bool state_ok(const char *s)
{
	int i;

	for (i = 0; job_states[i]; i++)
		if (!strcmp(job_states[i], s))
			return true;
	return false;
}

void api_jobs_list(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	const char *state = http_query(req, "state");
	struct job_rec *list = NULL;
	long long limit;
	json_t *arr;
	struct err e;
	int n = 0, i;

	err_clear(&e);
	if (state && !state_ok(state)) {
		err_set(&e, -EINVAL, "bad_request", "state: '%.32s' is not a job state", state);
		api_fail(resp, &e);
		return;
	}
	if (api_query_int(req, "limit", 50, 1, RESULTS_LIMIT_MAX, &limit, &e) ||
	    store_jobs_list(a->store, state, (int)limit, &list, &n, &e)) {
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
	if (job_id_arg(req, &id, &e) || store_job_get(a->store, id, &rec, &e)) {
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
	if (job_id_arg(req, &id, &e) || store_job_get(a->store, id, &rec, &e)) {
		api_fail(resp, &e);
		return;
	}
	store_job_rec_release(&rec);
	rc = job_cancel(a->jobs, id, &e);
	if (rc && rc != -EINPROGRESS) {
		api_fail(resp, &e);
		return;
	}
	if (store_job_get(a->store, id, &rec, &e)) {
		api_fail(resp, &e);
		return;
	}
	api_json(resp, rc == -EINPROGRESS ? 202 : 200, job_json(a, &rec));
	store_job_rec_release(&rec);
}

void api_job_raw(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	char *raw = NULL;
	long long loop;
	size_t len;
	struct err e;
	int64_t id;

	err_clear(&e);
	if (job_id_arg(req, &id, &e) || api_query_int(req, "loop", 1, 1, 100, &loop, &e) ||
	    store_job_raw(a->store, id, (int)loop, &raw, &len, &e)) {
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

void api_results_list(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct result_filter f;
	struct job_rec *list = NULL;
	long long limit, before;
	const char *since;
	json_t *arr;
	struct err e;
	int n = 0, i;

	err_clear(&e);
	memset(&f, 0, sizeof(f));
	f.device = http_query(req, "device");
	f.engine = http_query(req, "engine");
	f.state = http_query(req, "state");
	if (f.state && !state_ok(f.state)) {
		err_set(&e, -EINVAL, "bad_request", "state: '%.32s' is not a job state", f.state);
		goto fail;
	}
	for (i = 0; i < req->n_query; i++) {
		const struct http_kv *kv = &req->query[i];

		if (!strncmp(kv->key, "label.", 6) && kv->key[6]) {
			if (f.n_labels == STORE_FILTER_MAX) {
				err_set(&e, -EINVAL, "bad_request", "at most %d label filters",
				        STORE_FILTER_MAX);
				goto fail;
			}
			f.labels[f.n_labels].key = kv->key + 6;
			f.labels[f.n_labels++].value = kv->value;
		} else if (!strncmp(kv->key, "param.", 6) && kv->key[6]) {
			if (f.n_params == STORE_FILTER_MAX) {
				err_set(&e, -EINVAL, "bad_request", "at most %d param filters",
				        STORE_FILTER_MAX);
				goto fail;
			}
			f.params[f.n_params].key = kv->key + 6;
			f.params[f.n_params++].value = kv->value;
		} else if (strcmp(kv->key, "device") && strcmp(kv->key, "engine") &&
		           strcmp(kv->key, "state") && strcmp(kv->key, "since") &&
		           strcmp(kv->key, "limit") && strcmp(kv->key, "before_id")) {
			err_set(&e, -EINVAL, "bad_request",
			        "unknown filter '%.64s' (device, engine, state, label.KEY, "
			        "param.NAME, since, limit, before_id)",
			        kv->key);
			goto fail;
		}
	}
	since = http_query(req, "since");
	if (since && since_parse(since, &f.since)) {
		err_set(&e, -EINVAL, "bad_request",
		        "since: expected epoch seconds or 2026-11-29T23:00:00Z, got '%.40s'",
		        since);
		goto fail;
	}
	if (api_query_int(req, "limit", 50, 1, RESULTS_LIMIT_MAX, &limit, &e) ||
	    api_query_int(req, "before_id", 0, 1, INT64_MAX, &before, &e))
		goto fail;
	f.limit = (int)limit;
	f.before_id = before;
	if (store_results(a->store, &f, &list, &n, &e))
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
