/* rollout.h -- a staged rollout's data: the profile it puts on the nodes, its waves, every
 * node's state and what it had before, each wave's check, the outcome. The data model and the
 * wave arithmetic only: no I/O (rollrun.c runs it, ctlstore_rollout.c keeps it). */
#ifndef FT_ROLLOUT_H
#define FT_ROLLOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "plan/plan.h"

#define ROLLOUT_WAVES_MAX 16
#define ROLLOUT_PROFILE_DEFAULT "fleettune"

/* After each wave. */
enum rollout_check {
	CHECK_NONE,     /* "none": the agents' answers to the writes only */
	CHECK_READBACK, /* "readback": every node of the wave reports its profile held, values
	                   live as requested */
	CHECK_MEASURE,  /* "measure": readback, then the job run old vs new interleaved on the
	                   wave's nodes, judged by effect.h */
};

enum rollout_status {
	ROLLOUT_RUNNING,     /* "running" (or its controller was killed: rollrun tells) */
	ROLLOUT_COMPLETED,   /* "completed": every wave done */
	ROLLOUT_STOPPED,     /* "stopped": a check failed or a wave had more than K failures;
	                        that wave was put back */
	ROLLOUT_INTERRUPTED, /* "interrupted": SIGINT/SIGTERM between nodes; resumable */
	ROLLOUT_REVERTED,    /* "reverted": rollout --revert put every changed node back */
	ROLLOUT_FAILED,      /* "failed": could not go on (the database; a revert that failed) */
};

/* One node's place in the rollout. Every move is saved before the request that makes it. */
enum rollout_node_state {
	RNODE_OLD,       /* "old": not changed (yet) */
	RNODE_APPLYING,  /* "applying": its PUT was sent; old or new until asked */
	RNODE_NEW,       /* "new": it holds the rollout's profile */
	RNODE_FAILED,    /* "failed": refused (pre-flight, the write or its check); left old */
	RNODE_REVERTING, /* "reverting": its revert was sent; new or old until asked */
	RNODE_REVERTED,  /* "reverted": back to what it had */
};

struct rollout_node {
	int idx; /* in the plan */
	char name[64];
	char url[256];
	char device[64];
	int wave; /* 0: the canary */
	enum rollout_node_state state;
	bool had_profile;           /* a profile of the rollout's name was there before */
	char *old_profile;          /* its PUT body as the agent showed it (match, params, enforce);
	                               owned, NULL when none */
	struct config old_params;   /* that profile's values */
	struct config old_values;   /* the device's values of the rollout's parameters before */
	struct config reset_values; /* a rollout that switches the scheduler: what the switch
	                               resets (nr_requests, iosched.*) as the device had it
	                               before; a revert writes it back, verify checks it */
	char error[256];            /* why it failed, or what its revert said */
	int64_t session_id;         /* the measurement's session open on it; 0 when none */
	int64_t job_id;             /* ... and its job under way; 0 when none */
	double updated_at;
};

struct rollout_wave {
	int wave;
	int nodes;                      /* in this wave */
	double started_at, finished_at; /* epoch s; 0: not yet */
	int failures;
	char check[16];   /* "passed", "failed", "skipped" (none), "" not yet */
	char detail[512]; /* the check's finding, or why the wave stopped */
};

struct rollout {
	int64_t id;
	char plan_name[128];
	char *plan_json; /* the plan (tokens removed), owned */
	char *plan_dir;  /* where its token_file paths are resolved, owned */
	char profile[64];
	struct config params; /* the new values */
	bool enforce;
	int64_t sweep_id;   /* --best ID; 0 with --params */
	bool promised_gain; /* the sweep's best was a significant gain */
	double promised_pct;
	int canary;
	char waves_spec[128]; /* --waves as given */
	int max_failures;
	enum rollout_check check;
	enum rollout_status status;
	char reason[512];
	double created_at, finished_at;
	int owner_pid;
	int64_t owner_start; /* its start time (/proc/PID/stat field 22, ticks after boot); 0:
	                        not recorded: a pid alone may be another process's now */
	char owner_host[64];
	int nnodes;
	struct rollout_node *nodes; /* owned; plan order */
	int nwaves;
	struct rollout_wave waves[ROLLOUT_WAVES_MAX];
};

void rollout_init(struct rollout *r);
void rollout_release(struct rollout *r);

/*
 * The waves: canary nodes (>= 1) first as wave 0, then each entry of spec ("10%,50%,100%"; a
 * percentage of all nodes, or a count) is how many nodes have the profile after that wave
 * (cumulative, rounded up), strictly more than the wave before; the last must be every node.
 * Fills cum[0..*nwaves): the nodes done after each wave. -EINVAL naming the entry.
 */
int rollout_waves_plan(int nnodes, int canary, const char *spec, int *cum, int *nwaves,
                       struct err *e);
/* Give r->nodes their waves from cum (nodes in plan order). */
void rollout_waves_assign(struct rollout *r, const int *cum, int nwaves);

const char *rollout_check_name(enum rollout_check c);
int rollout_check_parse(const char *s); /* -1 if not none|readback|measure */
const char *rollout_status_name(enum rollout_status s);
int rollout_status_parse(const char *s);
const char *rollout_node_state_name(enum rollout_node_state s);
int rollout_node_state_parse(const char *s);

/* How many of wave w's nodes are in state s (w < 0: all waves). */
int rollout_count(const struct rollout *r, int w, enum rollout_node_state s);

#endif
