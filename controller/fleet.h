/* fleet.h -- the agent API on every node at once: probe, pre-flight, PATCH, sessions, jobs. */
#ifndef FT_FLEET_H
#define FT_FLEET_H

#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "client.h"
#include "err.h"
#include "plan.h"

/* One parameter as a node's agent describes it (GET .../params). */
struct param_info {
	char name[PARAM_NAME_MAX];
	char value[PARAM_VALUE_MAX];
	bool is_int;
	bool writable;
	int nchoices;
	char choices[24][32];
	bool has_min, has_max;
	int64_t min, max;
};

/* What a probe learnt about one node. */
struct node_info {
	bool ok;         /* health answered */
	char error[256]; /* why not ok, or why the device is unusable */
	char version[32];
	char node[64]; /* the agent's node name */
	double uptime_s;
	bool dev_found;
	bool dev_writable;
	int64_t dev_size_bytes;
	int nparams;
	struct param_info *params;
};

/* The state of one agent job (GET /api/v1/jobs/{id}). */
struct job_status {
	bool terminal; /* succeeded, failed, cancelled, interrupted */
	bool succeeded;
	char state[16];
	double progress; /* 0..1 */
	int loops_done;
	int npasses;
	double passes[PLAN_LOOPS_MAX]; /* the plan metric per finished pass */
	double runtime_s;              /* finished_at - started_at, 0 when unknown */
	char error[256];
};

struct fleet {
	const struct plan *plan;
	struct client *client;
	bool *active;        /* per node: still part of the sweep */
	int64_t *session_id; /* per node: open tuning session, 0 when none */
	double session_ttl_s;
};

/* Borrow plan (tokens loaded). timeout_s per request; retries after transport errors. */
void fleet_init(struct fleet *f, const struct plan *plan, double timeout_s, int retries);
void fleet_release(struct fleet *f);

/* GET health, devices and the device's params on every active node, concurrently. */
void fleet_probe(struct fleet *f, struct node_info *info);
void node_info_release(struct node_info *info, int n);
/*
 * Check probe results against the plan: health, device present and writable,
 * every baseline and axis value among the node's choices and within min/max.
 * Every problem is appended to problems (one line each). Returns 0 or -EINVAL.
 */
int fleet_preflight_check(const struct plan *plan, const struct node_info *info,
                          struct buf *problems);

/* Outcome of a fan-out, per node. */
struct fleet_result {
	bool failed;      /* transport failure or error status */
	bool unreachable; /* no HTTP answer at all */
	char error[256];
};

/*
 * PATCH cfg onto every active node. applied[i] receives the read-back
 * values and adjusted[i] the bit mask of adjusted entries (index into
 * applied[i]). A rejected PATCH is rolled back by the agent.
 */
void fleet_params_apply(struct fleet *f, const struct config *cfg, struct config *applied,
                        unsigned *adjusted, struct fleet_result *res);
/* Open a tuning session per active node (ttl_s). */
void fleet_sessions_open(struct fleet *f, double ttl_s, struct fleet_result *res);
void fleet_sessions_renew(struct fleet *f, struct fleet_result *res);
/* Close every open session (active or not), restoring the snapshot when restore. */
void fleet_sessions_close(struct fleet *f, bool restore, struct fleet_result *res);
/* Start the plan's job on every node where run[i], labelled with the plan's labels plus
 * sweep=SWEEP_ID and sweep_point=POINT; job_id[i] receives the agent's id. */
void fleet_jobs_start(struct fleet *f, const bool *run, int64_t sweep_id, int point,
                      int64_t *job_id, struct fleet_result *res);
/* Poll every job_id[i] != 0 whose status is not terminal. */
void fleet_jobs_poll(struct fleet *f, const int64_t *job_id, struct job_status *st,
                     struct fleet_result *res);
/* Cancel every job_id[i] != 0. */
void fleet_jobs_cancel(struct fleet *f, const int64_t *job_id, struct fleet_result *res);

/* Parse a JSON object of parameters ({"nr_requests":128,"scheduler":"none"}) into cfg. */
int config_parse_json(const char *text, struct config *cfg, struct err *e);
/* Serialise cfg as a JSON object (integers as numbers). Caller has ownership. */
char *config_to_json(const struct config *cfg);

#endif
