/* report_suite.h -- a suite sweep for people (report_suite.c): the matrix (a row per
 * configuration, a column per workload), the guardrails' breaches and the rule's best line;
 * its CSV block of every cell. */
#ifndef FT_REPORT_SUITE_H
#define FT_REPORT_SUITE_H

#include <stdbool.h>

#include "buf.h"
#include "model/sweep.h"

/* The matrix of s (s->suite set), its breaches and its best line naming the rule. */
void report_suite_matrix(const struct sweep *s, bool markdown, struct buf *out);
/* Every cell of the matrix as CSV (one line per configuration and workload, then one per
 * guardrail check), with its header. */
void report_suite_csv(const struct sweep *s, struct buf *out);

#endif
