/* suite.h -- a suite sweep judged (judge/suite.c): each workload's series analysed as a sweep
 * of its own with every statistic of verdict.c, the cells Holm-corrected within each
 * configuration, the guardrails checked and the rule's decision taken through the
 * confirmed-decision rule. docs/method.md ("Suites") states the rules. */
#ifndef FT_JUDGE_SUITE_H
#define FT_JUDGE_SUITE_H

#include <stdbool.h>

#include "model/suite.h"
#include "model/sweep.h"

/* After verdict_sweep or verdict_point_update of s, analysis.c (the one caller of the judges)
 * builds s->suite (NULL and cleared when the plan has no workloads): a sweep per series, not
 * yet judged; it judges each (suite.wl[], suite.mean) with verdict_sweep, then suite_finish
 * fills the cells, checks and rows and makes the suite's decision the sweep's (s->decision
 * and the outcome); with two cohorts or more each cohort's rows are judged again as the
 * cohort sees each workload (suite.cohort_rows) and its suite decision is s->cohorts[c]'s.
 * Idempotent. */
struct suite *suite_build(struct sweep *s);
void suite_finish(struct sweep *s);

/* The pure rules, exposed for tests (hand-computed examples) and the benchmark. */

/* Two-sided p of θ = 0 from θ, its SE and df (t; df <= 0 or not finite: normal). */
double suite_p_value(double theta, double se, double df);
/* Holm within a configuration: cells [n] (present ones only) get p_holm from p, and their
 * verdict is raw, or inconclusive where raw is a gain or a loss whose p_holm exceeds alpha. */
void suite_cells_holm(struct suite_cell *cells, int n, double alpha, bool correct);
/* A guardrail check from the metric's fleet effect at the point: its loss and the upper end
 * of the loss's (1 - 2 alpha) interval (eq interval), breached when beyond max_loss_pct. */
void suite_check_fill(struct suite_check *c, const struct effect *fx, bool minimize,
                      double max_loss_pct);
/* A row's verdict under rule from its cells (oriented by each workload's goal in minimize[]),
 * its mean cell and its number of breaches; fills score and counts. */
void suite_row_decide(struct suite_row *r, int nworkloads, const bool *minimize,
                      enum plan_rule rule, int primary);
/* Cell k's Holm-adjusted p at its worst over what the series still looking may do: cells [n]
 * (present ones with a finite p count), stopped[j] whether series j's effect stopped (its p
 * taken as it is); every other series at p = 1. NAN when cell k does not count. An upper
 * bound that is reached: Holm's adjusted p of k never exceeds it, whatever those p become. */
double suite_cell_holm_worst(const struct suite_cell *cells, int n, const bool *stopped, int k);
/* Whether decided row r's outcome under rule is settled (suite_row.settled): stopped[w] says
 * workload w's effect stopped (decided or its last look), mean_stopped the mean's;
 * shown_breach, a guardrail's loss shown beyond its limit; checks_settled, every guardrail's
 * series stopped or a breach shown. Under no_loss a decided loss settles the row only when
 * its worst Holm-adjusted p (suite_cell_holm_worst) is within alpha, so that no move of the
 * other workloads' p-values can take the corrected loss back. */
bool suite_row_settled(const struct suite_row *r, int nworkloads, const bool *stopped,
                       bool mean_stopped, bool shown_breach, bool checks_settled,
                       enum plan_rule rule, int primary, double alpha);

#endif
