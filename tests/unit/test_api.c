/* test_api.c -- api.c's handlers through the route table, against a temp sysfs tree, a real
 * database and the fake fio: dry runs refuse exactly as the real request does and change
 * nothing (every file of the tree, the audit log, the jobs), and say what would be done; what
 * a device and the host are, in the device routes and a job. */
#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agenttest.h"
#include "api/api.h"
#include "buf.h"
#include "timeutil.h"

static int setup(void **state)
{
	struct agent_fx *f = agent_fx_new();

	tu_fake_device(f->root, "vda", 0);
	setenv("FAKE_FIO_SLEEP_S", "0.1", 1);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	agent_fx_free(*state);
	return 0;
}

/* A response as the client sees it; a held one (status 0) with its wait. */
struct answer {
	int status;
	char body[4096];
	double wait_s;
	uint64_t wait_key;
};

/* Call the handler of METHOD PATTERN with the given path argument, query ("k=v&k2=v2", up to
 * 4 pairs) and body, as the HTTP layer would after routing; wait_over as for a held request
 * whose wait has ended. */
static void call_ex(struct agent_fx *f, const char *method, const char *pattern, const char *arg0,
                    const char *query, const char *body, bool wait_over, struct answer *out)
{
	struct http_resp resp = { 0 };
	struct http_req req;
	struct err e;
	const char *q = query;
	int i;

	memset(&req, 0, sizeof(req));
	req.method = method;
	req.path = pattern;
	req.body = body ? body : "";
	req.body_len = strlen(req.body);
	req.id = 1;
	req.wait_over = wait_over;
	/* a job file's checks run fio --parse-only: on the slow-work thread in the agent */
	req.on_worker = body && strstr(body, "\"fio_file\"") != NULL;
	if (arg0) {
		req.args[0] = strdup(arg0);
		req.n_args = 1;
	}
	while (q && *q && req.n_query < 4) {
		const char *eq = strchr(q, '='), *amp = strchr(q, '&');
		size_t vlen = amp ? (size_t)(amp - eq - 1) : strlen(eq + 1);

		req.query[req.n_query].key = strndup(q, (size_t)(eq - q));
		req.query[req.n_query].value = strndup(eq + 1, vlen);
		req.n_query++;
		q = amp ? amp + 1 : NULL;
	}
	for (i = 0; i < api_n_routes; i++)
		if (!strcmp(api_routes[i].method, method) &&
		    !strcmp(api_routes[i].pattern, pattern))
			break;
	assert_true(i < api_n_routes);
	err_clear(&e);
	assert_int_equal(http_query_check(&api_routes[i], &req, &e), 0);
	api_routes[i].fn(&f->a, &req, &resp);
	out->status = resp.status;
	out->wait_s = resp.wait_s;
	out->wait_key = resp.wait_key;
	snprintf(out->body, sizeof(out->body), "%s", resp.body ? resp.body : "");
	free(resp.body);
	free(resp.location);
	free(req.args[0]);
	for (i = 0; i < req.n_query; i++) {
		free(req.query[i].key);
		free(req.query[i].value);
	}
}

static void call(struct agent_fx *f, const char *method, const char *pattern, const char *arg0,
                 const char *query, const char *body, struct answer *out)
{
	call_ex(f, method, pattern, arg0, query, body, false, out);
}

/* Every file under the temp tree's sys/ as "path=content" lines, to compare before and after. */
static struct buf tree_snap;

static int snap_file(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	char *data;
	size_t len;

	if (flag != FTW_F)
		return 0;
	data = tu_slurp(path, &len);
	buf_printf(&tree_snap, "%s=%s\n", path, data);
	free(data);
	return 0;
}

static char *tree(struct agent_fx *f)
{
	char sys[600];

	buf_init(&tree_snap);
	snprintf(sys, sizeof(sys), "%s/sys", f->root);
	nftw(sys, snap_file, 16, FTW_PHYS);
	return buf_detach(&tree_snap, NULL);
}

static int changes(struct agent_fx *f)
{
	struct change_rec *list;
	struct err e;
	int n;

	assert_int_equal(store_changes_list(f->a.store, NULL, 1000, &list, &n, &e), 0);
	free(list);
	return n;
}

#define PARAMS "/api/v1/devices/{dev}/params"

