/* words.c -- the phrases every rendering of a sweep shares: a row's verdict, a parameter's
 * cell, a Δ with its interval, the best line, the noise and warning lines. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/words.h"
#include "plan/fsparam.h"
#include "xmalloc.h"
#include "banned.h"

/* A decision's code, as CSV and JSON carry it ("" for none). */
const char *words_decision_code(enum effect_decision d)
{
	return d == EFFECT_NA ? "" : effect_decision_name(d);
}

/* A row's decision in words. */
static const char *decision_words(enum effect_decision d)
{
	static const char *const names[] = { "",
		                             "significant gain",
		                             "significant loss",
		                             "no real difference",
		                             "inconclusive",
		                             "nodes disagree",
		                             "cohorts differ" };

	return (unsigned)d < sizeof(names) / sizeof(names[0]) ? names[d] : "";
}

/* A signed figure with a real minus sign: "+1.5", "−2.0". */
void words_signed(struct buf *b, double v)
{
	if (v < 0 && fabs(v) >= 0.05)
		buf_printf(b, "\u2212%.1f", -v);
	else
		buf_printf(b, "+%.1f", fabs(v));
}

/* "95 %", "99.5 %", "99.74 %": an interval's level. */
static void level_words(struct buf *out, double level_pct)
{
	buf_printf(out, "%.*f %%",
	           fabs(level_pct - round(level_pct)) < 0.05 ? 0
	           : level_pct > 99.5                        ? 2
	                                                     : 1,
	           level_pct);
}

/* "+1.5 % [−0.2, +3.1]": a Δ with its CI, when known. */
void words_delta_ci(struct buf *b, double delta_pct, double lo, double hi)
{
	if (isnan(delta_pct))
		return;
	words_signed(b, delta_pct);
	buf_puts(b, " %");
	if (!isnan(lo) && !isnan(hi)) {
		buf_puts(b, " [");
		words_signed(b, lo);
		buf_puts(b, ", ");
		words_signed(b, hi);
		buf_puts(b, "]");
	}
}

/* A point whose nodes run their cohorts' own configurations: each value asked of its nodes,
 * in node order, once ("256|64"). */
static void mixed_param(const struct sweep *s, const struct point *p, const char *name,
                        struct buf *b)
{
	size_t start = b->len;
	int k, j, n = 0;

	for (k = 0; k < s->plan.nnodes; k++) {
		const struct setting *v = config_get(sweep_node_cfg(p, k), name);
		bool seen = false;

		for (j = 0; j < k && !seen; j++) {
			const struct setting *w = config_get(sweep_node_cfg(p, j), name);

			seen = (!v && !w) || (v && w && !strcmp(v->value, w->value));
		}
		if (!seen)
			buf_printf(b, "%s%s", n++ ? "|" : "", v ? v->value : "-");
	}
	if (b->len == start)
		buf_puts(b, "-");
}

/* The value shown for one parameter of a point: "975→919" when a node adjusted it. */

/* The distinct fs.mkfs values of s (the baseline's first, then the points' in order) into
 * vals (borrowed strings; caller frees the array); returns how many. */
static int mkfs_values(const struct sweep *s, const char ***vals)
{
	const char **v = xcalloc((size_t)s->npoints + 2, sizeof(*v));
	const struct setting *st = config_get(&s->plan.baseline, FSPARAM_MKFS);
	int n = 0, i, k;

	if (st)
		v[n++] = st->value;
	for (i = 0; i < s->npoints; i++) {
		st = config_get(&s->points[i].cfg, FSPARAM_MKFS);
		if (!st)
			continue;
		for (k = 0; k < n && strcmp(v[k], st->value); k++)
			;
		if (k == n)
			v[n++] = st->value;
	}
	*vals = v;
	return n;
}

void words_mkfs_common(const struct sweep *s, struct buf *out)
{
	const char **v;
	struct buf one = BUF_INIT;
	int n = mkfs_values(s, &v);

	if (n > 1)
		fsparam_mkfs_compact(v, n, 0, &one, out);
	buf_release(&one);
	free(v);
}

/* The value shown for one parameter of a point: "975→919" when a node adjusted it; fs.mkfs
 * only with what differs among the sweep's values ("-d su=64k -i size=1k"). */
void words_param(const struct sweep *s, const struct point *p, const char *name, struct buf *b)
{
	const struct setting *req = config_get(&p->cfg, name);
	int i, j;

	if (sweep_point_mixed(s, p)) {
		mixed_param(s, p, name, b);
		return;
	}
	if (!req) {
		buf_puts(b, "-");
		return;
	}
	if (!strcmp(name, FSPARAM_MKFS)) {
		const char **v;
		int n = mkfs_values(s, &v);

		for (i = 0; i < n && strcmp(v[i], req->value); i++)
			;
		fsparam_mkfs_compact(v, n, i < n ? i : 0, b, NULL);
		free(v);
		return;
	}
	buf_puts(b, req->value);
	for (i = 0; i < s->plan.nnodes; i++) {
		const struct node_result *r = &p->nodes[i];

		for (j = 0; r->applied && j < r->applied->n; j++) {
			if (strcmp(r->applied->s[j].name, name) || !(r->adjusted_mask & (1u << j)))
				continue;
			buf_printf(b, "\u2192%s", r->applied->s[j].value);
			return;
		}
	}
}

