/* test_ctl_rollrun.c -- a rollout (rollrun.c) and verify (verify.c) against a fleet of canned
 * agents in-process (the transport seam, fakeagent.h) that keep profiles as the agent does:
 * waves in order, the readback check, a wave put back when its check fails or it has too many
 * failures, failures within --max-failures left old, pre-flight of an agent without profiles,
 * an interrupted rollout resumed from the database, a revert putting back every node (an old
 * profile of the same name too), the measure check (old vs new in sessions: a gain passes, a
 * loss puts the wave back), and verify finding a node that differs or cannot be asked. */
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeagent.h"
#include "fleet/fleet.h"
#include "model/rollout.h"
#include "plan/plan.h"
#include "plan/plan_parse.h"
#include "run/rollrun.h"
#include "run/verify.h"
#include "store/ctlstore.h"
#include "testutil.h"
#include "xmalloc.h"

#define NODES 4
#define VALS 4

/* One canned agent with one device, keeping at most one profile (of any name). */
struct pnode {
	char dev[8];
	char names[VALS][32]; /* the device's parameters and their live values */
	long long live[VALS];
	int nvals;
	bool no_profiles; /* health without the "profiles" feature (an older agent) */
	bool adjust;      /* the kernel takes nr_requests one less than asked */
	bool refuse;      /* a PUT is refused (422) */
	/* the profile it holds */
	bool has;
	char name[64];
	json_t *match, *params;
	bool enforce;
	long long prev[VALS]; /* each value before the profile's application */
	int puts, deletes;
	/* The measure check's session and jobs: the nr_requests each job ran with. */
	bool in_session;
	long long session_saved[VALS];
	int sessions, next_job, job_nr[64], job_polls[64];
};

/* A job's figure on node k at nr_requests nr: the rollout's 256 gives new_factor, with ±0.5 %
 * alternating noise. */
static double new_factor = 1.2;

static double job_figure(int k, long long nr, int id)
{
	return 100.0 * (k + 1) * (nr == 256 ? new_factor : 1.0) * (id % 2 ? 1.005 : 0.995);
}

static struct pnode nodes[NODES];
static struct fake_agent agents[NODES];
static struct fake_agent *agentp[NODES];
static struct fake_fleet ff;
static char *dbdir, dbpath[512];
static volatile sig_atomic_t stop_flag;
static int stop_after_wave = -1; /* the event hook sets stop_flag once this wave is done */

static int val_at(struct pnode *n, const char *name)
{
	int i;

	for (i = 0; i < n->nvals; i++)
		if (!strcmp(n->names[i], name))
			return i;
	return -1;
}

static long long live_of(int k, const char *name)
{
	int i = val_at(&nodes[k], name);

	return i < 0 ? -1 : nodes[k].live[i];
}

/* The profile object as the agent shows it (GET, PUT's answer). */
static json_t *profile_json(struct pnode *n)
{
	json_t *vals = json_object(), *dev, *v;
	const char *key;
	int i;

	json_object_foreach(n->params, key, v)
	{
		i = val_at(n, key);
		json_object_set_new(vals, key,
		                    json_pack("{s:O,s:I,s:I,s:b,s:b}", "wanted", v, "live",
		                              (json_int_t)n->live[i], "previous",
		                              (json_int_t)n->prev[i], "drifted", 0, "adjusted",
		                              n->live[i] != json_integer_value(v)));
	}
	dev = json_pack("{s:s,s:s,s:o}", "device", n->dev, "state", "held", "params", vals);
	return json_pack("{s:s,s:O,s:O,s:b,s:[o]}", "name", n->name, "match", n->match, "params",
	                 n->params, "enforce", n->enforce, "devices", dev);
}

static int json_out(json_t *o, struct buf *out, int status)
{
	char *s = json_dumps(o, JSON_COMPACT);

	buf_puts(out, s);
	free(s);
	json_decref(o);
	return status;
}

/* Apply params to the device: each value taken (one less with adjust), the old ones kept. */
static void apply(struct pnode *n, json_t *params, bool keep_prev)
{
	const char *key;
	json_t *v;
	int i;

	json_object_foreach(params, key, v)
	{
		i = val_at(n, key);
		if (i < 0)
			continue;
		if (!keep_prev)
			n->prev[i] = n->live[i];
		n->live[i] = json_integer_value(v) - (n->adjust && !strcmp(key, "nr_requests"));
	}
}

