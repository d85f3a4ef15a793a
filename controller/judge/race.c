/* race.c -- racing the values of an axis (the leader, the drops, the end of a race) and the
 * loops an adaptive sweep spends and has left; no I/O. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge/race.h"
#include "model/suite.h"
#include "stats/effect.h"
#include "xmalloc.h"
#include "banned.h"

int race_looks(const struct plan *p)
{
	return p->loops_max - p->loops + 1;
}

int race_axis_values(const struct plan *p, int ax, const struct config *cfg)
{
	int i, n = 0;

	for (i = 0; i < p->axes[ax].nvalues; i++) {
		struct config c = *cfg;

		config_merge(&c, &p->axes[ax].values[i]);
		n += !config_equal(&c, cfg);
	}
	return n;
}

int race_survivors(const struct sweep *s, int ax, int *out)
{
	int i, n = 0;

	for (i = 0; i < s->npoints; i++)
		if (s->points[i].axis == ax && s->points[i].race.state == RACE_RUNNING)
			out[n++] = i;
	return n;
}

int race_round_points(const struct sweep *s, int ax, int *out)
{
	int n = race_survivors(s, ax, out), base = -1, i;

	for (i = 0; i < s->npoints && base < 0; i++)
		if (s->points[i].axis == ax && s->points[i].role == ROLE_BASELINE)
			base = i;
	for (i = 0; i < n && base >= 0; i++)
		if (out[i] == base)
			base = -1;
	if (base < 0 || n == 0)
		return n;
	/* Index order, the baseline point first of the axis' points. */
	memmove(out + 1, out, (size_t)n * sizeof(*out));
	out[0] = base;
	return n + 1;
}

bool race_over(const struct sweep *s, int ax)
{
	int i, n = 0;

	for (i = 0; i < s->npoints; i++) {
		if (s->points[i].axis != ax || s->points[i].role == ROLE_FINAL)
			continue;
		if (s->points[i].race.state == RACE_RUNNING)
			return false;
		n++;
	}
	return n > 0;
}

int race_winner(const struct sweep *s, int ax)
{
	int i;

	for (i = 0; i < s->npoints; i++)
		if (s->points[i].axis == ax && (s->points[i].race.state == RACE_WON ||
		                                s->points[i].race.state == RACE_TENTATIVE))
			return i;
	return -1;
}

/* The axis' baseline point (the configuration chosen before it), or -1. */
static int axis_base(const struct sweep *s, int ax)
{
	int i;

	for (i = 0; i < s->npoints; i++)
		if (s->points[i].axis == ax && s->points[i].role == ROLE_BASELINE)
			return i;
	return -1;
}

/* A node's passes for a comparison: all of them when it finished every run of the point, with
 * their rounds (effect pairs two points' passes of the same rounds). */
static struct effect_sample node_sample(const struct point *p, int k)
{
	const struct node_result *r = &p->nodes[k];
	struct effect_sample x = { NULL, 0, NULL };

	if (r->state == NODE_OK && r->npasses > 0) {
		x.x = r->passes;
		x.n = r->npasses;
		x.round = r->pass_round;
	}
	return x;
}

/* Some node has the 2 passes a comparison needs. */
static bool usable(const struct sweep *s, const struct point *p)
{
	int k;

	for (k = 0; k < s->plan.nnodes; k++)
		if (p->nodes[k].state == NODE_OK && p->nodes[k].npasses >= 2)
			return true;
	return false;
}

/* One comparison at a look: Δ and the look's one-sided interval (the two-sided 1 - 2α one,
 * effect's equivalence interval) as measured, the same oriented so that positive is better,
 * and effect's own fleet decision. */
struct cmp {
	bool ok; /* some node was compared */
	double delta, lo, hi;
	double od, olo, ohi;
	enum effect_decision decision;
};

/* The passes a race compares: a suite's rule's series (the primary workload's, else the
 * mean's, the rule's score: judge/suite.c), its points s's index for index; s's own (the
 * plan's metric) for a plain sweep or a suite not judged up to its last point. */
static const struct sweep *race_series(const struct sweep *s)
{
	const struct suite *su = s->suite;

	if (!su || !su->wl || !su->mean || su->npoints != s->npoints)
		return s;
	return su->rule == PLAN_RULE_PRIMARY ? &su->wl[s->plan.primary] : su->mean;
}

