/* drift_mc.c -- Monte Carlo of whole sweeps on drifting nodes: the strategy, the schedule of
 * interleaved rounds and every verdict are fleettune-ctl's own code, only the agents are
 * simulated; prints issue 17's table in markdown, each rate with its 95 % interval, for the
 * order sweeps run in (rounds) and the order they ran in before (consecutive loops). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "judge/analysis.h"
#include "judge/verdict.h"
#include "mcrng.h"
#include "model/sweep.h"
#include "num.h"
#include "plan/plan.h"
#include "plan/plan_parse.h"
#include "run/schedule.h"
#include "run/strategy.h"
#include "stats/effect.h"
#include "xmalloc.h"
#include "banned.h"

/* What a scenario counts. */
enum measure {
	M_SIGNIFICANT, /* rows (candidates and final confirmations) decided gain or loss */
	M_EQUIVALENT,  /* rows decided "no real difference" */
	M_GAIN_ROW,    /* the row of the value with the true effect decided gain */
	M_DRIFT_LINE,  /* sweeps whose table carries the drift line */
	M_COMPARE_SIG, /* compare's rows of two runs of the same plan decided gain or loss */
	M_FINAL_GAIN,  /* sweeps whose final confirmation is a significant gain */
	M_WARMUP_LINE, /* sweeps whose table names a warm-up */
	M_HETERO,      /* rows decided "nodes disagree" */
};

struct scenario {
	const char *name;
	const char *strategy; /* grid, sequential or adaptive */
	int nodes;
	double cv_pct;
	double drift_pct;  /* per run */
	bool own_way;      /* each node drifts drift_pct up or down, its own way */
	double effect_pct; /* true effect of nr_requests 256 (0: none) */
	double step_pct;   /* compare: the second run's figures this much higher */
	enum measure what;
	bool at_most;
	double target_pct; /* NAN: no target (shown for what it tells) */
	const char *loops; /* job.loops as JSON; NULL: 5 */
	int warm_runs;     /* each node's first warm_runs runs warm_pct % low */
	double warm_pct;
	/* results, per order: [0] consecutive (before rounds), [1] rounds */
	long hits[2], of[2];
};

#define ROW(n, st, nodes_, cv, drift, own, eff, step, what_, most, target)                         \
	{                                                                                          \
		.name = n, .strategy = st, .nodes = nodes_, .cv_pct = cv, .drift_pct = drift,      \
		.own_way = own, .effect_pct = eff, .step_pct = step, .what = what_,                \
		.at_most = most, .target_pct = target                                              \
	}

static struct scenario scen[] = {
	ROW("drift 0.5 % per run, grid, 3 values, 5 loops: rows \"significant\"", "grid", 2, 1, 0.5,
	    false, 0, 0, M_SIGNIFICANT, true, 5),
	ROW("same: rows \"no real difference\"", "grid", 2, 1, 0.5, false, 0, 0, M_EQUIVALENT,
	    false, 80),
	ROW("drift 0.5 % per run, sequential, 3 values + final confirmation: \"significant\"",
	    "sequential", 2, 1, 0.5, false, 0, 0, M_SIGNIFICANT, true, 5),
	ROW("drift 1 % per run, CV 3 %, 16 nodes each drifting its own way: \"significant\"",
	    "grid", 16, 3, 1.0, true, 0, 0, M_SIGNIFICANT, true, 5),
	ROW("no drift, +10 % true effect, CV 2 %: \"significant gain\" (power kept)", "grid", 2, 2,
	    0, false, 10, 0, M_GAIN_ROW, false, 95),
	ROW("no drift, no effect, CV 2 %: \"significant\" (today's calibration kept)", "grid", 2, 2,
	    0, false, 0, 0, M_SIGNIFICANT, true, 5),
	ROW("drift 0.5 % per run: the drift line printed", "grid", 2, 1, 0.5, false, 0, 0,
	    M_DRIFT_LINE, false, 90),
	ROW("`compare` of two runs of the same plan with a 5 % step between them: \"significant\"",
	    "grid", 2, 1, 0, false, 0, 5, M_COMPARE_SIG, true, 5),
};

