/* rollrun_priv.h -- what the files of a rollout run (rollrun.c: pre-flight, waves, put-back;
 * rollmeasure.c: the measure check) share. */
#ifndef FT_ROLLRUN_PRIV_H
#define FT_ROLLRUN_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "store/ctlstore.h"
#include "fleet/fleet.h"
#include "fleet/fleet_profile.h"
#include "run/rollrun.h"

#define WAIT_STEP_S 0.5 /* the longest a wait for jobs sleeps before looking at its stop flag */

struct run {
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
bool run_stopped(const struct run *u);
/* Tell the caller's event callback. */
void run_event(struct run *u, enum rollrun_event ev, int wave, int round, int rounds);
/* Save the nodes of mask (NULL: all); a database that fails marks u->db_failed. */
void run_save_nodes(struct run *u, const bool *mask);
/* u->mask[i] = node i is in wave w (w < 0: any) and in state s. Returns how many. */
int run_mask_of(struct run *u, int w, enum rollout_node_state s);
/* The measure check of wave w (rollmeasure.c): 1 passed, 0 failed (detail says why), -EINTR
 * stopped by a signal. */
int rollmeasure_check(struct run *u, int w, char *detail, size_t len);

#endif
