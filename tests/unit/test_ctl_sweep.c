/* test_ctl_sweep.c -- grid and sequential expansion, and the sweep's SQLite round trip. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "ctlstore.h"
#include "fleet.h"
#include "plan.h"
#include "report.h"
#include "sweep.h"
#include "verdict.h"

#define PLAN_FMT                                                                                   \
	"{\"name\":\"t\",\"nodes\":[{\"name\":\"a\",\"url\":\"http://h:1\",\"device\":\"sda\"},"   \
	"{\"name\":\"b\",\"url\":\"http://h:2\",\"device\":\"sdb\"}],"                             \
	"\"baseline\":{\"scheduler\":\"mq-deadline\",\"nr_requests\":128},"                        \
	"\"axes\":[{\"param\":\"scheduler\",\"values\":[\"mq-deadline\",\"none\",\"bfq\"]},"       \
	"{\"param\":\"nr_requests\",\"values\":[64,128,256]}],"                                    \
	"\"strategy\":\"%s\",\"job\":{\"fio\":{\"rw\":\"write\",\"runtime_s\":2},\"loops\":3}%s}"

static void sweep_new(struct sweep *s, const char *strategy, const char *extra)
{
	char text[2048];
	struct plan p;
	struct err e;

	snprintf(text, sizeof(text), PLAN_FMT, strategy, extra);
	assert_int_equal(plan_parse(text, NULL, &p, &e), 0);
	sweep_init(s, &p);
}

static const char *val(const struct point *p, const char *name)
{
	return config_get(&p->cfg, name)->value;
}

/* Give every node of point i three passes around mean. */
static void fill(struct sweep *s, int i, double mean)
{
	int k, j;

	for (k = 0; k < s->plan.nnodes; k++) {
		struct node_result *r = &s->points[i].nodes[k];

		r->state = NODE_OK;
		r->npasses = 3;
		for (j = 0; j < 3; j++)
			r->passes[j] = mean + (j - 1) * 0.5 + k * 0.1;
	}
}

static void test_grid(void **state)
{
	struct sweep s;
	int i;

	(void)state;
	sweep_new(&s, "grid", "");
	assert_int_equal(sweep_points_estimate(&s.plan), 9);
	/* baseline + 3 x 3 combinations - the one equal to the baseline */
	assert_int_equal(sweep_points_next(&s), 9);
	assert_int_equal(s.npoints, 9);
	assert_int_equal(s.points[0].role, ROLE_BASELINE);
	assert_int_equal(s.points[0].ref, -1);
	assert_string_equal(val(&s.points[1], "scheduler"), "mq-deadline");
	assert_string_equal(val(&s.points[1], "nr_requests"), "64");
	assert_string_equal(val(&s.points[2], "nr_requests"), "256");
	assert_string_equal(val(&s.points[8], "scheduler"), "bfq");
	assert_string_equal(val(&s.points[8], "nr_requests"), "256");
	for (i = 1; i < 9; i++) {
		assert_int_equal(s.points[i].role, ROLE_CANDIDATE);
		assert_int_equal(s.points[i].ref, 0);
		assert_false(config_equal(&s.points[i].cfg, &s.plan.baseline));
	}
	assert_int_equal(sweep_points_next(&s), 0);
	sweep_release(&s);
}

static void test_sequential(void **state)
{
	struct sweep s;

	(void)state;
	sweep_new(&s, "sequential", "");
	assert_int_equal(sweep_points_estimate(&s.plan), 1 + 4 + 4);
	/* Axis 1: baseline, none, bfq (mq-deadline is the baseline itself). */
	assert_int_equal(sweep_points_next(&s), 3);
	assert_int_equal(s.points[0].role, ROLE_BASELINE);
	assert_int_equal(s.points[0].axis, 0);
	assert_string_equal(val(&s.points[1], "scheduler"), "none");
	assert_string_equal(val(&s.points[1], "nr_requests"), "128");
	assert_string_equal(val(&s.points[2], "scheduler"), "bfq");
	assert_int_equal(s.points[2].ref, 0);
	/* none: +20 % on both nodes (significant gain); bfq: +10 %, less. */
	fill(&s, 0, 100);
	fill(&s, 1, 120);
	fill(&s, 2, 110);
	/* Axis 2 runs over the winner: a fresh baseline of scheduler=none. */
	assert_int_equal(sweep_points_next(&s), 3);
	assert_int_equal(s.points[1].verdict, ROW_GAIN);
	assert_int_equal(s.points[3].role, ROLE_BASELINE);
	assert_int_equal(s.points[3].axis, 1);
	assert_string_equal(val(&s.points[3], "scheduler"), "none");
	assert_string_equal(val(&s.points[3], "nr_requests"), "128");
	assert_string_equal(val(&s.points[4], "nr_requests"), "64");
	assert_string_equal(val(&s.points[4], "scheduler"), "none");
	assert_string_equal(val(&s.points[5], "nr_requests"), "256");
	assert_int_equal(s.points[4].ref, 3);
	assert_int_equal(s.points[5].ref, 3);
	/* No significant gain on axis 2: keep nr_requests 128. */
	fill(&s, 3, 120);
	fill(&s, 4, 121);
	fill(&s, 5, 119);
	/* Final confirmation of {none, 128} against the original baseline. */
	assert_int_equal(sweep_points_next(&s), 1);
	assert_int_equal(s.points[6].role, ROLE_FINAL);
	assert_int_equal(s.points[6].ref, 0);
	assert_string_equal(val(&s.points[6], "scheduler"), "none");
	assert_string_equal(val(&s.points[6], "nr_requests"), "128");
	fill(&s, 6, 119);
	assert_int_equal(sweep_points_next(&s), 0);
	verdict_sweep(&s);
	assert_int_equal(s.best, 6);
	assert_int_equal(s.points[6].verdict, ROW_GAIN);
	{
		struct buf b = BUF_INIT;

		/* One table per axis, as in seed 003, then the final check. */
		report_render(&s, REPORT_TABLE, &b);
		assert_non_null(strstr(b.data, "\naxis 1: scheduler\n| scheduler "));
		assert_non_null(strstr(b.data, "\n\naxis 2: nr_requests\n| scheduler "));
		assert_non_null(strstr(b.data, "\n\nfinal confirmation against the original "
		                               "baseline:\n| scheduler "));
		assert_non_null(strstr(b.data, "final vs original baseline: significant gain"));
		assert_non_null(strstr(b.data, "\nbest: scheduler=none nr_requests=128  +"));
		buf_release(&b);
	}
	sweep_release(&s);
}

