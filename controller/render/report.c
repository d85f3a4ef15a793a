/* report.c -- a sweep rendered for people: the table (seed 003 style), markdown, CSV,
 * compare, history and the dry run (report_nodes.c: the pre-flight, nodes and apply text). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc/sweepdoc.h"
#include "judge/analysis.h"
#include "judge/race.h"
#include "model/words.h"
#include "plan/fsparam.h"
#include "render/report.h"
#include "render/report_suite.h"
#include "render/text.h"
#include "run/strategy.h"
#include "timeutil.h"
#include "xmalloc.h"
#include "banned.h"

int report_format_parse(const char *s, enum report_format *out)
{
	static const char *const names[] = { "table", "markdown", "csv", "json" };
	int i;

	for (i = 0; i < 4; i++) {
		if (!strcmp(s, names[i])) {
			*out = (enum report_format)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* Display width of UTF-8 text: code points, not bytes. */
static int text_width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			w++;
	return w;
}

/* ": No space left on device": a failed node's reason as its table cell shows it, the agent's
 * message less the "job N failed: code: " it starts with (and an engine's exit status before
 * what the engine said), at most 60 characters. */
static void failure_reason(const char *error, struct buf *b)
{
	const char *t = error, *c;
	size_t n;

	if (!strncmp(t, "job ", 4) && (c = strstr(t, " failed: ")))
		t = c + strlen(" failed: ");
	c = strstr(t, ": ");
	if (c && c - t < 32 && strspn(t, "abcdefghijklmnopqrstuvwxyz_") == (size_t)(c - t))
		t = c + 2; /* the error code */
	/* "fio exited with status 1 (job error 22): fio: ...": what the engine said. */
	c = strstr(t, "): ");
	if (c && strlen(c + 3) >= 8)
		t = c + 3;
	n = strlen(t);
	if (n > 60)
		buf_printf(b, ": %.59s\u2026", t);
	else
		buf_printf(b, ": %s", t);
}

static void node_cell(const struct point *p, const struct node_result *r, struct buf *b)
{
	if (r->state == NODE_DROPPED) {
		buf_puts(b, "dropped");
		return;
	}
	if (r->sum.n == 0) {
		buf_puts(b, r->state == NODE_PENDING ? "-" : sweep_node_state_code(r->state));
		if (r->state == NODE_FAILED && r->error)
			failure_reason(r->error, b);
		return;
	}
	/* One pass has no spread: its figure alone, never "± 0". */
	if (r->sum.n == 1)
		buf_printf(b, "%.1f (1 pass)", r->sum.mean);
	else
		buf_printf(b, "%.1f \u00b1 %.1f", r->sum.mean, r->sum.stdev);
	if (r->state != NODE_OK)
		buf_printf(b, " (%s after %d of %d loops)", sweep_node_state_code(r->state),
		           r->npasses, p->loops_run);
}

static void delta_cell(const struct point *p, struct buf *b)
{
	if (p->role == ROLE_BASELINE) {
		buf_puts(b, "baseline");
		return;
	}
	if (p->between.split) {
		buf_puts(b, "by cohort");
		return;
	}
	words_delta_ci(b, p->delta_pct, p->ci_low_pct, p->ci_high_pct);
}

/* The cells of every row, header first: rows[r * ncols + c]; point[r] is row r's point
 * (a row split by cohort is followed by a row per cohort of the same point). */
struct grid {
	int ncols, nrows;
	char **cells;
	int *point;
};

static int double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* v[0..n) sorted in place; its median (n > 0). */
static double median_sort(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), double_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The columns that stand for the nodes in a fleet-scale table. */
#define DIST_COLS 4

/*
 * A fleet-scale row's node columns: how many nodes have a figure (and how many failed or
 * were dropped), the nodes' means as median [min, max], their own Δ min / median / max, and
 * how many nodes show a significant gain / loss of their own. The verdict cell names the
 * disagreeing nodes as in the wide table.
 */
static void distribution_cells(const struct sweep *s, const struct point *p, const int *members,
                               int nmembers, const struct effect *cfx, char **cells)
{
	int n = members ? nmembers : s->plan.nnodes, j, nv = 0, nd = 0, failed = 0, dropped = 0;
	int gain = 0, loss = 0;
	double *v = xcalloc((size_t)n + 1, sizeof(double));
	double *d = xcalloc((size_t)n + 1, sizeof(double));
	struct buf b = BUF_INIT;

	for (j = 0; j < n; j++) {
		int k = members ? members[j] : j;
		const struct node_result *r = &p->nodes[k];
		const struct effect_node *fx = members ? (j < cfx->nnodes ? &cfx->nodes[j] : NULL)
		                                       : sweep_node_effect(p, k);

		if (r->state == NODE_DROPPED)
			dropped++;
		else if (r->state == NODE_FAILED || r->state == NODE_CANCELLED)
			failed++;
		if (r->sum.n > 0)
			v[nv++] = r->sum.mean;
		if (p->role == ROLE_BASELINE || !fx || fx->state != EFFECT_NODE_USED)
			continue;
		d[nd++] = fx->delta_pct;
		gain += fx->decision == EFFECT_GAIN;
		loss += fx->decision == EFFECT_LOSS;
	}
	buf_printf(&b, "%d/%d", nv, n);
	if (failed)
		buf_printf(&b, " (%d failed)", failed);
	if (dropped)
		buf_printf(&b, " (%d dropped)", dropped);
	cells[0] = buf_detach(&b, NULL);
	if (nv > 0) {
		double med = median_sort(v, nv);

		buf_printf(&b, "%.1f [%.1f, %.1f]", med, v[0], v[nv - 1]);
	}
	cells[1] = buf_detach(&b, NULL);
	if (nd > 0) {
		double med = median_sort(d, nd);

		words_signed(&b, d[0]);
		buf_puts(&b, " / ");
		words_signed(&b, med);
		buf_puts(&b, " / ");
		words_signed(&b, d[nd - 1]);
		buf_puts(&b, " %");
	}
	cells[2] = buf_detach(&b, NULL);
	if (nd > 0)
		buf_printf(&b, "%d / %d", gain, loss);
	cells[3] = buf_detach(&b, NULL);
	free(v);
	free(d);
}

