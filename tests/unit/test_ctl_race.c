/* test_ctl_race.c -- the adaptive strategy's races (drops, ties, all equivalent, the cap, the
 * budget, a node failing mid-race, minimize, a leader carried tentatively and what the final
 * confirmation makes of it, flat surfaces) and its loop accounting, played on simulated
 * passes; no HTTP. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctltest.h"
#include "judge/analysis.h"
#include "judge/race.h"
#include "judge/verdict.h"
#include "model/sweep.h"
#include "plan/plan.h"
#include "plan/plan_parse.h"
#include "render/report.h"
#include "run/schedule.h"
#include "run/strategy.h"
#include "testutil.h"

/* Two nodes, nr_requests baseline 128 and six values; fio runs of 2 s, loops 3..12. */
#define PLAN_FMT                                                                                   \
	"{\"name\":\"r\",\"nodes\":[{\"name\":\"a\",\"url\":\"http://h:1\",\"device\":\"sda\"},"   \
	"{\"name\":\"b\",\"url\":\"http://h:2\",\"device\":\"sdb\"}],"                             \
	"\"baseline\":{\"nr_requests\":128,\"read_ahead_kb\":128},"                                \
	"\"axes\":[{\"param\":\"nr_requests\",\"values\":[32,64,128,256,512,1024]}%s],"            \
	"\"strategy\":\"adaptive\",\"job\":{\"fio\":{\"rw\":\"write\",\"runtime_s\":2},"           \
	"\"loops\":{\"min\":3,\"max\":12}},\"min_effect_pct\":5%s}"

/* The true mean of a configuration: 100 times a factor per value of each parameter. */
struct surface {
	const char *param;
	const char *value;
	double factor;
};

struct sim {
	const struct surface *surf;
	int nsurf;
	double cv;     /* noise: SD / mean of one pass */
	uint64_t rng;  /* xorshift state */
	int fail_node; /* this node fails the point with fail_value ... */
	const char *fail_value;
	int fail_after; /* ... once it has this many loops; -1: never */
};

