/* test_ctl_preflight.c -- pre-flight against canned agents: every configuration and the job
 * judged by dry runs, every problem one line, and never a request that could write. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeagent.h"
#include "fleet/fleet.h"
#include "plan/plan.h"
#include "plan/plan_parse.h"
#include "run/preflight.h"
#include "run/strategy.h"
#include "testutil.h"

/* What a canned agent refuses. */
struct refuse {
	const char *param_text; /* a PATCH body containing this is refused */
	const char *message;
	bool job_refused;     /* the job dry run answers 400 */
	const char *metrics;  /* the job's metrics as a JSON array (default: write metrics) */
	bool unconfirmed;     /* answer dry runs without "dry_run":true (a broken agent) */
	const char *job_text; /* a job dry run whose body contains this is refused (422) */
	const char *job_message;
};

static int handle(struct fake_agent *a, const struct fake_req *r, struct buf *out)
{
	const struct refuse *rf = a->ctx;

	if (!strcmp(r->method, "PATCH") && strstr(r->path, "/params?dry_run=true")) {
		if (rf && rf->param_text && strstr(r->body, rf->param_text)) {
			buf_printf(out,
			           "{\"error\":{\"code\":\"invalid_value\",\"message\":\"%s\"}}",
			           rf->message);
			return 422;
		}
		buf_printf(out, "{\"device\":\"loop0\",%s\"would_apply\":{}}",
		           rf && rf->unconfirmed ? "" : "\"dry_run\":true,");
		return 200;
	}
	if (!strcmp(r->method, "POST") && !strcmp(r->path, "/api/v1/jobs?dry_run=true")) {
		if (rf && rf->job_text && strstr(r->body, rf->job_text)) {
			buf_printf(
			        out,
			        "{\"error\":{\"code\":\"invalid_fs_option\",\"message\":\"%s\"}}",
			        rf->job_message);
			return 422;
		}
		if (rf && rf->job_refused) {
			buf_puts(out,
			         "{\"error\":{\"code\":\"bad_request\",\"message\":\"fio.iodepth: "
			         "must be 1..4096\"}}");
			return 400;
		}
		buf_printf(out, "{%s\"job\":{},\"metrics\":%s,\"expected_runtime_s\":6}",
		           rf && rf->unconfirmed ? "" : "\"dry_run\":true,",
		           rf && rf->metrics ? rf->metrics
		                             : "[\"write.bw_mib\",\"write.iops\",\"cpu.sys_pct\"]");
		return 200;
	}
	return fake_agent_default(a, r, out);
}

static struct fake_agent agents[2];

