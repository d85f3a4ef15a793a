/* wire_job.c -- a job's JSON, for answers and the database alike: the job object (the members
 * ?fields= picks), its passes' metrics and their summary, the parameter values read before
 * loop 1, a dry run's answer; and the database's metrics and parameter-value columns. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "timeutil.h"
#include "wire/wire.h"
#include "xmalloc.h"
#include "banned.h"

json_t *wire_time_to_json(double epoch_s)
{
	char ts[32];

	if (epoch_s <= 0)
		return json_null();
	time_fmt_iso_ms(epoch_s, ts, sizeof(ts));
	return json_string(ts);
}

/* ---- metrics ---- */

json_t *wire_metrics_to_json(const struct metrics *m)
{
	json_t *o = json_object();
	int i;

	for (i = 0; i < m->n; i++)
		json_object_set_new(o, m->m[i].name, json_real(m->m[i].value));
	return o;
}

char *wire_metrics_encode(const struct metrics *m)
{
	return wire_dump(wire_metrics_to_json(m), JSON_REAL_PRECISION(10));
}

int wire_metrics_decode(const char *text, struct metrics *out)
{
	const char *key;
	json_t *o, *v;

	out->n = 0;
	o = json_loads(text ? text : "", 0, NULL);
	if (!json_is_object(o)) {
		json_decref(o);
		return -EINVAL;
	}
	json_object_foreach(o, key, v)
	{
		if (json_is_number(v))
			metrics_set(out, key, json_number_value(v));
	}
	json_decref(o);
	return 0;
}

