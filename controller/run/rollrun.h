/* rollrun.h -- a staged rollout run: pre-flight, the waves with their checks, a failed wave put
 * back, and the resume or revert of a stored rollout whose controller was killed. */
#ifndef FT_ROLLRUN_H
#define FT_ROLLRUN_H

#include <stdbool.h>

#include "err.h"
#include "model/rollout.h"
#include "plan/plan.h"
#include "run/rollctx.h"

/* How a run ended; the CLI turns it into the exit status. */
enum rollrun_result {
	ROLLRUN_COMPLETED,   /* every node holds the profile */
	ROLLRUN_PARTIAL,     /* every wave done, but some nodes failed within --max-failures and
	                        were left as they were */
	ROLLRUN_STOPPED,     /* a wave's check failed or it had more than K failures: the wave
	                        was put back, r->reason says why */
	ROLLRUN_INTERRUPTED, /* *stop was set: no node was left half-changed; resumable */
	ROLLRUN_REVERTED,    /* rollrun_revert put every node it had changed back */
	ROLLRUN_FAILED,      /* e says why (nothing changed, or the database failed) */
};

/*
 * Roll r's profile (profile, params, enforce, canary, waves_spec, max_failures, check set by the
 * caller; plan_name, plan_json and plan_dir from plan p, tokens loaded) out on p's nodes. The
 * measurement runs job_plan's job and judges it by job_plan's metric, goal and min_effect
 * (the sweep's plan with --best; p with --params). Pre-flight on every node (reachable, keeps
 * profiles, the device writable, what it holds now, a dry run of the profile): a node that
 * fails it counts as a failure of its wave and is never written. Then each wave: its nodes
 * saved as "applying", the profile PUT (window at a time, no new one once *stop is set), their
 * outcome saved, the check, and on a failed check or more than max_failures failures the wave
 * put back (a profile that was there before PUT back, else DELETE ?restore=true) and the run
 * stops.
 */
enum rollrun_result rollrun_start(struct rollout *r, struct plan *p, const struct plan *job_plan,
                                  const struct rollrun_opts *o, struct err *e);
/*
 * Go on with stored rollout r (running with its controller gone, or interrupted) on plan p
 * (parsed from r's plan_json and plan_dir, tokens loaded): nodes whose move was sent but not
 * confirmed are asked what they hold, then the wave under way and the ones after run as
 * rollrun_start runs them.
 */
enum rollrun_result rollrun_resume(struct rollout *r, struct plan *p, const struct plan *job_plan,
                                   const struct rollrun_opts *o, struct err *e);
/* Put every node stored rollout r changed (or may have: asked first) back to what it had. */
enum rollrun_result rollrun_revert(struct rollout *r, struct plan *p, const struct rollrun_opts *o,
                                   struct err *e);

#endif
