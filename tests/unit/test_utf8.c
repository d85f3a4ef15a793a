/* test_utf8.c -- utf8.c: cuts on character boundaries, bad bytes escaped, and err_set's messages
 * always valid UTF-8 (what jansson accepts) however the input was cut. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "testutil.h"
#include "utf8.h"

/* jansson is the judge: a string it refuses would make an empty JSON body. */
static void assert_json_ok(const char *s)
{
	json_t *j = json_string(s);

	if (!j)
		fail_msg("not valid UTF-8 for JSON: '%s'", s);
	json_decref(j);
}

static void test_cut(void **state)
{
	const char *e40 = "a\xc3\xa9\xc3\xa9\xc3\xa9"; /* a é é é: 7 bytes */

	(void)state;
	assert_int_equal(utf8_cut("abcdef", 4), 4);
	assert_int_equal(utf8_cut("abc", 64), 3);
	assert_int_equal(utf8_cut(e40, 7), 7);
	assert_int_equal(utf8_cut(e40, 6), 5); /* not inside the third é */
	assert_int_equal(utf8_cut(e40, 2), 1);
	assert_int_equal(utf8_cut("\xe2\x82\xac", 2), 0); /* € is 3 bytes */
	assert_int_equal(utf8_cut("\xf0\x9f\x98\x80x", 4), 4);
	/* Bytes that are not UTF-8 count one each: they are escaped later. */
	assert_int_equal(utf8_cut("\xff\xfe\xfd", 2), 2);
	assert_int_equal(utf8_cut("\xc3", 8), 1);
	assert_int_equal(utf8_cut("", 8), 0);
}

static void test_clean(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(utf8_clean(out, sizeof(out), "plain"), 5);
	assert_string_equal(out, "plain");
	utf8_clean(out, sizeof(out), "caf\xc3\xa9");
	assert_string_equal(out, "caf\xc3\xa9");
	utf8_clean(out, sizeof(out), "x\xffy");
	assert_string_equal(out, "x\\xffy");
	/* A cut character, a lone continuation byte, an overlong '/', a surrogate, > U+10FFFF. */
	utf8_clean(out, sizeof(out), "'\xc3'");
	assert_string_equal(out, "'\\xc3'");
	utf8_clean(out, sizeof(out), "\xa9");
	assert_string_equal(out, "\\xa9");
	utf8_clean(out, sizeof(out), "\xc0\xaf");
	assert_string_equal(out, "\\xc0\\xaf");
	utf8_clean(out, sizeof(out), "\xed\xa0\x80");
	assert_string_equal(out, "\\xed\\xa0\\x80");
	utf8_clean(out, sizeof(out), "\xf4\x90\x80\x80");
	assert_string_equal(out, "\\xf4\\x90\\x80\\x80");
	/* Control characters too: a message is one line. */
	utf8_clean(out, sizeof(out), "a\nb\tc");
	assert_string_equal(out, "a\\x0ab\\x09c");
	/* Room runs out before a whole character or escape: stop before it. */
	assert_int_equal(utf8_clean(out, 4, "ab\xc3\xa9"), 2);
	assert_string_equal(out, "ab");
	assert_int_equal(utf8_clean(out, 5, "a\xff"), 1);
	assert_string_equal(out, "a");
	assert_int_equal(utf8_clean(out, 1, "abc"), 0);
	assert_string_equal(out, "");
	assert_int_equal(utf8_clean(out, 0, "abc"), 0);
	/* ESC, the C1 CSI (U+009B) and the bidi override U+202E that a hostile agent sends
	 * (issue 31 #5), the other overrides, isolates and marks, and the line separators: never
	 * themselves. What is near them (U+00A0, U+2010, U+2070) stays. */
	utf8_clean(out, sizeof(out), "a\x1b[2Jb");
	assert_string_equal(out, "a\\x1b[2Jb");
	utf8_clean(out, sizeof(out),
	           "\xc2\x9b"
	           "31m");
	assert_string_equal(out, "\\u009b31m");
	utf8_clean(out, sizeof(out),
	           "x\xe2\x80\xae"
	           "evil");
	assert_string_equal(out, "x\\u202eevil");
	utf8_clean(out, sizeof(out), "\xc2\x80\xc2\x9f\xd8\x9c\xe2\x80\x8e\xe2\x80\x8f");
	assert_string_equal(out, "\\u0080\\u009f\\u061c\\u200e\\u200f");
	utf8_clean(out, sizeof(out), "\xe2\x80\xa8\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9");
	assert_string_equal(out, "\\u2028\\u202a\\u2066\\u2069");
	utf8_clean(out, sizeof(out), "\xc2\xa0\xe2\x80\x90\xe2\x81\xb0");
	assert_string_equal(out, "\xc2\xa0\xe2\x80\x90\xe2\x81\xb0");
	assert_int_equal(utf8_clean(out, 7, "a\xe2\x80\xae"), 1); /* the escape is 6 bytes */
	assert_true(utf8_is_clean("plain caf\xc3\xa9 \xe2\x86\x92"));
	assert_false(utf8_is_clean("a\x1b"));
	assert_false(utf8_is_clean("\xc2\x9b"));
	assert_false(utf8_is_clean("\xe2\x81\xa7"));
	assert_false(utf8_is_clean("\xff"));
	{
		char *d = utf8_clean_dup("\x1b\x1b\xe2\x80\xae");

		assert_string_equal(d, "\\x1b\\x1b\\u202e");
		free(d);
	}
}