/* {METRIC: {mean, stdev, min, max, n}} over ms[0..n), metrics in first-seen order. */
static json_t *summary_of(const struct metrics *const *ms, int n)
{
	struct metric_names names = { 0 };
	json_t *summary = json_object();
	double *vals = xcalloc((size_t)n + 1, sizeof(double));
	int i, k, p;

	for (p = 0; p < n; p++)
		for (i = 0; i < ms[p]->n; i++)
			metric_names_add(&names, ms[p]->m[i].name);
	for (i = 0; i < names.n; i++) {
		struct stats_summary st;

		k = 0;
		for (p = 0; p < n; p++) {
			const struct metric *m = metrics_get(ms[p], names.name[i]);

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

json_t *wire_summary_to_json(const struct pass_rec *passes, int n)
{
	const struct metrics **ms = xcalloc((size_t)n + 1, sizeof(*ms));
	json_t *o;
	int p;

	for (p = 0; p < n; p++)
		ms[p] = &passes[p].metrics;
	o = summary_of(ms, n);
	free(ms);
	return o;
}

/* Workload name's metrics in pass p, NULL if the pass has none under that name. */
static const struct metrics *pass_workload_metrics(const struct pass_rec *p, const char *name)
{
	int i;

	for (i = 0; i < p->n_workloads; i++)
		if (!strcmp(p->workloads[i].name, name))
			return &p->workloads[i].metrics;
	return NULL;
}

json_t *wire_summary_workloads_to_json(const struct job_spec *spec, const struct pass_rec *passes,
                                       int n)
{
	const struct metrics **ms = xcalloc((size_t)n + 1, sizeof(*ms));
	json_t *arr = json_array();
	int i, p, k;

	for (i = 0; i < spec->opts.n_workloads; i++) {
		const char *name = spec->opts.workloads[i].name;

		for (p = 0, k = 0; p < n; p++)
			if ((ms[k] = pass_workload_metrics(&passes[p], name)))
				k++;
		json_array_append_new(
		        arr, json_pack("{s:s,s:o}", "name", name, "summary", summary_of(ms, k)));
	}
	free(ms);
	return arr;
}

/* [{name, metrics}] of a pass, in the job's order. */
static json_t *pass_workloads_to_json(const struct pass_rec *p)
{
	json_t *arr = json_array();
	int i;

	for (i = 0; i < p->n_workloads; i++)
		json_array_append_new(
		        arr, json_pack("{s:s,s:o}", "name", p->workloads[i].name, "metrics",
		                       wire_metrics_to_json(&p->workloads[i].metrics)));
	return arr;
}

/* ---- the parameter values read before loop 1 ---- */

char *wire_param_values_encode(const struct params *ps)
{
	json_t *o = json_object();
	int i;

	for (i = 0; i < ps->n; i++) {
		const struct param *p = &ps->p[i];

		/* The one rule of GET params: integer kinds (an enumeration's decimal choices
		 * too: rq_affinity, nomerges) as numbers. */
		json_object_set_new(o, p->name, wire_value_to_json(p->kind, p->value));
	}
	return wire_dump(o, JSON_SORT_KEYS);
}

int wire_param_values_decode(const char *text, struct store_value **out, int *n)
{
	const char *key;
	json_t *o, *v;
	int k = 0;

	*out = NULL;
	*n = 0;
	o = json_loads(text ? text : "", 0, NULL);
	if (!json_is_object(o)) {
		json_decref(o);
		return -EINVAL;
	}
	*out = xcalloc(json_object_size(o) + 1, sizeof(**out));
	json_object_foreach(o, key, v)
	{
		if (json_is_integer(v)) {
			(*out)[k].value = xasprintf("%lld", (long long)json_integer_value(v));
			(*out)[k].number = true;
		} else if (json_is_string(v)) {
			(*out)[k].value = xstrdup(json_string_value(v));
		} else {
			continue;
		}
		(*out)[k].name = xstrdup(key);
		k++;
	}
	*n = k;
	json_decref(o);
	return 0;
}

json_t *wire_param_values_to_json(const struct store_value *v, int n)
{
	json_t *o = json_object();
	int i;

	for (i = 0; i < n; i++)
		json_object_set_new(o, v[i].name,
		                    v[i].number ? wire_int_or_string(v[i].value, false)
		                                : json_string(v[i].value));
	return o;
}

/* ---- the job object ---- */

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
	JF_FILESYSTEM = 1u << 16,
	JF_IDENTITY = 1u << 17,
	JF_APPLIED = 1u << 18,
	JF_START_AT = 1u << 19,
	JF_BEGUN_AT = 1u << 20,
	JF_START_LATE = 1u << 21,
	JF_HELD = 1u << 22,
	JF_PASS_DEADLINE = 1u << 23,
	JF_RUN_DEADLINE = 1u << 24,
};

_Static_assert(WIRE_JOB_ALL == (JF_RUN_DEADLINE << 1) - 1, "WIRE_JOB_ALL: every member");

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
	{ "summary_workloads", JF_SUMMARY }, /* with summary, for a job with workloads */
	{ "passes", JF_PASSES },
	{ "params", JF_PARAMS },
	{ "created_at", JF_CREATED_AT },
	{ "started_at", JF_STARTED_AT },
	{ "finished_at", JF_FINISHED_AT },
	{ "error", JF_ERROR },
	{ "params_changed", JF_PARAMS_CHANGED },
	{ "filesystem", JF_FILESYSTEM },
	{ "identity", JF_IDENTITY },
	{ "applied", JF_APPLIED },
	{ "start_at", JF_START_AT },
	{ "begun_at", JF_BEGUN_AT },
	{ "start_late_s", JF_START_LATE },
	{ "held_s", JF_HELD },
	{ "pass_deadline_s", JF_PASS_DEADLINE },
	{ "run_deadline_s", JF_RUN_DEADLINE },
	{ "version", 0 },
};

#define N_JOB_FIELDS (sizeof(job_fields) / sizeof(job_fields[0]))

int wire_job_fields_parse(const char *list, unsigned *mask, struct err *e)
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
			        e, -EINVAL, ERR_BAD_REQUEST,
			        "fields: '%.*s' is not a member of a job (id, state, device, "
			        "engine, spec, labels, progress, loops, loops_done, summary, "
			        "summary_workloads, passes, params, created_at, started_at, "
			        "finished_at, error, "
			        "params_changed, filesystem, identity, applied, start_at, "
			        "begun_at, start_late_s, held_s, pass_deadline_s, run_deadline_s, "
			        "version)",
			        (int)(len < 40 ? len : 40), p);
		*mask |= job_fields[i].bit;
		if (!end)
			return 0;
		p = end + 1;
	}
}

