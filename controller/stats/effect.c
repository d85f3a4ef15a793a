/* effect.c -- per-node and fleet effects, decisions, disagreement and noise; no I/O. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "stats/effect.h"
#include "xmalloc.h"
#include "banned.h"

/* A variance of θ below this (log units², an SE of 0.0001 %) is raised to it, so passes
 * with no spread at all still get a finite weight. */
#define VAR_FLOOR 1e-12
/* "Δ >= min_effect" forgives this much rounding (in %), so an effect of exactly min_effect
 * counts whether it went through a log and back or not. */
#define PCT_SLACK 1e-9

double effect_alpha(int nlooks)
{
	return EFFECT_ALPHA / (nlooks >= 1 ? nlooks : 1);
}

static const char *const decision_names[] = { "na",         "gain",         "loss",
	                                      "equivalent", "inconclusive", "heterogeneous",
	                                      "cohorts" };

bool effect_deciding_interval(const struct effect *fx, enum effect_decision d, double *lo_pct,
                              double *hi_pct, double *level_pct)
{
	bool eq = d == EFFECT_EQUIVALENT;

	*lo_pct = *hi_pct = *level_pct = NAN;
	if (fx->nused <= 0 || isnan(fx->delta_pct) || !(fx->alpha > 0))
		return false;
	*lo_pct = eq ? fx->eq_low_pct : fx->sig_low_pct;
	*hi_pct = eq ? fx->eq_high_pct : fx->sig_high_pct;
	*level_pct = 100.0 * (1.0 - (eq ? 2.0 : 1.0) * fx->alpha);
	return true;
}

const char *effect_decision_name(enum effect_decision d)
{
	return (unsigned)d < sizeof(decision_names) / sizeof(decision_names[0]) ? decision_names[d]
	                                                                        : "na";
}

bool effect_nodes_differ(const struct effect *fx)
{
	return fx->nused > 1 && fx->q_p < EFFECT_ALPHA && fx->tau_pct > 0;
}

int effect_decision_parse(const char *code)
{
	int i;

	for (i = 0; code && i < (int)(sizeof(decision_names) / sizeof(decision_names[0])); i++)
		if (!strcmp(code, decision_names[i]))
			return i;
	return -1;
}

const char *effect_node_state_name(enum effect_node_state s)
{
	static const char *const names[] = { "used", "missing", "few_passes", "nonpositive" };

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "missing";
}

void effect_release(struct effect *out)
{
	if (!out)
		return;
	free(out->nodes);
	free(out->disagree);
	out->nodes = NULL;
	out->disagree = NULL;
	out->nnodes = out->ndisagree = 0;
}

/* Welch–Satterthwaite df of a + b, with a from na passes and b from nb passes. */
static double log_welch_df(double a, int na, double b, int nb)
{
	double den = a * a / (na - 1) + b * b / (nb - 1);

	if (den <= 0.0)
		return na + nb - 2;
	return (a + b) * (a + b) / den;
}

/* The state, counts, means and CVs of a node from the passes it is judged on. */
static void node_describe(const struct stats_summary *r, const struct stats_summary *p,
                          struct effect_node *nd)
{
	nd->n_ref = r->n;
	nd->n_point = p->n;
	nd->mean_ref = r->n ? r->mean : NAN;
	nd->mean_point = p->n ? p->mean : NAN;
	nd->cv_ref_pct = r->n && r->mean != 0.0 ? 100.0 * r->stdev / fabs(r->mean) : NAN;
	nd->cv_point_pct = p->n && p->mean != 0.0 ? 100.0 * p->stdev / fabs(p->mean) : NAN;
	nd->delta_pct = nd->ci_low_pct = nd->ci_high_pct = NAN;
	nd->log_ratio = nd->se_log = nd->df = nd->sd_pair = NAN;
	nd->weight_pct = nd->differs_p = NAN;
	nd->decision = EFFECT_NA;
	if (r->n == 0 || p->n == 0)
		nd->state = EFFECT_NODE_MISSING;
	else if (r->mean <= 0.0 || p->mean <= 0.0)
		nd->state = EFFECT_NODE_NONPOSITIVE;
	else
		nd->state = EFFECT_NODE_USED;
}

