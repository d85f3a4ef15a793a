/* ctltest.c -- a two-node sweep plan and runner-like results for the controller's tests. */
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"
#include "ctltest.h"
#include "analysis.h"
#include "buf.h"
#include "plan.h"
#include "verdict.h"
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
