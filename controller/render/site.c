/* site.c -- `fleettune-ctl site DIR`: every stored sweep as a static site: the index page and
 * its document (every sweep, and the plans run more than once over time), each sweep's report,
 * and the scripts and stylesheet they share. */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "doc/sweepdoc.h"
#include "judge/analysis.h"
#include "render/report_html.h"
#include "render/site.h"
#include "timeutil.h"
#include "xmalloc.h"
#include "banned.h"

/* format_version of the index document (web/site.js describes it). */
#define SITE_FORMAT_VERSION 1

/* The files the pages link, copied from web_dir into the site as they are. */
static const char *const site_assets[] = {
	"style.css", "charts.js",           "report.js",
	"site.js",   "vendor/chart.umd.js", "vendor/chart.js.LICENSE.md",
};

/* The largest web file read (the chart library is about 200 KiB). */
#define WEB_FILE_MAX (16u << 20)

static int dir_make(const char *path, struct err *e)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return err_set(e, -errno, ERR_WRITE_FAILED, "cannot create '%s': %s", path,
		               strerror(errno));
	return 0;
}

static int web_read(const char *web_dir, const char *rel, struct buf *out, struct err *e)
{
	char *path = xasprintf("%s/%s", web_dir, rel);
	int rc = buf_read_file(out, path, WEB_FILE_MAX);

	if (rc < 0)
		err_set(e, rc, ERR_WEB_UNREADABLE, "cannot read '%s': %s", path, strerror(-rc));
	free(path);
	return rc;
}

static int file_put(const char *dir, const char *rel, const char *data, size_t len, struct err *e)
{
	char *path = xasprintf("%s/%s", dir, rel);
	int rc = buf_write_file(path, data, len);

	if (rc < 0)
		err_set(e, rc, ERR_WRITE_FAILED, "cannot write '%s': %s", path, strerror(-rc));
	free(path);
	return rc;
}

static int assets_copy(const char *web_dir, const char *dir, struct err *e)
{
	struct buf b = BUF_INIT;
	size_t i;
	int rc = 0;

	for (i = 0; i < sizeof(site_assets) / sizeof(site_assets[0]) && rc == 0; i++) {
		buf_reset(&b);
		rc = web_read(web_dir, site_assets[i], &b, e);
		if (rc == 0)
			rc = file_put(dir, site_assets[i], b.data, b.len, e);
	}
	buf_release(&b);
	return rc;
}

/* What makes two sweeps runs of one plan: the plan without its nodes (their URLs change from
 * run to run) and its labels (a firmware label is what a before/after run changes). Caller
 * frees. */
static char *plan_key(const struct plan *p)
{
	json_t *o = p->json ? json_loads(p->json, 0, NULL) : NULL;
	char *key;

	if (!o)
		return xstrdup(p->name);
	json_object_del(o, "nodes");
	json_object_del(o, "labels");
	key = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	return key ? key : xstrdup(p->name);
}

/* The original baseline's figure in a sweep document: the mean of its nodes' means (null when
 * none has one). */
static json_t *baseline_mean(json_t *doc)
{
	json_t *nodes = json_object_get(json_array_get(json_object_get(doc, "points"), 0), "nodes");
	json_t *n;
	double sum = 0;
	size_t k;
	int used = 0;

	json_array_foreach(nodes, k, n)
	{
		json_t *m = json_object_get(n, "mean");

		if (json_is_number(m)) {
			sum += json_number_value(m);
			used++;
		}
	}
	return used ? json_real(sum / used) : json_null();
}

/* A suite sweep's mark in the index, from its document's "suite": {"workloads" (how many),
 * "rule", "primary" (null unless the rule is primary)}; null for a plain sweep. */
static json_t *suite_mark(json_t *doc)
{
	json_t *su = json_object_get(doc, "suite"), *o;

	if (!json_is_object(su))
		return json_null();
	o = json_object();
	json_object_set_new(
	        o, "workloads",
	        json_integer((json_int_t)json_array_size(json_object_get(su, "workloads"))));
	json_object_set(o, "rule", json_object_get(su, "rule"));
	json_object_set(o, "primary", json_object_get(su, "primary"));
	return o;
}

/* One row of the index, taken from the sweep's own document (so the index and the page never
 * word a sweep differently): its id, name, times, status, strategy, metric, unit, goal, node
 * names, point count, outcome, decision, best and best line; a suite's mark; then the
 * baseline's figure, the page and the plan's key. */
static json_t *sweep_entry(json_t *doc, const char *href, const char *plan)
{
	static const char *const copied[] = { "id",     "name",     "created_at", "finished_at",
		                              "status", "strategy", "metric",     "unit",
		                              "goal",   "outcome",  "best_line",  "decision" };
	json_t *o = json_object(), *names = json_array(), *best, *n;
	size_t i;

	for (i = 0; i < sizeof(copied) / sizeof(copied[0]); i++)
		json_object_set(o, copied[i], json_object_get(doc, copied[i]));
	json_array_foreach(json_object_get(doc, "nodes"), i, n)
	        json_array_append(names, json_object_get(n, "name"));
	json_object_set_new(o, "nodes", names);
	json_object_set_new(
	        o, "points",
	        json_integer((json_int_t)json_array_size(json_object_get(doc, "points"))));
	best = json_object_get(doc, "best");
	if (json_is_object(best)) {
		best = json_deep_copy(best);
		json_object_del(best, "point");
		json_object_set_new(o, "best", best);
	} else {
		json_object_set_new(o, "best", json_null());
	}
	json_object_set_new(o, "suite", suite_mark(doc));
	json_object_set_new(o, "baseline_mean", baseline_mean(doc));
	json_object_set_new(o, "href", json_string(href));
	json_object_set_new(o, "plan", json_string(plan));
	return o;
}