static int profile_put(struct pnode *n, const char *name, const char *body, bool dry,
                       struct buf *out)
{
	json_t *o = json_loads(body, 0, NULL);
	bool replace = n->has;

	if (!o || n->refuse) {
		json_decref(o);
		buf_puts(out, "{\"error\":{\"code\":\"invalid_value\",\"message\":\"nr_requests: "
		              "refused by the fake\"}}");
		return 422;
	}
	if (dry) {
		json_decref(o);
		buf_puts(out, "{\"dry_run\":true}");
		return 200;
	}
	n->puts++;
	if (replace) {
		/* The old profile's values go first: the new applies over what the device had. */
		json_t *old = n->params;
		const char *key;
		json_t *v;
		int i;

		json_object_foreach(old, key, v)
		{
			i = val_at(n, key);
			if (i >= 0)
				n->live[i] = n->prev[i];
		}
		json_decref(n->match);
		json_decref(n->params);
	}
	n->has = true;
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->match = json_incref(json_object_get(o, "match"));
	n->params = json_incref(json_object_get(o, "params"));
	n->enforce = json_is_true(json_object_get(o, "enforce"));
	apply(n, n->params, false);
	json_decref(o);
	return json_out(profile_json(n), out, replace ? 200 : 201);
}

static int profile_delete(struct pnode *n, bool restore, struct buf *out)
{
	const char *key;
	json_t *v;
	int i;

	n->deletes++;
	json_object_foreach(n->params, key, v)
	{
		i = val_at(n, key);
		if (restore && i >= 0)
			n->live[i] = n->prev[i];
	}
	json_decref(n->match);
	json_decref(n->params);
	n->match = n->params = NULL;
	n->has = false;
	/* As the agent answers (api_profiles.c, keeper.c): each device's restore outcome. */
	if (restore)
		buf_printf(out,
		           "{\"deleted\":true,\"restored\":[{\"device\":\"%s\",\"outcome\":"
		           "\"ok (1 value(s) written)\"}]}",
		           n->dev);
	else
		buf_puts(out, "{\"deleted\":true}");
	return 200;
}

/* The measure check's routes: a session per node (its restore puts back what it had at the
 * start), PATCH of the old or new values, a job of one pass at a time. -1: not one of them. */
static int measure_routes(struct pnode *n, const struct fake_req *r, struct buf *out)
{
	const char *p = r->path, *v;
	int id, i;

	if (!strcmp(r->method, "POST") && strstr(p, "/sessions") &&
	    !strncmp(p, "/api/v1/devices/", 16)) {
		n->sessions++;
		n->in_session = true;
		memcpy(n->session_saved, n->live, sizeof(n->live));
		buf_printf(out, "{\"id\":%d,\"state\":\"open\"}", 7);
		return 201;
	}
	if (!strncmp(p, "/api/v1/sessions/7", 18)) {
		if (!strcmp(r->method, "DELETE")) {
			n->in_session = false;
			memcpy(n->live, n->session_saved, sizeof(n->live));
		}
		buf_puts(out, "{\"id\":7}");
		return 200;
	}
	if (!strcmp(r->method, "PATCH") && strstr(p, "/params") && !strstr(p, "dry_run")) {
		for (i = 0; i < n->nvals; i++) {
			char key[48];

			snprintf(key, sizeof(key), "\"%s\":", n->names[i]);
			if ((v = strstr(r->body, key)))
				n->live[i] = strtoll(v + strlen(key), NULL, 10);
		}
		buf_printf(out,
		           "{\"device\":\"%s\",\"applied\":{\"nr_requests\":{\"value\":%lld}}}",
		           n->dev, n->live[0]);
		return 200;
	}
	if (!strcmp(r->method, "POST") && !strcmp(p, "/api/v1/jobs")) {
		id = ++n->next_job;
		assert_true(id < 64);
		n->job_nr[id] = n->live[0];
		buf_printf(out, "{\"id\":%d,\"state\":\"queued\"}", id);
		return 202;
	}
	if (!strncmp(p, "/api/v1/jobs/", 13)) {
		id = (int)strtol(p + 13, NULL, 10);
		if (!strcmp(r->method, "DELETE")) {
			buf_printf(out, "{\"id\":%d,\"state\":\"cancelled\"}", id);
			return 200;
		}
		/* Running at the first poll, done (one pass) at the next. */
		if (++n->job_polls[id] < 2) {
			buf_printf(
			        out,
			        "{\"id\":%d,\"state\":\"running\",\"loops_done\":0,\"passes\":[]}",
			        id);
			return 200;
		}
		buf_printf(out,
		           "{\"id\":%d,\"state\":\"succeeded\",\"progress\":1,\"loops_done\":1,"
		           "\"started_at\":\"2026-11-29T23:03:36.250Z\",\"finished_at\":"
		           "\"2026-11-29T23:03:38.250Z\",\"passes\":[{\"loop\":1,\"metrics\":"
		           "{\"write.bw_mib\":%.3f}}]}",
		           id, job_figure((int)(n - nodes), n->job_nr[id], id));
		return 200;
	}
	return -1;
}

