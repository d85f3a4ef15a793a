/* verdicts_mc.c -- Monte Carlo of the verdict statistics (effect.c) on synthetic Gaussian
 * passes: prints issue 9's benchmark table in markdown. Seeded and deterministic. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcrng.h"
#include "num.h"
#include "plan/plan.h"
#include "stats/effect.h"
#include "xmalloc.h"
#include "banned.h"

/* One simulated setup; every node runs the same number of loops of the reference and the
 * point. Nodes [0, nminor) have effect minor_pct, the others effect_pct. */
struct sim {
	const char *name;
	double effect_pct;
	int nminor;
	double minor_pct;
	double cv_pct;     /* per pass */
	double spread_pct; /* SD of the nodes' levels */
	int nodes;
	int loops_min, loops_max; /* equal: a fixed number of loops */
	double tau_true_pct;      /* SD of the nodes' true log effects (× 100) around effect_pct */
	/* results */
	long trials;
	long n[EFFECT_HETEROGENEOUS + 1]; /* comparison decisions */
	long minor_named;                 /* heterogeneous, naming exactly the minority */
	long q_sig;                       /* Cochran's Q significant at 5 % */
	long loops_sum;                   /* loops at the stop, summed */
	long decided;                     /* fleet decision gain, loss or equivalent */
	double ci_width_sum;              /* fleet 95 % CI width, %, summed */
	double tau_sum;                   /* τ, %, summed */
	long noisy;                       /* the noise flag was raised */
	long covered;                     /* the 95 % CI holds the fleet's true mean effect */
	int *need;                        /* loops_needed per trial (-1: unreachable) */
};

static void sim_trial(struct sim *sm, struct rng *r, double *ref, double *pt,
                      struct effect_sample *sr, struct effect_sample *sp)
{
	int i, j, n, nl = sm->loops_max - sm->loops_min + 1, nmax = sm->loops_max;
	struct effect out;
	struct effect_input in = {
		.nnodes = sm->nodes, .ref = sr, .point = sp, .min_effect_pct = 5.0, .nlooks = nl
	};
	struct err e;

	for (i = 0; i < sm->nodes; i++) {
		double level = 1000.0 * fmax(0.05, 1.0 + sm->spread_pct / 100.0 * rng_normal(r));
		double eff = (1.0 + (i < sm->nminor ? sm->minor_pct : sm->effect_pct) / 100.0) *
		             exp(sm->tau_true_pct / 100.0 * rng_normal(r));

		for (j = 0; j < nmax; j++) {
			ref[i * nmax + j] = level * (1.0 + sm->cv_pct / 100.0 * rng_normal(r));
			pt[i * nmax + j] = level * eff * (1.0 + sm->cv_pct / 100.0 * rng_normal(r));
		}
		sr[i].x = &ref[i * nmax];
		sp[i].x = &pt[i * nmax];
	}
	sm->trials++;
	for (n = sm->loops_min; n <= sm->loops_max; n++) {
		for (i = 0; i < sm->nodes; i++)
			sr[i].n = sp[i].n = n;
		in.look = n - sm->loops_min + 1;
		if (effect_compute(&in, &out, &e) < 0) {
			fprintf(stderr, "verdicts_mc: %s\n", e.msg);
			exit(1);
		}
		if (out.stop)
			break;
		effect_release(&out);
	}
	sm->n[out.decision]++;
	sm->q_sig += out.q_p < 0.05;
	sm->loops_sum += n;
	sm->ci_width_sum += out.ci95_high_pct - out.ci95_low_pct;
	sm->tau_sum += out.tau_pct;
	sm->noisy += out.noisy;
	sm->covered += out.ci95_low_pct <= sm->effect_pct && sm->effect_pct <= out.ci95_high_pct;
	sm->need[sm->trials - 1] = out.loops_needed;
	sm->decided += out.fleet_decision == EFFECT_GAIN || out.fleet_decision == EFFECT_LOSS ||
	               out.fleet_decision == EFFECT_EQUIVALENT;
	if (out.decision == EFFECT_HETEROGENEOUS && out.ndisagree == sm->nminor) {
		for (i = 0; i < out.ndisagree && out.disagree[i] == i; i++)
			;
		sm->minor_named += i == sm->nminor;
	}
	effect_release(&out);
}

static int need_cmp(const void *a, const void *b)
{
	unsigned x = *(const int *)a, y = *(const int *)b; /* -1 sorts last */

	return x < y ? -1 : x > y;
}

