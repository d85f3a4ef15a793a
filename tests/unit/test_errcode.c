/* test_errcode.c -- errcode.c and err.c: every code one distinct wire word and a status, the
 * agent's statuses as they were, docs/api.md and schema/openapi.yaml naming only table codes. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "errcode.h"
#include "testutil.h"

#define SRC_DIR FT_FIXTURES "/../.."

/* A word as schema/openapi.yaml's ErrorBody.code pattern takes it: ^[a-z][a-z_]*$. */
static int word_ok(const char *w)
{
	size_t i;

	if (!w[0] || !islower((unsigned char)w[0]))
		return 0;
	for (i = 1; w[i]; i++)
		if (!islower((unsigned char)w[i]) && w[i] != '_')
			return 0;
	return 1;
}

static void test_words_distinct(void **state)
{
	int c, d;

	(void)state;
	assert_string_equal(err_code_name(ERR_NONE), "");
	for (c = ERR_NONE + 1; c < ERR_CODE_N; c++) {
		const char *w = err_code_name((enum err_code)c);
		int st = err_code_status((enum err_code)c);

		if (!word_ok(w))
			fail_msg("code %d: word '%s' is not snake_case", c, w);
		if (st < 400 || st > 599)
			fail_msg("%s: status %d is not an error status", w, st);
		assert_int_equal(err_code_parse(w), c);
		for (d = c + 1; d < ERR_CODE_N; d++)
			if (!strcmp(w, err_code_name((enum err_code)d)))
				fail_msg("codes %d and %d share the word '%s'", c, d, w);
	}
}

