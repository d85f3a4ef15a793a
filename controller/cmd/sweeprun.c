/* sweeprun.c -- the run of a sweep: pre-flight, sessions, the strategy's batches on the
 * runner, each point analysed and saved, every node restored, the sweep closed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/sweeprun.h"
#include "fleet/fleet.h"
#include "judge/analysis.h"
#include "judge/cohort.h"
#include "judge/race.h"
#include "log.h"
#include "model/words.h"
#include "render/text.h"
#include "render/progress.h"
#include "render/report.h"
#include "run/preflight.h"
#include "run/twins.h"
#include "run/runner.h"
#include "run/schedule.h"
#include "run/strategy.h"
#include "stats/rounds.h"
#include "store/ctlstore.h"
#include "timeutil.h"
#include "banned.h"

static bool stopped(const struct sweeprun_opts *o)
{
	return o->stop && *o->stop;
}

/* With --verbose: one run's phases, epoch seconds, for bench/fleet.sh. */
static void phases_log(const struct runner_times *t, int nnodes)
{
	log_debug("phases point=%d nodes=%d start=%.3f posted=%.3f first_start=%.3f "
	          "last_start=%.3f first_end=%.3f last_end=%.3f seen_done=%.3f saved=%.3f "
	          "longest=%.3f moment=%.3f ahead=%d first_begun=%.6f last_begun=%.6f "
	          "late_max=%.6f held_min=%.6f",
	          t->point, nnodes, t->start_at, t->started_at, t->first_start_at, t->last_start_at,
	          t->first_end_at, t->last_end_at, t->done_at, time_now_s(), t->longest_job_s,
	          t->moment, t->ahead, t->first_begun_at, t->last_begun_at, t->late_max_s,
	          t->held_min_s);
}

/* Close the sweep: restore every node, set the status and the result, analyse, save. */
/* The original baseline (point 0) failed on every node that ran it: nothing can ever be
 * compared with it, so the sweep stops at once rather than run its other points. */
static bool baseline_dead(const struct sweep *s)
{
	int k, failed = 0;

	if (s->npoints == 0)
		return false;
	for (k = 0; k < s->plan.nnodes; k++) {
		enum node_state st = s->points[0].nodes[k].state;

		if (st == NODE_OK || st == NODE_PENDING || st == NODE_CANCELLED)
			return false;
		failed += st == NODE_FAILED;
	}
	return failed > 0;
}

static enum sweeprun_result sweep_close(struct sweep *s, struct runner *r, struct ctlstore *st,
                                        int run_rc, bool stop, const char *save_err, struct err *e)
{
	enum sweeprun_result res;
	char saved[256];
	struct err se;
	int k;

	runner_sessions_close(r);
	if (run_rc == -EINTR || stop) {
		snprintf(s->status, sizeof(s->status), "interrupted");
		res = SWEEPRUN_INTERRUPTED;
	} else if (run_rc < 0 && run_rc != -ECANCELED) {
		snprintf(s->status, sizeof(s->status), "aborted");
		res = SWEEPRUN_NODE_FAILED;
	} else if (run_rc == -ECANCELED) {
		/* Stopped at once: the baseline failed on every node. */
		snprintf(s->status, sizeof(s->status), "failed");
		res = SWEEPRUN_FAILED;
	} else {
		snprintf(s->status, sizeof(s->status), "completed");
		res = SWEEPRUN_COMPLETED;
		for (k = 0; k < s->plan.nnodes; k++)
			if (s->node_dropped[k])
				res = SWEEPRUN_NODE_FAILED;
	}
	if (save_err) {
		snprintf(s->status, sizeof(s->status), "aborted");
		res = SWEEPRUN_FAILED;
	}
	s->finished_at = time_now_s();
	analysis_sweep_closed(s);
	if (ctlstore_sweep_finish(st, s, &se) < 0) {
		log_error("%s", se.msg);
		if (!save_err) {
			snprintf(saved, sizeof(saved), "%s", se.msg);
			save_err = saved;
		}
		res = SWEEPRUN_FAILED;
	}
	if (save_err)
		err_set(e, -EIO, ERR_STORE_ERROR,
		        "sweep %lld stopped: what it measured cannot be saved in --db (%s); every "
		        "node was restored",
		        (long long)s->id, save_err);
	else if (res == SWEEPRUN_NODE_FAILED)
		err_set(e, -EIO, ERR_NODE_FAILED,
		        "a node failed; partial results saved as sweep %lld", (long long)s->id);
	else if (res == SWEEPRUN_INTERRUPTED)
		err_set(e, -EINTR, ERR_INTERRUPTED, "interrupted; nodes restored, sweep %lld saved",
		        (long long)s->id);
	else if (run_rc == -ECANCELED) {
		struct buf why = BUF_INIT;

		words_best_line(s, &why);
		if (why.len && why.data[why.len - 1] == '\n')
			why.data[--why.len] = '\0';
		err_set(e, -EIO, ERR_BASELINE_FAILED,
		        "sweep %lld stopped at once: %s; no configuration can be compared with it, "
		        "so "
		        "none was run",
		        (long long)s->id,
		        why.data && !strncmp(why.data, "no best: ", 9) ? why.data + 9 : why.data);
		buf_release(&why);
	} else if (s->outcome == OUTCOME_BASELINE_FAILED || s->outcome == OUTCOME_NO_FIGURES) {
		struct buf why = BUF_INIT;

		/* Nothing to compare: not a success (the table says why, node by node). */
		words_best_summary(s, &why);
		err_set(e, -EIO, ERR_NO_BEST, "sweep %lld: %s", (long long)s->id, why.data);
		buf_release(&why);
		res = SWEEPRUN_FAILED;
	}
	return res;
}

