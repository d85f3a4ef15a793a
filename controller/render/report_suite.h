/* report_suite.h -- a suite sweep for people (report_suite.c): the matrix (a row per
 * configuration, a column per workload; a block per cohort when the cohorts' decisions differ),
 * the guardrails' breaches and the rule's best line; its CSV block of every cell. */
#ifndef FT_REPORT_SUITE_H
#define FT_REPORT_SUITE_H

#include <stdbool.h>

#include "buf.h"
#include "model/sweep.h"

/* The matrix of s (s->suite set), its breaches and its best line naming the rule; when the
 * cohorts' suite decisions differ (report_suite_cohorts_shown), then a block per cohort: its
 * matrix (its own rows, suite.cohort_rows), its breaches and its decision last. */
void report_suite_matrix(const struct sweep *s, bool markdown, struct buf *out);
/* Whether the matrix shows a block per cohort: a suite with two cohorts or more whose suite
 * decisions differ (sweep_cohort_decisions_differ). */
bool report_suite_cohorts_shown(const struct sweep *s);
/* Every cell of the matrix as CSV (one line per configuration and workload, then one per
 * guardrail check), with its header; with two cohorts or more a third block, each cohort's
 * cells (its key first). */
void report_suite_csv(const struct sweep *s, struct buf *out);

#endif
