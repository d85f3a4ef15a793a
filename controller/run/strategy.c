/* strategy.c -- the grid, sequential and adaptive strategies: which points run next, and which
 * configurations a plan may apply. */
#include <stdlib.h>
#include <string.h>

#include "judge/race.h"
#include "run/strategy.h"
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

/* Whether point i is a gain, and how large (higher is better): a suite's row under its rule
 * (judge/suite.c: a gain the rule crowns, its score), else the row's own verdict and Δ. */
static bool row_gain(const struct sweep *s, int i, double *score)
{
	const struct point *p = &s->points[i];

	if (s->suite && i < s->suite->npoints) {
		*score = s->suite->rows[i].score_pct;
		return s->suite->rows[i].verdict == SUITE_GAIN;
	}
	*score = s->plan.minimize ? -p->delta_pct : p->delta_pct;
	return p->verdict == EFFECT_GAIN;
}

/* The chosen configuration after axis ax: the best significant gain (a suite's: the best row
 * its rule crowns), or its baseline. */
static void axis_choice(struct sweep *s, int ax, struct config *out)
{
	int i, best = -1;
	double score, best_score = 0;

	for (i = 0; i < s->npoints; i++) {
		const struct point *p = &s->points[i];

		if (p->axis != ax)
			continue;
		if (p->role == ROLE_BASELINE && best < 0)
			*out = p->cfg;
		if (p->role != ROLE_CANDIDATE || !row_gain(s, i, &score))
			continue;
		if (best < 0 || score > best_score) {
			best = i;
			best_score = score;
		}
	}
	if (best >= 0)
		*out = s->points[best].cfg;
}

/* Strategies per cohort: when an axis' rows are split by cohort (cohort.h), each cohort keeps
 * its own choice, and the next points run it on that cohort's nodes. */

/* The configuration cohort c's nodes ran at point p. */
static const struct config *cohort_cfg(const struct sweep *s, const struct point *p, int c)
{
	return sweep_node_cfg(p, s->cohorts[c].nodes[0]);
}

/* Each cohort's choice after axis ax: its candidate with the largest gain as the cohort sees
 * it (its own decision on a split row, the fleet's on the others), else fallback[c] (NULL:
 * the axis' baseline). choice[] has s->ncohorts entries. */
static void axis_cohort_choices(const struct sweep *s, int ax, const struct config *const *fallback,
                                struct config *choice)
{
	int c, i, best;

	for (c = 0; c < s->ncohorts; c++) {
		best = -1;
		for (i = 0; i < s->npoints; i++) {
			const struct point *p = &s->points[i];

			if (p->axis != ax)
				continue;
			if (p->role == ROLE_BASELINE && best < 0)
				choice[c] = *cohort_cfg(s, p, c);
			if (p->role != ROLE_CANDIDATE || sweep_cohort_decision(p, c) != EFFECT_GAIN)
				continue;
			if (best < 0 ||
			    (s->plan.minimize
			             ? sweep_cohort_delta_pct(p, c) <
			                       sweep_cohort_delta_pct(&s->points[best], c)
			             : sweep_cohort_delta_pct(p, c) >
			                       sweep_cohort_delta_pct(&s->points[best], c)))
				best = i;
		}
		if (best >= 0)
			choice[c] = *cohort_cfg(s, &s->points[best], c);
		else if (fallback && fallback[c])
			choice[c] = *fallback[c];
	}
}

static bool choices_equal(const struct sweep *s, const struct config *choice)
{
	int c;

	for (c = 1; c < s->ncohorts; c++)
		if (!config_equal(&choice[c], &choice[0]))
			return false;
	return true;
}

/* Append a point whose cohort c's nodes run cfg[c] (cohort 0's is the point's own). */
static int cohort_point_add(struct sweep *s, enum point_role role, int axis, int ref,
                            const struct config *cfg)
{
	int i = sweep_point_add(s, role, axis, ref, &cfg[0]), k;

	for (k = 0; k < s->plan.nnodes; k++)
		sweep_node_cfg_set(s, i, k, &cfg[s->cohort_of[k]]);
	return i;
}