/* The sweep's first line in the log: its nodes, and the points and loops it may run. */
static void start_log(const struct sweep *s, int npoints_est)
{
	char loops[32];

	if (s->plan.strategy == PLAN_ADAPTIVE) {
		double ex, wo;

		race_remaining(s, &ex, &wo);
		log_info("sweep %lld \"%s\": %d node%s, adaptive, %d to %d loops; loops per node: "
		         "worst case %.0f, expected about %.0f",
		         (long long)s->id, s->plan.name, s->plan.nnodes,
		         s->plan.nnodes == 1 ? "" : "s", s->plan.loops, s->plan.loops_max, wo, ex);
		return;
	}
	if (s->plan.loops_max > s->plan.loops)
		snprintf(loops, sizeof(loops), "%d to %d", s->plan.loops, s->plan.loops_max);
	else
		snprintf(loops, sizeof(loops), "%d", s->plan.loops);
	log_info("sweep %lld \"%s\": %d node%s, up to %d points of %s loops", (long long)s->id,
	         s->plan.name, s->plan.nnodes, s->plan.nnodes == 1 ? "" : "s", npoints_est, loops);
}

/* The sweep's last lines in the log: wall time against the agents' job span, and (debug) the
 * requests and connections it took. */
static void end_log(const struct sweep *s, const struct runner *r, const struct fleet *f,
                    double wall)
{
	double nominal = 0, spread_med, spread_max;
	long att[2], conn[2];
	int i;

	for (i = 0; i < s->npoints; i++)
		nominal += s->points[i].loops_run * s->plan.runtime_s;
	if (r->runs == 0 || !(r->span_s > 0))
		/* Stopped before any run finished: nothing to measure the overhead against. */
		log_info("sweep %lld %s: wall %.2f s; no run finished, so there is no job span "
		         "to measure the controller's overhead against",
		         (long long)s->id, s->status, wall);
	else if (strcmp(s->status, "completed"))
		/* The wall time holds the run that was stopped, the span only the finished ones:
		 * their ratio would be no overhead. Each finished run's own time is. */
		log_info("sweep %lld %s: wall %.2f s; job span %.2f s over the %d run%s that "
		         "finished (first job start to last job end on the agents); their "
		         "overhead x%.3f (first request to last end seen, against that span)",
		         (long long)s->id, s->status, wall, r->span_s, r->runs,
		         r->runs == 1 ? "" : "s", r->run_s / r->span_s);
	else if (nominal > 0)
		/* A job of a fixed runtime (fio's runtime_s): the time it should take. */
		log_info("sweep %lld %s: wall %.2f s; job span %.2f s (first job start to last job "
		         "end on the agents, summed over %d runs; nominal %s time %.0f s); "
		         "overhead x%.3f (x%.3f vs nominal)",
		         (long long)s->id, s->status, wall, r->span_s, r->runs, s->plan.engine,
		         nominal, wall / r->span_s, wall / nominal);
	else
		/* An engine that runs as long as its data takes (dd, bonnie++, iozone): no nominal
		 * time to hold the wall time against. */
		log_info("sweep %lld %s: wall %.2f s; job span %.2f s (first job start to last job "
		         "end on the agents, summed over %d runs; %s runs as long as its data "
		         "takes); overhead x%.3f",
		         (long long)s->id, s->status, wall, r->span_s, r->runs, s->plan.engine,
		         wall / r->span_s);
	if (runner_spread(r, &spread_med, &spread_max))
		log_info("sweep %lld: %d run%s started by the clock: pass starts within %.1f ms of "
		         "each other (median over the runs; at most %.1f ms); %d run%s had a node "
		         "begin more than %.0f ms late; wall / longest job of each run x%.3f",
		         (long long)s->id, r->nspreads, r->nspreads == 1 ? "" : "s",
		         spread_med * 1e3, spread_max * 1e3, r->nlate, r->nlate == 1 ? "" : "s",
		         RUNNER_LATE_S * 1e3, r->longest_s > 0 ? wall / r->longest_s : 0.0);
	client_counts(f->client, &att[0], &conn[0]);
	client_counts(f->wait_client, &att[1], &conn[1]);
	log_debug("sweep %lld: first request to last job end seen %.2f s, longest jobs %.2f s "
	          "(summed over the points); requests %ld on %ld new connections, job "
	          "waits %ld on %ld",
	          (long long)s->id, r->run_s, r->longest_s, att[0], conn[0], att[1], conn[1]);
}