/* The rows of a row split by cohort (cohort.h): one per cohort under the point's own, with the
 * cohort's nodes, its Δ and its own decision. */
static void cohort_row_cells(const struct sweep *s, const struct point *p, int c, bool dist, int nc,
                             bool spread, bool adaptive, char **cells)
{
	const struct sweep_cohort *co = &s->cohorts[c];
	const struct effect *fx = &p->cohort_fx[c];
	struct buf b = BUF_INIT;
	int j, k, i = 0;

	buf_puts(&b, "  \u21b3 ");
	words_cohort(s, c, &b);
	cells[i++] = buf_detach(&b, NULL);
	for (j = 1; j < nc; j++)
		cells[i++] = xstrdup("");
	if (dist) {
		distribution_cells(s, p, co->nodes, co->nnodes, fx, &cells[i]);
		i += DIST_COLS;
	}
	for (k = 0, j = 0; !dist && k < s->plan.nnodes; k++) {
		if (j < co->nnodes && co->nodes[j] == k) {
			node_cell(p, &p->nodes[k], &b);
			j++;
		}
		cells[i++] = buf_detach(&b, NULL);
	}
	if (spread)
		cells[i++] = xstrdup("");
	if (adaptive)
		cells[i++] = xstrdup("");
	words_delta_ci(&b, fx->delta_pct, fx->ci95_low_pct, fx->ci95_high_pct);
	cells[i++] = buf_detach(&b, NULL);
	words_cohort_decision(s, p, c, false, &b);
	cells[i] = buf_detach(&b, NULL);
}

static void grid_build(const struct sweep *s, bool dist, struct grid *g)
{
	char cols[PLAN_COLUMNS_MAX][PARAM_NAME_MAX];
	int nc = plan_columns(&s->plan, cols, PLAN_COLUMNS_MAX), i, j, c, row = 1;
	const char *unit = plan_metric_unit(s->plan.metric);
	bool spread = s->plan.nnodes > 1, adaptive = s->plan.loops_max > s->plan.loops;
	int nodecols = dist ? DIST_COLS : s->plan.nnodes;

	g->ncols = nc + nodecols + (spread ? 1 : 0) + (adaptive ? 1 : 0) + 2;
	g->nrows = s->npoints + 1;
	for (i = 0; i < s->npoints; i++)
		g->nrows += s->points[i].between.split ? s->ncohorts : 0;
	g->cells = xcalloc((size_t)g->ncols * (size_t)g->nrows, sizeof(char *));
	g->point = xcalloc((size_t)g->nrows, sizeof(int));
	g->point[0] = -1;
	c = 0;
	for (j = 0; j < nc; j++)
		g->cells[c++] = xstrdup(cols[j]);
	if (dist) {
		g->cells[c++] = xstrdup("nodes");
		g->cells[c++] = *unit ? xasprintf("node means (%s)", unit) : xstrdup("node means");
		g->cells[c++] = xstrdup("node \u0394 min / median / max");
		g->cells[c++] = xstrdup("nodes gain / loss");
	}
	for (j = 0; !dist && j < s->plan.nnodes; j++)
		g->cells[c++] = *unit ? xasprintf("%s (%s)", s->plan.nodes[j].name, unit)
		                      : xstrdup(s->plan.nodes[j].name);
	if (spread)
		g->cells[c++] = xstrdup("spread");
	if (adaptive)
		g->cells[c++] = xstrdup("loops");
	g->cells[c++] = xstrdup("\u0394 vs baseline");
	g->cells[c++] = xstrdup("verdict");
	for (i = 0; i < s->npoints; i++) {
		const struct point *p = &s->points[i];
		struct buf b = BUF_INIT;

		for (j = 0; j < nc; j++) {
			words_param(s, p, cols[j], &b);
			g->cells[c++] = buf_detach(&b, NULL);
		}
		if (dist) {
			distribution_cells(s, p, NULL, 0, NULL, &g->cells[c]);
			c += DIST_COLS;
		}
		for (j = 0; !dist && j < s->plan.nnodes; j++) {
			node_cell(p, &p->nodes[j], &b);
			g->cells[c++] = buf_detach(&b, NULL);
		}
		if (spread) {
			if (!isnan(p->spread_pct))
				buf_printf(&b, "%.1f %%", p->spread_pct);
			g->cells[c++] = buf_detach(&b, NULL);
		}
		if (adaptive) {
			if (p->loops_run > 0)
				buf_printf(&b, "%d", p->loops_run);
			g->cells[c++] = buf_detach(&b, NULL);
		}
		delta_cell(p, &b);
		g->cells[c++] = buf_detach(&b, NULL);
		words_verdict_short(s, p, &b);
		g->cells[c++] = buf_detach(&b, NULL);
		g->point[row++] = i;
		for (j = 0; p->between.split && j < s->ncohorts; j++) {
			cohort_row_cells(s, p, j, dist, nc, spread, adaptive, &g->cells[c]);
			c += g->ncols;
			g->point[row++] = i;
		}
	}
}

