/* test_ctl_words.c -- the phrases every rendering shares: the best and no-best lines with each
 * node's error, warnings and verdicts worded from codes, the same in the table and the
 * document. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctltest.h"
#include "doc/sweepdoc.h"
#include "judge/verdict.h"
#include "model/sweep.h"
#include "model/words.h"
#include "render/report.h"
#include "testutil.h"

/* Why there is no best, with each node's error, and nothing that reads like a success. */
static void test_no_best_lines(void **state)
{
	struct sweep s;
	struct buf b = BUF_INIT;
	char why[SWEEP_ERROR_MAX];
	char *json;
	int i, k;

	(void)state;
	ctltest_seed003(&s);
	for (k = 0; k < 2; k++) {
		struct node_result *r = &s.points[0].nodes[k];

		r->state = NODE_FAILED;
		r->npasses = 0;
		snprintf(why, sizeof(why),
		         "job %d failed: bad_request: fio.iodepth: must be 1..4096", 3 + k);
		node_result_error_set(r, why);
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
	ctltest_seed003(&s);
	for (i = 1; i < 4; i++)
		for (k = 0; k < 2; k++) {
			s.points[i].nodes[k].state = NODE_FAILED;
			s.points[i].nodes[k].npasses = 0;
			node_result_error_set(&s.points[i].nodes[k], "PATCH params: HTTP 422: no");
		}
	verdict_sweep(&s);
	words_best_line(&s, &b);
	assert_string_equal(b.data, "no best: no configuration produced a figure to compare with "
	                            "the baseline (point 2: node1: PATCH params: HTTP 422: no; "
	                            "node2: PATCH params: HTTP 422: no)\n");
	buf_reset(&b);
	sweep_release(&s);
	/* Stopped by a signal: the baseline's run cancelled, or (in rounds, in a seeded order)
	 * not begun yet, is not "failed". */
	for (i = 0; i < 2; i++) {
		ctltest_seed003(&s);
		snprintf(s.status, sizeof(s.status), "interrupted");
		for (k = 0; k < 2; k++) {
			s.points[0].nodes[k].state = i ? NODE_PENDING : NODE_CANCELLED;
			s.points[0].nodes[k].npasses = 0;
		}
		verdict_sweep(&s);
		words_best_line(&s, &b);
		assert_string_equal(
		        b.data,
		        i ? "no best: the sweep was interrupted before the baseline's turn "
		            "in the first round (node1: pending; node2: pending)\n"
		          : "no best: the baseline was cancelled on every node before it "
		            "finished (the sweep was interrupted) (node1: cancelled; node2: "
		            "cancelled)\n");
		buf_reset(&b);
		words_no_best(&s, &b);
		assert_null(strstr(b.data, "failed"));
		buf_reset(&b);
		sweep_release(&s);
	}
	/* Measured, no gain: the baseline, worded as before. */
	ctltest_seed003(&s);
	for (i = 1; i < 4; i++)
		for (k = 0; k < 2; k++)
			for (int j = 0; j < 5; j++)
				s.points[i].nodes[k].passes[j] = ctltest_seed003_passes[0][k][j];
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
	ctltest_seed003(&s);
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

/* Issue 28: a row decided at a look of adaptive loops is judged on a wider interval than the
 * 95 % one the table shows; when that 95 % interval excludes 0 beside a verdict that is no gain,
 * the verdict names the interval that decided it and its level. */
static void test_interval_at_a_look(void **state)
{
	char *t = ctltest_plan(2, "{\"x\":0}", "[{\"param\":\"x\",\"values\":[1]}]", "grid",
	                       "{\"min\":3,\"max\":10}", "");
	double ref[10], pt[10];
	struct strategy_batch b = { 0 };
	struct buf w = BUF_INIT;
	struct sweep s;
	int j, k;

	(void)state;
	ctltest_sweep_text(&s, t);
	free(t);
	strategy_next(&s, &b);
	for (k = 0; k < 2; k++) {
		for (j = 0; j < 10; j++) {
			double z = (j + k) % 2 ? 1 : -1, u = (j / 2 + k) % 2 ? 1 : -1;

			ref[j] = 1000 * (1 + 0.08 * z);
			pt[j] = 1060 * (1 + 0.08 * u);
		}
		ctltest_passes(&s, 0, k, ref, 10);
		ctltest_passes(&s, 1, k, pt, 10);
	}
	verdict_sweep(&s);
	assert_int_equal(sweep_point_look(&s, 1), 8);
	/* The 95 % interval excludes 0; the 1 - 5 %/8 one the look decides on does not. */
	assert_true(s.points[1].ci_low_pct > 0);
	assert_true(s.points[1].fx.sig_low_pct < 0);
	assert_int_equal(s.points[1].verdict, EFFECT_INCONCLUSIVE);
	words_verdict(&s, &s.points[1], &w);
	assert_non_null(strstr(w.data, "(decided on the 99.4 % interval ["));
	assert_non_null(strstr(w.data, "] at look 8 of 8)"));
	buf_release(&w);
	strategy_batch_release(&b);
	sweep_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interval_at_a_look),
		cmocka_unit_test(test_no_best_lines),
		cmocka_unit_test(test_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