/* The refusals of a real PATCH, and a dry run giving each of them byte for byte. */
static void test_patch_dry_run_refuses_as_patch(void **state)
{
	static const struct {
		const char *dev, *body, *code;
		int status;
	} cases[] = {
		{ "loop0", "{\"params\":{\"no_such_param\":1}}", "unknown_param", 404 },
		{ "loop0", "{\"params\":{\"logical_block_size\":4096}}", "read_only", 403 },
		{ "loop0", "{\"params\":{\"max_sectors_kb\":40000}}", "invalid_value", 422 },
		{ "loop0", "{\"params\":{\"nr_requests\":\"010\"}}", "invalid_value", 422 },
		{ "loop0", "{\"params\":{\"rq_affinity\":7}}", "invalid_value", 422 },
		{ "loop0", "{\"params\":{\"scheduler\":\"cfq\"}}", "invalid_value", 422 },
		{ "loop0", "{\"params\":{\"setra\":512,\"read_ahead_kb\":256}}", "invalid_value",
		  422 },
		{ "loop0", "{\"params\":{\"scheduler\":\"kyber\",\"nr_requests\":1}}",
		  "invalid_value", 422 },
		{ "vda", "{\"params\":{\"nr_requests\":32}}", "device_not_allowed", 403 },
		{ "sdq", "{\"params\":{\"nr_requests\":32}}", "not_found", 404 },
		{ "loop0", "{\"params\":{}}", "bad_request", 400 },
		{ "loop0", "{\"params\":{\"nr_requests\":1.5}}", "bad_request", 400 },
		{ "loop0", "{\"params\":{\"nr_requests\":32},\"force\":true}", "bad_request", 400 },
	};
	struct answer dry, real;
	char *before = tree(*state), *after;
	struct agent_fx *f = *state;
	int n_changes = changes(f);
	char code[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		call(f, "PATCH", PARAMS, cases[i].dev, "dry_run=true", cases[i].body, &dry);
		call(f, "PATCH", PARAMS, cases[i].dev, NULL, cases[i].body, &real);
		if (dry.status != real.status || strcmp(dry.body, real.body))
			fail_msg("%s: dry run %d %s, PATCH %d %s", cases[i].body, dry.status,
			         dry.body, real.status, real.body);
		assert_int_equal(dry.status, cases[i].status);
		snprintf(code, sizeof(code), "\"code\":\"%s\"", cases[i].code);
		if (!strstr(dry.body, code))
			fail_msg("%s: %s has no %s", cases[i].body, dry.body, code);
		assert_null(strstr(dry.body, "rolled_back"));
	}
	after = tree(f);
	assert_string_equal(before, after);
	assert_int_equal(changes(f), n_changes);
	free(before);
	free(after);
}

/* A dry run that passes: what would be written, nothing written, nothing audited. */
static void test_patch_dry_run_would_apply(void **state)
{
	struct agent_fx *f = *state;
	char *before = tree(f), *after;
	unsigned long gen = tune_generation(&f->a.tune);
	struct answer ans;
	json_t *o, *w;

	call(f, "PATCH", PARAMS, "loop0", "dry_run=true",
	     "{\"params\":{\"scheduler\":\"kyber\",\"nr_requests\":\"128\","
	     "\"iosched.read_lat_nsec\":32,\"read_ahead_kb\":256}}",
	     &ans);
	assert_int_equal(ans.status, 200);
	o = json_loads(ans.body, 0, NULL);
	assert_non_null(o);
	assert_true(json_is_true(json_object_get(o, "dry_run")));
	assert_string_equal(json_string_value(json_object_get(o, "device")), "loop0");
	w = json_object_get(o, "would_apply");
	assert_int_equal(json_object_size(w), 4);
	assert_string_equal(
	        json_string_value(json_object_get(json_object_get(w, "scheduler"), "previous")),
	        "mq-deadline");
	assert_string_equal(
	        json_string_value(json_object_get(json_object_get(w, "scheduler"), "value")),
	        "kyber");
	/* the value as written, canonical; the request as sent */
	assert_int_equal(
	        json_integer_value(json_object_get(json_object_get(w, "nr_requests"), "value")),
	        128);
	assert_string_equal(
	        json_string_value(json_object_get(json_object_get(w, "nr_requests"), "requested")),
	        "128");
	assert_int_equal(
	        json_integer_value(json_object_get(json_object_get(w, "nr_requests"), "previous")),
	        64);
	/* an attribute of the scheduler switched to: only a real switch can check it fully */
	assert_string_equal(json_string_value(json_object_get(
	                            json_object_get(w, "iosched.read_lat_nsec"), "checked")),
	                    "after_switch");
	assert_null(json_object_get(json_object_get(w, "read_ahead_kb"), "checked"));
	json_decref(o);

	call(f, "PATCH", PARAMS, "loop0", "dry_run=true",
	     "{\"params\":{\"scheduler\":\"deadline\"}}", &ans);
	assert_int_equal(ans.status, 200);
	assert_non_null(strstr(ans.body, "\"mapped_to\":\"mq-deadline\""));

	after = tree(f);
	assert_string_equal(before, after);
	assert_int_equal(changes(f), 0);
	assert_true(tune_generation(&f->a.tune) == gen);
	free(before);
	free(after);

	/* dry_run=false is a normal PATCH */
	call(f, "PATCH", PARAMS, "loop0", "dry_run=false", "{\"params\":{\"nr_requests\":128}}",
	     &ans);
	assert_int_equal(ans.status, 200);
	assert_non_null(strstr(ans.body, "\"applied\""));
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/nr_requests"), "128");
	assert_int_equal(changes(f), 1);
}

/* POST /jobs?dry_run=true: the answer of a real submit when refused, nothing queued when
 * accepted, with the normalised job, its metrics and its expected runtime. */
