/* suites_mc.c -- Monte Carlo of suite decisions (issue 29's table): each trial a judged grid
 * suite sweep (2 nodes, a baseline and one configuration, interleaved rounds, Gaussian passes
 * per workload) through the controller's own analysis (judge/analysis.c: every workload's
 * verdicts, Holm, guardrails, the rule and the confirmed decision). Seeded, deterministic. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "judge/analysis.h"
#include "mcrng.h"
#include "num.h"
#include "model/sweep.h"
#include "plan/plan_parse.h"
#include "xmalloc.h"
#include "banned.h"

#define NODES 2
#define LOOPS 5
#define CV_PCT 2.0

enum measure { M_BEST, M_VETOED, M_KEPT };

struct scenario {
	const char *what;
	int nworkloads;
	const char *decide;          /* JSON members after the workloads, "" for none */
	double eff[PLAN_SERIES_MAX]; /* true effect per series, % */
	enum measure measure;
	const char *target;
	double target_rate; /* >= for M_BEST/M_KEPT... see below */
	bool at_most;       /* the rate must be at most target_rate */
	long hits, trials;
	long vetoed; /* scenario 1 also counts vetoes */
	double min_effect_pct;
	long raw_claims, holm_claims; /* trials with a gain or loss on some workload */
};

static char *plan_text(const struct scenario *sc)
{
	struct buf b = BUF_INIT;
	int k, w;

	buf_puts(&b, "{\"name\":\"suites_mc\",\"nodes\":[");
	for (k = 0; k < NODES; k++)
		buf_printf(&b, "%s{\"name\":\"n%d\",\"url\":\"http://h:%d\",\"device\":\"sda\"}",
		           k ? "," : "", k + 1, k + 1);
	buf_printf(&b,
	           "],\"baseline\":{\"x\":0},\"axes\":[{\"param\":\"x\",\"values\":[1]}],"
	           "\"strategy\":\"grid\",\"min_effect_pct\":%g,\"job\":{\"fio\":"
	           "{\"runtime_s\":1},\"loops\":%d},\"workloads\":[",
	           sc->min_effect_pct, LOOPS);
	for (w = 0; w < sc->nworkloads; w++)
		buf_printf(&b, "%s{\"name\":\"%c\",\"fio\":{\"rw\":\"read\"}}", w ? "," : "",
		           'A' + w);
	buf_printf(&b, "]%s}", sc->decide);
	return buf_detach(&b, NULL);
}

/* One trial: the suite's decision, and whether its row was vetoed (a loss claimed, or a
 * guardrail breached). */
static void trial(struct scenario *sc, const struct plan *proto, struct rng *r)
{
	struct plan p;
	struct err e = { 0 };
	struct sweep s;
	char *text = plan_text(sc);
	int i, k, q, j, nser;

	if (plan_parse(text, NULL, &p, &e) < 0) {
		fprintf(stderr, "suites_mc: %s\n", e.msg);
		exit(2);
	}
	free(text);
	(void)proto;
	sweep_init(&s, &p);
	sweep_point_add(&s, ROLE_BASELINE, -1, -1, &s.plan.baseline);
	sweep_point_add(&s, ROLE_CANDIDATE, 0, 0, &s.plan.axes[0].values[0]);
	{
		struct plan_series ser[PLAN_SERIES_MAX];

		nser = plan_series_build(&s.plan, ser);
	}
	for (k = 0; k < NODES; k++) {
		double level[PLAN_SERIES_MAX];

		for (j = 0; j < nser; j++) /* each node's own level per series */
			level[j] = 1000.0 * (1.0 + 0.1 * rng_normal(r));
		for (q = 0; q < LOOPS; q++)
			for (i = 0; i < 2; i++) { /* interleaved: round q runs both points */
				struct node_result *nr = &s.points[i].nodes[k];
				double v[PLAN_SERIES_MAX];

				for (j = 0; j < nser; j++)
					v[j] = level[j] * (1.0 + (i ? sc->eff[j] : 0) / 100.0) *
					       (1.0 + CV_PCT / 100.0 * rng_normal(r));
				nr->state = NODE_OK;
				node_result_pass_add_at(nr, v[s.plan.lead], q + 1, 0, false);
				node_result_series_add(nr, v, nser);
			}
	}
	for (i = 0; i < 2; i++) {
		s.points[i].block = 0;
		s.points[i].loops_run = LOOPS;
	}
	s.nrounds = LOOPS;
	snprintf(s.status, sizeof(s.status), "completed");
	analysis_sweep_loaded(&s);
	sc->trials++;
	{
		bool best = s.decision.state == DECISION_CONFIRMED;
		enum suite_verdict v = s.suite->rows[1].verdict;
		bool vetoed = v == SUITE_LOSS || v == SUITE_VETOED;

		bool raw = false, holm = false;
		int w;

		for (w = 0; w < s.plan.nworkloads; w++) {
			const struct suite_cell *c = &s.suite->rows[1].cells[w];

			raw |= c->raw == EFFECT_GAIN || c->raw == EFFECT_LOSS;
			holm |= c->verdict == EFFECT_GAIN || c->verdict == EFFECT_LOSS;
		}
		sc->raw_claims += raw;
		sc->holm_claims += holm;
		sc->vetoed += vetoed;
		sc->hits += sc->measure == M_BEST ? best : sc->measure == M_KEPT ? !best : vetoed;
	}
	sweep_release(&s);
}

#define GUARD_B                                                                                    \
	",\"guardrails\":[{\"metric\":\"read.bw_mib\",\"workload\":\"B\",\"max_loss_pct\":5}]"
