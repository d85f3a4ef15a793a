/* job.h -- the benchmark job queue: a worker per device (jobs on different devices run at
 * the same moment, jobs on one device one at a time, FIFO), with loops, progress, cancel,
 * params applied and restored, and crash recovery. */
#ifndef FT_JOB_H
#define FT_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device/sysfs.h"
#include "device/tune.h"
#include "engines/engine.h"
#include "err.h"
#include "job/jobspec.h"
#include "protocol.h"
#include "queue/job_run.h"
#include "store/store.h"
#include "store/store_metrics.h"

struct jobq;

#define JOBQ_DEFAULT_MAX_QUEUED 256

/* Recover jobs left running by a previous run (they become "interrupted",
 * their engine process group is killed and their params restored), take up
 * the queued ones, then start a worker per device that has jobs queued (a device's worker is
 * started by its first job). env is copied. */
int jobq_start(struct jobq **out, const struct jobq_env *env, struct err *e);
/* Stop every device's running job (each ends "interrupted", its params restored) and the
 * workers, free. NULL is fine. */
void jobq_stop(struct jobq *q);

/*
 * Everything a submit checks, with nothing queued or stored: the device
 * exists, every engine object's rules, the allowlist, the directory (under
 * an --allow-dir; spec->directory becomes its resolved path), the raw-device
 * safety check, the params as a PATCH would validate them, the engine's
 * binary, and the argv. Errors: 400 bad_request for bad fields, 403
 * device_not_allowed for a device not in --allow-device (as every route), 403
 * dir_not_allowed, 409 device_refused for a raw-device job on a mounted or
 * held device, 409 session_required for params_restore false without a session,
 * 422 for bad params or an engine whose binary is missing (the code says which).
 *
 * A job with a filesystem is also checked for: no directory with it (400), the device allowed
 * by --allow-format (403 format_not_allowed), not in use (409 device_refused), the mkfs and
 * mount options in their tables and the mount options accepted by the kernel's parser (422
 * invalid_fs_option), mkfs and the info tool installed (422 engine_unavailable), and mkfs's
 * dry run (mkfs.xfs -N, mkfs.ext4 -n; 422 invalid_fs_option when it refuses). Nothing is
 * made or written. would (NULL: not wanted) gets what mkfs's dry run says it would make (for
 * ?dry_run=true).
 */
struct jobfs_made;
int job_check(struct jobq *q, struct job_spec *spec, struct jobfs_made *would, struct err *e);
/* job_check() with what a queue would be given, without a queue (job_check.c): with held (the
 * running job has its filesystem on the device) the device is not opened: the checks of a
 * filesystem are left to the job's start, and a raw-device job is refused; would (not NULL)
 * gets what mkfs's dry run says it would make. */
int job_spec_dry_run(const struct jobq_env *env, struct job_spec *spec, bool held,
                     struct jobfs_made *would, struct err *e);
/* The metrics every pass of spec reports (the engine's list for its options). */
void job_metrics(const struct job_spec *spec, struct metric_names *out);
/* loops x the engine's expected seconds per pass; 0 if the engine cannot tell. */
double job_expected_runtime_s(const struct job_spec *spec);
/* job_check(), then store and queue the job. On success the queue owns what spec held
 * (spec is left empty); on failure nothing is stored and spec is unchanged. -EAGAIN
 * "queue_full" (429) when max_queued jobs wait already; a job with params that cannot be
 * stored is 503 "audit_unavailable". */
int job_submit(struct jobq *q, struct job_spec *spec, int64_t *id, struct err *e);
/* Drop a queued job, or stop a running one (SIGTERM, SIGKILL after 5 s,
 * params restored) and wait for it. -EBUSY "conflict" if already finished,
 * -EINPROGRESS if it did not stop in time. */
int job_cancel(struct jobq *q, int64_t id, struct err *e);
/*
 * A request wrote params on device (items[0..n), as tune_apply left them; origin names who):
 * a job running there is marked params_changed (its passes from now on are not kept) and the
 * names that changed leave its restore point, so the job's end does not put back values older
 * than the write (a scheduler switch resets nr_requests and the iosched attributes: the whole
 * restore point goes). Nothing happens when no job runs on device or no value changed.
 */
void job_params_written(struct jobq *q, const char *device, const struct tune_item *items, int n,
                        const char *origin);

/*
 * A job's version, for long-polls: it changes when the state, loops_done (a new pass) or the
 * progress step (a tenth of the whole job, JOB_PROGRESS_STEPS) changes, and only then. It is
 * computed from those, not counted, so it needs no memory across restarts: a job a restart
 * interrupted has a new version (its state), a finished job keeps its version for ever. It
 * never decreases while a job runs (progress only grows).
 */
#define JOB_PROGRESS_STEPS 10
uint64_t job_version(enum job_state state, int loops_done, double progress);
/* Whether a long-poll that has version after must be answered now. */
bool job_changed_since(uint64_t version, uint64_t after);
/*
 * Call fn(cls, id, ended) whenever job id's version changes (fn NULL: stop); ended is true
 * when the change is the job's end (a final state), once per job. fn runs on the worker thread
 * (or a cancelling request's) with the queue's lock held: it must be quick and must not call
 * into the queue. Once jobq_watch(q, NULL, NULL) returns, fn is not running and will not run
 * again.
 */
void jobq_watch(struct jobq *q, void (*fn)(void *cls, int64_t id, bool ended), void *cls);
/*
 * The key a long-poll on job id is held under (httpd.h's wait_key): until_end, one that only
 * the job's end wakes (a progress step does not run it again); else one every version change
 * wakes.
 */
uint64_t job_wait_key(int64_t id, bool until_end);

/* ---- reads, with rec->progress and rec->version filled (live for the running job) ---- */

int job_get(struct jobq *q, int64_t id, struct job_rec *out, struct err *e);
/* Newest first; state may be NULL. Caller frees with store_jobs_free. */
int job_list(struct jobq *q, const char *state, int limit, bool with_params, struct job_rec **out,
             int *n, struct err *e);
/* Finished jobs matching f, newest first. Caller frees with store_jobs_free. */
int job_results(struct jobq *q, const struct result_filter *f, struct job_rec **out, int *n,
                struct err *e);
/* A job's passes in loop order. Caller frees *out. */
int job_passes(struct jobq *q, int64_t id, struct pass_rec **out, int *n, struct err *e);
/* The raw output of one pass. Caller frees *raw. */
int job_raw(struct jobq *q, int64_t id, int loop, char **raw, size_t *len, struct err *e);
/* What one device's worker is doing, for /metrics: the job it runs (0: none) and how many of
 * the device's jobs wait. */
struct jobq_lane_info {
	char device[SYSFS_NAME_MAX];
	int64_t running_id;
	int queued;
};
/* Every device that has had a job since the agent started, by name. Caller frees *out. */
void jobq_lanes(struct jobq *q, struct jobq_lane_info **out, int *n);
/* Jobs per state (counts[i] for job_state_names[i], JOB_N_STATES of them), for /metrics. */
int job_state_counts(struct jobq *q, int64_t *counts);
/* Per device, the mean of every metric of its newest finished job, for /metrics. Caller frees
 * *out. */
int job_last_metrics(struct jobq *q, struct store_job_metric **out, int *n, struct err *e);

#endif
