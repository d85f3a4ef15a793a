/* test_jsonstream.c -- jsonstream.c: objects and arrays walked member by member, skipped
 * values' spans (strings with brackets and escaped quotes, nesting), and every error with the
 * line and column it stands at. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "jsonstream.h"
#include "testutil.h"

/* The text of span [start, end) of s, as a new string. */
static char *span(const char *s, size_t start, size_t end)
{
	char *t = malloc(end - start + 1);

	memcpy(t, s + start, end - start);
	t[end - start] = '\0';
	return t;
}

static void assert_span(const char *s, size_t start, size_t end, const char *want)
{
	char *t = span(s, start, end);

	assert_string_equal(t, want);
	free(t);
}

/* An object's members: keys as quoted strings, values as spans, nested containers skipped
 * whole (brackets inside strings and escaped quotes do not count). */
static void test_members(void **state)
{
	const char *doc =
	        " {\"a\": 1, \"b\\\"c\" : \"x]}\\\"y\",\n \"d\": {\"e\": [1, {\"f\": \"}\"}]},"
	        " \"g\": [ ] , \"h\":-2.5e3,\"i\":null } ";
	const char *keys[] = { "\"a\"", "\"b\\\"c\"", "\"d\"", "\"g\"", "\"h\"", "\"i\"" };
	const char *vals[] = { "1",   "\"x]}\\\"y\"", "{\"e\": [1, {\"f\": \"}\"}]}",
		               "[ ]", "-2.5e3",       "null" };
	struct jsonstream js;
	struct err e = { 0 };
	size_t n = 0, ks, ke, vs, ve;
	int i = 0, rc;

	(void)state;
	jsonstream_init(&js, doc, strlen(doc));
	assert_int_equal(jsonstream_enter(&js, '{', &e), 0);
	while ((rc = jsonstream_member(&js, &n, &ks, &ke, &e)) > 0) {
		assert_true(i < 6);
		assert_span(doc, ks, ke, keys[i]);
		assert_int_equal(jsonstream_skip(&js, &vs, &ve, &e), 0);
		assert_span(doc, vs, ve, vals[i]);
		i++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(i, 6);
	assert_int_equal((int)n, 6);
	assert_int_equal(jsonstream_end(&js, &e), 0);
}

/* An array's elements, walked; an empty one has none. */
static void test_elements(void **state)
{
	const char *doc = "[{\"x\": [1,2]}, \"s\", 3 ,[]]", *empty = " [ ] ";
	const char *vals[] = { "{\"x\": [1,2]}", "\"s\"", "3", "[]" };
	struct jsonstream js;
	struct err e = { 0 };
	size_t n = 0, vs, ve;
	int i = 0, rc;

	(void)state;
	jsonstream_init(&js, doc, strlen(doc));
	assert_int_equal(jsonstream_enter(&js, '[', &e), 0);
	while ((rc = jsonstream_element(&js, &n, &e)) > 0) {
		assert_int_equal(jsonstream_skip(&js, &vs, &ve, &e), 0);
		assert_span(doc, vs, ve, vals[i++]);
	}
	assert_int_equal(rc, 0);
	assert_int_equal(i, 4);
	assert_int_equal(jsonstream_end(&js, &e), 0);
	n = 0;
	jsonstream_init(&js, empty, strlen(empty));
	assert_int_equal(jsonstream_enter(&js, '[', &e), 0);
	assert_int_equal(jsonstream_element(&js, &n, &e), 0);
	assert_int_equal((int)n, 0);
	assert_int_equal(jsonstream_end(&js, &e), 0);
}

/* Walk doc as an object whose values are skipped; expect the error msg. */
static void refused(const char *doc, const char *msg)
{
	struct jsonstream js;
	struct err e = { 0 };
	size_t n = 0, ks, ke, vs, ve;
	int rc;

	jsonstream_init(&js, doc, strlen(doc));
	rc = jsonstream_enter(&js, '{', &e);
	while (rc == 0 && (rc = jsonstream_member(&js, &n, &ks, &ke, &e)) > 0)
		rc = jsonstream_skip(&js, &vs, &ve, &e);
	if (rc == 0)
		rc = jsonstream_end(&js, &e);
	assert_int_equal(rc, -EINVAL);
	assert_int_equal(e.code, ERR_INVALID_JSON);
	assert_string_equal(e.msg, msg);
}

static void test_errors(void **state)
{
	char *deep = malloc(JSONSTREAM_DEPTH_MAX + 16);

	(void)state;
	refused("[]", "line 1, column 1: expected '{'");
	refused("{\"a\": 1\n \"b\": 2}", "line 2, column 2: expected ',' or '}'");
	refused("{\"a\" 1}", "line 1, column 6: expected ':'");
	refused("{\"a\": 1,}", "line 1, column 9: expected a string (an object's key)");
	refused("{\"a\": \"open}", "line 1, column 7: unterminated string");
	refused("{\"a\": [1, 2}", "line 1, column 12: unexpected bracket");
	refused("{\"a\": [1, [2]", "line 1, column 7: unterminated object or array");
	refused("{\"a\": }", "line 1, column 7: expected a value");
	refused("{\"a\":", "line 1, column 6: expected a value");
	refused("{\"a\": 1} x", "line 1, column 10: end of file expected");
	refused("{\"a\": 1", "line 1, column 8: expected ',' or '}'");
	/* Nesting deeper than jansson's limit. */
	memcpy(deep, "{\"a\": ", 6);
	memset(deep + 6, '[', JSONSTREAM_DEPTH_MAX + 1);
	deep[6 + JSONSTREAM_DEPTH_MAX + 1] = '\0';
	refused(deep, "line 1, column 2055: nested too deep");
	free(deep);
}

/* Lines and columns count from 1, bytes from the line's start. */
static void test_where(void **state)
{
	const char *doc = "ab\ncd\n\nef";
	struct jsonstream js;
	int line, column;

	(void)state;
	jsonstream_init(&js, doc, strlen(doc));
	jsonstream_where(&js, 0, &line, &column);
	assert_int_equal(line, 1);
	assert_int_equal(column, 1);
	jsonstream_where(&js, 4, &line, &column);
	assert_int_equal(line, 2);
	assert_int_equal(column, 2);
	jsonstream_where(&js, 7, &line, &column);
	assert_int_equal(line, 4);
	assert_int_equal(column, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_members),
		cmocka_unit_test(test_elements),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_where),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