/* Axis ax's batch over each cohort's own configuration cur[c]: a baseline of them, then each
 * value over them (a value every cohort already has is skipped). */
static void axis_batch_cohorts(struct sweep *s, int ax, const struct config *cur,
                               struct strategy_batch *b)
{
	const struct plan_axis *a = &s->plan.axes[ax];
	struct config *c = xcalloc((size_t)s->ncohorts, sizeof(*c));
	int base, i, k, same;

	base = cohort_point_add(s, ROLE_BASELINE, ax, 0, cur);
	work_add(b, base, s->plan.loops);
	for (i = 0; i < a->nvalues; i++) {
		for (k = 0, same = 0; k < s->ncohorts; k++) {
			c[k] = cur[k];
			config_merge(&c[k], &a->values[i]);
			same += config_equal(&c[k], &cur[k]);
		}
		if (same < s->ncohorts)
			work_add(b, cohort_point_add(s, ROLE_CANDIDATE, ax, base, c),
			         s->plan.loops);
	}
	free(c);
}

/* Whether every cohort's choice is the original baseline. */
static bool choices_baseline(const struct sweep *s, const struct config *choice)
{
	int c;

	for (c = 0; c < s->ncohorts; c++)
		if (!config_equal(&choice[c], &s->plan.baseline))
			return false;
	return true;
}

/* Does point p take another look: a compared point with a fleet effect that effect has not
 * stopped (undecided, looks left)? A suite's: whose row the rule has not settled (suite.h:
 * every verdict the rule needs decided, or a guardrail shown breached). */
