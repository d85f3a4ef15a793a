/* test_ctl_report.c -- table, markdown, CSV, JSON and HTML renderings of a sweep. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "testutil.h"
#include "plan.h"
#include "report.h"
#include "sweep.h"
#include "verdict.h"

/* Seed 003's nr_requests / queue_depth runs (MiB/s per 60 s pass, node1 then node2). */
static const double seed[4][2][5] = {
	{ { 1278.80, 1279.40, 1278.70, 1286.60, 1282.40 },
	  { 1268.40, 1256.90, 1262.70, 1257.60, 1260.90 } },
	{ { 1268.20, 1266.40, 1285.60, 1284.70, 1284.10 },
	  { 1270.50, 1273.60, 1258.60, 1270.30, 1265.20 } },
	{ { 1427.80, 1463.40, 1417.10, 1408.20, 1467.40 },
	  { 1433.20, 1399.10, 1415.90, 1411.60, 1427.80 } },
	{ { 1842.40, 1857.20, 1920.10, 1839.50, 1902.30 },
	  { 1872.20, 1871.60, 1852.10, 1921.20, 1880.50 } },
};

static const char *plan_text =
        "{\"name\":\"anvil </script> tuning\","
        "\"nodes\":[{\"name\":\"node1\",\"url\":\"http://127.0.0.1:7071\",\"device\":\"sda\"},"
        "{\"name\":\"node2\",\"url\":\"http://127.0.0.1:7072\",\"device\":\"sda\"}],"
        "\"baseline\":{\"nr_requests\":128,\"queue_depth\":256},"
        "\"axes\":[{\"params\":[\"nr_requests\",\"queue_depth\"],"
        "\"values\":[[975,256],[975,975],[4000,975]]}],"
        "\"strategy\":\"grid\","
        "\"job\":{\"fio\":{\"rw\":\"randwrite\",\"bs\":\"4M\",\"runtime_s\":60},\"loops\":5}}";

/* A finished grid sweep over seed 003's figures; queue_depth 975 reads back as 919. */
static void seed_sweep(struct sweep *s)
{
	struct plan p;
	struct err e;
	int i, k, j;

	assert_int_equal(plan_parse(plan_text, NULL, &p, &e), 0);
	sweep_init(s, &p);
	s->id = 7;
	s->created_at = 1764457200.0;
	s->finished_at = 1764457800.0;
	assert_int_equal(sweep_points_next(s), 4);
	assert_int_equal(sweep_points_next(s), 0);
	for (i = 0; i < 4; i++) {
		struct point *pt = &s->points[i];

		for (k = 0; k < 2; k++) {
			struct node_result *r = &pt->nodes[k];

			r->state = NODE_OK;
			r->npasses = 5;
			r->job_id = 10 * i + k + 1;
			r->job_runtime_s = 300.4;
			for (j = 0; j < 5; j++)
				r->passes[j] = seed[i][k][j];
			for (j = 0; j < pt->cfg.n; j++) {
				const struct setting *st = &pt->cfg.s[j];
				bool adj = !strcmp(st->name, "queue_depth") &&
				           !strcmp(st->value, "975");

				config_set(&r->applied, st->name, adj ? "919" : st->value, true);
				if (adj)
					r->adjusted_mask |= 1u << j;
			}
		}
	}
	snprintf(s->status, sizeof(s->status), "completed");
	verdict_sweep(s);
}

static void test_table(void **state)
{
	struct sweep s;
	struct buf b = BUF_INIT;

	(void)state;
	seed_sweep(&s);
	report_render(&s, REPORT_TABLE, &b);
	printf("%s", b.data);
	assert_non_null(strstr(b.data, "sweep 7 \"anvil </script> tuning\"  metric write.bw_mib "
	                               "(maximize)  5 loops \u00d7 60 s  2 nodes  grid\n"));
	assert_non_null(strstr(b.data, "| nr_requests | queue_depth | node1 (MiB/s)"));
	assert_non_null(strstr(b.data, "| 128         | 256         | 1281.2 \u00b1 3.4 "));
	assert_non_null(strstr(b.data, "| baseline "));
	assert_non_null(strstr(b.data, "| 975         | 975\u2192919     |"));
	assert_non_null(strstr(b.data, "no real difference"));
	assert_non_null(strstr(b.data, "significant gain"));
	assert_non_null(strstr(b.data, "best: nr_requests=4000 queue_depth=975  +47.6 % "
	                               "(significant gain on node1 and node2)\n"));
	assert_int_equal(s.best, 3);
	/* Node means differ by < 10 %: no asymmetry warning. */
	assert_int_equal(s.nwarnings, 0);
	buf_release(&b);
	report_render(&s, REPORT_MARKDOWN, &b);
	assert_non_null(strstr(b.data, "|-------------|-------------|"));
	buf_release(&b);
	sweep_release(&s);
}

