/* api_metrics.c -- GET /metrics: the agent's state in the Prometheus text format 0.0.4. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_priv.h"
#include "buf.h"
#include "num.h"
#include "queue/job.h"
#include "store/store_metrics.h"
#include "timeutil.h"
#include "version.h"
#include "banned.h"

#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4"

/* Append s as a label value: backslash, double quote and newline escaped. */
static void label_escape(struct buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			buf_puts(b, "\\\\");
		else if (*s == '"')
			buf_puts(b, "\\\"");
		else if (*s == '\n')
			buf_puts(b, "\\n");
		else
			buf_append(b, s, 1);
	}
}

/* Append `# HELP` and `# TYPE` lines for a metric family. */
static void family_put(struct buf *b, const char *name, const char *type, const char *help)
{
	buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Append a sample value: Prometheus spells the special floats +Inf, -Inf and NaN. */
static void value_put(struct buf *b, double v)
{
	if (isnan(v))
		buf_puts(b, " NaN\n");
	else if (isinf(v))
		buf_puts(b, v > 0 ? " +Inf\n" : " -Inf\n");
	else
		buf_printf(b, " %.15g\n", v);
}

/* A metric counts as one of a job's main figures if it is a bandwidth, a rate or a p99. */
static bool metric_is_main(const char *name)
{
	static const char *const suffixes[] = { ".bw_mib", ".iops", "_p99_us", "seeks_per_s" };
	size_t len = strlen(name), i, sl;

	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		sl = strlen(suffixes[i]);
		if (len >= sl && !strcmp(name + len - sl, suffixes[i]))
			return true;
	}
	return false;
}

static void build_put(struct agent *a, struct buf *b)
{
	family_put(b, "fleettune_build_info", "gauge", "Agent version and node name; always 1.");
	buf_puts(b, "fleettune_build_info{version=\"");
	label_escape(b, FLEETTUNE_VERSION);
	buf_puts(b, "\",node=\"");
	label_escape(b, a->node);
	buf_puts(b, "\"} 1\n");
	family_put(b, "fleettune_uptime_seconds", "gauge", "Seconds since the agent started.");
	buf_puts(b, "fleettune_uptime_seconds");
	value_put(b, time_mono_s() - a->started_mono_s);
}

static void http_put(struct agent *a, struct buf *b)
{
	struct http_counter *list = NULL;
	int n = a->httpd ? httpd_counters(a->httpd, &list) : 0, i;
	unsigned int max_conns, per_ip;

	family_put(b, "fleettune_http_requests_total", "counter",
	           "HTTP requests answered, by route pattern and status (route=\"other\": no route "
	           "matched).");
	for (i = 0; i < n; i++) {
		const struct http_counter *c = &list[i];

		if (c->route >= 0 && c->route < api_n_routes) {
			buf_puts(b, "fleettune_http_requests_total{method=\"");
			label_escape(b, api_routes[c->route].method);
			buf_puts(b, "\",route=\"");
			label_escape(b, api_routes[c->route].pattern);
			buf_puts(b, "\"");
		} else {
			buf_puts(b, "fleettune_http_requests_total{route=\"other\"");
		}
		buf_printf(b, ",status=\"%d\"} %llu\n", c->status, (unsigned long long)c->n);
	}
	free(list);
	family_put(b, "fleettune_http_held_requests", "gauge",
	           "Requests held now: long-polls waiting for their job to change.");
	buf_printf(b, "fleettune_http_held_requests %d\n", a->httpd ? httpd_held(a->httpd) : 0);
	if (!a->httpd)
		return;
	httpd_limits(a->httpd, &max_conns, &per_ip);
	family_put(b, "fleettune_http_max_connections", "gauge",
	           "Connections the agent serves at once (--max-connections, as RLIMIT_NOFILE "
	           "allowed); a held request keeps its connection.");
	buf_printf(b, "fleettune_http_max_connections %u\n", max_conns);
	family_put(b, "fleettune_http_max_connections_per_ip", "gauge",
	           "Of those, how many one client address may hold (--max-connections-per-ip).");
	buf_printf(b, "fleettune_http_max_connections_per_ip %u\n", per_ip);
}

