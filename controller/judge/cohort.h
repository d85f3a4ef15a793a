/* cohort.h -- a fleet's nodes grouped by what they are (plan.cohort_by over each node's
 * identity and labels), every comparison judged again within each cohort, and the
 * between-cohort heterogeneity test that decides when a row is reported per cohort (pure). */
#ifndef FT_COHORT_H
#define FT_COHORT_H

#include <stdbool.h>

#include "model/sweep.h"
#include "stats/effect.h"

/*
 * Nodes with the same cohort_by values (identity fields their agents reported at pre-flight,
 * node labels; an absent value is a value of its own) form a cohort, in the order of their
 * first node. With two cohorts or more, every row is judged again within each cohort by
 * effect.c's rules, the cohorts' pooled effects are compared by Q_between (each cohort's SE
 * from its own pool, chi-square on C - 1 df), and a row splits (decision "cohorts") when that
 * is significant at 5 % and two cohorts' pooled decisions (gain, loss, equivalent) differ.
 * docs/method.md ("Cohorts") states the rule in full and why; verdict.c chooses each cohort's
 * best from it.
 */

/* Group s's nodes into s->cohorts by s->plan.cohort_by (s->identity and the nodes' labels),
 * replacing any earlier grouping; s->cohort_of[k] is node k's cohort. */
void cohort_assign(struct sweep *s);

/* The between-cohort test over n cohort estimates: theta[c] (log ratio) and var[c] (its
 * SE²; one that is not finite or negative is left out, 0 counts as an exact estimate). */
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
