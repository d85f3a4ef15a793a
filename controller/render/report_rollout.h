/* report_rollout.h -- rollouts and verify in words: the progress lines of a rollout, `show rID`,
 * the rollouts in `history`, and `verify`'s lines per node. Renderers append to out. */
#ifndef FT_REPORT_ROLLOUT_H
#define FT_REPORT_ROLLOUT_H

#include <stdbool.h>

#include "buf.h"
#include "model/rollout.h"
#include "run/rollrun.h"
#include "run/verify.h"
#include "store/ctlstore.h"

/* One line for a rollout's event (rollrun's callback): its start, a wave done, a round of a
 * measurement, a put-back. */
void report_rollout_event(const struct rollout *r, enum rollrun_event ev, int wave, int round,
                          int rounds, struct buf *out);
/* `show rID` and the end of `rollout`: what it puts where, each wave and its check, the nodes
 * that are not new (all_nodes: every node), the outcome and what to do next. */
void report_rollout_show(const struct rollout *r, bool all_nodes, struct buf *out);
/* The rollouts part of `history`: one line per rollout, newest first. */
void report_rollouts_history(const struct ctlstore_rollout_summary *h, int n, struct buf *out);
/* `verify`: one line per node, and a last line with the count. */
void report_verify(const struct plan *p, const char *profile, const struct verify_node *res,
                   int bad, struct buf *out);

#endif