static void test_job_dry_run(void **state)
{
	static const char *const refused[] = {
		"{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"iodepth\":5000}}",
		"{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"numjobs\":257}}",
		"{\"device\":\"vda\",\"engine\":\"fio\"}",
		"{\"device\":\"loop0\",\"engine\":\"fio\",\"params\":{\"nr_requests\":3}}",
		"{\"device\":\"loop0\",\"engine\":\"fio\",\"params\":{\"no_such\":3}}",
		"{\"device\":\"loop0\",\"engine\":\"bonnie\",\"bonnie\":{\"size_mb\":64}}",
		"{\"device\":\"loop0\"}",
	};
	struct agent_fx *f = *state;
	struct answer dry, real;
	json_t *o, *m;
	size_t i;
	int k;

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		call(f, "POST", "/api/v1/jobs", NULL, "dry_run=true", refused[i], &dry);
		call(f, "POST", "/api/v1/jobs", NULL, NULL, refused[i], &real);
		if (dry.status != real.status || strcmp(dry.body, real.body))
			fail_msg("%s: dry run %d %s, POST %d %s", refused[i], dry.status, dry.body,
			         real.status, real.body);
		assert_true(dry.status >= 400);
	}
	assert_int_equal(agent_fx_jobs(f), 0);

	call(f, "POST", "/api/v1/jobs", NULL, "dry_run=true",
	     "{\"device\":\"loop0\",\"engine\":\"fio\",\"loops\":3,\"fio\":{\"rw\":\"randwrite\","
	     "\"bs\":\"4m\",\"runtime_s\":2,\"time_based\":true},\"labels\":{\"run\":\"x\"}}",
	     &dry);
	assert_int_equal(dry.status, 200);
	assert_int_equal(agent_fx_jobs(f), 0);
	o = json_loads(dry.body, 0, NULL);
	assert_true(json_is_true(json_object_get(o, "dry_run")));
	assert_int_equal(json_integer_value(json_object_get(o, "expected_runtime_s")), 6);
	assert_string_equal(json_string_value(json_object_get(
	                            json_object_get(json_object_get(o, "job"), "fio"), "bs")),
	                    "4M");
	m = json_object_get(o, "metrics");
	for (k = 0; k < (int)json_array_size(m); k++)
		assert_null(strstr(json_string_value(json_array_get(m, (size_t)k)), "read."));
	assert_non_null(strstr(dry.body, "\"write.bw_mib\""));
	assert_non_null(strstr(dry.body, "\"cpu.usr_pct\""));
	json_decref(o);

	/* the same body for real is queued */
	call(f, "POST", "/api/v1/jobs", NULL, "dry_run=false",
	     "{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"rw\":\"randwrite\"}}", &real);
	assert_int_equal(real.status, 202);
	assert_int_equal(agent_fx_jobs(f), 1);
}

static void test_health_features(void **state)
{
	struct agent_fx *f = *state;
	struct answer ans;

	call(f, "GET", "/api/v1/health", NULL, NULL, NULL, &ans);
	assert_int_equal(ans.status, 200);
	assert_non_null(strstr(ans.body, "\"features\":[\"dry_run\",\"strict_query\","
	                                 "\"long_poll\",\"profiles\",\"job_applied\","
	                                 "\"start_at\",\"until_end\",\"pass_deadline\","
	                                 "\"workloads\",\"device_lanes\",\"fio_file\"]"));
}

static int64_t json_int_member(const char *body, const char *key)
{
	json_t *o = json_loads(body, 0, NULL);
	int64_t v;

	assert_non_null(o);
	assert_true(json_is_integer(json_object_get(o, key)));
	v = (int64_t)json_integer_value(json_object_get(o, key));
	json_decref(o);
	return v;
}

/* GET /jobs/{id} as a long-poll: held while the version is the client's, answered at once when
 * it differs, answered with the same version when the wait is over; the light form; the
 * refusals. */
