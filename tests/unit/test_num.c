/* test_num.c -- the strict number parsers every request and every sysfs read goes through:
 * each form num.c accepts, and each it refuses, with the error it gives. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "num.h"
#include "testutil.h"

struct int_case {
	const char *s;
	int rc;      /* 0, -EINVAL or -ERANGE */
	int64_t out; /* when rc is 0 */
};

/* Plain decimal: what the API takes for an integer in a query or a value written to the
 * kernel (mq-deadline parses base 0, so "010" would be octal). */
static const struct int_case plain[] = {
	{ "0", 0, 0 },
	{ "7", 0, 7 },
	{ "-1", 0, -1 },
	{ "128", 0, 128 },
	{ "1000000", 0, 1000000 },
	{ "9223372036854775807", 0, INT64_MAX },
	{ "-9223372036854775808", 0, INT64_MIN },
	{ "9223372036854775808", -ERANGE, 0 },
	{ "-9223372036854775809", -ERANGE, 0 },
	{ "99999999999999999999999", -ERANGE, 0 },
	{ "", -EINVAL, 0 },
	{ "-", -EINVAL, 0 },
	{ "+1", -EINVAL, 0 },
	{ "01", -EINVAL, 0 }, /* a leading zero: octal to the kernel */
	{ "010", -EINVAL, 0 },
	{ "00", -EINVAL, 0 },
	{ "-0", -EINVAL, 0 },
	{ "-01", -EINVAL, 0 },
	{ " 1", -EINVAL, 0 },
	{ "1 ", -EINVAL, 0 },
	{ "1\n", -EINVAL, 0 }, /* a sysfs line: num_parse_kernel_i64's, not this one's */
	{ "\t1", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },
	{ "1e3", -EINVAL, 0 },
	{ "1.0", -EINVAL, 0 },
	{ "1,000", -EINVAL, 0 },
	{ "12a", -EINVAL, 0 },
	{ "--1", -EINVAL, 0 },
	{ "1-", -EINVAL, 0 },
	{ "\xef\xbc\x91", -EINVAL, 0 }, /* U+FF11 FULLWIDTH DIGIT ONE */
	{ "\xd9\xa1", -EINVAL, 0 },     /* U+0661 ARABIC-INDIC DIGIT ONE */
};

/* What the kernel prints: leading zeros and one trailing newline are fine. */
static const struct int_case kernel[] = {
	{ "0", 0, 0 },
	{ "64", 0, 64 },
	{ "64\n", 0, 64 },
	{ "0064", 0, 64 }, /* decimal, never octal */
	{ "010\n", 0, 10 },
	{ "-1", 0, -1 },
	{ "-1\n", 0, -1 },
	{ "-0", 0, 0 },
	{ "9223372036854775807\n", 0, INT64_MAX },
	{ "-9223372036854775808", 0, INT64_MIN },
	{ "9223372036854775808", -ERANGE, 0 },
	{ "-9223372036854775809\n", -ERANGE, 0 },
	{ "", -EINVAL, 0 },
	{ "\n", -EINVAL, 0 },
	{ "-", -EINVAL, 0 },
	{ "-\n", -EINVAL, 0 },
	{ "+1", -EINVAL, 0 },
	{ " 1", -EINVAL, 0 },
	{ "1 ", -EINVAL, 0 },
	{ "1 \n", -EINVAL, 0 },
	{ "1\n\n", -EINVAL, 0 },
	{ "1\r\n", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },
	{ "none", -EINVAL, 0 }, /* e.g. a file that prints "none" */
	{ "[mq-deadline] none", -EINVAL, 0 },
	{ "1.5", -EINVAL, 0 },
	{ "128k", -EINVAL, 0 },
	{ "- 1", -EINVAL, 0 },
};

static void check_ints(const struct int_case *c, size_t n, int (*parse)(const char *, int64_t *),
                       const char *what)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int64_t out = 12345;
		int rc = parse(c[i].s, &out);

		if (rc != c[i].rc)
			fail_msg("%s(\"%s\"): rc %d, want %d", what, c[i].s, rc, c[i].rc);
		if (rc == 0 && out != c[i].out)
			fail_msg("%s(\"%s\"): %lld, want %lld", what, c[i].s, (long long)out,
			         (long long)c[i].out);
		if (rc != 0 && out != 12345)
			fail_msg("%s(\"%s\"): refused but wrote its output", what, c[i].s);
	}
}

