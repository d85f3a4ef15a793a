/* site_fill.c -- bench/site.sh's driver: store N finished two-node sequential sweeps of P plans
 * in a controller database, through the controller's own strategy, analysis and store, with
 * seeded passes (one read_ahead_kb value gains, nr_requests does nothing, the baseline drifts
 * from run to run), one day apart, newest last.
 * usage: site_fill DB N [PLANS] [SEED] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/analysis.h"
#include "model/sweep.h"
#include "num.h"
#include "plan/plan.h"
#include "plan/plan_parse.h"
#include "run/strategy.h"
#include "store/ctlstore.h"
#include "banned.h"

static unsigned long long rng_state;

/* xorshift64*: uniform in (0, 1). */
static double uniform(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return ((double)((rng_state * 2685821657736338717ULL) >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform());
}

/* The plan of plan number k: the same job and axes, a name per plan. */
static int plan_make(int k, struct plan *p, struct err *e)
{
	char text[2048];

	snprintf(text, sizeof(text),
	         "{\"name\":\"bench plan %d\",\"nodes\":["
	         "{\"name\":\"node1\",\"url\":\"http://127.0.0.1:1\",\"device\":\"loop0\"},"
	         "{\"name\":\"node2\",\"url\":\"http://127.0.0.1:2\",\"device\":\"loop1\"}],"
	         "\"baseline\":{\"scheduler\":\"mq-deadline\",\"read_ahead_kb\":16,"
	         "\"nr_requests\":128},"
	         "\"axes\":[{\"param\":\"read_ahead_kb\",\"values\":[128,4096]},"
	         "{\"param\":\"nr_requests\",\"values\":[32,512]}],"
	         "\"strategy\":\"sequential\",\"job\":{\"engine\":\"fio\",\"fio\":{\"rw\":\"read\","
	         "\"bs\":\"4k\",\"runtime_s\":2,\"time_based\":true},\"loops\":3},"
	         "\"metric\":\"read.bw_mib\",\"labels\":{\"bench\":\"site\"}}",
	         k + 1);
	return plan_parse(text, NULL, p, e);
}

/* A point's true mean: read_ahead_kb decides, nr_requests does not; base drifts per run. */
static double point_mean(const struct point *pt, double base)
{
	const struct setting *ra = config_get(&pt->cfg, "read_ahead_kb");
	int64_t kb = 16;

	if (ra)
		num_parse_i64(ra->value, &kb);
	return base * (kb >= 4096 ? 4.5 : kb >= 128 ? 2.1 : 1.0);
}

static int sweep_store(struct ctlstore *st, int k, int nplans, double t0, struct err *e)
{
	struct strategy_batch b = { 0 };
	struct plan p;
	struct sweep s;
	double base = 90 * (1 + 0.05 * gauss());
	int i, n, kk, j, rc;

	rc = plan_make(k % nplans, &p, e);
	if (rc)
		return rc;
	sweep_init(&s, &p);
	s.created_at = t0 + 86400.0 * k;
	snprintf(s.status, sizeof(s.status), "running");
	rc = ctlstore_sweep_create(st, &s, e);
	if (rc < 0)
		goto out;
	while ((n = strategy_next(&s, &b)) > 0) {
		for (i = 0; i < n; i++) {
			struct point *pt = &s.points[b.items[i].point];
			double m = point_mean(pt, base);

			sweep_point_loops_add(&s, pt->index, b.items[i].loops);
			for (kk = 0; kk < s.plan.nnodes; kk++) {
				for (j = 0; j < b.items[i].loops; j++)
					node_result_pass_add(&pt->nodes[kk],
					                     m * (1 + 0.03 * gauss()) *
					                             (1 + 0.02 * kk));
				pt->nodes[kk].state = NODE_OK;
			}
			analysis_point_ran(&s, pt->index);
			rc = ctlstore_point_save(st, &s, pt->index, e);
			if (rc < 0)
				goto out;
		}
	}
	snprintf(s.status, sizeof(s.status), "completed");
	s.finished_at = s.created_at + 120;
	analysis_sweep_closed(&s);
	rc = ctlstore_sweep_finish(st, &s, e);
out:
	strategy_batch_release(&b);
	sweep_release(&s);
	return rc < 0 ? rc : 0;
}

int main(int argc, char **argv)
{
	struct ctlstore *st = NULL;
	struct err e = { 0 };
	int64_t n, nplans = 5, seed = 1;
	double t0;
	int k;

	if (argc < 3 || num_parse_i64(argv[2], &n) || n < 1 ||
	    (argc > 3 && (num_parse_i64(argv[3], &nplans) || nplans < 1)) ||
	    (argc > 4 && num_parse_i64(argv[4], &seed))) {
		fprintf(stderr, "usage: site_fill DB N [PLANS] [SEED]\n");
		return 2;
	}
	rng_state = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)seed;
	if (ctlstore_open(argv[1], &st, &e)) {
		fprintf(stderr, "site_fill: %s\n", e.msg);
		return 1;
	}
	t0 = 1767225600.0 - 86400.0 * (double)n; /* the last one on 2026-01-01 */
	for (k = 0; k < n; k++) {
		if (sweep_store(st, k, (int)nplans, t0, &e)) {
			fprintf(stderr, "site_fill: sweep %d: %s\n", k + 1, e.msg);
			ctlstore_close(st);
			return 1;
		}
	}
	ctlstore_close(st);
	printf("stored %lld sweeps of %lld plans in %s\n", (long long)n, (long long)nplans,
	       argv[1]);
	return 0;
}