#define P99                                                                                        \
	",\"guardrails\":[{\"metric\":\"read.clat_p99_us\",\"workload\":\"*\",\"max_loss_pct\":"   \
	"10}]"

int main(int argc, char **argv)
{
	/* Series: the workloads A.. in order; with the p99 guardrail, then each workload's p99. */
	struct scenario sc[] = {
		{ "7 workloads, no true effect anywhere: a configuration called best (no_loss)",
		  7,
		  "",
		  { 0 },
		  M_BEST,
		  "<= 5 %",
		  5,
		  true,
		  0,
		  0,
		  0,
		  5,
		  0,
		  0 },
		{ "7 workloads, no true effect anywhere: vetoed (a loss claimed, no_loss)",
		  7,
		  "",
		  { 0 },
		  M_VETOED,
		  "<= 5 %",
		  5,
		  true,
		  0,
		  0,
		  0,
		  5,
		  0,
		  0 },
		{ "+10 % on A, -10 % on B, 0 on 5 more: no_loss keeps the baseline",
		  7,
		  "",
		  { 10, -10 },
		  M_KEPT,
		  ">= 95 %",
		  95,
		  false,
		  0,
		  0,
		  0,
		  5,
		  0,
		  0 },
		{ "same, primary A with B as a guardrail (max_loss 5 %): baseline kept",
		  7,
		  ",\"decide\":{\"rule\":\"primary\",\"primary\":\"A\"}" GUARD_B,
		  { 10, -10 },
		  M_KEPT,
		  ">= 95 %",
		  95,
		  false,
		  0,
		  0,
		  0,
		  5,
		  0,
		  0 },
		{ "same, primary A and no guardrail: the configuration is best",
		  7,
		  ",\"decide\":{\"rule\":\"primary\",\"primary\":\"A\"}",
		  { 10, -10 },
		  M_BEST,
		  ">= 95 %",
		  95,
		  false,
		  0,
		  0,
		  0,
		  5,
		  0,
		  0 },
		{ "+10 % on 4 of 7 workloads, 0 on the rest: mean calls a gain",
		  7,
		  ",\"decide\":{\"rule\":\"mean\"}",
		  { 10, 10, 10, 10 },
		  M_BEST,
		  ">= 90 %",
		  90,
		  false,
		  0,
		  0,
		  0,
		  5,
		  0,
		  0 },
		{ "p99 +30 % on A with its throughput +10 % (3 workloads): the latency guardrail "
		  "vetoes",
		  3,
		  P99,
		  { 10, 0, 0, 30, 0, 0 },
		  M_VETOED,
		  ">= 95 %",
		  95,
		  false,
		  0,
		  0,
		  0,
		  5,
		  0,
		  0 },
	};
	/* The correction shown on its own: min_effect 0, so that significance alone claims. */
	struct scenario null0 = { "7 workloads, no effect, min_effect 0",
		                  7,
		                  "",
		                  { 0 },
		                  M_BEST,
		                  "",
		                  0,
		                  true,
		                  0,
		                  0,
		                  0,
		                  0,
		                  0,
		                  0 };
	int64_t v;
	long trials = 1000;
	uint64_t seed = 20261202;
	size_t n = sizeof(sc) / sizeof(sc[0]), i;
	long t;
	int fails = 0;

	if (argc > 1) {
		if (num_parse_i64(argv[1], &v) < 0 || v < 1 || v > 10000000) {
			fprintf(stderr, "usage: suites_mc [TRIALS] [SEED]\n");
			return 2;
		}
		trials = (long)v;
	}
	if (argc > 2) {
		if (num_parse_i64(argv[2], &v) < 0 || v < 0) {
			fprintf(stderr, "usage: suites_mc [TRIALS] [SEED]\n");
			return 2;
		}
		seed = (uint64_t)v;
	}

	printf("| scenario (2 nodes, CV 2 %%, 5 loops, min_effect 5 %%; %ld trials, seed %llu) "
	       "| rate | 95 %% interval | target | |\n|---|---|---|---|---|\n",
	       trials, (unsigned long long)seed);
	for (i = 0; i < n; i++) {
		struct rng r;
		double rate, half;
		bool met;

		sc[i].min_effect_pct = 5;
		rng_seed(&r, seed + 1000003ull * i);
		for (t = 0; t < trials; t++)
			trial(&sc[i], NULL, &r);
		rate = 100.0 * (double)sc[i].hits / (double)sc[i].trials;
		half = 196.0 * sqrt(rate / 100 * (1 - rate / 100) / (double)sc[i].trials);
		met = sc[i].at_most ? rate <= sc[i].target_rate : rate >= sc[i].target_rate;
		fails += !met;
		printf("| %s | %.1f %% | ±%.1f | %s | %s |\n", sc[i].what, rate, half, sc[i].target,
		       met ? "met" : "NOT met");
		fflush(stdout);
	}
	{
		struct rng r;

		null0.min_effect_pct = 0;
		rng_seed(&r, seed + 7777777ull);
		for (t = 0; t < trials; t++)
			trial(&null0, NULL, &r);
		printf("\nThe multiplicity correction alone (7 workloads, no effect, min_effect 0, "
		       "so that significance alone claims): a gain or loss claimed on some "
		       "workload in %.1f %% of trials uncorrected, %.1f %% with Holm (target 5 "
		       "%%)\n",
		       100.0 * (double)null0.raw_claims / (double)trials,
		       100.0 * (double)null0.holm_claims / (double)trials);
	}
	printf("\nRESULT suites trials=%ld seed=%llu targets_met=%zu/%zu\n", trials,
	       (unsigned long long)seed, n - (size_t)fails, n);
	return fails ? 1 : 0;
}
