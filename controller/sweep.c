/* sweep.c -- sweep points, the grid and sequential strategies, and the run loop. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctlstore.h"
#include "fleet.h"
#include "log.h"
#include "sweep.h"
#include "timeutil.h"
#include "verdict.h"
#include "xmalloc.h"
#include "banned.h"

void sweep_init(struct sweep *s, struct plan *plan)
{
	memset(s, 0, sizeof(*s));
	s->plan = *plan;
	memset(plan, 0, sizeof(*plan));
	snprintf(s->status, sizeof(s->status), "running");
	s->node_dropped = xcalloc((size_t)s->plan.nnodes + 1, sizeof(bool));
	s->best = -1;
	s->created_at = time_now_s();
}

void sweep_release(struct sweep *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < s->npoints; i++)
		free(s->points[i].nodes);
	free(s->points);
	free(s->node_dropped);
	plan_release(&s->plan);
	memset(s, 0, sizeof(*s));
}

int sweep_point_add(struct sweep *s, enum point_role role, int axis, int ref,
                    const struct config *cfg)
{
	struct point *p;
	int i;

	if (s->npoints == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->points = xrealloc(s->points, (size_t)s->cap * sizeof(*s->points));
	}
	p = &s->points[s->npoints];
	memset(p, 0, sizeof(*p));
	p->index = s->npoints;
	p->role = role;
	p->axis = axis;
	p->ref = ref;
	p->cfg = *cfg;
	p->nodes = xcalloc((size_t)s->plan.nnodes + 1, sizeof(*p->nodes));
	for (i = 0; i < s->plan.nnodes; i++) {
		p->nodes[i].state = s->node_dropped[i] ? NODE_DROPPED : NODE_PENDING;
		p->nodes[i].delta_pct = NAN;
	}
	p->delta_pct = p->ci_low_pct = p->ci_high_pct = p->spread_pct = NAN;
	return s->npoints++;
}

/* Add the grid: the baseline, then every combination (odometer over the axes). */
static int grid_expand(struct sweep *s)
{
	const struct plan *p = &s->plan;
	int idx[64] = { 0 }, added = 1, a;

	sweep_point_add(s, ROLE_BASELINE, -1, -1, &p->baseline);
	for (;;) {
		struct config c = p->baseline;

		for (a = 0; a < p->naxes; a++)
			config_merge(&c, &p->axes[a].values[idx[a]]);
		if (!config_equal(&c, &p->baseline)) {
			sweep_point_add(s, ROLE_CANDIDATE, -1, 0, &c);
			added++;
		}
		for (a = p->naxes - 1; a >= 0; a--) {
			if (++idx[a] < p->axes[a].nvalues)
				break;
			idx[a] = 0;
		}
		if (a < 0)
			break;
	}
	return added;
}

/* Add axis ax's batch: a baseline of cur, then each value over cur. */
static int axis_batch(struct sweep *s, int ax, const struct config *cur)
{
	const struct plan_axis *a = &s->plan.axes[ax];
	int base, added = 1, i;

	base = sweep_point_add(s, ROLE_BASELINE, ax, s->npoints ? 0 : -1, cur);
	for (i = 0; i < a->nvalues; i++) {
		struct config c = *cur;

		config_merge(&c, &a->values[i]);
		if (config_equal(&c, cur))
			continue;
		sweep_point_add(s, ROLE_CANDIDATE, ax, base, &c);
		added++;
	}
	return added;
}

/* The chosen configuration after axis ax: the best significant gain, or its baseline. */
static void axis_choice(struct sweep *s, int ax, struct config *out)
{
	int i, best = -1;

	verdict_sweep(s);
	for (i = 0; i < s->npoints; i++) {
		const struct point *p = &s->points[i];

		if (p->axis != ax)
			continue;
		if (p->role == ROLE_BASELINE && best < 0)
			*out = p->cfg;
		if (p->role != ROLE_CANDIDATE || p->verdict != ROW_GAIN)
			continue;
		if (best < 0 || (s->plan.minimize ? p->delta_pct < s->points[best].delta_pct
		                                  : p->delta_pct > s->points[best].delta_pct))
			best = i;
	}
	if (best >= 0)
		*out = s->points[best].cfg;
}

