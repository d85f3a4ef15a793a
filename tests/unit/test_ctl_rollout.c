/* test_ctl_rollout.c -- rollout.c: waves from --canary and --waves (percentages rounded up,
 * counts, empty waves skipped, the last reaching every node, errors naming the entry), the
 * node counts, the codes; and a rollout saved and loaded back by ctlstore_rollout.c, with its
 * summary for history; --params and --waves refusing what no device takes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/rollout.h"
#include "plan/config.h"
#include "store/ctlstore.h"
#include "testutil.h"
#include "xmalloc.h"

static void waves_are(int nnodes, int canary, const char *spec, const int *want, int nwant)
{
	int cum[ROLLOUT_WAVES_MAX], n, i;
	struct err e = { 0 };

	assert_int_equal(rollout_waves_plan(nnodes, canary, spec, cum, &n, &e), 0);
	if (n != nwant)
		fail_msg("%d nodes, canary %d, '%s': %d waves, wanted %d", nnodes, canary, spec, n,
		         nwant);
	for (i = 0; i < n; i++)
		assert_int_equal(cum[i], want[i]);
}

static void test_waves(void **state)
{
	static const int w256[] = { 1, 26, 128, 256 }, w4[] = { 1, 2, 4 }, w4b[] = { 2, 4 },
	                 w10[] = { 1, 3, 10 }, w1[] = { 1 };

	(void)state;
	waves_are(256, 1, "10%,50%,100%", w256, 4);
	waves_are(4, 1, "50%,100%", w4, 3);
	waves_are(4, 1, "10%,50%,100%", w4, 3); /* 10 % of 4 is the canary: no empty wave */
	waves_are(4, 2, "50%,100%", w4b, 2);
	waves_are(10, 1, "3,100%", w10, 3);
	waves_are(1, 1, "100%", w1, 1);
}

static void test_waves_refused(void **state)
{
	static const struct {
		int nnodes, canary;
		const char *spec, *msg;
	} cases[] = {
		{ 4, 5, "100%", "--canary: 5 is not 1..4" },
		{ 4, 0, "100%", "--canary" },
		{ 4, 1, "10%,50%", "the last wave must reach every node" },
		{ 4, 1, "abc,100%", "'abc' is not a percentage" },
		{ 4, 1, "0%,100%", "'0%'" },
		{ 4, 1, "150%", "'150%'" },
		{ 4, 1, "9,100%", "'9' is more than the plan's 4 nodes" },
		{ 0, 1, "100%", "no nodes" },
		/* What strtod would take but a wave is not: blanks, a line break, hex, inf. */
		{ 4, 1, " 50%,100%", "' 50%' is not a percentage" },
		{ 4, 1, "\n50%,100%", "is not a percentage" },
		{ 4, 1, "0x10%,100%", "'0x10%'" },
		{ 4, 1, "inf%", "'inf%'" },
		{ 4, 1, ".5%,100%", "'.5%'" },
	};
	int cum[ROLLOUT_WAVES_MAX], n;
	struct err e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&e, 0, sizeof(e));
		assert_int_equal(rollout_waves_plan(cases[i].nnodes, cases[i].canary, cases[i].spec,
		                                    cum, &n, &e),
		                 -EINVAL);
		if (!strstr(e.msg, cases[i].msg))
			fail_msg("case %zu: '%s' does not say '%s'", i, e.msg, cases[i].msg);
	}
}

/* --params for rollout, verify and apply: what no device takes and no output can show is
 * refused, the message naming the parameter with its control characters escaped. */
