/* jobrec.h -- a job as the agent records it: its row, its passes, the parameter values read
 * before loop 1. The store fills them (store_job.c), wire encodes them (wire_job.c), the job
 * layer completes progress and version; below both store and wire, so neither looks up. */
#ifndef FT_JOBREC_H
#define FT_JOBREC_H

#include <stdbool.h>
#include <stdint.h>

#include "engines/engine.h"
#include "job/jobspec.h"

/* A recorded parameter value: number says it was an integer. Owned strings. */
struct store_value {
	char *name;
	char *value;
	bool number;
};

struct job_rec {
	int64_t id;
	char state[16];
	char device[64]; /* also in spec; the columns, readable even if the spec is not */
	char engine[16];
	int loops;
	struct job_spec spec; /* decoded from the spec column */
	bool spec_ok;         /* false: the column could not be decoded; spec holds the columns */
	struct store_value *params; /* every parameter of the device read just before loop 1 */
	int n_params;
	bool has_params;
	char *identity; /* what the device and host were at loop 1 (JSON: {device, host}), or NULL
	                 */
	int loops_done;
	int64_t pgid; /* 0 if none */
	char error_code[40];
	char error_message[256];
	int has_error;
	double created_at, started_at, finished_at; /* 0 = not yet */
	double progress;  /* 0..1, filled by the job layer (job_get, job_list) */
	uint64_t version; /* filled by the job layer: job_version() of this record */
	/* Filled by the job layer from the spec (job_deadlines; 0: the spec is unreadable): the
	 * most one pass may run before it is stopped, and the whole run once started. */
	double pass_deadline_s, run_deadline_s;
	char params_changed[256]; /* what changed the device's params under the job mid-run */
	int has_params_changed;
	char *applied; /* owned JSON text: what applying the job's params did, per item as a PATCH
	                  answers it (wire_tune_applied_encode); NULL: no params (or not yet) */
	char *filesystem; /* owned JSON text: what mkfs and mount made (wire_fs_made_encode);
	                     NULL: no filesystem (yet) */
	double begun_at;  /* when its first pass began (after a hold for spec.start_at); 0: not yet
	                   */
	double held_s;    /* how long it held for spec.start_at before that (0: it did not) */
};

/* One workload's metrics in a pass of a job with workloads. */
struct pass_workload {
	char name[FIO_WORKLOAD_NAME_MAX + 1];
	struct metrics metrics;
};

struct pass_rec {
	int loop;
	double started_at, finished_at;
	struct metrics metrics; /* with workloads: the first workload's */
	struct pass_workload
	        *workloads; /* owned: the job's workloads in its order; NULL, 0: none */
	int n_workloads;
};

#endif
