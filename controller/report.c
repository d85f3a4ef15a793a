/* report.c -- the sweep table (seed 003 style), markdown, CSV, JSON and the HTML report. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report.h"
#include "timeutil.h"
#include "verdict.h"
#include "xmalloc.h"
#include "banned.h"

#define COLS_MAX 32

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

static const char *role_name(enum point_role r)
{
	return r == ROLE_BASELINE ? "baseline" : r == ROLE_FINAL ? "final" : "candidate";
}

static const char *node_state_name(enum node_state st)
{
	static const char *const names[] = { "pending", "ok", "failed", "cancelled", "dropped" };

	return names[st];
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

/* A signed figure with a real minus sign: "+1.5", "−2.0". */
static void signed_fmt(struct buf *b, double v)
{
	if (v < 0 && fabs(v) >= 0.05)
		buf_printf(b, "\u2212%.1f", -v);
	else
		buf_printf(b, "+%.1f", fabs(v));
}

/* The value shown for one parameter of a point: "975→919" when a node adjusted it. */
static void param_cell(const struct sweep *s, const struct point *p, const char *name,
                       struct buf *b)
{
	const struct setting *req = config_get(&p->cfg, name);
	int i, j;

	if (!req) {
		buf_puts(b, "-");
		return;
	}
	buf_puts(b, req->value);
	for (i = 0; i < s->plan.nnodes; i++) {
		const struct node_result *r = &p->nodes[i];

		for (j = 0; j < r->applied.n; j++) {
			if (strcmp(r->applied.s[j].name, name) || !(r->adjusted_mask & (1u << j)))
				continue;
			buf_printf(b, "\u2192%s", r->applied.s[j].value);
			return;
		}
	}
}

static void node_cell(const struct sweep *s, const struct node_result *r, struct buf *b)
{
	if (r->state == NODE_DROPPED) {
		buf_puts(b, "dropped");
		return;
	}
	if (r->sum.n == 0) {
		buf_puts(b, r->state == NODE_PENDING ? "-" : node_state_name(r->state));
		return;
	}
	buf_printf(b, "%.1f \u00b1 %.1f", r->sum.mean, r->sum.stdev);
	if (r->state != NODE_OK)
		buf_printf(b, " (%s %d/%d)", node_state_name(r->state), r->npasses, s->plan.loops);
}

static void delta_cell(const struct point *p, struct buf *b)
{
	if (p->role == ROLE_BASELINE) {
		buf_puts(b, "baseline");
		return;
	}
	if (isnan(p->delta_pct))
		return;
	signed_fmt(b, p->delta_pct);
	buf_puts(b, " %");
	if (!isnan(p->ci_low_pct) && !isnan(p->ci_high_pct)) {
		buf_puts(b, " [");
		signed_fmt(b, p->ci_low_pct);
		buf_puts(b, ", ");
		signed_fmt(b, p->ci_high_pct);
		buf_puts(b, "]");
	}
}

static void verdict_cell(const struct point *p, struct buf *b)
{
	if (p->role == ROLE_FINAL)
		buf_puts(b, "final vs original baseline: ");
	buf_puts(b, verdict_row_name(p->verdict));
}

/* The cells of every row, header first: rows[r * ncols + c]. */
struct grid {
	int ncols, nrows;
	char **cells;
};