/* At most this many disagreeing nodes are named in a table cell (JSON names them all). */
#define NAMED_MAX 6

/* "node17, node43 differ: −8.0 %, −11.0 %": the nodes a heterogeneous decision names, with
 * their own Δ (names[k] is node k's name). */
static void disagree_words(const struct effect *fx, char *const *names, struct buf *out)
{
	int i, n = fx->ndisagree < NAMED_MAX ? fx->ndisagree : NAMED_MAX;

	for (i = 0; i < n; i++)
		buf_printf(out, "%s%s", i ? ", " : "", names[fx->disagree[i]]);
	if (fx->ndisagree > n)
		buf_printf(out, " and %d more", fx->ndisagree - n);
	buf_puts(out, fx->ndisagree == 1 ? " differs: " : " differ: ");
	for (i = 0; i < n; i++) {
		buf_puts(out, i ? ", " : "");
		words_signed(out, fx->nodes[fx->disagree[i]].delta_pct);
		buf_puts(out, " %");
	}
}

int words_loops_ceiling(const struct plan *p)
{
	int max = p->loops_max > p->loops ? p->loops_max : p->loops;

	return max < WORDS_LOOPS_MAX ? max : WORDS_LOOPS_MAX;
}

/* A comparison's decision in words: what the table's verdict cell and the JSON's
 * verdict_text say. Disagreeing nodes are named. An inconclusive row whose nodes' own effects
 * differ says so first, whatever its loop estimate; one that noise explains says how many
 * loops would decide it, or, beyond ceiling (words_loops_ceiling), only that it is more. */
void words_decision(const struct effect *fx, enum effect_decision d, char *const *names,
                    int ceiling, struct buf *out)
{
	bool differ = d == EFFECT_INCONCLUSIVE && fx->noisy && effect_nodes_differ(fx);
	struct buf why = BUF_INIT;

	buf_puts(out, decision_words(d));
	if (d == EFFECT_HETEROGENEOUS && fx->ndisagree > 0) {
		buf_puts(out, ": ");
		disagree_words(fx, names, out);
		return;
	}
	if (d != EFFECT_INCONCLUSIVE || !fx->noisy)
		return;
	if (differ)
		buf_printf(&why, "nodes differ: \u03c4 %.1f %%; look at the nodes", fx->tau_pct);
	else if (fx->loops_needed > 0 && fx->loops_needed <= ceiling)
		buf_printf(&why, "too noisy: ~%d loops needed", fx->loops_needed);
	else if (fx->loops_needed != 0)
		buf_printf(&why, "too noisy: more than %d loops needed", ceiling);
	if (why.len)
		buf_printf(out, " (%s)", why.data);
	buf_release(&why);
}

/* The plan's node names, for words_decision. Caller frees the array (not the names). */
char **words_node_names(const struct plan *p)
{
	char **names = xcalloc((size_t)p->nnodes + 1, sizeof(char *));
	int k;

	for (k = 0; k < p->nnodes; k++)
		names[k] = p->nodes[k].name;
	return names;
}

/* Why a compared row has no decision: no node finished both points, or too few passes. */
static const char *no_decision_words(const struct point *p)
{
	int k;

	for (k = 0; k < p->fx.nnodes; k++)
		if (p->fx.nodes[k].state == EFFECT_NODE_FEW_PASSES)
			return "not judged: needs 2 passes or more per node";
	return "";
}

void words_cohort_decision(const struct sweep *s, const struct point *p, int c, bool delta,
                           struct buf *out)
{
	const struct sweep_cohort *co = &s->cohorts[c];
	const struct effect *fx = &p->cohort_fx[c];
	char **names;
	int j;

	if (fx->decision == EFFECT_NA) {
		buf_puts(out, "no figure");
		return;
	}
	names = xcalloc((size_t)co->nnodes + 1, sizeof(char *));
	for (j = 0; j < co->nnodes; j++)
		names[j] = s->plan.nodes[co->nodes[j]].name;
	words_decision(fx, fx->decision, names, words_loops_ceiling(&s->plan), out);
	free(names);
	if (fx->decision == EFFECT_HETEROGENEOUS || !delta)
		return;
	buf_puts(out, " ");
	words_delta_ci(out, fx->delta_pct, fx->ci95_low_pct, fx->ci95_high_pct);
}

/* "cohorts differ: model=A (6 nodes): significant gain +10.0 % [+9.4, +10.6]; model=B
 * (2 nodes): ...": each cohort's own decision on a row split by cohort. */
static void cohorts_verdict(const struct sweep *s, const struct point *p, struct buf *b)
{
	int c;

	buf_puts(b, decision_words(EFFECT_COHORTS));
	buf_puts(b, ": ");
	for (c = 0; c < s->ncohorts; c++) {
		buf_puts(b, c ? "; " : "");
		words_cohort(s, c, b);
		buf_puts(b, ": ");
		words_cohort_decision(s, p, c, true, b);
	}
}

