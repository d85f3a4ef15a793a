/* test_ctl_report.c -- every rendering: table, markdown, CSV, JSON, HTML, the best and
 * no-best lines, warnings, the noise line, named disagreement, compare, history, progress,
 * the dry run, nodes and apply. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "testutil.h"
#include "ctltest.h"
#include "export.h"
#include "plan.h"
#include "progress.h"
#include "report.h"
#include "report_html.h"
#include "strategy.h"
#include "sweep.h"
#include "sweepdoc.h"
#include "verdict.h"
#include "words.h"

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
	struct strategy_batch b = { 0 };
	struct plan p;
	struct err e;
	int i, k, j;

	assert_int_equal(plan_parse(plan_text, NULL, &p, &e), 0);
	sweep_init(s, &p);
	s->id = 7;
	s->created_at = 1764457200.0;
	s->finished_at = 1764457800.0;
	assert_int_equal(strategy_next(s, &b), 4);
	strategy_batch_release(&b);
	for (i = 0; i < 4; i++) {
		struct point *pt = &s->points[i];

		pt->loops_run = 5;
		for (k = 0; k < 2; k++) {
			struct node_result *r = &pt->nodes[k];

			r->state = NODE_OK;
			r->job_id = 10 * i + k + 1;
			r->job_runtime_s = 300.4;
			for (j = 0; j < 5; j++)
				node_result_pass_add(r, seed[i][k][j]);
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
	/* The fleet effect (random effects over the nodes' ratios of means): +47.7 %; the old
	 * Welch interval of the per-loop fleet means said +47.6 %. */
	assert_non_null(strstr(b.data, "| +47.7 % [+44.9, +50.6] | significant gain   |\n"));
	assert_non_null(strstr(b.data, "| +0.2 % [\u22120.6, +0.9]    | no real difference |\n"));
	assert_non_null(strstr(b.data, "best: nr_requests=4000 queue_depth=975  +47.7 % "
	                               "(significant gain on node1 and node2)\n"));
	/* Quiet passes (CV under 2 %): no noise line. */
	assert_null(strstr(b.data, "noise:"));
	assert_int_equal(s.best, 3);
	/* Node means differ by < 10 %: no asymmetry warning. */
	assert_int_equal(s.nwarnings, 0);
	buf_release(&b);
	report_render(&s, REPORT_MARKDOWN, &b);
	assert_non_null(strstr(b.data, "|-------------|-------------|"));
	buf_release(&b);
	sweep_release(&s);
}

/* A finished 50-node grid sweep: baseline nr_requests=128 and nr_requests=256, 4 passes each.
 * The candidate gains 5 % on every node but n7 and n23 (-10 %); n40 failed the candidate, n50
 * was dropped. */
static void fleet_sweep(struct sweep *s)
{
	static const double noise[4] = { -12, 4, 12, -4 };
	struct strategy_batch b = { 0 };
	struct buf t = BUF_INIT;
	struct plan p;
	struct err e;
	int i, k, j;

	buf_puts(&t, "{\"name\":\"fleet\",\"nodes\":[");
	for (k = 1; k <= 50; k++)
		buf_printf(&t,
		           "%s{\"name\":\"n%d\",\"url\":\"http://127.0.0.1:%d\",\"device\":"
		           "\"sda\"}",
		           k > 1 ? "," : "", k, 7000 + k);
	buf_puts(&t, "],\"baseline\":{\"nr_requests\":128},\"axes\":[{\"param\":\"nr_requests\","
	             "\"values\":[256]}],\"strategy\":\"grid\",\"job\":{\"fio\":{\"rw\":"
	             "\"randwrite\",\"runtime_s\":60},\"loops\":4}}");
	assert_int_equal(plan_parse(t.data, NULL, &p, &e), 0);
	buf_release(&t);
	sweep_init(s, &p);
	s->id = 9;
	assert_int_equal(strategy_next(s, &b), 2);
	strategy_batch_release(&b);
	for (i = 0; i < 2; i++) {
		struct point *pt = &s->points[i];

		pt->loops_run = 4;
		for (k = 0; k < 50; k++) {
			struct node_result *r = &pt->nodes[k];
			double base = 1000 + 4 * k, f = 1;

			if (k == 49) {
				r->state = NODE_DROPPED;
				continue;
			}
			if (i == 1 && k == 39) {
				r->state = NODE_FAILED;
				continue;
			}
			if (i == 1)
				f = (k == 6 || k == 22) ? 0.90 : 1.05;
			r->state = NODE_OK;
			for (j = 0; j < 4; j++)
				node_result_pass_add(r, base * f + noise[j]);
		}
	}
	s->node_dropped[49] = true;
	snprintf(s->status, sizeof(s->status), "completed");
	verdict_sweep(s);
}