static bool wants_loop(const struct sweep *s, const struct point *p)
{
	bool open = s->suite && p->index < s->suite->npoints ? !s->suite->rows[p->index].settled
	                                                     : !p->fx.stop;

	return p->role != ROLE_BASELINE && p->ref >= 0 && p->fx.nused > 0 && open &&
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

/* The final confirmation's block: the original baseline measured again (a baseline row
 * compared with point 0) and the chosen configuration against it, loops each, in the same
 * rounds: point 0's own passes ran minutes earlier, in other rounds. The choice is cur, or
 * with cur NULL each cohort's own, per_cohort[c] on its nodes. */
static void final_block(struct sweep *s, const struct config *cur, const struct config *per_cohort,
                        int loops, struct strategy_batch *b)
{
	int base = sweep_point_add(s, ROLE_BASELINE, -1, 0, &s->plan.baseline);

	work_add(b, base, loops);
	work_add(b,
	         cur ? sweep_point_add(s, ROLE_FINAL, -1, base, cur)
	             : cohort_point_add(s, ROLE_FINAL, -1, base, per_cohort),
	         loops);
}

/* adaptive: the final confirmation takes looks like any comparison: one more round of it and
 * of the original baseline measured again while effect has not stopped it (undecided, looks
 * left). */
static int final_more(struct sweep *s, struct strategy_batch *b)
{
	const struct point *f = &s->points[s->npoints - 1];

	if (!wants_loop(s, f))
		return 0;
	work_add(b, f->ref, 1);
	work_add(b, f->index, 1);
	return b->n;
}

/* After axis ax (sequential; adaptive with fallback[c] the race's kept value for the cohorts
 * that did not split from it): each cohort's choice; one configuration for all when the
 * choices agree, else the next axis over each cohort's, or the final confirmation of each
 * cohort's against the original baseline measured again, with final_loops loops (also before
 * the last axis when last; one choice for all: job.loops, and looks). Returns the batch size. */
static int cohorts_next(struct sweep *s, int ax, const struct config *const *fallback,
                        int final_loops, bool last, struct strategy_batch *b)
{
	struct config *choice = xcalloc((size_t)s->ncohorts, sizeof(*choice));

	axis_cohort_choices(s, ax, fallback, choice);
	if (!last && ax + 1 < s->plan.naxes) {
		if (choices_equal(s, choice))
			axis_batch(s, ax + 1, &choice[0], b);
		else
			axis_batch_cohorts(s, ax + 1, choice, b);
	} else if (!choices_baseline(s, choice)) {
		/* One configuration for all takes looks as any final confirmation does. */
		if (choices_equal(s, choice))
			final_block(s, &choice[0], NULL, s->plan.loops, b);
		else
			final_block(s, NULL, choice, final_loops, b);
	}
	free(choice);
	return b->n;
}

/* Did axis ax's race leave cohorts wanting other values than the race kept (cur): a row of the
 * axis split by cohort? */
static bool race_cohorts_differ(const struct sweep *s, int ax, const struct config *cur)
{
	int i;

	(void)cur;
	for (i = 0; i < s->npoints; i++)
		if (s->points[i].axis == ax && s->points[i].between.split)
			return true;
	return false;
}

/* adaptive, an axis whose rows split by cohort: each cohort's own choice from the race's
 * points (the race's kept value cur for a cohort that gains nowhere of its own), carried
 * forward for its nodes: the next axis' race over them while its first round fits the
 * budget, else the final confirmation with job.loops.max loops. */
static int race_cohorts_next(struct sweep *s, int ax, const struct config *cur,
                             struct strategy_batch *b)
{
	const struct config **kept = xcalloc((size_t)s->ncohorts, sizeof(*kept));
	int c, first = s->npoints, i, n, w = race_winner(s, ax);
	bool room =
	        ax + 1 < s->plan.naxes &&
	        race_fits(s, (1 + race_axis_values(&s->plan, ax + 1, cur)) * s->plan.loops, false);

	for (i = 0; i < s->npoints && w < 0; i++)
		if (s->points[i].axis == ax && s->points[i].role == ROLE_BASELINE)
			w = i;
	for (c = 0; c < s->ncohorts; c++)
		kept[c] = cohort_cfg(s, &s->points[w], c); /* the race's kept value, on c's nodes */
	/* Without room for the next race, the final confirmation of what the cohorts have. */
	n = cohorts_next(s, ax, kept, s->plan.loops_max, !room, b);
	for (i = first; i < s->npoints; i++)
		if (s->points[i].axis == ax + 1) /* the next race's, not the final confirmation's */
			s->points[i].race.state = RACE_RUNNING;
	free(kept);
	return n;
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
		return final_more(s, b);
	ax = s->points[s->npoints - 1].axis;
	if (!race_over(s, ax) && !race_judge(s, ax)) {
		sv = xcalloc((size_t)s->npoints + 1, sizeof(int));
		n = race_round_points(s, ax, sv);
		for (i = 0; i < n; i++)
			work_add(b, sv[i], 1);
		free(sv);
		return b->n;
	}
	race_choice(s, ax, &cur);
	if (s->ncohorts >= 2 && race_cohorts_differ(s, ax, &cur))
		return race_cohorts_next(s, ax, &cur, b);
	if (ax + 1 < s->plan.naxes &&
	    race_fits(s, (1 + race_axis_values(&s->plan, ax + 1, &cur)) * s->plan.loops, false)) {
		race_start(s, ax + 1, &cur, b);
		return b->n;
	}
	if (!config_equal(&cur, &s->plan.baseline))
		final_block(s, &cur, NULL, s->plan.loops, b);
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
	if (s->ncohorts >= 2)
		return cohorts_next(s, last_axis, NULL, s->plan.loops, false, b);
	axis_choice(s, last_axis, &cur);
	if (last_axis + 1 < s->plan.naxes)
		axis_batch(s, last_axis + 1, &cur, b);
	else if (!config_equal(&cur, &s->plan.baseline))
		final_block(s, &cur, NULL, s->plan.loops, b);
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
	/* Per axis a fresh baseline and its values; then the final confirmation and the original
	 * baseline measured again beside it. */
	for (i = 0; i < p->naxes; i++)
		n += 1 + p->axes[i].nvalues;
	return n + 1;
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
