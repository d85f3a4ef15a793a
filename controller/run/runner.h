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
	/* The clocks, seconds (NULL: time_now_s, time_mono_s): now_s stamps runner_times and
	 * sets the moments runs start at, mono_s measures the runs and paces the session
	 * renewals. */
	double (*now_s)(void);
	double (*mono_s)(void);
	int progress_s;         /* a person watches: the agents answer with the jobs' progress at
	                           most this often (0: each job answers once, at its end) */
	double pass_expected_s; /* one loop of the job as the agents estimate it (0: unknown):
	                           with RUNNER_END_FANOUTS, the first run posted ahead's wait */
};

/* How runs start by the clock. A run's jobs carry the moment their first pass starts (start_at, on
 * agents with the feature): the controller's clock plus the last run's job POST fan-out plus
 * RUNNER_START_MARGIN_S, so every node has its job and has made it ready (params applied) before
 * it, whatever the fan-out takes. Before any run has been measured, RUNNER_FIRST_FANOUTS times the
 * sessions' open stands for the fan-out: a node answers a job's POST before it has made the job
 * ready (params, containment, the engine spawned and set up), and that costs a node far more than a
 * session's open, 12.6-13.8 times as much where the nodes share their cores (bench/fleet.sh, 256
 * and 1 024 agents on 2 cores), and up to 25 times when that machine is slow (20 left run 1 of
 * 1 024 nodes 0.76 and 0.92 s late in two of three sweeps); where each node has its own, what it
 * adds to the first run's wait is a few tenths of a second. Within a batch of rounds the next run's
 * jobs are posted while the run before them goes on ("ahead", where every node takes start_at and
 * the job's params), for the moment that run ends plus a gap in which each node's next job makes
 * ready. Until a run posted ahead has been measured the gap is at least the fan-out of the POSTs
 * before it plus RUNNER_START_MARGIN_S (ending a job and making the next ready costs a node what
 * answering those did); then it follows what the nodes report (held_s left over, start_late_s of a
 * node that did not hold when it was too short): the next moment is the moment before it plus the
 * latest lead (when the slowest node was ready, past the moment of the run before) of the last
 * RUNNER_GAP_WINDOW runs posted ahead plus how far those leads ranged plus RUNNER_GAP_SLACK_S, the
 * gap between RUNNER_GAP_MIN_S and RUNNER_GAP_MAX_S. The lead moves by 0.1-0.2 s from run to run
 * where nodes share cores (their jobs end at different times), and drifts: a gap that followed the
 * last run alone left a node late every few runs, and one at the latest lead plus 30 ms left the
 * last three runs of a 256-node sweep late when the leads rose by 0.03-0.1 s a run. */
/* Before a run has ended, what a job's end (after its pass) costs the slowest node is taken to be
 * this many times the fan-out of the run's POSTs: measured 1.4-2.0 times where the nodes share
 * cores (bench/fleet.sh: 0.66-0.72 s at 256 agents, 3.5 s at 1 024 on 2 cores, where the agents'
 * estimate of the pass alone left the first run posted ahead 1.1 s late). */
#define RUNNER_END_FANOUTS 2
#define RUNNER_START_MARGIN_S 0.2
#define RUNNER_FIRST_FANOUTS 30
#define RUNNER_GAP_START_S 0.2
#define RUNNER_GAP_MIN_S 0.03
#define RUNNER_GAP_MAX_S 10.0
#define RUNNER_GAP_WINDOW 16
/* The slack a run posted ahead aims to leave its slowest node (held_s), and the lateness below
 * which a start counts as on time (a thread's wake-up). */
#define RUNNER_GAP_SLACK_S 0.03
#define RUNNER_LATE_S 0.005

/* One run of a point, timed (epoch seconds; the agents share the controller's clock when they
 * run on its machine, as in bench/fleet.sh). 0 when unknown. */