static void test_parse_i64(void **state)
{
	int64_t out;

	(void)state;
	check_ints(plain, sizeof(plain) / sizeof(plain[0]), num_parse_i64, "num_parse_i64");
	assert_int_equal(num_parse_i64(NULL, &out), -EINVAL);
}

static void test_is_plain_int(void **state)
{
	size_t i;

	(void)state;
	/* The syntax num_parse_i64 accepts; out of range is still plain decimal. */
	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (num_is_plain_int(plain[i].s) != (plain[i].rc != -EINVAL))
			fail_msg("num_is_plain_int(\"%s\"): %d", plain[i].s,
			         num_is_plain_int(plain[i].s));
	assert_false(num_is_plain_int(NULL));
}

static void test_parse_kernel_i64(void **state)
{
	int64_t out;

	(void)state;
	check_ints(kernel, sizeof(kernel) / sizeof(kernel[0]), num_parse_kernel_i64,
	           "num_parse_kernel_i64");
	assert_int_equal(num_parse_kernel_i64(NULL, &out), -EINVAL);
	/* Every plain integer is one the kernel could print. */
	check_ints(plain, 10, num_parse_kernel_i64, "num_parse_kernel_i64");
}

struct size_case {
	const char *s;
	int rc;
	uint64_t bytes;
};

static void test_parse_size(void **state)
{
	static const struct size_case c[] = {
		{ "0", 0, 0 },
		{ "512", 0, 512 },
		{ "4097", 0, 4097 },
		{ "4k", 0, 4096 },
		{ "4K", 0, 4096 },
		{ "4kb", 0, 4096 },
		{ "4KB", 0, 4096 },
		{ "4kib", 0, 4096 },
		{ "4KiB", 0, 4096 },
		{ "1m", 0, 1ULL << 20 },
		{ "64M", 0, 64ULL << 20 },
		{ "1MiB", 0, 1ULL << 20 },
		{ "2g", 0, 2ULL << 30 },
		{ "2G", 0, 2ULL << 30 },
		{ "1t", 0, 1ULL << 40 },
		{ "1TB", 0, 1ULL << 40 },
		{ "0k", 0, 0 },
		{ "007", 0, 7 }, /* sizes are decimal; a leading zero is not octal here */
		{ "16777215t", 0, 16777215ULL << 40 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "16777216t", -ERANGE, 0 },    /* 2^64 bytes */
		{ "17179869184g", -ERANGE, 0 }, /* 2^64 bytes */
		{ "18446744073709551616", -ERANGE, 0 },
		{ "", -EINVAL, 0 },
		{ "k", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "-4k", -EINVAL, 0 },
		{ "+4k", -EINVAL, 0 },
		{ " 4k", -EINVAL, 0 },
		{ "4 k", -EINVAL, 0 },
		{ "4k ", -EINVAL, 0 },
		{ "4kk", -EINVAL, 0 },
		{ "4kx", -EINVAL, 0 },
		{ "4kibx", -EINVAL, 0 },
		{ "4b", -EINVAL, 0 }, /* a suffix b or ib only after a unit */
		{ "4ib", -EINVAL, 0 },
		{ "4p", -EINVAL, 0 },
		{ "4e", -EINVAL, 0 },
		{ "1.5M", -EINVAL, 0 },
		{ "0x10", -EINVAL, 0 },
		{ "4\n", -EINVAL, 0 },
	};
	uint64_t bytes;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int rc;

		bytes = 12345;
		rc = num_parse_size(c[i].s, &bytes);
		if (rc != c[i].rc)
			fail_msg("num_parse_size(\"%s\"): rc %d, want %d", c[i].s, rc, c[i].rc);
		if (rc == 0 && bytes != c[i].bytes)
			fail_msg("num_parse_size(\"%s\"): %llu, want %llu", c[i].s,
			         (unsigned long long)bytes, (unsigned long long)c[i].bytes);
		if (rc != 0 && bytes != 12345)
			fail_msg("num_parse_size(\"%s\"): refused but wrote its output", c[i].s);
	}
	assert_int_equal(num_parse_size(NULL, &bytes), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_i64),
		cmocka_unit_test(test_is_plain_int),
		cmocka_unit_test(test_parse_kernel_i64),
		cmocka_unit_test(test_parse_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
