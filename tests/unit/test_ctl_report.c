/* test_ctl_report.c -- the renderings for people: table (seed 003's), fleet-scale table,
 * markdown, CSV, the noise line and named disagreement, compare, history, the dry run, nodes
 * and apply. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctltest.h"
#include "doc/sweepdoc.h"
#include "judge/verdict.h"
#include "model/sweep.h"
#include "model/words.h"
#include "plan/plan.h"
#include "plan/plan_parse.h"
#include "render/report.h"
#include "run/strategy.h"
#include "testutil.h"

static void test_table(void **state)
{
	struct sweep s;
	struct buf b = BUF_INIT;

	(void)state;
	ctltest_seed003(&s);
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
	assert_non_null(strstr(b.data,
	                       "best: nr_requests=4000 queue_depth=975  +47.7 % "
	                       "(significant gain on both nodes)\n"
	                       "  decided by its row beside the baseline, measured in the same "
	                       "rounds: +47.7 % [+44.9, +50.6] (95 % interval); a gain on its "
	                       "own on node1 and node2\n"));
	/* Quiet passes (CV under 2 %): no noise line. */
	assert_null(strstr(b.data, "noise:"));
	assert_int_equal(ctltest_best(&s, -1), 3);
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
	ctltest_seed003(&s);
	report_render(&s, REPORT_CSV, &b);
	assert_non_null(
	        strstr(b.data, "sweep,point,role,axis,nr_requests,queue_depth,node,state,"));
	assert_non_null(strstr(b.data, "\n7,0,baseline,-1,128,256,node1,ok,5,1281.18,"));
	assert_non_null(strstr(b.data, "1278.8;1279.4;1278.7;1286.6;1282.4\n"));
	assert_non_null(strstr(b.data, "7,2,candidate,-1,975,975\u2192919,node2,ok,5,"));
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
	ctltest_seed003(&a);
	ctltest_seed003(&b);
	b.id = 8;
	for (j = 0; j < 5; j++)
		b.points[1].nodes[0].passes[j] *= 1.1;
	verdict_sweep(&b);
	verdict_sweeps_compare(&a, &b, &c);
	report_compare(&a, &b, &c, true, &out);
	/* Markdown carries no HTML: the plan's name as text. */
	assert_non_null(strstr(out.data,
	                       "compare sweep 7 \"anvil &lt;/script&gt; tuning\" \u2192 sweep 8"));
	assert_null(strstr(out.data, "</script>"));
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
	/* The median point of each node did not move between the runs: no run-to-run variation
	 * to speak of, and the line says how large a difference it would take. */
	assert_non_null(strstr(out.data,
	                       "run-to-run: the nodes' figures moved +0.0 % (+0.0 to +0.0 % "
	                       "over 2 nodes) between these runs"));
	assert_non_null(strstr(out.data, "differences under 0.0 % between these runs are within "
	                                 "run-to-run variation"));
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
	h[0].has_decision = true;
	decision_init(&h[0].decision);
	h[0].decision.state = DECISION_CONFIRMED;
	h[0].decision.why = DECISION_WHY_GAIN;
	h[0].decision.basis = DECISION_BASIS_GRID_ROW;
	h[0].decision.point = 2;
	config_set(&h[0].decision.cfg, "nr_requests", "4000", true);
	h[0].decision.delta_pct = 47.61;
	h[0].decision.verdict = EFFECT_GAIN;
	h[1] = h[0];
	h[1].id = 2;
	h[1].outcome = OUTCOME_NO_FIGURES;
	decision_init(&h[1].decision);
	h[1].decision.why = DECISION_WHY_NO_FIGURES;
	h[2] = h[1];
	h[2].id = 1;
	h[2].outcome = OUTCOME_PENDING;
	h[2].has_decision = false;
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

