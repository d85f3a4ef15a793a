/* suite.c -- a suite's analysis data: release (its per-series sweeps share the suite sweep's
 * plan, configurations and identities) and the row verdict's stable codes. */
#include <stdlib.h>
#include <string.h>

#include "model/suite.h"
#include "model/sweep.h"
#include "banned.h"

/* A series' sweep (judge/suite.c builds it): its passes and node configurations are its own,
 * its plan, node_dropped and identity are borrowed from the suite's sweep. */
static void series_sweep_release(struct sweep *w)
{
	int i, k;

	for (i = 0; i < w->npoints; i++)
		for (k = 0; k < w->plan.nnodes; k++) {
			free(w->points[i].nodes[k].passes);
			free(w->points[i].nodes[k].pass_round);
			free(w->points[i].nodes[k].pass_started_at);
			free(w->points[i].nodes[k].cfg);
			memset(&w->points[i].nodes[k], 0, sizeof(w->points[i].nodes[k]));
		}
	/* Borrowed: the plan (a copy of the struct), node_dropped and identity. */
	sweep_cohorts_clear(w);
	w->node_dropped = NULL;
	w->identity = NULL;
	memset(&w->plan, 0, sizeof(w->plan));
	sweep_release(w);
}

static void rows_free(struct suite_row *rows, int n)
{
	int j;

	for (j = 0; rows && j < n; j++) {
		free(rows[j].cells);
		free(rows[j].checks);
	}
	free(rows);
}

void suite_free(struct suite *s)
{
	int j;

	if (!s)
		return;
	for (j = 0; s->wl && j < s->nseries; j++)
		series_sweep_release(&s->wl[j]);
	free(s->wl);
	if (s->mean)
		series_sweep_release(s->mean);
	free(s->mean);
	rows_free(s->rows, s->npoints);
	for (j = 0; s->cohort_rows && j < s->ncohorts; j++)
		rows_free(s->cohort_rows[j], s->npoints);
	free(s->cohort_rows);
	free(s);
}

static const char *const codes[] = { "na", "gain", "vetoed", "loss", "no_gain" };

const char *suite_verdict_code(enum suite_verdict v)
{
	return (unsigned)v < sizeof(codes) / sizeof(codes[0]) ? codes[v] : "na";
}

int suite_verdict_parse(const char *code)
{
	size_t i;

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (!strcmp(codes[i], code))
			return (int)i;
	return -1;
}