/* The plans seen so far: key text → its entry {"key", "name", "metric", "unit", "runs"}. */
struct plan_seen {
	char **keys;
	json_t **entries;
	int n, cap;
};

/* The short key ("p3") of plan key text, its entry made on first sight; adds run id. */
static const char *plan_note(struct plan_seen *ps, const char *key, const struct sweep *s)
{
	json_t *e;
	char id[24];
	int i;

	for (i = 0; i < ps->n; i++)
		if (!strcmp(ps->keys[i], key))
			break;
	if (i == ps->n) {
		if (ps->n == ps->cap) {
			ps->cap = ps->cap ? ps->cap * 2 : 16;
			ps->keys = xrealloc(ps->keys, (size_t)ps->cap * sizeof(*ps->keys));
			ps->entries = xrealloc(ps->entries, (size_t)ps->cap * sizeof(*ps->entries));
		}
		snprintf(id, sizeof(id), "p%d", i + 1);
		e = json_object();
		json_object_set_new(e, "key", json_string(id));
		json_object_set_new(e, "name", json_string(s->plan.name));
		json_object_set_new(e, "metric", json_string(s->plan.metric));
		json_object_set_new(e, "unit", json_string(plan_metric_unit(s->plan.metric)));
		json_object_set_new(e, "runs", json_array());
		ps->keys[i] = xstrdup(key);
		ps->entries[i] = e;
		ps->n++;
	}
	/* The history is newest first: each run goes in front, so runs end oldest first. */
	json_array_insert_new(json_object_get(ps->entries[i], "runs"), 0, json_integer(s->id));
	return json_string_value(json_object_get(ps->entries[i], "key"));
}

static void plans_release(struct plan_seen *ps)
{
	int i;

	for (i = 0; i < ps->n; i++) {
		free(ps->keys[i]);
		json_decref(ps->entries[i]);
	}
	free(ps->keys);
	free(ps->entries);
}

/* Sweep id: loaded, analysed, its page written, its row appended to rows. */
static int sweep_page(struct ctlstore *st, int64_t id, const char *dir, const char *tmpl,
                      const struct site_opts *o, struct plan_seen *ps, json_t *rows, struct err *e)
{
	struct sweep s;
	struct buf page = BUF_INIT;
	char href[40], *doc = NULL, *key = NULL;
	int rc;

	rc = ctlstore_sweep_load(st, id, &s, e);
	if (rc < 0)
		return rc;
	analysis_sweep_loaded(&s);
	if (o->status_adjust)
		o->status_adjust(&s, o->ctx);
	snprintf(href, sizeof(href), "sweep-%lld.html", (long long)id);
	doc = sweepdoc_write(&s);
	rc = report_html_page(tmpl, "sweep-data", doc, &page, e);
	if (rc == 0)
		rc = file_put(dir, href, page.data, page.len, e);
	if (rc == 0) {
		json_t *d = json_loads(doc, 0, NULL);

		key = plan_key(&s.plan);
		json_array_append_new(rows, sweep_entry(d, href, plan_note(ps, key, &s)));
		json_decref(d);
	}
	free(key);
	free(doc);
	buf_release(&page);
	sweep_release(&s);
	return rc;
}

int site_write(struct ctlstore *st, const char *dir, const struct site_opts *o,
               struct site_stats *stats, struct err *e)
{
	struct ctlstore_summary *h = NULL;
	struct buf report = BUF_INIT, index = BUF_INIT, page = BUF_INIT;
	struct plan_seen ps = { 0 };
	json_t *doc = json_object(), *rows = json_array(), *plans = json_array();
	char *text = NULL, vendor[4096], iso[40];
	int n = 0, i, rc;

	memset(stats, 0, sizeof(*stats));
	snprintf(vendor, sizeof(vendor), "%s/vendor", dir);
	if ((rc = dir_make(dir, e)) < 0 || (rc = dir_make(vendor, e)) < 0 ||
	    (rc = assets_copy(o->web_dir, dir, e)) < 0 ||
	    (rc = web_read(o->web_dir, "report.html", &report, e)) < 0 ||
	    (rc = web_read(o->web_dir, "site.html", &index, e)) < 0)
		goto out;
	rc = ctlstore_history(st, INT32_MAX, &h, &n, e);
	if (rc < 0)
		goto out;
	for (i = 0; i < n; i++) {
		rc = sweep_page(st, h[i].id, dir, report.data, o, &ps, rows, e);
		if (rc < 0)
			goto out;
	}
	for (i = 0; i < ps.n; i++)
		if (json_array_size(json_object_get(ps.entries[i], "runs")) > 1) {
			json_array_append(plans, ps.entries[i]);
			stats->nplans_repeat++;
		}
	stats->nsweeps = n;
	stats->nplans = ps.n;
	json_object_set_new(doc, "format", json_string("fleettune-site"));
	json_object_set_new(doc, "format_version", json_integer(SITE_FORMAT_VERSION));
	time_fmt_iso(o->now_s, iso, sizeof(iso));
	json_object_set_new(doc, "generated_at", json_string(iso));
	json_object_set_new(doc, "db", json_string(o->db_label ? o->db_label : ""));
	json_object_set_new(doc, "sweeps", rows);
	json_object_set_new(doc, "plans", plans);
	rows = plans = NULL;
	text = json_dumps(doc, JSON_COMPACT);
	rc = report_html_page(index.data, "site-data", text, &page, e);
	if (rc == 0)
		rc = file_put(dir, "index.html", page.data, page.len, e);
out:
	free(text);
	json_decref(doc);
	json_decref(rows);
	json_decref(plans);
	plans_release(&ps);
	free(h);
	buf_release(&report);
	buf_release(&index);
	buf_release(&page);
	return rc;
}
