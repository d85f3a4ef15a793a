/* test_jread.c -- common/jread.c: each member type required or optional, present, absent or of
 * the wrong type, the errors naming the member's path with the reader's code, and the lenient
 * reads of a peer's answer. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jread.h"
#include "testutil.h"

static json_t *doc(void)
{
	json_t *o =
	        json_loads("{\"name\":\"db\",\"empty\":\"\",\"port\":8080,\"big\":70000,"
	                   "\"ratio\":0.5,\"three\":3.0,\"on\":true,\"obj\":{\"a\":{\"b\":\"c\"}},"
	                   "\"arr\":[1,2]}",
	                   0, NULL);

	assert_non_null(o);
	return o;
}

static void test_str(void **state)
{
	json_t *o = doc();
	struct err e = { 0 };
	const struct jread jr = { &e, ERR_INVALID_PLAN };
	const char *s = NULL;

	(void)state;
	assert_int_equal(jread_str(&jr, o, "", "name", JREAD_REQUIRED, &s), 1);
	assert_string_equal(s, "db");
	assert_int_equal(jread_str(&jr, o, "nodes[2]", "missing", 0, &s), 0);
	assert_string_equal(s, "db"); /* untouched */
	assert_int_equal(jread_str(&jr, o, "nodes[2]", "missing", JREAD_REQUIRED, &s), -EINVAL);
	assert_int_equal(e.code, ERR_INVALID_PLAN);
	assert_string_equal(e.msg, "nodes[2].missing: required field is missing");
	assert_int_equal(jread_str(&jr, o, "", "port", 0, &s), -EINVAL);
	assert_string_equal(e.msg, "port: expected a string");
	assert_int_equal(jread_str(&jr, o, "", "empty", 0, &s), 1);
	assert_string_equal(s, "");
	assert_int_equal(jread_str(&jr, o, "job", "empty", JREAD_NONEMPTY, &s), -EINVAL);
	assert_string_equal(e.msg, "job.empty: must not be empty");
	assert_int_equal(jread_str(&jr, NULL, "", "name", 0, &s), 0);
	json_decref(o);
}

static void test_int_num_bool(void **state)
{
	json_t *o = doc();
	struct err e = { 0 };
	const struct jread jr = { &e, ERR_BAD_REQUEST };
	json_int_t i = 0;
	double d = 0;
	bool b = false;

	(void)state;
	assert_int_equal(jread_int(&jr, o, "", "port", 0, 1, 65535, &i), 1);
	assert_int_equal(i, 8080);
	assert_int_equal(jread_int(&jr, o, "", "big", 0, 1, 65535, &i), -EINVAL);
	assert_int_equal(e.code, ERR_BAD_REQUEST);
	assert_string_equal(e.msg, "big: expected an integer 1..65535");
	assert_int_equal(jread_int(&jr, o, "x", "three", 0, LLONG_MIN, LLONG_MAX, &i), -EINVAL);
	assert_string_equal(e.msg, "x.three: expected an integer");
	assert_int_equal(jread_int(&jr, o, "", "absent", 0, 1, 2, &i), 0);
	assert_int_equal(jread_num(&jr, o, "", "ratio", JREAD_REQUIRED, &d), 1);
	assert_true(d == 0.5);
	assert_int_equal(jread_num(&jr, o, "", "port", 0, &d), 1); /* an integer is a number */
	assert_true(d == 8080);
	assert_int_equal(jread_num(&jr, o, "", "name", 0, &d), -EINVAL);
	assert_string_equal(e.msg, "name: expected a number");
	assert_int_equal(jread_bool(&jr, o, "", "on", 0, &b), 1);
	assert_true(b);
	assert_int_equal(jread_bool(&jr, o, "", "port", 0, &b), -EINVAL);
	assert_string_equal(e.msg, "port: expected true or false");
	json_decref(o);
}

static void test_obj_arr_and_lenient(void **state)
{
	json_t *o = doc(), *v = NULL;
	struct err e = { 0 };
	const struct jread jr = { &e, ERR_BAD_REQUEST };

	(void)state;
	assert_int_equal(jread_obj(&jr, o, "", "obj", 0, &v), 1);
	assert_true(json_is_object(v));
	assert_int_equal(jread_obj(&jr, o, "", "arr", 0, &v), -EINVAL);
	assert_string_equal(e.msg, "arr: expected an object");
	assert_int_equal(jread_arr(&jr, o, "", "arr", 0, &v), 1);
	assert_int_equal(json_array_size(v), 2);
	assert_int_equal(jread_arr(&jr, o, "", "obj", JREAD_REQUIRED, &v), -EINVAL);
	assert_string_equal(e.msg, "obj: expected an array");
	assert_int_equal(jread_arr(NULL, o, "", "none", 0, &v), 0);
	assert_string_equal(jread_text(o, "name"), "db");
	assert_string_equal(jread_text(o, "port"), "");
	assert_string_equal(jread_text(NULL, "name"), "");
	assert_string_equal(json_string_value(jread_at(o, "obj.a.b")), "c");
	assert_null(jread_at(o, "obj.x.b"));
	assert_null(jread_at(NULL, "obj"));
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_str),
		cmocka_unit_test(test_int_num_bool),
		cmocka_unit_test(test_obj_arr_and_lenient),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