int sweep_points_next(struct sweep *s)
{
	struct config cur;
	int last_axis;

	if (s->plan.strategy == PLAN_GRID)
		return s->npoints ? 0 : grid_expand(s);
	if (!s->npoints)
		return axis_batch(s, 0, &s->plan.baseline);
	if (s->points[s->npoints - 1].role == ROLE_FINAL)
		return 0;
	last_axis = s->points[s->npoints - 1].axis;
	axis_choice(s, last_axis, &cur);
	if (last_axis + 1 < s->plan.naxes)
		return axis_batch(s, last_axis + 1, &cur);
	if (config_equal(&cur, &s->plan.baseline))
		return 0;
	sweep_point_add(s, ROLE_FINAL, -1, 0, &cur);
	return 1;
}

int sweep_points_estimate(const struct plan *p)
{
	int n = 1, i;

	if (p->strategy == PLAN_GRID) {
		int idx[64] = { 0 }, a;

		/* The baseline, plus every combination that differs from it. */
		for (;;) {
			struct config c = p->baseline;

			for (a = 0; a < p->naxes; a++)
				config_merge(&c, &p->axes[a].values[idx[a]]);
			n += !config_equal(&c, &p->baseline);
			for (a = p->naxes - 1; a >= 0; a--) {
				if (++idx[a] < p->axes[a].nvalues)
					break;
				idx[a] = 0;
			}
			if (a < 0)
				return n;
		}
	}
	/* Per axis a fresh baseline and its values; then the final confirmation. */
	for (i = 0; i < p->naxes; i++)
		n += 1 + p->axes[i].nvalues;
	return n;
}

static volatile sig_atomic_t sweep_signal;

static void on_signal(int sig)
{
	sweep_signal = sig;
}

void sweep_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

bool sweep_interrupted(void)
{
	return sweep_signal != 0;
}

/* The state of one sweep_run(). */
struct runner {
	struct sweep *s;
	const struct sweep_opts *o;
	struct fleet f;
	struct ctlstore *st;
	int est_points;
	int points_done;
	double t_start, point_s_sum, last_renew, last_draw;
	double jobs_s;      /* per point: jobs posted until the last node finished, summed */
	bool abort;         /* a node failed and we are not continuing */
	bool progress_line; /* a TTY progress line is on screen */
};

static void progress_clear(struct runner *r)
{
	if (r->progress_line) {
		fputs("\r\033[K", stderr);
		r->progress_line = false;
	}
}

/* Mark node k of point p failed; drop it or abort the sweep. */
static void node_fail(struct runner *r, struct point *p, int k, const char *why)
{
	struct node_result *nr = &p->nodes[k];

	progress_clear(r);
	nr->state = NODE_FAILED;
	snprintf(nr->error, sizeof(nr->error), "%s", why);
	if (r->o->continue_on_node_failure) {
		int i, left = 0;

		log_error("%s failed: %s; dropping it and continuing", r->s->plan.nodes[k].name,
		          why);
		r->f.active[k] = false;
		r->s->node_dropped[k] = true;
		for (i = 0; i < r->s->plan.nnodes; i++)
			left += r->f.active[i];
		if (!left) {
			log_error("no nodes left");
			r->abort = true;
		}
		return;
	}
	log_error("%s failed: %s; aborting the sweep", r->s->plan.nodes[k].name, why);
	r->abort = true;
}

/* Node k answered but point p failed there (a rejected value, a failed job): record it and
 * go on; the node stays in the sweep. */
