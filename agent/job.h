/* job.h -- the benchmark job queue: one job at a time per agent, FIFO, with
 * loops, progress, cancel, params applied and restored, and crash recovery. */
#ifndef FT_JOB_H
#define FT_JOB_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "err.h"

struct agent;
struct jobq;

/* Recover jobs left running by a previous run (they become "interrupted",
 * their engine process group is killed and their params restored), then
 * start the worker thread. */
int jobq_start(struct jobq **out, struct agent *a, struct err *e);
/* Cancel the running job (it ends "interrupted"), stop the worker, free. NULL is fine. */
void jobq_stop(struct jobq *q);

/* The top-level keys a job body may have. */
extern const char *const job_spec_keys[];

/*
 * Validate a job body (keys already checked against job_spec_keys) and
 * queue it. Nothing is stored if it is refused: 400 bad_request for bad
 * fields, 403 dir_not_allowed, 409 device_refused for a raw-device job on
 * a mounted, held or non-allowlisted device, 422 for bad params or an
 * engine whose binary is missing.
 */
int job_submit(struct jobq *q, json_t *body, int64_t *id, struct err *e);
/* Drop a queued job, or stop a running one (SIGTERM, SIGKILL after 5 s,
 * params restored) and wait for it. -EBUSY "conflict" if already finished,
 * -EINPROGRESS if it did not stop in time. */
int job_cancel(struct jobq *q, int64_t id, struct err *e);
/* Live progress (0..1) of job id; *running false if it is not the running job. */
double job_progress(struct jobq *q, int64_t id, bool *running);

#endif