/* The median of loops_needed over the trials, counting "unreachable" as the largest. */
static double need_median(struct sim *sm)
{
	qsort(sm->need, sm->trials, sizeof(int), need_cmp);
	return sm->need[sm->trials / 2] < 0 ? INFINITY : sm->need[sm->trials / 2];
}

/* --rounds: every pass j of both samples carries round j + 1, so each node is judged within
 * rounds (paired by round, effect.h) as sweeps run in interleaved rounds are. */
static int *pass_rounds;

static void sim_run(struct sim *sm, long trials, uint64_t seed)
{
	size_t cells = (size_t)sm->nodes * sm->loops_max;
	double *ref = xcalloc(cells, sizeof(double)), *pt = xcalloc(cells, sizeof(double));
	struct effect_sample *sr = xcalloc(sm->nodes, sizeof(*sr));
	struct effect_sample *sp = xcalloc(sm->nodes, sizeof(*sp));
	struct rng r;
	long t;

	sm->need = xcalloc(trials, sizeof(int));
	for (t = 0; t < sm->nodes; t++)
		sr[t].round = sp[t].round = pass_rounds;
	rng_seed(&r, seed);
	for (t = 0; t < trials; t++)
		sim_trial(sm, &r, ref, pt, sr, sp);
	free(ref);
	free(pt);
	free(sr);
	free(sp);
}

enum sims {
	S_NULL_2, /* 0 %, CV 2 %, 5 loops, 2 nodes */
	S_GAIN_2,
	S_CV10_3,
	S_PLUS4,
	S_FLEET_200,
	S_FLEET_2,
	S_SAME_50,
	S_SPLIT,
	S_ADAPT_NULL,
	S_ADAPT_GAIN,
	S_OLD_NULL,
	S_TAU_2,
	S_TAU_5,
	S_COUNT
};

static struct sim sims[S_COUNT] = {
	[S_NULL_2] = { "0 % effect, CV 2 %, 5 loops, 2 nodes", 0, 0, 0, 2, 0, 2, 5, 5 },
	[S_GAIN_2] = { "+10 % effect, CV 2 %, 5 loops, 2 nodes", 10, 0, 0, 2, 0, 2, 5, 5 },
	[S_CV10_3] = { "+10 % effect, CV 10 %, 3 loops, 2 nodes", 10, 0, 0, 10, 0, 2, 3, 3 },
	[S_PLUS4] = { "+4 % effect, CV 8 %, 5 loops, 2 nodes", 4, 0, 0, 8, 0, 2, 5, 5 },
	[S_FLEET_200] = { "+10 % effect, CV 5 %, 5 loops, 200 nodes (node means differ by 5 %)", 10,
	                  0, 0, 5, 5, 200, 5, 5 },
	[S_FLEET_2] = { "+10 % effect, CV 5 %, 5 loops, 2 nodes (node means differ by 5 %)", 10, 0,
	                0, 5, 5, 2, 5, 5 },
	[S_SAME_50] = { "same effect on every node (+10 %, CV 5 %, 5 loops, node means differ "
	                "by 5 %), 50 nodes",
	                10, 0, 0, 5, 5, 50, 5, 5 },
	[S_SPLIT] = { "45 nodes +10 %, 5 nodes -10 %, CV 2 %, 5 loops", 10, 5, -10, 2, 0, 50, 5,
	              5 },
	[S_ADAPT_NULL] = { "adaptive loops (min 3, max 20), 0 % effect, CV 5 %, 2 nodes", 0, 0, 0,
	                   5, 0, 2, 3, 20 },
	[S_ADAPT_GAIN] = { "adaptive loops (min 3, max 20), +10 % effect, CV 5 %, 2 nodes", 10, 0,
	                   0, 5, 0, 2, 3, 20 },
	[S_TAU_2] = { "0 % mean effect, nodes' true effects spread by τ = 4 %, CV 2 %, 5 loops, 2 "
	              "nodes",
	              0, 0, 0, 2, 0, 2, 5, 5, 4 },
	[S_TAU_5] = { "0 % mean effect, nodes' true effects spread by τ = 2 %, CV 2 %, 5 loops, 5 "
	              "nodes",
	              0, 0, 0, 2, 0, 5, 5, 5, 2 },
	[S_OLD_NULL] = { "0 % effect, CV 10 %, 3 loops, 2 nodes", 0, 0, 0, 10, 0, 2, 3, 3 },
};

static double pct(long a, long b)
{
	return b ? 100.0 * a / b : NAN;
}