/* Independent samples: the ratio of means, its delta-method variance and Welch df. */
static void node_independent(const struct effect_sample *ref, const struct effect_sample *pt,
                             struct effect_node *nd)
{
	struct stats_summary r, p;
	double a, b;

	stats_summarize(ref->x, ref->n, &r);
	stats_summarize(pt->x, pt->n, &p);
	node_describe(&r, &p, nd);
	if (nd->state != EFFECT_NODE_USED)
		return;
	nd->delta_pct = 100.0 * (p.mean / r.mean - 1.0);
	if (r.n < 2 || p.n < 2) {
		nd->state = EFFECT_NODE_FEW_PASSES;
		return;
	}
	a = p.stdev * p.stdev / (p.mean * p.mean) / p.n;
	b = r.stdev * r.stdev / (r.mean * r.mean) / r.n;
	nd->log_ratio = log(p.mean / r.mean);
	nd->se_log = sqrt(fmax(a + b, VAR_FLOOR));
	nd->df = log_welch_df(a, p.n, b, r.n);
}

/* The mean of the passes of x in round (0 when none), and their count into *n. */
struct round_mean {
	int round;
	double sum;
	int n;
};

static int round_mean_cmp(const void *a, const void *b)
{
	const struct round_mean *x = a, *y = b;

	return (x->round > y->round) - (x->round < y->round);
}

/* Sample x's passes grouped by round, in round order; returns the number of rounds. */
static int rounds_group(const struct effect_sample *x, struct round_mean *out)
{
	int i, n = 0;

	for (i = 0; i < x->n; i++) {
		out[i].round = x->round[i];
		out[i].sum = x->x[i];
		out[i].n = 1;
	}
	qsort(out, (size_t)x->n, sizeof(*out), round_mean_cmp);
	for (i = 0; i < x->n; i++) {
		if (n > 0 && out[n - 1].round == out[i].round) {
			out[n - 1].sum += out[i].sum;
			out[n - 1].n++;
		} else {
			out[n++] = out[i];
		}
	}
	return n;
}

/* Within rounds: each round both points ran gives d = ln(point / ref); θ is their mean. */
static void node_blocked(const struct effect_sample *ref, const struct effect_sample *pt,
                         struct effect_node *nd)
{
	struct round_mean *gr = xcalloc((size_t)ref->n + (size_t)pt->n + 1, sizeof(*gr));
	struct round_mean *gp = gr + ref->n;
	double *xr = xcalloc(3 * ((size_t)ref->n + (size_t)pt->n) + 1, sizeof(double));
	double *xp = xr + ref->n + pt->n, *d = xp + ref->n + pt->n;
	int nr = rounds_group(ref, gr), np = rounds_group(pt, gp), i = 0, j = 0, n = 0;
	bool positive = true;
	struct stats_summary r, p, sd;

	/* The passes of the rounds both points ran, and each round's log ratio. */
	while (i < nr && j < np) {
		if (gr[i].round < gp[j].round) {
			i++;
		} else if (gr[i].round > gp[j].round) {
			j++;
		} else {
			xr[n] = gr[i].sum / gr[i].n;
			xp[n] = gp[j].sum / gp[j].n;
			positive = positive && xr[n] > 0 && xp[n] > 0;
			d[n] = positive ? log(xp[n] / xr[n]) : 0;
			n++;
			i++;
			j++;
		}
	}
	if (!positive) {
		/* A pass of 0 (a device that stalled for a whole pass) has no log ratio: the node
		 * is judged on the same rounds' passes as independent samples (ratio of means). */
		struct effect_sample a = { xr, n, NULL }, b = { xp, n, NULL };

		node_independent(&a, &b, nd);
		goto out;
	}
	stats_summarize(xr, n, &r);
	stats_summarize(xp, n, &p);
	node_describe(&r, &p, nd);
	nd->blocked = true;
	if (nd->state != EFFECT_NODE_USED)
		goto out;
	stats_summarize(d, n, &sd);
	nd->delta_pct = 100.0 * expm1(sd.mean);
	if (n < 2) {
		nd->state = EFFECT_NODE_FEW_PASSES;
		goto out;
	}
	nd->log_ratio = sd.mean;
	nd->sd_pair = sd.stdev;
	nd->se_log = sqrt(fmax(sd.stdev * sd.stdev / n, VAR_FLOOR));
	nd->df = n - 1;
out:
	free(gr);
	free(xr);
}

