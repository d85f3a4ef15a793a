/* runner.c -- a point on every node at once: PATCH, start the jobs, wait, collect, cancel. */
#include <errno.h>
#include <math.h>
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
	r->ahead = xcalloc((size_t)s->plan.nnodes + 1, sizeof(*r->ahead));
	r->gap_s = RUNNER_GAP_START_S;
	f->progress_s = r->o.progress_s;
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
	fleet_node_runs_release(r->nodes, r->s ? r->s->plan.nnodes : 0);
	fleet_node_runs_release(r->ahead, r->s ? r->s->plan.nnodes : 0);
	free(r->nodes);
	free(r->ahead);
	free(r->spreads_s);
	r->reported = NULL;
	r->nodes = NULL;
	r->ahead = NULL;
	r->spreads_s = NULL;
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
		node_result_error_set(&p->nodes[k], why);
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
	node_result_error_set(&p->nodes[k], why);
	event(r, &ev);
}

/* A failed request: an unreachable node fails as a node, an error answer fails the point. */
static void request_fail(struct runner *r, struct point *p, int k, const struct fleet_result *res,
                         const char *what)
{
	char why[320];

	snprintf(why, sizeof(why), "%s: %s", what, res->err.msg);
	if (res->unreachable)
		node_fail(r, p, k, why);
	else
		point_fail(r, p, k, why);
}

/* The fan-out a run posted before any was measured stands for (runner.h). */
static double first_fanout_s(const struct runner *r)
{
	return RUNNER_FIRST_FANOUTS * r->sessions_fanout_s;
}

int runner_sessions_open(struct runner *r, struct err *e)
{
	int n = r->s->plan.nnodes, k, rc = 0;
	struct fleet_result *res = xcalloc((size_t)n + 1, sizeof(*res));
	double t0 = r->o.mono_s();

	fleet_sessions_open(r->f, r->o.session_ttl_s, res);
	r->last_renew = r->o.mono_s();
	r->sessions_fanout_s = r->last_renew - t0;
	for (k = 0; k < n && !rc; k++)
		if (res[k].failed)
			rc = err_set(e, -EIO, ERR_SESSION_FAILED,
			             "%s: cannot open a tuning session: %s",
			             r->s->plan.nodes[k].name, res[k].err.msg);
	if (rc)
		fleet_sessions_close(r->f, true, NULL);
	free(res);
	return rc;
}