static void grid_free(struct grid *g)
{
	int i;

	for (i = 0; i < g->ncols * g->nrows; i++)
		free(g->cells[i]);
	free(g->cells);
	free(g->point);
}

static void row_print(const struct grid *g, int r, const int *w, struct buf *out)
{
	int c;

	for (c = 0; c < g->ncols; c++) {
		const char *t = g->cells[r * g->ncols + c];

		buf_printf(out, "| %s%*s ", t, w[c] - text_width(t), "");
	}
	buf_puts(out, "|\n");
}

/* "5 loops", or "3\u201320 loops" for adaptive loops. */
static void loops_words(const struct plan *p, struct buf *out)
{
	if (p->loops_max > p->loops)
		buf_printf(out, "%d\u2013%d loops", p->loops, p->loops_max);
	else
		buf_printf(out, "%d loops", p->loops);
}

static void header_line(const struct sweep *s, struct buf *out)
{
	buf_printf(out, "sweep %lld \"%s\"  metric %s (%s)  ", (long long)s->id, s->plan.name,
	           s->plan.metric, s->plan.minimize ? "minimize" : "maximize");
	loops_words(&s->plan, out);
	buf_puts(out, " \u00d7 ");
	if (s->plan.runtime_s > 0)
		buf_printf(out, "%g s", s->plan.runtime_s);
	else
		buf_puts(out, s->plan.engine);
	buf_printf(out, "  %d node%s  %s", s->plan.nnodes, s->plan.nnodes == 1 ? "" : "s",
	           plan_strategy_name(s->plan.strategy));
	if (s->drift.rounds)
		buf_puts(out, ", interleaved rounds");
	if (strcmp(s->status, "completed"))
		buf_printf(out, "  [%s]", s->status);
	buf_puts(out, "\n");
}

static void table_head(const struct grid *g, const int *w, bool markdown, struct buf *out)
{
	int c, i;

	row_print(g, 0, w, out);
	if (!markdown)
		return;
	for (c = 0; c < g->ncols; c++) {
		buf_puts(out, "|");
		for (i = 0; i < w[c] + 2; i++)
			buf_puts(out, "-");
	}
	buf_puts(out, "|\n");
}

/* Column widths over every row of g. Caller frees. */
static int *widths(const struct grid *g)
{
	int *w = xcalloc((size_t)g->ncols, sizeof(int)), r, c;

	for (r = 0; r < g->nrows; r++)
		for (c = 0; c < g->ncols; c++)
			if (text_width(g->cells[r * g->ncols + c]) > w[c])
				w[c] = text_width(g->cells[r * g->ncols + c]);
	return w;
}

/* One table; a sequential sweep gets one per axis (as in seed 003) plus the final check. */
/* Why a race decision was made, in words ("tentative": not shown better, carried forward). */
static void race_words(const struct race_mark *m, struct buf *out)
{
	static const char *const why[] = {
		[RACE_WHY_NONE] = "",
		[RACE_WHY_WORSE] = "shown worse than the leader",
		[RACE_WHY_EQUIVALENT] = "equivalent to the leader and no cheaper to keep",
		[RACE_WHY_FAILED] = "no figures to compare",
		[RACE_WHY_LAST] = "the last value left",
		[RACE_WHY_ALL_EQUIVALENT] =
		        "the rest equivalent to the leader: the baseline's value kept",
		[RACE_WHY_CAP] = "undecided at job.loops.max",
		[RACE_WHY_BUDGET] = "undecided: the next round would exceed budget_s",
		[RACE_WHY_NOT_BETTER] = "undecided: no better than the leader by min_effect",
		[RACE_WHY_RULE] = "settled against it by the suite's rule",
	};
	/* How a race ended that kept its leader. */
	static const char *const ended[] = {
		[RACE_WHY_CAP] = "the race stopped at job.loops.max",
		[RACE_WHY_BUDGET] = "budget_s stopped the race",
		[RACE_WHY_NOT_BETTER] =
		        "only the baseline's value was left, no better by min_effect",
	};
	const char *end = (size_t)m->why < sizeof(ended) / sizeof(ended[0]) ? ended[m->why] : NULL;

	if (m->state == RACE_TENTATIVE && end)
		buf_printf(
		        out,
		        ": not shown better than the baseline's value (%s); carried forward: the "
		        "later axes race over it and the final confirmation decides",
		        end);
	else if (m->state == RACE_WON && end)
		buf_printf(out, ": kept when %s", end);
	else if (m->why != RACE_WHY_NONE)
		buf_printf(out, ": %s", why[m->why]);
}