static int handle(struct fake_agent *a, const struct fake_req *r, struct buf *out)
{
	struct pnode *n = a->ctx;
	const char *p = r->path, *q;
	char name[64];
	int rc;

	if (!strcmp(r->method, "GET") && !strcmp(p, "/api/v1/health")) {
		buf_printf(out,
		           "{\"status\":\"ok\",\"version\":\"0.3.0\",\"node\":\"%s\","
		           "\"uptime_s\":5,\"features\":[\"dry_run\",\"long_poll\"%s]}",
		           a->node, n->no_profiles ? "" : ",\"profiles\"");
		return 200;
	}
	if ((rc = measure_routes(n, r, out)) >= 0)
		return rc;
	if (strncmp(p, "/api/v1/profiles/", 17) || n->no_profiles)
		return fake_agent_default(a, r, out);
	q = strchr(p + 17, '?');
	snprintf(name, sizeof(name), "%.*s", (int)(q ? q - (p + 17) : (long)strlen(p + 17)),
	         p + 17);
	if (!strcmp(r->method, "PUT"))
		return profile_put(n, name, r->body, q && strstr(q, "dry_run=true"), out);
	if (!n->has || strcmp(n->name, name)) {
		buf_printf(out,
		           "{\"error\":{\"code\":\"not_found\",\"message\":\"no profile '%s'\"}}",
		           name);
		return 404;
	}
	if (!strcmp(r->method, "GET"))
		return json_out(profile_json(n), out, 200);
	if (!strcmp(r->method, "DELETE"))
		return profile_delete(n, !(q && strstr(q, "restore=false")), out);
	return fake_agent_default(a, r, out);
}

static const char plan_text[] =
        "{\"name\":\"roll\",\"nodes\":["
        "{\"name\":\"n1\",\"url\":\"http://h:1\",\"device\":\"sda\"},"
        "{\"name\":\"n2\",\"url\":\"http://h:2\",\"device\":\"sdb\"},"
        "{\"name\":\"n3\",\"url\":\"http://h:3\",\"device\":\"sdc\"},"
        "{\"name\":\"n4\",\"url\":\"http://h:4\",\"device\":\"sdd\"}],"
        "\"baseline\":{\"nr_requests\":128},\"axes\":[{\"param\":\"nr_requests\","
        "\"values\":[64,256]}],\"strategy\":\"grid\","
        "\"job\":{\"fio\":{\"rw\":\"write\",\"runtime_s\":2},\"loops\":3}}";

static int setup(void **state)
{
	int k;

	(void)state;
	memset(nodes, 0, sizeof(nodes));
	for (k = 0; k < NODES; k++) {
		char url[32], node[8];

		snprintf(nodes[k].dev, sizeof(nodes[k].dev), "sd%c", 'a' + k);
		snprintf(nodes[k].names[0], sizeof(nodes[k].names[0]), "nr_requests");
		snprintf(nodes[k].names[1], sizeof(nodes[k].names[1]), "read_ahead_kb");
		nodes[k].live[0] = 128;
		nodes[k].live[1] = 128;
		nodes[k].nvals = 2;
		memset(&agents[k], 0, sizeof(agents[k]));
		snprintf(url, sizeof(url), "http://h:%d", k + 1);
		snprintf(node, sizeof(node), "n%d", k + 1);
		fake_agent_inproc(&agents[k], url);
		agents[k].node = xstrdup(node);
		agents[k].device = nodes[k].dev;
		agents[k].handle = handle;
		agents[k].ctx = &nodes[k];
		agentp[k] = &agents[k];
	}
	fake_fleet_init(&ff, agentp, NODES);
	dbdir = tu_tmpdir();
	snprintf(dbpath, sizeof(dbpath), "%s/ctl.db", dbdir);
	stop_flag = 0;
	stop_after_wave = -1;
	new_factor = 1.2;
	/* The measure check loads the stored plan's tokens (stored without them). */
	setenv("FLEETTUNE_TOKEN", "fake-fleet-token", 1);
	return 0;
}

