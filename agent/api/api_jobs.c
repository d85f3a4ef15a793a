/* api_jobs.c -- the jobs and results routes: submit (or dry-run), list, get, cancel, raw output,
 * history. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api_priv.h"
#include "api/switches.h"
#include "num.h"
#include "queue/job.h"
#include "timeutil.h"
#include "utf8.h"
#include "xmalloc.h"
#include "banned.h"

/* The job object with the members in fields; its passes are read only when asked for. */
static json_t *job_json(struct agent *a, const struct job_rec *j, unsigned fields)
{
	struct pass_rec *passes = NULL;
	int n = 0;
	struct err e;
	json_t *o;

	err_clear(&e);
	if (wire_job_fields_need_passes(fields) && job_passes(a->jobs, j->id, &passes, &n, &e))
		n = 0;
	o = wire_job_to_json(j, passes, n, fields);
	store_passes_free(passes, n);
	return o;
}

static int job_id_arg(const struct http_req *req, int64_t *id, struct err *e)
{
	if (num_parse_i64(req->args[0], id) || *id <= 0)
		return err_set(e, -ENOENT, ERR_NOT_FOUND, "no job '%.*s'",
		               utf8_cut(req->args[0], 32), req->args[0]);
	return 0;
}

/* POST /jobs: decode the body once, then check it (?dry_run=true: and stop there) or queue it.
 * A job with a filesystem is checked on the slow-work thread (its checks run mkfs's dry run). */
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
	if ((spec.fs || spec.fio_file) && !req->on_worker) {
		/* Its checks run mkfs's dry run, which may take as long as the disk makes it, or
		 * fio --parse-only on a job file: not on an HTTP thread (issue 31 item 8). */
		resp->slow = true;
		goto out;
	}
	if (dry_run) {
		struct jobfs_made *would = xcalloc(1, sizeof(*would));

		if (job_check(a->jobs, &spec, would, &e)) {
			api_fail(resp, &e);
		} else {
			struct metric_names names;
			struct jobq_env env = agent_jobq_env(a);
			double pass_s, run_s;

			job_metrics(&spec, &names);
			job_deadlines(&env, &spec, &pass_s, &run_s);
			api_json(resp, 200,
			         wire_job_dry_run_to_json(&spec, &names,
			                                  job_expected_runtime_s(&spec), pass_s,
			                                  run_s, spec.fs ? would : NULL));
		}
		free(would);
		goto out;
	}
	if (job_submit(a->jobs, &spec, &id, &e)) {
		api_fail(resp, &e);
		goto out;
	}
	snprintf(loc, sizeof(loc), "/api/v1/jobs/%lld", (long long)id);
	resp->location = xstrdup(loc);
	if (job_get(a->jobs, id, &rec, &e) == 0) {
		o = job_json(a, &rec, WIRE_JOB_ALL);
		store_job_rec_release(&rec);
		/* Report "queued" as the submit saw it, even if the worker has already started. */
		json_object_set_new(o, "state", json_string(job_state_name(JOB_QUEUED)));
		json_object_set_new(o, "version",
		                    json_integer((json_int_t)job_version(JOB_QUEUED, 0, 0)));
		api_json(resp, 202, o);
	} else {
		api_json(resp, 202,
		         json_pack("{s:I,s:s}", "id", (json_int_t)id, "state",
		                   job_state_name(JOB_QUEUED)));
	}
out:
	job_spec_release(&spec);
}

void api_jobs_list(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct job_rec *list = NULL;
	int limit = (int)http_query_int(req, "limit", 50);
	const char *fields = http_query(req, "fields");
	unsigned mask = wire_job_list_fields();
	json_t *arr;
	struct err e;
	int n = 0, i;

	err_clear(&e);
	if (fields && wire_job_fields_parse(fields, &mask, &e)) {
		api_fail(resp, &e);
		return;
	}
	if (job_list(a->jobs, http_query(req, "state"), limit, wire_job_fields_need_params(mask),
	             &list, &n, &e)) {
		api_fail(resp, &e);
		return;
	}
	arr = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(arr, job_json(a, &list[i], mask));
	store_jobs_free(list, n);
	api_json(resp, 200, json_pack("{s:o}", "jobs", arr));
}