/* Shown for what they tell, without a target. */
static struct scenario info[] = {
	ROW("drift 0.5 % per run, sequential, 256 +10 % true effect: the final confirmation "
	    "\"significant gain\"",
	    "sequential", 2, 1, 0.5, false, 10, 0, M_FINAL_GAIN, true, NAN),
	{ .name = "drift 0.5 % per run, adaptive (loops 3-20), no effect: \"significant\"",
	  .strategy = "adaptive",
	  .nodes = 2,
	  .cv_pct = 1,
	  .drift_pct = 0.5,
	  .what = M_SIGNIFICANT,
	  .target_pct = NAN,
	  .loops = "{\"min\":3,\"max\":20}" },
	ROW("drift 1 % per run, CV 3 %, 16 nodes each drifting its own way: \"nodes disagree\"",
	    "grid", 16, 3, 1.0, true, 0, 0, M_HETERO, true, NAN),
	{ .name = "no drift, the first round 20 % low (a cold device), grid: warm-up named",
	  .strategy = "grid",
	  .nodes = 2,
	  .cv_pct = 1,
	  .what = M_WARMUP_LINE,
	  .target_pct = NAN,
	  .warm_runs = 4,
	  .warm_pct = 20 },
	{ .name = "same: rows \"significant\"",
	  .strategy = "grid",
	  .nodes = 2,
	  .cv_pct = 1,
	  .what = M_SIGNIFICANT,
	  .target_pct = NAN,
	  .warm_runs = 4,
	  .warm_pct = 20 },
};

#define NINFO ((int)(sizeof(info) / sizeof(info[0])))

#define NSCEN ((int)(sizeof(scen) / sizeof(scen[0])))
#define LOOPS 5

/* The simulated fleet: each node's level, drift per run, and the run counter (every node runs
 * every run at the same moment). */
struct fleet_sim {
	int nodes;
	double *level, *drift;
	double step; /* factor of every figure (compare's second run) */
	long run;
	struct rng *r;
};

static char *plan_text(const struct scenario *sc)
{
	struct buf b = BUF_INIT;
	int k;

	buf_puts(&b, "{\"name\":\"drift\",\"nodes\":[");
	for (k = 0; k < sc->nodes; k++)
		buf_printf(&b, "%s{\"name\":\"n%d\",\"url\":\"http://h:%d\",\"device\":\"sdb\"}",
		           k ? "," : "", k + 1, k + 1);
	buf_printf(&b,
	           "],\"baseline\":{\"nr_requests\":128},"
	           "\"axes\":[{\"param\":\"nr_requests\",\"values\":[64,256,512]}],"
	           "\"strategy\":\"%s\",\"job\":{\"fio\":{\"rw\":\"write\",\"runtime_s\":1},"
	           "\"loops\":%s},\"metric\":\"write.bw_mib\",\"min_effect_pct\":5}",
	           sc->strategy, sc->loops ? sc->loops : "5");
	return buf_detach(&b, NULL);
}

/* The true factor of point p's configuration. */
static double truth(const struct scenario *sc, const struct point *p)
{
	const struct setting *st = config_get(&p->cfg, "nr_requests");

	return st && !strcmp(st->value, "256") ? 1 + sc->effect_pct / 100 : 1.0;
}

/* One run of point i on every node: a pass each, drawn now. */
static void run_point(const struct scenario *sc, struct fleet_sim *f, struct sweep *s, int i,
                      int round, bool warmup)
{
	struct point *p = &s->points[i];
	int k;

	for (k = 0; k < f->nodes; k++) {
		double v = f->level[k] * pow(1 + f->drift[k] / 100, (double)f->run) * truth(sc, p) *
		           f->step * (1 + sc->cv_pct / 100 * rng_normal(f->r)) *
		           (f->run < sc->warm_runs ? 1 - sc->warm_pct / 100 : 1);

		p->nodes[k].state = NODE_OK;
		if (round > 0)
			node_result_pass_add_at(&p->nodes[k], v, round, 1e9 + (double)f->run,
			                        warmup);
		else
			node_result_pass_add(&p->nodes[k], v);
	}
	f->run++;
}

/* A whole sweep, as fleettune-ctl runs it: the strategy's batches, each as interleaved rounds
 * (rounds) or each item's loops back to back (before rounds); judged after every run. */
static void sweep_sim(const struct scenario *sc, struct fleet_sim *f, bool rounds, uint64_t seed,
                      struct sweep *s)
{
	char *text = plan_text(sc);
	struct strategy_batch b = { 0 };
	struct schedule sch = { 0 };
	struct plan p;
	struct err e;
	int i, j;

	if (plan_parse(text, NULL, &p, &e) < 0) {
		fprintf(stderr, "drift_mc: %s\n", e.msg);
		exit(1);
	}
	free(text);
	sweep_init(s, &p);
	s->order_seed = seed;
	while (strategy_next(s, &b) > 0) {
		if (rounds) {
			schedule_batch(s, &b, &sch);
			for (i = 0; i < sch.n; i++) {
				if (!sch.runs[i].warmup)
					sweep_point_loops_add(s, sch.runs[i].point, 1);
				run_point(sc, f, s, sch.runs[i].point, sch.runs[i].round,
				          sch.runs[i].warmup);
				analysis_point_ran(s, sch.runs[i].point);
			}
			continue;
		}
		for (i = 0; i < b.n; i++) {
			sweep_point_loops_add(s, b.items[i].point, b.items[i].loops);
			for (j = 0; j < b.items[i].loops; j++)
				run_point(sc, f, s, b.items[i].point, 0, false);
			analysis_point_ran(s, b.items[i].point);
		}
	}
	analysis_sweep_closed(s);
	strategy_batch_release(&b);
	schedule_release(&sch);
}