/* One line per raced point of an adaptive sweep: what the race decided, after how many
 * loops, why, and the comparison it used ("dropped after 3 loops (round 1): shown worse than
 * the leader; vs point 4 nr_requests=256: -27.8 % [-30.1, -25.4]"). */
static void race_lines(const struct sweep *s, struct buf *out)
{
	int i, n = 0;

	for (i = 0; i < s->npoints; i++) {
		const struct point *p = &s->points[i];
		const struct race_mark *m = &p->race;
		struct buf c = BUF_INIT, v = BUF_INIT;

		if (m->state == RACE_NONE)
			continue;
		if (!n++)
			buf_puts(out, "race (adaptive):\n");
		config_format(&p->cfg, &c);
		buf_printf(out, "  point %d %s: %s", i + 1, c.data ? c.data : "",
		           sweep_race_state_code(m->state));
		if (m->state != RACE_RUNNING)
			buf_printf(out, " after %d loops (round %d)", m->loops, m->round);
		race_words(m, out);
		if (m->vs >= 0) {
			config_format(&s->points[m->vs].cfg, &v);
			buf_printf(out, "; vs point %d %s: %+.1f %% [%+.1f, %+.1f]", m->vs + 1,
			           v.data ? v.data : "", m->delta_pct, m->low_pct, m->high_pct);
		}
		buf_puts(out, "\n");
		buf_release(&c);
		buf_release(&v);
	}
	if (n)
		buf_puts(out, "\n");
}

/* Under a table whose fs.mkfs column is compact: the options every row shares. */
static void mkfs_common_line(const struct sweep *s, bool markdown, struct buf *out)
{
	struct buf common = BUF_INIT;

	words_mkfs_common(s, &common);
	if (common.len)
		buf_printf(out, "fs.mkfs in every row: %s%s%s%s\n", markdown ? "`" : "",
		           common.data, markdown ? "`" : "", markdown ? "\n" : "");
	buf_release(&common);
}

/* A fleet-scale table (more than REPORT_NODE_COLUMNS_MAX nodes, all_nodes not asked) shows
 * the nodes' distribution instead of a column per node. */
static void table_render(const struct sweep *s, bool markdown, bool all_nodes, struct buf *out)
{
	bool seq = s->plan.strategy != PLAN_GRID;
	bool dist = !all_nodes && s->plan.nnodes > REPORT_NODE_COLUMNS_MAX;
	struct grid g;
	int *w, r, i, j, group = -3;

	grid_build(s, dist, &g);
	for (i = 0; markdown && i < g.ncols * g.nrows; i++)
		text_markdown_cell(&g.cells[i]);
	w = widths(&g);
	header_line(s, out);
	if (markdown)
		buf_puts(out, "\n");
	for (r = 1; r < g.nrows; r++) {
		const struct point *p = &s->points[g.point[r]];
		int key = seq ? p->axis : -2;

		if (key != group) {
			if (seq && key >= 0) {
				const struct plan_axis *a = &s->plan.axes[key];

				buf_printf(out, "%saxis %d:", r > 1 ? "\n" : "", key + 1);
				for (j = 0; j < a->nparams; j++)
					buf_printf(out, "%s%s", j ? ", " : " ", a->params[j]);
				buf_puts(out, markdown ? "\n\n" : "\n");
			} else if (seq) {
				buf_printf(out,
				           "%sfinal confirmation against the original baseline:%s",
				           r > 1 ? "\n" : "", markdown ? "\n\n" : "\n");
			}
			table_head(&g, w, markdown, out);
			group = key;
		}
		row_print(&g, r, w, out);
	}
	if (g.nrows == 1)
		table_head(&g, w, markdown, out);
	buf_puts(out, "\n");
	mkfs_common_line(s, markdown, out);
	race_lines(s, out);
	words_best_line(s, out);
	if (s->noise.nnoisy > 0) {
		buf_puts(out, "noise: ");
		words_noise(s, out);
		buf_puts(out, "\n");
	}
	if (s->drift.nsignificant > 0) {
		buf_puts(out, "drift: ");
		words_drift(s, out);
		buf_puts(out, "\n");
	}
	if (words_warmup_due(s)) {
		buf_puts(out, "warm-up: ");
		words_warmup(s, out);
		buf_puts(out, "\n");
	}
	if (words_rounds_due(s)) {
		buf_puts(out, "rounds: ");
		words_rounds(s, out);
		buf_puts(out, "\n");
	}
	for (i = 0; i < s->nwarnings; i++) {
		buf_puts(out, "warning: ");
		words_warning(s, &s->warnings[i], out);
		buf_puts(out, "\n");
	}
	free(w);
	grid_free(&g);
}

static void csv_num(struct buf *out, double v)
{
	buf_puts(out, ",");
	if (!isnan(v))
		buf_printf(out, "%.6g", v);
}