struct runner_times {
	int point;
	double start_at;   /* the controller begins the run (first request sent: a job POST, or a
	                      PATCH) */
	double started_at; /* every PATCH and job POST answered (a run posted ahead: both are the
	                      moment it became the run under way) */
	double moment;     /* the start_at its jobs carry (the controller's clock); 0: none */
	bool ahead;        /* its jobs were posted during the run before */
	double done_at;    /* the controller saw the last job end */
	/* From the agents' job records: */
	double first_start_at, last_start_at; /* jobs' started_at */
	double first_end_at, last_end_at;     /* jobs' finished_at */
	double longest_job_s; /* the longest job, finished_at - started_at less what it held */
	double first_begun_at, last_begun_at; /* jobs' first passes: begun_at */
	double late_max_s;                    /* the latest start_late_s; 0: none late */
	/* The latest start_late_s of a job that did not hold (held_s 0): its engine was not ready
	 * at the moment, which a longer gap (or margin) mends; one that held and began late all
	 * the same met the moment's herd of wake-ups, which it does not. */
	double unready_late_max_s;
	double held_min_s; /* the shortest held_s of a job with start_at */
	double pass_max_s; /* the longest begun_at to finished_at */
	double after_s;    /* posted ahead: its moment less the moment of the run before */
};

/* The next run of a batch, posted ahead while the one before it goes on. */
struct runner_ahead {
	bool posted;
	int point, round;
	bool warmup;
	double moment;  /* its start_at, the controller's clock */
	double after_s; /* moment less the moment of the run it was posted during */
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
	/* Starting by the clock: */
	struct fleet_node_run *ahead; /* per node: the next run's part, posted ahead */
	struct runner_ahead next;
	double sessions_fanout_s; /* the sessions' open: first request to last answer */
	double fanout_s;          /* the last job POSTs: first sent to last answered */
	double margin_extra_s;    /* added to the margin after a run whose start was late */
	double gap_s;             /* between two runs, the later posted ahead */
	/* Of the last RUNNER_GAP_WINDOW runs posted ahead, when the slowest node was ready (or
	 * began, if it did not hold) past the moment of the run before; nleads: runs so far. */
	double leads_s[RUNNER_GAP_WINDOW];
	int nleads;
	double pass_s; /* the longest pass of the last run (begun to finished) */
	int nspreads;  /* runs started by the clock, with their pass-start spreads */
	double *spreads_s;
	int nlate; /* of those, runs where a node began more than RUNNER_LATE_S late */
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
 * first pass's begun_at, else the job's start, by the agent's clock); a warm-up run's passes
 * are kept apart (node_result.warmup) and not counted in the point's loops. A node that
 * answers with an error fails the point there only. next (NULL: none, or not known yet) is the
 * run after it in the same batch: its jobs are posted ahead, to start by the clock when this
 * one has ended. Returns 0; -EINTR when *stop was set (jobs cancelled); -EIO when a node
 * stopped answering and the sweep must stop (jobs cancelled).
 */
int runner_round_run(struct runner *r, const struct schedule_run *run,
                     const struct schedule_run *next);
/* Cancel the jobs of a run posted ahead that will not run (the sweep stops). */
void runner_ahead_cancel(struct runner *r);
/* What a run's start by the clock tells the next (after it ended): the pass length, the
 * spread, the lead of a run posted ahead (its after_s less its slowest node's held_s, or plus
 * the start_late_s of a node that did not hold), the margin after one posted at once. */
void runner_start_learn(struct runner *r, const struct runner_times *t);
/* The latest lead of the last RUNNER_GAP_WINDOW runs posted ahead (s; 0: none yet). */
double runner_lead_max(const struct runner *r);
/* How far those leads ranged: the latest less the earliest (s; 0: fewer than two). */
double runner_lead_range(const struct runner *r);
/* The pass-start spreads of the runs started by the clock so far: their median and largest
 * (s); false when there was none. */
bool runner_spread(const struct runner *r, double *median_s, double *max_s);
/* Close every session with restore (cancelling a run posted ahead first); failures are
 * reported as events. */
void runner_sessions_close(struct runner *r);

#endif