/* Above REPORT_NODE_COLUMNS_MAX nodes the table shows the nodes' distribution, the verdict
 * names the disagreeing nodes; --nodes all, CSV and JSON keep every node. */
static void test_table_fleet(void **state)
{
	struct sweep s;
	struct buf b = BUF_INIT;
	char name[16];
	int k;

	(void)state;
	fleet_sweep(&s);
	report_render(&s, REPORT_TABLE, &b);
	printf("%s", b.data);
	assert_non_null(strstr(b.data, "| nr_requests | nodes "));
	assert_non_null(strstr(b.data, "| node means (MiB/s) "));
	assert_non_null(strstr(b.data, "| node \u0394 min / median / max "));
	assert_non_null(strstr(b.data, "| nodes gain / loss "));
	assert_null(strstr(b.data, "n1 (MiB/s)"));
	/* Baseline: 49 nodes with a figure (n50 dropped), means 1000..1192 (median 1096). */
	assert_non_null(strstr(b.data, "| 128         | 49/50 (1 dropped) "));
	assert_non_null(strstr(b.data, "| 1096.0 [1000.0, 1192.0] |"));
	/* The candidate: n40 failed; 46 nodes +5.0 %, 2 at -10.0 %. */
	assert_non_null(strstr(b.data, "| 256         | 48/50 (1 failed) (1 dropped) |"));
	assert_non_null(strstr(b.data, "| \u221210.0 / +5.0 / +5.0 % "));
	assert_non_null(strstr(b.data, "| 46 / 2 "));
	assert_non_null(
	        strstr(b.data, "nodes disagree: n7, n23 differ: \u221210.0 %, \u221210.0 %"));
	buf_release(&b);
	/* Markdown alike. */
	report_render(&s, REPORT_MARKDOWN, &b);
	assert_non_null(strstr(b.data, "| nodes gain / loss "));
	assert_null(strstr(b.data, "n1 (MiB/s)"));
	buf_release(&b);
	/* --nodes all: one column per node. */
	report_render_nodes(&s, REPORT_TABLE, true, &b);
	assert_non_null(strstr(b.data, "| n1 (MiB/s) "));
	assert_non_null(strstr(b.data, "| n50 (MiB/s) "));
	assert_null(strstr(b.data, "nodes gain / loss"));
	buf_release(&b);
	/* CSV keeps a row per node and point. */
	report_render(&s, REPORT_CSV, &b);
	for (k = 1; k <= 50; k++) {
		snprintf(name, sizeof(name), ",n%d,", k);
		assert_non_null(strstr(b.data, name));
	}
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
	text = sweepdoc_write(&s);
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
	assert_true(json_number_value(json_object_get(n, "df")) > 4);
	assert_true(json_number_value(json_object_get(n, "cv_pct")) > 0);
	assert_true(json_is_false(json_object_get(n, "disagrees")));
	assert_int_equal(json_integer_value(json_object_get(doc, "format_version")), 2);
	/* Rows carry codes and the report's words for them, with the fleet figures. */
	assert_string_equal(json_string_value(json_object_get(pt, "verdict")), "gain");
	assert_string_equal(json_string_value(json_object_get(pt, "verdict_text")),
	                    "significant gain");
	assert_string_equal(
	        json_string_value(json_object_get(json_object_get(pt, "fleet"), "decision")),
	        "gain");
	assert_int_equal(
	        json_integer_value(json_object_get(json_object_get(pt, "fleet"), "nodes_used")), 2);
	assert_int_equal(json_array_size(json_object_get(json_object_get(pt, "fleet"), "ci90_pct")),
	                 2);
	assert_true(json_is_boolean(json_object_get(json_object_get(pt, "noise"), "noisy")));
	assert_int_equal(json_array_size(json_object_get(pt, "disagree")), 0);
	assert_int_equal(
	        json_integer_value(json_object_get(json_object_get(pt, "stopping"), "looks")), 1);
	assert_string_equal(
	        json_string_value(json_object_get(json_object_get(doc, "best"), "verdict")),
	        "gain");
	assert_int_equal(
	        json_integer_value(json_object_get(json_object_get(doc, "noise"), "noisy_rows")),
	        0);
	assert_true(json_is_null(json_object_get(json_object_get(doc, "noise"), "text")));
	assert_true(json_is_null(
	        json_object_get(json_array_get(json_object_get(doc, "points"), 0), "verdict")));
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(doc, "points"), 0),
	                                         "verdict_text")));
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