static void test_dry_run(void **state)
{
	struct sweep s;
	struct buf out = BUF_INIT;

	(void)state;
	ctltest_seed003(&s);
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
	ctltest_seed003(&s);
	memset(&pf, 0, sizeof(pf));
	memset(info, 0, sizeof(info));
	info[0].ok = info[0].devices_read = info[0].dev_found = info[0].dev_writable =
	        info[0].dry_run = true;
	snprintf(info[0].version, sizeof(info[0].version), "0.2.0");
	snprintf(info[0].node, sizeof(info[0].node), "n1");
	info[0].dev_size_bytes = 1 << 30;
	info[0].nparams = 3;
	info[0].params = params;
	info[0].identity[IDF_MODEL] = "ST300MM0008";
	info[0].identity[IDF_TRANSPORT] = "sata";
	info[0].identity[IDF_KERNEL] = "6.1.0-18-amd64";
	err_set(&info[1].err, 0, ERR_UNREACHABLE, "Couldn't connect to server");
	pf.nnodes = 2;
	pf.info = info;
	pf.nconfigs = 4;
	report_nodes(&s.plan, &pf, &out);
	assert_non_null(strstr(out.data, "node1  http://127.0.0.1:7071  ok  fleettune-agent 0.2.0  "
	                                 "node \"n1\"  up 0 s\n  device sda: 1.0 GiB, writable\n"
	                                 "  is: model=ST300MM0008 transport=sata "
	                                 "kernel=6.1.0-18-amd64\n"
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
	err_set(&res[1].err, 0, ERR_INVALID_VALUE,
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
	assert_non_null(strstr(b.data, ". More than 5 loops: this job is too noisy for a 5 % "
	                               "decision here. What would decide it: "));
	assert_non_null(strstr(b.data, "longer runtime_s, direct I/O, or a min_effect_pct "));
	assert_non_null(strstr(b.data, "| inconclusive (too noisy: more than 5 loops needed)"));
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
	assert_non_null(strstr(b.data, "longer runtime_s, or a min_effect_pct "));
	assert_null(strstr(b.data, "direct I/O"));
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

/* Seed 001's three mkfs lines as an axis (ctltest_fs_sweep): the fs.mkfs column shows only what
 * differs, the line under the table what every row shares; CSV and the document's params keep
 * the values whole. */
static void test_filesystem(void **state)
{
	struct buf out = BUF_INIT;
	struct sweep s;

	(void)state;
	ctltest_fs_sweep(&s);
	report_render(&s, REPORT_TABLE, &out);
	printf("%s", out.data);
	assert_non_null(strstr(out.data, "| fs.mkfs               | fs.type | fs.mount "));
	assert_non_null(strstr(out.data, "| -d su=64k -i size=1k  | xfs     | "
	                                 "noatime,logbufs=8,logbsize=256k |"));
	assert_non_null(strstr(out.data, "| -d su=64k -i size=2k  |"));
	assert_non_null(strstr(out.data, "| -d su=256k -i size=1k |"));
	assert_non_null(
	        strstr(out.data, "\nfs.mkfs in every row: -b size=4k -d sw=7 -l version=2\n"));
	/* best: the whole configuration, as it was run */
	assert_non_null(strstr(out.data, "best: fs.type=xfs fs.mkfs=-b size=4k -d su=64k,sw=7 -i "
	                                 "size=2k -l version=2"));
	buf_reset(&out);
	report_render(&s, REPORT_MARKDOWN, &out);
	assert_non_null(
	        strstr(out.data, "fs.mkfs in every row: `-b size=4k -d sw=7 -l version=2`"));
	buf_reset(&out);
	report_render(&s, REPORT_CSV, &out);
	assert_non_null(
	        strstr(out.data, ",\"-b size=4k -d su=256k,sw=7 -i size=1k -l version=2\","));
	buf_reset(&out);
	report_render(&s, REPORT_JSON, &out);
	assert_non_null(strstr(out.data, "\"display\": {\n        \"fs.mkfs\": \"-d su=256k -i "
	                                 "size=1k\""));
	assert_non_null(strstr(out.data, "\"fs.mkfs\": \"-b size=4k -d su=256k,sw=7 -i size=1k -l "
	                                 "version=2\""));
	buf_release(&out);
	sweep_release(&s);
}

/* The advice of a noisy row (issue 18): beyond the plan's loops (or 100) it says "more than N
 * loops" and what would decide it, with an estimate only up to 100 loops; a buffered job set
 * so on purpose is not told to use direct I/O; a row whose nodes' own effects differ says so
 * whatever its loop estimate (Q p = 0.026 here, 99 486 loops estimated). */
static void test_advice(void **state)
{
	static const double zero[4][16] = { { 0 }, { 0.5, 0.5 }, { -0.5, -0.5 }, { 0, 0 } };
	static const double differ[4][16] = { { 0 }, { 2, -4.4 }, { 0.5, 0 }, { 1, 1 } };
	struct buf b = BUF_INIT;
	struct sweep s;
	char *json;

	(void)state;
	/* CV 6 % on 5 loops: about 13 loops would decide it, more than the plan's 5. */
	noisy_grid(&s, 2, 6, zero, "");
	report_render(&s, REPORT_TABLE, &b);
	assert_non_null(strstr(b.data, "| inconclusive (too noisy: more than 5 loops needed) |"));
	assert_non_null(strstr(b.data, ". More than 5 loops: this job is too noisy for a 5 % "
	                               "decision here. What would decide it: about "));
	assert_non_null(strstr(b.data, " loops per point (job.loops), a quiet machine while it "
	                               "runs (nothing else on the nodes' disks and CPUs), longer "
	                               "runtime_s, direct I/O, or a min_effect_pct these rows can "
	                               "tell ("));
	assert_null(strstr(b.data, "Deciding 5 %"));
	assert_null(strstr(b.data, "look at the nodes"));
	/* Worded for the engine in use: bonnie++ has no runtime_s and no direct option. */
	snprintf(s.plan.engine, sizeof(s.plan.engine), "bonnie");
	buf_reset(&b);
	report_render(&s, REPORT_TABLE, &b);
	assert_non_null(strstr(b.data, "CPUs), a larger bonnie size_mb, or a min_effect_pct"));
	assert_null(strstr(b.data, "runtime_s"));
	assert_null(strstr(b.data, "direct I/O"));
	snprintf(s.plan.engine, sizeof(s.plan.engine), "dd");
	buf_reset(&b);
	report_render(&s, REPORT_TABLE, &b);
	assert_non_null(strstr(b.data, "a larger dd count (more data per pass)"));
	buf_release(&b);
	sweep_release(&s);
	/* CV 20 %: hundreds of loops. No figure is quoted, and direct: false is kept. */
	noisy_grid(&s, 2, 20, zero, "\"direct\":false,");
	assert_true(s.noise.loops_needed > WORDS_LOOPS_MAX);
	report_render(&s, REPORT_TABLE, &b);
	assert_non_null(strstr(b.data,
	                       ". More than 5 loops: this job is too noisy for a 5 % "
	                       "decision here. What would decide it: a quiet machine while "
	                       "it runs (nothing else on the nodes' disks and CPUs), longer "
	                       "runtime_s, or a min_effect_pct these rows can tell ("));
	assert_null(strstr(b.data, "direct I/O"));
	assert_null(strstr(b.data, "loops per point"));
	buf_release(&b);
	sweep_release(&s);
	/* The nodes differ (node1 +2 %, node2 −4.4 %, Q significant): said in the cell and the
	 * line, not a loop count. */
	noisy_grid(&s, 2, 3.25, differ, "");
	assert_int_equal(s.points[1].verdict, EFFECT_INCONCLUSIVE);
	assert_true(s.points[1].fx.q_p < 0.05);
	assert_true(s.points[1].fx.loops_needed > 1000);
	assert_int_equal(s.noise.ndiffer, 1);
	report_render(&s, REPORT_TABLE, &b);
	assert_non_null(strstr(b.data, "| inconclusive (nodes differ: \u03c4 4.1 %; look at the "
	                               "nodes) |"));
	assert_non_null(strstr(b.data,
	                       ". In 1 row the nodes' own effects differ (\u03c4 up to "
	                       "4.1 %): more loops do not resolve that; look at the nodes\n"));
	assert_null(strstr(b.data, "loops needed"));
	assert_null(strstr(b.data, "More than"));
	json = sweepdoc_write(&s);
	assert_non_null(strstr(json, "\"differ_rows\": 1"));
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
		cmocka_unit_test(test_noise_and_disagreement),
		cmocka_unit_test(test_advice),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_dry_run),
		cmocka_unit_test(test_nodes_and_apply),
		cmocka_unit_test(test_filesystem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
