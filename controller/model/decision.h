/* decision.h -- what a sweep decided, per cohort: the one object the analysis fills (judge/
 * verdict.c, called from judge/analysis.c) and every surface renders: the best line, the
 * report's banner, the site, export, apply --best, rollout --best and verify --best. */
#ifndef FT_DECISION_H
#define FT_DECISION_H

#include <stdbool.h>

#include "plan/config.h"
#include "stats/effect.h"

/*
 * Meaning (docs/method.md, "The decision"):
 *
 * - confirmed: the comparison that decides is a significant gain. For sequential and
 *   adaptive that comparison is the final confirmation: the chosen configuration against the
 *   original baseline measured again beside it, in the same rounds (basis final). For grid it
 *   is the best row, measured beside the baseline in the same rounds (basis grid_row). cfg
 *   is what to apply.
 * - unconfirmed: axis rows suggested a configuration (cfg) that the deciding comparison did
 *   not confirm: the final confirmation ran and is not a gain (why not_confirmed: verdict,
 *   Δ and interval say what it showed), or it never ran because the sweep stopped first (why
 *   no_final). steps[] are the rows that suggested cfg, each with what it showed. Actions
 *   (export, apply, rollout) refuse it unless asked for on purpose (--unconfirmed).
 * - none: nothing to recommend; the baseline stands (why says which case).
 *
 * A sweep holds one for the fleet (sweep.decision) and one per cohort (sweep_cohort.decision,
 * when it has two cohorts or more: each judged through the cohort's own decision on a row
 * split by cohort, the fleet's on the others). Plain data: copyable by assignment.
 */

enum decision_state {
	DECISION_NONE = 0,    /* "none" */
	DECISION_UNCONFIRMED, /* "unconfirmed" */
	DECISION_CONFIRMED,   /* "confirmed" */
};

/* Which comparison decided. */
enum decision_basis {
	DECISION_BASIS_NONE = 0, /* "none": no comparison decided (nothing ran, no figures) */
	DECISION_BASIS_FINAL,    /* "final": the final confirmation against the original baseline
	                            measured again beside it (sequential, adaptive) */
	DECISION_BASIS_GRID_ROW, /* "grid_row": a grid's row against the baseline, in the same
	                            rounds (the best one, or, with none a gain, no row) */
	DECISION_BASIS_ROWS,     /* "rows": sequential or adaptive without a final confirmation:
	                            the axis rows alone */
};

/* Why the state is what it is. */
enum decision_why {
	DECISION_WHY_GAIN = 0,        /* "gain": confirmed */
	DECISION_WHY_NOT_JUDGED,      /* "not_judged": not analysed yet */
	DECISION_WHY_BASELINE_FAILED, /* "baseline_failed": the original baseline has no figure */
	DECISION_WHY_NO_FIGURES,      /* "no_figures": no configuration produced a figure */
	DECISION_WHY_NO_GAIN,         /* "no_gain": configurations were measured, none gained */
	DECISION_WHY_NOT_CONFIRMED,   /* "not_confirmed": the final confirmation is not a gain */
	DECISION_WHY_NO_FINAL,        /* "no_final": rows suggested cfg, the final confirmation
	                                 did not run (the sweep stopped before it) */
	DECISION_WHY_BASELINE_CANCELLED, /* "baseline_cancelled": the sweep stopped and cancelled
	                                    the original baseline on every node before it finished
	                                  */
	DECISION_WHY_BASELINE_NOT_RUN,   /* "baseline_not_run": the sweep stopped before the
	                                    original baseline's turn came (rounds are seeded) */
};

/* One row behind the suggestion: its figures as the decision's cohort sees them. */
struct decision_step {
	int point;                    /* the row's point index */
	int axis;                     /* its axis, -1 for none */
	enum effect_decision verdict; /* its decision */
	double delta_pct;             /* its Δ against its reference, % */
	double low_pct, high_pct;     /* the interval its decision used, % (NAN: none) */
	double level_pct;             /* that interval's level: 95, or 100 (1 - 5 %/K) at a look */
};

#define DECISION_STEPS_MAX 16

struct decision {
	enum decision_state state;
	enum decision_basis basis;
	enum decision_why why;
	/* confirmed: what to apply; unconfirmed: the suggested configuration (what the final
	 * confirmation ran, else the rows' choice); none: empty (n 0). */
	struct config cfg;
	/* The comparison that decided (basis final or grid_row with a row): point against ref;
	 * -1 when none. Its figures as the cohort sees them: */
	int point, ref;
	enum effect_decision verdict; /* its decision (gain when confirmed) */
	double delta_pct;             /* Δ, %; NAN when none */
	double low_pct, high_pct;     /* the interval its decision used (effect.h's
	                                 effect_deciding_interval: the (1 - α) one at its look,
	                                 the (1 - 2α) one for equivalent), %; NAN when none */
	double level_pct;             /* that interval's level, %: 95, or 100 (1 - 5 %/K) */
	int nused;                    /* nodes the comparison used */
	int ngain;                    /* of those, nodes whose own decision is a gain */
	/* The rows that suggested cfg, in axis order (sequential: each axis' winning row;
	 * adaptive: each axis' kept value, won or tentative). None for grid. */
	int nsteps;
	struct decision_step steps[DECISION_STEPS_MAX];
};

/* A zeroed decision: none, not judged, no point. */
void decision_init(struct decision *d);
/* Whether two decisions say the same (state, basis, why, cfg, point; figures within 1e-9). */
bool decision_equal(const struct decision *a, const struct decision *b);

/* Stable codes (storage, the sweep document) and their inverses (-1: unknown code). */
const char *decision_state_code(enum decision_state st);
int decision_state_parse(const char *code);
const char *decision_basis_code(enum decision_basis b);
int decision_basis_parse(const char *code);
const char *decision_why_code(enum decision_why w);
int decision_why_parse(const char *code);

#endif