static int teardown(void **state)
{
	int k;

	(void)state;
	for (k = 0; k < NODES; k++) {
		fake_agent_stop(&agents[k]);
		free((char *)agents[k].node);
		json_decref(nodes[k].match);
		json_decref(nodes[k].params);
	}
	fake_fleet_release(&ff);
	tu_rmrf(dbdir);
	free(dbdir);
	return 0;
}

static void on_event(void *cls, const struct rollout *r, enum rollrun_event ev, int wave, int round,
                     int rounds)
{
	(void)cls;
	(void)r;
	(void)round;
	(void)rounds;
	if (ev == ROLLRUN_WAVE_DONE && wave == stop_after_wave)
		stop_flag = SIGINT;
}

static struct rollrun_opts opts(void)
{
	struct rollrun_opts o = { .db_path = dbpath,
		                  .stop = &stop_flag,
		                  .owner_pid = 1,
		                  .owner_host = "test",
		                  .event = on_event,
		                  .transport = &ff.t };

	return o;
}

/* A new rollout of nr_requests 256 (profile "ft"), readback check, canary 1, waves 50%,100%:
 * waves of 1, 1 and 2 nodes. */
static void rollout_new(struct rollout *r, struct plan *p, int max_failures)
{
	struct err e = { 0 };

	rollout_init(r);
	assert_int_equal(plan_parse(plan_text, ".", p, &e), 0);
	config_set(&r->params, "nr_requests", "256", true);
	r->check = CHECK_READBACK;
	r->enforce = true;
	r->canary = 1;
	r->max_failures = max_failures;
	snprintf(r->profile, sizeof(r->profile), "ft");
	snprintf(r->waves_spec, sizeof(r->waves_spec), "50%%,100%%");
	snprintf(r->plan_name, sizeof(r->plan_name), "roll");
	r->plan_json = xstrdup(p->json);
	r->plan_dir = xstrdup(".");
}

static enum rollrun_result start(struct rollout *r, struct plan *p, struct err *e)
{
	struct rollrun_opts o = opts();

	return rollrun_start(r, p, NULL, &o, e);
}

/* Every wave passes: every node holds the profile with its value live, one PUT each, the
 * canary's before any other (its wave is 0), and the rollout is stored completed. */
static void test_waves_complete(void **state)
{
	struct rollout r, back;
	struct plan p;
	struct err e = { 0 };
	struct ctlstore *st = NULL;
	int k;

	(void)state;
	rollout_new(&r, &p, 0);
	assert_int_equal(start(&r, &p, &e), ROLLRUN_COMPLETED);
	assert_int_equal(r.status, ROLLOUT_COMPLETED);
	assert_int_equal(r.nwaves, 3);
	assert_int_equal(r.waves[0].nodes, 1);
	assert_int_equal(r.waves[1].nodes, 1);
	assert_int_equal(r.waves[2].nodes, 2);
	for (k = 0; k < 3; k++)
		assert_string_equal(r.waves[k].check, "passed");
	for (k = 0; k < NODES; k++) {
		assert_int_equal(r.nodes[k].state, RNODE_NEW);
		assert_int_equal(live_of(k, "nr_requests"), 256);
		assert_int_equal(live_of(k, "read_ahead_kb"), 128);
		assert_int_equal(nodes[k].puts, 1);
		assert_true(nodes[k].has && nodes[k].enforce);
	}
	assert_int_equal(r.nodes[0].wave, 0);
	/* Stored as it ended. */
	assert_int_equal(ctlstore_open(dbpath, &st, &e), 0);
	assert_int_equal(ctlstore_rollout_load(st, r.id, &back, &e), 0);
	assert_int_equal(back.status, ROLLOUT_COMPLETED);
	for (k = 0; k < NODES; k++)
		assert_int_equal(back.nodes[k].state, RNODE_NEW);
	ctlstore_close(st);
	rollout_release(&back);
	rollout_release(&r);
	plan_release(&p);
}

