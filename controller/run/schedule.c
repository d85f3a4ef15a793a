/* schedule.c -- a strategy batch as runs: one block, interleaved rounds, warm-up rounds. */
#include <stdlib.h>
#include <string.h>

#include "run/schedule.h"
#include "stats/rounds.h"
#include "xmalloc.h"
#include "banned.h"

void schedule_release(struct schedule *sc)
{
	if (!sc)
		return;
	free(sc->runs);
	memset(sc, 0, sizeof(*sc));
}

/* Has point p run (a judged or warm-up pass, or loops asked)? */
static bool point_started(const struct sweep *s, const struct point *p)
{
	int k;

	if (p->loops_run > 0)
		return true;
	for (k = 0; k < s->plan.nnodes; k++)
		if (p->nodes[k].npasses > 0 || p->nodes[k].nwarmup > 0)
			return true;
	return false;
}

/* The rounds block b has run: the most any of its points ran, warm-up loops included. */
static int block_rounds(const struct sweep *s, int block)
{
	int i, k, most = 0;

	for (i = block; i < s->npoints; i++) {
		const struct point *p = &s->points[i];
		int warm = 0;

		if (p->block != block)
			continue;
		for (k = 0; k < s->plan.nnodes; k++)
			if (p->nodes[k].nwarmup > warm)
				warm = p->nodes[k].nwarmup;
		if (p->loops_run + warm > most)
			most = p->loops_run + warm;
	}
	return most;
}

int schedule_batch(struct sweep *s, const struct strategy_batch *b, struct schedule *sc)
{
	int n = b->n, i, block = -1, first, warm = 0, total = 0, nruns, base;
	int *points = xcalloc((size_t)n + 1, sizeof(int)),
	    *loops = xcalloc((size_t)n + 1, sizeof(int));
	int *op, *orr;
	bool fresh = true;

	sc->n = 0;
	for (i = 0; i < n; i++) {
		const struct point *p = &s->points[b->items[i].point];

		points[i] = p->index;
		if (point_started(s, p)) {
			fresh = false;
			block = p->block;
		}
	}
	if (fresh) {
		/* A new block: its first point names it; it starts with the warm-up rounds. */
		for (i = 0; i < n; i++)
			if (block < 0 || points[i] < block)
				block = points[i];
		warm = s->plan.warmup_loops;
	}
	for (i = 0; i < n; i++) {
		s->points[points[i]].block = block;
		s->points[points[i]].loops_target =
		        s->points[points[i]].loops_run + b->items[i].loops;
		loops[i] = b->items[i].loops + warm;
		total += loops[i];
	}
	first = fresh ? 1 : block_rounds(s, block) + 1;
	op = xcalloc((size_t)total + 1, sizeof(int));
	orr = xcalloc((size_t)total + 1, sizeof(int));
	nruns = rounds_expand(s->order_seed, block, first, points, loops, n, op, orr);
	if (nruns > sc->cap) {
		sc->cap = nruns;
		sc->runs = xrealloc(sc->runs, (size_t)sc->cap * sizeof(*sc->runs));
	}
	base = s->nrounds - first + 1;
	for (i = 0; i < nruns; i++) {
		sc->runs[i].point = op[i];
		sc->runs[i].round = base + orr[i];
		sc->runs[i].warmup = orr[i] - first < warm;
	}
	if (nruns > 0)
		s->nrounds = sc->runs[nruns - 1].round;
	sc->n = nruns;
	free(points);
	free(loops);
	free(op);
	free(orr);
	return nruns;
}
