/* sweep.h -- a sweep: its points, every node's passes, the strategies and the run loop. */
#ifndef FT_SWEEP_H
#define FT_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "plan.h"
#include "stats.h"

enum point_role { ROLE_BASELINE, ROLE_CANDIDATE, ROLE_FINAL };

enum node_state {
	NODE_PENDING,   /* not run (yet) */
	NODE_OK,        /* every loop finished */
	NODE_FAILED,    /* the job or the node failed; passes may be partial */
	NODE_CANCELLED, /* cancelled by the controller (signal or another node's failure) */
	NODE_DROPPED,   /* node dropped earlier (--continue-on-node-failure) */
};

/* A node's verdict on one point against its reference point. */
enum verdict { VERDICT_NA, VERDICT_GAIN, VERDICT_LOSS, VERDICT_NONE, VERDICT_UNCLEAR };

/* A row's verdict, combining the node verdicts. */
enum row_verdict {
	ROW_NA, /* baseline row, or no data */
	ROW_GAIN,
	ROW_LOSS,
	ROW_NONE,
	ROW_INCONCLUSIVE,
	ROW_DISAGREE,
};

/* One node's run of one point. */
struct node_result {
	enum node_state state;
	int npasses;
	double passes[PLAN_LOOPS_MAX]; /* the plan's metric, per loop */
	struct config applied;         /* value read back per parameter of the point */
	unsigned adjusted_mask;        /* bit i: applied.s[i] differs from the request */
	int64_t job_id;                /* agent job id, 0 when none */
	double job_runtime_s;          /* agent's started_at..finished_at, 0 when unknown */
	char error[256];
	/* Filled by verdict_sweep(). */
	struct stats_summary sum;
	double delta_pct, ci_low_pct, ci_high_pct; /* NAN when not computed */
	enum verdict verdict;
};

struct point {
	int index;
	enum point_role role;
	int axis; /* axis index for sequential points, -1 otherwise */
	int ref;  /* index of the point this one is compared with; -1 for the first baseline */
	struct config cfg;
	struct node_result *nodes; /* one per plan node */
	/* Filled by verdict_sweep(). */
	double delta_pct, ci_low_pct, ci_high_pct; /* fleet mean per loop vs ref */
	double spread_pct;                         /* (max - min) / mean of node means */
	enum row_verdict verdict;
};

struct sweep {
	int64_t id; /* controller database id; 0 before it is stored */
	struct plan plan;
	char status[16];                /* running, completed, aborted, interrupted, failed */
	double created_at, finished_at; /* epoch seconds */
	int npoints, cap;
	struct point *points;
	bool *node_dropped; /* per plan node */
	/* Filled by verdict_sweep(). */
	int best; /* point index of the best configuration, -1 when none beat the baseline */
	int nwarnings;
	char warnings[8][256];
};

/* Take ownership of plan (moved; the caller must not release it). */
void sweep_init(struct sweep *s, struct plan *plan);
void sweep_release(struct sweep *s);
/* Append a point; returns its index. */
int sweep_point_add(struct sweep *s, enum point_role role, int axis, int ref,
                    const struct config *cfg);

/*
 * Strategies. sweep_points_next() appends the next batch of points given
 * the results so far and returns how many it added (0: the sweep is done).
 * grid: the baseline plus every combination of the axes, in one batch.
 * sequential: per axis, a fresh baseline of the best configuration so far
 * and each value of the axis; then a final confirmation against the
 * original baseline when the best configuration differs from it.
 * Values equal to the batch's baseline are skipped (the baseline row is them).
 */
int sweep_points_next(struct sweep *s);
/* For --dry-run: the most points the plan can run. */
int sweep_points_estimate(const struct plan *p);

struct sweep_opts {
	bool continue_on_node_failure;
	bool progress_tty; /* live progress line instead of one line per pass */
	const char *db_path;
	double session_ttl_s;
	double poll_interval_s;
};

/*
 * Run a sweep against the agents: pre-flight, sessions, points, restore.
 * s must come from sweep_init() with tokens loaded. Results are saved to
 * the database at db_path as they arrive. Returns 0 when complete, 2 when
 * a node failed (partial results kept), 130 when interrupted by a signal,
 * 1 on other errors (e filled).
 */
int sweep_run(struct sweep *s, const struct sweep_opts *o, struct err *e);
/* Install SIGINT/SIGTERM handlers that make a running sweep stop and restore. */
void sweep_signals_install(void);
/* True once SIGINT or SIGTERM arrived. */
bool sweep_interrupted(void);

#endif
