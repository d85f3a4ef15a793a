/* fleet_probe.c -- what each node is and has (fleet_probe): its health and features, its
 * device (present, writable, size, identity), the host's identity and the device's
 * parameters, read from every agent at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fleet/fleet.h"
#include "fleet/fleet_priv.h"
#include "jread.h"
#include "plan/config.h"
#include "protocol.h"
#include "xmalloc.h"
#include "banned.h"

static void params_parse(json_t *params, struct node_info *ni)
{
	const char *name;
	json_t *p;
	bool is_int;
	int k = 0;

	ni->params = xcalloc(json_object_size(params) + 1, sizeof(*ni->params));
	json_object_foreach(params, name, p)
	{
		struct param_info *pi = &ni->params[k];

		if (strlen(name) >= PARAM_NAME_MAX)
			continue;
		snprintf(pi->name, sizeof(pi->name), "%s", name);
		if (!config_value_text(json_object_get(p, "value"), pi->value, sizeof(pi->value),
		                       &is_int))
			pi->value[0] = '\0';
		pi->writable = json_is_true(json_object_get(p, "writable"));
		k++;
	}
	ni->nparams = k;
}

void health_parse(json_t *h, struct node_info *ni)
{
	json_t *feat;
	size_t j;

	snprintf(ni->version, sizeof(ni->version), "%s", jread_text(h, "version"));
	snprintf(ni->node, sizeof(ni->node), "%s", jread_text(h, "node"));
	ni->uptime_s = json_number_value(json_object_get(h, "uptime_s"));
	json_array_foreach(json_object_get(h, "features"), j, feat)
	{
		int f = feature_parse(json_string_value(feat)); /* -1: a newer agent's word */

		ni->dry_run |= f == FEATURE_DRY_RUN;
		ni->long_poll |= f == FEATURE_LONG_POLL;
		ni->profiles |= f == FEATURE_PROFILES;
		ni->job_applied |= f == FEATURE_JOB_APPLIED;
		ni->start_at |= f == FEATURE_START_AT;
		ni->until_end |= f == FEATURE_UNTIL_END;
		ni->pass_deadline |= f == FEATURE_PASS_DEADLINE;
		ni->device_lanes |= f == FEATURE_DEVICE_LANES;
		ni->workloads |= f == FEATURE_WORKLOADS;
		ni->fio_file |= f == FEATURE_FIO_FILE;
	}
}

/* The clock offset health's answer r (parsed: h) says into ni, if it has time_s and r was
 * timed; a narrower window than the one ni has replaces it. */
static void clock_read(const struct client_req *r, json_t *h, struct node_info *ni)
{
	json_t *t = json_object_get(h, "time_s");
	double mid, half;

	if (!json_is_number(t) || !(r->answered_before > 0))
		return;
	mid = (r->answered_after + r->answered_before) / 2;
	half = (r->answered_before - r->answered_after) / 2;
	if (ni->clock_known && ni->clock_uncertain_s <= half)
		return;
	ni->clock_known = true;
	ni->clock_offset_s = json_number_value(t) - mid;
	ni->clock_uncertain_s = half;
}

/* The identity fields first..last of object o (the device's identity or the host's) into
 * ni: strings cleaned (an agent is not trusted to have), booleans and integers as text. */
static void identity_parse(json_t *o, int first, int last, struct node_info *ni)
{
	char num[32];
	int f;

	for (f = first; f < last && json_is_object(o); f++) {
		json_t *v = json_object_get(o, identity_field_names[f]);
		const char *t = NULL;

		if (json_is_string(v))
			t = json_string_value(v);
		else if (json_is_boolean(v))
			t = json_is_true(v) ? "true" : "false";
		else if (json_is_integer(v)) {
			snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
			t = num;
		}
		free(ni->identity[f]);
		ni->identity[f] = t ? identity_text_dup(t) : NULL;
	}
}

