/* fleet.h -- the agent API on every node at once: the controller's wire layer. */
#ifndef FT_FLEET_H
#define FT_FLEET_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "fleet/client.h"
#include "plan/plan.h"
#include "protocol.h"

/*
 * Every request body and every response of the agent API is built and read
 * here, and nowhere else in the controller. Each call fans one request out
 * to every active node through the client's multi handle and returns one
 * result per node (arrays indexed like plan->nodes). Nothing here decides:
 * callers judge the parsed answers.
 */

/* One parameter as a node's agent describes it (GET .../params). */
struct param_info {
	char name[PARAM_NAME_MAX];
	char value[PARAM_VALUE_MAX];
	bool writable;
};

/* What a probe learnt about one node. */
struct node_info {
	bool ok;        /* health answered */
	struct err err; /* why not ok, or why the device list could not be read (req_error's
	                   code: the agent's, or ERR_UNREACHABLE and the like) */
	char version[32];
	char node[64]; /* the agent's node name */
	double uptime_s;
	bool dry_run;     /* "dry_run" is among the health answer's features */
	bool workloads;   /* "workloads": a fio job may carry workloads (a suite) */
	bool long_poll;   /* so is "long_poll": GET /api/v1/jobs/{id} takes wait_s and after */
	bool profiles;    /* so is "profiles": the agent keeps profiles (/api/v1/profiles) */
	bool job_applied; /* so is "job_applied": a job with params records what they did */
	bool start_at;    /* so is "start_at": a job may carry the moment its first pass starts */
	bool until_end;   /* so is "until_end": GET /api/v1/jobs/{id} takes until=end */
	/* The agent's clock against the controller's, from health's time_s and the request's
	 * round trip (client_req.answered_after/_before): clock_offset_s is the agent's clock
	 * less the controller's at the window's middle, within +- clock_uncertain_s.
	 * clock_known false: health had no time_s, or the answer no timing. */
	bool clock_known;
	double clock_offset_s, clock_uncertain_s;
	bool pass_deadline; /* so is "pass_deadline": the agent ends a pass past its deadline and
	                       its jobs say how long a run may take (run_deadline_s) */
	bool device_lanes;  /* so is "device_lanes": jobs on different devices run at the same
	                       moment (a node of several devices needs it) */
	bool fio_file;      /* so is "fio_file": a fio job may be given as a job file's text */
	bool devices_read;  /* the device list answered; else error says why (and dev_found is
	                       not known: "cannot read the device list", never "not found") */
	bool dev_found;
	bool dev_writable;
	int64_t dev_size_bytes;
	int nparams; /* with_params only */
	struct param_info *params;
	/* What the device and its host are (GET /api/v1/devices: the device's "identity" and
	 * the answer's "host"), one text per identity field (IDF_*: a boolean "true"/"false", a
	 * number in decimal), NULL when not reported (an older agent reports none). Owned. */
	char *identity[IDF_N];
};

/* The state of one agent job (GET /api/v1/jobs/{id}). */
struct job_status {
	bool terminal; /* succeeded, failed, cancelled, interrupted */
	bool succeeded;
	char state[16];
	double progress; /* 0..1 */
	int loops_done;
	int npasses;
	double passes[PLAN_LOOPS_MAX]; /* the plan metric per finished pass of this job */
	int nseries;                   /* a suite's job: plan_series_build's series, else 0 */
	double *series;  /* [npasses][nseries] every series of each pass (a suite's; NULL else),
	                    grown with the passes the job has: owned, fleet_node_runs_release */
	size_t series_n; /* private: doubles allocated in series */
	double started_at, finished_at; /* the agent's clock, epoch s; 0 when unknown */
	double begun_at;       /* when its first pass began (the agent's clock); 0 when unknown */
	double held_s;         /* how long it held for its start_at before that (0: it did not) */
	double start_late_s;   /* begun_at less its start_at; 0 without one */
	struct err err;        /* the job's own error ("CODE: message", its code parsed), or why
	                          a job that succeeded cannot be judged (ERR_BAD_ANSWER) */
	int64_t version;       /* the agent's version of the job (long-poll agents), 0 when none */
	double run_deadline_s; /* the most the run may take once running (pass_deadline agents);
	                          0 when not given */
	char mkfs[512];        /* the job's filesystem.mkfs: the command its agent ran, "" none */
};

/* Outcome of a fan-out, per node. */
struct fleet_result {
	bool failed;      /* transport failure or error status; then err is set */
	bool unreachable; /* no HTTP answer at all */
	bool auth;        /* the agent refused the token (401, 403) */
	struct err err;   /* the agent's code and "HTTP 422: the agent's message", or a code of the
	                     answer (ERR_UNREACHABLE, ERR_HTTP_STATUS, ERR_ANSWER_*) and its text */
};

