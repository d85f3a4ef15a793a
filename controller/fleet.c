/* fleet.c -- the controller's wire layer: agent API JSON, fanned out to every node at once. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "fleet.h"
#include "log.h"
#include "num.h"
#include "xmalloc.h"
#include "banned.h"

void fleet_init(struct fleet *f, const struct plan *plan, double timeout_s, int retries)
{
	int i;

	memset(f, 0, sizeof(*f));
	f->plan = plan;
	f->client = client_new(timeout_s, retries);
	f->active = xcalloc((size_t)plan->nnodes + 1, sizeof(bool));
	f->session_id = xcalloc((size_t)plan->nnodes + 1, sizeof(int64_t));
	for (i = 0; i < plan->nnodes; i++)
		f->active[i] = true;
}

void fleet_release(struct fleet *f)
{
	if (!f)
		return;
	client_free(f->client);
	free(f->active);
	free(f->session_id);
	memset(f, 0, sizeof(*f));
}

/* o[key] when it is a string, else "". */
static const char *jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static char *node_url(const struct plan_node *n, const char *path)
{
	return xasprintf("%s%s", n->url, path);
}

/* The agent's {"error":{"message"}} text, else the HTTP status or transport error. */
static void req_error(const struct client_req *r, char *out, size_t len)
{
	json_t *root, *msg;

	if (r->rc < 0 || !r->resp.data) {
		client_req_describe(r, out, len);
		return;
	}
	root = json_loads(r->resp.data, 0, NULL);
	msg = json_object_get(json_object_get(root, "error"), "message");
	if (json_is_string(msg))
		snprintf(out, len, "HTTP %ld: %s", r->status, json_string_value(msg));
	else
		client_req_describe(r, out, len);
	json_decref(root);
}

/* Run reqs and fill res for every non-skipped request: failed unless 2xx. */
static void fanout_run(struct fleet *f, struct client_req *reqs, int n, struct fleet_result *res)
{
	int i;

	client_run(f->client, reqs, n);
	if (!res)
		return;
	for (i = 0; i < n; i++) {
		memset(&res[i], 0, sizeof(res[i]));
		if (reqs[i].skip)
			continue;
		if (reqs[i].rc < 0 || reqs[i].status < 200 || reqs[i].status > 299) {
			res[i].failed = true;
			res[i].unreachable = reqs[i].rc < 0;
			req_error(&reqs[i], res[i].error, sizeof(res[i].error));
		}
	}
}

static void reqs_release(struct client_req *reqs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		client_req_release(&reqs[i]);
	free(reqs);
}

static json_t *resp_json(const struct client_req *r)
{
	if (r->skip || r->rc < 0 || r->status < 200 || r->status > 299 || !r->resp.data)
		return NULL;
	return json_loads(r->resp.data, 0, NULL);
}

/* A JSON scalar as parameter text; false when it is neither an integer nor a string. */
static bool scalar_text(json_t *v, char *out, size_t len, bool *is_int)
{
	if (json_is_integer(v)) {
		snprintf(out, len, "%lld", (long long)json_integer_value(v));
		*is_int = true;
		return true;
	}
	if (json_is_string(v)) {
		snprintf(out, len, "%s", json_string_value(v));
		*is_int = false;
		return true;
	}
	if (json_is_real(v)) {
		snprintf(out, len, "%g", json_real_value(v));
		*is_int = false;
		return true;
	}
	return false;
}

static void params_parse(json_t *params, struct node_info *ni)
{
	const char *name;
	json_t *p;
	int k = 0;

	ni->params = xcalloc(json_object_size(params) + 1, sizeof(*ni->params));
	json_object_foreach(params, name, p)
	{
		struct param_info *pi = &ni->params[k];
		json_t *ch = json_object_get(p, "choices"), *c;
		size_t j;

		if (strlen(name) >= PARAM_NAME_MAX)
			continue;
		snprintf(pi->name, sizeof(pi->name), "%s", name);
		if (!scalar_text(json_object_get(p, "value"), pi->value, sizeof(pi->value),
		                 &pi->is_int))
			pi->value[0] = '\0';
		pi->writable = json_is_true(json_object_get(p, "writable"));
		json_array_foreach(ch, j, c)
		{
			if (pi->nchoices < 24 && json_is_string(c))
				snprintf(pi->choices[pi->nchoices++], sizeof(pi->choices[0]), "%s",
				         json_string_value(c));
			else if (pi->nchoices < 24 && json_is_integer(c))
				snprintf(pi->choices[pi->nchoices++], sizeof(pi->choices[0]),
				         "%lld", (long long)json_integer_value(c));
		}
		if (json_is_integer(json_object_get(p, "min"))) {
			pi->has_min = true;
			pi->min = json_integer_value(json_object_get(p, "min"));
		}
		if (json_is_integer(json_object_get(p, "max"))) {
			pi->has_max = true;
			pi->max = json_integer_value(json_object_get(p, "max"));
		}
		k++;
	}
	ni->nparams = k;
}