/* Compare pt against ref at look of K. */
static void compare_at(const struct sweep *s, int ref, int pt, int look, int K, struct cmp *c)
{
	const struct sweep *src = race_series(s);
	int n = s->plan.nnodes, k;
	struct effect_sample *a = xcalloc(2 * (size_t)n + 2, sizeof(*a)), *b = a + n + 1;
	struct effect_input in = { .nnodes = n,
		                   .ref = a,
		                   .point = b,
		                   .min_effect_pct = s->plan.min_effect_pct,
		                   .minimize = src->plan.minimize,
		                   .look = look < 1   ? 1
		                           : look > K ? K
		                                      : look,
		                   .nlooks = K };
	struct effect e;
	struct err er;
	bool flip = src->plan.minimize;

	memset(c, 0, sizeof(*c));
	c->delta = c->lo = c->hi = NAN;
	for (k = 0; k < n; k++) {
		a[k] = node_sample(&src->points[ref], k);
		b[k] = node_sample(&src->points[pt], k);
	}
	if (effect_compute(&in, &e, &er) == 0 && e.nused > 0) {
		c->ok = true;
		c->delta = e.delta_pct;
		c->lo = e.eq_low_pct;
		c->hi = e.eq_high_pct;
		c->od = flip ? -c->delta : c->delta;
		c->olo = flip ? -c->hi : c->lo;
		c->ohi = flip ? -c->lo : c->hi;
		c->decision = e.fleet_decision;
	}
	effect_release(&e);
	free(a);
}

/* Compare pt against ref at a look of the race. */
static void compare(const struct sweep *s, int ref, int pt, int look, struct cmp *c)
{
	compare_at(s, ref, pt, look, race_looks(&s->plan), c);
}

/* Set point i's state, and what it was compared with when c is given. */
static void mark(struct sweep *s, int i, enum race_state st, enum race_why why, int look, int vs,
                 const struct cmp *c)
{
	struct race_mark *m = &s->points[i].race;

	m->state = st;
	m->why = why;
	m->round = look;
	m->loops = s->points[i].loops_run;
	m->vs = c && c->ok ? vs : -1;
	m->delta_pct = c && c->ok ? c->delta : NAN;
	m->low_pct = c && c->ok ? c->lo : NAN;
	m->high_pct = c && c->ok ? c->hi : NAN;
}

/* The axis' choice w (won, or tentative), with how it compares with the axis' baseline point
 * (nothing when it is it). */
static void mark_kept(struct sweep *s, int w, int base, enum race_state st, enum race_why why,
                      int look)
{
	struct cmp c = { 0 };

	if (w != base && base >= 0 && usable(s, &s->points[base]))
		compare(s, base, w, look, &c);
	mark(s, w, st, why, look, base, &c);
}

static void mark_won(struct sweep *s, int w, int base, enum race_why why, int look)
{
	mark_kept(s, w, base, RACE_WON, why, look);
}

/* A suite's racer i that its rule has settled against (suite.h: its row against the axis'
 * baseline point base settled, and not a gain). */
static bool ruled_out(const struct sweep *s, int i, int base)
{
	const struct suite *su = s->suite;
	const struct suite_row *r;

	if (!su || su->npoints != s->npoints || i == base || base < 0 || s->points[i].ref != base)
		return false;
	r = &su->rows[i];
	return r->settled && r->verdict != SUITE_GAIN && r->verdict != SUITE_NA;
}

/* The survivors' best by fleet Δ against ref (ties: the earlier point, so the baseline). */
static int leader_find(const struct sweep *s, const int *sv, int n, int ref, int look)
{
	double best = -INFINITY;
	int i, lead = sv[0];

	for (i = 0; i < n; i++) {
		double score = 0;
		struct cmp c;

		if (sv[i] != ref) {
			compare(s, ref, sv[i], look, &c);
			score = c.ok ? c.od : -INFINITY;
		}
		if (score > best) {
			best = score;
			lead = sv[i];
		}
	}
	return lead;
}

/* End the race (the cap, the budget, or only the baseline's value left and no better than the
 * leader): the leader wins when the baseline's value is not racing or the leader is shown a
 * gain over it (the one-sided interval above 0 and Δ >= m); otherwise it is carried forward
 * tentatively. The baseline's value is kept only when no node compares the two. The
 * survivors that are not kept are left open. */
