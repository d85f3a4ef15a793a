/* fleet.c -- the controller's wire layer: agent API JSON, fanned out to every node at once. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fleet/answer.h"
#include "fleet/fleet.h"
#include "fleet/fleet_priv.h"
#include "jread.h"
#include "plan/fsparam.h"
#include "protocol.h"
#include "timeutil.h"
#include "utf8.h"
#include "xmalloc.h"
#include "banned.h"

/* One prepared job request body per node: the plan's job, labels and device. */
struct fleet_jobs {
	json_t **body;
};

/* Per node: the job request in flight, if any, and what the last answer said. */
struct fleet_wait {
	struct client_req req;
	bool busy;          /* req started and not ended */
	int64_t job;        /* the job the fields below are about */
	int64_t version;    /* its version in the last answer; 0: none yet (answers at once) */
	double next_get_at; /* plain polling: monotonic time of the next GET */
};

/* fleet_jobs_wait finds a wait from its ended request. */
_Static_assert(offsetof(struct fleet_wait, req) == 0, "req must be a wait's first member");

struct fleet_waits {
	struct fleet_wait *w;
	struct client_req **done;
};

/* A suite's "workloads": [{"name", "fio"}] in the plan's order (the agent contract). */
static json_t *workloads_json(const struct plan *p)
{
	json_t *a = json_array();
	int w;

	for (w = 0; w < p->nworkloads; w++) {
		json_t *o = json_object();
		json_t *fio = json_loads(p->workloads[w].fio_json, 0, NULL);

		json_object_set_new(o, "name", json_string(p->workloads[w].name));
		json_object_set_new(o, "fio", fio ? fio : json_object());
		json_array_append_new(a, o);
	}
	return a;
}

/* Build each node's job body once; fleet_jobs_body() fills the per-run fields. */
static struct fleet_jobs *jobs_build(const struct plan *p)
{
	struct fleet_jobs *j = xcalloc(1, sizeof(*j));
	json_t *opts = p->engine_json ? json_loads(p->engine_json, 0, NULL) : NULL;
	json_t *labels = json_object();
	int i;

	for (i = 0; i < p->nlabels; i++)
		json_object_set_new(labels, p->labels[i].key, json_string(p->labels[i].value));
	j->body = xcalloc((size_t)p->nnodes + 1, sizeof(*j->body));
	for (i = 0; i < p->nnodes; i++) {
		json_t *body = json_object();

		json_object_set_new(body, "device", json_string(p->nodes[i].device));
		json_object_set_new(body, "engine", json_string(p->engine));
		if (opts)
			json_object_set(body, p->engine, opts);
		if (p->fio_file)
			json_object_set_new(body, "fio_file", json_string(p->fio_file));
		json_object_set_new(body, "loops", json_integer(p->loops));
		json_object_set_new(body, "labels", json_deep_copy(labels));
		if (p->directory)
			json_object_set_new(body, "directory", json_string(p->directory));
		if (p->nworkloads) /* a suite: one job, its workloads as fio sections */
			json_object_set_new(body, "workloads", workloads_json(p));
		j->body[i] = body;
	}
	json_decref(opts);
	json_decref(labels);
	return j;
}

static void jobs_free(struct fleet_jobs *j, int n)
{
	int i;

	if (!j)
		return;
	for (i = 0; i < n; i++)
		json_decref(j->body[i]);
	free(j->body);
	free(j);
}

/* The job's "filesystem" object of run, or NULL without one: mkfs's options as argv tokens
 * (the agent takes one option or value per element). */
static json_t *filesystem_json(const struct fsparam_run *run)
{
	json_t *o, *mkfs;
	int k;

	if (!run->fs.present)
		return NULL;
	o = json_object();
	mkfs = json_array();
	json_object_set_new(o, "type", json_string(run->fs.type));
	if (run->n_mkfs < 0) /* the agent says what is wrong with it */
		json_array_append_new(mkfs, json_string(run->fs.mkfs));
	for (k = 0; k < run->n_mkfs; k++)
		json_array_append_new(mkfs, json_string(run->mkfs_tok[k]));
	json_object_set_new(o, "mkfs", mkfs);
	json_object_set_new(o, "mount", json_string(run->fs.mount));
	return o;
}

/* The agent's limit on a label value, in bytes: the sweep_config label is cut to it. */
#define LABEL_VALUE_MAX 256

/* Node i's job body for one run of a configuration (its filesystem and label, worked out by
 * fsparam_run_of), as text. Caller has ownership. */
