/* test_ctl_fleet.c -- the agent API wire layer's requests, as canned agents receive them: the
 * method and URL (path and query) of every call, the PATCH and job POST bodies, the headers,
 * and which nodes are asked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "fakeagent.h"
#include "fleet/fleet.h"
#include "plan/plan.h"
#include "plan/plan_parse.h"
#include "testutil.h"
#include "timeutil.h"

/* When set, the agents' device lists carry an identity no real agent would send. */
static bool hostile_identity;
/* When set, a job's passes carry a suite's workloads A and B. */
static bool suite_passes;

/* Node 1's agent long-polls and records its jobs' read-back; node 2's is older (no long_poll
 * or job_applied feature). */
static int handle(struct fake_agent *a, const struct fake_req *r, struct buf *out)
{
	bool lp = a->ctx != NULL;

	if (hostile_identity && !strcmp(r->method, "GET") && !strcmp(r->path, "/api/v1/devices")) {
		buf_printf(out,
		           "{\"devices\":[{\"name\":\"%s\",\"size_bytes\":1073741824,"
		           "\"rotational\":false,\"scheduler\":\"none\",\"writable\":true,"
		           "\"identity\":{\"model\":\"\\u001b]0;owned\\u0007X\\nY\","
		           "\"vendor\":\" \",\"rotational\":false,\"size_bytes\":512}}],"
		           "\"host\":{\"kernel\":\"6.1\\r\\n[sysfs]\"}}",
		           a->device);
		return 200;
	}

	if (!strcmp(r->method, "GET") && !strcmp(r->path, "/api/v1/health")) {
		buf_printf(
		        out,
		        "{\"status\":\"ok\",\"version\":\"0.2.0\",\"node\":\"%s\",\"uptime_s\":5,"
		        "\"features\":[\"dry_run\"%s]}",
		        a->node, lp ? ",\"long_poll\",\"job_applied\"" : "");
		return 200;
	}
	if (!strcmp(r->method, "PATCH") && strstr(r->path, "/params")) {
		if (strstr(r->body, "\"quota\"")) { /* a code of a newer agent */
			buf_puts(out,
			         "{\"error\":{\"code\":\"quota_exceeded\",\"message\":\"full\"}}");
			return 507;
		}
		if (strstr(r->body, "\"refuse\"")) {
			buf_puts(out,
			         "{\"error\":{\"code\":\"unknown_param\",\"message\":\"no such "
			         "parameter 'refuse'\"}}");
			return 422;
		}
		buf_printf(out,
		           "{\"device\":\"%s\",%s\"applied\":{\"nr_requests\":{\"value\":64}}}",
		           a->device, strstr(r->path, "dry_run") ? "\"dry_run\":true," : "");
		return 200;
	}
	if (!strcmp(r->method, "POST") && !strncmp(r->path, "/api/v1/jobs", 12)) {
		if (strstr(r->path, "dry_run"))
			buf_puts(out, "{\"dry_run\":true,\"metrics\":[\"write.bw_mib\"]}");
		else
			buf_printf(out, "{\"id\":%d,\"state\":\"queued\"}", lp ? 5 : 9);
		return strstr(r->path, "dry_run") ? 200 : 202;
	}
	if (!strcmp(r->method, "POST") && strstr(r->path, "/sessions")) {
		buf_puts(out, strstr(r->path, "/renew") ? "{\"id\":3}"
		                                        : "{\"id\":3,\"state\":\"open\"}");
		return strstr(r->path, "/renew") ? 200 : 201;
	}
	if (!strcmp(r->method, "DELETE")) {
		buf_puts(out, "{\"id\":3}");
		return 200;
	}
	if (suite_passes && !strcmp(r->method, "GET") && !strncmp(r->path, "/api/v1/jobs/", 13)) {
		int q;

		buf_puts(out, "{\"id\":5,\"state\":\"succeeded\",\"version\":78,\"progress\":1,"
		              "\"loops_done\":3,\"passes\":[");
		for (q = 0; q < 3; q++)
			buf_printf(out,
			           "%s{\"metrics\":{\"write.bw_mib\":%d},\"workloads\":[{\"name\":"
			           "\"A\",\"metrics\":{\"write.bw_mib\":%d}},{\"name\":\"B\","
			           "\"metrics\":{\"write.bw_mib\":%d}}]}",
			           q ? "," : "", 100 + q, 100 + q, 200 + q);
		buf_puts(out, "]}");
		return 200;
	}
	if (!strcmp(r->method, "GET") && !strncmp(r->path, "/api/v1/jobs/", 13)) {
		buf_puts(out,
		         "{\"id\":5,\"state\":\"running\",\"version\":77,\"progress\":0.5,"
		         "\"loops_done\":1,\"passes\":[{\"metrics\":{\"write.bw_mib\":100.5}}]}");
		return 200;
	}
	return fake_agent_default(a, r, out);
}