/* One line per point and node, with every pass, for spreadsheets. */
static void csv_render(const struct sweep *s, struct buf *out)
{
	char cols[PLAN_COLUMNS_MAX][PARAM_NAME_MAX];
	int nc = plan_columns(&s->plan, cols, PLAN_COLUMNS_MAX), i, j, k;

	buf_puts(out, "sweep,point,role,axis");
	for (j = 0; j < nc; j++) {
		buf_puts(out, ",");
		text_csv_field(out, cols[j]);
	}
	buf_puts(out, ",node,state,n,mean,stdev,delta_pct,ci_low_pct,ci_high_pct,node_verdict,"
	              "row_delta_pct,row_verdict,row_ci_low_pct,row_ci_high_pct,tau_pct,i2_pct,"
	              "q_p,mde_pct,loops_needed,loops,node_cv_pct,node_disagrees,cohort,"
	              "cohort_verdict,passes\n");
	for (i = 0; i < s->npoints; i++) {
		const struct point *p = &s->points[i];

		for (k = 0; k < s->plan.nnodes; k++) {
			const struct node_result *r = &p->nodes[k];
			const struct effect_node *nd = sweep_node_effect(p, k);
			struct buf cell = BUF_INIT;

			buf_printf(out, "%lld,%d,%s,%d", (long long)s->id, p->index,
			           sweep_role_code(p->role), p->axis);
			for (j = 0; j < nc; j++) {
				buf_puts(out, ",");
				buf_reset(&cell);
				if (!strcmp(cols[j], FSPARAM_MKFS) && config_get(&p->cfg, cols[j]))
					buf_puts(&cell,
					         config_get(&p->cfg, cols[j])->value); /* whole */
				else
					words_param(s, p, cols[j], &cell);
				text_csv_field(out, cell.data ? cell.data : "");
			}
			buf_puts(out, ",");
			text_csv_field(out, s->plan.nodes[k].name);
			buf_printf(out, ",%s,%d", sweep_node_state_code(r->state), r->sum.n);
			csv_num(out, r->sum.n ? r->sum.mean : NAN);
			csv_num(out, r->sum.n ? r->sum.stdev : NAN);
			csv_num(out, r->delta_pct);
			csv_num(out, r->ci_low_pct);
			csv_num(out, r->ci_high_pct);
			buf_printf(out, ",%s", words_decision_code(r->verdict));
			csv_num(out, p->delta_pct);
			buf_printf(out, ",%s", words_decision_code(p->verdict));
			csv_num(out, p->ci_low_pct);
			csv_num(out, p->ci_high_pct);
			csv_num(out, p->fx.nused ? p->fx.tau_pct : NAN);
			csv_num(out, p->fx.nused ? p->fx.i2_pct : NAN);
			csv_num(out, p->fx.nused ? p->fx.q_p : NAN);
			csv_num(out, p->fx.nused ? p->fx.mde_pct : NAN);
			buf_puts(out, ",");
			if (p->fx.nused && p->fx.loops_needed > 0)
				buf_printf(out, "%d", p->fx.loops_needed);
			buf_printf(out, ",%d", p->loops_run);
			csv_num(out, nd ? nd->cv_point_pct : NAN);
			buf_printf(out, ",%s,", nd && nd->disagrees ? "yes" : "");
			buf_reset(&cell);
			if (s->cohort_of)
				sweep_cohort_key(s, s->cohort_of[k], &cell);
			text_csv_field(out, cell.data ? cell.data : "");
			buf_printf(out, ",%s,",
			           s->cohort_of ? words_decision_code(
			                                  sweep_cohort_decision(p, s->cohort_of[k]))
			                        : "");
			for (j = 0; j < r->npasses; j++)
				buf_printf(out, "%s%.6g", j ? ";" : "", r->passes[j]);
			buf_puts(out, "\n");
			buf_release(&cell);
		}
	}
}

/* A suite: each workload's own table (its analysis as a sweep of its own, its own best line),
 * then the matrix and the rule's best line. */
static void suite_tables(const struct sweep *s, bool markdown, bool all_nodes, struct buf *out)
{
	const struct plan *p = &s->plan;
	int w;

	buf_printf(out, "suite of %d workloads%s%s%s, rule %s\n\n", p->nworkloads,
	           p->suite[0] ? " (" : "", p->suite, p->suite[0] ? ")" : "",
	           plan_rule_name(s->suite->rule));
	for (w = 0; w < p->nworkloads; w++) {
		buf_printf(out, "%sworkload %d of %d: '%s' (%s, %s)%s", markdown ? "### " : "",
		           w + 1, p->nworkloads, p->workloads[w].name, p->workloads[w].metric,
		           p->workloads[w].minimize ? "lower is better" : "higher is better",
		           markdown ? "\n\n" : "\n");
		{
			size_t from = out->len;
			char *at;

			table_render(&s->suite->wl[w], markdown, all_nodes, out);
			/* Its own best line is that workload's alone, not the suite's. */
			if ((at = strstr(out->data + from, "\nbest: ")) ||
			    (at = strstr(out->data + from, "\nno best: "))) {
				size_t off = (size_t)(at - out->data) + 1;
				struct buf rest = BUF_INIT;

				buf_puts(&rest, out->data + off);
				out->len = off;
				out->data[off] = '\0';
				buf_puts(out, "on its own, ");
				buf_puts(out, rest.data);
				buf_release(&rest);
			}
		}
		buf_puts(out, "\n");
	}
	if (markdown)
		buf_puts(out, "### ");
	report_suite_matrix(s, markdown, out);
}

