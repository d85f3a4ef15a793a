/* test_ctl_sweeprun.c -- the sweep loop (sweeprun.c, what `fleettune-ctl sweep` runs) against a
 * fleet of canned agents in-process (the transport seam, fakeagent.h) whose figures follow the
 * nr_requests they were given: pre-flight, a session per node, every point's rounds, the best
 * found and stored, every node restored; a pre-flight refusal that changes nothing; a node
 * that stops answering (the sweep aborts, or goes on without it); a stop that interrupts. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/sweeprun.h"
#include "ctltest.h"
#include "fakeagent.h"
#include "model/sweep.h"
#include "plan/plan.h"
#include "plan/plan_parse.h"
#include "store/ctlstore.h"
#include "testutil.h"
#include "xmalloc.h"

#define NODES 2
#define JOBS 256

/* One canned agent: its device's nr_requests and its jobs. */
struct snode {
	int k;
	int nr_requests;    /* live */
	bool refuse_256;    /* its dry run refuses nr_requests 256 */
	int die_after_jobs; /* > 0: answers nothing once it started this many jobs */
	int next_job;
	int job_nr[JOBS];    /* the nr_requests a job ran with */
	int job_loops[JOBS]; /* its loops */
	int job_polls[JOBS];
	int sessions, restores, patches, jobs_posted;
	volatile sig_atomic_t *stop_at_job; /* set once this agent started stop_job jobs */
	int stop_job;
};

static struct snode nodes[NODES];
static struct fake_agent agents[NODES];
static struct fake_agent *agentp[NODES];
static struct fake_fleet ff; /* the handler takes a node down (die_after_jobs) */
static char *dbdir, dbpath[512];
static volatile sig_atomic_t stop_flag;

/* The figure of pass i of a job at nr_requests nr on node k: 256 gains 20 %, 64 loses 10 %,
 * with ±1 % alternating noise. */
static double figure(int k, int nr, int i)
{
	double base = 100.0 * (k + 1), f = nr == 256 ? 1.2 : nr == 64 ? 0.9 : 1.0;

	return base * f * (1 + ((i + k) % 2 ? 0.01 : -0.01));
}

static int job_get(struct snode *n, int id, const char *path, struct buf *out)
{
	int done, i;

	if (id <= 0 || id >= JOBS)
		return 404;
	done = ++n->job_polls[id] < n->job_loops[id] ? n->job_polls[id] : n->job_loops[id];
	buf_printf(out,
	           "{\"id\":%d,\"state\":\"%s\",\"progress\":%g,\"loops_done\":%d,"
	           "\"started_at\":\"2026-11-29T23:03:36.250Z\",\"finished_at\":"
	           "\"2026-11-29T23:03:38.250Z\",\"passes\":[",
	           id, done == n->job_loops[id] ? "succeeded" : "running",
	           (double)done / n->job_loops[id], done);
	for (i = 0; i < done; i++)
		buf_printf(out, "%s{\"loop\":%d,\"metrics\":{\"write.bw_mib\":%.3f}}", i ? "," : "",
		           i + 1, figure(n->k, n->job_nr[id], id + i));
	buf_puts(out, "]}");
	(void)path;
	return 200;
}