/* A row's 95 % interval that excludes 0 beside a decision that is neither a gain nor a loss
 * would read as a contradiction: then say which interval decided (at a look of the stopping
 * rule it is wider; equivalence is two one-sided tests on the 90 % one) or that the effect is
 * below min_effect. */
static void deciding_interval_words(const struct sweep *s, const struct point *p,
                                    const struct effect *fx, enum effect_decision d, struct buf *b)
{
	int nlooks = fx->alpha > 0 ? (int)lround(EFFECT_ALPHA / fx->alpha) : 1;
	double lo, hi, level, m = s->plan.min_effect_pct;

	if (d == EFFECT_GAIN || d == EFFECT_LOSS || d == EFFECT_NA || d == EFFECT_COHORTS ||
	    d == EFFECT_HETEROGENEOUS || !(fx->ci95_low_pct > 0 || fx->ci95_high_pct < 0) ||
	    !effect_deciding_interval(fx, d, &lo, &hi, &level))
		return;
	buf_puts(b, " (");
	if (fabs(level - 95.0) > 1e-9) {
		buf_puts(b, "decided on the ");
		level_words(b, level);
		buf_puts(b, " interval [");
		words_signed(b, lo);
		buf_puts(b, ", ");
		words_signed(b, hi);
		buf_puts(b, "]");
		if (d == EFFECT_EQUIVALENT)
			buf_printf(b, ", inside \u00b1%g %%", m);
		else if (nlooks > 1)
			buf_printf(b, " at look %d of %d", sweep_point_look(s, p->index), nlooks);
	} else {
		buf_printf(b, "below min_effect %g %%", m);
	}
	buf_puts(b, ")");
}

void words_verdict(const struct sweep *s, const struct point *p, struct buf *b)
{
	char **names;

	if (p->role == ROLE_FINAL)
		buf_puts(b, "final vs original baseline: ");
	if (p->role != ROLE_BASELINE && p->verdict == EFFECT_NA) {
		buf_puts(b, no_decision_words(p));
		return;
	}
	if (p->verdict == EFFECT_COHORTS && p->cohort_fx) {
		cohorts_verdict(s, p, b);
		return;
	}
	names = words_node_names(&s->plan);
	words_decision(&p->fx, p->verdict, names, words_loops_ceiling(&s->plan), b);
	free(names);
	deciding_interval_words(s, p, &p->fx, p->verdict, b);
}

void words_verdict_short(const struct sweep *s, const struct point *p, struct buf *b)
{
	if (!(p->verdict == EFFECT_COHORTS && p->cohort_fx)) {
		words_verdict(s, p, b);
		return;
	}
	if (p->role == ROLE_FINAL)
		buf_puts(b, "final vs original baseline: ");
	buf_printf(b, "%s (between cohorts p %s%.2g)", decision_words(EFFECT_COHORTS),
	           p->between.p < 1e-4 ? "< " : "", p->between.p < 1e-4 ? 1e-4 : p->between.p);
}

/* "node1: why; node2: why" for the nodes of point p without a figure. */
static void point_failures(const struct sweep *s, const struct point *p, struct buf *out)
{
	int k, n = 0;

	for (k = 0; k < s->plan.nnodes; k++) {
		const struct node_result *r = &p->nodes[k];

		if (r->state == NODE_OK && r->npasses > 0)
			continue;
		buf_printf(out, "%s%s: %s", n++ ? "; " : "", s->plan.nodes[k].name,
		           r->error ? r->error : sweep_node_state_code(r->state));
	}
}

/* "the baseline failed on every node" or why it has no figure without failing: the words of
 * why (one of the baseline whys), as every surface says them. */
static void baseline_why_words(enum decision_why why, const char *status, struct buf *out)
{
	switch (why) {
	case DECISION_WHY_BASELINE_CANCELLED:
		buf_printf(out,
		           "the baseline was cancelled on every node before it finished (the sweep "
		           "was %s)",
		           status ? status : "stopped");
		return;
	case DECISION_WHY_BASELINE_NOT_RUN:
		buf_printf(out, "the sweep was %s before the baseline's turn in the first round",
		           status ? status : "stopped");
		return;
	default:
		buf_puts(out, "the baseline failed on every node");
	}
}

static void baseline_words(const struct sweep *s, struct buf *out)
{
	baseline_why_words(sweep_baseline_why(s), s->status, out);
}

/* The first configuration point that ran and has no figure, for "no figures". */
static const struct point *first_failed_candidate(const struct sweep *s)
{
	int i, k;

	for (i = 1; i < s->npoints; i++) {
		const struct point *p = &s->points[i];

		if (p->role == ROLE_BASELINE)
			continue;
		for (k = 0; k < s->plan.nnodes; k++)
			if (p->nodes[k].state == NODE_FAILED || p->nodes[k].state == NODE_CANCELLED)
				return p;
	}
	return NULL;
}

/* Up to this many nodes are named in the best line. */
#define BEST_NAMED_MAX 4

/* "node1, node2 and node3": the used nodes of fx whose own decision is d. Returns how many
 * there are; names them when there are 1..BEST_NAMED_MAX. */