static void jobs_put(struct agent *a, struct buf *b)
{
	struct store_job_metric *ms = NULL;
	struct jobq_lane_info *lanes = NULL;
	int64_t counts[JOB_N_STATES];
	int nl = 0;
	const char *prev = "";
	struct err e;
	int n = 0, i;

	family_put(b, "fleettune_jobs", "gauge", "Benchmark jobs in the database, by state.");
	if (job_state_counts(a->jobs, counts) == 0)
		for (i = 0; i < JOB_N_STATES; i++)
			buf_printf(b, "fleettune_jobs{state=\"%s\"} %lld\n", job_state_names[i],
			           (long long)counts[i]);

	jobq_lanes(a->jobs, &lanes, &nl);
	family_put(b, "fleettune_device_job_running", "gauge",
	           "Per device: 1 while a job runs on it (jobs on different devices run at once).");
	for (i = 0; i < nl; i++) {
		buf_puts(b, "fleettune_device_job_running{device=\"");
		label_escape(b, lanes[i].device);
		buf_printf(b, "\"} %d\n", lanes[i].running_id ? 1 : 0);
	}
	family_put(b, "fleettune_device_jobs_queued", "gauge",
	           "Per device: jobs waiting for the device's running job to end.");
	for (i = 0; i < nl; i++) {
		buf_puts(b, "fleettune_device_jobs_queued{device=\"");
		label_escape(b, lanes[i].device);
		buf_printf(b, "\"} %d\n", lanes[i].queued);
	}
	free(lanes);

	err_clear(&e);
	if (job_last_metrics(a->jobs, &ms, &n, &e))
		n = 0;
	family_put(b, "fleettune_last_job_id", "gauge",
	           "Id of the most recently finished job with passes, per device.");
	for (i = 0; i < n; i++) {
		if (!strcmp(ms[i].device, prev))
			continue;
		prev = ms[i].device;
		buf_puts(b, "fleettune_last_job_id{device=\"");
		label_escape(b, ms[i].device);
		buf_puts(b, "\",engine=\"");
		label_escape(b, ms[i].engine);
		buf_printf(b, "\"} %lld\n", (long long)ms[i].job_id);
	}
	prev = "";
	family_put(b, "fleettune_last_job_finished_timestamp_seconds", "gauge",
	           "When that job finished, in seconds since the epoch.");
	for (i = 0; i < n; i++) {
		if (!strcmp(ms[i].device, prev))
			continue;
		prev = ms[i].device;
		buf_puts(b, "fleettune_last_job_finished_timestamp_seconds{device=\"");
		label_escape(b, ms[i].device);
		buf_puts(b, "\"}");
		value_put(b, ms[i].finished_at);
	}
	family_put(
	        b, "fleettune_last_job_metric", "gauge",
	        "Main figures of that job (bandwidth MiB/s, IOPS, p99 latency us), mean over its "
	        "passes; the metric label carries the unit.");
	for (i = 0; i < n; i++) {
		if (!metric_is_main(ms[i].metric))
			continue;
		buf_puts(b, "fleettune_last_job_metric{device=\"");
		label_escape(b, ms[i].device);
		buf_puts(b, "\",engine=\"");
		label_escape(b, ms[i].engine);
		buf_puts(b, "\",metric=\"");
		label_escape(b, ms[i].metric);
		buf_puts(b, "\"}");
		value_put(b, ms[i].mean);
	}
	free(ms);
}

static void writes_put(struct agent *a, struct buf *b)
{
	struct store_count *list = NULL;
	struct session_rec *sessions = NULL;
	struct err e;
	int n = 0, i;

	err_clear(&e);
	family_put(b, "fleettune_param_writes_total", "counter",
	           "Parameter and sysctl writes in the audit log, by outcome.");
	if (store_change_outcome_counts(a->store, &list, &n, &e) == 0) {
		for (i = 0; i < n; i++) {
			buf_puts(b, "fleettune_param_writes_total{outcome=\"");
			label_escape(b, list[i].key);
			buf_printf(b, "\"} %lld\n", (long long)list[i].n);
		}
		free(list);
	}
	family_put(b, "fleettune_audit_failures_total", "counter",
	           "Failed writes to the audit log since the agent started (a change's row before "
	           "it is made, or its outcome after); while they fail, changes are refused with "
	           "audit_unavailable and restores are made unaudited.");
	buf_printf(b, "fleettune_audit_failures_total %lu\n",
	           __atomic_load_n(&a->audit_failures, __ATOMIC_RELAXED));
	family_put(b, "fleettune_sessions_open", "gauge", "Tuning sessions currently open.");
	if (session_list(&a->sessions, "open", NULL, &sessions, &n, &e) == 0) {
		buf_printf(b, "fleettune_sessions_open %d\n", n);
		free(sessions);
	}
}