static void grid_build(const struct sweep *s, struct grid *g)
{
	char cols[COLS_MAX][PARAM_NAME_MAX];
	int nc = plan_columns(&s->plan, cols, COLS_MAX), i, j, c;
	const char *unit = plan_metric_unit(s->plan.metric);
	bool spread = s->plan.nnodes > 1;

	g->ncols = nc + s->plan.nnodes + (spread ? 1 : 0) + 2;
	g->nrows = s->npoints + 1;
	g->cells = xcalloc((size_t)g->ncols * (size_t)g->nrows, sizeof(char *));
	c = 0;
	for (j = 0; j < nc; j++)
		g->cells[c++] = xstrdup(cols[j]);
	for (j = 0; j < s->plan.nnodes; j++)
		g->cells[c++] = *unit ? xasprintf("%s (%s)", s->plan.nodes[j].name, unit)
		                      : xstrdup(s->plan.nodes[j].name);
	if (spread)
		g->cells[c++] = xstrdup("spread");
	g->cells[c++] = xstrdup("\u0394 vs baseline");
	g->cells[c++] = xstrdup("verdict");
	for (i = 0; i < s->npoints; i++) {
		const struct point *p = &s->points[i];
		struct buf b = BUF_INIT;

		for (j = 0; j < nc; j++) {
			param_cell(s, p, cols[j], &b);
			g->cells[c++] = buf_detach(&b, NULL);
		}
		for (j = 0; j < s->plan.nnodes; j++) {
			node_cell(s, &p->nodes[j], &b);
			g->cells[c++] = buf_detach(&b, NULL);
		}
		if (spread) {
			if (!isnan(p->spread_pct))
				buf_printf(&b, "%.1f %%", p->spread_pct);
			g->cells[c++] = buf_detach(&b, NULL);
		}
		delta_cell(p, &b);
		g->cells[c++] = buf_detach(&b, NULL);
		verdict_cell(p, &b);
		g->cells[c++] = buf_detach(&b, NULL);
	}
}