static void test_job_long_poll(void **state)
{
	struct agent_fx *f = *state;
	struct answer ans;
	char q[128], id[16];
	int64_t v;
	json_t *o;

	call(f, "POST", "/api/v1/jobs", NULL, NULL,
	     "{\"device\":\"loop0\",\"engine\":\"fio\",\"loops\":2,\"fio\":{\"rw\":\"randwrite\"}}",
	     &ans);
	assert_int_equal(ans.status, 202);
	snprintf(id, sizeof(id), "%lld", (long long)json_int_member(ans.body, "id"));
	/* The submit's answer carries the version of a queued job. */
	assert_int_equal(json_int_member(ans.body, "version"),
	                 (int64_t)job_version(JOB_QUEUED, 0, 0));

	/* after=0 is never a job's version: answered at once. */
	call(f, "GET", "/api/v1/jobs/{id}", id, "wait_s=30&after=0", NULL, &ans);
	assert_int_equal(ans.status, 200);
	/* Wait for the end, then hold on the final version. */
	for (;;) {
		v = json_int_member(ans.body, "version");
		snprintf(q, sizeof(q), "wait_s=30&after=%lld", (long long)v);
		call(f, "GET", "/api/v1/jobs/{id}", id, q, NULL, &ans);
		if (ans.status == 0) {
			o = NULL;
			call(f, "GET", "/api/v1/jobs/{id}", id, NULL, NULL, &ans);
			o = json_loads(ans.body, 0, NULL);
			if (!strcmp(json_string_value(json_object_get(o, "state")), "succeeded")) {
				json_decref(o);
				break;
			}
			json_decref(o);
			usleep(20 * 1000);
			continue;
		}
		assert_int_equal(ans.status, 200);
		assert_int_not_equal(json_int_member(ans.body, "version"), v);
	}
	v = json_int_member(ans.body, "version");
	assert_int_equal(v, (int64_t)job_version(JOB_SUCCEEDED, 2, 1));
	snprintf(q, sizeof(q), "wait_s=7&after=%lld", (long long)v);
	call(f, "GET", "/api/v1/jobs/{id}", id, q, NULL, &ans);
	assert_int_equal(ans.status, 0); /* held: the HTTP layer waits */
	assert_float_equal(ans.wait_s, 7, 0);
	assert_int_equal(ans.wait_key, (uint64_t)atoll(id));
	/* The wait is over: the same version, answered. */
	snprintf(q, sizeof(q), "wait_s=7&after=%lld&fields=state,loops_done", (long long)v);
	call_ex(f, "GET", "/api/v1/jobs/{id}", id, q, NULL, true, &ans);
	assert_int_equal(ans.status, 200);
	o = json_loads(ans.body, 0, NULL);
	/* The light form: the members asked for, the id and the version, nothing else. */
	assert_int_equal(json_object_size(o), 4);
	assert_string_equal(json_string_value(json_object_get(o, "state")), "succeeded");
	assert_int_equal(json_integer_value(json_object_get(o, "loops_done")), 2);
	assert_int_equal(json_integer_value(json_object_get(o, "version")), v);
	json_decref(o);
	call(f, "GET", "/api/v1/jobs/{id}", id, "fields=passes", NULL, &ans);
	o = json_loads(ans.body, 0, NULL);
	assert_int_equal(json_array_size(json_object_get(o, "passes")), 2);
	assert_null(json_object_get(o, "spec"));
	json_decref(o);

	/* Refusals. */
	call(f, "GET", "/api/v1/jobs/{id}", id, "wait_s=5", NULL, &ans);
	assert_int_equal(ans.status, 400);
	assert_non_null(strstr(ans.body, "wait_s: needs after=VERSION"));
	call(f, "GET", "/api/v1/jobs/{id}", id, "fields=state,colour", NULL, &ans);
	assert_int_equal(ans.status, 400);
	assert_non_null(strstr(ans.body, "fields: 'colour' is not a member of a job"));
	call(f, "GET", "/api/v1/jobs/{id}", "9999", "wait_s=5&after=1", NULL, &ans);
	assert_int_equal(ans.status, 404);
	assert_non_null(strstr(ans.body, "no job 9999"));

	/* An agent that hides the feature answers as one before long-polls did. */
	setenv("FLEETTUNE_TEST_NO_LONG_POLL", "1", 1);
	call(f, "GET", "/api/v1/health", NULL, NULL, NULL, &ans);
	assert_null(strstr(ans.body, "long_poll"));
	snprintf(q, sizeof(q), "wait_s=7&after=%lld", (long long)v);
	call(f, "GET", "/api/v1/jobs/{id}", id, q, NULL, &ans);
	assert_int_equal(ans.status, 400);
	assert_non_null(strstr(ans.body, "unknown_query_param"));
	call(f, "GET", "/api/v1/jobs/{id}", id, "fields=state", NULL, &ans);
	assert_int_equal(ans.status, 200);
	unsetenv("FLEETTUNE_TEST_NO_LONG_POLL");
}

