/* test_httpd.c -- percent-decoding, the constant-time token compare, and strict number parsing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "httpd.h"
#include "num.h"

static void test_decode(void **state)
{
	char *s;

	s = http_decode("loop0", 5, false);
	assert_string_equal(s, "loop0");
	free(s);
	s = http_decode("..%2f..%2Fetc", 13, false);
	assert_string_equal(s, "../../etc"); /* decoded, then rejected by the router */
	free(s);
	s = http_decode("a+b%20c", 7, true);
	assert_string_equal(s, "a b c");
	free(s);
	s = http_decode("a+b", 3, false);
	assert_string_equal(s, "a+b");
	free(s);
	assert_null(http_decode("loop0%00x", 9, false)); /* NUL */
	assert_null(http_decode("%zz", 3, false));
	assert_null(http_decode("abc%2", 5, false));
	assert_null(http_decode("abc%", 4, false));
}

static void test_token_equal(void **state)
{
	assert_true(http_token_equal("abcdef0123", "abcdef0123"));
	assert_false(http_token_equal("abcdef0124", "abcdef0123"));
	assert_false(http_token_equal("abcdef012", "abcdef0123"));
	assert_false(http_token_equal("abcdef01234", "abcdef0123"));
	assert_false(http_token_equal("", "abcdef0123"));
}

static void test_num(void **state)
{
	int64_t v;
	uint64_t b;

	assert_int_equal(num_parse_i64("128", &v), 0);
	assert_int_equal(v, 128);
	assert_int_equal(num_parse_i64("-1", &v), 0);
	assert_int_equal(v, -1);
	assert_int_equal(num_parse_i64("0", &v), 0);
	assert_int_equal(num_parse_i64("010", &v), -EINVAL);
	assert_int_equal(num_parse_i64("-0", &v), -EINVAL);
	assert_int_equal(num_parse_i64("+1", &v), -EINVAL);
	assert_int_equal(num_parse_i64("1 ", &v), -EINVAL);
	assert_int_equal(num_parse_i64("0x10", &v), -EINVAL);
	assert_int_equal(num_parse_i64("99999999999999999999", &v), -ERANGE);
	assert_int_equal(num_parse_kernel_i64("256\n", &v), 0);
	assert_int_equal(v, 256);
	assert_int_equal(num_parse_kernel_i64("write back", &v), -EINVAL);
	assert_int_equal(num_parse_size("4M", &b), 0);
	assert_int_equal(b, 4ULL << 20);
	assert_int_equal(num_parse_size("2g", &b), 0);
	assert_int_equal(b, 2ULL << 30);
	assert_int_equal(num_parse_size("64KiB", &b), 0);
	assert_int_equal(b, 64ULL << 10);
	assert_int_equal(num_parse_size("512", &b), 0);
	assert_int_equal(b, 512);
	assert_int_equal(num_parse_size("4Q", &b), -EINVAL);
	assert_int_equal(num_parse_size("-4M", &b), -EINVAL);
	assert_int_equal(num_parse_size("99999999999t", &b), -ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_token_equal),
		cmocka_unit_test(test_num),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
