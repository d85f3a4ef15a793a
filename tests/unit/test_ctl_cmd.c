/* test_ctl_cmd.c -- cmd.c: whether a stored sweep's or rollout's controller still runs: its pid
 * and its start time (a pid reused by another process is not it, issue 31 #15). */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "testutil.h"

static void test_owner_alive(void **state)
{
	int64_t me = pid_start_ticks((int)getpid());
	char host[64];
	pid_t child;

	(void)state;
	assert_true(me > 0);
	assert_int_equal(pid_start_ticks((int)getpid()), me); /* it does not move */
	assert_true(owner_alive((int)getpid(), me));
	assert_true(owner_alive((int)getpid(), 0)); /* not recorded: the pid alone */
	/* The same pid, another start time: the rollout's controller died and its pid was
	 * reused. */
	assert_false(owner_alive((int)getpid(), me + 1));
	child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	assert_int_equal(pid_start_ticks((int)child), 0);
	assert_false(owner_alive((int)child, 0));
	host_name(host, sizeof(host));
	assert_false(sweep_abandoned(host, "running", (int)getpid(), me, host, 0, 0));
	assert_true(sweep_abandoned(host, "running", (int)getpid(), me - 1, host, 0, 0));
	assert_false(sweep_abandoned(host, "completed", (int)child, 0, host, 0, 0));
	assert_true(sweep_abandoned(host, "running", (int)child, 0, host, 0, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_owner_alive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
