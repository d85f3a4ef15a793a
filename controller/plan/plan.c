/* plan.c -- a sweep plan as the controller holds it: names, units, columns, nodes by name, and
 * its release (reading one is plan_parse.c's). */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "buf.h"
#include "num.h"
#include "plan/plan.h"
#include "protocol.h"
#include "xmalloc.h"
#include "banned.h"

const char *plan_strategy_name(enum plan_strategy s)
{
	static const char *const names[] = { "grid", "sequential", "adaptive" };

	return names[s];
}

const char *plan_metric_unit(const char *metric)
{
	size_t n = strlen(metric);
	static const struct {
		const char *suffix, *unit;
	} units[] = {
		{ "_mib", "MiB/s" }, { "iops", "IOPS" }, { "_us", "µs" },
		{ "_pct", "%" },     { "_per_s", "/s" },
	};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t k = strlen(units[i].suffix);

		if (n >= k && !strcmp(metric + n - k, units[i].suffix))
			return units[i].unit;
	}
	return "";
}

void plan_release(struct plan *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; i < p->nnodes; i++) {
		free(p->nodes[i].name);
		free(p->nodes[i].url);
		free(p->nodes[i].device);
		free(p->nodes[i].host);
		free(p->nodes[i].token);
		free(p->nodes[i].token_file);
		plan_labels_free(p->nodes[i].labels, p->nodes[i].nlabels);
	}
	free(p->nodes);
	free(p->node_by_name);
	for (i = 0; i < p->naxes; i++)
		free(p->axes[i].values);
	free(p->axes);
	free(p->name);
	plan_labels_free(p->labels, p->nlabels);
	free(p->engine_json);
	free(p->fio_file);
	free(p->fio_file_path);
	free(p->directory);
	for (i = 0; i < p->nworkloads; i++)
		free(p->workloads[i].fio_json);
	free(p->workloads);
	free(p->guardrails);
	free(p->json);
	memset(p, 0, sizeof(*p));
}

bool plan_metric_minimize(const char *metric)
{
	size_t n = strlen(metric);

	if (strstr(metric, "lat"))
		return true;
	return n > 3 && (!strcmp(metric + n - 3, "_us") || !strcmp(metric + n - 3, "_ms") ||
	                 !strcmp(metric + n - 3, "_ns"));
}

int plan_series_find(const struct plan_series *s, int n, int w, const char *metric)
{
	int i;

	for (i = 0; i < n; i++)
		if (s[i].workload == w && !strcmp(s[i].metric, metric))
			return i;
	return -1;
}

int plan_series_build(const struct plan *p, struct plan_series *out)
{
	int n = 0, g, w;

	for (w = 0; w < p->nworkloads && n < PLAN_SERIES_MAX; w++, n++) {
		out[n].workload = w;
		snprintf(out[n].metric, sizeof(out[n].metric), "%s", p->workloads[w].metric);
		out[n].minimize = p->workloads[w].minimize;
	}
	for (g = 0; g < p->nguardrails; g++)
		for (w = 0; w < p->nworkloads && n < PLAN_SERIES_MAX; w++) {
			const struct plan_guardrail *gr = &p->guardrails[g];

			if ((strcmp(gr->workload, "*") &&
			     strcmp(gr->workload, p->workloads[w].name)) ||
			    plan_series_find(out, n, w, gr->metric) >= 0)
				continue;
			out[n].workload = w;
			snprintf(out[n].metric, sizeof(out[n].metric), "%s", gr->metric);
			out[n].minimize = gr->minimize;
			n++;
		}
	return n;
}

const char *plan_rule_name(enum plan_rule r)
{
	return r == PLAN_RULE_PRIMARY ? "primary" : r == PLAN_RULE_MEAN ? "mean" : "no_loss";
}

int plan_rule_parse(const char *s)
{
	if (!strcmp(s, "no_loss"))
		return PLAN_RULE_NO_LOSS;
	if (!strcmp(s, "primary"))
		return PLAN_RULE_PRIMARY;
	if (!strcmp(s, "mean"))
		return PLAN_RULE_MEAN;
	return -1;
}