/* Pre-flight's cohorts in the log: what the nodes were grouped by, and who is in each. */
/* The nodes of each cohort are twins in what the plan does not set (run/twins.h), else the
 * sweep is refused before anything changes, with each difference and its fix on stderr. */
static bool twins_refused(const struct sweep *s, const struct preflight *pf, struct err *e)
{
	struct buf b = BUF_INIT;
	int n = twins_check(&s->plan, pf->info, s->cohort_of, &b);

	if (n > 0) {
		fprintf(stderr, "pre-flight failed, nothing was changed:\n%s", b.data);
		err_set(e, -EINVAL, ERR_PREFLIGHT_FAILED,
		        "pre-flight failed: %d node%s differ%s from the others in parameters the "
		        "plan does not set",
		        n, n == 1 ? "" : "s", n == 1 ? "s" : "");
	}
	buf_release(&b);
	return n > 0;
}

static void cohorts_log(struct sweep *s)
{
	struct buf b = BUF_INIT;
	char *line, *next;

	cohort_assign(s);
	words_cohorts(s, &b);
	for (line = b.data; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		log_info("%s", line);
		if (!next)
			break;
	}
	buf_release(&b);
}

/* What a sweep's run holds between its steps. */
struct sweeprun {
	struct sweep *s;
	const struct sweeprun_opts *o;
	struct fleet f;
	struct runner r;
	struct progress pg;
	struct ctlstore *st;
	struct strategy_batch batch;
	struct schedule sch;
	char save_err[256]; /* the first point that could not be saved, when save_failed */
	bool save_failed;
};

static void sweeprun_init(struct sweeprun *sr, struct sweep *s, const struct sweeprun_opts *o)
{
	struct runner_opts ro = { 0 };

	memset(sr, 0, sizeof(*sr));
	sr->s = s;
	sr->o = o;
	sr->pg.s = s;
	sr->pg.tty = o->tty;
	fleet_init(&sr->f, &s->plan, 5.0, 2);
	fleet_transport_set(&sr->f, o->transport);
	ro.continue_on_node_failure = o->continue_on_node_failure;
	ro.session_ttl_s = o->session_ttl_s;
	ro.poll_interval_s = o->poll_interval_s;
	ro.progress_s = o->tty ? 1 : 0; /* a person watching the live line: once a second */
	ro.stop = o->stop;
	ro.event = progress_event;
	ro.ctx = &sr->pg;
	runner_init(&sr->r, s, &sr->f, &ro);
	sr->pg.r = &sr->r;
	sr->pg.npoints_est = strategy_estimate(&s->plan);
}

static void sweeprun_release(struct sweeprun *sr)
{
	strategy_batch_release(&sr->batch);
	schedule_release(&sr->sch);
	runner_release(&sr->r);
	ctlstore_close(sr->st);
	fleet_release(&sr->f);
}

/* Pre-flight: every node answers and can run the plan (with each device's parameters: the
 * twins check compares them), the clocks are logged, the cohorts are twins; it sets the
 * runner's and the progress line's expectations. */
static int sweeprun_preflight(struct sweeprun *sr, struct err *e)
{
	struct sweep *s = sr->s;
	struct preflight pf;
	int rc = -EINVAL;

	if (preflight_plan(&sr->f, &s->plan, true, &pf) < 0) {
		struct buf b = BUF_INIT;

		report_preflight_failed(&pf, &b);
		text_fputs(b.data, stderr);
		buf_release(&b);
		err_set(e, -EINVAL, ERR_PREFLIGHT_FAILED, "pre-flight failed (%d problem%s)",
		        pf.nproblems, pf.nproblems == 1 ? "" : "s");
		goto out;
	}
	preflight_identity_copy(&pf, s);
	if (pf.nclocks)
		log_info(
		        "pre-flight: the clocks of %d node%s agree with the controller's within "
		        "%.1f ms "
		        "(largest offset %.1f ms, measured to +- %.1f ms): their jobs start by the "
		        "clock",
		        pf.nclocks, pf.nclocks == 1 ? "" : "s",
		        (pf.clock_offset_max_s + pf.clock_uncertain_max_s) * 1e3,
		        pf.clock_offset_max_s * 1e3, pf.clock_uncertain_max_s * 1e3);
	sr->r.o.pass_expected_s = pf.expected_runtime_s > 0 && s->plan.loops > 0
	                                  ? pf.expected_runtime_s / s->plan.loops
	                                  : 0;
	cohorts_log(s);
	if (twins_refused(s, &pf, e))
		goto out;
	sr->pg.first_point_s =
	        pf.expected_runtime_s > 0
	                ? pf.expected_runtime_s + 1
	                : s->plan.loops * (s->plan.runtime_s > 0 ? s->plan.runtime_s : 10) + 1;
	rc = 0;
out:
	preflight_release(&pf);
	return rc;
}

