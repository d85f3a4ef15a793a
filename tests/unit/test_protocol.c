/* test_protocol.c -- common/protocol.c: the job states' words are the API's (schema/openapi.yaml's
 * JobState, in the same order), each word parses back to its state, and which are final; the
 * identity fields are DeviceIdentity's and HostIdentity's properties, in order; the profile
 * device states are ProfileDeviceState's, the profile-name rule is ProfileName's, the wait limit
 * is wait_s's maximum and every feature is described under Health's features. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "testutil.h"

/* The enumeration of one schema of the OpenAPI document, as written there ("a, b, c"). */
static void openapi_enum(const char *schema, char *out, size_t len)
{
	char *doc = tu_slurp(FT_FIXTURES "/../../schema/openapi.yaml", NULL), *p, *end;
	char head[64];

	assert_non_null(doc);
	snprintf(head, sizeof(head), "\n    %s:\n", schema);
	p = strstr(doc, head);
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
	openapi_enum("JobState", api, sizeof(api));
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
	char s[600], *d;

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
	assert_null(identity_text_dup(" \n"));
	d = identity_text_dup(" A\nB ");
	assert_string_equal(d, "A B");
	free(d);
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

static void test_keep_states_are_the_apis(void **state)
{
	char api[512], ours[512];
	size_t used = 0;
	int i;

	(void)state;
	openapi_enum("ProfileDeviceState", api, sizeof(api));
	ours[0] = '\0';
	for (i = 0; i < KEEP_N_STATES; i++)
		used += (size_t)snprintf(ours + used, sizeof(ours) - used, "%s%s", i ? ", " : "",
		                         keep_state_names[i]);
	assert_string_equal(ours, api);
	assert_null(keep_state_names[KEEP_N_STATES]);
	for (i = 0; i < KEEP_N_STATES; i++)
		assert_int_equal(keep_state_parse(keep_state_names[i]), i);
	assert_int_equal(keep_state_parse("Held"), -1);
	assert_int_equal(keep_state_parse(""), -1);
	assert_int_equal(keep_state_parse(NULL), -1);
	assert_true(keep_state_holds(KEEP_HELD));
	assert_true(keep_state_holds(KEEP_REAPPLIED));
	assert_false(keep_state_holds(KEEP_DRIFTED));
	assert_false(keep_state_holds(KEEP_YIELDED));
	assert_false(keep_state_holds(-1));
}

/* The text of the OpenAPI document from the first after at or past from, to its line's end. */
static void openapi_line(const char *from, const char *after, char *out, size_t len)
{
	char *doc = tu_slurp(FT_FIXTURES "/../../schema/openapi.yaml", NULL), *p;

	assert_non_null(doc);
	p = strstr(doc, from);
	assert_non_null(p);
	p = strstr(p, after);
	assert_non_null(p);
	p += strlen(after);
	snprintf(out, len, "%.*s", (int)strcspn(p, "\n"), p);
	free(doc);
}

static void test_profile_name_rule(void **state)
{
	char api[128], want[128], name[PROFILE_NAME_MAX + 1];

	(void)state;
	/* ProfileName's pattern: a first character that is not '.', then up to MAX - 2 more. */
	openapi_line("\n    ProfileName:\n", "pattern: '", api, sizeof(api));
	snprintf(want, sizeof(want), "^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,%d}$'}", PROFILE_NAME_MAX - 2);
	assert_string_equal(api, want);
	openapi_line("\n    ProfileName:\n", "description: ", api, sizeof(api));
	assert_non_null(strstr(api, PROFILE_NAME_RULE));
	assert_true(profile_name_ok("db-nvme"));
	assert_true(profile_name_ok("a.b_C-9"));
	assert_true(profile_name_ok("x."));
	assert_false(profile_name_ok(""));
	assert_false(profile_name_ok(NULL));
	assert_false(profile_name_ok(".hidden"));
	assert_false(profile_name_ok("a/b"));
	assert_false(profile_name_ok("a b"));
	assert_false(profile_name_ok("caf\xc3\xa9"));
	memset(name, 'n', PROFILE_NAME_MAX - 1);
	name[PROFILE_NAME_MAX - 1] = '\0';
	assert_true(profile_name_ok(name));
	name[PROFILE_NAME_MAX - 1] = 'n';
	name[PROFILE_NAME_MAX] = '\0';
	assert_false(profile_name_ok(name));
}

static void test_wait_limit_is_the_apis(void **state)
{
	char api[128], want[128];

	(void)state;
	openapi_line("\n        - name: wait_s\n", "schema: ", api, sizeof(api));
	snprintf(want, sizeof(want), "{type: integer, minimum: 0, maximum: %d}", JOB_WAIT_MAX_S);
	assert_string_equal(api, want);
	assert_true(JOB_WAIT_ASK_S > 0 && JOB_WAIT_ASK_S <= JOB_WAIT_MAX_S);
}

/* Every feature is described, quoted, under Health's features, and parses back. */
static void test_features_are_the_apis(void **state)
{
	char *doc = tu_slurp(FT_FIXTURES "/../../schema/openapi.yaml", NULL), *p, *end, quoted[64];
	int i;

	(void)state;
	assert_non_null(doc);
	p = strstr(doc, "\n    Health:\n");
	assert_non_null(p);
	p = strstr(p, "\n        features:\n");
	assert_non_null(p);
	end = strstr(p, "items: {type: string}");
	assert_non_null(end);
	*end = '\0';
	for (i = 0; i < FEATURE_N; i++) {
		snprintf(quoted, sizeof(quoted), "\"%s\"", feature_names[i]);
		if (!strstr(p, quoted))
			fail_msg("feature %s is not in openapi.yaml's Health.features", quoted);
		assert_int_equal(feature_parse(feature_names[i]), i);
	}
	assert_null(feature_names[FEATURE_N]);
	assert_int_equal(feature_parse("telepathy"), -1);
	assert_int_equal(feature_parse(NULL), -1);
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words_are_the_apis),
		cmocka_unit_test(test_parse_and_name),
		cmocka_unit_test(test_final),
		cmocka_unit_test(test_identity_fields_are_the_apis),
		cmocka_unit_test(test_identity_text_clean),
		cmocka_unit_test(test_keep_states_are_the_apis),
		cmocka_unit_test(test_profile_name_rule),
		cmocka_unit_test(test_wait_limit_is_the_apis),
		cmocka_unit_test(test_features_are_the_apis),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