void fleet_probe(struct fleet *f, struct node_info *info)
{
	const struct plan *p = f->plan;
	int n = p->nnodes, i;
	struct client_req *reqs = xcalloc((size_t)n * 3, sizeof(*reqs));

	for (i = 0; i < n; i++) {
		const struct plan_node *pn = &p->nodes[i];
		char path[160];

		memset(&info[i], 0, sizeof(info[i]));
		client_req_init(&reqs[3 * i], "GET", node_url(pn, "/api/v1/health"), NULL,
		                pn->token);
		client_req_init(&reqs[3 * i + 1], "GET", node_url(pn, "/api/v1/devices"), NULL,
		                pn->token);
		snprintf(path, sizeof(path), "/api/v1/devices/%s/params", pn->device);
		client_req_init(&reqs[3 * i + 2], "GET", node_url(pn, path), NULL, pn->token);
		reqs[3 * i].skip = reqs[3 * i + 1].skip = reqs[3 * i + 2].skip = !f->active[i];
	}
	client_run(f->client, reqs, 3 * n);
	for (i = 0; i < n; i++) {
		struct node_info *ni = &info[i];
		json_t *h = resp_json(&reqs[3 * i]), *d = resp_json(&reqs[3 * i + 1]);
		json_t *pr = resp_json(&reqs[3 * i + 2]), *dev;
		size_t j;

		if (!f->active[i]) {
			snprintf(ni->error, sizeof(ni->error), "dropped");
		} else if (!h) {
			req_error(&reqs[3 * i], ni->error, sizeof(ni->error));
		} else if (!d) {
			req_error(&reqs[3 * i + 1], ni->error, sizeof(ni->error));
			ni->ok = true;
		} else {
			ni->ok = true;
		}
		if (h) {
			snprintf(ni->version, sizeof(ni->version), "%s", jstr(h, "version"));
			snprintf(ni->node, sizeof(ni->node), "%s", jstr(h, "node"));
			ni->uptime_s = json_number_value(json_object_get(h, "uptime_s"));
		}
		json_array_foreach(json_object_get(d, "devices"), j, dev)
		{
			const char *name = json_string_value(json_object_get(dev, "name"));

			if (!name || strcmp(name, p->nodes[i].device))
				continue;
			ni->dev_found = true;
			ni->dev_writable = json_is_true(json_object_get(dev, "writable"));
			ni->dev_size_bytes = json_integer_value(json_object_get(dev, "size_bytes"));
		}
		if (pr)
			params_parse(json_object_get(pr, "params"), ni);
		json_decref(h);
		json_decref(d);
		json_decref(pr);
	}
	reqs_release(reqs, 3 * n);
}

void node_info_release(struct node_info *info, int n)
{
	int i;

	for (i = 0; info && i < n; i++) {
		free(info[i].params);
		info[i].params = NULL;
	}
}

static const struct param_info *param_find(const struct node_info *ni, const char *name)
{
	int i;

	for (i = 0; i < ni->nparams; i++)
		if (!strcmp(ni->params[i].name, name))
			return &ni->params[i];
	return NULL;
}

/* The agent accepts these legacy scheduler names and maps them (issue 2). */
static const char *sched_alias(const char *v)
{
	if (!strcmp(v, "noop"))
		return "none";
	if (!strcmp(v, "deadline"))
		return "mq-deadline";
	return v;
}

static void value_check(const char *node, const struct param_info *pi, const struct setting *st,
                        struct buf *problems)
{
	int64_t v;
	int i;