static void fleet_new(const struct scenario *sc, struct rng *r, struct fleet_sim *f)
{
	int k;

	f->nodes = sc->nodes;
	f->level = xcalloc((size_t)sc->nodes, sizeof(double));
	f->drift = xcalloc((size_t)sc->nodes, sizeof(double));
	f->r = r;
	f->run = 0;
	f->step = 1;
	for (k = 0; k < sc->nodes; k++) {
		f->level[k] = 1000 * (1 + 0.02 * rng_normal(r));
		f->drift[k] = sc->own_way && rng_next(r) % 2 ? -sc->drift_pct : sc->drift_pct;
	}
}

static void fleet_free(struct fleet_sim *f)
{
	free(f->level);
	free(f->drift);
}

/* compare as it was before the run-to-run term: each shared point's nodes as independent
 * samples, nothing added. */
static void compare_before(const struct sweep *a, const struct sweep *b, long *hits, long *of)
{
	int n = a->plan.nnodes, i, k;
	struct effect_sample *sr = xcalloc((size_t)n, sizeof(*sr)),
	                     *sp = xcalloc((size_t)n, sizeof(*sp));

	for (i = 0; i < a->npoints && i < b->npoints; i++) {
		struct effect_input in = { .nnodes = n,
			                   .ref = sr,
			                   .point = sp,
			                   .min_effect_pct = a->plan.min_effect_pct,
			                   .look = 1,
			                   .nlooks = 1 };
		struct effect o;
		struct err e;

		for (k = 0; k < n; k++) {
			sr[k] = (struct effect_sample){ a->points[i].nodes[k].passes,
				                        a->points[i].nodes[k].npasses, NULL };
			sp[k] = (struct effect_sample){ b->points[i].nodes[k].passes,
				                        b->points[i].nodes[k].npasses, NULL };
		}
		if (effect_compute(&in, &o, &e) == 0 && o.decision != EFFECT_NA) {
			(*of)++;
			*hits += o.decision == EFFECT_GAIN || o.decision == EFFECT_LOSS;
		}
		effect_release(&o);
	}
	free(sr);
	free(sp);
}

/* Count one trial of scenario sc in order `rounds`. */
static void trial(struct scenario *sc, bool rounds, struct rng *r, uint64_t seed)
{
	long *hits = &sc->hits[rounds], *of = &sc->of[rounds];
	struct fleet_sim f;
	struct sweep s, t;
	int i;

	fleet_new(sc, r, &f);
	sweep_sim(sc, &f, rounds, seed, &s);
	if (sc->what == M_COMPARE_SIG) {
		struct verdict_comparison c;

		/* The same plan again, later, every figure step_pct higher. */
		f.step = 1 + sc->step_pct / 100;
		sweep_sim(sc, &f, rounds, seed ^ 0x5eed, &t);
		if (rounds) {
			analysis_sweeps_compared(&s, &t, &c);
			for (i = 0; i < c.nrows; i++) {
				if (c.rows[i].fx.decision == EFFECT_NA)
					continue;
				(*of)++;
				*hits += c.rows[i].fx.decision == EFFECT_GAIN ||
				         c.rows[i].fx.decision == EFFECT_LOSS;
			}
			verdict_comparison_release(&c);
		} else {
			compare_before(&s, &t, hits, of);
		}
		sweep_release(&t);
	} else if (sc->what == M_DRIFT_LINE || sc->what == M_WARMUP_LINE) {
		(*of)++;
		*hits += sc->what == M_DRIFT_LINE ? s.drift.nsignificant > 0
		                                  : s.drift.nwarmup_nodes > 0;
	} else if (sc->what == M_FINAL_GAIN) {
		(*of)++;
		for (i = 0; i < s.npoints; i++)
			*hits += s.points[i].role == ROLE_FINAL &&
			         s.points[i].verdict == EFFECT_GAIN;
	} else {
		for (i = 0; i < s.npoints; i++) {
			const struct point *p = &s.points[i];

			if (p->role == ROLE_BASELINE || p->verdict == EFFECT_NA)
				continue;
			if (sc->what == M_GAIN_ROW) {
				if (truth(sc, p) == 1.0 || p->role != ROLE_CANDIDATE)
					continue;
				(*of)++;
				*hits += p->verdict == EFFECT_GAIN;
				continue;
			}
			(*of)++;
			if (sc->what == M_SIGNIFICANT)
				*hits += p->verdict == EFFECT_GAIN || p->verdict == EFFECT_LOSS;
			else if (sc->what == M_HETERO)
				*hits += p->verdict == EFFECT_HETEROGENEOUS;
			else
				*hits += p->verdict == EFFECT_EQUIVALENT;
		}
	}
	sweep_release(&s);
	fleet_free(&f);
}