static int nodes_with(const struct sweep *s, const struct effect *fx, enum effect_decision d,
                      struct buf *out)
{
	int i, k = 0, n = 0;

	for (i = 0; i < fx->nnodes; i++)
		n += fx->nodes[i].state == EFFECT_NODE_USED && fx->nodes[i].decision == d;
	if (n > BEST_NAMED_MAX)
		return n;
	for (i = 0; i < fx->nnodes; i++) {
		if (fx->nodes[i].state != EFFECT_NODE_USED || fx->nodes[i].decision != d)
			continue;
		k++;
		buf_printf(out, "%s%s",
		           k == 1   ? ""
		           : k == n ? " and "
		                    : ", ",
		           s->plan.nodes[i].name);
	}
	return n;
}

void words_delta_level(struct buf *b, double delta_pct, double lo, double hi, double level_pct)
{
	words_delta_ci(b, delta_pct, lo, hi);
	if (!isnan(delta_pct) && !isnan(lo) && !isnan(hi) && !isnan(level_pct)) {
		buf_puts(b, " (");
		level_words(b, level_pct);
		buf_puts(b, " interval)");
	}
}

/* Which comparison decided d, as a noun phrase. */
static const char *basis_words(const struct decision *d)
{
	switch (d->basis) {
	case DECISION_BASIS_FINAL:
		return "the final confirmation beside the original baseline measured again";
	case DECISION_BASIS_GRID_ROW:
		return "its row beside the baseline, measured in the same rounds";
	case DECISION_BASIS_ROWS:
		return "the axis rows alone (no final confirmation ran)";
	case DECISION_BASIS_NONE:
		break;
	}
	return "no comparison";
}

/* " on both nodes", " on all 8 nodes", " on the fleet of 2 nodes; neither node alone has enough
 * loops to show it", ...: who shows a gain, from the counts of decision d alone (so every
 * rendering of a stored decision words it the same). */
static void gain_nodes(const struct decision *d, struct buf *out)
{
	int n = d->ngain, k = d->nused;

	if (k <= 0)
		return;
	if (n == k)
		buf_printf(out,
		           k == 1   ? " on its one node"
		           : k == 2 ? " on both nodes"
		                    : " on all %d nodes",
		           k);
	else if (k == 2)
		buf_puts(
		        out,
		        " on the fleet of 2 nodes; neither node alone has enough loops to show it");
	else if (n == 0)
		buf_printf(out,
		           " on the fleet of %d nodes; no node alone has enough loops to show it",
		           k);
	else
		buf_printf(out,
		           " on the fleet of %d nodes; %d of them alone %s enough loops to show it",
		           k, n, n == 1 ? "has" : "have");
}

/* The comparison d's point made, as cohort c sees it. */
static const struct effect *decision_fx(const struct sweep *s, const struct decision *d, int c)
{
	const struct point *p = &s->points[d->point];

	return c >= 0 && p->between.split && p->cohort_fx ? &p->cohort_fx[c] : &p->fx;
}

/* "is not confirmed: the final confirmation showed +1.0 %, no real difference" and its like,
 * for an unconfirmed decision. */
static void unconfirmed_clause(const struct decision *d, const char *status, struct buf *out)
{
	if (d->why == DECISION_WHY_NO_FINAL) {
		if (status && (!strcmp(status, "interrupted") || !strcmp(status, "aborted") ||
		               !strcmp(status, "failed") || !strcmp(status, "running")))
			buf_printf(out,
			           " is not confirmed: the sweep was %s before its final "
			           "confirmation",
			           !strcmp(status, "running") ? "stopped" : status);
		else
			buf_puts(out, " is not confirmed: no final confirmation ran");
		return;
	}
	buf_puts(out, " is not confirmed: the final confirmation showed ");
	if (isnan(d->delta_pct)) {
		buf_puts(out, "no figure");
		return;
	}
	words_signed(out, d->delta_pct);
	buf_printf(out, " %%, %s",
	           d->verdict == EFFECT_NA ? "no decision" : decision_words(d->verdict));
}

void words_decision_summary(const struct decision *d, const char *status, struct buf *out)
{
	switch (d->state) {
	case DECISION_CONFIRMED:
		buf_puts(out, "best: ");
		config_format(&d->cfg, out);
		buf_puts(out, "  ");
		words_signed(out, d->delta_pct);
		buf_printf(out, " %% (%s", decision_words(EFFECT_GAIN));
		gain_nodes(d, out);
		buf_puts(out, ")");
		return;
	case DECISION_UNCONFIRMED:
		buf_puts(out, "best: the baseline (");
		config_format(&d->cfg, out);
		unconfirmed_clause(d, status, out);
		buf_puts(out, ")");
		return;
	case DECISION_NONE:
		break;
	}
	switch (d->why) {
	case DECISION_WHY_BASELINE_FAILED:
	case DECISION_WHY_BASELINE_CANCELLED:
	case DECISION_WHY_BASELINE_NOT_RUN:
		buf_puts(out, "no best: ");
		baseline_why_words(d->why, status, out);
		return;
	case DECISION_WHY_NO_FIGURES:
		buf_puts(out, "no best: no configuration produced a figure to compare with the "
		              "baseline");
		return;
	case DECISION_WHY_NOT_JUDGED:
		buf_puts(out, "no best: not judged");
		return;
	default:
		break;
	}
	if (status && (!strcmp(status, "interrupted") || !strcmp(status, "aborted")))
		buf_printf(
		        out,
		        "best: the baseline (no configuration gave a significant gain before the "
		        "sweep was %s)",
		        status);
	else
		buf_puts(out, "best: the baseline (no configuration gave a significant gain)");
}

