/* test_ctl_site.c -- controller/render/site.c: the site of a store (index document, a page per
 * sweep, the shared files), runs of one plan told apart from other plans whatever their nodes and
 * labels, an empty store, a web directory that lacks a file, and a suite sweep's mark. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctltest.h"
#include "judge/analysis.h"
#include "plan/plan_parse.h"
#include "render/site.h"
#include "run/strategy.h"
#include "store/ctlstore.h"
#include "testutil.h"
#include "xmalloc.h"

#define WEB_DIR FT_FIXTURES "/../../web"

/* Store a finished sequential sweep named name on nodes at port + 1, port + 2 with label
 * value lab, point i at 1000 (1 + eff[i] / 100); returns its id. */
static int64_t store_sweep(struct ctlstore *st, const char *name, int port, const char *lab,
                           const double *eff)
{
	char text[2048];
	struct strategy_batch b = { 0 };
	struct sweep s;
	struct plan p;
	struct err e = { 0 };
	int64_t id;

	snprintf(text, sizeof(text),
	         "{\"name\":\"%s\",\"nodes\":[{\"name\":\"n1\",\"url\":\"http://h:%d\",\"device\":"
	         "\"sda\"},{\"name\":\"n2\",\"url\":\"http://h:%d\",\"device\":\"sdb\"}],"
	         "\"baseline\":{\"x\":0},\"axes\":[{\"param\":\"x\",\"values\":[1,2]}],"
	         "\"strategy\":\"sequential\",\"job\":{\"fio\":{\"rw\":\"write\",\"runtime_s\":2},"
	         "\"loops\":3},\"labels\":{\"firmware\":\"%s\"}}",
	         name, port + 1, port + 2, lab);
	assert_int_equal(plan_parse(text, NULL, &p, &e), 0);
	sweep_init(&s, &p);
	snprintf(s.status, sizeof(s.status), "running");
	assert_int_equal(ctlstore_sweep_create(st, &s, &e), 0);
	while (strategy_next(&s, &b) > 0)
		ctltest_batch_run(&s, &b, eff, 1);
	snprintf(s.status, sizeof(s.status), "completed");
	s.finished_at = s.created_at + 1;
	analysis_sweep_closed(&s);
	assert_int_equal(ctlstore_sweep_finish(st, &s, &e), 0);
	id = s.id;
	strategy_batch_release(&b);
	sweep_release(&s);
	return id;
}

/* The JSON in dir/file's <script id="ID">, parsed. */
static json_t *page_data(const char *dir, const char *file, const char *id)
{
	char path[1024], tag[128];
	char *html, *at, *end;
	json_t *j;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	html = tu_slurp(path, NULL);
	assert_non_null(html);
	snprintf(tag, sizeof(tag), "<script id=\"%s\" type=\"application/json\">", id);
	at = strstr(html, tag);
	assert_non_null(at);
	at += strlen(tag);
	end = strstr(at, "</script>");
	assert_non_null(end);
	*end = '\0';
	/* Every "</" was written "<\/", which JSON reads as "</". */
	j = json_loads(at, 0, NULL);
	assert_non_null(j);
	free(html);
	return j;
}

