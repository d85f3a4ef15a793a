/* test_statelock.c -- one holder per state directory: a second taker (another open file
 * description, as another process would have) is refused with the directory and the holder's
 * pid; released, the lock can be taken again; a lock file that is a link is refused. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "state/statelock.h"
#include "testutil.h"

static void test_one_holder(void **state)
{
	struct statelock a = { 0 }, b = { 0 };
	char *dir = tu_tmpdir(), want[128];
	struct err e;

	(void)state;
	statelock_release(&a); /* zeroed: nothing to release (fd 0 stays open) */
	err_clear(&e);
	assert_int_equal(statelock_take(&a, dir, &e), 0);
	assert_true(a.taken);
	assert_int_equal(statelock_holder(dir), getpid());
	err_clear(&e);
	assert_int_equal(statelock_take(&b, dir, &e), -EBUSY);
	assert_false(b.taken);
	assert_int_equal(e.code, ERR_STATE_DIR_IN_USE);
	assert_non_null(strstr(e.msg, dir));
	snprintf(want, sizeof(want), "(pid %d holds", (int)getpid());
	assert_non_null(strstr(e.msg, want));
	statelock_release(&a);
	assert_false(a.taken);
	assert_int_equal(statelock_take(&b, dir, &e), 0);
	statelock_release(&b);
	statelock_release(&b); /* twice is fine */
	tu_rmrf(dir);
	free(dir);
}

static void test_link_refused(void **state)
{
	struct statelock a = { 0 };
	char *dir = tu_tmpdir();
	struct err e;

	(void)state;
	tu_write(dir, "elsewhere", "", 0600);
	tu_link(dir, "lock", "elsewhere");
	err_clear(&e);
	assert_int_not_equal(statelock_take(&a, dir, &e), 0);
	assert_false(a.taken);
	assert_non_null(strstr(e.msg, "lock"));
	assert_string_equal(tu_read(dir, "elsewhere"), "");
	tu_rmrf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_holder),
		cmocka_unit_test(test_link_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
