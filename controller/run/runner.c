/* runner.c -- a point on every node at once: PATCH, start the jobs, wait, collect, cancel. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run/runner.h"
#include "timeutil.h"
#include "xmalloc.h"
#include "banned.h"

void runner_init(struct runner *r, struct sweep *s, struct fleet *f, const struct runner_opts *o)
{
	memset(r, 0, sizeof(*r));
	r->s = s;
	r->f = f;
	r->o = *o;
	if (!r->o.now_s)
		r->o.now_s = time_now_s;
	if (!r->o.mono_s)
		r->o.mono_s = time_mono_s;
	r->reported = xcalloc((size_t)s->plan.nnodes + 1, sizeof(int));
	r->nodes = xcalloc((size_t)s->plan.nnodes + 1, sizeof(*r->nodes));
	/* A run's device values travel in its job where the agent records their read-back: one
	 * request per node starts a run, and every node's job starts as soon as the controller
	 * sends it (fleet_point_start). */
	f->params_in_job = true;
}

void runner_release(struct runner *r)
{
	if (!r)
		return;
	free(r->reported);
	free(r->nodes);
	r->reported = NULL;
	r->nodes = NULL;
}

static bool stopped(const struct runner *r)
{
	return r->o.stop && *r->o.stop;
}

static void event(struct runner *r, const struct runner_event *ev)
{
	if (r->o.event)
		r->o.event(r->o.ctx, ev);
}

/* Node k stopped answering during point p: drop it or stop the sweep. */
static void node_fail(struct runner *r, struct point *p, int k, const char *why)
{
	struct runner_event ev = {
		.kind = RUNNER_NODE_FAILED, .point = p ? p->index : -1, .node = k, .why = why
	};
	int i, left = 0;

	if (p) {
		p->nodes[k].state = NODE_FAILED;
		snprintf(p->nodes[k].error, sizeof(p->nodes[k].error), "%s", why);
	}
	if (r->o.continue_on_node_failure) {
		r->f->active[k] = false;
		r->s->node_dropped[k] = true;
		for (i = 0; i < r->s->plan.nnodes; i++)
			left += r->f->active[i];
		ev.dropped = true;
		ev.none_left = left == 0;
		r->abort = left == 0;
	} else {
		r->abort = true;
	}
	event(r, &ev);
}

/* Node k answered but point p failed there (a rejected value, a failed job): record it and
 * go on; the node stays in the sweep. */
static void point_fail(struct runner *r, struct point *p, int k, const char *why)
{
	struct runner_event ev = {
		.kind = RUNNER_POINT_FAILED, .point = p->index, .node = k, .why = why
	};

	p->nodes[k].state = NODE_FAILED;
	snprintf(p->nodes[k].error, sizeof(p->nodes[k].error), "%s", why);
	event(r, &ev);
}

/* A failed request: an unreachable node fails as a node, an error answer fails the point. */
static void request_fail(struct runner *r, struct point *p, int k, const struct fleet_result *res,
                         const char *what)
{
	char why[320];

	snprintf(why, sizeof(why), "%s: %s", what, res->error);
	if (res->unreachable)
		node_fail(r, p, k, why);
	else
		point_fail(r, p, k, why);
}

int runner_sessions_open(struct runner *r, struct err *e)
{
	int n = r->s->plan.nnodes, k, rc = 0;
	struct fleet_result *res = xcalloc((size_t)n + 1, sizeof(*res));

	fleet_sessions_open(r->f, r->o.session_ttl_s, res);
	r->last_renew = r->o.mono_s();
	for (k = 0; k < n && !rc; k++)
		if (res[k].failed)
			rc = err_set(e, -EIO, "session_failed",
			             "%s: cannot open a tuning session: %s",
			             r->s->plan.nodes[k].name, res[k].error);
	if (rc)
		fleet_sessions_close(r->f, true, NULL);
	free(res);
	return rc;
}

void runner_sessions_close(struct runner *r)
{
	int n = r->s->plan.nnodes, k;
	struct fleet_result *res = xcalloc((size_t)n + 1, sizeof(*res));

	fleet_sessions_close(r->f, true, res);
	for (k = 0; k < n; k++) {
		struct runner_event ev = {
			.kind = RUNNER_RESTORE_FAILED, .point = -1, .node = k, .why = res[k].error
		};

		if (res[k].failed)
			event(r, &ev);
	}
	free(res);
}

/* Renew the sessions once a third of their lease is gone (every 20 s by default): each renewal
 * is a request to every node while the jobs run (and holds up the wait for its answers), and
 * two thirds of a lease left leave room for its retries and a slow point start. */
static void sessions_renew_due(struct runner *r, struct point *p)
{
	int n = r->s->plan.nnodes, k;
	struct fleet_result *res;

	if (r->o.mono_s() - r->last_renew < r->o.session_ttl_s / 3)
		return;
	r->last_renew = r->o.mono_s();
	res = xcalloc((size_t)n + 1, sizeof(*res));
	fleet_sessions_renew(r->f, res);
	for (k = 0; k < n; k++) {
		if (r->f->active[k] && res[k].failed) {
			char why[300];

			snprintf(why, sizeof(why), "session renew: %s", res[k].error);
			node_fail(r, p, k, why);
		}
	}
	free(res);
}