unsigned wire_job_list_fields(void)
{
	return WIRE_JOB_ALL & ~(unsigned)(JF_SPEC | JF_SUMMARY | JF_PASSES | JF_PARAMS |
	                                  JF_FILESYSTEM | JF_IDENTITY | JF_APPLIED);
}

bool wire_job_fields_need_params(unsigned fields)
{
	return (fields & JF_PARAMS) != 0;
}

bool wire_job_fields_need_passes(unsigned fields)
{
	return (fields & (JF_SUMMARY | JF_PASSES)) != 0;
}

/* Whole seconds as an integer (0: unknown, null). */
static json_t *wire_seconds_to_json(double s)
{
	return s > 0 ? json_integer((json_int_t)ceil(s)) : json_null();
}

json_t *wire_job_to_json(const struct job_rec *j, const struct pass_rec *passes, int n,
                         unsigned fields)
{
	json_t *o = json_object();
	int i;

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
		json_object_set_new(o, "summary", wire_summary_to_json(passes, n));
	if ((fields & JF_SUMMARY) && j->spec.opts.n_workloads)
		json_object_set_new(o, "summary_workloads",
		                    wire_summary_workloads_to_json(&j->spec, passes, n));
	if (fields & JF_PASSES) {
		json_t *arr = json_array(), *po;

		for (i = 0; i < n; i++) {
			po = json_pack("{s:i,s:o,s:o,s:o}", "loop", passes[i].loop, "started_at",
			               wire_time_to_json(passes[i].started_at), "finished_at",
			               wire_time_to_json(passes[i].finished_at), "metrics",
			               wire_metrics_to_json(&passes[i].metrics));
			if (passes[i].n_workloads)
				json_object_set_new(po, "workloads",
				                    pass_workloads_to_json(&passes[i]));
			json_array_append_new(arr, po);
		}
		json_object_set_new(o, "passes", arr);
	}
	if (fields & JF_PARAMS)
		json_object_set_new(o, "params",
		                    j->has_params
		                            ? wire_param_values_to_json(j->params, j->n_params)
		                            : json_null());
	if (fields & JF_CREATED_AT)
		json_object_set_new(o, "created_at", wire_time_to_json(j->created_at));
	if (fields & JF_STARTED_AT)
		json_object_set_new(o, "started_at", wire_time_to_json(j->started_at));
	if (fields & JF_FINISHED_AT)
		json_object_set_new(o, "finished_at", wire_time_to_json(j->finished_at));
	if (fields & JF_ERROR)
		json_object_set_new(o, "error",
		                    j->has_error ? json_pack("{s:s,s:s}", "code", j->error_code,
		                                             "message", j->error_message)
		                                 : json_null());
	if (fields & JF_PARAMS_CHANGED)
		json_object_set_new(o, "params_changed",
		                    j->has_params_changed ? json_string(j->params_changed)
		                                          : json_null());
	if (fields & JF_FILESYSTEM) {
		json_t *fs = j->filesystem ? json_loads(j->filesystem, 0, NULL) : NULL;

		json_object_set_new(o, "filesystem", fs ? fs : json_null());
	}
	if (fields & JF_IDENTITY)
		json_object_set_new(o, "identity", wire_identity_decode(j->identity));
	if (fields & JF_APPLIED) {
		json_t *ap = j->applied ? json_loads(j->applied, 0, NULL) : NULL;

		json_object_set_new(o, "applied", ap ? ap : json_null());
	}
	if (fields & JF_START_AT)
		json_object_set_new(o, "start_at", wire_time_to_json(j->spec.start_at));
	if (fields & JF_BEGUN_AT)
		json_object_set_new(o, "begun_at", wire_time_to_json(j->begun_at));
	/* To the microsecond: the spread of a fleet's starts is a matter of milliseconds. */
	if (fields & JF_START_LATE)
		json_object_set_new(
		        o, "start_late_s",
		        j->spec.start_at > 0 && j->begun_at > 0
		                ? json_real(round((j->begun_at - j->spec.start_at) * 1e6) / 1e6)
		                : json_null());
	if (fields & JF_HELD)
		json_object_set_new(o, "held_s",
		                    j->begun_at > 0 ? json_real(round(j->held_s * 1e6) / 1e6)
		                                    : json_null());
	if (fields & JF_PASS_DEADLINE)
		json_object_set_new(o, "pass_deadline_s", wire_seconds_to_json(j->pass_deadline_s));
	if (fields & JF_RUN_DEADLINE)
		json_object_set_new(o, "run_deadline_s", wire_seconds_to_json(j->run_deadline_s));
	json_object_set_new(o, "version", json_integer((json_int_t)j->version));
	return o;
}

