/* test_ctl_runner.c -- the runner against canned agents, run as a sweep runs it (one loop of a
 * point a run, runner_round_run): a point applied and run on every node at once, passes
 * appended run after run with their rounds, long-polls, failures of a point and of a node,
 * stop. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fakeagent.h"
#include "fleet/fleet.h"
#include "model/sweep.h"
#include "plan/plan.h"
#include "plan/plan_parse.h"
#include "run/runner.h"
#include "run/schedule.h"
#include "run/strategy.h"
#include "testutil.h"
#include "timeutil.h"

/* How a canned agent behaves. */
struct behaviour {
	int node;          /* figures differ per node */
	bool refuse_patch; /* PATCH params answers 422 */
	bool refuse_session;
	bool fail_job; /* the job fails after its first pass */
	int hold_at;   /* > 0: a job's passes stop at this many, running, until cancelled */
	int lag;       /* polls a job answers before its first pass (running, none yet) */
	int loops[64]; /* per job id: loops asked */
	int polls[64]; /* per job id: GETs so far */
	int next_job;
	/* Long-polls: the after= of each, in order, and the version each answer carried. */
	int nwaits;
	long long after[64], answered[64];
	int plain_gets; /* job GETs without wait_s */
	/* The PATCH holds its answer until this agent got a job POST (at most 3 s); whether it
	 * came is recorded. */
	struct fake_agent *patch_waits_for;
	bool post_came_first;
	/* Jobs that carry params: whether each asked for queue_depth 975 (read back as 919). */
	bool deep[64];
	bool refuse_job_params; /* a job POST with params answers 422 */
	bool by_clock;          /* a job says when its pass began by the clock (begun_at) */
};

static int loops_of(const char *body)
{
	const char *p = strstr(body, "\"loops\":");

	return p ? (int)strtol(p + 8, NULL, 10) : 0;
}

/* The body of agent a's job POST number id (its id-th), or "". */
static const char *loops_body_of(struct fake_agent *a, int id)
{
	int i, n = 0;

	for (i = 0; i < a->nreqs; i++)
		if (!strcmp(a->reqs[i].method, "POST") &&
		    !strcmp(a->reqs[i].path, "/api/v1/jobs") && ++n == id)
			return a->reqs[i].body ? a->reqs[i].body : "";
	return "";
}