static char *jobs_body(struct fleet_jobs *j, int i, int64_t sweep_id, int point, int loops,
                       const struct fsparam_run *run, json_t *params, double start_at)
{
	json_t *labels = json_object_get(j->body[i], "labels");
	json_t *fs = filesystem_json(run);
	char text[32];

	if (fs)
		json_object_set_new(j->body[i], "filesystem", fs);
	else
		json_object_del(j->body[i], "filesystem");
	/* The device's values in the job itself: the agent applies them before loop 1 and
	 * records what it applied (the job's "applied"); they stay set as a PATCH leaves them
	 * (params_restore false): the node's tuning session, open for the whole sweep, puts the
	 * device back, so nothing is written twice between two runs. */
	if (params) { /* one object, shared by the bodies of a configuration */
		json_object_set(j->body[i], "params", params);
		json_object_set_new(j->body[i], "params_restore", json_false());
	} else {
		json_object_del(j->body[i], "params");
		json_object_del(j->body[i], "params_restore");
	}

	if (sweep_id >= 0) { /* -1: a run of no sweep (a rollout's measurement) */
		snprintf(text, sizeof(text), "%lld", (long long)sweep_id);
		json_object_set_new(labels, "sweep", json_string(text));
		snprintf(text, sizeof(text), "%d", point);
		json_object_set_new(labels, "sweep_point", json_string(text));
	}
	json_object_set_new(labels, "sweep_config", json_string(run->label));
	json_object_set_new(j->body[i], "loops", json_integer(loops));
	if (start_at > 0) {
		char at[40];

		time_fmt_iso_ms(start_at, at, sizeof(at));
		json_object_set_new(j->body[i], "start_at", json_string(at));
	} else {
		json_object_del(j->body[i], "start_at");
	}
	return json_dumps(j->body[i], JSON_COMPACT | JSON_PRESERVE_ORDER);
}

void fleet_init(struct fleet *f, const struct plan *plan, double timeout_s, int retries)
{
	int i;

	memset(f, 0, sizeof(*f));
	f->plan = plan;
	f->client = client_new(timeout_s, retries, plan->nnodes);
	f->active = xcalloc((size_t)plan->nnodes + 1, sizeof(bool));
	f->session_id = xcalloc((size_t)plan->nnodes + 1, sizeof(int64_t));
	for (i = 0; i < plan->nnodes; i++)
		f->active[i] = true;
	f->jobs = jobs_build(plan);
	f->long_poll = xcalloc((size_t)plan->nnodes + 1, sizeof(bool));
	f->job_applied = xcalloc((size_t)plan->nnodes + 1, sizeof(bool));
	f->start_at = xcalloc((size_t)plan->nnodes + 1, sizeof(bool));
	f->until_end = xcalloc((size_t)plan->nnodes + 1, sizeof(bool));
	f->pass_deadline = xcalloc((size_t)plan->nnodes + 1, sizeof(bool));
	f->wait_client = client_new(timeout_s, retries, plan->nnodes);
	f->timeout_s = timeout_s;
	f->waits = xcalloc(1, sizeof(*f->waits));
	f->waits->w = xcalloc((size_t)plan->nnodes + 1, sizeof(*f->waits->w));
	f->waits->done = xcalloc((size_t)plan->nnodes + 1, sizeof(*f->waits->done));
}

void fleet_transport_set(struct fleet *f, const struct client_transport *t)
{
	client_transport_set(f->client, t);
	client_transport_set(f->wait_client, t);
}

void fleet_release(struct fleet *f)
{
	if (!f)
		return;
	if (f->waits) {
		fleet_jobs_wait_end(f);
		free(f->waits->w);
		free(f->waits->done);
		free(f->waits);
	}
	client_free(f->wait_client);
	client_free(f->client);
	jobs_free(f->jobs, f->plan ? f->plan->nnodes : 0);
	free(f->long_poll);
	free(f->job_applied);
	free(f->start_at);
	free(f->until_end);
	free(f->pass_deadline);
	free(f->active);
	free(f->session_id);
	memset(f, 0, sizeof(*f));
}

/* Prepare reqs for node i: METHOD url+path with body (taken over; may be NULL), the answer
 * bounded by its route. */
void req_node(struct fleet *f, struct client_req *r, int i, const char *method, const char *path,
              char *body)
{
	const struct plan_node *n = &f->plan->nodes[i];
	struct answer_bounds b;
	bool skip = r->skip;

	client_req_init(r, method, xasprintf("%s%s", n->url, path), body, n->token);
	r->skip = skip;
	answer_bounds_of(method, r->url, &b);
	r->max_bytes = b.max_bytes;
	r->peer = n->name;
}

/* The answer of r decoded under its route's bounds (answer.h: its text cleaned), or NULL with
 * why in e. */
static json_t *answer_json(const struct client_req *r, struct err *e)
{
	struct answer_bounds b;

	answer_bounds_of(r->method, r->url, &b);
	return answer_decode(r->resp.data, r->resp.len, &b, e);
}

/* The agent's {"error":{"code","message"}} (cleaned by answer_decode); false when the body
 * has none. */
bool agent_error(const struct client_req *r, struct err *e)
{
	struct err ae = { 0 };
	json_t *root = r->resp.data ? answer_json(r, &ae) : NULL;
	json_t *err = json_object_get(root, "error");
	bool ok = json_is_string(json_object_get(err, "message"));

	if (ok)
		err_set_word(e, 0, jread_text(err, "code"), "%s", jread_text(err, "message"));
	json_decref(root);
	return ok;
}

