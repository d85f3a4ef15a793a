/* progress.c -- what a running sweep shows as it goes: a line per pass off a TTY, the live
 * line with its ETA on one, and the runner's failures as they happen. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "judge/race.h"
#include "log.h"
#include "render/progress.h"
#include "render/text.h"
#include "timeutil.h"
#include "banned.h"

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

/* "3/9", or for adaptive, whose races end early, "3 of at most 9" (npoints_est is then the
 * sequential count, an upper bound). */
static void point_count(const struct sweep *s, int point, int npoints_est, struct buf *out)
{
	buf_printf(out, s->plan.strategy == PLAN_ADAPTIVE ? "%d of at most %d" : "%d/%d", point + 1,
	           npoints_est);
}

/* The loops point p is asked to reach in the batch under way. */
static int loops_goal(const struct point *p)
{
	return p->loops_target > p->loops_run ? p->loops_target : p->loops_run;
}

void progress_pass_lines(const struct sweep *s, int point, int npoints_est, const int *reported,
                         struct buf *out)
{
	const struct point *p = &s->points[point];
	struct buf cfg = BUF_INIT;
	int k, j;

	config_format(&p->cfg, &cfg);
	for (k = 0; k < s->plan.nnodes; k++)
		for (j = reported[k]; j < p->nodes[k].npasses; j++) {
			buf_puts(out, "point ");
			point_count(s, point, npoints_est, out);
			buf_printf(out, " %s: %s pass %d/%d", cfg.data ? cfg.data : "",
			           s->plan.nodes[k].name, j + 1, loops_goal(p));
			if (p->nodes[k].pass_round[j] > 0)
				buf_printf(out, " (round %d)", p->nodes[k].pass_round[j]);
			buf_printf(out, " %s %.1f\n", s->plan.metric, p->nodes[k].passes[j]);
		}
	buf_release(&cfg);
}

void progress_line(const struct sweep *s, int point, int npoints_est, int round, bool warmup,
                   const bool *active, double eta_s, double eta_max_s, struct buf *out)
{
	const struct point *p = &s->points[point];
	struct buf cfg = BUF_INIT;
	char eta[32];
	int k;

	size_t from;

	config_format(&p->cfg, &cfg);
	fmt_duration(eta_s, eta, sizeof(eta));
	buf_puts(out, "\r\033[K");
	from = out->len; /* what follows is cleaned: only our own escape is sent */
	buf_puts(out, "point ");
	point_count(s, point, npoints_est, out);
	buf_printf(out, " [%s] ", cfg.data ? cfg.data : "");
	if (warmup)
		buf_puts(out, "warm-up loop");
	else
		buf_printf(out, "loop %d/%d", p->loops_run, loops_goal(p));
	if (round > 0)
		buf_printf(out, ", round %d", round);
	for (k = 0; k < s->plan.nnodes; k++) {
		const struct node_result *r = &p->nodes[k];

		if (r->npasses)
			buf_printf(out, "  %s %.1f", s->plan.nodes[k].name,
			           r->passes[r->npasses - 1]);
		else if (active[k])
			buf_printf(out, "  %s -", s->plan.nodes[k].name);
	}
	buf_printf(out, "  ETA %s", eta);
	if (eta_max_s > eta_s + 0.5) {
		fmt_duration(eta_max_s, eta, sizeof(eta));
		buf_printf(out, "\u2013%s", eta);
	}
	text_terminal(out, from);
	buf_release(&cfg);
}

/* The ETA of a running sweep, from the time per loop so far: *min_s if every point stops at
 * the plan's minimum of loops, *max_s if every point runs to the maximum. */
