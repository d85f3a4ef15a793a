/* ctltest.c -- a two-node sweep plan and runner-like results for the controller's tests. */
#include <stdio.h>

#include "testutil.h"
#include "ctltest.h"
#include "plan.h"

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
}