void fleet_probe(struct fleet *f, bool with_params, struct node_info *info)
{
	const struct plan *p = f->plan;
	int n = p->nnodes, i;
	struct client_req *reqs = xcalloc((size_t)n * 3, sizeof(*reqs));

	for (i = 0; i < n; i++) {
		char path[160];

		memset(&info[i], 0, sizeof(info[i]));
		reqs[3 * i].skip = reqs[3 * i + 1].skip = !f->active[i];
		reqs[3 * i + 2].skip = !f->active[i] || !with_params;
		req_node(f, &reqs[3 * i], i, "GET", "/api/v1/health", NULL);
		req_node(f, &reqs[3 * i + 1], i, "GET", "/api/v1/devices", NULL);
		snprintf(path, sizeof(path), "/api/v1/devices/%s/params", p->nodes[i].device);
		req_node(f, &reqs[3 * i + 2], i, "GET", path, NULL);
	}
	client_run(f->client, reqs, 3 * n);
	for (i = 0; i < n; i++) {
		struct node_info *ni = &info[i];
		json_t *h = resp_json(&reqs[3 * i]), *d = resp_json(&reqs[3 * i + 1]);
		json_t *pr = resp_json(&reqs[3 * i + 2]), *dev;
		size_t j;

		if (!f->active[i]) {
			err_set(&ni->err, 0, ERR_NODE_FAILED, "dropped");
		} else if (!h) {
			req_error(&reqs[3 * i], &ni->err);
		} else {
			ni->ok = true;
			ni->devices_read = d != NULL;
			if (!d)
				req_error(&reqs[3 * i + 1], &ni->err);
		}
		if (h) {
			health_parse(h, ni);
			clock_read(&reqs[3 * i], h, ni);
		}
		f->long_poll[i] = ni->long_poll;
		f->job_applied[i] = ni->job_applied;
		f->start_at[i] = ni->start_at;
		f->until_end[i] = ni->until_end && ni->long_poll;
		f->pass_deadline[i] = ni->pass_deadline;
		json_array_foreach(json_object_get(d, "devices"), j, dev)
		{
			const char *name = json_string_value(json_object_get(dev, "name"));

			if (!name || strcmp(name, p->nodes[i].device))
				continue;
			ni->dev_found = true;
			ni->dev_writable = json_is_true(json_object_get(dev, "writable"));
			ni->dev_size_bytes = json_integer_value(json_object_get(dev, "size_bytes"));
			identity_parse(json_object_get(dev, "identity"), 0, IDF_N_DEVICE, ni);
			identity_parse(json_object_get(d, "host"), IDF_N_DEVICE, IDF_N, ni);
		}
		if (pr)
			params_parse(json_object_get(pr, "params"), ni);
		json_decref(h);
		json_decref(d);
		json_decref(pr);
	}
	reqs_release(reqs, 3 * n);
}

void fleet_clock_probe(struct fleet *f, const bool *ask, struct node_info *info)
{
	int n = f->plan->nnodes, i;
	struct client_req *reqs = xcalloc((size_t)n + 1, sizeof(*reqs));

	for (i = 0; i < n; i++) {
		reqs[i].skip = !f->active[i] || !ask[i];
		req_node(f, &reqs[i], i, "GET", "/api/v1/health", NULL);
	}
	client_run(f->client, reqs, n);
	for (i = 0; i < n; i++) {
		json_t *h = resp_json(&reqs[i]);

		if (h)
			clock_read(&reqs[i], h, &info[i]);
		json_decref(h);
	}
	reqs_release(reqs, n);
}

void node_info_release(struct node_info *info, int n)
{
	int i;

	int f;

	for (i = 0; info && i < n; i++) {
		free(info[i].params);
		info[i].params = NULL;
		for (f = 0; f < IDF_N; f++) {
			free(info[i].identity[f]);
			info[i].identity[f] = NULL;
		}
	}
}