static double uniform(struct sim *m)
{
	m->rng ^= m->rng << 13;
	m->rng ^= m->rng >> 7;
	m->rng ^= m->rng << 17;
	return ((double)(m->rng >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(struct sim *m)
{
	return sqrt(-2 * log(uniform(m))) * cos(2 * M_PI * uniform(m));
}

static double truth(const struct sim *m, const struct config *c)
{
	double mean = 100;
	int i;

	for (i = 0; i < m->nsurf; i++) {
		const struct setting *v = config_get(c, m->surf[i].param);

		if (v && !strcmp(v->value, m->surf[i].value))
			mean *= m->surf[i].factor;
	}
	return mean;
}

/* Run a batch as the sweep does: in interleaved rounds (schedule.h), one pass of a point on
 * every node per run, stamped with its round. */
static void run(struct sweep *s, const struct strategy_batch *b, struct sim *m)
{
	struct schedule sc = { 0 };
	int i, k;

	schedule_batch(s, b, &sc);
	for (i = 0; i < sc.n; i++) {
		struct point *p = &s->points[sc.runs[i].point];
		const struct setting *v = config_get(&p->cfg, "nr_requests");
		double mean = truth(m, &p->cfg);

		for (k = 0; k < s->plan.nnodes; k++) {
			struct node_result *r = &p->nodes[k];

			if (r->state == NODE_FAILED)
				continue;
			if (k == m->fail_node && v && !strcmp(v->value, m->fail_value) &&
			    p->loops_run >= m->fail_after) {
				r->state = NODE_FAILED;
				continue;
			}
			r->state = NODE_OK;
			node_result_pass_add_at(r, mean * (1 + m->cv * gauss(m)), sc.runs[i].round,
			                        1e9 + i, false);
		}
		p->loops_run++;
		analysis_point_ran(s, p->index);
	}
	schedule_release(&sc);
}

/* Parse the plan (extra axes, extra top-level keys) and play the whole sweep; returns the
 * number of batches. */
static int play(struct sweep *s, const char *axes, const char *extra, struct sim *m)
{
	struct strategy_batch b = { 0 };
	char text[4096];
	struct plan p;
	struct err e;
	int batches = 0;

	snprintf(text, sizeof(text), PLAN_FMT, axes, extra);
	if (plan_parse(text, NULL, &p, &e))
		fail_msg("%s", e.msg);
	sweep_init(s, &p);
	while (strategy_next(s, &b) > 0) {
		run(s, &b, m);
		assert_true(++batches < 200);
	}
	strategy_batch_release(&b);
	verdict_sweep(s);
	return batches;
}

/* The point of axis ax whose nr_requests (or param) is value, or -1. */
static int find(const struct sweep *s, int ax, const char *param, const char *value)
{
	int i;

	for (i = 0; i < s->npoints; i++) {
		const struct setting *v = config_get(&s->points[i].cfg, param);

		if (s->points[i].axis == ax && v && !strcmp(v->value, value))
			return i;
	}
	return -1;
}

static int count(const struct sweep *s, enum race_state st)
{
	int i, n = 0;

	for (i = 0; i < s->npoints; i++)
		n += s->points[i].race.state == st;
	return n;
}

/* A raced point's mark shows a gain over what it was compared with (the test of race_stop:
 * the interval above 0 and Δ >= min_effect; goal maximize). */
static bool mark_gain(const struct race_mark *r)
{
	return r->low_pct > 0 && r->delta_pct >= 5;
}

static int final_point(const struct sweep *s)
{
	int i;

	for (i = 0; i < s->npoints; i++)
		if (s->points[i].role == ROLE_FINAL)
			return i;
	return -1;
}

/* Seed 003's nr_requests row: one value +15 %, the rest 4-30 % worse. The race drops the
 * worse ones early (each keeps its passes, round and interval), 256 wins, and the final
 * confirmation runs it loops_max loops against the original baseline. */
static void test_drops(void **state)
{
	static const struct surface surf[] = {
		{ "nr_requests", "32", 0.70 },   { "nr_requests", "64", 0.85 },
		{ "nr_requests", "256", 1.15 },  { "nr_requests", "512", 0.96 },
		{ "nr_requests", "1024", 0.80 },
	};
	struct sim m = { surf, 5, 0.02, 88172645463325252ull, -1, "", -1 };
	struct sweep s;
	int w, f, i, spent_grid = 6 * 12;

	(void)state;
	play(&s, "", "", &m);
	w = find(&s, 0, "nr_requests", "256");
	assert_int_equal(s.points[w].race.state, RACE_WON);
	assert_int_equal(race_winner(&s, 0), w);
	assert_int_equal(count(&s, RACE_DROPPED), 5);
	assert_int_equal(count(&s, RACE_RUNNING), 0);
	for (i = 0; i < s.npoints; i++) {
		const struct race_mark *r = &s.points[i].race;

		if (s.points[i].axis < 0 || i == w)
			continue;
		assert_int_equal(r->state, RACE_DROPPED);
		assert_int_equal(r->why, RACE_WHY_WORSE);
		assert_true(r->round >= 1 && r->loops == 3 + r->round - 1);
		/* The axis' baseline point runs every round while others race (they are measured
		 * against it within rounds); a dropped value runs no more. */
		if (i == 0)
			assert_int_equal(s.points[i].loops_run, s.points[w].loops_run);
		else
			assert_int_equal(s.points[i].loops_run, r->loops);
		assert_int_equal(r->vs, w);
		/* As measured against the leader: shown below it. */
		assert_true(r->delta_pct < 0 && r->high_pct < 0 && r->low_pct < r->delta_pct);
		assert_int_equal(s.points[i].nodes[0].npasses, s.points[i].loops_run);
	}
	/* 32 (-30 %) goes after the first round. */
	assert_int_equal(s.points[find(&s, 0, "nr_requests", "32")].race.round, 1);
	f = final_point(&s);
	assert_true(f > w);
	/* Against the original baseline measured again, in the same rounds. */
	assert_int_equal(s.points[f].ref, f - 1);
	assert_int_equal(s.points[f - 1].role, ROLE_BASELINE);
	assert_int_equal(s.points[f - 1].ref, 0);
	assert_true(config_equal(&s.points[f - 1].cfg, &s.plan.baseline));
	/* loops.min each, then a round at a time until the stopping rule decides it. */
	assert_true(s.points[f].loops_run >= 3 && s.points[f].loops_run <= 12);
	assert_int_equal(s.points[f - 1].loops_run, s.points[f].loops_run);
	assert_int_equal(s.points[f].nodes[0].pass_round[0],
	                 s.points[f - 1].nodes[0].pass_round[0]);
	assert_int_equal(s.points[f].race.state, RACE_NONE);
	assert_string_equal(config_get(&s.points[f].cfg, "nr_requests")->value, "256");
	assert_int_equal(ctltest_best(&s, -1), f);
	assert_int_equal(s.outcome, OUTCOME_BEST);
	/* Far fewer loops than running every value loops_max times. */
	assert_true(race_loops_spent(&s) - 2 * 12 < spent_grid / 2);
	sweep_release(&s);
}

/* Nothing matters: every value equivalent to the baseline. The equivalent values are dropped
 * (of no interest), the baseline's value is kept, and no final confirmation runs. */
static void test_all_equivalent(void **state)
{
	struct sim m = { NULL, 0, 0.005, 0x9E3779B97F4A7C15ull, -1, "", -1 };
	struct sweep s;
	int i, base;

	(void)state;
	play(&s, "", "", &m);
	base = 0;
	assert_int_equal(s.points[base].role, ROLE_BASELINE);
	assert_int_equal(s.points[base].race.state, RACE_WON);
	assert_int_equal(race_winner(&s, 0), base);
	assert_int_equal(final_point(&s), -1);
	assert_int_equal(ctltest_best(&s, -1), -1);
	assert_int_equal(s.outcome, OUTCOME_BASELINE);
	for (i = 1; i < s.npoints; i++) {
		const struct race_mark *r = &s.points[i].race;

		assert_true(r->state == RACE_DROPPED || r->state == RACE_TIED);
		if (r->state == RACE_DROPPED)
			assert_true(r->why == RACE_WHY_EQUIVALENT || r->why == RACE_WHY_WORSE);
		else
			assert_int_equal(r->why, RACE_WHY_ALL_EQUIVALENT);
		assert_true(fabs(r->delta_pct) < 5);
	}
	sweep_release(&s);
}

/* Two values equally good (+10 % each): once they are shown equivalent, the later one is
 * dropped as equivalent to the leader (no better by min_effect, not cheaper to keep) and the
 * leader wins: as the last value left, or, with only the baseline's value left and no better
 * than it by min_effect, on its gain over it (not_better; the baseline's value is then open). */
static void test_ties(void **state)
{
	static const struct surface surf[] = {
		{ "nr_requests", "256", 1.10 }, { "nr_requests", "512", 1.10 },
		{ "nr_requests", "32", 0.5 },   { "nr_requests", "64", 0.5 },
		{ "nr_requests", "1024", 0.5 },
	};
	struct sim m = { surf, 5, 0.03, 0x2545F4914F6CDD1Dull, -1, "", -1 };
	struct sweep s;
	int a, b, won, other;

	(void)state;
	play(&s, "", "", &m);
	a = find(&s, 0, "nr_requests", "256");
	b = find(&s, 0, "nr_requests", "512");
	won = s.points[a].race.state == RACE_WON ? a : b;
	other = won == a ? b : a;
	assert_int_equal(s.points[won].race.state, RACE_WON);
	assert_true(s.points[won].race.why == RACE_WHY_LAST ||
	            s.points[won].race.why == RACE_WHY_NOT_BETTER);
	assert_int_equal(s.points[won].race.vs, 0);
	assert_true(s.points[won].race.delta_pct > 5);
	if (s.points[won].race.why == RACE_WHY_NOT_BETTER)
		assert_true(mark_gain(&s.points[won].race));
	assert_int_equal(s.points[other].race.state, RACE_DROPPED);
	assert_int_equal(s.points[other].race.why, RACE_WHY_EQUIVALENT);
	assert_int_equal(s.points[other].race.vs, won);
	assert_true(s.points[other].race.low_pct > -5 && s.points[other].race.high_pct < 5);
	if (s.points[won].race.why == RACE_WHY_LAST) {
		assert_int_equal(s.points[0].race.state, RACE_DROPPED);
		assert_int_equal(s.points[0].race.why, RACE_WHY_WORSE);
	} else {
		assert_int_equal(s.points[0].race.state, RACE_OPEN);
		assert_int_equal(s.points[0].race.why, RACE_WHY_NOT_BETTER);
		assert_true(s.points[0].race.high_pct < 5);
	}
	sweep_release(&s);
}

/* Noise too large to settle anything by loops_max: the race stops at the cap, every racer
 * ran 12 loops, one value wins (cap) and the undecided rest are left open. */
static void test_cap(void **state)
{
	static const struct surface surf[] = {
		{ "nr_requests", "256", 1.08 }, { "nr_requests", "512", 1.08 },
		{ "nr_requests", "32", 0.3 },   { "nr_requests", "64", 0.3 },
		{ "nr_requests", "1024", 0.3 },
	};
	struct sim m = { surf, 5, 0.15, 0x2545F4914F6CDD1Dull, -1, "", -1 };
	struct sweep s;
	int i, open = 0, w;

	(void)state;
	play(&s, "", "", &m);
	w = race_winner(&s, 0);
	assert_true(w >= 0);
	assert_int_equal(s.points[w].race.why, RACE_WHY_CAP);
	assert_int_equal(s.points[w].loops_run, 12);
	for (i = 0; i < s.npoints; i++) {
		const struct race_mark *r = &s.points[i].race;

		assert_int_not_equal(r->state, RACE_RUNNING);
		if (r->state != RACE_OPEN)
			continue;
		open++;
		assert_int_equal(r->why, RACE_WHY_CAP);
		assert_int_equal(s.points[i].loops_run, 12);
	}
	assert_true(open >= 1);
	sweep_release(&s);
}

/* A budget that leaves no room for the rounds the race needs: it stops with the decisions
 * open, the final confirmation still runs (its loops were kept in reserve) and the sweep
 * never spends more than the budget. */
static void test_budget_stop(void **state)
{
	static const struct surface surf[] = {
		{ "nr_requests", "256", 1.06 },
		{ "nr_requests", "512", 1.06 },
	};
	struct sim m = { surf, 2, 0.05, 0xDEADBEEFCAFEF00Dull, -1, "", -1 };
	struct sweep s;
	struct err e;
	int i, open = 0, f;

	(void)state;
	/* 6 racers x 3 loops + 2 x 12 final (its point and the baseline again) = 42 loops =
	 * 84 s; then room for 5 more loops. */
	play(&s, "", ",\"budget_s\":94", &m);
	assert_int_equal(race_budget_check(&s.plan, &e), 0);
	assert_true(race_loops_spent(&s) * 2 <= 94);
	for (i = 0; i < s.npoints; i++)
		if (s.points[i].race.state == RACE_OPEN) {
			assert_int_equal(s.points[i].race.why, RACE_WHY_BUDGET);
			open++;
		}
	assert_true(open >= 1);
	assert_true(race_winner(&s, 0) >= 0);
	assert_int_equal(s.points[race_winner(&s, 0)].race.why, RACE_WHY_BUDGET);
	f = final_point(&s);
	if (race_winner(&s, 0) != 0) {
		assert_true(f > 0);
		assert_true(s.points[f].loops_run >= 3 && s.points[f].loops_run <= 12);
	}
	sweep_release(&s);
}

/* A budget below the first round plus the final confirmation is a plan error. */
static void test_budget_check(void **state)
{
	struct plan p;
	struct err e;
	char text[4096];

	(void)state;
	snprintf(text, sizeof(text), PLAN_FMT, "", ",\"budget_s\":83");
	assert_int_equal(plan_parse(text, NULL, &p, &e), 0);
	assert_int_equal(race_budget_check(&p, &e), -EINVAL);
	assert_int_equal(e.code, ERR_INVALID_PLAN);
	assert_non_null(strstr(e.msg, "budget_s: 83 s is less than"));
	assert_non_null(strstr(e.msg, "84 s"));
	plan_release(&p);
}

/* Node b fails the 256 point in its fourth loop (round 2): from then on that point's
 * comparisons go on with node a alone, and the race still finds it. */
static void test_node_fails_mid_race(void **state)
{
	static const struct surface surf[] = {
		{ "nr_requests", "32", 0.70 },   { "nr_requests", "64", 0.85 },
		{ "nr_requests", "256", 1.15 },  { "nr_requests", "512", 1.11 },
		{ "nr_requests", "1024", 0.80 },
	};
	struct sim m = { surf, 5, 0.04, 0x853C49E6748FEA9Bull, 1, "256", 3 };
	struct sweep s;
	int w;

	(void)state;
	play(&s, "", "", &m);
	w = find(&s, 0, "nr_requests", "256");
	assert_int_equal(s.points[w].nodes[1].state, NODE_FAILED);
	assert_int_equal(s.points[w].nodes[0].state, NODE_OK);
	assert_int_equal(s.points[w].nodes[1].npasses, 3);
	assert_true(s.points[w].loops_run > 3);
	assert_int_equal(s.points[w].race.state, RACE_WON);
	sweep_release(&s);
}

/* A value no node has figures for leaves the race as failed after the first round. */
static void test_value_fails(void **state)
{
	static const struct surface surf[] = { { "nr_requests", "256", 1.15 } };
	struct sim m = { surf, 1, 0.02, 0x1234567887654321ull, 0, "64", 0 };
	struct sweep s;
	int v;

	(void)state;
	m.fail_node = 0;
	play(&s, "", "", &m);
	/* Node 0 fails 64 at once; node 1 runs it fine, so 64 stays comparable. */
	v = find(&s, 0, "nr_requests", "64");
	assert_int_not_equal(s.points[v].race.why, RACE_WHY_FAILED);
	sweep_release(&s);
	/* Both nodes fail it: no figure at all. */
	m.fail_node = -1;
	m.rng = 0x1234567887654321ull;
	{
		struct strategy_batch b = { 0 };
		char text[4096];
		struct plan p;
		struct err e;
		int i, k;

		snprintf(text, sizeof(text), PLAN_FMT, "", "");
		assert_int_equal(plan_parse(text, NULL, &p, &e), 0);
		sweep_init(&s, &p);
		assert_int_equal(strategy_next(&s, &b), 6);
		run(&s, &b, &m);
		v = find(&s, 0, "nr_requests", "64");
		for (k = 0; k < 2; k++) {
			s.points[v].nodes[k].state = NODE_FAILED;
			s.points[v].nodes[k].npasses = 0;
		}
		strategy_next(&s, &b);
		assert_int_equal(s.points[v].race.state, RACE_DROPPED);
		assert_int_equal(s.points[v].race.why, RACE_WHY_FAILED);
		assert_int_equal(s.points[v].race.round, 1);
		for (i = 0; i < b.n; i++)
			assert_int_not_equal(b.items[i].point, v);
		strategy_batch_release(&b);
		sweep_release(&s);
	}
}

/* goal minimize: lower is better, so the value 15 % below the rest wins. */
static void test_minimize(void **state)
{
	static const struct surface surf[] = {
		{ "nr_requests", "32", 1.30 },   { "nr_requests", "64", 1.10 },
		{ "nr_requests", "256", 0.85 },  { "nr_requests", "512", 1.04 },
		{ "nr_requests", "1024", 1.20 },
	};
	struct sim m = { surf, 5, 0.02, 0x0123456789ABCDEFull, -1, "", -1 };
	struct sweep s;
	int w;

	(void)state;
	play(&s, "", ",\"goal\":\"minimize\"", &m);
	w = find(&s, 0, "nr_requests", "256");
	assert_int_equal(s.points[w].race.state, RACE_WON);
	assert_true(s.points[w].race.delta_pct < -5);
	assert_int_equal(s.points[find(&s, 0, "nr_requests", "32")].race.why, RACE_WHY_WORSE);
	assert_int_equal(ctltest_best(&s, -1), final_point(&s));
	sweep_release(&s);
}

/* Two axes: the first axis' winner is the second race's baseline, and the final confirmation
 * holds both winners. */
static void test_two_axes(void **state)
{
	static const struct surface surf[] = {
		{ "nr_requests", "256", 1.15 },
		{ "read_ahead_kb", "512", 1.10 },
	};
	struct sim m = { surf, 2, 0.02, 0xA5A5A5A55A5A5A5Aull, -1, "", -1 };
	struct sweep s;
	int b1, f;

	(void)state;
	play(&s, ",{\"param\":\"read_ahead_kb\",\"values\":[64,128,512,1024]}", "", &m);
	b1 = -1;
	for (f = 0; f < s.npoints; f++)
		if (s.points[f].axis == 1 && s.points[f].role == ROLE_BASELINE)
			b1 = f;
	assert_true(b1 > 0);
	assert_string_equal(config_get(&s.points[b1].cfg, "nr_requests")->value, "256");
	f = final_point(&s);
	assert_string_equal(config_get(&s.points[f].cfg, "nr_requests")->value, "256");
	assert_string_equal(config_get(&s.points[f].cfg, "read_ahead_kb")->value, "512");
	assert_int_equal(ctltest_best(&s, -1), f);
	sweep_release(&s);
}

/* The seeds the tentative tests play: each one a different run of the same surface. */
#define TENTATIVE_SEEDS 12

static uint64_t seed_rng(int seed)
{
	return 0x9E3779B97F4A7C15ull * (uint64_t)(seed + 1) ^ 0xD1B54A32D192ED03ull;
}

/* Axis 1's best value is +6 %, one point above min_effect: at CV 3 % on two nodes its gain
 * over the baseline's value is rarely shown by loops_max. It is carried forward tentatively
 * (not shown better), axis 2 races over it and finds its +12 %, and the final confirmation
 * of both against the original baseline shows the gain the two make together. A tentative
 * value's own mark never shows a gain, and the next axis' baseline holds it. */
static void test_tentative_carry(void **state)
{
	static const struct surface surf[] = {
		{ "nr_requests", "256", 1.06 }, { "nr_requests", "32", 0.6 },
		{ "nr_requests", "64", 0.6 },   { "nr_requests", "512", 0.6 },
		{ "nr_requests", "1024", 0.6 }, { "read_ahead_kb", "512", 1.12 },
		{ "read_ahead_kb", "64", 0.6 }, { "read_ahead_kb", "1024", 0.6 },
	};
	int seed, ntent = 0;

	(void)state;
	for (seed = 0; seed < TENTATIVE_SEEDS; seed++) {
		struct sim m = { surf, 8, 0.03, seed_rng(seed), -1, "", -1 };
		struct sweep s;
		int w, b1, f, i;

		play(&s, ",{\"param\":\"read_ahead_kb\",\"values\":[64,128,512,1024]}", "", &m);
		w = race_winner(&s, 0);
		assert_true(w >= 0);
		b1 = -1;
		for (i = 0; i < s.npoints; i++)
			if (s.points[i].axis == 1 && s.points[i].role == ROLE_BASELINE)
				b1 = i;
		assert_true(b1 > w);
		/* The next axis races over the kept value, won or tentative. */
		assert_true(config_equal(&s.points[b1].cfg, &s.points[w].cfg));
		if (s.points[w].race.state == RACE_TENTATIVE) {
			const struct race_mark *r = &s.points[w].race;

			ntent++;
			assert_true(r->why == RACE_WHY_NOT_BETTER || r->why == RACE_WHY_CAP);
			assert_string_equal(config_get(&s.points[w].cfg, "nr_requests")->value,
			                    "256");
			assert_int_equal(r->vs, 0);
			assert_false(mark_gain(r));
			/* The baseline's value is left open, not dropped: nothing showed it worse.
			 */
			assert_int_equal(s.points[0].race.state, RACE_OPEN);
			assert_int_equal(s.points[0].race.why, r->why);
		} else {
			assert_int_equal(s.points[w].race.state, RACE_WON);
		}
		f = final_point(&s);
		assert_true(f > b1);
		assert_string_equal(config_get(&s.points[f].cfg, "nr_requests")->value, "256");
		assert_string_equal(config_get(&s.points[f].cfg, "read_ahead_kb")->value, "512");
		/* +18.7 % together against the original baseline: the final confirmation shows it.
		 */
		assert_true(race_confirmed(&s, f));
		assert_int_equal(ctltest_best(&s, -1), f);
		sweep_release(&s);
	}
	/* The case this is about happened (in half the seeds: in the others the gain over the
	 * baseline's value was shown, and the value won). */
	assert_true(ntent >= TENTATIVE_SEEDS / 4);
}

/* The one value that leads is only +2 %: carried tentatively, it reaches the final
 * confirmation, which does not show a gain, so nothing is adopted: the sweep keeps the
 * baseline, and the report calls the value tentative, never a gain. The final confirmation
 * takes looks (loops.min, then a round at a time): a look whose Δ happens to reach min_effect
 * with its interval above 0 adopts the value (a real gain, if below min_effect), rarely. */
static void test_tentative_not_adopted(void **state)
{
	static const struct surface surf[] = {
		{ "nr_requests", "256", 1.02 }, { "nr_requests", "32", 0.6 },
		{ "nr_requests", "64", 0.6 },   { "nr_requests", "512", 0.6 },
		{ "nr_requests", "1024", 0.6 },
	};
	int seed, ntent = 0, adopted = 0;

	(void)state;
	for (seed = 0; seed < TENTATIVE_SEEDS; seed++) {
		struct sim m = { surf, 5, 0.03, seed_rng(seed), -1, "", -1 };
		struct buf out = BUF_INIT;
		struct sweep s;
		int w, f;

		play(&s, "", "", &m);
		w = race_winner(&s, 0);
		f = final_point(&s);
		if (ctltest_best(&s, -1) >= 0) {
			/* Adopted only as a final confirmation shown a gain at its look. */
			adopted++;
			assert_int_equal(ctltest_best(&s, -1), f);
			assert_true(race_confirmed(&s, f));
			sweep_release(&s);
			continue;
		}
		assert_int_equal(s.outcome, OUTCOME_BASELINE);
		if (s.points[w].race.state == RACE_TENTATIVE) {
			ntent++;
			assert_false(mark_gain(&s.points[w].race));
			/* The final confirmation ran it until the stopping rule decided it (no
			 * gain), or to loops_max. */
			assert_true(f > w);
			assert_true(s.points[f].fx.stop);
			assert_int_not_equal(s.points[f].verdict, EFFECT_GAIN);
			assert_false(race_confirmed(&s, f));
			report_render(&s, REPORT_TABLE, &out);
			assert_non_null(strstr(out.data, ": tentative after"));
			assert_non_null(
			        strstr(out.data, "not shown better than the baseline's value"));
			buf_release(&out);
			report_render(&s, REPORT_JSON, &out);
			assert_non_null(strstr(out.data, "\"tentative\""));
			assert_non_null(strstr(out.data, "\"best\": null"));
		}
		buf_release(&out);
		sweep_release(&s);
	}
	assert_true(ntent >= 1);
	assert_true(adopted * 6 <= TENTATIVE_SEEDS);
}

/* Nothing matters (every value within 1 %, as bench/search.sh's flat plan) at a noise where
 * races often end at the cap or with a tentative leader: every sweep ends at the baseline. */
static void test_flat_keeps_baseline(void **state)
{
	static const struct surface surf[] = {
		{ "nr_requests", "32", 0.99 },
		{ "nr_requests", "64", 1.005 },
		{ "nr_requests", "256", 1.01 },
		{ "nr_requests", "512", 0.995 },
	};
	int seed, nfinal = 0;

	(void)state;
	for (seed = 0; seed < 2 * TENTATIVE_SEEDS; seed++) {
		struct sim m = { surf, 4, 0.05, seed_rng(seed), -1, "", -1 };
		struct sweep s;

		play(&s, "", "", &m);
		assert_int_equal(ctltest_best(&s, -1), -1);
		assert_int_equal(s.outcome, OUTCOME_BASELINE);
		nfinal += final_point(&s) >= 0;
		sweep_release(&s);
	}
	/* Some of them got as far as a final confirmation, which kept the baseline. */
	assert_true(nfinal >= 1);
}

/* Worst and expected loops of a fresh plan: 6 racers; worst 6 x 12 + 2 x 12; expected 6 x 3,
 * then rounds of 4 and 3 (u = 2, 1; each round the rivals, the leader and the axis' baseline
 * point) and the final confirmation's 2 x 3 (its point and the original baseline again, decided
 * at loops.min). */
static void test_remaining(void **state)
{
	struct sweep s;
	struct plan p;
	struct err e;
	char text[4096];
	double ex, wo;

	(void)state;
	snprintf(text, sizeof(text), PLAN_FMT, "", "");
	assert_int_equal(plan_parse(text, NULL, &p, &e), 0);
	sweep_init(&s, &p);
	assert_int_equal(race_looks(&s.plan), 10);
	assert_int_equal(race_axis_values(&s.plan, 0, &s.plan.baseline), 5);
	race_remaining(&s, &ex, &wo);
	assert_true(wo == 6 * 12 + 2 * 12);
	assert_true(ex == 6 * 3 + 4 + 3 + 2 * 3);
	assert_true(race_fits(&s, 1000, false));
	sweep_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drops),
		cmocka_unit_test(test_all_equivalent),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_budget_stop),
		cmocka_unit_test(test_budget_check),
		cmocka_unit_test(test_node_fails_mid_race),
		cmocka_unit_test(test_value_fails),
		cmocka_unit_test(test_minimize),
		cmocka_unit_test(test_two_axes),
		cmocka_unit_test(test_tentative_carry),
		cmocka_unit_test(test_tentative_not_adopted),
		cmocka_unit_test(test_flat_keeps_baseline),
		cmocka_unit_test(test_remaining),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