static void point_fail(struct runner *r, struct point *p, int k, const char *why)
{
	struct node_result *nr = &p->nodes[k];

	progress_clear(r);
	nr->state = NODE_FAILED;
	snprintf(nr->error, sizeof(nr->error), "%s", why);
	log_error("%s: point %d failed: %s", r->s->plan.nodes[k].name, p->index + 1, why);
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

static void fmt_duration(double s, char *out, size_t len)
{
	long t = s > 0 ? (long)(s + 0.5) : 0;

	if (t >= 3600)
		snprintf(out, len, "%ldh%02ldm", t / 3600, (t / 60) % 60);
	else if (t >= 60)
		snprintf(out, len, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(out, len, "%lds", t);
}

/* Live line on a TTY; otherwise one plain line per newly finished pass. */
static void progress_show(struct runner *r, const struct point *p, const struct job_status *js,
                          const int *seen)
{
	const struct sweep *s = r->s;
	struct buf b = BUF_INIT, cfg = BUF_INIT;
	double frac = 0, per_point, eta;
	int k, n = 0, loop = 0;
	char eta_s[32];

	config_format(&p->cfg, &cfg);
	for (k = 0; k < s->plan.nnodes; k++) {
		if (!r->f.active[k])
			continue;
		frac += js[k].terminal ? 1.0 : js[k].progress;
		if (js[k].loops_done + 1 > loop)
			loop = js[k].loops_done + (js[k].terminal ? 0 : 1);
		n++;
	}
	frac = n ? frac / n : 0;
	if (loop > s->plan.loops)
		loop = s->plan.loops;
	if (!r->o->progress_tty) {
		for (k = 0; k < s->plan.nnodes; k++) {
			int j;

			for (j = seen[k]; j < js[k].npasses; j++)
				fprintf(stderr, "point %d/%d %s: %s pass %d/%d %s %.1f\n",
				        p->index + 1, r->est_points, cfg.data,
				        s->plan.nodes[k].name, j + 1, s->plan.loops, s->plan.metric,
				        js[k].passes[j]);
		}
		buf_release(&cfg);
		return;
	}
	for (k = 0; k < s->plan.nnodes; k++)
		if (js[k].npasses != seen[k])
			break;
	/* Redraw on a new pass, else at most four times a second. */
	if (k == s->plan.nnodes && time_mono_s() - r->last_draw < 0.25) {
		buf_release(&cfg);
		return;
	}
	r->last_draw = time_mono_s();
	per_point = r->points_done
	                    ? r->point_s_sum / r->points_done
	                    : s->plan.loops * (s->plan.runtime_s > 0 ? s->plan.runtime_s : 10) + 1;
	eta = (r->est_points - r->points_done - frac) * per_point;
	fmt_duration(eta, eta_s, sizeof(eta_s));
	buf_printf(&b, "\r\033[Kpoint %d/%d [%s] loop %d/%d", p->index + 1, r->est_points, cfg.data,
	           loop ? loop : 1, s->plan.loops);
	for (k = 0; k < s->plan.nnodes; k++) {
		if (js[k].npasses)
			buf_printf(&b, "  %s %.1f", s->plan.nodes[k].name,
			           js[k].passes[js[k].npasses - 1]);
		else if (r->f.active[k])
			buf_printf(&b, "  %s -", s->plan.nodes[k].name);
	}
	buf_printf(&b, "  ETA %s", eta_s);
	fputs(b.data, stderr);
	fflush(stderr);
	r->progress_line = true;
	buf_release(&b);
	buf_release(&cfg);
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL); /* a signal cuts it short, which is what we want */
}

static void sessions_renew_due(struct runner *r, struct point *p)
{
	struct fleet_result res[r->s->plan.nnodes + 1];
	int k;

	if (time_mono_s() - r->last_renew < r->o->session_ttl_s / 4)
		return;
	r->last_renew = time_mono_s();
	fleet_sessions_renew(&r->f, res);
	for (k = 0; k < r->s->plan.nnodes; k++) {
		if (r->f.active[k] && res[k].failed) {
			char why[300];

			snprintf(why, sizeof(why), "session renew: %s", res[k].error);
			node_fail(r, p, k, why);
		}
	}
}

/* Cancel the jobs still running and mark those nodes cancelled. */
static void jobs_cancel(struct runner *r, struct point *p, int64_t *job_id,
                        const struct job_status *js)
{
	int n = r->s->plan.nnodes, k;
	int64_t live[n + 1];

	for (k = 0; k < n; k++) {
		live[k] = (job_id[k] && !js[k].terminal && p->nodes[k].state != NODE_FAILED)
		                  ? job_id[k]
		                  : 0;
		if (live[k])
			p->nodes[k].state = NODE_CANCELLED;
	}
	fleet_jobs_cancel(&r->f, live, NULL);
}

/* Apply a point on every node, run the job everywhere at once, and collect the passes. */
static void point_run(struct runner *r, struct point *p)
{
	int n = r->s->plan.nnodes, k, seen[n + 1], left;
	struct fleet_result res[n + 1];
	struct config applied[n + 1];
	unsigned adjusted[n + 1];
	int64_t job_id[n + 1];
	bool run[n + 1];
	struct job_status js[n + 1];
	double t0 = time_mono_s(), t_jobs = 0;

	memset(js, 0, sizeof(js));
	memset(seen, 0, sizeof(seen));
	memset(job_id, 0, sizeof(job_id));
	fleet_params_apply(&r->f, &p->cfg, applied, adjusted, res);
	for (k = 0; k < n; k++) {
		if (!r->f.active[k]) {
			p->nodes[k].state = NODE_DROPPED;
			continue;
		}
		if (res[k].failed) {
			request_fail(r, p, k, &res[k], "PATCH params");
			continue;
		}
		p->nodes[k].applied = applied[k];
		p->nodes[k].adjusted_mask = adjusted[k];
	}
	if (r->abort || sweep_interrupted())
		return;
	for (k = 0; k < n; k++)
		run[k] = r->f.active[k] && p->nodes[k].state == NODE_PENDING;
	fleet_jobs_start(&r->f, run, r->s->id, p->index, job_id, res);
	for (k = 0; k < n; k++) {
		if (!run[k])
			continue;
		if (res[k].failed) {
			request_fail(r, p, k, &res[k], "POST job");
			job_id[k] = 0;
		} else {
			p->nodes[k].job_id = job_id[k];
		}
	}
	if (r->abort) {
		jobs_cancel(r, p, job_id, js);
		return;
	}
	for (k = 0; k < n; k++)
		js[k].terminal = !job_id[k];
	t_jobs = time_mono_s();
	for (;;) {
		left = 0;
		for (k = 0; k < n; k++)
			left += !js[k].terminal && r->f.active[k];
		if (!left)
			break;
		sleep_s(r->o->poll_interval_s);
		fleet_jobs_poll(&r->f, job_id, js, res);
		for (k = 0; k < n; k++) {
			struct node_result *nr = &p->nodes[k];

			if (!job_id[k] || nr->state != NODE_PENDING)
				continue;
			if (res[k].failed) {
				char what[64];

				snprintf(what, sizeof(what), "GET job %lld", (long long)job_id[k]);
				request_fail(r, p, k, &res[k], what);
				js[k].terminal = true;
				continue;
			}
			nr->npasses = js[k].npasses;
			memcpy(nr->passes, js[k].passes, sizeof(double) * (size_t)js[k].npasses);
			if (!js[k].terminal)
				continue;
			nr->job_runtime_s = js[k].runtime_s;
			if (js[k].succeeded && js[k].npasses > 0) {
				nr->state = NODE_OK;
			} else {
				char why[300];

				snprintf(why, sizeof(why), "job %lld %s%s%s", (long long)job_id[k],
				         js[k].state, js[k].error[0] ? ": " : "", js[k].error);
				point_fail(r, p, k, why);
			}
		}
		progress_show(r, p, js, seen);
		for (k = 0; k < n; k++)
			seen[k] = js[k].npasses;
		/* Passes finished before the signal were collected by the poll above. */
		if (r->abort || sweep_interrupted()) {
			jobs_cancel(r, p, job_id, js);
			return;
		}
		sessions_renew_due(r, p);
		if (r->abort) {
			jobs_cancel(r, p, job_id, js);
			return;
		}
	}
	r->jobs_s += time_mono_s() - t_jobs;
	r->points_done++;
	r->point_s_sum += time_mono_s() - t0;
}

/* Pre-flight every node; nothing is changed when it fails. */
static int preflight(struct runner *r, struct err *e)
{
	int n = r->s->plan.nnodes, rc;
	struct node_info *info = xcalloc((size_t)n, sizeof(*info));
	struct buf problems = BUF_INIT;

	fleet_probe(&r->f, info);
	rc = fleet_preflight_check(&r->s->plan, info, &problems);
	if (rc < 0) {
		while (problems.len && problems.data[problems.len - 1] == '\n')
			problems.data[--problems.len] = '\0';
		fprintf(stderr, "pre-flight failed, nothing was changed:\n%s\n", problems.data);
		err_set(e, rc, "preflight_failed", "pre-flight failed on %s",
		        strchr(problems.data, ':') ? "one or more nodes" : "the fleet");
	}
	node_info_release(info, n);
	free(info);
	buf_release(&problems);
	return rc;
}

int sweep_run(struct sweep *s, const struct sweep_opts *o, struct err *e)
{
	struct runner r = { .s = s, .o = o };
	int n = s->plan.nnodes, k, added, code = 1, rc;
	struct fleet_result res[n + 1];
	struct err se;

	r.est_points = sweep_points_estimate(&s->plan);
	r.t_start = time_mono_s();
	fleet_init(&r.f, &s->plan, 5.0, 2);
	rc = ctlstore_open(o->db_path, &r.st, e);
	if (rc < 0)
		goto out;
	if (preflight(&r, e) < 0)
		goto out;
	if (sweep_interrupted()) {
		code = 130;
		goto out;
	}
	rc = ctlstore_sweep_create(r.st, s, e);
	if (rc < 0)
		goto out;
	fleet_sessions_open(&r.f, o->session_ttl_s, res);
	r.last_renew = time_mono_s();
	for (k = 0; k < n; k++) {
		if (!res[k].failed)
			continue;
		err_set(e, -EIO, "session_failed", "%s: cannot open a tuning session: %s",
		        s->plan.nodes[k].name, res[k].error);
		fleet_sessions_close(&r.f, true, NULL);
		snprintf(s->status, sizeof(s->status), "failed");
		s->finished_at = time_now_s();
		ctlstore_sweep_finish(r.st, s, NULL);
		goto out;
	}
	log_info("sweep %lld \"%s\": %d node%s, up to %d points of %d loops", (long long)s->id,
	         s->plan.name, n, n == 1 ? "" : "s", r.est_points, s->plan.loops);
	while (!r.abort && !sweep_interrupted() && (added = sweep_points_next(s)) > 0) {
		int first = s->npoints - added, i;

		for (i = first; i < s->npoints && !r.abort && !sweep_interrupted(); i++) {
			point_run(&r, &s->points[i]);
			verdict_sweep(s);
			if (ctlstore_point_save(r.st, s, i, &se) < 0)
				log_error("%s", se.msg);
		}
	}
	progress_clear(&r);
	fleet_sessions_close(&r.f, true, res);
	for (k = 0; k < n; k++)
		if (res[k].failed)
			log_error("%s: restore failed: %s (the agent restores when the session's "
			          "TTL expires)",
			          s->plan.nodes[k].name, res[k].error);
	if (sweep_interrupted()) {
		snprintf(s->status, sizeof(s->status), "interrupted");
		code = 130;
	} else if (r.abort) {
		snprintf(s->status, sizeof(s->status), "aborted");
		code = 2;
	} else {
		snprintf(s->status, sizeof(s->status), "completed");
		code = 0;
		for (k = 0; k < n; k++)
			if (s->node_dropped[k])
				code = 2;
	}
	s->finished_at = time_now_s();
	verdict_sweep(s);
	if (ctlstore_sweep_finish(r.st, s, &se) < 0)
		log_error("%s", se.msg);
	{
		double wall = time_mono_s() - r.t_start;
		double nominal = r.points_done * s->plan.loops * s->plan.runtime_s;

		log_info("sweep %lld %s: wall %.2f s; jobs %.2f s (POST to last node done, summed "
		         "over %d points; nominal fio time %.0f s); overhead x%.3f (x%.3f vs "
		         "nominal)",
		         (long long)s->id, s->status, wall, r.jobs_s, r.points_done, nominal,
		         r.jobs_s > 0 ? wall / r.jobs_s : 0.0, nominal > 0 ? wall / nominal : 0.0);
	}
	if (code == 2)
		err_set(e, -EIO, "node_failed",
		        "a node failed; partial results saved as sweep %lld", (long long)s->id);
	if (code == 130)
		err_set(e, -EINTR, "interrupted", "interrupted; nodes restored, sweep %lld saved",
		        (long long)s->id);
out:
	if (code == 1 && !s->id)
		snprintf(s->status, sizeof(s->status), "failed");
	ctlstore_close(r.st);
	fleet_release(&r.f);
	return code;
}