static bool has_rounds(const struct effect_sample *x)
{
	int i;

	if (!x->round || x->n == 0)
		return false;
	for (i = 0; i < x->n; i++)
		if (x->round[i] <= 0)
			return false;
	return true;
}

void effect_node_estimate(const struct effect_sample *ref, const struct effect_sample *pt,
                          struct effect_node *nd)
{
	memset(nd, 0, sizeof(*nd));
	if (has_rounds(ref) && has_rounds(pt))
		node_blocked(ref, pt, nd);
	else
		node_independent(ref, pt, nd);
}

/* The random-effects pool of k effects θ (NULL: only the SE and df) with variances v and
 * dfs, given τ²; w receives the weights. */
struct pool {
	double theta, se, df;
};

static void pool_compute(int k, const double *theta, const double *v, const double *df, double tau2,
                         double *w, struct pool *out)
{
	double sw = 0, swt = 0, within = 0, var;
	int i;

	for (i = 0; i < k; i++) {
		w[i] = 1.0 / (v[i] + tau2);
		sw += w[i];
		swt += theta ? w[i] * theta[i] : 0.0;
	}
	for (i = 0; i < k; i++) {
		double c = w[i] / sw, part = c * c * v[i];

		within += part * part / df[i];
	}
	var = 1.0 / sw;
	out->theta = swt / sw;
	out->se = sqrt(var);
	/* Satterthwaite over the nodes' within parts, each on its own df; τ² is plugged in
	 * (effect.h says why). */
	out->df = var * var / within;
}

/* Two-sided interval at level conf, in %. */
static void interval_pct(double theta, double se, double df, double conf, double *lo, double *hi)
{
	double h = stats_t_quantile(0.5 + conf / 2.0, df) * se;

	*lo = 100.0 * expm1(theta - h);
	*hi = 100.0 * expm1(theta + h);
}

/* The decision rule of effect.h, from θ, its SE and df, at the look's α. */
static enum effect_decision decide(double theta, double se, double df, double alpha, double m,
                                   bool minimize, double *sig_lo, double *sig_hi, double *eq_lo,
                                   double *eq_hi)
{
	double d = 100.0 * expm1(theta), s = minimize ? -1.0 : 1.0, lo, hi, elo, ehi;

	interval_pct(theta, se, df, 1.0 - alpha, sig_lo, sig_hi);
	interval_pct(theta, se, df, 1.0 - 2.0 * alpha, eq_lo, eq_hi);
	/* Oriented: positive is better. */
	d *= s;
	lo = minimize ? -*sig_hi : *sig_lo;
	hi = minimize ? -*sig_lo : *sig_hi;
	elo = minimize ? -*eq_hi : *eq_lo;
	ehi = minimize ? -*eq_lo : *eq_hi;
	if (lo > 0.0 && d >= m - PCT_SLACK)
		return EFFECT_GAIN;
	if (hi < 0.0 && d <= -m + PCT_SLACK)
		return EFFECT_LOSS;
	if (elo > -m && ehi < m)
		return EFFECT_EQUIVALENT;
	return EFFECT_INCONCLUSIVE;
}

static bool is_decision(enum effect_decision d)
{
	return d == EFFECT_GAIN || d == EFFECT_LOSS || d == EFFECT_EQUIVALENT;
}