/* Node 2 (wave 1) reads back another value than the profile's: the check fails, that wave is
 * put back (its node restored, its profile gone), the canary keeps the new profile, and the
 * last wave is never touched. */
static void test_check_fails_wave_put_back(void **state)
{
	enum rollrun_result res;
	struct rollout r;
	struct plan p;
	struct err e = { 0 };

	(void)state;
	nodes[1].adjust = true;
	rollout_new(&r, &p, 0);
	res = start(&r, &p, &e);
	if (res != ROLLRUN_STOPPED)
		fail_msg("result %d, reason '%s', wave 1 '%s' '%s', node 2 %d '%s'", res, r.reason,
		         r.waves[1].check, r.waves[1].detail, r.nodes[1].state, r.nodes[1].error);
	assert_int_equal(r.status, ROLLOUT_STOPPED);
	assert_string_equal(r.waves[0].check, "passed");
	assert_string_equal(r.waves[1].check, "failed");
	assert_non_null(strstr(r.waves[1].detail, "nr_requests"));
	assert_int_equal(r.nodes[0].state, RNODE_NEW);
	assert_int_equal(live_of(0, "nr_requests"), 256);
	/* Put back: node 2 has its old value and no profile. */
	assert_false(nodes[1].has);
	assert_int_equal(live_of(1, "nr_requests"), 128);
	assert_true(r.nodes[1].state == RNODE_REVERTED || r.nodes[1].state == RNODE_OLD ||
	            r.nodes[1].state == RNODE_FAILED);
	/* The last wave: no request changed anything. */
	assert_int_equal(nodes[2].puts + nodes[3].puts, 0);
	assert_int_equal(live_of(2, "nr_requests"), 128);
	assert_int_equal(live_of(3, "nr_requests"), 128);
	rollout_release(&r);
	plan_release(&p);
}

/* A node of the last wave refuses the values: with --max-failures 1 it is left as it was and
 * the rollout completes with failures (partial); with 0 the wave is put back. */
static void test_max_failures(void **state)
{
	struct rollout r;
	struct plan p;
	struct err e = { 0 };

	(void)state;
	nodes[3].refuse = true;
	rollout_new(&r, &p, 1);
	assert_int_equal(start(&r, &p, &e), ROLLRUN_PARTIAL);
	assert_int_equal(r.nodes[3].state, RNODE_FAILED);
	assert_non_null(strstr(r.nodes[3].error, "refused by the fake"));
	assert_int_equal(r.nodes[2].state, RNODE_NEW);
	assert_int_equal(live_of(2, "nr_requests"), 256);
	assert_int_equal(live_of(3, "nr_requests"), 128);
	assert_int_equal(r.waves[2].failures, 1);
	rollout_release(&r);
	plan_release(&p);
	teardown(state);
	setup(state);

	nodes[3].refuse = true;
	rollout_new(&r, &p, 0);
	assert_int_equal(start(&r, &p, &e), ROLLRUN_STOPPED);
	assert_int_equal(live_of(2, "nr_requests"), 128); /* its wave was put back */
	assert_false(nodes[2].has);
	assert_int_equal(live_of(1, "nr_requests"), 256); /* the waves before keep it */
	rollout_release(&r);
	plan_release(&p);
}

/* A node whose agent keeps no profiles, or that does not answer, fails pre-flight: a failure
 * of its wave, its device untouched. */
static void test_preflight_failures(void **state)
{
	struct rollout r;
	struct plan p;
	struct err e = { 0 };

	(void)state;
	nodes[2].no_profiles = true;
	ff.down[3] = true;
	rollout_new(&r, &p, 2);
	assert_int_equal(start(&r, &p, &e), ROLLRUN_PARTIAL);
	assert_int_equal(r.nodes[2].state, RNODE_FAILED);
	assert_non_null(strstr(r.nodes[2].error, "keeps no profiles"));
	assert_int_equal(r.nodes[3].state, RNODE_FAILED);
	assert_non_null(strstr(r.nodes[3].error, "pre-flight"));
	assert_int_equal(nodes[2].puts + nodes[3].puts, 0);
	assert_int_equal(r.nodes[0].state, RNODE_NEW);
	assert_int_equal(r.nodes[1].state, RNODE_NEW);
	rollout_release(&r);
	plan_release(&p);
}