static void race_stop(struct sweep *s, const int *sv, int n, int lead, int base, enum race_why why,
                      int look)
{
	enum race_state st = RACE_WON;
	int i, w = lead;
	struct cmp g = { 0 };

	for (i = 0; i < n && lead != base; i++) {
		if (sv[i] != base)
			continue;
		compare(s, base, lead, look, &g);
		if (!g.ok)
			w = base;
		else if (!(g.olo > 0 && g.od >= s->plan.min_effect_pct - 1e-9))
			st = RACE_TENTATIVE;
	}
	for (i = 0; i < n; i++) {
		struct cmp c;

		if (sv[i] == w)
			continue;
		if (sv[i] == lead) {
			mark(s, lead, RACE_OPEN, why, look, base, &g);
			continue;
		}
		compare(s, lead, sv[i], look, &c);
		mark(s, sv[i], RACE_OPEN, why, look, lead, &c);
	}
	mark_kept(s, w, base, st, why, look);
}

bool race_judge(struct sweep *s, int ax)
{
	const struct plan *p = &s->plan;
	int *sv = xcalloc((size_t)s->npoints + 1, sizeof(int));
	int n = race_survivors(s, ax, sv), base = axis_base(s, ax), ref, lead, look, i, k;
	double m = p->min_effect_pct;
	bool all_eqv = true, over = true, base_not_better = false;
	struct cmp c;

	if (n == 0)
		goto out;
	look = s->points[sv[0]].loops_run - p->loops + 1;
	/* Racers with nothing to compare leave first. */
	for (i = k = 0; i < n; i++) {
		if (usable(s, &s->points[sv[i]]))
			sv[k++] = sv[i];
		else
			mark(s, sv[i], RACE_DROPPED, RACE_WHY_FAILED, look, -1, NULL);
	}
	n = k;
	/* Then a suite's racers its rule has settled against. */
	for (i = k = 0; i < n; i++) {
		if (!ruled_out(s, sv[i], base)) {
			sv[k++] = sv[i];
			continue;
		}
		compare(s, base, sv[i], look, &c);
		mark(s, sv[i], RACE_DROPPED, RACE_WHY_RULE, look, base, &c);
	}
	n = k;
	if (n == 0)
		goto out;
	ref = base >= 0 && usable(s, &s->points[base]) ? base : sv[0];
	lead = leader_find(s, sv, n, ref, look);
	for (i = 0; i < n; i++) {
		int v = sv[i];

		if (v == lead)
			continue;
		compare(s, lead, v, look, &c);
		if (c.ok && c.ohi < (v == base ? -m : 0.0)) {
			mark(s, v, RACE_DROPPED, RACE_WHY_WORSE, look, lead, &c);
		} else if (c.ok && c.olo > -m && c.ohi < m) {
			if (v != base)
				mark(s, v, RACE_DROPPED, RACE_WHY_EQUIVALENT, look, lead, &c);
			else
				mark(s, v, RACE_RUNNING, RACE_WHY_NONE, look, lead, &c);
		} else {
			mark(s, v, RACE_RUNNING, RACE_WHY_NONE, look, lead, &c);
			all_eqv = false;
			if (v == base)
				base_not_better = c.ok && c.ohi < m;
		}
	}
	mark(s, lead, RACE_RUNNING, RACE_WHY_NONE, look, -1, NULL);
	n = race_survivors(s, ax, sv);
	if (n == 1) {
		mark_won(s, sv[0], base, RACE_WHY_LAST, look);
	} else if (all_eqv) {
		/* Besides the leader only the baseline's value, equivalent to it, is left. */
		compare(s, base, lead, look, &c);
		mark(s, lead, RACE_TIED, RACE_WHY_ALL_EQUIVALENT, look, base, &c);
		mark_won(s, base, base, RACE_WHY_ALL_EQUIVALENT, look);
	} else if (n == 2 && base_not_better) {
		/* The leader and the baseline's value, no better than it by min_effect. */
		race_stop(s, sv, n, lead, base, RACE_WHY_NOT_BETTER, look);
	} else if (s->points[sv[0]].loops_run >= p->loops_max) {
		race_stop(s, sv, n, lead, base, RACE_WHY_CAP, look);
	} else if (!race_fits(s, n + (base >= 0 && s->points[base].race.state != RACE_RUNNING),
	                      false)) {
		/* The next round: the survivors and the axis' baseline point (race_round_points).
		 */
		race_stop(s, sv, n, lead, base, RACE_WHY_BUDGET, look);
	} else {
		over = false;
	}
out:
	free(sv);
	return over;
}