/* Is a node's decision d a different decision: from the fleet's when the fleet has one,
 * else from another used node's? Inconclusive is not a decision. */
static bool conflicts(const struct effect *out, enum effect_decision d)
{
	int i;

	if (!is_decision(d))
		return false;
	if (is_decision(out->fleet_decision))
		return d != out->fleet_decision;
	for (i = 0; i < out->nnodes; i++) {
		enum effect_decision o = out->nodes[i].decision;

		if (out->nodes[i].state == EFFECT_NODE_USED && is_decision(o) && o != d)
			return true;
	}
	return false;
}

/* Holm-adjusted p that each used node's θ differs from the u-weighted mean of the others. */
static void differs_test(struct effect *out, const int *idx, const double *theta, const double *v,
                         const double *w, int k)
{
	double *p = xcalloc(2 * (size_t)k, sizeof(double)), *adj = p + k;
	double s0 = 0, s1 = 0, s2 = 0;
	int i;

	for (i = 0; i < k; i++) {
		s0 += w[i];
		s1 += w[i] * theta[i];
		s2 += w[i] * w[i] * v[i];
	}
	for (i = 0; i < k; i++) {
		double o0 = s0 - w[i], rest = (s1 - w[i] * theta[i]) / o0;
		double var = v[i] + (s2 - w[i] * w[i] * v[i]) / (o0 * o0);
		double t = (theta[i] - rest) / sqrt(var);

		p[i] = fmin(1.0, 2.0 * stats_t_sf(fabs(t), out->nodes[idx[i]].df));
	}
	/* idx increases, so ties rank by node as before. */
	stats_holm(p, k, adj);
	for (i = 0; i < k; i++) {
		struct effect_node *nd = &out->nodes[idx[i]];

		nd->differs_p = adj[i];
		nd->differs = adj[i] <= EFFECT_ALPHA;
	}
	free(p);
}

/* The per-loop noise of the used nodes, for projecting their variance to n loops: each
 * sample's squared CV (a node judged within rounds: half its rounds' variance each, on
 * n - 1 df), τ², the variation between runs and its df. */
struct projection {
	int k;
	const double *cv2_p, *cv2_r;
	const bool *paired;
	double tau2, extra, extra_df;
};

/* v' = v + x on Satterthwaite's df (x_df 0: x known). */
static double extra_df(double v, double df, double x, double x_df)
{
	double den = v * v / df + (x_df > 0 ? x * x / x_df : 0.0);

	return x > 0 && den > 0 ? (v + x) * (v + x) / den : df;
}

/* The minimum detectable effect (log units) at n loops per sample on every used node. */
static double mde_at(int n, const struct projection *pr, double alpha, double *v, double *df,
                     double *w)
{
	struct pool p;
	double var, d;
	int i;

	for (i = 0; i < pr->k; i++) {
		double a = pr->cv2_p[i], b = pr->cv2_r[i];

		v[i] = fmax((a + b) / n, VAR_FLOOR);
		if (pr->paired[i])
			df[i] = n - 1;
		else
			df[i] = a + b > 0 ? (n - 1) * (a + b) * (a + b) / (a * a + b * b)
			                  : 2.0 * (n - 1);
	}
	pool_compute(pr->k, NULL, v, df, pr->tau2, w, &p);
	var = p.se * p.se;
	d = extra_df(var, p.df, pr->extra, pr->extra_df);
	return (stats_t_quantile(1.0 - alpha / 2.0, d) + stats_t_quantile(EFFECT_POWER, d)) *
	       sqrt(var + pr->extra);
}