/* Why there is no best, with each node's error, and nothing that reads like a success. */
static void test_no_best_lines(void **state)
{
	struct sweep s;
	struct buf b = BUF_INIT;
	char *json;
	int i, k;

	(void)state;
	seed_sweep(&s);
	for (k = 0; k < 2; k++) {
		struct node_result *r = &s.points[0].nodes[k];

		r->state = NODE_FAILED;
		r->npasses = 0;
		snprintf(r->error, sizeof(r->error),
		         "job %d failed: bad_request: fio.iodepth: must "
		         "be 1..4096",
		         3 + k);
	}
	verdict_sweep(&s);
	words_best_line(&s, &b);
	assert_string_equal(b.data, "no best: the baseline failed on every node (node1: job 3 "
	                            "failed: bad_request: fio.iodepth: must be 1..4096; node2: "
	                            "job 4 failed: bad_request: fio.iodepth: must be 1..4096)\n");
	buf_reset(&b);
	words_best_summary(&s, &b);
	assert_string_equal(b.data, "no best: the baseline failed on every node");
	json = sweepdoc_write(&s);
	assert_non_null(strstr(json, "\"outcome\": \"baseline_failed\""));
	assert_non_null(strstr(json, "\"best\": null"));
	free(json);
	buf_reset(&b);
	sweep_release(&s);
	/* The baseline ran; every configuration failed. */
	seed_sweep(&s);
	for (i = 1; i < 4; i++)
		for (k = 0; k < 2; k++) {
			s.points[i].nodes[k].state = NODE_FAILED;
			s.points[i].nodes[k].npasses = 0;
			snprintf(s.points[i].nodes[k].error, 64, "PATCH params: HTTP 422: no");
		}
	verdict_sweep(&s);
	words_best_line(&s, &b);
	assert_string_equal(b.data, "no best: no configuration produced a figure to compare with "
	                            "the baseline (point 2: node1: PATCH params: HTTP 422: no; "
	                            "node2: PATCH params: HTTP 422: no)\n");
	buf_reset(&b);
	sweep_release(&s);
	/* Measured, no gain: the baseline, worded as before. */
	seed_sweep(&s);
	for (i = 1; i < 4; i++)
		for (k = 0; k < 2; k++)
			for (int j = 0; j < 5; j++)
				s.points[i].nodes[k].passes[j] = seed[0][k][j];
	verdict_sweep(&s);
	words_best_line(&s, &b);
	assert_string_equal(b.data,
	                    "best: the baseline (no configuration gave a significant gain)\n");
	buf_release(&b);
	sweep_release(&s);
}

