/* ctlstore.h -- the controller's SQLite: sweeps, points, node results and passes; rollouts. */
#ifndef FT_CTLSTORE_H
#define FT_CTLSTORE_H

#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"
#include "model/rollout.h"
#include "model/sweep.h"
#include "plan/plan.h"

/* Persistence of the structs it is handed: it includes nothing above the sweep model, so it
 * neither judges nor words anything. */

struct ctlstore;

/* Open (creating parent directories and the file) and migrate. WAL, busy_timeout 5 s. */
int ctlstore_open(const char *path, struct ctlstore **out, struct err *e);
void ctlstore_close(struct ctlstore *st);
/* The default path: $XDG_DATA_HOME/fleettune/ctl.db or ~/.local/share/fleettune/ctl.db.
 * Caller has ownership. */
char *ctlstore_default_path(void);

/* Insert the sweep row; sets s->id. */
int ctlstore_sweep_create(struct ctlstore *st, struct sweep *s, struct err *e);
/* Replace point idx with its node results and passes (one BEGIN IMMEDIATE transaction). */
int ctlstore_point_save(struct ctlstore *st, const struct sweep *s, int idx, struct err *e);
/* Save every point, then status, finished_at, dropped nodes, the outcome and the decisions
 * (the fleet's and each cohort's; best_* columns: the confirmed decision's) as the sweep holds
 * them (analysed by the caller). ctlstore_point_save saves the decisions so far too. */
int ctlstore_sweep_finish(struct ctlstore *st, const struct sweep *s, struct err *e);
/* Load sweep id into s; the analysis fields are not loaded (the caller recomputes them). */
int ctlstore_sweep_load(struct ctlstore *st, int64_t id, struct sweep *s, struct err *e);

struct ctlstore_summary {
	int64_t id;
	char name[128];
	char status[16];
	char strategy[16];
	char metric[64];
	double created_at, finished_at;
	int owner_pid;       /* the controller that ran it (0: unknown) */
	char owner_host[64]; /* and its host */
	double saved_at;     /* its last saved point, epoch seconds; 0: none */
	int npoints;
	/* What it found (sweep.h); OUTCOME_PENDING while running, or for a sweep stored by an
	 * older fleettune-ctl, whose worded line is legacy_best_line. */
	enum sweep_outcome outcome;
	/* The fleet's decision as stored (has_decision; sweeps stored before migration 9 have
	 * none: legacy_best_line, or their outcome, is all they say). */
	bool has_decision;
	struct decision decision;
	bool cohorts_differ; /* some cohort's stored decision is not the fleet's */
	char legacy_best_line[256];
};

/* The decision of sweep id as stored (cohort -1: the fleet's); -ENOENT when none was stored. */
int ctlstore_decision_load(struct ctlstore *st, int64_t id, int cohort, struct decision *d,
                           struct err *e);
/* The newest limit sweeps, newest first. *out is heap (caller frees). */
int ctlstore_history(struct ctlstore *st, int limit, struct ctlstore_summary **out, int *n,
                     struct err *e);

/* ---- rollouts (ctlstore_rollout.c) ---- */

/* Insert r with its nodes and waves (one transaction); sets r->id. */
int ctlstore_rollout_create(struct ctlstore *st, struct rollout *r, struct err *e);
/* Save the nodes i of r with which[i] (NULL: all) -- state, what they had, error -- and the
 * rollout's saved_at, in one transaction. */
int ctlstore_rollout_nodes_save(struct ctlstore *st, const struct rollout *r, const bool *which,
                                struct err *e);
/* Save wave w of r. */
int ctlstore_rollout_wave_save(struct ctlstore *st, const struct rollout *r, int w, struct err *e);
/* Save r's status, reason and finished_at. */
int ctlstore_rollout_status_save(struct ctlstore *st, const struct rollout *r, struct err *e);
/* Load rollout id into r (rollout_init'ed by the call); -ENOENT "not_found". */
int ctlstore_rollout_load(struct ctlstore *st, int64_t id, struct rollout *r, struct err *e);

struct ctlstore_rollout_summary {
	int64_t id;
	char plan_name[128];
	char profile[64];
	char params[256]; /* "name=value ..." */
	char status[16];
	char reason[256];
	char check[16];
	int nnodes, nnew, nfailed, nwaves;
	double created_at, finished_at, saved_at;
	int owner_pid;
	int64_t owner_start; /* its start time (ticks after boot); 0: not recorded */
	char owner_host[64];
};
/* The newest limit rollouts, newest first. *out is heap (caller frees). */
int ctlstore_rollouts_list(struct ctlstore *st, int limit, struct ctlstore_rollout_summary **out,
                           int *n, struct err *e);

#endif
