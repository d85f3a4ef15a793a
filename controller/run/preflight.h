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
 *      metric must be among the metrics the job reports.
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
};

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