/* Whether r got an answer that says the agent did not take its token (401, 403). */
static bool auth_refused(const struct client_req *r)
{
	return r->rc == 0 && (r->status == 401 || r->status == 403);
}

/* "HTTP 422: the agent's message", else the HTTP status or transport error; a 2xx answer
 * that was refused says why ("HTTP 200: the answer has more than 4000 elements"); a 401 or
 * 403 is an authentication failure naming the node. */
void req_error(const struct client_req *r, struct err *why)
{
	struct err e = { 0 }, ae = { 0 };
	char text[256];
	json_t *o;

	if (auth_refused(r)) {
		if (!agent_error(r, &ae))
			ae.code = r->status == 401 ? ERR_UNAUTHORIZED : ERR_FORBIDDEN;
		err_set_word(
		        why, 0, err_word(&ae),
		        "authentication failed: %s%s%sanswered HTTP %ld (%s): the agent does not "
		        "take "
		        "this token; check the node's token_file or token",
		        r->peer ? "node '" : "", r->peer ? r->peer : "", r->peer ? "' " : "",
		        r->status, r->status == 401 ? "unauthorized" : "forbidden");
	} else if (r->rc == 0 && r->status >= 200 && r->status <= 299) {
		o = answer_json(r, &e);
		if (o)
			err_set(why, 0, ERR_BAD_ANSWER, "HTTP %ld", r->status);
		else
			err_set(why, 0, e.code, "HTTP %ld: %s", r->status, e.msg);
		json_decref(o);
	} else if (r->rc == 0 && agent_error(r, &ae)) {
		err_set_word(why, 0, err_word(&ae), "HTTP %ld: %s", r->status, ae.msg);
	} else {
		client_req_describe(r, text, sizeof(text));
		err_set(why, 0,
		        r->rc == 0     ? ERR_HTTP_STATUS
		        : r->too_large ? ERR_ANSWER_TOO_LARGE
		                       : ERR_UNREACHABLE,
		        "%s", text);
	}
}

/* The outcome of one ended request into res: failed unless 2xx with an answer taken (none, or
 * one within its route's bounds). */
void fanout_result(const struct client_req *r, struct fleet_result *res)
{
	struct err e = { 0 };
	json_t *o;

	memset(res, 0, sizeof(*res));
	if (r->rc < 0 || r->status < 200 || r->status > 299) {
		res->failed = true;
		res->unreachable = r->rc < 0;
		res->auth = auth_refused(r);
		req_error(r, &res->err);
		return;
	}
	if (!r->resp.len)
		return;
	o = answer_json(r, &e);
	if (!o) {
		res->failed = true;
		err_set(&res->err, 0, e.code, "HTTP %ld: %s", r->status, e.msg);
	}
	json_decref(o);
}

/* Run reqs and fill res for every non-skipped request. */
static void fanout_run(struct fleet *f, struct client_req *reqs, int n, struct fleet_result *res)
{
	int i;

	client_run(f->client, reqs, n);
	for (i = 0; res && i < n; i++) {
		if (reqs[i].skip)
			memset(&res[i], 0, sizeof(res[i]));
		else
			fanout_result(&reqs[i], &res[i]);
	}
}

void reqs_release(struct client_req *reqs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		client_req_release(&reqs[i]);
	free(reqs);
}

json_t *resp_json(const struct client_req *r)
{
	struct err e = { 0 };

	if (r->skip || r->rc < 0 || r->status < 200 || r->status > 299 || !r->resp.data)
		return NULL;
	return answer_json(r, &e);
}

/* Read each answer of a dry run into out[i]; a 2xx answer is a pass. */
static void dry_run_read(const struct client_req *reqs, int n, struct fleet_dry_run *out)
{
	int i;

	for (i = 0; i < n; i++) {
		const struct client_req *r = &reqs[i];
		struct fleet_dry_run *d = &out[i];
		json_t *root, *m;
		size_t j;

		memset(d, 0, sizeof(*d));
		if (r->skip)
			continue;
		d->status = r->status;
		if (r->rc < 0 || r->status < 200 || r->status > 299) {
			d->failed = true;
			d->unreachable = r->rc < 0;
			if (r->rc < 0 || !agent_error(r, &d->err))
				req_error(r, &d->err);
			continue;
		}
		root = resp_json(r);
		d->confirmed = json_is_true(json_object_get(root, "dry_run"));
		m = json_object_get(root, "metrics");
		d->metrics = xcalloc(json_array_size(m) + 1, sizeof(*d->metrics));
		for (j = 0; j < json_array_size(m); j++) {
			const char *name = json_string_value(json_array_get(m, j));

			if (name && strlen(name) < PARAM_NAME_MAX)
				snprintf(d->metrics[d->nmetrics++], PARAM_NAME_MAX, "%s", name);
		}
		m = json_object_get(root, "expected_runtime_s");
		d->expected_runtime_s = json_is_number(m) ? json_number_value(m) : 0;
		json_decref(root);
	}
}