int plan_workload_find(const struct plan *p, const char *name)
{
	int i;

	for (i = 0; i < p->nworkloads; i++)
		if (!strcmp(p->workloads[i].name, name))
			return i;
	return -1;
}

void plan_job_copy(struct plan *dst, const struct plan *src)
{
	snprintf(dst->engine, sizeof(dst->engine), "%s", src->engine);
	free(dst->engine_json);
	dst->engine_json = src->engine_json ? xstrdup(src->engine_json) : NULL;
	free(dst->fio_file);
	dst->fio_file = src->fio_file ? xstrdup(src->fio_file) : NULL;
	free(dst->fio_file_path);
	dst->fio_file_path = src->fio_file_path ? xstrdup(src->fio_file_path) : NULL;
	free(dst->directory);
	dst->directory = src->directory ? xstrdup(src->directory) : NULL;
	dst->loops = src->loops;
	dst->loops_max = src->loops_max;
	dst->runtime_s = src->runtime_s;
	snprintf(dst->metric, sizeof(dst->metric), "%s", src->metric);
	dst->minimize = src->minimize;
	dst->min_effect_pct = src->min_effect_pct;
}

bool plan_job_sets_direct(const struct plan *p)
{
	json_t *o = p->engine_json ? json_loads(p->engine_json, 0, NULL) : NULL;
	bool set = json_object_get(o, "direct") != NULL;

	json_decref(o);
	return set;
}

int plan_columns(const struct plan *p, char (*names)[PARAM_NAME_MAX], int max)
{
	int n = 0, i, j, k;

	for (i = 0; i < p->naxes; i++) {
		for (j = 0; j < p->axes[i].nparams; j++) {
			for (k = 0; k < n; k++)
				if (!strcmp(names[k], p->axes[i].params[j]))
					break;
			if (k == n && n < max)
				snprintf(names[n++], PARAM_NAME_MAX, "%s", p->axes[i].params[j]);
		}
	}
	for (i = 0; i < p->baseline.n; i++) {
		for (k = 0; k < n; k++)
			if (!strcmp(names[k], p->baseline.s[i].name))
				break;
		if (k == n && n < max)
			snprintf(names[n++], PARAM_NAME_MAX, "%s", p->baseline.s[i].name);
	}
	return n;
}

const char *plan_node_label(const struct plan_node *n, const char *key)
{
	int i;

	for (i = 0; i < n->nlabels; i++)
		if (!strcmp(n->labels[i].key, key))
			return n->labels[i].value;
	return NULL;
}