static void eta_range(const struct progress *pg, const struct runner_event *ev, double *min_s,
                      double *max_s)
{
	const struct plan *p = &pg->s->plan;
	double per_loop =
	        pg->loops_done ? pg->r->run_s / pg->loops_done : pg->first_point_s / p->loops;
	/* loops_run counts the run under way as asked: take off what is left of it. */
	double done = -(1.0 - ev->fraction) * ev->loops;
	int i;

	for (i = 0; i < pg->s->npoints; i++)
		done += pg->s->points[i].loops_run;
	*min_s = fmax(0.0, (double)pg->npoints_est * p->loops - done) * per_loop;
	*max_s = fmax(0.0, (double)pg->npoints_est * p->loops_max - done) * per_loop;
}

void progress_clear(struct progress *pg)
{
	if (pg->line) {
		fputs("\r\033[K", stderr);
		pg->line = false;
	}
}

/* An adaptive sweep's ETA: the loops it is expected to run still (race_remaining), less the
 * part of the run under way, at the seconds per loop seen so far. */
static double adaptive_eta(const struct progress *pg, const struct runner_event *ev)
{
	int spent = race_loops_spent(pg->s);
	double per_loop = pg->r->runs && spent > 0 ? pg->r->run_s / spent
	                                           : pg->first_point_s / pg->s->plan.loops;
	double ex, wo;

	race_remaining(pg->s, &ex, &wo);
	return fmax(ex - ev->fraction * ev->loops, 0) * per_loop;
}

/* The runner's events: passes and the progress line, failures in the log. */
void progress_event(void *ctx, const struct runner_event *ev)
{
	struct progress *pg = ctx;
	const struct plan *p = &pg->s->plan;
	struct buf b = BUF_INIT;
	double eta, eta_max;
	int k;

	switch (ev->kind) {
	case RUNNER_NODE_FAILED:
		progress_clear(pg);
		log_error("%s failed: %s; %s", p->nodes[ev->node].name, ev->why,
		          ev->dropped ? "dropping it and continuing" : "aborting the sweep");
		if (ev->none_left)
			log_error("no nodes left");
		return;
	case RUNNER_POINT_FAILED:
		progress_clear(pg);
		log_error("%s: point %d failed: %s", p->nodes[ev->node].name, ev->point + 1,
		          ev->why);
		return;
	case RUNNER_RESTORE_FAILED:
		progress_clear(pg);
		log_error("%s: restore failed: %s (the agent restores when the session's TTL "
		          "expires)",
		          p->nodes[ev->node].name, ev->why);
		return;
	case RUNNER_PROGRESS:
		break;
	}
	if (!pg->tty && log_enabled(LOG_DEBUG)) {
		/* --verbose off a TTY: every pass as it lands. */
		progress_pass_lines(pg->s, ev->point, pg->npoints_est, ev->reported, &b);
		text_fputs(b.data, stderr);
		buf_release(&b);
		return;
	}
	for (k = 0; k < p->nnodes; k++)
		if (pg->s->points[ev->point].nodes[k].npasses != ev->reported[k])
			break;
	/* On a TTY: redraw on a new pass, else at most four times a second. Off one (a pipe, a
	 * log file): a plain line at the first news, then one every PROGRESS_PLAIN_S seconds
	 * (the points of a round alternate run by run: a line per point would be one per run). */
	if (pg->tty && k == p->nnodes && time_mono_s() - pg->last_draw < 0.25)
		return;
	if (!pg->tty && pg->last_draw > 0 && time_mono_s() - pg->last_draw < PROGRESS_PLAIN_S)
		return;
	pg->last_draw = time_mono_s();
	eta_range(pg, ev, &eta, &eta_max);
	if (p->strategy == PLAN_ADAPTIVE)
		eta = eta_max = adaptive_eta(pg, ev);
	progress_line(pg->s, ev->point, pg->npoints_est, pg->round, pg->warmup, pg->r->f->active,
	              eta, eta_max, &b);
	if (pg->tty) {
		fputs(b.data, stderr);
		pg->line = true;
	} else {
		/* The live line without its return to column 0. */
		fprintf(stderr, "%s\n", b.data + strlen("\r\033[K"));
	}
	fflush(stderr);
	buf_release(&b);
}