/* An agent's answer to a dry run (validation with nothing changed). */
struct fleet_dry_run {
	bool failed;      /* refused, or no answer */
	bool unreachable; /* no HTTP answer at all */
	long status;      /* HTTP status, 0 without an answer */
	struct err err;   /* failed: the agent's code and error.message, else the transport's */
	bool confirmed;   /* a 2xx answer carried "dry_run":true */
	/* The job dry run only: every metric a pass of the job reports, and its duration. */
	int nmetrics;
	char (*metrics)[PARAM_NAME_MAX]; /* heap; fleet_dry_run_release() */
	double expected_runtime_s;       /* 0 when not given */
};

struct fleet_jobs;  /* the job request bodies, built once (fleet.c) */
struct fleet_waits; /* the job waits in flight (fleet.c) */

struct fleet {
	const struct plan *plan;
	struct client *client;
	bool *active;        /* per node: still part of the sweep */
	int64_t *session_id; /* per node: open tuning session, 0 when none */
	double session_ttl_s;
	struct fleet_jobs *jobs;
	bool *long_poll;            /* per node: its agent long-polls (set by fleet_probe) */
	bool *job_applied;          /* per node: its jobs record their params' read-back (probe) */
	bool *pass_deadline;        /* per node: its jobs carry run_deadline_s (probe) */
	bool params_in_job;         /* fleet_point_start puts device values in the job where
	                               job_applied (the caller's choice; false: PATCH first) */
	bool *start_at;             /* per node: its jobs take start_at (set by fleet_probe) */
	bool *until_end;            /* per node: its long-polls take until=end (fleet_probe) */
	int progress_s;             /* fleet_jobs_wait: a long-poll answers at least this often
	                               with the job's progress, for a person watching (0: it
	                               answers at the job's end only, where the agent can) */
	struct client *wait_client; /* fleet_jobs_wait's own multi handle */
	double timeout_s;           /* of a request; a long-poll gets JOB_WAIT_ASK_S more */
	struct fleet_waits *waits;
};

/* Borrow plan (tokens loaded). timeout_s per request; retries after transport errors.
 * Builds the job request bodies once. */
void fleet_init(struct fleet *f, const struct plan *plan, double timeout_s, int retries);
void fleet_release(struct fleet *f);
/* Send f's requests through t instead of HTTP (client_transport_set; NULL: HTTP). */
void fleet_transport_set(struct fleet *f, const struct client_transport *t);

/* GET health and devices (and with_params, the device's params) on every active node. */
void fleet_probe(struct fleet *f, bool with_params, struct node_info *info);
/* GET health again on every active node where ask[i], alone (no other request of the fleet
 * in flight), and keep in info[i] the clock offset of the narrower round trip: how a
 * pre-flight bounds a clock the fan-out's load left uncertain. */
void fleet_clock_probe(struct fleet *f, const bool *ask, struct node_info *info);
void node_info_release(struct node_info *info, int n);

/* PATCH .../params?dry_run=true with cfg (less its fs.* values; with only those, nothing is
 * sent and every answer is a confirmed dry run) on every node where ask[i]: the agent validates
 * cfg as one real PATCH (against the scheduler cfg switches to) and writes nothing. Never
 * call it for a node whose health lacks the dry_run feature: an older agent ignores the
 * query and writes. */
void fleet_params_dry_run(struct fleet *f, const bool *ask, const struct config *cfg,
                          struct fleet_dry_run *out);
/* POST /jobs?dry_run=true with the exact body the sweep posts for configuration cfg (its
 * filesystem: the agent dry-runs mkfs and judges the mount options; NULL: the baseline's),
 * sweep and point labels "0", the plan's loops, on every node where ask[i]; the same rule as
 * above. */
void fleet_job_dry_run(struct fleet *f, const bool *ask, const struct config *cfg,
                       struct fleet_dry_run *out);
void fleet_dry_run_release(struct fleet_dry_run *d, int n);

/*
 * PATCH cfg (less its fs.* values: a filesystem is made by jobs) onto every active node.
 * applied[i] receives the read-back
 * values and adjusted[i] the bit mask of adjusted entries (index into
 * applied[i]). A rejected PATCH is rolled back by the agent.
 */
void fleet_params_apply(struct fleet *f, const struct config *cfg, struct config *applied,
                        unsigned *adjusted, struct fleet_result *res);
/* The same with a configuration per node: cfgs[i] onto node i, nothing where it is NULL
 * (that node's res[i] is cleared and its applied[i] empty). */