void report_render(const struct sweep *s, enum report_format f, struct buf *out)
{
	report_render_nodes(s, f, false, out);
}

void report_render_nodes(const struct sweep *s, enum report_format f, bool all_nodes,
                         struct buf *out)
{
	size_t from = out->len;
	char *j;

	switch (f) {
	case REPORT_TABLE:
		if (s->suite)
			suite_tables(s, false, all_nodes, out);
		else
			table_render(s, false, all_nodes, out);
		text_terminal(out, from); /* the text of a sweep stored before it was cleaned */
		break;
	case REPORT_MARKDOWN:
		if (s->suite)
			suite_tables(s, true, all_nodes, out);
		else
			table_render(s, true, all_nodes, out);
		text_markdown(out, from);
		break;
	case REPORT_CSV:
		csv_render(s, out);
		if (s->suite) { /* the matrix's cells, a block of their own */
			buf_puts(out, "\n");
			report_suite_csv(s, out);
		}
		break;
	case REPORT_JSON:
		j = sweepdoc_write(s);
		buf_puts(out, j);
		buf_puts(out, "\n");
		free(j);
		break;
	}
}

/* The run-to-run line under compare's table: what the variation between the runs is, where it
 * was measured, and what the comparison can and cannot attribute. */
static void run_to_run_words(const struct verdict_run_to_run *rr, double min_effect_pct,
                             struct buf *out)
{
	buf_puts(out, "run-to-run: ");
	if (rr->assumed) {
		buf_printf(
		        out,
		        "nothing was measured in both runs or twice within one, so the variation "
		        "between runs cannot be estimated; it is taken as %g %% (min_effect): "
		        "differences under %.1f %% between these runs are within run-to-run "
		        "variation and are not called significant\n",
		        min_effect_pct > 0 ? min_effect_pct : 5.0, rr->within_pct);
		return;
	}
	if (rr->nshift > 0) {
		buf_puts(out, "the nodes' figures moved ");
		words_signed(out, rr->shift_pct);
		buf_puts(out, " %");
		if (rr->nshift > 1) {
			buf_puts(out, " (");
			words_signed(out, rr->shift_lo_pct);
			buf_puts(out, " to ");
			words_signed(out, rr->shift_hi_pct);
			buf_printf(out, " %% over %d nodes)", rr->nshift);
		}
		buf_puts(out, " between these runs (the median of each node's points)");
	}
	if (rr->nwithin > 0)
		buf_printf(out, "%sby %.1f %% within them (%d repeat%s and drift%s)",
		           rr->nshift > 0 ? " and " : "moved ", 100.0 * expm1(sqrt(rr->within_var)),
		           rr->nwithin, rr->nwithin == 1 ? "" : "s", rr->nwithin == 1 ? "" : "s");
	buf_printf(
	        out,
	        "; differences under %.1f %% between these runs are within run-to-run variation, "
	        "which every row's interval includes",
	        rr->within_pct);
	if (rr->from_between)
		buf_puts(out,
		         ": a change common to every point cannot be told from it with one pair "
		         "of runs (repeat both to measure one)");
	buf_puts(out, "\n");
}

void report_compare(const struct sweep *a, const struct sweep *b,
                    const struct verdict_comparison *cmp, bool markdown, struct buf *out)
{
	char cols[PLAN_COLUMNS_MAX][PARAM_NAME_MAX], **names = words_node_names(&a->plan);
	int nc = plan_columns(&a->plan, cols, PLAN_COLUMNS_MAX), i, j, k, r, c;
	size_t from = out->len;
	struct buf t = BUF_INIT;
	struct grid g;
	int *w;

	g.ncols = nc + a->plan.nnodes + 2;
	g.nrows = cmp->nrows + 1;
	g.cells = xcalloc((size_t)g.ncols * (size_t)g.nrows, sizeof(char *));
	g.point = NULL;
	c = 0;
	for (j = 0; j < nc; j++)
		g.cells[c++] = xstrdup(cols[j]);
	for (k = 0; k < a->plan.nnodes; k++)
		g.cells[c++] = xasprintf("%s: #%lld \u2192 #%lld", a->plan.nodes[k].name,
		                         (long long)a->id, (long long)b->id);
	g.cells[c++] = xstrdup("\u0394 fleet");
	g.cells[c++] = xstrdup("verdict");
	for (i = 0; i < cmp->nrows; i++) {
		const struct verdict_compare_row *row = &cmp->rows[i];
		const struct point *pa = &a->points[row->point_a];

		for (j = 0; j < nc; j++) {
			const struct setting *st = config_get(&pa->cfg, cols[j]);

			g.cells[c++] = xstrdup(st ? st->value : "-");
		}
		for (k = 0; k < a->plan.nnodes; k++) {
			const struct verdict_compare_cell *cell = &row->cells[k];
			const struct effect_node *nd =
			        k < row->fx.nnodes ? &row->fx.nodes[k] : NULL;

			if (!cell->present || !nd) {
				g.cells[c++] = xstrdup("-");
				continue;
			}
			buf_printf(&t, "%.1f \u2192 %.1f ", cell->a.mean, cell->b.mean);
			words_delta_ci(&t, nd->delta_pct, nd->ci_low_pct, nd->ci_high_pct);
			g.cells[c++] = buf_detach(&t, NULL);
		}
		words_delta_ci(&t, row->fx.delta_pct, row->fx.ci95_low_pct, row->fx.ci95_high_pct);
		g.cells[c++] = buf_detach(&t, NULL);
		words_decision(&row->fx, row->fx.decision, names, words_loops_ceiling(&b->plan),
		               &t);
		g.cells[c++] = buf_detach(&t, NULL);
	}
	free(names);
	for (i = 0; markdown && i < g.ncols * g.nrows; i++)
		text_markdown_cell(&g.cells[i]);
	w = widths(&g);
	buf_printf(out, "compare sweep %lld \"%s\" \u2192 sweep %lld \"%s\"  metric %s (%s)\n",
	           (long long)a->id, a->plan.name, (long long)b->id, b->plan.name, a->plan.metric,
	           a->plan.minimize ? "minimize" : "maximize");
	table_head(&g, w, markdown, out);
	for (r = 1; r < g.nrows; r++)
		row_print(&g, r, w, out);
	buf_printf(out, "%d of %d points matched\n", cmp->nrows, a->npoints);
	run_to_run_words(&cmp->rr, a->plan.min_effect_pct, out);
	if (markdown)
		text_markdown(out, from);
	else
		text_terminal(out, from);
	free(w);
	grid_free(&g);
}

