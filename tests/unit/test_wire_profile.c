/* test_wire_profile.c -- wire_profile.c: PUT bodies into profiles (every error names its
 * field), the match and params columns round trip, and what a profile is to a device as JSON. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "wire/wire.h"

static int decode(const char *text, struct profile *p, struct err *e)
{
	json_t *o = json_loads(text, 0, NULL);
	int rc;

	assert_non_null(o);
	err_clear(e);
	rc = wire_profile_from_json(o, "db", p, e);
	json_decref(o);
	return rc;
}

static void test_body(void **state)
{
	struct profile p;
	struct err e;

	(void)state;
	assert_int_equal(
	        decode("{\"match\":{\"devices\":[\"sda\",\"nvme*n1\"],\"model\":\"ST4000\","
	               "\"firmware\":[\"2.1\",\"2.3\"]},\"params\":{\"read_ahead_kb\":4096,"
	               "\"scheduler\":\"none\"},\"enforce\":false}",
	               &p, &e),
	        0);
	assert_string_equal(p.name, "db");
	assert_int_equal(p.match.n_devices, 2);
	assert_string_equal(p.match.devices[1], "nvme*n1");
	assert_int_equal(p.match.n_values[IDENT_MODEL], 1);
	assert_int_equal(p.match.n_values[IDENT_FIRMWARE], 2);
	assert_string_equal(p.match.values[IDENT_FIRMWARE][1], "2.3");
	assert_int_equal(p.params.n, 2);
	assert_string_equal(p.params.items[0].requested, "4096");
	assert_false(p.enforce);
	profile_release(&p);
	assert_int_equal(
	        decode("{\"match\":{\"devices\":[\"sda\"]},\"params\":{\"nr_requests\":32}}", &p,
	               &e),
	        0);
	assert_true(p.enforce); /* the default */
	profile_release(&p);
}

static void test_body_errors(void **state)
{
	static const struct {
		const char *body, *field;
	} cases[] = {
		{ "{\"params\":{\"nr_requests\":32}}", "match: required" },
		{ "{\"match\":[],\"params\":{\"nr_requests\":32}}", "match: expected an object" },
		{ "{\"match\":{\"devices\":[]},\"params\":{\"nr_requests\":32}}", "match.devices" },
		{ "{\"match\":{\"devices\":[7]},\"params\":{\"nr_requests\":32}}",
		  "match.devices[0]" },
		{ "{\"match\":{\"colour\":\"red\"},\"params\":{\"nr_requests\":32}}",
		  "match.colour" },
		{ "{\"match\":{\"model\":[]},\"params\":{\"nr_requests\":32}}", "match.model" },
		{ "{\"match\":{\"model\":\"ST4000\\n\"},\"params\":{\"nr_requests\":32}}",
		  "match.model: printable ASCII only" },
		{ "{\"match\":{\"firmware\":[\"A1\",\"\\u00e9\"]},\"params\":{\"nr_requests\":32}}",
		  "match.firmware[1]: printable ASCII only" },
		{ "{\"match\":{\"vendor\":\"ATA \"},\"params\":{\"nr_requests\":32}}",
		  "match.vendor: no blank at either end" },
		{ "{\"match\":{\"devices\":[\"sda\"]}}", "params: required" },
		{ "{\"match\":{\"devices\":[\"sda\"]},\"params\":{}}", "params" },
		{ "{\"match\":{\"devices\":[\"sda\"]},\"params\":{\"nr_requests\":1.5}}",
		  "params.nr_requests" },
		{ "{\"match\":{\"devices\":[\"sda\"]},\"params\":{\"nr_requests\":32},\"enforce\":"
		  "1}",
		  "enforce" },
		{ "{\"match\":{\"devices\":[\"sda\"]},\"params\":{\"nr_requests\":32},\"x\":1}",
		  "x: unknown" },
	};
	struct profile p;
	struct err e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_not_equal(decode(cases[i].body, &p, &e), 0);
		if (!strstr(e.msg, cases[i].field))
			fail_msg("case %zu: '%s' does not name '%s'", i, e.msg, cases[i].field);
	}
}

static void test_columns_round_trip(void **state)
{
	struct profile p, q;
	char *match, *params;
	struct err e;

	(void)state;
	assert_int_equal(decode("{\"match\":{\"devices\":[\"sd?\"],\"wwid\":\"naa.5000\"},"
	                        "\"params\":{\"nr_requests\":32,\"scheduler\":\"mq-deadline\"}}",
	                        &p, &e),
	                 0);
	match = wire_profile_match_encode(&p.match);
	params = wire_profile_params_encode(&p.params);
	assert_string_equal(match, "{\"devices\":[\"sd?\"],\"wwid\":[\"naa.5000\"]}");
	assert_string_equal(params, "{\"nr_requests\":32,\"scheduler\":\"mq-deadline\"}");
	profile_init(&q);
	assert_int_equal(wire_profile_match_decode(match, &q.match, &e), 0);
	assert_int_equal(wire_profile_params_decode(params, &q.params, &e), 0);
	assert_int_equal(memcmp(&p.match, &q.match, sizeof(p.match)), 0);
	assert_int_equal(q.params.n, 2);
	assert_int_equal(wire_profile_match_decode("{\"devices\":", &q.match, &e), -EINVAL);
	free(match);
	free(params);
	profile_release(&p);
	profile_release(&q);
}

static void test_view(void **state)
{
	struct keeper_view v;
	struct keep_param kp[1];
	struct keep_device d;
	struct err e;
	json_t *o;
	char *s;

	(void)state;
	memset(&v, 0, sizeof(v));
	assert_int_equal(
	        decode("{\"match\":{\"devices\":[\"sda\"]},\"params\":{\"nr_requests\":32}}",
	               &v.profile, &e),
	        0);
	memset(&d, 0, sizeof(d));
	memset(kp, 0, sizeof(kp));
	snprintf(d.device, sizeof(d.device), "sda");
	d.state = KEEP_DRIFTED;
	d.since = 1000;
	snprintf(kp[0].name, sizeof(kp[0].name), "nr_requests");
	kp[0].kind = PARAM_INT;
	snprintf(kp[0].wanted, sizeof(kp[0].wanted), "32");
	snprintf(kp[0].live, sizeof(kp[0].live), "64");
	kp[0].readable = kp[0].drifted = true;
	kp[0].drift_since = 1000;
	d.params = kp;
	d.n_params = 1;
	v.devices = &d;
	v.n_devices = 1;
	o = wire_keeper_view_to_json(&v);
	s = json_dumps(o, JSON_COMPACT);
	assert_non_null(strstr(s, "\"state\":\"drifted\""));
	assert_non_null(strstr(s, "\"nr_requests\":{\"wanted\":32,\"live\":64,\"drifted\":true,"
	                          "\"since\":\"1970-01-01T00:16:40.000Z\"}"));
	free(s);
	json_decref(o);
	profile_release(&v.profile);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_body),
		cmocka_unit_test(test_body_errors),
		cmocka_unit_test(test_columns_round_trip),
		cmocka_unit_test(test_view),
	};

	return cmocka_run_group_tests(tests, NULL, NULL) || tu_leaked();
}