static int handle(struct fake_agent *a, const struct fake_req *r, struct buf *out)
{
	struct snode *n = a->ctx;
	const char *p = r->path;
	const char *nr;

	if (!strcmp(r->method, "PATCH") && strstr(p, "/params?dry_run=true")) {
		if (n->refuse_256 && strstr(r->body, "\"nr_requests\":256")) {
			buf_puts(out, "{\"error\":{\"code\":\"out_of_range\",\"message\":"
			              "\"nr_requests=256 is out of range on 'loop0' (max 128)\"}}");
			return 422;
		}
		buf_puts(out, "{\"device\":\"loop0\",\"dry_run\":true,\"would_apply\":{}}");
		return 200;
	}
	if (!strcmp(r->method, "POST") && !strcmp(p, "/api/v1/jobs?dry_run=true")) {
		buf_puts(out, "{\"dry_run\":true,\"job\":{},\"metrics\":[\"write.bw_mib\","
		              "\"write.iops\"],\"expected_runtime_s\":2}");
		return 200;
	}
	if (!strcmp(r->method, "POST") && !strcmp(p, "/api/v1/devices/loop0/sessions")) {
		n->sessions++;
		buf_puts(out, "{\"id\":7,\"state\":\"open\"}");
		return 201;
	}
	if (!strncmp(p, "/api/v1/sessions/7", 18)) {
		if (!strcmp(r->method, "DELETE")) {
			n->restores++;
			n->nr_requests = 128;
		}
		buf_puts(out, "{\"id\":7}");
		return 200;
	}
	if (!strcmp(r->method, "PATCH") && !strcmp(p, "/api/v1/devices/loop0/params")) {
		n->patches++;
		nr = strstr(r->body, "\"nr_requests\":");
		if (nr)
			n->nr_requests = (int)strtol(nr + 14, NULL, 10);
		buf_printf(out,
		           "{\"device\":\"loop0\",\"applied\":{\"nr_requests\":{\"value\":%d}}}",
		           n->nr_requests);
		return 200;
	}
	if (!strcmp(r->method, "POST") && !strcmp(p, "/api/v1/jobs")) {
		const char *l = strstr(r->body, "\"loops\":");
		int id = ++n->next_job;

		assert_true(id < JOBS);
		n->jobs_posted++;
		n->job_nr[id] = n->nr_requests;
		n->job_loops[id] = l ? (int)strtol(l + 8, NULL, 10) : 1;
		if (n->die_after_jobs && n->jobs_posted >= n->die_after_jobs)
			ff.down[n->k] = true; /* its next requests find no agent */
		if (n->stop_at_job && n->jobs_posted >= n->stop_job)
			*n->stop_at_job = SIGINT;
		buf_printf(out, "{\"id\":%d,\"state\":\"queued\"}", id);
		return 202;
	}
	if (!strncmp(p, "/api/v1/jobs/", 13)) {
		int id = (int)strtol(p + 13, NULL, 10);

		if (!strcmp(r->method, "DELETE")) {
			buf_printf(out, "{\"id\":%d,\"state\":\"cancelled\"}", id);
			return 200;
		}
		return job_get(n, id, p, out);
	}
	return fake_agent_default(a, r, out);
}

static int setup(void **state)
{
	int k;

	(void)state;
	memset(nodes, 0, sizeof(nodes));
	memset(agents, 0, sizeof(agents));
	for (k = 0; k < NODES; k++) {
		char url[32];

		nodes[k].k = k;
		nodes[k].nr_requests = 128;
		snprintf(url, sizeof(url), "http://h:%d", k + 1);
		fake_agent_inproc(&agents[k], url);
		agents[k].node = k ? "n2" : "n1";
		agents[k].device = "loop0";
		agents[k].handle = handle;
		agents[k].ctx = &nodes[k];
		agentp[k] = &agents[k];
	}
	fake_fleet_init(&ff, agentp, NODES);
	dbdir = tu_tmpdir();
	snprintf(dbpath, sizeof(dbpath), "%s/ctl.db", dbdir);
	stop_flag = 0;
	return 0;
}

static int teardown(void **state)
{
	int k;

	(void)state;
	for (k = 0; k < NODES; k++)
		fake_agent_stop(&agents[k]);
	fake_fleet_release(&ff);
	tu_rmrf(dbdir);
	free(dbdir);
	return 0;
}

static const char plan_text[] =
        "{\"name\":\"sw\",\"nodes\":["
        "{\"name\":\"n1\",\"url\":\"http://h:1\",\"device\":\"loop0\",\"token\":\"t\"},"
        "{\"name\":\"n2\",\"url\":\"http://h:2\",\"device\":\"loop0\",\"token\":\"t\"}],"
        "\"baseline\":{\"nr_requests\":128},\"axes\":[{\"param\":\"nr_requests\","
        "\"values\":[64,256]}],\"strategy\":\"grid\","
        "\"job\":{\"fio\":{\"rw\":\"write\",\"runtime_s\":2},\"loops\":4}}";

static enum sweeprun_result run(struct sweep *s, bool go_on, struct err *e)
{
	struct sweeprun_opts o = { .db_path = dbpath,
		                   .continue_on_node_failure = go_on,
		                   .session_ttl_s = 60,
		                   .poll_interval_s = 0.001,
		                   .stop = &stop_flag,
		                   .owner_pid = 1,
		                   .owner_host = "test",
		                   .transport = &ff.t };
	struct plan p;

	assert_int_equal(plan_parse(plan_text, NULL, &p, e), 0);
	sweep_init(s, &p);
	return sweeprun_execute(s, &o, e);
}

/* The point of s whose nr_requests is nr. */
static int point_of(const struct sweep *s, const char *nr)
{
	int i;

	for (i = 0; i < s->npoints; i++)
		if (!strcmp(config_get(&s->points[i].cfg, "nr_requests")->value, nr))
			return i;
	return -1;
}

/* The whole loop: every point on both nodes for its 4 loops, 256 the best (+20 %), stored
 * completed, each node's session opened once and closed with restore. */