/* The statuses api.c's own table gave before the table moved to common/: the wire stays. */
static void test_agent_statuses_kept(void **state)
{
	static const struct {
		const char *word;
		int status;
	} was[] = {
		{ "bad_request", 400 },
		{ "bad_json", 400 },
		{ "unknown_query_param", 400 },
		{ "unauthorized", 401 },
		{ "forbidden", 403 },
		{ "read_only", 403 },
		{ "device_not_allowed", 403 },
		{ "dir_not_allowed", 403 },
		{ "not_found", 404 },
		{ "unknown_param", 404 },
		{ "unknown_sysctl", 404 },
		{ "method_not_allowed", 405 },
		{ "conflict", 409 },
		{ "yielded", 409 },
		{ "device_busy", 409 },
		{ "device_refused", 409 },
		{ "cancelled", 409 },
		{ "interrupted", 409 },
		{ "too_large", 413 },
		{ "invalid_value", 422 },
		{ "kernel_rejected", 422 },
		{ "engine_unavailable", 422 },
		{ "store_error", 500 },
		{ "restore_failed", 500 },
		{ "engine_failed", 500 },
		{ "internal", 500 },
		{ "audit_unavailable", 503 },
		{ "format_not_allowed", 403 },
		{ "queue_full", 429 },
		{ "invalid_fs_option", 422 },
		{ "unsupported_match", 422 },
		{ "fs_failed", 500 },
		{ "session_required", 409 },
		{ "engine_timeout", 500 },
		{ "busy", 503 },
		{ "fio_rejected", 422 },
		{ "shutting_down", 503 },
		{ "state_dir_in_use", 409 },
		{ "dir_changed", 500 },
		{ "params_changed", 500 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(was) / sizeof(was[0]); i++) {
		enum err_code c = err_code_parse(was[i].word);

		if (c == ERR_UNLISTED)
			fail_msg("'%s' is no longer a code", was[i].word);
		if (err_code_status(c) != was[i].status)
			fail_msg("%s: status %d, was %d", was[i].word, err_code_status(c),
			         was[i].status);
	}
}

static void test_parse_edges(void **state)
{
	(void)state;
	assert_int_equal(err_code_parse(NULL), ERR_NONE);
	assert_int_equal(err_code_parse(""), ERR_NONE);
	assert_int_equal(err_code_parse("no_such_code"), ERR_UNLISTED);
	assert_int_equal(err_code_parse("Not_Found"), ERR_UNLISTED);
	assert_string_equal(err_code_name((enum err_code)ERR_CODE_N), "internal");
	assert_int_equal(err_code_status((enum err_code) - 1), 500);
}

/* An agent's word the table lacks is kept for showing; a known one is the enum alone. */
static void test_err_word(void **state)
{
	struct err e;

	(void)state;
	err_clear(&e);
	assert_int_equal(e.code, ERR_NONE);
	assert_int_equal(err_set_word(&e, -EIO, "kernel_rejected", "HTTP %d: %s", 422, "no"), -EIO);
	assert_int_equal(e.code, ERR_KERNEL_REJECTED);
	assert_string_equal(e.word, "");
	assert_string_equal(err_word(&e), "kernel_rejected");
	assert_string_equal(e.msg, "HTTP 422: no");
	err_set_word(&e, -EIO, "quota_exceeded", "HTTP 507: full");
	assert_int_equal(e.code, ERR_UNLISTED);
	assert_string_equal(err_word(&e), "quota_exceeded");
	/* Re-wrapping e's own code keeps the word; another code drops it. */
	err_set(&e, -EIO, e.code, "node 'n1': %s", "full");
	assert_string_equal(err_word(&e), "quota_exceeded");
	assert_string_equal(e.msg, "node 'n1': full");
	err_set(&e, -EIO, ERR_NODE_FAILED, "later");
	assert_string_equal(e.word, "");
	assert_string_equal(err_word(&e), "node_failed");
	/* No word, and no code, are internal: a failure always has a code. */
	err_set_word(&e, -EIO, NULL, "x");
	assert_int_equal(e.code, ERR_INTERNAL);
	err_set(&e, -EIO, ERR_NONE, "x");
	assert_int_equal(e.code, ERR_INTERNAL);
	/* A hostile word is cleaned like a message (valid UTF-8 for the terminal and JSON). */
	err_set_word(&e, -EIO, "bad\x1b[31m", "x");
	assert_int_equal(e.code, ERR_UNLISTED);
	assert_null(strchr(e.word, '\x1b'));
}

/* Each code docs/api.md's table lists under a status ("| 404 | `not_found`, ..."), and every
 * code whose status is not 500, is in the table with that status. */
static void test_docs_table(void **state)
{
	char *doc = tu_slurp(SRC_DIR "/docs/api.md", NULL);
	char *sec = strstr(doc, "\n## Errors\n"), *line, *end;
	int listed[ERR_CODE_N] = { 0 }, c, n = 0;

	(void)state;
	assert_non_null(sec);
	end = strstr(sec + 1, "\n## ");
	if (end)
		*end = '\0';
	for (line = strstr(sec, "\n| "); line; line = strstr(line + 1, "\n| ")) {
		int status;
		char *p, *q, *eol = strchr(line + 1, '\n');

		if (sscanf(line, "\n| %d |", &status) != 1 || status == 501)
			continue; /* the header; 501 is bad_request for one case of framing */
		for (p = strchr(line, '`'); p && (!eol || p < eol); p = strchr(q + 1, '`')) {
			char w[64];

			q = strchr(p + 1, '`');
			assert_non_null(q);
			snprintf(w, sizeof(w), "%.*s", (int)(q - p - 1), p + 1);
			c = err_code_parse(w);
			if (c == ERR_UNLISTED)
				fail_msg("docs/api.md lists '%s', which is not a code", w);
			if (err_code_status((enum err_code)c) != status)
				fail_msg("docs/api.md: %s under %d, the table says %d", w, status,
				         err_code_status((enum err_code)c));
			listed[c] = 1;
			n++;
		}
	}
	assert_true(n > 20);
	for (c = ERR_NONE + 1; c < ERR_CODE_N; c++)
		if (err_code_status((enum err_code)c) != 500 && !listed[c])
			fail_msg("docs/api.md's error table lacks %s (%d)",
			         err_code_name((enum err_code)c),
			         err_code_status((enum err_code)c));
	free(doc);
}

/* schema/openapi.yaml names codes in prose ("(code unknown_query_param)", "e.g. bad_request,
 * ..."): each one it names is a code of the table. */
static void test_openapi_codes(void **state)
{
	char *y = tu_slurp(SRC_DIR "/schema/openapi.yaml", NULL), *p, w[64];
	int n = 0;

	(void)state;
	for (p = strstr(y, "(code "); p; p = strstr(p + 1, "(code ")) {
		assert_int_equal(sscanf(p, "(code %63[a-z_])", w), 1);
		if (err_code_parse(w) == ERR_UNLISTED)
			fail_msg("openapi.yaml names code '%s', which is not in the table", w);
		n++;
	}
	p = strstr(y, "stable identifier, e.g. ");
	assert_non_null(p);
	for (p += strlen("stable identifier, e.g. "); sscanf(p, "%63[a-z_]", w) == 1;) {
		if (err_code_parse(w) == ERR_UNLISTED)
			fail_msg("openapi.yaml names code '%s', which is not in the table", w);
		n++;
		p += strlen(w);
		if (strncmp(p, ", ", 2))
			break;
		p += 2;
	}
	assert_true(n >= 5);
	free(y);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words_distinct), cmocka_unit_test(test_agent_statuses_kept),
		cmocka_unit_test(test_parse_edges),    cmocka_unit_test(test_err_word),
		cmocka_unit_test(test_docs_table),     cmocka_unit_test(test_openapi_codes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