/* A signal after the canary's wave stops the rollout there (interrupted, nothing half-done);
 * loaded back from the database, it resumes and completes. */
static void test_interrupted_then_resumed(void **state)
{
	struct rollout r, stored;
	struct plan p, p2;
	struct err e = { 0 };
	struct ctlstore *st = NULL;
	struct rollrun_opts o = opts();
	int k;

	(void)state;
	rollout_new(&r, &p, 0);
	stop_after_wave = 0;
	assert_int_equal(start(&r, &p, &e), ROLLRUN_INTERRUPTED);
	assert_int_equal(r.status, ROLLOUT_INTERRUPTED);
	assert_int_equal(r.nodes[0].state, RNODE_NEW);
	for (k = 1; k < NODES; k++) {
		assert_int_equal(r.nodes[k].state, RNODE_OLD);
		assert_int_equal(nodes[k].puts, 0);
	}
	stop_flag = 0;
	stop_after_wave = -1;
	assert_int_equal(ctlstore_open(dbpath, &st, &e), 0);
	assert_int_equal(ctlstore_rollout_load(st, r.id, &stored, &e), 0);
	ctlstore_close(st);
	assert_int_equal(plan_parse(stored.plan_json, stored.plan_dir, &p2, &e), 0);
	assert_int_equal(rollrun_resume(&stored, &p2, NULL, &o, &e), ROLLRUN_COMPLETED);
	for (k = 0; k < NODES; k++) {
		assert_int_equal(stored.nodes[k].state, RNODE_NEW);
		assert_int_equal(live_of(k, "nr_requests"), 256);
		assert_int_equal(nodes[k].puts, 1); /* the canary was not written twice */
	}
	rollout_release(&stored);
	plan_release(&p2);
	rollout_release(&r);
	plan_release(&p);
}

/* A completed rollout reverted: every node back to what it had; node 1 had a profile of the
 * same name before (read_ahead_kb 512), which is put back as it was. */
static void test_revert(void **state)
{
	struct rollout r;
	struct plan p;
	struct err e = { 0 };
	struct rollrun_opts o = opts();
	int k;

	(void)state;
	nodes[0].has = true;
	snprintf(nodes[0].name, sizeof(nodes[0].name), "ft");
	nodes[0].match = json_pack("{s:[s]}", "devices", "sda");
	nodes[0].params = json_pack("{s:i}", "read_ahead_kb", 512);
	nodes[0].enforce = false;
	apply(&nodes[0], nodes[0].params, false);
	rollout_new(&r, &p, 0);
	assert_int_equal(start(&r, &p, &e), ROLLRUN_COMPLETED);
	assert_true(r.nodes[0].had_profile);
	assert_int_equal(live_of(0, "nr_requests"), 256);
	assert_int_equal(live_of(0, "read_ahead_kb"), 128); /* the new profile replaced it */
	if (rollrun_revert(&r, &p, &o, &e) != ROLLRUN_REVERTED)
		fail_msg("revert: '%s', reason '%s'", e.msg, r.reason);
	assert_int_equal(r.status, ROLLOUT_REVERTED);
	for (k = 0; k < NODES; k++) {
		assert_int_equal(r.nodes[k].state, RNODE_REVERTED);
		assert_int_equal(live_of(k, "nr_requests"), 128);
	}
	for (k = 1; k < NODES; k++)
		assert_false(nodes[k].has);
	/* Node 1 holds its old profile again, with its value and enforce as they were. */
	assert_true(nodes[0].has);
	assert_int_equal(json_integer_value(json_object_get(nodes[0].params, "read_ahead_kb")),
	                 512);
	assert_null(json_object_get(nodes[0].params, "nr_requests"));
	assert_false(nodes[0].enforce);
	assert_int_equal(live_of(0, "read_ahead_kb"), 512);
	rollout_release(&r);
	plan_release(&p);
}

/* verify after a rollout: every node ok; one whose value drifted differs, one that does not
 * answer is unreachable; without a rollout, --params on every node. */