	if (!pi->writable) {
		buf_printf(problems, "%s: %s is read-only\n", node, st->name);
		return;
	}
	if (pi->nchoices > 0) {
		const char *want =
		        !strcmp(st->name, "scheduler") ? sched_alias(st->value) : st->value;

		for (i = 0; i < pi->nchoices; i++)
			if (!strcmp(pi->choices[i], want))
				return;
		buf_printf(problems, "%s: %s '%s' not available (", node, st->name, st->value);
		for (i = 0; i < pi->nchoices; i++)
			buf_printf(problems, "%s%s", i ? ", " : "", pi->choices[i]);
		buf_puts(problems, ")\n");
		return;
	}
	if (pi->is_int && !st->is_int) {
		buf_printf(problems, "%s: %s '%s' must be an integer\n", node, st->name, st->value);
		return;
	}
	if (!st->is_int || num_parse_i64(st->value, &v) < 0)
		return;
	if (pi->has_min && v < pi->min)
		buf_printf(problems, "%s: %s %lld is below the minimum %lld\n", node, st->name,
		           (long long)v, (long long)pi->min);
	if (pi->has_max && v > pi->max)
		buf_printf(problems, "%s: %s %lld is above the maximum %lld\n", node, st->name,
		           (long long)v, (long long)pi->max);
}

int fleet_preflight_check(const struct plan *plan, const struct node_info *info,
                          struct buf *problems)
{
	size_t before = problems->len;
	int i, a, v, k;

	for (i = 0; i < plan->nnodes; i++) {
		const struct node_info *ni = &info[i];
		const char *node = plan->nodes[i].name, *dev = plan->nodes[i].device;

		if (!ni->ok) {
			buf_printf(problems, "%s: not healthy: %s\n", node, ni->error);
			continue;
		}
		if (!ni->dev_found) {
			buf_printf(problems, "%s: device '%s' not found%s%s\n", node, dev,
			           ni->error[0] ? ": " : "", ni->error);
			continue;
		}
		if (!ni->dev_writable) {
			buf_printf(problems,
			           "%s: device '%s' is not writable (start the agent with "
			           "--allow-device %s)\n",
			           node, dev, dev);
			continue;
		}
		for (k = 0; k < plan->baseline.n; k++) {
			const struct setting *st = &plan->baseline.s[k];
			const struct param_info *pi = param_find(ni, st->name);

			if (!pi)
				buf_printf(problems, "%s: device '%s' has no parameter '%s'\n",
				           node, dev, st->name);
			else
				value_check(node, pi, st, problems);
		}
		for (a = 0; a < plan->naxes; a++) {
			for (v = 0; v < plan->axes[a].nvalues; v++) {
				const struct config *c = &plan->axes[a].values[v];

				for (k = 0; k < c->n; k++) {
					const struct param_info *pi = param_find(ni, c->s[k].name);

					if (pi)
						value_check(node, pi, &c->s[k], problems);
				}
			}
		}
	}
	return problems->len > before ? -EINVAL : 0;
}

char *config_to_json(const struct config *cfg)
{
	json_t *o = json_object();
	char *s;
	int i;

	for (i = 0; i < cfg->n; i++) {
		const struct setting *st = &cfg->s[i];
		int64_t v;

		if (st->is_int && num_parse_i64(st->value, &v) == 0)
			json_object_set_new(o, st->name, json_integer(v));
		else
			json_object_set_new(o, st->name, json_string(st->value));
	}
	s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	return s;
}

int config_parse_json(const char *text, struct config *cfg, struct err *e)
{
	json_error_t je;
	json_t *o = json_loads(text, JSON_REJECT_DUPLICATES, &je), *v;
	const char *k;
	char val[PARAM_VALUE_MAX];
	bool is_int;
	int rc = 0;

	memset(cfg, 0, sizeof(*cfg));
	if (!o)
		return err_set(e, -EINVAL, "invalid_params", "params: %s", je.text);
	if (!json_is_object(o)) {
		rc = err_set(e, -EINVAL, "invalid_params", "params: expected a JSON object");
		goto out;
	}
	json_object_foreach(o, k, v)
	{
		if (json_is_real(v) || !scalar_text(v, val, sizeof(val), &is_int)) {
			rc = err_set(e, -EINVAL, "invalid_params",
			             "params.%s: expected an integer or a string", k);
			goto out;
		}
		if (config_set(cfg, k, val, is_int) < 0) {
			rc = err_set(e, -EINVAL, "invalid_params",
			             "params.%s: too long or too many", k);
			goto out;
		}
	}
out:
	json_decref(o);
	return rc;
}