/* A rate with its Wilson 95 % interval. */
static void rate_fmt(long k, long n, char *out, size_t len, double *p_pct, double *half)
{
	double z = 1.959964, p = n ? (double)k / n : NAN;
	double d = 1 + z * z / n, c = (p + z * z / (2 * n)) / d;
	double h = z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / d;

	*p_pct = 100 * p;
	*half = 100 * fmax(c + h - p, p - (c - h));
	snprintf(out, len, "%.1f %% [%.1f, %.1f] (%ld/%ld)", 100 * p, 100 * (c - h), 100 * (c + h),
	         k, n);
}

static int usage(void)
{
	fprintf(stderr, "usage: drift_mc [--sweeps N (>= 1, default 1000)] [--seed S]\n");
	return 2;
}

int main(int argc, char **argv)
{
	long sweeps = 1000, t;
	unsigned long long seed = 20261201;
	int i, met = 0, o;
	double worst = 0;

	for (i = 1; i < argc; i++) {
		int64_t v;

		if (i + 1 >= argc || num_parse_i64(argv[i + 1], &v) < 0 || v < 1)
			return usage();
		if (!strcmp(argv[i], "--sweeps"))
			sweeps = v;
		else if (!strcmp(argv[i], "--seed"))
			seed = (unsigned long long)v;
		else
			return usage();
		i++;
	}
	for (i = 0; i < NSCEN + NINFO; i++) {
		struct scenario *sc = i < NSCEN ? &scen[i] : &info[i - NSCEN];

		for (o = 0; o < 2; o++) {
			struct rng r;

			rng_seed(&r, seed * 1000003ULL + (uint64_t)i);
			for (t = 0; t < sweeps; t++)
				trial(sc, o == 1, &r, seed + (uint64_t)t * 7919u + (uint64_t)i);
		}
		fprintf(stderr, "drift_mc: %s done\n", sc->name);
	}
	printf("Drift Monte Carlo: %ld sweeps per scenario and order, seed %llu; 2 nodes unless "
	       "stated, CV 1 %% unless stated, min_effect 5 %%, nr_requests 128 (baseline), 64, "
	       "256, "
	       "512, %d loops; node levels spread by 2 %%. Rates with their 95 %% (Wilson) "
	       "interval.\n\n",
	       sweeps, seed, LOOPS);
	printf("| scenario (no true effect unless stated) | before: consecutive loops, independent "
	       "samples | interleaved rounds, judged within them | target | met |\n"
	       "|---|---|---|---|---|\n");
	for (i = 0; i < NSCEN; i++) {
		const struct scenario *sc = &scen[i];
		char before[96], after[96];
		double pb, pa, hb, ha;
		bool ok;

		rate_fmt(sc->hits[0], sc->of[0], before, sizeof(before), &pb, &hb);
		rate_fmt(sc->hits[1], sc->of[1], after, sizeof(after), &pa, &ha);
		ok = sc->at_most ? pa <= sc->target_pct : pa >= sc->target_pct;
		met += ok;
		worst = fmax(worst, ha);
		printf("| %s | %s | %s | %s %g %% | %s |\n", sc->name, before, after,
		       sc->at_most ? "≤" : "≥", sc->target_pct, ok ? "yes" : "**no**");
	}
	printf("\nAlso measured (no target):\n\n| scenario | before | interleaved rounds |\n"
	       "|---|---|---|\n");
	for (i = 0; i < NINFO; i++) {
		char before[96], after[96];
		double pb, pa, hb, ha;

		rate_fmt(info[i].hits[0], info[i].of[0], before, sizeof(before), &pb, &hb);
		rate_fmt(info[i].hits[1], info[i].of[1], after, sizeof(after), &pa, &ha);
		printf("| %s | %s | %s |\n", info[i].name, before, after);
	}
	printf("\nRESULT drift sweeps=%ld seed=%llu targets_met=%d/%d widest_half_interval=%.1f "
	       "points\n",
	       sweeps, seed, met, NSCEN, worst);
	return 0;
}