/* Loops per point that bring the MDE down to min_effect; -1 when no number of loops does. */
static int loops_needed(const struct projection *pr, double alpha, double m)
{
	int k = pr->k;
	double margin = log1p(m / 100.0), *v = xcalloc(3 * k, sizeof(double));
	double *df = v + k, *w = v + 2 * k;
	int lo = 2, hi = EFFECT_LOOPS_CAP, rc;

	if (!(margin > 0.0) || mde_at(hi, pr, alpha, v, df, w) > margin) {
		rc = -1;
		goto out;
	}
	if (mde_at(lo, pr, alpha, v, df, w) <= margin) {
		rc = lo;
		goto out;
	}
	/* MDE falls with n: keep mde(lo) > margin >= mde(hi). */
	while (hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;

		if (mde_at(mid, pr, alpha, v, df, w) <= margin)
			hi = mid;
		else
			lo = mid;
	}
	rc = hi;
out:
	free(v);
	return rc;
}

static int input_check(const struct effect_input *in, struct err *e)
{
	int i, j;

	if (in->nnodes < 0)
		return err_set(e, -EINVAL, ERR_INVALID_VALUE, "nnodes is %d; expected 0 or more",
		               in->nnodes);
	if (in->nnodes > 0 && (!in->ref || !in->point))
		return err_set(e, -EINVAL, ERR_INVALID_VALUE, "%s passes are missing",
		               in->ref ? "point" : "reference");
	if (in->nlooks < 1 || in->look < 1 || in->look > in->nlooks)
		return err_set(e, -EINVAL, ERR_INVALID_VALUE, "look %d of %d is not a look",
		               in->look, in->nlooks);
	if (!isfinite(in->min_effect_pct) || in->min_effect_pct < 0)
		return err_set(e, -EINVAL, ERR_INVALID_VALUE,
		               "min_effect_pct %g is not a finite number >= 0", in->min_effect_pct);
	if (!isfinite(in->extra_var) || in->extra_var < 0 || !isfinite(in->extra_df) ||
	    in->extra_df < 0)
		return err_set(e, -EINVAL, ERR_INVALID_VALUE,
		               "extra_var %g on %g df is not a variance", in->extra_var,
		               in->extra_df);
	for (i = 0; i < in->nnodes; i++) {
		const struct effect_sample *s[2] = { &in->ref[i], &in->point[i] };
		int h;

		for (h = 0; h < 2; h++) {
			const char *what = h ? "point" : "reference";

			if (s[h]->n < 0 || (s[h]->n > 0 && !s[h]->x))
				return err_set(e, -EINVAL, ERR_INVALID_VALUE,
				               "node %d: %s has %d passes and %s", i, what, s[h]->n,
				               s[h]->x ? "a negative count" : "no values");
			for (j = 0; j < s[h]->n; j++)
				if (!isfinite(s[h]->x[j]))
					return err_set(e, -EINVAL, ERR_INVALID_VALUE,
					               "node %d: %s pass %d is not a finite number",
					               i, what, j + 1);
		}
	}
	return 0;
}

static void fleet_na(struct effect *out)
{
	out->delta_pct = out->ci95_low_pct = out->ci95_high_pct = NAN;
	out->ci90_low_pct = out->ci90_high_pct = NAN;
	out->sig_low_pct = out->sig_high_pct = out->eq_low_pct = out->eq_high_pct = NAN;
	out->log_ratio = out->se_log = out->df = NAN;
	out->tau2 = out->tau_pct = out->i2_pct = out->q = out->q_p = NAN;
	out->cv_pct = out->loops = out->mde_pct = NAN;
	out->loops_needed = -1;
	out->fleet_decision = out->decision = EFFECT_NA;
}

/* Cochran's Q, τ² (DerSimonian–Laird) and I² from the fixed-effect weights 1/v. */
static void heterogeneity(struct effect *out, int k, const double *theta, const double *v)
{
	double sw = 0, swt = 0, sw2 = 0, q = 0, fixed, den;
	int i;

	for (i = 0; i < k; i++) {
		sw += 1.0 / v[i];
		swt += theta[i] / v[i];
		sw2 += 1.0 / (v[i] * v[i]);
	}
	fixed = swt / sw;
	for (i = 0; i < k; i++)
		q += (theta[i] - fixed) * (theta[i] - fixed) / v[i];
	den = sw - sw2 / sw;
	out->q = q;
	out->q_df = k - 1;
	out->q_p = k > 1 ? stats_chi2_sf(q, k - 1) : NAN;
	out->tau2 = k > 1 && den > 0 ? fmax(0.0, (q - (k - 1)) / den) : 0.0;
	out->tau_pct = 100.0 * sqrt(out->tau2);
	out->i2_pct = q > 0 && k > 1 ? 100.0 * fmax(0.0, (q - (k - 1)) / q) : 0.0;
}