static int handle(struct fake_agent *a, const struct fake_req *r, struct buf *out)
{
	struct behaviour *b = a->ctx;
	int id, i, n;

	if (!strcmp(r->method, "POST") && !strcmp(r->path, "/api/v1/devices/loop0/sessions")) {
		if (b->refuse_session) {
			buf_puts(out,
			         "{\"error\":{\"code\":\"conflict\",\"message\":\"loop0 has an "
			         "open session\"}}");
			return 409;
		}
		buf_puts(out, "{\"id\":7,\"state\":\"open\"}");
		return 201;
	}
	if (!strncmp(r->path, "/api/v1/sessions/7", 18)) {
		buf_puts(out, "{\"id\":7}");
		return 200;
	}
	if (!strcmp(r->method, "PATCH") && !strcmp(r->path, "/api/v1/devices/loop0/params")) {
		if (b->patch_waits_for) {
			struct timespec ms = { 0, 1000000 };

			for (i = 0; i < 3000 && !b->post_came_first; i++) {
				b->post_came_first = fake_agent_count(b->patch_waits_for, "POST",
				                                      "/api/v1/jobs") > 0;
				if (!b->post_came_first)
					nanosleep(&ms, NULL);
			}
		}
		if (b->refuse_patch) {
			buf_puts(out,
			         "{\"error\":{\"code\":\"kernel_rejected\",\"message\":\"kernel "
			         "rejected nr_requests=64 on 'loop0'\"},\"rolled_back\":true}");
			return 422;
		}
		/* queue_depth 975 reads back as 919, as in seed 003. */
		buf_printf(out,
		           "{\"device\":\"loop0\",\"applied\":{\"nr_requests\":{\"value\":%s},"
		           "\"queue_depth\":{\"value\":%s%s}}}",
		           strstr(r->body, "\"nr_requests\":64") ? "64" : "128",
		           strstr(r->body, "975") ? "919" : "256",
		           strstr(r->body, "975") ? ",\"adjusted\":true" : "");
		return 200;
	}
	if (!strcmp(r->method, "POST") && !strcmp(r->path, "/api/v1/jobs")) {
		if (b->refuse_job_params && strstr(r->body, "\"params\":")) {
			buf_puts(out, "{\"error\":{\"code\":\"out_of_range\",\"message\":"
			              "\"nr_requests=64 is out of range on 'loop0'\"}}");
			return 422;
		}
		id = ++b->next_job;
		b->loops[id] = loops_of(r->body);
		b->deep[id] = strstr(r->body, "\"params\":") && strstr(r->body, "975");
		buf_printf(out, "{\"id\":%d,\"state\":\"queued\"}", id);
		return 202;
	}
	if (!strncmp(r->path, "/api/v1/jobs/", 13)) {
		id = (int)strtol(r->path + 13, NULL, 10);
		if (!strcmp(r->method, "DELETE")) {
			buf_printf(out, "{\"id\":%d,\"state\":\"cancelled\"}", id);
			return 200;
		}
		/* One more pass per poll (after lag polls with none). */
		n = ++b->polls[id] - b->lag;
		n = n < 0 ? 0 : n < b->loops[id] ? n : b->loops[id];
		if (b->hold_at > 0 && n > b->hold_at)
			n = b->hold_at;
		if (strstr(r->path, "wait_s=30&after=") && b->nwaits < 64) {
			b->after[b->nwaits] = strtoll(strstr(r->path, "after=") + 6, NULL, 10);
			b->answered[b->nwaits++] = 1000 * id + n;
			buf_printf(out, "{\"version\":%d,", 1000 * id + n);
		} else {
			b->plain_gets++;
			buf_puts(out, "{");
		}
		if (b->fail_job && n > 1)
			n = 1;
		buf_printf(out, "\"id\":%d,\"state\":\"%s\",\"progress\":%g,\"loops_done\":%d,", id,
		           b->fail_job && b->polls[id] > 1        ? "failed"
		           : n == b->loops[id] && b->hold_at <= 0 ? "succeeded"
		                                                  : "running",
		           (double)n / b->loops[id], n);
		if (b->fail_job && b->polls[id] > 1)
			buf_puts(out,
			         "\"error\":{\"code\":\"engine_failed\",\"message\":\"fio exited "
			         "with status 1\"},");
		/* A job with params says what applying them did, when asked (fields=...,applied).
		 */
		if (strstr(r->path, "applied") && strstr(loops_body_of(a, id), "\"params\":"))
			buf_printf(out,
			           "\"applied\":{\"nr_requests\":{\"requested\":64,\"previous\":"
			           "128,\"value\":64},\"queue_depth\":{\"requested\":%s,"
			           "\"previous\":256,\"value\":%s%s}},",
			           b->deep[id] ? "975" : "256", b->deep[id] ? "919" : "256",
			           b->deep[id] ? ",\"adjusted\":true" : "");
		if (b->by_clock)
			buf_puts(out, "\"begun_at\":\"2026-11-29T23:03:36.500Z\",\"held_s\":0.2,"
			              "\"start_late_s\":0.001,");
		buf_puts(out, "\"started_at\":\"2026-11-29T23:03:36.250Z\","
		              "\"finished_at\":\"2026-11-29T23:03:39.750Z\",\"passes\":[");
		for (i = 0; i < n; i++)
			buf_printf(out, "%s{\"loop\":%d,\"metrics\":{\"write.bw_mib\":%d.5}}",
			           i ? "," : "", i + 1, 100 * (b->node + 1) + 10 * id + i);
		buf_puts(out, "]}");
		return 200;
	}
	return fake_agent_default(a, r, out);
}

static struct fake_agent agents[2];
static struct behaviour behaviours[2];

/* The runner's clocks for the next rig_init (NULL: the real ones). */
static double (*rig_now_s)(void), (*rig_mono_s)(void);

static int setup(void **state)
{
	int i;

	(void)state;
	memset(agents, 0, sizeof(agents));
	memset(behaviours, 0, sizeof(behaviours));
	rig_now_s = rig_mono_s = NULL;
	for (i = 0; i < 2; i++) {
		behaviours[i].node = i;
		agents[i].handle = handle;
		agents[i].ctx = &behaviours[i];
		fake_agent_start(&agents[i]);
	}
	return 0;
}

static int teardown(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < 2; i++)
		if (agents[i].port)
			fake_agent_stop(&agents[i]);
	return 0;
}

/* What the runner said, for the assertions. */
struct seen {
	int progress, point_failed, node_failed, restore_failed;
	int last_node;
	char why[320];
	bool dropped;
	volatile sig_atomic_t *stop_after_progress;
	const struct point *stop_point; /* with stop_after_progress: once each node has a pass */
	int reported_max;
};