/* A member of a JSON document by a dotted path ("identity.model"), as text ("" when absent). */
static const char *json_path_text(const char *body, const char *path, char *out, size_t len)
{
	json_t *o = json_loads(body, 0, NULL), *v = o;
	char key[64];
	const char *p = path, *dot;

	while (v && *p) {
		dot = strchr(p, '.');
		snprintf(key, sizeof(key), "%.*s", (int)(dot ? dot - p : (long)strlen(p)), p);
		v = json_is_array(v) ? json_array_get(v, (size_t)strtol(key, NULL, 10))
		                     : json_object_get(v, key);
		p = dot ? dot + 1 : p + strlen(p);
	}
	if (json_is_string(v))
		snprintf(out, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(out, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_boolean(v))
		snprintf(out, len, "%s", json_is_true(v) ? "true" : "false");
	else if (json_is_null(v))
		snprintf(out, len, "null");
	else
		snprintf(out, len, "%s", v ? "?" : "");
	json_decref(o);
	return out;
}

/* GET /devices and /devices/{dev} carry what each device and the host are; a job records it
 * with its parameter snapshot; --hide-serial shows the serial's hash. */
static void test_devices_identity(void **state)
{
	struct agent_fx *f = *state;
	struct answer ans;
	char path[700], t[128], id[16];
	int i;

	tu_fake_device(f->root, "sdb", 0);
	tu_write(f->root, "sys/block/sdb/device/model", "ST300MM0008     \n", 0444);
	tu_write(f->root, "sys/block/sdb/device/rev", "2.1 \n", 0444);
	tu_write(f->root, "sys/block/sdb/device/vendor", "ATA     \n", 0444);
	tu_write(f->root, "sys/block/sdb/device/vpd_pg80", "", 0444);
	snprintf(path, sizeof(path), "%s/sys/block/sdb/device/vpd_pg80", f->root);
	{
		FILE *fp = fopen(path, "wb");

		assert_non_null(fp);
		fwrite("\0\x80\0\x08Z1Z0ABCD", 1, 12, fp);
		fclose(fp);
	}
	snprintf(path, sizeof(path), "%s/sys/block/sdb/device/subsystem", f->root);
	assert_int_equal(symlink("../../../../bus/scsi", path), 0);
	tu_write(f->root, "proc/sys/kernel/osrelease", "6.1.0-18-amd64\n", 0444);

	call(f, "GET", "/api/v1/devices", NULL, NULL, NULL, &ans);
	assert_int_equal(ans.status, 200);
	assert_string_equal(json_path_text(ans.body, "host.kernel", t, sizeof(t)),
	                    "6.1.0-18-amd64");
	assert_string_equal(json_path_text(ans.body, "devices.0.name", t, sizeof(t)), "loop0");
	assert_string_equal(json_path_text(ans.body, "devices.0.identity.transport", t, sizeof(t)),
	                    "loop");
	assert_string_equal(json_path_text(ans.body, "devices.0.identity.model", t, sizeof(t)), "");
	assert_string_equal(json_path_text(ans.body, "devices.1.identity.model", t, sizeof(t)),
	                    "ST300MM0008");

	call(f, "GET", "/api/v1/devices/{dev}", "sdb", NULL, NULL, &ans);
	assert_int_equal(ans.status, 200);
	assert_string_equal(json_path_text(ans.body, "name", t, sizeof(t)), "sdb");
	assert_string_equal(json_path_text(ans.body, "identity.firmware", t, sizeof(t)), "2.1");
	assert_string_equal(json_path_text(ans.body, "identity.transport", t, sizeof(t)), "scsi");
	assert_string_equal(json_path_text(ans.body, "identity.serial", t, sizeof(t)), "Z1Z0ABCD");
	assert_string_equal(json_path_text(ans.body, "identity.logical_block_bytes", t, sizeof(t)),
	                    "512");
	assert_string_equal(json_path_text(ans.body, "host.kernel", t, sizeof(t)),
	                    "6.1.0-18-amd64");
	f->a.cfg.hide_serial = true;
	call(f, "GET", "/api/v1/devices/{dev}", "sdb", NULL, NULL, &ans);
	assert_string_equal(json_path_text(ans.body, "identity.serial", t, sizeof(t)),
	                    "sha256:acc459be013e9479");
	f->a.cfg.hide_serial = false;
	call(f, "GET", "/api/v1/devices/{dev}", "sdz", NULL, NULL, &ans);
	assert_int_equal(ans.status, 404);
	assert_non_null(strstr(ans.body, "\"not_found\""));
	call(f, "GET", "/api/v1/devices/{dev}", "..", NULL, NULL, &ans);
	assert_int_equal(ans.status, 400);

	/* A job records the identity of its device and host beside the parameter snapshot. */
	call(f, "POST", "/api/v1/jobs", NULL, NULL,
	     "{\"device\":\"loop0\",\"engine\":\"fio\",\"loops\":1,\"fio\":{\"rw\":\"write\"}}",
	     &ans);
	assert_int_equal(ans.status, 202);
	snprintf(id, sizeof(id), "%lld", (long long)json_int_member(ans.body, "id"));
	for (i = 0; i < 500; i++) {
		call(f, "GET", "/api/v1/jobs/{id}", id, "fields=state,identity", NULL, &ans);
		if (!strcmp(json_path_text(ans.body, "state", t, sizeof(t)), "succeeded"))
			break;
		usleep(20 * 1000);
	}
	assert_string_equal(t, "succeeded");
	assert_string_equal(json_path_text(ans.body, "identity.device.transport", t, sizeof(t)),
	                    "loop");
	assert_string_equal(json_path_text(ans.body, "identity.host.kernel", t, sizeof(t)),
	                    "6.1.0-18-amd64");
	call(f, "GET", "/api/v1/results", NULL, "limit=1", NULL, &ans);
	assert_string_equal(
	        json_path_text(ans.body, "results.0.identity.device.transport", t, sizeof(t)),
	        "loop");
}

/* A number member of a JSON document (NAN when absent or not a number). */
static double json_num_member(const char *body, const char *key)
{
	json_t *o = json_loads(body, 0, NULL);
	double v = json_is_number(json_object_get(o, key))
	                   ? json_number_value(json_object_get(o, key))
	                   : NAN;

	json_decref(o);
	return v;
}

/* Health says the agent's clock to the microsecond (a controller bounds its offset with the
 * round trip), and the test switch moves that reading only. */
static void test_health_time(void **state)
{
	struct agent_fx *f = *state;
	struct answer ans;
	double t0, t1, t;

	t0 = time_now_s();
	call(f, "GET", "/api/v1/health", NULL, NULL, NULL, &ans);
	t1 = time_now_s();
	t = json_num_member(ans.body, "time_s");
	assert_true(t >= t0 - 1e-6 && t <= t1 + 1e-6);
	setenv("FLEETTUNE_TEST_CLOCK_OFFSET_S", "-2.5", 1);
	call(f, "GET", "/api/v1/health", NULL, NULL, NULL, &ans);
	unsetenv("FLEETTUNE_TEST_CLOCK_OFFSET_S");
	t = json_num_member(ans.body, "time_s");
	assert_true(t < t0 - 2 && t > t0 - 3.5);
}

/* POST a job body; its id as text into id. */
static void post_job(struct agent_fx *f, const char *body, char *id, size_t len)
{
	struct answer ans;

	call(f, "POST", "/api/v1/jobs", NULL, NULL, body, &ans);
	if (ans.status != 202)
		fail_msg("POST %s: %d %s", body, ans.status, ans.body);
	snprintf(id, len, "%lld", (long long)json_int_member(ans.body, "id"));
}

/* GET the job until it is in state (10 s at most); its answer into ans. */
static void job_wait_state(struct agent_fx *f, const char *id, const char *state,
                           struct answer *ans)
{
	char got[32];
	int i;

	for (i = 0; i < 500; i++) {
		call(f, "GET", "/api/v1/jobs/{id}", id, NULL, NULL, ans);
		if (!strcmp(json_path_text(ans->body, "state", got, sizeof(got)), state))
			return;
		usleep(20 * 1000);
	}
	fail_msg("job %s never %s: %s", id, state, ans->body);
}

/* A job that starts by the clock holds its first pass until its moment and says how long it
 * held and how late it began; one whose moment has passed begins at once and says how late;
 * start_at must be a time and not more than an hour ahead. */
static void test_job_start_at(void **state)
{
	struct agent_fx *f = *state;
	struct answer ans;
	char body[512], at[40], id[16], got[64];
	double t_post, start_at, begun, late, held;

	/* 1.5 s ahead: the job is running (its params applied) and holds, its fio spawned and
	 * waiting in its prerun (whose start, the fake's and a sanitizer build's waiter, can take
	 * half a second on a loaded machine); no pass yet. */
	t_post = time_now_s();
	start_at = t_post + 1.5;
	time_fmt_iso_ms(start_at, at, sizeof(at));
	start_at = floor(start_at * 1000) / 1000; /* as the text says it */
	snprintf(body, sizeof(body),
	         "{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"rw\":\"randwrite\"},"
	         "\"params\":{\"nr_requests\":32},\"start_at\":\"%s\"}",
	         at);
	post_job(f, body, id, sizeof(id));
	job_wait_state(f, id, "running", &ans);
	assert_string_equal(json_path_text(ans.body, "start_at", got, sizeof(got)), at);
	assert_non_null(strstr(ans.body, "\"begun_at\":null"));
	assert_null(strstr(ans.body, "\"loop\":1"));
	job_wait_state(f, id, "succeeded", &ans);
	late = json_num_member(ans.body, "start_late_s");
	held = json_num_member(ans.body, "held_s");
	assert_true(late >= 0 && late < 0.25);
	assert_true(held > 0.2 && held < 1.6);
	call(f, "GET", "/api/v1/jobs/{id}", id, "fields=passes", NULL, &ans);
	assert_true(
	        time_parse_iso(json_path_text(ans.body, "passes.0.started_at", got, sizeof(got)),
	                       &begun) == 0);
	assert_true(begun >= start_at - 0.001);

	/* A moment 3 s ago: no hold, begun at once, 3 s late. */
	time_fmt_iso_ms(time_now_s() - 3, at, sizeof(at));
	snprintf(body, sizeof(body),
	         "{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"rw\":\"randwrite\"},"
	         "\"start_at\":\"%s\"}",
	         at);
	post_job(f, body, id, sizeof(id));
	job_wait_state(f, id, "succeeded", &ans);
	late = json_num_member(ans.body, "start_late_s");
	assert_true(late >= 3 && late < 4);
	assert_true(json_num_member(ans.body, "held_s") == 0);

	/* Without start_at: begun_at is the first pass's start, nothing held, no lateness. */
	post_job(f, "{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"rw\":\"randwrite\"}}", id,
	         sizeof(id));
	job_wait_state(f, id, "succeeded", &ans);
	assert_true(strstr(ans.body, "\"start_at\":null") &&
	            strstr(ans.body, "\"start_late_s\":null"));
	assert_true(json_num_member(ans.body, "held_s") == 0);
	assert_string_not_equal(json_path_text(ans.body, "begun_at", got, sizeof(got)), "");

	/* Refused, nothing queued. */
	time_fmt_iso_ms(time_now_s() + 3700, at, sizeof(at));
	snprintf(body, sizeof(body),
	         "{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"rw\":\"randwrite\"},"
	         "\"start_at\":\"%s\"}",
	         at);
	call(f, "POST", "/api/v1/jobs", NULL, NULL, body, &ans);
	assert_int_equal(ans.status, 400);
	assert_non_null(strstr(ans.body, "start_at: 3700 s ahead of the agent's clock"));
	call(f, "POST", "/api/v1/jobs", NULL, NULL,
	     "{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"rw\":\"randwrite\"},"
	     "\"start_at\":1764580000}",
	     &ans);
	assert_int_equal(ans.status, 400);
	assert_non_null(strstr(ans.body, "start_at: expected an ISO-8601 UTC time"));
	assert_int_equal(agent_fx_jobs(f), 3);
}

/* A job given as an fio job file: refused naming what a root daemon must not run, refused with
 * fio's own words when fio's parser rejects it, and run when valid: pointed at the job's
 * device, each loop a pass, stored like any job's. */
static void test_job_fio_file(void **state)
{
	struct agent_fx *f = *state;
	struct answer ans, real;
	char copy[256], id[16], *text;
	size_t len;
	json_t *o;

	call(f, "POST", "/api/v1/jobs", NULL, "dry_run=true",
	     "{\"device\":\"loop0\",\"engine\":\"fio\",\"loops\":2,\"fio_file\":"
	     "\"[global]\\nruntime=2s\\ntime_based\\n[rd]\\nrw=randread\\n[wr]\\nrw=write\\n"
	     "rate=1m\\n\"}",
	     &ans);
	if (ans.status != 200)
		fail_msg("dry run: %d %s", ans.status, ans.body);
	o = json_loads(ans.body, 0, NULL);
	assert_int_equal(json_integer_value(json_object_get(o, "expected_runtime_s")), 4);
	assert_int_equal(json_integer_value(json_object_get(o, "pass_deadline_s")), 2 * 2 + 30);
	assert_non_null(strstr(ans.body, "\"read.iops\""));
	assert_non_null(strstr(ans.body, "\"write.bw_mib\""));
	assert_non_null(json_object_get(json_object_get(o, "job"), "fio_file"));
	assert_null(json_object_get(json_object_get(o, "job"), "fio"));
	json_decref(o);
	/* refused as the real request is, nothing queued */
	{
		static const struct {
			const char *body;
			int status;
			const char *msg;
		} refused[] = {
			{ "{\"device\":\"loop0\",\"engine\":\"fio\",\"fio_file\":\"[j]\\n"
			  "exec_prerun=touch /tmp/pwned\\n\"}",
			  400,
			  "fio_file line 2 [j] exec_prerun: refused: it runs a command as root" },
			{ "{\"device\":\"loop0\",\"engine\":\"fio\",\"fio_file\":\"[j]\\n"
			  "filename=/dev/vda\\n\"}",
			  400,
			  "fio_file line 2 [j] filename: refused: the job runs on its device "
			  "/dev/loop0" },
			{ "{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{},\"fio_file\":\"[j]"
			  "\\n\"}",
			  400, "fio_file: give fio options (\\\"fio\\\") or a job file" },
			{ "{\"device\":\"loop0\",\"engine\":\"dd\",\"dd\":{\"count\":1},"
			  "\"fio_file\":\"[j]\\n\"}",
			  400, "fio_file: only with engine fio" },
			{ "{\"device\":\"loop0\",\"engine\":\"fio\",\"workloads\":[{\"name\":"
			  "\"a\",\"fio\":{}}],\"fio_file\":\"[j]\\n\"}",
			  400, "fio_file: give workloads or a job file (its sections), not both" },
			{ "{\"device\":\"loop0\",\"engine\":\"fio\",\"fio_file\":7}", 400,
			  "fio_file: expected the text of an fio job file (a string)" },
		};
		size_t i;

		for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
			call(f, "POST", "/api/v1/jobs", NULL, "dry_run=true", refused[i].body,
			     &ans);
			call(f, "POST", "/api/v1/jobs", NULL, NULL, refused[i].body, &real);
			if (ans.status != refused[i].status || real.status != refused[i].status ||
			    !strstr(real.body, refused[i].msg) || strcmp(ans.body, real.body))
				fail_msg("%s: dry run %d %s, POST %d %s", refused[i].body,
				         ans.status, ans.body, real.status, real.body);
		}
	}
	/* fio's own parser has the last word, in its words */
	setenv("FAKE_FIO_PARSE_FAIL", "bogus=1", 1);
	call(f, "POST", "/api/v1/jobs", NULL, NULL,
	     "{\"device\":\"loop0\",\"engine\":\"fio\",\"fio_file\":\"[x]\\nbogus=1\\n\"}", &ans);
	unsetenv("FAKE_FIO_PARSE_FAIL");
	assert_int_equal(ans.status, 422);
	assert_non_null(strstr(ans.body, "\"code\":\"fio_rejected\""));
	assert_non_null(strstr(ans.body, "fio_file: fio rejects it (fio --parse-only, exit status "
	                                 "1): Bad option <bogus=1>; fio: job x dropped"));
	assert_int_equal(agent_fx_jobs(f), 0);
	/* a valid one runs: two loops, two passes, the file pointed at the device */
	snprintf(copy, sizeof(copy), "%s/jobfile.fio", f->root);
	setenv("FAKE_FIO_JOBFILE_COPY", copy, 1);
	post_job(f,
	         "{\"device\":\"loop0\",\"engine\":\"fio\",\"loops\":2,\"fio_file\":"
	         "\"[rw]\\nrw=randwrite\\nbs=4k\\nsize=1m\\n\"}",
	         id, sizeof(id));
	job_wait_state(f, id, "succeeded", &ans);
	unsetenv("FAKE_FIO_JOBFILE_COPY");
	call(f, "GET", "/api/v1/jobs/{id}", id, "fields=passes,spec", NULL, &ans);
	assert_non_null(strstr(ans.body, "\"loop\":1"));
	assert_non_null(strstr(ans.body, "\"loop\":2"));
	assert_non_null(strstr(ans.body, "\"write.iops\""));
	assert_non_null(
	        strstr(ans.body, "\"fio_file\":\"[rw]\\nrw=randwrite\\nbs=4k\\nsize=1m\\n\""));
	text = tu_slurp(copy, &len);
	assert_non_null(strstr(text, "[rw]\nrw=randwrite\nbs=4k\nsize=1m\nfilename=/dev/loop0\n"
	                             "verify_state_save=0\ngroup_reporting\n"));
	free(text);
}

