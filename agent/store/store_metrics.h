/* store_metrics.h -- aggregate queries over the agent's database for GET /metrics. */
#ifndef FT_STORE_METRICS_H
#define FT_STORE_METRICS_H

#include <stdint.h>

#include "err.h"
#include "store/store.h"

/* One row of a GROUP BY count. */
struct store_count {
	char key[32];
	int64_t n;
};

/*
 * Parameter writes in the audit log per outcome (ok, adjusted, rejected,
 * rolled_back, restored, error), sorted by outcome. Caller frees *out.
 */
int store_change_outcome_counts(struct store *s, struct store_count **out, int *n, struct err *e);

/* One metric of the newest finished job (with at least one pass) of a device. */
struct store_job_metric {
	char device[64];
	char engine[16];
	int64_t job_id;
	double finished_at; /* epoch seconds */
	char metric[64];    /* "write.bw_mib" */
	double mean;        /* over the job's passes */
};

/*
 * Per device, the mean of every numeric metric over the passes of that
 * device's most recently finished job, sorted by device then metric.
 * Caller frees *out.
 */
int store_last_job_metrics(struct store *s, struct store_job_metric **out, int *n, struct err *e);

#endif