/* Whether a job record is in a final state (a word no state has counts as final). */
static bool rec_final(const struct job_rec *rec)
{
	int k = job_state_parse(rec->state);

	return k < 0 || job_state_final((enum job_state)k);
}

/*
 * GET /jobs/{id}[?wait_s=N&after=VERSION][&until=end][&fields=a,b]: the job, or with wait_s a
 * long-poll: answered at once when the job's version differs from after, else held until it
 * changes or N seconds pass (then answered with the same version). With until=end it is held
 * until the job has ended instead (after is not needed): one answer for a job however often
 * its progress moves. A job the agent has never had, or no longer has, is 404 at once.
 */
void api_job_get(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	long long wait_s = http_query_int(req, "wait_s", 0);
	const char *fields = http_query(req, "fields"), *until = http_query(req, "until");
	bool until_end = until && !strcmp(until, "end");
	unsigned mask = WIRE_JOB_ALL;
	struct job_rec rec;
	struct err e;
	int64_t id;

	err_clear(&e);
	if (switches_no_long_poll() &&
	    (http_query(req, "wait_s") || http_query(req, "after") || until)) {
		/* As an agent before long-polls answered: the key is unknown. */
		http_error(resp, 400, ERR_UNKNOWN_QUERY_PARAM,
		           "unknown query parameter '%s': GET /api/v1/jobs/{id} takes fields",
		           http_query(req, "wait_s") ? "wait_s"
		           : until                   ? "until"
		                                     : "after");
		return;
	}
	if (wait_s > 0 && !http_query(req, "after") && !until_end) {
		http_error(resp, 400, ERR_BAD_REQUEST,
		           "wait_s: needs after=VERSION, the version of the job you have (the "
		           "\"version\" of the last answer), or until=end");
		return;
	}
	if ((fields && wire_job_fields_parse(fields, &mask, &e)) || job_id_arg(req, &id, &e) ||
	    job_get(a->jobs, id, &rec, &e)) {
		api_fail(resp, &e);
		return;
	}
	if (wait_s > 0 && !req->wait_over &&
	    (until_end ? !rec_final(&rec)
	               : !job_changed_since(rec.version,
	                                    (uint64_t)http_query_int(req, "after", 0)))) {
		resp->wait_s = (double)wait_s;
		resp->wait_key = job_wait_key(id, until_end);
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
	api_json(resp, rc == -EINPROGRESS ? 202 : 200, job_json(a, &rec, WIRE_JOB_ALL));
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
	f.workload = http_query(req, "workload");
	for (i = 0; i < req->n_query; i++) {
		const struct http_kv *kv = &req->query[i];
		bool label = !strncmp(kv->key, "label.", 6), param = !strncmp(kv->key, "param.", 6);
		struct store_kv *slot;

		if (!label && !param)
			continue;
		if ((label ? f.n_labels : f.n_params) == STORE_FILTER_MAX) {
			err_set(&e, -EINVAL, ERR_BAD_REQUEST, "at most %d %s filters",
			        STORE_FILTER_MAX, label ? "label" : "param");
			goto fail;
		}
		slot = label ? &f.labels[f.n_labels++] : &f.params[f.n_params++];
		slot->key = kv->key + 6;
		slot->value = kv->value;
	}
	since = http_query(req, "since");
	if (since && since_parse(since, &f.since)) {
		err_set(&e, -EINVAL, ERR_BAD_REQUEST,
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
		json_array_append_new(arr, job_json(a, &list[i], WIRE_JOB_ALL));
	api_json(resp, 200,
	         json_pack("{s:o,s:o}", "results", arr, "next_before_id",
	                   n == f.limit && n > 0 ? json_integer((json_int_t)list[n - 1].id)
	                                         : json_null()));
	store_jobs_free(list, n);
	return;
fail:
	api_fail(resp, &e);
}
