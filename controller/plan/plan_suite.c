/* plan_suite.c -- a plan's suite: workloads given, expanded from a matrix or the iozone preset,
 * the rule that decides across them (decide) and the guardrails. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "buf.h"
#include "plan/plan_suite.h"
#include "xmalloc.h"
#include "banned.h"

/* 1..64 characters of A-Za-z0-9 _.,:+- not starting with a space (the agent's rule). */
static bool workload_name_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (n < 1 || n >= PLAN_WORKLOAD_NAME_MAX || s[0] == ' ')
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr(" _.,:+-", c)))
			return false;
	}
	return true;
}

/* The metric a workload of fio rw mode rw is judged on by default: its direction's bandwidth
 * (a mixed one's read side). */
static const char *rw_metric(const char *rw)
{
	return rw && strstr(rw, "write") && !strstr(rw, "rw") ? "write.bw_mib" : "read.bw_mib";
}

static struct plan_workload *workload_add(struct parser *ps, const char *path)
{
	struct plan *p = ps->p;
	struct plan_workload *w;

	if (p->nworkloads >= PLAN_WORKLOADS_MAX) {
		fail(ps, path, "a suite has at most %d workloads", PLAN_WORKLOADS_MAX);
		return NULL;
	}
	if (!p->workloads)
		p->workloads = xcalloc(PLAN_WORKLOADS_MAX, sizeof(*p->workloads));
	w = &p->workloads[p->nworkloads++];
	memset(w, 0, sizeof(*w));
	w->weight = 1.0;
	return w;
}

static int metric_take(struct parser *ps, json_t *o, const char *path, char *out, bool *min)
{
	const char *s;
	int r;

	if ((r = jread_str(&ps->jr, o, path, "metric", JREAD_NONEMPTY, &s)) < 0)
		return r;
	if (r == 1) {
		if (!planjson_name_ok(s, "."))
			return fail(ps, path, "metric '%s' is not a metric name (e.g. read.iops)",
			            s);
		snprintf(out, PARAM_NAME_MAX, "%s", s);
	}
	*min = plan_metric_minimize(out);
	if ((r = jread_str(&ps->jr, o, path, "goal", JREAD_NONEMPTY, &s)) < 0)
		return r;
	if (r == 1) {
		if (!strcmp(s, "minimize"))
			*min = true;
		else if (!strcmp(s, "maximize"))
			*min = false;
		else
			return fail(ps, path, "goal '%s' is not one of maximize, minimize", s);
	}
	return 0;
}

/* "workloads": [{"name", "fio": {...}, "metric", "goal"}] */
static int parse_workloads(struct parser *ps, json_t *arr)
{
	static const char *const keys[] = { "name", "fio", "metric", "goal", NULL };
	json_t *w;
	size_t i;
	int r;

	if (!json_is_array(arr) || !json_array_size(arr))
		return fail(ps, "workloads", "expected a non-empty array of workloads");
	json_array_foreach(arr, i, w)
	{
		char path[48];
		const char *name;
		struct plan_workload *pw;
		json_t *fio;

		snprintf(path, sizeof(path), "workloads[%zu]", i);
		if (!json_is_object(w))
			return fail(ps, path, "expected an object");
		if ((r = planjson_check_keys(ps, w, path, keys)) < 0)
			return r;
		if ((r = jread_str(&ps->jr, w, path, "name", JREAD_REQUIRED | JREAD_NONEMPTY,
		                   &name)) < 0)
			return r;
		if (!workload_name_ok(name))
			return fail(ps, path,
			            "name '%s' must be 1 to 64 characters of A-Za-z0-9 _.,:+- "
			            "not starting with a space",
			            name);
		if (plan_workload_find(ps->p, name) >= 0)
			return fail(ps, path, "name '%s' is given twice", name);
		fio = json_object_get(w, "fio");
		if (fio && !json_is_object(fio))
			return fail(ps, path,
			            "fio: expected an object (the workload's fio options)");
		if (!(pw = workload_add(ps, path)))
			return -EINVAL;
		snprintf(pw->name, sizeof(pw->name), "%s", name);
		pw->fio_json =
		        fio ? json_dumps(fio, JSON_COMPACT | JSON_PRESERVE_ORDER) : xstrdup("{}");
		snprintf(pw->metric, sizeof(pw->metric), "%s",
		         rw_metric(json_string_value(json_object_get(fio, "rw"))));
		if ((r = metric_take(ps, w, path, pw->metric, &pw->minimize)) < 0)
			return r;
	}
	return 0;
}