static void on_event(void *ctx, const struct runner_event *ev)
{
	struct seen *s = ctx;

	switch (ev->kind) {
	case RUNNER_PROGRESS:
		s->progress++;
		assert_true(ev->fraction >= 0 && ev->fraction <= 1);
		assert_true(ev->loop >= 1 && ev->loop <= ev->loops);
		if (ev->reported[0] > s->reported_max)
			s->reported_max = ev->reported[0];
		/* Answers arrive node by node: stop once every node's first pass is in. */
		if (s->stop_after_progress && s->stop_point->nodes[0].npasses > 0 &&
		    s->stop_point->nodes[1].npasses > 0)
			*s->stop_after_progress = 1;
		return;
	case RUNNER_POINT_FAILED:
		s->point_failed++;
		break;
	case RUNNER_NODE_FAILED:
		s->node_failed++;
		s->dropped = ev->dropped;
		break;
	case RUNNER_RESTORE_FAILED:
		s->restore_failed++;
		break;
	}
	s->last_node = ev->node;
	snprintf(s->why, sizeof(s->why), "%s", ev->why);
}

/* A sequential sweep over the canned agents, its first batch added, a fleet and a runner. */
struct rig {
	struct sweep s;
	struct fleet f;
	struct runner r;
	struct seen seen;
	struct strategy_batch batch;
	volatile sig_atomic_t stop;
	int round; /* the last run's round */
};

/* Run point as a sweep does: loops runs of one loop each (runner_round_run), in the rounds
 * after g's last; the first result other than 0 ends it. */
static int rounds_run(struct rig *g, int point, int loops)
{
	int i, rc = 0;

	for (i = 0; i < loops && rc == 0; i++) {
		struct schedule_run run = { .point = point, .round = ++g->round };

		rc = runner_round_run(&g->r, &run, NULL);
	}
	return rc;
}

static void rig_init(struct rig *g, bool continue_on_failure)
{
	char text[2048];
	struct runner_opts o = { 0 };
	struct plan p;
	struct err e;

	memset(g, 0, sizeof(*g));
	snprintf(text, sizeof(text),
	         "{\"name\":\"rt\",\"nodes\":[{\"name\":\"node1\",\"url\":\"%s\",\"device\":"
	         "\"loop0\","
	         "\"token\":\"t\"},{\"name\":\"node2\",\"url\":\"%s\",\"device\":\"loop0\","
	         "\"token\":\"t\"}],\"baseline\":{\"nr_requests\":128,\"queue_depth\":256},"
	         "\"axes\":[{\"params\":[\"nr_requests\",\"queue_depth\"],\"values\":[[64,975]]}],"
	         "\"job\":{\"fio\":{\"rw\":\"randwrite\"},\"loops\":3},\"labels\":{\"x\":\"y\"}}",
	         agents[0].url, agents[1].url);
	assert_int_equal(plan_parse(text, NULL, &p, &e), 0);
	sweep_init(&g->s, &p);
	g->s.id = 42;
	assert_int_equal(strategy_next(&g->s, &g->batch), 2);
	fleet_init(&g->f, &g->s.plan, 5, 0);
	o.continue_on_node_failure = continue_on_failure;
	o.session_ttl_s = 60;
	o.poll_interval_s = 0.001;
	o.stop = &g->stop;
	o.event = on_event;
	o.ctx = &g->seen;
	o.now_s = rig_now_s;
	o.mono_s = rig_mono_s;
	runner_init(&g->r, &g->s, &g->f, &o);
}

static void rig_release(struct rig *g)
{
	runner_release(&g->r);
	fleet_release(&g->f);
	strategy_batch_release(&g->batch);
	sweep_release(&g->s);
}