/* The nodes an effect pools (state EFFECT_NODE_USED), as arrays of k; one allocation. */
struct used {
	int k;
	double *theta, *v, *df, *w, *cv2_p, *cv2_r; /* log ratio, its variance and df, weight */
	int *idx;                                   /* index in out->nodes */
	bool *paired;
	double cv2, loops; /* sums over the k nodes */
};

static void used_collect(const struct effect *out, int k, struct used *u)
{
	int i;

	memset(u, 0, sizeof(*u));
	u->theta = xcalloc(6 * k, sizeof(double));
	u->v = u->theta + k;
	u->df = u->theta + 2 * k;
	u->w = u->theta + 3 * k;
	u->cv2_p = u->theta + 4 * k;
	u->cv2_r = u->theta + 5 * k;
	u->idx = xcalloc(k, sizeof(int));
	u->paired = xcalloc(k, sizeof(bool));
	for (i = 0, k = 0; i < out->nnodes; i++) {
		const struct effect_node *nd = &out->nodes[i];

		if (nd->state != EFFECT_NODE_USED)
			continue;
		u->idx[k] = i;
		u->theta[k] = nd->log_ratio;
		u->v[k] = nd->se_log * nd->se_log;
		u->df[k] = nd->df;
		u->paired[k] = nd->blocked;
		if (nd->blocked) {
			/* Within rounds the noise that counts is the pairs': var d ≈ 2 CV². */
			u->cv2_p[k] = u->cv2_r[k] = nd->sd_pair * nd->sd_pair / 2.0;
		} else {
			u->cv2_p[k] = nd->cv_point_pct * nd->cv_point_pct / 1e4;
			u->cv2_r[k] = nd->cv_ref_pct * nd->cv_ref_pct / 1e4;
		}
		u->cv2 += (u->cv2_p[k] + u->cv2_r[k]) / 2.0;
		u->loops += (nd->n_point + nd->n_ref) / 2.0;
		k++;
	}
	u->k = k;
}

static void used_release(struct used *u)
{
	free(u->theta);
	free(u->idx);
	free(u->paired);
}

/* The fleet effect and its decision: the pool p of the used nodes, widened by the variation
 * between runs whatever the number of nodes. */
static void fleet_decide(const struct effect_input *in, struct effect *out, struct used *u,
                         struct pool *p)
{
	double se, fdf, x = in->extra_var;

	heterogeneity(out, u->k, u->theta, u->v);
	pool_compute(u->k, u->theta, u->v, u->df, out->tau2, u->w, p);
	se = sqrt(p->se * p->se + x);
	fdf = extra_df(p->se * p->se, p->df, x, in->extra_df);
	out->log_ratio = p->theta;
	out->se_log = se;
	out->df = fdf;
	out->delta_pct = 100.0 * expm1(p->theta);
	interval_pct(p->theta, se, fdf, 0.95, &out->ci95_low_pct, &out->ci95_high_pct);
	interval_pct(p->theta, se, fdf, 0.90, &out->ci90_low_pct, &out->ci90_high_pct);
	out->fleet_decision =
	        decide(p->theta, se, fdf, out->alpha, in->min_effect_pct, in->minimize,
	               &out->sig_low_pct, &out->sig_high_pct, &out->eq_low_pct, &out->eq_high_pct);
	out->decision = out->fleet_decision;
}