static void test_sequential_no_gain(void **state)
{
	struct sweep s;
	int i;

	(void)state;
	sweep_new(&s, "sequential", "");
	assert_int_equal(sweep_points_next(&s), 3);
	for (i = 0; i < 3; i++)
		fill(&s, i, 100 + i * 0.2);
	assert_int_equal(sweep_points_next(&s), 3);
	assert_string_equal(val(&s.points[3], "scheduler"), "mq-deadline");
	for (i = 3; i < 6; i++)
		fill(&s, i, 100);
	/* Nothing beat the baseline: no final point, no best. */
	assert_int_equal(sweep_points_next(&s), 0);
	verdict_sweep(&s);
	assert_int_equal(s.best, -1);
	sweep_release(&s);
}

static void test_minimize_picks_lower(void **state)
{
	struct sweep s;

	(void)state;
	sweep_new(&s, "grid", ",\"metric\":\"write.clat_p99_us\",\"goal\":\"minimize\"");
	sweep_points_next(&s);
	fill(&s, 0, 1000);
	for (int i = 1; i < s.npoints; i++)
		fill(&s, i, 1000);
	fill(&s, 3, 800);
	fill(&s, 5, 700);
	fill(&s, 7, 1300);
	verdict_sweep(&s);
	assert_int_equal(s.points[5].verdict, ROW_GAIN);
	assert_int_equal(s.points[7].verdict, ROW_LOSS);
	assert_int_equal(s.best, 5);
	sweep_release(&s);
}

static void test_disagree_and_asymmetry(void **state)
{
	struct sweep s;
	int j;

	(void)state;
	sweep_new(&s, "grid", "");
	sweep_points_next(&s);
	for (int i = 0; i < s.npoints; i++)
		fill(&s, i, 100);
	/* Node b consistently ~20 % slower everywhere: one warning, naming it. */
	for (int i = 0; i < s.npoints; i++)
		for (j = 0; j < 3; j++)
			s.points[i].nodes[1].passes[j] *= 0.8;
	/* Point 1: a gains, b does not. */
	for (j = 0; j < 3; j++)
		s.points[1].nodes[0].passes[j] += 20;
	verdict_sweep(&s);
	assert_int_equal(s.points[1].nodes[0].verdict, VERDICT_GAIN);
	assert_int_equal(s.points[1].nodes[1].verdict, VERDICT_NONE);
	assert_int_equal(s.points[1].verdict, ROW_DISAGREE);
	assert_int_equal(s.nwarnings, 1);
	assert_non_null(strstr(s.warnings[0], "b is consistently"));
	assert_non_null(strstr(s.warnings[0], "below a"));
	assert_true(s.points[2].spread_pct > 20.0);
	sweep_release(&s);
}