void fleet_params_dry_run(struct fleet *f, const bool *ask, const struct config *cfg,
                          struct fleet_dry_run *out)
{
	const struct plan *p = f->plan;
	int n = p->nnodes, i;
	struct client_req *reqs = xcalloc((size_t)n, sizeof(*reqs));
	struct config dev;
	char *params;

	fsparam_device_config(cfg, &dev);
	if (!dev.n) { /* only fs.* values: nothing to PATCH (the job dry run judges them) */
		for (i = 0; i < n; i++) {
			memset(&out[i], 0, sizeof(out[i]));
			out[i].confirmed = true;
		}
		free(reqs);
		return;
	}
	params = config_to_json(&dev);
	for (i = 0; i < n; i++) {
		char path[192];

		reqs[i].skip = !f->active[i] || !ask[i];
		snprintf(path, sizeof(path), "/api/v1/devices/%s/params?dry_run=true",
		         p->nodes[i].device);
		req_node(f, &reqs[i], i, "PATCH", path, xasprintf("{\"params\":%s}", params));
	}
	client_run(f->client, reqs, n);
	dry_run_read(reqs, n, out);
	free(params);
	reqs_release(reqs, n);
}

void fleet_job_dry_run(struct fleet *f, const bool *ask, const struct config *cfg,
                       struct fleet_dry_run *out)
{
	int n = f->plan->nnodes, i;
	struct client_req *reqs = xcalloc((size_t)n, sizeof(*reqs));
	struct fsparam_run *run = xcalloc(1, sizeof(*run));

	fsparam_run_of(f->plan, cfg, LABEL_VALUE_MAX, run);
	for (i = 0; i < n; i++) {
		reqs[i].skip = !f->active[i] || !ask[i];
		req_node(f, &reqs[i], i, "POST", "/api/v1/jobs?dry_run=true",
		         jobs_body(f->jobs, i, 0, 0, f->plan->loops, run, NULL, 0));
	}
	free(run);
	client_run(f->client, reqs, n);
	dry_run_read(reqs, n, out);
	reqs_release(reqs, n);
}

void fleet_dry_run_release(struct fleet_dry_run *d, int n)
{
	int i;

	for (i = 0; d && i < n; i++) {
		free(d[i].metrics);
		d[i].metrics = NULL;
		d[i].nmetrics = 0;
	}
}

/* The "applied" object of a PATCH answer or of a job (per item: value, adjusted, mapped_to)
 * against cfg, the device values asked for: applied values and the adjusted mask. */
static void applied_parse(json_t *ap, const struct config *cfg, struct config *applied,
                          unsigned *adjusted)
{
	int k;

	memset(applied, 0, sizeof(*applied));
	*adjusted = 0;
	for (k = 0; k < cfg->n; k++) {
		json_t *it = json_object_get(ap, cfg->s[k].name);
		char val[PARAM_VALUE_MAX];
		bool is_int;

		if (!it ||
		    !config_value_text(json_object_get(it, "value"), val, sizeof(val), &is_int)) {
			config_set(applied, cfg->s[k].name, "?", false);
			continue;
		}
		config_set(applied, cfg->s[k].name, val, is_int);
		/* A legacy scheduler alias mapped by the agent is not an adjustment. */
		if (json_is_true(json_object_get(it, "adjusted")) ||
		    (strcmp(val, cfg->s[k].value) && !json_object_get(it, "mapped_to")))
			*adjusted |= 1u << (applied->n - 1);
	}
}

/* The read-back of an answered PATCH of cfg. */
static void applied_read(const struct client_req *req, const struct config *cfg,
                         struct config *applied, unsigned *adjusted)
{
	json_t *r = resp_json(req);

	memset(applied, 0, sizeof(*applied));
	*adjusted = 0;
	if (!r)
		return;
	applied_parse(json_object_get(r, "applied"), cfg, applied, adjusted);
	json_decref(r);
}

/* Node i's PATCH of cfg (the params JSON text) into r. */
static void params_req(struct fleet *f, struct client_req *r, int i, const char *params)
{
	char path[160];

	snprintf(path, sizeof(path), "/api/v1/devices/%s/params", f->plan->nodes[i].device);
	req_node(f, r, i, "PATCH", path, xasprintf("{\"params\":%s}", params));
}

void fleet_params_apply_each(struct fleet *f, const struct config *const *cfgs,
                             struct config *applied, unsigned *adjusted, struct fleet_result *res)
{
	int n = f->plan->nnodes, i;
	struct client_req *reqs = xcalloc((size_t)n, sizeof(*reqs));
	const struct config *last = NULL;
	struct config dev = { 0 };
	char *params = NULL;