/* Each used node's own interval, decision and weight in the pool p. */
static void nodes_decide(const struct effect_input *in, struct effect *out, const struct used *u,
                         const struct pool *p)
{
	double x = in->extra_var;
	int i;

	for (i = 0; i < u->k; i++) {
		struct effect_node *nd = &out->nodes[u->idx[i]];
		double a, b, c, d;

		if (x > 0) {
			nd->df = extra_df(nd->se_log * nd->se_log, nd->df, x, in->extra_df);
			nd->se_log = sqrt(nd->se_log * nd->se_log + x);
		}
		interval_pct(nd->log_ratio, nd->se_log, nd->df, 0.95, &nd->ci_low_pct,
		             &nd->ci_high_pct);
		nd->decision = decide(nd->log_ratio, nd->se_log, nd->df, out->alpha,
		                      in->min_effect_pct, in->minimize, &a, &b, &c, &d);
		nd->weight_pct = 100.0 * u->w[i] / (1.0 / (p->se * p->se));
	}
}

/* Disagreement: significant Q, and a node that differs with another decision. */
static void disagreement_mark(struct effect *out, const struct used *u)
{
	int i;

	if (u->k < 2)
		return;
	differs_test(out, u->idx, u->theta, u->v, u->w, u->k);
	out->disagree = xcalloc(u->k, sizeof(int));
	for (i = 0; i < out->nnodes && out->q_p < EFFECT_ALPHA; i++) {
		struct effect_node *nd = &out->nodes[i];

		nd->disagrees = nd->state == EFFECT_NODE_USED && nd->differs &&
		                conflicts(out, nd->decision);
		if (nd->disagrees)
			out->disagree[out->ndisagree++] = i;
	}
	if (out->ndisagree > 0)
		out->decision = EFFECT_HETEROGENEOUS;
}

/* Noise: the fleet's CV, loops, smallest detectable effect and the loops a decision needs. */
static void noise_project(const struct effect_input *in, struct effect *out, const struct used *u)
{
	double m = in->min_effect_pct, se = out->se_log, fdf = out->df;
	struct projection pr;

	out->cv_pct = 100.0 * sqrt(u->cv2 / u->k);
	out->loops = u->loops / u->k;
	out->mde_pct = 100.0 * expm1((stats_t_quantile(1.0 - out->alpha / 2.0, fdf) +
	                              stats_t_quantile(EFFECT_POWER, fdf)) *
	                             se);
	/* τ² counts only when heterogeneity is shown: a chance τ² from a few passes would
	 * otherwise turn the advice into thousands of loops. */
	pr = (struct projection){ .k = u->k,
		                  .cv2_p = u->cv2_p,
		                  .cv2_r = u->cv2_r,
		                  .paired = u->paired,
		                  .tau2 = out->q_p < EFFECT_ALPHA ? out->tau2 : 0.0,
		                  .extra = in->extra_var,
		                  .extra_df = in->extra_df };
	out->loops_needed = loops_needed(&pr, out->alpha, m);
	out->noisy = out->mde_pct > m;
}

int effect_compute(const struct effect_input *in, struct effect *out, struct err *e)
{
	struct used u;
	struct pool p;
	int i, k = 0, rc;

	memset(out, 0, sizeof(*out));
	rc = input_check(in, e);
	if (rc < 0)
		return rc;
	out->nnodes = in->nnodes;
	out->nodes = xcalloc(in->nnodes > 0 ? in->nnodes : 1, sizeof(*out->nodes));
	out->alpha = effect_alpha(in->nlooks);
	fleet_na(out);
	for (i = 0; i < in->nnodes; i++) {
		effect_node_estimate(&in->ref[i], &in->point[i], &out->nodes[i]);
		k += out->nodes[i].state == EFFECT_NODE_USED;
	}
	out->nused = k;
	out->stop = in->look >= in->nlooks;
	if (k == 0)
		return 0;
	used_collect(out, k, &u);
	fleet_decide(in, out, &u, &p);
	nodes_decide(in, out, &u, &p);
	disagreement_mark(out, &u);
	noise_project(in, out, &u);
	out->stop = out->stop || is_decision(out->fleet_decision);
	used_release(&u);
	return 0;
}
