/* effect.h -- one comparison on a fleet: per-node effects, the random-effects fleet effect,
 * its decision, node disagreement, noise and the adaptive-loop stopping rule (pure). */
#ifndef FT_EFFECT_H
#define FT_EFFECT_H

#include <stdbool.h>

#include "err.h"

/*
 * The method, in the words the README quotes.
 *
 * Per node, within rounds (blocked). When both samples carry the round of every pass (a sweep
 * run in interleaved rounds: format 3), the node's passes are paired by round: for each round
 * r in which both points ran, d_r = ln(point_r / ref_r) (a round with more than one pass of a
 * point takes their mean). θ = mean of d_r, v = s_d² / n over the n rounds, df = n - 1, and
 * Δ = 100 (e^θ - 1), the ratio of the two points' geometric means within rounds. Whatever
 * moves a whole round (drift between rounds, a neighbour's burst) is in both figures of a pair
 * and cancels; the order inside a round is rounds.h's (a linear drift within a pair of rounds
 * cancels too). A node needs 2 rounds with both points and positive passes.
 *
 * Per node, independent samples (passes without rounds: format 1 and 2 documents, older
 * history, and compare, whose two sweeps ran at different times). Δ is the ratio of the
 * point's mean to the reference's mean, analysed on the log
 * scale: θ = ln(mean_point / mean_ref), with the delta-method variance
 * v = s_p² / (n_p m_p²) + s_r² / (n_r m_r²) (each sample's squared CV over its pass count),
 * Welch–Satterthwaite degrees of freedom df = v² / (a² / (n_p - 1) + b² / (n_r - 1)) with a
 * and b the two terms of v, and the interval θ ± t(df) √v mapped back to percent by
 * 100 (e^x - 1). A node needs 2 passes or more in both samples and positive means.
 *
 * Fleet. DerSimonian–Laird random-effects meta-analysis over the nodes: weights w = 1/v,
 * Cochran's Q = Σ w (θ - θ_fixed)² on k - 1 degrees of freedom (p-value from the chi-square
 * distribution), τ² = max(0, (Q - (k - 1)) / (Σw - Σw²/Σw)), I² = max(0, (Q - (k - 1)) / Q),
 * then weights u = 1/(v + τ²), fleet θ = Σ u θ / Σ u, SE² = 1 / Σ u. The interval is
 * θ ± t(df) SE with df from Satterthwaite's formula over the nodes' within-node parts of SE²,
 * (u/Σu)² v, each on its node's own df: τ² is plugged in, as DerSimonian–Laird's interval
 * does. With one node this is that node's own interval; with 2 nodes that agree it has about
 * 4(n - 1) df; with 200 nodes it is close to normal, and narrower than with 2.
 * Why τ²'s own uncertainty is not in the df: giving the between-node part Σ(u/Σu)² τ² its
 * k - 1 df makes a 2-node interval useless whenever τ² > 0 (t(0.95, 1) = 6.3), and DL finds
 * τ² > 0 by chance in a third of homogeneous 2-node comparisons; measured while designing
 * this, that variant called +10 % on 2 nodes at CV 2 % a gain only 94.7 % of the time (target
 * 95 %), with a 46 % wider interval. The price, shown by bench/verdicts.sh: with real spread
 * between few nodes no interval covers the fleet mean at 95 % (75 % with 2 nodes at
 * τ = 4 %, 89 % with 5 nodes at τ = 2 %; the variant reached 83 % and 91 %).
 *
 * Variation between runs (compare). A variance x (log units²) the caller estimated, with its df,
 * is added to each node's v and to the fleet's SE², undivided by the number of nodes (runs can
 * move the whole fleet at once): v' = v + x, df' = v'² / (v² / df + x² / df_x) (df_x = 0: x is
 * an assumption, taken as known).
 *
 * Decisions. Let α = 5 % / nlooks (the look's alpha, see below) and orient Δ and its
 * intervals so that positive is better (minimize negates them); m = min_effect_pct.
 *   gain:         the (1 - α) interval lies above 0 and Δ >= m   (shown beyond zero, and the
 *                 effect is at least min_effect; Δ = m within 1e-9 % counts)
 *   loss:         the (1 - α) interval lies below 0 and Δ <= -m
 *   equivalent:   the (1 - 2α) interval lies strictly inside (-m, +m): two one-sided tests
 *                 at level α each (with one look: the 90 % interval inside the band)
 *   inconclusive: none of these.
 * Each node gets its own decision from its own interval; the comparison's decision is made
 * on the fleet effect, so more nodes can only narrow it.
 *
 * Disagreement ("heterogeneous"). The comparison's decision becomes heterogeneous when
 * (1) Cochran's Q is significant at 5 % and (2) at least one node disagrees: its own
 * decision is gain, loss or equivalent and differs from the fleet's decision (when the fleet
 * is inconclusive: from another node's gain, loss or equivalent), and its effect differs
 * from the rest of the fleet after Holm's correction over the k used nodes at 5 %.
 * "Differs" compares θ_i with θ_(-i), the u-weighted mean of the other nodes:
 * d = θ_i - θ_(-i), var d = v_i + Σ_(j≠i) u_j² v_j / (Σ_(j≠i) u_j)², two-sided p from the
 * t distribution with the node's own df (5 passes estimate a variance badly).
 *
 * Noise. Per node, the CV of each sample's passes. Per comparison, the minimum detectable
 * effect at the loops run (80 % power at the look's two-sided α: (t(1 - α/2) + t(0.8)) × SE
 * with the fleet's df) and the loops per point at which that MDE falls to min_effect,
 * projecting each node's per-pass CVs and its Welch df to n loops on every node; τ² is kept
 * in the projection only when Q is significant (a chance τ² from a few passes would make
 * the advice thousands of loops), and then more loops may not suffice (loops_needed -1).
 *
 * Adaptive loops (the stopping rule). After the minimum, every node runs one more loop of
 * the point and of its reference per look, up to the maximum: K = max - min + 1 looks. At
 * every look the gain/loss test uses a two-sided α of 5 %/K (the 1 - 5 %/K interval must
 * exclude zero) and the equivalence test two one-sided tests at 5 %/K each. The loops stop at
 * the first look where the fleet decision is gain, loss or equivalent, or at the maximum.
 * Why this is valid: at any one look a false "significant" verdict has probability at most
 * 5 %/K, whatever happened at the other looks, so by the union (Bonferroni) bound the chance
 * of one at any of the K looks is at most K × 5 %/K = 5 %, with no assumption on how the
 * looks are correlated; the same bound holds for a false "equivalent". A plan with a fixed
 * number of loops has K = 1: plain 95 % and 90 % intervals.
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

/* The per-look two-sided α of the stopping rule: EFFECT_ALPHA / nlooks. */
double effect_alpha(int nlooks);
/* Stable codes: "na", "gain", "loss", "equivalent", "inconclusive", "heterogeneous". */
const char *effect_decision_name(enum effect_decision d);
/* The decision of a code effect_decision_name gives, or -1 for any other text. */
int effect_decision_parse(const char *code);
/* Stable codes: "used", "missing", "few_passes", "nonpositive". */
const char *effect_node_state_name(enum effect_node_state s);

#endif