/* The lines under an unconfirmed or confirmed decision: which comparison decided, with the
 * interval it used; for an unconfirmed one also the rows that suggested it and what the
 * actions do with it. Each line indented by two blanks, with its newline. */
static void decision_details(const struct sweep *s, const struct decision *d, struct buf *out)
{
	int i;

	if (d->state == DECISION_CONFIRMED) {
		struct buf names = BUF_INIT;

		buf_printf(out, "  decided by %s: ", basis_words(d));
		words_delta_level(out, d->delta_pct, d->low_pct, d->high_pct, d->level_pct);
		if (d->point >= 0 && d->ngain > 0 &&
		    nodes_with(s, decision_fx(s, d, -1), EFFECT_GAIN, &names) <= BEST_NAMED_MAX &&
		    names.len)
			buf_printf(out, "; a gain on its own on %s", names.data);
		buf_release(&names);
		buf_puts(out, "\n");
		return;
	}
	if (d->state != DECISION_UNCONFIRMED)
		return;
	for (i = 0; i < d->nsteps; i++) {
		const struct decision_step *st = &d->steps[i];
		const struct point *p = &s->points[st->point];

		buf_puts(out, "  suggested by ");
		if (st->axis >= 0 && st->axis < s->plan.naxes)
			buf_printf(out, "axis %d's row ", st->axis + 1);
		config_format(&p->cfg, out);
		buf_puts(out, ": ");
		words_delta_level(out, st->delta_pct, st->low_pct, st->high_pct, st->level_pct);
		buf_printf(out, ", %s", decision_words(st->verdict));
		if (p->race.state == RACE_TENTATIVE)
			buf_puts(out, " (kept tentatively by its race)");
		buf_puts(out, "\n");
	}
	if (d->basis == DECISION_BASIS_FINAL) {
		buf_printf(out, "  %s: ", basis_words(d));
		if (isnan(d->delta_pct))
			buf_puts(out, "no figure");
		else
			words_delta_level(out, d->delta_pct, d->low_pct, d->high_pct, d->level_pct);
		buf_printf(out, ", %s\n",
		           d->verdict == EFFECT_NA ? "no decision" : decision_words(d->verdict));
	}
	buf_puts(out, "  export, apply --best and rollout --best refuse it; --unconfirmed takes it "
	              "on purpose\n");
}

/* "best per cohort ...": one line per cohort, its decision. */
static void cohort_best_lines(const struct sweep *s, struct buf *out)
{
	int c;

	buf_puts(out, "best per cohort (the cohorts' effects differ):\n");
	for (c = 0; c < s->ncohorts; c++) {
		const struct decision *d = &s->cohorts[c].decision;
		struct buf sum = BUF_INIT;

		buf_puts(out, "  ");
		words_cohort(s, c, out);
		buf_puts(out, ": ");
		words_decision_summary(d, s->status, &sum);
		/* "best: " is the line's, not the cohort's. */
		buf_puts(out, sum.data && !strncmp(sum.data, "best: ", 6) ? sum.data + 6
		              : sum.data                                  ? sum.data
		                                                          : "");
		buf_release(&sum);
		buf_puts(out, "\n");
	}
}

/* The best line; details: each node's error where there is no best, and the decision's
 * comparison under it. */
static void best_line(const struct sweep *s, bool details, struct buf *out)
{
	const struct decision *d = &s->decision;
	const struct point *p;

	if ((s->outcome == OUTCOME_BEST || s->outcome == OUTCOME_BASELINE) &&
	    sweep_cohort_decisions_differ(s)) {
		cohort_best_lines(s, out);
		return;
	}
	switch (s->outcome) {
	case OUTCOME_BASELINE_FAILED:
		buf_puts(out, "no best: ");
		baseline_words(s, out);
		if (details && s->npoints) {
			buf_puts(out, " (");
			point_failures(s, &s->points[0], out);
			buf_puts(out, ")");
		}
		buf_puts(out, "\n");
		return;
	case OUTCOME_NO_FIGURES:
		buf_puts(out, "no best: no configuration produced a figure to compare with the "
		              "baseline");
		p = details ? first_failed_candidate(s) : NULL;
		if (p) {
			buf_printf(out, " (point %d: ", p->index + 1);
			point_failures(s, p, out);
			buf_puts(out, ")");
		}
		buf_puts(out, "\n");
		return;
	case OUTCOME_PENDING:
	case OUTCOME_BEST:
	case OUTCOME_BASELINE:
		break;
	}
	words_decision_summary(d, s->status, out);
	buf_puts(out, "\n");
	if (details)
		decision_details(s, d, out);
}

