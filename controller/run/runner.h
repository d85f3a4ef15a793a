/* runner.h -- runs a sweep's work on the fleet: sessions, apply a point, run its job on every
 * node at once, collect the passes. */
#ifndef FT_RUNNER_H
#define FT_RUNNER_H

#include <signal.h>
#include <stdbool.h>

#include "err.h"
#include "fleet/fleet.h"
#include "model/sweep.h"
#include "run/schedule.h"

/*
 * The runner talks to the agents only through fleet, writes results only
 * into the sweep it is given, and says what happens only through the event
 * callback: it never prints and never draws. Functions return 0 or a
 * negative errno, never a process exit code.
 */

enum runner_event_kind {
	RUNNER_PROGRESS,       /* news of a point's jobs arrived; passes may have landed */
	RUNNER_POINT_FAILED,   /* the node answered but the point failed there; the sweep goes on */
	RUNNER_NODE_FAILED,    /* the node stopped answering: dropped, or the sweep stops */
	RUNNER_RESTORE_FAILED, /* closing the node's session did not confirm the restore */
};

struct runner_event {
	enum runner_event_kind kind;
	int point;       /* point index; -1 for session events */
	int node;        /* node index; -1 for RUNNER_PROGRESS */
	const char *why; /* the failures: what went wrong, with the agent's message */
	bool dropped;    /* RUNNER_NODE_FAILED: the node is dropped and the sweep goes on */
	bool none_left;  /* RUNNER_NODE_FAILED: no active node is left */
	/* RUNNER_PROGRESS: */
	int loop;            /* loop under way in this run, 1-based (the furthest node) */
	int loops;           /* loops of this run */
	double fraction;     /* progress of this run, mean over the active nodes, 0..1 */
	const int *reported; /* per node: passes of the point announced by earlier events */
};

struct runner_opts {
	bool continue_on_node_failure; /* drop a failed node instead of stopping */
	double session_ttl_s;          /* the agents restore by themselves when not renewed */
	double poll_interval_s;        /* between two GETs of a running job, on agents that cannot
	                                * long-poll (no "long_poll" feature); others are long-polled */
	const volatile sig_atomic_t *stop; /* non-zero: cancel the jobs and return -EINTR */
	void (*event)(void *ctx, const struct runner_event *ev);
	void *ctx;
	/* The clocks, seconds (NULL: time_now_s, time_mono_s): now_s stamps runner_times, mono_s
	 * measures the runs and paces the session renewals. */
	double (*now_s)(void);
	double (*mono_s)(void);
};

/* One run of a point, timed (epoch seconds; the agents share the controller's clock when they
 * run on its machine, as in bench/fleet.sh). 0 when unknown. */
struct runner_times {
	int point;
	double start_at;   /* the controller begins the run (first request sent: a job POST, or a
	                      PATCH) */
	double started_at; /* every PATCH and job POST answered */
	double done_at;    /* the controller saw the last job end */
	/* From the agents' job records: */
	double first_start_at, last_start_at; /* jobs' started_at */
	double first_end_at, last_end_at;     /* jobs' finished_at */
	double longest_job_s;                 /* the longest finished_at - started_at */
};

struct runner {
	struct sweep *s;
	struct fleet *f; /* borrowed */
	struct runner_opts o;
	double last_renew;
	bool abort; /* a node failed and the sweep must stop */
	int *reported;
	struct fleet_node_run *nodes; /* per node: its part of the run under way (every run) */
	/* Measured over every run: */
	int runs;
	double run_s;     /* the first request to the last job end seen, summed */
	double span_s;    /* the first job's start to the last job's end (agents' clocks), summed */
	double longest_s; /* the longest job of each run (its own started_at to finished_at), summed
	                   */
	struct runner_times last; /* the last run */
};

/* Borrow s and f (f built on s->plan, tokens loaded). */
void runner_init(struct runner *r, struct sweep *s, struct fleet *f, const struct runner_opts *o);
void runner_release(struct runner *r);
/* Open a tuning session per node. On failure the sessions already open are closed with
 * restore and e names the node. */
int runner_sessions_open(struct runner *r, struct err *e);
/*
 * One run of a schedule (schedule.h): one loop of its point on every active node: start the
 * job with its configuration in it (or, on an agent without job_applied, PATCH the
 * configuration and start the job as soon as that node's PATCH is read back:
 * fleet_point_start), wait for the jobs, and append the passes to the point's node results
 * (so a point runs again in later rounds), stamped with the run's round and their start (the
 * job's, by the agent's clock); a warm-up run's passes are kept apart (node_result.warmup) and
 * not counted in the point's loops. A node that answers with an error fails the point there
 * only. Returns 0; -EINTR when *stop was set (jobs cancelled); -EIO when a node stopped
 * answering and the sweep must stop (jobs cancelled).
 */
int runner_round_run(struct runner *r, const struct schedule_run *run);
/* Close every session with restore; failures are reported as events. */
void runner_sessions_close(struct runner *r);

#endif