	for (i = 0; i < n; i++) {
		reqs[i].skip = true;
		if (!cfgs[i] || !f->active[i])
			continue;
		if (cfgs[i] != last) { /* the body of a configuration once, not once per node */
			/* A filesystem is made by jobs, never applied. */
			fsparam_device_config(cfgs[i], &dev);
			free(params);
			params = config_to_json(&dev);
			last = cfgs[i];
		}
		if (!dev.n)
			continue; /* nothing for this device: it "applied" nothing */
		reqs[i].skip = false;
		params_req(f, &reqs[i], i, params);
	}
	fanout_run(f, reqs, n, res);
	for (i = 0; i < n; i++) {
		memset(&applied[i], 0, sizeof(applied[i]));
		adjusted[i] = 0;
		if (reqs[i].skip)
			continue;
		fsparam_device_config(cfgs[i], &dev);
		applied_read(&reqs[i], &dev, &applied[i], &adjusted[i]);
	}
	free(params);
	reqs_release(reqs, n);
}

void fleet_params_apply(struct fleet *f, const struct config *cfg, struct config *applied,
                        unsigned *adjusted, struct fleet_result *res)
{
	const struct config **cfgs = xcalloc((size_t)f->plan->nnodes + 1, sizeof(*cfgs));
	int i;

	for (i = 0; i < f->plan->nnodes; i++)
		cfgs[i] = cfg;
	fleet_params_apply_each(f, cfgs, applied, adjusted, res);
	free(cfgs);
}

static int64_t json_id(json_t *o)
{
	json_t *id = json_object_get(o, "id");

	return json_is_integer(id) ? (int64_t)json_integer_value(id) : 0;
}

void fleet_sessions_open(struct fleet *f, double ttl_s, struct fleet_result *res)
{
	const struct plan *p = f->plan;
	int n = p->nnodes, i;
	struct client_req *reqs = xcalloc((size_t)n, sizeof(*reqs));

	f->session_ttl_s = ttl_s;
	for (i = 0; i < n; i++) {
		char path[160];

		reqs[i].skip = !f->active[i];
		snprintf(path, sizeof(path), "/api/v1/devices/%s/sessions", p->nodes[i].device);
		req_node(f, &reqs[i], i, "POST", path, xasprintf("{\"ttl_s\":%d}", (int)ttl_s));
	}
	fanout_run(f, reqs, n, res);
	for (i = 0; i < n; i++) {
		json_t *r = resp_json(&reqs[i]);

		if (r)
			f->session_id[i] = json_id(r);
		json_decref(r);
	}
	reqs_release(reqs, n);
}

/* POST .../renew or DELETE ... on every node with a session. */
static void sessions_call(struct fleet *f, bool close, bool restore, struct fleet_result *res)
{
	int n = f->plan->nnodes, i;
	struct client_req *reqs = xcalloc((size_t)n, sizeof(*reqs));

	for (i = 0; i < n; i++) {
		char path[160];

		if (close)
			snprintf(path, sizeof(path), "/api/v1/sessions/%lld?restore=%s",
			         (long long)f->session_id[i], restore ? "true" : "false");
		else
			snprintf(path, sizeof(path), "/api/v1/sessions/%lld/renew",
			         (long long)f->session_id[i]);
		reqs[i].skip = f->session_id[i] == 0 || (!close && !f->active[i]);
		req_node(f, &reqs[i], i, close ? "DELETE" : "POST", path,
		         close ? NULL : xstrdup("{}"));
	}
	fanout_run(f, reqs, n, res);
	for (i = 0; close && i < n; i++)
		if (!reqs[i].skip && (!res || !res[i].failed || reqs[i].status == 404))
			f->session_id[i] = 0;
	reqs_release(reqs, n);
}

void fleet_sessions_renew(struct fleet *f, struct fleet_result *res)
{
	sessions_call(f, false, false, res);
}

void fleet_sessions_close(struct fleet *f, bool restore, struct fleet_result *res)
{
	sessions_call(f, true, restore, res);
}

/* The agent's id of the job an answered POST started; a 2xx answer without one fails res. */
static int64_t job_id_read(const struct client_req *req, struct fleet_result *res)
{
	json_t *r = resp_json(req);
	int64_t id = r ? json_id(r) : 0;

	if (r && !id) {
		res->failed = true;
		err_set(&res->err, 0, ERR_BAD_ANSWER, "job response has no id");
	}
	json_decref(r);
	return id;
}