static void test_verify(void **state)
{
	struct rollout r;
	struct plan p;
	struct err e = { 0 };
	struct verify_expect ex[NODES];
	struct verify_node res[NODES];
	struct config cfg = { 0 };
	int k;

	(void)state;
	rollout_new(&r, &p, 0);
	assert_int_equal(start(&r, &p, &e), ROLLRUN_COMPLETED);
	memset(ex, 0, sizeof(ex));
	memset(res, 0, sizeof(res));
	verify_expect_from(&p, &r, &cfg, "rollout r1", ex);
	assert_int_equal(verify_run(&p, "ft", ex, &ff.t, res), 0);
	for (k = 0; k < NODES; k++)
		assert_int_equal(res[k].state, VERIFY_OK);
	/* Drift on node 2, node 4 down. */
	nodes[1].live[0] = 64;
	ff.down[3] = true;
	memset(res, 0, sizeof(res));
	assert_int_equal(verify_run(&p, "ft", ex, &ff.t, res), 2);
	assert_int_equal(res[0].state, VERIFY_OK);
	assert_int_equal(res[1].state, VERIFY_DIFFERS);
	assert_non_null(strstr(res[1].detail, "nr_requests"));
	assert_int_equal(res[2].state, VERIFY_OK);
	assert_int_equal(res[3].state, VERIFY_UNREACHABLE);
	/* Against --params read_ahead_kb 4096: no node holds it. */
	ff.down[3] = false;
	config_set(&cfg, "read_ahead_kb", "4096", true);
	memset(ex, 0, sizeof(ex));
	memset(res, 0, sizeof(res));
	verify_expect_from(&p, NULL, &cfg, "--params", ex);
	assert_int_equal(verify_run(&p, "ft", ex, &ff.t, res), NODES);
	for (k = 0; k < NODES; k++)
		assert_int_equal(res[k].state, VERIFY_DIFFERS);
	rollout_release(&r);
	plan_release(&p);
}

/* The measure check: each wave's new nodes run the job old and new in ABBA rounds inside a
 * session; +20 % passes every wave (sessions closed, the profile's value live again); -20 %
 * is a significant loss: the canary's wave fails and is put back. */
static void test_measure_check(void **state)
{
	struct rollout r;
	struct plan p;
	struct err e = { 0 };
	int k, j;

	(void)state;
	rollout_new(&r, &p, 0);
	r.check = CHECK_MEASURE;
	if (start(&r, &p, &e) != ROLLRUN_COMPLETED)
		fail_msg("'%s' / %s: %s / %s: %s", e.msg, r.waves[0].check, r.waves[0].detail,
		         r.waves[1].check, r.waves[1].detail);
	for (k = 0; k < 3; k++) {
		assert_string_equal(r.waves[k].check, "passed");
		/* "write.bw_mib new vs old on N node(s), 3 round(s): +19.6 % [...]: gain" */
		if (!strstr(r.waves[k].detail, "3 round(s): +19.") &&
		    !strstr(r.waves[k].detail, "3 round(s): +20."))
			fail_msg("wave %d: %s", k, r.waves[k].detail);
		assert_non_null(strstr(r.waves[k].detail, ": gain"));
	}
	for (k = 0; k < NODES; k++) {
		assert_int_equal(nodes[k].sessions, 1);
		assert_false(nodes[k].in_session);
		assert_int_equal(live_of(k, "nr_requests"), 256);
		/* 3 rounds of old and new: 6 jobs, three at each value. */
		assert_int_equal(nodes[k].next_job, 6);
		for (j = 1; j <= 6; j++)
			assert_true(nodes[k].job_nr[j] == 128 || nodes[k].job_nr[j] == 256);
	}
	rollout_release(&r);
	plan_release(&p);
	teardown(state);
	setup(state);

	new_factor = 0.8;
	rollout_new(&r, &p, 0);
	r.check = CHECK_MEASURE;
	assert_int_equal(start(&r, &p, &e), ROLLRUN_STOPPED);
	assert_string_equal(r.waves[0].check, "failed");
	assert_non_null(strstr(r.waves[0].detail, "significant loss"));
	assert_false(nodes[0].has);
	assert_int_equal(live_of(0, "nr_requests"), 128);
	for (k = 1; k < NODES; k++)
		assert_int_equal(nodes[k].puts, 0);
	rollout_release(&r);
	plan_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_waves_complete, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check_fails_wave_put_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_preflight_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interrupted_then_resumed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revert, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verify, setup, teardown),
		cmocka_unit_test_setup_teardown(test_measure_check, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
