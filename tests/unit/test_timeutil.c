/* test_timeutil.c -- ISO-8601 parsing refuses times that do not exist (issue 23 item 15). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "timeutil.h"

static void test_iso_real_times(void **state)
{
	double t = 0;

	(void)state;
	assert_int_equal(time_parse_iso("2026-11-29T23:03:36Z", &t), 0);
	assert_true(t == 1795993416.0);
	assert_int_equal(time_parse_iso("2024-02-29T00:00:00Z", &t), 0); /* a leap year */
	assert_int_equal(time_parse_iso("2026-11-29T23:03:36.250", &t), 0);
	assert_true(t == 1795993416.25);
	assert_int_equal(time_parse_date("2026-11-29", &t), 0);
	assert_true(t == 1795910400.0);
	assert_int_equal(time_parse_date("2026-11-29T23:03:36Z", &t), 0);
}

static void test_iso_refuses_what_does_not_exist(void **state)
{
	static const char *const bad[] = {
		"2026-02-30T00:00:00Z",
		"2026-02-29T00:00:00Z",
		"2026-04-31T00:00:00Z",
		"2026-13-01T00:00:00Z",
		"2026-00-10T00:00:00Z",
		"2026-11-29T24:00:00Z",
		"2026-11-29T23:60:00Z",
		"2026-11-29T23:59:60Z",
		"2026-11-29T23:03:36Zx",
		"2026-11-29",
		"",
	};
	static const char *const bad_dates[] = { "2026-02-30", "2026-02-29",  "2026-04-31",
		                                 "2026-13-01", "2026-11-29x", "2026-11" };
	double t = 0;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_not_equal(time_parse_iso(bad[i], &t), 0);
	for (i = 0; i < sizeof(bad_dates) / sizeof(bad_dates[0]); i++)
		assert_int_not_equal(time_parse_date(bad_dates[i], &t), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iso_real_times),
		cmocka_unit_test(test_iso_refuses_what_does_not_exist),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