/* Verdicts and warnings arrive as codes and numbers; the words are the report's. */
static void test_words(void **state)
{
	struct sweep s;
	struct buf b = BUF_INIT;
	char *json;
	int i, j;

	(void)state;
	seed_sweep(&s);
	for (i = 0; i < 4; i++)
		for (j = 0; j < 5; j++)
			s.points[i].nodes[1].passes[j] *= 0.8;
	verdict_sweep(&s);
	assert_int_equal(s.nwarnings, 1);
	report_render(&s, REPORT_TABLE, &b);
	assert_non_null(strstr(b.data, "\nwarning: node2 is consistently 20.7 % below node1 (4 of "
	                               "4 points): check its hardware before trusting fleet-wide "
	                               "verdicts\n"));
	assert_non_null(strstr(b.data, "| no real difference |"));
	json = sweepdoc_write(&s);
	assert_non_null(strstr(json, "\"warnings\": [\n    \"node2 is consistently 20.7 % below"));
	assert_non_null(strstr(json, "\"verdict_text\": \"significant gain\""));
	assert_non_null(strstr(json, "\"verdict\": \"gain\""));
	assert_null(strstr(json, "\"verdict\": \"significant"));
	free(json);
	buf_release(&b);
	report_render(&s, REPORT_CSV, &b);
	assert_non_null(strstr(b.data, ",gain,"));
	buf_release(&b);
	sweep_release(&s);
}

static void test_compare(void **state)
{
	struct verdict_comparison c;
	struct sweep a, b;
	struct buf out = BUF_INIT;
	int j;

	(void)state;
	seed_sweep(&a);
	seed_sweep(&b);
	b.id = 8;
	for (j = 0; j < 5; j++)
		b.points[1].nodes[0].passes[j] *= 1.1;
	verdict_sweep(&b);
	verdict_sweeps_compare(&a, &b, &c);
	report_compare(&a, &b, &c, true, &out);
	assert_non_null(
	        strstr(out.data, "compare sweep 7 \"anvil </script> tuning\" \u2192 sweep 8"));
	assert_non_null(strstr(out.data, "| node1: #7 \u2192 #8 "));
	assert_non_null(strstr(out.data, "|-------------|"));
	assert_non_null(
	        strstr(out.data, "| 975         | 256         | 1277.8 \u2192 1405.6 +10.0 % ["));
	/* node1 +10 %, node2 unchanged: the fleet cannot decide, each node decides its own way. */
	assert_non_null(strstr(out.data, "| \u0394 fleet              | verdict "));
	assert_non_null(strstr(out.data,
	                       "| +4.9 % [\u22124.5, +15.1] | nodes disagree: node1, node2 "
	                       "differ: +10.0 %, +0.0 % |\n"));
	assert_non_null(strstr(out.data, "| +0.0 % [\u22120.3, +0.3]  | no real difference  "));
	assert_non_null(strstr(out.data, "4 of 4 points matched\n"));
	verdict_comparison_release(&c);
	buf_release(&out);
	sweep_release(&a);
	sweep_release(&b);
}

static void test_history(void **state)
{
	struct ctlstore_summary h[3];
	struct buf out = BUF_INIT;

	(void)state;
	memset(h, 0, sizeof(h));
	h[0].id = 3;
	snprintf(h[0].name, sizeof(h[0].name), "new");
	snprintf(h[0].status, sizeof(h[0].status), "completed");
	snprintf(h[0].strategy, sizeof(h[0].strategy), "grid");
	h[0].outcome = OUTCOME_BEST;
	h[0].best_point = 2;
	config_set(&h[0].best_cfg, "nr_requests", "4000", true);
	h[0].best_delta_pct = 47.61;
	h[0].best_verdict = EFFECT_GAIN;
	h[1] = h[0];
	h[1].id = 2;
	h[1].outcome = OUTCOME_NO_FIGURES;
	h[1].best_point = -1;
	h[2] = h[1];
	h[2].id = 1;
	h[2].outcome = OUTCOME_PENDING;
	snprintf(h[2].legacy_best_line, sizeof(h[2].legacy_best_line), "best: the baseline (old)");
	report_history(h, 3, &out);
	assert_non_null(strstr(out.data, "id    started "));
	assert_non_null(strstr(out.data, "\n3     "));
	assert_non_null(strstr(out.data, "best: nr_requests=4000  +47.6 % (significant gain)\n"));
	assert_non_null(strstr(out.data, "no best: no configuration produced a figure to compare "
	                                 "with the baseline\n"));
	assert_non_null(strstr(out.data, "best: the baseline (old)\n"));
	buf_release(&out);
}