/* Post a fio job held for its moment a minute away and wait until it runs (its engine
 * spawned, waiting for the moment); its id into id. */
static void held_job_post(struct agent_fx *f, char *id, size_t idlen)
{
	struct answer ans;
	char body[512], at[40];

	time_fmt_iso_ms(time_now_s() + 60, at, sizeof(at));
	snprintf(body, sizeof(body),
	         "{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"rw\":\"randwrite\"},"
	         "\"start_at\":\"%s\"}",
	         at);
	post_job(f, body, id, idlen);
	job_wait_state(f, id, "running", &ans);
}

/* A job held for its moment is cancelled at once, not at the moment. */
static void test_job_start_at_cancel(void **state)
{
	struct agent_fx *f = *state;
	struct answer ans;
	char id[16], got[64];
	double t0;

	held_job_post(f, id, sizeof(id));
	t0 = time_mono_s();
	call(f, "DELETE", "/api/v1/jobs/{id}", id, NULL, NULL, &ans);
	assert_int_equal(ans.status, 200);
	assert_true(time_mono_s() - t0 < 2);
	assert_string_equal(json_path_text(ans.body, "state", got, sizeof(got)), "cancelled");
	assert_non_null(strstr(ans.body, "\"begun_at\":null"));
}

/* The same when the held engine lost its SIGTERM (a fake fio that ignores it, in a 30 s setup
 * before its prerun): ended by SIGKILL after the held grace, not the running pass's 5 s. */
