/* cohort.c -- nodes grouped by plan.cohort_by, rows judged within each cohort, and the
 * between-cohort test that splits a row (cohort.h states the rule). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/cohort.h"
#include "xmalloc.h"
#include "banned.h"

/* A node's value of cohort_by key: a node label ("label.KEY", or KEY when it names no
 * identity field) of pn, else the identity field id reported; NULL when absent. */
static const char *value_of(const struct plan_node *pn, const struct node_identity *id,
                            const char *key)
{
	int f;

	if (!strncmp(key, "label.", 6))
		return plan_node_label(pn, key + 6);
	f = identity_field_parse(key);
	if (f < 0)
		return plan_node_label(pn, key);
	return id ? id->field[f] : NULL;
}

static const char *node_value(const struct sweep *s, int k, const char *key)
{
	return value_of(&s->plan.nodes[k], s->identity ? &s->identity[k] : NULL, key);
}

/* A node's values as one comparable text: each "LENGTH:VALUE" or "-" when absent. */
static char *node_key(const struct sweep *s, int k)
{
	struct buf b = BUF_INIT;
	int j;

	for (j = 0; j < s->plan.ncohort_by; j++) {
		const char *v = node_value(s, k, s->plan.cohort_by[j]);

		if (v)
			buf_printf(&b, "%zu:%s|", strlen(v), v);
		else
			buf_puts(&b, "-|");
	}
	return b.data ? buf_detach(&b, NULL) : xstrdup("");
}

/* Order node indexes by their key, ties by index (qsort_r's comparison). */
static int key_cmp(const void *a, const void *b, void *arg)
{
	char **keys = arg;
	int ia = *(const int *)a, ib = *(const int *)b;
	int c = strcmp(keys[ia], keys[ib]);

	return c ? c : (ia > ib) - (ia < ib);
}

/* Order cohorts by their first node. */
static int first_cmp(const void *a, const void *b)
{
	const struct sweep_cohort *x = a, *y = b;

	return (x->nodes[0] > y->nodes[0]) - (x->nodes[0] < y->nodes[0]);
}