static void test_progress(void **state)
{
	struct sweep s;
	struct buf out = BUF_INIT;
	int reported[2] = { 3, 5 };
	bool active[2] = { true, true };

	(void)state;
	seed_sweep(&s);
	progress_pass_lines(&s, 2, 4, reported, &out);
	assert_string_equal(out.data, "point 3/4 nr_requests=975 queue_depth=975: node1 pass 4/5 "
	                              "write.bw_mib 1408.2\n"
	                              "point 3/4 nr_requests=975 queue_depth=975: node1 pass 5/5 "
	                              "write.bw_mib 1467.4\n");
	buf_reset(&out);
	s.points[3].nodes[1].npasses = 0;
	progress_line(&s, 3, 4, 2, 5, active, 754, 754, &out);
	assert_string_equal(out.data, "\r\033[Kpoint 4/4 [nr_requests=4000 queue_depth=975] loop "
	                              "2/5  node1 1902.3  node2 -  ETA 12m34s");
	/* adaptive: races end early, so the count is the most points the sweep can run. */
	s.plan.strategy = PLAN_ADAPTIVE;
	buf_reset(&out);
	progress_line(&s, 3, 4, 2, 5, active, 754, 754, &out);
	assert_non_null(strstr(out.data, "\r\033[Kpoint 4 of at most 4 [nr_requests=4000"));
	buf_reset(&out);
	progress_pass_lines(&s, 2, 4, reported, &out);
	assert_non_null(strstr(out.data, "point 3 of at most 4 nr_requests=975 queue_depth=975: "
	                                 "node1 pass 4/5 "));
	buf_release(&out);
	sweep_release(&s);
}

static void test_dry_run(void **state)
{
	struct sweep s;
	struct buf out = BUF_INIT;

	(void)state;
	seed_sweep(&s);
	report_dry_run(&s, 4, 4, true, &out);
	assert_non_null(strstr(out.data, "dry run: \"anvil </script> tuning\", grid strategy, 2 "
	                                 "nodes, 5 loops per point\n"));
	assert_non_null(strstr(out.data, "  point 1: baseline  nr_requests=128 queue_depth=256\n"));
	assert_non_null(
	        strstr(out.data, "  point 4:           nr_requests=4000 queue_depth=975\n"));
	assert_non_null(strstr(out.data, "at most 4 points x 5 loops x 60 s = about 1200 s"));
	assert_non_null(strstr(out.data, "pre-flight: every agent validates 4 configurations with "
	                                 "a dry run (every point) and the job, before anything "
	                                 "changes\n"));
	assert_non_null(strstr(out.data, "\nnothing was changed\n"));
	buf_release(&out);
	sweep_release(&s);
}