/* A figure as the tools printed it: integers as numbers. */
static json_t *figures_to_json(const struct fs_figures *fg)
{
	json_t *o = json_object();
	int i;

	for (i = 0; i < fg->n; i++)
		json_object_set_new(o, fg->f[i].name,
		                    fg->f[i].number ? wire_int_or_string(fg->f[i].value, false)
		                                    : json_string(fg->f[i].value));
	return o;
}

json_t *wire_fs_made_to_json(const struct jobfs_made *m, bool dry_run)
{
	if (dry_run)
		return json_pack("{s:s,s:o}", "mkfs", m->mkfs_argv, "figures",
		                 figures_to_json(&m->figures));
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:f,s:o}", "type", fs_type_name(m->type),
	                 "device", m->device, "mount_point", m->mount_point, "mkfs", m->mkfs_argv,
	                 "mount_options", m->mount_opts, "super_options", m->super_opts, "mkfs_s",
	                 m->mkfs_s, "figures", figures_to_json(&m->figures));
}

char *wire_fs_made_encode(const struct jobfs_made *m)
{
	return wire_dump(wire_fs_made_to_json(m, false), JSON_PRESERVE_ORDER);
}

json_t *wire_job_dry_run_to_json(const struct job_spec *spec, const struct metric_names *names,
                                 double runtime_s, double pass_deadline_s, double run_deadline_s,
                                 const struct jobfs_made *fs)
{
	json_t *metrics = json_array(), *o;
	int i, k;

	for (i = 0; i < names->n; i++)
		json_array_append_new(metrics, json_string(names->name[i]));
	o = json_pack("{s:b,s:o,s:o,s:o}", "dry_run", 1, "job", wire_job_spec_to_json(spec),
	              "metrics", metrics, "expected_runtime_s",
	              runtime_s == floor(runtime_s) ? json_integer((json_int_t)runtime_s)
	                                            : json_real(runtime_s));
	json_object_set_new(o, "pass_deadline_s", wire_seconds_to_json(pass_deadline_s));
	json_object_set_new(o, "run_deadline_s", wire_seconds_to_json(run_deadline_s));
	if (fs)
		json_object_set_new(o, "filesystem", wire_fs_made_to_json(fs, true));
	if (spec->engine && spec->opts.n_workloads) {
		json_t *wls = json_array(), *list;
		struct engine_opts sec;
		struct metric_names wn;

		for (i = 0; i < spec->opts.n_workloads; i++) {
			engine_section_opts(&spec->opts, i, &sec);
			wn.n = 0;
			spec->engine->metrics_list(&sec, &wn);
			list = json_array();
			for (k = 0; k < wn.n; k++)
				json_array_append_new(list, json_string(wn.name[k]));
			json_array_append_new(wls, json_pack("{s:s,s:o}", "name",
			                                     spec->opts.workloads[i].name,
			                                     "metrics", list));
		}
		json_object_set_new(o, "workloads", wls);
	}
	return o;
}