static void test_params_refused(void **state)
{
	static const struct {
		const char *json, *msg;
	} cases[] = {
		{ "{\"nr_requests\":\"3\\n2\"}", "params.nr_requests: has a control character" },
		{ "{\"scheduler\":\"none\\u001b[2J\"}",
		  "params.scheduler: has a control character" },
		{ "{\"scheduler\":\"\"}", "params.scheduler: empty value" },
		{ "{\"../queue/x\":1}", "'../queue/x' is not a parameter name" },
		{ "{\"a\\nb\":1}", "'a\\x0ab' is not a parameter name" },
		{ "{\"a b\":1}", "'a b' is not a parameter name" },
	};
	struct config cfg;
	struct err e;
	char big[400];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&e, 0, sizeof(e));
		assert_int_equal(config_parse_json(cases[i].json, &cfg, &e), 0);
		assert_int_equal(config_check(&cfg, &e), -EINVAL);
		if (!strstr(e.msg, cases[i].msg))
			fail_msg("case %zu: '%s' does not say '%s'", i, e.msg, cases[i].msg);
	}
	/* A value longer than a setting holds is refused, not cut. */
	memset(&e, 0, sizeof(e));
	snprintf(big, sizeof(big), "{\"scheduler\":\"%0*d\"}", PARAM_VALUE_MAX, 0);
	assert_int_equal(config_parse_json(big, &cfg, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "params.scheduler: longer than"));
	assert_int_equal(
	        config_parse_json("{\"iosched.fifo_batch\":8,\"scheduler\":\"mq-deadline\"}", &cfg,
	                          &e),
	        0);
	assert_int_equal(config_check(&cfg, &e), 0);
}

static void test_codes(void **state)
{
	int i;

	(void)state;
	for (i = 0; i <= ROLLOUT_FAILED; i++)
		assert_int_equal(rollout_status_parse(rollout_status_name(i)), i);
	for (i = 0; i <= RNODE_REVERTED; i++)
		assert_int_equal(rollout_node_state_parse(rollout_node_state_name(i)), i);
	for (i = 0; i <= CHECK_MEASURE; i++)
		assert_int_equal(rollout_check_parse(rollout_check_name(i)), i);
	assert_int_equal(rollout_check_parse("everything"), -1);
}

/* A 4-node rollout as rollrun leaves it mid-way. */
static void rollout_make(struct rollout *r)
{
	static const int cum[] = { 1, 2, 4 };
	int i;

	rollout_init(r);
	snprintf(r->plan_name, sizeof(r->plan_name), "db pool");
	r->plan_json = xstrdup("{\"name\":\"db pool\"}");
	r->plan_dir = xstrdup("/etc/fleettune");
	config_set(&r->params, "nr_requests", "256", true);
	config_set(&r->params, "scheduler", "mq-deadline", false);
	r->sweep_id = 12;
	r->promised_gain = true;
	r->promised_pct = 7.5;
	r->max_failures = 1;
	r->check = CHECK_MEASURE;
	r->created_at = 1000;
	r->owner_pid = 4242;
	snprintf(r->owner_host, sizeof(r->owner_host), "ctl1");
	r->nnodes = 4;
	r->nodes = xcalloc(4, sizeof(*r->nodes));
	for (i = 0; i < 4; i++) {
		r->nodes[i].idx = i;
		snprintf(r->nodes[i].name, sizeof(r->nodes[i].name), "n%d", i + 1);
		snprintf(r->nodes[i].url, sizeof(r->nodes[i].url), "http://10.0.0.%d:7070", i + 1);
		snprintf(r->nodes[i].device, sizeof(r->nodes[i].device), "sda");
	}
	rollout_waves_assign(r, cum, 3);
	r->nodes[0].state = RNODE_NEW;
	config_set(&r->nodes[0].old_values, "nr_requests", "64", true);
	r->nodes[1].state = RNODE_APPLYING;
	r->nodes[1].had_profile = true;
	r->nodes[1].old_profile = xstrdup("{\"match\":{\"devices\":[\"sda\"]},\"params\":{\"nr_"
	                                  "requests\":128},\"enforce\":true}");
	config_set(&r->nodes[1].old_params, "nr_requests", "128", true);
	r->nodes[1].session_id = 7;
	r->nodes[1].job_id = 9;
	r->nodes[2].state = RNODE_FAILED;
	snprintf(r->nodes[2].error, sizeof(r->nodes[2].error), "write: HTTP 422: refused");
}