/* The sweep in the database with its owner and its order seed, and a session on each node. */
static int sweeprun_begin(struct sweeprun *sr, struct err *e)
{
	struct sweep *s = sr->s;

	s->owner_pid = sr->o->owner_pid;
	snprintf(s->owner_host, sizeof(s->owner_host), "%s",
	         sr->o->owner_host ? sr->o->owner_host : "");
	/* The order of the points inside every round comes from this seed, kept with the sweep. */
	if (!s->order_seed)
		s->order_seed = rounds_seed_new();
	if (ctlstore_sweep_create(sr->st, s, e) < 0)
		return -EIO;
	if (runner_sessions_open(&sr->r, e) < 0) {
		snprintf(s->status, sizeof(s->status), "failed");
		s->finished_at = time_now_s();
		ctlstore_sweep_finish(sr->st, s, NULL);
		return -EIO;
	}
	return 0;
}

/* One run of the schedule on the runner, its point analysed and saved; 0, or why the sweep
 * stops. */
static int sweeprun_run(struct sweeprun *sr, int i)
{
	const struct schedule_run *run = &sr->sch.runs[i];
	struct sweep *s = sr->s;
	struct err se;
	int rc;

	sr->pg.round = run->round;
	sr->pg.warmup = run->warmup;
	rc = runner_round_run(&sr->r, run, i + 1 < sr->sch.n ? &sr->sch.runs[i + 1] : NULL);
	if (rc == 0 && !run->warmup)
		sr->pg.loops_done++;
	analysis_point_ran(s, run->point);
	/* A sweep that cannot save a point stops (docs/controller.md: exit 1): going on would
	 * measure points nobody can read back. */
	if (ctlstore_point_save(sr->st, s, run->point, &se) < 0) {
		log_error("%s", se.msg);
		sr->save_failed = true;
		snprintf(sr->save_err, sizeof(sr->save_err), "%s", se.msg);
		rc = -EIO;
	}
	phases_log(&sr->r.last, s->plan.nnodes);
	if (rc == 0 && run->point == 0 && baseline_dead(s))
		rc = -ECANCELED;
	return rc;
}

/* Each batch is one block of interleaved rounds: a run is one loop of one point on every
 * node. A signal stops the sweep between runs too: no new run is begun. */
static int sweeprun_batches(struct sweeprun *sr)
{
	int rc = 0, i;

	while (rc == 0 && !stopped(sr->o) && strategy_next(sr->s, &sr->batch) > 0) {
		schedule_batch(sr->s, &sr->batch, &sr->sch);
		for (i = 0; i < sr->sch.n && rc == 0 && !stopped(sr->o); i++)
			rc = sweeprun_run(sr, i);
	}
	return rc;
}

enum sweeprun_result sweeprun_execute(struct sweep *s, const struct sweeprun_opts *o, struct err *e)
{
	enum sweeprun_result res = SWEEPRUN_FAILED;
	double t_start = time_mono_s();
	struct sweeprun sr;
	int rc;

	sweeprun_init(&sr, s, o);
	if (ctlstore_open(o->db_path, &sr.st, e) < 0 || sweeprun_preflight(&sr, e) < 0)
		goto out;
	if (stopped(o)) {
		res = SWEEPRUN_INTERRUPTED;
		goto out;
	}
	if (sweeprun_begin(&sr, e) < 0)
		goto out;
	start_log(s, sr.pg.npoints_est);
	rc = sweeprun_batches(&sr);
	progress_clear(&sr.pg);
	res = sweep_close(s, &sr.r, sr.st, rc, stopped(o), sr.save_failed ? sr.save_err : NULL, e);
	end_log(s, &sr.r, &sr.f, time_mono_s() - t_start);
out:
	if (res == SWEEPRUN_FAILED && !s->id)
		snprintf(s->status, sizeof(s->status), "failed");
	sweeprun_release(&sr);
	return res;
}