void fleet_params_apply_each(struct fleet *f, const struct config *const *cfgs,
                             struct config *applied, unsigned *adjusted, struct fleet_result *res);
/* Open a tuning session per active node (ttl_s). */
void fleet_sessions_open(struct fleet *f, double ttl_s, struct fleet_result *res);
void fleet_sessions_renew(struct fleet *f, struct fleet_result *res);
/* Close every open session (active or not), restoring the snapshot when restore. */
void fleet_sessions_close(struct fleet *f, bool restore, struct fleet_result *res);
/* One node's part in a run of a point, in and out: a sweep keeps one per node for all its runs
 * (an array indexed like plan->nodes, allocated once); fleet_point_start starts a run on it
 * and fleet_jobs_wait follows the run's job. */
struct fleet_node_run {
	/* fleet_point_start: */
	bool run;                     /* in: start the point on this node (active nodes only) */
	double start_at;              /* in: the moment its job's first pass starts, epoch s by its
	                                 agent's clock (f->start_at[i] nodes only); 0: at once */
	const struct config *cfg;     /* in: this node's configuration; NULL: the point's */
	const struct config *run_cfg; /* out: the configuration it runs (cfg, or the point's) */
	bool in_job;                  /* out: its device values went in the job's body, no PATCH */
	struct config applied;        /* out: the read-back (the PATCH's, or the job's "applied") */
	unsigned adjusted;            /* out: bit mask of adjusted entries of applied */
	bool applied_seen;         /* out: applied is in (in_job: from a fleet_jobs_wait answer) */
	struct fleet_result patch; /* out: the PATCH's outcome */
	int64_t job_id;            /* out: the agent's job id; 0 when no job started */
	struct fleet_result post;  /* out: the job POST's outcome (cleared when not sent) */
	/* fleet_jobs_wait: */
	struct job_status job;    /* in/out: the job's state at its last answer (terminal: done) */
	struct fleet_result wait; /* out: the last answer's outcome */
	bool fresh;               /* out: this node answered in the last fleet_jobs_wait */
	/* The caller's own, never touched here: */
	int passes_before;         /* the node's passes of the point before this run */
	double running_since_mono; /* when its job was first seen running (0: not yet) */
};

/*
 * Start a run on every node where nodes[i].run: every field fleet fills is cleared first, on
 * every node. With f->params_in_job, on a node whose agent has job_applied, one POST: the job
 * carries cfg's device parameters and its filesystem (the agent applies them before loop 1
 * and records the read-back, which fleet_jobs_wait reads into applied; they stay set, as a
 * PATCH's would, until the node's session restores the device). Else PATCH cfg's
 * device parameters (nodes[i].cfg's where a node has its own: a
 * cohort's) and, on each node as soon as its own PATCH answered 2xx (applied and read back; at
 * once when the configuration has only fs.* values), POST the plan's job with its filesystem
 * for loops loops there, labelled with the plan's labels plus sweep=SWEEP_ID and
 * sweep_point=POINT (SWEEP_ID -1: a run of no sweep, without them) and sweep_config. A node never
 * waits for the others between its PATCH and its POST; no job starts where the PATCH failed.
 */
void fleet_point_start(struct fleet *f, const struct config *cfg, int64_t sweep_id, int point,
                       int loops, struct fleet_node_run *nodes);
/*
 * Wait for news of the jobs: keep one request in flight per active node whose job (job_id
 * != 0) has not ended (job.terminal false): a long-poll of JOB_WAIT_ASK_S with only the members
 * the runner reads where f->long_poll[i] (until the job's end where f->until_end[i]: one answer
 * per job, or every f->progress_s seconds for a progress display; else after the version last
 * seen), else a plain GET every poll_s. Returns once some answered, their job and wait updated and
 * fresh set (others cleared), or after max_s; returns how many answered. A request is re-armed on
 * the next call, at once (long-poll) or poll_s after the last (plain GET).
 */
int fleet_jobs_wait(struct fleet *f, struct fleet_node_run *nodes, double poll_s, double max_s);
/* Free what fleet keeps in nodes[0..n) (each job's series) and clear it (the array itself is
 * the caller's); fleet_point_start reuses it. */
void fleet_node_runs_release(struct fleet_node_run *nodes, int n);
/* Drop the requests fleet_jobs_wait has in flight. */
void fleet_jobs_wait_end(struct fleet *f);
/* Cancel every job_id[i] != 0 (dropping the waits in flight first). */
void fleet_jobs_cancel(struct fleet *f, const int64_t *job_id, struct fleet_result *res);

#endif
