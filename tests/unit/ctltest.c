/* ctltest.c -- a two-node sweep plan and runner-like results for the controller's tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "ctltest.h"
#include "judge/analysis.h"
#include "judge/verdict.h"
#include "plan/plan.h"
#include "plan/plan_parse.h"
#include "testutil.h"
#include "xmalloc.h"

#define PLAN_FMT                                                                                   \
	"{\"name\":\"t\",\"nodes\":[{\"name\":\"a\",\"url\":\"http://h:1\",\"device\":\"sda\"},"   \
	"{\"name\":\"b\",\"url\":\"http://h:2\",\"device\":\"sdb\"}],"                             \
	"\"baseline\":{\"scheduler\":\"mq-deadline\",\"nr_requests\":128},"                        \
	"\"axes\":[{\"param\":\"scheduler\",\"values\":[\"mq-deadline\",\"none\",\"bfq\"]},"       \
	"{\"param\":\"nr_requests\",\"values\":[64,128,256]}],"                                    \
	"\"strategy\":\"%s\",\"job\":{\"fio\":{\"rw\":\"write\",\"runtime_s\":2},\"loops\":3}%s}"

void ctltest_sweep(struct sweep *s, const char *strategy, const char *extra)
{
	char text[2048];
	struct plan p;
	struct err e;

	snprintf(text, sizeof(text), PLAN_FMT, strategy, extra);
	if (plan_parse(text, NULL, &p, &e))
		fail_msg("%s", e.msg);
	sweep_init(s, &p);
}

void ctltest_fill(struct sweep *s, int i, double mean)
{
	int k, j;

	for (k = 0; k < s->plan.nnodes; k++) {
		struct node_result *r = &s->points[i].nodes[k];

		r->state = NODE_OK;
		r->npasses = 0;
		for (j = 0; j < 3; j++)
			node_result_pass_add(r, mean + (j - 1) * 0.5 + k * 0.1);
	}
	s->points[i].loops_run = 3;
	analysis_point_ran(s, i);
}

void ctltest_sweep_text(struct sweep *s, const char *plan_json)
{
	struct plan p;
	struct err e;

	if (plan_parse(plan_json, NULL, &p, &e))
		fail_msg("%s", e.msg);
	sweep_init(s, &p);
}

char *ctltest_plan(int nnodes, const char *baseline, const char *axes, const char *strategy,
                   const char *loops, const char *extra)
{
	struct buf b = BUF_INIT;
	int k;

	buf_puts(&b, "{\"name\":\"t\",\"nodes\":[");
	for (k = 0; k < nnodes; k++)
		buf_printf(&b, "%s{\"name\":\"n%d\",\"url\":\"http://h:%d\",\"device\":\"sd%c\"}",
		           k ? "," : "", k + 1, k + 1, 'a' + k % 26);
	buf_printf(&b,
	           "],\"baseline\":%s,\"axes\":%s,\"strategy\":\"%s\","
	           "\"job\":{\"fio\":{\"rw\":\"write\",\"runtime_s\":2},\"loops\":%s}%s}",
	           baseline, axes, strategy, loops, extra);
	return buf_detach(&b, NULL);
}

void ctltest_passes(struct sweep *s, int i, int k, const double *x, int n)
{
	struct node_result *r = &s->points[i].nodes[k];
	int j;

	r->state = NODE_OK;
	r->npasses = 0;
	for (j = 0; j < n; j++)
		node_result_pass_add(r, x[j]);
	if (s->points[i].loops_run < n)
		s->points[i].loops_run = n;
}

void ctltest_batch_run(struct sweep *s, const struct strategy_batch *b, const double *eff,
                       double cv)
{
	int i, k, j;

	for (i = 0; i < b->n; i++) {
		struct point *p = &s->points[b->items[i].point];

		sweep_point_loops_add(s, p->index, b->items[i].loops);
		for (k = 0; k < s->plan.nnodes; k++) {
			for (j = 0; j < b->items[i].loops; j++) {
				double z = (p->nodes[k].npasses + k) % 2 ? 1 : -1;

				node_result_pass_add(&p->nodes[k],
				                     1000 * (1 + eff[p->index] / 100) *
				                             (1 + cv / 100 * z));
			}
			p->nodes[k].state = NODE_OK;
		}
		analysis_point_ran(s, p->index);
	}
}

void ctltest_sequential_run(struct sweep *s, const char *loops, const double *eff, double cv)
{
	char *t = ctltest_plan(2, "{\"x\":0,\"y\":0}",
	                       "[{\"param\":\"x\",\"values\":[1,2]},"
	                       "{\"param\":\"y\",\"values\":[1]}]",
	                       "sequential", loops, "");
	struct strategy_batch b = { 0 };

	ctltest_sweep_text(s, t);
	free(t);
	while (strategy_next(s, &b) > 0)
		ctltest_batch_run(s, &b, eff, cv);
	strategy_batch_release(&b);
	verdict_sweep(s);
}

const double ctltest_seed003_passes[4][2][5] = {
	{ { 1278.80, 1279.40, 1278.70, 1286.60, 1282.40 },
	  { 1268.40, 1256.90, 1262.70, 1257.60, 1260.90 } },
	{ { 1268.20, 1266.40, 1285.60, 1284.70, 1284.10 },
	  { 1270.50, 1273.60, 1258.60, 1270.30, 1265.20 } },
	{ { 1427.80, 1463.40, 1417.10, 1408.20, 1467.40 },
	  { 1433.20, 1399.10, 1415.90, 1411.60, 1427.80 } },
	{ { 1842.40, 1857.20, 1920.10, 1839.50, 1902.30 },
	  { 1872.20, 1871.60, 1852.10, 1921.20, 1880.50 } },
};

static const char *seed003_plan =
        "{\"name\":\"anvil </script> tuning\","
        "\"nodes\":[{\"name\":\"node1\",\"url\":\"http://127.0.0.1:7071\",\"device\":\"sda\"},"
        "{\"name\":\"node2\",\"url\":\"http://127.0.0.1:7072\",\"device\":\"sda\"}],"
        "\"baseline\":{\"nr_requests\":128,\"queue_depth\":256},"
        "\"axes\":[{\"params\":[\"nr_requests\",\"queue_depth\"],"
        "\"values\":[[975,256],[975,975],[4000,975]]}],"
        "\"strategy\":\"grid\","
        "\"job\":{\"fio\":{\"rw\":\"randwrite\",\"bs\":\"4M\",\"runtime_s\":60},\"loops\":5}}";

void ctltest_seed003(struct sweep *s)
{
	struct strategy_batch b = { 0 };
	struct plan p;
	struct err e;
	int i, k, j;

	assert_int_equal(plan_parse(seed003_plan, NULL, &p, &e), 0);
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
			struct config applied = { 0 };

			r->state = NODE_OK;
			r->job_id = 10 * i + k + 1;
			r->job_runtime_s = 300.4;
			for (j = 0; j < 5; j++)
				node_result_pass_add(r, ctltest_seed003_passes[i][k][j]);
			for (j = 0; j < pt->cfg.n; j++) {
				const struct setting *st = &pt->cfg.s[j];
				bool adj = !strcmp(st->name, "queue_depth") &&
				           !strcmp(st->value, "975");

				config_set(&applied, st->name, adj ? "919" : st->value, true);
				if (adj)
					r->adjusted_mask |= 1u << j;
			}
			node_result_applied_set(r, &applied);
		}
	}
	snprintf(s->status, sizeof(s->status), "completed");
	verdict_sweep(s);
}

/*
 * A grid sweep over nodes n1..nN, cohorts A (the first na) and B (the rest) by model: point
 * 0 the baseline, point 1 x=1 and point 2 x=2 with effect_a[i] % on A's nodes and
 * effect_b[i] % on B's (node odd_node at odd_effect % instead), CV 2 %, 5 passes alternating
 * around the mean, so every node's Δ is its effect.
 */