/* One run of one point; its nodes' part is the runner's r->nodes. */
struct run {
	struct point *p;
	int loops;
	int round;   /* the sweep's round of this run (1-based); 0: not in rounds */
	bool warmup; /* a warm-up loop: its pass is kept apart, never judged */
};

/* Cancel the jobs still running and mark those nodes cancelled. */
static void jobs_cancel(struct runner *r, struct run *u)
{
	int n = r->s->plan.nnodes, k;
	int64_t *live = xcalloc((size_t)n + 1, sizeof(*live));

	for (k = 0; k < n; k++) {
		const struct fleet_node_run *fn = &r->nodes[k];

		if (fn->job_id && !fn->job.terminal && u->p->nodes[k].state != NODE_FAILED)
			live[k] = fn->job_id;
		if (live[k])
			u->p->nodes[k].state = NODE_CANCELLED;
	}
	fleet_jobs_cancel(r->f, live, NULL);
	free(live);
}

/* A finished job's runtime by the agent's clock (finished_at - started_at); 0 when unknown. */
static double job_runtime_s(const struct job_status *js)
{
	return js->started_at > 0 && js->finished_at >= js->started_at
	               ? js->finished_at - js->started_at
	               : 0;
}

/* Copy node k's new passes and, once its job ended, its outcome into the point. */
static void job_collect(struct runner *r, struct run *u, int k)
{
	struct node_result *nr = &u->p->nodes[k];
	const struct job_status *js = &r->nodes[k].job;
	int j;

	if (r->nodes[k].in_job && r->nodes[k].applied_seen) { /* the job's own read-back */
		nr->applied = r->nodes[k].applied;
		nr->adjusted_mask = r->nodes[k].adjusted;
	}
	/* A one-loop job's pass started when the job did (the agent's clock); a warm-up run's
	 * passes are counted apart (passes_before counts those for it). */
	for (j = (u->warmup ? nr->nwarmup : nr->npasses) - r->nodes[k].passes_before;
	     j < js->npasses; j++)
		node_result_pass_add_at(nr, js->passes[j], u->round,
		                        u->loops == 1 ? js->started_at : 0, u->warmup);
	if (!js->terminal)
		return;
	nr->job_runtime_s += job_runtime_s(js);
	if (js->succeeded && js->npasses > 0) {
		nr->state = NODE_OK;
	} else {
		char why[300];

		snprintf(why, sizeof(why), "job %lld %s%s%s", (long long)r->nodes[k].job_id,
		         js->state, js->error[0] ? ": " : "", js->error);
		point_fail(r, u->p, k, why);
	}
}

/* Announce a poll round: the furthest loop, the mean progress, the new passes. */
static void progress_report(struct runner *r, struct run *u)
{
	struct runner_event ev = { .kind = RUNNER_PROGRESS,
		                   .point = u->p->index,
		                   .node = -1,
		                   .loops = u->loops,
		                   .reported = r->reported };
	int n = r->s->plan.nnodes, k, active = 0;

	for (k = 0; k < n; k++) {
		const struct job_status *js = &r->nodes[k].job;
		int loop = js->loops_done + (js->terminal ? 0 : 1);

		if (!r->f->active[k])
			continue;
		ev.fraction += js->terminal ? 1.0 : js->progress;
		if (loop > ev.loop)
			ev.loop = loop;
		active++;
	}
	ev.fraction = active ? ev.fraction / active : 0;
	if (ev.loop > u->loops)
		ev.loop = u->loops;
	if (ev.loop < 1)
		ev.loop = 1;
	event(r, &ev);
	for (k = 0; k < n; k++)
		r->reported[k] = u->p->nodes[k].npasses;
}

/* How long one wait for news of the jobs lasts at most: the bound on noticing a signal or a
 * session renewal due. */
#define WAIT_STEP_S 0.5

/*
 * Wait for every job of the run to end: one long-poll per node, re-armed on each answer
 * (plain GETs every poll_interval_s to agents without the long_poll feature), renewing the
 * sessions when due. The one place that waits for jobs. Returns 0, or -EINTR / -EIO after
 * cancelling the jobs.
 */
static int jobs_wait(struct runner *r, struct run *u)
{
	int n = r->s->plan.nnodes, k, left, rc = 0;

	for (;;) {
		left = 0;
		for (k = 0; k < n; k++)
			left += !r->nodes[k].job.terminal && r->f->active[k];
		if (!left)
			break;
		if (fleet_jobs_wait(r->f, r->nodes, r->o.poll_interval_s, WAIT_STEP_S) > 0) {
			for (k = 0; k < n; k++) {
				struct fleet_node_run *fn = &r->nodes[k];

				if (!fn->fresh || !fn->job_id ||
				    u->p->nodes[k].state != NODE_PENDING)
					continue;
				if (fn->wait.failed) {
					char what[64];

					snprintf(what, sizeof(what), "GET job %lld",
					         (long long)fn->job_id);
					request_fail(r, u->p, k, &fn->wait, what);
					fn->job.terminal = true;
					continue;
				}
				job_collect(r, u, k);
			}
			progress_report(r, u);
		}
		/* Passes that landed before a signal were collected above. */
		if (!r->abort && !stopped(r))
			sessions_renew_due(r, u->p);
		if (r->abort || stopped(r)) {
			jobs_cancel(r, u);
			rc = stopped(r) ? -EINTR : -EIO;
			break;
		}
	}
	fleet_jobs_wait_end(r->f);
	return rc;
}

