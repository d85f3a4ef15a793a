/* strategy.c -- the grid, sequential and adaptive strategies: which points run next, and which
 * configurations a plan may apply. */
#include <stdlib.h>
#include <string.h>

#include "race.h"
#include "strategy.h"
#include "xmalloc.h"
#include "banned.h"

void strategy_batch_release(struct strategy_batch *b)
{
	if (!b)
		return;
	free(b->items);
	memset(b, 0, sizeof(*b));
}

static void work_add(struct strategy_batch *b, int point, int loops)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 16;
		b->items = xrealloc(b->items, (size_t)b->cap * sizeof(*b->items));
	}
	b->items[b->n].point = point;
	b->items[b->n++].loops = loops;
}

/*
 * An odometer over the axes. Axis a has n[a] choices: its values, plus (when
 * with_base and no value equals the baseline's) one more choice standing for
 * the baseline's own values. idx[a] == base[a] marks the baseline choice.
 */
struct odometer {
	const struct plan *p;
	int idx[64], n[64], base[64];
};

static void odometer_init(struct odometer *o, const struct plan *p, bool with_base)
{
	int a, v;

	memset(o, 0, sizeof(*o));
	o->p = p;
	for (a = 0; a < p->naxes && a < 64; a++) {
		o->n[a] = p->axes[a].nvalues;
		o->base[a] = -1;
		for (v = 0; v < p->axes[a].nvalues; v++) {
			struct config c = p->baseline;

			config_merge(&c, &p->axes[a].values[v]);
			if (config_equal(&c, &p->baseline))
				o->base[a] = v;
		}
		if (with_base && o->base[a] < 0)
			o->base[a] = o->n[a]++;
	}
}

/* The configuration at the odometer's position; returns how many axes are off baseline. */
static int odometer_config(const struct odometer *o, struct config *c)
{
	int a, off = 0;

	*c = o->p->baseline;
	for (a = 0; a < o->p->naxes && a < 64; a++) {
		if (o->idx[a] == o->base[a])
			continue;
		config_merge(c, &o->p->axes[a].values[o->idx[a]]);
		off++;
	}
	return off;
}

/* Advance, the last axis fastest; false after the last position. */
static bool odometer_next(struct odometer *o)
{
	int a;

	for (a = o->p->naxes - 1; a >= 0; a--) {
		if (++o->idx[a] < o->n[a])
			return true;
		o->idx[a] = 0;
	}
	return false;
}

/* Add the grid: the baseline, then every combination. */
static void grid_expand(struct sweep *s, struct strategy_batch *b)
{
	struct odometer o;
	struct config c;

	odometer_init(&o, &s->plan, false);
	work_add(b, sweep_point_add(s, ROLE_BASELINE, -1, -1, &s->plan.baseline), s->plan.loops);
	do {
		odometer_config(&o, &c);
		if (!config_equal(&c, &s->plan.baseline))
			work_add(b, sweep_point_add(s, ROLE_CANDIDATE, -1, 0, &c), s->plan.loops);
	} while (odometer_next(&o));
}

/* Add axis ax's batch: a baseline of cur, then each value over cur. */
static void axis_batch(struct sweep *s, int ax, const struct config *cur, struct strategy_batch *b)
{
	const struct plan_axis *a = &s->plan.axes[ax];
	int base, i;

	base = sweep_point_add(s, ROLE_BASELINE, ax, s->npoints ? 0 : -1, cur);
	work_add(b, base, s->plan.loops);
	for (i = 0; i < a->nvalues; i++) {
		struct config c = *cur;

		config_merge(&c, &a->values[i]);
		if (config_equal(&c, cur))
			continue;
		work_add(b, sweep_point_add(s, ROLE_CANDIDATE, ax, base, &c), s->plan.loops);
	}
}

/* The chosen configuration after axis ax: the best significant gain, or its baseline. */
static void axis_choice(struct sweep *s, int ax, struct config *out)
{
	int i, best = -1;

	for (i = 0; i < s->npoints; i++) {
		const struct point *p = &s->points[i];

		if (p->axis != ax)
			continue;
		if (p->role == ROLE_BASELINE && best < 0)
			*out = p->cfg;
		if (p->role != ROLE_CANDIDATE || p->verdict != EFFECT_GAIN)
			continue;
		if (best < 0 || (s->plan.minimize ? p->delta_pct < s->points[best].delta_pct
		                                  : p->delta_pct > s->points[best].delta_pct))
			best = i;
	}
	if (best >= 0)
		*out = s->points[best].cfg;
}

/* Does point p take another look: a compared point with a fleet effect that effect has not
 * stopped (undecided, looks left)? */
static bool wants_loop(const struct sweep *s, const struct point *p)
{
	return p->role != ROLE_BASELINE && p->ref >= 0 && p->fx.nused > 0 && !p->fx.stop &&
	       p->loops_run < s->plan.loops_max;
}

/*
 * Adaptive loops (job.loops {min, max}): one more round for the points that effect has not
 * stopped. A round is one more loop of each such point on every node, after one more loop of
 * its reference when the reference has no more loops than the point: the reference keeps
 * pace with the points still racing against it, and every look of a point compares n loops
 * of it with at least n of the reference. Adds the items to b; returns how many.
 */
static int more_loops(struct sweep *s, struct strategy_batch *b)
{
	bool *ref_added;
	int i;

	if (s->plan.loops_max <= s->plan.loops || !s->npoints)
		return 0;
	ref_added = xcalloc((size_t)s->npoints, sizeof(bool));
	for (i = 0; i < s->npoints; i++) {
		const struct point *p = &s->points[i];

		if (!wants_loop(s, p) || ref_added[p->ref] ||
		    s->points[p->ref].loops_run > p->loops_run)
			continue;
		ref_added[p->ref] = true;
		work_add(b, p->ref, 1);
	}
	for (i = 0; i < s->npoints; i++)
		if (wants_loop(s, &s->points[i]))
			work_add(b, i, 1);
	free(ref_added);
	return b->n;
}

