/* test_ctl_twins.c -- twins.c: the nodes of each cohort compared on the writable parameters the
 * plan does not set; a difference named with the reference node and its fix; what the plan
 * sets, what moves with it, what it allows and what is not writable left alone. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctltest.h"
#include "fleet/fleet.h"
#include "plan/plan.h"
#include "run/twins.h"
#include "testutil.h"

/* Node k's parameters from "name=value[=ro] ..." text. */
static void params_set(struct node_info *ni, const char *text)
{
	char copy[512], *save = NULL, *t;

	snprintf(copy, sizeof(copy), "%s", text);
	ni->ok = true;
	ni->params = calloc(16, sizeof(*ni->params));
	for (t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		struct param_info *pi = &ni->params[ni->nparams++];
		char *eq = strchr(t, '='), *ro;

		*eq = '\0';
		ro = strchr(eq + 1, '=');
		if (ro)
			*ro = '\0';
		snprintf(pi->name, sizeof(pi->name), "%s", t);
		snprintf(pi->value, sizeof(pi->value), "%s", eq + 1);
		pi->writable = !ro;
	}
}

/* s from ctltest_plan's plan of nnodes nodes. */
static void sweep_of(struct sweep *s, int nnodes, const char *baseline, const char *axes,
                     const char *extra)
{
	char *t = ctltest_plan(nnodes, baseline, axes, "grid", "3", extra);

	ctltest_sweep_text(s, t);
	free(t);
}

static void infos_free(struct node_info *info, int n)
{
	int k;

	for (k = 0; k < n; k++)
		free(info[k].params);
}

static void test_differences_named(void **state)
{
	struct node_info info[3] = { 0 };
	struct buf out = BUF_INIT;
	struct sweep s;

	(void)state;
	sweep_of(&s, 3, "{\"nr_requests\":128}",
	         "[{\"param\":\"nr_requests\",\"values\":[64,128]}]", "");
	/* n2 differs in rq_affinity and fifo_batch; nr_requests (swept) and rotational (read
	 * only) differ too but are not compared; n1 and n3 agree: they are the reference. */
	params_set(&info[0], "nr_requests=128 rq_affinity=1 iosched.fifo_batch=16 rotational=0=ro");
	params_set(&info[1], "nr_requests=64 rq_affinity=2 iosched.fifo_batch=32 rotational=1=ro");
	params_set(&info[2], "nr_requests=32 rq_affinity=1 iosched.fifo_batch=16 rotational=0=ro");
	assert_int_equal(twins_check(&s.plan, info, NULL, &out), 1);
	assert_non_null(
	        strstr(out.data, "n2: rq_affinity 2, n1: 1; iosched.fifo_batch 32, n1: 16\n"));
	assert_null(strstr(out.data, "nr_requests 64"));
	assert_null(strstr(out.data, "rotational"));
	assert_non_null(strstr(out.data, "(\"baseline\": {..., \"rq_affinity\": 1, "
	                                 "\"iosched.fifo_batch\": 16})"));
	assert_non_null(strstr(out.data, "(\"allow_differences\": [\"rq_affinity\", "
	                                 "\"iosched.fifo_batch\"], or --allow-differences "
	                                 "rq_affinity,iosched.fifo_batch)"));
	/* The fix it suggests: in the baseline, they are the plan's and no longer compared. */
	buf_reset(&out);
	config_set(&s.plan.baseline, "rq_affinity", "1", true);
	config_set(&s.plan.baseline, "iosched.fifo_batch", "16", true);
	assert_int_equal(twins_check(&s.plan, info, NULL, &out), 0);
	assert_int_equal(out.len, 0);
	sweep_release(&s);
	/* Or allowed, one exactly and the other by its prefix. */
	sweep_of(&s, 3, "{\"nr_requests\":128}",
	         "[{\"param\":\"nr_requests\",\"values\":[64,128]}]",
	         ",\"allow_differences\":[\"rq_affinity\"]");
	assert_int_equal(twins_check(&s.plan, info, NULL, &out), 1);
	assert_null(strstr(out.data, "rq_affinity 2"));
	assert_non_null(strstr(out.data, "n2: iosched.fifo_batch 32, n1: 16\n"));
	buf_reset(&out);
	assert_int_equal(plan_allow_differences_add(&s.plan, "iosched.*", NULL), 0);
	assert_int_equal(twins_check(&s.plan, info, NULL, &out), 0);
	assert_int_equal(plan_allow_differences_add(&s.plan, "bad name", NULL), -EINVAL);
	buf_release(&out);
	infos_free(info, 3);
	sweep_release(&s);
}

/* Within each cohort only; what moves with a swept parameter and what a node lacks are left
 * alone. */
static void test_cohorts_and_moves_with(void **state)
{
	struct node_info info[4] = { 0 };
	struct buf out = BUF_INIT;
	int cohort_of[4] = { 0, 0, 1, 1 };
	struct sweep s;

	(void)state;
	sweep_of(&s, 4, "{\"read_ahead_kb\":128,\"nr_requests\":64}",
	         "[{\"param\":\"read_ahead_kb\",\"values\":[128,4096]}]", "");
	/* The cohorts differ from each other (another model may well differ); within each the
	 * nodes agree but for setra (moves with read_ahead_kb), async_depth (with nr_requests)
	 * and a parameter only one node has. */
	params_set(&info[0], "setra=256 iosched.async_depth=48 wbt_lat_usec=2000");
	params_set(&info[1],
	           "setra=512 iosched.async_depth=96 wbt_lat_usec=2000 iosched.quantum=8");
	params_set(&info[2], "setra=256 wbt_lat_usec=75000");
	params_set(&info[3], "setra=256 wbt_lat_usec=75000");
	assert_int_equal(twins_check(&s.plan, info, cohort_of, &out), 0);
	assert_string_equal(twins_moves_with("setra"), "read_ahead_kb");
	assert_string_equal(twins_moves_with("iosched.async_depth"), "nr_requests");
	assert_null(twins_moves_with("rq_affinity"));
	/* One cohort: wbt_lat_usec differs, the majority (three nodes... two against two: the
	 * earlier node's value) is the reference. */
	assert_int_equal(twins_check(&s.plan, info, NULL, &out), 2);
	assert_non_null(strstr(out.data, "n3: wbt_lat_usec 75000, n1: 2000\n"));
	assert_non_null(strstr(out.data, "n4: wbt_lat_usec 75000, n1: 2000\n"));
	/* A node whose probe failed is left out. */
	buf_reset(&out);
	info[2].ok = info[3].ok = false;
	assert_int_equal(twins_check(&s.plan, info, NULL, &out), 0);
	buf_release(&out);
	infos_free(info, 4);
	sweep_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_differences_named),
		cmocka_unit_test(test_cohorts_and_moves_with),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
