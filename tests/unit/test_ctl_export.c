/* test_ctl_export.c -- a sweep's best configuration as a udev rule and a tuned profile. */
#include <errno.h>
#include <string.h>

#include "testutil.h"
#include "ctltest.h"
#include "export.h"
#include "sweep.h"

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
	ctltest_seed003(&s);
	assert_int_equal(export_render(&s, "udev", &b, &e), 0);
	assert_int_equal(count_of(b.data, "KERNEL==\"sda\""), 1);
	buf_reset(&b);
	assert_int_equal(export_render(&s, "tuned", &b, &e), 0);
	assert_int_equal(count_of(b.data, "/sys/block/sda/queue/nr_requests="), 1);
	assert_int_equal(export_render(&s, "ini", &b, &e), -EINVAL);
	buf_release(&b);
	sweep_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_export_one_rule_per_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
