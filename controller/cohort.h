/* cohort.h -- a fleet's nodes grouped by what they are (plan.cohort_by over each node's
 * identity and labels), every comparison judged again within each cohort, and the
 * between-cohort heterogeneity test that decides when a row is reported per cohort (pure). */
#ifndef FT_COHORT_H
#define FT_COHORT_H

#include <stdbool.h>

#include "effect.h"
#include "sweep.h"

/*
 * The rule, in the words the README quotes.
 *
 * Cohorts. A node's cohort_by values are the identity fields its agent reported at
 * pre-flight (model, firmware, kernel, ...) and its labels (nodes[].labels); a value the
 * agent did not report is a value of its own (shown "(none)"). The nodes with the same values
 * form a cohort, in the order of their first node in the plan. With one cohort (every loop
 * device, a fleet of one model, cohort_by []) nothing below applies and the rows read as
 * without cohorts.
 *
 * Within a cohort. Every row is judged again over the cohort's nodes alone, by effect.c's
 * rules unchanged: the per-node estimate, the DerSimonian–Laird pool, the decisions at the
 * row's look, and the nodes that disagree within the cohort, named.
 *
 * Between cohorts. Over the C cohorts with a fleet effect (θ_c, SE_c² from their own pools):
 * Q_b = Σ w_c (θ_c − θ̄)², w_c = 1 / SE_c², θ̄ = Σ w_c θ_c / Σ w_c, on C − 1 degrees of
 * freedom (chi-square p-value): the subgroup test of a random-effects meta-analysis in which
 * each cohort keeps its own τ².
 *
 * Split. A row is reported per cohort when Q_b's p is at most 5 % and two cohorts' decisions
 * on their pooled effects are gain, loss or equivalent and differ (a cohort whose own nodes
 * disagree counts with the decision of its pool). As for disagreeing nodes, the second
 * condition is what keeps per-node variances estimated from a few passes (which inflate Q)
 * from splitting rows whose cohorts agree; cohorts that differ only in how large the same
 * decision is stay one row (Q_b and each cohort's figures are in the JSON). A split row's
 * decision is "cohorts" (EFFECT_COHORTS) and each cohort's own decision and interval stand
 * for its nodes; an unsplit row's is the fleet's, as without cohorts.
 *
 * Best per cohort (verdict.c, through sweep_cohort_decision): each cohort's best is chosen as the
 * sweep's is, with the cohort's own decision and Δ on split rows and the fleet's on the others, so
 * when no row is split every cohort's best is the sweep's.
 */

/* Group s's nodes into s->cohorts by s->plan.cohort_by (s->identity and the nodes' labels),
 * replacing any earlier grouping; s->cohort_of[k] is node k's cohort. */
void cohort_assign(struct sweep *s);

/* The between-cohort test over n cohort estimates: theta[c] (log ratio) and var[c] (its
 * SE², > 0; a cohort with a variance that is not positive and finite is left out). */
void cohort_between(int n, const double *theta, const double *var, struct cohort_test *out);

/*
 * Judge point i of s within each of its cohorts (s->ncohorts >= 2, cohorts assigned) from
 * the node samples sr[k], sp[k] of its comparison (as verdict.c builds them for the row) at
 * look of nlooks; fill point.cohort_fx, point.between, and set point.verdict to
 * EFFECT_COHORTS when the row splits. A point without a reference is left alone.
 */
void cohort_point_judge(struct sweep *s, int i, const struct effect_sample *sr,
                        const struct effect_sample *sp, int look, int nlooks);

/* The cohort of s (grouped) that a node with identity id and plan node pn's labels falls
 * into: the one whose cohort_by values are the node's; -1 when none is (apply --best on nodes
 * the sweep did not run). */
int cohort_find(const struct sweep *s, const struct plan_node *pn, const struct node_identity *id);

#endif