static struct fake_agent agents[2];

static int setup(void **state)
{
	static const char *const names[] = { "node1", "node2" };
	static const char *const devs[] = { "sda", "nvme0n1" };
	int i;

	(void)state;
	memset(agents, 0, sizeof(agents));
	for (i = 0; i < 2; i++) {
		agents[i].handle = handle;
		agents[i].node = names[i];
		agents[i].device = devs[i];
		agents[i].ctx = i == 0 ? (void *)&agents[i] : NULL;
		fake_agent_start(&agents[i]);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fake_agent_stop(&agents[0]);
	fake_agent_stop(&agents[1]);
	return 0;
}

/* Forget what the agents received. */
static void agents_reset(void)
{
	int i, j;

	for (i = 0; i < 2; i++) {
		pthread_mutex_lock(&agents[i].lock);
		for (j = 0; j < agents[i].nreqs; j++) {
			free(agents[i].reqs[j].body);
			free(agents[i].reqs[j].head);
		}
		agents[i].nreqs = 0;
		pthread_mutex_unlock(&agents[i].lock);
	}
}

/* The plan: two nodes with their own tokens and devices, a fio job with options, labels and a
 * directory. */
static void plan_make(struct plan *p)
{
	char text[2048];
	struct err e;

	snprintf(
	        text, sizeof(text),
	        "{\"name\":\"wire\",\"nodes\":["
	        "{\"name\":\"node1\",\"url\":\"%s\",\"device\":\"sda\",\"token\":\"tok-one\"},"
	        "{\"name\":\"node2\",\"url\":\"%s\",\"device\":\"nvme0n1\",\"token\":\"tok-two\"}],"
	        "\"baseline\":{\"scheduler\":\"mq-deadline\",\"nr_requests\":128},"
	        "\"axes\":[{\"param\":\"nr_requests\",\"values\":[64]}],"
	        "\"job\":{\"engine\":\"fio\",\"fio\":{\"rw\":\"randwrite\",\"bs\":\"4M\","
	        "\"iodepth\":8,\"direct\":true},\"loops\":3,\"directory\":\"/mnt/bench\"},"
	        "\"labels\":{\"strip_size\":\"256k\"}}",
	        agents[0].url, agents[1].url);
	assert_int_equal(plan_parse(text, NULL, p, &e), 0);
}

/* The request j of agent i. */
static const struct fake_req *req(int i, int j)
{
	assert_true(j < agents[i].nreqs);
	return &agents[i].reqs[j];
}

/* The first request of agent i with this method: a long-poll that an earlier test aborted after
 * it was sent may still reach its agent after agents_reset (under load it does), so a test that
 * looks for its own request skips those. */
static const struct fake_req *req_of(int i, const char *method)
{
	int j;

	for (j = 0; j < agents[i].nreqs; j++)
		if (!strcmp(agents[i].reqs[j].method, method))
			return &agents[i].reqs[j];
	fail_msg("agent %d got no %s request", i, method);
	return NULL;
}

/* The header line "Name: value" of r is present (names case-insensitive, as HTTP has it). */
static bool has_header(const struct fake_req *r, const char *name, const char *value)
{
	const char *line = strstr(r->head, "\r\n");
	size_t n = strlen(name);

	while (line && line[2]) {
		line += 2;
		if (!strncasecmp(line, name, n) && line[n] == ':') {
			const char *v = line + n + 1;
			const char *end = strstr(v, "\r\n");

			while (*v == ' ')
				v++;
			if (strlen(value) == (size_t)((end ? end : v + strlen(v)) - v) &&
			    !strncmp(v, value, strlen(value)))
				return true;
		}
		line = strstr(line, "\r\n");
	}
	return false;
}

/* Every request carries the node's own token, asks for JSON, and says what its body is. */
static void assert_headers(int i, const struct fake_req *r)
{
	assert_true(has_header(r, "Authorization", i == 0 ? "Bearer tok-one" : "Bearer tok-two"));
	assert_true(has_header(r, "Accept", "application/json"));
	if (r->body[0])
		assert_true(has_header(r, "Content-Type", "application/json"));
	else
		assert_false(has_header(r, "Content-Type", "application/json"));
}

static json_t *body_json(const struct fake_req *r)
{
	json_t *j = json_loads(r->body, 0, NULL);

	assert_non_null(j);
	return j;
}

static const char *str_at(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	assert_non_null(s);
	return s;
}

/* health, devices and (with_params) the device's params, with every header. */
static void test_probe(void **state)
{
	struct node_info info[2];
	struct plan p;
	struct fleet f;
	int i;

	(void)state;
	agents_reset();
	plan_make(&p);
	fleet_init(&f, &p, 5, 0);
	fleet_probe(&f, true, info);
	for (i = 0; i < 2; i++) {
		assert_int_equal(agents[i].nreqs, 3);
		assert_int_equal(fake_agent_count(&agents[i], "GET", "/api/v1/health"), 1);
		assert_int_equal(fake_agent_count(&agents[i], "GET", "/api/v1/devices"), 2);
		assert_int_equal(fake_agent_count(&agents[i], "GET",
		                                  i == 0 ? "/api/v1/devices/sda/params"
		                                         : "/api/v1/devices/nvme0n1/params"),
		                 1);
		assert_headers(i, req(i, 0));
		assert_string_equal(req(i, 0)->body, "");
	}
	assert_true(f.long_poll[0]);
	assert_false(f.long_poll[1]);
	assert_true(f.job_applied[0] && info[0].job_applied);
	assert_false(f.job_applied[1] || info[1].job_applied);
	node_info_release(info, 2);
	/* Without params, and never to a dropped node. */
	agents_reset();
	f.active[1] = false;
	fleet_probe(&f, false, info);
	assert_int_equal(agents[0].nreqs, 2);
	assert_int_equal(fake_agent_count(&agents[0], "GET", "/api/v1/devices/sda"), 0);
	assert_int_equal(agents[1].nreqs, 0);
	node_info_release(info, 2);
	fleet_release(&f);
	plan_release(&p);
}

/* An agent is not trusted to have cleaned its identity: the probe holds every string to the
 * agent's own rule (no terminal escape, no line break); a field left empty is not reported. */
static void test_probe_identity_cleaned(void **state)
{
	struct node_info info[2];
	struct plan p;
	struct fleet f;

	(void)state;
	agents_reset();
	plan_make(&p);
	fleet_init(&f, &p, 5, 0);
	hostile_identity = true;
	fleet_probe(&f, false, info);
	hostile_identity = false;
	assert_true(info[0].ok);
	/* Cleaned where the answer came in (answer.h): the escapes written out, one line. */
	assert_string_equal(info[0].identity[IDF_MODEL], "\\x1b]0;owned\\x07X\\x0aY");
	assert_null(info[0].identity[IDF_VENDOR]);
	assert_string_equal(info[0].identity[IDF_ROTATIONAL], "false");
	assert_string_equal(info[0].identity[IDF_SIZE_BYTES], "512");
	assert_string_equal(info[1].identity[IDF_KERNEL], "6.1\\x0d\\x0a[sysfs]");
	node_info_release(info, 2);
	fleet_release(&f);
	plan_release(&p);
}

/* A dry-run PATCH is the PATCH body the sweep sends (integers as numbers), on ?dry_run=true,
 * to the nodes asked only; the job dry run is the sweep's job body with labels "0". */
static void test_dry_runs(void **state)
{
	struct fleet_dry_run d[2];
	bool ask[2] = { false, true };
	struct config c = { 0 };
	json_t *b, *params, *labels, *opts;
	struct plan p;
	struct fleet f;

	(void)state;
	agents_reset();
	plan_make(&p);
	fleet_init(&f, &p, 5, 0);
	config_set(&c, "scheduler", "none", false);
	config_set(&c, "nr_requests", "64", true);
	fleet_params_dry_run(&f, ask, &c, d);
	assert_int_equal(agents[0].nreqs, 0);
	assert_int_equal(agents[1].nreqs, 1);
	assert_string_equal(req(1, 0)->method, "PATCH");
	assert_string_equal(req(1, 0)->path, "/api/v1/devices/nvme0n1/params?dry_run=true");
	assert_headers(1, req(1, 0));
	b = body_json(req(1, 0));
	assert_int_equal(json_object_size(b), 1);
	params = json_object_get(b, "params");
	assert_int_equal(json_object_size(params), 2);
	assert_string_equal(str_at(params, "scheduler"), "none");
	assert_true(json_is_integer(json_object_get(params, "nr_requests")));
	assert_int_equal(json_integer_value(json_object_get(params, "nr_requests")), 64);
	json_decref(b);
	assert_true(d[1].confirmed);
	assert_false(d[0].failed);
	fleet_dry_run_release(d, 2);

	agents_reset();
	ask[0] = true;
	fleet_job_dry_run(&f, ask, NULL, d);
	assert_string_equal(req(0, 0)->method, "POST");
	assert_string_equal(req(0, 0)->path, "/api/v1/jobs?dry_run=true");
	assert_headers(0, req(0, 0));
	b = body_json(req(0, 0));
	assert_string_equal(str_at(b, "device"), "sda");
	assert_string_equal(str_at(b, "engine"), "fio");
	assert_int_equal(json_integer_value(json_object_get(b, "loops")), 3);
	assert_string_equal(str_at(b, "directory"), "/mnt/bench");
	opts = json_object_get(b, "fio");
	assert_string_equal(str_at(opts, "rw"), "randwrite");
	assert_string_equal(str_at(opts, "bs"), "4M");
	assert_int_equal(json_integer_value(json_object_get(opts, "iodepth")), 8);
	assert_true(json_is_true(json_object_get(opts, "direct")));
	labels = json_object_get(b, "labels");
	assert_int_equal(json_object_size(labels), 4);
	assert_string_equal(str_at(labels, "strip_size"), "256k");
	assert_string_equal(str_at(labels, "sweep"), "0");
	assert_string_equal(str_at(labels, "sweep_point"), "0");
	assert_string_equal(str_at(labels, "sweep_config"),
	                    "scheduler=mq-deadline nr_requests=128");
	json_decref(b);
	b = body_json(req(1, 0));
	assert_string_equal(str_at(b, "device"), "nvme0n1");
	json_decref(b);
	fleet_dry_run_release(d, 2);
	fleet_release(&f);
	plan_release(&p);
}

/* A point's start: on each node its PATCH, then its job POST with this run's loops and the
 * sweep's labels; no POST where the PATCH was refused, nothing where run is false. */
static void test_point_start(void **state)
{
	struct fleet_node_run nodes[2] = { { .run = true }, { .run = true } };
	struct config c = { 0 };
	json_t *b, *labels;
	struct plan p;
	struct fleet f;

	(void)state;
	agents_reset();
	plan_make(&p);
	fleet_init(&f, &p, 5, 0);
	config_set(&c, "nr_requests", "64", true);
	fleet_point_start(&f, &c, 42, 3, 7, nodes);
	assert_int_equal(agents[0].nreqs, 2);
	assert_string_equal(req(0, 0)->method, "PATCH");
	assert_string_equal(req(0, 0)->path, "/api/v1/devices/sda/params");
	assert_string_equal(req(0, 0)->body, "{\"params\":{\"nr_requests\":64}}");
	assert_headers(0, req(0, 0));
	assert_string_equal(req(0, 1)->method, "POST");
	assert_string_equal(req(0, 1)->path, "/api/v1/jobs");
	assert_headers(0, req(0, 1));
	b = body_json(req(0, 1));
	assert_int_equal(json_integer_value(json_object_get(b, "loops")), 7);
	labels = json_object_get(b, "labels");
	assert_string_equal(str_at(labels, "sweep"), "42");
	assert_string_equal(str_at(labels, "sweep_point"), "3");
	assert_string_equal(str_at(labels, "sweep_config"), "nr_requests=64");
	assert_string_equal(str_at(labels, "strip_size"), "256k");
	json_decref(b);
	assert_int_equal(nodes[0].job_id, 5);
	assert_int_equal(nodes[1].job_id, 9);
	assert_string_equal(nodes[0].applied.s[0].value, "64");
	assert_false(nodes[0].patch.failed);
	assert_false(nodes[0].post.failed);
	/* The next run sends its own loops and point: the bodies are built per run. */
	agents_reset();
	nodes[1].run = false;
	fleet_point_start(&f, &c, 42, 4, 1, nodes);
	assert_int_equal(agents[1].nreqs, 0);
	assert_int_equal(nodes[1].job_id, 0);
	b = body_json(req(0, 1));
	assert_int_equal(json_integer_value(json_object_get(b, "loops")), 1);
	assert_string_equal(str_at(json_object_get(b, "labels"), "sweep_point"), "4");
	json_decref(b);
	/* A configuration longer than the agent's label limit is cut after its last whole
	 * setting that fits, with " ...". */
	agents_reset();
	{
		struct config big = { 0 };
		char name[32], val[64];
		const char *cfg;
		int i;

		for (i = 0; i < 12; i++) {
			snprintf(name, sizeof(name), "iosched.knob_%02d", i);
			snprintf(val, sizeof(val), "%d", 1000000 + i);
			config_set(&big, name, val, true);
		}
		fleet_point_start(&f, &big, 42, 5, 1, nodes);
		b = body_json(req(0, 1));
		cfg = str_at(json_object_get(b, "labels"), "sweep_config");
		assert_true(strlen(cfg) < 256);
		assert_non_null(strstr(cfg, "iosched.knob_00=1000000 iosched.knob_01=1000001 "));
		assert_string_equal(cfg + strlen(cfg) - 4, " ...");
		assert_null(strstr(cfg, "knob_11"));
		json_decref(b);
	}
	/* A refused PATCH starts no job there. */
	agents_reset();
	nodes[1].run = true;
	config_set(&c, "refuse", "1", true);
	fleet_point_start(&f, &c, 42, 5, 3, nodes);
	assert_int_equal(agents[0].nreqs, 1);
	assert_int_equal(agents[1].nreqs, 1);
	assert_true(nodes[0].patch.failed);
	assert_false(nodes[0].patch.unreachable);
	assert_non_null(strstr(nodes[0].patch.err.msg, "HTTP 422: no such parameter 'refuse'"));
	assert_int_equal(nodes[0].patch.err.code, ERR_UNKNOWN_PARAM);
	assert_int_equal(nodes[0].job_id, 0);
	fleet_release(&f);
	plan_release(&p);
}

/* A node of two devices on one agent: a session on each device, and a run posts one job per
 * device, each with its own device and the point's values, both with the run's one start_at. */
static void test_two_devices_one_agent(void **state)
{
	struct fleet_node_run nodes[2] = { { .run = true, .start_at = 1795993416.25 },
		                           { .run = true, .start_at = 1795993416.25 } };
	struct fleet_result res[2];
	struct config c = { 0 };
	const char *devs[2];
	char text[1024];
	struct plan p;
	struct fleet f;
	struct err e;
	int i, k;

	(void)state;
	agents_reset();
	snprintf(text, sizeof(text),
	         "{\"name\":\"two\",\"nodes\":[{\"name\":\"node1\",\"url\":\"%s\",\"devices\":"
	         "[\"sda\",\"sdb\"],\"token\":\"tok-one\"}],\"baseline\":{\"nr_requests\":128},"
	         "\"axes\":[{\"param\":\"nr_requests\",\"values\":[64]}],"
	         "\"job\":{\"fio\":{\"rw\":\"randwrite\"},\"loops\":1}}",
	         agents[0].url);
	assert_int_equal(plan_parse(text, NULL, &p, &e), 0);
	assert_int_equal(p.nnodes, 2);
	fleet_init(&f, &p, 5, 0);
	fleet_sessions_open(&f, 60, res);
	assert_int_equal(agents[0].nreqs, 2);
	devs[0] = req(0, 0)->path;
	devs[1] = req(0, 1)->path;
	assert_true((!strcmp(devs[0], "/api/v1/devices/sda/sessions") &&
	             !strcmp(devs[1], "/api/v1/devices/sdb/sessions")) ||
	            (!strcmp(devs[0], "/api/v1/devices/sdb/sessions") &&
	             !strcmp(devs[1], "/api/v1/devices/sda/sessions")));
	agents_reset();
	for (i = 0; i < 2; i++)
		f.start_at[i] = f.job_applied[i] = true;
	f.params_in_job = true;
	config_set(&c, "nr_requests", "64", true);
	fleet_point_start(&f, &c, 7, 1, 1, nodes);
	assert_int_equal(agents[0].nreqs, 2); /* two job POSTs, no PATCH */
	for (k = 0; k < 2; k++) {
		json_t *b;

		assert_string_equal(req(0, k)->method, "POST");
		assert_string_equal(req(0, k)->path, "/api/v1/jobs");
		b = body_json(req(0, k));
		devs[k] = str_at(b, "device")[2] == 'a' ? "sda" : "sdb";
		assert_string_equal(str_at(b, "start_at"), "2026-11-29T23:03:36.250Z");
		assert_int_equal(json_integer_value(json_object_get(json_object_get(b, "params"),
		                                                    "nr_requests")),
		                 64);
		json_decref(b);
	}
	assert_string_not_equal(devs[0], devs[1]);
	assert_false(nodes[0].post.failed);
	assert_false(nodes[1].post.failed);
	fleet_release(&f);
	plan_release(&p);
}

/* Sessions: open with the lease, renew, close with restore; only where a session is open. */
static void test_sessions(void **state)
{
	struct fleet_result res[2];
	struct plan p;
	struct fleet f;
	int i;

	(void)state;
	agents_reset();
	plan_make(&p);
	fleet_init(&f, &p, 5, 0);
	fleet_sessions_open(&f, 60, res);
	assert_string_equal(req(0, 0)->path, "/api/v1/devices/sda/sessions");
	assert_string_equal(req(1, 0)->path, "/api/v1/devices/nvme0n1/sessions");
	for (i = 0; i < 2; i++) {
		assert_string_equal(req(i, 0)->method, "POST");
		assert_string_equal(req(i, 0)->body, "{\"ttl_s\":60}");
		assert_headers(i, req(i, 0));
		assert_int_equal(f.session_id[i], 3);
	}
	fleet_sessions_renew(&f, res);
	assert_string_equal(req(0, 1)->method, "POST");
	assert_string_equal(req(0, 1)->path, "/api/v1/sessions/3/renew");
	assert_string_equal(req(0, 1)->body, "{}");
	f.session_id[1] = 0;
	fleet_sessions_close(&f, true, res);
	assert_string_equal(req(0, 2)->method, "DELETE");
	assert_string_equal(req(0, 2)->path, "/api/v1/sessions/3?restore=true");
	assert_string_equal(req(0, 2)->body, "");
	assert_headers(0, req(0, 2));
	assert_int_equal(agents[1].nreqs, 2);
	assert_int_equal(f.session_id[0], 0);
	fleet_release(&f);
	plan_release(&p);
}

/* A suite job's status holds its passes' series as the passes come (2 series x 3 passes
 * here), not a fixed block for the most passes and series a plan may have (32 KB a node). */
static void test_suite_job_series(void **state)
{
	struct fleet_node_run nodes[2] = { { .job_id = 5 }, { .job_id = 0 } };
	struct node_info info[2];
	struct plan p;
	struct fleet f;
	char text[2048];
	struct err e;
	int tries;

	(void)state;
	snprintf(
	        text, sizeof(text),
	        "{\"name\":\"wire\",\"nodes\":["
	        "{\"name\":\"node1\",\"url\":\"%s\",\"device\":\"sda\",\"token\":\"tok-one\"},"
	        "{\"name\":\"node2\",\"url\":\"%s\",\"device\":\"nvme0n1\",\"token\":\"tok-two\"}],"
	        "\"baseline\":{\"nr_requests\":128},\"axes\":[{\"param\":\"nr_requests\","
	        "\"values\":[64]}],\"job\":{\"engine\":\"fio\",\"fio\":{\"rw\":\"write\"},"
	        "\"loops\":3},\"workloads\":[{\"name\":\"A\",\"fio\":{\"bs\":\"4k\"},\"metric\":"
	        "\"write.bw_mib\"},{\"name\":\"B\",\"fio\":{\"bs\":\"1M\"},\"metric\":"
	        "\"write.bw_mib\"}]}",
	        agents[0].url, agents[1].url);
	assert_int_equal(plan_parse(text, NULL, &p, &e), 0);
	fleet_init(&f, &p, 5, 0);
	fleet_probe(&f, false, info);
	node_info_release(info, 2);
	suite_passes = true;
	for (tries = 0; tries < 50 && !nodes[0].job.terminal; tries++)
		fleet_jobs_wait(&f, nodes, 0.001, 0.5);
	suite_passes = false;
	assert_true(nodes[0].job.succeeded);
	assert_int_equal(nodes[0].job.npasses, 3);
	assert_int_equal(nodes[0].job.nseries, 2);
	assert_true(nodes[0].job.series_n >= 6 && nodes[0].job.series_n <= 12);
	assert_float_equal(nodes[0].job.series[2 * 1 + 1], 201, 0);
	assert_float_equal(nodes[0].job.series[2 * 2 + 0], 102, 0);
	assert_float_equal(nodes[0].job.passes[2], 102, 0); /* the lead workload's, A */
	assert_true(sizeof(struct job_status) < 4096);
	fleet_node_runs_release(nodes, 2);
	assert_null(nodes[0].job.series);
	fleet_jobs_wait_end(&f);
	fleet_release(&f);
	plan_release(&p);
}

/* Waits: a long-poll with the members the runner reads, after the version last seen; a plain
 * GET to the older agent; cancel is a DELETE of each job that has an id. */
static void test_waits_and_cancel(void **state)
{
	struct fleet_node_run nodes[2] = { { .job_id = 5 }, { .job_id = 9 } };
	struct node_info info[2];
	int64_t ids[2] = { 0, 9 };
	struct fleet_result res[2];
	struct plan p;
	struct fleet f;
	bool answered1 = false;
	double t0;
	int k, n, deletes;

	(void)state;
	plan_make(&p);
	fleet_init(&f, &p, 5, 0);
	fleet_probe(&f, false, info);
	node_info_release(info, 2);
	agents_reset();
	/* Node 2's agent answers without a long-poll, so it may answer many times before node 1's
	 * first answer: wait for an answer from each (bounded by time, not by answers). */
	t0 = time_mono_s();
	while ((!nodes[0].job.version || !answered1) && time_mono_s() - t0 < 30) {
		fleet_jobs_wait(&f, nodes, 0.001, 0.5);
		answered1 = answered1 || nodes[1].fresh;
	}
	assert_true(answered1);
	assert_string_equal(req(0, 0)->method, "GET");
	assert_string_equal(req(0, 0)->path,
	                    "/api/v1/jobs/5?wait_s=30&after=0&fields=state,progress,loops_done,"
	                    "passes,started_at,finished_at,error");
	assert_headers(0, req(0, 0));
	assert_string_equal(req(1, 0)->path, "/api/v1/jobs/9");
	assert_headers(1, req(1, 0));
	assert_int_equal(nodes[0].job.version, 77);
	assert_int_equal(nodes[0].job.npasses, 1);
	assert_false(nodes[0].job.terminal);
	/* The next long-poll asks for news after the version it saw. */
	t0 = time_mono_s();
	while (agents[0].nreqs < 2 && time_mono_s() - t0 < 30)
		fleet_jobs_wait(&f, nodes, 0.001, 0.5);
	assert_string_equal(req(0, 1)->path,
	                    "/api/v1/jobs/5?wait_s=30&after=77&fields=state,progress,loops_done,"
	                    "passes,started_at,finished_at,error");
	fleet_jobs_wait_end(&f);
	agents_reset();
	fleet_jobs_cancel(&f, ids, res);
	/* Only node 2's job is cancelled: one DELETE, none to node 1. A poll that wait_end
	 * aborted after it was sent may still reach its agent now (under load it does): that is
	 * a GET of the node's own job, nothing else. The DELETE was answered, so recorded. */
	for (k = 0, n = agents[0].nreqs; k < n; k++) {
		assert_string_equal(req(0, k)->method, "GET");
		assert_string_equal(req(0, k)->path, "/api/v1/jobs/5");
	}
	for (k = 0, n = agents[1].nreqs, deletes = 0; k < n; k++) {
		assert_string_equal(req(1, k)->path, "/api/v1/jobs/9");
		if (strcmp(req(1, k)->method, "DELETE")) {
			assert_string_equal(req(1, k)->method, "GET");
			continue;
		}
		assert_string_equal(req(1, k)->body, "");
		deletes++;
	}
	assert_int_equal(deletes, 1);
	fleet_release(&f);
	plan_release(&p);
}

/* apply: the plain PATCH on every active node, its read-back. */
static void test_apply(void **state)
{
	struct config c = { 0 }, applied[2];
	struct fleet_result res[2];
	unsigned adjusted[2];
	struct plan p;
	struct fleet f;

	(void)state;
	agents_reset();
	plan_make(&p);
	fleet_init(&f, &p, 5, 0);
	config_set(&c, "nr_requests", "64", true);
	config_set(&c, "scheduler", "none", false);
	fleet_params_apply(&f, &c, applied, adjusted, res);
	assert_string_equal(req_of(0, "PATCH")->path, "/api/v1/devices/sda/params");
	assert_string_equal(req_of(0, "PATCH")->body,
	                    "{\"params\":{\"nr_requests\":64,\"scheduler\":\"none\"}}");
	assert_string_equal(req_of(1, "PATCH")->path, "/api/v1/devices/nvme0n1/params");
	assert_headers(1, req_of(1, "PATCH"));
	assert_false(res[0].failed);
	assert_string_equal(config_get(&applied[0], "nr_requests")->value, "64");
	fleet_release(&f);
	plan_release(&p);
}

/* A failed request's struct err carries the agent's code (a word this controller does not know
 * is kept as the agent said it), or the transport's own code when no agent answered. */
static void test_errors_carry_code(void **state)
{
	struct fake_agent *ap[2] = { &agents[0], &agents[1] };
	struct config c = { 0 }, applied[2];
	struct fleet_result res[2];
	struct node_info info[2];
	struct fake_fleet ff;
	unsigned adjusted[2];
	struct plan p;
	struct fleet f;

	(void)state;
	agents_reset();
	plan_make(&p);
	fleet_init(&f, &p, 5, 0);
	config_set(&c, "quota", "1", true);
	fleet_params_apply(&f, &c, applied, adjusted, res);
	assert_true(res[0].failed);
	assert_int_equal(res[0].err.code, ERR_UNLISTED);
	assert_string_equal(err_word(&res[0].err), "quota_exceeded");
	assert_string_equal(res[0].err.msg, "HTTP 507: full");
	/* No answer at all: unreachable, with the transport's text. */
	fake_fleet_init(&ff, ap, 2);
	ff.down[1] = true;
	fleet_transport_set(&f, &ff.t);
	fleet_probe(&f, false, info);
	assert_true(info[0].ok);
	assert_int_equal(info[0].err.code, ERR_NONE);
	assert_false(info[1].ok);
	assert_int_equal(info[1].err.code, ERR_UNREACHABLE);
	assert_non_null(strstr(info[1].err.msg, "Could not connect"));
	node_info_release(info, 2);
	fleet_transport_set(&f, NULL);
	fake_fleet_release(&ff);
	fleet_release(&f);
	plan_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_probe_identity_cleaned),
		cmocka_unit_test(test_dry_runs),
		cmocka_unit_test(test_point_start),
		cmocka_unit_test(test_two_devices_one_agent),
		cmocka_unit_test(test_sessions),
		cmocka_unit_test(test_waits_and_cancel),
		cmocka_unit_test(test_suite_job_series),
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_errors_carry_code),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