void words_no_best(const struct sweep *s, struct buf *out)
{
	switch (s->outcome) {
	case OUTCOME_BASELINE_FAILED:
		baseline_words(s, out);
		return;
	case OUTCOME_NO_FIGURES:
		buf_puts(out, "no configuration produced a figure to compare with the baseline");
		return;
	case OUTCOME_PENDING:
		buf_printf(out, "it was not judged (status %s)", s->status);
		return;
	case OUTCOME_BEST:
	case OUTCOME_BASELINE:
		break;
	}
	buf_puts(out, "no configuration gave a significant gain over the baseline");
}

void words_decision_refusal(const struct sweep *s, const struct decision *d, struct buf *out)
{
	int i;

	if (d->state == DECISION_NONE) {
		words_no_best(s, out);
		return;
	}
	config_format(&d->cfg, out);
	unconfirmed_clause(d, s->status, out);
	if (d->basis == DECISION_BASIS_FINAL && !isnan(d->delta_pct)) {
		buf_puts(out, " (");
		words_delta_level(out, d->delta_pct, d->low_pct, d->high_pct, d->level_pct);
		buf_puts(out, ")");
	}
	for (i = 0; i < d->nsteps; i++) {
		const struct decision_step *st = &d->steps[i];

		buf_puts(out, i ? "; " : "; the axis rows suggested it: ");
		config_format(&s->points[st->point].cfg, out);
		buf_puts(out, " ");
		words_delta_level(out, st->delta_pct, st->low_pct, st->high_pct, st->level_pct);
		buf_printf(out, ", %s", decision_words(st->verdict));
	}
}

void words_best_line(const struct sweep *s, struct buf *out)
{
	if (s->suite) { /* the rule's decision, in its words */
		words_suite_best_line(s, out);
		return;
	}
	best_line(s, true, out);
}

void words_best_summary(const struct sweep *s, struct buf *out)
{
	if (s->suite) {
		words_suite_best_line(s, out);
		if (out->len && out->data[out->len - 1] == '\n')
			out->data[--out->len] = '\0';
		return;
	}
	best_line(s, false, out);
	if (out->len && out->data[out->len - 1] == '\n')
		out->data[--out->len] = '\0';
}

/* One warning in words. */
void words_warning(const struct sweep *s, const struct sweep_warning *w, struct buf *out)
{
	switch (w->code) {
	case WARNING_NODE_OFFSET:
		buf_printf(out,
		           "%s is consistently %.1f %% %s %s (%d of %d points): check its hardware "
		           "before trusting fleet-wide verdicts",
		           s->plan.nodes[w->node].name, fabs(w->offset_pct),
		           w->offset_pct > 0 ? "above" : "below",
		           w->other >= 0 ? s->plan.nodes[w->other].name : "the other nodes",
		           w->npoints, w->npoints);
		break;
	}
}

/* The noise line (without "noise: " and the newline), when some row cannot resolve
 * min_effect: how much the passes vary, which rows, and what would decide them. */
void words_noise(const struct sweep *s, struct buf *out)
{
	const struct sweep_noise *ns = &s->noise;
	double m = s->plan.min_effect_pct;
	int ceiling = words_loops_ceiling(&s->plan);
	/* A job that set direct either way chose its I/O path: a buffered job is buffered on
	 * purpose; only fio's jobs have the option. What makes a pass longer, per engine. */
	bool fio = !strcmp(s->plan.engine, "fio");
	const char *direct = !fio || plan_job_sets_direct(&s->plan) ? "" : ", direct I/O";
	const char *longer = fio ? "longer runtime_s"
	                     : !strcmp(s->plan.engine, "dd")
	                             ? "a larger dd count (more data per pass)"
	                     : !strcmp(s->plan.engine, "bonnie") ? "a larger bonnie size_mb"
	                     : !strcmp(s->plan.engine, "iozone") ? "a larger iozone file_size"
	                                                         : "longer passes";

	buf_printf(out,
	           "passes vary by up to %.1f %%; %d of %d row%s cannot tell a %g %% difference "
	           "(the smallest %s detect%s is %.1f %%)",
	           ns->cv_pct, ns->nnoisy, ns->nrows, ns->nrows == 1 ? "" : "s", m,
	           ns->nnoisy == 1 ? "it" : "they", ns->nnoisy == 1 ? "s" : "", ns->mde_pct);
	if (ns->loops_needed > ceiling) {
		buf_printf(out,
		           ". More than %d loops: this job is too noisy for a %g %% decision here. "
		           "What would decide it: ",
		           ceiling, m);
		if (ns->loops_needed > 0 && ns->loops_needed <= WORDS_LOOPS_MAX)
			buf_printf(out, "about %d loops per point (%s), ", ns->loops_needed,
			           s->plan.loops_max > s->plan.loops ? "job.loops.max"
			                                             : "job.loops");
		buf_printf(out,
		           "a quiet machine while it runs (nothing else on the nodes' disks and "
		           "CPUs), %s%s, or a min_effect_pct these rows can tell "
		           "(%.0f %%)",
		           longer, direct, ceil(ns->mde_pct));
	} else if (ns->loops_needed > 0) {
		buf_printf(out,
		           ". Deciding %g %% needs about %d loops per point, or a quieter job: "
		           "%s%s",
		           m, ns->loops_needed, longer, direct);
	}
	if (ns->ndiffer > 0)
		buf_printf(
		        out,
		        ". In %d row%s the nodes' own effects differ (\u03c4 up to %.1f %%): more "
		        "loops do not resolve that; look at the nodes",
		        ns->ndiffer, ns->ndiffer == 1 ? "" : "s", ns->tau_pct);
}