void ctltest_cohort_sweep(struct sweep *s, int n, int na, const double *effect_a,
                          const double *effect_b, int odd_node, double odd_effect)
{
	char *t = ctltest_plan(n, "{\"x\":0}", "[{\"param\":\"x\",\"values\":[1,2]}]", "grid", "5",
	                       "");
	struct config c;
	int i, k, j;

	ctltest_sweep_text(s, t);
	free(t);
	for (k = 0; k < n; k++) {
		sweep_identity_set(s, k, IDF_MODEL, k < na ? "A" : "B");
		sweep_identity_set(s, k, IDF_FIRMWARE, "1.0");
	}
	memset(&c, 0, sizeof(c));
	config_set(&c, "x", "0", true);
	sweep_point_add(s, ROLE_BASELINE, -1, -1, &c);
	config_set(&c, "x", "1", true);
	sweep_point_add(s, ROLE_CANDIDATE, -1, 0, &c);
	config_set(&c, "x", "2", true);
	sweep_point_add(s, ROLE_CANDIDATE, -1, 0, &c);
	for (i = 0; i < 3; i++) {
		for (k = 0; k < n; k++) {
			double eff = i == 0 ? 0 : k < na ? effect_a[i] : effect_b[i], x[5];

			if (k == odd_node && i > 0)
				eff = odd_effect;
			for (j = 0; j < 5; j++)
				x[j] = 1000 * (1 + eff / 100) *
				       (1 + 0.02 * ((j + k) % 2 ? 1 : -1)) * (1 + 0.001 * k);
			ctltest_passes(s, i, k, x, 5);
		}
	}
	analysis_sweep_loaded(s);
}

void ctltest_fs_sweep(struct sweep *s)
{
	static const double x[3][3] = { { 100, 101, 99 }, { 120, 121, 119 }, { 90, 91, 89 } };
	char *t = ctltest_plan(
	        2,
	        "{\"fs.type\":\"xfs\",\"fs.mkfs\":\"-b size=4k -d su=64k,sw=7 -i size=1k -l "
	        "version=2\",\"fs.mount\":\"noatime,logbufs=8,logbsize=256k\",\"read_ahead_kb\":"
	        "128}",
	        "[{\"param\":\"fs.mkfs\",\"values\":[\"-b size=4k -d su=64k,sw=7 -i size=2k -l "
	        "version=2\",\"-b size=4k -d su=256k,sw=7 -i size=1k -l version=2\"]}]",
	        "grid", "3", "");
	struct strategy_batch b = { 0 };
	int i, k;

	ctltest_sweep_text(s, t);
	free(t);
	assert_int_equal(strategy_next(s, &b), 3);
	strategy_batch_release(&b);
	for (i = 0; i < 3; i++)
		for (k = 0; k < 2; k++)
			ctltest_passes(s, i, k, x[i], 3);
	verdict_sweep(s);
}

int ctltest_best(const struct sweep *s, int c)
{
	const struct decision *d = sweep_decision(s, c);

	return d->state == DECISION_CONFIRMED ? d->point : -1;
}