static void test_job_start_at_cancel_deaf(void **state)
{
	struct agent_fx *f = *state;
	struct answer ans;
	char id[16], got[64];
	double t0, took_s;

	setenv("FAKE_FIO_IGNORE_TERM", "1", 1);
	setenv("FAKE_FIO_SETUP_S", "30", 1);
	held_job_post(f, id, sizeof(id));
	usleep(300 * 1000); /* the fake fio's trap set, its setup begun */
	t0 = time_mono_s();
	call(f, "DELETE", "/api/v1/jobs/{id}", id, NULL, NULL, &ans);
	took_s = time_mono_s() - t0;
	unsetenv("FAKE_FIO_IGNORE_TERM");
	unsetenv("FAKE_FIO_SETUP_S");
	assert_int_equal(ans.status, 200);
	if (took_s >= 2)
		fail_msg("the cancel of a held job whose engine ignores SIGTERM took %.1f s",
		         took_s);
	assert_string_equal(json_path_text(ans.body, "state", got, sizeof(got)), "cancelled");
}

/* until=end: held while the job runs, however its progress moves, and answered once it has
 * ended; no after needed. */
static void test_job_until_end(void **state)
{
	struct agent_fx *f = *state;
	struct answer ans;
	char id[16], got[32];
	int i;

	setenv("FAKE_FIO_SLEEP_S", "0.3", 1);
	post_job(f,
	         "{\"device\":\"loop0\",\"engine\":\"fio\",\"loops\":3,\"fio\":{\"rw\":"
	         "\"randwrite\"}}",
	         id, sizeof(id));
	for (i = 0; i < 3; i++) {
		call(f, "GET", "/api/v1/jobs/{id}", id, "wait_s=30&until=end", NULL, &ans);
		if (ans.status == 200)
			break;
		assert_int_equal(ans.status, 0); /* held */
		assert_float_equal(ans.wait_s, 30, 0);
		usleep(250 * 1000); /* a pass lands: the version moves, the hold stays */
	}
	assert_int_equal(i, 3);
	/* The wait is over before the end: answered with what there is. */
	call_ex(f, "GET", "/api/v1/jobs/{id}", id, "wait_s=30&until=end&fields=state", NULL, true,
	        &ans);
	assert_int_equal(ans.status, 200);
	job_wait_state(f, id, "succeeded", &ans);
	call(f, "GET", "/api/v1/jobs/{id}", id, "wait_s=30&until=end&fields=state,passes", NULL,
	     &ans);
	assert_int_equal(ans.status, 200);
	assert_string_equal(json_path_text(ans.body, "state", got, sizeof(got)), "succeeded");
	assert_non_null(strstr(ans.body, "\"loop\":3"));
	setenv("FAKE_FIO_SLEEP_S", "0.1", 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_patch_dry_run_refuses_as_patch, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_patch_dry_run_would_apply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_dry_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_fio_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_health_features, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_long_poll, setup, teardown),
		cmocka_unit_test_setup_teardown(test_devices_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_health_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_start_at, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_start_at_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_start_at_cancel_deaf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_until_end, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