static void test_nodes_and_apply(void **state)
{
	struct param_info params[3] = { { "scheduler", "none", true },
		                        { "nr_requests", "128", true },
		                        { "rotational", "0", false } };
	struct node_info info[2];
	struct preflight pf;
	struct fleet_result res[2];
	struct config cfg = { 0 }, applied[2];
	unsigned adjusted[2] = { 1, 0 };
	struct sweep s;
	struct buf out = BUF_INIT;

	(void)state;
	seed_sweep(&s);
	memset(&pf, 0, sizeof(pf));
	memset(info, 0, sizeof(info));
	info[0].ok = info[0].dev_found = info[0].dev_writable = info[0].dry_run = true;
	snprintf(info[0].version, sizeof(info[0].version), "0.2.0");
	snprintf(info[0].node, sizeof(info[0].node), "n1");
	info[0].dev_size_bytes = 1 << 30;
	info[0].nparams = 3;
	info[0].params = params;
	snprintf(info[1].error, sizeof(info[1].error), "Couldn't connect to server");
	pf.nnodes = 2;
	pf.info = info;
	pf.nconfigs = 4;
	report_nodes(&s.plan, &pf, &out);
	assert_non_null(strstr(out.data, "node1  http://127.0.0.1:7071  ok  fleettune-agent 0.2.0  "
	                                 "node \"n1\"  up 0 s\n  device sda: 1.0 GiB, writable\n"
	                                 "    scheduler=none  nr_requests=128\n    (2 writable "
	                                 "parameters of 3)\n"));
	assert_non_null(strstr(out.data, "node2  http://127.0.0.1:7072  DOWN: Couldn't connect to "
	                                 "server\n"));
	assert_non_null(strstr(out.data, "pre-flight for this plan: ok\n"));
	buf_reset(&out);
	buf_init(&pf.problems);
	buf_puts(&pf.problems, "node2: not healthy: Couldn't connect to server\n");
	pf.nproblems = 1;
	report_nodes(&s.plan, &pf, &out);
	assert_non_null(strstr(out.data,
	                       "pre-flight for this plan would fail:\nnode2: not healthy: "
	                       "Couldn't connect to server\n"));
	buf_reset(&out);
	report_preflight_failed(&pf, &out);
	assert_string_equal(out.data, "pre-flight failed, nothing was changed:\nnode2: not "
	                              "healthy: Couldn't connect to server\n");
	buf_release(&pf.problems);
	buf_reset(&out);
	/* apply: the read-back per node, "975→919" where the kernel adjusted. */
	config_set(&cfg, "queue_depth", "975", true);
	memset(applied, 0, sizeof(applied));
	memset(res, 0, sizeof(res));
	config_set(&applied[0], "queue_depth", "919", true);
	res[1].failed = true;
	snprintf(res[1].error, sizeof(res[1].error),
	         "HTTP 422: queue_depth: 975 is above the "
	         "maximum 256");
	report_apply(&s.plan, &cfg, applied, adjusted, res, &out);
	assert_string_equal(out.data,
	                    "node1 sda: queue_depth=975\u2192919\nnode2 sda: FAILED: HTTP "
	                    "422: queue_depth: 975 is above the maximum 256 (nothing "
	                    "changed on this node)\n");
	buf_release(&out);
	sweep_release(&s);
}

/* Occurrences of needle in hay. */
static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

/* Two nodes with the same device name get one rule, not one each. */
static void test_export_one_rule_per_device(void **state)
{
	struct sweep s;
	struct buf b = BUF_INIT;
	struct err e;

	(void)state;
	seed_sweep(&s);
	assert_int_equal(export_render(&s, "udev", &b, &e), 0);
	assert_int_equal(count_of(b.data, "KERNEL==\"sda\""), 1);
	buf_reset(&b);
	assert_int_equal(export_render(&s, "tuned", &b, &e), 0);
	assert_int_equal(count_of(b.data, "/sys/block/sda/queue/nr_requests="), 1);
	assert_int_equal(export_render(&s, "ini", &b, &e), -EINVAL);
	buf_release(&b);
	sweep_release(&s);
}

/* A judged grid over x [1, 2, 3] on n nodes, 5 loops: point i on node k at
 * 1000 (1 + eff[i][k] / 100) (1 + cv / 100 z), z a fixed pattern of SD 1; fio_extra goes into
 * the job's fio options. */
