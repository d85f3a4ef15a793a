/* test_params_cache.c -- the GET params body cache: a hit only for the same device, the same
 * tune generation and within the ttl; off at ttl 0; slots reused round-robin; copies given
 * out, so a caller's free or a later put never changes what another holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/params_cache.h"
#include "testutil.h"

static void test_hit_and_miss(void **state)
{
	struct params_cache c;
	char *body;

	(void)state;
	params_cache_init(&c, 100);
	assert_null(params_cache_get(&c, "loop0", 1, 10.0)); /* nothing kept yet */
	params_cache_put(&c, "loop0", 1, 10.0, "{\"device\":\"loop0\"}");
	body = params_cache_get(&c, "loop0", 1, 10.05);
	assert_non_null(body);
	assert_string_equal(body, "{\"device\":\"loop0\"}");
	free(body);
	/* Another device, another generation (the agent wrote), or the ttl passed: a miss. */
	assert_null(params_cache_get(&c, "loop1", 1, 10.05));
	assert_null(params_cache_get(&c, "loop", 1, 10.05));
	assert_null(params_cache_get(&c, "loop0", 2, 10.05));
	assert_null(params_cache_get(&c, "loop0", 1, 10.125)); /* older than the ttl */
	assert_null(params_cache_get(&c, "loop0", 1, 11.0));
	/* A put for the same device replaces its body in its slot. */
	params_cache_put(&c, "loop0", 2, 20.0, "{\"v\":2}");
	assert_null(params_cache_get(&c, "loop0", 1, 20.0));
	body = params_cache_get(&c, "loop0", 2, 20.0);
	assert_string_equal(body, "{\"v\":2}");
	free(body);
	params_cache_release(&c);
}

static void test_off(void **state)
{
	struct params_cache c;

	(void)state;
	params_cache_init(&c, 0);
	params_cache_put(&c, "loop0", 1, 10.0, "{}");
	assert_null(params_cache_get(&c, "loop0", 1, 10.0));
	params_cache_release(&c);
}

/* Copies both ways: what the cache gives out is the caller's, what it keeps is its own. */
static void test_copies(void **state)
{
	struct params_cache c;
	char src[32], *a, *b;

	(void)state;
	params_cache_init(&c, 1000);
	snprintf(src, sizeof(src), "{\"a\":1}");
	params_cache_put(&c, "loop0", 7, 1.0, src);
	src[2] = 'X'; /* the caller's buffer changes after the put */
	a = params_cache_get(&c, "loop0", 7, 1.5);
	b = params_cache_get(&c, "loop0", 7, 1.5);
	assert_string_equal(a, "{\"a\":1}");
	assert_ptr_not_equal(a, b);
	a[0] = '!';
	free(a);
	assert_string_equal(b, "{\"a\":1}");
	free(b);
	params_cache_release(&c);
}

/* More devices than slots: the oldest slot goes first, the newest stay. */
static void test_round_robin(void **state)
{
	struct params_cache c;
	char dev[16], body[32], *got;
	int i;

	(void)state;
	params_cache_init(&c, 1000);
	for (i = 0; i < PARAMS_CACHE_SLOTS + 3; i++) {
		snprintf(dev, sizeof(dev), "loop%d", i);
		snprintf(body, sizeof(body), "{\"n\":%d}", i);
		params_cache_put(&c, dev, 1, 5.0, body);
	}
	for (i = 0; i < PARAMS_CACHE_SLOTS + 3; i++) {
		snprintf(dev, sizeof(dev), "loop%d", i);
		snprintf(body, sizeof(body), "{\"n\":%d}", i);
		got = params_cache_get(&c, dev, 1, 5.5);
		if (i < 3) {
			assert_null(got); /* pushed out by loop16, loop17, loop18 */
		} else {
			assert_non_null(got);
			assert_string_equal(got, body);
		}
		free(got);
	}
	params_cache_release(&c);
}

/* A device name longer than a slot's (the API refuses any over 63 bytes first) is kept cut to 63
 * bytes: the long name itself never hits. */
static void test_long_name(void **state)
{
	struct params_cache c;
	char longname[100];

	(void)state;
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	params_cache_init(&c, 1000);
	params_cache_put(&c, longname, 1, 1.0, "{}");
	assert_null(params_cache_get(&c, longname, 1, 1.0));
	longname[63] = '\0';
	{
		char *got = params_cache_get(&c, longname, 1, 1.0); /* the name the slot holds */

		assert_non_null(got);
		free(got);
	}
	params_cache_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hit_and_miss), cmocka_unit_test(test_off),
		cmocka_unit_test(test_copies),       cmocka_unit_test(test_round_robin),
		cmocka_unit_test(test_long_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