static void test_sweep_completes(void **state)
{
	struct sweep s, back;
	struct err e = { 0 };
	struct ctlstore *st = NULL;
	int k, i;

	(void)state;
	assert_int_equal(run(&s, false, &e), SWEEPRUN_COMPLETED);
	assert_true(s.id > 0);
	assert_string_equal(s.status, "completed");
	assert_int_equal(s.npoints, 3);
	for (i = 0; i < s.npoints; i++) {
		assert_int_equal(s.points[i].loops_run, 4);
		for (k = 0; k < NODES; k++) {
			assert_int_equal(s.points[i].nodes[k].state, NODE_OK);
			assert_int_equal(s.points[i].nodes[k].npasses, 4);
		}
	}
	assert_int_equal(s.outcome, OUTCOME_BEST);
	assert_int_equal(ctltest_best(&s, -1), point_of(&s, "256"));
	assert_true(s.points[ctltest_best(&s, -1)].delta_pct > 15 && s.points[ctltest_best(&s, -1)].delta_pct < 25);
	for (k = 0; k < NODES; k++) {
		assert_int_equal(nodes[k].sessions, 1);
		assert_int_equal(nodes[k].restores, 1);
		assert_int_equal(nodes[k].nr_requests, 128); /* restored */
		assert_true(nodes[k].jobs_posted >= 3);
		/* Every pass ran at its point's value. */
		for (i = 1; i <= nodes[k].next_job; i++)
			assert_true(nodes[k].job_nr[i] == 64 || nodes[k].job_nr[i] == 128 ||
			            nodes[k].job_nr[i] == 256);
	}
	/* Stored: the sweep loads back with the same best. */
	assert_int_equal(ctlstore_open(dbpath, &st, &e), 0);
	assert_int_equal(ctlstore_sweep_load(st, s.id, &back, &e), 0);
	assert_string_equal(back.status, "completed");
	assert_int_equal(back.npoints, 3);
	ctlstore_close(st);
	sweep_release(&back);
	sweep_release(&s);
}

/* Pre-flight: node 2 refuses nr_requests 256, so nothing runs: no session, no PATCH, no job,
 * and e names the node and the agent's message. */
static void test_preflight_refusal_changes_nothing(void **state)
{
	struct sweep s;
	struct err e = { 0 };
	int k;

	(void)state;
	nodes[1].refuse_256 = true;
	assert_int_equal(run(&s, false, &e), SWEEPRUN_FAILED);
	assert_non_null(strstr(e.msg, "pre-flight"));
	for (k = 0; k < NODES; k++) {
		assert_int_equal(nodes[k].sessions, 0);
		assert_int_equal(nodes[k].patches, 0);
		assert_int_equal(nodes[k].jobs_posted, 0);
	}
	sweep_release(&s);
}

/* Node 2 stops answering after its second job: the sweep aborts (node failed), node 1 is
 * restored; with continue_on_node_failure it goes on without node 2 to the end. */
static void test_node_stops_answering(void **state)
{
	struct sweep s;
	struct err e = { 0 };
	int i;

	(void)state;
	nodes[1].die_after_jobs = 2;
	assert_int_equal(run(&s, false, &e), SWEEPRUN_NODE_FAILED);
	assert_string_equal(s.status, "aborted");
	assert_int_equal(nodes[0].restores, 1);
	assert_int_equal(nodes[0].nr_requests, 128);
	sweep_release(&s);
	teardown(state);
	setup(state);

	nodes[1].die_after_jobs = 2;
	assert_int_equal(run(&s, true, &e), SWEEPRUN_NODE_FAILED);
	assert_string_equal(s.status, "completed");
	for (i = 0; i < s.npoints; i++) {
		assert_int_equal(s.points[i].nodes[0].state, NODE_OK);
		assert_int_equal(s.points[i].nodes[0].npasses, 4);
	}
	assert_int_equal(nodes[0].restores, 1);
	sweep_release(&s);
}

/* A signal once node 1 started its third job: the sweep stops, interrupted, every node
 * restored. */
static void test_stop_interrupts(void **state)
{
	struct sweep s;
	struct err e = { 0 };
	int k;

	(void)state;
	nodes[0].stop_at_job = &stop_flag;
	nodes[0].stop_job = 3;
	assert_int_equal(run(&s, false, &e), SWEEPRUN_INTERRUPTED);
	assert_string_equal(s.status, "interrupted");
	for (k = 0; k < NODES; k++) {
		assert_int_equal(nodes[k].restores, 1);
		assert_int_equal(nodes[k].nr_requests, 128);
		assert_true(nodes[k].jobs_posted < 12);
	}
	sweep_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sweep_completes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_preflight_refusal_changes_nothing, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_node_stops_answering, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_interrupts, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