bool race_confirmed(const struct sweep *s, int point)
{
	struct cmp c;
	int ref = s->points[point].ref;

	if (ref < 0)
		return false;
	/* At the look its loops reached: the final confirmation takes looks too. */
	compare_at(s, ref, point, sweep_point_look(s, point), sweep_nlooks(&s->plan), &c);
	return c.ok && c.decision == EFFECT_GAIN;
}

int race_loops_spent(const struct sweep *s)
{
	int i, n = 0;

	for (i = 0; i < s->npoints; i++)
		n += s->points[i].loops_run;
	return n;
}

bool race_fits(const struct sweep *s, int loops, bool final)
{
	const struct plan *p = &s->plan;
	double need;

	if (p->budget_s <= 0 || p->runtime_s <= 0)
		return true;
	/* The final confirmation runs its point and the original baseline again: 2 x loops_max. */
	need = (race_loops_spent(s) + loops + (final ? 0 : 2 * p->loops_max)) * p->runtime_s;
	return need <= p->budget_s * (1 + 1e-9);
}

/* Expected loops of a race of v racers after its round at n loops is judged (the model of
 * race.h: half of the undecided rivals decided per round; a round runs them, the leader and
 * the axis' baseline point, which runs every round). */
static double halving(const struct plan *p, int v, int n)
{
	double loops = 0;
	int u = (v - 1) / 2;

	for (; u > 0 && n < p->loops_max; n++, u /= 2)
		loops += u + 2 < v ? u + 2 : v;
	return loops;
}

void race_remaining(const struct sweep *s, double *expected_loops, double *worst_loops)
{
	const struct plan *p = &s->plan;
	int *sv = xcalloc((size_t)s->npoints + 1, sizeof(int));
	double ex = 0, wo = 0, left;
	int ax = 0, i, n, top = 0;

	if (s->npoints) {
		const struct point *last = &s->points[s->npoints - 1];

		if (last->role == ROLE_FINAL)
			goto out;
		ax = last->axis;
		n = race_survivors(s, ax, sv);
		/* Round 1 brings every racer to job.loops.min; a later round is one loop more. */
		top = p->loops;
		for (i = 0; i < n; i++)
			if (s->points[sv[i]].loops_run > top)
				top = s->points[sv[i]].loops_run;
		/* The round under way: the survivors that have not had it yet. */
		for (i = 0; i < n; i++) {
			int due = top - s->points[sv[i]].loops_run;

			ex += due;
			wo += due;
		}
		if (n > 0) {
			ex += halving(p, n, top);
			wo += (double)n * (p->loops_max - top);
		}
		ax++;
	}
	for (; ax < p->naxes; ax++) {
		int v = 1 + race_axis_values(p, ax, &p->baseline);

		ex += (double)v * p->loops + halving(p, v, p->loops);
		wo += (double)v * p->loops_max;
	}
	/* The final confirmation: its point and the original baseline again, loops.min each and
	 * more rounds while undecided (expected: decided at loops.min; worst: loops.max). */
	ex += 2.0 * p->loops;
	wo += 2.0 * p->loops_max;
	if (p->budget_s > 0 && p->runtime_s > 0) {
		left = p->budget_s / p->runtime_s - race_loops_spent(s);
		if (left < 0)
			left = 0;
		ex = fmin(ex, left);
		wo = fmin(wo, left);
	}
out:
	*expected_loops = ex;
	*worst_loops = wo;
	free(sv);
}

int race_budget_check(const struct plan *p, struct err *e)
{
	double first, last;
	int v;

	if (p->strategy != PLAN_ADAPTIVE || p->budget_s <= 0 || p->runtime_s <= 0)
		return 0;
	v = 1 + race_axis_values(p, 0, &p->baseline);
	first = (double)v * p->loops * p->runtime_s;
	last = 2.0 * p->loops_max * p->runtime_s;
	if (p->budget_s >= (first + last) * (1 - 1e-9))
		return 0;
	return err_set(
	        e, -EINVAL, ERR_INVALID_PLAN,
	        "budget_s: %g s is less than the least this plan spends: the first round of "
	        "axis 1 (%d values x %d loops x %g s) and the final confirmation (2 points, the "
	        "original baseline again beside it, x %d loops x %g s), %g s",
	        p->budget_s, v, p->loops, p->runtime_s, p->loops_max, p->runtime_s, first + last);
}