/* The numeric value of a parameter, if it has one. */
static bool param_number(const struct param *p, int64_t *v)
{
	if (p->kind == PARAM_INT)
		return num_parse_kernel_i64(p->value, v) == 0;
	if (p->kind == PARAM_ENUM)
		return num_is_plain_int(p->value) && num_parse_i64(p->value, v) == 0;
	return false;
}

static void queue_put(struct agent *a, struct buf *b)
{
	struct params ps;
	struct err e;
	int64_t v;
	int d, i;

	family_put(b, "fleettune_queue_param", "gauge",
	           "Current value of each numeric queue parameter of the allowlisted devices.");
	for (d = 0; d < a->cfg.n_allow_devices; d++) {
		const char *dev = a->cfg.allow_devices[d];

		err_clear(&e);
		ps.n = 0;
		ps.p = NULL;
		if (sysfs_params_read(&a->fs, dev, &ps, &e))
			continue;
		for (i = 0; i < ps.n; i++) {
			if (!param_number(&ps.p[i], &v))
				continue;
			buf_puts(b, "fleettune_queue_param{device=\"");
			label_escape(b, dev);
			buf_puts(b, "\",param=\"");
			label_escape(b, ps.p[i].name);
			buf_printf(b, "\"} %lld\n", (long long)v);
		}
		sysfs_params_release(&ps);
	}
}

/* What the profiles hold: drift per held parameter (1 differs, 0 holds) on every device a profile
 * applies to, the times drift was put back, and each device's state. */
static void profiles_put(struct agent *a, struct buf *b)
{
	struct keeper_view *list = NULL;
	struct err e;
	int n = 0, i, d, k;

	err_clear(&e);
	if (keeper_list(a->keeper, false, &list, &n, &e))
		n = 0;
	family_put(
	        b, "fleettune_profile_drift", "gauge",
	        "1 where a parameter a profile holds differs from the profile's value on a device "
	        "it applies to, else 0 (devices a session or job owns count as 0).");
	for (i = 0; i < n; i++)
		for (d = 0; d < list[i].n_devices; d++) {
			const struct keep_device *dv = &list[i].devices[d];
			bool owned = dv->state == KEEP_YIELDED;

			if (dv->state != KEEP_HELD && dv->state != KEEP_DRIFTED &&
			    dv->state != KEEP_REAPPLIED && dv->state != KEEP_FAILED && !owned)
				continue;
			for (k = 0; k < dv->n_params; k++) {
				buf_puts(b, "fleettune_profile_drift{profile=\"");
				label_escape(b, list[i].profile.name);
				buf_puts(b, "\",device=\"");
				label_escape(b, dv->device);
				buf_puts(b, "\",param=\"");
				label_escape(b, dv->params[k].name);
				buf_printf(b, "\"} %d\n", !owned && dv->params[k].drifted);
			}
		}
	family_put(b, "fleettune_profile_reapplied_total", "counter",
	           "Times the agent put a profile's drifted values back on a device, since it "
	           "started.");
	for (i = 0; i < n; i++)
		for (d = 0; d < list[i].n_devices; d++) {
			buf_puts(b, "fleettune_profile_reapplied_total{profile=\"");
			label_escape(b, list[i].profile.name);
			buf_puts(b, "\",device=\"");
			label_escape(b, list[i].devices[d].device);
			buf_printf(b, "\"} %d\n", list[i].devices[d].reapplied_count);
		}
	family_put(b, "fleettune_profile_device_state", "gauge",
	           "What each profile is to each device it matches: 1 for its state "
	           "(held, drifted, reapplied, pending, yielded, failed, absent, not_allowed, "
	           "conflict).");
	for (i = 0; i < n; i++)
		for (d = 0; d < list[i].n_devices; d++) {
			buf_puts(b, "fleettune_profile_device_state{profile=\"");
			label_escape(b, list[i].profile.name);
			buf_puts(b, "\",device=\"");
			label_escape(b, list[i].devices[d].device);
			buf_printf(b, "\",state=\"%s\"} 1\n",
			           keep_state_names[list[i].devices[d].state]);
		}
	keeper_views_free(list, n);
}

void api_metrics(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct buf b = BUF_INIT;

	build_put(a, &b);
	http_put(a, &b);
	jobs_put(a, &b);
	writes_put(a, &b);
	queue_put(a, &b);
	profiles_put(a, &b);
	resp->status = 200;
	http_body_take(resp, buf_detach(&b, NULL), METRICS_CONTENT_TYPE);
}