void fleet_point_start(struct fleet *f, const struct config *cfg, int64_t sweep_id, int point,
                       int loops, struct fleet_node_run *nodes)
{
	int n = f->plan->nnodes, i, started = 0, got, k;
	/* reqs[i]: node i's PATCH; reqs[n + i]: its job POST. */
	struct client_req *reqs = xcalloc((size_t)n * 2, sizeof(*reqs));
	struct client_req **done = xcalloc((size_t)n * 2, sizeof(*done));
	const struct config *last = NULL, *c;
	/* the run of the configuration last seen, and of one whose PATCH came back */
	struct fsparam_run *run = xcalloc(2, sizeof(*run));
	const struct config *dev = &run[0].device;
	char *params = NULL; /* the device values: a PATCH's text, and as the job's object */
	json_t *params_json = NULL;

	/* fs.* values go into the job's filesystem, the rest onto the device: in the job's body
	 * where the caller asks for it and the agent records what its params did (job_applied),
	 * else by a PATCH first; with nothing for the device, the job starts at once. A node runs
	 * its own configuration where it has one (a cohort's, nodes[i].cfg), else cfg. */
	for (i = 0; i < n; i++) {
		struct fleet_node_run *nr = &nodes[i];

		memset(&nr->applied, 0, sizeof(nr->applied));
		nr->adjusted = 0;
		nr->applied_seen = false;
		nr->in_job = false;
		memset(&nr->patch, 0, sizeof(nr->patch));
		nr->job_id = 0;
		memset(&nr->post, 0, sizeof(nr->post));
		free(nr->job.series);
		memset(&nr->job, 0, sizeof(nr->job));
		memset(&nr->wait, 0, sizeof(nr->wait));
		nr->fresh = false;
		if (!f->active[i] || !nr->run)
			continue;
		c = nr->cfg ? nr->cfg : cfg;
		nr->run_cfg = c;
		if (c != last) { /* a configuration's body once, not once per node */
			fsparam_run_of(f->plan, c, LABEL_VALUE_MAX, &run[0]);
			free(params);
			json_decref(params_json);
			params = config_to_json(dev);
			params_json = json_loads(params, 0, NULL);
			last = c;
		}
		nr->in_job = dev->n && params_json && f->params_in_job && f->job_applied[i];
		nr->applied_seen = !dev->n;
		if (!dev->n || nr->in_job) {
			char *body = jobs_body(f->jobs, i, sweep_id, point, loops, &run[0],
			                       nr->in_job ? params_json : NULL,
			                       f->start_at[i] ? nr->start_at : 0);

			req_node(f, &reqs[n + i], i, "POST", "/api/v1/jobs", body);
		} else {
			params_req(f, &reqs[i], i, params);
		}
		client_start(f->client, dev->n && !nr->in_job ? &reqs[i] : &reqs[n + i]);
		started++;
	}
	while (started > 0) {
		got = client_wait(f->client, 3600, done, 2 * n);
		started -= got;
		for (k = 0; k < got; k++) {
			i = (int)(done[k] - reqs);
			if (i >= n) {
				fanout_result(done[k], &nodes[i - n].post);
				nodes[i - n].job_id = job_id_read(done[k], &nodes[i - n].post);
				continue;
			}
			fsparam_run_of(f->plan, nodes[i].run_cfg, LABEL_VALUE_MAX, &run[1]);
			fanout_result(done[k], &nodes[i].patch);
			applied_read(done[k], &run[1].device, &nodes[i].applied,
			             &nodes[i].adjusted);
			nodes[i].applied_seen = true;
			if (nodes[i].patch.failed)
				continue;
			/* Applied and read back here: this node's job starts now, whatever the
			 * others' PATCHes are doing. */
			req_node(f, &reqs[n + i], i, "POST", "/api/v1/jobs",
			         jobs_body(f->jobs, i, sweep_id, point, loops, &run[1], NULL,
			                   f->start_at[i] ? nodes[i].start_at : 0));
			client_start(f->client, &reqs[n + i]);
			started++;
		}
	}
	free(params);
	json_decref(params_json);
	free(run);
	free(done);
	reqs_release(reqs, 2 * n);
}

/* ISO-8601 UTC ("2026-11-29T23:03:36Z", optional fraction) to epoch seconds; 0 if unparsable. */
static double iso_parse(json_t *v)
{
	double t;

	return time_parse_iso(json_string_value(v), &t) == 0 ? t : 0;
}

/* A suite pass's figures: each series from the pass's "workloads" entry of its workload's name.
 * Returns the first series it lacks, or -1 when all are there. */
static int pass_series(json_t *ps, const struct plan *p, const struct plan_series *ser, int n,
                       double *out)
{
	json_t *wl = json_object_get(ps, "workloads"), *e;
	int k;

	for (k = 0; k < n; k++) {
		const char *name = p->workloads[ser[k].workload].name;
		json_t *m = NULL;
		size_t i;

		json_array_foreach(wl, i, e)
		{
			if (json_is_string(json_object_get(e, "name")) &&
			    !strcmp(json_string_value(json_object_get(e, "name")), name)) {
				m = json_object_get(json_object_get(e, "metrics"), ser[k].metric);
				break;
			}
		}
		if (!json_is_number(m))
			return k;
		out[k] = json_number_value(m);
	}
	return -1;
}

/* The row of st's pass st->npasses in its series, grown to hold it (nser doubles a pass): a
 * job's status holds what its passes are, not a fixed block for the most a plan may give. */
static double *series_row(struct job_status *st, int nser)
{
	size_t need = ((size_t)st->npasses + 1) * (size_t)nser;

	if (need > st->series_n) {
		st->series_n = need * 2;
		st->series = xrealloc(st->series, st->series_n * sizeof(*st->series));
	}
	return &st->series[(size_t)st->npasses * (size_t)nser];
}