static void noisy_grid(struct sweep *s, int n, double cv, const double (*eff)[16],
                       const char *fio_extra)
{
	static const double z[5] = { -1.26, -0.64, 0, 0.64, 1.26 };
	char *t = ctltest_plan(n, "{\"x\":0}", "[{\"param\":\"x\",\"values\":[1,2,3]}]", "grid",
	                       "5", "");
	struct strategy_batch b = { 0 };
	struct buf plan = BUF_INIT;
	char *at = strstr(t, "\"runtime_s\":2");
	double x[5];
	int i, k, j;

	assert_non_null(at);
	buf_append(&plan, t, (size_t)(at - t));
	buf_printf(&plan, "%s\"runtime_s\":2%s", fio_extra, at + strlen("\"runtime_s\":2"));
	ctltest_sweep_text(s, plan.data);
	free(t);
	buf_release(&plan);
	assert_int_equal(strategy_next(s, &b), 4);
	strategy_batch_release(&b);
	for (i = 0; i < 4; i++)
		for (k = 0; k < n; k++) {
			for (j = 0; j < 5; j++)
				x[j] = 1000 * (1 + eff[i][k] / 100) *
				       (1 + cv / 100 * z[(j + i + k) % 5]);
			ctltest_passes(s, i, k, x, 5);
		}
	verdict_sweep(s);
}

/* The noise line under the table, its figures in the JSON, the loops a row needs in its
 * verdict cell; and the nodes a disagreement names, in the table and the JSON. */
static void test_noise_and_disagreement(void **state)
{
	static const double small[4][16] = { { 0 }, { 2, 2 }, { -1, -1 }, { 1, 1 } };
	static const double split[4][16] = {
		{ 0 }, { 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, -15 }, { 10 }, { 0 }
	};
	struct buf b = BUF_INIT;
	struct sweep s;
	char *json;

	(void)state;
	noisy_grid(&s, 2, 20, small, "");
	report_render(&s, REPORT_TABLE, &b);
	assert_int_equal(s.noise.nnoisy, 3);
	assert_true(s.noise.loops_needed > 50);
	assert_non_null(strstr(b.data, "\nnoise: passes vary by up to "));
	assert_non_null(strstr(b.data, "; 3 of 3 rows cannot tell a 5 % difference (the smallest "
	                               "they detect is "));
	assert_non_null(strstr(b.data, ". Deciding 5 % needs about "));
	assert_non_null(strstr(b.data, " loops per point, or a quieter job: longer runtime_s, "
	                               "direct I/O\n"));
	assert_non_null(strstr(b.data, "| inconclusive (too noisy: ~"));
	json = sweepdoc_write(&s);
	assert_non_null(strstr(json, "\"noisy_rows\": 3"));
	assert_non_null(strstr(json, "\"text\": \"passes vary by up to "));
	assert_non_null(strstr(json, "\"loops_needed\": "));
	free(json);
	buf_release(&b);
	sweep_release(&s);
	/* A job already doing direct I/O is not told to. */
	noisy_grid(&s, 2, 20, small, "\"direct\":true,");
	report_render(&s, REPORT_TABLE, &b);
	assert_non_null(strstr(b.data, " loops per point, or a quieter job: longer runtime_s\n"));
	buf_release(&b);
	sweep_release(&s);
	/* Twelve nodes, one going the other way: the fleet gains, that node is named with its own
	 * effect. */
	noisy_grid(&s, 12, 1, split, "");
	assert_int_equal(s.points[1].verdict, EFFECT_HETEROGENEOUS);
	report_render(&s, REPORT_TABLE, &b);
	assert_non_null(strstr(b.data, "| nodes disagree: n12 differs: \u221215.0 % |"));
	json = sweepdoc_write(&s);
	assert_non_null(strstr(json, "\"verdict\": \"heterogeneous\""));
	assert_non_null(strstr(json, "\"verdict_text\": \"nodes disagree: n12 differs: "
	                             "\u221215.0 %\""));
	assert_non_null(strstr(json, "\"disagree\": [\n        {\n          \"node\": \"n12\""));
	free(json);
	buf_release(&b);
	sweep_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_fleet),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_no_best_lines),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_noise_and_disagreement),
		cmocka_unit_test(test_export_one_rule_per_device),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_dry_run),
		cmocka_unit_test(test_nodes_and_apply),
		cmocka_unit_test(test_export_one_rule_per_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