void runner_sessions_close(struct runner *r)
{
	int n = r->s->plan.nnodes, k;
	struct fleet_result *res = xcalloc((size_t)n + 1, sizeof(*res));

	runner_ahead_cancel(r);
	fleet_sessions_close(r->f, true, res);
	for (k = 0; k < n; k++) {
		struct runner_event ev = {
			.kind = RUNNER_RESTORE_FAILED, .point = -1, .node = k, .why = res[k].err.msg
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

			snprintf(why, sizeof(why), "session renew: %s", res[k].err.msg);
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

/* Cancel the jobs of the run posted ahead on the nodes where want is NULL or want[k] false;
 * their part is cleared. */
static void ahead_drop(struct runner *r, const bool *want)
{
	int n = r->s->plan.nnodes, k, any = 0;
	int64_t *ids = xcalloc((size_t)n + 1, sizeof(*ids));

	for (k = 0; k < n; k++) {
		struct fleet_node_run *fn = &r->ahead[k];

		if (want && want[k])
			continue;
		if (fn->job_id && !fn->post.failed) {
			ids[k] = fn->job_id;
			any++;
		}
		fn->job_id = 0;
		fn->run = false;
	}
	if (any)
		fleet_jobs_cancel(r->f, ids, NULL);
	free(ids);
}

void runner_ahead_cancel(struct runner *r)
{
	if (!r->next.posted)
		return;
	ahead_drop(r, NULL);
	r->next.posted = false;
}

/* Cancel the jobs still running (and a run posted ahead) and mark those nodes cancelled. */
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
	runner_ahead_cancel(r);
}

/* A finished job's runtime by the agent's clock (finished_at - started_at, less what it held
 * for its start_at: waiting is not the job's time); 0 when unknown. */
static double job_runtime_s(const struct job_status *js)
{
	return js->started_at > 0 && js->finished_at >= js->started_at
	               ? fmax(js->finished_at - js->started_at - js->held_s, 0)
	               : 0;
}

/* Cancel node k's job alone (its run failed; the others go on) and take it as ended. */
static void node_job_cancel(struct runner *r, int k)
{
	int64_t *ids = xcalloc((size_t)r->s->plan.nnodes + 1, sizeof(*ids));

	ids[k] = r->nodes[k].job_id;
	if (ids[k] && !r->nodes[k].job.terminal)
		fleet_jobs_cancel(r->f, ids, NULL);
	r->nodes[k].job.terminal = true;
	free(ids);
}

/* The margin the controller adds to a run's deadline: the answers' transit, a loaded node. */
#define RUN_DEADLINE_MARGIN_S 15.0

/* How long node k's run of loops may stay running: the agent's run_deadline_s where it gives
 * one (contract: loops x (pass deadline + 5 s), + the filesystem's steps), else the agent's
 * rule from the plan (2 x runtime_s + 30 s a pass, + 5 s, a filesystem's 3620 s) where the
 * plan has a runtime; + RUN_DEADLINE_MARGIN_S and a tenth. 0: no bound known (an engine with
 * no runtime on an agent that gives none). */
static double run_deadline_s(const struct runner *r, int k, int loops)
{
	const struct plan *p = &r->s->plan;
	double d = r->nodes[k].job.run_deadline_s;

	if (d <= 0 && p->runtime_s > 0)
		d = loops * (ceil(2 * p->runtime_s + 30) + 5) + (p->has_fs ? 3620 : 0);
	return d > 0 ? d * 1.1 + RUN_DEADLINE_MARGIN_S : 0;
}

/* Fail and cancel the runs that stay running past their deadline: a hung engine on an agent
 * that never ends it (the other nodes would stay tuned at this point meanwhile). */
static void deadlines_check(struct runner *r, struct run *u)
{
	double now = r->o.mono_s(), bound;
	int k;

	for (k = 0; k < r->s->plan.nnodes; k++) {
		struct fleet_node_run *fn = &r->nodes[k];
		char why[300];

		if (!fn->job_id || fn->job.terminal || u->p->nodes[k].state != NODE_PENDING)
			continue;
		if (!fn->running_since_mono && !strcmp(fn->job.state, "running"))
			fn->running_since_mono = now;
		bound = run_deadline_s(r, k, u->loops);
		if (!fn->running_since_mono || bound <= 0 || now - fn->running_since_mono <= bound)
			continue;
		snprintf(why, sizeof(why),
		         "job %lld ran past its deadline: running for %.0f s, more than the %.0f s "
		         "its %d loop%s may take (%s); cancelled",
		         (long long)fn->job_id, now - fn->running_since_mono, bound, u->loops,
		         u->loops == 1 ? "" : "s",
		         fn->job.run_deadline_s > 0 ? "the agent's run_deadline_s and a margin"
		                                    : "2 x runtime_s + 30 s a pass and a margin");
		node_job_cancel(r, k);
		point_fail(r, u->p, k, why);
	}
}

/* Copy node k's new passes and, once its job ended, its outcome into the point. */
static void job_collect(struct runner *r, struct run *u, int k)
{
	struct node_result *nr = &u->p->nodes[k];
	const struct job_status *js = &r->nodes[k].job;
	/* A one-loop job's pass started when the job did (the agent's clock); a warm-up run's
	 * passes are counted apart (passes_before counts those for it). */
	const struct sweep_job_figures jf = {
		.applied = r->nodes[k].in_job && r->nodes[k].applied_seen ? &r->nodes[k].applied
		                                                          : NULL,
		.adjusted = r->nodes[k].adjusted,
		.passes = js->passes,
		.npasses = js->npasses,
		.passes_before = r->nodes[k].passes_before,
		.series = js->series,
		.nseries = js->nseries,
		.round = u->round,
		.started_at =
		        u->loops == 1 ? (js->begun_at > 0 ? js->begun_at : js->started_at) : 0,
		.warmup = u->warmup,
		.mkfs = js->mkfs,
	};
	char bad[128];
	int j;

	/* The rule the reader of a saved sweep applies (sweep.h): a figure it would refuse fails
	 * the node's run here, not the document later. */
	j = sweep_node_job_record(nr, &jf, bad, sizeof(bad));
	if (j >= 0) {
		char why[300];

		snprintf(why, sizeof(why), "job %lld pass %d: %s; the run is refused",
		         (long long)r->nodes[k].job_id, r->nodes[k].passes_before + j + 1, bad);
		node_job_cancel(r, k);
		point_fail(r, u->p, k, why);
		return;
	}
	if (!js->terminal)
		return;
	nr->job_runtime_s += job_runtime_s(js);
	if (js->succeeded && js->npasses > 0) {
		nr->state = NODE_OK;
	} else {
		char why[300];

		snprintf(why, sizeof(why), "job %lld %s%s%s", (long long)r->nodes[k].job_id,
		         js->state, js->err.msg[0] ? ": " : "", js->err.msg);
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
		deadlines_check(r, u);
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

/* Post point p's run of loops loops into nodes, on every node where nodes[k].run, its jobs
 * starting at moment (the controller's clock; 0: at once) where the agent takes start_at:
 * one job POST carrying the configuration where the agent records the job's read-back, else
 * a PATCH and, node by node as each read-back arrives, the job (fleet_point_start). */
static void run_post(struct runner *r, struct point *p, int loops, struct fleet_node_run *nodes,
                     double moment)
{
	int n = r->s->plan.nnodes, k;

	for (k = 0; k < n; k++) {
		nodes[k].cfg = p->nodes[k].cfg; /* a cohort's own, or NULL: the point's */
		nodes[k].start_at = moment;
	}
	fleet_point_start(r->f, &p->cfg, r->s->id, p->index, loops, nodes);
}

/* The run's posted jobs into the point: the read-back of a PATCH, the job ids, the requests
 * that failed (a node whose PATCH failed runs no job). */
static void run_adopt(struct runner *r, struct run *u)
{
	int n = r->s->plan.nnodes, k;

	for (k = 0; k < n; k++) {
		struct node_result *nr = &u->p->nodes[k];
		struct fleet_node_run *fn = &r->nodes[k];

		if (!fn->run)
			continue;
		if (fn->patch.failed) {
			request_fail(r, u->p, k, &fn->patch, "PATCH params");
			fn->job_id = 0;
			continue;
		}
		if (!fn->in_job) { /* a PATCH's read-back; a job's comes with its answers */
			node_result_applied_set(nr, &fn->applied);
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

/* The moment a run posted now starts at: past the fan-out of its POSTs (the last run's, or
 * before any, first_fanout_s) and the margin; 0 when no node takes start_at. */
static double moment_new(struct runner *r)
{
	double fanout = r->fanout_s > 0 ? r->fanout_s : first_fanout_s(r);
	int k;

	for (k = 0; k < r->s->plan.nnodes; k++)
		if (r->f->active[k] && r->f->start_at[k])
			return r->o.now_s() + fanout + r->margin_extra_s + RUNNER_START_MARGIN_S;
	return 0;
}

/* Whether the run after this one (moment: its start_at) may be posted ahead: a batch's next
 * run is known, every active node takes start_at and carries the params in its job (no PATCH
 * may touch a device while its run goes on), and a pass's length is known. */
static bool ahead_ok(const struct runner *r, const struct schedule_run *next, double moment)
{
	int k;

	if (!next || !(moment > 0) || !(r->pass_s > 0 || r->o.pass_expected_s > 0))
		return false;
	for (k = 0; k < r->s->plan.nnodes; k++)
		if (r->f->active[k] && (!r->f->start_at[k] || !r->f->job_applied[k]))
			return false;
	return true;
}

/* Post the batch's next run now, to start at this run's moment plus a pass and the gap (and
 * no sooner than its own fan-out allows). */
static void ahead_post(struct runner *r, const struct schedule_run *next, double moment)
{
	struct point *p = &r->s->points[next->point];
	int n = r->s->plan.nnodes, k;
	/* Before a run has ended, the agents' estimate, a little for the engine's start and what
	 * the job's end costs (runner.h): a first run posted ahead that starts late is worse
	 * than one that waits. */
	double pass = r->pass_s > 0 ? r->pass_s
	                            : r->o.pass_expected_s * 1.05 + 0.1 +
	                                      RUNNER_END_FANOUTS * r->fanout_s;
	double at, t0 = r->o.mono_s();
	double floor_at =
	        r->o.now_s() + fmax(r->fanout_s, 2 * r->sessions_fanout_s) + RUNNER_START_MARGIN_S;

	/* The latest lead of the last runs plus the slack and how far those leads ranged; before
	 * any, the first gap: the fan-out of the POSTs that just went and the margin (runner.h). */
	if (r->nleads > 0)
		r->gap_s = fmin(
		        fmax(runner_lead_max(r) + runner_lead_range(r) + RUNNER_GAP_SLACK_S - pass,
		             RUNNER_GAP_MIN_S),
		        RUNNER_GAP_MAX_S);
	else
		r->gap_s =
		        fmin(fmax(r->gap_s, r->fanout_s + RUNNER_START_MARGIN_S), RUNNER_GAP_MAX_S);
	at = moment + pass + r->gap_s;
	if (at < floor_at)
		at = floor_at;
	for (k = 0; k < n; k++)
		r->ahead[k].run = r->f->active[k] && (p->nodes[k].state == NODE_PENDING ||
		                                      p->nodes[k].state == NODE_OK);
	run_post(r, p, 1, r->ahead, at);
	r->fanout_s = r->o.mono_s() - t0;
	r->next = (struct runner_ahead){ .posted = true,
		                         .point = next->point,
		                         .round = next->round,
		                         .warmup = next->warmup,
		                         .moment = at,
		                         .after_s = at - moment };
}

/* Whether the run posted ahead is this one; one that is not is cancelled (another run came
 * first: its jobs will not run). */
static bool ahead_is(struct runner *r, int point, int round, bool warmup)
{
	if (!r->next.posted)
		return false;
	if (r->next.point == point && r->next.round == round && r->next.warmup == warmup)
		return true;
	runner_ahead_cancel(r);
	return false;
}

double runner_lead_max(const struct runner *r)
{
	int i, n = r->nleads < RUNNER_GAP_WINDOW ? r->nleads : RUNNER_GAP_WINDOW;
	double m = n > 0 ? r->leads_s[0] : 0;

	for (i = 1; i < n; i++)
		m = fmax(m, r->leads_s[i]);
	return m;
}

double runner_lead_range(const struct runner *r)
{
	int i, n = r->nleads < RUNNER_GAP_WINDOW ? r->nleads : RUNNER_GAP_WINDOW;
	double lo = n > 0 ? r->leads_s[0] : 0;

	for (i = 1; i < n; i++)
		lo = fmin(lo, r->leads_s[i]);
	return n > 0 ? runner_lead_max(r) - lo : 0;
}

void runner_start_learn(struct runner *r, const struct runner_times *t)
{
	if (t->pass_max_s > 0)
		r->pass_s = t->pass_max_s;
	if (!(t->moment > 0) || !(t->first_begun_at > 0))
		return;
	r->spreads_s = xrealloc(r->spreads_s, (size_t)(r->nspreads + 1) * sizeof(double));
	r->spreads_s[r->nspreads++] = t->last_begun_at - t->first_begun_at;
	r->nlate += t->late_max_s > RUNNER_LATE_S;
	if (t->ahead && t->after_s > 0) {
		double lead = t->unready_late_max_s > RUNNER_LATE_S
		                      ? t->after_s + t->unready_late_max_s
		                      : t->after_s - t->held_min_s;

		r->leads_s[r->nleads++ % RUNNER_GAP_WINDOW] = lead;
	} else if (!t->ahead && t->unready_late_max_s > RUNNER_LATE_S) {
		r->margin_extra_s += t->unready_late_max_s;
	}
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

bool runner_spread(const struct runner *r, double *median_s, double *max_s)
{
	double *v;
	int n = r->nspreads;

	if (!n)
		return false;
	v = xcalloc((size_t)n, sizeof(double));
	memcpy(v, r->spreads_s, (size_t)n * sizeof(double));
	qsort(v, (size_t)n, sizeof(double), dbl_cmp);
	*median_s = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	*max_s = v[n - 1];
	free(v);
	return true;
}

/* What the agents' job records say of the run: first and last start and end, longest job. */
static void times_jobs(struct runner *r, struct runner_times *t)
{
	int k;

	for (k = 0; k < r->s->plan.nnodes; k++) {
		const struct job_status *js = &r->nodes[k].job;

		if (!r->nodes[k].job_id || js->started_at <= 0 || js->finished_at < js->started_at)
			continue;
		if (js->begun_at > 0) {
			/* To the microsecond where the job started by the clock (the moment plus
			 * its lateness by the node's own clock); begun_at is to the millisecond. */
			double b = t->moment > 0 && r->f->start_at[k] ? t->moment + js->start_late_s
			                                              : js->begun_at;

			if (t->first_begun_at == 0 || b < t->first_begun_at)
				t->first_begun_at = b;
			if (b > t->last_begun_at)
				t->last_begun_at = b;
			if (js->finished_at - js->begun_at > t->pass_max_s)
				t->pass_max_s = js->finished_at - js->begun_at;
		}
		if (t->moment > 0 && r->f->start_at[k]) {
			if (js->start_late_s > t->late_max_s)
				t->late_max_s = js->start_late_s;
			if (!(js->held_s > 0) && js->start_late_s > t->unready_late_max_s)
				t->unready_late_max_s = js->start_late_s;
			if (t->held_min_s < 0 || js->held_s < t->held_min_s)
				t->held_min_s = js->held_s;
		}
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
 * are kept apart and not counted in the point's loops. next: the batch's run after it, posted
 * ahead where it may be. */
static int point_run(struct runner *r, int point, int loops, int round, bool warmup,
                     const struct schedule_run *next)
{
	int n = r->s->plan.nnodes, k, rc = 0;
	struct run u = {
		.p = &r->s->points[point], .loops = loops, .round = round, .warmup = warmup
	};
	struct runner_times *t = &r->last;
	double t0 = r->o.mono_s(), moment = r->next.moment;
	bool ahead, *want;

	if (stopped(r))
		return -EINTR;
	if (r->abort)
		return -EIO;
	memset(t, 0, sizeof(*t));
	t->point = point;
	t->start_at = r->o.now_s();
	t->held_min_s = -1;
	ahead = loops == 1 ? ahead_is(r, point, round, warmup) : (runner_ahead_cancel(r), false);
	if (!warmup)
		sweep_point_loops_add(r->s, point, loops);
	want = xcalloc((size_t)n + 1, sizeof(bool));
	for (k = 0; k < n; k++) {
		struct node_result *nr = &u.p->nodes[k];

		if (!r->f->active[k])
			nr->state = NODE_DROPPED;
		else if (nr->state == NODE_OK)
			nr->state = NODE_PENDING; /* another run of a point that went well */
		r->reported[k] = nr->npasses;
		want[k] = r->f->active[k] && nr->state == NODE_PENDING;
	}
	if (ahead) {
		/* Posted during the run before: the nodes that no longer run it let it go, and
		 * its part becomes the run's. */
		struct fleet_node_run *cur = r->nodes;

		ahead_drop(r, want);
		r->nodes = r->ahead;
		r->ahead = cur;
		r->next.posted = false;
		t->ahead = true;
		t->moment = moment;
		t->after_s = r->next.after_s;
	} else {
		for (k = 0; k < n; k++)
			r->nodes[k].run = want[k];
		t->moment = moment_new(r);
		run_post(r, u.p, loops, r->nodes, t->moment);
		r->fanout_s = r->o.mono_s() - t0;
	}
	free(want);
	for (k = 0; k < n; k++) {
		r->nodes[k].passes_before = warmup ? u.p->nodes[k].nwarmup : u.p->nodes[k].npasses;
		r->nodes[k].running_since_mono = 0;
	}
	run_adopt(r, &u);
	t->started_at = ahead ? t->start_at : r->o.now_s();
	if (r->abort || stopped(r)) {
		jobs_cancel(r, &u);
		return stopped(r) ? -EINTR : -EIO;
	}
	if (loops == 1 && ahead_ok(r, next, t->moment))
		ahead_post(r, next, t->moment);
	rc = jobs_wait(r, &u);
	t->done_at = r->o.now_s();
	times_jobs(r, t);
	if (t->held_min_s < 0)
		t->held_min_s = 0;
	if (rc == 0) {
		r->run_s += r->o.mono_s() - t0;
		r->span_s += t->last_end_at -
		             (t->first_begun_at > 0 ? t->first_begun_at : t->first_start_at);
		r->longest_s += t->longest_job_s;
		r->runs++;
		runner_start_learn(r, t);
	}
	return rc;
}

int runner_round_run(struct runner *r, const struct schedule_run *run,
                     const struct schedule_run *next)
{
	return point_run(r, run->point, 1, run->round, run->warmup, next);
}
