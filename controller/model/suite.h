/* suite.h -- what a suite sweep judged: each workload's own analysis, the cells of the matrix
 * (a configuration on a workload, Holm-corrected), the guardrails' checks and the rule's
 * decision (judge/suite.c fills it; the report and the document render it). */
#ifndef FT_SUITE_H
#define FT_SUITE_H

#include <stdbool.h>

#include "model/decision.h"
#include "plan/plan.h"
#include "stats/effect.h"

struct sweep;

/* One workload (or the mean's series) at one point against the point's reference. */
struct suite_cell {
	bool present;                 /* the comparison has a fleet effect */
	enum effect_decision raw;     /* effect.c's decision of the workload alone */
	enum effect_decision verdict; /* after the rule's multiplicity correction (Holm within the
	                                 configuration under no_loss; raw otherwise) */
	double delta_pct;             /* fleet Δ, % (as measured; the goal is its workload's) */
	double low_pct, high_pct;     /* its 95 % interval, % */
	double p;                     /* two-sided p of no effect (fleet θ / SE, t with its df) */
	double p_holm;                /* Holm-adjusted over the configuration's K workloads */
};

/* One guardrail on one workload at one point. */
struct suite_check {
	int guardrail;    /* plan.guardrails index */
	int workload;     /* plan.workloads index */
	bool present;     /* the metric has a fleet effect there */
	double loss_pct;  /* the estimated loss (its own direction: + is worse), % */
	double bound_pct; /* the upper end of the loss's 90 % interval (one-sided 95 %), % */
	bool breached;    /* not shown within max_loss_pct: bound_pct > max_loss_pct, or no
	                     figure at all */
	double over_pct;  /* bound_pct - max_loss_pct when breached, % */
};

/* The suite's verdict of a row under the rule. */
enum suite_verdict {
	SUITE_NA = 0,  /* "na": baseline rows, rows without figures */
	SUITE_GAIN,    /* "gain": the rule crowns it (and no guardrail is breached) */
	SUITE_VETOED,  /* "vetoed": it would gain, but a guardrail is breached */
	SUITE_LOSS,    /* "loss": no_loss: a workload loses; primary/mean: that one loses */
	SUITE_NO_GAIN, /* "no_gain": nothing shown either way (inconclusive, equivalent) */
};

struct suite_row {
	struct suite_cell *cells; /* [nworkloads] */
	struct suite_cell mean;   /* the weighted geometric mean's series (every rule shows it) */
	int nchecks;
	struct suite_check *checks; /* each guardrail x each workload it names */
	int nbreaches;
	enum suite_verdict verdict;
	double score_pct; /* the rule's Δ: primary's, else the mean's (best = highest) */
	double score_low_pct, score_high_pct;
	int ngain, nloss; /* cells (after correction) that gain, that lose */
	/* The rule's outcome cannot change with more loops (judge/suite.c): a guardrail shown
	 * breached (its loss' whole 90 % interval beyond the limit), or every verdict the rule
	 * needs decided (its series' effect stopped: no_loss, a decided loss Holm keeps whatever
	 * the workloads still looking do, or every workload; primary and mean, their cell, and for
	 * a gain every guardrail's series). What adaptive loops and the adaptive race stop on.
	 * Baseline rows: true. */
	bool settled;
};

struct suite {
	enum plan_rule rule; /* what it was judged under (analyze --decide may change the plan's) */
	int nworkloads;
	int nseries;
	struct plan_series series[PLAN_SERIES_MAX];
	/* Each series analysed as a sweep of its own (its passes that series' values; the plan
	 * shared with the suite's sweep, its metric and goal the series'): [nseries], and the
	 * mean's series. Owned, released with the sweep that holds the suite (sweep_suite_clear).
	 */
	struct sweep *wl;
	struct sweep *mean;
	int npoints;
	struct suite_row *rows;   /* [npoints] */
	struct decision decision; /* the suite's, through the confirmed-decision rule */
	/* With two cohorts or more (sweep.ncohorts), each cohort's rows: the rule judged on every
	 * workload as the cohort sees it (its own figures on a workload's row split by cohort,
	 * the fleet's otherwise), [ncohorts][npoints]; its decision is sweep.cohorts[c]'s. */
	int ncohorts;
	struct suite_row **cohort_rows;
};

/* Stable codes: "na", "gain", "vetoed", "loss", "no_gain" (-1 for other text). */
const char *suite_verdict_code(enum suite_verdict v);
int suite_verdict_parse(const char *code);

#endif
