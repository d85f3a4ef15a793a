/* ctltest.h -- helpers shared by the controller's unit tests: a two-node sweep plan and
 * results as the runner leaves them. */
#ifndef FT_CTLTEST_H
#define FT_CTLTEST_H

#include "sweep.h"

/*
 * Init s from a plan with nodes a and b (devices sda, sdb), baseline
 * {scheduler: mq-deadline, nr_requests: 128}, axes scheduler [mq-deadline,
 * none, bfq] and nr_requests [64, 128, 256], a fio job of 3 loops of 2 s,
 * the given strategy, and extra appended to the top-level object (e.g.
 * ",\"goal\":\"minimize\""). No points yet.
 */
void ctltest_sweep(struct sweep *s, const char *strategy, const char *extra);
/* Every node of point i finished 3 passes around mean (earlier passes dropped). */
void ctltest_fill(struct sweep *s, int i, double mean);

#endif
