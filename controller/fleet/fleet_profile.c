/* fleet_profile.c -- the agents' profile routes on many nodes: bodies built, answers read, with
 * a window of requests in flight that a stop flag closes between nodes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fleet/fleet_priv.h"
#include "fleet/fleet_profile.h"
#include "jread.h"
#include "xmalloc.h"
#include "banned.h"

void fleet_profiles_release(struct fleet_profile *p, int n)
{
	int i;

	for (i = 0; p && i < n; i++) {
		free(p[i].body);
		p[i].body = NULL;
	}
}

static void value_read(json_t *v, struct fleet_profile_value *out)
{
	bool is_int;

	if (!config_value_text(json_object_get(v, "wanted"), out->wanted, sizeof(out->wanted),
	                       &is_int))
		out->wanted[0] = '\0';
	if (!config_value_text(json_object_get(v, "live"), out->live, sizeof(out->live), &is_int))
		out->live[0] = '\0';
	if (!config_value_text(json_object_get(v, "previous"), out->previous, sizeof(out->previous),
	                       &is_int))
		out->previous[0] = '\0';
	out->drifted = json_is_true(json_object_get(v, "drifted"));
	out->adjusted = json_is_true(json_object_get(v, "adjusted"));
	snprintf(out->since, sizeof(out->since), "%s", jread_text(v, "since"));
}

static void device_read(json_t *d, struct fleet_profile_device *out)
{
	const char *name;
	json_t *v;

	memset(out, 0, sizeof(*out));
	snprintf(out->device, sizeof(out->device), "%s", jread_text(d, "device"));
	snprintf(out->state, sizeof(out->state), "%s", jread_text(d, "state"));
	out->kstate = keep_state_parse(jread_text(d, "state"));
	snprintf(out->owner, sizeof(out->owner), "%s", jread_text(d, "owner"));
	snprintf(out->error, sizeof(out->error), "%s", jread_text(d, "error"));
	json_object_foreach(json_object_get(d, "params"), name, v)
	{
		struct fleet_profile_value *pv;

		if (out->nvalues == CONFIG_MAX || strlen(name) >= PARAM_NAME_MAX)
			continue;
		pv = &out->values[out->nvalues++];
		snprintf(pv->name, sizeof(pv->name), "%s", name);
		value_read(v, pv);
	}
}

/* A profile object (GET's answer, PUT's, a dry run's "profile") into out. */
static void profile_read(json_t *o, struct fleet_profile *out)
{
	json_t *params = json_object_get(o, "params"), *body, *d;
	const char *name;
	json_t *v;
	size_t i;

	out->found = json_is_object(o) && json_is_object(params);
	if (!out->found)
		return;
	memset(&out->params, 0, sizeof(out->params));
	json_object_foreach(params, name, v)
	{
		char val[PARAM_VALUE_MAX];
		bool is_int;

		if (config_value_text(v, val, sizeof(val), &is_int))
			config_set(&out->params, name, val, is_int);
	}
	out->enforce = json_is_true(json_object_get(o, "enforce"));
	body = json_pack("{s:O,s:O,s:b}", "match", json_object_get(o, "match"), "params", params,
	                 "enforce", out->enforce);
	free(out->body);
	out->body = body ? json_dumps(body, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(body);
	out->ndevices = 0;
	json_array_foreach(json_object_get(o, "devices"), i, d)
	{
		if (out->ndevices < FLEET_PROFILE_DEVICES_MAX)
			device_read(d, &out->devices[out->ndevices++]);
	}
}

/* Read an ended request into out; found_404: a 404 is an answer (no such profile); dev: the
 * node's device, for a restore's outcome. */
static void answer_read(const struct client_req *r, bool found_404, const char *dev,
                        struct fleet_profile *out)
{
	json_t *o, *inner, *x;
	size_t i;

	out->status = r->status;
	fanout_result(r, &out->res);
	if (found_404 && r->rc == 0 && r->status == 404) {
		memset(&out->res, 0, sizeof(out->res));
		out->found = false;
		return;
	}
	o = resp_json(r);
	inner = json_object_get(o, "profile"); /* a dry run's answer */
	if (o)
		profile_read(inner ? inner : o, out);
	json_array_foreach(json_object_get(o, "restored"), i, x)
	{
		if (!strcmp(jread_text(x, "device"), dev))
			snprintf(out->restored, sizeof(out->restored), "%s",
			         jread_text(x, "outcome"));
	}
	json_decref(o);
}

/* Send reqs[i] for every i where ask[i], at most window at once, none once *stop is set; read
 * each answer into out[i]. */
static void stream(struct fleet *f, struct client_req *reqs, const bool *ask, int window,
                   const volatile sig_atomic_t *stop, bool found_404, struct fleet_profile *out)
{
	int n = f->plan->nnodes, next = 0, inflight = 0, got, k, i;
	struct client_req **done = xcalloc((size_t)n + 1, sizeof(*done));

	if (window < 1)
		window = 1;
	for (;;) {
		while (inflight < window && next < n) {
			i = next++;
			if (!ask[i])
				continue;
			if (stop && *stop) {
				out[i].not_started = true;
				continue;
			}
			client_start(f->client, &reqs[i]);
			inflight++;
		}
		if (!inflight)
			break;
		got = client_wait(f->client, 3600, done, n);
		for (k = 0; k < got; k++) {
			i = (int)(done[k] - reqs);
			answer_read(done[k], found_404, f->plan->nodes[i].device, &out[i]);
			inflight--;
		}
	}
	free(done);
}

static void path_of(char *out, size_t len, const char *name, const char *query)
{
	snprintf(out, len, "/api/v1/profiles/%s%s", name, query ? query : "");
}

void fleet_profile_get(struct fleet *f, const bool *ask, const char *name,
                       struct fleet_profile *out)
{
	int n = f->plan->nnodes, i;
	struct client_req *reqs = xcalloc((size_t)n + 1, sizeof(*reqs));
	char path[160];

	path_of(path, sizeof(path), name, NULL);
	for (i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		req_node(f, &reqs[i], i, "GET", path, NULL);
	}
	stream(f, reqs, ask, n, NULL, true, out);
	reqs_release(reqs, n);
}

/* The body of a new profile for node i: its device, cfg, enforce. */
static char *body_new(const struct plan_node *node, const struct config *cfg, bool enforce)
{
	json_t *o = json_pack("{s:{s:[s]},s:o,s:b}", "match", "devices", node->device, "params",
	                      config_json_new(cfg), "enforce", enforce);
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_decref(o);
	return s;
}

void fleet_profile_put(struct fleet *f, const bool *ask, const char *name, const struct config *cfg,
                       bool enforce, char *const *bodies, bool dry_run, int window,
                       const volatile sig_atomic_t *stop, struct fleet_profile *out)
{
	int n = f->plan->nnodes, i;
	struct client_req *reqs = xcalloc((size_t)n + 1, sizeof(*reqs));
	char path[180];

	path_of(path, sizeof(path), name, dry_run ? "?dry_run=true" : NULL);
	for (i = 0; i < n; i++) {
		char *body = NULL;

		memset(&out[i], 0, sizeof(out[i]));
		if (ask[i])
			body = bodies ? xstrdup(bodies[i] ? bodies[i] : "{}")
			              : body_new(&f->plan->nodes[i], cfg, enforce);
		req_node(f, &reqs[i], i, "PUT", path, body);
	}
	stream(f, reqs, ask, window, stop, false, out);
	reqs_release(reqs, n);
}

/* A GET /api/v1/health answer into ni: ok, version, node, features (or the error). */
static void health_read(const struct client_req *r, struct node_info *ni)
{
	json_t *h = resp_json(r);

	memset(ni, 0, sizeof(*ni));
	if (h) {
		ni->ok = true;
		health_parse(h, ni);
	} else {
		req_error(r, &ni->err);
	}
	json_decref(h);
}

void fleet_profile_preflight(struct fleet *f, const bool *ask, const char *name,
                             struct node_info *health, struct fleet_profile *cur)
{
	int n = f->plan->nnodes, i;
	/* reqs[2i]: node i's health, [2i + 1] its profile. */
	struct client_req *reqs = xcalloc((size_t)n * 2 + 1, sizeof(*reqs));
	char get[160];

	path_of(get, sizeof(get), name, NULL);
	for (i = 0; i < n; i++) {
		memset(&cur[i], 0, sizeof(cur[i]));
		memset(&health[i], 0, sizeof(health[i]));
		reqs[2 * i].skip = reqs[2 * i + 1].skip = !ask[i];
		req_node(f, &reqs[2 * i], i, "GET", "/api/v1/health", NULL);
		req_node(f, &reqs[2 * i + 1], i, "GET", get, NULL);
	}
	client_run(f->client, reqs, 2 * n);
	for (i = 0; i < n; i++) {
		if (!ask[i])
			continue;
		health_read(&reqs[2 * i], &health[i]);
		answer_read(&reqs[2 * i + 1], true, f->plan->nodes[i].device, &cur[i]);
	}
	reqs_release(reqs, 2 * n);
}

void fleet_profile_delete(struct fleet *f, const bool *ask, const char *name, bool restore,
                          int window, const volatile sig_atomic_t *stop, struct fleet_profile *out)
{
	int n = f->plan->nnodes, i;
	struct client_req *reqs = xcalloc((size_t)n + 1, sizeof(*reqs));
	char path[180];

	path_of(path, sizeof(path), name, restore ? "?restore=true" : "?restore=false");
	for (i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		req_node(f, &reqs[i], i, "DELETE", path, NULL);
	}
	stream(f, reqs, ask, window, stop, true, out);
	for (i = 0; i < n; i++)
		out[i].found = false; /* deleted (or there was none) */
	reqs_release(reqs, n);
}
