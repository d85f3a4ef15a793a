/* sweeprun.h -- the run of a sweep: pre-flight, sessions, the strategy's work on the runner,
 * each point analysed and saved, every node restored, the sweep closed. */
#ifndef FT_SWEEPRUN_H
#define FT_SWEEPRUN_H

#include <signal.h>
#include <stdbool.h>

#include "err.h"
#include "model/sweep.h"

/* How a sweep's run ended; the CLI turns it into the exit status. */
enum sweeprun_result {
	SWEEPRUN_COMPLETED,   /* every point ran; there is a best, or the baseline is kept */
	SWEEPRUN_FAILED,      /* e says why: the database, a failed pre-flight (its problems
	                         printed on stderr), the sessions, or nothing to compare (no best) */
	SWEEPRUN_NODE_FAILED, /* a node stopped answering: the sweep aborted, or with
	                         continue_on_node_failure the node was dropped (partial results) */
	SWEEPRUN_INTERRUPTED, /* *stop was set: jobs cancelled, every node restored */
};

struct client_transport;

struct sweeprun_opts {
	const char *db_path;               /* the controller's database (ctlstore) */
	bool continue_on_node_failure;     /* drop a node that stops answering and go on */
	double session_ttl_s;              /* the agents restore by themselves when not renewed */
	double poll_interval_s;            /* job polls on agents that cannot long-poll */
	const volatile sig_atomic_t *stop; /* non-zero (a signal): cancel, restore, stop */
	bool tty;                          /* stderr is a terminal: the live progress line */
	int owner_pid;                     /* recorded with the sweep: who runs it */
	const char *owner_host;
	const struct client_transport *transport; /* NULL: HTTP; a test's fleet in-process */
};

/*
 * Run sweep s (initialised from its plan, tokens loaded): pre-flight (nothing changes unless
 * every agent accepts every configuration and the job), the sweep stored, a tuning session
 * per node, the strategy's batches on the runner with progress on stderr, each point analysed
 * and saved as it finishes, then every node restored and the sweep closed (status,
 * finished_at, the final analysis, saved). s->id is 0 when nothing was stored. For a result
 * other than SWEEPRUN_COMPLETED e says why, except after a signal before anything ran.
 */
enum sweeprun_result sweeprun_execute(struct sweep *s, const struct sweeprun_opts *o,
                                      struct err *e);

#endif
