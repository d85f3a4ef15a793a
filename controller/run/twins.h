/* twins.h -- whether a sweep's nodes are twins: every writable parameter the plan does not set
 * holds the same value on every node of a cohort (the seeds' method compares identical nodes). */
#ifndef FT_TWINS_H
#define FT_TWINS_H

#include "buf.h"
#include "fleet/fleet.h"
#include "plan/plan.h"

/*
 * A sweep compares nodes that should differ only in what it sets. Loop devices keep their
 * settings across detach, and a fleet drifts: two nodes may arrive with rq_affinity 1 and 2
 * while the sweep sets something else, and the sweep then reads the difference as a node
 * offset. So pre-flight compares, within each cohort (cohort_of[k], NULL: one cohort), the
 * parameters every node of the cohort reports as writable (info[k].params, read with
 * with_params) that the plan does not set (its baseline and axes), that do not move with one it
 * sets (twins_moves_with) and that it does not allow to differ (plan_difference_allowed). Per
 * parameter the value most nodes of the cohort hold (ties: the earlier node's) is the reference.
 */

/* Append one line per node that differs, "n2: rq_affinity 2, n1: 1; iosched.fifo_batch 32,
 * n1: 16", then one line with the fix: the reference values to put in the plan's baseline, or
 * the names for allow_differences / --allow-differences. Nodes whose probe failed (info[k].ok
 * false) or that report no parameters are left out. Returns the number of differing nodes. */
int twins_check(const struct plan *p, const struct node_info *info, const int *cohort_of,
                struct buf *out);

/* The parameter that name moves with, which sets it when the plan sets that one: setra with
 * read_ahead_kb (and back), iosched.async_depth with nr_requests; NULL for none. */
const char *twins_moves_with(const char *name);

#endif