static void grid_free(struct grid *g)
{
	int i;

	for (i = 0; i < g->ncols * g->nrows; i++)
		free(g->cells[i]);
	free(g->cells);
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

void report_best_line(const struct sweep *s, struct buf *out)
{
	const struct point *p;
	int i, k = 0, n = 0;

	if (s->best < 0) {
		buf_puts(out, "best: the baseline (no configuration gave a significant gain)\n");
		return;
	}
	p = &s->points[s->best];
	buf_puts(out, "best: ");
	config_format(&p->cfg, out);
	buf_puts(out, "  ");
	signed_fmt(out, p->delta_pct);
	buf_printf(out, " %% (%s on ", verdict_row_name(p->verdict));
	for (i = 0; i < s->plan.nnodes; i++)
		if (p->nodes[i].verdict == VERDICT_GAIN)
			n++;
	for (i = 0; i < s->plan.nnodes; i++) {
		if (p->nodes[i].verdict != VERDICT_GAIN)
			continue;
		k++;
		buf_printf(out, "%s%s",
		           k == 1   ? ""
		           : k == n ? " and "
		                    : ", ",
		           s->plan.nodes[i].name);
	}
	buf_puts(out, ")\n");
}

static void header_line(const struct sweep *s, struct buf *out)
{
	buf_printf(out, "sweep %lld \"%s\"  metric %s (%s)  %d loops \u00d7 ", (long long)s->id,
	           s->plan.name, s->plan.metric, s->plan.minimize ? "minimize" : "maximize",
	           s->plan.loops);
	if (s->plan.runtime_s > 0)
		buf_printf(out, "%g s", s->plan.runtime_s);
	else
		buf_puts(out, s->plan.engine);
	buf_printf(out, "  %d node%s  %s", s->plan.nnodes, s->plan.nnodes == 1 ? "" : "s",
	           s->plan.strategy == PLAN_GRID ? "grid" : "sequential");
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
static void table_render(const struct sweep *s, bool markdown, struct buf *out)
{
	bool seq = s->plan.strategy == PLAN_SEQUENTIAL;
	struct grid g;
	int *w, r, i, j, group = -3;

	grid_build(s, &g);
	w = widths(&g);
	header_line(s, out);
	if (markdown)
		buf_puts(out, "\n");
	for (r = 1; r < g.nrows; r++) {
		const struct point *p = &s->points[r - 1];
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
	report_best_line(s, out);
	for (i = 0; i < s->nwarnings; i++)
		buf_printf(out, "warning: %s\n", s->warnings[i]);
	free(w);
	grid_free(&g);
}

static void csv_field(struct buf *out, const char *t)
{
	if (!strpbrk(t, ",\"\n")) {
		buf_puts(out, t);
		return;
	}
	buf_puts(out, "\"");
	for (; *t; t++) {
		if (*t == '"')
			buf_puts(out, "\"");
		buf_append(out, t, 1);
	}
	buf_puts(out, "\"");
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
	char cols[COLS_MAX][PARAM_NAME_MAX];
	int nc = plan_columns(&s->plan, cols, COLS_MAX), i, j, k;

	buf_puts(out, "sweep,point,role,axis");
	for (j = 0; j < nc; j++) {
		buf_puts(out, ",");
		csv_field(out, cols[j]);
	}
	buf_puts(out, ",node,state,n,mean,stdev,delta_pct,ci_low_pct,ci_high_pct,node_verdict,"
	              "row_delta_pct,row_verdict,passes\n");
	for (i = 0; i < s->npoints; i++) {
		const struct point *p = &s->points[i];

		for (k = 0; k < s->plan.nnodes; k++) {
			const struct node_result *r = &p->nodes[k];
			struct buf cell = BUF_INIT;

			buf_printf(out, "%lld,%d,%s,%d", (long long)s->id, p->index,
			           role_name(p->role), p->axis);
			for (j = 0; j < nc; j++) {
				buf_puts(out, ",");
				buf_reset(&cell);
				param_cell(s, p, cols[j], &cell);
				csv_field(out, cell.data ? cell.data : "");
			}
			buf_puts(out, ",");
			csv_field(out, s->plan.nodes[k].name);
			buf_printf(out, ",%s,%d", node_state_name(r->state), r->sum.n);
			csv_num(out, r->sum.n ? r->sum.mean : NAN);
			csv_num(out, r->sum.n ? r->sum.stdev : NAN);
			csv_num(out, r->delta_pct);
			csv_num(out, r->ci_low_pct);
			csv_num(out, r->ci_high_pct);
			buf_printf(out, ",%s", verdict_name(r->verdict));
			csv_num(out, p->delta_pct);
			buf_printf(out, ",%s,", verdict_row_name(p->verdict));
			for (j = 0; j < r->npasses; j++)
				buf_printf(out, "%s%.6g", j ? ";" : "", r->passes[j]);
			buf_puts(out, "\n");
			buf_release(&cell);
		}
	}
}

static json_t *num_or_null(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static json_t *setting_json(const struct setting *st)
{
	long long v;
	char *end;

	if (st->is_int) {
		v = strtoll(st->value, &end, 10);
		if (!*end)
			return json_integer(v);
	}
	return json_string(st->value);
}

static json_t *config_json(const struct config *c)
{
	json_t *o = json_object();
	int i;

	for (i = 0; i < c->n; i++)
		json_object_set_new(o, c->s[i].name, setting_json(&c->s[i]));
	return o;
}

static json_t *time_json(double t)
{
	char iso[40];

	if (t <= 0)
		return json_null();
	time_fmt_iso(t, iso, sizeof(iso));
	return json_string(iso);
}

static json_t *node_json(const struct sweep *s, const struct point *p, int k)
{
	const struct node_result *r = &p->nodes[k];
	json_t *o = json_object(), *passes = json_array(), *applied = json_object();
	int j;

	json_object_set_new(o, "node", json_string(s->plan.nodes[k].name));
	json_object_set_new(o, "state", json_string(node_state_name(r->state)));
	for (j = 0; j < r->npasses; j++)
		json_array_append_new(passes, json_real(r->passes[j]));
	json_object_set_new(o, "passes", passes);
	json_object_set_new(o, "n", json_integer(r->sum.n));
	json_object_set_new(o, "mean", r->sum.n ? json_real(r->sum.mean) : json_null());
	json_object_set_new(o, "stdev", r->sum.n ? json_real(r->sum.stdev) : json_null());
	json_object_set_new(o, "min", r->sum.n ? json_real(r->sum.min) : json_null());
	json_object_set_new(o, "max", r->sum.n ? json_real(r->sum.max) : json_null());
	for (j = 0; j < r->applied.n; j++) {
		json_t *a = json_object();
		const struct setting *req = config_get(&p->cfg, r->applied.s[j].name);

		if (req)
			json_object_set_new(a, "requested", setting_json(req));
		json_object_set_new(a, "value", setting_json(&r->applied.s[j]));
		json_object_set_new(a, "adjusted", json_boolean(r->adjusted_mask & (1u << j)));
		json_object_set_new(applied, r->applied.s[j].name, a);
	}
	json_object_set_new(o, "applied", applied);
	json_object_set_new(o, "job_id", r->job_id ? json_integer(r->job_id) : json_null());
	json_object_set_new(o, "job_runtime_s",
	                    r->job_runtime_s > 0 ? json_real(r->job_runtime_s) : json_null());
	json_object_set_new(o, "delta_pct", num_or_null(r->delta_pct));
	json_object_set_new(o, "ci_low_pct", num_or_null(r->ci_low_pct));
	json_object_set_new(o, "ci_high_pct", num_or_null(r->ci_high_pct));
	json_object_set_new(o, "verdict",
	                    r->verdict == VERDICT_NA ? json_null()
	                                             : json_string(verdict_name(r->verdict)));
	json_object_set_new(o, "error", r->error[0] ? json_string(r->error) : json_null());
	return o;
}

static json_t *point_json(const struct sweep *s, const struct point *p)
{
	json_t *o = json_object(), *nodes = json_array(), *cells = json_object();
	char cols[COLS_MAX][PARAM_NAME_MAX];
	int nc = plan_columns(&s->plan, cols, COLS_MAX), k;

	json_object_set_new(o, "index", json_integer(p->index));
	json_object_set_new(o, "role", json_string(role_name(p->role)));
	json_object_set_new(o, "axis", p->axis >= 0 ? json_integer(p->axis) : json_null());
	json_object_set_new(o, "ref", p->ref >= 0 ? json_integer(p->ref) : json_null());
	json_object_set_new(o, "params", config_json(&p->cfg));
	for (k = 0; k < nc; k++) {
		struct buf b = BUF_INIT;

		param_cell(s, p, cols[k], &b);
		json_object_set_new(cells, cols[k], json_string(b.data ? b.data : ""));
		buf_release(&b);
	}
	json_object_set_new(o, "display", cells);
	for (k = 0; k < s->plan.nnodes; k++)
		json_array_append_new(nodes, node_json(s, p, k));
	json_object_set_new(o, "nodes", nodes);
	json_object_set_new(o, "delta_pct", num_or_null(p->delta_pct));
	json_object_set_new(o, "ci_low_pct", num_or_null(p->ci_low_pct));
	json_object_set_new(o, "ci_high_pct", num_or_null(p->ci_high_pct));
	json_object_set_new(o, "spread_pct", num_or_null(p->spread_pct));
	json_object_set_new(o, "verdict",
	                    p->verdict == ROW_NA ? json_null()
	                                         : json_string(verdict_row_name(p->verdict)));
	return o;
}

char *report_json(const struct sweep *s)
{
	json_t *o = json_object(), *nodes = json_array(), *points = json_array(),
	       *cols = json_array();
	json_t *warn = json_array(), *axes = json_array(), *plan, *best;
	char names[COLS_MAX][PARAM_NAME_MAX];
	struct buf b = BUF_INIT;
	int i, j, nc = plan_columns(&s->plan, names, COLS_MAX);
	char *text;

	json_object_set_new(o, "format", json_string("fleettune-sweep"));
	json_object_set_new(o, "format_version", json_integer(1));
	json_object_set_new(o, "id", json_integer(s->id));
	json_object_set_new(o, "name", json_string(s->plan.name));
	json_object_set_new(o, "status", json_string(s->status));
	json_object_set_new(o, "created_at", time_json(s->created_at));
	json_object_set_new(o, "finished_at", time_json(s->finished_at));
	json_object_set_new(o, "strategy",
	                    json_string(s->plan.strategy == PLAN_GRID ? "grid" : "sequential"));
	json_object_set_new(o, "metric", json_string(s->plan.metric));
	json_object_set_new(o, "unit", json_string(plan_metric_unit(s->plan.metric)));
	json_object_set_new(o, "goal", json_string(s->plan.minimize ? "minimize" : "maximize"));
	json_object_set_new(o, "min_effect_pct", json_real(s->plan.min_effect_pct));
	json_object_set_new(o, "engine", json_string(s->plan.engine));
	json_object_set_new(o, "loops", json_integer(s->plan.loops));
	json_object_set_new(o, "runtime_s",
	                    s->plan.runtime_s > 0 ? json_real(s->plan.runtime_s) : json_null());
	for (i = 0; i < s->plan.nnodes; i++) {
		json_t *n = json_object();

		json_object_set_new(n, "name", json_string(s->plan.nodes[i].name));
		json_object_set_new(n, "url", json_string(s->plan.nodes[i].url));
		json_object_set_new(n, "device", json_string(s->plan.nodes[i].device));
		json_object_set_new(n, "dropped", json_boolean(s->node_dropped[i]));
		json_array_append_new(nodes, n);
	}
	json_object_set_new(o, "nodes", nodes);
	for (i = 0; i < nc; i++)
		json_array_append_new(cols, json_string(names[i]));
	json_object_set_new(o, "columns", cols);
	json_object_set_new(o, "baseline", config_json(&s->plan.baseline));
	for (i = 0; i < s->plan.naxes; i++) {
		json_t *a = json_object(), *ps = json_array(), *vs = json_array();

		for (j = 0; j < s->plan.axes[i].nparams; j++)
			json_array_append_new(ps, json_string(s->plan.axes[i].params[j]));
		for (j = 0; j < s->plan.axes[i].nvalues; j++)
			json_array_append_new(vs, config_json(&s->plan.axes[i].values[j]));
		json_object_set_new(a, "params", ps);
		json_object_set_new(a, "values", vs);
		json_array_append_new(axes, a);
	}
	json_object_set_new(o, "axes", axes);
	for (i = 0; i < s->npoints; i++)
		json_array_append_new(points, point_json(s, &s->points[i]));
	json_object_set_new(o, "points", points);
	if (s->best >= 0) {
		best = json_object();
		json_object_set_new(best, "point", json_integer(s->best));
		json_object_set_new(best, "params", config_json(&s->points[s->best].cfg));
		json_object_set_new(best, "delta_pct", num_or_null(s->points[s->best].delta_pct));
		json_object_set_new(best, "verdict",
		                    json_string(verdict_row_name(s->points[s->best].verdict)));
	} else {
		best = json_null();
	}
	json_object_set_new(o, "best", best);
	report_best_line(s, &b);
	if (b.len && b.data[b.len - 1] == '\n')
		b.data[--b.len] = '\0';
	json_object_set_new(o, "best_line", json_string(b.data));
	buf_release(&b);
	for (i = 0; i < s->nwarnings; i++)
		json_array_append_new(warn, json_string(s->warnings[i]));
	json_object_set_new(o, "warnings", warn);
	plan = s->plan.json ? json_loads(s->plan.json, 0, NULL) : NULL;
	json_object_set_new(o, "plan", plan ? plan : json_null());
	text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	json_decref(o);
	return text;
}

void report_render(const struct sweep *s, enum report_format f, struct buf *out)
{
	char *j;

	switch (f) {
	case REPORT_TABLE:
		table_render(s, false, out);
		break;
	case REPORT_MARKDOWN:
		table_render(s, true, out);
		break;
	case REPORT_CSV:
		csv_render(s, out);
		break;
	case REPORT_JSON:
		j = report_json(s);
		buf_puts(out, j);
		buf_puts(out, "\n");
		free(j);
		break;
	}
}

/* Read web_dir/rel into out; refuses paths that climb out of web_dir. */
static int web_file_read(const char *web_dir, const char *rel, struct buf *out, struct err *e)
{
	char *path;
	int rc;

	if (strstr(rel, "..") || rel[0] == '/' || strstr(rel, "://"))
		return err_set(e, -EINVAL, "bad_template", "report.html: refusing to inline '%s'",
		               rel);
	path = xasprintf("%s/%s", web_dir, rel);
	rc = buf_read_file(out, path, 64u << 20);
	if (rc < 0)
		err_set(e, rc, "web_unreadable", "cannot read '%s': %s", path, strerror(-rc));
	free(path);
	return rc;
}

/* Append text with every "</" written as "<\/" so it cannot close the script element. */
static void script_safe_append(struct buf *out, const char *t, size_t n)
{
	size_t i, start = 0;

	for (i = 0; i + 1 < n; i++) {
		if (t[i] == '<' && t[i + 1] == '/') {
			buf_append(out, t + start, i + 1 - start);
			buf_puts(out, "\\");
			start = i + 1;
		}
	}
	buf_append(out, t + start, n - start);
}

/* Value of attribute attr="..." inside the tag text [tag, end). Caller frees. */
static char *tag_attr(const char *tag, const char *end, const char *attr)
{
	char pat[32];
	const char *p, *q;

	snprintf(pat, sizeof(pat), "%s=\"", attr);
	p = strstr(tag, pat);
	if (!p || p >= end)
		return NULL;
	p += strlen(pat);
	q = strchr(p, '"');
	if (!q || q > end)
		return NULL;
	return xstrndup(p, (size_t)(q - p));
}

int report_html_build(const struct sweep *s, const char *tmpl, const char *web_dir, struct buf *out,
                      struct err *e)
{
	const char *p = tmpl, *data_tag = "<script id=\"sweep-data\" type=\"application/json\">";
	char *json = NULL, *src = NULL;
	bool data_done = false;
	int rc = 0;

	json = report_json(s);
	while (*p) {
		const char *lt = strchr(p, '<'), *gt;
		struct buf f = BUF_INIT;

		if (!lt) {
			buf_puts(out, p);
			break;
		}
		buf_append(out, p, (size_t)(lt - p));
		gt = strchr(lt, '>');
		if (!gt) {
			buf_puts(out, lt);
			break;
		}
		if (!strncmp(lt, data_tag, strlen(data_tag))) {
			const char *close = strstr(gt, "</script>");

			if (!close) {
				rc = err_set(e, -EINVAL, "bad_template",
				             "report.html: sweep-data script is not closed");
				goto out;
			}
			buf_puts(out, data_tag);
			script_safe_append(out, json, strlen(json));
			buf_puts(out, "</script>");
			p = close + strlen("</script>");
			data_done = true;
			continue;
		}
		if (!strncmp(lt, "<script", 7) && (src = tag_attr(lt, gt, "src")) &&
		    !strncmp(gt + 1, "</script>", 9)) {
			if ((rc = web_file_read(web_dir, src, &f, e)) < 0)
				goto out;
			buf_puts(out, "<script>");
			script_safe_append(out, f.data, f.len);
			buf_puts(out, "</script>");
			buf_release(&f);
			p = gt + 1 + 9;
		} else if (!strncmp(lt, "<link", 5) && strstr(lt, "rel=\"stylesheet\"") &&
		           strstr(lt, "rel=\"stylesheet\"") < gt &&
		           (src = tag_attr(lt, gt, "href"))) {
			if ((rc = web_file_read(web_dir, src, &f, e)) < 0)
				goto out;
			buf_puts(out, "<style>");
			script_safe_append(out, f.data, f.len);
			buf_puts(out, "</style>");
			buf_release(&f);
			p = gt + 1;
		} else {
			buf_append(out, lt, (size_t)(gt + 1 - lt));
			p = gt + 1;
		}
		free(src);
		src = NULL;
	}
	if (!data_done)
		rc = err_set(e, -EINVAL, "bad_template",
		             "report.html has no <script id=\"sweep-data\" "
		             "type=\"application/json\"></script>");
out:
	free(src);
	free(json);
	return rc;
}

int report_html_write(const struct sweep *s, const char *web_dir, const char *path, struct err *e)
{
	struct buf tmpl = BUF_INIT, out = BUF_INIT;
	FILE *f = NULL;
	int rc;

	rc = web_file_read(web_dir, "report.html", &tmpl, e);
	if (rc < 0)
		goto out;
	rc = report_html_build(s, tmpl.data, web_dir, &out, e);
	if (rc < 0)
		goto out;
	f = fopen(path, "w");
	if (!f || fwrite(out.data, 1, out.len, f) != out.len) {
		rc = err_set(e, -errno, "write_failed", "cannot write '%s': %s", path,
		             strerror(errno));
		goto out;
	}
out:
	if (f && fclose(f) && rc == 0)
		rc = err_set(e, -errno, "write_failed", "cannot write '%s': %s", path,
		             strerror(errno));
	buf_release(&tmpl);
	buf_release(&out);
	return rc;
}

static int node_by_name(const struct sweep *s, const char *name)
{
	int i;

	for (i = 0; i < s->plan.nnodes; i++)
		if (!strcmp(s->plan.nodes[i].name, name))
			return i;
	return -1;
}

int report_compare(const struct sweep *a, const struct sweep *b, bool markdown, struct buf *out)
{
	char cols[COLS_MAX][PARAM_NAME_MAX];
	int nc = plan_columns(&a->plan, cols, COLS_MAX), i, j, k, matched = 0, r, c;
	struct grid g;
	int *w;

	g.ncols = nc + a->plan.nnodes + 1;
	g.nrows = 1;
	g.cells = xcalloc((size_t)g.ncols * (size_t)(a->npoints + 1), sizeof(char *));
	c = 0;
	for (j = 0; j < nc; j++)
		g.cells[c++] = xstrdup(cols[j]);
	for (k = 0; k < a->plan.nnodes; k++)
		g.cells[c++] = xasprintf("%s: #%lld \u2192 #%lld", a->plan.nodes[k].name,
		                         (long long)a->id, (long long)b->id);
	g.cells[c++] = xstrdup("verdict");
	for (i = 0; i < a->npoints; i++) {
		const struct point *pa = &a->points[i], *pb = NULL;
		enum verdict v[256];
		int nv = 0;

		for (j = 0; j < b->npoints && !pb; j++)
			if (config_equal(&pa->cfg, &b->points[j].cfg))
				pb = &b->points[j];
		if (!pb)
			continue;
		matched++;
		g.nrows++;
		for (j = 0; j < nc; j++) {
			const struct setting *st = config_get(&pa->cfg, cols[j]);

			g.cells[c++] = xstrdup(st ? st->value : "-");
		}
		for (k = 0; k < a->plan.nnodes; k++) {
			int kb = node_by_name(b, a->plan.nodes[k].name);
			const struct node_result *ra = &pa->nodes[k];
			const struct node_result *rb = kb >= 0 ? &pb->nodes[kb] : NULL;
			struct verdict_cmp cmp;
			struct buf cell = BUF_INIT;

			if (!rb || ra->sum.n == 0 || rb->sum.n == 0) {
				g.cells[c++] = xstrdup("-");
				continue;
			}
			verdict_compare(&ra->sum, &rb->sum, a->plan.minimize,
			                a->plan.min_effect_pct, &cmp);
			buf_printf(&cell, "%.1f \u2192 %.1f ", ra->sum.mean, rb->sum.mean);
			if (!isnan(cmp.delta_pct)) {
				signed_fmt(&cell, cmp.delta_pct);
				buf_puts(&cell, " %");
				if (!isnan(cmp.ci_low_pct)) {
					buf_puts(&cell, " [");
					signed_fmt(&cell, cmp.ci_low_pct);
					buf_puts(&cell, ", ");
					signed_fmt(&cell, cmp.ci_high_pct);
					buf_puts(&cell, "]");
				}
			}
			if (nv < 256)
				v[nv++] = cmp.verdict;
			g.cells[c++] = buf_detach(&cell, NULL);
		}
		g.cells[c++] = xstrdup(verdict_row_name(verdict_row(v, nv)));
	}
	w = widths(&g);
	buf_printf(out, "compare sweep %lld \"%s\" \u2192 sweep %lld \"%s\"  metric %s (%s)\n",
	           (long long)a->id, a->plan.name, (long long)b->id, b->plan.name, a->plan.metric,
	           a->plan.minimize ? "minimize" : "maximize");
	table_head(&g, w, markdown, out);
	for (r = 1; r < g.nrows; r++)
		row_print(&g, r, w, out);
	buf_printf(out, "%d of %d points matched\n", matched, a->npoints);
	free(w);
	grid_free(&g);
	return matched;
}

/* Where a parameter lives under /sys/block/DEV, or NULL for sysctls. */
static void sysfs_attr(const char *name, char *out, size_t len)
{
	if (!strncmp(name, "iosched.", 8))
		snprintf(out, len, "queue/iosched/%s", name + 8);
	else if (!strcmp(name, "queue_depth"))
		snprintf(out, len, "device/queue_depth");
	else if (!strcmp(name, "setra"))
		snprintf(out, len, "queue/read_ahead_kb");
	else
		snprintf(out, len, "queue/%s", name);
}

static bool is_sysctl(const char *name)
{
	return !strncmp(name, "vm.", 3) || !strncmp(name, "fs.", 3) || !strncmp(name, "kernel.", 7);
}

/* The value to write: setra (512-byte sectors) becomes read_ahead_kb. */
static void attr_value(const struct setting *st, char *out, size_t len)
{
	if (!strcmp(st->name, "setra"))
		snprintf(out, len, "%lld", strtoll(st->value, NULL, 10) / 2);
	else
		snprintf(out, len, "%s", st->value);
}

/* The scheduler first: switching it resets nr_requests and iosched/. */
static void export_order(const struct config *c, int *order)
{
	int i, k = 0;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->s[i].name, "scheduler"))
			order[k++] = i;
	for (i = 0; i < c->n; i++)
		if (strcmp(c->s[i].name, "scheduler") && strncmp(c->s[i].name, "iosched.", 8))
			order[k++] = i;
	for (i = 0; i < c->n; i++)
		if (!strncmp(c->s[i].name, "iosched.", 8))
			order[k++] = i;
}

int report_export(const struct sweep *s, const char *format, struct buf *out, struct err *e)
{
	const struct config *c = s->best >= 0 ? &s->points[s->best].cfg : &s->plan.baseline;
	int order[CONFIG_MAX], i, k, j;
	char attr[160], val[PARAM_VALUE_MAX];
	bool udev = !strcmp(format, "udev"), sysctls = false;

	if (!udev && strcmp(format, "tuned"))
		return err_set(e, -EINVAL, "bad_format", "--format: '%s' is not udev or tuned",
		               format);
	export_order(c, order);
	if (udev) {
		buf_printf(out, "# fleettune sweep %lld \"%s\": %s\n", (long long)s->id,
		           s->plan.name,
		           s->best >= 0 ? "best configuration" : "baseline (no significant gain)");
		buf_printf(out, "# install as /etc/udev/rules.d/60-fleettune.rules\n");
	} else {
		buf_printf(out,
		           "# fleettune sweep %lld \"%s\"\n[main]\nsummary=fleettune sweep "
		           "%lld: %s\n\n[sysfs]\n",
		           (long long)s->id, s->plan.name, (long long)s->id,
		           s->best >= 0 ? "best configuration" : "baseline");
	}
	for (k = 0; k < s->plan.nnodes; k++) {
		const char *dev = s->plan.nodes[k].device;

		for (j = 0; j < k; j++)
			if (!strcmp(s->plan.nodes[j].device, dev))
				break;
		if (j < k)
			continue; /* one rule per distinct device name */
		if (udev)
			buf_printf(out, "ACTION==\"add|change\", KERNEL==\"%s\"", dev);
		for (i = 0; i < c->n; i++) {
			const struct setting *st = &c->s[order[i]];

			if (is_sysctl(st->name)) {
				sysctls = true;
				continue;
			}
			sysfs_attr(st->name, attr, sizeof(attr));
			attr_value(st, val, sizeof(val));
			if (udev)
				buf_printf(out, ", ATTR{%s}=\"%s\"", attr, val);
			else
				buf_printf(out, "/sys/block/%s/%s=%s\n", dev, attr, val);
		}
		if (udev)
			buf_puts(out, "\n");
	}
	if (!sysctls)
		return 0;
	if (udev)
		buf_puts(out, "# sysctls (not expressible as udev rules): put in "
		              "/etc/sysctl.d/60-fleettune.conf\n");
	else
		buf_puts(out, "\n[sysctl]\n");
	for (i = 0; i < c->n; i++)
		if (is_sysctl(c->s[i].name))
			buf_printf(out, "%s%s=%s\n", udev ? "# " : "", c->s[i].name, c->s[i].value);
	return 0;
}