void fleet_params_apply(struct fleet *f, const struct config *cfg, struct config *applied,
                        unsigned *adjusted, struct fleet_result *res)
{
	const struct plan *p = f->plan;
	int n = p->nnodes, i, k;
	struct client_req *reqs = xcalloc((size_t)n, sizeof(*reqs));
	char *params = config_to_json(cfg);

	for (i = 0; i < n; i++) {
		char path[160];

		snprintf(path, sizeof(path), "/api/v1/devices/%s/params", p->nodes[i].device);
		client_req_init(&reqs[i], "PATCH", node_url(&p->nodes[i], path),
		                xasprintf("{\"params\":%s}", params), p->nodes[i].token);
		reqs[i].skip = !f->active[i];
	}
	fanout_run(f, reqs, n, res);
	for (i = 0; i < n; i++) {
		json_t *r = resp_json(&reqs[i]), *ap;

		memset(&applied[i], 0, sizeof(applied[i]));
		adjusted[i] = 0;
		if (!r)
			continue;
		ap = json_object_get(r, "applied");
		for (k = 0; k < cfg->n; k++) {
			json_t *it = json_object_get(ap, cfg->s[k].name);
			char val[PARAM_VALUE_MAX];
			bool is_int;

			if (!it ||
			    !scalar_text(json_object_get(it, "value"), val, sizeof(val), &is_int)) {
				config_set(&applied[i], cfg->s[k].name, "?", false);
				continue;
			}
			config_set(&applied[i], cfg->s[k].name, val, is_int);
			/* A legacy scheduler alias mapped by the agent is not an adjustment. */
			if (json_is_true(json_object_get(it, "adjusted")) ||
			    (strcmp(val, cfg->s[k].value) && !json_object_get(it, "mapped_to")))
				adjusted[i] |= 1u << (applied[i].n - 1);
		}
		json_decref(r);
	}
	free(params);
	reqs_release(reqs, n);
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

		snprintf(path, sizeof(path), "/api/v1/devices/%s/sessions", p->nodes[i].device);
		client_req_init(&reqs[i], "POST", node_url(&p->nodes[i], path),
		                xasprintf("{\"ttl_s\":%d}", (int)ttl_s), p->nodes[i].token);
		reqs[i].skip = !f->active[i];
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
	const struct plan *p = f->plan;
	int n = p->nnodes, i;
	struct client_req *reqs = xcalloc((size_t)n, sizeof(*reqs));

	for (i = 0; i < n; i++) {
		char path[160];

		if (close)
			snprintf(path, sizeof(path), "/api/v1/sessions/%lld?restore=%s",
			         (long long)f->session_id[i], restore ? "true" : "false");
		else
			snprintf(path, sizeof(path), "/api/v1/sessions/%lld/renew",
			         (long long)f->session_id[i]);
		client_req_init(&reqs[i], close ? "DELETE" : "POST", node_url(&p->nodes[i], path),
		                close ? NULL : xstrdup("{}"), p->nodes[i].token);
		reqs[i].skip = f->session_id[i] == 0 || (!close && !f->active[i]);
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

void fleet_jobs_start(struct fleet *f, const bool *run, int64_t sweep_id, int point,
                      int64_t *job_id, struct fleet_result *res)
{
	const struct plan *p = f->plan;
	int n = p->nnodes, i;
	struct client_req *reqs = xcalloc((size_t)n, sizeof(*reqs));
	json_t *opts = json_loads(p->engine_json, 0, NULL);
	json_t *labels = json_loads(p->labels_json, 0, NULL);
	json_t *dir = p->directory ? json_string(p->directory) : NULL;

	char text[32];

	if (!json_is_object(labels)) {
		json_decref(labels);
		labels = json_object();
	}
	snprintf(text, sizeof(text), "%lld", (long long)sweep_id);
	json_object_set_new(labels, "sweep", json_string(text));
	snprintf(text, sizeof(text), "%d", point);
	json_object_set_new(labels, "sweep_point", json_string(text));
	for (i = 0; i < n; i++) {
		json_t *body = json_object();

		json_object_set_new(body, "device", json_string(p->nodes[i].device));
		json_object_set_new(body, "engine", json_string(p->engine));
		json_object_set(body, p->engine, opts);
		json_object_set_new(body, "loops", json_integer(p->loops));
		json_object_set(body, "labels", labels);
		if (dir)
			json_object_set(body, "directory", dir);
		client_req_init(&reqs[i], "POST", node_url(&p->nodes[i], "/api/v1/jobs"),
		                json_dumps(body, JSON_COMPACT), p->nodes[i].token);
		reqs[i].skip = !f->active[i] || !run[i];
		json_decref(body);
	}
	fanout_run(f, reqs, n, res);
	for (i = 0; i < n; i++) {
		json_t *r = resp_json(&reqs[i]);

		job_id[i] = r ? json_id(r) : 0;
		if (!reqs[i].skip && r && !job_id[i] && res) {
			res[i].failed = true;
			snprintf(res[i].error, sizeof(res[i].error), "job response has no id");
		}
		json_decref(r);
	}
	json_decref(opts);
	json_decref(labels);
	json_decref(dir);
	reqs_release(reqs, n);
}

/* ISO-8601 UTC ("2026-11-29T23:03:36Z", optional fraction) to epoch seconds; 0 if unparsable. */
static double iso_parse(json_t *v)
{
	const char *s = json_string_value(v), *p;
	struct tm tm;
	double frac = 0;

	if (!s)
		return 0;
	memset(&tm, 0, sizeof(tm));
	p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!p)
		return 0;
	if (*p == '.')
		frac = strtod(p, NULL);
	return (double)timegm(&tm) + frac;
}

static void job_parse(json_t *r, const char *metric, struct job_status *st)
{
	static const char *const terminal[] = { "succeeded", "failed", "cancelled", "interrupted",
		                                NULL };
	const char *state = json_string_value(json_object_get(r, "state"));
	json_t *passes = json_object_get(r, "passes"), *ps, *err;
	double t0, t1;
	size_t i;
	int k;

	snprintf(st->state, sizeof(st->state), "%s", state ? state : "?");
	st->terminal = false;
	for (k = 0; terminal[k]; k++)
		if (state && !strcmp(state, terminal[k]))
			st->terminal = true;
	st->succeeded = state && !strcmp(state, "succeeded");
	st->progress = json_number_value(json_object_get(r, "progress"));
	st->loops_done = (int)json_integer_value(json_object_get(r, "loops_done"));
	st->npasses = 0;
	json_array_foreach(passes, i, ps)
	{
		json_t *m = json_object_get(json_object_get(ps, "metrics"), metric);

		if (st->npasses < PLAN_LOOPS_MAX && json_is_number(m))
			st->passes[st->npasses++] = json_number_value(m);
	}
	t0 = iso_parse(json_object_get(r, "started_at"));
	t1 = iso_parse(json_object_get(r, "finished_at"));
	st->runtime_s = (t0 > 0 && t1 >= t0) ? t1 - t0 : 0;
	err = json_object_get(r, "error");
	st->error[0] = '\0';
	if (json_is_object(err))
		snprintf(st->error, sizeof(st->error), "%s: %s", jstr(err, "code"),
		         jstr(err, "message"));
	if (st->succeeded && st->npasses == 0)
		snprintf(st->error, sizeof(st->error), "no '%s' in the job's passes", metric);
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
		client_req_init(&reqs[i], method, node_url(&p->nodes[i], path), NULL,
		                p->nodes[i].token);
		reqs[i].skip = !job_id[i];
	}
	return reqs;
}

void fleet_jobs_poll(struct fleet *f, const int64_t *job_id, struct job_status *st,
                     struct fleet_result *res)
{
	int n = f->plan->nnodes, i;
	struct client_req *reqs = job_reqs(f, "GET", job_id);

	for (i = 0; i < n; i++)
		reqs[i].skip = reqs[i].skip || st[i].terminal || !f->active[i];
	fanout_run(f, reqs, n, res);
	for (i = 0; i < n; i++) {
		json_t *r = resp_json(&reqs[i]);

		if (r)
			job_parse(r, f->plan->metric, &st[i]);
		json_decref(r);
	}
	reqs_release(reqs, n);
}

void fleet_jobs_cancel(struct fleet *f, const int64_t *job_id, struct fleet_result *res)
{
	struct client_req *reqs = job_reqs(f, "DELETE", job_id);

	fanout_run(f, reqs, f->plan->nnodes, res);
	reqs_release(reqs, f->plan->nnodes);
}