static void test_point_run_appends(void **state)
{
	struct rig g;
	struct err e = { 0 };
	const struct node_result *r;
	int i, j;

	(void)state;
	rig_init(&g, false);
	assert_int_equal(runner_sessions_open(&g.r, &e), 0);
	assert_int_equal(rounds_run(&g, 1, 3), 0);
	assert_int_equal(g.s.points[1].loops_run, 3);
	for (i = 0; i < 2; i++) {
		r = &g.s.points[1].nodes[i];
		assert_int_equal(r->state, NODE_OK);
		assert_int_equal(r->npasses, 3);
		/* One job a run (jobs 1..3), each its one pass, stamped with its round. */
		assert_int_equal(r->job_id, 3);
		assert_float_equal(r->passes[0], 100 * (i + 1) + 10 + 0.5, 0);
		assert_float_equal(r->passes[2], 100 * (i + 1) + 30 + 0.5, 0);
		for (j = 0; j < 3; j++)
			assert_int_equal(r->pass_round[j], j + 1);
		assert_float_equal(r->job_runtime_s, 3 * 3.5, 1e-9);
		/* The read-back: queue_depth 975 became 919, flagged as adjusted. */
		assert_string_equal(config_get(r->applied, "queue_depth")->value, "919");
		assert_true(r->adjusted_mask & 2);
		assert_false(r->adjusted_mask & 1);
	}
	assert_true(g.seen.progress >= 3);
	assert_int_equal(g.seen.point_failed + g.seen.node_failed, 0);
	/* More runs of the same point append their passes: a point can be decided later. */
	assert_int_equal(rounds_run(&g, 1, 2), 0);
	r = &g.s.points[1].nodes[1];
	assert_int_equal(g.s.points[1].loops_run, 5);
	assert_int_equal(r->npasses, 5);
	assert_int_equal(r->state, NODE_OK);
	assert_int_equal(r->job_id, 5);
	assert_float_equal(r->passes[2], 230.5, 0);
	assert_float_equal(r->passes[3], 240.5, 0);
	assert_float_equal(r->passes[4], 250.5, 0);
	assert_int_equal(r->pass_round[4], 5);
	assert_float_equal(r->job_runtime_s, 5 * 3.5, 1e-9);
	/* The job bodies: the loops of each run, the plan's labels, the sweep, the point and its
	 * configuration. */
	for (i = 0; i < agents[1].nreqs; i++) {
		const struct fake_req *q = &agents[1].reqs[i];

		if (!strcmp(q->method, "POST") && !strcmp(q->path, "/api/v1/jobs"))
			assert_non_null(strstr(q->body, "\"labels\":{\"x\":\"y\",\"sweep\":\"42\","
			                                "\"sweep_point\":\"1\",\"sweep_config\":"
			                                "\"nr_requests=64 queue_depth=975\"}"));
	}
	/* Each run's job asks one loop. */
	for (j = 1; j <= 5; j++)
		assert_int_equal(behaviours[0].loops[j], 1);
	runner_sessions_close(&g.r);
	assert_int_equal(fake_agent_count(&agents[0], "DELETE", "/api/v1/sessions/7?restore=true"),
	                 1);
	assert_int_equal(g.seen.restore_failed, 0);
	rig_release(&g);
}

/* Agents that long-poll are asked with wait_s, after the version of their last answer (0 for a
 * new job), and re-armed on each answer; none is polled with plain GETs. */
static void test_long_poll_rearms(void **state)
{
	struct rig g;
	struct err e = { 0 };
	int i, k;

	(void)state;
	/* Each job is running without a pass at its first answer, done at its second. */
	behaviours[0].lag = behaviours[1].lag = 1;
	rig_init(&g, false);
	g.f.long_poll[0] = g.f.long_poll[1] = true;
	assert_int_equal(runner_sessions_open(&g.r, &e), 0);
	assert_int_equal(rounds_run(&g, 1, 3), 0);
	assert_int_equal(rounds_run(&g, 1, 2), 0);
	for (i = 0; i < 2; i++) {
		const struct behaviour *b = &behaviours[i];

		assert_int_equal(g.s.points[1].nodes[i].state, NODE_OK);
		assert_int_equal(g.s.points[1].nodes[i].npasses, 5);
		assert_int_equal(b->plain_gets, 0);
		/* Five jobs, two answers each: a new job is asked after 0 (answered at once), then
		 * re-armed after the version of that answer. */
		assert_int_equal(b->nwaits, 10);
		for (k = 0; k < 10; k += 2) {
			assert_int_equal(b->after[k], 0);
			assert_int_equal(b->after[k + 1], b->answered[k]);
		}
		assert_int_equal(fake_agent_count(&agents[i], "GET",
		                                  "/api/v1/jobs/1?wait_s=30&after=0&fields=state,"
		                                  "progress,loops_done,passes,started_at,finished_"
		                                  "at,error"),
		                 1);
	}
	assert_true(g.seen.progress >= 3);
	runner_sessions_close(&g.r);
	rig_release(&g);
}