static void test_err_set(void **state)
{
	char name[128];
	struct err e;
	int i;

	(void)state;
	/* The cases: a 40 x "é" name after one ASCII byte, cut at 64 bytes by "%.64s", and
	 * a path segment %ff. Both make valid UTF-8 messages now. */
	name[0] = 'a';
	for (i = 0; i < 40; i++)
		memcpy(name + 1 + 2 * i, "\xc3\xa9", 2);
	name[81] = '\0';
	err_set(&e, -ENOENT, ERR_UNKNOWN_PARAM, "no parameter '%.64s' on 'loop0'", name);
	assert_json_ok(e.msg);
	assert_non_null(strstr(e.msg, "\\xc3' on 'loop0'")); /* the cut half, escaped */
	err_set(&e, -ENOENT, ERR_UNKNOWN_PARAM, "no parameter '%.*s' on 'loop0'",
	        utf8_cut(name, 64), name);
	assert_json_ok(e.msg);
	assert_null(strstr(e.msg, "\\x"));
	assert_int_equal(strlen(e.msg), strlen("no parameter '' on 'loop0'") + 63);
	err_set(&e, -ENOENT, ERR_NOT_FOUND, "no session '%s'", "\xff");
	assert_string_equal(e.msg, "no session '\\xff'");
	assert_int_equal(e.code, ERR_NOT_FOUND);
	/* A message longer than the buffer ends on a whole character. */
	{
		char long_name[600];

		for (i = 0; i < 299; i++)
			memcpy(long_name + 2 * i, "\xc3\xa9", 2);
		long_name[598] = '\0';
		err_set(&e, -EINVAL, ERR_BAD_REQUEST, "x%s", long_name);
		assert_json_ok(e.msg);
		assert_true(strlen(e.msg) < sizeof(e.msg));
	}
	/* err_set may be handed its own code and message (appending to an error). */
	err_set(&e, -EIO, ERR_KERNEL_REJECTED, "first");
	err_set(&e, -EIO, e.code, "%s; rollback failed: %s", e.msg, "second");
	assert_int_equal(e.code, ERR_KERNEL_REJECTED);
	assert_string_equal(e.msg, "first; rollback failed: second");
}

/* Free text that is plain: no control character of any kind, no bidirectional override. */
static void test_control_at(void **state)
{
	(void)state;
	assert_int_equal(utf8_control_at(""), -1);
	assert_int_equal(utf8_control_at("strip 256k, caf\xc3\xa9 \xe2\x82\xac"), -1);
	assert_int_equal(utf8_control_at("a\nb"), 1);
	assert_int_equal(utf8_control_at("tab\there"), 3);
	assert_int_equal(utf8_control_at("x\x1b[2J"), 1);
	assert_int_equal(utf8_control_at("del\x7f"), 3);
	assert_int_equal(utf8_control_at("c1 \xc2\x9b"
	                                 "31m"),
	                 3); /* U+009B CSI */
	assert_int_equal(utf8_control_at("\xc2\xa0"
	                                 "nbsp"),
	                 -1);                                     /* U+00A0 is text */
	assert_int_equal(utf8_control_at("rtl \xe2\x80\xae"), 4); /* U+202E */
	assert_int_equal(utf8_control_at("iso \xe2\x81\xa6"
	                                 "x"),
	                 4);                                      /* U+2066 */
	assert_int_equal(utf8_control_at("lrm \xe2\x80\x8e"), 4); /* U+200E */
	assert_int_equal(utf8_control_at("bad \xff"), 4);         /* not UTF-8 */
	assert_int_equal(utf8_control_at("cut \xe2\x82"), 4);     /* a cut character */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_control_at),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_err_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
