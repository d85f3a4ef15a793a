/* effect.h -- one comparison on a fleet: per-node effects, the random-effects fleet effect,
 * its decision, node disagreement, noise and the adaptive-loop stopping rule (pure). */
#ifndef FT_EFFECT_H
#define FT_EFFECT_H

#include <stdbool.h>

#include "err.h"

/*
 * Pure: no I/O, no controller struct. One comparison of a point with its reference over the
 * nodes: per node the ratio of the two points' geometric means within rounds (their passes
 * paired by round: whatever moves a whole round cancels) when both samples carry rounds, else
 * the ratio of means on the log scale (delta method, Welch df); the fleet effect as a
 * DerSimonian–Laird random-effects pool, with a run-to-run variance added when the caller
 * gives one (compare); a decision code from the (1 - α) and (1 - 2α) intervals at the look's
 * α = 5 %/K (K = 1 for a fixed number of loops), the nodes that disagree, the noise, and
 * whether adaptive loops stop. docs/method.md states the method, formula by formula, and why
 * the stopping rule keeps every error rate at 5 %.
 */

#define EFFECT_ALPHA 0.05       /* overall two-sided level of every test */
#define EFFECT_POWER 0.8        /* power of the minimum detectable effect */
#define EFFECT_LOOPS_CAP 100000 /* loops_needed beyond this is reported as unreachable */

enum effect_decision {
	EFFECT_NA = 0,        /* "na": no usable node */
	EFFECT_GAIN,          /* "gain" */
	EFFECT_LOSS,          /* "loss" */
	EFFECT_EQUIVALENT,    /* "equivalent" */
	EFFECT_INCONCLUSIVE,  /* "inconclusive" */
	EFFECT_HETEROGENEOUS, /* "heterogeneous": only ever a comparison's decision */
	EFFECT_COHORTS,       /* "cohorts": only ever a row's, set by cohort.c when the cohorts'
	                         effects differ; each cohort's own decision stands */
};

enum effect_node_state {
	EFFECT_NODE_USED = 0,    /* "used": in the fleet estimate */
	EFFECT_NODE_MISSING,     /* "missing": no passes in the reference or the point */
	EFFECT_NODE_FEW_PASSES,  /* "few_passes": 1 pass in one of them, no variance */
	EFFECT_NODE_NONPOSITIVE, /* "nonpositive": a mean <= 0, no ratio of means */
};

/* One node's passes of one sample (metric units, e.g. MiB/s). n = 0: the node is missing.
 * round (NULL: not recorded) holds each pass's round (> 0); a node whose two samples both carry
 * rounds is judged within rounds (blocked). */
struct effect_sample {
	const double *x;
	int n;
	const int *round;
};

struct effect_input {
	int nnodes;                        /* >= 0 */
	const struct effect_sample *ref;   /* [nnodes]: the reference's passes per node */
	const struct effect_sample *point; /* [nnodes]: the point's passes per node */
	double min_effect_pct;             /* >= 0, in % of the reference */
	bool minimize;                     /* lower is better (latency) */
	int look;                          /* this look, 1..nlooks */
	int nlooks;                        /* possible looks; 1 for a fixed number of loops */
	double extra_var; /* variation between runs (log units², >= 0) added to every node's and
	                     the fleet's variance; 0 for comparisons within one sweep */
	double extra_df;  /* its df; 0: taken as known */
};

/* Percentages are of the reference's mean: 100 (ratio - 1). Log values are natural logs of
 * the ratio of means. NAN where a figure does not exist (a node that is not used). */
struct effect_node {
	enum effect_node_state state;
	bool blocked;                    /* judged within rounds: n_ref = n_point = the rounds */
	int n_ref, n_point;              /* passes (blocked: of the rounds both points ran) */
	double mean_ref, mean_point;     /* metric units */
	double cv_ref_pct, cv_point_pct; /* sample SD / mean of the passes, %; 0 with one pass */
	double delta_pct;                /* Δ, % */
	double ci_low_pct, ci_high_pct;  /* 95 % interval of Δ, % */
	double log_ratio, se_log;        /* θ and √v, log units */
	double df;                       /* Welch–Satterthwaite df of θ (blocked: rounds - 1) */
	double sd_pair;                  /* blocked: SD of the rounds' d_r, log units; else NAN */
	enum effect_decision decision;   /* own decision at the look's α; never HETEROGENEOUS */
	double weight_pct;               /* share of the fleet estimate u / Σu, % */
	double differs_p; /* Holm-adjusted p (0..1) of "differs from the rest of the fleet" */
	bool differs;     /* differs_p <= 5 % */
	bool disagrees;   /* named by the heterogeneous decision: Q significant, differs, and its
	                     own decision is gain, loss or equivalent but not the fleet's */
};