int plan_node_find(const struct plan *p, const char *name)
{
	int lo = 0, hi = p->nnodes - 1, mid, c;

	if (!p->node_by_name) { /* a plan built by hand, not parsed */
		for (mid = 0; mid < p->nnodes; mid++)
			if (!strcmp(p->nodes[mid].name, name))
				return mid;
		return -1;
	}
	while (lo <= hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(p->nodes[p->node_by_name[mid]].name, name);
		if (!c)
			return p->node_by_name[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

void plan_labels_free(struct plan_label *l, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(l[i].key);
		free(l[i].value);
	}
	free(l);
}

/* An allow_differences entry: a parameter name (letters, digits, '_', '.'), optionally ending
 * ".*" for every parameter under that prefix. */
static bool allow_name_ok(const char *n, size_t len)
{
	size_t i;

	if (len == 0 || len >= PARAM_NAME_MAX)
		return false;
	if (len >= 2 && n[len - 1] == '*' && n[len - 2] == '.')
		len -= 1;
	for (i = 0; i < len; i++)
		if (!((n[i] >= 'a' && n[i] <= 'z') || (n[i] >= 'A' && n[i] <= 'Z') ||
		      (n[i] >= '0' && n[i] <= '9') || n[i] == '_' || n[i] == '.'))
			return false;
	return true;
}

int plan_allow_differences_add(struct plan *p, const char *list, struct err *e)
{
	const char *at = list, *end;
	size_t n;

	while (at && *at) {
		end = strchr(at, ',');
		n = end ? (size_t)(end - at) : strlen(at);
		while (n && *at == ' ')
			at++, n--;
		while (n && at[n - 1] == ' ')
			n--;
		if (!allow_name_ok(at, n))
			return err_set(e, -EINVAL, ERR_BAD_ALLOW_DIFFERENCES,
			               "'%.*s' is not a parameter name (letters, digits, '_', '.'; "
			               "\"prefix.*\" for every parameter under a prefix)",
			               (int)(n < 80 ? n : 80), at);
		if (p->nallow >= PLAN_ALLOW_MAX)
			return err_set(e, -EINVAL, ERR_BAD_ALLOW_DIFFERENCES,
			               "at most %d parameters may differ", PLAN_ALLOW_MAX);
		snprintf(p->allow[p->nallow++], PARAM_NAME_MAX, "%.*s", (int)n, at);
		at = end ? end + 1 : NULL;
	}
	return 0;
}

bool plan_difference_allowed(const struct plan *p, const char *name)
{
	int i;
	size_t n;

	for (i = 0; i < p->nallow; i++) {
		n = strlen(p->allow[i]);
		if (!strcmp(p->allow[i], name) ||
		    (n >= 2 && p->allow[i][n - 1] == '*' && !strncmp(p->allow[i], name, n - 1)))
			return true;
	}
	return false;
}

/* A size option of the job's engine object o: a number of bytes, or fio-style text ("2g"). */
static bool opt_bytes(json_t *o, const char *key, uint64_t *out)
{
	json_t *v = json_object_get(o, key);

	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return true;
	}
	return json_is_string(v) && num_parse_size(json_string_value(v), out) == 0;
}

int plan_job_bytes(const struct plan *p, uint64_t *bytes, char *what, size_t len)
{
	json_t *o = p->engine_json ? json_loads(p->engine_json, 0, NULL) : NULL;
	uint64_t a = 0, b = 0;
	json_int_t n;
	int rc = 0;

	*bytes = 0;
	what[0] = '\0';
	if (!json_is_object(o))
		goto out;
	if (!strcmp(p->engine, "fio") && opt_bytes(o, "size", &a) && a > 0) {
		/* A job that writes files (a directory, a filesystem) writes one per fio job. */
		n = json_integer_value(json_object_get(o, "numjobs"));
		if ((p->directory || p->has_fs) && n > 1) {
			*bytes = a * (uint64_t)n;
			snprintf(what, len, "fio size %s \u00d7 numjobs %lld",
			         json_is_string(json_object_get(o, "size"))
			                 ? json_string_value(json_object_get(o, "size"))
			                 : "",
			         (long long)n);
		} else {
			*bytes = a;
			snprintf(what, len, "fio size %s",
			         json_is_string(json_object_get(o, "size"))
			                 ? json_string_value(json_object_get(o, "size"))
			                 : "(bytes)");
		}
		rc = 1;
	} else if (!strcmp(p->engine, "bonnie") && json_is_integer(json_object_get(o, "size_mb")) &&
	           json_integer_value(json_object_get(o, "size_mb")) > 0) {
		n = json_integer_value(json_object_get(o, "size_mb"));
		*bytes = (uint64_t)n << 20;
		snprintf(what, len, "bonnie++ size_mb %lld", (long long)n);
		rc = 1;
	} else if (!strcmp(p->engine, "dd") && json_is_integer(json_object_get(o, "count"))) {
		n = json_integer_value(json_object_get(o, "count"));
		if (!opt_bytes(o, "bs", &b))
			b = 1 << 20; /* dd.bs's default */
		*bytes = (uint64_t)n * b;
		snprintf(what, len, "dd count %lld \u00d7 bs %llu", (long long)n,
		         (unsigned long long)b);
		rc = 1;
	} else if (!strcmp(p->engine, "iozone") && opt_bytes(o, "file_size", &a) && a > 0) {
		*bytes = a;
		snprintf(what, len, "iozone file_size %s",
		         json_is_string(json_object_get(o, "file_size"))
		                 ? json_string_value(json_object_get(o, "file_size"))
		                 : "(bytes)");
		rc = 1;
	}
out:
	json_decref(o);
	return rc;
}