/* A matrix value's part of a generated name: "randread", "nj4", "qd32", "bs:4k". */
static void name_part(struct buf *b, const char *key, json_t *v)
{
	char text[64];

	if (json_is_string(v))
		snprintf(text, sizeof(text), "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(text, sizeof(text), "%lld", (long long)json_integer_value(v));
	else
		snprintf(text, sizeof(text), "%g", json_number_value(v));
	if (b->len)
		buf_printf(b, " ");
	if (!strcmp(key, "rw"))
		buf_printf(b, "%s", text);
	else if (!strcmp(key, "numjobs"))
		buf_printf(b, "nj%s", text);
	else if (!strcmp(key, "iodepth"))
		buf_printf(b, "qd%s", text);
	else
		buf_printf(b, "%s:%s", key, text);
}

/* "matrix": {"rw": [...], "numjobs": [...], ..., "metric"?}: every combination, the first key
 * outermost, named from its values ("randread nj4"). */
static int parse_matrix(struct parser *ps, json_t *m)
{
	const char *keys[PLAN_WORKLOADS_MAX], *key;
	json_t *vals[PLAN_WORKLOADS_MAX], *v;
	size_t n = 0, total = 1, c, j;
	int r = 0;

	if (!json_is_object(m) || !json_object_size(m))
		return fail(ps, "matrix", "expected an object of fio options, each with a list");
	json_object_foreach(m, key, v)
	{
		char path[96];

		if (!strcmp(key, "metric") || !strcmp(key, "goal"))
			continue; /* the workloads' metric and goal (metric_take) */
		snprintf(path, sizeof(path), "matrix.%s", key);
		if (!planjson_name_ok(key, ""))
			return fail(ps, "matrix", "'%s' is not an fio option name", key);
		if (!json_is_array(v) || !json_array_size(v))
			return fail(ps, path, "expected a non-empty list of values");
		for (j = 0; j < json_array_size(v); j++)
			if (!json_is_string(json_array_get(v, j)) &&
			    !json_is_number(json_array_get(v, j)))
				return fail(ps, path, "values must be strings or numbers");
		if (n == PLAN_WORKLOADS_MAX || (total *= json_array_size(v)) > PLAN_WORKLOADS_MAX)
			return fail(ps, "matrix", "expands to more than %d workloads",
			            PLAN_WORKLOADS_MAX);
		keys[n] = key;
		vals[n++] = v;
	}
	if (!n)
		return fail(ps, "matrix", "expected at least one fio option with a list");
	for (c = 0; c < total && r == 0; c++) {
		json_t *fio = json_object();
		struct buf name = { 0 };
		struct plan_workload *w;
		size_t rest = c, at[PLAN_WORKLOADS_MAX];

		/* The last key varies fastest; the options in the matrix's order. */
		for (j = n; j-- > 0;) {
			at[j] = rest % json_array_size(vals[j]);
			rest /= json_array_size(vals[j]);
		}
		for (j = 0; j < n; j++)
			json_object_set(fio, keys[j], json_array_get(vals[j], at[j]));
		for (j = 0; j < n; j++)
			name_part(&name, keys[j], json_object_get(fio, keys[j]));
		if (!workload_name_ok(name.data)) {
			r = fail(ps, "matrix", "the generated name '%s' is not a workload name",
			         name.data);
		} else if (plan_workload_find(ps->p, name.data) >= 0) {
			r = fail(ps, "matrix", "two combinations are both named '%s'", name.data);
		} else if (!(w = workload_add(ps, "matrix"))) {
			r = -EINVAL;
		} else {
			snprintf(w->name, sizeof(w->name), "%s", name.data);
			w->fio_json = json_dumps(fio, JSON_COMPACT | JSON_PRESERVE_ORDER);
			snprintf(w->metric, sizeof(w->metric), "%s",
			         rw_metric(json_string_value(json_object_get(fio, "rw"))));
			r = metric_take(ps, m, "matrix", w->metric, &w->minimize);
		}
		buf_release(&name);
		json_decref(fio);
	}
	snprintf(ps->p->suite, sizeof(ps->p->suite), "matrix");
	return r;
}

/* "suite": "iozone" at "threads" (default [1]): seed 000/004's iozone tests in fio terms. */
static int parse_preset(struct parser *ps, json_t *suite, json_t *threads)
{
	static const struct {
		const char *name, *fio, *metric;
	} tests[] = {
		{ "write", "{\"rw\":\"write\"}", "write.bw_mib" },
		{ "rewrite", "{\"rw\":\"write\"}", "write.bw_mib" },
		{ "read", "{\"rw\":\"read\"}", "read.bw_mib" },
		{ "reread", "{\"rw\":\"read\"}", "read.bw_mib" },
		{ "random read", "{\"rw\":\"randread\"}", "read.bw_mib" },
		{ "random write", "{\"rw\":\"randwrite\"}", "write.bw_mib" },
		{ "mixed", "{\"rw\":\"randrw\",\"rwmixread\":50}", "read.bw_mib" },
	};
	json_int_t nt[PLAN_WORKLOADS_MAX];
	size_t n = 0, t, i;

	if (!json_is_string(suite) || strcmp(json_string_value(suite), "iozone"))
		return fail(ps, "suite", "the only preset is \"iozone\"");
	if (threads) {
		json_t *v;

		if (!json_is_array(threads) || !json_array_size(threads))
			return fail(ps, "threads", "expected a non-empty list of thread counts");
		json_array_foreach(threads, i, v)
		{
			if (!json_is_integer(v) || json_integer_value(v) < 1 ||
			    json_integer_value(v) > 1024)
				return fail(ps, "threads",
				            "each must be an integer from 1 to 1024");
			for (t = 0; t < n; t++)
				if (nt[t] == json_integer_value(v))
					return fail(ps, "threads", "%lld is given twice",
					            (long long)nt[t]);
			if (n == PLAN_WORKLOADS_MAX)
				break;
			nt[n++] = json_integer_value(v);
		}
		if (n * 7 > PLAN_WORKLOADS_MAX)
			return fail(
			        ps, "threads",
			        "%zu thread counts make %zu workloads, more than %d (the iozone "
			        "suite has 7 tests: at most 2 thread counts)",
			        n, n * 7, PLAN_WORKLOADS_MAX);
	}
	for (t = 0; t < (n ? n : 1); t++) {
		for (i = 0; i < 7; i++) {
			struct plan_workload *w = workload_add(ps, "suite");
			json_t *fio = json_loads(tests[i].fio, 0, NULL);

			if (!w) {
				json_decref(fio);
				return -EINVAL;
			}
			if (n) {
				snprintf(w->name, sizeof(w->name), "%s t%lld", tests[i].name,
				         (long long)nt[t]);
				json_object_set_new(fio, "numjobs", json_integer(nt[t]));
			} else {
				snprintf(w->name, sizeof(w->name), "%s", tests[i].name);
			}
			w->fio_json = json_dumps(fio, JSON_COMPACT | JSON_PRESERVE_ORDER);
			json_decref(fio);
			snprintf(w->metric, sizeof(w->metric), "%s", tests[i].metric);
		}
	}
	snprintf(ps->p->suite, sizeof(ps->p->suite), "iozone");
	return 0;
}

/* "decide": {"rule", "primary", "weights": {name: w}} */
static int parse_decide(struct parser *ps, json_t *d)
{
	static const char *const keys[] = { "rule", "primary", "weights", NULL };
	struct plan *p = ps->p;
	const char *s, *name;
	json_t *wts, *v;
	int r, k;

	if (!json_is_object(d))
		return fail(ps, "decide", "expected an object with a rule");
	if ((r = planjson_check_keys(ps, d, "decide", keys)) < 0 ||
	    (r = jread_str(&ps->jr, d, "decide", "rule", JREAD_REQUIRED | JREAD_NONEMPTY, &s)) < 0)
		return r;
	if ((k = plan_rule_parse(s)) < 0)
		return fail(ps, "decide.rule", "'%s' is not one of no_loss, primary, mean", s);
	p->rule = (enum plan_rule)k;
	if ((r = jread_str(&ps->jr, d, "decide", "primary",
	                   JREAD_NONEMPTY | (p->rule == PLAN_RULE_PRIMARY ? JREAD_REQUIRED : 0),
	                   &s)) < 0)
		return r;
	if (r == 1) {
		if (p->rule != PLAN_RULE_PRIMARY)
			return fail(ps, "decide.primary", "only the rule primary takes one");
		if ((p->primary = plan_workload_find(p, s)) < 0)
			return fail(ps, "decide.primary", "'%s' is not a workload of the suite", s);
		p->lead = p->primary;
	}
	wts = json_object_get(d, "weights");
	if (wts) {
		if (p->rule != PLAN_RULE_MEAN)
			return fail(ps, "decide.weights", "only the rule mean takes weights");
		if (!json_is_object(wts))
			return fail(ps, "decide.weights", "expected an object {workload: weight}");
		json_object_foreach(wts, name, v)
		{
			if ((k = plan_workload_find(p, name)) < 0)
				return fail(ps, "decide.weights",
				            "'%s' is not a workload of the suite", name);
			if (!json_is_number(v) || !(json_number_value(v) > 0) ||
			    json_number_value(v) > 1e6)
				return fail(ps, "decide.weights",
				            "'%s': a weight is a positive number (up to 1e6)",
				            name);
			p->workloads[k].weight = json_number_value(v);
		}
	}
	return 0;
}

/* "guardrails": [{"metric", "workload" ("*" by default), "max_loss_pct"}] */
static int parse_guardrails(struct parser *ps, json_t *arr)
{
	static const char *const keys[] = { "metric", "workload", "max_loss_pct", NULL };
	struct plan *p = ps->p;
	json_t *g, *v;
	size_t i;
	int r;

	if (!json_is_array(arr))
		return fail(ps, "guardrails", "expected an array of guardrails");
	if (json_array_size(arr) > PLAN_GUARDRAILS_MAX)
		return fail(ps, "guardrails", "at most %d guardrails", PLAN_GUARDRAILS_MAX);
	p->guardrails = xcalloc(json_array_size(arr) + 1, sizeof(*p->guardrails));
	json_array_foreach(arr, i, g)
	{
		struct plan_guardrail *gr = &p->guardrails[p->nguardrails];
		char path[48];
		const char *s;

		snprintf(path, sizeof(path), "guardrails[%zu]", i);
		if (!json_is_object(g))
			return fail(ps, path, "expected an object");
		if ((r = planjson_check_keys(ps, g, path, keys)) < 0 ||
		    (r = jread_str(&ps->jr, g, path, "metric", JREAD_REQUIRED | JREAD_NONEMPTY,
		                   &s)) < 0)
			return r;
		if (!planjson_name_ok(s, "."))
			return fail(ps, path,
			            "metric '%s' is not a metric name (e.g. read.clat_p99_us)", s);
		snprintf(gr->metric, sizeof(gr->metric), "%s", s);
		gr->minimize = plan_metric_minimize(s);
		if ((r = jread_str(&ps->jr, g, path, "workload", JREAD_NONEMPTY, &s)) < 0)
			return r;
		if (r == 0)
			s = "*";
		if (strcmp(s, "*") && plan_workload_find(p, s) < 0)
			return fail(ps, path, "workload '%s' is not a workload of the suite", s);
		snprintf(gr->workload, sizeof(gr->workload), "%s", s);
		v = json_object_get(g, "max_loss_pct");
		if (!v)
			return fail(ps, path, "max_loss_pct: required field is missing");
		if (!json_is_number(v) || json_number_value(v) < 0 || json_number_value(v) >= 1000)
			return fail(ps, path, "max_loss_pct must be a number from 0 to 1000");
		gr->max_loss_pct = json_number_value(v);
		p->nguardrails++;
	}
	return 0;
}

int plan_suite_parse(struct parser *ps, json_t *root)
{
	struct plan *p = ps->p;
	json_t *wl = json_object_get(root, "workloads"), *mx = json_object_get(root, "matrix");
	json_t *su = json_object_get(root, "suite"), *th = json_object_get(root, "threads");
	int r, given = !!wl + !!mx + !!su;

	if (given > 1)
		return fail(ps, wl ? "workloads" : "matrix",
		            "a plan gives one of workloads, matrix and suite");
	if (!given) {
		if (json_object_get(root, "decide"))
			return fail(ps, "decide",
			            "only a suite (workloads, matrix or suite) decides "
			            "across workloads");
		if (json_object_get(root, "guardrails"))
			return fail(ps, "guardrails",
			            "only a suite (workloads, matrix or suite) has "
			            "guardrails");
		if (th)
			return fail(ps, "threads", "only the iozone suite takes thread counts");
		return 0;
	}
	if (strcmp(p->engine, "fio"))
		return fail(ps,
		            wl   ? "workloads"
		            : mx ? "matrix"
		                 : "suite",
		            "a suite runs fio sections: job.engine must be fio, not '%s'",
		            p->engine);
	if (th && !su)
		return fail(ps, "threads", "only the iozone suite takes thread counts");
	if (wl)
		r = parse_workloads(ps, wl);
	else if (mx)
		r = parse_matrix(ps, mx);
	else
		r = parse_preset(ps, su, th);
	if (r < 0)
		return r;
	if (json_object_get(root, "decide") &&
	    (r = parse_decide(ps, json_object_get(root, "decide"))) < 0)
		return r;
	if (json_object_get(root, "guardrails") &&
	    (r = parse_guardrails(ps, json_object_get(root, "guardrails"))) < 0)
		return r;
	{
		struct plan_series ser[PLAN_SERIES_MAX];

		if (plan_series_build(p, ser) >= PLAN_SERIES_MAX)
			return fail(
			        ps, "guardrails",
			        "the workloads and guardrails make %d series or more to measure "
			        "(each guardrail's metric on each workload it names)",
			        PLAN_SERIES_MAX);
	}
	/* The lead workload stands for the suite wherever one metric is read. */
	snprintf(p->metric, sizeof(p->metric), "%s", p->workloads[p->lead].metric);
	p->minimize = p->workloads[p->lead].minimize;
	return 0;
}