struct effect {
	int nnodes;                /* as in the input */
	struct effect_node *nodes; /* [nnodes], owned */
	int nused;                 /* nodes with state EFFECT_NODE_USED: k */
	double alpha;              /* the look's two-sided α (0..1): EFFECT_ALPHA / nlooks */

	double delta_pct;                   /* fleet Δ, % */
	double ci95_low_pct, ci95_high_pct; /* 95 % interval, % */
	double ci90_low_pct, ci90_high_pct; /* 90 % interval, % */
	double sig_low_pct, sig_high_pct;   /* (1 - α) interval the gain/loss test used, % */
	double eq_low_pct, eq_high_pct;     /* (1 - 2α) interval the equivalence test used, % */
	double log_ratio, se_log;           /* fleet θ and its SE, log units */
	double df;                          /* Satterthwaite df of the fleet interval */
	double tau2;                        /* between-node variance of θ, log units² */
	double tau_pct;                     /* 100 τ: SD of the nodes' true effects, ≈ % */
	double i2_pct;                      /* I², % of the spread that is between nodes */
	double q;                           /* Cochran's Q */
	int q_df;                           /* k - 1 */
	double q_p;                         /* Q's p-value (0..1, chi-square); NAN with k < 2 */

	enum effect_decision fleet_decision; /* on the fleet effect alone; never HETEROGENEOUS */
	enum effect_decision decision; /* the comparison's: fleet_decision, or HETEROGENEOUS */
	int ndisagree;                 /* nodes with disagrees set */
	int *disagree;                 /* [ndisagree] their indices, increasing; owned */

	double cv_pct;    /* per-pass CV, RMS over the used nodes and both samples, % */
	double loops;     /* mean passes per sample over the used nodes */
	double mde_pct;   /* minimum detectable effect at the loops run, % */
	int loops_needed; /* loops per point for an MDE of min_effect; -1: not by more loops
	                     (a significant τ alone is too large, or min_effect is 0) */
	bool noisy;       /* mde_pct > min_effect_pct: noise larger than the effect sought */
	bool stop;        /* adaptive loops: decided (gain, loss, equivalent) or last look */
};

/*
 * One node's estimate: its state, counts, means and CVs, and, when it can be used, θ, se_log,
 * df (within rounds when both samples carry rounds, else as independent samples) and Δ. The
 * interval, decision and fleet figures are effect_compute's. The clean per-node step the fleet
 * pool consumes; the samples must be valid (effect_compute checks them).
 */
void effect_node_estimate(const struct effect_sample *ref, const struct effect_sample *point,
                          struct effect_node *nd);

/*
 * Analyse one comparison. Fills *out (release it with effect_release, also after an error).
 * Returns 0, or -EINVAL with e filled when the input is malformed (nnodes < 0, look outside
 * 1..nlooks, min_effect_pct negative or not finite, a pass that is not a finite number);
 * then *out holds no data. Missing nodes, single passes and zero variance are not errors.
 */
int effect_compute(const struct effect_input *in, struct effect *out, struct err *e);
/* Free what effect_compute allocated; accepts a zeroed or released struct. */
void effect_release(struct effect *out);

/* The interval decision d (fx's, or a cohort's) was taken on and its level, %: the (1 - 2α)
 * one for equivalent (the two one-sided tests), the (1 - α) one for every other decision
 * (95 % with one look, 100 (1 - 5 %/K) at a look of K). Returns false, with NAN figures,
 * when fx has no fleet effect. What a rendering shows beside the decision's words. */
bool effect_deciding_interval(const struct effect *fx, enum effect_decision d, double *lo_pct,
                              double *hi_pct, double *level_pct);
/* The per-look two-sided α of the stopping rule: EFFECT_ALPHA / nlooks. */
double effect_alpha(int nlooks);
/* The nodes' own effects differ in fx: Cochran's Q significant at EFFECT_ALPHA and τ above
 * 0. More loops narrow each node's interval, not that spread. */
bool effect_nodes_differ(const struct effect *fx);
/* Stable codes: "na", "gain", "loss", "equivalent", "inconclusive", "heterogeneous",
 * "cohorts". */
const char *effect_decision_name(enum effect_decision d);
/* The decision of a code effect_decision_name gives, or -1 for any other text. */
int effect_decision_parse(const char *code);
/* Stable codes: "used", "missing", "few_passes", "nonpositive". */
const char *effect_node_state_name(enum effect_node_state s);

#endif
