/* decision.c -- a sweep's decision as data: its stable codes and its comparison. */
#include <math.h>
#include <string.h>

#include "model/decision.h"
#include "banned.h"

static const char *const state_codes[] = { "none", "unconfirmed", "confirmed" };
static const char *const basis_codes[] = { "none", "final", "grid_row", "rows" };
static const char *const why_codes[] = {
	"gain",          "not_judged", "baseline_failed",    "no_figures",      "no_gain",
	"not_confirmed", "no_final",   "baseline_cancelled", "baseline_not_run"
};

#define NAMES(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int code_find(const char *const *names, int n, const char *code)
{
	int i;

	for (i = 0; code && i < n; i++)
		if (!strcmp(names[i], code))
			return i;
	return -1;
}

void decision_init(struct decision *d)
{
	memset(d, 0, sizeof(*d));
	d->why = DECISION_WHY_NOT_JUDGED;
	d->point = d->ref = -1;
	d->verdict = EFFECT_NA;
	d->delta_pct = d->low_pct = d->high_pct = d->level_pct = NAN;
}

/* Equal figures: both NAN, or within 1e-9 of each other. */
static bool num_same(double a, double b)
{
	return (isnan(a) && isnan(b)) || fabs(a - b) <= 1e-9 * fmax(1, fabs(a));
}

bool decision_equal(const struct decision *a, const struct decision *b)
{
	int i;

	if (a->state != b->state || a->basis != b->basis || a->why != b->why ||
	    a->point != b->point || a->ref != b->ref || a->verdict != b->verdict ||
	    a->nused != b->nused || a->ngain != b->ngain || a->nsteps != b->nsteps ||
	    !config_equal(&a->cfg, &b->cfg) || !num_same(a->delta_pct, b->delta_pct) ||
	    !num_same(a->low_pct, b->low_pct) || !num_same(a->high_pct, b->high_pct) ||
	    !num_same(a->level_pct, b->level_pct))
		return false;
	for (i = 0; i < a->nsteps; i++) {
		const struct decision_step *x = &a->steps[i], *y = &b->steps[i];

		if (x->point != y->point || x->axis != y->axis || x->verdict != y->verdict ||
		    !num_same(x->delta_pct, y->delta_pct) || !num_same(x->low_pct, y->low_pct) ||
		    !num_same(x->high_pct, y->high_pct) || !num_same(x->level_pct, y->level_pct))
			return false;
	}
	return true;
}

const char *decision_state_code(enum decision_state st)
{
	return state_codes[st];
}

int decision_state_parse(const char *code)
{
	return code_find(state_codes, NAMES(state_codes), code);
}

const char *decision_basis_code(enum decision_basis b)
{
	return basis_codes[b];
}

int decision_basis_parse(const char *code)
{
	return code_find(basis_codes, NAMES(basis_codes), code);
}

const char *decision_why_code(enum decision_why w)
{
	return why_codes[w];
}

int decision_why_parse(const char *code)
{
	return code_find(why_codes, NAMES(why_codes), code);
}