/* "42 s", "4.2 min", "3.1 h". */
static void duration_words(double s, struct buf *out)
{
	if (s < 120)
		buf_printf(out, "%.0f s", s);
	else if (s < 7200)
		buf_printf(out, "%.1f min", s / 60);
	else
		buf_printf(out, "%.1f h", s / 3600);
}

/* "node1's figures rose 9.1 % [+8.0, +10.2]" */
static void node_drift_words(const struct sweep *s, int k, bool first, struct buf *out)
{
	const struct sweep_drift_node *dn = &s->drift.nodes[k];

	buf_printf(out, "%s%s's%s %s %.1f %%", first ? "" : ", ", s->plan.nodes[k].name,
	           first ? " figures" : "", dn->change_pct >= 0 ? "rose" : "fell",
	           fabs(dn->change_pct));
	if (!isnan(dn->low_pct) && !isnan(dn->high_pct)) {
		buf_puts(out, " [");
		words_signed(out, dn->low_pct);
		buf_puts(out, ", ");
		words_signed(out, dn->high_pct);
		buf_puts(out, "]");
	}
}

void words_drift(const struct sweep *s, struct buf *out)
{
	const struct sweep_drift *d = &s->drift;
	int k, n = 0, up = 0, down = 0, top = -1, bottom = -1;

	for (k = 0; k < d->nnodes; k++) {
		const struct sweep_drift_node *dn = &d->nodes[k];

		if (!dn->significant)
			continue;
		if (dn->change_pct >= 0) {
			up++;
			if (top < 0 || dn->change_pct > d->nodes[top].change_pct)
				top = k;
		} else {
			down++;
			if (bottom < 0 || dn->change_pct < d->nodes[bottom].change_pct)
				bottom = k;
		}
	}
	if (d->nsignificant <= 3) {
		for (k = 0; k < d->nnodes; k++)
			if (d->nodes[k].significant)
				node_drift_words(s, k, n++ == 0, out);
	} else {
		buf_printf(out, "%d of %d nodes' figures moved", d->nsignificant, d->nnodes);
		if (up)
			buf_printf(out, " (%d rose, by up to %.1f %% on %s", up,
			           d->nodes[top].change_pct, s->plan.nodes[top].name);
		if (down)
			buf_printf(out, "%s%d fell, by up to %.1f %% on %s", up ? "; " : " (", down,
			           -d->nodes[bottom].change_pct, s->plan.nodes[bottom].name);
		buf_puts(out, ")");
	}
	buf_puts(out, " over the sweep");
	if (d->timed && d->span_s > 0) {
		buf_puts(out, " (");
		duration_words(d->span_s, out);
		buf_puts(out, ")");
	}
	if (d->rounds)
		buf_puts(out, "; rows are judged within rounds, so it does not bias them");
	else
		buf_puts(out,
		         ", read from each point's own back-to-back loops; this sweep's passes "
		         "carry no rounds, so its rows are judged as independent samples and the "
		         "drift may bias them: run it again in rounds");
}

bool words_warmup_due(const struct sweep *s)
{
	return s->drift.nwarmup_nodes > 0 || s->drift.nwarmup_passes > 0;
}

void words_warmup(const struct sweep *s, struct buf *out)
{
	const struct sweep_drift *d = &s->drift;
	int k, n = 0, w = s->plan.warmup_loops;

	if (d->nwarmup_passes > 0) {
		buf_printf(out, "%d loop%s per point ran first and %s not judged", w > 0 ? w : 1,
		           w > 1 ? "s" : "", w > 1 ? "are" : "is");
		for (k = 0; k < d->nnodes && d->nnodes <= 3; k++) {
			if (isnan(d->nodes[k].warmup_pct))
				continue;
			buf_printf(out, "%s%s's %.1f %% %s", n++ ? ", " : " (",
			           s->plan.nodes[k].name, fabs(d->nodes[k].warmup_pct),
			           d->nodes[k].warmup_pct >= 0 ? "below" : "above");
		}
		if (n)
			buf_puts(out, " the judged passes)");
	}
	if (!d->nwarmup_nodes)
		return;
	buf_puts(out, d->nwarmup_passes > 0 ? "; still, " : "");
	n = 0;
	if (d->nwarmup_nodes <= 3) {
		for (k = 0; k < d->nnodes; k++) {
			const struct sweep_drift_node *dn = &d->nodes[k];

			if (!dn->warmup)
				continue;
			buf_printf(
			        out,
			        "%s%s's first pass ran %.1f %% below the rest on %d of %d points",
			        n++ ? ", " : "", s->plan.nodes[k].name, dn->warm_pct,
			        dn->warm_points, dn->warm_of);
		}
	} else {
		double most = 0;

		for (k = 0; k < d->nnodes; k++)
			if (d->nodes[k].warmup && d->nodes[k].warm_pct > most)
				most = d->nodes[k].warm_pct;
		buf_printf(
		        out,
		        "on %d of %d nodes the first pass ran up to %.1f %% below the rest on most "
		        "points",
		        d->nwarmup_nodes, d->nnodes, most);
	}
	if (w > 0)
		buf_printf(out,
		           ", after %d warm-up loop%s: more \"warmup_loops\", or a ramp_time_s in "
		           "the job's fio options",
		           w, w == 1 ? "" : "s");
	else
		buf_puts(out,
		         ": give the job's fio options a ramp_time_s (fio runs the workload that "
		         "long before it measures), or put \"warmup_loops\": 1 in the plan's job "
		         "(every point runs a warm-up loop first, stored and shown, never judged)");
}