static void test_site_of_a_store(void **state)
{
	static const double gain[8] = { 0, 12, 20, 0, 20 };
	static const double flat[8] = { 0 };
	char *dir = tu_tmpdir(), db[600], out[600], path[700];
	struct site_opts o = { .web_dir = WEB_DIR, .db_label = "test.db", .now_s = 1767225600 };
	struct ctlstore *st = NULL;
	struct site_stats stats;
	struct err e = { 0 };
	json_t *idx, *sw, *plans, *doc;
	const char *files[] = { "index.html",          "sweep-1.html",
		                "sweep-2.html",        "sweep-3.html",
		                "style.css",           "charts.js",
		                "report.js",           "site.js",
		                "vendor/chart.umd.js", "vendor/chart.js.LICENSE.md" };
	size_t i;

	(void)state;
	snprintf(db, sizeof(db), "%s/ctl.db", dir);
	snprintf(out, sizeof(out), "%s/site", dir);
	assert_int_equal(ctlstore_open(db, &st, &e), 0);
	/* Plan "a" twice (other ports, another label: the same plan), "b" once. */
	assert_int_equal(store_sweep(st, "a </script>", 7000, "1.0", gain), 1);
	assert_int_equal(store_sweep(st, "b", 7000, "1.0", flat), 2);
	assert_int_equal(store_sweep(st, "a </script>", 8000, "1.1", gain), 3);
	assert_int_equal(site_write(st, out, &o, &stats, &e), 0);
	assert_int_equal(stats.nsweeps, 3);
	assert_int_equal(stats.nplans, 2);
	assert_int_equal(stats.nplans_repeat, 1);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", out, files[i]);
		assert_int_equal(access(path, R_OK), 0);
	}
	idx = page_data(out, "index.html", "site-data");
	assert_string_equal(json_string_value(json_object_get(idx, "format")), "fleettune-site");
	assert_string_equal(json_string_value(json_object_get(idx, "db")), "test.db");
	assert_string_equal(json_string_value(json_object_get(idx, "generated_at")),
	                    "2026-01-01T00:00:00Z");
	sw = json_object_get(idx, "sweeps");
	assert_int_equal(json_array_size(sw), 3);
	/* Newest first, each with its page, its nodes, its best. */
	assert_int_equal(json_integer_value(json_object_get(json_array_get(sw, 0), "id")), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(sw, 0), "href")),
	                    "sweep-3.html");
	assert_string_equal(json_string_value(json_object_get(json_array_get(sw, 0), "name")),
	                    "a </script>");
	assert_int_equal(json_array_size(json_object_get(json_array_get(sw, 0), "nodes")), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(sw, 0), "outcome")),
	                    "best");
	assert_true(json_is_object(json_object_get(json_array_get(sw, 0), "best")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(sw, 1), "outcome")),
	                    "baseline");
	assert_true(json_is_null(json_object_get(json_array_get(sw, 1), "best")));
	assert_true(json_real_value(json_object_get(json_array_get(sw, 1), "baseline_mean")) > 900);
	/* Sweeps 1 and 3 are one plan's runs, oldest first; sweep 2's plan ran once. */
	plans = json_object_get(idx, "plans");
	assert_int_equal(json_array_size(plans), 1);
	assert_int_equal(json_array_size(json_object_get(json_array_get(plans, 0), "runs")), 2);
	assert_int_equal(json_integer_value(json_array_get(
	                         json_object_get(json_array_get(plans, 0), "runs"), 0)),
	                 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(plans, 0), "key")),
	                    json_string_value(json_object_get(json_array_get(sw, 0), "plan")));
	assert_string_not_equal(json_string_value(json_object_get(json_array_get(sw, 1), "plan")),
	                        json_string_value(json_object_get(json_array_get(sw, 0), "plan")));
	/* Each sweep's page holds its sweep document. */
	doc = page_data(out, "sweep-2.html", "sweep-data");
	assert_int_equal(json_integer_value(json_object_get(doc, "id")), 2);
	assert_string_equal(json_string_value(json_object_get(doc, "format")), "fleettune-sweep");
	json_decref(doc);
	json_decref(idx);
	ctlstore_close(st);
	tu_rmrf(dir);
	free(dir);
}

/* A suite sweep in the index: its mark (workload count, rule, primary); a plain sweep's is
 * null. */