static void test_store_roundtrip(void **state)
{
	char *dir = tu_tmpdir(), *db;
	struct ctlstore *st = NULL;
	struct ctlstore_summary *h = NULL;
	struct sweep s, l;
	struct err e = { 0 };
	struct buf a = BUF_INIT, b = BUF_INIT;
	int n;

	(void)state;
	db = malloc(strlen(dir) + 32);
	snprintf(db, strlen(dir) + 32, "%s/sub/ctl.db", dir);
	assert_int_equal(ctlstore_open(db, &st, &e), 0);
	sweep_new(&s, "grid", "");
	sweep_points_next(&s);
	for (int i = 0; i < s.npoints; i++)
		fill(&s, i, 100 + i);
	s.points[2].nodes[1].state = NODE_FAILED;
	s.points[2].nodes[1].npasses = 1;
	snprintf(s.points[2].nodes[1].error, sizeof(s.points[2].nodes[1].error), "job 3 failed");
	config_set(&s.points[1].nodes[0].applied, "nr_requests", "60", true);
	s.points[1].nodes[0].adjusted_mask = 1;
	s.points[1].nodes[0].job_id = 42;
	s.node_dropped[1] = true;
	assert_int_equal(ctlstore_sweep_create(st, &s, &e), 0);
	assert_true(s.id > 0);
	assert_int_equal(ctlstore_point_save(st, &s, 0, &e), 0);
	snprintf(s.status, sizeof(s.status), "aborted");
	s.finished_at = s.created_at + 10;
	verdict_sweep(&s);
	assert_int_equal(ctlstore_sweep_finish(st, &s, &e), 0);
	assert_int_equal(ctlstore_sweep_load(st, s.id, &l, &e), 0);
	verdict_sweep(&l);
	assert_int_equal(l.npoints, s.npoints);
	assert_string_equal(l.status, "aborted");
	assert_true(l.node_dropped[1]);
	assert_int_equal(l.points[2].nodes[1].state, NODE_FAILED);
	assert_string_equal(l.points[2].nodes[1].error, "job 3 failed");
	assert_int_equal(l.points[1].nodes[0].job_id, 42);
	assert_string_equal(config_get(&l.points[1].nodes[0].applied, "nr_requests")->value, "60");
	/* The stored sweep renders exactly like the live one. */
	report_render(&s, REPORT_JSON, &a);
	report_render(&l, REPORT_JSON, &b);
	assert_string_equal(a.data, b.data);
	sweep_release(&l);
	assert_int_equal(ctlstore_history(st, 10, &h, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_int_equal(h[0].npoints, s.npoints);
	assert_string_equal(h[0].status, "aborted");
	assert_int_not_equal(ctlstore_sweep_load(st, 999, &l, &e), 0);
	assert_string_equal(e.msg, "no sweep 999");
	free(h);
	buf_release(&a);
	buf_release(&b);
	sweep_release(&s);
	ctlstore_close(st);
	/* Reopening runs no migration twice. */
	assert_int_equal(ctlstore_open(db, &st, &e), 0);
	ctlstore_close(st);
	tu_rmrf(dir);
	free(dir);
	free(db);
}

static void test_preflight_check(void **state)
{
	struct sweep s;
	struct node_info info[2];
	struct buf problems = BUF_INIT;
	static struct param_info pa[2];

	(void)state;
	sweep_new(&s, "grid", "");
	memset(info, 0, sizeof(info));
	memset(pa, 0, sizeof(pa));
	snprintf(pa[0].name, sizeof(pa[0].name), "scheduler");
	snprintf(pa[0].value, sizeof(pa[0].value), "none");
	pa[0].writable = true;
	pa[0].nchoices = 3;
	snprintf(pa[0].choices[0], 32, "none");
	snprintf(pa[0].choices[1], 32, "mq-deadline");
	snprintf(pa[0].choices[2], 32, "kyber");
	snprintf(pa[1].name, sizeof(pa[1].name), "nr_requests");
	pa[1].is_int = pa[1].writable = pa[1].has_min = pa[1].has_max = true;
	pa[1].min = 4;
	pa[1].max = 200;
	for (int k = 0; k < 2; k++) {
		info[k].ok = info[k].dev_found = info[k].dev_writable = true;
		info[k].nparams = 2;
		info[k].params = pa;
	}
	assert_int_not_equal(fleet_preflight_check(&s.plan, info, &problems), 0);
	assert_non_null(strstr(problems.data,
	                       "a: scheduler 'bfq' not available (none, mq-deadline, kyber)\n"));
	assert_non_null(strstr(problems.data, "b: nr_requests 256 is above the maximum 200\n"));
	buf_reset(&problems);
	info[1].dev_writable = false;
	info[0].ok = false;
	snprintf(info[0].error, sizeof(info[0].error), "Couldn't connect to server");
	assert_int_not_equal(fleet_preflight_check(&s.plan, info, &problems), 0);
	assert_non_null(strstr(problems.data, "a: not healthy: Couldn't connect to server\n"));
	assert_non_null(strstr(problems.data, "b: device 'sdb' is not writable"));
	buf_release(&problems);
	sweep_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grid),
		cmocka_unit_test(test_sequential),
		cmocka_unit_test(test_sequential_no_gain),
		cmocka_unit_test(test_minimize_picks_lower),
		cmocka_unit_test(test_disagree_and_asymmetry),
		cmocka_unit_test(test_store_roundtrip),
		cmocka_unit_test(test_preflight_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
