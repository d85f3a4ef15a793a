/* job.h -- the benchmark job queue: one job at a time per agent, FIFO, with
 * loops, progress, cancel, params applied and restored, and crash recovery. */
#ifndef FT_JOB_H
#define FT_JOB_H

#include "err.h"

struct agent;
struct jobq;

/* Recover jobs left running by a previous run (they become "interrupted",
 * their engine process group is killed and their params restored), then
 * start the worker thread. */
int jobq_start(struct jobq **out, struct agent *a, struct err *e);
/* Cancel the running job, stop the worker, free. NULL is fine. */
void jobq_stop(struct jobq *q);

#endif
