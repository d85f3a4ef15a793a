/* test_protocol.c -- common/protocol.c: the job states' words are the API's (schema/openapi.yaml's
 * JobState, in the same order), each word parses back to its state, and which are final; the
 * identity fields are DeviceIdentity's and HostIdentity's properties, in order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "testutil.h"

/* The JobState enumeration of the OpenAPI document, as written there ("a, b, c"). */
static void openapi_job_states(char *out, size_t len)
{
	char *doc = tu_slurp(FT_FIXTURES "/../../schema/openapi.yaml", NULL), *p, *end;

	assert_non_null(doc);
	p = strstr(doc, "\n    JobState:\n");
	assert_non_null(p);
	p = strstr(p, "enum: [");
	assert_non_null(p);
	p += strlen("enum: [");
	end = strchr(p, ']');
	assert_non_null(end);
	snprintf(out, len, "%.*s", (int)(end - p), p);
	free(doc);
}

static void test_words_are_the_apis(void **state)
{
	char api[256], ours[256];
	size_t used = 0;
	int i;

	(void)state;
	openapi_job_states(api, sizeof(api));
	ours[0] = '\0';
	for (i = 0; i < JOB_N_STATES; i++)
		used += (size_t)snprintf(ours + used, sizeof(ours) - used, "%s%s", i ? ", " : "",
		                         job_state_names[i]);
	assert_string_equal(ours, api);
	assert_null(job_state_names[JOB_N_STATES]);
}

/* The property names of one schema of the OpenAPI document, in order, "a, b, c". */
static void openapi_properties(const char *schema, char *out, size_t len)
{
	char *doc = tu_slurp(FT_FIXTURES "/../../schema/openapi.yaml", NULL), *p, *end, *line;
	char head[64];
	size_t used = 0;

	assert_non_null(doc);
	snprintf(head, sizeof(head), "\n    %s:\n", schema);
	p = strstr(doc, head);
	assert_non_null(p);
	p = strstr(p, "\n      properties:\n");
	assert_non_null(p);
	out[0] = '\0';
	/* Each property is a line indented by 8 spaces: "        name: ..." */
	for (line = strchr(p + 1, '\n') + 1; !strncmp(line, "        ", 8); line = end + 1) {
		end = strchr(line, '\n');
		assert_non_null(end);
		if (line[8] != ' ')
			used += (size_t)snprintf(out + used, len - used, "%s%.*s", used ? ", " : "",
			                         (int)strcspn(line + 8, ":"), line + 8);
	}
	free(doc);
}

static void test_identity_fields_are_the_apis(void **state)
{
	char api[512], ours[512];
	size_t used = 0;
	int i;

	(void)state;
	openapi_properties("DeviceIdentity", api, sizeof(api));
	for (i = 0; i < IDF_N_DEVICE; i++)
		used += (size_t)snprintf(ours + used, sizeof(ours) - used, "%s%s", i ? ", " : "",
		                         identity_field_names[i]);
	assert_string_equal(ours, api);
	openapi_properties("HostIdentity", api, sizeof(api));
	for (used = 0, i = IDF_N_DEVICE; i < IDF_N; i++)
		used += (size_t)snprintf(ours + used, sizeof(ours) - used, "%s%s",
		                         i > IDF_N_DEVICE ? ", " : "", identity_field_names[i]);
	assert_string_equal(ours, api);
	assert_null(identity_field_names[IDF_N]);
	for (i = 0; i < IDF_N; i++)
		assert_int_equal(identity_field_parse(identity_field_names[i]), i);
	assert_int_equal(identity_field_parse("Model"), -1);
	assert_int_equal(identity_field_parse(NULL), -1);
}

/* Identity text: what the agent and the controller both hold an identity string to. */
static void test_identity_text_clean(void **state)
{
	char s[600];

	(void)state;
	snprintf(s, sizeof(s), "  ST300MM0008   \n");
	identity_text_clean(s);
	assert_string_equal(s, "ST300MM0008");
	snprintf(s, sizeof(s), "\x1b[2JA\tB\x7f\xc3\xa9 ");
	identity_text_clean(s);
	assert_string_equal(s, "?[2JA B???");
	memset(s, 'x', sizeof(s) - 1);
	s[sizeof(s) - 1] = '\0';
	identity_text_clean(s);
	assert_int_equal(strlen(s), IDENTITY_VALUE_MAX - 1);
	snprintf(s, sizeof(s), " \r\n ");
	identity_text_clean(s);
	assert_string_equal(s, "");
}

static void test_parse_and_name(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < JOB_N_STATES; i++) {
		assert_int_equal(job_state_parse(job_state_names[i]), i);
		assert_string_equal(job_state_name((enum job_state)i), job_state_names[i]);
	}
	assert_int_equal(job_state_parse("Queued"), -1);
	assert_int_equal(job_state_parse("queued "), -1);
	assert_int_equal(job_state_parse(""), -1);
	assert_int_equal(job_state_parse("?"), -1);
	assert_int_equal(job_state_parse(NULL), -1);
	assert_string_equal(job_state_name(JOB_N_STATES), "?");
}

static void test_final(void **state)
{
	(void)state;
	assert_false(job_state_final(JOB_QUEUED));
	assert_false(job_state_final(JOB_RUNNING));
	assert_true(job_state_final(JOB_SUCCEEDED));
	assert_true(job_state_final(JOB_FAILED));
	assert_true(job_state_final(JOB_CANCELLED));
	assert_true(job_state_final(JOB_INTERRUPTED));
	assert_false(job_state_final(JOB_N_STATES));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words_are_the_apis),
		cmocka_unit_test(test_parse_and_name),
		cmocka_unit_test(test_final),
		cmocka_unit_test(test_identity_fields_are_the_apis),
		cmocka_unit_test(test_identity_text_clean),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