int report_compare_suites(const struct sweep *a, const struct sweep *b, bool markdown,
                          struct buf *out)
{
	const struct plan *pa = &a->plan, *pb = &b->plan;
	int w, wb, matched = 0;

	buf_printf(out,
	           "compare suite sweep %lld \"%s\" \u2192 sweep %lld \"%s\": %d workload%s, "
	           "each compared on its own\n\n",
	           (long long)a->id, pa->name, (long long)b->id, pb->name, pa->nworkloads,
	           pa->nworkloads == 1 ? "" : "s");
	for (w = 0; w < pa->nworkloads; w++) {
		struct verdict_comparison cmp;

		for (wb = 0; wb < pb->nworkloads; wb++)
			if (!strcmp(pa->workloads[w].name, pb->workloads[wb].name))
				break;
		buf_printf(out, "workload %d of %d: '%s' (%s)\n", w + 1, pa->nworkloads,
		           pa->workloads[w].name, pa->workloads[w].metric);
		if (wb == pb->nworkloads) {
			buf_printf(out, "sweep %lld has no workload '%s'\n\n", (long long)b->id,
			           pa->workloads[w].name);
			continue;
		}
		analysis_sweeps_compared(&a->suite->wl[w], &b->suite->wl[wb], &cmp);
		report_compare(&a->suite->wl[w], &b->suite->wl[wb], &cmp, markdown, out);
		buf_puts(out, "\n");
		matched += cmp.nrows;
		verdict_comparison_release(&cmp);
	}
	return matched;
}

/* The best line of a stored sweep's summary: its stored decision (words_decision_summary,
 * as show and the site say it), or what a sweep stored before decisions has. */
static void summary_best(const struct ctlstore_summary *h, struct buf *out)
{
	if (h->has_decision && h->cohorts_differ) {
		buf_puts(out,
		         "best: per cohort (the cohorts' effects differ; show ID says which)\n");
		return;
	}
	if (h->has_decision) {
		words_decision_summary(&h->decision, h->status, out);
		buf_puts(out, "\n");
		return;
	}
	switch (h->outcome) {
	case OUTCOME_BEST:
		if (!h->legacy_best_line[0]) {
			buf_puts(out, "best: stored before decisions were kept (show ID judges it "
			              "again)\n");
			return;
		}
		break;
	case OUTCOME_BASELINE:
		buf_puts(out, "best: the baseline (no configuration gave a significant gain)\n");
		return;
	case OUTCOME_BASELINE_FAILED:
		buf_puts(out, "no best: the baseline failed on every node\n");
		return;
	case OUTCOME_NO_FIGURES:
		buf_puts(out, "no best: no configuration produced a figure to compare with the "
		              "baseline\n");
		return;
	case OUTCOME_PENDING:
		break;
	}
	if (h->legacy_best_line[0])
		buf_printf(out, "%s\n", h->legacy_best_line);
}