void cohort_assign(struct sweep *s)
{
	int n = s->plan.nnodes, *idx, i, j, c;
	char **keys;

	sweep_cohorts_clear(s);
	if (n == 0)
		return;
	keys = xcalloc((size_t)n + 1, sizeof(char *));
	idx = xcalloc((size_t)n + 1, sizeof(int));
	for (i = 0; i < n; i++) {
		keys[i] = node_key(s, i);
		idx[i] = i;
	}
	/* Sorted, not compared pair by pair: a fleet of thousands groups in O(n log n). */
	qsort_r(idx, (size_t)n, sizeof(int), key_cmp, keys);
	s->cohorts = xcalloc((size_t)n + 1, sizeof(*s->cohorts));
	for (i = 0; i < n; i = j) {
		struct sweep_cohort *co = &s->cohorts[s->ncohorts++];

		for (j = i + 1; j < n && !strcmp(keys[idx[i]], keys[idx[j]]); j++)
			;
		co->nnodes = j - i;
		co->nodes = xcalloc((size_t)co->nnodes, sizeof(int));
		memcpy(co->nodes, &idx[i], (size_t)co->nnodes * sizeof(int));
		decision_init(&co->decision);
		co->nvalues = s->plan.ncohort_by;
		co->values = xcalloc((size_t)co->nvalues + 1, sizeof(char *));
		for (c = 0; c < co->nvalues; c++) {
			const char *v = node_value(s, co->nodes[0], s->plan.cohort_by[c]);

			co->values[c] = v ? xstrdup(v) : NULL;
		}
	}
	/* Ties sorted by index, so each cohort's nodes are increasing already. */
	qsort(s->cohorts, (size_t)s->ncohorts, sizeof(*s->cohorts), first_cmp);
	s->cohort_of = xcalloc((size_t)n + 1, sizeof(int));
	for (c = 0; c < s->ncohorts; c++)
		for (j = 0; j < s->cohorts[c].nnodes; j++)
			s->cohort_of[s->cohorts[c].nodes[j]] = c;
	for (i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	free(idx);
}

/* A variance of 0 (every pass the same) is an exact estimate: floored so that its weight is
 * finite. */
#define COHORT_VAR_MIN 1e-12

void cohort_between(int n, const double *theta, const double *var, struct cohort_test *out)
{
	double sw = 0, swt = 0, mean;
	int c, k = 0;

	memset(out, 0, sizeof(*out));
	out->p = NAN;
	for (c = 0; c < n; c++) {
		double v = fmax(var[c], COHORT_VAR_MIN);

		if (!isfinite(theta[c]) || !isfinite(var[c]) || var[c] < 0)
			continue;
		sw += 1 / v;
		swt += theta[c] / v;
		k++;
	}
	out->ncohorts = k;
	if (k < 2)
		return;
	mean = swt / sw;
	for (c = 0; c < n; c++) {
		if (!isfinite(theta[c]) || !isfinite(var[c]) || var[c] < 0)
			continue;
		out->q += (theta[c] - mean) * (theta[c] - mean) / fmax(var[c], COHORT_VAR_MIN);
	}
	out->df = k - 1;
	out->p = stats_chi2_sf(out->q, out->df);
}

static bool decided(enum effect_decision d)
{
	return d == EFFECT_GAIN || d == EFFECT_LOSS || d == EFFECT_EQUIVALENT;
}

void cohort_point_judge(struct sweep *s, int i, const struct effect_sample *sr,
                        const struct effect_sample *sp, int look, int nlooks)
{
	struct point *p = &s->points[i];
	int nc = s->ncohorts, c, j, m = 0, most = 0;
	enum effect_decision first = EFFECT_NA;
	struct effect_sample *csr, *csp;
	double *theta, *var;
	bool differ = false;

	if (nc < 2 || p->ref < 0)
		return;
	for (c = 0; c < nc; c++)
		most = s->cohorts[c].nnodes > most ? s->cohorts[c].nnodes : most;
	csr = xcalloc((size_t)most + 1, sizeof(*csr));
	csp = xcalloc((size_t)most + 1, sizeof(*csp));
	theta = xcalloc((size_t)nc + 1, sizeof(double));
	var = xcalloc((size_t)nc + 1, sizeof(double));
	p->cohort_fx = xcalloc((size_t)nc, sizeof(*p->cohort_fx));
	for (c = 0; c < nc; c++) {
		const struct sweep_cohort *co = &s->cohorts[c];
		struct effect *fx = &p->cohort_fx[c];
		struct effect_input in = { .nnodes = co->nnodes,
			                   .ref = csr,
			                   .point = csp,
			                   .min_effect_pct = s->plan.min_effect_pct,
			                   .minimize = s->plan.minimize,
			                   .look = look,
			                   .nlooks = nlooks };

		for (j = 0; j < co->nnodes; j++) {
			csr[j] = sr[co->nodes[j]];
			csp[j] = sp[co->nodes[j]];
		}
		if (effect_compute(&in, fx, NULL)) {
			in.nnodes = 0; /* a malformed input: no figure, as verdict.c's judge() */
			effect_compute(&in, fx, NULL);
		}
		if (fx->nused > 0) {
			theta[m] = fx->log_ratio;
			var[m++] = fx->se_log * fx->se_log;
		}
		if (!decided(fx->fleet_decision))
			continue;
		if (first == EFFECT_NA)
			first = fx->fleet_decision;
		else if (fx->fleet_decision != first)
			differ = true;
	}
	cohort_between(m, theta, var, &p->between);
	/* A point whose nodes ran their cohorts' own configurations is one comparison per
	 * cohort, whatever the cohorts' effects. */
	p->between.split = p->role != ROLE_BASELINE &&
	                   ((differ && p->between.p <= EFFECT_ALPHA) || sweep_point_mixed(s, p));
	if (p->between.split)
		p->verdict = EFFECT_COHORTS;
	free(csr);
	free(csp);
	free(theta);
	free(var);
}

int cohort_find(const struct sweep *s, const struct plan_node *pn, const struct node_identity *id)
{
	int c, j;

	for (c = 0; c < s->ncohorts; c++) {
		const struct sweep_cohort *co = &s->cohorts[c];

		for (j = 0; j < co->nvalues; j++) {
			const char *v = value_of(pn, id, s->plan.cohort_by[j]);

			if (!v != !co->values[j] || (v && strcmp(v, co->values[j])))
				break;
		}
		if (j == co->nvalues)
			return c;
	}
	return -1;
}