static void test_site_suite_mark(void **state)
{
	char *dir = tu_tmpdir(), db[600], out[600];
	struct site_opts o = { .web_dir = WEB_DIR, .db_label = "x", .now_s = 1 };
	static const double flat[8] = { 0 };
	struct ctlstore *st = NULL;
	struct site_stats stats;
	struct err e = { 0 };
	json_t *idx, *sw, *mark;
	struct sweep s;
	char *plan;
	int i, k, q;

	(void)state;
	snprintf(db, sizeof(db), "%s/ctl.db", dir);
	snprintf(out, sizeof(out), "%s/site", dir);
	assert_int_equal(ctlstore_open(db, &st, &e), 0);
	assert_int_equal(store_sweep(st, "plain", 7000, "1.0", flat), 1);
	plan = ctltest_plan(2, "{\"x\":0}", "[{\"param\":\"x\",\"values\":[1]}]", "grid", "3",
	                    ",\"workloads\":[{\"name\":\"A\",\"fio\":{\"rw\":\"read\"}},{\"name\":"
	                    "\"B\",\"fio\":{\"rw\":\"randread\"}}],\"decide\":{\"rule\":"
	                    "\"primary\",\"primary\":\"B\"}");
	ctltest_sweep_text(&s, plan);
	free(plan);
	assert_int_equal(ctlstore_sweep_create(st, &s, &e), 0);
	sweep_point_add(&s, ROLE_BASELINE, -1, -1, &s.plan.baseline);
	sweep_point_add(&s, ROLE_CANDIDATE, 0, 0, &s.plan.axes[0].values[0]);
	for (i = 0; i < 2; i++) {
		s.points[i].loops_run = 3;
		for (k = 0; k < 2; k++) {
			s.points[i].nodes[k].state = NODE_OK;
			for (q = 0; q < 3; q++) {
				double v[2] = { 1000 + 10 * q + k, 500 + 5 * q + i };

				node_result_pass_add_at(&s.points[i].nodes[k], v[s.plan.lead],
				                        q + 1, 0, false);
				node_result_series_add(&s.points[i].nodes[k], v, 2);
			}
		}
		assert_int_equal(ctlstore_point_save(st, &s, i, &e), 0);
	}
	s.nrounds = 3;
	snprintf(s.status, sizeof(s.status), "completed");
	analysis_sweep_closed(&s);
	assert_int_equal(ctlstore_sweep_finish(st, &s, &e), 0);
	sweep_release(&s);
	assert_int_equal(site_write(st, out, &o, &stats, &e), 0);
	idx = page_data(out, "index.html", "site-data");
	sw = json_object_get(idx, "sweeps");
	assert_int_equal(json_array_size(sw), 2);
	mark = json_object_get(json_array_get(sw, 0), "suite");
	assert_true(json_is_object(mark));
	assert_int_equal(json_integer_value(json_object_get(mark, "workloads")), 2);
	assert_string_equal(json_string_value(json_object_get(mark, "rule")), "primary");
	assert_string_equal(json_string_value(json_object_get(mark, "primary")), "B");
	assert_true(json_is_null(json_object_get(json_array_get(sw, 1), "suite")));
	json_decref(idx);
	ctlstore_close(st);
	tu_rmrf(dir);
	free(dir);
}

/* An empty store makes an index with no sweeps; a web directory without the templates is
 * named in the error. */
static void test_site_empty_and_missing_web(void **state)
{
	char *dir = tu_tmpdir(), db[600], out[600], bad[600];
	struct site_opts o = { .web_dir = WEB_DIR, .db_label = "x", .now_s = 1 };
	struct ctlstore *st = NULL;
	struct site_stats stats;
	struct err e = { 0 };
	json_t *idx;

	(void)state;
	snprintf(db, sizeof(db), "%s/ctl.db", dir);
	snprintf(out, sizeof(out), "%s/site", dir);
	assert_int_equal(ctlstore_open(db, &st, &e), 0);
	assert_int_equal(site_write(st, out, &o, &stats, &e), 0);
	assert_int_equal(stats.nsweeps, 0);
	idx = page_data(out, "index.html", "site-data");
	assert_int_equal(json_array_size(json_object_get(idx, "sweeps")), 0);
	assert_int_equal(json_array_size(json_object_get(idx, "plans")), 0);
	json_decref(idx);
	snprintf(bad, sizeof(bad), "%s/no-web", dir);
	o.web_dir = bad;
	assert_int_equal(site_write(st, out, &o, &stats, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "cannot read '"));
	assert_non_null(strstr(e.msg, "/no-web/style.css': No such file or directory"));
	ctlstore_close(st);
	tu_rmrf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_site_of_a_store),
		cmocka_unit_test(test_site_empty_and_missing_web),
		cmocka_unit_test(test_site_suite_mark),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