static int setup(void **state)
{
	int i;

	(void)state;
	memset(agents, 0, sizeof(agents));
	for (i = 0; i < 2; i++) {
		agents[i].handle = handle;
		agents[i].node = i ? "n2" : "n1";
		agents[i].device = "loop0";
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

/* A grid over scheduler x nr_requests on both canned agents, job options as given. */
static void plan_make(struct plan *p, const char *url2, const char *fio)
{
	char text[2048];
	struct err e = { 0 };

	snprintf(text, sizeof(text),
	         "{\"name\":\"pf\",\"nodes\":[{\"name\":\"node1\",\"url\":\"%s\",\"device\":"
	         "\"loop0\","
	         "\"token\":\"t1\"},{\"name\":\"node2\",\"url\":\"%s\",\"device\":\"loop0\","
	         "\"token\":\"t2\"}],\"baseline\":{\"scheduler\":\"none\",\"nr_requests\":128},"
	         "\"axes\":[{\"param\":\"scheduler\",\"values\":[\"none\",\"mq-deadline\"]},"
	         "{\"param\":\"nr_requests\",\"values\":[64,256]}],\"strategy\":\"grid\","
	         "\"job\":{\"fio\":%s,\"loops\":3},\"labels\":{\"suite\":\"t\"}}",
	         agents[0].url, url2 ? url2 : agents[1].url, fio);
	if (plan_parse(text, NULL, p, &e))
		fail_msg("%s", e.msg);
}

/* Pre-flight p through a fresh fleet; returns its rc, pf filled. */
static int run(const struct plan *p, struct preflight *pf)
{
	struct config *cfgs;
	struct fleet f;
	bool complete;
	int n = strategy_configs(p, STRATEGY_CONFIGS_CAP, &cfgs, &complete), rc;

	fleet_init(&f, p, 5, 0);
	rc = preflight_run(&f, cfgs, n, false, pf);
	fleet_release(&f);
	free(cfgs);
	return rc;
}

/* Nothing any agent got could have changed it: only GETs and dry runs. */
static void assert_nothing_written(struct fake_agent *a)
{
	int i;

	for (i = 0; i < a->nreqs; i++) {
		const struct fake_req *r = &a->reqs[i];

		if (!strcmp(r->method, "GET"))
			continue;
		if (!strstr(r->path, "?dry_run=true"))
			fail_msg("%s %s is not a dry run", r->method, r->path);
	}
}

static void test_all_pass(void **state)
{
	struct preflight pf;
	struct plan p;
	int i;

	(void)state;
	plan_make(&p, NULL, "{\"rw\":\"randwrite\",\"iodepth\":8,\"runtime_s\":2}");
	assert_int_equal(run(&p, &pf), 0);
	assert_int_equal(pf.nproblems, 0);
	assert_int_equal(pf.problems.len, 0);
	/* The baseline and the 4 combinations... */
	assert_int_equal(pf.nconfigs, 5);
	assert_float_equal(pf.expected_runtime_s, 6, 0);
	assert_true(pf.info[0].ok && pf.info[0].dry_run && pf.info[0].dev_writable);
	assert_string_equal(pf.info[1].node, "n2");
	for (i = 0; i < 2; i++) {
		/* ...each judged by every agent as one PATCH body, and the job once. */
		assert_int_equal(fake_agent_count(&agents[i], "PATCH",
		                                  "/api/v1/devices/loop0/params?dry_run=true"),
		                 5);
		assert_int_equal(fake_agent_count(&agents[i], "POST", "/api/v1/jobs?dry_run=true"),
		                 1);
		assert_nothing_written(&agents[i]);
	}
	/* The bodies are exactly those the sweep sends. */
	for (i = 0; i < agents[0].nreqs; i++) {
		const struct fake_req *r = &agents[0].reqs[i];

		if (!strcmp(r->method, "POST"))
			assert_string_equal(
			        r->body,
			        "{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"rw\":"
			        "\"randwrite\",\"iodepth\":8,\"runtime_s\":2},\"loops\":3,"
			        "\"labels\":{\"suite\":\"t\",\"sweep\":\"0\",\"sweep_point\":"
			        "\"0\",\"sweep_config\":\"scheduler=none nr_requests=128\"}}");
	}
	assert_non_null(strstr(agents[0].reqs[agents[0].nreqs - 2].body,
	                       "{\"params\":{\"scheduler\":\"mq-deadline\",\"nr_requests\":256}}"));
	preflight_release(&pf);
	plan_release(&p);
}

static void test_refusals_listed(void **state)
{
	struct refuse r1 = { .param_text = "\"nr_requests\":256",
		             .message = "nr_requests: 256 is above the maximum 128",
		             .job_refused = true },
	              r2 = { .job_refused = true };
	struct preflight pf;
	struct plan p;

	(void)state;
	agents[0].ctx = &r1;
	agents[1].ctx = &r2;
	plan_make(&p, NULL, "{\"rw\":\"randwrite\",\"iodepth\":5000}");
	assert_int_equal(run(&p, &pf), -EINVAL);
	/* Every problem, one line each: node, configuration, the agent's own message. */
	assert_string_equal(pf.problems.data,
	                    "node1: [scheduler=none nr_requests=256] nr_requests: 256 is above the "
	                    "maximum 128 (and 1 more configuration)\n"
	                    "node1: job: fio.iodepth: must be 1..4096\n"
	                    "node2: job: fio.iodepth: must be 1..4096\n");
	assert_int_equal(pf.nproblems, 3);
	assert_nothing_written(&agents[0]);
	assert_nothing_written(&agents[1]);
	preflight_release(&pf);
	plan_release(&p);
}

/* An agent without the dry_run feature would write on a "dry run": it gets none. */
static void test_old_agent_refused(void **state)
{
	struct preflight pf;
	struct plan p;

	(void)state;
	agents[0].old = true;
	agents[0].version = "0.1.0";
	plan_make(&p, NULL, "{\"rw\":\"randwrite\"}");
	assert_int_equal(run(&p, &pf), -EINVAL);
	assert_string_equal(pf.problems.data, "node1: agent 0.1.0 cannot validate without writing "
	                                      "(no dry_run feature); upgrade it\n");
	assert_int_equal(fake_agent_count(&agents[0], "PATCH", "/"), 0);
	assert_int_equal(fake_agent_count(&agents[0], "POST", "/"), 0);
	assert_int_equal(fake_agent_count(&agents[0], "GET", "/api/v1/health"), 1);
	/* The other node is still judged in full. */
	assert_int_equal(fake_agent_count(&agents[1], "PATCH", "/api/v1/devices/loop0/params"), 5);
	preflight_release(&pf);
	plan_release(&p);
}

/* A suite needs agents that run a job's workloads (health feature "workloads"): one without is
 * refused before any dry run, naming the feature. */
static void test_suite_needs_workloads(void **state)
{
	struct preflight pf;
	struct plan p;
	struct err e = { 0 };
	char text[2048];

	(void)state;
	snprintf(text, sizeof(text),
	         "{\"name\":\"pf\",\"nodes\":[{\"name\":\"node1\",\"url\":\"%s\",\"device\":"
	         "\"loop0\",\"token\":\"t1\"}],\"baseline\":{\"nr_requests\":128},"
	         "\"axes\":[{\"param\":\"nr_requests\",\"values\":[64]}],\"strategy\":\"grid\","
	         "\"job\":{\"fio\":{\"runtime_s\":1},\"loops\":3},\"workloads\":[{\"name\":\"A\","
	         "\"fio\":{\"rw\":\"read\"}}]}",
	         agents[0].url);
	if (plan_parse(text, NULL, &p, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(run(&p, &pf), -EINVAL);
	assert_non_null(strstr(pf.problems.data, "node1: agent "));
	assert_non_null(strstr(pf.problems.data, " cannot run a suite's workloads in one job (no "
	                                         "workloads feature); upgrade it\n"));
	assert_int_equal(fake_agent_count(&agents[0], "PATCH", "/"), 0);
	assert_int_equal(fake_agent_count(&agents[0], "POST", "/"), 0);
	preflight_release(&pf);
	plan_release(&p);
}

/* A plan whose job is an fio job file needs agents with the fio_file feature: one without is
 * refused before any dry run, naming the node, the feature and the file; one with it is
 * judged as any node. */
static void test_fio_file_needs_feature(void **state)
{
	struct preflight pf;
	struct plan p;
	struct err e = { 0 };
	char text[2048];

	(void)state;
	snprintf(text, sizeof(text),
	         "{\"name\":\"pf\",\"nodes\":[{\"name\":\"node1\",\"url\":\"%s\",\"device\":"
	         "\"loop0\",\"token\":\"t1\"}],\"baseline\":{\"nr_requests\":128},"
	         "\"axes\":[{\"param\":\"nr_requests\",\"values\":[64]}],\"strategy\":\"grid\","
	         "\"job\":{\"fio_file\":{\"path\":\"randrw.fio\",\"text\":\"[randrw]\\nrw=randrw\\n"
	         "runtime=1\\n\"},\"loops\":3}}",
	         agents[0].url);
	if (plan_parse(text, NULL, &p, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(run(&p, &pf), -EINVAL);
	assert_string_equal(pf.problems.data,
	                    "node1: agent 0.2.0 cannot run an fio job file (no fio_file feature; "
	                    "job.fio_file 'randrw.fio'); upgrade it\n");
	assert_int_equal(fake_agent_count(&agents[0], "PATCH", "/"), 0);
	assert_int_equal(fake_agent_count(&agents[0], "POST", "/"), 0);
	preflight_release(&pf);

	agents[0].fio_file = true;
	assert_int_equal(run(&p, &pf), 0);
	assert_int_equal(pf.nproblems, 0);
	assert_nothing_written(&agents[0]);
	preflight_release(&pf);
	plan_release(&p);
}

/* A node of two devices: refused on an agent that runs one job at a time (both members say
 * why, and get no dry run), judged like any node on one with device_lanes. */
static void test_devices_need_lanes(void **state)
{
	struct preflight pf;
	struct plan p;
	struct err e = { 0 };
	char text[1024];

	(void)state;
	agents[0].device2 = "loop1";
	snprintf(text, sizeof(text),
	         "{\"name\":\"pf\",\"nodes\":[{\"name\":\"node1\",\"url\":\"%s\",\"devices\":"
	         "[\"loop0\",\"loop1\"],\"token\":\"t1\"}],\"baseline\":{\"nr_requests\":128},"
	         "\"axes\":[{\"param\":\"nr_requests\",\"values\":[64]}],"
	         "\"job\":{\"fio\":{\"rw\":\"randwrite\"},\"loops\":3}}",
	         agents[0].url);
	if (plan_parse(text, NULL, &p, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(run(&p, &pf), -EINVAL);
	assert_string_equal(pf.problems.data,
	                    "node1/loop0: agent 0.2.0 runs one job at a time (no device_lanes "
	                    "feature), so the devices of node node1 cannot run at the same moment; "
	                    "upgrade it\n"
	                    "node1/loop1: agent 0.2.0 runs one job at a time (no device_lanes "
	                    "feature), so the devices of node node1 cannot run at the same moment; "
	                    "upgrade it\n");
	assert_int_equal(fake_agent_count(&agents[0], "PATCH", "/"), 0);
	assert_int_equal(fake_agent_count(&agents[0], "POST", "/"), 0);
	preflight_release(&pf);

	agents[0].lanes = true;
	assert_int_equal(run(&p, &pf), 0);
	assert_int_equal(pf.nproblems, 0);
	/* Each member's device judged on its own. */
	assert_true(fake_agent_count(&agents[0], "PATCH", "/api/v1/devices/loop0/params") > 0);
	assert_true(fake_agent_count(&agents[0], "PATCH", "/api/v1/devices/loop1/params") > 0);
	assert_nothing_written(&agents[0]);
	preflight_release(&pf);
	plan_release(&p);
}

static void test_metric_not_reported(void **state)
{
	struct refuse r = { .metrics = "[\"read.bw_mib\",\"read.iops\"]" };
	struct preflight pf;
	struct plan p;

	(void)state;
	agents[1].ctx = &r;
	plan_make(&p, NULL, "{\"rw\":\"randread\"}");
	assert_int_equal(run(&p, &pf), -EINVAL);
	assert_string_equal(pf.problems.data,
	                    "node2: metric 'write.bw_mib' is not reported by this "
	                    "job (it reports read.bw_mib, read.iops)\n");
	preflight_release(&pf);
	plan_release(&p);
}

static void test_node_problems(void **state)
{
	struct refuse r = { .unconfirmed = true };
	struct preflight pf;
	struct plan p;

	(void)state;
	/* node1 lists another device; node2 does not answer at all. */
	agents[0].device = "loop7";
	plan_make(&p, "http://127.0.0.1:9", "{\"rw\":\"randwrite\"}");
	assert_int_equal(run(&p, &pf), -EINVAL);
	/* Nodes in plan order, each node's problems together. */
	assert_true(!strncmp(pf.problems.data,
	                     "node1: device 'loop0' not found\nnode2: not healthy: ",
	                     strlen("node1: device 'loop0' not found\nnode2: not healthy: ")));
	assert_int_equal(pf.nproblems, 2);
	assert_int_equal(fake_agent_count(&agents[0], "PATCH", "/"), 0);
	preflight_release(&pf);
	plan_release(&p);
	/* An agent that answers a dry run without saying it was one may have written. */
	agents[0].device = "loop0";
	agents[0].ctx = &r;
	plan_make(&p, NULL, "{\"rw\":\"randwrite\"}");
	assert_int_equal(run(&p, &pf), -EINVAL);
	assert_non_null(
	        strstr(pf.problems.data,
	               "node1: [scheduler=none nr_requests=128] the agent did not confirm a "
	               "dry run (\"dry_run\":true); it may have changed the device (and 4 "
	               "more configurations)\n"));
	assert_non_null(
	        strstr(pf.problems.data, "node1: job: the agent did not confirm a dry run"));
	preflight_release(&pf);
	plan_release(&p);
}

/* The filesystem layer: fs.* never reach a PATCH; the job is dry-run once per distinct
 * filesystem, its body carrying that filesystem (mkfs as argv tokens); a refusal names the
 * filesystem, once per message with a count. */
static void test_filesystem(void **state)
{
	struct refuse r1 = { .job_text = "\"size=2048\"",
		             .job_message = "filesystem.mkfs[1]: -i size: '2048' is too big" };
	struct preflight pf;
	struct plan p;
	char text[2048];
	struct err e = { 0 };
	int i, k, posts;

	(void)state;
	snprintf(
	        text, sizeof(text),
	        "{\"name\":\"pf\",\"nodes\":[{\"name\":\"node1\",\"url\":\"%s\",\"device\":"
	        "\"loop0\",\"token\":\"t1\"},{\"name\":\"node2\",\"url\":\"%s\",\"device\":"
	        "\"loop0\",\"token\":\"t2\"}],\"baseline\":{\"fs.mkfs\":\"-i size=512\","
	        "\"nr_requests\":128},\"axes\":[{\"param\":\"fs.mkfs\",\"values\":[\"-i size=512\","
	        "\"-i size=2048\"]},{\"param\":\"nr_requests\",\"values\":[64,256]}],"
	        "\"strategy\":\"grid\",\"job\":{\"fio\":{\"rw\":\"write\",\"size\":\"8m\"},"
	        "\"loops\":3,\"filesystem\":{\"type\":\"xfs\",\"mount\":\"noatime\"}}}",
	        agents[0].url, agents[1].url);
	if (plan_parse(text, NULL, &p, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(run(&p, &pf), 0);
	for (i = 0; i < 2; i++) {
		posts = 0;
		for (k = 0; k < agents[i].nreqs; k++) {
			const struct fake_req *r = &agents[i].reqs[k];

			if (!strcmp(r->method, "PATCH"))
				assert_null(strstr(r->body, "fs."));
			if (strcmp(r->method, "POST"))
				continue;
			posts++;
			assert_non_null(strstr(r->body,
			                       "\"filesystem\":{\"type\":\"xfs\",\"mkfs\":["
			                       "\"-i\",\"size="));
			assert_non_null(strstr(r->body, "\"mount\":\"noatime\"}"));
		}
		assert_int_equal(posts, 2); /* -i size=512 and -i size=2048 */
		assert_nothing_written(&agents[i]);
	}
	preflight_release(&pf);
	agents[1].ctx = &r1;
	assert_int_equal(run(&p, &pf), -EINVAL);
	assert_string_equal(pf.problems.data,
	                    "node2: [fs.type=xfs fs.mkfs=-i size=2048 fs.mount=noatime] job: "
	                    "filesystem.mkfs[1]: -i size: '2048' is too big\n");
	preflight_release(&pf);
	plan_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_all_pass, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals_listed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_suite_needs_workloads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fio_file_needs_feature, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_agent_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_devices_need_lanes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_metric_not_reported, setup, teardown),
		cmocka_unit_test_setup_teardown(test_node_problems, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filesystem, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