/* Axis ax's race over cur: its baseline point and each value over cur, all racing. */
static void race_start(struct sweep *s, int ax, const struct config *cur, struct strategy_batch *b)
{
	int first = s->npoints, i;

	axis_batch(s, ax, cur, b);
	for (i = first; i < s->npoints; i++)
		s->points[i].race.state = RACE_RUNNING;
}

/* What axis ax's race kept: its winner, else (no usable value) its baseline point. */
static void race_choice(const struct sweep *s, int ax, struct config *out)
{
	int i, w = race_winner(s, ax);

	for (i = 0; i < s->npoints && w < 0; i++)
		if (s->points[i].axis == ax && s->points[i].role == ROLE_BASELINE)
			w = i;
	*out = s->points[w].cfg;
}

/* adaptive: race each axis in turn (race.h), one loop per survivor a round; the next axis only
 * while its first round fits the budget; then the final confirmation with loops_max. */
static int adaptive_next(struct sweep *s, struct strategy_batch *b)
{
	struct config cur;
	int ax, n, i, *sv;

	if (!s->npoints) {
		race_start(s, 0, &s->plan.baseline, b);
		return b->n;
	}
	if (s->points[s->npoints - 1].role == ROLE_FINAL)
		return 0;
	ax = s->points[s->npoints - 1].axis;
	if (!race_over(s, ax) && !race_judge(s, ax)) {
		sv = xcalloc((size_t)s->npoints + 1, sizeof(int));
		n = race_survivors(s, ax, sv);
		for (i = 0; i < n; i++)
			work_add(b, sv[i], 1);
		free(sv);
		return b->n;
	}
	race_choice(s, ax, &cur);
	if (ax + 1 < s->plan.naxes &&
	    race_fits(s, (1 + race_axis_values(&s->plan, ax + 1, &cur)) * s->plan.loops, false)) {
		race_start(s, ax + 1, &cur, b);
		return b->n;
	}
	if (!config_equal(&cur, &s->plan.baseline))
		work_add(b, sweep_point_add(s, ROLE_FINAL, -1, 0, &cur), s->plan.loops_max);
	return b->n;
}

int strategy_next(struct sweep *s, struct strategy_batch *b)
{
	struct config cur;
	int last_axis;

	b->n = 0;
	if (s->plan.strategy == PLAN_ADAPTIVE)
		return adaptive_next(s, b);
	if (more_loops(s, b) > 0)
		return b->n;
	if (s->plan.strategy == PLAN_GRID) {
		if (!s->npoints)
			grid_expand(s, b);
		return b->n;
	}
	if (!s->npoints) {
		axis_batch(s, 0, &s->plan.baseline, b);
		return b->n;
	}
	if (s->points[s->npoints - 1].role == ROLE_FINAL)
		return 0;
	last_axis = s->points[s->npoints - 1].axis;
	axis_choice(s, last_axis, &cur);
	if (last_axis + 1 < s->plan.naxes)
		axis_batch(s, last_axis + 1, &cur, b);
	else if (!config_equal(&cur, &s->plan.baseline))
		work_add(b, sweep_point_add(s, ROLE_FINAL, -1, 0, &cur), s->plan.loops);
	return b->n;
}

int strategy_estimate(const struct plan *p)
{
	struct odometer o;
	struct config c;
	int n = 1, i;

	if (p->strategy == PLAN_GRID) {
		/* The baseline, plus every combination that differs from it. */
		odometer_init(&o, p, false);
		do {
			odometer_config(&o, &c);
			n += !config_equal(&c, &p->baseline);
		} while (odometer_next(&o));
		return n;
	}
	/* Per axis a fresh baseline and its values; then the final confirmation. */
	for (i = 0; i < p->naxes; i++)
		n += 1 + p->axes[i].nvalues;
	return n;
}

static void config_add(struct config **out, int *n, int *cap, const struct config *c)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*out = xrealloc(*out, (size_t)*cap * sizeof(**out));
	}
	(*out)[(*n)++] = *c;
}

int strategy_configs(const struct plan *p, int cap, struct config **out, bool *complete)
{
	bool grid = p->strategy == PLAN_GRID;
	struct odometer o;
	struct config c;
	double total = 1;
	int n = 0, ncap = 0, a, v;

	*out = NULL;
	*complete = true;
	config_add(out, &n, &ncap, &p->baseline);
	odometer_init(&o, p, !grid);
	for (a = 0; a < p->naxes; a++)
		total *= o.n[a];
	if (grid) {
		do {
			odometer_config(&o, &c);
			if (!config_equal(&c, &p->baseline))
				config_add(out, &n, &ncap, &c);
		} while (odometer_next(&o));
		return n;
	}
	/* Single-axis configurations first, so the plainest configuration names a problem. */
	for (a = 0; a < p->naxes; a++) {
		for (v = 0; v < p->axes[a].nvalues; v++) {
			if (v == o.base[a])
				continue;
			c = p->baseline;
			config_merge(&c, &p->axes[a].values[v]);
			config_add(out, &n, &ncap, &c);
		}
	}
	if (total > cap) {
		*complete = n == total;
		return n;
	}
	do {
		if (odometer_config(&o, &c) >= 2)
			config_add(out, &n, &ncap, &c);
	} while (odometer_next(&o));
	return n;
}