static double rate(int s, enum effect_decision d)
{
	return pct(sims[s].n[d], sims[s].trials);
}

/* One row: the measured figure, the target and whether it is met (at_most: figure <= t).
 * unit is " %" for rates, "" for counts. */
static int rows_run, rows_met;

static void row(const char *scenario, const char *what, double v, bool at_most, double target,
                const char *unit)
{
	bool met = at_most ? v <= target : v >= target;

	rows_run++;
	rows_met += met;
	printf("| %s: %s | %.*f%s | %s %g%s | %s |\n", scenario, what, *unit ? 1 : 2, v, unit,
	       at_most ? "≤" : "≥", target, unit, met ? "yes" : "**no**");
}

static void info(const char *scenario, const char *what, double v, const char *unit)
{
	printf("| %s: %s | %.*f%s |\n", scenario, what, *unit ? 1 : 2, v, unit);
}

static int usage(void)
{
	fprintf(stderr,
	        "usage: verdicts_mc [--trials N (>= 1, default 5000)] [--seed S] [--rounds]\n");
	return 2;
}

int main(int argc, char **argv)
{
	long trials = 5000;
	unsigned long long seed = 20251130;
	int i;

	for (i = 1; i < argc; i++) {
		int64_t v;

		if (!strcmp(argv[i], "--rounds")) {
			pass_rounds = xcalloc(PLAN_LOOPS_MAX, sizeof(int));
			for (v = 0; v < PLAN_LOOPS_MAX; v++)
				pass_rounds[v] = (int)v + 1;
			continue;
		}
		if (i + 1 >= argc || num_parse_i64(argv[i + 1], &v) < 0 || v < 1)
			return usage();
		if (!strcmp(argv[i], "--trials"))
			trials = v;
		else if (!strcmp(argv[i], "--seed"))
			seed = (unsigned long long)v;
		else
			return usage();
		i++;
	}
	for (i = 0; i < S_COUNT; i++) {
		sim_run(&sims[i], trials, seed * 1000003ULL + i);
		fprintf(stderr, "verdicts_mc: %s done\n", sims[i].name);
	}

	printf("Verdict Monte Carlo: %ld trials per scenario, seed %llu, min_effect 5 %%, "
	       "Gaussian passes%s.\n\n",
	       trials, seed,
	       pass_rounds ? ", each node judged within rounds (pass j of the reference and of "
	                     "the point paired as round j)"
	                   : ", independent samples (passes without rounds)");
	printf("| scenario | measured | target | met |\n|---|---|---|---|\n");
	row(sims[S_NULL_2].name, "\"significant gain/loss\"",
	    rate(S_NULL_2, EFFECT_GAIN) + rate(S_NULL_2, EFFECT_LOSS), true, 5, " %");
	row(sims[S_GAIN_2].name, "\"significant gain\"", rate(S_GAIN_2, EFFECT_GAIN), false, 95,
	    " %");
	row(sims[S_NULL_2].name, "\"no real difference\"", rate(S_NULL_2, EFFECT_EQUIVALENT), false,
	    90, " %");
	row(sims[S_CV10_3].name, "\"no real difference\"", rate(S_CV10_3, EFFECT_EQUIVALENT), true,
	    2, " %");
	row(sims[S_PLUS4].name, "\"no real difference\"", rate(S_PLUS4, EFFECT_EQUIVALENT), true,
	    10, " %");
	row(sims[S_FLEET_200].name, "\"significant gain\"", rate(S_FLEET_200, EFFECT_GAIN), false,
	    97, " %");
	row(sims[S_SAME_50].name, "\"nodes disagree\"", rate(S_SAME_50, EFFECT_HETEROGENEOUS), true,
	    5, " %");
	row(sims[S_SPLIT].name, "\"nodes disagree\", exactly those 5 named",
	    pct(sims[S_SPLIT].minor_named, sims[S_SPLIT].trials), false, 95, " %");
	row(sims[S_ADAPT_NULL].name, "false \"significant\"",
	    rate(S_ADAPT_NULL, EFFECT_GAIN) + rate(S_ADAPT_NULL, EFFECT_LOSS), true, 5, " %");
	row(sims[S_ADAPT_GAIN].name, "mean loops per point at the stop",
	    (double)sims[S_ADAPT_GAIN].loops_sum / sims[S_ADAPT_GAIN].trials, true, 8, "");

	printf("\nAlso measured (no target; the issue's \"today\" rows and what drives them):\n\n");
	printf("| scenario | measured |\n|---|---|\n");
	info(sims[S_FLEET_200].name, "\"nodes disagree\"", rate(S_FLEET_200, EFFECT_HETEROGENEOUS),
	     " %");
	info(sims[S_FLEET_200].name, "Cochran's Q significant at 5 %",
	     pct(sims[S_FLEET_200].q_sig, sims[S_FLEET_200].trials), " %");
	info(sims[S_FLEET_200].name, "mean width of the fleet's 95 % CI",
	     sims[S_FLEET_200].ci_width_sum / sims[S_FLEET_200].trials, " points");
	info(sims[S_FLEET_200].name, "mean τ", sims[S_FLEET_200].tau_sum / sims[S_FLEET_200].trials,
	     " %");
	info(sims[S_FLEET_2].name, "mean width of the fleet's 95 % CI",
	     sims[S_FLEET_2].ci_width_sum / sims[S_FLEET_2].trials, " points");
	info(sims[S_FLEET_2].name, "\"significant gain\"", rate(S_FLEET_2, EFFECT_GAIN), " %");
	info(sims[S_SAME_50].name, "Cochran's Q significant at 5 %",
	     pct(sims[S_SAME_50].q_sig, sims[S_SAME_50].trials), " %");
	info(sims[S_OLD_NULL].name, "\"nodes disagree\"", rate(S_OLD_NULL, EFFECT_HETEROGENEOUS),
	     " %");
	info(sims[S_OLD_NULL].name, "\"no real difference\"", rate(S_OLD_NULL, EFFECT_EQUIVALENT),
	     " %");
	info(sims[S_OLD_NULL].name, "\"inconclusive\"", rate(S_OLD_NULL, EFFECT_INCONCLUSIVE),
	     " %");
	info(sims[S_OLD_NULL].name, "\"significant gain/loss\"",
	     rate(S_OLD_NULL, EFFECT_GAIN) + rate(S_OLD_NULL, EFFECT_LOSS), " %");
	info(sims[S_OLD_NULL].name, "noise flag (MDE > min_effect)",
	     pct(sims[S_OLD_NULL].noisy, sims[S_OLD_NULL].trials), " %");
	info(sims[S_OLD_NULL].name, "median loops per point needed for 5 %",
	     need_median(&sims[S_OLD_NULL]), "");
	info(sims[S_CV10_3].name, "\"significant gain\"", rate(S_CV10_3, EFFECT_GAIN), " %");
	info(sims[S_CV10_3].name, "\"inconclusive\"", rate(S_CV10_3, EFFECT_INCONCLUSIVE), " %");
	info(sims[S_NULL_2].name, "\"nodes disagree\"", rate(S_NULL_2, EFFECT_HETEROGENEOUS), " %");
	info(sims[S_ADAPT_GAIN].name, "\"significant gain\"", rate(S_ADAPT_GAIN, EFFECT_GAIN),
	     " %");
	info(sims[S_ADAPT_NULL].name, "\"no real difference\"",
	     rate(S_ADAPT_NULL, EFFECT_EQUIVALENT), " %");
	info(sims[S_GAIN_2].name, "the fleet's 95 % CI holds the true effect",
	     pct(sims[S_GAIN_2].covered, sims[S_GAIN_2].trials), " %");
	info(sims[S_TAU_2].name, "the fleet's 95 % CI holds the true mean effect",
	     pct(sims[S_TAU_2].covered, sims[S_TAU_2].trials), " %");
	info(sims[S_TAU_2].name, "\"significant gain/loss\"",
	     rate(S_TAU_2, EFFECT_GAIN) + rate(S_TAU_2, EFFECT_LOSS), " %");
	info(sims[S_TAU_5].name, "the fleet's 95 % CI holds the true mean effect",
	     pct(sims[S_TAU_5].covered, sims[S_TAU_5].trials), " %");
	info(sims[S_ADAPT_GAIN].name, "decided (gain, loss or equivalent) by loop 20",
	     pct(sims[S_ADAPT_GAIN].decided, sims[S_ADAPT_GAIN].trials), " %");
	info(sims[S_ADAPT_NULL].name, "mean loops at the stop",
	     (double)sims[S_ADAPT_NULL].loops_sum / sims[S_ADAPT_NULL].trials, "");
	printf("\nRESULT verdicts trials=%ld seed=%llu rounds=%d targets_met=%d/%d\n", trials, seed,
	       pass_rounds != NULL, rows_met, rows_run);
	free(pass_rounds);
	for (i = 0; i < S_COUNT; i++)
		free(sims[i].need);
	return 0;
}
