/* test_ctl_progress.c -- what a running sweep prints: a line per pass off a TTY, the live line
 * with its ETA on one. */
#include <stdbool.h>
#include <string.h>

#include "ctltest.h"
#include "model/sweep.h"
#include "render/progress.h"
#include "testutil.h"

static void test_progress(void **state)
{
	struct sweep s;
	struct buf out = BUF_INIT;
	int reported[2] = { 3, 5 };
	bool active[2] = { true, true };

	(void)state;
	ctltest_seed003(&s);
	progress_pass_lines(&s, 2, 4, reported, &out);
	assert_string_equal(out.data, "point 3/4 nr_requests=975 queue_depth=975: node1 pass 4/5 "
	                              "write.bw_mib 1408.2\n"
	                              "point 3/4 nr_requests=975 queue_depth=975: node1 pass 5/5 "
	                              "write.bw_mib 1467.4\n");
	buf_reset(&out);
	s.points[3].nodes[1].npasses = 0;
	/* The batch under way asks 5 loops of point 4; 2 have run; round 7 is under way. */
	s.points[3].loops_run = 2;
	s.points[3].loops_target = 5;
	progress_line(&s, 3, 4, 7, false, active, 754, 754, &out);
	assert_string_equal(out.data, "\r\033[Kpoint 4/4 [nr_requests=4000 queue_depth=975] loop "
	                              "2/5, round 7  node1 1902.3  node2 -  ETA 12m34s");
	buf_reset(&out);
	progress_line(&s, 3, 4, 1, true, active, 754, 754, &out);
	assert_non_null(
	        strstr(out.data, "[nr_requests=4000 queue_depth=975] warm-up loop, round 1 "));
	/* A pass of a sweep in rounds says its round. */
	buf_reset(&out);
	s.points[2].nodes[0].pass_round[3] = 4;
	progress_pass_lines(&s, 2, 4, reported, &out);
	assert_non_null(strstr(out.data, "node1 pass 4/5 (round 4) write.bw_mib 1408.2\n"));
	s.points[2].nodes[0].pass_round[3] = 0;
	/* adaptive: races end early, so the count is the most points the sweep can run. */
	s.plan.strategy = PLAN_ADAPTIVE;
	buf_reset(&out);
	progress_line(&s, 3, 4, 7, false, active, 754, 754, &out);
	assert_non_null(strstr(out.data, "\r\033[Kpoint 4 of at most 4 [nr_requests=4000"));
	buf_reset(&out);
	progress_pass_lines(&s, 2, 4, reported, &out);
	assert_non_null(strstr(out.data, "point 3 of at most 4 nr_requests=975 queue_depth=975: "
	                                 "node1 pass 4/5 "));
	buf_release(&out);
	sweep_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_progress),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