void fleet_node_runs_release(struct fleet_node_run *nodes, int n)
{
	int i;

	for (i = 0; nodes && i < n; i++) {
		free(nodes[i].job.series);
		nodes[i].job.series = NULL;
		nodes[i].job.series_n = 0;
		nodes[i].job.nseries = 0;
	}
}

static void job_parse(json_t *r, const struct plan *plan, struct job_status *st)
{
	const char *metric = plan->metric;
	struct plan_series ser[PLAN_SERIES_MAX];
	int nser = plan_series_build(plan, ser), lack = -1;
	const char *state = json_string_value(json_object_get(r, "state"));
	json_t *passes = json_object_get(r, "passes"), *ps, *err;
	int k = job_state_parse(state);
	char raw[sizeof(st->err.msg)];
	double t0, t1;
	size_t i;

	snprintf(st->state, sizeof(st->state), "%s", state ? state : "?");
	st->terminal = k >= 0 && job_state_final((enum job_state)k);
	st->succeeded = k == JOB_SUCCEEDED;
	st->progress = json_number_value(json_object_get(r, "progress"));
	st->loops_done = (int)json_integer_value(json_object_get(r, "loops_done"));
	st->npasses = 0;
	st->nseries = nser;
	json_array_foreach(passes, i, ps)
	{
		json_t *m = json_object_get(json_object_get(ps, "metrics"), metric);

		if (nser && lack < 0 && st->npasses < PLAN_LOOPS_MAX) {
			/* A suite: every series of the pass, the lead workload's the plain one. */
			double *row = series_row(st, nser);

			lack = pass_series(ps, plan, ser, nser, row);
			if (lack < 0) {
				st->passes[st->npasses] = row[plan->lead];
				st->npasses++;
			}
			continue;
		}
		if (!nser && st->npasses < PLAN_LOOPS_MAX && json_is_number(m))
			st->passes[st->npasses++] = json_number_value(m);
	}
	t0 = iso_parse(json_object_get(r, "started_at"));
	t1 = iso_parse(json_object_get(r, "finished_at"));
	st->started_at = t0;
	st->finished_at = t1;
	err = json_object_get(r, "error");
	err_clear(&st->err);
	if (json_is_object(err)) { /* an agent's words, escaped: they reach the terminal */
		snprintf(raw, sizeof(raw), "%s: %s", jread_text(err, "code"),
		         jread_text(err, "message"));
		err_set_word(&st->err, 0, jread_text(err, "code"), "%s", raw);
	}
	if (st->succeeded && lack >= 0) { /* the suite cannot be judged without it */
		err_set(&st->err, 0, ERR_BAD_ANSWER,
		        "pass %d has no '%s' for workload '%s' (an agent without workloads?)",
		        st->npasses + 1, ser[lack].metric,
		        plan->workloads[ser[lack].workload].name);
		st->succeeded = false;
	} else if (st->succeeded && st->npasses == 0) {
		err_set(&st->err, 0, ERR_BAD_ANSWER, "no '%s' in the job's passes", metric);
	}
	st->begun_at = iso_parse(json_object_get(r, "begun_at"));
	st->held_s = json_number_value(json_object_get(r, "held_s"));
	st->start_late_s = json_number_value(json_object_get(r, "start_late_s"));
	if (json_is_string(json_object_get(json_object_get(r, "filesystem"), "mkfs")))
		snprintf(st->mkfs, sizeof(st->mkfs), "%s",
		         jread_text(json_object_get(r, "filesystem"), "mkfs"));
	st->run_deadline_s = json_is_number(json_object_get(r, "run_deadline_s"))
	                             ? json_number_value(json_object_get(r, "run_deadline_s"))
	                             : 0;
	st->version = json_is_integer(json_object_get(r, "version"))
	                      ? (int64_t)json_integer_value(json_object_get(r, "version"))
	                      : 0;
}

/* One METHOD /api/v1/jobs/{id} request per node; nodes without a job are skipped. */
static struct client_req *job_reqs(struct fleet *f, const char *method, const int64_t *job_id)
{
	const struct plan *p = f->plan;
	struct client_req *reqs = xcalloc((size_t)p->nnodes, sizeof(*reqs));
	int i;

	for (i = 0; i < p->nnodes; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/api/v1/jobs/%lld", (long long)job_id[i]);
		reqs[i].skip = !job_id[i];
		req_node(f, &reqs[i], i, method, path, NULL);
	}
	return reqs;
}

/* Whether nr's job makes a filesystem (its answers carry the mkfs command the agent ran). */
static bool job_makes_fs(const struct fleet *f, const struct fleet_node_run *nr)
{
	struct fsparam_fs fs;

	fsparam_fs_of(f->plan, nr->run_cfg ? nr->run_cfg : &f->plan->baseline, &fs);
	return fs.present;
}

/* Start node i's next request for its job (nr) if one is due: a long-poll (asking for the
 * job's "applied" too until its read-back came), or a plain GET. */
