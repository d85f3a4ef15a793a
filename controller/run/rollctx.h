/* rollctx.h -- a rollout run's state, which its phases share (rollrun.c: pre-flight, waves,
 * put-back; rollmeasure.c: the measure check), and the steps every phase takes with it. */
#ifndef FT_ROLLCTX_H
#define FT_ROLLCTX_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>

#include "fleet/fleet.h"
#include "fleet/fleet_profile.h"
#include "model/rollout.h"
#include "store/ctlstore.h"

/* What happened, for the words (report_rollout.c). */
enum rollrun_event {
	ROLLRUN_BEGIN,       /* r is stored and its waves planned */
	ROLLRUN_WAVE_DONE,   /* wave is applied and checked (or stopped) */
	ROLLRUN_MEASURE,     /* wave's measurement: round (1-based) of rounds done */
	ROLLRUN_REVERT_DONE, /* the nodes of wave (-1: all) were put back */
};

struct rollrun_opts {
	const char *db_path;
	const volatile sig_atomic_t *stop; /* set by SIGINT/SIGTERM: stop between nodes */
	int window;                        /* requests in flight at once (0: 64) */
	double session_ttl_s;              /* measure: the agents restore by themselves */
	double poll_interval_s;            /* measure: job polls on agents without long-poll */
	int owner_pid;
	int64_t owner_start; /* its start time (cmd.h's pid_start_ticks); 0: unknown */
	const char *owner_host;
	void (*event)(void *cls, const struct rollout *r, enum rollrun_event ev, int wave,
	              int round, int rounds);
	void *cls;
	const struct client_transport *transport; /* NULL: HTTP; a test's fleet in-process */
};

#define WAIT_STEP_S 0.5 /* the longest a wait for jobs sleeps before looking at its stop flag */

/* A rollout run: what it works on and its scratch. */
struct rollctx {
	struct rollout *r;
	struct plan *p;
	const struct plan *job_plan;
	const struct rollrun_opts *o;
	struct ctlstore *st;
	struct fleet f;
	bool *mask;                /* scratch, per node */
	struct fleet_profile *ans; /* scratch answers, per node */
	int window;
	bool db_failed;
	struct err db_err;
};

/* The stop flag is set (a signal). */
bool rollctx_stopped(const struct rollctx *u);
/* Tell the caller's event callback. */
void rollctx_event(struct rollctx *u, enum rollrun_event ev, int wave, int round, int rounds);
/* Save the nodes of mask (NULL: all); a database that fails marks u->db_failed. */
void rollctx_save_nodes(struct rollctx *u, const bool *mask);
/* u->mask[i] = node i is in wave w (w < 0: any) and in state s. Returns how many. */
int rollctx_mask_of(struct rollctx *u, int w, enum rollout_node_state s);

#endif