bool words_rounds_due(const struct sweep *s)
{
	int i;

	if (s->drift.rounds)
		return false;
	for (i = 0; i < s->npoints; i++)
		if (s->points[i].role != ROLE_BASELINE && s->points[i].fx.nused > 0)
			return true;
	return false;
}

void words_rounds(const struct sweep *s, struct buf *out)
{
	(void)s;
	buf_puts(out, "none recorded (a format-1 or -2 document, or a sweep stored before rounds): "
	              "rows are judged as independent samples, as they were");
}

/* At most this many nodes are named per cohort when pre-flight prints the cohorts. */
#define COHORT_NAMED_MAX 4

void words_cohort(const struct sweep *s, int c, struct buf *out)
{
	if (s->plan.ncohort_by)
		sweep_cohort_key(s, c, out);
	else
		buf_puts(out, "every node");
	buf_printf(out, " (%d node%s)", s->cohorts[c].nnodes, s->cohorts[c].nnodes == 1 ? "" : "s");
}

void words_cohorts(const struct sweep *s, struct buf *out)
{
	int c, j;

	buf_puts(out, "cohorts by ");
	for (j = 0; j < s->plan.ncohort_by; j++)
		buf_printf(out, "%s%s", j ? ", " : "", s->plan.cohort_by[j]);
	if (!s->plan.ncohort_by)
		buf_puts(out, "nothing (cohort_by [])");
	buf_printf(out, ": %d\n", s->ncohorts);
	for (c = 0; c < s->ncohorts; c++) {
		const struct sweep_cohort *co = &s->cohorts[c];
		int n = co->nnodes < COHORT_NAMED_MAX ? co->nnodes : COHORT_NAMED_MAX;

		buf_puts(out, "  ");
		words_cohort(s, c, out);
		buf_puts(out, ": ");
		for (j = 0; j < n; j++)
			buf_printf(out, "%s%s", j ? ", " : "", s->plan.nodes[co->nodes[j]].name);
		if (co->nnodes > n)
			buf_printf(out, " and %d more", co->nnodes - n);
		buf_puts(out, "\n");
	}
}

const char *words_rule(enum plan_rule r)
{
	switch (r) {
	case PLAN_RULE_PRIMARY:
		return "one workload decides, the others are shown and guarded";
	case PLAN_RULE_MEAN:
		return "the weighted geometric mean of the workloads' ratios";
	default:
		return "a gain on some workload and a loss on none, Holm-corrected within each "
		       "configuration";
	}
}

void words_suite_decision(const struct sweep *s, const struct decision *d, struct buf *out)
{
	if (d->state == DECISION_CONFIRMED && d->point >= 0) {
		config_format(&d->cfg, out);
		buf_printf(out, ", %s ", s->suite->rule == PLAN_RULE_PRIMARY ? "Δ" : "mean Δ");
		words_delta_ci(out, d->delta_pct, d->low_pct, d->high_pct);
		buf_puts(out, "\n");
		return;
	}
	if (d->state == DECISION_UNCONFIRMED)
		buf_puts(out,
		         "none confirmed: the final confirmation is not a gain under the rule; "
		         "the baseline stands\n");
	else
		buf_puts(out, "none: no configuration passes the rule; the baseline stands\n");
}

void words_suite_best_line(const struct sweep *s, struct buf *out)
{
	const struct suite *su = s->suite;
	int c;

	if (!su)
		return;
	buf_printf(out, "best (rule %s: %s", plan_rule_name(su->rule), words_rule(su->rule));
	if (su->rule == PLAN_RULE_PRIMARY)
		buf_printf(out, ", '%s'", s->plan.workloads[s->plan.primary].name);
	buf_puts(out, "): ");
	words_suite_decision(s, &su->decision, out);
	if (!sweep_cohort_decisions_differ(s))
		return;
	buf_puts(out, "best per cohort under the rule (the cohorts' effects differ):\n");
	for (c = 0; c < s->ncohorts; c++) {
		buf_puts(out, "  ");
		words_cohort(s, c, out);
		buf_puts(out, ": ");
		words_suite_decision(s, &s->cohorts[c].decision, out);
	}
}