void report_history(const struct ctlstore_summary *h, int n, struct buf *out)
{
	int i;

	buf_printf(out, "%-5s %-20s %-11s %-10s %-6s %-14s %s\n", "id", "started", "status",
	           "strategy", "points", "metric", "name / best");
	for (i = 0; i < n; i++) {
		struct buf best = BUF_INIT;
		char iso[40];

		time_fmt_iso(h[i].created_at, iso, sizeof(iso));
		buf_printf(out, "%-5lld %-20s %-11s %-10s %-6d %-14s %s\n", (long long)h[i].id, iso,
		           h[i].status, h[i].strategy, h[i].npoints, h[i].metric, h[i].name);
		summary_best(&h[i], &best);
		if (best.len)
			buf_printf(out, "%67s%s", "", best.data);
		if (!strcmp(h[i].status, "abandoned")) {
			time_fmt_iso(h[i].saved_at > 0 ? h[i].saved_at : h[i].created_at, iso,
			             sizeof(iso));
			buf_printf(out,
			           "%67sits controller is gone (%s, pid %d); last point saved %s\n",
			           "", h[i].owner_host[0] ? h[i].owner_host : "host unknown",
			           h[i].owner_pid, iso);
		}
		buf_release(&best);
	}
}

void report_adaptive_duration(const struct sweep *s, struct buf *out)
{
	const struct plan *p = &s->plan;
	double ex, wo;

	race_remaining(s, &ex, &wo);
	buf_printf(
	        out,
	        "adaptive: each axis raced from %d to %d loops (%d looks, each at alpha 5 %%/%d); "
	        "the final confirmation runs %d loops\n",
	        p->loops, p->loops_max, race_looks(p), race_looks(p), p->loops_max);
	if (p->runtime_s > 0)
		buf_printf(out,
		           "loops per node: worst case %.0f x %g s = %.0f s, expected about %.0f x "
		           "%g s = %.0f s of benchmarking (nodes run in parallel)\n",
		           wo, p->runtime_s, wo * p->runtime_s, ex, p->runtime_s,
		           ex * p->runtime_s);
	else
		buf_printf(out, "loops per node: worst case %.0f, expected about %.0f\n", wo, ex);
	if (p->budget_s > 0)
		buf_printf(out,
		           "budget: %g benchmark-seconds per node; no round is begun that would go "
		           "over it (its decisions are left open)\n",
		           p->budget_s);
}

void report_dry_run(const struct sweep *s, int npoints_est, int nconfigs, bool complete,
                    struct buf *out)
{
	const struct plan *p = &s->plan;
	double loop_s = p->runtime_s > 0 ? p->runtime_s : 0;
	bool adaptive = p->loops_max > p->loops;
	struct buf loops = BUF_INIT;
	int i;

	loops_words(p, &loops);
	buf_printf(out, "dry run: \"%s\", %s strategy, %d node%s, %s per point%s\n", p->name,
	           plan_strategy_name(p->strategy), p->nnodes, p->nnodes == 1 ? "" : "s",
	           loops.data,
	           adaptive && p->strategy != PLAN_ADAPTIVE
	                   ? " (adaptive: after the minimum, one more loop at a time until the "
	                     "point is decided)"
	                   : "");
	for (i = 0; i < p->nnodes; i++)
		buf_printf(out, "  node %s  %s  device %s\n", p->nodes[i].name, p->nodes[i].url,
		           p->nodes[i].device);
	for (i = 0; i < s->npoints; i++) {
		struct buf b = BUF_INIT;

		config_format(&s->points[i].cfg, &b);
		buf_printf(out, "  point %d: %-9s %s\n", i + 1,
		           s->points[i].role == ROLE_BASELINE ? "baseline" : "",
		           b.data ? b.data : "");
		buf_release(&b);
	}
	if (p->strategy != PLAN_GRID) {
		for (i = 1; i < p->naxes; i++)
			buf_printf(
			        out,
			        "  then axis %d (%s%s): a fresh baseline + %d values, earlier axes "
			        "at their chosen values\n",
			        i + 1, p->axes[i].params[0], p->axes[i].nparams > 1 ? ", ..." : "",
			        p->axes[i].nvalues);
		buf_puts(out, "  then a final confirmation of the best configuration against the "
		              "baseline\n");
	}
	if (p->strategy == PLAN_ADAPTIVE) {
		report_adaptive_duration(s, out);
	} else {
		buf_printf(out, "at most %d points x %s", npoints_est, loops.data);
		if (loop_s > 0 && adaptive)
			buf_printf(out,
			           " x %g s = about %.0f\u2013%.0f s of benchmarking (nodes run in "
			           "parallel)",
			           p->runtime_s, npoints_est * p->loops * loop_s,
			           npoints_est * p->loops_max * loop_s);
		else if (loop_s > 0)
			buf_printf(out,
			           " x %g s = about %.0f s of benchmarking (nodes run in parallel)",
			           p->runtime_s, npoints_est * p->loops * loop_s);
		buf_puts(out, "\n");
	}
	buf_release(&loops);
	buf_printf(out, "pre-flight: every agent validates %d configuration%s with a dry run (",
	           nconfigs, nconfigs == 1 ? "" : "s");
	if (p->strategy == PLAN_GRID)
		buf_puts(out, "every point");
	else if (complete)
		buf_puts(out,
		         "the baseline, every axis value over it, and every combination with "
		         "earlier axes' values, since later axes run on top of earlier winners");
	else
		buf_printf(out,
		           "the baseline and every axis value over it; more than %d combinations "
		           "with earlier axes' values, so those are left to the agents at run time",
		           STRATEGY_CONFIGS_CAP);
	buf_puts(out, ") and the job, before anything changes\n");
	buf_puts(out, "nothing was changed\n");
}
