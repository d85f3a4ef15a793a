/* apply.h -- `fleettune-ctl apply`: a configuration, or each node its cohort's best, set
 * permanently on every node of a plan in parallel, and what each node read back. */
#ifndef FT_APPLY_H
#define FT_APPLY_H

#include <stdbool.h>

#include "buf.h"
#include "model/sweep.h"
#include "plan/config.h"
#include "plan/plan.h"

/* Set cfg on every node of p at once (10 s timeout, 2 tries) and append each node's read-back
 * to out (report_apply). Returns the exit status: 1 when a node failed. */
int apply_config(struct plan *p, const struct config *cfg, struct buf *out);

/* apply --best of a sweep whose cohorts decided differently: each node of p gets the
 * configuration of the sweep's cohort it falls into (by its identity, read from its agent now,
 * and its labels) when that cohort's decision is confirmed, or unconfirmed and unconfirmed
 * asks for it; so p may name other nodes than s's; a node of no cohort, or of one whose
 * baseline stands or whose decision is not confirmed, is left as it is and named. Appends the
 * report to out. Returns the exit status: 1 when a node failed or none was applied. */
int apply_per_cohort(const struct sweep *s, struct plan *p, bool unconfirmed, struct buf *out);

#endif