/*
 * Start the point on every active node where it is pending: one job POST carrying its
 * configuration where the agent records the job's read-back, else a PATCH and, node by node
 * as each read-back arrives, the job (fleet_point_start); record the read-back and the job
 * ids. A node whose PATCH failed runs no job.
 */
static void point_start(struct runner *r, struct run *u)
{
	int n = r->s->plan.nnodes, k;

	for (k = 0; k < n; k++) {
		r->nodes[k].run = r->f->active[k] && u->p->nodes[k].state == NODE_PENDING;
		r->nodes[k].cfg = u->p->nodes[k].cfg; /* a cohort's own, or NULL: the point's */
	}
	fleet_point_start(r->f, &u->p->cfg, r->s->id, u->p->index, u->loops, r->nodes);
	for (k = 0; k < n; k++) {
		struct node_result *nr = &u->p->nodes[k];
		struct fleet_node_run *fn = &r->nodes[k];

		if (!fn->run)
			continue;
		if (fn->patch.failed) {
			request_fail(r, u->p, k, &fn->patch, "PATCH params");
			continue;
		}
		if (!fn->in_job) { /* a PATCH's read-back; a job's comes with its answers */
			nr->applied = fn->applied;
			nr->adjusted_mask = fn->adjusted;
		}
		if (fn->post.failed) {
			request_fail(r, u->p, k, &fn->post, "POST job");
			fn->job_id = 0;
		} else {
			nr->job_id = fn->job_id;
		}
	}
	for (k = 0; k < n; k++)
		r->nodes[k].job.terminal = !r->nodes[k].job_id;
}

/* What the agents' job records say of the run: first and last start and end, longest job. */
static void times_jobs(struct runner *r, struct runner_times *t)
{
	int k;

	for (k = 0; k < r->s->plan.nnodes; k++) {
		const struct job_status *js = &r->nodes[k].job;

		if (!r->nodes[k].job_id || js->started_at <= 0 || js->finished_at < js->started_at)
			continue;
		if (t->first_start_at == 0 || js->started_at < t->first_start_at)
			t->first_start_at = js->started_at;
		if (js->started_at > t->last_start_at)
			t->last_start_at = js->started_at;
		if (t->first_end_at == 0 || js->finished_at < t->first_end_at)
			t->first_end_at = js->finished_at;
		if (js->finished_at > t->last_end_at)
			t->last_end_at = js->finished_at;
		if (job_runtime_s(js) > t->longest_job_s)
			t->longest_job_s = job_runtime_s(js);
	}
}

/* Run point for loops loops on every active node, in round (0: none); a warm-up run's passes
 * are kept apart and not counted in the point's loops. */
static int point_run(struct runner *r, int point, int loops, int round, bool warmup)
{
	int n = r->s->plan.nnodes, k, rc = 0;
	struct run u = {
		.p = &r->s->points[point], .loops = loops, .round = round, .warmup = warmup
	};
	struct runner_times *t = &r->last;
	double t0 = r->o.mono_s();

	if (stopped(r))
		return -EINTR;
	if (r->abort)
		return -EIO;
	memset(t, 0, sizeof(*t));
	t->point = point;
	t->start_at = r->o.now_s();
	if (!warmup)
		sweep_point_loops_add(r->s, point, loops);
	for (k = 0; k < n; k++) {
		struct node_result *nr = &u.p->nodes[k];

		if (!r->f->active[k])
			nr->state = NODE_DROPPED;
		else if (nr->state == NODE_OK)
			nr->state = NODE_PENDING; /* another run of a point that went well */
		r->reported[k] = nr->npasses;
		r->nodes[k].passes_before = warmup ? nr->nwarmup : nr->npasses;
	}
	point_start(r, &u);
	t->started_at = r->o.now_s();
	if (r->abort || stopped(r)) {
		jobs_cancel(r, &u);
		return stopped(r) ? -EINTR : -EIO;
	}
	rc = jobs_wait(r, &u);
	t->done_at = r->o.now_s();
	times_jobs(r, t);
	if (rc == 0) {
		r->run_s += r->o.mono_s() - t0;
		r->span_s += t->last_end_at - t->first_start_at;
		r->longest_s += t->longest_job_s;
		r->runs++;
	}
	return rc;
}

int runner_round_run(struct runner *r, const struct schedule_run *run)
{
	return point_run(r, run->point, 1, run->round, run->warmup);
}