static void test_store_roundtrip(void **state)
{
	char *dir = tu_tmpdir(), db[512];
	struct ctlstore *st = NULL;
	struct ctlstore_rollout_summary *h = NULL;
	struct rollout r, l;
	struct err e = { 0 };
	int n;

	(void)state;
	snprintf(db, sizeof(db), "%s/ctl.db", dir);
	assert_int_equal(ctlstore_open(db, &st, &e), 0);
	rollout_make(&r);
	assert_int_equal(ctlstore_rollout_create(st, &r, &e), 0);
	assert_true(r.id > 0);
	r.waves[0].started_at = 1001;
	r.waves[0].finished_at = 1002;
	snprintf(r.waves[0].check, sizeof(r.waves[0].check), "passed");
	snprintf(r.waves[0].detail, sizeof(r.waves[0].detail), "measure: +7.1 %%");
	assert_int_equal(ctlstore_rollout_wave_save(st, &r, 0, &e), 0);
	r.nodes[3].state = RNODE_REVERTING;
	assert_int_equal(ctlstore_rollout_nodes_save(st, &r, NULL, &e), 0);
	r.status = ROLLOUT_STOPPED;
	snprintf(r.reason, sizeof(r.reason), "wave 2: loss");
	r.finished_at = 1010;
	assert_int_equal(ctlstore_rollout_status_save(st, &r, &e), 0);

	assert_int_equal(ctlstore_rollout_load(st, r.id, &l, &e), 0);
	assert_int_equal(l.status, ROLLOUT_STOPPED);
	assert_string_equal(l.reason, "wave 2: loss");
	assert_string_equal(l.plan_dir, "/etc/fleettune");
	assert_true(config_equal(&l.params, &r.params));
	assert_int_equal(l.check, CHECK_MEASURE);
	assert_int_equal(l.sweep_id, 12);
	assert_true(l.promised_gain);
	assert_int_equal(l.max_failures, 1);
	assert_int_equal(l.nnodes, 4);
	assert_int_equal(l.nwaves, 3);
	assert_int_equal(l.waves[2].nodes, 2);
	assert_string_equal(l.waves[0].check, "passed");
	assert_int_equal(l.nodes[0].state, RNODE_NEW);
	assert_string_equal(config_get(&l.nodes[0].old_values, "nr_requests")->value, "64");
	assert_false(l.nodes[0].had_profile);
	assert_int_equal(l.nodes[1].state, RNODE_APPLYING);
	assert_true(l.nodes[1].had_profile);
	assert_string_equal(l.nodes[1].old_profile, r.nodes[1].old_profile);
	assert_string_equal(config_get(&l.nodes[1].old_params, "nr_requests")->value, "128");
	assert_int_equal(l.nodes[1].session_id, 7);
	assert_int_equal(l.nodes[1].job_id, 9);
	assert_string_equal(l.nodes[2].error, "write: HTTP 422: refused");
	assert_int_equal(l.nodes[3].state, RNODE_REVERTING);
	assert_int_equal(l.nodes[3].wave, 2);

	assert_int_equal(ctlstore_rollouts_list(st, 10, &h, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_string_equal(h[0].status, "stopped");
	assert_string_equal(h[0].params, "nr_requests=256 scheduler=mq-deadline");
	assert_int_equal(h[0].nnodes, 4);
	assert_int_equal(h[0].nnew, 1);
	assert_int_equal(h[0].nfailed, 1);
	assert_int_equal(h[0].owner_pid, 4242);
	free(h);
	rollout_release(&l);
	assert_int_equal(ctlstore_rollout_load(st, r.id + 1, &l, &e), -ENOENT);
	rollout_release(&r);
	ctlstore_close(st);
	tu_rmrf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_waves),           cmocka_unit_test(test_waves_refused),
		cmocka_unit_test(test_params_refused),  cmocka_unit_test(test_codes),
		cmocka_unit_test(test_store_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL) || tu_leaked();
}