/* Without the feature the jobs are polled with plain GETs, never with wait_s. */
static void test_poll_without_long_poll(void **state)
{
	struct rig g;
	struct err e = { 0 };
	int i;

	(void)state;
	rig_init(&g, false);
	g.f.long_poll[1] = true;
	assert_int_equal(runner_sessions_open(&g.r, &e), 0);
	assert_int_equal(rounds_run(&g, 1, 3), 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(g.s.points[1].nodes[i].npasses, 3);
	assert_int_equal(behaviours[0].nwaits, 0);
	assert_int_equal(behaviours[0].plain_gets, 3);
	assert_int_equal(behaviours[1].nwaits, 3);
	assert_int_equal(behaviours[1].plain_gets, 0);
	runner_sessions_close(&g.r);
	rig_release(&g);
}

/* Each node's job is posted as soon as its own PATCH is read back: node1's job starts while
 * node2's PATCH is still unanswered (node2's agent holds it until node1 got its job). The
 * phases of the run come from the agents' job records. */
static void test_job_follows_own_patch(void **state)
{
	struct rig g;
	struct err e = { 0 };
	double first, last;
	int k;

	(void)state;
	behaviours[1].patch_waits_for = &agents[0];
	rig_init(&g, false);
	assert_int_equal(runner_sessions_open(&g.r, &e), 0);
	assert_int_equal(rounds_run(&g, 1, 1), 0);
	assert_true(behaviours[1].post_came_first);
	for (k = 0; k < 2; k++) {
		const struct fake_agent *a = &agents[k];
		int i, patch = -1, post = -1;

		assert_int_equal(g.s.points[1].nodes[k].state, NODE_OK);
		for (i = 0; i < a->nreqs; i++) {
			if (!strcmp(a->reqs[i].method, "PATCH") && patch < 0)
				patch = i;
			if (!strcmp(a->reqs[i].method, "POST") &&
			    !strcmp(a->reqs[i].path, "/api/v1/jobs"))
				post = i;
		}
		/* Every node: its PATCH, then its job. */
		assert_true(patch >= 0 && post > patch);
	}
	/* The fake jobs ran 2026-11-29T23:03:36.250Z (epoch 1795993416.25) to 39.750. */
	first = g.r.last.first_start_at - 1795993416.25;
	last = g.r.last.last_end_at - 1795993419.75;
	assert_float_equal(first, 0, 1e-3);
	assert_float_equal(last, 0, 1e-3);
	assert_float_equal(g.r.last.longest_job_s, 3.5, 1e-6);
	assert_float_equal(g.r.span_s, 3.5, 1e-6);
	assert_int_equal(g.r.last.point, 1);
	assert_true(g.r.last.start_at > 0 && g.r.last.started_at >= g.r.last.start_at &&
	            g.r.last.done_at >= g.r.last.started_at);
	runner_sessions_close(&g.r);
	rig_release(&g);
}

/* Agents that record a job's read-back (job_applied) get one request per node per run: the
 * job carries the point's values, no PATCH is sent, and the read-back (queue_depth 975 kept
 * as 919: adjusted) comes with the job's answers. A value the agent refuses fails the point
 * on that node only, with the agent's words. */
static void test_params_in_job(void **state)
{
	struct rig g;
	struct err e = { 0 };
	const struct node_result *r;
	int k, i;

	(void)state;
	rig_init(&g, false);
	for (k = 0; k < 2; k++)
		g.f.job_applied[k] = g.f.long_poll[k] = true;
	assert_int_equal(runner_sessions_open(&g.r, &e), 0);
	assert_int_equal(rounds_run(&g, 1, 3), 0);
	for (k = 0; k < 2; k++) {
		r = &g.s.points[1].nodes[k];
		assert_int_equal(r->state, NODE_OK);
		assert_int_equal(r->npasses, 3);
		assert_int_equal(
		        fake_agent_count(&agents[k], "PATCH", "/api/v1/devices/loop0/params"), 0);
		assert_int_equal(fake_agent_count(&agents[k], "POST", "/api/v1/jobs"), 3);
		assert_non_null(strstr(loops_body_of(&agents[k], 1),
		                       "\"params\":{\"nr_requests\":64,\"queue_depth\":975},"
		                       "\"params_restore\":false"));
		assert_string_equal(config_get(r->applied, "nr_requests")->value, "64");
		assert_string_equal(config_get(r->applied, "queue_depth")->value, "919");
		assert_true(r->adjusted_mask & 2);
		assert_false(r->adjusted_mask & 1);
		/* Only the waits before the read-back arrived asked for it. */
		for (i = 0; i < agents[k].nreqs; i++)
			if (strstr(agents[k].reqs[i].path, "wait_s=") &&
			    strstr(agents[k].reqs[i].path, "applied"))
				break;
		assert_true(i < agents[k].nreqs);
	}
	assert_int_equal(g.seen.point_failed + g.seen.node_failed, 0);
	/* Point 0 (the baseline, no PATCH either) on node 2 refused: the point fails there only. */
	behaviours[1].refuse_job_params = true;
	assert_int_equal(rounds_run(&g, 0, 1), 0);
	assert_int_equal(g.s.points[0].nodes[0].state, NODE_OK);
	assert_int_equal(g.s.points[0].nodes[1].state, NODE_FAILED);
	assert_string_equal(g.s.points[0].nodes[1].error,
	                    "POST job: HTTP 422: nr_requests=64 is out of range on 'loop0'");
	assert_int_equal(g.seen.point_failed, 1);
	assert_int_equal(g.seen.node_failed, 0);
	runner_sessions_close(&g.r);
	rig_release(&g);
}

static void test_point_fails_on_one_node(void **state)
{
	struct rig g;

	(void)state;
	behaviours[1].refuse_patch = true;
	rig_init(&g, false);
	assert_int_equal(rounds_run(&g, 1, 1), 0);
	assert_int_equal(g.s.points[1].nodes[0].state, NODE_OK);
	assert_int_equal(g.s.points[1].nodes[1].state, NODE_FAILED);
	assert_string_equal(g.s.points[1].nodes[1].error,
	                    "PATCH params: HTTP 422: kernel rejected nr_requests=64 on 'loop0'");
	assert_int_equal(g.seen.point_failed, 1);
	assert_int_equal(g.seen.last_node, 1);
	/* No job on the node whose configuration was refused. */
	assert_int_equal(fake_agent_count(&agents[1], "POST", "/api/v1/jobs"), 0);
	rig_release(&g);
	/* A job that fails keeps its passes and names the agent's error. */
	behaviours[1].refuse_patch = false;
	behaviours[1].fail_job = true;
	behaviours[1].lag = 1; /* running at its first answer, failed at the next */
	rig_init(&g, false);
	assert_int_equal(rounds_run(&g, 0, 1), 0);
	assert_int_equal(g.s.points[0].nodes[1].state, NODE_FAILED);
	assert_int_equal(g.s.points[0].nodes[1].npasses, 1);
	assert_non_null(strstr(g.s.points[0].nodes[1].error,
	                       "failed: engine_failed: fio exited with status 1"));
	rig_release(&g);
}

static void test_node_stops_answering(void **state)
{
	struct rig g;

	(void)state;
	fake_agent_stop(&agents[1]);
	agents[1].port = 0;
	rig_init(&g, false);
	assert_int_equal(rounds_run(&g, 0, 3), -EIO);
	assert_int_equal(g.round, 1); /* the first run ended it */
	assert_int_equal(g.seen.node_failed, 1);
	assert_false(g.seen.dropped);
	assert_non_null(strstr(g.s.points[0].nodes[1].error, "PATCH params: "));
	assert_int_equal(rounds_run(&g, 1, 3), -EIO);
	rig_release(&g);
	/* --continue-on-node-failure: dropped, the others go on. */
	rig_init(&g, true);
	assert_int_equal(rounds_run(&g, 0, 3), 0);
	assert_true(g.seen.dropped);
	assert_true(g.s.node_dropped[1]);
	assert_int_equal(g.s.points[0].nodes[0].state, NODE_OK);
	assert_int_equal(g.s.points[0].nodes[0].npasses, 3);
	assert_int_equal(rounds_run(&g, 1, 3), 0);
	assert_int_equal(g.s.points[1].nodes[0].state, NODE_OK);
	assert_int_equal(g.s.points[1].nodes[1].state, NODE_DROPPED);
	rig_release(&g);
}

static void test_stop_cancels(void **state)
{
	struct rig g;
	int k;

	(void)state;
	/* Each job stays running after its pass: the stop always finds both running (under load
	 * one node could otherwise finish before the other's pass arrived). */
	behaviours[0].hold_at = behaviours[1].hold_at = 1;
	rig_init(&g, false);
	g.seen.stop_after_progress = &g.stop;
	g.seen.stop_point = &g.s.points[0];
	assert_int_equal(rounds_run(&g, 0, 3), -EINTR);
	assert_int_equal(g.round, 1); /* no run after the stop */
	for (k = 0; k < 2; k++) {
		assert_int_equal(g.s.points[0].nodes[k].state, NODE_CANCELLED);
		/* The pass that landed before the stop is kept. */
		assert_int_equal(g.s.points[0].nodes[k].npasses, 1);
		assert_int_equal(fake_agent_count(&agents[k], "DELETE", "/api/v1/jobs/1"), 1);
	}
	g.seen.stop_point = &g.s.points[1];
	assert_int_equal(rounds_run(&g, 1, 3), -EINTR);
	for (k = 0; k < 2; k++)
		assert_int_equal(fake_agent_count(&agents[k], "POST", "/api/v1/jobs"), 1);
	rig_release(&g);
}

static void test_session_refused(void **state)
{
	struct rig g;
	struct err e = { 0 };

	(void)state;
	behaviours[1].refuse_session = true;
	rig_init(&g, false);
	assert_int_equal(runner_sessions_open(&g.r, &e), -EIO);
	assert_string_equal(e.msg, "node2: cannot open a tuning session: HTTP 409: loop0 has an "
	                           "open session");
	/* The session node1 got is closed again, with restore. */
	assert_int_equal(fake_agent_count(&agents[0], "DELETE", "/api/v1/sessions/7?restore=true"),
	                 1);
	rig_release(&g);
}

/* A test's clocks: the wall clock stands still at a known second; the monotonic one reads
 * 1000 s three times (the sessions' open begun and ended, the run begun) and 1030 s from then
 * on: more than a third
 * of the 60 s lease has gone by at the run's first look at the sessions, and never again. */
static double fixed_now_s(void)
{
	return 1764457200.0;
}

static int mono_reads;

static double jump_mono_s(void)
{
	return ++mono_reads <= 3 ? 1000.0 : 1030.0;
}

/* The runner reads time only from the clocks it is given: the run is stamped with the wall
 * clock's seconds, measured on the monotonic one, and the sessions are renewed once, when the
 * monotonic clock says a third of the lease is gone, however short the run really was. */
static void test_clocks_given(void **state)
{
	struct rig g;
	struct err e = { 0 };
	int k;

	(void)state;
	rig_now_s = fixed_now_s;
	rig_mono_s = jump_mono_s;
	mono_reads = 0;
	rig_init(&g, false);
	assert_int_equal(runner_sessions_open(&g.r, &e), 0);
	assert_int_equal(rounds_run(&g, 1, 1), 0);
	assert_float_equal(g.r.last.start_at, 1764457200.0, 0);
	assert_float_equal(g.r.last.started_at, 1764457200.0, 0);
	assert_float_equal(g.r.last.done_at, 1764457200.0, 0);
	assert_float_equal(g.r.run_s, 30.0, 0);
	for (k = 0; k < 2; k++)
		assert_int_equal(fake_agent_count(&agents[k], "POST", "/api/v1/sessions/7/renew"),
		                 1);
	assert_int_equal(g.seen.node_failed, 0);
	runner_sessions_close(&g.r);
	rig_release(&g);
}

static double mono_step_s;

static double step_mono_s(void)
{
	return mono_step_s += 0.01;
}

/* The first run's jobs start RUNNER_FIRST_FANOUTS times the sessions' open past the moment
 * they are posted (plus the margin): no run's fan-out has been measured yet, and a node makes
 * its job ready after it answered the POST. The next run posted at once starts past the fan-out
 * the first one measured. */
static void test_first_moment(void **state)
{
	struct rig g;
	struct err e = { 0 };
	char want[40];
	double fanout;

	(void)state;
	rig_now_s = fixed_now_s;
	rig_mono_s = step_mono_s;
	mono_step_s = 0;
	rig_init(&g, false);
	g.f.start_at[0] = g.f.start_at[1] = true;
	assert_int_equal(runner_sessions_open(&g.r, &e), 0);
	assert_true(g.r.sessions_fanout_s > 0);
	assert_int_equal(rounds_run(&g, 1, 1), 0);
	time_fmt_iso_ms(1764457200.0 + RUNNER_FIRST_FANOUTS * g.r.sessions_fanout_s +
	                        RUNNER_START_MARGIN_S,
	                want, sizeof(want));
	assert_non_null(strstr(loops_body_of(&agents[0], 1), want));
	assert_non_null(strstr(loops_body_of(&agents[1], 1), want));
	fanout = g.r.fanout_s;
	assert_true(fanout > 0);
	assert_int_equal(rounds_run(&g, 1, 1), 0);
	time_fmt_iso_ms(1764457200.0 + fanout + RUNNER_START_MARGIN_S, want, sizeof(want));
	assert_non_null(strstr(loops_body_of(&agents[0], 2), want));
	runner_sessions_close(&g.r);
	rig_release(&g);
}

/* The moment in job POST id of agent a (0: none). */
static double moment_of(struct fake_agent *a, int id)
{
	const char *p = strstr(loops_body_of(a, id), "\"start_at\":\"");
	char iso[40];
	double t = 0;

	if (!p || sscanf(p + 12, "%39[^\"]", iso) != 1 || time_parse_iso(iso, &t))
		return 0;
	return t;
}

/* A batch's next run is posted during the run before it and taken up. The first one, before
 * any run has ended, waits for the agents' estimate of a pass and what the job's end costs
 * (RUNNER_END_FANOUTS times the fan-out) before the gap. */
static void test_ahead_first(void **state)
{
	struct schedule_run runs[4] = { { .point = 1, .round = 1 },
		                        { .point = 0, .round = 1 },
		                        { .point = 1, .round = 2 },
		                        { .point = 0, .round = 2 } };
	struct rig g;
	struct err e = { 0 };
	double m1, m2;
	int k, i;

	(void)state;
	rig_now_s = fixed_now_s;
	rig_mono_s = step_mono_s;
	mono_step_s = 0;
	rig_init(&g, false);
	g.r.o.pass_expected_s = 3;
	for (k = 0; k < 2; k++) {
		g.f.job_applied[k] = g.f.long_poll[k] = g.f.start_at[k] = true;
		behaviours[k].by_clock = true;
	}
	assert_int_equal(runner_sessions_open(&g.r, &e), 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(runner_round_run(&g.r, &runs[i], i < 3 ? &runs[i + 1] : NULL), 0);
		/* once run i ended: its POSTs and, but after the last, the next run's */
		for (k = 0; k < 2; k++)
			assert_int_equal(fake_agent_count(&agents[k], "POST", "/api/v1/jobs"),
			                 i + 1 + (i < 3));
		assert_true(g.r.pass_s > 0);
	}
	m1 = moment_of(&agents[0], 1);
	m2 = moment_of(&agents[0], 2);
	assert_true(m1 > 0 && m2 > 0);
	/* the estimate and the job's end, then the gap: the fan-out and the margin (the stepped
	 * clock makes every fan-out one step; the moments are to the millisecond) */
	assert_true(g.r.fanout_s > 0);
	assert_true(fabs(m2 - m1 -
	                 (3 * 1.05 + 0.1 + RUNNER_END_FANOUTS * g.r.fanout_s + g.r.fanout_s +
	                  RUNNER_START_MARGIN_S)) < 0.0015);
	for (k = 0; k < 2; k++) {
		assert_int_equal(g.s.points[1].nodes[k].npasses, 2);
		assert_int_equal(g.s.points[0].nodes[k].npasses, 2);
		assert_int_equal(fake_agent_count(&agents[k], "DELETE", "/api/v1/jobs/"), 0);
	}
	assert_int_equal(g.r.nleads, 3); /* runs 2 to 4 were posted ahead */
	runner_sessions_close(&g.r);
	rig_release(&g);
}

/* A run posted ahead learns when its slowest node was ready past the moment before it (the
 * run's after_s less its held_s, or plus the start_late_s of a node that did not hold); the
 * next moment follows the latest of the last RUNNER_GAP_WINDOW such leads, so one late node
 * holds the gap up for that many runs. A run posted at once grows the margin instead. */
static void test_gap_follows_leads(void **state)
{
	struct runner r;
	struct runner_times t = { .moment = 1000.0,
		                  .first_begun_at = 1000.01,
		                  .last_begun_at = 1000.03,
		                  .ahead = true,
		                  .after_s = 6.0,
		                  .held_min_s = 0.3 };
	int i;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_true(runner_lead_max(&r) == 0 && runner_lead_range(&r) == 0);
	runner_start_learn(&r, &t);
	assert_true(fabs(runner_lead_max(&r) - 5.7) < 1e-9);
	assert_true(runner_lead_range(&r) == 0);
	t.held_min_s = 0;
	t.unready_late_max_s = 0.1; /* a node not ready: began 0.1 s late */
	runner_start_learn(&r, &t);
	assert_true(fabs(runner_lead_max(&r) - 6.1) < 1e-9);
	assert_true(fabs(runner_lead_range(&r) - 0.4) < 1e-9); /* 5.7 to 6.1 */
	t.unready_late_max_s = 0;
	t.held_min_s = 0.5;
	for (i = 0; i < RUNNER_GAP_WINDOW - 1; i++)
		runner_start_learn(&r, &t);
	assert_true(fabs(runner_lead_max(&r) - 6.1) < 1e-9); /* still in the window */
	runner_start_learn(&r, &t);
	assert_true(fabs(runner_lead_max(&r) - 5.5) < 1e-9); /* gone out of it */
	assert_true(fabs(runner_lead_range(&r)) < 1e-9);
	assert_int_equal(r.nleads, RUNNER_GAP_WINDOW + 2);
	assert_int_equal(r.nspreads, RUNNER_GAP_WINDOW + 2);
	assert_int_equal(r.nlate, 0);
	/* Posted at once and a node not ready: the margin grows, the leads stay. */
	t.ahead = false;
	t.after_s = 0;
	t.held_min_s = 0;
	t.unready_late_max_s = t.late_max_s = 0.2;
	runner_start_learn(&r, &t);
	assert_int_equal(r.nleads, RUNNER_GAP_WINDOW + 2);
	assert_true(fabs(r.margin_extra_s - 0.2) < 1e-9);
	assert_int_equal(r.nlate, 1);
	free(r.spreads_s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_point_run_appends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_poll_rearms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_poll_without_long_poll, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_follows_own_patch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_params_in_job, setup, teardown),
		cmocka_unit_test_setup_teardown(test_point_fails_on_one_node, setup, teardown),
		cmocka_unit_test_setup_teardown(test_node_stops_answering, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_cancels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clocks_given, setup, teardown),
		cmocka_unit_test_setup_teardown(test_first_moment, setup, teardown),
		cmocka_unit_test(test_gap_follows_leads),
		cmocka_unit_test_setup_teardown(test_ahead_first, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
