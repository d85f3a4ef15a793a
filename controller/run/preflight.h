/* preflight.h -- before anything changes, every agent judges every configuration and the job. */
#ifndef FT_PREFLIGHT_H
#define FT_PREFLIGHT_H

#include <stdbool.h>

#include "buf.h"
#include "fleet/fleet.h"
#include "model/sweep.h"
#include "plan/plan.h"

/*
 * The agents are the only judges of parameter values and job options:
 * pre-flight asks them with dry runs, which validate exactly as the real
 * request would and change nothing. Per node, concurrently across nodes:
 *   1. health: the agent must list the "dry_run" feature (an older agent
 *      ignores the query parameter and would write, so it is never sent a
 *      dry run; the node is refused);
 *   2. the device is present and writable;
 *   3. PATCH ?dry_run=true of every configuration given, each as the one
 *      PATCH body the sweep would send (so iosched values are judged
 *      against the scheduler the configuration switches to);
 *   4. POST /jobs?dry_run=true of the exact job body the sweep posts, once per
 *      distinct filesystem among the configurations (fs.type, fs.mkfs, fs.mount:
 *      the agent dry-runs mkfs and judges the mount options), and the plan's
 *      metric must be among the metrics the job reports;
 *   5. the clock of an agent whose jobs start by the clock ("start_at" feature):
 *      its offset from the controller's, from health's time_s and the request's
 *      round trip (asked again, alone, up to PREFLIGHT_CLOCK_TRIES times while the
 *      fan-out's load leaves it uncertain), must be bounded within
 *      PREFLIGHT_CLOCK_MAX_S: a node whose start cannot be placed that close to the
 *      others' is refused.
 * Every problem becomes one line naming the node, the configuration when
 * there is one, and the agent's own message; identical messages for
 * several configurations of a node are one line with a count.
 */
struct preflight {
	int nnodes;
	struct node_info *info; /* per node, from the probe */
	struct buf problems;    /* one '\n'-terminated line per problem */
	int nproblems;
	int nconfigs;              /* configurations judged */
	double expected_runtime_s; /* the job's duration as the agents estimate it (largest) */
	/* The clocks of the nodes whose jobs start by the clock: how many, the largest offset
	 * from the controller's and the largest uncertainty of one (s). */
	int nclocks;
	double clock_offset_max_s, clock_uncertain_max_s;
};

/* The most an agent's clock may be off the controller's (offset plus its uncertainty) for its
 * jobs to start by the clock: the margin a run's start leaves beyond its fan-out. */
#define PREFLIGHT_CLOCK_MAX_S 0.2
/* How often a clock left uncertain by the fan-out is asked again. */
#define PREFLIGHT_CLOCK_TRIES 3

/*
 * Run the pre-flight through f for cfgs[0..ncfg). with_params also reads
 * each device's parameters into info (for `nodes`). Returns 0, or -EINVAL
 * when there is a problem (listed in out->problems). Nothing is written on
 * any node either way. Release out with preflight_release().
 */
int preflight_run(struct fleet *f, const struct config *cfgs, int ncfg, bool with_params,
                  struct preflight *out);
/* preflight_run of plan p: every configuration the plan may apply (strategy_configs, within
 * STRATEGY_CONFIGS_CAP), and the job. */
int preflight_plan(struct fleet *f, const struct plan *p, bool with_params, struct preflight *out);
void preflight_release(struct preflight *pf);
/* What each node is, as the probe read it (info[k].identity), into s->identity: s's plan
 * has the same nodes as pf's. */
void preflight_identity_copy(const struct preflight *pf, struct sweep *s);

#endif