static void wait_arm(struct fleet *f, int i, const struct fleet_node_run *nr, double poll_s,
                     double now)
{
	struct fleet_wait *w = &f->waits->w[i];
	int64_t job = nr->job_id;
	char path[256];

	if (w->job != job) {
		w->job = job;
		w->version = 0;
		w->next_get_at = 0;
	}
	if (f->long_poll[i] && f->until_end[i]) {
		/* The job's end, read-back and start in one answer; a person watching gets its
		 * progress every progress_s too. */
		snprintf(path, sizeof(path),
		         "/api/v1/jobs/%lld?wait_s=%d&until=end&fields=state,progress,loops_done,"
		         "passes,started_at,finished_at,error,begun_at,held_s,start_late_s%s%s%s",
		         (long long)job, f->progress_s > 0 ? f->progress_s : JOB_WAIT_ASK_S,
		         job_makes_fs(f, nr) ? ",filesystem" : "",
		         nr->in_job && !nr->applied_seen ? ",applied" : "",
		         f->pass_deadline[i] ? ",run_deadline_s" : "");
	} else if (f->long_poll[i]) {
		/* The members job_parse reads; the parameters and the spec stay on the agent. */
		snprintf(path, sizeof(path),
		         "/api/v1/jobs/%lld?wait_s=%d&after=%lld&fields=state,progress,loops_done,"
		         "passes,started_at,finished_at,error%s%s%s",
		         (long long)job, JOB_WAIT_ASK_S, (long long)w->version,
		         job_makes_fs(f, nr) ? ",filesystem" : "",
		         nr->in_job && !nr->applied_seen ? ",applied" : "",
		         f->pass_deadline[i] ? ",run_deadline_s" : "");
	} else {
		if (now < w->next_get_at)
			return;
		w->next_get_at = now + poll_s;
		snprintf(path, sizeof(path), "/api/v1/jobs/%lld", (long long)job);
	}
	req_node(f, &w->req, i, "GET", path, NULL);
	if (f->long_poll[i])
		w->req.timeout_s =
		        (f->until_end[i] && f->progress_s > 0 ? f->progress_s : JOB_WAIT_ASK_S) +
		        f->timeout_s;
	client_start(f->wait_client, &w->req);
	w->busy = true;
}

/* The earliest plain GET due, as a bound of how long to wait; max_s when none. */
static double wait_bound(struct fleet *f, const struct fleet_node_run *nodes, double max_s,
                         double now)
{
	int i;

	for (i = 0; i < f->plan->nnodes; i++) {
		const struct fleet_wait *w = &f->waits->w[i];

		if (nodes[i].job_id && !nodes[i].job.terminal && f->active[i] && !f->long_poll[i] &&
		    !w->busy && w->next_get_at - now < max_s)
			max_s = w->next_get_at > now ? w->next_get_at - now : 0;
	}
	return max_s;
}

int fleet_jobs_wait(struct fleet *f, struct fleet_node_run *nodes, double poll_s, double max_s)
{
	struct fleet_waits *ws = f->waits;
	int n = f->plan->nnodes, i, k, got;
	double now = time_mono_s();

	for (i = 0; i < n; i++) {
		nodes[i].fresh = false;
		if (!ws->w[i].busy && nodes[i].job_id && !nodes[i].job.terminal && f->active[i])
			wait_arm(f, i, &nodes[i], poll_s, now);
	}
	got = client_wait(f->wait_client, wait_bound(f, nodes, max_s, now), ws->done, n);
	for (k = 0; k < got; k++) {
		/* req is a wait's first member: the ended request is its wait. */
		struct fleet_wait *w = (struct fleet_wait *)(void *)ws->done[k];
		struct fleet_node_run *nr;
		json_t *r;

		i = (int)(w - ws->w);
		nr = &nodes[i];
		w->busy = false;
		nr->fresh = true;
		fanout_result(&w->req, &nr->wait);
		r = resp_json(&w->req);
		if (r)
			job_parse(r, f->plan, &nr->job);
		if (r && nr->in_job && !nr->applied_seen &&
		    json_is_object(json_object_get(r, "applied"))) {
			struct config dev;

			fsparam_device_config(nr->run_cfg, &dev);
			applied_parse(json_object_get(r, "applied"), &dev, &nr->applied,
			              &nr->adjusted);
			nr->applied_seen = true;
		}
		if (r && nr->job.version)
			w->version = nr->job.version;
		json_decref(r);
		client_req_release(&w->req);
	}
	return got;
}

void fleet_jobs_wait_end(struct fleet *f)
{
	int i;

	for (i = 0; i < f->plan->nnodes; i++) {
		struct fleet_wait *w = &f->waits->w[i];

		if (!w->busy)
			continue;
		client_abort(f->wait_client, &w->req);
		client_req_release(&w->req);
		w->busy = false;
	}
}

void fleet_jobs_cancel(struct fleet *f, const int64_t *job_id, struct fleet_result *res)
{
	struct client_req *reqs;

	fleet_jobs_wait_end(f);
	reqs = job_reqs(f, "DELETE", job_id);

	fanout_run(f, reqs, f->plan->nnodes, res);
	reqs_release(reqs, f->plan->nnodes);
}