static void test_csv(void **state)
{
	struct sweep s;
	struct buf b = BUF_INIT;

	(void)state;
	seed_sweep(&s);
	report_render(&s, REPORT_CSV, &b);
	assert_non_null(
	        strstr(b.data, "sweep,point,role,axis,nr_requests,queue_depth,node,state,"));
	assert_non_null(strstr(b.data, "\n7,0,baseline,-1,128,256,node1,ok,5,1281.18,"));
	assert_non_null(strstr(b.data, "1278.8;1279.4;1278.7;1286.6;1282.4\n"));
	assert_non_null(strstr(b.data, "7,2,candidate,-1,975,975\u2192919,node2,ok,5,"));
	buf_release(&b);
	sweep_release(&s);
}

static void test_json(void **state)
{
	struct sweep s;
	json_t *doc, *pt, *n;
	char *text;
	const char *out = getenv("FT_FIXTURE_OUT");

	(void)state;
	seed_sweep(&s);
	text = report_json(&s);
	if (out) {
		FILE *f = fopen(out, "w");

		assert_non_null(f);
		fprintf(f, "%s\n", text);
		fclose(f);
	}
	doc = json_loads(text, 0, NULL);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "format")), "fleettune-sweep");
	assert_int_equal(json_integer_value(json_object_get(doc, "id")), 7);
	assert_int_equal(json_array_size(json_object_get(doc, "points")), 4);
	pt = json_array_get(json_object_get(doc, "points"), 2);
	assert_string_equal(json_string_value(json_object_get(pt, "role")), "candidate");
	assert_int_equal(
	        json_integer_value(json_object_get(json_object_get(pt, "params"), "queue_depth")),
	        975);
	n = json_array_get(json_object_get(pt, "nodes"), 0);
	assert_int_equal(
	        json_integer_value(json_object_get(
	                json_object_get(json_object_get(n, "applied"), "queue_depth"), "value")),
	        919);
	assert_true(json_is_true(json_object_get(
	        json_object_get(json_object_get(n, "applied"), "queue_depth"), "adjusted")));
	assert_string_equal(json_string_value(json_object_get(n, "verdict")), "gain");
	assert_int_equal(json_array_size(json_object_get(n, "passes")), 5);
	assert_string_equal(
	        json_string_value(json_object_get(json_object_get(doc, "best"), "verdict")),
	        "significant gain");
	assert_true(json_is_null(
	        json_object_get(json_array_get(json_object_get(doc, "points"), 0), "verdict")));
	/* The plan is embedded without tokens. */
	assert_true(json_is_object(json_object_get(doc, "plan")));
	json_decref(doc);
	free(text);
	sweep_release(&s);
}

static void test_html(void **state)
{
	char *dir = tu_tmpdir();
	struct sweep s;
	struct buf b = BUF_INIT;
	struct err e = { 0 };
	const char *tmpl = "<!doctype html><html><head><link rel=\"stylesheet\" href=\"style.css\">"
	                   "<script id=\"sweep-data\" type=\"application/json\"></script>"
	                   "</head><body><div id=\"x\"></div>"
	                   "<script src=\"vendor/chart.js\"></script>"
	                   "<script src=\"report.js\"></script></body></html>";

	(void)state;
	tu_write(dir, "style.css", "body{color:red}", 0644);
	tu_write(dir, "vendor/chart.js", "var chart='</div>';", 0644);
	tu_write(dir, "report.js",
	         "render(JSON.parse(document.getElementById('sweep-data')"
	         ".textContent));",
	         0644);
	seed_sweep(&s);
	assert_int_equal(report_html_build(&s, tmpl, dir, &b, &e), 0);
	assert_non_null(strstr(b.data, "<style>body{color:red}</style>"));
	assert_non_null(strstr(b.data, "<script>var chart='<\\/div>';</script>"));
	assert_non_null(strstr(b.data, "<script>render(JSON.parse("));
	assert_null(strstr(b.data, "src="));
	assert_non_null(strstr(b.data, "<script id=\"sweep-data\" type=\"application/json\">{"));
	/* The plan name's "</script>" is escaped inside the data block. */
	assert_non_null(strstr(b.data, "anvil <\\/script> tuning"));
	assert_null(strstr(b.data, "anvil </script>"));
	buf_release(&b);
	/* A template without the data element is refused; so is a path out of the web dir. */
	assert_int_not_equal(report_html_build(&s, "<html></html>", dir, &b, &e), 0);
	buf_release(&b);
	assert_int_not_equal(
	        report_html_build(&s, "<script src=\"../etc/passwd\"></script>", dir, &b, &e), 0);
	assert_non_null(strstr(e.msg, "refusing"));
	buf_release(&b);
	sweep_release(&s);
	tu_rmrf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_html),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
